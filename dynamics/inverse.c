/* dynamics/inverse.c: inverse dynamics of the closed chain with every joint's reaction.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/dynamics_impl.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <string.h>

/* The equations of motion hold to this, relative to the largest generalised force: beyond it the
 * least-squares solution is not a solution (the actuators cannot produce the motion). */
#define MBS_CONSISTENCY_TOL 1e-8

static double max_abs(const double *v, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(v[i]));
    return m;
}

/* Drives: the cut forces eliminated through the null space N of C (N^T C^T = 0), so that
 * N^T B tau = N^T g; minimum sum(w tau^2) through tau_w = sqrt(w) tau. */
static pkm_status solve_drives(pkm_mbs *s, const double *w, double gmax, pkm_ctx *ctx)
{
    const int nn = mbs_nullspace(s, s->nc, s->nq, s->C, s->nul, PKM_DYN_RANK_TOL);
    if (nn < 0) return PKM_FAIL(ctx, PKM_ERR_SOLVER, "LAPACK dgesvd failed");
    for (int r = 0; r < nn; r++) {
        double b = 0.0;
        for (int k = 0; k < s->nq; k++)
            b += s->nul[(size_t)k * nn + r] * s->gq[k];
        s->rhs[r] = b;
        for (int a = 0; a < s->na; a++)
            s->cp[(size_t)r * s->na + a] =
                s->nul[(size_t)s->act[a] * nn + r] / sqrt(w != NULL ? w[a] : 1.0);
    }
    if (mbs_lstsq(s, nn, s->na, s->cp, s->rhs, s->tau, PKM_DYN_RANK_TOL, NULL) < 0)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "LAPACK dgelss failed");
    double res = 0.0;
    for (int r = 0; r < nn; r++) {
        double v = -s->rhs[r];
        for (int a = 0; a < s->na; a++)
            v += s->nul[(size_t)s->act[a] * nn + r] / sqrt(w != NULL ? w[a] : 1.0) * s->tau[a];
        res = fmax(res, fabs(v));
    }
    /* A preload p adds its part in the null space of the scaled actuation map, v - cp^+ cp v
     * with v = W^1/2 p: an internal load that moves nothing (Cheng et al. 2024's redundant
     * actuation; W^-1/2 (I - Q Q^T) W^1/2 p once unscaled). */
    if (s->preload != NULL) {
        for (int a = 0; a < s->na; a++)
            s->x[a] = sqrt(w != NULL ? w[a] : 1.0) * s->preload[a];
        for (int r = 0; r < nn; r++) {
            s->rhs[r] = 0.0;
            for (int a = 0; a < s->na; a++)
                s->rhs[r] += s->cp[(size_t)r * s->na + a] * s->x[a];
        }
        if (mbs_lstsq(s, nn, s->na, s->cp, s->rhs, s->lam, PKM_DYN_RANK_TOL, NULL) < 0)
            return PKM_FAIL(ctx, PKM_ERR_SOLVER, "LAPACK dgelss failed");
        for (int a = 0; a < s->na; a++)
            s->tau[a] += s->x[a] - s->lam[a];
    }
    for (int a = 0; a < s->na; a++)
        s->tau[a] /= sqrt(w != NULL ? w[a] : 1.0);
    if (res > MBS_CONSISTENCY_TOL * gmax)
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "the actuated joints cannot produce this motion: the equations of motion "
                        "are left with a residual %.3g N or N m",
                        res);
    return PKM_OK;
}

static pkm_status cuts_unbalanced(pkm_ctx *ctx, double res)
{
    return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                    "the cut forces cannot balance the motion: residual %.3g N or N m", res);
}

/* Cut wrenches: C^T lambda = g - B tau, minimum norm. */
static pkm_status solve_cuts(pkm_mbs *s, double gmax, pkm_ctx *ctx)
{
    for (int k = 0; k < s->nq; k++)
        for (int i = 0; i < s->nc; i++)
            s->cp[(size_t)k * s->nc + i] = s->C[(size_t)i * s->nq + k];
    memcpy(s->x, s->gq, (size_t)s->nq * sizeof(double));
    for (int a = 0; a < s->na; a++)
        s->x[s->act[a]] -= s->tau[a];
    if (mbs_lstsq(s, s->nq, s->nc, s->cp, s->x, s->lam, PKM_DYN_RANK_TOL, NULL) < 0)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "LAPACK dgelss failed");
    double res = 0.0;
    for (int k = 0; k < s->nq; k++) {
        double v = -s->x[k];
        for (int i = 0; i < s->nc; i++)
            v += s->C[(size_t)i * s->nq + k] * s->lam[i];
        res = fmax(res, fabs(v));
    }
    s->residual = res;
    return (res > MBS_CONSISTENCY_TOL * gmax) ? cuts_unbalanced(ctx, res) : PKM_OK;
}

/* Drives and cut wrenches on the sparse path (sparse.c) where it applies (*done). */
static pkm_status solve_sparse(pkm_mbs *s, int refactor, double gmax, int *done, pkm_ctx *ctx)
{
    double res = 0.0;
    pkm_status st = mbs_sparse_inverse(s, refactor, &res, done, ctx);
    s->residual = res;
    if (st == PKM_OK && *done && res > MBS_CONSISTENCY_TOL * gmax) return cuts_unbalanced(ctx, res);
    return st;
}

/* The cut's wrench on body_b at the origin. */
static void cut_wrench(const pkm_mbs *s, const mbs_cut *cu, double w[6])
{
    memset(w, 0, 6 * sizeof(double));
    for (int i = cu->row; i < cu->row + cu->nrow; i++)
        for (int k = 0; k < 6; k++)
            w[k] += s->W[6 * i + k] * s->lam[i];
}

double pkm_mbs_residual(const pkm_mbs *s)
{
    return s->residual;
}

double pkm_mbs_plane_force(const pkm_mbs *s, int i)
{
    const int np = pkm_model_plane_count(s->m);
    if (i < 0 || i >= np) return NAN;
    return s->lam[s->cut[s->ncut - np + i].row];
}

/* Each frame's wrench minus the cut wrenches acting on its subtree (Guo et al. 2024, eq. 26:
 * the reaction of a joint includes the cut forces on its subtree). */
static void subtract_cuts(pkm_mbs *s)
{
    for (int c = 0; c < s->ncut; c++) {
        double w[6];
        cut_wrench(s, &s->cut[c], w);
        for (int f = s->cut[c].fb; f >= 0; f = s->fr[f].parent)
            for (int k = 0; k < 6; k++)
                s->fr[f].f[k] -= w[k];
        for (int f = s->cut[c].fa; f >= 0; f = s->fr[f].parent)
            for (int k = 0; k < 6; k++)
                s->fr[f].f[k] += w[k];
    }
}

/* Axial, radial and bending components (Guo et al. 2024, eqs. 39-46; conventions for the
 * other joint types in docs/dynamics.md). */
void mbs_joint_components(pkm_joint_type type, pkm_joint_result *r)
{
    const double *F = r->wrench, *M = r->wrench + 3, *n = r->axis;
    const double fa = pkm_vec3_dot(n, F), ma = pkm_vec3_dot(n, M);
    double fr[3], mr[3];
    for (int k = 0; k < 3; k++) {
        fr[k] = F[k] - fa * n[k];
        mr[k] = M[k] - ma * n[k];
    }
    r->f_radial = pkm_vec3_norm(fr);
    r->m_bending = pkm_vec3_norm(mr);
    r->f_axial = (type == PKM_JOINT_PRISMATIC) ? fabs(ma) : fabs(fa);
    if (type == PKM_JOINT_SPHERICAL || type == PKM_JOINT_CLAMPED) {
        r->f_axial = 0.0;
        r->f_radial = pkm_vec3_norm(F);
        r->m_bending = (type == PKM_JOINT_CLAMPED) ? pkm_vec3_norm(M) : 0.0;
    }
}

/* The result of model joint j: wrench at origin w, current point and axis. */
static void joint_result(const pkm_mbs *s, int j, pkm_joint_result *r)
{
    const pkm_joint *jt = pkm_model_joint(s->m, j);
    double w[6];
    memset(r, 0, sizeof(*r));
    if (s->joint_cut[j] >= 0) {
        const mbs_cut *cu = &s->cut[s->joint_cut[j]];
        cut_wrench(s, cu, w);
        const mbs_frame *fa = (cu->fa >= 0) ? &s->fr[cu->fa] : NULL;
        const mbs_frame *fb = (cu->fb >= 0) ? &s->fr[cu->fb] : NULL;
        memcpy(r->point, jt->point, sizeof(r->point));
        memcpy(r->axis, jt->axis, sizeof(r->axis));
        if (fb != NULL) {
            pkm_mat3_apply(PKM_CONST33(fb->R), jt->point, r->point);
            pkm_vec3_axpy(1.0, fb->p, r->point);
        }
        if (fa != NULL) pkm_mat3_apply(PKM_CONST33(fa->R), jt->axis, r->axis);
    } else {
        const int f0 = s->joint_frame[j], fl = f0 + s->joint_nframe[j] - 1;
        const mbs_frame *first = &s->fr[f0], *last = &s->fr[fl];
        memcpy(w, first->f, sizeof(w));
        pkm_mat3_apply(PKM_CONST33(last->R), jt->point, r->point);
        pkm_vec3_axpy(1.0, last->p, r->point);
        memcpy(r->axis, first->prismatic ? first->S : first->S + 3, sizeof(r->axis));
        if (first->coord >= 0) {
            r->ncoord = s->joint_nframe[j];
            for (int k = 0; k < r->ncoord; k++) {
                r->q[k] = s->q[first->coord + k];
                r->qd[k] = s->qd[first->coord + k];
                r->qdd[k] = s->qdd[first->coord + k];
            }
            if (r->ncoord == 1)
                r->ideal = pkm_vec3_dot(first->S, w) + pkm_vec3_dot(first->S + 3, w + 3);
        }
    }
    pkm_wrench_transfer(w, r->point, r->wrench);
    mbs_joint_components(jt->type, r);
}

/* Friction loads of the 1-coordinate joints from their reactions into fq; returns the largest
 * change. */
static double update_friction(pkm_mbs *s, const pkm_joint_result *res)
{
    double change = 0.0;
    for (int j = 0; j < s->nj; j++) {
        const pkm_friction *fr = &s->fric[j];
        if (fr->model == PKM_FRICTION_NONE || res[j].ncoord != 1) continue;
        const int k = s->fr[s->joint_frame[j]].coord;
        const double N = pkm_friction_normal(fr, pkm_model_joint(s->m, j)->type, res[j].f_axial,
                                             res[j].f_radial, res[j].m_bending);
        const double f = pkm_friction_force(fr, s->qd[k], N);
        change = fmax(change, fabs(f - s->fq[k]));
        s->fq[k] = f;
    }
    return change;
}

/* Friction iterations: each one solves the linear system again with the friction of the last
 * reactions; the map contracts when the friction coefficients are small (as they are). */
#define MBS_FRICTION_ITER_MAX 50

pkm_status pkm_mbs_inverse(pkm_mbs *s, const double *weights, pkm_joint_result *res, pkm_ctx *ctx)
{
    for (int a = 0; a < s->na && weights != NULL; a++)
        if (!(weights[a] > 0.0) || !isfinite(weights[a]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "actuator weight %d: %g is not > 0", a,
                            weights[a]);
    mbs_rnea(s, 1);
    mbs_generalised(s, s->g0);
    memset(s->fq, 0, (size_t)s->nq * sizeof(double));
    int done = 0;
    for (int it = 0; it < MBS_FRICTION_ITER_MAX; it++) {
        for (int k = 0; k < s->nq; k++)
            s->gq[k] = s->g0[k] + s->fq[k];
        /* The load scale of the consistency checks: the generalised forces and a preload (at
         * rest under a gravity normal to a planar mechanism the former vanish). */
        const double gmax = max_abs(s->gq, s->nq) +
                            (s->preload != NULL ? max_abs(s->preload, s->na) : 0.0) + 1e-300;
        pkm_status st = solve_sparse(s, it == 0, gmax, &done, ctx);
        if (st == PKM_OK && !done) st = mbs_dense_ready(s, ctx);
        if (st == PKM_OK && !done) mbs_dense_c(s, s->C);
        if (st == PKM_OK && !done) st = solve_drives(s, weights, gmax, ctx);
        if (st == PKM_OK && !done) st = solve_cuts(s, gmax, ctx);
        if (st != PKM_OK) return st;
        if (it > 0) mbs_rnea(s, 1); /* subtract_cuts changed the frames' wrenches */
        subtract_cuts(s);
        for (int j = 0; j < s->nj; j++)
            joint_result(s, j, &res[j]);
        const double change = update_friction(s, res);
        if (change <= 1e-12 * gmax) {
            for (int j = 0; j < s->nj; j++)
                if (res[j].ncoord == 1) res[j].friction = s->fq[s->fr[s->joint_frame[j]].coord];
            for (int a = 0; a < s->na; a++)
                res[s->coord_joint[s->act[a]]].drive = s->tau[a];
            return PKM_OK;
        }
    }
    return PKM_FAIL(ctx, PKM_ERR_NOCONV,
                    "joint friction: the normal loads did not settle after %d iterations",
                    MBS_FRICTION_ITER_MAX);
}
