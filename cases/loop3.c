/* cases/loop3.c: the planar three-loop closed chain of Guo, Ju, Wang, "A Novel Explicit Canonical
 * Dynamic Modeling Method for Multi-Rigid-Body Mechanisms Considering Joint Friction", Aerospace
 * 11(5) 368, 2024, sec. 4.2 and Table 3.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Seven rigid links on revolute joints about z: 1 on the ground, 2 on 1, 3 on 2, 4 on 1 (the
 * inner four-bar, subsystem III), 1' on the ground and 2' on 1' (subsystem II), the crank 1'' on
 * the ground (subsystem I, actuated). Three cut joints close the loops (eqs. 61-65): C1 joins
 * point 2IS of 2' to point 1S of 1'', C2 point 2IIS of 2' to point 4S of 4, C3 point 3S of 3 to
 * point 4S of 4. The paper does not give the ground pivots; they were rebuilt so that every loop
 * closes at the reference configuration of the table (all joint angles 0): cases/loop3.yaml. */
#include "cases/cases_impl.h"
#include "core/core_impl.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

enum { L1, L2, L3, L4, L1P, L2P, L1PP };

/* Each link's parent (-1: the ground) and the offset placing its joint from the parent's joint
 * (for a link on the ground, the pivot index instead). */
static const struct {
    const char *joint;
    int parent, offset, pivot;
} loop3_links[PKM_LOOP3_LINKS] = {
    [L1] = {"1", -1, -1, 0},
    [L2] = {"2", L1, PKM_LOOP3_R2, -1},
    [L3] = {"3", L2, PKM_LOOP3_R3, -1},
    [L4] = {"4", L1, PKM_LOOP3_R4, -1},
    [L1P] = {"1'", -1, -1, 1},
    [L2P] = {"2'", L1P, PKM_LOOP3_R2P, -1},
    [L1PP] = {"1''", -1, -1, 2},
};

/* The cuts: the point `offset` from the joint of link a meets the point from the joint of b. */
static const struct {
    const char *name;
    int a, offset_a, b, offset_b;
} loop3_cuts[3] = {
    {"C1", L2P, PKM_LOOP3_R2IS, L1PP, PKM_LOOP3_R1S},
    {"C2", L2P, PKM_LOOP3_R2IIS, L4, PKM_LOOP3_R4S},
    {"C3", L3, PKM_LOOP3_R3S, L4, PKM_LOOP3_R4S},
};

/* A cut's two points may differ by the rounding of the table's four decimals: the loops close
 * to 1e-12 m with the rebuilt pivots, and parameters that leave a gap of more than this (a
 * thousandth of the table's last digit) describe another mechanism. */
#define LOOP3_CLOSURE_TOL 1e-7

/* Joint origins of the links at the reference configuration. */
static void loop3_origins(const pkm_loop3_params *p, double o[PKM_LOOP3_LINKS][3])
{
    for (int k = 0; k < PKM_LOOP3_LINKS; k++)
        for (int i = 0; i < 3; i++)
            o[k][i] = loop3_links[k].parent < 0
                          ? p->pivot[loop3_links[k].pivot][i]
                          : o[loop3_links[k].parent][i] + p->offset[loop3_links[k].offset][i];
}

/* Adds the cut joints, checking that each closes. */
static pkm_status loop3_add_cuts(pkm_model *m, const pkm_loop3_params *p,
                                 double o[PKM_LOOP3_LINKS][3], const int body[PKM_LOOP3_LINKS],
                                 pkm_ctx *ctx)
{
    for (int c = 0; c < 3; c++) {
        double pa[3], pb[3];
        for (int i = 0; i < 3; i++) {
            pa[i] = o[loop3_cuts[c].a][i] + p->offset[loop3_cuts[c].offset_a][i];
            pb[i] = o[loop3_cuts[c].b][i] + p->offset[loop3_cuts[c].offset_b][i];
        }
        const double gap = hypot(hypot(pa[0] - pb[0], pa[1] - pb[1]), pa[2] - pb[2]);
        if (!(gap <= LOOP3_CLOSURE_TOL))
            return PKM_FAIL(ctx, PKM_ERR_MODEL,
                            "loop3: cut %s does not close at the reference configuration: its "
                            "points are %g m apart (at most %g m)",
                            loop3_cuts[c].name, gap, LOOP3_CLOSURE_TOL);
        const pkm_status rc = pkm_case_add_revolute_z(m, loop3_cuts[c].name, body[loop3_cuts[c].a],
                                                      body[loop3_cuts[c].b], pa, 1, 0, ctx);
        if (rc != PKM_OK) return rc;
    }
    return PKM_OK;
}

pkm_status pkm_loop3_build(const pkm_loop3_params *p, const double pose[1], pkm_model **out,
                           pkm_ctx *ctx)
{
    *out = NULL;
    /* Only the reference configuration closes without solving the loops, which is the dynamics
     * layer's closure kinematics (it moves the crank from here). */
    if (pose[0] != 0.0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "loop3: the model is built at the reference configuration only (crank 1'' "
                        "= 0, not %g rad); `pkmflex dynamics` moves the crank",
                        pose[0]);
    double o[PKM_LOOP3_LINKS][3];
    loop3_origins(p, o);
    pkm_model *m = NULL;
    pkm_status rc = pkm_model_create(&m, ctx);
    if (rc != PKM_OK) return rc;
    int body[PKM_LOOP3_LINKS];
    for (int k = 0; k < PKM_LOOP3_LINKS && rc == PKM_OK; k++) {
        char name[16];
        snprintf(name, sizeof(name), "link %s", loop3_links[k].joint);
        rc = pkm_case_add_link(m, name, o[k], 0.0, &p->link[k], &body[k], ctx);
        const int up = loop3_links[k].parent;
        if (rc == PKM_OK)
            rc = pkm_case_add_revolute_z(m, loop3_links[k].joint, up < 0 ? PKM_GROUND : body[up],
                                         body[k], o[k], 0, k == L1PP, ctx);
    }
    if (rc == PKM_OK) rc = loop3_add_cuts(m, p, o, body, ctx);
    if (rc != PKM_OK) {
        pkm_model_destroy(&m);
        return rc;
    }
    *out = m;
    return PKM_OK;
}

/* The parameter table: every number of Table 3 and the rebuilt pivots; the values are in
 * cases/loop3.yaml. */
#define LOOP3_V(key, field, help)                                                                  \
    PKM_CASE_VEC3(pkm_loop3_params, key, field, "m", pkm_range_position, help)
#define LOOP3_LINK(key, k) PKM_CASE_LINK(pkm_loop3_params, key, link[k], key)
static const pkm_param_desc loop3_params[] = {
    LOOP3_V("pivot.O1", pivot[0], "ground pivot of joint 1"),
    LOOP3_V("pivot.O1p", pivot[1], "ground pivot of joint 1'"),
    LOOP3_V("pivot.O1pp", pivot[2], "ground pivot of joint 1''"),
    LOOP3_V("offset.r2", offset[PKM_LOOP3_R2], "r_2^{0 1}: joint 2 from joint 1"),
    LOOP3_V("offset.r3", offset[PKM_LOOP3_R3], "r_3^{0 2}: joint 3 from joint 2"),
    LOOP3_V("offset.r3S", offset[PKM_LOOP3_R3S], "r_3S^{0 3}: point 3S from joint 3"),
    LOOP3_V("offset.r4", offset[PKM_LOOP3_R4], "r_4^{0 1}: joint 4 from joint 1"),
    LOOP3_V("offset.r4S", offset[PKM_LOOP3_R4S], "r_4S^{0 4}: point 4S from joint 4"),
    LOOP3_V("offset.r2p", offset[PKM_LOOP3_R2P], "r_2'^{0 1'}: joint 2' from joint 1'"),
    LOOP3_V("offset.r2IIS", offset[PKM_LOOP3_R2IIS], "r_2IIS^{0 2'}: point 2IIS from joint 2'"),
    LOOP3_V("offset.r2IS", offset[PKM_LOOP3_R2IS], "r_2IS^{0 2'}: point 2IS from joint 2'"),
    LOOP3_V("offset.r1S", offset[PKM_LOOP3_R1S], "r_1S^{0 1''}: point 1S from joint 1''"),
    LOOP3_LINK("link1", L1),
    LOOP3_LINK("link2", L2),
    LOOP3_LINK("link3", L3),
    LOOP3_LINK("link4", L4),
    LOOP3_LINK("link1p", L1P),
    LOOP3_LINK("link2p", L2P),
    LOOP3_LINK("link1pp", L1PP),
    PKM_CASE_DYNAMICS(pkm_loop3_params, "N m s/rad", "rad/s"),
};
#undef LOOP3_V
#undef LOOP3_LINK

static pkm_status loop3_build(const void *params, const double *pose, pkm_model **out, pkm_ctx *ctx)
{
    *out = NULL;
    const pkm_status rc = pkm_case_params_check(&pkm_loop3_case, params, ctx);
    return rc != PKM_OK ? rc : pkm_loop3_build(params, pose, out, ctx);
}

static const char *const loop3_names[1] = {"1''"};
static const char *const loop3_units[1] = {"rad"};
static const double loop3_home[1] = {0.0};

/* Table 3: the crank 1'' at 0.1 rad/s from the reference configuration. 14 s: with the rebuilt
 * pivots the closure becomes singular near a crank angle of 1.578 rad (t = 15.8 s). */
static const pkm_traj_coord loop3_crank[1] = {{PKM_TRAJ_POLY2, {0.0, 0.1, 0.0, 0.0}}};
static const pkm_traj_desc loop3_traj[] = {
    {"crank", "crank 1'' at 0.1 rad/s from 0 (Guo et al. 2024, Table 3)", 14.0, loop3_crank}};

const pkm_case pkm_loop3_case = {
    .name = "loop3",
    .description = "planar three-loop closed chain of rigid links, crank 1'' driven (Guo, Ju, "
                   "Wang 2024, Table 3)",
    .npose = PKM_CASE_NPOSE(1),
    .pose_names = loop3_names,
    .pose_units = loop3_units,
    .home = loop3_home,
    .params_size = sizeof(pkm_loop3_params),
    .params = loop3_params,
    .nparams = (int)(sizeof(loop3_params) / sizeof(loop3_params[0])),
    .yaml = (const char *)pkm_loop3_yaml,
    .yaml_name = "cases/loop3.yaml",
    .formulation = PKM_FORM_NODAL,
    .build = loop3_build,
    .analyses = PKM_CASE_DYNAMICS,
    .build_rigid = loop3_build,
    .dynamics_offset = offsetof(pkm_loop3_params, dynamics),
    .ntraj = (int)(sizeof(loop3_traj) / sizeof(loop3_traj[0])),
    .traj = loop3_traj,
};
