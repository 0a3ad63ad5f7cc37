/* bench/dyn_bench.c: time per sample of the rigid-body closure kinematics and inverse dynamics
 * (pkm_mbs_kinematics then pkm_mbs_inverse) on a chain of N parallelogram loops (N = 1, 2, 4,
 * ... up to argv[1], default 512): the crank of loop 1 is driven, the rocker of loop k is the
 * crank of loop k + 1, one degree of freedom in all; then on pss5upu along its default
 * trajectory (Li et al. 2020, eq. 40 about an off-centre point). Prints N, coordinates, constraint
 * rows, microseconds per sample with the sparse solves (the default) and its ratio to the previous
 * N (2 for linear growth), and with the dense SVD reference up to argv[2] loops (default 64; 8 for
 * cubic growth). The first two samples (the symbolic analysis, Newton from the reference
 * configuration) are not timed. Each size runs at least 20 samples and 0.3 s, or exactly argv[3]
 * samples if given: for instruction counts, which the machine's load does not change,
 *   valgrind --tool=callgrind --toggle-collect=timed_sample --dump-after=ladder_us \
 *       ./build/bench/dyn_bench 512 0 10
 * writes one profile per N of the timed samples only (docs/performance.md).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bench/ladder.h"
#include "bench/timing.h"
#include "pkm/casefile.h"
#include "pkm/cases.h"
#include "pkm/dynamics.h"
#include "pkm/trajectory.h"
#include "pkm/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One sample of the ladder at time t. */
static void sample(pkm_mbs *s, double t, pkm_joint_result *res, pkm_ctx *ctx)
{
    const double q = 0.2 * sin(t), qd = 0.2 * cos(t), qdd = -q;
    if (pkm_mbs_kinematics(s, t, &q, &qd, &qdd, ctx) != PKM_OK ||
        pkm_mbs_inverse(s, NULL, res, ctx) != PKM_OK)
        bench_die("dyn_bench", "ladder", ctx);
}

/* The timed samples through a function of their own (never inlined), which a profiler can
 * count alone. */
__attribute__((noinline)) static void timed_sample(pkm_mbs *s, double t, pkm_joint_result *res,
                                                   pkm_ctx *ctx)
{
    sample(s, t, res, ctx);
}

/* Microseconds per sample of the ladder of n loops with the given solver, over exactly samples
 * samples if samples > 0. */
__attribute__((noinline)) static double ladder_us(int n, pkm_dyn_solver solver, int samples,
                                                  int *nq, int *nc)
{
    pkm_model *m = NULL;
    pkm_mbs *s = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (ladder_create(n, &m, &ctx) != PKM_OK) bench_die("dyn_bench", "ladder", &ctx);
    if (pkm_mbs_create(m, (const double[3]){0, -9.81, 0}, &s, &ctx) != PKM_OK)
        bench_die("dyn_bench", "ladder", &ctx);
    /* The ladder's conditioning falls with its length (about 1/N^2) without any dead point:
     * the default threshold would stop it near N = 100. */
    if (pkm_mbs_set_singular(s, 1e-9, &ctx) != PKM_OK ||
        pkm_mbs_set_solver(s, solver, &ctx) != PKM_OK)
        bench_die("dyn_bench", "ladder", &ctx);
    pkm_joint_result *res = calloc((size_t)pkm_model_joint_count(m), sizeof(*res));
    if (res == NULL) exit(3);
    for (int i = 0; i < 2; i++)
        sample(s, 0.01 * i, res, &ctx);
    const double t0 = now_s();
    double us = 0.0;
    int timed = 0;
    while (samples > 0 ? timed < samples : timed < 20 || us < 3e5) {
        timed_sample(s, 0.01 * (timed + 2), res, &ctx);
        timed++;
        us = 1e6 * (now_s() - t0);
    }
    *nq = pkm_mbs_coord_count(s);
    *nc = pkm_mbs_constraint_count(s);
    free(res);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
    return us / timed;
}

/* Microseconds per sample of pss5upu along its default trajectory (eq. 40 about x = 20 mm,
 * alpha = 0.2 rad, off the centre of its layout, a singular pose of its S-S legs), sampled
 * every 10 ms from 0.3 s to 2.2 s. */
static double pss5upu_us(int *nq, int *nc)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = pkm_case_find("pss5upu");
    void *params = NULL;
    pkm_model *m = NULL;
    pkm_mbs *s = NULL;
    pkm_trajectory *tr = NULL;
    if (c == NULL || pkm_case_params_create(c, &params, &ctx) != PKM_OK ||
        c->build_rigid(params, pkm_case_rigid_pose(c), &m, &ctx) != PKM_OK ||
        pkm_mbs_create(m, pkm_case_dynamics_of(c, params)->gravity, &s, &ctx) != PKM_OK ||
        pkm_trajectory_create_analytic(&c->traj[0], c->npose, &tr, &ctx) != PKM_OK)
        bench_die("dyn_bench", "pss5upu", &ctx);
    int idx[PKM_POSE_MAX];
    for (int k = 0; k < c->ndriven; k++)
        for (int i = 0; i < pkm_mbs_coord_count(s); i++)
            if (strcmp(pkm_mbs_coord_name(s, i), c->driven_names[k]) == 0) idx[k] = i;
    if (pkm_mbs_set_driven(s, c->ndriven, idx, &ctx) != PKM_OK)
        bench_die("dyn_bench", "pss5upu", &ctx);
    pkm_joint_result *res = calloc((size_t)pkm_model_joint_count(m), sizeof(*res));
    if (res == NULL) exit(3);
    double t0 = 0.0;
    const int n = 191;
    for (int i = 0; i < n; i++) {
        if (i == 2) t0 = now_s();
        double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX], q[PKM_POSE_MAX],
            qd[PKM_POSE_MAX], qdd[PKM_POSE_MAX];
        const double t = 0.3 + 0.01 * i;
        if (pkm_trajectory_eval(tr, t, p, pd, pdd, &ctx) != PKM_OK ||
            c->drive(params, p, pd, pdd, q, qd, qdd, &ctx) != PKM_OK ||
            pkm_mbs_kinematics(s, t, q, qd, qdd, &ctx) != PKM_OK ||
            pkm_mbs_inverse(s, NULL, res, &ctx) != PKM_OK)
            bench_die("dyn_bench", "pss5upu", &ctx);
    }
    const double us = 1e6 * (now_s() - t0) / (n - 2);
    *nq = pkm_mbs_coord_count(s);
    *nc = pkm_mbs_constraint_count(s);
    free(res);
    pkm_trajectory_destroy(&tr);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
    pkm_case_params_destroy(&params);
    return us;
}

int main(int argc, char **argv)
{
    const int nmax = (argc > 1) ? atoi(argv[1]) : 512;
    const int dmax = (argc > 2) ? atoi(argv[2]) : 64;
    const int samples = (argc > 3) ? atoi(argv[3]) : 0;
    printf("%8s %6s %6s %12s %7s %12s %7s\n", "N", "coords", "rows", "sparse us", "ratio",
           "dense us", "ratio");
    double prev_s = 0.0, prev_d = 0.0;
    for (int n = 1; n <= nmax; n *= 2) {
        int nq, nc;
        const double us = ladder_us(n, PKM_DYN_SPARSE, samples, &nq, &nc);
        printf("%8d %6d %6d %12.1f %7.2f", n, nq, nc, us, prev_s > 0.0 ? us / prev_s : 0.0);
        prev_s = us;
        if (n <= dmax) {
            const double ud = ladder_us(n, PKM_DYN_DENSE, samples, &nq, &nc);
            printf(" %12.1f %7.2f", ud, prev_d > 0.0 ? ud / prev_d : 0.0);
            prev_d = ud;
        }
        printf("\n");
        fflush(stdout);
    }
    int nq, nc;
    const double us = pss5upu_us(&nq, &nc);
    printf("%8s %6d %6d %12.1f   (eq40-off, t = 0.3 ... 2.2 s)\n", "pss5upu", nq, nc, us);
    return 0;
}
