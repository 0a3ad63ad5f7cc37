/* bench/mast_bench.c: time per trajectory sample of the chewing robot's inverse dynamics
 * (cases `masticatory`, pkm/mast.h) with the higher pairs (the surrogate) and without them (its
 * 6-RSS twin replaying the same pose motion), argv[1] samples over one period of the default
 * motion (default 1000): the kinematics alone (Newton on the contacts, closed-form crank angles,
 * rates and accelerations) and kinematics plus the virtual-power inverse dynamics with
 * minimum-norm torques. Cheng et al. 2024 time their MATLAB symbolic code over 5 s: Hessian route
 * / partial-derivative route 1.279 (target) and 1.082 (6-RSS), target / 6-RSS 10.56 and 8.93;
 * the second ratio is what this prints; the Hessian route is not in the library yet.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

#include "bench/timing.h"
#include "pkm/casefile.h"
#include "pkm/mast.h"
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

/* Seconds per sample over the n samples (best of 3 sweeps); with_inverse adds the torques. */
static double sweep(const pkm_mast *m, unsigned higher_pairs, const pkm_mast_state *target, int n,
                    int with_inverse, pkm_mast_state *out)
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
            if (with_inverse && pkm_mast_inverse(m, &s, NULL, NULL, &f, &ctx) != PKM_OK)
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
    double us[2][2];
    us[0][0] = 1e6 * sweep(&tg, 1, NULL, n, 0, target);
    us[0][1] = 1e6 * sweep(&tg, 1, NULL, n, 1, NULL);
    us[1][0] = 1e6 * sweep(&tw, 0, target, n, 0, NULL);
    us[1][1] = 1e6 * sweep(&tw, 0, target, n, 1, NULL);
    printf("# masticatory, %d samples over one period, us per sample (best of 3)\n", n);
    printf("%-28s %14s %22s\n", "mechanism", "kinematics", "kinematics+inverse");
    printf("%-28s %14.2f %22.2f\n", "6-RSS + 2 HKP (surrogate)", us[0][0], us[0][1]);
    printf("%-28s %14.2f %22.2f\n", "6-RSS (twin)", us[1][0], us[1][1]);
    printf("# with / without the higher pairs: %.3f (kinematics+inverse)\n", us[0][1] / us[1][1]);
    free(target);
    return 0;
}
