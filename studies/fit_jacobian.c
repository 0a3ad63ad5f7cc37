/* studies/fit_jacobian.c: the fit's Jacobian by eigenvalue sensitivities (pkm/fit.h,
 * PKM_FIT_JAC_SENSITIVITY): d lambda = x^T (dK - lambda dM) x (Fox and Kapoor 1968) with the
 * assembled matrices' derivatives by central differences.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "studies/fit_impl.h"

#include <gsl/gsl_errno.h>

#include <math.h>

/* x^T A x for the upper-CSC values v of pencil p. */
static double quad(const pkm_pencil *p, const double *v, const double *x)
{
    double e = 0.0;
    for (int64_t c = 0; c < p->n; c++)
        for (int64_t q = p->colptr[c]; q < p->colptr[c + 1]; q++)
            e += (p->rowind[q] == c ? 1.0 : 2.0) * v[q] * x[p->rowind[q]] * x[c];
    return e;
}

/* The pencils of row r's model with parameter k moved by -h and +h (pm[0], pm[1]). */
static pkm_status perturbed_pencils(pkm_fit_state *s, int r, int k, double h, pkm_pencil *pm[2])
{
    double *field = (double *)((char *)s->params + s->desc[k]->offset);
    const double p0 = *field;
    pkm_status st = PKM_OK;
    for (int side = 0; side < 2 && st == PKM_OK; side++) {
        pkm_model *m = NULL;
        *field = p0 + (side ? h : -h);
        st = s->c->build(s->params, s->d->pose + (size_t)r * (size_t)s->d->npose, &m, s->ctx);
        if (st == PKM_OK) st = pkm_assemble(m, s->form, &pm[side], NULL, s->ctx);
        pkm_model_destroy(&m);
    }
    *field = p0;
    return st;
}

/* Row r's rows of the Jacobian in p (Jp, nres rows of stride tda, from row i0) by the eigenvalue
 * sensitivity d lambda = x^T (dK - lambda dM) x of the M-normalised mode x (Fox and Kapoor 1968),
 * dK and dM by central differences of the assembled matrices (exact where they are linear in p: a
 * stiffness, a mass); a doublet's mean by the mean of its modes' (the trace of the projected
 * derivative). df = d lambda / (8 pi^2 f). */
static pkm_status row_jacobian(pkm_fit_state *s, int r, const pkm_modes *md, double *Jp, size_t tda,
                               size_t *i0)
{
    const pkm_fit_data *d = s->d;
    const size_t o = (size_t)r * (size_t)d->nfreq;
    size_t i = *i0;
    pkm_status st = PKM_OK;
    for (int k = 0; k < s->np && st == PKM_OK; k++) {
        const double p0 = *(double *)((char *)s->params + s->desc[k]->offset);
        const double h = 1e-4 * fmax(fabs(p0), 1e-12);
        pkm_pencil *pm[2] = {NULL, NULL};
        st = perturbed_pencils(s, r, k, h, pm);
        if (st == PKM_OK && (pm[0]->n != md->n || pm[1]->n != md->n))
            st =
                PKM_FAIL(s->ctx, PKM_ERR_MODEL, "fit: '%s' changes the model's order", s->p[k].key);
        i = *i0;
        for (int c = 0; c < d->nfreq && st == PKM_OK; c++) {
            const int q = s->pair[o + c], m = s->mult[o + c];
            if (q < 0) continue;
            double dl = 0.0;
            for (int t = 0; t < m; t++) {
                const double *x = md->vectors + (size_t)(q + t) * (size_t)md->n;
                const double dK = (quad(pm[1], pm[1]->k, x) - quad(pm[0], pm[0]->k, x)) / (2 * h);
                const double dM = (quad(pm[1], pm[1]->m, x) - quad(pm[0], pm[0]->m, x)) / (2 * h);
                dl += (dK - md->omega2[q + t] * dM) / m;
            }
            const double w = d->weight != NULL ? d->weight[c] : 1.0;
            const double f = s->freq[o + c];
            Jp[i++ * tda + (size_t)k] = w * dl / (8.0 * PKM_PI * PKM_PI * f) / d->freq[o + c];
        }
        pkm_pencil_destroy(&pm[0]);
        pkm_pencil_destroy(&pm[1]);
    }
    *i0 = i;
    return st;
}

/* The Jacobian of residuals() in u: the rows of every table row (row_jacobian) times dp/du. */
int pkm_fit_sensitivities(const gsl_vector *u, void *user, gsl_matrix *J)
{
    pkm_fit_state *s = user;
    if (pkm_fit_stop_asked(s)) return GSL_EFAILED;
    pkm_fit_set_params(s, u->data);
    pkm_status st = PKM_OK;
    size_t i = 0;
    for (int r = 0; r < s->d->nrows && st == PKM_OK; r++) {
        pkm_model *m = NULL;
        const pkm_modes *md = NULL;
        st = s->c->build(s->params, s->d->pose + (size_t)r * (size_t)s->d->npose, &m, s->ctx);
        if (st == PKM_OK) st = pkm_analysis_solve(s->an, m, &md, NULL, s->ctx);
        pkm_model_destroy(&m);
        const size_t o = (size_t)r * (size_t)s->d->nfreq;
        for (int c = 0; c < s->d->nfreq && st == PKM_OK; c++) {
            const int q = s->pair[o + c], n = s->mult[o + c];
            double f = 0.0;
            for (int t = 0; t < n && q >= 0; t++)
                f += md->freq_hz[q + t] / n;
            s->freq[o + c] = f;
        }
        if (st == PKM_OK) st = row_jacobian(s, r, md, J->data, J->tda, &i);
    }
    if (st != PKM_OK) {
        if (s->st == PKM_OK) s->st = st;
        return GSL_EFAILED;
    }
    for (int k = 0; k < s->np; k++) {
        double dpdu;
        pkm_fit_param_of(&s->p[k], s->desc[k], u->data[k], &dpdu);
        for (size_t r = 0; r < J->size1; r++)
            J->data[r * J->tda + (size_t)k] *= dpdu;
    }
    return GSL_SUCCESS;
}
