/* tests/test_case_routes.c: the cases that have an engine of their own, run through the registry
 * like every other case: the general inverse dynamics of their rigid-body model
 * (pkm_dynamics_run: the closure followed, pkm_mbs_inverse) along their default trajectory
 * against their own engine on the same motion, a second formulation sharing neither the model
 * nor the solver: the module chains' O(n) passes (Paz Anaya and Mattila 2024) for boom1 and
 * crane4, the chewing robot's Lagrangian model with redundant drives (Cheng et al. 2024) for
 * masticatory (its bite load set to zero: the general model carries none). Drives agree to 1e-9
 * of the largest at every one of 201 times.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "pkm/chainrun.h"
#include "pkm/dynrun.h"
#include "pkm/hiab.h"
#include "pkm/masticatory.h"
#include "pkm/mastrun.h"

#define NT 201

/* The drives of the actuated joints at every time, from either route. */
typedef struct drives {
    int n;           /* actuated joints */
    double d[NT][8]; /* per time, per actuated joint */
} drives;

static int general_row(void *user, const pkm_dynamics_row *row)
{
    drives *d = user;
    int k = 0;
    for (int j = 0; j < pkm_model_joint_count(row->model); j++)
        if (pkm_model_joint(row->model, j)->actuated) d->d[row->step][k++] = row->joint[j].drive;
    d->n = k;
    return 0;
}

static int chain_row(void *user, const pkm_chain_row *row)
{
    drives *d = user;
    for (int k = 0; k < d->n; k++)
        d->d[row->step][k] = row->drive[k];
    return 0;
}

static int mast_row(void *user, const pkm_mast_row *row)
{
    drives *d = user;
    for (int k = 0; k < d->n; k++)
        d->d[row->step][k] = row->forces->tau[k];
    return 0;
}

/* The largest difference of a and b relative to the largest drive of b. */
static double compare(const drives *a, const drives *b)
{
    assert_int_equal(a->n, b->n);
    double diff = 0.0, scale = 0.0;
    for (int s = 0; s < NT; s++)
        for (int k = 0; k < a->n; k++) {
            diff = fmax(diff, fabs(a->d[s][k] - b->d[s][k]));
            scale = fmax(scale, fabs(b->d[s][k]));
        }
    assert_true(scale > 0.0);
    return diff / scale;
}

/* The general run of case name along its default trajectory; params may be changed first by
 * edit. */
static void general(const char *name, void (*edit)(void *), drives *out, pkm_trajectory **tr,
                    double *t1)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = pkm_case_find(name);
    assert_non_null(c);
    void *params = NULL;
    assert_pkm_ok(pkm_case_params_create(c, &params, &ctx), &ctx);
    if (edit != NULL) edit(params);
    *t1 = c->traj[0].duration;
    assert_pkm_ok(pkm_case_trajectory(c, NULL, 0.0, tr, &ctx), &ctx);
    const pkm_dynamics_opts o = {.t0 = 0.0, .t1 = *t1, .n = NT};
    assert_pkm_ok(pkm_dynamics_run(c, params, *tr, &o, general_row, out, &ctx), &ctx);
    pkm_case_params_destroy(&params);
}

static void test_cranes(void **state)
{
    (void)state;
    static const char *const names[2] = {"boom1", "crane4"};
    for (int m = 0; m < 2; m++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        static drives gen, own;
        pkm_trajectory *tr = NULL;
        double t1 = 0.0;
        general(names[m], NULL, &gen, &tr, &t1);
        pkm_chain *ch = NULL;
        assert_pkm_ok(pkm_hiab_chain(names[m], &ch, &ctx), &ctx);
        own.n = gen.n;
        const pkm_chain_run_opts o = {.t0 = 0.0, .t1 = t1, .n = NT};
        assert_pkm_ok(pkm_chain_run(ch, tr, &o, chain_row, &own, &ctx), &ctx);
        const double d = compare(&gen, &own);
        print_message("%s: general model vs module chain, drives %.2e of the largest\n", names[m],
                      d);
        assert_true(d <= 1e-9);
        pkm_chain_destroy(&ch);
        pkm_trajectory_destroy(&tr);
    }
}

static void no_bite(void *params)
{
    pkm_masticatory_params *p = params;
    for (int k = 0; k < 3; k++)
        p->bite_force[k] = 0.0;
}

static void test_masticatory(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    static drives gen, own;
    pkm_trajectory *tr = NULL;
    double t1 = 0.0;
    general("masticatory", no_bite, &gen, &tr, &t1);
    void *params = NULL;
    assert_pkm_ok(pkm_case_params_create(pkm_masticatory_case(), &params, &ctx), &ctx);
    no_bite(params);
    own.n = gen.n;
    pkm_mast_run_opts o = {.t0 = 0.0, .t1 = t1, .n = NT};
    assert_pkm_ok(pkm_mast_run(params, &o, mast_row, &own, &ctx), &ctx);
    const double d = compare(&gen, &own);
    print_message("masticatory: general model vs its Lagrangian model, torques %.2e of the "
                  "largest\n",
                  d);
    assert_int_equal(gen.n, 6);
    assert_true(d <= 1e-9);
    pkm_case_params_destroy(&params);
    pkm_trajectory_destroy(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cranes),
                                       cmocka_unit_test(test_masticatory)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
