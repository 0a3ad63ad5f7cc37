/* tests/test_dynamics_sparse.c: the sparse solves (CHOLMOD on the passive Jacobian's normal
 * equations, the default) against the dense SVD reference: passive coordinates, rates,
 * accelerations, every joint's reaction and the drives to 1e-10 of their largest magnitude on
 * tree5, loop3 up to its dead point (reported at the same time on both paths) and ladders of
 * parallelogram loops (bench/ladder.h); the spatial chain at random placements is compared in
 * test_dynamics_chain.c (dyn_compare_solvers, tests/dyn_util.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dyn_util.h"

#include "bench/ladder.h"

#include "pkm/spatial.h"

#include <stdio.h>
#include <stdlib.h>

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
        pkm_model *m = NULL;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_int_equal(ladder_create(n, &m, &ctx), PKM_OK);
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
