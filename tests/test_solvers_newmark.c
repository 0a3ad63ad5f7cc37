/* tests/test_solvers_newmark.c: pkm_newmark (Newmark, HHT-alpha, Rayleigh damping) against exact
 * responses of oscillators, the energy balance, resonance, and modal superposition on a beam
 * model's pencil.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "navaro_defaults.h"
#include "test_lapack.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/newmark.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* The free response of a damped oscillator (circular frequency w, ratio zeta < 1) from x0, xd0. */
static double damped_free(double w, double zeta, double x0, double xd0, double t)
{
    const double wd = w * sqrt(1.0 - zeta * zeta);
    return exp(-zeta * w * t) * (x0 * cos(wd * t) + (xd0 + zeta * w * x0) / wd * sin(wd * t));
}

static pkm_newmark *integrator(const pkm_pencil *p, const pkm_newmark_opts *o)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_newmark *nm = NULL;
    assert_pkm_ok(pkm_newmark_create(p, o, &nm, &ctx), &ctx);
    return nm;
}

static pkm_pencil *sdof(double m, double k)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_pencil *p = NULL;
    assert_pkm_ok(pkm_pencil_from_dense(1, &k, &m, &p, &ctx), &ctx);
    return p;
}

/* Largest |u(t_n) - exact(t_n)| of a 1-dof free response over [0, tend], u0 = 1, v0 = 0. */
static double sdof_error(const pkm_newmark_opts *o, double w, double zeta, double tend)
{
    pkm_pencil *p = sdof(1.0, w * w);
    pkm_newmark *nm = integrator(p, o);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double u0 = 1.0, zero = 0.0;
    assert_pkm_ok(pkm_newmark_start(nm, &u0, NULL, NULL, &ctx), &ctx);
    double err = 0.0;
    const int64_t nsteps = (int64_t)llround(tend / o->dt);
    for (int64_t s = 0; s < nsteps; s++) {
        assert_pkm_ok(pkm_newmark_step(nm, &zero, &ctx), &ctx);
        const double t = pkm_newmark_time(nm);
        err = fmax(err, fabs(pkm_newmark_u(nm)[0] - damped_free(w, zeta, 1.0, 0.0, t)));
    }
    pkm_newmark_destroy(&nm);
    pkm_pencil_destroy(&p);
    return err;
}

/* Undamped, average acceleration: the discrete solution is exactly cos(n theta) with theta = 2
 * atan(w dt / 2) (the rule is the Cayley transform of the rotation), so its only error against
 * cos(w t) is the period elongation, about (w dt)^2 / 12 relative: the phase error w t (w dt)^2
 * / 12 bounds the error. */
static void test_sdof_undamped_period(void **state)
{
    (void)state;
    const double w = 2.0 * PKM_PI * 3.0, dt = 1.0 / (3.0 * 40.0);
    pkm_pencil *p = sdof(2.5, 2.5 * w * w);
    pkm_newmark_opts o = pkm_newmark_opts_default(dt);
    pkm_newmark *nm = integrator(p, &o);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double u0 = 1.0, zero = 0.0, theta = 2.0 * atan(0.5 * w * dt);
    assert_pkm_ok(pkm_newmark_start(nm, &u0, NULL, NULL, &ctx), &ctx);
    double worst = 0.0;
    for (int s = 1; s <= 1000; s++) {
        assert_pkm_ok(pkm_newmark_step(nm, &zero, &ctx), &ctx);
        const double u = pkm_newmark_u(nm)[0], t = pkm_newmark_time(nm);
        assert_close(u, cos(s * theta), 0.0, 1e-11);
        worst = fmax(worst, fabs(u - cos(w * t)) / (w * t * w * w * dt * dt / 12.0));
    }
    print_message("undamped 1-dof: error / (w t (w dt)^2 / 12) at most %.4f\n", worst);
    assert_true(worst < 1.0);
    pkm_newmark_destroy(&nm);
    pkm_pencil_destroy(&p);
}

/* Damped 1-dof, Newmark and HHT-alpha: second order (the error falls by 4 when dt halves) and
 * within the phase bound of the undamped period error. */
static void test_sdof_damped_order(void **state)
{
    (void)state;
    const double w = 2.0 * PKM_PI, zeta = 0.05, tend = 2.0;
    const double alphas[2] = {0.0, -0.1};
    for (int ia = 0; ia < 2; ia++) {
        double prev = 0.0;
        for (int r = 0; r < 4; r++) {
            const double dt = 1.0 / (20.0 * (1 << r));
            pkm_newmark_opts o = alphas[ia] == 0.0 ? pkm_newmark_opts_default(dt)
                                                   : pkm_newmark_opts_hht(dt, alphas[ia]);
            o.l1 = 2.0 * zeta * w;
            const double e = sdof_error(&o, w, zeta, tend);
            if (alphas[ia] == 0.0) assert_true(e < w * tend * w * w * dt * dt / 12.0);
            if (r > 0) {
                const double order = log2(prev / e);
                print_message("alpha %g, dt %.5f s: error %.3e, observed order %.3f\n", alphas[ia],
                              dt, e, order);
                assert_true(order > 1.9 && order < 2.1);
            }
            prev = e;
        }
    }
}

/* Two masses in a chain, M = diag(m1, m2), K = [k1 + k2, -k2; -k2, k2], Rayleigh damping from
 * two ratios at the two natural frequencies (so that each mode has exactly its ratio): the exact
 * response is the sum of two damped modes. */
typedef struct two_dof {
    double K[4], M[4], w[2], phi[2][2];
} two_dof;

static two_dof two_dof_make(void)
{
    two_dof s = {.K = {3000.0, -1000.0, -1000.0, 1000.0}, .M = {2.0, 0.0, 0.0, 1.0}};
    /* det(K - lam M) = 0: 2 lam^2 - 5000 lam + 2e6 = 0. */
    const double a = 2.0, b = -(3000.0 * 1.0 + 1000.0 * 2.0), c = 3000.0 * 1000.0 - 1e6;
    const double d = sqrt(b * b - 4.0 * a * c);
    const double lam[2] = {(-b - d) / (2.0 * a), (-b + d) / (2.0 * a)};
    for (int i = 0; i < 2; i++) {
        s.w[i] = sqrt(lam[i]);
        /* (K - lam M) phi = 0, first row: (3000 - 2 lam) phi0 = 1000 phi1. */
        double p0 = 1000.0, p1 = 3000.0 - 2.0 * lam[i];
        const double nrm = sqrt(2.0 * p0 * p0 + p1 * p1);
        s.phi[i][0] = p0 / nrm;
        s.phi[i][1] = p1 / nrm;
    }
    return s;
}

static double two_dof_error(const two_dof *s, const double zeta[2], double dt, double tend)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_pencil *p = NULL;
    assert_pkm_ok(pkm_pencil_from_dense(2, s->K, s->M, &p, &ctx), &ctx);
    pkm_newmark_opts o = pkm_newmark_opts_default(dt);
    assert_pkm_ok(pkm_rayleigh_from_ratios(zeta[0], s->w[0] / (2.0 * PKM_PI), zeta[1],
                                           s->w[1] / (2.0 * PKM_PI), &o.l1, &o.l2, &ctx),
                  &ctx);
    pkm_newmark *nm = integrator(p, &o);
    const double u0[2] = {0.01, -0.005}, v0[2] = {0.3, 0.0}, zero[2] = {0.0, 0.0};
    double q0[2], qd0[2];
    for (int i = 0; i < 2; i++) {
        q0[i] = s->phi[i][0] * 2.0 * u0[0] + s->phi[i][1] * u0[1];
        qd0[i] = s->phi[i][0] * 2.0 * v0[0] + s->phi[i][1] * v0[1];
    }
    assert_pkm_ok(pkm_newmark_start(nm, u0, v0, NULL, &ctx), &ctx);
    double err = 0.0;
    const int64_t nsteps = (int64_t)llround(tend / dt);
    for (int64_t n = 0; n < nsteps; n++) {
        assert_pkm_ok(pkm_newmark_step(nm, zero, &ctx), &ctx);
        const double t = pkm_newmark_time(nm);
        for (int d = 0; d < 2; d++) {
            double exact = 0.0;
            for (int i = 0; i < 2; i++)
                exact += s->phi[i][d] * damped_free(s->w[i], zeta[i], q0[i], qd0[i], t);
            err = fmax(err, fabs(pkm_newmark_u(nm)[d] - exact));
        }
    }
    pkm_newmark_destroy(&nm);
    pkm_pencil_destroy(&p);
    return err;
}

static void test_two_dof_rayleigh(void **state)
{
    (void)state;
    const two_dof s = two_dof_make();
    const double zeta[2] = {0.03, 0.05}, tend = 0.5;
    const double scale = 0.015; /* the largest displacement, m (|u0| and |v0| / w1) */
    double prev = 0.0;
    for (int r = 0; r < 4; r++) {
        const double dt = 1e-3 / (1 << r);
        const double e = two_dof_error(&s, zeta, dt, tend);
        const double w2 = s.w[1];
        assert_true(e < scale * w2 * tend * w2 * w2 * dt * dt / 12.0);
        if (r > 0) {
            const double order = log2(prev / e);
            print_message("2-dof, dt %.2e s: error %.3e m, observed order %.3f\n", dt, e, order);
            assert_true(order > 1.9 && order < 2.1);
        }
        prev = e;
    }
}

/* Rayleigh coefficients reproduce both ratios; bad frequencies and ratios are refused naming the
 * value. */
static void test_rayleigh_ratios(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double l1 = -1.0, l2 = -1.0;
    assert_pkm_ok(pkm_rayleigh_from_ratios(0.02, 100.0, 0.03, 350.0, &l1, &l2, &ctx), &ctx);
    const double w1 = 2.0 * PKM_PI * 100.0, w2 = 2.0 * PKM_PI * 350.0;
    assert_close(l1 / (2.0 * w1) + l2 * w1 / 2.0, 0.02, 1e-14, 0.0);
    assert_close(l1 / (2.0 * w2) + l2 * w2 / 2.0, 0.03, 1e-14, 0.0);
    const struct {
        double z1, f1, z2, f2;
        const char *what;
    } bad[] = {{0.02, 10.0, 0.02, 10.0, "equal"},    {0.02, 0.0, 0.02, 10.0, "positive"},
               {0.02, -5.0, 0.02, 10.0, "positive"}, {0.02, 10.0, 0.02, NAN, "positive"},
               {-0.1, 10.0, 0.02, 20.0, "ratios"},   {0.5, 10.0, 0.001, 20.0, "negative"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pkm_ctx_clear(&ctx);
        assert_int_equal(
            pkm_rayleigh_from_ratios(bad[i].z1, bad[i].f1, bad[i].z2, bad[i].f2, &l1, &l2, &ctx),
            PKM_ERR_INVALID);
        assert_non_null(strstr(ctx.msg, bad[i].what));
    }
    /* Options out of range. */
    pkm_pencil *p = sdof(1.0, 1.0);
    pkm_newmark *nm = NULL;
    pkm_newmark_opts o = pkm_newmark_opts_default(0.0);
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_newmark_create(p, &o, &nm, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "dt"));
    o = pkm_newmark_opts_hht(0.01, -0.5);
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_newmark_create(p, &o, &nm, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "alpha"));
    assert_null(nm);
    pkm_pencil_destroy(&p);
}

/* A 1-dof oscillator on a base shaken at its natural frequency, base acceleration A sin(w t):
 * the relative displacement's steady amplitude is (A / w^2) / (2 zeta), the quasi-static one
 * times 1 / (2 zeta). Transient decayed (zeta w t = 25), 200 steps per period, so that the
 * period error (8e-5 relative) detunes by far less than zeta. */
static void test_base_excitation_resonance(void **state)
{
    (void)state;
    const double m = 3.0, w = 2.0 * PKM_PI * 5.0, zeta = 0.04, A = 0.7, T = 2.0 * PKM_PI / w;
    pkm_pencil *p = sdof(m, m * w * w);
    pkm_newmark_opts o = pkm_newmark_opts_default(T / 200.0);
    o.l1 = 2.0 * zeta * w;
    pkm_newmark *nm = integrator(p, &o);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_newmark_start(nm, NULL, NULL, NULL, &ctx), &ctx);
    const int periods = 100, last = 5;
    double peak = 0.0;
    for (int s = 1; s <= 200 * periods; s++) {
        const double f = -m * A * sin(w * s * o.dt);
        assert_pkm_ok(pkm_newmark_step(nm, &f, &ctx), &ctx);
        if (s > 200 * (periods - last)) peak = fmax(peak, fabs(pkm_newmark_u(nm)[0]));
    }
    const double amplification = peak / (A / (w * w));
    print_message("resonance: amplification %.5f, 1/(2 zeta) = %.5f\n", amplification, 0.5 / zeta);
    assert_close(amplification, 0.5 / zeta, 0.01, 0.0);
    pkm_newmark_destroy(&nm);
    pkm_pencil_destroy(&p);
}

/* The default NaVARo, one element per link, at the first pose of Table 3: a beam model's pencil. */
static pkm_pencil *beam_pencil(void)
{
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 1;
    const double pose[3] = {0.0, 0.0, 0.0};
    return case_pencil("navaro", &par, pose, PKM_FORM_NODAL, NULL);
}

static double energy_total(const pkm_newmark_energy *e)
{
    return e->kinetic + e->strain + e->dissipated - e->work;
}

/* Undamped free vibration of the beam model with fixed matrices: kinetic + strain energy keeps
 * its value to 1e-10 relative over 1e4 steps; damped and loaded, kinetic + strain + dissipated -
 * work does. */
static void test_energy_balance(void **state)
{
    (void)state;
    pkm_pencil *p = beam_pencil();
    const int64_t n = p->n;
    double *u0 = calloc((size_t)n, sizeof(double)), *v0 = calloc((size_t)n, sizeof(double)),
           *f = calloc((size_t)n, sizeof(double));
    assert_true(u0 != NULL && v0 != NULL && f != NULL);
    srand(7);
    for (int64_t i = 0; i < n; i++) {
        u0[i] = 1e-4 * (rand() / (double)RAND_MAX - 0.5);
        v0[i] = 1e-2 * (rand() / (double)RAND_MAX - 0.5);
    }
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int damped = 0; damped < 2; damped++) {
        pkm_newmark_opts o = pkm_newmark_opts_default(2e-4);
        if (damped)
            assert_pkm_ok(pkm_rayleigh_from_ratios(0.02, 20.0, 0.05, 400.0, &o.l1, &o.l2, &ctx),
                          &ctx);
        pkm_newmark *nm = integrator(p, &o);
        assert_pkm_ok(pkm_newmark_start(nm, u0, v0, NULL, &ctx), &ctx);
        const pkm_newmark_energy e0 = pkm_newmark_energies(nm);
        const double ref = energy_total(&e0);
        double worst = 0.0;
        for (int s = 1; s <= 10000; s++) {
            for (int64_t i = 0; i < n; i++)
                f[i] = damped ? 5.0 * sin(40.0 * s * o.dt + (double)i) : 0.0;
            assert_pkm_ok(pkm_newmark_step(nm, f, &ctx), &ctx);
            const pkm_newmark_energy e = pkm_newmark_energies(nm);
            worst = fmax(worst, fabs(energy_total(&e) - ref) / ref);
        }
        const pkm_newmark_energy e = pkm_newmark_energies(nm);
        print_message("%s: n = %lld, energy drift %.2e relative over 1e4 steps (dissipated %.3e "
                      "J, work %.3e J)\n",
                      damped ? "damped, loaded" : "free", (long long)n, worst, e.dissipated,
                      e.work);
        assert_true(worst < 1e-10);
        if (damped) assert_true(e.dissipated > 0.01 * ref);
        pkm_newmark_destroy(&nm);
    }
    free(u0);
    free(v0);
    free(f);
    pkm_pencil_destroy(&p);
}

/* Without the energy bookkeeping the state is the same, bit for bit, and the energies stay at
 * their start values. */
static void test_no_energy(void **state)
{
    (void)state;
    const two_dof s = two_dof_make();
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_pencil *p = NULL;
    assert_pkm_ok(pkm_pencil_from_dense(2, s.K, s.M, &p, &ctx), &ctx);
    pkm_newmark_opts o = pkm_newmark_opts_default(1e-3);
    o.l1 = 0.5;
    pkm_newmark *nm[2] = {integrator(p, &o), NULL};
    o.no_energy = 1;
    nm[1] = integrator(p, &o);
    const double u0[2] = {0.01, 0.0}, f[2] = {1.0, -2.0};
    for (int i = 0; i < 2; i++) {
        assert_pkm_ok(pkm_newmark_start(nm[i], u0, NULL, NULL, &ctx), &ctx);
        for (int k = 0; k < 100; k++)
            assert_pkm_ok(pkm_newmark_step(nm[i], f, &ctx), &ctx);
    }
    assert_memory_equal(pkm_newmark_u(nm[0]), pkm_newmark_u(nm[1]), 2 * sizeof(double));
    const pkm_newmark_energy e0 = pkm_newmark_energies(nm[0]), e1 = pkm_newmark_energies(nm[1]);
    assert_true(e0.work != 0.0 && e1.work == 0.0 && e1.strain == 0.5 * 3000.0 * 1e-4);
    for (int i = 0; i < 2; i++)
        pkm_newmark_destroy(&nm[i]);
    pkm_pencil_destroy(&p);
}

/* One modal coordinate by the textbook predictor-corrector form of Newmark (Hughes, sec. 9.1.1),
 * unit modal mass: an independent path to the coupled integrator's increment form. */
typedef struct modal_state {
    double q, qd, qdd;
} modal_state;

static void modal_step(modal_state *s, double w2, double c, double f, double beta, double gamma,
                       double dt)
{
    const double qp = s->q + dt * s->qd + dt * dt * (0.5 - beta) * s->qdd;
    const double vp = s->qd + dt * (1.0 - gamma) * s->qdd;
    const double a = (f - c * vp - w2 * qp) / (1.0 + gamma * dt * c + beta * dt * dt * w2);
    s->q = qp + beta * dt * dt * a;
    s->qd = vp + gamma * dt * a;
    s->qdd = a;
}

/* At a fixed configuration the Newmark response of the beam model equals the superposition of
 * all its modes (LAPACK dsygv, M-normalised), each integrated by the same scheme, with Rayleigh
 * damping (2 % at modes 1 and 3) and a harmonic load, to 1e-8 of the largest displacement. */
static void test_modal_superposition(void **state)
{
    (void)state;
    pkm_pencil *p = beam_pencil();
    const int n = (int)p->n;
    const size_t nn = (size_t)n * (size_t)n;
    double *K = malloc(nn * sizeof(double)), *M = malloc(nn * sizeof(double)),
           *w2 = malloc((size_t)n * sizeof(double)), *work = malloc(8 * nn * sizeof(double)),
           *b = calloc((size_t)n, sizeof(double)), *u0 = calloc((size_t)n, sizeof(double)),
           *f = calloc((size_t)n, sizeof(double));
    modal_state *ms = calloc((size_t)n, sizeof(modal_state));
    assert_true(K && M && w2 && work && b && u0 && f && ms);
    pkm_pencil_to_dense(p, K, M);
    const int itype = 1, lwork = 8 * n * n;
    int info = -1;
    dsygv_(&itype, "V", "U", &n, K, &n, M, &n, w2, work, &lwork, &info, 1, 1);
    assert_int_equal(info, 0);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double f1 = sqrt(w2[0]) / (2.0 * PKM_PI), f3 = sqrt(w2[2]) / (2.0 * PKM_PI);
    pkm_newmark_opts o = pkm_newmark_opts_default(0.1 / f1 / 20.0);
    assert_pkm_ok(pkm_rayleigh_from_ratios(0.02, f1, 0.02, f3, &o.l1, &o.l2, &ctx), &ctx);
    srand(11);
    for (int i = 0; i < n; i++) {
        b[i] = rand() / (double)RAND_MAX - 0.5;
        u0[i] = 1e-5 * (rand() / (double)RAND_MAX - 0.5);
    }
    pkm_newmark *nm = integrator(p, &o);
    assert_pkm_ok(pkm_newmark_start(nm, u0, NULL, NULL, &ctx), &ctx);
    /* Modal initial conditions q = Phi^T M u0 (K now holds Phi, column-major), and the initial
     * acceleration from the modal equation. */
    pkm_pencil_matvec(p, 'M', u0, f);
    for (int i = 0; i < n; i++) {
        const double *phi = K + (size_t)i * (size_t)n;
        ms[i].q = 0.0;
        for (int j = 0; j < n; j++)
            ms[i].q += phi[j] * f[j];
        ms[i].qd = 0.0;
        ms[i].qdd = -w2[i] * ms[i].q;
    }
    const double omega = 0.7 * 2.0 * PKM_PI * f1;
    double worst = 0.0, umax = 0.0;
    for (int s = 1; s <= 400; s++) {
        const double t = s * o.dt;
        for (int j = 0; j < n; j++)
            f[j] = b[j] * sin(omega * t);
        assert_pkm_ok(pkm_newmark_step(nm, f, &ctx), &ctx);
        for (int i = 0; i < n; i++) {
            const double *phi = K + (size_t)i * (size_t)n;
            double fi = 0.0;
            for (int j = 0; j < n; j++)
                fi += phi[j] * f[j];
            modal_step(&ms[i], w2[i], o.l1 + o.l2 * w2[i], fi, o.beta, o.gamma, o.dt);
        }
        for (int j = 0; j < n; j++) {
            double u = 0.0;
            for (int i = 0; i < n; i++)
                u += K[(size_t)i * (size_t)n + (size_t)j] * ms[i].q;
            worst = fmax(worst, fabs(u - pkm_newmark_u(nm)[j]));
            umax = fmax(umax, fabs(u));
        }
    }
    print_message("modal superposition, %d modes (f1 = %.2f Hz): difference %.2e of the largest "
                  "displacement %.3e\n",
                  n, f1, worst / umax, umax);
    assert_true(worst < 1e-8 * umax);
    pkm_newmark_destroy(&nm);
    pkm_pencil_destroy(&p);
    free(K);
    free(M);
    free(w2);
    free(work);
    free(b);
    free(u0);
    free(f);
    free(ms);
}

/* A new pencil of the same pattern changes the numeric factorisation only; another pattern gets
 * a new symbolic analysis, and the state carries over. */
static void test_set_pencil(void **state)
{
    (void)state;
    const double K1[4] = {2.0, -1.0, -1.0, 2.0}, M1[4] = {1.0, 0.0, 0.0, 1.0};
    const double K2[4] = {4.0, -2.0, -2.0, 4.0}, K3[4] = {2.0, 0.0, 0.0, 2.0};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_pencil *p1 = NULL, *p2 = NULL, *p3 = NULL;
    assert_pkm_ok(pkm_pencil_from_dense(2, K1, M1, &p1, &ctx), &ctx);
    assert_pkm_ok(pkm_pencil_from_dense(2, K2, M1, &p2, &ctx), &ctx);
    assert_pkm_ok(pkm_pencil_from_dense(2, K3, M1, &p3, &ctx), &ctx);
    pkm_newmark_opts o = pkm_newmark_opts_default(0.01);
    pkm_newmark *nm = integrator(p1, &o);
    const double u0[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
    assert_pkm_ok(pkm_newmark_start(nm, u0, NULL, NULL, &ctx), &ctx);
    assert_pkm_ok(pkm_newmark_step(nm, zero, &ctx), &ctx);
    assert_pkm_ok(pkm_newmark_set_pencil(nm, p2, &ctx), &ctx);
    assert_int_equal(pkm_newmark_symbolic_count(nm), 1);
    assert_pkm_ok(pkm_newmark_set_pencil(nm, p3, &ctx), &ctx);
    assert_int_equal(pkm_newmark_symbolic_count(nm), 2);
    /* Undamped Newmark satisfies the equation of motion at the step's end with the pencil of
     * the step: M a + K3 u = 0 after the switch (K2 would leave a residual of 2 u), to the
     * rounding of u carried into a = a0 du (pkm_newmark_step: eps |u| a0, a0 = 4 / dt^2). */
    assert_pkm_ok(pkm_newmark_step(nm, zero, &ctx), &ctx);
    double ma[2], ku[2];
    pkm_pencil_matvec(p3, 'M', pkm_newmark_a(nm), ma);
    pkm_pencil_matvec(p3, 'K', pkm_newmark_u(nm), ku);
    const double *u = pkm_newmark_u(nm);
    const double tol = 16.0 * DBL_EPSILON * (4.0 / (o.dt * o.dt)) * fmax(fabs(u[0]), fabs(u[1]));
    for (int i = 0; i < 2; i++)
        assert_close(ma[i] + ku[i], 0.0, 0.0, tol);
    pkm_pencil_matvec(p2, 'K', pkm_newmark_u(nm), ku);
    assert_true(fabs(ma[0] + ku[0]) > 0.1);
    pkm_newmark_destroy(&nm);
    assert_null(nm);
    pkm_pencil_destroy(&p1);
    pkm_pencil_destroy(&p2);
    pkm_pencil_destroy(&p3);
}

/* HHT-alpha damps the highest frequencies: at w dt -> infinity its spectral radius is (1 +
 * alpha) / (1 - alpha) (Hughes, sec. 9.3), the per-step decay of a stiff oscillator. There the
 * principal roots merge into a double root, |u_n| ~ |c1 + c2 n| rho^n, so the decay is measured
 * over 300 steps, where the factor (n2 / n1)^(1 / 300) is 1.005. */
static void test_hht_dissipation(void **state)
{
    (void)state;
    const double alpha = -0.2, rho = (1.0 + alpha) / (1.0 - alpha);
    pkm_pencil *p = sdof(1.0, 1e10);
    pkm_newmark_opts o = pkm_newmark_opts_hht(1.0, alpha);
    pkm_newmark *nm = integrator(p, &o);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double u0 = 1.0, zero = 0.0;
    assert_pkm_ok(pkm_newmark_start(nm, &u0, NULL, NULL, &ctx), &ctx);
    double first = 0.0, second = 0.0;
    for (int s = 1; s <= 404; s++) {
        assert_pkm_ok(pkm_newmark_step(nm, &zero, &ctx), &ctx);
        const double u = fabs(pkm_newmark_u(nm)[0]);
        if (s > 100 && s <= 104) first = fmax(first, u);
        if (s > 400) second = fmax(second, u);
    }
    const double observed = pow(second / first, 1.0 / 300.0);
    print_message("HHT alpha %g: decay per step %.5f, spectral radius %.5f\n", alpha, observed,
                  rho);
    assert_close(observed, rho, 1e-2, 0.0);
    pkm_newmark_destroy(&nm);
    pkm_pencil_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sdof_undamped_period),      cmocka_unit_test(test_sdof_damped_order),
        cmocka_unit_test(test_two_dof_rayleigh),          cmocka_unit_test(test_rayleigh_ratios),
        cmocka_unit_test(test_base_excitation_resonance), cmocka_unit_test(test_energy_balance),
        cmocka_unit_test(test_modal_superposition),       cmocka_unit_test(test_set_pencil),
        cmocka_unit_test(test_hht_dissipation),           cmocka_unit_test(test_no_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
