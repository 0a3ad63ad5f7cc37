/* bench/mast_bench.c: time per trajectory sample of the chewing robot's inverse dynamics
 * (cases `masticatory`, pkm/mast.h) with the higher pairs (the surrogate) and without them (its
 * 6-RSS twin replaying the same pose motion), argv[1] samples over one period of the default
 * motion (default 1000): the kinematics alone (Newton on the contacts, closed-form crank angles,
 * rates and accelerations), and kinematics plus the minimum-norm inverse dynamics by each route of
 * the tests' reference (tests/reference/mastref.h: virtual power, the paper's Hessian route,
 * Liang's partial-derivative route, Lagrange's first kind). Cheng et al. 2024 time their MATLAB
 * symbolic code over 5 s: Hessian route / partial-derivative route 1.279 (target) and 1.082
 * (6-RSS), target / 6-RSS 10.56 (Hessian) and 8.93 (partial derivatives); this prints ours
 * beside them.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

#include "bench/timing.h"
#include "reference/mastref.h"
#include "pkm/casefile.h"
#include "pkm/masticatory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void mechanism(unsigned higher_pairs, pkm_mast *m)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *params = NULL;
    if (pkm_case_params_create(pkm_masticatory_case(), &params, &ctx) != PKM_OK)
        bench_die("mast_bench", "params", &ctx);
    ((pkm_masticatory_params *)params)->higher_pairs = higher_pairs;
    if (pkm_masticatory_mechanism(params, m, &ctx) != PKM_OK)
        bench_die("mast_bench", "mechanism", &ctx);
    pkm_case_params_destroy(&params);
}

/* The free coordinates and rates of sample k of n (the twin: the target's whole pose). */
static void sample(const pkm_mast_state *target, unsigned higher_pairs, int k, int n,
                   const double **q, const double **qd, const double **qdd, double t[1],
                   double buf[3][PKM_POSE_DOF])
{
    *t = (double)k / n;
    if (higher_pairs) {
        pkm_masticatory_motion(*t, buf[0], buf[1], buf[2]);
        *q = buf[0], *qd = buf[1], *qdd = buf[2];
    } else {
        *q = target[k].X, *qd = target[k].Xd, *qdd = target[k].Xdd;
    }
}

/* Seconds per sample over the n samples (best of 3 sweeps); route >= 0 adds the torques by that
 * route. */
static double sweep(const pkm_mast *m, unsigned higher_pairs, const pkm_mast_state *target, int n,
                    int route, pkm_mast_state *out)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double best = 1e300, buf[3][PKM_POSE_DOF], t;
    for (int rep = 0; rep < 3; rep++) {
        pkm_mast_state s;
        memset(&s, 0, sizeof(s));
        double t0 = now_s();
        for (int k = 0; k < n; k++) {
            const double *q, *qd, *qdd;
            sample(target, higher_pairs, k, n, &q, &qd, &qdd, &t, buf);
            if (!higher_pairs) s = target[k]; /* the cranks tracked from the target's */
            if (pkm_mast_kinematics(m, t, q, qd, qdd, &s, &ctx) != PKM_OK)
                bench_die("mast_bench", "kinematics", &ctx);
            pkm_mast_forces f;
            const pkm_mast_inverse_opts o = {.route = (pkm_mast_route)(route > 0 ? route : 0)};
            if (route >= 0 && pkm_mast_inverse(m, &s, NULL, &o, &f, &ctx) != PKM_OK)
                bench_die("mast_bench", "inverse", &ctx);
            if (out) out[k] = s;
        }
        double dt = (now_s() - t0) / n;
        best = dt < best ? dt : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    if (n < 2) {
        fprintf(stderr, "mast_bench: samples must be >= 2\n");
        return 2;
    }
    pkm_mast_state *target = calloc((size_t)n, sizeof(*target));
    if (target == NULL) return 3;
    pkm_mast tg, tw;
    mechanism(1, &tg), mechanism(0, &tw);
    enum { NR = 4 };
    double us[2][1 + NR];
    us[0][0] = 1e6 * sweep(&tg, 1, NULL, n, -1, target);
    us[1][0] = 1e6 * sweep(&tw, 0, target, n, -1, NULL);
    for (int r = 0; r < NR; r++) {
        us[0][1 + r] = 1e6 * sweep(&tg, 1, NULL, n, r, NULL);
        us[1][1 + r] = 1e6 * sweep(&tw, 0, target, n, r, NULL);
    }
    printf("# masticatory, %d samples over one period, us per sample (best of 3): the\n"
           "# kinematics, then kinematics + minimum-norm inverse dynamics by each route\n",
           n);
    printf("%-26s %11s", "mechanism", "kinematics");
    for (int r = 0; r < NR; r++)
        printf(" %13s", pkm_mast_route_name((pkm_mast_route)r));
    printf("\n");
    for (int k = 0; k < 2; k++) {
        printf("%-26s %11.2f", k ? "6-RSS (twin)" : "6-RSS + 2 HKP (surrogate)", us[k][0]);
        for (int r = 0; r < NR; r++)
            printf(" %13.2f", us[k][1 + r]);
        printf("\n");
    }
    const int H = 1 + PKM_MAST_HESSIAN, L = 1 + PKM_MAST_LIANG;
    printf("# Hessian / partial-derivative route: %.3f (target), %.3f (twin); the paper's MATLAB\n"
           "#   symbolic code: 1.279, 1.082\n",
           us[0][H] / us[0][L], us[1][H] / us[1][L]);
    printf("# target / twin: %.3f (Hessian), %.3f (partial derivatives), %.3f (virtual power);\n"
           "#   the paper's: 10.56, 8.93\n",
           us[0][H] / us[1][H], us[0][L] / us[1][L], us[0][1] / us[1][1]);
    free(target);
    return 0;
}
