/* tests/test_dynamics_contact.c: point-on-surface constraints (include/pkm/contact.h) on the
 * surrogate of Cheng, Yuan, Li, Zeng 2024's chewing robot (tests/mast_fixture.h: condyle balls on
 * an inclined plane Z = p1 X + p2, parasitic Z and gamma). Checked against the closed form of the
 * plane (the difference and the sum of the two contact equations, the paper's eq. 5 as rebuilt),
 * the reference values of that surrogate computed at 40 digits, finite differences of the solver
 * for the implicit-function derivatives, and a second representation of the same surface.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "mast_fixture.h"

/* Bowls through the home positions of the condyles (a quadric depending on Y too). */
static void bowl_contacts(pkm_contact c[MAST_NC])
{
    mast_contacts(c);
    for (int i = 0; i < MAST_NC; i++) {
        pkm_surface *s = &c[i].surface;
        s->kind = PKM_SURFACE_QUADRIC;
        s->a[0][0] = 1e-3, s->a[1][1] = 2e-3, s->a[0][1] = 2.5e-4;
        double f;
        pkm_surface_eval(s, c[i].point, &f, NULL, NULL);
        s->c -= f;
    }
}

/* The bowls as polynomials, plus a cubic term each (polynomial: cubic = 1, same surface: 0). */
static void poly_contacts(pkm_contact c[MAST_NC], double cubic)
{
    pkm_contact q[MAST_NC];
    bowl_contacts(q);
    mast_contacts(c);
    for (int i = 0; i < MAST_NC; i++) {
        const pkm_surface *s = &q[i].surface;
        const struct {
            double coef;
            int p[3];
        } term[] = {{s->a[0][0], {2, 0, 0}},       {s->a[1][1], {0, 2, 0}},
                    {2.0 * s->a[0][1], {1, 1, 0}}, {s->b[0], {1, 0, 0}},
                    {s->b[2], {0, 0, 1}},          {s->c, {0, 0, 0}},
                    {1e-6 * cubic, {2, 1, 0}}};
        pkm_surface *t = &c[i].surface;
        memset(t, 0, sizeof(*t));
        t->kind = PKM_SURFACE_POLYNOMIAL;
        t->nterm = 7;
        for (int k = 0; k < t->nterm; k++) {
            t->coef[k] = term[k].coef;
            for (int d = 0; d < 3; d++)
                t->pow[k][d] = term[k].p[d];
        }
        double f;
        pkm_surface_eval(t, c[i].point, &f, NULL, NULL);
        t->coef[5] -= f;
    }
}

static void solve(const pkm_contact *c, double X[PKM_POSE_DOF], double *dz, double *d2z)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_contact_parasitic(MAST_NC, c, mast_par, 0.0, X, dz, d2z, &ctx), &ctx);
}

/* The reference values of the surrogate at t = 0.13 s (40-digit computation). */
static void test_golden(void **state)
{
    (void)state;
    pkm_contact c[MAST_NC];
    mast_contacts(c);
    double X[PKM_POSE_DOF] = {0};
    mast_free_at(0.13, X);
    const double qee[4] = {1.45793725484282, 0.898707831416951, 0.0299562993853619,
                           0.109345294113212};
    for (int j = 0; j < MAST_NF; j++)
        assert_close(X[mast_free[j]], qee[j], 1e-14, 0.0);
    solve(c, X, NULL, NULL);
    assert_close(X[2], -10.4684765328444, 1e-13, 0.0);
    assert_close(X[5], 0.0613828317030968, 1e-13, 0.0);
}

/* Plane: gamma = atan(-sin a / (cos a sin b + p1 cos b)) from the difference of the two
 * contact equations, Z from their sum; dZ/dY = dgamma/dY = 0 exactly (the plane does not depend on
 * Y). */
static void test_plane_closed_form(void **state)
{
    (void)state;
    pkm_contact c[MAST_NC];
    mast_contacts(c);
    double X[PKM_POSE_DOF] = {0}, dz[MAST_NC * MAST_NF];
    for (int k = 0; k < 200; k++) {
        const double t = 0.005 * k;
        mast_free_at(t, X);
        X[0] += 5.0 * cos(3.0 * t), X[3] += 0.2 * sin(5.0 * t), X[4] -= 0.1 * cos(7.0 * t);
        solve(c, X, dz, NULL);
        const double a = X[3], b = X[4], ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b);
        const double g = atan(-sa / (ca * sb + mast_p1 * cb)), cg = cos(g), sg = sin(g);
        const double A = -70.0, C = 30.0;
        const double Z = mast_p1 * (X[0] + A * cb * cg + C * sb) + mast_p2 -
                         A * (sa * sg - ca * sb * cg) - C * ca * cb;
        assert_close(X[5], g, 1e-13, 1e-15);
        assert_close(X[2], Z, 1e-13, 1e-12);
        double Phi[MAST_NC];
        pkm_contact_residual(MAST_NC, c, X, Phi, NULL, NULL);
        for (int i = 0; i < MAST_NC; i++)
            assert_true(fabs(Phi[i]) <= 1e-12);
        assert_true(dz[0 * MAST_NF + 1] == 0.0 && dz[1 * MAST_NF + 1] == 0.0);
    }
}

/* The gradient and Hessian of the residuals against central differences of the residuals. */
static void test_residual_derivatives(void **state)
{
    (void)state;
    pkm_contact c[MAST_NC];
    poly_contacts(c, 1.0);
    enum { N = PKM_POSE_DOF };
    double X[N] = {3.0, -2.0, -9.0, 0.2, -0.3, 0.4}, Phi[MAST_NC], dPhi[MAST_NC * N],
           d2Phi[MAST_NC * N * N];
    pkm_contact_residual(MAST_NC, c, X, Phi, dPhi, d2Phi);
    const double h = 1e-5;
    for (int k = 0; k < N; k++) {
        double Xp[N], Xm[N], fp[MAST_NC], fm[MAST_NC], gp[MAST_NC * N], gm[MAST_NC * N];
        memcpy(Xp, X, sizeof(X)), memcpy(Xm, X, sizeof(X));
        Xp[k] += h, Xm[k] -= h;
        pkm_contact_residual(MAST_NC, c, Xp, fp, gp, NULL);
        pkm_contact_residual(MAST_NC, c, Xm, fm, gm, NULL);
        for (int i = 0; i < MAST_NC; i++) {
            assert_close(dPhi[i * N + k], (fp[i] - fm[i]) / (2 * h), 1e-7, 1e-7);
            for (int l = 0; l < N; l++) {
                const double fd = (gp[i * N + l] - gm[i * N + l]) / (2 * h);
                assert_close(d2Phi[(i * N + l) * N + k], fd, 1e-6, 1e-6);
                assert_true(d2Phi[(i * N + l) * N + k] == d2Phi[(i * N + k) * N + l] ||
                            fabs(d2Phi[(i * N + l) * N + k] - d2Phi[(i * N + k) * N + l]) <=
                                1e-14 * fabs(d2Phi[(i * N + l) * N + k]));
            }
        }
    }
}

/* dz and d2z of the implicit-function theorem against central differences of the solver. */
static void check_derivatives(const pkm_contact *c, double t)
{
    double X[PKM_POSE_DOF] = {0}, dz[MAST_NC * MAST_NF], d2z[MAST_NC * MAST_NF * MAST_NF];
    mast_free_at(t, X);
    solve(c, X, dz, d2z);
    const double h = 1e-5;
    for (int j = 0; j < MAST_NF; j++) {
        double Xp[PKM_POSE_DOF], Xm[PKM_POSE_DOF], dp[MAST_NC * MAST_NF], dm[MAST_NC * MAST_NF];
        memcpy(Xp, X, sizeof(X)), memcpy(Xm, X, sizeof(X));
        Xp[mast_free[j]] += h, Xm[mast_free[j]] -= h;
        solve(c, Xp, dp, NULL);
        solve(c, Xm, dm, NULL);
        for (int s = 0; s < MAST_NC; s++) {
            assert_close(dz[s * MAST_NF + j], (Xp[mast_par[s]] - Xm[mast_par[s]]) / (2 * h), 1e-7,
                         1e-9);
            for (int k = 0; k < MAST_NF; k++) {
                const double fd = (dp[s * MAST_NF + k] - dm[s * MAST_NF + k]) / (2 * h);
                assert_close(d2z[(s * MAST_NF + k) * MAST_NF + j], fd, 1e-6, 1e-9);
                assert_close(d2z[(s * MAST_NF + k) * MAST_NF + j],
                             d2z[(s * MAST_NF + j) * MAST_NF + k], 1e-13, 0.0);
            }
        }
    }
}

static void test_implicit_derivatives(void **state)
{
    (void)state;
    pkm_contact c[MAST_NC];
    for (int k = 0; k < 4; k++) {
        const double t = 0.13 + 0.21 * k;
        mast_contacts(c);
        check_derivatives(c, t);
        bowl_contacts(c);
        check_derivatives(c, t);
        poly_contacts(c, 1.0);
        check_derivatives(c, t);
    }
}

/* A Y-dependent surface makes the parasitic coordinates depend on Y; the same quadric written as
 * a polynomial gives the same solution and derivatives. */
static void test_polynomial_equals_quadric(void **state)
{
    (void)state;
    pkm_contact q[MAST_NC], p[MAST_NC];
    bowl_contacts(q);
    poly_contacts(p, 0.0);
    double Xq[PKM_POSE_DOF] = {0}, Xp[PKM_POSE_DOF] = {0}, dq[MAST_NC * MAST_NF],
           dp[MAST_NC * MAST_NF], d2q[MAST_NC * MAST_NF * MAST_NF],
           d2p[MAST_NC * MAST_NF * MAST_NF];
    mast_free_at(0.37, Xq);
    mast_free_at(0.37, Xp);
    solve(q, Xq, dq, d2q);
    solve(p, Xp, dp, d2p);
    assert_close(Xq[2], Xp[2], 1e-13, 1e-13);
    assert_close(Xq[5], Xp[5], 1e-13, 1e-15);
    for (int i = 0; i < MAST_NC * MAST_NF; i++)
        assert_close(dq[i], dp[i], 1e-11, 1e-14);
    for (int i = 0; i < MAST_NC * MAST_NF * MAST_NF; i++)
        assert_close(d2q[i], d2p[i], 1e-10, 1e-14);
    assert_true(fabs(dq[0 * MAST_NF + 1]) > 1e-3); /* dZ/dY */
}

static void expect_failure(int nc, const pkm_contact *c, const int *p, pkm_status want,
                           const char *what)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double X[PKM_POSE_DOF] = {0};
    assert_int_equal(pkm_contact_parasitic(nc, c, p, 0.25, X, NULL, NULL, &ctx), want);
    if (!strstr(ctx.msg, what)) {
        print_error("message \"%s\" does not name %s\n", ctx.msg, what);
        fail();
    }
}

/* A surface the point cannot reach, a contact the parasitic coordinate cannot move, bad data. */
static void test_bad_input(void **state)
{
    (void)state;
    pkm_contact c[MAST_NC];
    mast_contacts(c);
    const int pz[1] = {2}, pg[1] = {5}, same[MAST_NC] = {2, 2}, out[MAST_NC] = {2, 6};
    /* Sphere of radius 10 mm about (0, 0, -200): a condyle 50 mm off the Z axis misses it. */
    pkm_contact s = c[0];
    s.surface.kind = PKM_SURFACE_QUADRIC;
    s.surface.a[0][0] = s.surface.a[1][1] = s.surface.a[2][2] = 1.0;
    s.surface.b[0] = 0.0, s.surface.b[1] = 0.0, s.surface.b[2] = 400.0;
    s.surface.c = 200.0 * 200.0 - 100.0;
    expect_failure(1, &s, pz, PKM_ERR_UNREACHABLE, "condyle_L");
    expect_failure(1, &s, pz, PKM_ERR_UNREACHABLE, "t = 0.25");
    /* A horizontal plane: turning about Z cannot move the condyle's height. */
    pkm_contact h = c[0];
    h.surface.b[0] = 0.0, h.surface.c = 10.0;
    expect_failure(1, &h, pg, PKM_ERR_UNREACHABLE, "condyle_L");
    expect_failure(MAST_NC, c, same, PKM_ERR_INVALID, "condyle_R");
    expect_failure(MAST_NC, c, out, PKM_ERR_INVALID, "index 6");
    expect_failure(0, c, mast_par, PKM_ERR_INVALID, "0 parasitic");
    h.surface.b[2] = 0.0;
    expect_failure(1, &h, pz, PKM_ERR_INVALID, "plane normal");
    poly_contacts(c, 1.0);
    c[1].surface.pow[2][1] = -1;
    expect_failure(MAST_NC, c, mast_par, PKM_ERR_INVALID, "exponent -1");
    c[1].surface.nterm = 0;
    expect_failure(MAST_NC, c, mast_par, PKM_ERR_INVALID, "0 terms");
    c[0].surface.coef[0] = NAN;
    expect_failure(MAST_NC, c, mast_par, PKM_ERR_INVALID, "not finite");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_plane_closed_form),
        cmocka_unit_test(test_residual_derivatives),
        cmocka_unit_test(test_implicit_derivatives),
        cmocka_unit_test(test_polynomial_equals_quadric),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
