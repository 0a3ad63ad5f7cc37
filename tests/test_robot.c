/* tests/test_robot.c: robot files (include/pkm/robot.h, docs/robot-files.md): mechanisms
 * described by their topology, their inverse kinematics solved by Newton on the loop closure,
 * against independent models of the same mechanisms.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "navaro_defaults.h"
#include "test_util.h"

#include "pkm/casefile.h"
#include "pkm/io.h"
#include "pkm/robot.h"

#include <stdlib.h>
#include <string.h>

#define EXAMPLES PKM_SOURCE_DIR "/examples/"

/* Case file at path, loaded (pkm_case_params_destroy). */
static void *load(const char *path, const pkm_case **c)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *params = NULL;
    assert_pkm_ok(pkm_case_file_load(path, c, &params, &ctx), &ctx);
    return params;
}

/* The lowest nev frequencies of case c at pose in formulation f. */
static void case_lowest(const pkm_case *c, const void *params, const double *pose,
                        pkm_formulation f, int nev, double *omega2)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(c->build(params, pose, &m, &ctx), &ctx);
    model_lowest(m, f, nev, omega2, NULL);
    pkm_model_destroy(&m);
}

/* 1. NaVARo described by its topology (examples/navaro.yaml, the built-in's geometry at home)
 * gives the built-in case's eigenvalues at the eight poses of Table 3 to 1e-10: the Newton
 * closure places every body where the closed-form kinematics of cases/navaro.c does. */
static void test_navaro_topology(void **state)
{
    (void)state;
    const pkm_case *c = NULL;
    void *params = load(EXAMPLES "navaro.yaml", &c);
    assert_int_equal(c->npose, 3);
    assert_string_equal(c->pose_names[2], "theta");
    assert_int_equal(c->formulation, PKM_FORM_TREE);
    const pkm_navaro_params nav = navaro_defaults();
    const pkm_case *builtin = pkm_case_find("navaro");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_table *t = NULL;
    assert_pkm_ok(pkm_table_read(PKM_SOURCE_DIR "/cases/navaro/table3_cast3m.csv", 3, &t, &ctx),
                  &ctx);
    assert_int_equal(t->nrows, 8);
    enum { NEV = 12 };
    double worst = 0.0;
    for (int r = 0; r < t->nrows; r++) {
        double a[NEV], b[NEV];
        case_lowest(c, params, t->pose + 3 * r, PKM_FORM_TREE, NEV, a);
        case_lowest(builtin, &nav, t->pose + 3 * r, PKM_FORM_TREE, NEV, b);
        for (int k = 0; k < NEV; k++)
            worst = fmax(worst, fabs(a[k] - b[k]) / b[k]);
    }
    print_message("navaro topology vs built-in, 8 Table 3 poses x %d eigenvalues: %.2e\n", NEV,
                  worst);
    assert_true(worst < 1e-10);
    pkm_table_destroy(&t);
    pkm_case_params_destroy(&params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_navaro_topology),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
