/* tests/test_dynamics_modules.c: the module chain of Paz Anaya and Mattila 2024 on the crane of
 * Petrovic and Mattila 2022: data integrity (masses, tool point, statics), closed-form loop
 * kinematics and the anchor values of the reconstruction (loop 1 on its fixed pillar), the three
 * forms of the drive, the pin and base wrenches, inverse(forward) round trips along 10 s
 * sinusoids, the singular stroke, bad input. The references (KKT, mass matrix, energy):
 * test_dynamics_modules_ref.c.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "chain_util.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

/* The masses of the data set's bodies add up to the paper's 415 kg and 1,063 kg. */
static void test_masses(void **state)
{
    (void)state;
    pkm_chain *b = machine("boom1"), *c = machine("crane4");
    assert_close(pkm_chain_mass(b), 415.11765268, 0, 1e-8);
    assert_close(pkm_chain_mass(c), 1062.93489445, 0, 1e-8);
    assert_int_equal(pkm_chain_dof(b), 1);
    assert_int_equal(pkm_chain_dof(c), 4);
    pkm_chain_destroy(&b);
    pkm_chain_destroy(&c);
    assert_null(c);
    pkm_chain_destroy(&c);
}

/* The stroke of a loop of the crane for the data set's joint angle Theta (its FK notebook:
 * q1 = Theta1 - pi/2 - beta1 - beta2, q2 = Theta2 - beta3 - beta4), by the law of cosines. */
static double stroke(const pkm_chain_module *m, double theta, double offset)
{
    return sqrt(m->La * m->La + m->Lb * m->Lb + 2 * m->La * m->Lb * cos(theta - offset)) - m->x0;
}

/* The crane's coordinates at (Theta1, Theta2, xt), no slew. */
static void crane_pose(const pkm_chain *c, double t1, double t2, double xt, double q[4])
{
    q[0] = 0.0;
    q[1] = stroke(pkm_chain_module_get(c, 1), t1, 2.0735050579281933);
    q[2] = stroke(pkm_chain_module_get(c, 2), t2, 0.4115766766211739);
    q[3] = xt;
}

/* The tool point D22 (0.405, -0.131, -0.013) m in the end mass's frame P32 against the data
 * set's closed form WrWD22.m (coefficients printed to 6 digits). */
static void test_tcp(void **state)
{
    (void)state;
    static const double T[3][3] = {{PKM_PI / 4, -PKM_PI / 2, 0.5},
                                   {0.3, -0.8, 0.2},
                                   {20 * PKM_PI / 180, -50 * PKM_PI / 180, 0.5}};
    static const double d22[3] = {0.40499744871392, -0.13130517281345, -0.013385243295654};
    pkm_chain *c = machine("crane4");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int k = 0; k < 3; k++) {
        const double t1 = T[k][0], t2 = T[k][1], xt = T[k][2], w = -0.00152855 - 0.000928646 * xt;
        const double ref[3] = {-0.189261 + (1.99949 + xt) * cos(t1 + t2) +
                                   (-0.100002 + w * cos(t2)) * sin(t1) +
                                   cos(t1) * (1.59687 + w * sin(t2)) - 0.152638 * sin(t1 + t2),
                               0.85 +
                                   sin(t1) * (1.59687 + (1.99949 + xt) * cos(t2) +
                                              (-0.154167 - 0.000928646 * xt) * sin(t2)) +
                                   cos(t1) * (0.100002 + (0.154167 + 0.000928646 * xt) * cos(t2) +
                                              (1.99949 + xt) * sin(t2)),
                               -0.0092303};
        double q[4], p[3];
        pkm_chain_pose P[4 * PKM_CHAIN_NBODY];
        crane_pose(c, t1, t2, xt, q);
        assert_pkm_ok(pkm_chain_poses(c, q, P, &ctx), &ctx);
        const pkm_chain_pose *e = &P[3 * PKM_CHAIN_NBODY + PKM_CHAIN_END];
        pkm_mat3_apply(PKM_CONST33(e->R), d22, p);
        for (int i = 0; i < 3; i++)
            assert_close(p[i] + e->r[i], ref[i], 0, 1e-5);
    }
    pkm_chain_destroy(&c);
}

/* Static drives of the crane at the data set's initial state (Theta = 45, -90 deg, xt = 0.5 m):
 * the reconstruction's values, the slew free of gravity (its axis is vertical), and within 3 %
 * of the forces of the initial pressures p_a A_a - p_b A_b (54,722.44 N and 32,966.19 N). The
 * boom at rest takes its weight from the pillar's base. */
static void test_statics(void **state)
{
    (void)state;
    pkm_chain *c = machine("crane4");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double q[4], fs[4];
    crane_pose(c, PKM_PI / 4, -PKM_PI / 2, 0.5, q);
    assert_pkm_ok(pkm_chain_gravity(c, q, fs, NULL, &ctx), &ctx);
    assert_close(fs[1], 55433.40, 1e-6, 0);
    assert_close(fs[2], 33391.11, 1e-6, 0);
    assert_close(fs[3], -3996.82, 1e-6, 0);
    assert_close(fs[0], 0.0, 0, 1e-9 * fs[1]);
    assert_close(fs[1], 54722.44, 0.03, 0);
    assert_close(fs[2], 32966.19, 0.03, 0);
    pkm_chain_destroy(&c);
    /* boom1 at rest: base force = weight (world y up), moment = centre of mass x weight */
    c = machine("boom1");
    const double x = 0.3, z = 0.0;
    double f, com[3] = {0, 0, 0}, mass = 0.0;
    pkm_chain_loads L;
    pkm_chain_pose P[PKM_CHAIN_NBODY];
    assert_pkm_ok(pkm_chain_inverse(c, &x, &z, &z, &f, &L, &ctx), &ctx);
    assert_pkm_ok(pkm_chain_poses(c, &x, P, &ctx), &ctx);
    const pkm_chain_module *m = pkm_chain_module_get(c, 0);
    for (int k = 0; k < PKM_CHAIN_NBODY; k++) {
        double p[3];
        pkm_mat3_apply(PKM_CONST33(P[k].R), m->body[k].com, p);
        pkm_vec3_axpy(1.0, P[k].r, p);
        pkm_vec3_sub(p, P[PKM_CHAIN_BASE].r, p);
        pkm_vec3_axpy(m->body[k].mass, p, com);
        mass += m->body[k].mass;
    }
    const double W[3] = {0.0, mass * PKM_HIAB_GRAVITY, 0.0}, up[3] = {0.0, PKM_HIAB_GRAVITY, 0.0};
    double M[3], Fb[3], Mb[3];
    pkm_vec3_cross(com, up, M); /* com holds the first moment */
    pkm_mat3_apply_t(PKM_CONST33(P[PKM_CHAIN_BASE].R), W, Fb);
    pkm_mat3_apply_t(PKM_CONST33(P[PKM_CHAIN_BASE].R), M, Mb);
    for (int i = 0; i < 3; i++) {
        assert_close(L.base[i], Fb[i], 0, 1e-12 * W[1]);
        assert_close(L.base[i + 3], Mb[i], 0, 1e-12 * W[1]);
    }
    pkm_chain_destroy(&c);
}

/* Anchors of loop 1 at rest (computed independently by the reconstruction's prototype, printed
 * to 12 and 10 significant digits): q, a, the static drive and the actuator-space inertia. */
static void test_anchors_static(void **state)
{
    (void)state;
    static const struct {
        double x, q[3], a[3], fs, d;
    } T[] = {{0.05,
              {-2.098312106649, -0.378248968187, -1.720063138462},
              {2.688720187312, -0.170892460570, 2.859612647881},
              1715.695753,
              473.373449},
             {0.19,
              {-1.723656851662, -0.373022906837, -1.350633944824},
              {2.724588760136, 0.219401891860, 2.505186868275},
              1542.315518,
              486.073248},
             {0.30,
              {-1.410190500999, -0.334772203839, -1.075418297160},
              {3.022113736429, 0.478155913078, 2.543957823351},
              1343.174868,
              597.947631},
             {0.45,
              {-0.880066864946, -0.228463363320, -0.651603501626},
              {4.384152649197, 1.024270898017, 3.359881751180},
              647.559065,
              1257.589385}};
    pkm_chain *c = machine("boom1");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++) {
        pkm_chain_loop_state ls;
        assert_pkm_ok(pkm_chain_loop_closure(pkm_chain_module_get(c, 0), T[i].x, 0.0,
                                             PKM_CHAIN_SINGULAR, &ls, &ctx),
                      &ctx);
        for (int k = 0; k < 3; k++) {
            assert_close(ls.q[k], T[i].q[k], 1e-9, 5e-13);
            assert_close(ls.a[k], T[i].a[k], 1e-9, 5e-13);
        }
        /* closure identities: q11 + q12 = q1, a11 + a12 = a1 */
        assert_close(ls.q[1] + ls.q[2], ls.q[0], 0, 1e-13);
        assert_close(ls.a[1] + ls.a[2], ls.a[0], 1e-13, 0);
        double fs, M;
        assert_pkm_ok(pkm_chain_gravity(c, &T[i].x, &fs, NULL, &ctx), &ctx);
        assert_pkm_ok(pkm_chain_mass_matrix(c, &T[i].x, &M, &ctx), &ctx);
        assert_close(fs, T[i].fs, 1e-9, 5e-7);
        assert_close(M, T[i].d, 1e-9, 5e-7);
    }
    pkm_chain_destroy(&c);
}

/* a and b against central differences of q(x) and of q'(x) along x(t) = x + v t + acc t^2 / 2. */
static void test_closure_derivatives(void **state)
{
    (void)state;
    pkm_chain *c = machine("crane4");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int m = 1; m <= 2; m++) {
        const pkm_chain_module *mod = pkm_chain_module_get(c, m);
        const double x = 0.2 + 0.1 * m, v = 0.3, h = 1e-6;
        pkm_chain_loop_state s0, sp, sm;
        assert_pkm_ok(pkm_chain_loop_closure(mod, x, v, 1e-2, &s0, &ctx), &ctx);
        assert_pkm_ok(pkm_chain_loop_closure(mod, x + h, v, 1e-2, &sp, &ctx), &ctx);
        assert_pkm_ok(pkm_chain_loop_closure(mod, x - h, v, 1e-2, &sm, &ctx), &ctx);
        /* at zero acceleration: q'' = b = d/dt (a(x(t)) v) = a'(x) v^2 */
        for (int k = 0; k < 3; k++) {
            assert_close(s0.a[k], (sp.q[k] - sm.q[k]) / (2 * h), 1e-8, 0);
            assert_close(s0.b[k], (sp.a[k] - sm.a[k]) / (2 * h) * v * v, 1e-6, 1e-9);
        }
        assert_close(s0.b[1] + s0.b[2], s0.b[0], 1e-12, 1e-14);
    }
    pkm_chain_destroy(&c);
}

/* Dynamic anchors of loop 1 (inverse dynamics); the drive by virtual power equals the closed form
 * of Cramer's rule and the rod's axial wrench; the pins pass no moment about their axes; the
 * base wrench is the sum of the body wrenches carried to the base. */
static void test_anchors_dynamic(void **state)
{
    (void)state;
    pkm_chain *c = machine("boom1");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double s1[3] = {0.30, 0.10, 0.50}, s2[3] = {0.19, -0.20, -1.00};
    double f;
    pkm_chain_loads L;
    assert_pkm_ok(pkm_chain_inverse(c, &s1[0], &s1[1], &s1[2], &f, &L, &ctx), &ctx);
    assert_close(f, 1650.360459, 1e-9, 5e-7);
    assert_close(L.pin_rod[0], 731.016512, 1e-9, 5e-7);
    assert_close(L.pin_rod[1], 1359.833972, 1e-9, 5e-7);
    assert_close(L.tau_closed, f, 1e-12, 0);
    assert_close(L.slide[0], f, 1e-12, 0);
    assert_close(L.pin_upper[5], 0.0, 0, 1e-12 * fabs(f));
    assert_close(L.pin_barrel[5], 0.0, 0, 1e-12 * fabs(f));
    assert_pkm_ok(pkm_chain_inverse(c, &s2[0], &s2[1], &s2[2], &f, &L, &ctx), &ctx);
    assert_close(f, 1067.140933, 1e-9, 5e-7);
    assert_close(L.tau_closed, f, 1e-12, 0);
    pkm_chain_destroy(&c);
}

/* forward(inverse(qdd)) = qdd and inverse(forward(f)) = f every 10 ms over 10 s. */
static void round_trip(const char *name)
{
    pkm_chain *c = machine(name);
    const int n = pkm_chain_dof(c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double q[4], qd[4], qdd[4], f[4], a[4], f2[4], ea = 0.0, ef = 0.0, sum = 0.0;
    for (int k = 0; k <= 1000; k++) {
        motion(name, 0.01 * k, q, qd, qdd);
        assert_pkm_ok(pkm_chain_inverse(c, q, qd, qdd, f, NULL, &ctx), &ctx);
        assert_pkm_ok(pkm_chain_forward(c, q, qd, f, a, &ctx), &ctx);
        assert_pkm_ok(pkm_chain_inverse(c, q, qd, a, f2, NULL, &ctx), &ctx);
        for (int i = 0; i < n; i++) {
            const double e = fabs(a[i] - qdd[i]) / fmax(1.0, fabs(qdd[i]));
            ea = fmax(ea, e);
            sum += fabs(a[i] - qdd[i]);
            ef = fmax(ef, fabs(f2[i] - f[i]) / fabs(f[i]));
            assert_true(e <= 1e-12);
            assert_true(fabs(f2[i] - f[i]) <= 1e-12 * fabs(f[i]));
        }
    }
    printf("%s: forward(inverse) worst %.3g relative, mean %.3g m/s^2 or rad/s^2; "
           "inverse(forward) worst %.3g relative\n",
           name, ea, sum / (1001.0 * n), ef);
    pkm_chain_destroy(&c);
}

static void test_round_trip_boom(void **state)
{
    (void)state;
    round_trip("boom1");
}

static void test_round_trip_crane(void **state)
{
    (void)state;
    round_trip("crane4");
}

/* Loop 1 driven towards its singular stroke (c = L1 + L11 inside the stroke range): an error
 * before |sin q1| falls below the margin, unreachable beyond, no NaN or Inf anywhere. */
static void test_singular(void **state)
{
    (void)state;
    pkm_chain *c = machine("boom1");
    pkm_ctx ctx;
    const pkm_chain_module *m = pkm_chain_module_get(c, 0);
    const double xs = m->La + m->Lb - m->x0;
    assert_close(xs, 0.5532290534341301, 0, 1e-13);
    int singular = 0, unreachable = 0;
    for (double x = 0.50; x <= 0.59; x += 1e-5) {
        const double xd = 0.1, xdd = 0.0;
        double f = NAN;
        pkm_ctx_clear(&ctx);
        const pkm_status st = pkm_chain_inverse(c, &x, &xd, &xdd, &f, NULL, &ctx);
        /* |sin q1| from the law of cosines, independently */
        const double cc = x + m->x0;
        const double cq = (cc * cc - m->La * m->La - m->Lb * m->Lb) / (2 * m->La * m->Lb);
        const double s = sqrt(fmax(0.0, 1.0 - cq * cq));
        if (st == PKM_OK) {
            assert_true(isfinite(f));
            assert_true(s >= PKM_CHAIN_SINGULAR * (1 - 1e-9));
            assert_int_equal(singular + unreachable, 0);
        } else if (st == PKM_ERR_SINGULAR) {
            assert_true(s < PKM_CHAIN_SINGULAR * (1 + 1e-9));
            assert_non_null(strstr(ctx.msg, "cyl1"));
            singular++;
        } else {
            assert_int_equal(st, PKM_ERR_UNREACHABLE);
            assert_true(x + m->x0 >= m->La + m->Lb - 1e-12);
            unreachable++;
        }
    }
    assert_true(singular > 0 && unreachable > 0);
    pkm_chain_destroy(&c);
}

static void test_bad_input(void **state)
{
    (void)state;
    pkm_chain_module mods[4];
    pkm_chain_pose root;
    double g[3];
    int n;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_chain *c = (pkm_chain *)&ctx;
    assert_int_equal(pkm_hiab_modules("boom2", mods, &n, &root, g, &ctx), PKM_ERR_INVALID);
    assert_pkm_ok(pkm_hiab_modules("crane4", mods, &n, &root, g, &ctx), &ctx);
    mods[1].sign[1] = 0;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_chain_create(n, mods, &root, g, &c, &ctx), PKM_ERR_INVALID);
    assert_null(c);
    assert_non_null(strstr(ctx.msg, "cyl1"));
    mods[1].sign[1] = -1;
    mods[2].body[PKM_CHAIN_ROD].inertia[0][1] = 1.0;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_chain_create(n, mods, &root, g, &c, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "cyl2"));
    mods[2].body[PKM_CHAIN_ROD].inertia[0][1] = 0.0;
    mods[3].body[PKM_CHAIN_BARREL].mass = 1.0;
    assert_int_equal(pkm_chain_create(n, mods, &root, g, &c, &ctx), PKM_ERR_INVALID);
    mods[3].body[PKM_CHAIN_BARREL].mass = 0.0;
    root.R[0][0] = 2.0;
    assert_int_equal(pkm_chain_create(n, mods, &root, g, &c, &ctx), PKM_ERR_INVALID);
    root.R[0][0] = 1.0;
    assert_pkm_ok(pkm_chain_create(n, mods, &root, g, &c, &ctx), &ctx);
    const double q[4] = {0, 0.2, 0.3, 1.5}, z[4] = {0, 0, 0, 0};
    double f[4];
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_chain_inverse(c, q, z, z, f, NULL, &ctx), PKM_ERR_UNREACHABLE);
    assert_non_null(strstr(ctx.msg, "ext"));
    assert_int_equal(pkm_chain_set_singular(c, 0.0, &ctx), PKM_ERR_INVALID);
    pkm_chain_destroy(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_masses),
        cmocka_unit_test(test_tcp),
        cmocka_unit_test(test_statics),
        cmocka_unit_test(test_anchors_static),
        cmocka_unit_test(test_closure_derivatives),
        cmocka_unit_test(test_anchors_dynamic),
        cmocka_unit_test(test_round_trip_boom),
        cmocka_unit_test(test_round_trip_crane),
        cmocka_unit_test(test_singular),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
