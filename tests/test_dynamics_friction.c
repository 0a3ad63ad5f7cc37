/* tests/test_dynamics_friction.c: the friction laws of include/pkm/friction.h against the values
 * derived by hand from Guo et al. 2024, eqs. 42, 47 and 52 with the data of its Tables 2 and 3.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "pkm/friction.h"

/* Unit arms and the coefficients kc, ks, vs, with kv = 0.01 and delta = 2. */
static pkm_friction law(pkm_friction_model model, double kc, double ks, double vs)
{
    return (pkm_friction){.model = model,
                          .kc = kc,
                          .kv = 0.01,
                          .ks = ks,
                          .vs = vs,
                          .delta = 2.0,
                          .rp = 1.0,
                          .rn = 1.0,
                          .rb = 1.0};
}

/* Table 2 (five-axis tree) and Table 3 (three-loop chain) of Guo et al. 2024. */
static pkm_friction table2(pkm_friction_model model)
{
    return law(model, 0.005, 0.05, 0.03);
}
static pkm_friction table3(pkm_friction_model model)
{
    return law(model, 0.05, 0.2, 0.1);
}

static void test_odd_and_limits(void **state)
{
    (void)state;
    const pkm_friction s = table2(PKM_FRICTION_STRIBECK), c = table2(PKM_FRICTION_COULOMB_VISCOUS);
    for (double v = 1e-6; v < 1.0; v *= 1.7) {
        assert_true(pkm_friction_force(&s, -v, 3.0) == -pkm_friction_force(&s, v, 3.0));
        assert_true(pkm_friction_force(&c, -v, 3.0) == -pkm_friction_force(&c, v, 3.0));
        assert_true(pkm_friction_force(&s, v, 3.0) > 0.0);
    }
    /* sgn(0) = 0; at 0+ the Stribeck law tends to ks N, the Coulomb-viscous one to kc N. */
    assert_true(pkm_friction_force(&s, 0.0, 3.0) == 0.0);
    assert_close(pkm_friction_force(&s, 1e-12, 3.0), 0.05 * 3.0, 1e-12, 0.0);
    assert_close(pkm_friction_force(&c, 1e-12, 3.0), 0.005 * 3.0, 1e-12, 0.0);
    /* Far above vs the Stribeck law is the Coulomb-viscous one. */
    assert_close(pkm_friction_force(&s, 1.0, 3.0), pkm_friction_force(&c, 1.0, 3.0), 1e-15, 0.0);
}

/* At v = vs the Coulomb level is (kc + (ks - kc) / e) N: 0.021554575 and 0.105181916 per unit
 * normal load for the two tables. */
static void test_value_at_vs(void **state)
{
    (void)state;
    const pkm_friction a = table2(PKM_FRICTION_STRIBECK), b = table3(PKM_FRICTION_STRIBECK);
    const double N = 7.5;
    assert_close((pkm_friction_force(&a, a.vs, N) - a.kv * a.vs) / N, 0.021554575, 2e-8, 0.0);
    assert_close((pkm_friction_force(&b, b.vs, N) - b.kv * b.vs) / N, 0.105181916, 2e-9, 0.0);
}

/* The minimum of the curve (N = 1) by golden section, and the sign of the slope on either side of
 * the negative-slope band: Table 2 from 1.0e-4 to 0.07737 rad/s (minimum 0.0058319), Table 3 from
 * 3.33e-4 to 0.2579 rad/s (minimum 0.0527729). */
static double curve_minimum(const pkm_friction *f, double lo, double hi, double *fmin_out)
{
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    for (int it = 0; it < 200 && hi - lo > 1e-12; it++) {
        const double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
        if (pkm_friction_force(f, x1, 1.0) < pkm_friction_force(f, x2, 1.0))
            hi = x2;
        else
            lo = x1;
    }
    *fmin_out = pkm_friction_force(f, 0.5 * (lo + hi), 1.0);
    return 0.5 * (lo + hi);
}

static double slope(const pkm_friction *f, double v)
{
    const double h = 1e-4 * v;
    return (pkm_friction_force(f, v + h, 1.0) - pkm_friction_force(f, v - h, 1.0)) / (2.0 * h);
}

static void test_stribeck_minimum_and_slope(void **state)
{
    (void)state;
    const pkm_friction a = table2(PKM_FRICTION_STRIBECK), b = table3(PKM_FRICTION_STRIBECK);
    double fa, fb;
    assert_close(curve_minimum(&a, 0.01, 0.5, &fa), 0.07737, 1e-4, 0.0);
    assert_close(fa, 0.0058319, 1e-5, 0.0);
    assert_close(curve_minimum(&b, 0.01, 1.0, &fb), 0.2579, 2e-4, 0.0);
    assert_close(fb, 0.0527729, 1e-5, 0.0);
    /* Slope positive below the lower root (viscous term), negative inside, positive above. */
    assert_true(slope(&a, 0.5e-4) > 0.0 && slope(&a, 2e-4) < 0.0);
    assert_true(slope(&a, 0.0765) < 0.0 && slope(&a, 0.0785) > 0.0);
    assert_true(slope(&b, 1.6e-4) > 0.0 && slope(&b, 6.6e-4) < 0.0);
    assert_true(slope(&b, 0.255) < 0.0 && slope(&b, 0.261) > 0.0);
    /* The derivative of eq. 52 in closed form, kv - 2 v (ks - kc) N exp(-(v/vs)^2) / vs^2. */
    for (double v = 1e-3; v < 0.3; v += 0.01) {
        const double d =
            a.kv - 2.0 * v * (a.ks - a.kc) * exp(-(v / a.vs) * (v / a.vs)) / (a.vs * a.vs);
        assert_close(slope(&a, v), d, 1e-6, 1e-9);
    }
}

/* ks = kc: the Stribeck law is the Coulomb-viscous one bit for bit; no coefficients: no force. */
static void test_reductions(void **state)
{
    (void)state;
    pkm_friction s = table3(PKM_FRICTION_STRIBECK);
    s.ks = s.kc;
    const pkm_friction c = table3(PKM_FRICTION_COULOMB_VISCOUS);
    for (double v = -0.5; v <= 0.5; v += 0.0123) {
        assert_true(pkm_friction_force(&s, v, 4.2) == pkm_friction_force(&c, v, 4.2));
        assert_true(pkm_friction_force_smooth(&s, v, 4.2, 1e-2) ==
                    pkm_friction_force_smooth(&c, v, 4.2, 1e-2));
    }
    pkm_friction zero = table2(PKM_FRICTION_STRIBECK);
    zero.kc = zero.ks = zero.kv = 0.0;
    const pkm_friction none = {.model = PKM_FRICTION_NONE, .kc = 1.0, .kv = 1.0};
    for (double v = -0.5; v <= 0.5; v += 0.0123) {
        assert_true(pkm_friction_force(&zero, v, 100.0) == 0.0);
        assert_true(pkm_friction_force(&none, v, 100.0) == 0.0);
        assert_true(pkm_friction_force(NULL, v, 100.0) == 0.0);
    }
    assert_true(pkm_friction_normal(&none, PKM_JOINT_REVOLUTE, 1.0, 2.0, 3.0) == 0.0);
}

/* The ramp: linear through 0 inside |v| < eps, the exact law outside. */
static void test_smooth(void **state)
{
    (void)state;
    const pkm_friction s = table2(PKM_FRICTION_STRIBECK);
    const double eps = 1e-3, N = 2.0;
    for (double v = eps; v < 1.0; v *= 1.3) {
        assert_true(pkm_friction_force_smooth(&s, v, N, eps) == pkm_friction_force(&s, v, N));
        assert_true(pkm_friction_force_smooth(&s, -v, N, eps) == pkm_friction_force(&s, -v, N));
    }
    assert_true(pkm_friction_force_smooth(&s, 0.0, N, eps) == 0.0);
    const double v = 0.25 * eps;
    const double level = (s.kc + (s.ks - s.kc) * exp(-(v / s.vs) * (v / s.vs))) * N;
    assert_close(pkm_friction_force_smooth(&s, v, N, eps), 0.25 * level + s.kv * v, 1e-15, 0.0);
    assert_true(pkm_friction_force_smooth(&s, v, N, 0.0) == pkm_friction_force(&s, v, N));
}

/* Eq. 47: the notes' hand values for tree5 at t = 0 (joint 1: f_radial 2.043916, m_bending
 * 27.439889, f_axial 107.8, unit arms: 137.283805) and two sets of unequal arms. */
static void test_normal_load(void **state)
{
    (void)state;
    pkm_friction f = table2(PKM_FRICTION_COULOMB_VISCOUS);
    assert_close(pkm_friction_normal(&f, PKM_JOINT_REVOLUTE, 107.8, 2.043916, 27.439889),
                 137.283805, 1e-15, 0.0);
    f.rp = 0.01, f.rb = 0.05, f.rn = 0.02, f.preload = 0.5;
    /* 0.01 (100 + 2 / 0.05) + 0.02 * 50 + 0.5 = 1.4 + 1 + 0.5 */
    assert_close(pkm_friction_normal(&f, PKM_JOINT_REVOLUTE, 50.0, 100.0, 2.0), 2.9, 1e-15, 0.0);
    assert_close(pkm_friction_normal(&f, PKM_JOINT_HELICAL, 50.0, 100.0, 2.0), 2.9, 1e-15, 0.0);
    f.rb = 0.5, f.rn = 0.25, f.preload = 1.0;
    /* prismatic: 3 + 2 / 0.5 + 1 / 0.25 + 1 (the twisting moment in the f_axial slot) */
    assert_close(pkm_friction_normal(&f, PKM_JOINT_PRISMATIC, 1.0, 3.0, 2.0), 12.0, 1e-15, 0.0);
    assert_true(pkm_friction_normal(&f, PKM_JOINT_SPHERICAL, 1.0, 3.0, 2.0) == 0.0);
    f.normal = 9.0; /* a constant normal load replaces the reactions and the preload */
    assert_true(pkm_friction_normal(&f, PKM_JOINT_PRISMATIC, 1.0, 3.0, 2.0) == 9.0);
    assert_true(pkm_friction_normal(&f, PKM_JOINT_REVOLUTE, 1.0, 3.0, 2.0) == 9.0);
}

/* The notes' friction table for tree5 (t = 0.05 s, joint 1, qd = 0.01, unit arms, normal load
 * 137.28986): C-V 0.686549, Stribeck 6.214906 N m. */
static void test_tree5_row(void **state)
{
    (void)state;
    const pkm_friction c = table2(PKM_FRICTION_COULOMB_VISCOUS), s = table2(PKM_FRICTION_STRIBECK);
    assert_close(pkm_friction_force(&c, 0.01, 137.28986), 0.686549, 1e-6, 0.0);
    assert_close(pkm_friction_force(&s, 0.01, 137.28986), 6.214906, 1e-6, 0.0);
    assert_close(pkm_friction_force(&s, 0.03, 137.33863), 2.960576, 1e-6, 0.0);
}

static void expect_refused(const pkm_friction *f, const char *field)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_friction_check(f, "2'", &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "joint 2'"));
    if (!strstr(ctx.msg, field)) {
        print_error("message \"%s\" does not name %s\n", ctx.msg, field);
        fail();
    }
}

static void test_bad_data(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_friction good = table3(PKM_FRICTION_STRIBECK);
    assert_pkm_ok(pkm_friction_check(&good, "1''", &ctx), &ctx);
    const pkm_friction zero = {0}; /* model NONE, all zero: no friction, accepted */
    assert_pkm_ok(pkm_friction_check(&zero, "1", &ctx), &ctx);
    assert_pkm_ok(pkm_friction_check(NULL, "1", &ctx), &ctx);
    pkm_friction f = good;
    f.kc = -0.1;
    expect_refused(&f, "kc");
    f = good, f.kv = NAN;
    expect_refused(&f, "kv");
    f = good, f.preload = INFINITY;
    expect_refused(&f, "preload");
    f = good, f.ks = 0.01;
    expect_refused(&f, "ks");
    f = good, f.vs = 0.0;
    expect_refused(&f, "vs");
    f = good, f.delta = 0.0;
    expect_refused(&f, "delta");
    f = good, f.rb = 0.0;
    expect_refused(&f, "rb");
    f.normal = 5.0; /* a constant normal load needs no arms */
    assert_pkm_ok(pkm_friction_check(&f, "1", &ctx), &ctx);
    /* vs, delta matter to Stribeck only */
    f = table3(PKM_FRICTION_COULOMB_VISCOUS), f.vs = 0.0, f.delta = 0.0;
    assert_pkm_ok(pkm_friction_check(&f, "1", &ctx), &ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_odd_and_limits),
        cmocka_unit_test(test_value_at_vs),
        cmocka_unit_test(test_stribeck_minimum_and_slope),
        cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_smooth),
        cmocka_unit_test(test_normal_load),
        cmocka_unit_test(test_tree5_row),
        cmocka_unit_test(test_bad_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
