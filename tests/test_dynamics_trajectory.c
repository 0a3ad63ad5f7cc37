/* tests/test_dynamics_trajectory.c: the trajectories of include/pkm/trajectory.h: the spline
 * reproduces cubics exactly and converges at O(h^4) on a sine; the analytic laws against their
 * derivatives by central differences, the rest-to-rest end conditions, Li et al. 2020, eq. 40.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/trajectory.h"

/* Two cubics with their derivatives. */
static void cubics(double t, double q[2], double qd[2], double qdd[2])
{
    q[0] = 1.5 - 2.0 * t + 0.7 * t * t - 0.3 * t * t * t;
    qd[0] = -2.0 + 1.4 * t - 0.9 * t * t;
    qdd[0] = 1.4 - 1.8 * t;
    q[1] = -0.2 + 4.0 * t * t * t;
    qd[1] = 12.0 * t * t;
    qdd[1] = 24.0 * t;
}

static void test_spline_cubic_exact(void **state)
{
    (void)state;
    /* uneven times, 4 (the minimum: one cubic) and 9 samples */
    const double times[9] = {-0.3, -0.1, 0.05, 0.4, 0.45, 0.9, 1.3, 1.35, 2.0};
    const int counts[2] = {4, 9};
    for (int c = 0; c < 2; c++) {
        const int m = counts[c];
        double q[18], unused[2], unused2[2];
        for (int i = 0; i < m; i++)
            cubics(times[i], &q[2 * i], unused, unused2);
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        pkm_trajectory *tr = NULL;
        assert_pkm_ok(pkm_trajectory_create_spline(2, m, times, q, &tr, &ctx), &ctx);
        assert_int_equal(pkm_trajectory_ncoord(tr), 2);
        double t0, t1;
        pkm_trajectory_span(tr, &t0, &t1);
        assert_true(t0 == times[0] && t1 == times[m - 1]);
        for (int k = 0; k <= 200; k++) {
            const double t = t0 + (t1 - t0) * k / 200.0;
            double a[2], ad[2], add[2], b[2], bd[2], bdd[2];
            cubics(t, a, ad, add);
            assert_pkm_ok(pkm_trajectory_eval(tr, t, b, bd, bdd, &ctx), &ctx);
            for (int j = 0; j < 2; j++) {
                assert_close(b[j], a[j], 0.0, 1e-12);
                assert_close(bd[j], ad[j], 0.0, 1e-12);
                assert_close(bdd[j], add[j], 0.0, 1e-12);
            }
        }
        pkm_trajectory_destroy(&tr);
        assert_null(tr);
    }
}

/* sin t on [0, 2] with m equal steps: the position error at the interval midpoints falls as h^4,
 * the velocity error as h^3 and the acceleration error as h^2. */
static void sine_errors(int m, double err[3])
{
    double t[161], q[161];
    for (int i = 0; i < m; i++)
        t[i] = 2.0 * i / (m - 1), q[i] = sin(t[i]);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    assert_pkm_ok(pkm_trajectory_create_spline(1, m, t, q, &tr, &ctx), &ctx);
    err[0] = err[1] = err[2] = 0.0;
    for (int i = 0; i + 1 < m; i++) {
        const double tm = 0.5 * (t[i] + t[i + 1]);
        double v, vd, vdd;
        assert_pkm_ok(pkm_trajectory_eval(tr, tm, &v, &vd, &vdd, &ctx), &ctx);
        err[0] = fmax(err[0], fabs(v - sin(tm)));
        err[1] = fmax(err[1], fabs(vd - cos(tm)));
        err[2] = fmax(err[2], fabs(vdd + sin(tm)));
    }
    pkm_trajectory_destroy(&tr);
}

static void test_spline_sine_order(void **state)
{
    (void)state;
    double coarse[3], fine[3];
    sine_errors(41, coarse);
    sine_errors(161, fine); /* h / 4 */
    const double expected[3] = {4.0, 3.0, 2.0};
    for (int k = 0; k < 3; k++) {
        const double order = log(coarse[k] / fine[k]) / log(4.0);
        print_message("sine, derivative %d: error %.3e -> %.3e, order %.2f\n", k, coarse[k],
                      fine[k], order);
        assert_true(fabs(order - expected[k]) < 0.25);
    }
    assert_true(fine[0] < 1e-9);
}

static void test_spline_refused(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    const double t[5] = {0.0, 0.1, 0.2, 0.2, 0.4}, q[5] = {0, 1, 2, 3, 4};
    assert_int_equal(pkm_trajectory_create_spline(1, 3, t, q, &tr, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "3 samples"));
    assert_null(tr);
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_trajectory_create_spline(1, 5, t, q, &tr, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "sample 4"));
    assert_null(tr);
    pkm_ctx_clear(&ctx);
    const double even[4] = {0.0, 1.0, 2.0, 3.0}, big[4] = {1.7e308, -1.7e308, 1.7e308, 0.0};
    assert_int_equal(pkm_trajectory_create_spline(1, 4, even, big, &tr, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "overflows"));
    assert_null(tr);
    pkm_ctx_clear(&ctx);
    /* inside the span: fine, up to the ends; outside: refused naming t and the span */
    assert_pkm_ok(pkm_trajectory_create_spline(1, 4, (const double[]){0, 1, 2, 3}, q, &tr, &ctx),
                  &ctx);
    double v;
    assert_pkm_ok(pkm_trajectory_eval(tr, 3.0, &v, NULL, NULL, &ctx), &ctx);
    assert_close(v, 3.0, 0.0, 1e-14);
    assert_pkm_ok(pkm_trajectory_eval(tr, 3.0 + 1e-13, &v, NULL, NULL, &ctx), &ctx);
    assert_int_equal(pkm_trajectory_eval(tr, 3.5, &v, NULL, NULL, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "3.5 s outside the span [0, 3]"));
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_trajectory_eval(tr, NAN, &v, NULL, NULL, &ctx), PKM_ERR_INVALID);
    pkm_trajectory_destroy(&tr);
    pkm_trajectory_destroy(&tr); /* NULL-safe */
    pkm_trajectory_destroy(NULL);
}

/* Velocity and acceleration against central differences of the trajectory itself. */
static void check_derivatives(const pkm_trajectory *tr, double t)
{
    enum { NMAX = 8 };
    const int n = pkm_trajectory_ncoord(tr);
    const double h = 1e-5;
    double q[NMAX], qd[NMAX], qdd[NMAX], qp[NMAX], qm[NMAX], qdp[NMAX], qdm[NMAX];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_eval(tr, t, q, qd, qdd, &ctx), &ctx);
    assert_pkm_ok(pkm_trajectory_eval(tr, t + h, qp, qdp, NULL, &ctx), &ctx);
    assert_pkm_ok(pkm_trajectory_eval(tr, t - h, qm, qdm, NULL, &ctx), &ctx);
    for (int j = 0; j < n; j++) {
        assert_close(qd[j], (qp[j] - qm[j]) / (2.0 * h), 1e-7, 1e-9);
        assert_close(qdd[j], (qdp[j] - qdm[j]) / (2.0 * h), 1e-7, 1e-9);
    }
}

static void test_analytic_laws(void **state)
{
    (void)state;
    const pkm_traj_coord coord[4] = {
        {PKM_TRAJ_POLY2, {0.0, 0.0, 0.2, 0.0}},   /* tree5's joints: 0.2 rad/s^2 from rest */
        {PKM_TRAJ_POLY2, {0.0, 0.1, 0.0, 0.0}},   /* loop3's crank: 0.1 rad/s from 0 */
        {PKM_TRAJ_SINE, {0.3, 0.05, 1.5, 0.4}},   /* a sine with an offset and a phase */
        {PKM_TRAJ_QUINTIC, {-0.1, 0.2, 1.5, 0.0}} /* rest to rest in 1.5 s */
    };
    const pkm_traj_desc d = {"mixed", "one law of each kind", 2.0, coord};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    assert_pkm_ok(pkm_trajectory_create_analytic(&d, 4, &tr, &ctx), &ctx);
    double t0, t1;
    pkm_trajectory_span(tr, &t0, &t1);
    assert_true(t0 == 0.0 && t1 == 2.0);
    for (double t = 0.013; t < 2.0; t += 0.1)
        check_derivatives(tr, t);
    double q[4], qd[4], qdd[4];
    assert_pkm_ok(pkm_trajectory_eval(tr, 1.0, q, qd, qdd, &ctx), &ctx);
    assert_close(q[0], 0.1, 1e-15, 0.0); /* 0.1 t^2 */
    assert_close(qd[0], 0.2, 1e-15, 0.0);
    assert_close(q[1], 0.1, 1e-15, 0.0);
    assert_close(q[2], 0.3 + 0.05 * sin(3.0 * PKM_PI + 0.4), 1e-15, 0.0);
    /* the quintic: q0, at rest at 0; halfway at T/2; q1, at rest, at T and held after */
    assert_pkm_ok(pkm_trajectory_eval(tr, 0.0, q, qd, qdd, &ctx), &ctx);
    assert_true(q[3] == -0.1 && qd[3] == 0.0 && qdd[3] == 0.0);
    assert_pkm_ok(pkm_trajectory_eval(tr, 0.75, q, qd, qdd, &ctx), &ctx);
    assert_close(q[3], 0.05, 1e-15, 0.0);
    assert_close(qd[3], 0.3 / 1.5 * 1.875, 1e-15, 0.0); /* peak speed 15/8 of the mean */
    assert_close(qdd[3], 0.0, 0.0, 1e-15);
    for (double t = 1.5; t < 3.0; t += 0.5) {
        assert_pkm_ok(pkm_trajectory_eval(tr, t, q, qd, qdd, &ctx), &ctx);
        assert_close(q[3], 0.2, 1e-15, 0.0);
        assert_close(qd[3], 0.0, 0.0, 1e-15);
        assert_close(qdd[3], 0.0, 0.0, 1e-14);
    }
    pkm_trajectory_destroy(&tr);
}

/* Li et al. 2020, eq. 40: x = y = 10 sin(0.4 pi t) mm, z = 0, alpha = beta = 7.5 sin(0.4 pi t)
 * degrees: sines of 0.2 Hz. Their peak accelerations, A (2 pi f)^2, are 0.0158 m/s^2 and
 * 0.207 rad/s^2. */
static void test_li2020_eq40(void **state)
{
    (void)state;
    const double A = 0.010, B = 7.5 * PKM_PI / 180.0, f = 0.2;
    const pkm_traj_coord coord[5] = {{PKM_TRAJ_SINE, {0.0, A, f, 0.0}},
                                     {PKM_TRAJ_SINE, {0.0, A, f, 0.0}},
                                     {PKM_TRAJ_POLY2, {0.0, 0.0, 0.0, 0.0}},
                                     {PKM_TRAJ_SINE, {0.0, B, f, 0.0}},
                                     {PKM_TRAJ_SINE, {0.0, B, f, 0.0}}};
    const pkm_traj_desc d = {"eq40", "Li et al. 2020, eq. 40", 10.0, coord};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    assert_pkm_ok(pkm_trajectory_create_analytic(&d, 5, &tr, &ctx), &ctx);
    double q[5], qd[5], qdd[5];
    /* a quarter period (1.25 s): the peak displacement and acceleration */
    assert_pkm_ok(pkm_trajectory_eval(tr, 1.25, q, qd, qdd, &ctx), &ctx);
    assert_close(q[0], 0.010, 1e-15, 0.0);
    assert_close(q[3], 7.5 * PKM_PI / 180.0, 1e-15, 0.0);
    assert_close(qdd[0], -0.0158, 2e-3, 0.0);
    assert_close(qdd[4], -0.207, 2e-3, 0.0);
    assert_close(qd[1], 0.0, 0.0, 1e-17);
    /* and the sine of 0.4 pi t itself at an arbitrary time */
    assert_pkm_ok(pkm_trajectory_eval(tr, 0.37, q, NULL, NULL, &ctx), &ctx);
    assert_close(q[1], 10e-3 * sin(0.4 * PKM_PI * 0.37), 1e-15, 0.0);
    pkm_trajectory_destroy(&tr);
}

static void expect_analytic_refused(const pkm_traj_desc *d, int n, const char *what)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = (pkm_trajectory *)&ctx; /* must be reset to NULL */
    assert_int_equal(pkm_trajectory_create_analytic(d, n, &tr, &ctx), PKM_ERR_INVALID);
    assert_null(tr);
    if (!strstr(ctx.msg, what)) {
        print_error("message \"%s\" does not contain \"%s\"\n", ctx.msg, what);
        fail();
    }
}

static void test_analytic_refused(void **state)
{
    (void)state;
    pkm_traj_coord c[1] = {{PKM_TRAJ_QUINTIC, {0.0, 1.0, 0.0, 0.0}}};
    pkm_traj_desc d = {"move", NULL, 1.0, c};
    expect_analytic_refused(&d, 1, "trajectory move: coordinate 1: quintic duration T = 0");
    c[0] = (pkm_traj_coord){PKM_TRAJ_SINE, {0.0, NAN, 1.0, 0.0}};
    expect_analytic_refused(&d, 1, "c[1] = nan");
    c[0] = (pkm_traj_coord){(pkm_traj_kind)7, {0.0}};
    expect_analytic_refused(&d, 1, "unknown kind 7");
    c[0] = (pkm_traj_coord){PKM_TRAJ_POLY2, {0.0}};
    expect_analytic_refused(&d, 0, "no coordinates");
    d.duration = 0.0;
    expect_analytic_refused(&d, 1, "duration 0 s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spline_cubic_exact), cmocka_unit_test(test_spline_sine_order),
        cmocka_unit_test(test_spline_refused),     cmocka_unit_test(test_analytic_laws),
        cmocka_unit_test(test_li2020_eq40),        cmocka_unit_test(test_analytic_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
