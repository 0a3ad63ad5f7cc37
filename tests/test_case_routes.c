/* tests/test_case_routes.c: the cases that have an engine of their own, run through the registry
 * like every other case: the general inverse dynamics of their rigid-body model
 * (pkm_dynamics_run: the closure followed, pkm_mbs_inverse) along their default trajectory
 * against their own engine on the same motion, a second formulation sharing neither the model
 * nor the solver: the module chains' O(n) passes (Paz Anaya and Mattila 2024) for boom1 and
 * crane4, the chewing robot's Lagrangian model with redundant drives (Cheng et al. 2024) for
 * masticatory (without and with its bite load, the case's load on the mandible at a point moving
 * with it). Drives agree to 1e-9 of the largest at every one of 201 times.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "reference/mastrun.h"

#include "reference/chainrun.h"
#include "pkm/dynrun.h"
#include "pkm/hiab.h"
#include "pkm/masticatory.h"
#include "pkm/spatial.h"

#include <string.h>

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
 * edit; the drives of a redundant actuation shaped by weights and preload (NULL: none). */
static void general(const char *name, void (*edit)(void *), const double *weights,
                    const double *preload, drives *out, pkm_trajectory **tr, double *t1)
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
    const pkm_dynamics_opts o = {
        .t0 = 0.0, .t1 = *t1, .n = NT, .weights = weights, .preload = preload};
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
        general(names[m], NULL, NULL, NULL, &gen, &tr, &t1);
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
        p->dynamics.load_force[k] = 0.0;
}

/* The 6-RSS twin (Cheng et al. 2024, sec. 7.3): no condyle contacts. */
static void twin(void *params)
{
    ((pkm_masticatory_params *)params)->higher_pairs = 0;
}

/* Without the bite load, then with it, then with it and weighted, then weighted and preloaded
 * (Cheng et al. 2024's redundant actuation), then its 6-RSS twin driven through the target's
 * pose (the case's drive): the general model's torques equal the chewing robot's own
 * (pkm_mast_run, the tests' reference). */
static void test_masticatory(void **state)
{
    (void)state;
    static const double w[6] = {1, 2, 3, 4, 5, 6}, pre[6] = {1, 0, 0, 0, 0, -1};
    static drives last;
    for (int shape = 0; shape < 5; shape++) {
        const int bite = shape > 0;
        const double *weights = shape == 2 || shape == 3 ? w : NULL;
        const double *preload = shape == 3 ? pre : NULL;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        static drives gen, own;
        pkm_trajectory *tr = NULL;
        double t1 = 1.0;
        general("masticatory",
                shape == 4 ? twin
                : bite     ? NULL
                           : no_bite,
                weights, preload, &gen, &tr, &t1);
        void *params = NULL;
        assert_pkm_ok(pkm_case_params_create(pkm_masticatory_case(), &params, &ctx), &ctx);
        if (!bite) no_bite(params);
        if (shape == 4) twin(params);
        own.n = gen.n;
        pkm_mast_run_opts o = {.t0 = 0.0, .t1 = t1, .n = NT};
        o.inv.weight = weights, o.inv.preload = preload;
        assert_pkm_ok(pkm_mast_run(params, &o, mast_row, &own, &ctx), &ctx);
        const double d = compare(&gen, &own);
        static const char *const what[5] = {"", " with the bite load", ", bite and weights",
                                            ", bite, weights and preload",
                                            ": its 6-RSS twin, bite"};
        print_message("masticatory%s: general model vs its Lagrangian model, torques %.2e of the "
                      "largest\n",
                      what[shape], d);
        assert_int_equal(gen.n, 6);
        assert_true(d <= 1e-9);
        /* Each change moves the torques far beyond that agreement (it is tested). */
        if (shape > 0) assert_true(compare(&last, &gen) > 1e-2);
        last = gen;
        pkm_case_params_destroy(&params);
        pkm_trajectory_destroy(&tr);
    }
}

/* The chewing robot's own per-time quantities on the general run (pkm_case.extra): at t = 0.13
 * its parasitic Z and gamma and MCI(a) of the target and of its 6-RSS twin equal the references
 * computed at 40 digits (Cheng et al. 2024's surrogate, eqs. 58-60); a case without them refuses
 * inertia. */
static int extra_row(void *user, const pkm_dynamics_row *row)
{
    double *out = user;
    assert_int_equal(row->nextra, 56);
    if (row->step == 0) memcpy(out, row->extra, 56 * sizeof(double));
    assert_true(row->residual < 1e-12);
    return 0;
}

static void test_masticatory_inertia(void **state)
{
    (void)state;
    static const double tg[6] = {0.707823049263, 0.756363813701, 0.800040175763,
                                 0.75096374421,  0.669730700733, 0.659511117659};
    static const double tw[6] = {0.690772040064, 0.746148313236, 0.726928576332,
                                 0.778679127729, 0.84419388165,  0.846389761897};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = pkm_case_find("masticatory");
    void *params = NULL;
    pkm_trajectory *tr = NULL;
    assert_pkm_ok(pkm_case_params_create(c, &params, &ctx), &ctx);
    assert_pkm_ok(pkm_case_trajectory(c, NULL, 0.0, &tr, &ctx), &ctx);
    const pkm_dynamics_opts o = {.t0 = 0.13, .t1 = 0.2, .n = 2, .inertia = 1};
    double x[56];
    assert_pkm_ok(pkm_dynamics_run(c, params, tr, &o, extra_row, x, &ctx), &ctx);
    assert_true(fabs(x[0] + 0.0104684765328444) <= 1e-14);
    assert_true(fabs(x[1] - 0.0613828317030968) <= 1e-14);
    for (int i = 0; i < 6; i++) {
        assert_true(fabs(x[2 + i] - tg[i]) <= 1e-11);
        assert_true(fabs(x[8 + i] - tw[i]) <= 1e-11);
        assert_true(x[20 + 7 * i] > 0.0); /* M_A's diagonal */
    }
    pkm_case_params_destroy(&params);
    pkm_trajectory_destroy(&tr);
    c = pkm_case_find("navaro");
    assert_pkm_ok(pkm_case_params_create(c, &params, &ctx), &ctx);
    assert_pkm_ok(pkm_case_trajectory(c, NULL, 0.0, &tr, &ctx), &ctx);
    assert_int_equal(pkm_dynamics_run(c, params, tr, &o, extra_row, x, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "navaro"));
    pkm_case_params_destroy(&params);
    pkm_trajectory_destroy(&tr);
}

/* A wrench on NaVARo's platform along its p2p motion: by virtual power the drives' extra power
 * balances the wrench's, sum (tau_W - tau_0) qa' + F . v_P + M . w = 0 at every time, with v_P
 * and w the rates of the pose (x', y', 0) and (0, 0, theta') from the trajectory itself (the
 * wrench acts at the platform's reference point P, the pose's point): a check that shares
 * nothing with the solver. */
typedef struct powered {
    pkm_motion *m;
    const pkm_trajectory *tr;
    const double *w; /* the wrench, or NULL */
    double *tau;     /* [NT][3] drives without the wrench; with it, the balance's residual */
    double worst, scale;
} powered;

static int power_row(void *user, const pkm_dynamics_row *row)
{
    powered *p = user;
    double pose[3], rate[3];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_eval(p->tr, row->t, pose, rate, NULL, &ctx), &ctx);
    const double v[3] = {rate[0], rate[1], 0.0}, omega[3] = {0.0, 0.0, rate[2]};
    double *tau = p->tau + 3 * row->step, power = 0.0, mag = 0.0;
    int k = 0;
    for (int j = 0; j < pkm_model_joint_count(row->model); j++) {
        if (!pkm_model_joint(row->model, j)->actuated) continue;
        if (p->w == NULL) {
            tau[k++] = row->joint[j].drive;
            continue;
        }
        const double dp = (row->joint[j].drive - tau[k++]) * row->joint[j].qd[0];
        power += dp;
        mag += fabs(dp);
    }
    if (p->w != NULL) {
        const double pw = pkm_vec3_dot(p->w, v) + pkm_vec3_dot(p->w + 3, omega);
        p->worst = fmax(p->worst, fabs(power + pw));
        p->scale = fmax(p->scale, mag);
    }
    return 0;
}

static void test_platform_wrench(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_trajectory *tr = NULL;
    static double tau[NT][3];
    assert_pkm_ok(pkm_case_open("navaro", NULL, 0, NULL, &c, &params, &ctx), &ctx);
    assert_pkm_ok(pkm_case_trajectory(c, NULL, 0.0, &tr, &ctx), &ctx);
    const double w[6] = {20.0, -10.0, 5.0, 0.3, -0.2, 1.5};
    pkm_dynamics_opts o = {.t0 = 0.0, .t1 = 1.5, .n = NT};
    powered p = {.tr = tr, .tau = &tau[0][0]};
    for (int pass = 0; pass < 2; pass++) {
        assert_pkm_ok(pkm_dynamics_motion_create(c, params, 0.0, &p.m, &ctx), &ctx);
        if (pass == 1) memcpy(o.wrench, w, sizeof(w)), p.w = w;
        assert_pkm_ok(pkm_dynamics_run_on(p.m, tr, &o, power_row, &p, &ctx), &ctx);
        pkm_motion_destroy(&p.m);
    }
    print_message("navaro p2p with a platform wrench: power balance %.2e W of %.3g W\n", p.worst,
                  p.scale);
    assert_true(p.scale > 1.0); /* the wrench does work */
    assert_true(p.worst <= 1e-9 * p.scale);
    /* The forward run refuses a wrench; a component beyond PKM_WRENCH_MAX is refused. */
    assert_pkm_ok(pkm_dynamics_motion_create(c, params, 0.0, &p.m, &ctx), &ctx);
    assert_int_equal(pkm_dynamics_forward_run_on(p.m, c, params, tr, &o, NULL, NULL, &ctx),
                     PKM_ERR_INVALID);
    o.wrench[0] = 1e308;
    assert_int_equal(pkm_dynamics_run_on(p.m, tr, &o, NULL, NULL, &ctx), PKM_ERR_INVALID);
    pkm_motion_destroy(&p.m);
    pkm_trajectory_destroy(&tr);
    pkm_case_params_destroy(&params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cranes), cmocka_unit_test(test_masticatory),
        cmocka_unit_test(test_masticatory_inertia), cmocka_unit_test(test_platform_wrench)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
