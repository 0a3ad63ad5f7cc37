/* python/src/_core.c: pkmflex._core, the CPython extension over libpkmflex (issue 31).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One implementation: every number comes from the library's public API (the headers of
 * include/pkm), called as the command line calls it (cli/modes.c, cli/map.c); this file only moves
 * arrays between the library and NumPy. The Python layer (pkmflex/__init__.py) shapes the results
 * into classes.
 *
 * Threads and signals. The long calls (a modal solve, a map sweep) run with the GIL released,
 * one at a time per process (pkm_py_solve_lock: ARPACK keeps Fortran SAVE state, so two sparse
 * solves must never overlap, pkm/modal.h). A map sweep asks Python for pending signals every
 * STOP_CHECK_S seconds through its stop callback (in the calling process only: with threads > 1
 * the workers are forked processes that must not touch the interpreter): Ctrl-C stops the sweep
 * as it stops `pkmflex map`, and the KeyboardInterrupt raised carries the partial map. */
#define PKM_PY_MAIN
#include "pkm_py.h"

PyObject *pkm_py_core_error;          /* pkmflex.Error */
PyThread_type_lock pkm_py_solve_lock; /* one library solve at a time per process */

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
        PyObject_CallFunction(pkm_py_core_error, "s", msg && msg[0] ? msg : pkm_status_str(st));
    if (exc == NULL) return NULL;
    if (set_attr(exc, "status", PyLong_FromLong((long)st)) < 0 ||
        set_attr(exc, "status_name", PyUnicode_FromString(status_name(st))) < 0 ||
        set_attr(exc, "description", PyUnicode_FromString(pkm_status_str(st))) < 0) {
        Py_DECREF(exc);
        return NULL;
    }
    PyErr_SetObject(pkm_py_core_error, exc);
    Py_DECREF(exc);
    return NULL;
}

PyObject *pkm_py_raise_ctx(pkm_status st, const pkm_ctx *ctx)
{
    return raise_status(st, ctx->msg);
}

PyObject *pkm_py_raise_invalid(const char *fmt, ...)
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

PyObject *pkm_py_array_copy(int type, int nd, const npy_intp *dims, const void *data)
{
    PyObject *a = PyArray_SimpleNew(nd, (npy_intp *)dims, type);
    if (a == NULL) return NULL;
    const size_t bytes = (size_t)PyArray_NBYTES((PyArrayObject *)a);
    if (data != NULL && bytes > 0) memcpy(PyArray_DATA((PyArrayObject *)a), data, bytes);
    return a;
}

PyObject *pkm_py_doubles(int nd, const npy_intp *dims, const double *data)
{
    return pkm_py_array_copy(NPY_FLOAT64, nd, dims, data);
}

PyObject *pkm_py_doubles1(npy_intp n, const double *data)
{
    return pkm_py_doubles(1, &n, data);
}

/* d[key] = value, stealing the reference to value; -1 on error (value NULL included). */
int pkm_py_put(PyObject *d, const char *key, PyObject *value)
{
    if (value == NULL) return -1;
    const int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

PyObject *pkm_py_string_list(int n, const char *(*name)(const void *, int), const void *src)
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
int pkm_py_read_doubles(PyObject *seq, int n, double *out, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of numbers");
    if (fast == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        pkm_py_raise_invalid("%s: expected %d values, got %zd", what, n,
                             PySequence_Fast_GET_SIZE(fast));
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

double pkm_py_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------------------------------------
 * Case: a built-in case or a case file, with its parameters. */

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

/* The (key, text) pairs of the sequence fast as the command line's --set texts "key=text"
 * (free_texts), or NULL with a Python error. */
static char **set_texts(PyObject *fast, Py_ssize_t n)
{
    char **texts = calloc((size_t)n + 1, sizeof(*texts));
    if (texts == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *key = NULL, *value = NULL;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "ss", &key, &value)) break;
        const size_t len = strlen(key) + strlen(value) + 2;
        texts[i] = malloc(len);
        if (texts[i] == NULL) {
            PyErr_NoMemory();
            break;
        }
        snprintf(texts[i], len, "%s=%s", key, value);
    }
    if (!PyErr_Occurred()) return texts;
    for (Py_ssize_t i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
    return NULL;
}

/* 1 if name is a built-in case's (pkm_case_names). */
static int is_builtin(const char *name)
{
    for (const char *const *k = pkm_case_names(); *k != NULL; k++)
        if (strcmp(*k, name) == 0) return 1;
    return 0;
}

/* Case(name_or_file, sets): sets a sequence of (key, text) pairs applied in order, as --set: a
 * robot file (a path, or a built-in such as tree5) takes those that name its values into its
 * document, the others go to the case's parameter table. */
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
    PyObject *fast = sets == NULL || sets == Py_None
                         ? PyTuple_New(0)
                         : PySequence_Fast(sets, "sets: expected a sequence of (key, value) pairs");
    if (fast == NULL) return -1;
    const int n = (int)PySequence_Fast_GET_SIZE(fast);
    char **texts = set_texts(fast, n);
    int *applied = texts != NULL ? calloc((size_t)n + 1, sizeof(*applied)) : NULL;
    int rc = -1;
    if (texts != NULL && applied == NULL) PyErr_NoMemory();
    if (applied == NULL) goto done;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const int file = is_case_file(name);
    pkm_status st = file ? pkm_case_file_load_set(name, (const char *const *)texts, n, applied,
                                                  &self->c, &self->params, &ctx)
                         : pkm_case_open(name, (const char *const *)texts, n, applied, &self->c,
                                         &self->params, &ctx);
    if (st != PKM_OK) {
        if (!file && !is_builtin(name))
            pkm_py_raise_invalid("%s (a case file needs a '/' or .yaml)", ctx.msg);
        else
            pkm_py_raise_ctx(st, &ctx);
        goto done;
    }
    if (file && (self->file = strdup(name)) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int i = 0; i < n; i++) {
        if (applied[i]) continue;
        const char *key = NULL, *value = NULL;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "ss", &key, &value)) goto done;
        if (pkm_case_param_find(self->c, key) == NULL) {
            pkm_py_raise_invalid("%s has no parameter '%s'", self->c->name, key);
            goto done;
        }
        st = pkm_case_param_set(self->c, self->params, key, value, &ctx);
        if (st != PKM_OK) {
            pkm_py_raise_ctx(st, &ctx);
            goto done;
        }
    }
    rc = 0;
done:
    for (int i = 0; texts != NULL && i < n; i++)
        free(texts[i]);
    free(texts);
    free(applied);
    Py_DECREF(fast);
    return rc;
}

int pkm_py_case_ready(const CaseObject *self)
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
    if (!pkm_py_case_ready(self)) return NULL;
    const pkm_case *c = self->c;
    PyObject *d = PyDict_New();
    if (d == NULL) return NULL;
    const npy_intp np = c->npose;
    const pkm_formulation_type *ft = pkm_formulation_type_of(c->formulation);
    PyObject *params = PyDict_New();
    if (pkm_py_put(d, "name", PyUnicode_FromString(c->name)) < 0 ||
        pkm_py_put(d, "description", PyUnicode_FromString(c->description ? c->description : "")) <
            0 ||
        pkm_py_put(d, "file", self->file ? PyUnicode_FromString(self->file) : Py_NewRef(Py_None)) <
            0 ||
        pkm_py_put(d, "pose_names", pkm_py_string_list(c->npose, pose_name_at, c)) < 0 ||
        pkm_py_put(d, "pose_units", pkm_py_string_list(c->npose, pose_unit_at, c)) < 0 ||
        pkm_py_put(d, "home", pkm_py_doubles1(np, c->home)) < 0 ||
        pkm_py_put(d, "formulation", PyUnicode_FromString(ft ? ft->name : "")) < 0 ||
        pkm_py_put(d, "modal", PyBool_FromLong((c->analyses & PKM_CASE_MODAL) != 0)) < 0 ||
        pkm_py_put(d, "dynamics", PyBool_FromLong((c->analyses & PKM_CASE_DYNAMICS) != 0)) < 0 ||
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
        if (pkm_py_put(params, e->key, t) < 0) {
            Py_DECREF(params);
            Py_DECREF(d);
            return NULL;
        }
    }
    if (pkm_py_put(d, "parameters", params) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* The pose argument: None (the case's home) or npose numbers. */
int pkm_py_read_pose(const pkm_case *c, PyObject *obj, double *pose)
{
    if (obj == NULL || obj == Py_None) {
        memcpy(pose, c->home, sizeof(double) * (size_t)c->npose);
        return 0;
    }
    char what[64];
    snprintf(what, sizeof what, "pose of %s", c->name);
    return pkm_py_read_doubles(obj, c->npose, pose, what);
}

/* The formulation (-1: the case's) and eigensolver indices, checked. */
int pkm_py_check_solver(const pkm_case *c, int *form, int eig)
{
    if (*form < 0) *form = (int)c->formulation;
    if (pkm_formulation_type_of((pkm_formulation)*form) == NULL) {
        pkm_py_raise_invalid("formulation %d: not a formulation", *form);
        return -1;
    }
    if (pkm_eigensolver_type_of((pkm_eigensolver)eig) == NULL) {
        pkm_py_raise_invalid("solver %d: not an eigensolver", eig);
        return -1;
    }
    if ((c->analyses & PKM_CASE_MODAL) == 0) {
        pkm_py_raise_invalid("case '%s' is a rigid-body case: it has no natural frequencies",
                             c->name);
        return -1;
    }
    return 0;
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
    return st == PKM_OK ? PyFloat_FromDouble(v) : pkm_py_raise_ctx(st, &ctx);
}

/* cases() -> [(name, description, pose names, modal, dynamics)] of the built-in cases. */
static PyObject *core_cases(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (const char *const *k = pkm_case_names(); l != NULL && *k != NULL; k++) {
        const pkm_case *c = NULL;
        void *params = NULL;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        const pkm_status st = pkm_case_open(*k, NULL, 0, NULL, &c, &params, &ctx);
        if (st != PKM_OK) {
            Py_CLEAR(l);
            pkm_py_raise_ctx(st, &ctx);
            break;
        }
        PyObject *t = Py_BuildValue("(ssNNN)", c->name, c->description ? c->description : "",
                                    pkm_py_string_list(c->npose, pose_name_at, c),
                                    PyBool_FromLong((c->analyses & PKM_CASE_MODAL) != 0),
                                    PyBool_FromLong((c->analyses & PKM_CASE_DYNAMICS) != 0));
        pkm_case_params_destroy(&params);
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
    return st == PKM_OK ? Py_BuildValue("(dd)", l1, l2) : pkm_py_raise_ctx(st, &ctx);
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
    {"modes", (PyCFunction)(void (*)(void))pkm_py_case_modes, METH_VARARGS | METH_KEYWORDS,
     "Natural frequencies at one pose (pkmflex modes)."},
    {"map", (PyCFunction)(void (*)(void))pkm_py_case_map, METH_VARARGS | METH_KEYWORDS,
     "Frequency map over a grid of poses (pkmflex map)."},
    {"fit", (PyCFunction)(void (*)(void))pkm_py_case_fit, METH_VARARGS | METH_KEYWORDS,
     "Model updating against a table of frequencies (pkmflex fit)."},
    {"dynamics", (PyCFunction)(void (*)(void))pkm_py_case_dynamics, METH_VARARGS | METH_KEYWORDS,
     "rigid-body inverse dynamics (pkm_dynamics_run)"},
    {"transient", (PyCFunction)(void (*)(void))pkm_py_case_transient, METH_VARARGS | METH_KEYWORDS,
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
    {"read_map", pkm_py_core_read_map, METH_VARARGS, "Read a map file (pkm_map_read_h5)."},
    {"read_table", pkm_py_core_read_table, METH_VARARGS, "Read a table of reference frequencies."},
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
    pkm_py_solve_lock = PyThread_allocate_lock();
    /* Raised without a status (bad arguments found by the Python layer): bad input. */
    PyObject *defaults =
        Py_BuildValue("{s:i,s:s,s:s}", "status", (int)PKM_ERR_INVALID, "status_name",
                      status_name(PKM_ERR_INVALID), "description", pkm_status_str(PKM_ERR_INVALID));
    pkm_py_core_error =
        defaults == NULL
            ? NULL
            : PyErr_NewExceptionWithDoc("pkmflex.Error",
                                        "A failure reported by libpkmflex: str(e) is the "
                                        "library's message; e.status its pkm_status code "
                                        "(negative), e.status_name its name (PKM_ERR_INVALID, "
                                        "...), e.description the code's short description.",
                                        NULL, defaults);
    Py_XDECREF(defaults);
    if (pkm_py_solve_lock == NULL || pkm_py_core_error == NULL ||
        PyModule_AddObject(m, "Error", Py_NewRef(pkm_py_core_error)) < 0 ||
        PyModule_AddObject(m, "CaseHandle", Py_NewRef((PyObject *)&case_type)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
#define STATUS_CONST_(name, value, text) PyModule_AddIntConstant(m, #name, value);
    PKM_STATUS_LIST(STATUS_CONST_)
#undef STATUS_CONST_
    return m;
}
