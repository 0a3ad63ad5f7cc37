/* python/src/_fit.c: model updating (pkmflex._core; python/src/pkm_py.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm_py.h"

/* ---------------------------------------------------------------------------------------------
 * fit: `pkmflex fit` (cli/fit.c) without its printing, on a copy of the case's parameters
 * (pkm_fit_run updates them in place): the case is left as it was. */

/* fit(pose [rows, npose], freq [rows, nfreq], weights [nfreq] or None, keys, start, lo, hi,
 * match, gap, max_iter, jacobian, multistart, formulation, solver) -> dict */
PyObject *pkm_py_case_fit(CaseObject *self, PyObject *args, PyObject *kw)
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
    if (!pkm_py_case_ready(self)) return NULL;
    const pkm_case *c = self->c;
    if (pkm_py_check_solver(c, &form, eig) < 0) return NULL;
    const Py_ssize_t np = PySequence_Size(keys);
    if (np < 1 || np > PKM_FIT_MAX_PARAMS)
        return np < 0 ? NULL
                      : pkm_py_raise_invalid("fit: 1 to %d parameters, got %zd", PKM_FIT_MAX_PARAMS,
                                             np);
    pkm_fit_param p[PKM_FIT_MAX_PARAMS];
    double start[PKM_FIT_MAX_PARAMS], lo[PKM_FIT_MAX_PARAMS], hi[PKM_FIT_MAX_PARAMS];
    if (pkm_py_read_doubles(sobj, (int)np, start, "fit start") < 0 ||
        pkm_py_read_doubles(lobj, (int)np, lo, "fit lower bounds") < 0 ||
        pkm_py_read_doubles(hobj, (int)np, hi, "fit upper bounds") < 0)
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
            return pkm_py_raise_invalid("fit: '%s' is not a real-valued parameter of case %s", key,
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
            return pkm_py_raise_invalid("fit: %s: start %g %s is not strictly inside [%g, %g]", key,
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
        pkm_py_raise_invalid(
            "fit: the table's poses [rows, %d], frequencies [rows, columns] and weights "
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
    PyThread_acquire_lock(pkm_py_solve_lock, WAIT_LOCK);
    st = pkm_fit_run(c, work, &data, p, (int)np, &fo, &res, &ctx);
    PyThread_release_lock(pkm_py_solve_lock);
    Py_END_ALLOW_THREADS;
    free(work);
    if (st != PKM_OK && st != PKM_ERR_NOCONV) {
        pkm_py_raise_ctx(st, &ctx);
    } else {
        const npy_intp n1 = res.nparam, n2[2] = {res.nparam, res.nparam}, nt[2] = {nrows, nfreq};
        double st0[PKM_FIT_MAX_PARAMS];
        for (int k = 0; k < res.nparam; k++)
            st0[k] = p[k].start;
        r = Py_BuildValue("{s:N,s:N,s:N,s:N,s:i,s:d,s:d,s:i,s:i,s:i,s:N,s:N,s:N,s:N,s:s}", "start",
                          pkm_py_doubles1(n1, st0), "value", pkm_py_doubles1(n1, res.value),
                          "std_err", pkm_py_doubles1(n1, res.std_err), "corr",
                          pkm_py_doubles(2, n2, res.corr), "nres", res.nres, "rms_start",
                          res.rms_start, "rms", res.rms, "iterations", res.iterations, "passes",
                          res.passes, "converged", res.converged, "pair",
                          pkm_py_array_copy(NPY_INT32, 2, nt, res.pair), "mult",
                          pkm_py_array_copy(NPY_INT32, 2, nt, res.mult), "freq_hz",
                          pkm_py_doubles(2, nt, res.freq), "ref_hz",
                          pkm_py_doubles(2, nt, data.freq), "message", st == PKM_OK ? "" : ctx.msg);
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
PyObject *pkm_py_core_read_table(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *path = NULL;
    int npose = 0;
    if (!PyArg_ParseTuple(args, "si", &path, &npose)) return NULL;
    pkm_table *t = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_table_read(path, npose, &t, &ctx);
    if (st != PKM_OK) return pkm_py_raise_ctx(st, &ctx);
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
    PyObject *r =
        kinds ? Py_BuildValue("(NNNN)", pkm_py_array_copy(NPY_INT32, 1, &nr, t->id),
                              pkm_py_doubles(2, dp, t->pose), pkm_py_doubles(2, df, t->freq), kinds)
              : NULL;
    pkm_table_destroy(&t);
    return r;
}
