/* tests/test_rigid_cases.c: the rigid-body cases of Guo, Ju, Wang 2024 (tree5, loop3) against the
 * paper's tables and the reference values derived from them, and the rigid-body models of navaro
 * and pss5upu against their finite-element models.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "pkm/dynamics.h"
#include "pkm/trajectory.h"

#include <stdlib.h>
#include <string.h>

/* The joint of m named name (fails if none). */
static const pkm_joint *joint_named(const pkm_model *m, const char *name)
{
    for (int j = 0; j < pkm_model_joint_count(m); j++)
        if (strcmp(pkm_model_joint(m, j)->name, name) == 0) return pkm_model_joint(m, j);
    fail_msg("no joint '%s'", name);
    return NULL;
}

static pkm_model *build(const char *name, const void *params, const double *pose, int rigid)
{
    const pkm_case *c = pkm_case_find(name);
    assert_non_null(c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok((rigid ? c->build_rigid : c->build)(params, pose, &m, &ctx), &ctx);
    return m;
}

/* 1 if body b lies in the subtree that joint j carries (b is j's child or below it): the tree
 * is walked up from b through the joints whose child is the current body. */
static int in_subtree(const pkm_model *m, const pkm_joint *j, int b)
{
    while (b != PKM_GROUND) {
        if (b == j->body[1]) return 1;
        int up = PKM_GROUND;
        for (int k = 0; k < pkm_model_joint_count(m); k++) {
            const pkm_joint *jk = pkm_model_joint(m, k);
            if (!jk->cut && jk->body[1] == b) up = jk->body[0];
        }
        b = up;
    }
    return 0;
}

/* The joint-space mass matrix of a planar chain of rigid bodies on revolute joints about z, from
 * the model's bodies: M_ij = sum over the bodies k carried by both joints of
 * Jzz_k + m_k (c_k - O_i).(c_k - O_j) (the kinetic energy of rotations about parallel axes). */
static void planar_mass_matrix(const pkm_model *m, const char *const *names, int n, double *M)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const pkm_joint *ji = joint_named(m, names[i]), *jj = joint_named(m, names[j]);
            double s = 0.0;
            for (int k = 0; k < pkm_model_body_count(m); k++) {
                if (!in_subtree(m, ji, k) || !in_subtree(m, jj, k)) continue;
                const pkm_body *b = pkm_model_body(m, k);
                const double ai[2] = {b->com[0] - ji->point[0], b->com[1] - ji->point[1]};
                const double aj[2] = {b->com[0] - jj->point[0], b->com[1] - jj->point[1]};
                s += b->inertia[2][2] + b->mass * (ai[0] * aj[0] + ai[1] * aj[1]);
            }
            M[i * n + j] = s;
        }
}

static const char *const tree5_joints[5] = {"1", "2", "3", "4", "5"};

/* A built-in case by name (pkm_case_open) and its rigid-body model at pose (build_rigid: the
 * actuated joints flagged); *params for pkm_case_params_destroy. */
static const pkm_case *open_case(const char *name, void **params, const double *pose, pkm_model **m)
{
    const pkm_case *c = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_case_open(name, NULL, 0, NULL, &c, params, &ctx), &ctx);
    assert_pkm_ok(c->build_rigid(*params, pose, m, &ctx), &ctx);
    return c;
}

/* tree5 at q = 0: the mass matrix printed in the reference values derived from Table 2 (6
 * decimals), and the axial joint forces 9.8 x the mass each joint carries: 107.8, 58.8, 29.4,
 * 39.2, 19.6 N. */
static void test_tree5_reference(void **state)
{
    (void)state;
    void *p = NULL;
    pkm_model *m = NULL;
    const double q0[5] = {0};
    const pkm_case *c = open_case("tree5", &p, q0, &m);
    static const double Mref[25] = {
        4.729842, 2.999905,  -0.299952, 2.479937, -0.079968, 2.999905, 4.439905, 0.060048, 0,
        0,        -0.299952, 0.060048,  1.139952, 0,         0,        2.479937, 0,        0,
        2.959937, 0.040032,  -0.079968, 0,        0,         0.040032, 0.759968};
    double M[25];
    planar_mass_matrix(m, tree5_joints, 5, M);
    for (int k = 0; k < 25; k++)
        assert_close(M[k], Mref[k], 0.0, 1e-6);
    const pkm_case_dynamics *d = pkm_case_dynamics_of(c, p);
    static const double axial[5] = {107.8, 58.8, 29.4, 39.2, 19.6};
    for (int i = 0; i < 5; i++) {
        const pkm_joint *j = joint_named(m, tree5_joints[i]);
        assert_int_equal(j->type, PKM_JOINT_REVOLUTE);
        assert_true(j->actuated && !j->cut);
        assert_close(j->axis[2], 1.0, 0.0, 0.0);
        double carried = 0.0;
        for (int k = 0; k < pkm_model_body_count(m); k++)
            if (in_subtree(m, j, k)) carried += pkm_model_body(m, k)->mass;
        assert_close(-d->gravity[2] * carried, axial[i], 1e-14, 0.0);
    }
    /* Table 2's friction data, on every joint. */
    assert_close(d->kc, 0.005, 0.0, 0.0);
    assert_close(d->ks, 0.05, 0.0, 0.0);
    assert_int_equal(d->friction_joints, PKM_CASE_FRICTION_ALL);
    for (int i = 0; i < 5; i++)
        assert_true(pkm_case_joint_has_friction(d, joint_named(m, tree5_joints[i])));
    pkm_model_destroy(&m);
    pkm_case_params_destroy(&p);
}

/* tree5 away from home: the links placed by forward kinematics. The joint and centre positions
 * follow the chain written with complex numbers, and the mass matrix entries that depend on no
 * relative angle (M_33, M_55: one link about its own joint) keep their home values. */
static void test_tree5_pose(void **state)
{
    (void)state;
    void *p = NULL;
    pkm_model *m = NULL;
    const double q[5] = {0.3, -1.1, 0.7, 2.0, -0.4};
    const pkm_case *c = open_case("tree5", &p, q, &m);
    /* O_3 = O_1 + e^{i q1} r_2 + e^{i (q1 + q2)} r_3; link 3's centre e^{i (q1 + q2 + q3)} r_3I
     * further; O_5 = O_1 + e^{i q1} r_4 + e^{i (q1 + q4)} r_5. */
    const double a1 = q[0], a2 = q[0] + q[1], a3 = a2 + q[2], a4 = q[0] + q[3];
    const double O3[2] = {-0.4 * cos(a1) + 0.6 * cos(a2) - 1.0392 * sin(a2),
                          -0.4 * sin(a1) + 0.6 * sin(a2) + 1.0392 * cos(a2)};
    const double c3[2] = {O3[0] + 0.3 * cos(a3) + 0.5196 * sin(a3),
                          O3[1] + 0.3 * sin(a3) - 0.5196 * cos(a3)};
    const double O5[2] = {-0.2 * cos(a1) + 0.6 * cos(a4) + 1.0392 * sin(a4),
                          -0.2 * sin(a1) + 0.6 * sin(a4) - 1.0392 * cos(a4)};
    const pkm_joint *j3 = joint_named(m, "3"), *j5 = joint_named(m, "5");
    for (int k = 0; k < 2; k++) {
        assert_close(j3->point[k], O3[k], 0.0, 1e-15);
        assert_close(j5->point[k], O5[k], 0.0, 1e-15);
        assert_close(pkm_model_body(m, j3->body[1])->com[k], c3[k], 0.0, 1e-15);
    }
    /* Link 3's inertia turned by a3: Jxx' = Jxx cos^2 + Jyy sin^2 (Table 2: J_3I = diag(0.008,
     * 0.06, 0.06)). */
    const double J[2] = {0.008, 0.06};
    assert_close(pkm_model_body(m, j3->body[1])->inertia[0][0],
                 J[0] * cos(a3) * cos(a3) + J[1] * sin(a3) * sin(a3), 0.0, 1e-15);
    double M[25];
    planar_mass_matrix(m, tree5_joints, 5, M);
    assert_close(M[2 * 5 + 2], 1.139952, 0.0, 1e-6);
    assert_close(M[4 * 5 + 4], 0.759968, 0.0, 1e-6);
    pkm_model_destroy(&m);
    const double bad[5] = {0.0, NAN, 0.0, 0.0, 0.0};
    assert_build_invalid(c->build_rigid, p, bad, "pose coordinate 2");
    pkm_case_params_destroy(&p);
}

/* The point of joint name of m plus the vector r (x, y). */
static void point_plus(const pkm_model *m, const char *name, const double r[2], double out[2])
{
    const pkm_joint *j = joint_named(m, name);
    out[0] = j->point[0] + r[0];
    out[1] = j->point[1] + r[1];
}

/* loop3: Table 3's initial linear positions, added from the model's joints, close its three
 * loops at the cut joints (loop 3: 1 -> 2 -> 3 -> 3S against 1 -> 4 -> 4S; loop 2: 1' -> 2' ->
 * 2IIS against 4S; loop 1: 1' -> 2' -> 2IS against 1'' -> 1S); the joints are named and flagged
 * as the paper's, reading A of the masses. */
static void test_loop3_model(void **state)
{
    (void)state;
    void *p = NULL;
    pkm_model *m = NULL;
    const double q0[1] = {0.0};
    const pkm_case *c = open_case("loop3", &p, q0, &m);
    assert_int_equal(pkm_model_body_count(m), 7);
    assert_int_equal(pkm_model_joint_count(m), 10);
    /* Table 3: r_2^{0 1}, r_3^{0 2}, r_3S^{0 3}, r_4^{0 1}, r_4S^{0 4}, r_2'^{0 1'},
     * r_2IIS^{0 2'}, r_2IS^{0 2'}, r_1S^{0 1''}. */
    static const double r2[2] = {0.0737, -0.0676}, r3[2] = {-0.0451, -0.0217},
                        r3S[2] = {-0.0375, 0.0249}, r4[2] = {0.0368, -0.0338},
                        r4S[2] = {-0.0457, -0.0306}, r2p[2] = {-0.0079, -0.0544},
                        r2IIS[2] = {0.049, -0.01}, r2IS[2] = {-0.049, 0.01},
                        r1S[2] = {-0.0069, -0.0445};
    /* The joints of the tree placed by Table 3 from their parents'. */
    static const struct {
        const char *joint, *from;
        const double *r;
    } placed[] = {{"2", "1", r2}, {"3", "2", r3}, {"4", "1", r4}, {"2'", "1'", r2p}};
    for (size_t i = 0; i < sizeof placed / sizeof placed[0]; i++) {
        double x[2];
        point_plus(m, placed[i].from, placed[i].r, x);
        for (int k = 0; k < 2; k++)
            assert_close(joint_named(m, placed[i].joint)->point[k], x[k], 0.0, 1e-15);
    }
    /* Each cut's point reached along both sides of its loop. */
    static const struct {
        const char *cut, *a, *b;
        const double *ra, *rb;
    } loops[] = {
        {"C3", "3", "4", r3S, r4S}, {"C2", "2'", "4", r2IIS, r4S}, {"C1", "2'", "1''", r2IS, r1S}};
    for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) {
        double xa[2], xb[2];
        point_plus(m, loops[i].a, loops[i].ra, xa);
        point_plus(m, loops[i].b, loops[i].rb, xb);
        for (int k = 0; k < 2; k++) {
            assert_close(xa[k], xb[k], 0.0, 1e-15);
            assert_close(joint_named(m, loops[i].cut)->point[k], xa[k], 0.0, 1e-15);
        }
    }
    static const char *const tree[7] = {"1", "2", "3", "4", "1'", "2'", "1''"};
    static const double mass[7] = {2.0, 2.0, 1.0, 1.2, 1.0, 2.0, 1.2};
    for (int i = 0; i < 7; i++) {
        const pkm_joint *j = joint_named(m, tree[i]);
        assert_int_equal(j->type, PKM_JOINT_REVOLUTE);
        assert_false(j->cut);
        assert_int_equal(j->actuated, i == 6);
        assert_close(pkm_model_body(m, j->body[1])->mass, mass[i], 0.0, 0.0);
    }
    assert_int_equal(joint_named(m, "1")->body[0], PKM_GROUND);
    assert_int_equal(joint_named(m, "1'")->body[0], PKM_GROUND);
    assert_int_equal(joint_named(m, "1''")->body[0], PKM_GROUND);
    /* The cuts and the links they join: C1 2' with 1'', C2 2' with 4, C3 3 with 4. */
    static const char *const cut[3][3] = {{"C1", "2'", "1''"}, {"C2", "2'", "4"}, {"C3", "3", "4"}};
    for (int k = 0; k < 3; k++) {
        const pkm_joint *j = joint_named(m, cut[k][0]);
        assert_true(j->cut && !j->actuated);
        assert_int_equal(j->type, PKM_JOINT_REVOLUTE);
        assert_int_equal(j->body[0], joint_named(m, cut[k][1])->body[1]);
        assert_int_equal(j->body[1], joint_named(m, cut[k][2])->body[1]);
    }
    /* Friction on the crank only. */
    const pkm_case_dynamics *d = pkm_case_dynamics_of(c, p);
    for (int j = 0; j < pkm_model_joint_count(m); j++)
        assert_int_equal(pkm_case_joint_has_friction(d, pkm_model_joint(m, j)),
                         strcmp(pkm_model_joint(m, j)->name, "1''") == 0);
    pkm_model_destroy(&m);
    pkm_case_params_destroy(&p);
}

/* navaro: the finite-element model keeps both clutches locked (links 1i, 2i clamped at A_i); the
 * rigid-body model turns the joints at A_i into revolutes and drives the link `drive` names. */
static void test_navaro_rigid(void **state)
{
    (void)state;
    pkm_navaro_params p;
    case_defaults("navaro", &p, sizeof(p));
    const double home[3] = {0.0, 0.0, 0.0};
    for (int drive = 0; drive < 2; drive++) {
        p.drive = (unsigned)drive;
        pkm_model *fe = build("navaro", &p, home, 0), *rb = build("navaro", &p, home, 1);
        assert_int_equal(pkm_model_joint_count(fe), pkm_model_joint_count(rb));
        for (int j = 0; j < pkm_model_joint_count(fe); j++) {
            const pkm_joint *a = pkm_model_joint(fe, j), *b = pkm_model_joint(rb, j);
            assert_string_equal(a->name, b->name);
            assert_false(a->actuated);
            const int at_a = a->name[0] == 'A';
            assert_int_equal(a->type, at_a ? PKM_JOINT_CLAMPED : b->type);
            if (at_a) {
                assert_int_equal(b->type, PKM_JOINT_REVOLUTE);
                assert_int_equal(b->actuated, a->name[1] == (drive == 0 ? '1' : '2'));
            } else {
                assert_false(b->actuated);
            }
        }
        pkm_model_destroy(&fe);
        pkm_model_destroy(&rb);
    }
}

/* pss5upu (variant paper): the rails are the drives in both models; the motor end is clamped for
 * the modes and turns about the rail in the rigid-body model, whose links are S-S. */
static void test_pss5upu_rigid(void **state)
{
    (void)state;
    pkm_pss5upu_params p;
    case_defaults("pss5upu", &p, sizeof(p));
    const double home[5] = {0};
    pkm_model *fe = build("pss5upu", &p, home, 0), *rb = build("pss5upu", &p, home, 1);
    for (int i = 1; i <= PKM_PSS5UPU_LEGS; i++) {
        char name[16];
        snprintf(name, sizeof(name), "rail %d", i);
        const pkm_joint *rf = joint_named(fe, name), *rr = joint_named(rb, name);
        assert_true(rf->actuated && rr->actuated);
        assert_int_equal(rf->type, PKM_JOINT_PRISMATIC);
        snprintf(name, sizeof(name), "motor %d", i);
        const pkm_joint *mf = joint_named(fe, name), *mr = joint_named(rb, name);
        assert_int_equal(mf->type, PKM_JOINT_CLAMPED);
        assert_int_equal(mr->type, PKM_JOINT_REVOLUTE);
        assert_true(mr->cut && !mr->actuated);
        for (int k = 0; k < 3; k++)
            assert_close(mr->axis[k], rr->axis[k], 0.0, 1e-15);
        /* The paper's link welded to the platform in the modes, S-S in the rigid model. */
        snprintf(name, sizeof(name), "b %d", i);
        assert_int_equal(joint_named(fe, name)->type, PKM_JOINT_SPHERICAL);
        assert_int_equal(joint_named(rb, name)->type, PKM_JOINT_UNIVERSAL);
        snprintf(name, sizeof(name), "a %d", i);
        assert_int_equal(joint_named(fe, name)->type, PKM_JOINT_CLAMPED);
        assert_int_equal(joint_named(rb, name)->type, PKM_JOINT_SPHERICAL);
    }
    pkm_model_destroy(&fe);
    pkm_model_destroy(&rb);
}

/* A motion of every pose coordinate of the 5-PSS/UPU (sines of different frequencies) and its
 * first two derivatives. */
static void pss_motion(double t, double q[5], double qd[5], double qdd[5])
{
    static const double A[5] = {0.01, -0.008, 0.005, 0.1, 0.08}, w[5] = {1.3, 0.7, 1.0, 0.9, 1.1},
                        ph[5] = {0.0, 0.3, 0.5, -0.2, 1.0};
    for (int k = 0; k < 5; k++) {
        q[k] = A[k] * sin(w[k] * t + ph[k]);
        qd[k] = A[k] * w[k] * cos(w[k] * t + ph[k]);
        qdd[k] = -A[k] * w[k] * w[k] * sin(w[k] * t + ph[k]);
    }
}

/* pss5upu's drives: the slider rates and accelerations of pkm_pss5upu_travel_rates against
 * central differences in time of the travels of pkm_pss5upu_inverse (step 2e-4 s: truncation
 * and rounding both below 1e-9 m/s^2); the drive of the case is the travel from the pose its
 * rigid model is built at (off the singular centre of the layout, which is home). */
static void test_pss5upu_drive(void **state)
{
    (void)state;
    pkm_pss5upu_params p;
    case_defaults("pss5upu", &p, sizeof(p));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double h = 2e-4;
    const pkm_case *c = pkm_case_find("pss5upu");
    const double *ref = pkm_case_rigid_pose(c);
    assert_true(fabs(ref[0]) + fabs(ref[1]) > 0.0);
    pkm_pss5upu_geometry g0;
    assert_pkm_ok(pkm_pss5upu_inverse(&p, ref, &g0, &ctx), &ctx);
    for (int it = 0; it < 4; it++) {
        const double t = 0.7 + 1.9 * it;
        double q[5], qd[5], qdd[5], s[5], sd[5], sdd[5], sp[3][5];
        pss_motion(t, q, qd, qdd);
        assert_pkm_ok(pkm_pss5upu_travel_rates(&p, q, qd, qdd, s, sd, sdd, &ctx), &ctx);
        for (int k = -1; k <= 1; k++) {
            double qk[5], dk[5], ddk[5];
            pkm_pss5upu_geometry g;
            pss_motion(t + k * h, qk, dk, ddk);
            assert_pkm_ok(pkm_pss5upu_inverse(&p, qk, &g, &ctx), &ctx);
            memcpy(sp[k + 1], g.s, sizeof(g.s));
        }
        for (int i = 0; i < 5; i++) {
            assert_close(s[i], sp[1][i], 0.0, 0.0);
            assert_close(sd[i], (sp[2][i] - sp[0][i]) / (2.0 * h), 0.0, 1e-9);
            assert_close(sdd[i], (sp[2][i] - 2.0 * sp[1][i] + sp[0][i]) / (h * h), 0.0, 2e-8);
        }
        /* Not a trivial motion: every slider moves. */
        for (int i = 0; i < 5; i++)
            assert_true(fabs(sd[i]) > 1e-4);
        double dq[5], dqd[5], dqdd[5];
        assert_pkm_ok(c->drive(&p, q, qd, qdd, dq, dqd, dqdd, &ctx), &ctx);
        for (int i = 0; i < 5; i++) {
            assert_close(dq[i], s[i] - g0.s[i], 0.0, 1e-15);
            assert_close(dqd[i], sd[i], 0.0, 0.0);
            assert_close(dqdd[i], sdd[i], 0.0, 0.0);
        }
    }
    /* A pose a leg cannot reach: PKM_ERR_UNREACHABLE naming the leg. */
    double far[5] = {0.3, 0.0, 0.0, 0.2, 0.0}, zero[5] = {0}, dq[5], dqd[5], dqdd[5];
    assert_int_equal(c->drive(&p, far, zero, zero, dq, dqd, dqdd, &ctx), PKM_ERR_UNREACHABLE);
    assert_non_null(strstr(ctx.msg, "pss5upu: leg "));
}

/* navaro's drive: the platform coordinates are the pose; a pose out of reach names the leg. */
static void test_navaro_drive(void **state)
{
    (void)state;
    pkm_navaro_params p;
    case_defaults("navaro", &p, sizeof(p));
    const pkm_case *c = pkm_case_find("navaro");
    assert_int_equal(c->ndriven, 3);
    assert_string_equal(c->driven_names[2], "platform.rz");
    const double pose[3] = {0.01, -0.02, 0.1}, d[3] = {0.1, 0.2, 0.3}, dd[3] = {-1.0, 2.0, 3.0};
    double q[3], qd[3], qdd[3];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(c->drive(&p, pose, d, dd, q, qd, qdd, &ctx), &ctx);
    for (int k = 0; k < 3; k++) {
        assert_true(q[k] == pose[k] && qd[k] == d[k] && qdd[k] == dd[k]);
    }
    const double far[3] = {0.3, 0.0, 0.0};
    assert_int_equal(c->drive(&p, far, d, dd, q, qd, qdd, &ctx), PKM_ERR_UNREACHABLE);
    assert_non_null(strstr(ctx.msg, "leg"));
}

/* A case's rigid-body model driven along its default trajectory as `pkmflex dynamics` drives it
 * (the case's drive of the trajectory's pose). */
typedef struct driven_case {
    const pkm_case *c;
    void *params;
    pkm_model *m;
    pkm_mbs *s;
    pkm_trajectory *tr;
} driven_case;

static void driven_open(driven_case *d, const char *name, double threshold)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    d->c = pkm_case_find(name);
    assert_pkm_ok(pkm_case_params_create(d->c, &d->params, &ctx), &ctx);
    assert_pkm_ok(d->c->build_rigid(d->params, pkm_case_rigid_pose(d->c), &d->m, &ctx), &ctx);
    const pkm_case_dynamics *dyn = pkm_case_dynamics_of(d->c, d->params);
    assert_pkm_ok(pkm_mbs_create(d->m, dyn->gravity, &d->s, &ctx), &ctx);
    assert_pkm_ok(pkm_mbs_set_singular(d->s, threshold, &ctx), &ctx);
    int idx[PKM_POSE_MAX];
    for (int k = 0; k < d->c->ndriven; k++) {
        idx[k] = -1;
        for (int i = 0; i < pkm_mbs_coord_count(d->s); i++)
            if (strcmp(pkm_mbs_coord_name(d->s, i), d->c->driven_names[k]) == 0) idx[k] = i;
        assert_true(idx[k] >= 0);
    }
    assert_pkm_ok(pkm_mbs_set_driven(d->s, d->c->ndriven, idx, &ctx), &ctx);
    assert_pkm_ok(pkm_trajectory_create_analytic(&d->c->traj[0], d->c->npose, &d->tr, &ctx), &ctx);
}

static void driven_close(driven_case *d)
{
    pkm_trajectory_destroy(&d->tr);
    pkm_mbs_destroy(&d->s);
    pkm_model_destroy(&d->m);
    pkm_case_params_destroy(&d->params);
}

/* The state at time t; the system's energy T + V. */
static double driven_energy_at(driven_case *d, double t)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX], q[PKM_POSE_MAX], qd[PKM_POSE_MAX],
        qdd[PKM_POSE_MAX];
    assert_pkm_ok(pkm_trajectory_eval(d->tr, t, p, pd, pdd, &ctx), &ctx);
    assert_pkm_ok(d->c->drive(d->params, p, pd, pdd, q, qd, qdd, &ctx), &ctx);
    assert_pkm_ok(pkm_mbs_kinematics(d->s, t, q, qd, qdd, &ctx), &ctx);
    double T, V;
    pkm_mbs_energy(d->s, &T, &V);
    return T + V;
}

/* Frictionless power balance along the case's default trajectory at the given times: the
 * actuators' power sum(drive * qd) equals dE/dt (fourth-order central difference, step 1e-3 s:
 * truncation and rounding below 1e-9 W here) to 1e-8 of the largest power. Returns the largest
 * drive met. */
static double power_balance(const char *name, double threshold, const double *times, int nt)
{
    driven_case d = {0};
    driven_open(&d, name, threshold);
    const int nj = pkm_model_joint_count(d.m);
    pkm_joint_result *res = calloc((size_t)nj, sizeof(*res));
    assert_non_null(res);
    double P[16], dE[16], Pmax = 0.0, drive_max = 0.0;
    const double h = 1e-3;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int k = 0; k < nt; k++) {
        const double t = times[k];
        dE[k] = (driven_energy_at(&d, t - 2 * h) - 8 * driven_energy_at(&d, t - h) +
                 8 * driven_energy_at(&d, t + h) - driven_energy_at(&d, t + 2 * h)) /
                (12 * h);
        driven_energy_at(&d, t);
        assert_pkm_ok(pkm_mbs_inverse(d.s, NULL, res, &ctx), &ctx);
        P[k] = 0.0;
        for (int j = 0; j < nj; j++)
            if (pkm_model_joint(d.m, j)->actuated) {
                P[k] += res[j].drive * res[j].qd[0];
                drive_max = fmax(drive_max, fabs(res[j].drive));
            }
        Pmax = fmax(Pmax, fabs(P[k]));
    }
    for (int k = 0; k < nt; k++) {
        print_message("%s t = %.3f s: actuator power %.9f W, dE/dt %.9f W\n", name, times[k], P[k],
                      dE[k]);
        assert_close(P[k], dE[k], 0.0, 1e-8 * Pmax);
    }
    assert_true(Pmax > 0.0);
    free(res);
    driven_close(&d);
    return drive_max;
}

/* navaro along p2p (the rest-to-rest quintic of its platform). */
static void test_navaro_power(void **state)
{
    (void)state;
    const double times[5] = {0.1, 0.3, 0.5, 0.7, 0.9};
    const double tau = power_balance("navaro", PKM_DYN_SINGULAR, times, 5);
    print_message("navaro p2p: largest drive torque %.6g N m\n", tau);
}

/* pss5upu along its default trajectory, eq. 40 about x0 = 20 mm (eq. 40 itself crosses the
 * centre of the layout, a singular pose of the S-S legs), at the default threshold: the
 * closure's conditioning stays above it along the whole path, from the model built at x0. */
static void test_pss5upu_power(void **state)
{
    (void)state;
    const double times[6] = {0.3, 0.9, 1.6, 2.2, 3.1, 4.4};
    const double f = power_balance("pss5upu", PKM_DYN_SINGULAR, times, 6);
    print_message("pss5upu eq40-off: largest slider drive force %.6g N\n", f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree5_reference), cmocka_unit_test(test_tree5_pose),
        cmocka_unit_test(test_loop3_model),     cmocka_unit_test(test_navaro_rigid),
        cmocka_unit_test(test_pss5upu_rigid),   cmocka_unit_test(test_pss5upu_drive),
        cmocka_unit_test(test_navaro_drive),    cmocka_unit_test(test_navaro_power),
        cmocka_unit_test(test_pss5upu_power),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
