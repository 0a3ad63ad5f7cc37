/* bench/ladder.h: a chain of n parallelogram loops for the rigid-body dynamics' bench and tests:
 * pivots at (k L, 0), cranks and rockers of length r up to (k L, r), couplers between their tips;
 * the crank of loop 1 (joint "crank") is actuated, the rocker of loop k is the crank of loop
 * k + 1, one degree of freedom in all; 2n + 1 coordinates, 5n constraint rows.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_BENCH_LADDER_H
#define PKM_BENCH_LADDER_H

#include "pkm/model.h"

#include <stddef.h>

static inline pkm_status ladder_link(pkm_model *m, double x0, double y0, double x1, double y1,
                                     int *id, pkm_ctx *ctx)
{
    const pkm_rigid_desc d = {.name = "link",
                              .origin = {x0, y0, 0},
                              .mass = 1.0,
                              .com = {0.5 * (x0 + x1), 0.5 * (y0 + y1), 0},
                              .inertia = {{1e-3, 0, 0}, {0, 1e-3, 0}, {0, 0, 1e-2}}};
    return pkm_model_add_rigid(m, &d, id, ctx);
}

static inline pkm_status ladder_pin(pkm_model *m, const char *name, int a, int b, double x,
                                    double y, int cut, int act, pkm_ctx *ctx)
{
    const pkm_joint_desc d = {.name = name,
                              .type = PKM_JOINT_REVOLUTE,
                              .body_a = a,
                              .body_b = b,
                              .point = {x, y, 0},
                              .axis = {0, 0, 1},
                              .cut = cut,
                              .actuated = act};
    return pkm_model_add_joint(m, &d, NULL, ctx);
}

/* The ladder of n loops into *out (NULL on failure). */
static inline pkm_status ladder_create(int n, pkm_model **out, pkm_ctx *ctx)
{
    const double L = 0.3, r = 0.2;
    pkm_model *m = NULL;
    int prev = -1;
    pkm_status st = pkm_model_create(&m, ctx);
    if (st == PKM_OK) st = ladder_link(m, 0, 0, 0, r, &prev, ctx);
    if (st == PKM_OK) st = ladder_pin(m, "crank", PKM_GROUND, prev, 0, 0, 0, 1, ctx);
    for (int k = 1; k <= n && st == PKM_OK; k++) {
        int cpl = -1, rock = -1;
        st = ladder_link(m, (k - 1) * L, r, k * L, r, &cpl, ctx);
        if (st == PKM_OK) st = ladder_link(m, k * L, 0, k * L, r, &rock, ctx);
        if (st == PKM_OK) st = ladder_pin(m, "coupler", prev, cpl, (k - 1) * L, r, 0, 0, ctx);
        if (st == PKM_OK) st = ladder_pin(m, "rocker", PKM_GROUND, rock, k * L, 0, 0, 0, ctx);
        if (st == PKM_OK) st = ladder_pin(m, "cut", cpl, rock, k * L, r, 1, 0, ctx);
        prev = rock;
    }
    if (st != PKM_OK) pkm_model_destroy(&m);
    *out = m;
    return st;
}

#endif
