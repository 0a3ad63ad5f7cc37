/* python/src/_modes_map.c: modes at one pose and maps over a grid (pkmflex._core;
 * python/src/pkm_py.h). SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm_py.h"

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
    int rc = pkm_py_put(d, "freq_hz", pkm_py_doubles1(nev, md->freq_hz)) |
             pkm_py_put(d, "omega2", pkm_py_doubles1(nev, md->omega2)) |
             pkm_py_put(d, "residual", pkm_py_doubles1(nev, md->residual)) |
             pkm_py_put(d, "backward_error", pkm_py_doubles1(nev, md->backward_error)) |
             pkm_py_put(d, "accuracy", pkm_py_doubles1(nev, md->accuracy)) |
             pkm_py_put(d, "orth_error", PyFloat_FromDouble(md->orth_error)) |
             pkm_py_put(d, "sigma", PyFloat_FromDouble(md->sigma)) |
             pkm_py_put(d, "iterations", PyLong_FromLong(md->iterations)) |
             pkm_py_put(d, "op_count", PyLong_FromLong(md->op_count)) |
             pkm_py_put(d, "zero_modes", PyLong_FromLong(md->zero_modes)) |
             pkm_py_put(d, "n_reduced", PyLong_FromLongLong((long long)j->info.n_reduced)) |
             pkm_py_put(d, "n_total", PyLong_FromLongLong((long long)j->info.n_total)) |
             pkm_py_put(d, "pose", pkm_py_doubles1(j->c->npose, j->pose)) |
             pkm_py_put(d, "body_names", pkm_py_string_list(j->nbody, body_name_at, j->m)) |
             pkm_py_put(d, "joint_names", pkm_py_string_list(j->njoint, joint_name_at, j->m));
    if (rc == 0 && vectors) {
        const npy_intp dims[2] = {nev, (npy_intp)md->n};
        rc = pkm_py_put(d, "vectors", pkm_py_doubles(2, dims, md->vectors));
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
        rc = pkm_py_put(d, "shapes", pkm_py_doubles(3, dims, j->u)) |
             pkm_py_put(d, "node_xyz", xyz) | pkm_py_put(d, "node_body", body);
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
        rc = pkm_py_put(d, "twist", tw) | pkm_py_put(d, "eff_mass", em) |
             pkm_py_put(d, "energy", en) |
             pkm_py_put(d, "body_energy", pkm_py_doubles(2, db, j->body_e)) |
             pkm_py_put(d, "joint_energy", pkm_py_doubles(2, dj, j->joint_e)) |
             pkm_py_put(d, "leg_energy", pkm_py_doubles(2, dl, j->leg_e));
    }
    if (rc != 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* modes(pose=None, nev=10, formulation=-1, solver=0, max_accuracy=0, vectors=False,
 * shapes=True, describe=True) -> dict */
PyObject *pkm_py_case_modes(CaseObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"pose",    "nev",    "formulation", "solver", "max_accuracy",
                             "vectors", "shapes", "describe",    NULL};
    PyObject *pose = NULL;
    int nev = 10, form = -1, eig = PKM_EIG_ARPACK, vectors = 0, shapes = 1, describe = 1;
    double max_accuracy = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Oiiidppp", kwlist, &pose, &nev, &form, &eig,
                                     &max_accuracy, &vectors, &shapes, &describe))
        return NULL;
    if (!pkm_py_case_ready(self)) return NULL;
    modes_job j = {.c = self->c,
                   .params = self->params,
                   .eig = (pkm_eigensolver)eig,
                   .shapes = shapes,
                   .describe = describe};
    pkm_ctx_clear(&j.ctx);
    if (pkm_py_check_solver(self->c, &form, eig) < 0 || pkm_py_read_pose(self->c, pose, j.pose) < 0)
        return NULL;
    if (nev < 1 || nev > 100000) return pkm_py_raise_invalid("nev %d: expected 1 to 100000", nev);
    if (!(max_accuracy == 0.0 || (max_accuracy >= 1e-16 && max_accuracy <= 1.0)))
        return pkm_py_raise_invalid("max_accuracy %g: expected a number from 1e-16 to 1",
                                    max_accuracy);
    j.form = (pkm_formulation)form;
    j.mo = pkm_modal_opts_default();
    j.mo.nev = nev;
    j.mo.max_accuracy = max_accuracy;
    pkm_status st;
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(pkm_py_solve_lock, WAIT_LOCK);
    st = modes_run(&j);
    PyThread_release_lock(pkm_py_solve_lock);
    Py_END_ALLOW_THREADS;
    PyObject *r = st == PKM_OK ? modes_result(&j, vectors) : pkm_py_raise_ctx(st, &j.ctx);
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
        pkm_py_put(d, "axes", axes) | pkm_py_put(d, "case", PyUnicode_FromString(map->case_name)) |
        pkm_py_put(d, "pose_names", pkm_py_string_list(map->npose, map_pose_name_at, map)) |
        pkm_py_put(d, "base_pose", pkm_py_doubles1(map->npose, map->base_pose)) |
        pkm_py_put(d, "nev", PyLong_FromLong(map->nev)) |
        pkm_py_put(d, "formulation", PyUnicode_FromString(ft ? ft->name : "")) |
        pkm_py_put(d, "solver", PyUnicode_FromString(et ? et->name : "")) |
        pkm_py_put(d, "case_params", PyUnicode_FromString(map->case_params)) |
        pkm_py_put(d, "case_file", PyUnicode_FromString(map->case_file)) |
        pkm_py_put(d, "version", PyUnicode_FromString(map->version)) |
        pkm_py_put(d, "commit", PyUnicode_FromString(map->commit)) |
        pkm_py_put(d, "ncoord", PyLong_FromLongLong((long long)map->ncoord)) |
        pkm_py_put(d, "solver_fallbacks", PyLong_FromLongLong((long long)map->solver_fallbacks)) |
        pkm_py_put(d, "tracking",
                   PyUnicode_FromString(map->tracking == PKM_TRACK_MAC ? "mac" : "rank")) |
        pkm_py_put(d, "tracking_note", PyUnicode_FromString(map->tracking_note)) |
        pkm_py_put(d, "mac_threshold", PyFloat_FromDouble(map->track.mac_threshold)) |
        pkm_py_put(d, "cluster_tol", PyFloat_FromDouble(map->track.cluster_tol));
    PyObject *params = rc == 0 ? PyDict_New() : NULL;
    for (int k = 0; params != NULL && k < map->nparams; k++) {
        const pkm_map_param *p = &map->params[k];
        PyObject *v = p->kind == PKM_PARAM_ENUM  ? PyUnicode_FromString(p->choice)
                      : p->kind == PKM_PARAM_INT ? PyLong_FromLongLong((long long)p->value)
                                                 : PyFloat_FromDouble(p->value);
        if (pkm_py_put(params, p->key, v) < 0) Py_CLEAR(params);
    }
    rc |= pkm_py_put(d, "parameters", params);
    shape[na] = map->nev;
    if (rc == 0 && map->status != NULL) {
        rc = pkm_py_put(d, "status", pkm_py_array_copy(NPY_INT8, na, shape, map->status)) |
             pkm_py_put(d, "freq_hz", pkm_py_doubles(na + 1, shape, map->freq_hz)) |
             pkm_py_put(d, "residual", pkm_py_doubles(na + 1, shape, map->residual)) |
             pkm_py_put(d, "accuracy", pkm_py_doubles(na + 1, shape, map->accuracy)) |
             pkm_py_put(d, "tracked_mode",
                        pkm_py_array_copy(NPY_INT32, na + 1, shape, map->tracked)) |
             pkm_py_put(d, "tracking_mac", pkm_py_doubles(na + 1, shape, map->tracking_mac)) |
             pkm_py_put(d, "tracking_parent",
                        pkm_py_array_copy(NPY_INT64, na, shape, map->tracking_parent)) |
             pkm_py_put(d, "closure_conditioning", pkm_py_doubles(na, shape, map->conditioning));
    }
    if (rc == 0 && map->modes != NULL && map->ncoord > 0) {
        shape[na + 1] = (npy_intp)map->ncoord;
        rc = pkm_py_put(d, "modes", pkm_py_doubles(na + 2, shape, map->modes));
    }
    if (rc != 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyObject *pkm_py_interrupted(stop_state *s, PyObject *partial)
{
    PyErr_NormalizeException(&s->type, &s->value, &s->tb);
    if (partial != NULL && s->value != NULL &&
        PyObject_SetAttrString(s->value, "partial", partial) < 0)
        PyErr_Clear();
    Py_XDECREF(partial);
    PyErr_Restore(s->type, s->value, s->tb);
    return NULL;
}

int pkm_py_map_stop(int64_t point, void *user)
{
    (void)point;
    stop_state *s = user;
    if (s->stopped) return 1;
    if (getpid() != s->pid) return 0; /* a forked worker: the calling process decides */
    const double t = pkm_py_now_s();
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
PyObject *pkm_py_case_map(CaseObject *self, PyObject *args, PyObject *kw)
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
    if (!pkm_py_case_ready(self)) return NULL;
    const pkm_case *c = self->c;
    if (pkm_py_check_solver(c, &form, eig) < 0) return NULL;
    if (nev < 1 || nev > 100000) return pkm_py_raise_invalid("nev %d: expected 1 to 100000", nev);
    if (threads < 1 || threads > 256)
        return pkm_py_raise_invalid("threads %d: expected an integer from 1 to 256", threads);
    if (!(mac_threshold >= 0.0 && mac_threshold <= 1.0 && cluster_tol >= 0.0 && cluster_tol <= 1.0))
        return pkm_py_raise_invalid("mac_threshold and cluster_tol: expected numbers from 0 to 1");
    pkm_map map;
    pkm_map_init(&map);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    PyObject *fast = PySequence_Fast(axes, "grid: expected a sequence of axes");
    if (fast == NULL) return NULL;
    const Py_ssize_t na = PySequence_Fast_GET_SIZE(fast);
    if (na < 1 || na > PKM_MAP_MAX_AXES) {
        Py_DECREF(fast);
        return pkm_py_raise_invalid("grid: %zd axes, expected 1 to %d", na, PKM_MAP_MAX_AXES);
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
                return pkm_py_raise_invalid("grid: axis '%s' given twice", name);
            }
        if (idx < 0 || count < 1 || count > 10000000 || !isfinite(start) || !isfinite(stop)) {
            Py_DECREF(fast);
            return idx < 0
                       ? pkm_py_raise_invalid("grid: '%s' is not a pose coordinate of %s", name,
                                              c->name)
                       : pkm_py_raise_invalid("grid: axis '%s': finite start and stop and a count "
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
    if (st != PKM_OK) return pkm_py_raise_ctx(st, &ctx);
    map.npose = c->npose;
    for (int k = 0; k < c->npose; k++)
        snprintf(map.pose_names[k], sizeof map.pose_names[k], "%s", c->pose_names[k]);
    if (pkm_py_read_pose(c, base, map.base_pose) < 0) {
        pkm_map_free(&map);
        return NULL;
    }
    if (strlen(case_params) >= sizeof map.case_params) {
        pkm_map_free(&map);
        return pkm_py_raise_invalid("case_params: more than %zu characters",
                                    sizeof map.case_params - 1);
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
        return pkm_py_raise_ctx(st, &ctx);
    }
    stop_state stop = {.pid = getpid(), .last = pkm_py_now_s()};
    pkm_sweep_opts so = pkm_sweep_opts_default();
    so.nworkers = threads;
    so.stop = pkm_py_map_stop;
    so.user = &stop;
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(pkm_py_solve_lock, WAIT_LOCK);
    st = pkm_map_sweep(c, self->params, &map, &so, &ctx);
    PyThread_release_lock(pkm_py_solve_lock);
    Py_END_ALLOW_THREADS;
    if (st != PKM_OK) {
        Py_XDECREF(stop.type);
        Py_XDECREF(stop.value);
        Py_XDECREF(stop.tb);
        pkm_map_free(&map);
        return pkm_py_raise_ctx(st, &ctx);
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
        return pkm_py_interrupted(&stop, partial);
    }
    /* The vectors were kept for tracking; they are handed over only if asked for. */
    if (!keep_modes) pkm_map_free_modes(&map);
    if (output != NULL && (st = pkm_map_write_h5(&map, output, &ctx)) != PKM_OK) {
        pkm_map_free(&map);
        return pkm_py_raise_ctx(st, &ctx);
    }
    PyObject *r = map_result(&map);
    pkm_map_free(&map);
    return r;
}

/* read_map(path) -> dict (a file written by pkmflex map or Case.map(output=...)). */
PyObject *pkm_py_core_read_map(PyObject *mod, PyObject *args)
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
    PyThread_acquire_lock(pkm_py_solve_lock, WAIT_LOCK);
    st = pkm_map_read_h5(path, &map, &ctx);
    PyThread_release_lock(pkm_py_solve_lock);
    Py_END_ALLOW_THREADS;
    if (st != PKM_OK) {
        pkm_map_free(&map);
        return pkm_py_raise_ctx(st, &ctx);
    }
    PyObject *r = map_result(&map);
    pkm_map_free(&map);
    return r;
}
