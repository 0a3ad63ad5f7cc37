/* dynamics/trajectory.c: analytic motions and not-a-knot cubic splines through samples.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/trajectory.h"

#include "core/core_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK: tridiagonal solve with partial pivoting, several right-hand sides. */
extern void dgtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, double *b,
                   const int *ldb, int *info);

struct pkm_trajectory {
    int n;                 /* coordinates */
    int m;                 /* samples of a spline; 0 for an analytic trajectory */
    double t0, t1;         /* span */
    char name[64];         /* for messages */
    pkm_traj_coord *coord; /* analytic: n laws */
    double *t;             /* spline: m sample times */
    double *y;             /* spline: coordinate j's m samples at y + j m */
    double *ypp;           /* spline: their second derivatives, same layout */
};

void pkm_trajectory_destroy(pkm_trajectory **tr)
{
    if (tr == NULL || *tr == NULL) return;
    free((*tr)->coord);
    free((*tr)->t);
    free((*tr)->y);
    free((*tr)->ypp);
    free(*tr);
    *tr = NULL;
}

int pkm_trajectory_ncoord(const pkm_trajectory *tr)
{
    return tr ? tr->n : 0;
}

void pkm_trajectory_span(const pkm_trajectory *tr, double *t0, double *t1)
{
    if (t0) *t0 = tr->t0;
    if (t1) *t1 = tr->t1;
}

static pkm_status check_coord(const pkm_traj_desc *d, int j, pkm_ctx *ctx)
{
    const pkm_traj_coord *c = &d->coord[j];
    const char *name = d->name ? d->name : "(unnamed)";
    for (int k = 0; k < 4; k++)
        if (!isfinite(c->c[k]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "trajectory %s: coordinate %d: coefficient c[%d] = %g is not finite",
                            name, j + 1, k, c->c[k]);
    switch (c->kind) {
    case PKM_TRAJ_POLY2:
    case PKM_TRAJ_SINE:
        return PKM_OK;
    case PKM_TRAJ_QUINTIC:
        if (!(c->c[2] > 0.0))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "trajectory %s: coordinate %d: quintic duration T = %g must be "
                            "positive",
                            name, j + 1, c->c[2]);
        return PKM_OK;
    }
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "trajectory %s: coordinate %d: unknown kind %d", name,
                    j + 1, (int)c->kind);
}

pkm_status pkm_trajectory_create_analytic(const pkm_traj_desc *d, int n, pkm_trajectory **out,
                                          pkm_ctx *ctx)
{
    *out = NULL;
    if (d == NULL || d->coord == NULL || n < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "trajectory %s: no coordinates (n = %d)",
                        d && d->name ? d->name : "(unnamed)", n);
    if (!(d->duration > 0.0) || !isfinite(d->duration))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "trajectory %s: duration %g s must be positive",
                        d->name ? d->name : "(unnamed)", d->duration);
    for (int j = 0; j < n; j++) {
        const pkm_status rc = check_coord(d, j, ctx);
        if (rc != PKM_OK) return rc;
    }
    pkm_trajectory *tr = calloc(1, sizeof(*tr));
    if (tr == NULL || (tr->coord = malloc(sizeof(*tr->coord) * (size_t)n)) == NULL) {
        pkm_trajectory_destroy(&tr);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "trajectory: cannot allocate %d coordinates", n);
    }
    memcpy(tr->coord, d->coord, sizeof(*tr->coord) * (size_t)n);
    tr->n = n;
    tr->t0 = 0.0;
    tr->t1 = d->duration;
    snprintf(tr->name, sizeof(tr->name), "%s", d->name ? d->name : "(unnamed)");
    *out = tr;
    return PKM_OK;
}

/* One analytic law at t. The quintic is the rest-to-rest polynomial 10 s^3 - 15 s^4 + 6 s^5 of
 * s = t / T: zero velocity and acceleration at both ends. */
static void eval_law(const pkm_traj_coord *c, double t, double *q, double *qd, double *qdd)
{
    switch (c->kind) {
    case PKM_TRAJ_POLY2:
        *q = c->c[0] + t * (c->c[1] + 0.5 * c->c[2] * t);
        *qd = c->c[1] + c->c[2] * t;
        *qdd = c->c[2];
        return;
    case PKM_TRAJ_SINE: {
        const double w = 2.0 * PKM_PI * c->c[2], ph = w * t + c->c[3];
        *q = c->c[0] + c->c[1] * sin(ph);
        *qd = c->c[1] * w * cos(ph);
        *qdd = -c->c[1] * w * w * sin(ph);
        return;
    }
    case PKM_TRAJ_QUINTIC: {
        const double T = c->c[2], dq = c->c[1] - c->c[0];
        const double s = fmin(1.0, fmax(0.0, t / T));
        *q = c->c[0] + dq * s * s * s * (10.0 + s * (-15.0 + 6.0 * s));
        *qd = dq / T * s * s * (30.0 + s * (-60.0 + 30.0 * s));
        *qdd = dq / (T * T) * s * (60.0 + s * (-180.0 + 120.0 * s));
        return;
    }
    }
}

/* The second derivatives M_i of the spline at the samples. With h_i = t_{i+1} - t_i and the
 * slopes s_i = (y_{i+1} - y_i) / h_i, continuity of the first derivative at the interior samples
 * gives h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (s_i - s_{i-1}), i = 1 .. m-2.
 * The not-a-knot ends make the third derivative continuous at t_1 and t_{m-2}, i.e.
 * M_0 = ((h_0 + h_1) M_1 - h_0 M_2) / h_1 and its mirror image at the other end; substituted into
 * the first and last rows they leave a tridiagonal system in M_1 .. M_{m-2}, solved for every
 * coordinate at once. A cubic has a constant third derivative, so it satisfies both ends and is
 * reproduced exactly. work holds 3 m doubles. */
static pkm_status spline_solve(pkm_trajectory *tr, double *work, pkm_ctx *ctx)
{
    const int m = tr->m, k = m - 2, n = tr->n, ldb = m;
    const double *t = tr->t;
    double *dl = work, *d = work + m, *du = work + 2 * m;
    for (int i = 1; i <= k; i++) {
        const double a = t[i] - t[i - 1], b = t[i + 1] - t[i];
        d[i - 1] = 2.0 * (a + b);
        if (i < k) dl[i - 1] = b, du[i - 1] = b;
        for (int j = 0; j < n; j++) {
            const double *y = tr->y + (size_t)j * m;
            tr->ypp[(size_t)j * m + i] = 6.0 * ((y[i + 1] - y[i]) / b - (y[i] - y[i - 1]) / a);
        }
    }
    const double h0 = t[1] - t[0], h1 = t[2] - t[1];
    const double ha = t[m - 2] - t[m - 3], hb = t[m - 1] - t[m - 2];
    d[0] = (h0 + h1) * (h0 + 2.0 * h1) / h1;
    du[0] = (h1 * h1 - h0 * h0) / h1;
    d[k - 1] = (ha + hb) * (2.0 * ha + hb) / ha;
    dl[k - 2] = (ha * ha - hb * hb) / ha;
    int info = 0;
    dgtsv_(&k, &n, dl, d, du, tr->ypp + 1, &ldb, &info);
    if (info != 0)
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR, "trajectory: spline system singular (dgtsv info %d)",
                        info);
    for (int j = 0; j < n; j++) {
        double *M = tr->ypp + (size_t)j * m;
        M[0] = ((h0 + h1) * M[1] - h0 * M[2]) / h1;
        M[m - 1] = ((ha + hb) * M[m - 2] - hb * M[m - 3]) / ha;
        for (int i = 0; i < m; i++)
            if (!isfinite(M[i]))
                return PKM_FAIL(ctx, PKM_ERR_INVALID,
                                "trajectory: coordinate %d: the spline's second derivative at "
                                "sample %d overflows (samples too close in time or too large)",
                                j + 1, i + 1);
    }
    return PKM_OK;
}

pkm_status pkm_trajectory_create_spline(int n, int m, const double *t, const double *q,
                                        pkm_trajectory **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (n < 1) return PKM_FAIL(ctx, PKM_ERR_INVALID, "trajectory: no coordinates (n = %d)", n);
    if (m < 4)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "trajectory: %d samples, a not-a-knot cubic spline needs at least 4", m);
    for (int i = 0; i < m; i++) {
        if (!isfinite(t[i]) || (i > 0 && !(t[i] > t[i - 1])))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "trajectory: sample %d: time %g is not finite and strictly after "
                            "the previous one",
                            i + 1, t[i]);
        for (int j = 0; j < n; j++)
            if (!isfinite(q[(size_t)i * n + j]))
                return PKM_FAIL(ctx, PKM_ERR_INVALID,
                                "trajectory: sample %d: coordinate %d is not finite", i + 1, j + 1);
    }
    pkm_status rc = PKM_OK;
    const size_t nm = (size_t)n * (size_t)m;
    double *diag = malloc(sizeof(double) * 3 * (size_t)m);
    pkm_trajectory *tr = calloc(1, sizeof(*tr));
    if (diag == NULL || tr == NULL || (tr->t = malloc(sizeof(double) * (size_t)m)) == NULL ||
        (tr->y = malloc(sizeof(double) * nm)) == NULL ||
        (tr->ypp = calloc(nm, sizeof(double))) == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "trajectory: cannot allocate %d samples", m);
        goto fail;
    }
    tr->n = n;
    tr->m = m;
    tr->t0 = t[0];
    tr->t1 = t[m - 1];
    snprintf(tr->name, sizeof(tr->name), "spline");
    memcpy(tr->t, t, sizeof(double) * (size_t)m);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            tr->y[(size_t)j * m + i] = q[(size_t)i * n + j];
    rc = spline_solve(tr, diag, ctx);
    if (rc != PKM_OK) goto fail;
    free(diag);
    *out = tr;
    return PKM_OK;
fail:
    free(diag);
    pkm_trajectory_destroy(&tr);
    return rc;
}

pkm_status pkm_trajectory_eval(const pkm_trajectory *tr, double t, double *q, double *qd,
                               double *qdd, pkm_ctx *ctx)
{
    double scratch[3] = {0.0, 0.0, 0.0};
    if (tr->m == 0) {
        if (!isfinite(t))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "trajectory %s: time %g is not finite", tr->name,
                            t);
        for (int j = 0; j < tr->n; j++) {
            eval_law(&tr->coord[j], t, &scratch[0], &scratch[1], &scratch[2]);
            if (q) q[j] = scratch[0];
            if (qd) qd[j] = scratch[1];
            if (qdd) qdd[j] = scratch[2];
        }
        return PKM_OK;
    }
    /* A time grid computed as t0 + k (t1 - t0) / (N - 1) may miss an end by rounding. */
    const double slack = 1e-12 * fmax(tr->t1 - tr->t0, fmax(fabs(tr->t0), fabs(tr->t1)));
    if (!(t >= tr->t0 - slack && t <= tr->t1 + slack))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "trajectory %s: time %.17g s outside the span [%.17g, %.17g] s", tr->name,
                        t, tr->t0, tr->t1);
    t = fmin(tr->t1, fmax(tr->t0, t));
    int lo = 0, hi = tr->m - 1;
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        if (t < tr->t[mid])
            hi = mid;
        else
            lo = mid;
    }
    const double h = tr->t[lo + 1] - tr->t[lo];
    const double A = (tr->t[lo + 1] - t) / h, B = (t - tr->t[lo]) / h;
    for (int j = 0; j < tr->n; j++) {
        const double *y = tr->y + (size_t)j * tr->m + lo, *M = tr->ypp + (size_t)j * tr->m + lo;
        if (q)
            q[j] = A * y[0] + B * y[1] +
                   ((A * A - 1.0) * A * M[0] + (B * B - 1.0) * B * M[1]) * h * h / 6.0;
        if (qd)
            qd[j] = (y[1] - y[0]) / h +
                    ((1.0 - 3.0 * A * A) * M[0] + (3.0 * B * B - 1.0) * M[1]) * h / 6.0;
        if (qdd) qdd[j] = A * M[0] + B * M[1];
    }
    return PKM_OK;
}
