/* dynamics/forward.c: forward dynamics of the rigid multibody system under given drives, with
 * regularised joint friction; RK4 with a projection onto the constraint manifold and an energy
 * monitor (docs/dynamics.md, "Forward dynamics").
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/forward.h"

#include "core/core_impl.h"
#include "dynamics/dynamics_impl.h"
#include "pkm/ode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
                    const int *lda, double *s, double *u, const int *ldu, double *vt,
                    const int *ldvt, double *work, const int *lwork, int *info);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info,
                    size_t luplo);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info, size_t luplo);

/* The friction loop: relative tolerance on the normal loads and its pass limit. */
#define FWD_LOOP_TOL 1e-12
#define FWD_LOOP_MAX 50

/* Newton of the position projection: iterations, and the closure residual it aims at and
 * accepts when rounding stops it (as the kinematics' Newton, docs/dynamics.md). */
#define FWD_NEWTON_MAX  20
#define FWD_NEWTON_TOL  1e-14
#define FWD_CLOSURE_TOL 1e-12

struct pkm_fwd {
    pkm_mbs *s;
    pkm_fwd_drive drive;
    void *user;
    int nq, nc, na, nj, k, lwork, rank, nz;
    pkm_fwd_loop loop;
    double eps;
    pkm_friction *fr, *fl; /* per joint: the friction, and its forces as constant loads */
    int *fcoord;           /* per joint: its coordinate if it has friction, else -1 */
    int nfric, reactions;  /* joints with friction; 1 if some normal load needs the reactions */
    int primed;            /* the normal loads N hold a converged evaluation */
    pkm_joint_result *res;
    /* M (nq x nq), h, C (nc x nq), gamma, the SVD of C (a: copy, U nc x k, sv, VT nq x nq), the
     * reduced mass matrix Mr (nz x nz), vectors */
    double *M, *h, *C, *gam, *a, *U, *sv, *VT, *Mr, *qddp, *base, *Q, *fq, *tau, *v, *z, *N, *work,
        *ode_work;
    long evals, passes;
    /* the run's monitor */
    pkm_fwd_monitor monitor;
    void *muser;
    double E0;
};

static int lwork_query(int m, int n)
{
    int info = 0, m1 = -1, lda = m > 0 ? m : 1;
    double q = 0.0, a = 0.0, sv = 0.0;
    dgesvd_("S", "A", &m, &n, &a, &lda, &sv, &a, &lda, &a, &n, &q, &m1, &info);
    return (int)q + 1;
}

static pkm_status allocate(pkm_fwd *f, pkm_ctx *ctx)
{
    const size_t nq = (size_t)f->nq, nc = (size_t)f->nc, nj = (size_t)f->nj;
    const size_t n = nq > nc ? nq : nc;
    f->k = f->nc < f->nq ? f->nc : f->nq;
    f->lwork = f->nc > 0 ? lwork_query(f->nc, f->nq) : 1;
    f->fr = calloc(2 * nj + 1, sizeof(*f->fr));
    f->fcoord = calloc(nj + 1, sizeof(int));
    f->res = calloc(nj + 1, sizeof(*f->res));
    f->M = calloc(3 * nq * nq + 3 * nc * nq + 5 * nq + 3 * n + nc + nj + (size_t)f->na + 1,
                  sizeof(double));
    f->work = calloc((size_t)f->lwork, sizeof(double));
    f->ode_work = calloc(PKM_ODE_RK4_WORK(PKM_FWD_STATES(nq)), sizeof(double));
    if (f->fr == NULL || f->fcoord == NULL || f->res == NULL || f->M == NULL || f->work == NULL ||
        f->ode_work == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the forward dynamics");
    f->fl = f->fr + nj;
    f->Mr = f->M + nq * nq;
    f->VT = f->Mr + nq * nq;
    f->C = f->VT + nq * nq;
    f->a = f->C + nc * nq;
    f->U = f->a + nc * nq;
    f->h = f->U + nc * nq;
    f->qddp = f->h + nq;
    f->base = f->qddp + nq;
    f->Q = f->base + nq;
    f->fq = f->Q + nq;
    f->v = f->fq + nq;
    f->z = f->v + n;
    f->sv = f->z + n;
    f->gam = f->sv + n;
    f->N = f->gam + nc;
    f->tau = f->N + nj;
    return PKM_OK;
}

pkm_status pkm_fwd_create(pkm_mbs *s, pkm_fwd_drive drive, void *user, const pkm_friction *fr,
                          double eps, pkm_fwd **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (!(eps > 0.0) || !isfinite(eps))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "forward dynamics: friction ramp %g is not > 0", eps);
    pkm_fwd *f = calloc(1, sizeof(*f));
    if (f == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the forward dynamics");
    f->s = s, f->drive = drive, f->user = user, f->eps = eps, f->loop = PKM_FWD_FIXED_POINT;
    f->nq = pkm_mbs_coord_count(s);
    f->nc = pkm_mbs_constraint_count(s);
    f->nj = pkm_model_joint_count(s->m);
    f->na = s->na;
    pkm_status st = allocate(f, ctx);
    for (int j = 0; st == PKM_OK && j < f->nj; j++) {
        int c = -1;
        f->fcoord[j] = -1;
        if (fr == NULL || fr[j].model == PKM_FRICTION_NONE) continue;
        st = pkm_friction_check(&fr[j], pkm_model_joint(s->m, j)->name, ctx);
        if (st != PKM_OK || pkm_mbs_joint_coords(s, j, &c) != 1) continue;
        f->fr[j] = fr[j];
        f->fcoord[j] = c;
        f->nfric++;
        f->reactions |= !(fr[j].normal > 0.0);
    }
    if (st != PKM_OK) goto fail;
    *out = f;
    return PKM_OK;
fail:
    pkm_fwd_destroy(&f);
    return st;
}

void pkm_fwd_destroy(pkm_fwd **fp)
{
    if (fp == NULL || *fp == NULL) return;
    pkm_fwd *f = *fp;
    free(f->fr);
    free(f->fcoord);
    free(f->res);
    free(f->M);
    free(f->work);
    free(f->ode_work);
    free(f);
    *fp = NULL;
}

void pkm_fwd_set_loop(pkm_fwd *f, pkm_fwd_loop loop)
{
    f->loop = loop;
    f->primed = 0;
}

void pkm_fwd_stats(const pkm_fwd *f, long *evals, long *passes)
{
    *evals = f->evals;
    *passes = f->passes;
}

/* The SVD of the system's current constraint Jacobian C = U S V^T; its numerical rank (singular
 * values above PKM_DYN_RANK_TOL of the largest, the kinematics' threshold, so that the
 * identically zero rows of a planar mechanism drop out) and the null space's dimension. */
static pkm_status svd(pkm_fwd *f, pkm_ctx *ctx)
{
    f->rank = 0;
    f->nz = f->nq;
    if (f->nc == 0) return PKM_OK;
    pkm_mbs_constraints(f->s, f->C, f->gam);
    for (int i = 0; i < f->nc; i++)
        for (int j = 0; j < f->nq; j++)
            f->a[(size_t)j * f->nc + i] = f->C[(size_t)i * f->nq + j];
    int info = 0;
    dgesvd_("S", "A", &f->nc, &f->nq, f->a, &f->nc, f->sv, f->U, &f->nc, f->VT, &f->nq, f->work,
            &f->lwork, &info);
    if (info != 0) return PKM_FAIL(ctx, PKM_ERR_SOLVER, "LAPACK dgesvd failed (info %d)", info);
    while (f->rank < f->k && f->sv[f->rank] > PKM_DYN_RANK_TOL * f->sv[0])
        f->rank++;
    f->nz = f->nq - f->rank;
    return PKM_OK;
}

/* Column c of the null-space basis Z (the rows rank ... nq-1 of V^T), entry j. */
static double zcol(const pkm_fwd *f, int j, int c)
{
    return f->nc == 0 ? (double)(j == c) : f->VT[(size_t)j * f->nq + f->rank + c];
}

/* x = C^+ b (nq from nc): the minimum-norm least-squares solution over the rank's singular
 * triplets. */
static void pinv(const pkm_fwd *f, const double *b, double *x)
{
    memset(x, 0, (size_t)f->nq * sizeof(double));
    for (int i = 0; i < f->rank; i++) {
        double u = 0.0;
        for (int p = 0; p < f->nc; p++)
            u += f->U[(size_t)i * f->nc + p] * b[p];
        u /= f->sv[i];
        for (int j = 0; j < f->nq; j++)
            x[j] += f->VT[(size_t)j * f->nq + i] * u;
    }
}

/* Everything of an evaluation that does not depend on the loads: M, h, C, gamma and the SVD of
 * C at (q, qd); the particular acceleration qdd_p = -C^+ gamma; the Cholesky factor of the
 * reduced mass matrix Z^T M Z; base = -(h + M qdd_p). */
static pkm_status prepare(pkm_fwd *f, double t, const double *q, const double *qd, pkm_ctx *ctx)
{
    pkm_mbs_set_state(f->s, q, qd, NULL);
    pkm_mbs_mass_matrix(f->s, f->M, f->h);
    pkm_status st = svd(f, ctx);
    if (st != PKM_OK) return st;
    const int nq = f->nq, nz = f->nz;
    for (int i = 0; i < f->nc; i++)
        f->v[i] = -f->gam[i];
    pinv(f, f->v, f->qddp);
    for (int i = 0; i < nq; i++) {
        double b = -f->h[i];
        for (int j = 0; j < nq; j++)
            b -= f->M[(size_t)i * nq + j] * f->qddp[j];
        f->base[i] = b;
    }
    for (int c = 0; c < nz; c++) { /* Mr = Z^T M Z, column by column through v = M z_c */
        for (int i = 0; i < nq; i++) {
            double m = 0.0;
            for (int j = 0; j < nq; j++)
                m += f->M[(size_t)i * nq + j] * zcol(f, j, c);
            f->v[i] = m;
        }
        for (int r = 0; r < nz; r++) {
            double m = 0.0;
            for (int i = 0; i < nq; i++)
                m += zcol(f, i, r) * f->v[i];
            f->Mr[(size_t)c * nz + r] = m;
        }
    }
    int info = 0;
    if (nz > 0) dpotrf_("L", &nz, f->Mr, &nz, &info, 1);
    if (info != 0)
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "forward dynamics at t = %g: the reduced mass matrix is not positive "
                        "definite (a mobility without inertia)",
                        t);
    return PKM_OK;
}

/* qdd = qdd_p + Z (Z^T M Z)^-1 Z^T (Q + base): the accelerations under the generalised loads Q
 * (the null-space method: Z^T removes the constraint forces C^T lambda). */
static void solve(pkm_fwd *f, const double *Q, double *qdd)
{
    const int nq = f->nq, nz = f->nz, one = 1;
    for (int c = 0; c < nz; c++) {
        double b = 0.0;
        for (int i = 0; i < nq; i++)
            b += zcol(f, i, c) * (Q[i] + f->base[i]);
        f->z[c] = b;
    }
    int info = 0;
    if (nz > 0) dpotrs_("L", &nz, &one, f->Mr, &nz, f->z, &nz, &info, 1);
    for (int i = 0; i < nq; i++) {
        double a = f->qddp[i];
        for (int c = 0; c < nz; c++)
            a += zcol(f, i, c) * f->z[c];
        qdd[i] = a;
    }
}

/* The regularised friction forces under the normal loads N. */
static void friction_forces(pkm_fwd *f, const double *qd)
{
    memset(f->fq, 0, (size_t)f->nq * sizeof(double));
    for (int j = 0; j < f->nj; j++)
        if (f->fcoord[j] >= 0)
            f->fq[f->fcoord[j]] =
                pkm_friction_force_smooth(&f->fr[j], qd[f->fcoord[j]], f->N[j], f->eps);
}

/* The normal loads of the reactions at (q, qd, qdd) under the friction forces fq; returns the
 * largest change relative to the largest load. The reactions come from pkm_mbs_inverse, which
 * takes friction only through a law: a Coulomb law with kc = 1 under the constant normal load
 * |fq| gives exactly fq, whose sign is that of the velocity. With the drives determined by the
 * motion (non-redundant actuation) the inverse dynamics then returns the applied drives and the
 * same cut wrenches; with redundant drives its reactions are those of the minimum-norm drives. */
static pkm_status normal_loads(pkm_fwd *f, const double *q, const double *qd, const double *qdd,
                               double *change, pkm_ctx *ctx)
{
    for (int j = 0; j < f->nj; j++) {
        const int c = f->fcoord[j];
        f->fl[j] = (pkm_friction){.model = PKM_FRICTION_NONE};
        if (c >= 0 && f->fq[c] != 0.0)
            f->fl[j] = (pkm_friction){
                .model = PKM_FRICTION_COULOMB_VISCOUS, .kc = 1.0, .normal = fabs(f->fq[c])};
    }
    pkm_mbs_set_state(f->s, q, qd, qdd);
    pkm_status st = pkm_mbs_set_friction(f->s, f->fl, ctx);
    if (st == PKM_OK && f->reactions) st = pkm_mbs_inverse(f->s, NULL, f->res, ctx);
    if (st != PKM_OK) return st;
    double dmax = 0.0, nmax = 0.0;
    for (int j = 0; j < f->nj; j++) {
        if (f->fcoord[j] < 0) continue;
        const pkm_joint_result *r = &f->res[j];
        const double n = pkm_friction_normal(&f->fr[j], pkm_model_joint(f->s->m, j)->type,
                                             r->f_axial, r->f_radial, r->m_bending);
        dmax = fmax(dmax, fabs(n - f->N[j]));
        nmax = fmax(nmax, n);
        f->N[j] = n;
    }
    *change = dmax / fmax(nmax, 1e-300);
    return PKM_OK;
}

/* qdd under the loads Q - friction: the normal loads iterated to FWD_LOOP_TOL (from those of the
 * previous evaluation), or one pass with the lagged loads. */
static pkm_status friction_loop(pkm_fwd *f, double t, const double *q, const double *qd,
                                double *qdd, pkm_ctx *ctx)
{
    const int lagged = f->loop == PKM_FWD_LAGGED && f->primed;
    for (int it = 0; it < FWD_LOOP_MAX; it++) {
        friction_forces(f, qd);
        for (int i = 0; i < f->nq; i++)
            f->v[i] = f->Q[i] - f->fq[i];
        solve(f, f->v, qdd);
        f->passes++;
        double change = 0.0;
        pkm_status st = f->reactions ? normal_loads(f, q, qd, qdd, &change, ctx) : PKM_OK;
        if (st != PKM_OK) return st;
        if (lagged || change <= FWD_LOOP_TOL) {
            f->primed = 1;
            return PKM_OK;
        }
    }
    return PKM_FAIL(ctx, PKM_ERR_NOCONV,
                    "forward dynamics at t = %g: the joints' normal loads did not settle after %d "
                    "passes (friction too large against the inertial loads)",
                    t, FWD_LOOP_MAX);
}

pkm_status pkm_fwd_accel(pkm_fwd *f, double t, const double *q, const double *qd, double *qdd,
                         double *friction, double *tau, pkm_ctx *ctx)
{
    f->evals++;
    memset(f->tau, 0, (size_t)f->na * sizeof(double));
    pkm_status st = f->drive != NULL ? f->drive(t, q, qd, f->tau, f->user, ctx) : PKM_OK;
    if (st == PKM_OK) st = prepare(f, t, q, qd, ctx);
    if (st != PKM_OK) return st;
    memset(f->Q, 0, (size_t)f->nq * sizeof(double));
    for (int a = 0; a < f->na; a++)
        f->Q[f->s->act[a]] += f->tau[a];
    memset(f->fq, 0, (size_t)f->nq * sizeof(double));
    if (f->nfric > 0)
        st = friction_loop(f, t, q, qd, qdd, ctx);
    else
        solve(f, f->Q, qdd);
    if (st != PKM_OK) return st;
    if (friction != NULL) memcpy(friction, f->fq, (size_t)f->nq * sizeof(double));
    if (tau != NULL) memcpy(tau, f->tau, (size_t)f->na * sizeof(double));
    return PKM_OK;
}

pkm_status pkm_fwd_project(pkm_fwd *f, double *q, double *qd, pkm_ctx *ctx)
{
    if (f->nc == 0) return PKM_OK;
    double err = HUGE_VAL, vel;
    int it = 0;
    for (;; it++) {
        pkm_mbs_set_state(f->s, q, qd, NULL);
        double e;
        pkm_mbs_closure_residual(f->s, &e, &vel);
        if (e < FWD_NEWTON_TOL || (it > 1 && e > 0.5 * err && e < FWD_CLOSURE_TOL)) break;
        if (it == FWD_NEWTON_MAX)
            return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                            "forward dynamics: the projection does not close the loops "
                            "(residual %.3g after %d Newton steps)",
                            e, it);
        err = e;
        pkm_status st = svd(f, ctx);
        if (st != PKM_OK) return st;
        pinv(f, f->s->r, f->v);
        for (int j = 0; j < f->nq; j++)
            q[j] -= f->v[j];
    }
    pkm_status st = svd(f, ctx); /* C at the projected q */
    if (st != PKM_OK) return st;
    for (int i = 0; i < f->nc; i++) {
        double c = 0.0;
        for (int j = 0; j < f->nq; j++)
            c += f->C[(size_t)i * f->nq + j] * qd[j];
        f->z[i] = c;
    }
    pinv(f, f->z, f->v);
    for (int j = 0; j < f->nq; j++)
        qd[j] -= f->v[j];
    pkm_mbs_set_state(f->s, q, qd, NULL);
    return PKM_OK;
}

/* y' = (qd, qdd, drive power, friction power). */
static pkm_status rhs(double t, const double *y, double *dydt, void *user, pkm_ctx *ctx)
{
    pkm_fwd *f = user;
    const int nq = f->nq;
    pkm_status st = pkm_fwd_accel(f, t, y, y + nq, dydt + nq, NULL, NULL, ctx);
    if (st != PKM_OK) return st;
    memcpy(dydt, y + nq, (size_t)nq * sizeof(double));
    double pd = 0.0, pf = 0.0;
    for (int a = 0; a < f->na; a++)
        pd += f->tau[a] * y[nq + f->s->act[a]];
    for (int k = 0; k < nq; k++)
        pf += f->fq[k] * y[nq + k];
    dydt[2 * nq] = pd;
    dydt[2 * nq + 1] = pf;
    return PKM_OK;
}

/* The energy monitor: E = T + V at the projected state against the works integrated along. */
static pkm_status energy_monitor(int step, double t, const double *y, void *user, pkm_ctx *ctx)
{
    pkm_fwd *f = user;
    const int nq = f->nq;
    pkm_fwd_record r = {.step = step, .t = t, .y = y};
    pkm_mbs_set_state(f->s, y, y + nq, NULL);
    pkm_mbs_energy(f->s, &r.T, &r.V);
    double vel;
    pkm_mbs_closure_residual(f->s, &r.closure, &vel);
    if (step == 0) f->E0 = r.T + r.V;
    r.w_drive = y[2 * nq];
    r.w_fric = y[2 * nq + 1];
    r.balance = r.T + r.V - f->E0 - r.w_drive + r.w_fric;
    return f->monitor != NULL ? f->monitor(&r, f->muser, ctx) : PKM_OK;
}

pkm_status pkm_fwd_run(pkm_fwd *f, double t0, double h, int nsteps, double *y,
                       pkm_fwd_monitor monitor, void *user, pkm_ctx *ctx)
{
    if (nsteps < 0 || !isfinite(h) || h == 0.0 || !isfinite(t0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "forward dynamics: %d steps of %g s from t = %g s",
                        nsteps, h, t0);
    const pkm_ode ode = {PKM_FWD_STATES(f->nq), rhs, energy_monitor, f};
    f->monitor = monitor, f->muser = user, f->primed = 0;
    pkm_status st = pkm_fwd_project(f, y, y + f->nq, ctx);
    if (st == PKM_OK) st = ode.monitor(0, t0, y, f, ctx);
    for (int k = 0; st == PKM_OK && k < nsteps; k++) {
        st = pkm_ode_rk4_step(&ode, t0 + k * h, h, y, f->ode_work, ctx);
        if (st == PKM_OK) st = pkm_fwd_project(f, y, y + f->nq, ctx);
        if (st == PKM_OK) st = ode.monitor(k + 1, t0 + (k + 1) * h, y, f, ctx);
    }
    return st;
}
