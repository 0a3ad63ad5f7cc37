/* python/src/_time.c: the time domain: transient and dynamics (pkmflex._core; python/src/pkm_py.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm_py.h"

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
    if (ts->kind == 1) return pkm_case_harmonic(c, ts->coord, ts->amp, ts->freq, t_end, tr, ctx);
    return pkm_case_trajectory(c, ts->name, t_end, tr, ctx);
}

/* The samples of a trajectory of kind 3, t [m] and q [m, npose], as arrays *ta, *qa (the
 * caller's references) that ts points into; -1 with the exception set. */
static int samples(const pkm_case *c, PyObject *tobj, PyObject *qobj, traj_spec *ts,
                   PyArrayObject **ta, PyArrayObject **qa)
{
    *ta = (PyArrayObject *)PyArray_FROMANY(tobj, NPY_FLOAT64, 1, 1, NPY_ARRAY_CARRAY);
    *qa = *ta ? (PyArrayObject *)PyArray_FROMANY(qobj, NPY_FLOAT64, 2, 2, NPY_ARRAY_CARRAY) : NULL;
    if (*qa != NULL && PyArray_DIM(*qa, 0) == PyArray_DIM(*ta, 0) &&
        PyArray_DIM(*qa, 1) == c->npose) {
        ts->m = (int)PyArray_DIM(*ta, 0);
        ts->t = PyArray_DATA(*ta);
        ts->q = PyArray_DATA(*qa);
        return 0;
    }
    Py_CLEAR(*ta);
    Py_CLEAR(*qa);
    if (!PyErr_Occurred())
        pkm_py_raise_invalid("trajectory samples: t [m] and q [m, %d] expected", c->npose);
    return -1;
}

typedef struct tr_rows {
    const pkm_transient_columns *cols; /* a row: t, then these (pkm/transient.h) */
    int64_t n, cap;
    double *data;
    double rayleigh[2];
    stop_state *stop;
    pkm_ctx *ctx;
    int failed; /* out of memory */
} tr_rows;

/* One row: t and the columns of the command's csv (pkm_transient_row_values). */
static int tr_sink(void *user, const pkm_transient_row *r)
{
    tr_rows *o = user;
    const int64_t width = 1 + o->cols->n;
    if (o->n == 0) {
        o->rayleigh[0] = r->rayleigh[0];
        o->rayleigh[1] = r->rayleigh[1];
    }
    if (o->n == o->cap) {
        const int64_t cap = o->cap ? 2 * o->cap : 1024;
        double *d = realloc(o->data, sizeof(double) * (size_t)(cap * width));
        if (d == NULL) {
            o->failed = 1;
            pkm_ctx_fail(o->ctx, PKM_ERR_NOMEM, __FILE__, __LINE__,
                         "out of memory for %lld transient rows", (long long)cap);
            return 1;
        }
        o->data = d, o->cap = cap;
    }
    double *row = o->data + o->n * width;
    row[0] = r->t;
    pkm_transient_row_values(o->cols, r, row + 1);
    o->n++;
    return pkm_py_map_stop(-1, o->stop);
}

/* Column k of cols, t first. */
static const char *column_name_at(const void *cols, int k)
{
    return k == 0 ? "t" : ((const pkm_transient_columns *)cols)->col[k - 1].name;
}

/* transient(trajectory_kind, name, coord, amp, freq, t, q, dt, duration, start, l1, l2,
 * damping_modes, damping_zetas, gravity, initial, elastic, wrench, wrench_file, frequencies,
 * update_every, singular, formulation) -> dict(data [rows, columns], columns, rayleigh) */
PyObject *pkm_py_case_transient(CaseObject *self, PyObject *args, PyObject *kw)
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
    if (!pkm_py_case_ready(self)) return NULL;
    const pkm_case *c = self->c;
    if ((c->analyses & PKM_CASE_MODAL) == 0 || (c->analyses & PKM_CASE_DYNAMICS) == 0)
        return pkm_py_raise_invalid("case '%s' has no %s model: transient needs both", c->name,
                                    (c->analyses & PKM_CASE_MODAL) == 0 ? "finite-element"
                                                                        : "rigid-body");
    if (form < 0) form = (int)c->formulation;
    if (pkm_formulation_type_of((pkm_formulation)form) == NULL)
        return pkm_py_raise_invalid("formulation %d: not a formulation", form);
    if (nfreq < 0 || nfreq > 1000) return pkm_py_raise_invalid("frequencies %d: 0 to 1000", nfreq);
    if (update_every < 0)
        return pkm_py_raise_invalid("update_every %d: expected >= 0", update_every);
    if (!(singular == 0.0 || (singular >= 1e-12 && singular <= 0.5)))
        return pkm_py_raise_invalid("singular %g: expected 1e-12 to 0.5", singular);
    double wrench[6] = {0};
    if (wobj != Py_None && pkm_py_read_doubles(wobj, 6, wrench, "wrench") < 0) return NULL;
    for (int k = 0; k < 6; k++)
        if (!isfinite(wrench[k]))
            return pkm_py_raise_invalid("wrench: component %d is not finite", k);
    PyArrayObject *ta = NULL, *qa = NULL;
    if (ts.kind == 3 && samples(c, tobj, qobj, &ts, &ta, &qa) < 0) return NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL, *wseries = NULL;
    pkm_transient_columns *cols = NULL;
    stop_state stop = {.pid = getpid(), .last = pkm_py_now_s()};
    tr_rows rows = {.stop = &stop, .ctx = &ctx};
    pkm_status st;
    char msg[512] = "";
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(pkm_py_solve_lock, WAIT_LOCK);
    st = make_trajectory(c, &ts, (isnan(start) ? 0.0 : start) + duration, &tr, &ctx);
    if (st == PKM_OK && wfile != NULL) {
        st = pkm_wrench_read_csv(wfile, &wseries, &ctx);
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
        /* the command's csv columns */
        st = pkm_transient_columns_create(c, self->params, elastic, nfreq, &cols, &ctx);
        rows.cols = cols;
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
    PyThread_release_lock(pkm_py_solve_lock);
    Py_END_ALLOW_THREADS;
    Py_XDECREF(ta);
    Py_XDECREF(qa);
    PyObject *r = NULL;
    if (st != PKM_OK)
        pkm_py_raise_ctx(st, &ctx);
    else if (msg[0] != '\0')
        pkm_py_raise_invalid("%s", msg);
    else {
        const npy_intp dims[2] = {(npy_intp)rows.n, 1 + cols->n};
        r = Py_BuildValue("{s:N,s:N,s:(dd)}", "data", pkm_py_doubles(2, dims, rows.data), "columns",
                          pkm_py_string_list(1 + cols->n, column_name_at, cols), "rayleigh",
                          rows.rayleigh[0], rows.rayleigh[1]);
    }
    pkm_transient_columns_destroy(&cols);
    free(rows.data);
    /* Ctrl-C: the rows so far go with the KeyboardInterrupt (.partial) */
    return stop.stopped ? pkm_py_interrupted(&stop, r) : r;
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
    int *types;             /* pkm_joint_type, cut: + 16 */
    const pkm_model *model; /* the run's rigid-body model */
    int ncol;   /* the per-time table's columns (pkm_dynamics_columns or _fwd_columns), t first */
    double *pt; /* per time: t, then the ncol values */
    stop_state *stop;
    pkm_ctx *ctx;
    int failed;
} dyn_rows;

enum { DYN_WIDTH = 11 };

/* Room for one more time: its joint rows written, its per-time row (t, then the ncol values to
 * fill) returned, or NULL (out of memory, recorded). */
static double *dyn_room(dyn_rows *o, double t, const pkm_joint_result *joint)
{
    const int nj = pkm_model_joint_count(o->model);
    if (o->names == NULL) {
        o->njoint = nj;
        o->names = calloc((size_t)nj + 1, sizeof *o->names);
        o->types = calloc((size_t)nj + 1, sizeof *o->types);
        for (int j = 0; j < nj && o->names != NULL && o->types != NULL; j++) {
            const pkm_joint *jt = pkm_model_joint(o->model, j);
            snprintf(o->names[j], PKM_NAME_LEN, "%s", jt->name);
            o->types[j] = (int)jt->type + (jt->cut ? 16 : 0);
        }
    }
    if (o->n + nj > o->cap) {
        const int64_t cap = o->cap ? 2 * o->cap + nj : 1024 * (int64_t)(nj + 1);
        double *d = o->names != NULL && o->types != NULL
                        ? realloc(o->data, sizeof(double) * (size_t)(cap * DYN_WIDTH))
                        : NULL;
        if (d != NULL) o->data = d; /* a failed realloc leaves the old block, freed at the end */
        double *p =
            d != NULL ? realloc(o->pt, sizeof(double) * (size_t)(cap * (o->ncol + 1))) : NULL;
        if (p == NULL) {
            o->failed = 1;
            pkm_ctx_fail(o->ctx, PKM_ERR_NOMEM, __FILE__, __LINE__, "out of memory for %lld rows",
                         (long long)cap);
            return NULL;
        }
        o->pt = p, o->cap = cap;
    }
    /* the per-time row: its index is the joint rows' over the joint count */
    double *pt = o->pt + (o->n / nj) * (o->ncol + 1);
    pt[0] = t;
    for (int j = 0; j < nj; j++) {
        const pkm_joint_result *x = &joint[j];
        const int has = x->ncoord > 0;
        const double v[DYN_WIDTH] = {
            t,           j,        has ? x->q[0] : 0.0, has ? x->qd[0] : 0.0, has ? x->qdd[0] : 0.0,
            x->drive,    x->ideal, x->friction,         x->f_axial,           x->f_radial,
            x->m_bending};
        memcpy(o->data + (o->n++) * DYN_WIDTH, v, sizeof v);
    }
    return pt;
}

static int dyn_sink(void *user, const pkm_dynamics_row *r)
{
    dyn_rows *o = user;
    double *pt = dyn_room(o, r->t, r->joint);
    if (pt == NULL) return 1;
    pkm_dynamics_row_values(r, pt + 1);
    return pkm_py_map_stop(-1, o->stop);
}

/* A time of the forward run: its per-time values in pkm_dynamics_fwd_columns' order. */
static int dyn_fwd_sink(void *user, const pkm_dynamics_fwd_row *r)
{
    dyn_rows *o = user;
    double *pt = dyn_room(o, r->t, r->joint);
    if (pt == NULL) return 1;
    pt[1] = r->deviation, pt[2] = r->balance, pt[3] = r->friction_work;
    return pkm_py_map_stop(-1, o->stop);
}

static const char *dyn_column_name(const void *cols, int k)
{
    return ((const pkm_column *)cols)[k].name;
}

static const char *dyn_column_unit(const void *cols, int k)
{
    return ((const pkm_column *)cols)[k].unit;
}

static const char *dyn_name_at(const void *names, int k)
{
    return ((const char(*)[PKM_NAME_LEN])names)[k];
}

/* The run of dynamics(): the motion, its per-time columns, the engine (named, else the fastest
 * that takes an inverse run; a forward run integrates the general system), the drives of
 * forces_file, then the inverse or the forward run into rows. */
static pkm_status dyn_py_run(const pkm_case *c, const void *params, const pkm_trajectory *tr,
                             pkm_dynamics_opts *o, int forward, const char *forces_file,
                             pkm_motion **motion, pkm_column **cols, dyn_rows *rows, pkm_ctx *ctx)
{
    pkm_trajectory *forces = NULL;
    pkm_status st = pkm_dynamics_motion_create(c, params, o->singular, motion, ctx);
    if (st != PKM_OK) return st;
    rows->model = pkm_motion_model(*motion);
    rows->ncol =
        forward ? pkm_dynamics_fwd_columns(NULL) : pkm_dynamics_columns(*motion, o->inertia, NULL);
    *cols = calloc((size_t)rows->ncol + 1, sizeof(**cols));
    if (*cols == NULL) return pkm_ctx_fail(ctx, PKM_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
    if (forward)
        pkm_dynamics_fwd_columns(*cols);
    else
        pkm_dynamics_columns(*motion, o->inertia, *cols);
    if (o->engine == NULL)
        o->engine =
            forward ? &pkm_dyn_engines[PKM_DYN_ENGINE_MBS] : pkm_dynamics_engine_choose(*motion, o);
    if (forces_file != NULL) st = pkm_forces_read_csv(rows->model, forces_file, &forces, ctx);
    o->forces = forces;
    if (st == PKM_OK)
        st = forward
                 ? pkm_dynamics_forward_run_on(*motion, c, params, tr, o, dyn_fwd_sink, rows, ctx)
                 : pkm_dynamics_run_on(*motion, tr, o, dyn_sink, rows, ctx);
    pkm_trajectory_destroy(&forces);
    o->forces = NULL;
    return st;
}

/* dynamics(kind, name, coord, amp, freq, t, q, t0, t1, n, singular, wrench, wrench_file,
 * inertia, engine, forward, forces, step) -> dict(data [rows, 11], joints, types, per_time
 * [times, 1 + columns], columns, units, engine); t0, t1 NaN: the trajectory's span, n 0: 101
 * times; engine NULL: the fastest that takes the run (pkm_dynamics_engine_choose), as the
 * command line's; forward: the forward run (forces a CSV file of drives, step the largest RK4
 * step, 0: the grid's spacing). */
PyObject *pkm_py_case_dynamics(CaseObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"kind",     "name",   "coord",       "amp",     "freq",
                             "t",        "q",      "t0",          "t1",      "n",
                             "singular", "wrench", "wrench_file", "inertia", "engine",
                             "forward",  "forces", "step",        NULL};
    traj_spec ts = {0};
    PyObject *tobj = Py_None, *qobj = Py_None, *wobj = Py_None;
    double t0 = NAN, t1 = NAN, singular = 0.0, wrench[6] = {0};
    int n = 0;
    const char *wfile = NULL;
    int inertia = 0, forward = 0;
    const char *ename = NULL, *ffile = NULL;
    double step = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iziddOOddidOzpzpzd", kwlist, &ts.kind, &ts.name,
                                     &ts.coord, &ts.amp, &ts.freq, &tobj, &qobj, &t0, &t1, &n,
                                     &singular, &wobj, &wfile, &inertia, &ename, &forward, &ffile,
                                     &step))
        return NULL;
    if (!forward && (ffile != NULL || step != 0.0))
        return pkm_py_raise_invalid("forces, step: only with forward=True");
    const pkm_dyn_engine *engine = ename != NULL ? pkm_dyn_engine_find(ename) : NULL;
    if (ename != NULL && engine == NULL)
        return pkm_py_raise_invalid("engine '%s': expected chain, mbs or mbs-dense", ename);
    if (wobj != Py_None && pkm_py_read_doubles(wobj, 6, wrench, "wrench") < 0) return NULL;
    if (!pkm_py_case_ready(self)) return NULL;
    const pkm_case *c = self->c;
    if ((c->analyses & PKM_CASE_DYNAMICS) == 0)
        return pkm_py_raise_invalid("case '%s' has no rigid-body model with actuated joints",
                                    c->name);
    if (!(singular == 0.0 || (singular >= 1e-12 && singular <= 0.5)))
        return pkm_py_raise_invalid("singular %g: expected 1e-12 to 0.5", singular);
    PyArrayObject *ta = NULL, *qa = NULL;
    if (ts.kind == 3 && samples(c, tobj, qobj, &ts, &ta, &qa) < 0) return NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL, *wseries = NULL;
    pkm_motion *motion = NULL;
    pkm_column *cols = NULL;
    stop_state stop = {.pid = getpid(), .last = pkm_py_now_s()};
    dyn_rows rows = {.stop = &stop, .ctx = &ctx};
    pkm_status st;
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(pkm_py_solve_lock, WAIT_LOCK);
    st = make_trajectory(c, &ts, isnan(t1) ? 0.0 : t1, &tr, &ctx);
    if (st == PKM_OK && wfile != NULL) {
        st = pkm_wrench_read_csv(wfile, &wseries, &ctx);
    }
    if (st == PKM_OK) {
        pkm_dynamics_opts o = {.t0 = t0,
                               .t1 = t1,
                               .n = n > 0 ? n : 101,
                               .singular = singular,
                               .wrench_series = wseries,
                               .inertia = inertia,
                               .engine = engine,
                               .step = step};
        memcpy(o.wrench, wrench, sizeof(wrench));
        double a, b;
        pkm_trajectory_span(tr, &a, &b);
        if (isnan(o.t0)) o.t0 = a;
        if (isnan(o.t1)) o.t1 = b;
        st = dyn_py_run(c, self->params, tr, &o, forward, ffile, &motion, &cols, &rows, &ctx);
        engine = o.engine;
        if (st == PKM_OK && rows.failed) st = ctx.status;
    }
    pkm_trajectory_destroy(&tr);
    pkm_trajectory_destroy(&wseries);
    PyThread_release_lock(pkm_py_solve_lock);
    Py_END_ALLOW_THREADS;
    Py_XDECREF(ta);
    Py_XDECREF(qa);
    PyObject *r = NULL;
    if (st != PKM_OK)
        pkm_py_raise_ctx(st, &ctx);
    else {
        const npy_intp dims[2] = {(npy_intp)rows.n, DYN_WIDTH};
        const npy_intp nt = rows.njoint;
        const npy_intp pdims[2] = {rows.njoint > 0 ? (npy_intp)(rows.n / rows.njoint) : 0,
                                   rows.ncol + 1};
        r = Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:s}", "data",
                          pkm_py_doubles(2, dims, rows.data), "joints",
                          pkm_py_string_list(rows.njoint, dyn_name_at, rows.names), "types",
                          pkm_py_array_copy(NPY_INT, 1, &nt, rows.types), "per_time",
                          pkm_py_doubles(2, pdims, rows.pt), "columns",
                          pkm_py_string_list(rows.ncol, dyn_column_name, cols), "units",
                          pkm_py_string_list(rows.ncol, dyn_column_unit, cols), "engine",
                          engine != NULL ? engine->name : "mbs");
    }
    free(cols); /* its plane names are the motion's model's */
    pkm_motion_destroy(&motion);
    free(rows.pt);
    free(rows.data);
    free(rows.names);
    free(rows.types);
    return stop.stopped ? pkm_py_interrupted(&stop, r) : r;
}
