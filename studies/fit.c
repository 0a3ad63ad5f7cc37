/* studies/fit.c: model updating against reference frequencies (pkm/fit.h) with GSL's
 * multifit_nlinear.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GSL reports errors through a process-wide handler that by default prints and aborts; the
 * solver's calls run with it switched off (gsl_set_error_handler_off) and the caller's handler
 * is put back before returning, so the library keeps no state and every GSL failure becomes a
 * status. Like ARPACK, this makes one fit at a time per process. */
#include "core/core_impl.h"
#include "studies/fit_impl.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

pkm_fit_opts pkm_fit_opts_default(void)
{
    const pkm_fit_opts o = {.form = PKM_FORM_TREE,
                            .eig = PKM_EIG_ARPACK,
                            .match = pkm_match_opts_default(),
                            .jacobian = PKM_FIT_JAC_SENSITIVITY,
                            .max_iter = 100,
                            .multistart = 1,
                            .xtol = 1e-8};
    return o;
}

void pkm_fit_result_free(pkm_fit_result *res)
{
    free(res->pair);
    free(res->freq);
    res->pair = res->mult = NULL;
    res->freq = NULL;
}

static int bounded(const pkm_fit_param *p)
{
    return !isnan(p->lo);
}

double pkm_fit_param_of(const pkm_fit_param *p, const pkm_param_desc *d, double u, double *dpdu)
{
    if (bounded(p)) {
        *dpdu = 0.5 * (p->hi - p->lo) * cos(u);
        return p->lo + 0.5 * (p->hi - p->lo) * (1.0 + sin(u));
    }
    const double s = fabs(p->start), v = s * u;
    *dpdu = (v < d->range->min || v > d->range->max) ? 0.0 : s;
    return fmin(fmax(v, d->range->min), d->range->max);
}

/* u of a value v of p (strictly inside its bounds). */
static double u_of(const pkm_fit_param *p, double v)
{
    if (bounded(p)) return asin(2.0 * (v - p->lo) / (p->hi - p->lo) - 1.0);
    return v / fabs(p->start);
}

void pkm_fit_set_params(pkm_fit_state *s, const double *u)
{
    for (int k = 0; k < s->np; k++) {
        double dpdu;
        *(double *)((char *)s->params + s->desc[k]->offset) =
            pkm_fit_param_of(&s->p[k], s->desc[k], u[k], &dpdu);
    }
}

/* Solve every row at the current parameters; with pairing, take the rows' pairings anew; fill
 * s->freq (the paired values, NAN elsewhere). */
static pkm_status solve_rows(pkm_fit_state *s, int pairing)
{
    const pkm_fit_data *d = s->d;
    for (int r = 0; r < d->nrows; r++) {
        const size_t o = (size_t)r * (size_t)d->nfreq;
        pkm_model *m = NULL;
        const pkm_modes *md = NULL;
        pkm_status st = s->c->build(s->params, d->pose + (size_t)r * (size_t)d->npose, &m, s->ctx);
        if (st == PKM_OK) st = pkm_analysis_solve(s->an, m, &md, NULL, s->ctx);
        pkm_model_destroy(&m);
        if (st == PKM_OK && pairing)
            st = pkm_freq_match(d->freq + o, d->nfreq, md->freq_hz, md->nev, s->match, s->pair + o,
                                s->mult + o, NULL, s->ctx);
        if (st != PKM_OK) return st;
        for (int k = 0; k < d->nfreq; k++) {
            const int q = s->pair[o + k], n = s->mult[o + k];
            double f = 0.0;
            for (int t = 0; t < n && q >= 0; t++)
                f += md->freq_hz[q + t] / n;
            s->freq[o + k] = (q >= 0 && q + n <= md->nev) ? f : NAN;
        }
    }
    return PKM_OK;
}

int pkm_fit_stop_asked(pkm_fit_state *s)
{
    if (!s->stopped && s->o->stop != NULL && s->o->stop(s->o->user)) s->stopped = 1;
    return s->stopped;
}

/* After an evaluation of the residuals f at the current parameters: the best so far kept (what
 * an interrupted fit returns), opts.progress told. */
static void note_evaluation(pkm_fit_state *s, const gsl_vector *f)
{
    const size_t cells = (size_t)s->d->nrows * (size_t)s->d->nfreq;
    const double rms = gsl_blas_dnrm2(f) / sqrt((double)f->size);
    s->evals++;
    if (rms < s->best_rms) {
        s->best_rms = rms;
        s->best_nres = (int)f->size;
        for (int k = 0; k < s->np; k++)
            s->best_value[k] = *(const double *)((const char *)s->params + s->desc[k]->offset);
        memcpy(s->best_pair, s->pair, sizeof(int) * 2 * cells);
        memcpy(s->best_freq, s->freq, sizeof(double) * cells);
    }
    if (s->o->progress == NULL) return;
    const pkm_fit_progress p = {s->start, s->nstarts, s->evals, rms, s->best_rms};
    s->o->progress(&p, s->o->user);
}

/* The residuals w_k (f - f_ref) / f_ref of the paired values, in row-major order. */
static int residuals(const gsl_vector *x, void *user, gsl_vector *f)
{
    pkm_fit_state *s = user;
    if (pkm_fit_stop_asked(s)) return GSL_EFAILED;
    pkm_fit_set_params(s, x->data);
    const pkm_status st = solve_rows(s, 0);
    if (st != PKM_OK) {
        if (s->st == PKM_OK) s->st = st;
        return GSL_EFAILED;
    }
    size_t i = 0;
    const pkm_fit_data *d = s->d;
    for (int r = 0; r < d->nrows; r++)
        for (int k = 0; k < d->nfreq; k++) {
            const size_t o = (size_t)r * (size_t)d->nfreq + (size_t)k;
            if (s->pair[o] < 0) continue;
            const double w = d->weight != NULL ? d->weight[k] : 1.0;
            gsl_vector_set(f, i++, w * (s->freq[o] - d->freq[o]) / d->freq[o]);
        }
    if (i != f->size) return GSL_EFAILED;
    note_evaluation(s, f);
    return GSL_SUCCESS;
}

static int count_pairs(const pkm_fit_state *s)
{
    int n = 0;
    for (int k = 0; k < s->d->nrows * s->d->nfreq; k++)
        n += s->pair[k] >= 0;
    return n;
}

/* The parameters named, their bounds and starts: PKM_ERR_INVALID naming the first bad one. */
static pkm_status check_params(pkm_fit_state *s, pkm_ctx *ctx)
{
    if (s->np < 1 || s->np > PKM_FIT_MAX_PARAMS)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "fit: %d parameters (1 to %d)", s->np,
                        PKM_FIT_MAX_PARAMS);
    for (int k = 0; k < s->np; k++) {
        const pkm_fit_param *p = &s->p[k];
        const pkm_param_desc *d = pkm_case_param_find(s->c, p->key);
        if (d == NULL || d->kind != PKM_PARAM_DOUBLE)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "fit: '%s' is not a real-valued parameter of case %s", p->key,
                            s->c->name);
        for (int j = 0; j < k; j++)
            if (s->desc[j] == d)
                return PKM_FAIL(ctx, PKM_ERR_INVALID, "fit: '%s' named twice", p->key);
        if (!isfinite(p->start) || p->start < d->range->min || p->start > d->range->max)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "fit: '%s' start %g %s outside [%g, %g]", p->key,
                            p->start, d->unit, d->range->min, d->range->max);
        if (bounded(p) ? !(p->lo < p->start && p->start < p->hi) || isinf(p->lo) || isinf(p->hi)
                       : p->start == 0.0)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            bounded(p) ? "fit: '%s' start %g %s not strictly inside its bounds "
                                         "[%g, %g]"
                                       : "fit: '%s' start %g %s: a parameter without bounds "
                                         "needs a nonzero start (it sets the scale)",
                            p->key, p->start, d->unit, p->lo, p->hi);
        s->desc[k] = d;
    }
    return PKM_OK;
}

/* Standard errors and correlations from the Jacobian J (in u) at the solution u. */
static void fill_statistics(const pkm_fit_state *s, const gsl_matrix *J, const double *u,
                            double sumsq, pkm_fit_result *res)
{
    const int np = s->np, m = (int)J->size1;
    gsl_matrix *C = gsl_matrix_alloc((size_t)np, (size_t)np);
    const double s2 = m > np ? sumsq / (m - np) : 0.0;
    double dp[PKM_FIT_MAX_PARAMS];
    for (int k = 0; k < np; k++)
        pkm_fit_param_of(&s->p[k], s->desc[k], u[k], &dp[k]);
    if (C != NULL && gsl_multifit_nlinear_covar(J, 0.0, C) == GSL_SUCCESS) {
        for (int a = 0; a < np; a++) {
            res->std_err[a] = fabs(dp[a]) * sqrt(s2 * gsl_matrix_get(C, a, a));
            for (int b = 0; b < np; b++) {
                const double den = sqrt(gsl_matrix_get(C, a, a) * gsl_matrix_get(C, b, b));
                res->corr[a * np + b] = den > 0.0 ? gsl_matrix_get(C, a, b) / den : NAN;
            }
        }
    } else {
        for (int a = 0; a < np * np; a++)
            res->corr[a] = NAN;
        for (int a = 0; a < np; a++)
            res->std_err[a] = NAN;
    }
    gsl_matrix_free(C);
}

/* One pass of the solver from u (updated) with the pairing held; *converged. */
static pkm_status run_pass(pkm_fit_state *s, const pkm_fit_opts *o, double *u, pkm_fit_result *res,
                           pkm_ctx *ctx)
{
    const size_t n = (size_t)count_pairs(s), np = (size_t)s->np;
    if (n < np)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "fit: %zu paired reference values for %zu parameters: the table must give "
                        "at least as many",
                        n, np);
    gsl_multifit_nlinear_fdf fdf = {
        .f = residuals,
        .df = o->jacobian == PKM_FIT_JAC_SENSITIVITY ? pkm_fit_sensitivities : NULL,
        .fvv = NULL,
        .n = n,
        .p = np,
        .params = s};
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    fp.fdtype = GSL_MULTIFIT_NLINEAR_CTRDIFF;
    fp.h_df = 1e-5;
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, np);
    gsl_vector_view u0 = gsl_vector_view_array(u, np);
    if (w == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "fit: cannot allocate the solver");
    int info = 0, gst = gsl_multifit_nlinear_init(&u0.vector, &fdf, w);
    if (gst == GSL_SUCCESS) {
        if (res->passes == 0)
            res->rms_start = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w)) / sqrt((double)n);
        gst = gsl_multifit_nlinear_driver((size_t)o->max_iter, o->xtol, 1e-10, 1e-12, NULL, NULL,
                                          &info, w);
    }
    if (s->stopped) { /* not a failure: pkm_fit_run returns the best evaluation */
        gsl_multifit_nlinear_free(w);
        return PKM_OK;
    }
    pkm_status st = s->st;
    if (st == PKM_OK && gst != GSL_SUCCESS && gst != GSL_EMAXITER && gst != GSL_ENOPROG)
        st = PKM_FAIL(ctx, PKM_ERR_SOLVER, "fit: the solver failed: %s", gsl_strerror(gst));
    if (st == PKM_OK) {
        memcpy(u, gsl_multifit_nlinear_position(w)->data, sizeof(double) * np);
        const double nrm = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w));
        res->rms = nrm / sqrt((double)n);
        res->nres = (int)n;
        res->iterations += (int)gsl_multifit_nlinear_niter(w);
        res->converged = gst == GSL_SUCCESS;
        fill_statistics(s, gsl_multifit_nlinear_jac(w), u, nrm * nrm, res);
    }
    gsl_multifit_nlinear_free(w);
    return st;
}

/* Passes from u (updated) until the pairing at the end is the one the pass held. */
static pkm_status fit_passes(pkm_fit_state *s, const pkm_fit_opts *o, double *u,
                             pkm_fit_result *res, pkm_ctx *ctx)
{
    const size_t cells = (size_t)s->d->nrows * (size_t)s->d->nfreq;
    res->passes = res->converged = res->iterations = 0;
    s->st = PKM_OK;
    if (pkm_fit_stop_asked(s)) return PKM_OK;
    pkm_fit_set_params(s, u);
    pkm_status st = solve_rows(s, 1);
    int same = 0;
    while (st == PKM_OK && !same && res->passes < PKM_FIT_MAX_PASSES) {
        st = run_pass(s, o, u, res, ctx);
        res->passes++;
        if (st != PKM_OK) break;
        if (s->stopped) return PKM_OK;
        memcpy(res->pair, s->pair, sizeof(int) * 2 * cells);
        pkm_fit_set_params(s, u);
        st = solve_rows(s, 1);
        same = st == PKM_OK && memcmp(res->pair, s->pair, sizeof(int) * 2 * cells) == 0;
    }
    for (int k = 0; k < s->np; k++) {
        double dpdu;
        res->value[k] = pkm_fit_param_of(&s->p[k], s->desc[k], u[k], &dpdu);
    }
    if (st == PKM_OK) {
        memcpy(res->pair, s->pair, sizeof(int) * 2 * cells);
        memcpy(res->freq, s->freq, sizeof(double) * cells);
        if (!same || !res->converged)
            st = PKM_FAIL(ctx, PKM_ERR_NOCONV,
                          "fit: no convergence after %d passes and %d iterations (%s)", res->passes,
                          res->iterations,
                          same ? "the solver's tolerance not met" : "the pairing kept changing");
    }
    return st;
}

static pkm_status fit_from_start(pkm_fit_state *s, const pkm_fit_opts *o, pkm_fit_result *res,
                                 pkm_ctx *ctx)
{
    double u[PKM_FIT_MAX_PARAMS];
    for (int k = 0; k < s->np; k++)
        u[k] = u_of(&s->p[k], s->p[k].start);
    s->nstarts = 1;
    return fit_passes(s, o, u, res, ctx);
}

/* Row r of a binary covering array of strength 2 with n rows (Kleitman and Spencer 1973): its
 * columns are the distinct n-bit words with a 0 in row 0 and ceil(n/2) ones, so any two columns
 * show all four combinations 00, 01, 10, 11 among the rows; column k is the k-th such word in
 * increasing order. np columns need n = cover_rows(np) rows. */
static int cover_rows(int np)
{
    int n = 2;
    for (;; n++) {
        int words = 1; /* C(n - 1, ceil(n / 2)) */
        for (int i = 0; i < (n + 1) / 2; i++)
            words = words * (n - 1 - i) / (i + 1);
        if (words >= np) return n;
    }
}

static int cover_bit(int n, int r, int k)
{
    for (unsigned w = 0; w < 1u << n; w++) {
        int ones = 0;
        for (unsigned b = w; b != 0; b >>= 1)
            ones += (int)(b & 1u);
        if ((w & 1u) || ones != (n + 1) / 2) continue;
        if (k-- == 0) return (int)(w >> r & 1u);
    }
    return 0;
}

/* res's values into keep (whose pairing arrays have the same size). */
static void keep_result(const pkm_fit_result *res, size_t cells, pkm_fit_result *keep)
{
    int *pair = keep->pair;
    double *freq = keep->freq;
    *keep = *res;
    keep->pair = pair;
    keep->mult = pair + cells;
    keep->freq = freq;
    memcpy(pair, res->pair, sizeof(int) * 2 * cells);
    memcpy(freq, res->freq, sizeof(double) * cells);
}

/* The multistart of pkm/fit.h: local fits from the start and from the corners of the box
 * [start / F, start F] chosen by the covering array's rows; the one of lowest rms is kept. */
static pkm_status multistart(pkm_fit_state *s, const pkm_fit_opts *o, pkm_fit_result *res,
                             pkm_ctx *ctx)
{
    const size_t cells = (size_t)s->d->nrows * (size_t)s->d->nfreq;
    const int nc = cover_rows(s->np);
    double u[PKM_FIT_MAX_PARAMS], best_u[PKM_FIT_MAX_PARAMS], rms_start = 0.0;
    pkm_fit_result best = {.pair = malloc(sizeof(int) * 2 * cells),
                           .freq = malloc(sizeof(double) * cells),
                           .rms = INFINITY};
    int iterations = 0;
    pkm_status st = PKM_OK;
    if (best.pair == NULL || best.freq == NULL)
        st = PKM_FAIL(ctx, PKM_ERR_NOMEM, "fit: cannot allocate the multistart");
    s->nstarts = nc + 1;
    for (int r = -1; r < nc && st == PKM_OK && !s->stopped; r++) {
        s->start = r + 1;
        for (int k = 0; k < s->np; k++) {
            const pkm_fit_param *p = &s->p[k];
            double v = p->start;
            if (r >= 0) v *= cover_bit(nc, r, k) ? PKM_FIT_START_BOX : 1.0 / PKM_FIT_START_BOX;
            if (bounded(p) && !(p->lo < v && v < p->hi))
                v = 0.5 * (v < p->lo ? p->lo : p->hi) + 0.5 * p->start;
            if (!bounded(p)) v = fmin(fmax(v, s->desc[k]->range->min), s->desc[k]->range->max);
            u[k] = u_of(p, v);
        }
        st = fit_passes(s, o, u, res, ctx);
        iterations += res->iterations;
        if (r < 0) rms_start = res->rms_start;
        if (st == PKM_OK && res->rms < best.rms) {
            keep_result(res, cells, &best);
            memcpy(best_u, u, sizeof(double) * (size_t)s->np);
        }
        if (st == PKM_ERR_NOCONV) { /* another start may converge: its cause is not kept */
            pkm_ctx_clear(ctx);
            st = PKM_OK;
        }
    }
    if (s->stopped) { /* pkm_fit_run returns the best evaluation */
    } else if (st == PKM_OK && isfinite(best.rms)) {
        keep_result(&best, cells, res);
        pkm_fit_set_params(s, best_u);
    } else if (st == PKM_OK) /* none converged: res holds the last start's last state */
        st = PKM_FAIL(ctx, PKM_ERR_NOCONV,
                      "fit: none of the %d starts of the multistart converged (the last: %d "
                      "passes, %d iterations)",
                      nc + 1, res->passes, res->iterations);
    res->iterations = iterations;
    res->rms_start = rms_start;
    free(best.pair);
    free(best.freq);
    return st;
}

/* An interrupted fit (opts.stop): res gets the lowest-rms evaluation so far (the start if none
 * finished), without statistics, and params its values. */
static void fill_stopped(pkm_fit_state *s, pkm_fit_result *res)
{
    const size_t cells = (size_t)s->d->nrows * (size_t)s->d->nfreq;
    const int any = isfinite(s->best_rms);
    res->stopped = 1;
    res->converged = 0;
    res->rms = any ? s->best_rms : NAN;
    res->nres = any ? s->best_nres : 0;
    for (int k = 0; k < s->np; k++) {
        res->value[k] = any ? s->best_value[k] : s->p[k].start;
        res->std_err[k] = NAN;
        *(double *)((char *)s->params + s->desc[k]->offset) = res->value[k];
    }
    for (int k = 0; k < s->np * s->np; k++)
        res->corr[k] = NAN;
    for (size_t k = 0; k < cells; k++) {
        res->pair[k] = any ? s->best_pair[k] : -1;
        res->mult[k] = any ? s->best_pair[cells + k] : 0;
        res->freq[k] = any ? s->best_freq[k] : NAN;
    }
}

pkm_status pkm_fit_run(const pkm_case *c, void *params, const pkm_fit_data *data,
                       const pkm_fit_param *p, int np, const pkm_fit_opts *o, pkm_fit_result *res,
                       pkm_ctx *ctx)
{
    memset(res, 0, sizeof(*res));
    res->nparam = np;
    pkm_fit_state s = {.c = c,
                       .params = params,
                       .d = data,
                       .p = p,
                       .np = np,
                       .match = &o->match,
                       .form = o->form,
                       .ctx = ctx,
                       .o = o,
                       .best_rms = INFINITY};
    pkm_status st = check_params(&s, ctx);
    if (st != PKM_OK) return st;
    const size_t cells = (size_t)data->nrows * (size_t)data->nfreq;
    pkm_modal_opts mo = pkm_modal_opts_default();
    mo.nev = pkm_match_nev(&o->match, data->nfreq);
    s.pair = malloc(sizeof(int) * 2 * cells);
    s.freq = malloc(sizeof(double) * cells);
    res->pair = malloc(sizeof(int) * 2 * cells);
    res->freq = malloc(sizeof(double) * cells);
    s.best_pair = malloc(sizeof(int) * 2 * cells);
    s.best_freq = malloc(sizeof(double) * cells);
    if (s.pair == NULL || s.freq == NULL || res->pair == NULL || res->freq == NULL ||
        s.best_pair == NULL || s.best_freq == NULL) {
        st = PKM_FAIL(ctx, PKM_ERR_NOMEM, "fit: cannot allocate the pairing");
        goto done;
    }
    s.mult = s.pair + cells;
    res->mult = res->pair + cells;
    if ((st = pkm_analysis_create(o->form, o->eig, &mo, &s.an, ctx)) != PKM_OK) goto done;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    st = o->multistart ? multistart(&s, o, res, ctx) : fit_from_start(&s, o, res, ctx);
    gsl_set_error_handler(old);
    if (st == PKM_OK && s.stopped) fill_stopped(&s, res);
done:
    pkm_analysis_destroy(&s.an);
    free(s.pair);
    free(s.freq);
    free(s.best_pair);
    free(s.best_freq);
    if (st != PKM_OK && st != PKM_ERR_NOCONV) pkm_fit_result_free(res);
    return st;
}
