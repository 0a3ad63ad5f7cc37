/* tests/test_dynamics_mbs_plane.c: point-on-plane constraints (higher pairs) in the general rigid
 * multibody system (pkm/dynamics.h): a point held on a plane as one constraint row of pkm_mbs,
 * its multiplier the plane's normal force. A slider on two prismatic joints held on the plane
 * x = y (analytic drive force and normal force); the chewing robot's surrogate (Cheng et al.
 * 2024, tests/mast_fe_fixture.h) built as a pkm_model with its condyles on their planes, driven
 * by its four free pose coordinates along the default motion: parasitic coordinates, crank
 * angles, minimum-norm torques, contact forces and the spherical joints' forces equal those of
 * its own rigid model (the reference routes, tests/reference/), a second formulation of the same
 * mechanism.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "mast_fe_fixture.h"
#include "reference/mastref.h"
#include "pkm/dynamics.h"

#include <stdlib.h>

/* A body of mass m on a prismatic x joint from the ground (through a massless carriage) and a
 * prismatic y joint, its point (0.3, 0.2, 0.1) held on the plane of normal (1, -1, 0) through
 * it: y follows x. Driven x = a t^2 / 2: the x drive is 2 m a (it accelerates the body along
 * the diagonal, the plane turns half of it), the plane pushes with -sqrt(2) m a along its unit
 * normal; gravity along z loads only the joints. */
static void test_slider_on_plane(void **state)
{
    (void)state;
    const double mass = 2.5, acc = 1.7;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    pkm_rigid_desc carriage = {.name = "carriage"}, body = {.name = "body", .mass = mass};
    for (int k = 0; k < 3; k++)
        body.inertia[k][k] = 0.1;
    int bc = -1, bb = -1;
    assert_pkm_ok(pkm_model_add_rigid(m, &carriage, &bc, &ctx), &ctx);
    assert_pkm_ok(pkm_model_add_rigid(m, &body, &bb, &ctx), &ctx);
    pkm_joint_desc jx = {.name = "x",
                         .type = PKM_JOINT_PRISMATIC,
                         .body_a = PKM_GROUND,
                         .body_b = bc,
                         .axis = {1.0, 0.0, 0.0},
                         .actuated = 1};
    pkm_joint_desc jy = {
        .name = "y", .type = PKM_JOINT_PRISMATIC, .body_a = bc, .body_b = bb, .axis = {0, 1, 0}};
    assert_pkm_ok(pkm_model_add_joint(m, &jx, NULL, &ctx), &ctx);
    assert_pkm_ok(pkm_model_add_joint(m, &jy, NULL, &ctx), &ctx);
    const pkm_plane_desc pl = {
        .name = "diagonal", .body = bb, .point = {0.3, 0.2, 0.1}, .normal = {2.0, -2.0, 0.0}};
    assert_pkm_ok(pkm_model_add_plane(m, &pl, NULL, &ctx), &ctx);
    pkm_mbs *s = NULL;
    const double g[3] = {0.0, 0.0, -9.81};
    assert_pkm_ok(pkm_mbs_create(m, g, &s, &ctx), &ctx);
    assert_int_equal(pkm_mbs_constraint_count(s), 1);
    pkm_joint_result res[2];
    for (int k = 1; k <= 5; k++) {
        const double t = 0.1 * k, x = 0.5 * acc * t * t, xd = acc * t;
        assert_pkm_ok(pkm_mbs_kinematics(s, t, &x, &xd, &acc, &ctx), &ctx);
        assert_close(pkm_mbs_q(s)[1], x, 1e-13, 1e-15);
        assert_close(pkm_mbs_qd(s)[1], xd, 1e-13, 1e-15);
        assert_close(pkm_mbs_qdd(s)[1], acc, 1e-13, 1e-15);
        assert_pkm_ok(pkm_mbs_inverse(s, NULL, res, &ctx), &ctx);
        assert_close(res[0].drive, 2.0 * mass * acc, 1e-12, 0.0);
        assert_close(pkm_mbs_plane_force(s, 0), -sqrt(2.0) * mass * acc, 1e-12, 0.0);
    }
    assert_true(isnan(pkm_mbs_plane_force(s, 1)) && isnan(pkm_mbs_plane_force(s, -1)));
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

/* The index of the coordinate named name. */
static int coord(const pkm_mbs *s, const char *name)
{
    for (int i = 0; i < pkm_mbs_coord_count(s); i++)
        if (strcmp(pkm_mbs_coord_name(s, i), name) == 0) return i;
    fail_msg("no coordinate %s", name);
    return -1;
}

/* Largest differences of the surrogate's pkm_mbs against its own rigid model along the motion:
 * d[0] the parasitic coordinates and crank angles (rad, m), d[1] the torques, d[2] the contact
 * forces, d[3] the spherical joints' forces, each relative to the largest of its kind (scale). */
static void compare_along(int higher_pairs, double d[4])
{
    pkm_mast mm;
    mast_si_mechanism(higher_pairs, &mm);
    pkm_mast_state s = {0}, home = {0};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *model = mast_fe_model(&mm, &home, 0.0, 1);
    pkm_mbs *sys = NULL;
    assert_pkm_ok(pkm_mbs_create(model, mm.gravity, &sys, &ctx), &ctx);
    static const char *const pose[6] = {"platform.x",  "platform.y",  "platform.z",
                                        "platform.rx", "platform.ry", "platform.rz"};
    int driven[6], nd = 0;
    for (int k = 0; k < 6; k++)
        if (!higher_pairs || (k != 2 && k != 5)) driven[nd++] = coord(sys, pose[k]);
    assert_pkm_ok(pkm_mbs_set_driven(sys, nd, driven, &ctx), &ctx);
    pkm_joint_result *res = calloc((size_t)pkm_model_joint_count(model), sizeof(*res));
    double scale[4] = {0};
    memset(d, 0, 4 * sizeof(double));
    for (int k = 0; k <= 100; k++) {
        const double t = 0.01 * k;
        double q[4], qd[4], qdd[4], a[6], ad[6], add[6];
        pkm_masticatory_motion(t, q, qd, qdd);
        pkm_mast_state tgt = s;
        if (!higher_pairs) { /* the twin replays the target's pose: take it from the target */
            pkm_mast tg;
            mast_si_mechanism(1, &tg);
            assert_pkm_ok(pkm_mast_kinematics(&tg, t, q, qd, qdd, &tgt, &ctx), &ctx);
        }
        const double *src[3] = {higher_pairs ? q : tgt.X, higher_pairs ? qd : tgt.Xd,
                                higher_pairs ? qdd : tgt.Xdd};
        assert_pkm_ok(pkm_mast_kinematics(&mm, t, src[0], src[1], src[2], &s, &ctx), &ctx);
        for (int j = 0; j < nd; j++)
            a[j] = src[0][j], ad[j] = src[1][j], add[j] = src[2][j];
        assert_pkm_ok(pkm_mbs_kinematics(sys, t, a, ad, add, &ctx), &ctx);
        pkm_mast_forces f;
        assert_pkm_ok(pkm_mast_inverse(&mm, &s, NULL, NULL, &f, &ctx), &ctx);
        assert_pkm_ok(pkm_mbs_inverse(sys, NULL, res, &ctx), &ctx);
        const double *qs = pkm_mbs_q(sys);
        d[0] = fmax(d[0], fmax(fabs(qs[coord(sys, "platform.z")] - s.X[2]),
                               fabs(qs[coord(sys, "platform.rz")] - s.X[5])));
        for (int i = 0; i < mm.nchain; i++) {
            int first = -1;
            pkm_mbs_joint_coords(sys, 3 * i, &first);
            d[0] = fmax(d[0], fabs(qs[first] - s.th[i]));
            scale[1] = fmax(scale[1], fabs(f.tau[i]));
            d[1] = fmax(d[1], fabs(res[3 * i].drive - f.tau[i]));
            for (int c = 0; c < 3; c++) { /* on the body from the coupler = - on the coupler */
                scale[3] = fmax(scale[3], fabs(f.coupler[i][1][c]));
                d[3] = fmax(d[3], fabs(res[3 * i + 2].wrench[c] + f.coupler[i][1][c]));
            }
        }
        for (int c = 0; c < mm.ncontact; c++) {
            scale[2] = fmax(scale[2], fabs(f.contact[c]));
            d[2] = fmax(d[2], fabs(pkm_mbs_plane_force(sys, c) - f.contact[c]));
        }
    }
    for (int k = 1; k < 4; k++)
        d[k] /= scale[k] > 0.0 ? scale[k] : 1.0;
    free(res);
    pkm_mbs_destroy(&sys);
    pkm_model_destroy(&model);
}

/* The surrogate (higher pairs as planes of pkm_mbs) and its 6-RSS twin, one period at 10 ms:
 * pose and crank angles 1e-10, torques, contact and joint forces 1e-9 of the largest. */
static void test_surrogate_as_model(void **state)
{
    (void)state;
    for (int on = 1; on >= 0; on--) {
        double d[4];
        compare_along(on, d);
        print_message("%s as pkm_mbs vs pkm_mast: coordinates %.2e, torques %.2e, contact forces "
                      "%.2e, spherical joints %.2e\n",
                      on ? "surrogate" : "6-RSS twin", d[0], d[1], d[2], d[3]);
        assert_true(d[0] <= 1e-10);
        assert_true(d[1] <= 1e-9 && d[2] <= 1e-9 && d[3] <= 1e-9);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slider_on_plane),
        cmocka_unit_test(test_surrogate_as_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
