/* cases/tree5.c: the five-axis tree chain of Guo, Ju, Wang, "A Novel Explicit Canonical Dynamic
 * Modeling Method for Multi-Rigid-Body Mechanisms Considering Joint Friction", Aerospace 11(5)
 * 368, 2024, sec. 4.1 and Table 2.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Five rigid links on revolute joints about z (every axis-invariant of Table 2 is [0 0 1]):
 * joint 1 on the ground, 2 and 4 on link 1, 3 on link 2, 5 on link 4 (the chains of eqs. 57-60).
 * The numbers are in cases/tree5.yaml; this file holds the topology only. */
#include "cases/cases_impl.h"
#include "core/core_impl.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

/* The parent link of each link (-1: the ground), and the entry of pkm_tree5_params.offset that
 * places its joint in the parent's frame (r_k^{0 parent} of Table 2). */
static const int tree5_parent[PKM_TREE5_LINKS] = {-1, 0, 1, 0, 3};

pkm_status pkm_tree5_build(const pkm_tree5_params *p, const double pose[PKM_TREE5_LINKS],
                           pkm_model **out, pkm_ctx *ctx)
{
    *out = NULL;
    for (int k = 0; k < PKM_TREE5_LINKS; k++)
        if (!isfinite(pose[k]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "tree5: joint %d angle %g is not finite", k + 1,
                            pose[k]);
    pkm_model *m = NULL;
    pkm_status rc = pkm_model_create(&m, ctx);
    if (rc != PKM_OK) return rc;
    /* Forward kinematics: link k turns by the sum of the joint angles from the ground to it; its
     * joint lies at the parent's joint plus the offset turned by the parent's angle. */
    double origin[PKM_TREE5_LINKS][3], angle[PKM_TREE5_LINKS];
    int body[PKM_TREE5_LINKS];
    for (int k = 0; k < PKM_TREE5_LINKS && rc == PKM_OK; k++) {
        const int up = tree5_parent[k];
        if (up < 0) {
            for (int i = 0; i < 3; i++)
                origin[k][i] = p->base[i];
            angle[k] = pose[k];
        } else {
            const double *r = p->offset[k - 1], c = cos(angle[up]), s = sin(angle[up]);
            origin[k][0] = origin[up][0] + c * r[0] - s * r[1];
            origin[k][1] = origin[up][1] + s * r[0] + c * r[1];
            origin[k][2] = origin[up][2] + r[2];
            angle[k] = angle[up] + pose[k];
        }
        char name[16];
        snprintf(name, sizeof(name), "link %d", k + 1);
        rc = pkm_case_add_link(m, name, origin[k], angle[k], &p->link[k], &body[k], ctx);
        snprintf(name, sizeof(name), "%d", k + 1);
        if (rc == PKM_OK)
            rc = pkm_case_add_revolute_z(m, name, up < 0 ? PKM_GROUND : body[up], body[k],
                                         origin[k], 0, 1, ctx);
    }
    if (rc != PKM_OK) {
        pkm_model_destroy(&m);
        return rc;
    }
    *out = m;
    return PKM_OK;
}

/* The parameter table: every number of Table 2; the values are in cases/tree5.yaml. */
#define TREE5_V(key, field, help)                                                                  \
    PKM_CASE_VEC3(pkm_tree5_params, key, field, "m", pkm_range_position, help)
#define TREE5_LINK(key, k) PKM_CASE_LINK(pkm_tree5_params, key, link[k], key)
static const pkm_param_desc tree5_params[] = {
    TREE5_V("base", base, "O_1, the origin of joint 1"),
    TREE5_V("offset.r2", offset[0], "r_2^{0 1}: joint 2 from joint 1"),
    TREE5_V("offset.r3", offset[1], "r_3^{0 2}: joint 3 from joint 2"),
    TREE5_V("offset.r4", offset[2], "r_4^{0 1}: joint 4 from joint 1"),
    TREE5_V("offset.r5", offset[3], "r_5^{0 4}: joint 5 from joint 4"),
    TREE5_LINK("link1", 0),
    TREE5_LINK("link2", 1),
    TREE5_LINK("link3", 2),
    TREE5_LINK("link4", 3),
    TREE5_LINK("link5", 4),
    PKM_CASE_DYNAMICS(pkm_tree5_params, "N m s/rad", "rad/s"),
};
#undef TREE5_V
#undef TREE5_LINK

static pkm_status tree5_build(const void *params, const double *pose, pkm_model **out, pkm_ctx *ctx)
{
    *out = NULL;
    const pkm_status rc = pkm_case_params_check(&pkm_tree5_case, params, ctx);
    return rc != PKM_OK ? rc : pkm_tree5_build(params, pose, out, ctx);
}

static const char *const tree5_names[PKM_TREE5_LINKS] = {"1", "2", "3", "4", "5"};
static const char *const tree5_units[PKM_TREE5_LINKS] = {"rad", "rad", "rad", "rad", "rad"};
static const double tree5_home[PKM_TREE5_LINKS] = {0.0, 0.0, 0.0, 0.0, 0.0};

/* Sec. 4.1 and Table 2: every joint driven at 0.2 rad/s^2 from rest at the reference
 * configuration; 5 s (the paper gives no duration). */
static const pkm_traj_coord tree5_accel[PKM_TREE5_LINKS] = {{PKM_TRAJ_POLY2, {0.0, 0.0, 0.2, 0.0}},
                                                            {PKM_TRAJ_POLY2, {0.0, 0.0, 0.2, 0.0}},
                                                            {PKM_TRAJ_POLY2, {0.0, 0.0, 0.2, 0.0}},
                                                            {PKM_TRAJ_POLY2, {0.0, 0.0, 0.2, 0.0}},
                                                            {PKM_TRAJ_POLY2, {0.0, 0.0, 0.2, 0.0}}};
static const pkm_traj_desc tree5_traj[] = {
    {"accel", "every joint at 0.2 rad/s^2 from rest (Guo et al. 2024, Table 2)", 5.0, tree5_accel}};

const pkm_case pkm_tree5_case = {
    .name = "tree5",
    .description = "five-axis planar tree chain of rigid links (Guo, Ju, Wang 2024, Table 2)",
    .npose = PKM_CASE_NPOSE(PKM_TREE5_LINKS),
    .pose_names = tree5_names,
    .pose_units = tree5_units,
    .home = tree5_home,
    .params_size = sizeof(pkm_tree5_params),
    .params = tree5_params,
    .nparams = (int)(sizeof(tree5_params) / sizeof(tree5_params[0])),
    .yaml = (const char *)pkm_tree5_yaml,
    .yaml_name = "cases/tree5.yaml",
    .formulation = PKM_FORM_TREE,
    .build = tree5_build,
    .analyses = PKM_CASE_DYNAMICS,
    .build_rigid = tree5_build,
    .dynamics_offset = offsetof(pkm_tree5_params, dynamics),
    .ntraj = (int)(sizeof(tree5_traj) / sizeof(tree5_traj[0])),
    .traj = tree5_traj,
};
