/* tests/test_dynamics_ode.c: the RK4 integrator of include/pkm/ode.h on a single rotor with the
 * friction laws of include/pkm/friction.h, each run against an analytic solution: viscous decay,
 * the Coulomb stop, the energy balance, and stick-slip with the Stribeck law (Guo et al. 2024,
 * eq. 52) inside its negative-slope band.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/friction.h"
#include "pkm/ode.h"

/* A rotor of inertia J (no gravity) with joint friction, optionally driven through a spring of
 * stiffness k whose far end turns at V: J th'' = k (V t - th) - tau_f(th'). The state is
 * (th, th', W) with W' = tau_f th' the power friction dissipates, so that W(t) is the friction
 * work integrated along with the motion. */
typedef struct rotor {
    double J, k, V;
    pkm_friction f;
    double eps; /* > 0: the regularised law */
    /* the monitor's record */
    double t_stick_first, t_stick_last;
    int sticks, in_stick, calls;
    double t_watch;                  /* stick intervals counted after this time */
    double w_min, w_max, w_dev_late; /* after t_watch; max |w - V| over the last second */
    double T;
} rotor;

static double friction(const rotor *r, double w)
{
    const double N = pkm_friction_normal(&r->f, PKM_JOINT_REVOLUTE, 0.0, 0.0, 0.0);
    return r->eps > 0.0 ? pkm_friction_force_smooth(&r->f, w, N, r->eps)
                        : pkm_friction_force(&r->f, w, N);
}

static pkm_status rotor_rhs(double t, const double *y, double *dydt, void *user, pkm_ctx *ctx)
{
    (void)ctx;
    const rotor *r = user;
    const double tf = friction(r, y[1]);
    dydt[0] = y[1];
    dydt[1] = (r->k * (r->V * t - y[0]) - tf) / r->J;
    dydt[2] = tf * y[1];
    return PKM_OK;
}

static pkm_status rotor_watch(int step, double t, const double *y, void *user, pkm_ctx *ctx)
{
    (void)ctx;
    (void)step;
    rotor *r = user;
    r->calls++;
    const int stuck = fabs(y[1]) < r->eps;
    if (t > r->t_watch) {
        if (stuck && !r->in_stick) {
            if (r->sticks == 0) r->t_stick_first = t;
            r->sticks++;
            r->t_stick_last = t;
        }
        r->w_min = fmin(r->w_min, y[1]);
        r->w_max = fmax(r->w_max, y[1]);
        if (t > r->T - 1.0) r->w_dev_late = fmax(r->w_dev_late, fabs(y[1] - r->V));
    }
    r->in_stick = stuck;
    return PKM_OK;
}

/* Integrate r from (th0, w0) over nsteps of h; y gets the final state (th, w, W). */
static void run(rotor *r, double th0, double w0, double h, int nsteps, double y[3])
{
    double work[PKM_ODE_RK4_WORK(3)];
    const pkm_ode ode = {3, rotor_rhs, rotor_watch, r};
    r->sticks = r->in_stick = r->calls = 0;
    r->w_min = INFINITY, r->w_max = -INFINITY, r->w_dev_late = 0.0;
    r->T = h * nsteps;
    y[0] = th0, y[1] = w0, y[2] = 0.0;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_ode_rk4_run(&ode, 0.0, h, nsteps, y, work, &ctx), &ctx);
    assert_int_equal(r->calls, nsteps + 1);
}

/* Viscous friction only: w = w0 exp(-kv t / J), th = w0 J / kv (1 - exp(-kv t / J)). The error at
 * T falls as h^4, and the kinetic energy lost equals the friction work. */
static void test_viscous_decay(void **state)
{
    (void)state;
    rotor r = {.J = 0.5, .f = {.model = PKM_FRICTION_COULOMB_VISCOUS, .kv = 0.2, .normal = 1.0}};
    const double w0 = 2.0, T = 5.0, lam = r.f.kv / r.J;
    double err[2], y[3];
    for (int c = 0; c < 2; c++) {
        const int nsteps = c == 0 ? 25 : 50;
        run(&r, 0.0, w0, T / nsteps, nsteps, y);
        err[c] = fabs(y[1] - w0 * exp(-lam * T));
        assert_close(y[0], w0 / lam * (1.0 - exp(-lam * T)), 1e-6, 0.0);
        const double lost = 0.5 * r.J * (w0 * w0 - y[1] * y[1]);
        assert_close(lost, y[2], 1e-6, 0.0);
    }
    const double order = log(err[0] / err[1]) / log(2.0);
    print_message("viscous decay: error %.3e -> %.3e, order %.2f\n", err[0], err[1], order);
    assert_true(fabs(order - 4.0) < 0.2);
}

/* Coulomb friction under a constant normal load N: the rotor decelerates at a = kc N / J and the
 * exact law stops it at t* = J w0 / (kc N) after the angle w0^2 / (2 a). With the ramp of width
 * eps the deceleration is exactly a while w >= eps (until t* - eps / a), then w = eps exp(-(t -
 * t* + eps/a) a / eps): w(t*) = eps / e, 0 < w < eps afterwards (it never reverses), and the
 * creep adds exactly eps^2 / (2 a) to the stopping angle. */
static void test_coulomb_stop(void **state)
{
    (void)state;
    rotor r = {.J = 0.01,
               .eps = 0.05,
               .f = {.model = PKM_FRICTION_COULOMB_VISCOUS, .kc = 0.1, .normal = 2.0}};
    const double w0 = 3.0, a = r.f.kc * r.f.normal / r.J, tstar = r.J * w0 / (r.f.kc * 2.0);
    const double h = 5e-4, t_eps = tstar - r.eps / a; /* 0.15 s and 0.1475 s: step boundaries */
    double y[3];
    const int n_eps = (int)lround(t_eps / h), n_star = (int)lround(tstar / h);
    run(&r, 0.0, w0, h, n_eps, y);
    assert_close(y[1], w0 - a * t_eps, 0.0, 1e-12); /* = eps */
    assert_close(y[0], w0 * t_eps - 0.5 * a * t_eps * t_eps, 0.0, 1e-12);
    run(&r, 0.0, w0, h, n_star, y);
    assert_close(y[1], r.eps / exp(1.0), 1e-4, 0.0);
    r.t_watch = t_eps;
    run(&r, 0.0, w0, h, 600, y); /* to 0.3 s: 61 time constants after t* */
    assert_true(r.w_min > 0.0 && r.w_max <= r.eps);
    const double theta_stop = w0 * w0 / (2.0 * a), creep = r.eps * r.eps / (2.0 * a);
    print_message("Coulomb stop: angle %.10f, exact law %.10f + creep %.3e\n", y[0], theta_stop,
                  creep);
    assert_close(y[0], theta_stop + creep, 1e-9, 0.0);
    /* E(0) - E(T) = friction work, to the integrator's accuracy: exact while the friction is
     * constant, then the RK4 error inside the ramp, which falls as h^4 (same stops at h / 2) */
    const double res_h = fabs(0.5 * r.J * (w0 * w0 - y[1] * y[1]) - y[2]) / y[2];
    run(&r, 0.0, w0, 0.5 * h, 1200, y);
    const double res_h2 = fabs(0.5 * r.J * (w0 * w0 - y[1] * y[1]) - y[2]) / y[2];
    print_message("Coulomb stop: energy balance residual %.3e (h = %g s), %.3e (h / 2)\n", res_h, h,
                  res_h2);
    assert_true(res_h < 2e-8 && res_h2 < res_h / 10.0);
}

/* The spring-driven rotor with Table 2's Stribeck data, N = 1 (J = 0.1 kg m^2, k = 10 N m/rad:
 * 10 rad/s natural frequency; eps = 1e-3 rad/s, steps of 0.4 ms: 0.2 of the ramp's time constant
 * J eps / (ks N) = 2 ms), started from steady sliding at V with the velocity 20 % off. */
static void stick_slip_run(rotor *r, double *y)
{
    const double h = 4e-4, T = 8.0;
    const double N = 1.0, F = pkm_friction_force(&r->f, r->V, N);
    r->t_watch = 2.0;
    run(r, -F / r->k, 1.2 * r->V, h, (int)lround(T / h), y);
}

static void test_stick_slip(void **state)
{
    (void)state;
    const pkm_friction stribeck = {.model = PKM_FRICTION_STRIBECK,
                                   .kc = 0.005,
                                   .kv = 0.01,
                                   .ks = 0.05,
                                   .vs = 0.03,
                                   .delta = 2.0,
                                   .normal = 1.0};
    double y[3];
    /* V = 0.03 rad/s, inside the negative-slope band (1e-4, 0.07737) rad/s: steady sliding is
     * unstable (the slope -1.09 N m s/rad is negative damping), a stick-slip cycle grows and
     * recurs to the end. */
    rotor r = {.J = 0.1, .k = 10.0, .V = 0.03, .eps = 1e-3, .f = stribeck};
    stick_slip_run(&r, y);
    print_message("Stribeck, V = 0.03: %d stick intervals after 2 s (first at %.3f s, last at "
                  "%.3f s), w in [%.4f, %.4f]\n",
                  r.sticks, r.t_stick_first, r.t_stick_last, r.w_min, r.w_max);
    assert_true(r.sticks >= 5);
    assert_true(r.t_stick_last > 7.0);
    /* the same V with Coulomb-viscous friction (ks = kc): the perturbation decays, no stick */
    rotor c = r;
    c.f.model = PKM_FRICTION_COULOMB_VISCOUS;
    c.f.ks = c.f.kc;
    stick_slip_run(&c, y);
    print_message("C-V, V = 0.03: %d stick intervals, w in [%.4f, %.4f], late |w - V| <= %.4f\n",
                  c.sticks, c.w_min, c.w_max, c.w_dev_late);
    assert_int_equal(c.sticks, 0);
    assert_true(c.w_min > c.eps && c.w_dev_late < 0.2 * c.V);
    /* Stribeck above the band (V = 0.1 rad/s): steady sliding is stable, no stick */
    rotor s = r;
    s.V = 0.1;
    stick_slip_run(&s, y);
    print_message("Stribeck, V = 0.1: %d stick intervals, w in [%.4f, %.4f], late |w - V| <= "
                  "%.4f\n",
                  s.sticks, s.w_min, s.w_max, s.w_dev_late);
    assert_int_equal(s.sticks, 0);
    assert_true(s.w_min > s.eps && s.w_dev_late < 0.2 * s.V);
}

/* A failing right-hand side or monitor stops the run with its status; bad arguments refused. */
static pkm_status failing_rhs(double t, const double *y, double *dydt, void *user, pkm_ctx *ctx)
{
    (void)y, (void)user;
    dydt[0] = 1.0;
    if (t > 0.25) return PKM_FAIL(ctx, PKM_ERR_SINGULAR, "closure singular at t = %g s", t);
    return PKM_OK;
}

static void test_failures(void **state)
{
    (void)state;
    double y[1] = {0.0}, work[PKM_ODE_RK4_WORK(1)];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_ode ode = {1, failing_rhs, NULL, NULL};
    assert_int_equal(pkm_ode_rk4_run(&ode, 0.0, 0.1, 10, y, work, &ctx), PKM_ERR_SINGULAR);
    assert_non_null(strstr(ctx.msg, "closure singular at t = 0.3"));
    assert_close(y[0], 0.2, 0.0, 1e-15); /* the two good steps; the failed one left y alone */
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_ode_rk4_run(&ode, 0.0, 0.0, 10, y, work, &ctx), PKM_ERR_INVALID);
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_ode_rk4_run(&ode, 0.0, 0.1, -1, y, work, &ctx), PKM_ERR_INVALID);
    pkm_ctx_clear(&ctx);
    const pkm_ode none = {0, NULL, NULL, NULL};
    assert_int_equal(pkm_ode_rk4_run(&none, 0.0, 0.1, 1, y, work, &ctx), PKM_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_viscous_decay),
        cmocka_unit_test(test_coulomb_stop),
        cmocka_unit_test(test_stick_slip),
        cmocka_unit_test(test_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
