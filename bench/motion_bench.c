/* bench/motion_bench.c: the generic rigid motion against the per-case accelerators, per step,
 * side by side in one run: NaVARo built in (closed-form inverse kinematics to build each
 * finite-element model, the drive's reach check) against examples/navaro.yaml (the same robot
 * as a robot file: the closure followed by continuation, the models placed from it), along p2p:
 * pkmflex transient (1 ms steps, every step reassembled) and dynamics (kinematics and inverse
 * dynamics per sample). Three alternated runs each; the ratios of the best times.
 *   build/bench/motion_bench
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bench/timing.h"
#include "pkm/casefile.h"
#include "pkm/motion.h"
#include "pkm/transient.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *prog = "motion_bench";

static int ignore(void *user, const pkm_transient_row *row)
{
    (void)user, (void)row;
    return 0;
}

/* Seconds per transient step along c's first trajectory (1.5 s in steps of 1 ms). */
static double transient_step(const pkm_case *c, const void *params)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    if (pkm_trajectory_create_analytic(&c->traj[0], c->npose, &tr, &ctx) != PKM_OK)
        bench_die(prog, "trajectory", &ctx);
    pkm_transient_opts o = pkm_transient_opts_default(c, 1e-3, 1.5);
    o.form = PKM_FORM_TREE;
    const double t0 = now_s();
    if (pkm_transient_run(c, params, tr, &o, ignore, NULL, &ctx) != PKM_OK)
        bench_die(prog, "transient", &ctx);
    const double s = (now_s() - t0) / 1501.0;
    pkm_trajectory_destroy(&tr);
    return s;
}

/* Seconds per dynamics sample (closure followed, inverse dynamics) over 1501 samples. */
static double dynamics_sample(const pkm_case *c, const void *params)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    pkm_motion *m = NULL;
    if (pkm_trajectory_create_analytic(&c->traj[0], c->npose, &tr, &ctx) != PKM_OK ||
        pkm_motion_create(c, params, NULL, &m, &ctx) != PKM_OK)
        bench_die(prog, "set-up", &ctx);
    pkm_joint_result *res =
        calloc((size_t)pkm_model_joint_count(pkm_motion_model(m)), sizeof(*res));
    const double t0 = now_s();
    for (int k = 0; k <= 1500; k++) {
        double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
        const double t = 1e-3 * k;
        if (pkm_trajectory_eval(tr, t, p, pd, pdd, &ctx) != PKM_OK ||
            pkm_motion_at(m, t, p, pd, pdd, &ctx) != PKM_OK ||
            pkm_mbs_inverse(pkm_motion_mbs(m), NULL, res, &ctx) != PKM_OK)
            bench_die(prog, "dynamics", &ctx);
    }
    const double s = (now_s() - t0) / 1501.0;
    free(res);
    pkm_motion_destroy(&m);
    pkm_trajectory_destroy(&tr);
    return s;
}

int main(void)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *cases[2] = {pkm_case_find("navaro"), NULL};
    void *params[2] = {NULL, NULL};
    if (pkm_case_params_create(cases[0], &params[0], &ctx) != PKM_OK ||
        pkm_case_file_load(PKM_SOURCE_DIR "/examples/navaro.yaml", &cases[1], &params[1], &ctx) !=
            PKM_OK)
        bench_die(prog, "cases", &ctx);
    double tr[2] = {INFINITY, INFINITY}, dy[2] = {INFINITY, INFINITY};
    for (int run = 0; run < 3; run++)
        for (int k = 0; k < 2; k++) {
            tr[k] = fmin(tr[k], transient_step(cases[k], params[k]));
            dy[k] = fmin(dy[k], dynamics_sample(cases[k], params[k]));
        }
    printf("navaro p2p, best of 3          built-in (hooks)   examples/navaro.yaml (generic)\n");
    printf("transient, us per step         %10.1f          %10.1f\n", 1e6 * tr[0], 1e6 * tr[1]);
    printf("dynamics, us per sample        %10.1f          %10.1f\n", 1e6 * dy[0], 1e6 * dy[1]);
    printf("ratio generic / hooks: transient %.2fx, dynamics %.2fx (target <= 1.5x)\n",
           tr[1] / tr[0], dy[1] / dy[0]);
    printf("pss5upu: no generic route to compare (its pose's UPU angles are not the platform's\n"
           "floating coordinates; its rigid motion is the case's drive and body_motion hooks)\n");
    for (int k = 0; k < 2; k++)
        pkm_case_params_destroy(&params[k]);
    return 0;
}
