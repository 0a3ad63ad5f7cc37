/* bench/chain_bench.c: time per forward-dynamics call on a chain of N identical loop modules
 * (the lift loop of the crane of Petrovic and Mattila 2022, its end frame the next loop's base),
 * N = 1, 2, 4, ... up to argv[1] (default 512): the O(n) Algorithm 1 of Paz Anaya and Mattila
 * 2024 (pkm_chain_forward) against the dense KKT reference (the same machine as a pkm_model:
 * pkm_mbs mass matrix, constraint Jacobian, least-squares solve of the KKT system, O(n^3)),
 * the reference while its previous size took under argv[2] seconds (default 3). Prints per N
 * the microseconds per call of both, the round trip inverse(forward(tau)) = tau and the agreement
 * of the two accelerations, then the straight-line fit of Algorithm
 * 1's time against N (R^2) and the spread of its time per module.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

#include "bench/timing.h"
#include "pkm/chain.h"
#include "pkm/dynamics.h"
#include "pkm/hiab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void dgelss_(const int *m, const int *n, const int *nrhs, double *a, const int *lda,
                    double *b, const int *ldb, double *s, const double *rcond, int *rank,
                    double *work, const int *lwork, int *info);

#define MAX_SIZES 16

/* N copies of the lift loop (the boom's module without its pillar). */
static pkm_chain *ladder(int n, double *q, double *qd, double *tau)
{
    pkm_chain_module one[4], *mods = calloc((size_t)n, sizeof(*mods));
    pkm_chain_pose root;
    double g[3];
    int k;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (mods == NULL || pkm_hiab_modules("boom1", one, &k, &root, g, &ctx) != PKM_OK) exit(3);
    memset(&one[0].body[PKM_CHAIN_BASE], 0, sizeof(one[0].body[PKM_CHAIN_BASE]));
    for (int i = 0; i < n; i++) {
        mods[i] = one[0];
        snprintf(mods[i].name, sizeof(mods[i].name), "cyl%d", i + 1);
        q[i] = 0.2 + 0.1 * sin(i), qd[i] = 0.05 * cos(i);
    }
    pkm_chain *c = NULL;
    if (pkm_chain_create(n, mods, &root, g, &c, &ctx) != PKM_OK)
        bench_die("chain_bench", "chain", &ctx);
    free(mods);
    double *acc = calloc((size_t)n, sizeof(double));
    if (acc == NULL) exit(3);
    for (int i = 0; i < n; i++)
        acc[i] = 0.1 * cos(0.7 * i);
    if (pkm_chain_inverse(c, q, qd, acc, tau, NULL, &ctx) != PKM_OK)
        bench_die("chain_bench", "inverse", &ctx);
    free(acc);
    return c;
}

/* Seconds per call of the forward dynamics in one batch of at least 0.05 s. */
static double time_forward(pkm_chain *c, const double *q, const double *qd, const double *tau,
                           double *qdd)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int calls = 0;
    const double t0 = now_s();
    double t;
    do {
        if (pkm_chain_forward(c, q, qd, tau, qdd, &ctx) != PKM_OK)
            bench_die("chain_bench", "forward", &ctx);
        calls++;
    } while ((t = now_s() - t0) < 0.05);
    return t / calls;
}

/* The largest relative difference of inverse(forward(tau)) from tau. */
static double round_trip(pkm_chain *c, const double *q, const double *qd, const double *tau,
                         const double *qdd)
{
    const int n = pkm_chain_dof(c);
    double *f = malloc(sizeof(double) * (size_t)n), e = 0.0;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (f == NULL || pkm_chain_inverse(c, q, qd, qdd, f, NULL, &ctx) != PKM_OK)
        bench_die("chain_bench", "inverse", &ctx);
    for (int i = 0; i < n; i++)
        e = fmax(e, fabs(f[i] - tau[i]) / fabs(tau[i]));
    free(f);
    return e;
}

/* One KKT reference solve at the chain's state: the model at q, its passive rates from the
 * closure, then M, h, C, gamma and the dense least-squares KKT solve (timed); the actuated
 * accelerations into qdd. Returns the seconds of the timed part. */
static double kkt_reference(pkm_chain *c, const double *q, const double *qd, const double *tau,
                            double *qdd)
{
    const int n = pkm_chain_dof(c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *md = NULL;
    pkm_mbs *s = NULL;
    int *coord = malloc(sizeof(int) * (size_t)(3 * n));
    const double g[3] = {0.0, -PKM_HIAB_GRAVITY, 0.0};
    if (coord == NULL || pkm_chain_model(c, q, &md, coord, &ctx) != PKM_OK ||
        pkm_mbs_create(md, g, &s, &ctx) != PKM_OK || pkm_mbs_set_singular(s, 1e-9, &ctx) != PKM_OK)
        bench_die("chain_bench", "reference model", &ctx);
    const int nq = pkm_mbs_coord_count(s), nc = pkm_mbs_constraint_count(s), N = nq + nc;
    const int *idx = NULL, nd = pkm_mbs_driven(s, &idx);
    const int lwork = 64 * N + 64;
    double *w =
        calloc((size_t)(2 * nd + N * N + 3 * N + nq * nq + nc * nq + nc + lwork), sizeof(double));
    int *first = malloc(sizeof(int) * (size_t)n);
    if (w == NULL || first == NULL) exit(3);
    double *qa = w, *qda = w + nd, *K = qda + nd, *rhs = K + N * N, *sv = rhs + N;
    double *M = sv + N, *h = M + nq * nq, *C = h + N, *gam = C + nc * nq, *work = gam + nc;
    for (int i = 0; i < n; i++) {
        pkm_mbs_joint_coords(s, coord[3 * i + 2], &first[i]);
        for (int k = 0; k < nd; k++)
            if (idx[k] == first[i]) qda[k] = qd[i];
    }
    if (pkm_mbs_kinematics(s, 0.0, qa, qda, qa, &ctx) != PKM_OK)
        bench_die("chain_bench", "reference closure", &ctx);
    const double t0 = now_s();
    pkm_mbs_mass_matrix(s, M, h);
    pkm_mbs_constraints(s, C, gam);
    /* column-major K = [M -C^T; C 0], rhs = [tau - h; -gamma] */
    for (int i = 0; i < nq; i++) {
        for (int j = 0; j < nq; j++)
            K[j * N + i] = M[i * nq + j];
        for (int r = 0; r < nc; r++) {
            K[(nq + r) * N + i] = -C[r * nq + i];
            K[i * N + nq + r] = C[r * nq + i];
        }
        rhs[i] = -h[i];
    }
    for (int r = 0; r < nc; r++)
        rhs[nq + r] = -gam[r];
    for (int i = 0; i < n; i++)
        rhs[first[i]] += tau[i];
    const int one = 1;
    const double rcond = 1e-12;
    int rank = 0, info = 0;
    dgelss_(&N, &N, &one, K, &N, rhs, &N, sv, &rcond, &rank, work, &lwork, &info);
    const double t = now_s() - t0;
    if (info != 0) exit(3);
    for (int i = 0; i < n; i++)
        qdd[i] = rhs[first[i]];
    free(first);
    free(w);
    free(coord);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&md);
    return t;
}

/* One size: its chain, state and drives. */
typedef struct size_run {
    int n;
    pkm_chain *c;
    double *v; /* q, qd, tau, qdd, reference qdd: n each */
    double t;  /* fastest seconds per call */
} size_run;

/* The machine is shared: every size is timed in each of ROUNDS sweeps, the fastest kept, so
 * that a burst of other load does not fall on one size only. */
#define ROUNDS 7

int main(int argc, char **argv)
{
    const int nmax = argc > 1 ? atoi(argv[1]) : 512;
    const double kkt_limit = argc > 2 ? atof(argv[2]) : 3.0;
    size_run runs[MAX_SIZES];
    int ns = 0;
    for (int n = 1; n <= nmax && ns < MAX_SIZES; n *= 2, ns++) {
        size_run *r = &runs[ns];
        r->n = n, r->t = INFINITY;
        r->v = calloc((size_t)(5 * n), sizeof(double));
        if (r->v == NULL) return 3;
        r->c = ladder(n, r->v, r->v + n, r->v + 2 * n);
    }
    for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < ns; k++) {
            size_run *r = &runs[k];
            const int n = r->n;
            r->t = fmin(r->t, time_forward(r->c, r->v, r->v + n, r->v + 2 * n, r->v + 3 * n));
        }
    printf("%6s %14s %14s %12s %12s %14s\n", "N", "us/call O(n)", "us/N", "inv(fwd)", "us KKT",
           "fwd vs KKT");
    double t_kkt = 0.0;
    for (int k = 0; k < ns; k++) {
        size_run *r = &runs[k];
        const int n = r->n;
        double *q = r->v, *qd = q + n, *tau = qd + n, *a = tau + n, *ref = a + n;
        printf("%6d %14.3f %14.4f %12.3g", n, 1e6 * r->t, 1e6 * r->t / n,
               round_trip(r->c, q, qd, tau, a));
        if (t_kkt < kkt_limit) {
            t_kkt = kkt_reference(r->c, q, qd, tau, ref);
            double d = 0.0;
            for (int i = 0; i < n; i++)
                d = fmax(d, fabs(a[i] - ref[i]) / fmax(fabs(ref[i]), 1e-3));
            printf(" %12.1f %14.3g\n", 1e6 * t_kkt, d);
        } else
            printf(" %12s %14s\n", "-", "-");
        fflush(stdout);
    }
    /* least-squares line t = a + b N */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < ns; k++) {
        const double x = runs[k].n, y = runs[k].t;
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    const double b = (ns * sxy - sx * sy) / (ns * sxx - sx * sx), a0 = (sy - b * sx) / ns;
    double ss = 0.0, st = 0.0, lo = INFINITY, hi = 0.0;
    for (int k = 0; k < ns; k++) {
        const double x = runs[k].n, y = runs[k].t, e = y - a0 - b * x, m = y - sy / ns;
        ss += e * e, st += m * m;
        if (x >= 8) lo = fmin(lo, y / x), hi = fmax(hi, y / x);
    }
    const double mid = 0.5 * (lo + hi);
    printf("O(n) fit: t = %.3f us + %.4f us x N, R^2 = %.5f; time per module (N >= 8) %.4f ... "
           "%.4f us, +-%.1f %% about %.4f us\n",
           1e6 * a0, 1e6 * b, 1.0 - ss / st, 1e6 * lo, 1e6 * hi, 100.0 * (hi - lo) / (2 * mid),
           1e6 * mid);
    for (int k = 0; k < ns; k++) {
        pkm_chain_destroy(&runs[k].c);
        free(runs[k].v);
    }
    return 0;
}
