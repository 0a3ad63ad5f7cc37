/* dynamics/closure.c: the passive coordinates from the loop closure (position, velocity and
 * acceleration levels), the state, the mass matrix.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/dynamics_impl.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <string.h>

/* Newton iterations on the position closure; each one squares the error near a solution. */
#define MBS_NEWTON_MAX 30

/* Newton stops when the largest closure residual (translation rows relative to the mechanism's
 * size, rotation rows in rad) is below this, well inside the 1e-12 the kinematics promises, or
 * when rounding stops it: near eps, so that an energy differenced along a trajectory (the power
 * balances of the tests, 1e-3 s steps) sees rounding and not the closure tolerance. */
#define MBS_NEWTON_TOL 1e-15

/* ... and accepts a residual below this when rounding stops it earlier. */
#define MBS_CLOSURE_TOL 1e-12

/* Scale of constraint row i: the mechanism's size for a translation row (one with a force). */
double mbs_row_scale(const pkm_mbs *s, int i)
{
    return (pkm_vec3_norm(s->W + 6 * i) > 0.0) ? s->size : 1.0;
}

const char *mbs_cut_name(const pkm_mbs *s, int c)
{
    const mbs_cut *cu = &s->cut[c];
    return cu->plane >= 0 ? pkm_model_plane(s->m, cu->plane)->name
                          : pkm_model_joint(s->m, cu->joint)->name;
}

/* Scale of coordinate k: the mechanism's size for a translation. */
double mbs_col_scale(const pkm_mbs *s, int k)
{
    return s->fr[s->coord_frame[k]].prismatic ? s->size : 1.0;
}

/* The passive coordinates (s->pidx); their number. */
static int passive_coords(pkm_mbs *s)
{
    int np = 0;
    for (int k = 0; k < s->nq; k++)
        if (!s->is_driven[k]) s->pidx[np++] = k;
    return np;
}

/* The dense passive Jacobian Cp (nc x np, row-major, s->cp), made dimensionless: translation
 * rows over the mechanism's size, then every column to unit norm (s->ce, the coordinates' scales:
 * van der Sluis' equilibration, which brings the condition number within sqrt(np) of its
 * minimum over the coordinates' units). The conditioning then measures the mechanism, not the
 * units of its coordinates: a lead screw's nut, turning 2 pi per pitch of slider travel, is a
 * coordinate as well determined as the slider. */
static void passive_jacobian(pkm_mbs *s, int np)
{
    /* Row by row (each row's scale once); each column's sum of squares in the row order. */
    for (int c = 0; c < np; c++)
        s->ce[c] = 0.0;
    for (int i = 0; i < s->nc; i++) {
        const double r = mbs_row_scale(s, i);
        for (int c = 0; c < np; c++) {
            const double v = s->C[(size_t)i * s->nq + s->pidx[c]] / r;
            s->cp[(size_t)i * np + c] = v;
            s->ce[c] += v * v;
        }
    }
    for (int c = 0; c < np; c++)
        s->ce[c] = (s->ce[c] > 0.0) ? 1.0 / sqrt(s->ce[c]) : 1.0;
    for (int i = 0; i < s->nc; i++)
        for (int c = 0; c < np; c++)
            s->cp[(size_t)i * np + c] *= s->ce[c];
}

/* Largest closure residual of the rows in r: translation rows (those with a force) over the
 * mechanism's size. */
static double closure_error(const pkm_mbs *s, const double *r)
{
    double e = 0.0;
    for (int i = 0; i < s->nc; i++)
        e = fmax(e, fabs(r[i]) / mbs_row_scale(s, i));
    return e;
}

/* The coordinate that the passive Jacobian's weakest singular direction moves most. */
static int worst_coordinate(pkm_mbs *s, int np)
{
    const int nn = mbs_nullspace(s, s->nc, np, s->cp, s->nul, s->singular);
    int best = 0;
    for (int c = 1; c < np && nn > 0; c++)
        if (fabs(s->nul[(size_t)c * nn + nn - 1]) > fabs(s->nul[(size_t)best * nn + nn - 1]))
            best = c;
    return s->pidx[best];
}

/* Cp x = s->rhs in the least-squares minimum-norm sense (x into s->x), refusing a passive
 * Jacobian that has lost rank: a coordinate left free by the driven ones (bad input), or a
 * dead point. */
static pkm_status passive_solve(pkm_mbs *s, double t, int *np_out, pkm_ctx *ctx)
{
    const int np = passive_coords(s);
    *np_out = np;
    if (np == 0) return PKM_OK;
    if (s->solver == PKM_DYN_SPARSE) {
        /* Rank lost or conditioning below the threshold: the dense solve decides and names
         * the coordinate. */
        int done = 0;
        pkm_status st = mbs_sparse_passive(s, &done, ctx);
        if (st != PKM_OK || done) return st;
    }
    pkm_status st = mbs_dense_ready(s, ctx);
    if (st != PKM_OK) return st;
    mbs_dense_c(s, s->C);
    passive_jacobian(s, np);
    for (int i = 0; i < s->nc; i++)
        s->rhs[i] /= mbs_row_scale(s, i);
    const int rank = mbs_lstsq(s, s->nc, np, s->cp, s->rhs, s->x, PKM_DYN_RANK_TOL, s->sv);
    for (int c = 0; c < np; c++)
        s->x[c] *= s->ce[c];
    if (rank < 0) return PKM_FAIL(ctx, PKM_ERR_SOLVER, "LAPACK dgelss failed at t = %g", t);
    const double cond = (np > s->nc) ? 0.0 : s->sv[np - 1] / s->sv[0];
    if (cond >= s->singular) {
        s->checked = 1;
        return PKM_OK;
    }
    const int w = worst_coordinate(s, np);
    const int j = s->coord_joint[w];
    const char *jn = (j >= 0) ? pkm_model_joint(s->m, j)->name : "platform";
    if (!s->checked)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "the driven coordinates do not fix the mobility at t = %g (conditioning "
                        "%.3g of the first solve): joint '%s' (coordinate '%s') is free, or the "
                        "first pose is a singular one",
                        t, cond, jn, s->coord_name[w]);
    return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                    "singular loop closure at t = %g: the passive Jacobian's conditioning %.3g is "
                    "below %g (a dead point); coordinate '%s' is undetermined",
                    t, cond, s->singular, s->coord_name[w]);
}

/* Newton on the position closure over the passive coordinates. */
static pkm_status newton(pkm_mbs *s, double t, pkm_ctx *ctx)
{
    double err = HUGE_VAL;
    for (int it = 0; it < MBS_NEWTON_MAX; it++) {
        mbs_forward(s);
        mbs_constraint_rows(s);
        const double e = closure_error(s, s->r);
        if (e < MBS_NEWTON_TOL || (it > 1 && e > 0.5 * err && e < MBS_CLOSURE_TOL)) return PKM_OK;
        err = e;
        for (int i = 0; i < s->nc; i++)
            s->rhs[i] = -s->r[i];
        int np;
        pkm_status st = passive_solve(s, t, &np, ctx);
        if (st != PKM_OK) return st;
        for (int c = 0; c < np; c++)
            s->q[s->pidx[c]] += s->x[c];
    }
    /* Name the cut that stays open the most: in a parallel mechanism, the leg that cannot
     * reach the pose. */
    int worst = 0;
    for (int i = 1; i < s->nc; i++)
        if (fabs(s->r[i]) / mbs_row_scale(s, i) > fabs(s->r[worst]) / mbs_row_scale(s, worst))
            worst = i;
    int c = 0;
    while (c + 1 < s->ncut && s->cut[c + 1].row <= worst)
        c++;
    return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                    "loop closure not met at t = %g: cut '%s' stays open (residual %.3g after %d "
                    "Newton steps): the pose is out of the workspace or past a dead point",
                    t, s->ncut > 0 ? mbs_cut_name(s, c) : "-", err, MBS_NEWTON_MAX);
}

/* The passive rates (level 1) or accelerations (level 2): Cp x = -Ca xa (- gamma). */
static pkm_status rates(pkm_mbs *s, double t, double *v, int level, pkm_ctx *ctx)
{
    for (int i = 0; i < s->nc; i++) {
        double b = (level == 2) ? -s->gamma[i] : 0.0;
        for (int p = s->cptr[i]; p < s->cptr[i + 1]; p++)
            if (s->is_driven[s->cidx[p]]) b -= s->cval[p] * v[s->cidx[p]];
        s->rhs[i] = b;
    }
    int np;
    pkm_status st = passive_solve(s, t, &np, ctx);
    if (st != PKM_OK) return st;
    for (int c = 0; c < np; c++)
        v[s->pidx[c]] = s->x[c];
    return PKM_OK;
}

pkm_status pkm_mbs_kinematics(pkm_mbs *s, double t, const double *qa, const double *qda,
                              const double *qdda, pkm_ctx *ctx)
{
    for (int k = 0; k < s->nd; k++) {
        s->q[s->driven[k]] = qa[k];
        s->qd[s->driven[k]] = qda[k];
        s->qdd[s->driven[k]] = qdda[k];
    }
    /* Newton's first guess of the passive coordinates: a second-order Taylor step from the last
     * solved state over the time since (its rates and accelerations solve the closure's
     * derivatives exactly), which leaves an O(h^3) closure error to correct instead of an O(h)
     * one: one or two Newton factorisations a step instead of three or four (NaVARo's p2p at
     * 1 ms, docs/performance.md). Should Newton fail from the guess, it starts again from the
     * last coordinates, as without it. */
    pkm_status st = PKM_ERR_SOLVER;
    if (s->kin_valid && s->warm_start) {
        const double h = t - s->t_kin;
        const int np = passive_coords(s);
        memcpy(s->q_kin, s->q, (size_t)s->nq * sizeof(double));
        for (int c = 0; c < np; c++) {
            const int k = s->pidx[c];
            s->q[k] += h * (s->qd[k] + 0.5 * h * s->qdd[k]);
        }
        pkm_ctx quiet;
        pkm_ctx_clear(&quiet);
        st = newton(s, t, &quiet);
        if (st != PKM_OK) memcpy(s->q, s->q_kin, (size_t)s->nq * sizeof(double));
    }
    s->kin_valid = 0;
    if (st != PKM_OK) st = newton(s, t, ctx);
    if (st == PKM_OK) st = rates(s, t, s->qd, 1, ctx);
    if (st != PKM_OK) return st;
    mbs_forward(s);
    mbs_constraint_rows(s); /* gamma with the new rates */
    st = rates(s, t, s->qdd, 2, ctx);
    if (st != PKM_OK) return st;
    mbs_forward(s);
    mbs_constraint_rows(s);
    s->t_kin = t;
    s->kin_valid = 1;
    return PKM_OK;
}

pkm_status pkm_mbs_passive_conditioning(pkm_mbs *s, double *cond, pkm_ctx *ctx)
{
    *cond = NAN;
    const pkm_status st = mbs_dense_ready(s, ctx);
    if (st != PKM_OK) return st;
    mbs_dense_c(s, s->C);
    const int np = passive_coords(s);
    if (np == 0) return PKM_OK;
    passive_jacobian(s, np);
    if (mbs_singular_values(s, s->nc, np, s->cp, s->sv) < 0)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "LAPACK dgesvd failed (closure conditioning)");
    *cond = (np > s->nc) ? 0.0 : s->sv[np - 1] / s->sv[0];
    return PKM_OK;
}

pkm_status pkm_mbs_mobility(pkm_mbs *s, int *mobility, pkm_ctx *ctx)
{
    *mobility = -1;
    const pkm_status st = mbs_dense_ready(s, ctx);
    if (st != PKM_OK) return st;
    mbs_dense_c(s, s->C);
    for (int i = 0; i < s->nc; i++)
        for (int k = 0; k < s->nq; k++)
            s->C[(size_t)i * (size_t)s->nq + (size_t)k] /= mbs_row_scale(s, i);
    const int nn = mbs_nullspace(s, s->nc, s->nq, s->C, s->nul, PKM_DYN_RANK_TOL);
    if (nn < 0) return PKM_FAIL(ctx, PKM_ERR_SOLVER, "LAPACK dgesvd failed (mobility)");
    *mobility = nn;
    return PKM_OK;
}

void pkm_mbs_set_warm_start(pkm_mbs *s, int on)
{
    s->warm_start = on != 0;
}

void pkm_mbs_set_state(pkm_mbs *s, const double *q, const double *qd, const double *qdd)
{
    s->kin_valid = 0;
    const size_t n = (size_t)s->nq * sizeof(double);
    if (q != NULL) memcpy(s->q, q, n);
    if (qd != NULL) memcpy(s->qd, qd, n);
    if (qdd != NULL) memcpy(s->qdd, qdd, n);
    mbs_forward(s);
    mbs_constraint_rows(s);
}

const double *pkm_mbs_q(const pkm_mbs *s)
{
    return s->q;
}

const double *pkm_mbs_qd(const pkm_mbs *s)
{
    return s->qd;
}

const double *pkm_mbs_qdd(const pkm_mbs *s)
{
    return s->qdd;
}

void pkm_mbs_closure_residual(const pkm_mbs *s, double *pos, double *vel)
{
    *pos = closure_error(s, s->r);
    *vel = 0.0;
    for (int i = 0; i < s->nc; i++) {
        double v = 0.0;
        for (int p = s->cptr[i]; p < s->cptr[i + 1]; p++)
            v += s->cval[p] * s->qd[s->cidx[p]];
        *vel = fmax(*vel, fabs(v) / mbs_row_scale(s, i));
    }
}

void mbs_dense_c(const pkm_mbs *s, double *C)
{
    memset(C, 0, (size_t)s->nc * s->nq * sizeof(double));
    for (int i = 0; i < s->nc; i++)
        for (int p = s->cptr[i]; p < s->cptr[i + 1]; p++)
            C[(size_t)i * s->nq + s->cidx[p]] = s->cval[p];
}

void pkm_mbs_constraints(const pkm_mbs *s, double *C, double *gamma)
{
    if (C != NULL) mbs_dense_c(s, C);
    if (gamma != NULL) memcpy(gamma, s->gamma, (size_t)s->nc * sizeof(double));
}

void pkm_mbs_mass_matrix(pkm_mbs *s, double *M, double *h)
{
    /* Columns of M by the RNEA with unit accelerations at rest without gravity; h with the
     * state's rates and qdd = 0. The state is kept in x and tau and put back. */
    memcpy(s->x, s->qd, (size_t)s->nq * sizeof(double));
    memcpy(s->tau, s->qdd, (size_t)s->nq * sizeof(double));
    memset(s->qdd, 0, (size_t)s->nq * sizeof(double));
    if (h != NULL) {
        mbs_forward(s);
        mbs_rnea(s, 1);
        mbs_generalised(s, h);
    }
    memset(s->qd, 0, (size_t)s->nq * sizeof(double));
    for (int j = 0; j < s->nq && M != NULL; j++) {
        s->qdd[j] = 1.0;
        mbs_forward(s);
        mbs_rnea(s, 0);
        mbs_generalised(s, s->gq);
        for (int i = 0; i < s->nq; i++)
            M[(size_t)i * s->nq + j] = s->gq[i];
        s->qdd[j] = 0.0;
    }
    memcpy(s->qd, s->x, (size_t)s->nq * sizeof(double));
    memcpy(s->qdd, s->tau, (size_t)s->nq * sizeof(double));
    mbs_forward(s);
}
