/* bench/engine_bench.c: the engines of the table (pkm/dynengine.h) side by side on the models
 * they share, the crane's machines (boom1, crane4) as pkm_models: microseconds per inverse-
 * dynamics call (kinematics, drives and every joint's reaction) and per forward-dynamics call
 * along their default motion, and the ratio of each engine to the fastest. The table's order
 * (pkm_dyn_engine_choose takes the first that accepts) follows these ratios.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

#include "bench/timing.h"
#include "pkm/dynengine.h"
#include "pkm/hiab.h"

#include <stdio.h>
#include <stdlib.h>

#define CALLS 2000

/* Seconds per call of engine e on model m along the machine's motion (inverse or forward). */
static double per_call(const pkm_dyn_engine *e, const pkm_model *m, const double g[3],
                       const pkm_trajectory *tr, const double *q0, int n, int forward)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *eng = NULL;
    pkm_joint_result *res = calloc((size_t)pkm_model_joint_count(m), sizeof(*res));
    if (res == NULL || e->create(m, g, &eng, &ctx) != PKM_OK)
        bench_die("engine_bench", e->name, &ctx);
    double q[4], qd[4], qdd[4], tau[4] = {0, 0, 0, 0};
    const double t0 = now_s();
    for (int k = 0; k < CALLS; k++) {
        const double t = 10.0 * k / CALLS;
        pkm_status st = pkm_trajectory_eval(tr, t, q, qd, qdd, &ctx);
        for (int i = 0; i < n; i++)
            q[i] -= q0[i]; /* the model's coordinates are measured from its configuration */
        if (st == PKM_OK)
            st = forward ? e->forward(eng, t, q, qd, tau, qdd, &ctx)
                         : e->inverse(eng, t, q, qd, qdd, res, &ctx);
        if (st != PKM_OK) bench_die("engine_bench", e->name, &ctx);
    }
    const double dt = (now_s() - t0) / CALLS;
    e->destroy(&eng);
    free(res);
    return dt;
}

int main(void)
{
    static const char *const names[2] = {"boom1", "crane4"};
    printf("%-7s %-8s %-10s %12s %8s\n", "model", "call", "engine", "us/call", "ratio");
    for (int m = 0; m < 2; m++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        pkm_chain *c = NULL;
        pkm_model *md = NULL;
        pkm_trajectory *tr = NULL;
        int coord[12];
        double q0[4], g[3] = {0.0, -PKM_HIAB_GRAVITY, 0.0};
        const pkm_case *cs = pkm_case_find(names[m]);
        const pkm_traj_desc *d = &cs->traj[0];
        const int n = cs->npose;
        if (pkm_hiab_chain(names[m], &c, &ctx) != PKM_OK ||
            pkm_trajectory_create_analytic(d, n, &tr, &ctx) != PKM_OK ||
            pkm_trajectory_eval(tr, 0.0, q0, NULL, NULL, &ctx) != PKM_OK ||
            pkm_chain_model(c, q0, &md, coord, &ctx) != PKM_OK)
            bench_die("engine_bench", names[m], &ctx);
        for (int forward = 0; forward < 2; forward++) {
            double t[PKM_DYN_ENGINE_COUNT], best = 1e300;
            for (int e = 0; e < PKM_DYN_ENGINE_COUNT; e++) {
                t[e] = per_call(&pkm_dyn_engines[e], md, g, tr, q0, n, forward);
                best = t[e] < best ? t[e] : best;
            }
            for (int e = 0; e < PKM_DYN_ENGINE_COUNT; e++)
                printf("%-7s %-8s %-10s %12.2f %8.1f\n", names[m], forward ? "forward" : "inverse",
                       pkm_dyn_engines[e].name, 1e6 * t[e], t[e] / best);
        }
        pkm_model_destroy(&md);
        pkm_trajectory_destroy(&tr);
        pkm_chain_destroy(&c);
    }
    return 0;
}
