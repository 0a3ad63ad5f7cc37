/* cases/hiab_case.c: the crane's two machines (pkm/hiab.h) as cases of the registry: boom1 and
 * crane4, rigid-body models only (pkm_chain_model of their module chains), driven by the modules'
 * coordinates, with sinusoids of those coordinates and the dynamics block of every case
 * (gravity 9.8066 m/s^2 along -y, gravity.Wg of Petrovic and Mattila 2022's data set; no
 * friction: the data set gives none).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/hiab.h"

#include "cases/cases_impl.h"
#include "core/core_impl.h"

#include <stddef.h>

#define P pkm_hiab_params
static const pkm_param_desc hiab_params[] = {PKM_CASE_DYNAMICS(P, "N s/m", "m/s"),
                                             PKM_CASE_LOAD(P, "load", "load")};
#undef P

/* The machine's model at pose (its modules' coordinates, in the modules' order). */
static pkm_status hiab_build(const pkm_case *c, const void *params, const double *pose,
                             pkm_model **out, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_chain *ch = NULL;
    int coord[3 * 4];
    pkm_status st = pkm_case_params_check(c, params, ctx);
    if (st == PKM_OK) st = pkm_hiab_chain(c->name, &ch, ctx);
    if (st == PKM_OK) st = pkm_chain_model(ch, pose, out, coord, ctx);
    pkm_chain_destroy(&ch);
    return st;
}

static pkm_status boom1_build(const void *params, const double *pose, pkm_model **out, pkm_ctx *ctx)
{
    return hiab_build(&pkm_boom1_case, params, pose, out, ctx);
}

/* No finite-element model: dynamics only. */
static pkm_status boom1_none(const void *params, const double *pose, pkm_model **out, pkm_ctx *ctx)
{
    (void)params, (void)pose;
    return pkm_case_build_none("boom1", out, ctx);
}

static pkm_status crane4_none(const void *params, const double *pose, pkm_model **out, pkm_ctx *ctx)
{
    (void)params, (void)pose;
    return pkm_case_build_none("crane4", out, ctx);
}

static pkm_status crane4_build(const void *params, const double *pose, pkm_model **out,
                               pkm_ctx *ctx)
{
    return hiab_build(&pkm_crane4_case, params, pose, out, ctx);
}

/* PKM_TRAJ_SINE takes the frequency in Hz: w / (2 pi). */
#define HIAB_HZ(w) ((w) / (2.0 * PKM_PI))

static const char *const boom1_names[1] = {"x"};
static const char *const crane4_names[4] = {"slew", "x1", "x2", "xt"};
static const pkm_traj_coord boom1_sine[1] = {{PKM_TRAJ_SINE, {0.19, 0.03, HIAB_HZ(1.0), 0.0}}};
static const pkm_traj_coord crane4_sine[4] = {{PKM_TRAJ_SINE, {0.0, 0.5, HIAB_HZ(0.5), 0.0}},
                                              {PKM_TRAJ_SINE, {0.19, 0.03, HIAB_HZ(1.0), 0.0}},
                                              {PKM_TRAJ_SINE, {0.42, 0.07, HIAB_HZ(2.0), 0.0}},
                                              {PKM_TRAJ_SINE, {0.5, 0.1, HIAB_HZ(1.0), 0.0}}};
static const pkm_traj_desc boom1_traj[1] = {
    {"sine", "the lift stroke 0.19 + 0.03 sin(t) m", 10.0, boom1_sine}};
static const pkm_traj_desc crane4_traj[1] = {
    {"sine",
     "slew 0.5 sin(t/2) rad, strokes 0.19 + 0.03 sin(t), 0.42 + 0.07 sin(2t), 0.5 + 0.1 sin(t) m",
     10.0, crane4_sine}};

/* The model's actuated joints, the modules' (pkm_chain_model names a loop's cylinder after its
 * module); the pose measures them from the build pose, home. */
static const char *const boom1_driven[1] = {"cyl1"};
static const char *const crane4_driven[4] = {"slew", "cyl1", "cyl2", "ext"};
static const char *const boom1_units[1] = {"m"};
static const char *const crane4_units[4] = {"rad", "m", "m", "m"};
/* The centres of the sinusoids below: the trajectories start there. */
static const double boom1_home[1] = {0.19};
static const double crane4_home[4] = {0.0, 0.19, 0.42, 0.5};

const pkm_case pkm_boom1_case = {
    .name = "boom1",
    .description = "the lift loop of the crane of Petrovic and Mattila 2022 on its pillar",
    .npose = PKM_CASE_NPOSE(1),
    .pose_names = boom1_names,
    .pose_units = boom1_units,
    .home = boom1_home,
    .params_size = sizeof(pkm_hiab_params),
    .params = hiab_params,
    .nparams = (int)(sizeof(hiab_params) / sizeof(hiab_params[0])),
    .yaml = (const char *)pkm_boom1_yaml,
    .yaml_name = "cases/boom1.yaml",
    .formulation = PKM_FORM_NODAL,
    .build = boom1_none,
    .analyses = PKM_CASE_DYNAMICS,
    .build_rigid = boom1_build,
    .dynamics_offset = offsetof(pkm_hiab_params, dynamics),
    .ndriven = 1,
    .driven_names = boom1_driven,
    .ntraj = 1,
    .traj = boom1_traj,
};

const pkm_case pkm_crane4_case = {
    .name = "crane4",
    .description = "that crane: slewing joint, lift and tilt loops, extension",
    .npose = PKM_CASE_NPOSE(4),
    .pose_names = crane4_names,
    .pose_units = crane4_units,
    .home = crane4_home,
    .params_size = sizeof(pkm_hiab_params),
    .params = hiab_params,
    .nparams = (int)(sizeof(hiab_params) / sizeof(hiab_params[0])),
    .yaml = (const char *)pkm_crane4_yaml,
    .yaml_name = "cases/crane4.yaml",
    .formulation = PKM_FORM_NODAL,
    .build = crane4_none,
    .analyses = PKM_CASE_DYNAMICS,
    .build_rigid = crane4_build,
    .dynamics_offset = offsetof(pkm_hiab_params, dynamics),
    .ndriven = 4,
    .driven_names = crane4_driven,
    .ntraj = 1,
    .traj = crane4_traj,
};
