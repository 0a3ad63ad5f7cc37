/* tests/test_case_battery.c: one battery over every built-in case (pkm_case_list), so that a new
 * robot is checked like the others: its embedded case file loads, its home pose is reachable,
 * its lowest frequencies are finite, positive, ascending and accurate, the sparse solve equals
 * the dense one (a complete spectrum, found by two independent eigensolvers), every formulation
 * that assembles it agrees, and the frequencies move continuously with the pose; a case that
 * declares a symmetry of its poses has the same frequencies at a pose and at its image.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "pkm/analysis.h"

#include <stdlib.h>

#define BATTERY_NEV 10

/* The lowest BATTERY_NEV frequencies of c at pose by (form, eig) into f; the status. */
static pkm_status case_freqs(const pkm_case *c, const void *params, const double *pose,
                             pkm_formulation form, pkm_eigensolver eig, double *f, pkm_ctx *ctx)
{
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = BATTERY_NEV;
    pkm_model *m = NULL;
    pkm_analysis *a = NULL;
    const pkm_modes *md = NULL;
    pkm_status rc = c->build(params, pose, &m, ctx);
    if (rc == PKM_OK) rc = pkm_analysis_create(form, eig, &o, &a, ctx);
    if (rc == PKM_OK) rc = pkm_analysis_solve(a, m, &md, NULL, ctx);
    if (rc == PKM_OK) {
        for (int k = 0; k < BATTERY_NEV; k++) {
            f[k] = md->freq_hz[k];
            /* Accurate to the sixth digit at the default mesh, and a true eigenpair. */
            assert_true(md->accuracy[k] <= 1e-6);
            assert_true(md->backward_error[k] <= 1e-10);
        }
    }
    pkm_analysis_destroy(&a);
    pkm_model_destroy(&m);
    return rc;
}

static void check_case(const pkm_case *c)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *params = NULL;
    assert_pkm_ok(pkm_case_params_create(c, &params, &ctx), &ctx);
    assert_non_null(c->home);
    assert_in_range(c->npose, 1, PKM_POSE_MAX);
    double ref[BATTERY_NEV], f[BATTERY_NEV];
    /* The case's own formulation with ARPACK: finite, positive, ascending. */
    assert_pkm_ok(case_freqs(c, params, c->home, c->formulation, PKM_EIG_ARPACK, ref, &ctx), &ctx);
    for (int k = 0; k < BATTERY_NEV; k++) {
        assert_true(isfinite(ref[k]) && ref[k] > 0.0);
        if (k > 0) assert_true(ref[k] >= ref[k - 1]);
    }
    /* The dense solver on the same pencil: the same spectrum, none missing. */
    assert_pkm_ok(case_freqs(c, params, c->home, c->formulation, PKM_EIG_DENSE, f, &ctx), &ctx);
    for (int k = 0; k < BATTERY_NEV; k++)
        assert_close(f[k], ref[k], 1e-8, 0.0);
    /* Every other formulation models the same structure; one that cannot assemble the case says
     * so with PKM_ERR_MODEL (the tree does not close the 5-PSS/UPU's loop of rigid bodies). */
    int agreeing = 0;
    for (int t = 0; t < PKM_FORMULATION_COUNT; t++) {
        if (pkm_formulation_types[t].id == c->formulation) continue;
        pkm_ctx_clear(&ctx);
        const pkm_status st =
            case_freqs(c, params, c->home, pkm_formulation_types[t].id, PKM_EIG_ARPACK, f, &ctx);
        if (st == PKM_ERR_MODEL) continue;
        assert_pkm_ok(st, &ctx);
        for (int k = 0; k < BATTERY_NEV; k++)
            assert_close(f[k], ref[k], 1e-8, 0.0);
        agreeing++;
    }
    /* Continuity: a step of 1e-4 (m or rad) in each pose coordinate moves no frequency by more
     * than 2 % (the lowest NaVARo and 5-PSS/UPU modes change by well under 1 % per millimetre). */
    double *pose = malloc(sizeof(double) * (size_t)c->npose);
    assert_non_null(pose);
    for (int i = 0; i < c->npose; i++) {
        memcpy(pose, c->home, sizeof(double) * (size_t)c->npose);
        pose[i] += 1e-4;
        pkm_ctx_clear(&ctx);
        assert_pkm_ok(case_freqs(c, params, pose, c->formulation, PKM_EIG_ARPACK, f, &ctx), &ctx);
        for (int k = 0; k < BATTERY_NEV; k++)
            assert_close(f[k], ref[k], 2e-2, 0.0);
    }
    print_message("%s: f1 %.4f Hz, f%d %.4f Hz at home; %d other formulation(s) agree\n", c->name,
                  ref[0], BATTERY_NEV, ref[BATTERY_NEV - 1], agreeing);
    free(pose);
    pkm_case_params_destroy(&params);
}

static void test_every_case(void **state)
{
    (void)state;
    int n = 0;
    for (const pkm_case *const *c = pkm_case_list(); *c != NULL; c++, n++)
        check_case(*c);
    assert_true(n >= 2);
}

/* A case's symmetry (pkm_case.symmetry): at a pose off home in every coordinate (1 to 2 cm or
 * 10 to 20 mrad), which the symmetry moves, and at its image, the same lowest frequencies to
 * 1e-9 (measured: 4.5e-12 NaVARo, 5.8e-15 5-PSS/UPU), where the pose's own step from home
 * moves them by far more. */
static void check_symmetry(const pkm_case *c)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *params = NULL;
    assert_pkm_ok(pkm_case_params_create(c, &params, &ctx), &ctx);
    double pose[PKM_POSE_MAX], image[PKM_POSE_MAX], f[BATTERY_NEV], g[BATTERY_NEV], h[BATTERY_NEV];
    double moved = 0.0, changed = 0.0, worst = 0.0;
    for (int i = 0; i < c->npose; i++)
        pose[i] = c->home[i] + 0.01 * (1.0 + 0.3 * i);
    c->symmetry(pose, image);
    for (int i = 0; i < c->npose; i++)
        moved = fmax(moved, fabs(image[i] - pose[i]));
    assert_true(moved > 1e-3); /* a pose the symmetry leaves in place would prove nothing */
    assert_pkm_ok(case_freqs(c, params, c->home, c->formulation, PKM_EIG_ARPACK, h, &ctx), &ctx);
    assert_pkm_ok(case_freqs(c, params, pose, c->formulation, PKM_EIG_ARPACK, f, &ctx), &ctx);
    assert_pkm_ok(case_freqs(c, params, image, c->formulation, PKM_EIG_ARPACK, g, &ctx), &ctx);
    for (int k = 0; k < BATTERY_NEV; k++) {
        assert_close(g[k], f[k], 1e-9, 0.0);
        worst = fmax(worst, fabs(g[k] - f[k]) / f[k]);
        changed = fmax(changed, fabs(f[k] - h[k]) / h[k]);
    }
    assert_true(changed > 1e-6);
    print_message("%s: pose and its symmetric image agree to %.1e (the pose moved them by %.1e "
                  "from home)\n",
                  c->name, worst, changed);
    pkm_case_params_destroy(&params);
}

static void test_every_symmetry(void **state)
{
    (void)state;
    int n = 0;
    for (const pkm_case *const *c = pkm_case_list(); *c != NULL; c++)
        if ((*c)->symmetry != NULL) {
            check_symmetry(*c);
            n++;
        }
    assert_true(n >= 2); /* navaro and pss5upu declare theirs */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_case),
                                       cmocka_unit_test(test_every_symmetry)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
