/* tests/test_topology.c: the spanning tree, legs and cuts of mesh/topology.c, held against the
 * model it was built from (through the read-only accessors of pkm/model.h) and against the
 * counts of the virtual-tree assembly.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "navaro_defaults.h"
#include "test_util.h"

#include "pkm/assembly.h"
#include "pkm/cases.h"
#include "pkm/model.h"
#include "pkm/topology.h"

#include <stdlib.h>
#include <string.h>

/* Every invariant the tree formulation and the dynamics rely on; returns the number of cuts. */
static int check_topology(const pkm_model *m, const pkm_topology *t)
{
    const int nb = pkm_model_body_count(m), nj = pkm_model_joint_count(m);
    const int platform = pkm_model_platform(m);
    int *pos = malloc(sizeof(int) * (size_t)(nb + 1));
    assert_non_null(pos);
    for (int b = 0; b < nb; b++)
        pos[b] = -1;
    const int *order = NULL;
    const int norder = pkm_topology_order(t, &order);
    assert_int_equal(norder, nb - (platform >= 0));
    for (int i = 0; i < norder; i++) {
        const int b = order[i];
        assert_true(b >= 0 && b < nb && b != platform && pos[b] < 0);
        pos[b] = i;
        /* The tree enters b through a joint that is not a cut, from the ground or from a body
         * met before, of the same leg, at b's node on that joint. */
        const int p = pkm_topology_parent_joint(t, b);
        assert_true(p >= 0 && p < nj && !pkm_topology_is_cut(t, p));
        const pkm_joint *jt = pkm_model_joint(m, p);
        const int side = (jt->body[1] == b) ? 1 : 0;
        assert_int_equal(jt->body[side], b);
        const int from = jt->body[1 - side];
        assert_true(from == PKM_GROUND || (pos[from] >= 0 && pos[from] < i));
        assert_int_equal(pkm_topology_entry_node(t, b), jt->node[side]);
        assert_int_equal(pkm_topology_body_leg(t, b), pkm_topology_joint_leg(t, p));
        if (from != PKM_GROUND)
            assert_int_equal(pkm_topology_body_leg(t, from), pkm_topology_body_leg(t, b));
    }
    if (platform >= 0) {
        assert_int_equal(pkm_topology_body_leg(t, platform), -1);
        assert_int_equal(pkm_topology_parent_joint(t, platform), -1);
    }
    int ncuts = 0, nbodies = 0, njoints = 0;
    for (int j = 0; j < nj; j++)
        ncuts += pkm_topology_is_cut(t, j);
    assert_int_equal(pkm_topology_cut_count(t), ncuts);
    for (int l = 0; l < pkm_topology_leg_count(t); l++) {
        const int *bodies = NULL, *joints = NULL;
        const int n = pkm_topology_leg_bodies(t, l, &bodies);
        const int k = pkm_topology_leg_joints(t, l, &joints);
        assert_true(n > 0 && k >= n);
        for (int i = 0; i < n; i++) {
            assert_int_equal(pkm_topology_body_leg(t, bodies[i]), l);
            if (i > 0) assert_true(pos[bodies[i]] > pos[bodies[i - 1]]); /* from the base */
            assert_int_equal(joints[i], pkm_topology_parent_joint(t, bodies[i]));
        }
        /* The leg's base body enters from the ground. */
        const pkm_joint *base = pkm_model_joint(m, joints[0]);
        assert_true(base->body[0] == PKM_GROUND || base->body[1] == PKM_GROUND);
        for (int i = n; i < k; i++) {
            assert_true(pkm_topology_is_cut(t, joints[i]));
            assert_int_equal(pkm_topology_joint_leg(t, joints[i]), l);
            if (i > n) assert_true(joints[i] > joints[i - 1]);
        }
        nbodies += n;
        njoints += k;
    }
    assert_int_equal(nbodies, norder);
    assert_int_equal(njoints, nj);
    free(pos);
    return ncuts;
}

/* NaVARo: three legs, six cuts (D_i flagged, and the three platform joints), the same counts
 * as the tree assembly reports. */
static void test_navaro(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_navaro_params par = navaro_defaults();
    const double pose[3] = {0.1, 0.05, -0.5};
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_navaro_build(&par, pose, &m, &ctx), &ctx);
    pkm_topology *t = NULL;
    assert_pkm_ok(pkm_topology_create(m, &t, &ctx), &ctx);
    assert_int_equal(pkm_topology_leg_count(t), 3);
    assert_int_equal(check_topology(m, t), 6);
    pkm_pencil *p = NULL;
    pkm_assembly_info info;
    assert_pkm_ok(pkm_assemble(m, PKM_FORM_TREE, &p, &info, &ctx), &ctx);
    assert_int_equal(info.n_legs, pkm_topology_leg_count(t));
    assert_int_equal(info.n_cuts, pkm_topology_cut_count(t));
    pkm_pencil_destroy(&p);
    pkm_topology_destroy(&t);
    assert_null(t);
    pkm_topology_destroy(&t);
    pkm_topology_destroy(NULL);
    pkm_model_destroy(&m);
}

/* The 5-PSS/UPU robot: one leg per slider chain, and the UPU leg. */
static void test_pss5upu(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_pss5upu_params par;
    case_defaults("pss5upu", &par, sizeof(par));
    const double pose[5] = {0.05, 0, 0, 0, 0};
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_pss5upu_build(&par, pose, &m, &ctx), &ctx);
    pkm_topology *t = NULL;
    assert_pkm_ok(pkm_topology_create(m, &t, &ctx), &ctx);
    assert_true(pkm_topology_leg_count(t) >= 5);
    check_topology(m, t);
    pkm_topology_destroy(&t);
    pkm_model_destroy(&m);
}

static int add_rigid(pkm_model *m, const char *name, double x)
{
    pkm_rigid_desc d = {.name = name, .origin = {x, 0, 0}, .mass = 1.0, .com = {x, 0, 0}};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int id = -1;
    assert_pkm_ok(pkm_model_add_rigid(m, &d, &id, &ctx), &ctx);
    return id;
}

static void add_clamp(pkm_model *m, const char *name, int a, int b, double x)
{
    pkm_joint_desc d = {
        .name = name, .type = PKM_JOINT_CLAMPED, .body_a = a, .body_b = b, .point = {x, 0, 0}};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_model_add_joint(m, &d, NULL, &ctx), &ctx);
}

/* The two models the virtual tree cannot open, each failure naming its body or joint, nothing
 * returned. */
static void test_errors(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_model *m = NULL;
    pkm_topology *t = NULL;
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    const int plate = add_rigid(m, "plate", 0.0);
    assert_pkm_ok(pkm_model_set_platform(m, plate, &ctx), &ctx);
    add_clamp(m, "weld", PKM_GROUND, plate, 0.0);
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_topology_create(m, &t, &ctx), PKM_ERR_MODEL);
    assert_null(t);
    assert_non_null(strstr(ctx.msg, "'weld' connects the platform to the ground"));
    pkm_model_destroy(&m);

    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    const int arm = add_rigid(m, "arm", 0.0), loose = add_rigid(m, "loose", 1.0);
    add_clamp(m, "base", PKM_GROUND, arm, 0.0);
    add_clamp(m, "open", arm, loose, 1.0);
    add_clamp(m, "other", PKM_GROUND, loose, 1.0);
    /* Breadth-first: the ground's joints reach arm and loose; 'open' closes the loop. */
    assert_pkm_ok(pkm_topology_create(m, &t, &ctx), &ctx);
    assert_int_equal(check_topology(m, t), 1);
    assert_int_equal(pkm_topology_is_cut(t, 1), 1);
    pkm_topology_destroy(&t);
    pkm_model_destroy(&m);

    pkm_joint_desc cut = {.name = "open",
                          .type = PKM_JOINT_CLAMPED,
                          .body_a = 0,
                          .body_b = 1,
                          .point = {1, 0, 0},
                          .cut = 1};
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    add_rigid(m, "arm", 0.0);
    add_rigid(m, "loose", 1.0);
    add_clamp(m, "base", PKM_GROUND, 0, 0.0);
    assert_pkm_ok(pkm_model_add_joint(m, &cut, NULL, &ctx), &ctx);
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_topology_create(m, &t, &ctx), PKM_ERR_MODEL);
    assert_null(t);
    assert_non_null(strstr(ctx.msg, "body 'loose' is not connected to the ground"));

    /* A drive acts on one free coordinate: a spherical or clamped joint cannot carry one. */
    pkm_joint_desc ball = {.name = "ball",
                           .type = PKM_JOINT_SPHERICAL,
                           .body_a = PKM_GROUND,
                           .body_b = 1,
                           .point = {1, 0, 0},
                           .actuated = 1};
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_add_joint(m, &ball, NULL, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "joint 'ball': only revolute, prismatic and helical"));
    ball.type = PKM_JOINT_REVOLUTE;
    ball.axis[2] = 1.0;
    assert_pkm_ok(pkm_model_add_joint(m, &ball, NULL, &ctx), &ctx);
    assert_int_equal(pkm_model_joint(m, pkm_model_joint_count(m) - 1)->actuated, 1);
    pkm_model_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_navaro),
        cmocka_unit_test(test_pss5upu),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
