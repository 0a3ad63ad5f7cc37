/* bench/dyn_bench.c: time per sample of the rigid-body closure kinematics and inverse dynamics
 * on a chain of N parallelogram loops (N = 1, 2, 4, ... up to argv[1], default 128): the
 * crank of loop 1 is driven, the rocker of loop k is the crank of loop k + 1, one degree of
 * freedom in all. Prints N, coordinates, constraint rows and microseconds per sample. The
 * solves are dense (SVD): the time grows like N^3, not linearly.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "pkm/dynamics.h"
#include "pkm/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int add_link(pkm_model *m, double x0, double y0, double x1, double y1)
{
    const double c[3] = {0.5 * (x0 + x1), 0.5 * (y0 + y1), 0};
    pkm_rigid_desc d = {.name = "link",
                        .origin = {x0, y0, 0},
                        .mass = 1.0,
                        .com = {c[0], c[1], c[2]},
                        .inertia = {{1e-3, 0, 0}, {0, 1e-3, 0}, {0, 0, 1e-2}}};
    int id = -1;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (pkm_model_add_rigid(m, &d, &id, &ctx) != PKM_OK) exit(3);
    return id;
}

static void add_pin(pkm_model *m, const char *name, int a, int b, double x, double y, int cut,
                    int act)
{
    pkm_joint_desc d = {.name = name,
                        .type = PKM_JOINT_REVOLUTE,
                        .body_a = a,
                        .body_b = b,
                        .point = {x, y, 0},
                        .axis = {0, 0, 1},
                        .cut = cut,
                        .actuated = act};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (pkm_model_add_joint(m, &d, NULL, &ctx) != PKM_OK) exit(3);
}

/* Pivots at (k L, 0), cranks/rockers of length r up to (k L, r), couplers between their tips. */
static pkm_model *ladder(int n)
{
    const double L = 0.3, r = 0.2;
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (pkm_model_create(&m, &ctx) != PKM_OK) exit(3);
    int prev = add_link(m, 0, 0, 0, r);
    add_pin(m, "crank", PKM_GROUND, prev, 0, 0, 0, 1);
    for (int k = 1; k <= n; k++) {
        const int cpl = add_link(m, (k - 1) * L, r, k * L, r);
        const int rock = add_link(m, k * L, 0, k * L, r);
        add_pin(m, "coupler", prev, cpl, (k - 1) * L, r, 0, 0);
        add_pin(m, "rocker", PKM_GROUND, rock, k * L, 0, 0, 0);
        add_pin(m, "cut", cpl, rock, k * L, r, 1, 0);
        prev = rock;
    }
    return m;
}

int main(int argc, char **argv)
{
    const int nmax = (argc > 1) ? atoi(argv[1]) : 128;
    printf("%6s %6s %6s %14s\n", "N", "coords", "rows", "us/sample");
    for (int n = 1; n <= nmax; n *= 2) {
        pkm_model *m = ladder(n);
        pkm_mbs *s = NULL;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        if (pkm_mbs_create(m, (const double[3]){0, -9.81, 0}, &s, &ctx) != PKM_OK) {
            fprintf(stderr, "dyn_bench: %s\n", ctx.msg);
            return 3;
        }
        /* The ladder's conditioning falls with its length (about 1/N^2) without any dead point:
         * the default threshold would stop it near N = 100. */
        pkm_mbs_set_singular(s, 1e-9, &ctx);
        pkm_joint_result *res = calloc((size_t)pkm_model_joint_count(m), sizeof(*res));
        const int samples = n <= 16 ? 200 : (n <= 64 ? 20 : 3);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 0; i < samples; i++) {
            const double t = 0.01 * i, q = 0.2 * sin(t), qd = 0.2 * cos(t), qdd = -q;
            if (pkm_mbs_kinematics(s, t, &q, &qd, &qdd, &ctx) != PKM_OK ||
                pkm_mbs_inverse(s, NULL, res, &ctx) != PKM_OK) {
                fprintf(stderr, "dyn_bench: %s\n", ctx.msg);
                return 3;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        const double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3;
        printf("%6d %6d %6d %14.1f\n", n, pkm_mbs_coord_count(s), pkm_mbs_constraint_count(s),
               us / samples);
        free(res);
        pkm_mbs_destroy(&s);
        pkm_model_destroy(&m);
    }
    return 0;
}
