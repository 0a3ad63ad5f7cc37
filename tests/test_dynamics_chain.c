/* tests/test_dynamics_chain.c: a spatial closed chain with spherical, universal, prismatic and
 * helical joints and a redundant actuation (three drives, one degree of freedom): closure
 * residuals, power balance, the dense KKT reference, the minimum-norm drives against the
 * pseudo-inverse by a second route, the forward dynamics under those drives, frame invariance;
 * and the bad inputs.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dyn_util.h"

#include "pkm/forward.h"
#include "pkm/spatial.h"

#include <stdio.h>

/* A rigid placement of the whole mechanism: x -> R x + p. */
typedef struct xform {
    double R[3][3], p[3];
} xform;

static void xpoint(const xform *x, const double a[3], double out[3])
{
    pkm_mat3_apply(PKM_CONST33(x->R), a, out);
    pkm_vec3_axpy(1.0, x->p, out);
}

static int body(pkm_model *m, const xform *x, const char *name, const double o[3], double mass,
                const double com[3], const double Jd[3])
{
    pkm_rigid_desc d = {.name = name, .mass = mass};
    double c[3];
    xpoint(x, o, d.origin);
    xpoint(x, com, c);
    memcpy(d.com, c, sizeof(c));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                d.inertia[i][j] += x->R[i][k] * Jd[k] * x->R[j][k];
    int id = -1;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_add_rigid(m, &d, &id, &ctx), PKM_OK);
    return id;
}

static void joint(pkm_model *m, const xform *x, const char *name, pkm_joint_type type, int a, int b,
                  const double pt[3], const double ax[3], const double ax2[3], int cut, int act)
{
    pkm_joint_desc d = {.name = name,
                        .type = type,
                        .body_a = a,
                        .body_b = b,
                        .cut = cut,
                        .actuated = act,
                        .pitch = 0.05};
    xpoint(x, pt, d.point);
    pkm_mat3_apply(PKM_CONST33(x->R), ax, d.axis);
    pkm_mat3_apply(PKM_CONST33(x->R), ax2, d.axis2);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_model_add_joint(m, &d, NULL, &ctx);
    if (st != PKM_OK) printf("%s\n", ctx.msg);
    assert_int_equal(st, PKM_OK);
}

/* Three loops: ground -R- crank -S- coupler -U- rocker -R(cut)- ground; ground -P- slider -S-
 * rod1 -U(cut)- rocker; ground -H- nut -S (off the screw's axis)- rod2 -U(cut)- coupler. Crank,
 * slider and nut are actuated. Joint order: crank, S1, U1, rocker, P, S2, U2, H, S3, U3. */
static pkm_model *chain(const xform *x)
{
    static const double O[3] = {0, 0, 0}, A[3] = {0.1, 0, 0}, B[3] = {0.35, 0.15, 0.1},
                        C[3] = {0.4, 0.0, -0.05}, D[3] = {0.6, 0.1, 0}, E[3] = {0.45, 0.05, 0.05},
                        F[3] = {0.2, 0.3, 0}, Fs[3] = {0.2, 0.3, 0.05}, G[3] = {0.25, 0.08, 0.05};
    static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    static const double J1[3] = {0.01, 0.02, 0.015}, J2[3] = {0.003, 0.004, 0.002};
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_create(&m, &ctx), PKM_OK);
    const int crank = body(m, x, "crank", O, 0.5, (const double[3]){0.05, 0.01, 0}, J2);
    const int coupler = body(m, x, "coupler", A, 1.2, (const double[3]){0.22, 0.09, 0.06}, J1);
    const int rocker = body(m, x, "rocker", C, 0.9, (const double[3]){0.4, 0.07, 0.03}, J1);
    const int slider = body(m, x, "slider", D, 0.7, (const double[3]){0.6, 0.1, 0.01}, J2);
    const int rod1 = body(m, x, "rod1", D, 0.3, (const double[3]){0.52, 0.07, 0.03}, J2);
    const int nut = body(m, x, "nut", F, 0.4, (const double[3]){0.21, 0.3, 0}, J2);
    const int rod2 = body(m, x, "rod2", Fs, 0.3, (const double[3]){0.23, 0.2, 0.02}, J2);
    joint(m, x, "crank", PKM_JOINT_REVOLUTE, PKM_GROUND, crank, O, ez, ex, 0, 1);
    joint(m, x, "S1", PKM_JOINT_SPHERICAL, crank, coupler, A, ez, ex, 0, 0);
    joint(m, x, "U1", PKM_JOINT_UNIVERSAL, coupler, rocker, B, ez, ex, 0, 0);
    joint(m, x, "rocker", PKM_JOINT_REVOLUTE, PKM_GROUND, rocker, C, ey, ex, 1, 0);
    joint(m, x, "P", PKM_JOINT_PRISMATIC, PKM_GROUND, slider, D, ez, ex, 0, 1);
    joint(m, x, "S2", PKM_JOINT_SPHERICAL, slider, rod1, D, ez, ex, 0, 0);
    joint(m, x, "U2", PKM_JOINT_UNIVERSAL, rod1, rocker, E, ey, ex, 1, 0);
    joint(m, x, "H", PKM_JOINT_HELICAL, PKM_GROUND, nut, F, ex, ey, 0, 1);
    joint(m, x, "S3", PKM_JOINT_SPHERICAL, nut, rod2, Fs, ez, ex, 0, 0);
    joint(m, x, "U3", PKM_JOINT_UNIVERSAL, rod2, coupler, G, ex, ez, 1, 0);
    return m;
}

static const xform identity = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {0, 0, 0}};

static pkm_mbs *chain_system(const xform *x, pkm_model **m, const double g[3])
{
    *m = chain(x);
    pkm_mbs *s = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_mbs_create(*m, g, &s, &ctx), PKM_OK);
    assert_int_equal(pkm_mbs_coord_count(s), 14);
    assert_int_equal(pkm_mbs_constraint_count(s), 13);
    int crank;
    assert_int_equal(pkm_mbs_joint_coords(s, 0, &crank), 1);
    assert_int_equal(pkm_mbs_set_driven(s, 1, &crank, &ctx), PKM_OK);
    return s;
}

/* The crank at 0.4 sin(t) from the previous solution, then the inverse dynamics. */
static pkm_status chain_at(pkm_mbs *s, double t, const double *w, pkm_joint_result *res,
                           pkm_ctx *ctx)
{
    const double q = 0.4 * sin(t), qd = 0.4 * cos(t), qdd = -0.4 * sin(t);
    pkm_status st = pkm_mbs_kinematics(s, t, &q, &qd, &qdd, ctx);
    if (st == PKM_OK && res != NULL) st = pkm_mbs_inverse(s, w, res, ctx);
    return st;
}

static double energy(pkm_mbs *s, double t)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(chain_at(s, t, NULL, NULL, &ctx), PKM_OK);
    double T, V;
    pkm_mbs_energy(s, &T, &V);
    return T + V;
}

static const int act_joint[3] = {0, 4, 7}; /* crank, P, H */

static void test_chain_balance(void **state)
{
    (void)state;
    pkm_model *m = NULL;
    const double g[3] = {0.3, -0.2, -9.81};
    pkm_mbs *s = chain_system(&identity, &m, g);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double w[3] = {1.0, 4.0, 0.25};
    for (double t = 0.0; t <= 3.0; t += 0.05) {
        pkm_joint_result res[10];
        const pkm_status st = chain_at(s, t, NULL, res, &ctx);
        if (st != PKM_OK) printf("%s\n", ctx.msg);
        assert_int_equal(st, PKM_OK);
        double pos, vel;
        pkm_mbs_closure_residual(s, &pos, &vel);
        assert_true(pos < 1e-12 && vel < 1e-12);
        if (fmod(t + 1e-9, 0.5) > 1e-6) continue;
        /* Power balance and KKT. */
        const double h = 1e-3;
        const double dE = (energy(s, t - 2 * h) - 8 * energy(s, t - h) + 8 * energy(s, t + h) -
                           energy(s, t + 2 * h)) /
                          (12 * h);
        assert_int_equal(chain_at(s, t, NULL, res, &ctx), PKM_OK);
        const int n = pkm_mbs_coord_count(s);
        double tau[14] = {0}, qkkt[14], P = 0.0, M[196], hv[14], gq[14], a[3], b = 0.0;
        for (int i = 0; i < 3; i++) {
            int c;
            pkm_mbs_joint_coords(s, act_joint[i], &c);
            tau[c] = res[act_joint[i]].drive;
            a[i] = pkm_mbs_qd(s)[c];
            P += tau[c] * a[i];
        }
        /* relative to the gross power sum |tau_i qd_i|: the net power crosses zero */
        double gross = 0.0;
        for (int i = 0; i < 3; i++)
            gross += fabs(res[act_joint[i]].drive * a[i]);
        printf("t %.2f power %.12f dE/dt %.12f rel %.2e\n", t, P, dE, fabs(P - dE) / gross);
        assert_true(fabs(P - dE) <= 1e-8 * gross);
        dyn_kkt(s, tau, qkkt);
        for (int k = 0; k < n; k++)
            assert_true(fabs(qkkt[k] - pkm_mbs_qdd(s)[k]) < 1e-9 * (1.0 + fabs(qkkt[k])));
        /* Second route to the minimum-norm drives: with one degree of freedom, the rates are
         * qd = G z, so G^T (M qdd + h) = a . tau with a the actuators' rates; the weighted
         * minimum of sum(w tau^2) is tau_i = a_i / w_i b / sum(a_j^2 / w_j). */
        pkm_mbs_mass_matrix(s, M, hv);
        for (int i = 0; i < n; i++) {
            gq[i] = hv[i];
            for (int j = 0; j < n; j++)
                gq[i] += M[i * n + j] * pkm_mbs_qdd(s)[j];
            b += pkm_mbs_qd(s)[i] * gq[i];
        }
        double aa = 0.0, aw = 0.0;
        for (int i = 0; i < 3; i++) {
            aa += a[i] * a[i];
            aw += a[i] * a[i] / w[i];
        }
        for (int i = 0; i < 3; i++)
            assert_true(fabs(res[act_joint[i]].drive - a[i] * b / aa) <= 1e-9 * fabs(b) / sqrt(aa));
        assert_int_equal(chain_at(s, t, w, res, &ctx), PKM_OK);
        for (int i = 0; i < 3; i++)
            assert_true(fabs(res[act_joint[i]].drive - a[i] / w[i] * b / aw) <=
                        1e-9 * fabs(b) / sqrt(aw));
    }
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

/* The chain's motion on a reference system: its minimum-norm (or weighted) drives. */
typedef struct chain_ref {
    pkm_mbs *ref;
    const double *w;
    double dev;
} chain_ref;

static pkm_status chain_drive(double t, const double *q, const double *qd, double *tau, void *user,
                              pkm_ctx *ctx)
{
    (void)q, (void)qd;
    chain_ref *c = user;
    pkm_joint_result res[10];
    pkm_status st = chain_at(c->ref, t, c->w, res, ctx);
    for (int i = 0; st == PKM_OK && i < 3; i++)
        tau[i] = res[act_joint[i]].drive;
    return st;
}

static pkm_status chain_follow(const pkm_fwd_record *r, void *user, pkm_ctx *ctx)
{
    chain_ref *c = user;
    pkm_status st = chain_at(c->ref, r->t, NULL, NULL, ctx);
    for (int k = 0; st == PKM_OK && k < 14; k++)
        c->dev = fmax(c->dev, fabs(r->y[k] - pkm_mbs_q(c->ref)[k]));
    return st;
}

/* Redundant actuation: the forward dynamics under the three drives of the minimum-norm (and of
 * the weighted) inverse solution reproduces the crank's motion, passive joints included, over
 * 1 s at 1 ms. */
static void test_chain_forward(void **state)
{
    (void)state;
    const double g[3] = {0.3, -0.2, -9.81}, w[3] = {1.0, 4.0, 0.25};
    for (int weighted = 0; weighted < 2; weighted++) {
        pkm_model *m = NULL, *m2 = NULL;
        pkm_mbs *s = chain_system(&identity, &m, g);
        chain_ref c = {.ref = chain_system(&identity, &m2, g), .w = weighted ? w : NULL};
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_int_equal(chain_at(c.ref, 0.0, NULL, NULL, &ctx), PKM_OK);
        double y[PKM_FWD_STATES(14)] = {0};
        memcpy(y, pkm_mbs_q(c.ref), sizeof(double) * 14);
        memcpy(y + 14, pkm_mbs_qd(c.ref), sizeof(double) * 14);
        pkm_fwd *f = NULL;
        assert_pkm_ok(pkm_fwd_create(s, chain_drive, &c, NULL, PKM_FWD_EPS, &f, &ctx), &ctx);
        assert_pkm_ok(pkm_fwd_run(f, 0.0, 1e-3, 1000, y, chain_follow, &c, &ctx), &ctx);
        printf("redundant drives (%s): forward |q - q_motion| at most %.2e over 1 s\n",
               weighted ? "weighted" : "minimum norm", c.dev);
        assert_true(c.dev < 1e-9);
        pkm_fwd_destroy(&f);
        pkm_mbs_destroy(&c.ref);
        pkm_mbs_destroy(&s);
        pkm_model_destroy(&m2);
        pkm_model_destroy(&m);
    }
}

/* Rotating and translating the mechanism with its gravity leaves the scalar outputs unchanged
 * (seed notes' V13). */
static void test_chain_frame_invariance(void **state)
{
    (void)state;
    xform x;
    const double ax[3] = {0.48, -0.6, 0.64};
    pkm_rot_rodrigues(ax, 0.9, x.R);
    x.p[0] = 1.5;
    x.p[1] = -0.7;
    x.p[2] = 2.0;
    const double g[3] = {0.3, -0.2, -9.81};
    double gx[3];
    pkm_mat3_apply(PKM_CONST33(x.R), g, gx);
    pkm_model *m0 = NULL, *m1 = NULL;
    pkm_mbs *s0 = chain_system(&identity, &m0, g), *s1 = chain_system(&x, &m1, gx);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double err = 0.0;
    for (double t = 0.0; t <= 2.0; t += 0.1) {
        pkm_joint_result r0[10], r1[10];
        assert_int_equal(chain_at(s0, t, NULL, r0, &ctx), PKM_OK);
        assert_int_equal(chain_at(s1, t, NULL, r1, &ctx), PKM_OK);
        for (int j = 0; j < 10; j++) {
            const double d[6] = {r0[j].drive - r1[j].drive,
                                 r0[j].ideal - r1[j].ideal,
                                 r0[j].f_axial - r1[j].f_axial,
                                 r0[j].f_radial - r1[j].f_radial,
                                 r0[j].m_bending - r1[j].m_bending,
                                 r0[j].ncoord == 1 ? r0[j].q[0] - r1[j].q[0] : 0.0};
            for (int k = 0; k < 6; k++) {
                if (fabs(d[k]) > 1e-9) printf("t %g joint %d output %d: %g\n", t, j, k, d[k]);
                err = fmax(err, fabs(d[k]));
            }
        }
    }
    printf("frame invariance: largest change of a scalar output %.2e\n", err);
    assert_true(err < 1e-9);
    pkm_mbs_destroy(&s0);
    pkm_mbs_destroy(&s1);
    pkm_model_destroy(&m0);
    pkm_model_destroy(&m1);
}

/* The sparse solves against the dense reference on the chain placed at random (the kinematics
 * sparse; the inverse dynamics dense, the actuation being redundant). */
static void test_chain_sparse(void **state)
{
    (void)state;
    srand(7);
    for (int trial = 0; trial < 3; trial++) {
        xform x;
        double ax[3];
        for (int k = 0; k < 3; k++) {
            ax[k] = rand() / (double)RAND_MAX - 0.5;
            x.p[k] = 4.0 * (rand() / (double)RAND_MAX - 0.5);
        }
        const double n = pkm_vec3_norm(ax);
        for (int k = 0; k < 3; k++)
            ax[k] /= n;
        pkm_rot_rodrigues(ax, 3.0 * rand() / (double)RAND_MAX, x.R);
        pkm_model *m = NULL;
        int crank;
        pkm_mbs *s = chain_system(&x, &m, (const double[3]){0, 0, -9.81});
        pkm_mbs_joint_coords(s, 0, &crank);
        pkm_mbs_destroy(&s);
        const dyn_motion mo = {crank, 0.4, 0.0};
        assert_int_equal(dyn_compare_solvers(m, (const double[3]){0.3, -0.2, -9.81}, &mo, 0.1, 21),
                         21);
        pkm_model_destroy(&m);
    }
}

static void test_bad_input(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    /* An actuated cut. */
    pkm_model *m = dyn_loop3();
    assert_string_equal(pkm_model_body(m, 3)->name, "link 4");
    assert_string_equal(pkm_model_body(m, 2)->name, "link 3");
    pkm_joint_desc d = {.name = "Cx",
                        .type = PKM_JOINT_REVOLUTE,
                        .body_a = 3,
                        .body_b = 2,
                        .point = {-0.0089, -0.0644, 0},
                        .axis = {0, 0, 1},
                        .cut = 1,
                        .actuated = 1};
    assert_int_equal(pkm_model_add_joint(m, &d, NULL, &ctx), PKM_OK);
    pkm_mbs *s = NULL;
    assert_int_equal(pkm_mbs_create(m, (const double[3]){0, -9.8, 0}, &s, &ctx), PKM_ERR_MODEL);
    assert_null(s);
    assert_non_null(strstr(ctx.msg, "'Cx'"));
    pkm_model_destroy(&m);
    /* An actuated joint that is not 1-dof is refused by the model. */
    pkm_ctx_clear(&ctx);
    m = dyn_loop3();
    d.type = PKM_JOINT_SPHERICAL;
    d.cut = 0;
    d.name = "Sx";
    assert_int_equal(pkm_model_add_joint(m, &d, NULL, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "'Sx'"));
    /* Driven coordinates that leave the chain free: none driven. */
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_mbs_create(m, (const double[3]){0, -9.8, 0}, &s, &ctx), PKM_OK);
    assert_int_equal(pkm_mbs_set_driven(s, 0, NULL, &ctx), PKM_OK);
    assert_int_equal(pkm_mbs_kinematics(s, 0.0, NULL, NULL, NULL, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "do not fix the mobility"));
    printf("%s\n", ctx.msg);
    pkm_ctx_clear(&ctx);
    const int bad[2] = {0, 0};
    assert_int_equal(pkm_mbs_set_driven(s, 2, bad, &ctx), PKM_ERR_INVALID);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
    /* A tree joint left unactuated cannot be driven: its coordinate is free. */
    pkm_ctx_clear(&ctx);
    m = dyn_tree5();
    assert_int_equal(pkm_mbs_create(m, (const double[3]){0, 0, -9.8}, &s, &ctx), PKM_OK);
    int c;
    pkm_mbs_joint_coords(s, 2, &c);
    int idx[4], n = 0;
    for (int k = 0; k < 5; k++)
        if (k != c) idx[n++] = k;
    assert_int_equal(pkm_mbs_set_driven(s, 4, idx, &ctx), PKM_OK);
    const double z[4] = {0, 0, 0, 0};
    assert_int_equal(pkm_mbs_kinematics(s, 0.0, z, z, z, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "'3'"));
    pkm_mbs_destroy(&s);
    pkm_mbs_destroy(&s); /* NULL-safe */
    pkm_model_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_balance),
        cmocka_unit_test(test_chain_forward),
        cmocka_unit_test(test_chain_frame_invariance),
        cmocka_unit_test(test_chain_sparse),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
