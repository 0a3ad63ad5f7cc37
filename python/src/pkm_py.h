/* python/src/pkm_py.h: what the sections of the extension pkmflex._core share (_core.c: errors,
 * NumPy helpers, Case, the module; _modes_map.c; _time.c: transient and dynamics; _fit.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_PY_H
#define PKM_PY_H

/* One NumPy C-API table for the extension's files: _core.c imports it (import_array). */
#define PY_ARRAY_UNIQUE_SYMBOL pkm_py_ARRAY_API
#ifndef PKM_PY_MAIN
#define NO_IMPORT_ARRAY
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "pkm/analysis.h"
#include "pkm/casefile.h"
#include "pkm/cases.h"
#include "pkm/fit.h"
#include "pkm/io.h"
#include "pkm/map.h"
#include "pkm/modeinfo.h"
#include "pkm/status.h"
#include "pkm/topology.h"
#include "pkm/newmark.h"
#include "pkm/dynrun.h"
#include "pkm/transient.h"
#include "pkm/trajectory.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STOP_CHECK_S 0.02

extern PyObject *pkm_py_core_error;          /* pkmflex.Error */
extern PyThread_type_lock pkm_py_solve_lock; /* one library solve at a time per process */

typedef struct {
    PyObject_HEAD const pkm_case *c;
    void *params;
    char *file; /* the case file as given, NULL for a built-in */
} CaseObject;

/* The sweep's stop callback: in the calling process, every STOP_CHECK_S, Python's pending
 * signals (a KeyboardInterrupt is kept to be raised when the sweep returns). */
typedef struct stop_state {
    pid_t pid; /* the calling process */
    double last;
    int stopped;
    PyObject *type, *value, *tb; /* the exception the signal handler raised */
} stop_state;

PyObject *pkm_py_raise_ctx(pkm_status st, const pkm_ctx *ctx);
PyObject *pkm_py_raise_invalid(const char *fmt, ...);
PyObject *pkm_py_array_copy(int type, int nd, const npy_intp *dims, const void *data);
PyObject *pkm_py_doubles(int nd, const npy_intp *dims, const double *data);
PyObject *pkm_py_doubles1(npy_intp n, const double *data);
int pkm_py_put(PyObject *d, const char *key, PyObject *value);
PyObject *pkm_py_string_list(int n, const char *(*name)(const void *, int), const void *src);
int pkm_py_read_doubles(PyObject *seq, int n, double *out, const char *what);
double pkm_py_now_s(void);
int pkm_py_case_ready(const CaseObject *self);
int pkm_py_read_pose(const pkm_case *c, PyObject *obj, double *pose);
int pkm_py_check_solver(const pkm_case *c, int *form, int eig);
PyObject *pkm_py_case_modes(CaseObject *self, PyObject *args, PyObject *kw);
int pkm_py_map_stop(int64_t point, void *user);
/* The KeyboardInterrupt a stop callback caught, raised again carrying partial (stolen, may be
 * NULL) as its .partial; NULL. */
PyObject *pkm_py_interrupted(stop_state *s, PyObject *partial);
PyObject *pkm_py_case_map(CaseObject *self, PyObject *args, PyObject *kw);
PyObject *pkm_py_core_read_map(PyObject *mod, PyObject *args);
PyObject *pkm_py_case_transient(CaseObject *self, PyObject *args, PyObject *kw);
PyObject *pkm_py_case_dynamics(CaseObject *self, PyObject *args, PyObject *kw);
PyObject *pkm_py_case_fit(CaseObject *self, PyObject *args, PyObject *kw);
PyObject *pkm_py_core_read_table(PyObject *mod, PyObject *args);

#endif
