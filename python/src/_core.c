/* python/src/_core.c: pkmflex._core, the CPython extension over libpkmflex (issue 31).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One implementation: every number comes from the library's public API (the headers of
 * include/pkm), called as the command line calls it (cli/modes.c, cli/map.c); this file only moves
 * arrays between the library and NumPy. The Python layer (pkmflex/__init__.py) shapes the results
 * into classes.
 *
 * Threads and signals. The long calls (a modal solve, a map sweep) run with the GIL released,
 * one at a time per process (solve_lock: ARPACK keeps Fortran SAVE state, so two sparse solves
 * must never overlap, pkm/modal.h). A map sweep asks Python for pending signals every
 * STOP_CHECK_S seconds through its stop callback (in the calling process only: with threads > 1
 * the workers are forked processes that must not touch the interpreter): Ctrl-C stops the sweep
 * as it stops `pkmflex map`, and the KeyboardInterrupt raised carries the partial map. */
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

static PyObject *core_error;          /* pkmflex.Error */
static PyThread_type_lock solve_lock; /* one library solve at a time per process */

/* ---------------------------------------------------------------------------------------------
 * Errors: pkmflex.Error(message) with .status (the pkm_status, negative), .status_name
 * ("PKM_ERR_INVALID") and .description (pkm_status_str). */

static const char *status_name(pkm_status st)
{
    switch (st) {
#define STATUS_NAME_(name, value, text)                                                            \
    case name:                                                                                     \
        return #name;
        PKM_STATUS_LIST(STATUS_NAME_)
#undef STATUS_NAME_
    }
    return "PKM_ERR_UNKNOWN";
}

/* exc.name = value, stealing the reference to value; -1 on error (value NULL included). */
static int set_attr(PyObject *exc, const char *name, PyObject *value)
{
    if (value == NULL) return -1;
    const int rc = PyObject_SetAttrString(exc, name, value);
    Py_DECREF(value);
    return rc;
}

static PyObject *raise_status(pkm_status st, const char *msg)
{
    PyObject *exc =
        PyObject_CallFunction(core_error, "s", msg && msg[0] ? msg : pkm_status_str(st));
    if (exc == NULL) return NULL;
    if (set_attr(exc, "status", PyLong_FromLong((long)st)) < 0 ||
        set_attr(exc, "status_name", PyUnicode_FromString(status_name(st))) < 0 ||
        set_attr(exc, "description", PyUnicode_FromString(pkm_status_str(st))) < 0) {
        Py_DECREF(exc);
        return NULL;
    }
    PyErr_SetObject(core_error, exc);
    Py_DECREF(exc);
    return NULL;
}

static PyObject *raise_ctx(pkm_status st, const pkm_ctx *ctx)
{
    return raise_status(st, ctx->msg);
}

static PyObject *raise_invalid(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return raise_status(PKM_ERR_INVALID, msg);
}

/* ---------------------------------------------------------------------------------------------
 * NumPy helpers: new arrays holding a copy of library memory. */

static PyObject *array_copy(int type, int nd, const npy_intp *dims, const void *data)
{
    PyObject *a = PyArray_SimpleNew(nd, (npy_intp *)dims, type);
    if (a == NULL) return NULL;
    const size_t bytes = (size_t)PyArray_NBYTES((PyArrayObject *)a);
    if (data != NULL && bytes > 0) memcpy(PyArray_DATA((PyArrayObject *)a), data, bytes);
    return a;
}

static PyObject *doubles(int nd, const npy_intp *dims, const double *data)
{
    return array_copy(NPY_FLOAT64, nd, dims, data);
}

static PyObject *doubles1(npy_intp n, const double *data)
{
    return doubles(1, &n, data);
}

/* d[key] = value, stealing the reference to value; -1 on error (value NULL included). */
static int put(PyObject *d, const char *key, PyObject *value)
{
    if (value == NULL) return -1;
    const int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

static PyObject *string_list(int n, const char *(*name)(const void *, int), const void *src)
{
    PyObject *l = PyList_New(n);
    for (int k = 0; l != NULL && k < n; k++) {
        PyObject *s = PyUnicode_FromString(name(src, k));
        if (s == NULL) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, k, s);
    }
    return l;
}

/* A sequence of n floats into out; -1 with an exception set. */
static int read_doubles(PyObject *seq, int n, double *out, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of numbers");
    if (fast == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        raise_invalid("%s: expected %d values, got %zd", what, n, PySequence_Fast_GET_SIZE(fast));
        Py_DECREF(fast);
        return -1;
    }
    for (int k = 0; k < n; k++) {
        out[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, k));
        if (out[k] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------------------------------------
 * Case: a built-in case or a case file, with its parameters. */

typedef struct {
    PyObject_HEAD const pkm_case *c;
    void *params;
    char *file; /* the case file as given, NULL for a built-in */
} CaseObject;

static void case_dealloc(CaseObject *self)
{
    pkm_case_params_destroy(&self->params);
    free(self->file);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int is_case_file(const char *arg)
{
    const size_t n = strlen(arg);
    return strchr(arg, '/') != NULL || (n > 5 && strcmp(arg + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(arg + n - 4, ".yml") == 0);
}

/* Case(name_or_file, sets): sets a sequence of (key, text) pairs applied in order, as --set. */
static int case_init(CaseObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"name", "sets", NULL};
    const char *name = NULL;
    PyObject *sets = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|O", kwlist, &name, &sets)) return -1;
    pkm_case_params_destroy(&self->params);
    free(self->file);
    self->file = NULL;
    self->c = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_status st;
    if (is_case_file(name)) {
        self->file = strdup(name);
        if (self->file == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        st = pkm_case_file_load(name, &self->c, &self->params, &ctx);
    } else {
        self->c = pkm_case_find(name);
        if (self->c == NULL) {
            char names[512] = "";
            size_t len = 0;
            for (const pkm_case *const *k = pkm_case_list(); *k != NULL && len < sizeof names; k++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                                        (*k)->name);
            raise_invalid("unknown case '%s' (built-in cases: %s; a case file needs a '/' or "
                          ".yaml)",
                          name, names);
            return -1;
        }
        st = pkm_case_params_create(self->c, &self->params, &ctx);
    }
    if (st != PKM_OK) {
        raise_ctx(st, &ctx);
        return -1;
    }
    if (sets == NULL || sets == Py_None) return 0;
    PyObject *fast = PySequence_Fast(sets, "sets: expected a sequence of (key, value) pairs");
    if (fast == NULL) return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        const char *key = NULL, *value = NULL;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "ss", &key, &value)) {
            Py_DECREF(fast);
            return -1;
        }
        if (pkm_case_param_find(self->c, key) == NULL) {
            Py_DECREF(fast);
            raise_invalid("%s has no parameter '%s'", self->c->name, key);
            return -1;
        }
        st = pkm_case_param_set(self->c, self->params, key, value, &ctx);
        if (st != PKM_OK) {
            Py_DECREF(fast);
            raise_ctx(st, &ctx);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static int case_ready(const CaseObject *self)
{
    if (self->c != NULL && self->params != NULL) return 1;
    PyErr_SetString(PyExc_RuntimeError, "Case not initialised");
    return 0;
}

static const char *pose_name_at(const void *c, int k)
{
    return ((const pkm_case *)c)->pose_names[k];
}
static const char *pose_unit_at(const void *c, int k)
{
    return ((const pkm_case *)c)->pose_units[k];
}

/* The value of parameter entry d in params, as a Python float, int or choice name. */
static PyObject *param_value(const pkm_param_desc *d, const void *params)
{
    const char *field = (const char *)params + d->offset;
    switch (d->kind) {
    case PKM_PARAM_DOUBLE:
        return PyFloat_FromDouble(*(const double *)(const void *)field);
    case PKM_PARAM_INT:
        return PyLong_FromLong(*(const int *)(const void *)field);
    case PKM_PARAM_ENUM: {
        const unsigned v = *(const unsigned *)(const void *)field;
        for (const pkm_param_choice *ch = d->choices; ch != NULL && ch->name != NULL; ch++)
            if (ch->value == v) return PyUnicode_FromString(ch->name);
        return PyLong_FromUnsignedLong(v);
    }
    }
    Py_RETURN_NONE;
}

/* info(): the case's description: name, description, file, pose coordinates and units, home,
 * formulation, analyses, and its parameters {key: (value, unit, help)} in table order. */
static PyObject *case_info(CaseObject *self, PyObject *unused)
{
    (void)unused;
    if (!case_ready(self)) return NULL;
    const pkm_case *c = self->c;
    PyObject *d = PyDict_New();
    if (d == NULL) return NULL;
    const npy_intp np = c->npose;
    const pkm_formulation_type *ft = pkm_formulation_type_of(c->formulation);
    PyObject *params = PyDict_New();
    if (put(d, "name", PyUnicode_FromString(c->name)) < 0 ||
        put(d, "description", PyUnicode_FromString(c->description ? c->description : "")) < 0 ||
        put(d, "file", self->file ? PyUnicode_FromString(self->file) : Py_NewRef(Py_None)) < 0 ||
        put(d, "pose_names", string_list(c->npose, pose_name_at, c)) < 0 ||
        put(d, "pose_units", string_list(c->npose, pose_unit_at, c)) < 0 ||
        put(d, "home", doubles1(np, c->home)) < 0 ||
        put(d, "formulation", PyUnicode_FromString(ft ? ft->name : "")) < 0 ||
        put(d, "modal", PyBool_FromLong((c->analyses & PKM_CASE_MODAL) != 0)) < 0 ||
        put(d, "dynamics", PyBool_FromLong((c->analyses & PKM_CASE_DYNAMICS) != 0)) < 0 ||
        params == NULL) {
        Py_XDECREF(params);
        Py_DECREF(d);
        return NULL;
    }
    for (int k = 0; k < c->nparams; k++) {
        const pkm_param_desc *e = &c->params[k];
        PyObject *v = param_value(e, self->params);
        PyObject *t =
            v ? Py_BuildValue("(Nss)", v, e->unit ? e->unit : "", e->help ? e->help : "") : NULL;
        if (put(params, e->key, t) < 0) {
            Py_DECREF(params);
            Py_DECREF(d);
            return NULL;
        }
    }
    if (put(d, "parameters", params) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* The pose argument: None (the case's home) or npose numbers. */
static int read_pose(const pkm_case *c, PyObject *obj, double *pose)
{
    if (obj == NULL || obj == Py_None) {
        memcpy(pose, c->home, sizeof(double) * (size_t)c->npose);
        return 0;
    }
    char what[64];
    snprintf(what, sizeof what, "pose of %s", c->name);
    return read_doubles(obj, c->npose, pose, what);
}

/* The formulation (-1: the case's) and eigensolver indices, checked. */
static int check_solver(const pkm_case *c, int *form, int eig)
{
    if (*form < 0) *form = (int)c->formulation;
    if (pkm_formulation_type_of((pkm_formulation)*form) == NULL) {
        raise_invalid("formulation %d: not a formulation", *form);
        return -1;
    }
    if (pkm_eigensolver_type_of((pkm_eigensolver)eig) == NULL) {
        raise_invalid("solver %d: not an eigensolver", eig);
        return -1;
    }
    if ((c->analyses & PKM_CASE_MODAL) == 0) {
        raise_invalid("case '%s' is a rigid-body case: it has no natural frequencies", c->name);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * modes: one pose, as `pkmflex modes` (cli/modes.c). */

typedef struct modes_job {
    /* in */
    const pkm_case *c;
    const void *params;
    double pose[PKM_POSE_MAX];
    pkm_formulation form;
    pkm_eigensolver eig;
    pkm_modal_opts mo;
    int shapes, describe;
    /* out */
    pkm_model *m;
    pkm_analysis *an;
    const pkm_modes *md;
    pkm_assembly_info info;
    int nnode, nbody, njoint, nleg;
    double *u;         /* nev x nnode x 6 */
    pkm_mode_info *mi; /* nev */
    double *body_e, *joint_e, *leg_e;
    pkm_ctx ctx;
} modes_job;

static void modes_job_free(modes_job *j)
{
    free(j->u);
    free(j->mi);
    free(j->body_e);
    free(j->joint_e);
    free(j->leg_e);
    pkm_analysis_destroy(&j->an);
    pkm_model_destroy(&j->m);
}

/* The work of modes without the GIL: build, solve, then the shapes and describe quantities. */
static pkm_status modes_run(modes_job *j)
{
    pkm_status st = j->c->build(j->params, j->pose, &j->m, &j->ctx);
    if (st == PKM_OK) st = pkm_analysis_create(j->form, j->eig, &j->mo, &j->an, &j->ctx);
    if (st == PKM_OK && (j->shapes || j->describe)) st = pkm_analysis_keep_dofmap(j->an, &j->ctx);
    if (st == PKM_OK) st = pkm_analysis_solve(j->an, j->m, &j->md, &j->info, &j->ctx);
    if (st != PKM_OK) return st;
    const size_t nev = (size_t)j->md->nev;
    j->nnode = pkm_model_node_count(j->m);
    j->nbody = pkm_model_body_count(j->m);
    j->njoint = pkm_model_joint_count(j->m);
    if (j->shapes) {
        j->u = calloc(nev * 6 * (size_t)j->nnode + 1, sizeof *j->u);
        if (j->u == NULL)
            return pkm_ctx_fail(&j->ctx, PKM_ERR_NOMEM, __FILE__, __LINE__,
                                "out of memory for the mode shapes");
        for (size_t k = 0; k < nev && st == PKM_OK; k++)
            st = pkm_analysis_mode_displacements(j->an, (int)k, j->u + k * 6 * (size_t)j->nnode,
                                                 &j->ctx);
        if (st != PKM_OK) return st;
    }
    if (j->describe) {
        pkm_topology *t = NULL;
        st = pkm_topology_create(j->m, &t, &j->ctx);
        if (st != PKM_OK) return st;
        j->nleg = pkm_topology_leg_count(t);
        pkm_topology_destroy(&t);
        j->mi = calloc(nev, sizeof *j->mi);
        j->body_e = calloc(nev * (size_t)j->nbody + 1, sizeof *j->body_e);
        j->joint_e = calloc(nev * (size_t)j->njoint + 1, sizeof *j->joint_e);
        j->leg_e = calloc(nev * (size_t)j->nleg + 1, sizeof *j->leg_e);
        if (!j->mi || !j->body_e || !j->joint_e || !j->leg_e)
            return pkm_ctx_fail(&j->ctx, PKM_ERR_NOMEM, __FILE__, __LINE__,
                                "out of memory for the mode descriptions");
        for (size_t k = 0; k < nev && st == PKM_OK; k++)
            st = pkm_mode_describe(
                j->m, pkm_analysis_dofmap(j->an), j->md->vectors + k * (size_t)j->md->n, &j->mi[k],
                j->body_e + k * (size_t)j->nbody, j->joint_e + k * (size_t)j->njoint,
                j->leg_e + k * (size_t)j->nleg, &j->ctx);
    }
    return st;
}

static const char *body_name_at(const void *m, int k)
{
    return pkm_model_body((const pkm_model *)m, k)->name;
}
static const char *joint_name_at(const void *m, int k)
{
    return pkm_model_joint((const pkm_model *)m, k)->name;
}

static PyObject *modes_result(const modes_job *j, int vectors)
{
    const pkm_modes *md = j->md;
    const npy_intp nev = md->nev;
    PyObject *d = PyDict_New();
    if (d == NULL) return NULL;
    int rc = put(d, "freq_hz", doubles1(nev, md->freq_hz)) |
             put(d, "omega2", doubles1(nev, md->omega2)) |
             put(d, "residual", doubles1(nev, md->residual)) |
             put(d, "backward_error", doubles1(nev, md->backward_error)) |
             put(d, "accuracy", doubles1(nev, md->accuracy)) |
             put(d, "orth_error", PyFloat_FromDouble(md->orth_error)) |
             put(d, "sigma", PyFloat_FromDouble(md->sigma)) |
             put(d, "iterations", PyLong_FromLong(md->iterations)) |
             put(d, "op_count", PyLong_FromLong(md->op_count)) |
             put(d, "zero_modes", PyLong_FromLong(md->zero_modes)) |
             put(d, "n_reduced", PyLong_FromLongLong((long long)j->info.n_reduced)) |
             put(d, "n_total", PyLong_FromLongLong((long long)j->info.n_total)) |
             put(d, "pose", doubles1(j->c->npose, j->pose)) |
             put(d, "body_names", string_list(j->nbody, body_name_at, j->m)) |
             put(d, "joint_names", string_list(j->njoint, joint_name_at, j->m));
    if (rc == 0 && vectors) {
        const npy_intp dims[2] = {nev, (npy_intp)md->n};
        rc = put(d, "vectors", doubles(2, dims, md->vectors));
    }
    if (rc == 0 && j->u != NULL) {
        const npy_intp dims[3] = {nev, j->nnode, 6}, ndims[2] = {j->nnode, 3};
        PyObject *xyz = PyArray_SimpleNew(2, (npy_intp *)ndims, NPY_FLOAT64);
        PyObject *body = PyArray_SimpleNew(1, (npy_intp *)ndims, NPY_INT32);
        if (xyz != NULL && body != NULL)
            for (int n = 0; n < j->nnode; n++) {
                const pkm_node *nd = pkm_model_node(j->m, n);
                memcpy((double *)PyArray_DATA((PyArrayObject *)xyz) + 3 * n, nd->x, sizeof nd->x);
                ((int32_t *)PyArray_DATA((PyArrayObject *)body))[n] = nd->body;
            }
        rc = put(d, "shapes", doubles(3, dims, j->u)) | put(d, "node_xyz", xyz) |
             put(d, "node_body", body);
    }
    if (rc == 0 && j->mi != NULL) {
        const npy_intp d6[2] = {nev, 6}, db[2] = {nev, j->nbody}, dj[2] = {nev, j->njoint},
                       dl[2] = {nev, j->nleg};
        PyObject *tw = PyArray_SimpleNew(2, (npy_intp *)d6, NPY_FLOAT64),
                 *em = PyArray_SimpleNew(2, (npy_intp *)d6, NPY_FLOAT64),
                 *en = PyArray_SimpleNew(1, (npy_intp *)d6, NPY_FLOAT64);
        if (tw != NULL && em != NULL && en != NULL)
            for (npy_intp k = 0; k < nev; k++) {
                memcpy((double *)PyArray_DATA((PyArrayObject *)tw) + 6 * k, j->mi[k].twist,
                       sizeof j->mi[k].twist);
                memcpy((double *)PyArray_DATA((PyArrayObject *)em) + 6 * k, j->mi[k].eff_mass,
                       sizeof j->mi[k].eff_mass);
                ((double *)PyArray_DATA((PyArrayObject *)en))[k] = j->mi[k].energy;
            }
        rc = put(d, "twist", tw) | put(d, "eff_mass", em) | put(d, "energy", en) |
             put(d, "body_energy", doubles(2, db, j->body_e)) |
             put(d, "joint_energy", doubles(2, dj, j->joint_e)) |
             put(d, "leg_energy", doubles(2, dl, j->leg_e));
    }
    if (rc != 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* modes(pose=None, nev=10, formulation=-1, solver=0, max_accuracy=0, vectors=False,
 * shapes=True, describe=True) -> dict */
static PyObject *case_modes(CaseObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"pose",    "nev",    "formulation", "solver", "max_accuracy",
                             "vectors", "shapes", "describe",    NULL};
    PyObject *pose = NULL;
    int nev = 10, form = -1, eig = PKM_EIG_ARPACK, vectors = 0, shapes = 1, describe = 1;
    double max_accuracy = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Oiiidppp", kwlist, &pose, &nev, &form, &eig,
                                     &max_accuracy, &vectors, &shapes, &describe))
        return NULL;
    if (!case_ready(self)) return NULL;
    modes_job j = {.c = self->c,
                   .params = self->params,
                   .eig = (pkm_eigensolver)eig,
                   .shapes = shapes,
                   .describe = describe};
    pkm_ctx_clear(&j.ctx);
    if (check_solver(self->c, &form, eig) < 0 || read_pose(self->c, pose, j.pose) < 0) return NULL;
    if (nev < 1 || nev > 100000) return raise_invalid("nev %d: expected 1 to 100000", nev);
    if (!(max_accuracy == 0.0 || (max_accuracy >= 1e-16 && max_accuracy <= 1.0)))
        return raise_invalid("max_accuracy %g: expected a number from 1e-16 to 1", max_accuracy);
    j.form = (pkm_formulation)form;
    j.mo = pkm_modal_opts_default();
    j.mo.nev = nev;
    j.mo.max_accuracy = max_accuracy;
    pkm_status st;
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(solve_lock, WAIT_LOCK);
    st = modes_run(&j);
    PyThread_release_lock(solve_lock);
    Py_END_ALLOW_THREADS;
    PyObject *r = st == PKM_OK ? modes_result(&j, vectors) : raise_ctx(st, &j.ctx);
    modes_job_free(&j);
    return r;
}

/* ---------------------------------------------------------------------------------------------
 * Maps: `pkmflex map` (cli/map.c) without its file handling, and the map files. */

static const char *map_pose_name_at(const void *map, int k)
{
    return ((const pkm_map *)map)->pose_names[k];
}

/* A map as a dict of its settings and NumPy arrays shaped by the grid. */
static PyObject *map_result(const pkm_map *map)
{
    PyObject *d = PyDict_New();
    if (d == NULL) return NULL;
    npy_intp shape[PKM_MAP_MAX_AXES + 2];
    for (int a = 0; a < map->naxes; a++)
        shape[a] = map->axes[a].count;
    const int na = map->naxes;
    PyObject *axes = PyList_New(0);
    if (axes == NULL) {
        Py_DECREF(d);
        return NULL;
    }
    for (int a = 0; a < na; a++) {
        const pkm_map_axis *ax = &map->axes[a];
        PyObject *values = PyArray_SimpleNew(1, &shape[a], NPY_FLOAT64);
        if (values != NULL)
            for (int k = 0; k < ax->count; k++)
                ((double *)PyArray_DATA((PyArrayObject *)values))[k] = pkm_map_axis_value(ax, k);
        PyObject *t = values ? Py_BuildValue("(ssiddiN)", ax->name, ax->unit, ax->pose_index,
                                             ax->start, ax->stop, ax->count, values)
                             : NULL;
        if (t == NULL || PyList_Append(axes, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(axes);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(t);
    }
    const pkm_formulation_type *ft = pkm_formulation_type_of(map->formulation);
    const pkm_eigensolver_type *et = pkm_eigensolver_type_of(map->eigensolver);
    int rc =
        put(d, "axes", axes) | put(d, "case", PyUnicode_FromString(map->case_name)) |
        put(d, "pose_names", string_list(map->npose, map_pose_name_at, map)) |
        put(d, "base_pose", doubles1(map->npose, map->base_pose)) |
        put(d, "nev", PyLong_FromLong(map->nev)) |
        put(d, "formulation", PyUnicode_FromString(ft ? ft->name : "")) |
        put(d, "solver", PyUnicode_FromString(et ? et->name : "")) |
        put(d, "case_params", PyUnicode_FromString(map->case_params)) |
        put(d, "case_file", PyUnicode_FromString(map->case_file)) |
        put(d, "version", PyUnicode_FromString(map->version)) |
        put(d, "commit", PyUnicode_FromString(map->commit)) |
        put(d, "ncoord", PyLong_FromLongLong((long long)map->ncoord)) |
        put(d, "solver_fallbacks", PyLong_FromLongLong((long long)map->solver_fallbacks)) |
        put(d, "tracking", PyUnicode_FromString(map->tracking == PKM_TRACK_MAC ? "mac" : "rank")) |
        put(d, "tracking_note", PyUnicode_FromString(map->tracking_note)) |
        put(d, "mac_threshold", PyFloat_FromDouble(map->track.mac_threshold)) |
        put(d, "cluster_tol", PyFloat_FromDouble(map->track.cluster_tol));
    PyObject *params = rc == 0 ? PyDict_New() : NULL;
    for (int k = 0; params != NULL && k < map->nparams; k++) {
        const pkm_map_param *p = &map->params[k];
        PyObject *v = p->kind == PKM_PARAM_ENUM  ? PyUnicode_FromString(p->choice)
                      : p->kind == PKM_PARAM_INT ? PyLong_FromLongLong((long long)p->value)
                                                 : PyFloat_FromDouble(p->value);
        if (put(params, p->key, v) < 0) Py_CLEAR(params);
    }
    rc |= put(d, "parameters", params);
    shape[na] = map->nev;
    if (rc == 0 && map->status != NULL) {
        rc = put(d, "status", array_copy(NPY_INT8, na, shape, map->status)) |
             put(d, "freq_hz", doubles(na + 1, shape, map->freq_hz)) |
             put(d, "residual", doubles(na + 1, shape, map->residual)) |
             put(d, "accuracy", doubles(na + 1, shape, map->accuracy)) |
             put(d, "tracked_mode", array_copy(NPY_INT32, na + 1, shape, map->tracked)) |
             put(d, "tracking_mac", doubles(na + 1, shape, map->tracking_mac)) |
             put(d, "tracking_parent", array_copy(NPY_INT64, na, shape, map->tracking_parent));
    }
    if (rc == 0 && map->modes != NULL && map->ncoord > 0) {
        shape[na + 1] = (npy_intp)map->ncoord;
        rc = put(d, "modes", doubles(na + 2, shape, map->modes));
    }
    if (rc != 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* The sweep's stop callback: in the calling process, every STOP_CHECK_S, Python's pending
 * signals (a KeyboardInterrupt is kept to be raised when the sweep returns). */
typedef struct stop_state {
    pid_t pid; /* the calling process */
    double last;
    int stopped;
    PyObject *type, *value, *tb; /* the exception the signal handler raised */
} stop_state;

static int map_stop(int64_t point, void *user)
{
    (void)point;
    stop_state *s = user;
    if (s->stopped) return 1;
    if (getpid() != s->pid) return 0; /* a forked worker: the calling process decides */
    const double t = now_s();
    if (t - s->last < STOP_CHECK_S) return 0;
    s->last = t;
    PyGILState_STATE g = PyGILState_Ensure();
    if (PyErr_CheckSignals() < 0) {
        PyErr_Fetch(&s->type, &s->value, &s->tb);
        s->stopped = 1;
    }
    PyGILState_Release(g);
    return s->stopped;
}

/* map(axes, base_pose=None, nev=8, formulation=-1, solver=2, threads=1, mac_threshold=0.8,
 * cluster_tol=1e-5, keep_modes=False, case_params="", output=None) -> dict; axes a sequence of
 * (pose coordinate name, start, stop, count). */
static PyObject *case_map(CaseObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"axes",       "base_pose",   "nev",           "formulation",
                             "solver",     "threads",     "mac_threshold", "cluster_tol",
                             "keep_modes", "case_params", "output",        NULL};
    const pkm_track_opts tdef = pkm_track_opts_default();
    PyObject *axes = NULL, *base = NULL;
    int nev = 8, form = -1, eig = PKM_EIG_BLOCK, threads = 1, keep_modes = 0;
    double mac_threshold = tdef.mac_threshold, cluster_tol = tdef.cluster_tol;
    const char *case_params = "", *output = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Oiiiiddpsz", kwlist, &axes, &base, &nev, &form,
                                     &eig, &threads, &mac_threshold, &cluster_tol, &keep_modes,
                                     &case_params, &output))
        return NULL;
    if (!case_ready(self)) return NULL;
    const pkm_case *c = self->c;
    if (check_solver(c, &form, eig) < 0) return NULL;
    if (nev < 1 || nev > 100000) return raise_invalid("nev %d: expected 1 to 100000", nev);
    if (threads < 1 || threads > 256)
        return raise_invalid("threads %d: expected an integer from 1 to 256", threads);
    if (!(mac_threshold >= 0.0 && mac_threshold <= 1.0 && cluster_tol >= 0.0 && cluster_tol <= 1.0))
        return raise_invalid("mac_threshold and cluster_tol: expected numbers from 0 to 1");
    pkm_map map;
    pkm_map_init(&map);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    PyObject *fast = PySequence_Fast(axes, "grid: expected a sequence of axes");
    if (fast == NULL) return NULL;
    const Py_ssize_t na = PySequence_Fast_GET_SIZE(fast);
    if (na < 1 || na > PKM_MAP_MAX_AXES) {
        Py_DECREF(fast);
        return raise_invalid("grid: %zd axes, expected 1 to %d", na, PKM_MAP_MAX_AXES);
    }
    for (Py_ssize_t a = 0; a < na; a++) {
        const char *name = NULL;
        double start = 0.0, stop = 0.0;
        long count = 0;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, a), "sddl", &name, &start, &stop,
                              &count)) {
            Py_DECREF(fast);
            return NULL;
        }
        int idx = -1;
        for (int k = 0; k < c->npose; k++)
            if (strcmp(name, c->pose_names[k]) == 0) idx = k;
        for (Py_ssize_t b = 0; idx >= 0 && b < a; b++)
            if (map.axes[b].pose_index == idx) {
                Py_DECREF(fast);
                return raise_invalid("grid: axis '%s' given twice", name);
            }
        if (idx < 0 || count < 1 || count > 10000000 || !isfinite(start) || !isfinite(stop)) {
            Py_DECREF(fast);
            return idx < 0
                       ? raise_invalid("grid: '%s' is not a pose coordinate of %s", name, c->name)
                       : raise_invalid("grid: axis '%s': finite start and stop and a count "
                                       "from 1 to 10000000 expected",
                                       name);
        }
        pkm_map_axis *ax = &map.axes[a];
        snprintf(ax->name, sizeof ax->name, "%s", c->pose_names[idx]);
        snprintf(ax->unit, sizeof ax->unit, "%s", c->pose_units[idx]);
        ax->pose_index = idx;
        ax->start = start;
        ax->stop = stop;
        ax->count = (int)count;
    }
    Py_DECREF(fast);
    map.naxes = (int)na;
    pkm_status st = pkm_map_set_case(&map, c, self->params, self->file, &ctx);
    if (st != PKM_OK) return raise_ctx(st, &ctx);
    map.npose = c->npose;
    for (int k = 0; k < c->npose; k++)
        snprintf(map.pose_names[k], sizeof map.pose_names[k], "%s", c->pose_names[k]);
    if (read_pose(c, base, map.base_pose) < 0) {
        pkm_map_free(&map);
        return NULL;
    }
    if (strlen(case_params) >= sizeof map.case_params) {
        pkm_map_free(&map);
        return raise_invalid("case_params: more than %zu characters", sizeof map.case_params - 1);
    }
    snprintf(map.case_params, sizeof map.case_params, "%s", case_params);
    map.nev = nev;
    map.formulation = (pkm_formulation)form;
    map.eigensolver = (pkm_eigensolver)eig;
    map.opts.nev = nev;
    map.track.mac_threshold = mac_threshold;
    map.track.cluster_tol = cluster_tol;
    map.keep_modes = keep_modes;
    st = pkm_map_alloc(&map, &ctx);
    if (st != PKM_OK) {
        pkm_map_free(&map);
        return raise_ctx(st, &ctx);
    }
    stop_state stop = {.pid = getpid(), .last = now_s()};
    pkm_sweep_opts so = pkm_sweep_opts_default();
    so.nworkers = threads;
    so.stop = map_stop;
    so.user = &stop;
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(solve_lock, WAIT_LOCK);
    st = pkm_map_sweep(c, self->params, &map, &so, &ctx);
    PyThread_release_lock(solve_lock);
    Py_END_ALLOW_THREADS;
    if (st != PKM_OK) {
        Py_XDECREF(stop.type);
        Py_XDECREF(stop.value);
        Py_XDECREF(stop.tb);
        pkm_map_free(&map);
        return raise_ctx(st, &ctx);
    }
    if (stop.stopped) {
        /* As `pkmflex map` on Ctrl-C: the poses done so far (PENDING elsewhere) to
         * OUTPUT.partial, and the exception carries them as .partial. */
        PyObject *partial = map_result(&map);
        if (output != NULL) {
            char path[4096];
            snprintf(path, sizeof path, "%s.partial", output);
            if (pkm_map_write_h5(&map, path, &ctx) != PKM_OK) PyErr_Clear();
        }
        pkm_map_free(&map);
        PyErr_NormalizeException(&stop.type, &stop.value, &stop.tb);
        if (partial != NULL && stop.value != NULL) {
            if (PyObject_SetAttrString(stop.value, "partial", partial) < 0) PyErr_Clear();
        }
        Py_XDECREF(partial);
        PyErr_Restore(stop.type, stop.value, stop.tb);
        return NULL;
    }
    /* The vectors were kept for tracking; they are handed over only if asked for. */
    if (!keep_modes) pkm_map_free_modes(&map);
    if (output != NULL && (st = pkm_map_write_h5(&map, output, &ctx)) != PKM_OK) {
        pkm_map_free(&map);
        return raise_ctx(st, &ctx);
    }
    PyObject *r = map_result(&map);
    pkm_map_free(&map);
    return r;
}

/* read_map(path) -> dict (a file written by pkmflex map or Case.map(output=...)). */
static PyObject *core_read_map(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *path = NULL;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    pkm_map map;
    pkm_map_init(&map);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_status st;
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(solve_lock, WAIT_LOCK);
    st = pkm_map_read_h5(path, &map, &ctx);
    PyThread_release_lock(solve_lock);
    Py_END_ALLOW_THREADS;
    if (st != PKM_OK) {
        pkm_map_free(&map);
        return raise_ctx(st, &ctx);
    }
    PyObject *r = map_result(&map);
    pkm_map_free(&map);
    return r;
}

/* ---------------------------------------------------------------------------------------------
 * transient: `pkmflex transient` (cli/transient.c) without its printing: the rows of
 * pkm_transient_run as one [rows, columns] array, the command's csv columns first. */

/* The trajectory: kind 0 a named one of the case (name NULL: its first), stretched to t_end;
 * 1 harmonic (coordinate k, amplitude, frequency), as --trajectory harmonic:COORD,A,F; 2 a CSV
 * file of samples; 3 samples t [m], q [m][npose] (a not-a-knot spline). */
typedef struct traj_spec {
    int kind;
    const char *name;
    int coord;
    double amp, freq;
    int m;
    const double *t, *q;
} traj_spec;

static pkm_status make_trajectory(const pkm_case *c, const traj_spec *ts, double t_end,
                                  pkm_trajectory **tr, pkm_ctx *ctx)
{
    if (ts->kind == 2) return pkm_trajectory_read_csv(ts->name, c->pose_names, c->npose, tr, ctx);
    if (ts->kind == 3) return pkm_trajectory_create_spline(c->npose, ts->m, ts->t, ts->q, tr, ctx);
    if (ts->kind == 1) {
        if (ts->coord < 0 || ts->coord >= c->npose || !(ts->amp != 0.0 && fabs(ts->amp) <= 1e3) ||
            !(ts->freq >= 1e-6 && ts->freq <= 1e6))
            return pkm_ctx_fail(ctx, PKM_ERR_INVALID, __FILE__, __LINE__,
                                "harmonic trajectory: a pose coordinate, a nonzero amplitude "
                                "up to 1e3 and a frequency in [1e-6, 1e6] Hz expected");
        pkm_traj_coord coord[PKM_POSE_MAX];
        for (int i = 0; i < c->npose; i++)
            coord[i] = (pkm_traj_coord){PKM_TRAJ_POLY2, {c->home[i], 0.0, 0.0, 0.0}};
        coord[ts->coord] =
            (pkm_traj_coord){PKM_TRAJ_SINE, {c->home[ts->coord], ts->amp, ts->freq, 0.0}};
        /* 20 periods unless t_end is later (cli/common.c, CLI_HARMONIC_PERIODS) */
        const pkm_traj_desc d = {"harmonic", "harmonic motion of one pose coordinate",
                                 fmax(isnan(t_end) ? 0.0 : t_end, 20.0 / ts->freq), coord};
        return pkm_trajectory_create_analytic(&d, c->npose, tr, ctx);
    }
    const pkm_traj_desc *d = ts->name == NULL ? &c->traj[0] : pkm_case_traj_find(c, ts->name);
    if (d == NULL || c->ntraj < 1) {
        char names[256] = "";
        size_t len = 0;
        for (int k = 0; k < c->ntraj && len < sizeof names; k++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "",
                                    c->traj[k].name);
        return pkm_ctx_fail(ctx, PKM_ERR_INVALID, __FILE__, __LINE__,
                            "trajectory '%s': case '%s' has no such trajectory (%s), and a file "
                            "needs a '/' or .csv",
                            ts->name ? ts->name : "", c->name, names);
    }
    pkm_traj_desc stretched = *d;
    if (t_end > stretched.duration) stretched.duration = t_end;
    return pkm_trajectory_create_analytic(&stretched, c->npose, tr, ctx);
}

typedef struct tr_rows {
    int ndrive, nfreq, elastic, width; /* width: doubles per row */
    int64_t n, cap;
    double *data;
    double rayleigh[2];
    stop_state *stop;
    pkm_ctx *ctx;
    int failed; /* out of memory */
} tr_rows;

/* One row: t, error[6], the drives (the locked drive's reaction where the model has it, else
 * the rigid-body drive, as the command's drive_ columns), the deflections (elastic drives), the
 * frequencies; then quasi_static[6], the energies (4), updated. */
static int tr_sink(void *user, const pkm_transient_row *r)
{
    tr_rows *o = user;
    if (o->data == NULL) {
        o->ndrive = r->ndrive;
        o->nfreq = r->nfreq;
        o->width = 7 + o->ndrive * (o->elastic ? 2 : 1) + o->nfreq + 6 + 4 + 1;
        o->rayleigh[0] = r->rayleigh[0];
        o->rayleigh[1] = r->rayleigh[1];
    }
    if (o->n == o->cap) {
        const int64_t cap = o->cap ? 2 * o->cap : 1024;
        double *d = realloc(o->data, sizeof(double) * (size_t)(cap * o->width));
        if (d == NULL) {
            o->failed = 1;
            pkm_ctx_fail(o->ctx, PKM_ERR_NOMEM, __FILE__, __LINE__,
                         "out of memory for %lld transient rows", (long long)cap);
            return 1;
        }
        o->data = d, o->cap = cap;
    }
    double *row = o->data + o->n * o->width;
    int k = 0;
    row[k++] = r->t;
    for (int i = 0; i < 6; i++)
        row[k++] = r->error[i];
    for (int i = 0; i < o->ndrive; i++)
        row[k++] = isnan(r->reaction[i]) ? r->drive[i] : r->reaction[i];
    for (int i = 0; o->elastic && i < o->ndrive; i++)
        row[k++] = r->deflection != NULL ? r->deflection[i] : NAN;
    for (int i = 0; i < o->nfreq; i++)
        row[k++] = i < r->nfreq ? r->freq[i] : NAN;
    for (int i = 0; i < 6; i++)
        row[k++] = r->quasi_static[i];
    row[k++] = r->energy.kinetic;
    row[k++] = r->energy.strain;
    row[k++] = r->energy.dissipated;
    row[k++] = r->energy.work;
    row[k++] = r->updated;
    o->n++;
    return map_stop(-1, o->stop);
}

static const char *drive_name_at(const void *names, int k)
{
    return ((const char(*)[PKM_NAME_LEN])names)[k];
}

/* transient(trajectory_kind, name, coord, amp, freq, t, q, dt, duration, start, l1, l2,
 * damping_modes, damping_zetas, gravity, initial, elastic, wrench, wrench_file, frequencies,
 * update_every, singular, formulation) -> dict(data [rows, columns], drives, rayleigh) */
static PyObject *case_transient(CaseObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {
        "kind",        "name",   "coord",       "amp",         "freq",         "t",
        "q",           "dt",     "duration",    "start",       "l1",           "l2",
        "mode1",       "mode2",  "zeta1",       "zeta2",       "gravity",      "initial",
        "elastic",     "wrench", "wrench_file", "frequencies", "update_every", "singular",
        "formulation", NULL};
    traj_spec ts = {0};
    PyObject *tobj = Py_None, *qobj = Py_None, *wobj = Py_None;
    double dt = 1e-3, duration = NAN, start = NAN, l1 = 0.0, l2 = 0.0, z1 = 0.0, z2 = 0.0,
           singular = 0.0;
    int m1 = 0, m2 = 0, gravity = 0, initial = -1, elastic = 0, nfreq = 0, update_every = 1,
        form = -1;
    const char *wfile = NULL;
    if (!PyArg_ParseTupleAndKeywords(
            args, kw, "iziddOOdddddiiddpipOziidi", kwlist, &ts.kind, &ts.name, &ts.coord, &ts.amp,
            &ts.freq, &tobj, &qobj, &dt, &duration, &start, &l1, &l2, &m1, &m2, &z1, &z2, &gravity,
            &initial, &elastic, &wobj, &wfile, &nfreq, &update_every, &singular, &form))
        return NULL;
    if (!case_ready(self)) return NULL;
    const pkm_case *c = self->c;
    if ((c->analyses & PKM_CASE_MODAL) == 0 || (c->analyses & PKM_CASE_DYNAMICS) == 0)
        return raise_invalid("case '%s' has no %s model: transient needs both", c->name,
                             (c->analyses & PKM_CASE_MODAL) == 0 ? "finite-element" : "rigid-body");
    if (form < 0) form = (int)c->formulation;
    if (pkm_formulation_type_of((pkm_formulation)form) == NULL)
        return raise_invalid("formulation %d: not a formulation", form);
    if (nfreq < 0 || nfreq > 1000) return raise_invalid("frequencies %d: 0 to 1000", nfreq);
    if (update_every < 0) return raise_invalid("update_every %d: expected >= 0", update_every);
    if (!(singular == 0.0 || (singular >= 1e-12 && singular <= 0.5)))
        return raise_invalid("singular %g: expected 1e-12 to 0.5", singular);
    double wrench[6] = {0};
    if (wobj != Py_None && read_doubles(wobj, 6, wrench, "wrench") < 0) return NULL;
    for (int k = 0; k < 6; k++)
        if (!isfinite(wrench[k])) return raise_invalid("wrench: component %d is not finite", k);
    PyArrayObject *ta = NULL, *qa = NULL;
    if (ts.kind == 3) {
        ta = (PyArrayObject *)PyArray_FROMANY(tobj, NPY_FLOAT64, 1, 1, NPY_ARRAY_CARRAY);
        qa =
            ta ? (PyArrayObject *)PyArray_FROMANY(qobj, NPY_FLOAT64, 2, 2, NPY_ARRAY_CARRAY) : NULL;
        if (qa == NULL) {
            Py_XDECREF(ta);
            return NULL;
        }
        ts.m = (int)PyArray_DIM(ta, 0);
        if (PyArray_DIM(qa, 0) != ts.m || PyArray_DIM(qa, 1) != c->npose) {
            Py_DECREF(ta);
            Py_DECREF(qa);
            return raise_invalid("trajectory samples: t [m] and q [m, %d] expected", c->npose);
        }
        ts.t = PyArray_DATA(ta);
        ts.q = PyArray_DATA(qa);
    }
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL, *wseries = NULL;
    char(*names)[PKM_NAME_LEN] = NULL;
    int ndrive_names = 0;
    stop_state stop = {.pid = getpid(), .last = now_s()};
    tr_rows rows = {.elastic = elastic, .stop = &stop, .ctx = &ctx};
    pkm_status st;
    char msg[512] = "";
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(solve_lock, WAIT_LOCK);
    st = make_trajectory(c, &ts, (isnan(start) ? 0.0 : start) + duration, &tr, &ctx);
    if (st == PKM_OK && wfile != NULL) {
        static const char *const wnames[6] = {"fx", "fy", "fz", "mx", "my", "mz"};
        st = pkm_trajectory_read_csv(wfile, wnames, 6, &wseries, &ctx);
    }
    double t0 = 0.0, t1 = 0.0;
    if (st == PKM_OK) {
        pkm_trajectory_span(tr, &t0, &t1);
        if (!isnan(start) && !(start >= t0 && start < t1))
            snprintf(msg, sizeof msg, "start %g: outside the trajectory's span [%g, %g) s", start,
                     t0, t1);
        if (isnan(duration)) duration = t1 - (isnan(start) ? t0 : start);
        if (!(dt > 0.0))
            snprintf(msg, sizeof msg, "dt %g: the time step must be positive", dt);
        else if (!(duration >= dt))
            snprintf(msg, sizeof msg, "duration %g: shorter than one time step (dt %g)", duration,
                     dt);
    }
    if (st == PKM_OK && msg[0] == '\0') {
        /* the actuated joints' names, as the command's drive_ columns */
        pkm_model *m = NULL;
        st = c->build_rigid(self->params, c->home, &m, &ctx);
        if (st == PKM_OK) {
            names = calloc((size_t)pkm_model_joint_count(m) + 1, sizeof *names);
            for (int j = 0; j < pkm_model_joint_count(m) && names != NULL; j++)
                if (pkm_model_joint(m, j)->actuated)
                    snprintf(names[ndrive_names++], PKM_NAME_LEN, "%s",
                             pkm_model_joint(m, j)->name);
        }
        pkm_model_destroy(&m);
    }
    if (st == PKM_OK && msg[0] == '\0') {
        pkm_transient_opts opts = pkm_transient_opts_default(c, dt, duration);
        opts.form = (pkm_formulation)form;
        opts.update_every = update_every;
        opts.gravity = gravity;
        opts.static_start = initial < 0 ? gravity : initial;
        opts.singular = singular;
        opts.start = start;
        opts.nfreq = nfreq;
        opts.elastic_drives = elastic;
        opts.nm.l1 = l1;
        opts.nm.l2 = l2;
        if (m1 > 0) {
            opts.damping_mode[0] = m1, opts.damping_mode[1] = m2;
            opts.damping_zeta[0] = z1, opts.damping_zeta[1] = z2;
        }
        memcpy(opts.wrench, wrench, sizeof wrench);
        opts.wrench_series = wseries;
        st = pkm_transient_run(c, self->params, tr, &opts, tr_sink, &rows, &ctx);
        if (st == PKM_OK && rows.failed) st = ctx.status;
    }
    pkm_trajectory_destroy(&tr);
    pkm_trajectory_destroy(&wseries);
    PyThread_release_lock(solve_lock);
    Py_END_ALLOW_THREADS;
    Py_XDECREF(ta);
    Py_XDECREF(qa);
    PyObject *r = NULL;
    if (st != PKM_OK)
        raise_ctx(st, &ctx);
    else if (msg[0] != '\0')
        raise_invalid("%s", msg);
    else if (names == NULL && ndrive_names == 0 && rows.ndrive > 0)
        PyErr_NoMemory();
    else {
        const npy_intp dims[2] = {(npy_intp)rows.n, rows.width};
        r = Py_BuildValue("{s:N,s:N,s:(dd),s:i,s:i,s:i}", "data", doubles(2, dims, rows.data),
                          "drives",
                          string_list(rows.ndrive <= ndrive_names ? rows.ndrive : ndrive_names,
                                      drive_name_at, names),
                          "rayleigh", rows.rayleigh[0], rows.rayleigh[1], "ndrive", rows.ndrive,
                          "nfreq", rows.nfreq, "elastic", elastic);
    }
    free(names);
    free(rows.data);
    if (stop.stopped) {
        /* Ctrl-C: the rows so far go with the KeyboardInterrupt (.partial) */
        PyErr_NormalizeException(&stop.type, &stop.value, &stop.tb);
        if (r != NULL && stop.value != NULL && PyObject_SetAttrString(stop.value, "partial", r) < 0)
            PyErr_Clear();
        Py_XDECREF(r);
        PyErr_Restore(stop.type, stop.value, stop.tb);
        return NULL;
    }
    return r;
}

/* ---------------------------------------------------------------------------------------------
 * dynamics: `pkmflex dynamics` (pkm_dynamics_run): one row per time and joint, the command's
 * long csv schema's numbers. */

typedef struct dyn_rows {
    int64_t n, cap;
    int njoint;
    double *data; /* per row: t, joint index, q, qd, qdd, drive, ideal, friction, f_axial,
                     f_radial, m_bending */
    char (*names)[PKM_NAME_LEN];
    int *types; /* pkm_joint_type, cut: + 16 */
    stop_state *stop;
    pkm_ctx *ctx;
    int failed;
} dyn_rows;

enum { DYN_WIDTH = 11 };

static int dyn_sink(void *user, const pkm_dynamics_row *r)
{
    dyn_rows *o = user;
    const int nj = pkm_model_joint_count(r->model);
    if (o->names == NULL) {
        o->njoint = nj;
        o->names = calloc((size_t)nj + 1, sizeof *o->names);
        o->types = calloc((size_t)nj + 1, sizeof *o->types);
        for (int j = 0; j < nj && o->names != NULL && o->types != NULL; j++) {
            const pkm_joint *jt = pkm_model_joint(r->model, j);
            snprintf(o->names[j], PKM_NAME_LEN, "%s", jt->name);
            o->types[j] = (int)jt->type + (jt->cut ? 16 : 0);
        }
    }
    if (o->n + nj > o->cap) {
        const int64_t cap = o->cap ? 2 * o->cap + nj : 1024 * (int64_t)(nj + 1);
        double *d = o->names != NULL && o->types != NULL
                        ? realloc(o->data, sizeof(double) * (size_t)(cap * DYN_WIDTH))
                        : NULL;
        if (d == NULL) {
            o->failed = 1;
            pkm_ctx_fail(o->ctx, PKM_ERR_NOMEM, __FILE__, __LINE__, "out of memory for %lld rows",
                         (long long)cap);
            return 1;
        }
        o->data = d, o->cap = cap;
    }
    for (int j = 0; j < nj; j++) {
        const pkm_joint_result *x = &r->joint[j];
        const int has = x->ncoord > 0;
        const double v[DYN_WIDTH] = {
            r->t,        j,        has ? x->q[0] : 0.0, has ? x->qd[0] : 0.0, has ? x->qdd[0] : 0.0,
            x->drive,    x->ideal, x->friction,         x->f_axial,           x->f_radial,
            x->m_bending};
        memcpy(o->data + (o->n++) * DYN_WIDTH, v, sizeof v);
    }
    return map_stop(-1, o->stop);
}

static const char *dyn_name_at(const void *names, int k)
{
    return ((const char(*)[PKM_NAME_LEN])names)[k];
}

/* dynamics(kind, name, coord, amp, freq, t, q, t0, t1, n, singular) -> dict(data [rows, 11],
 * joints, types); t0, t1 NaN: the trajectory's span, n 0: 101 times. */
static PyObject *case_dynamics(CaseObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"kind", "name", "coord", "amp", "freq",     "t",
                             "q",    "t0",   "t1",    "n",   "singular", NULL};
    traj_spec ts = {0};
    PyObject *tobj = Py_None, *qobj = Py_None;
    double t0 = NAN, t1 = NAN, singular = 0.0;
    int n = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iziddOOddid", kwlist, &ts.kind, &ts.name, &ts.coord,
                                     &ts.amp, &ts.freq, &tobj, &qobj, &t0, &t1, &n, &singular))
        return NULL;
    if (!case_ready(self)) return NULL;
    const pkm_case *c = self->c;
    if ((c->analyses & PKM_CASE_DYNAMICS) == 0)
        return raise_invalid("case '%s' has no rigid-body model with actuated joints", c->name);
    if (!(singular == 0.0 || (singular >= 1e-12 && singular <= 0.5)))
        return raise_invalid("singular %g: expected 1e-12 to 0.5", singular);
    PyArrayObject *ta = NULL, *qa = NULL;
    if (ts.kind == 3) {
        ta = (PyArrayObject *)PyArray_FROMANY(tobj, NPY_FLOAT64, 1, 1, NPY_ARRAY_CARRAY);
        qa =
            ta ? (PyArrayObject *)PyArray_FROMANY(qobj, NPY_FLOAT64, 2, 2, NPY_ARRAY_CARRAY) : NULL;
        if (qa == NULL || PyArray_DIM(qa, 0) != PyArray_DIM(ta, 0) ||
            PyArray_DIM(qa, 1) != c->npose) {
            Py_XDECREF(ta);
            Py_XDECREF(qa);
            return PyErr_Occurred() ? NULL
                                    : raise_invalid("trajectory samples: t [m] and q [m, %d] "
                                                    "expected",
                                                    c->npose);
        }
        ts.m = (int)PyArray_DIM(ta, 0);
        ts.t = PyArray_DATA(ta);
        ts.q = PyArray_DATA(qa);
    }
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    stop_state stop = {.pid = getpid(), .last = now_s()};
    dyn_rows rows = {.stop = &stop, .ctx = &ctx};
    pkm_status st;
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(solve_lock, WAIT_LOCK);
    st = make_trajectory(c, &ts, isnan(t1) ? 0.0 : t1, &tr, &ctx);
    if (st == PKM_OK) {
        pkm_dynamics_opts o = {.t0 = t0, .t1 = t1, .n = n > 0 ? n : 101, .singular = singular};
        double a, b;
        pkm_trajectory_span(tr, &a, &b);
        if (isnan(o.t0)) o.t0 = a;
        if (isnan(o.t1)) o.t1 = b;
        st = pkm_dynamics_run(c, self->params, tr, &o, dyn_sink, &rows, &ctx);
        if (st == PKM_OK && rows.failed) st = ctx.status;
    }
    pkm_trajectory_destroy(&tr);
    PyThread_release_lock(solve_lock);
    Py_END_ALLOW_THREADS;
    Py_XDECREF(ta);
    Py_XDECREF(qa);
    PyObject *r = NULL;
    if (st != PKM_OK)
        raise_ctx(st, &ctx);
    else {
        const npy_intp dims[2] = {(npy_intp)rows.n, DYN_WIDTH};
        const npy_intp nt = rows.njoint;
        r = Py_BuildValue("{s:N,s:N,s:N}", "data", doubles(2, dims, rows.data), "joints",
                          string_list(rows.njoint, dyn_name_at, rows.names), "types",
                          array_copy(NPY_INT, 1, &nt, rows.types));
    }
    free(rows.data);
    free(rows.names);
    free(rows.types);
    if (stop.stopped) {
        PyErr_NormalizeException(&stop.type, &stop.value, &stop.tb);
        if (r != NULL && stop.value != NULL && PyObject_SetAttrString(stop.value, "partial", r) < 0)
            PyErr_Clear();
        Py_XDECREF(r);
        PyErr_Restore(stop.type, stop.value, stop.tb);
        return NULL;
    }
    return r;
}

/* ---------------------------------------------------------------------------------------------
 * fit: `pkmflex fit` (cli/fit.c) without its printing, on a copy of the case's parameters
 * (pkm_fit_run updates them in place): the case is left as it was. */

/* fit(pose [rows, npose], freq [rows, nfreq], weights [nfreq] or None, keys, start, lo, hi,
 * match, gap, max_iter, jacobian, multistart, formulation, solver) -> dict */
static PyObject *case_fit(CaseObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"pose",     "freq",       "weights",     "keys",   "start",
                             "lo",       "hi",         "match",       "gap",    "max_iter",
                             "jacobian", "multistart", "formulation", "solver", NULL};
    PyObject *pobj, *fobj, *wobj, *keys, *sobj, *lobj, *hobj;
    int match = 0, max_iter = 100, jac = 0, multistart = 1, form = -1, eig = PKM_EIG_ARPACK;
    double gap = 0.25;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOOOidiipii", kwlist, &pobj, &fobj, &wobj, &keys,
                                     &sobj, &lobj, &hobj, &match, &gap, &max_iter, &jac,
                                     &multistart, &form, &eig))
        return NULL;
    if (!case_ready(self)) return NULL;
    const pkm_case *c = self->c;
    if (check_solver(c, &form, eig) < 0) return NULL;
    const Py_ssize_t np = PySequence_Size(keys);
    if (np < 1 || np > PKM_FIT_MAX_PARAMS)
        return np < 0 ? NULL
                      : raise_invalid("fit: 1 to %d parameters, got %zd", PKM_FIT_MAX_PARAMS, np);
    pkm_fit_param p[PKM_FIT_MAX_PARAMS];
    double start[PKM_FIT_MAX_PARAMS], lo[PKM_FIT_MAX_PARAMS], hi[PKM_FIT_MAX_PARAMS];
    if (read_doubles(sobj, (int)np, start, "fit start") < 0 ||
        read_doubles(lobj, (int)np, lo, "fit lower bounds") < 0 ||
        read_doubles(hobj, (int)np, hi, "fit upper bounds") < 0)
        return NULL;
    PyObject *keyl = PySequence_Fast(keys, "fit: keys");
    if (keyl == NULL) return NULL;
    for (Py_ssize_t k = 0; k < np; k++) {
        const char *key = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(keyl, k));
        if (key == NULL) {
            Py_DECREF(keyl);
            return NULL;
        }
        const pkm_param_desc *d = pkm_case_param_find(c, key);
        if (d == NULL || d->kind != PKM_PARAM_DOUBLE) {
            Py_DECREF(keyl);
            return raise_invalid("fit: '%s' is not a real-valued parameter of case %s", key,
                                 c->name);
        }
        p[k].key = key; /* kept alive by keyl */
        /* start NaN: the case's value, as --param KEY */
        memcpy(&p[k].start, (const char *)self->params + d->offset, sizeof(double));
        if (!isnan(start[k])) p[k].start = start[k];
        p[k].lo = lo[k];
        p[k].hi = hi[k];
        if (!isnan(lo[k]) && !(lo[k] < p[k].start && p[k].start < hi[k])) {
            Py_DECREF(keyl);
            return raise_invalid("fit: %s: start %g %s is not strictly inside [%g, %g]", key,
                                 p[k].start, d->unit, lo[k], hi[k]);
        }
    }
    PyArrayObject *pa = (PyArrayObject *)PyArray_FROMANY(pobj, NPY_FLOAT64, 2, 2, NPY_ARRAY_CARRAY),
                  *fa = pa ? (PyArrayObject *)PyArray_FROMANY(fobj, NPY_FLOAT64, 2, 2,
                                                              NPY_ARRAY_CARRAY)
                           : NULL,
                  *wa = NULL;
    if (fa != NULL && wobj != Py_None)
        wa = (PyArrayObject *)PyArray_FROMANY(wobj, NPY_FLOAT64, 1, 1, NPY_ARRAY_CARRAY);
    if (fa == NULL || (wobj != Py_None && wa == NULL)) {
        Py_XDECREF(pa);
        Py_XDECREF(fa);
        Py_DECREF(keyl);
        return NULL;
    }
    const int nrows = (int)PyArray_DIM(pa, 0), nfreq = (int)PyArray_DIM(fa, 1);
    PyObject *r = NULL;
    if (PyArray_DIM(pa, 1) != c->npose || PyArray_DIM(fa, 0) != nrows || nrows < 1 || nfreq < 1 ||
        (wa != NULL && PyArray_DIM(wa, 0) != nfreq)) {
        raise_invalid("fit: the table's poses [rows, %d], frequencies [rows, columns] and weights "
                      "[columns] do not agree",
                      c->npose);
        goto done;
    }
    const pkm_fit_data data = {.nrows = nrows,
                               .npose = c->npose,
                               .nfreq = nfreq,
                               .pose = PyArray_DATA(pa),
                               .freq = PyArray_DATA(fa),
                               .weight = wa ? PyArray_DATA(wa) : NULL};
    pkm_fit_opts fo = pkm_fit_opts_default();
    fo.form = (pkm_formulation)form;
    fo.eig = (pkm_eigensolver)eig;
    fo.match.mode = match ? PKM_MATCH_NEAREST : PKM_MATCH_ORDER;
    fo.match.gap = gap;
    fo.max_iter = max_iter;
    fo.jacobian = jac ? PKM_FIT_JAC_FD : PKM_FIT_JAC_SENSITIVITY;
    fo.multistart = multistart;
    pkm_fit_result res;
    memset(&res, 0, sizeof res);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_status st = PKM_ERR_NOMEM;
    /* pkm_fit_run updates the parameters it is given: a copy, so that the case is never seen
     * half-fitted by another thread (Case.info runs with the GIL alone) */
    void *work = malloc(c->params_size);
    if (work == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(work, self->params, c->params_size);
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(solve_lock, WAIT_LOCK);
    st = pkm_fit_run(c, work, &data, p, (int)np, &fo, &res, &ctx);
    PyThread_release_lock(solve_lock);
    Py_END_ALLOW_THREADS;
    free(work);
    if (st != PKM_OK && st != PKM_ERR_NOCONV) {
        raise_ctx(st, &ctx);
    } else {
        const npy_intp n1 = res.nparam, n2[2] = {res.nparam, res.nparam}, nt[2] = {nrows, nfreq};
        double st0[PKM_FIT_MAX_PARAMS];
        for (int k = 0; k < res.nparam; k++)
            st0[k] = p[k].start;
        r = Py_BuildValue(
            "{s:N,s:N,s:N,s:N,s:i,s:d,s:d,s:i,s:i,s:i,s:N,s:N,s:N,s:N,s:s}", "start",
            doubles1(n1, st0), "value", doubles1(n1, res.value), "std_err",
            doubles1(n1, res.std_err), "corr", doubles(2, n2, res.corr), "nres", res.nres,
            "rms_start", res.rms_start, "rms", res.rms, "iterations", res.iterations, "passes",
            res.passes, "converged", res.converged, "pair", array_copy(NPY_INT32, 2, nt, res.pair),
            "mult", array_copy(NPY_INT32, 2, nt, res.mult), "freq_hz", doubles(2, nt, res.freq),
            "ref_hz", doubles(2, nt, data.freq), "message", st == PKM_OK ? "" : ctx.msg);
    }
    pkm_fit_result_free(&res);
done:
    Py_DECREF(pa);
    Py_DECREF(fa);
    Py_XDECREF(wa);
    Py_DECREF(keyl);
    return r;
}

/* read_table(path, npose) -> (id [rows], pose [rows, npose], freq [rows, nfreq], kind list or
 * None): pkm_table_read (the tables of compare and fit). */
static PyObject *core_read_table(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *path = NULL;
    int npose = 0;
    if (!PyArg_ParseTuple(args, "si", &path, &npose)) return NULL;
    pkm_table *t = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_table_read(path, npose, &t, &ctx);
    if (st != PKM_OK) return raise_ctx(st, &ctx);
    const npy_intp nr = t->nrows, dp[2] = {t->nrows, t->npose}, df[2] = {t->nrows, t->nfreq};
    PyObject *kinds = Py_None;
    Py_INCREF(kinds);
    if (t->kind != NULL) {
        Py_DECREF(kinds);
        kinds = PyList_New(t->nrows);
        for (int r = 0; kinds != NULL && r < t->nrows; r++) {
            PyObject *k = PyUnicode_FromString(t->kind[r]);
            if (k == NULL) {
                Py_CLEAR(kinds);
                break;
            }
            PyList_SET_ITEM(kinds, r, k);
        }
    }
    PyObject *r = kinds ? Py_BuildValue("(NNNN)", array_copy(NPY_INT32, 1, &nr, t->id),
                                        doubles(2, dp, t->pose), doubles(2, df, t->freq), kinds)
                        : NULL;
    pkm_table_destroy(&t);
    return r;
}

/* ---------------------------------------------------------------------------------------------
 * Module functions. */

/* quantity(text, unit) -> float: pkm_quantity_parse ("210 mm" in "m" is 0.21). */
static PyObject *core_quantity(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *text = NULL, *unit = NULL;
    if (!PyArg_ParseTuple(args, "ss", &text, &unit)) return NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double v = 0.0;
    const pkm_status st = pkm_quantity_parse(text, unit, &v, &ctx);
    return st == PKM_OK ? PyFloat_FromDouble(v) : raise_ctx(st, &ctx);
}

/* cases() -> [(name, description, pose names, modal, dynamics)] of the built-in cases. */
static PyObject *core_cases(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (const pkm_case *const *k = pkm_case_list(); l != NULL && *k != NULL; k++) {
        const pkm_case *c = *k;
        PyObject *t = Py_BuildValue("(ssNNN)", c->name, c->description ? c->description : "",
                                    string_list(c->npose, pose_name_at, c),
                                    PyBool_FromLong((c->analyses & PKM_CASE_MODAL) != 0),
                                    PyBool_FromLong((c->analyses & PKM_CASE_DYNAMICS) != 0));
        if (t == NULL || PyList_Append(l, t) < 0) Py_CLEAR(l);
        Py_XDECREF(t);
    }
    return l;
}

/* rayleigh(zeta1, f1, zeta2, f2) -> (l1, l2): pkm_rayleigh_from_ratios (f in Hz). */
static PyObject *core_rayleigh(PyObject *mod, PyObject *args)
{
    (void)mod;
    double z1, f1, z2, f2, l1 = 0.0, l2 = 0.0;
    if (!PyArg_ParseTuple(args, "dddd", &z1, &f1, &z2, &f2)) return NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_rayleigh_from_ratios(z1, f1, z2, f2, &l1, &l2, &ctx);
    return st == PKM_OK ? Py_BuildValue("(dd)", l1, l2) : raise_ctx(st, &ctx);
}

/* library_version() -> (version, commit) of the libpkmflex loaded (those a map records). */
static PyObject *core_library_version(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    pkm_map map;
    pkm_map_init(&map);
    return Py_BuildValue("(ss)", map.version, map.commit);
}

/* names(kind) -> the names of the formulation or eigensolver table, in index order. */
static PyObject *core_names(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *kind = NULL;
    if (!PyArg_ParseTuple(args, "s", &kind)) return NULL;
    PyObject *l = PyList_New(0);
    if (strcmp(kind, "formulation") == 0)
        for (int k = 0; l != NULL && k < PKM_FORMULATION_COUNT; k++) {
            PyObject *s = PyUnicode_FromString(pkm_formulation_type_of((pkm_formulation)k)->name);
            if (s == NULL || PyList_Append(l, s) < 0) Py_CLEAR(l);
            Py_XDECREF(s);
        }
    else
        for (int k = 0; l != NULL && k < PKM_EIGENSOLVER_COUNT; k++) {
            PyObject *s = PyUnicode_FromString(pkm_eigensolver_type_of((pkm_eigensolver)k)->name);
            if (s == NULL || PyList_Append(l, s) < 0) Py_CLEAR(l);
            Py_XDECREF(s);
        }
    return l;
}

static PyMethodDef case_methods[] = {
    {"info", (PyCFunction)case_info, METH_NOARGS, "The case's description and parameters."},
    {"modes", (PyCFunction)(void (*)(void))case_modes, METH_VARARGS | METH_KEYWORDS,
     "Natural frequencies at one pose (pkmflex modes)."},
    {"map", (PyCFunction)(void (*)(void))case_map, METH_VARARGS | METH_KEYWORDS,
     "Frequency map over a grid of poses (pkmflex map)."},
    {"fit", (PyCFunction)(void (*)(void))case_fit, METH_VARARGS | METH_KEYWORDS,
     "Model updating against a table of frequencies (pkmflex fit)."},
    {"dynamics", (PyCFunction)(void (*)(void))case_dynamics, METH_VARARGS | METH_KEYWORDS,
     "rigid-body inverse dynamics (pkm_dynamics_run)"},
    {"transient", (PyCFunction)(void (*)(void))case_transient, METH_VARARGS | METH_KEYWORDS,
     "Elastodynamics along a trajectory (pkmflex transient)."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject case_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pkmflex._core.CaseHandle",
    .tp_basicsize = sizeof(CaseObject),
    .tp_dealloc = (destructor)case_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A case of libpkmflex and its parameters (use pkmflex.Case).",
    .tp_methods = case_methods,
    .tp_init = (initproc)case_init,
    .tp_new = PyType_GenericNew,
};

static PyMethodDef core_methods[] = {
    {"read_map", core_read_map, METH_VARARGS, "Read a map file (pkm_map_read_h5)."},
    {"read_table", core_read_table, METH_VARARGS, "Read a table of reference frequencies."},
    {"quantity", core_quantity, METH_VARARGS, "Parse a quantity with its unit."},
    {"cases", core_cases, METH_NOARGS, "The built-in cases."},
    {"rayleigh", core_rayleigh, METH_VARARGS, "Rayleigh coefficients from two damping ratios."},
    {"library_version", core_library_version, METH_NOARGS, "The library's version and commit."},
    {"names", core_names, METH_VARARGS, "Names of the formulation or eigensolver table."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {PyModuleDef_HEAD_INIT,
                                         "_core",
                                         "libpkmflex for Python (use the pkmflex package).",
                                         -1,
                                         core_methods,
                                         NULL,
                                         NULL,
                                         NULL,
                                         NULL};

PyMODINIT_FUNC PyInit__core(void);
PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    if (PyType_Ready(&case_type) < 0) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL) return NULL;
    solve_lock = PyThread_allocate_lock();
    /* Raised without a status (bad arguments found by the Python layer): bad input. */
    PyObject *defaults =
        Py_BuildValue("{s:i,s:s,s:s}", "status", (int)PKM_ERR_INVALID, "status_name",
                      status_name(PKM_ERR_INVALID), "description", pkm_status_str(PKM_ERR_INVALID));
    core_error =
        defaults == NULL
            ? NULL
            : PyErr_NewExceptionWithDoc("pkmflex.Error",
                                        "A failure reported by libpkmflex: str(e) is the "
                                        "library's message; e.status its pkm_status code "
                                        "(negative), e.status_name its name (PKM_ERR_INVALID, "
                                        "...), e.description the code's short description.",
                                        NULL, defaults);
    Py_XDECREF(defaults);
    if (solve_lock == NULL || core_error == NULL ||
        PyModule_AddObject(m, "Error", Py_NewRef(core_error)) < 0 ||
        PyModule_AddObject(m, "CaseHandle", Py_NewRef((PyObject *)&case_type)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
#define STATUS_CONST_(name, value, text) PyModule_AddIntConstant(m, #name, value);
    PKM_STATUS_LIST(STATUS_CONST_)
#undef STATUS_CONST_
    return m;
}
