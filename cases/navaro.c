/* cases/navaro.c: the NaVARo planar parallel robot (Germain et al. 2015, sec. 5).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Leg i: links 1i = A_iD_i and 2i = A_iB_i clamped at A_i (clutches locked), 3i = B_iC_i,
 * 4i = C_iE_i through D_i, 5i = E_iP rigidly joined at P; revolute joints about z at B, C, D, E.
 * A_iB_iC_iD_i is a rhombus of side l. The parallelogram loop is opened at D_i, as in the paper
 * (sec. 5.1), and the platform P is cut free. Every number of the model (dimensions, material,
 * sections, mesh) is a parameter; the values, the paper's Tables 1-2 with the readings that
 * reproduce its Table 3 (cases/navaro/README.md), are in cases/navaro.yaml. */
#include "cases/cases_impl.h"
#include "core/core_impl.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

/* Base angles gamma_i of Table 1. */
static const double navaro_gamma[3] = {PKM_PI / 2.0, -5.0 * PKM_PI / 6.0, -PKM_PI / 6.0};

pkm_status pkm_navaro_leg_points(const pkm_navaro_params *p, const double pose[3], int leg,
                                 double pts[5][3], pkm_ctx *ctx)
{
    if (!isfinite(pose[0]) || !isfinite(pose[1]) || !isfinite(pose[2]))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "navaro: pose (%g, %g, %g) is not finite", pose[0],
                        pose[1], pose[2]);
    const double g = navaro_gamma[leg], l = p->link_length;
    const double A[2] = {p->base_radius * cos(g), p->base_radius * sin(g)};
    const double ge = g + PKM_PI / 3.0 + pose[2];
    const double E[2] = {pose[0] + p->platform_radius * cos(ge),
                         pose[1] + p->platform_radius * sin(ge)};
    const double dx = E[0] - A[0], dy = E[1] - A[1], s = hypot(dx, dy);
    /* The 2R chain A-D-E reaches |AE| in (0, 2l); at the ends the leg is folded or stretched
     * (a serial singularity), which a modal model cannot represent either. */
    if (!(s < 2.0 * l * (1.0 - PKM_NAVARO_REACH_RTOL)) || !(s > 2.0 * l * PKM_NAVARO_REACH_RTOL))
        return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE,
                        "navaro: leg %d cannot reach pose (x %g m, y %g m, theta %g rad): "
                        "|A%dE%d| = %.6g m, the leg spans (0, %.6g) m",
                        leg + 1, pose[0], pose[1], pose[2], leg + 1, leg + 1, s, 2.0 * l);
    /* Assembly mode: D on the clockwise side of A -> E, the same for all legs. */
    const double phi = atan2(dy, dx), a = acos(s / (2.0 * l));
    const double D[2] = {A[0] + l * cos(phi - a), A[1] + l * sin(phi - a)};
    const double B[2] = {A[0] + D[0] - E[0], A[1] + D[1] - E[1]};
    const double C[2] = {2.0 * D[0] - E[0], 2.0 * D[1] - E[1]};
    const double *xy[5] = {A, B, C, D, E};
    for (int k = 0; k < 5; k++) {
        pts[k][0] = xy[k][0];
        pts[k][1] = xy[k][1];
        pts[k][2] = 0.0;
    }
    return PKM_OK;
}

/* The five links of leg i through its points q (A, B, C, D, E) to the platform centre P: 1 = A D,
 * 2 = A B, 3 = B C, 4 = C D E (D a node between its two halves), 5 = E P in the platform's
 * section; their body ids in link[5]. */
static pkm_status add_links(pkm_model *m, const pkm_navaro_params *p, double q[5][3],
                            const double P[3], int i, int link[5], pkm_ctx *ctx)
{
    enum { A, B, C, D, E };
    const int ne = p->elements_per_link, ne4[2] = {ne, ne};
    const double l1[2][3] = {{q[A][0], q[A][1], 0}, {q[D][0], q[D][1], 0}};
    const double l2[2][3] = {{q[A][0], q[A][1], 0}, {q[B][0], q[B][1], 0}};
    const double l3[2][3] = {{q[B][0], q[B][1], 0}, {q[C][0], q[C][1], 0}};
    const double l4[3][3] = {{q[C][0], q[C][1], 0}, {q[D][0], q[D][1], 0}, {q[E][0], q[E][1], 0}};
    const double l5[2][3] = {{q[E][0], q[E][1], 0}, {P[0], P[1], 0}};
    const double(*geo[5])[3] = {l1, l2, l3, l4, l5};
    pkm_status rc = PKM_OK;
    /* Constant names: no formatting in the per-pose build of a map. */
    static const char *const names[3][5] = {
        {"leg 1 link 1", "leg 1 link 2", "leg 1 link 3", "leg 1 link 4", "leg 1 link 5"},
        {"leg 2 link 1", "leg 2 link 2", "leg 2 link 3", "leg 2 link 4", "leg 2 link 5"},
        {"leg 3 link 1", "leg 3 link 2", "leg 3 link 3", "leg 3 link 4", "leg 3 link 5"}};
    for (int k = 0; k < 5 && rc == PKM_OK; k++) {
        pkm_beam_desc d = {.name = names[i][k],
                           .npoints = (k == 3) ? 3 : 2,
                           .points = geo[k],
                           .nelem = (k == 3) ? ne4 : &ne,
                           .zref = {0.0, 0.0, 1.0},
                           .section = (k == 4) ? p->platform_section : p->leg_section,
                           .material = p->material,
                           .mass_flags = p->mass_flags};
        rc = pkm_model_add_beam(m, &d, &link[k], ctx);
    }
    return rc;
}

/* The point masses of sec. 5.3 at leg i's joints B, C, D, E (jid[2..5], names nm[0..3]), and
 * with leg 1 the one at P, carried by the platform (jid[6]); none where the mass is 0. A point
 * mass has no rotary inertia, so the body of the joint that carries it does not matter. */
static pkm_status add_joint_masses(pkm_model *m, const pkm_navaro_params *p, int i,
                                   const int jid[7], const char *const nm[], pkm_ctx *ctx)
{
    pkm_status rc = PKM_OK;
    for (int k = 0; k < 5 && rc == PKM_OK; k++) {
        if (p->joint_mass[k] == 0.0 || (k == 4 && i > 0)) continue;
        const pkm_mass_desc d = {.name = k < 4 ? nm[k] : "P",
                                 .joint = jid[2 + k],
                                 .side = k == 4,
                                 .mass = p->joint_mass[k]};
        rc = pkm_model_add_mass(m, &d, NULL, ctx);
    }
    return rc;
}

/* The mechanism; rigid: the joints at A_i revolute, the one of p->drive actuated. */
static pkm_status navaro_build_model(const pkm_navaro_params *p, const double pose[3], int rigid,
                                     pkm_model **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (p->elements_per_link < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "navaro: elements_per_link = %d must be >= 1",
                        p->elements_per_link);
    double pts[3][5][3];
    for (int i = 0; i < 3; i++) {
        pkm_status rc = pkm_navaro_leg_points(p, pose, i, pts[i], ctx);
        if (rc != PKM_OK) return rc;
    }
    pkm_model *m = NULL;
    pkm_status rc = pkm_model_create(&m, ctx);
    if (rc != PKM_OK) return rc;
    const double P[3] = {pose[0], pose[1], 0.0};
    int link[3][5];
    for (int i = 0; i < 3 && rc == PKM_OK; i++)
        rc = add_links(m, p, pts[i], P, i, link[i], ctx);
    int platform = -1;
    if (rc == PKM_OK) {
        /* The platform's mass is in the three beams 5i; P itself is a massless rigid node. */
        pkm_rigid_desc d = {
            .name = "platform", .origin = {P[0], P[1], 0}, .mass = 0.0, .com = {P[0], P[1], 0}};
        rc = pkm_model_add_rigid(m, &d, &platform, ctx);
    }
    if (rc == PKM_OK) rc = pkm_model_set_platform(m, platform, ctx);
    for (int i = 0; i < 3 && rc == PKM_OK; i++) {
        double(*q)[3] = pts[i];
        static const char *const names[3][7] = {{"A11", "A21", "B1", "C1", "D1", "E1", "P1"},
                                                {"A12", "A22", "B2", "C2", "D2", "E2", "P2"},
                                                {"A13", "A23", "B3", "C3", "D3", "E3", "P3"}};
        const char *const *nm = names[i];
        /* At A_i the motor drives link 1i or 2i through its clutch (sec. 5); the modes are
         * computed with both clutches locked, or elastic about z with the stiffness of sec. 5.3
         * when one is given (clutch.k1, clutch.k2). */
        pkm_joint_type at_a[2];
        const int driven = p->drive == PKM_NAVARO_DRIVE_LINK1 ? 0 : 1;
        for (int c = 0; c < 2; c++)
            at_a[c] = (rigid || p->clutch_k[c] > 0.0 ||
                       (p->clutch_locked == PKM_NAVARO_LOCKED_DRIVE && c != driven))
                          ? PKM_JOINT_REVOLUTE
                          : PKM_JOINT_CLAMPED;
        const pkm_joint_desc js[7] = {
            {.name = nm[0],
             .type = at_a[0],
             .body_a = PKM_GROUND,
             .body_b = link[i][0],
             .point = {q[0][0], q[0][1], 0},
             .axis = {0, 0, 1},
             .actuated = rigid && p->drive == PKM_NAVARO_DRIVE_LINK1,
             .stiffness = {rigid ? 0.0 : p->clutch_k[0]}},
            {.name = nm[1],
             .type = at_a[1],
             .body_a = PKM_GROUND,
             .body_b = link[i][1],
             .point = {q[0][0], q[0][1], 0},
             .axis = {0, 0, 1},
             .actuated = rigid && p->drive == PKM_NAVARO_DRIVE_LINK2,
             .stiffness = {rigid ? 0.0 : p->clutch_k[1]}},
            {.name = nm[2],
             .type = PKM_JOINT_REVOLUTE,
             .body_a = link[i][1],
             .body_b = link[i][2],
             .point = {q[1][0], q[1][1], 0},
             .axis = {0, 0, 1}},
            {.name = nm[3],
             .type = PKM_JOINT_REVOLUTE,
             .body_a = link[i][2],
             .body_b = link[i][3],
             .point = {q[2][0], q[2][1], 0},
             .axis = {0, 0, 1}},
            /* Opened in the virtual tree, as the paper opens the parallelogram at D_i. */
            {.name = nm[4],
             .type = PKM_JOINT_REVOLUTE,
             .body_a = link[i][3],
             .body_b = link[i][0],
             .point = {q[3][0], q[3][1], 0},
             .axis = {0, 0, 1},
             .cut = 1},
            {.name = nm[5],
             .type = PKM_JOINT_REVOLUTE,
             .body_a = link[i][3],
             .body_b = link[i][4],
             .point = {q[4][0], q[4][1], 0},
             .axis = {0, 0, 1}},
            {.name = nm[6],
             .type = PKM_JOINT_CLAMPED,
             .body_a = link[i][4],
             .body_b = platform,
             .point = {P[0], P[1], 0}},
        };
        int jid[7];
        for (int k = 0; k < 7 && rc == PKM_OK; k++)
            rc = pkm_model_add_joint(m, &js[k], &jid[k], ctx);
        if (rc == PKM_OK) rc = add_joint_masses(m, p, i, jid, nm + 2, ctx);
    }
    if (rc != PKM_OK) {
        pkm_model_destroy(&m);
        return rc;
    }
    *out = m;
    return PKM_OK;
}

pkm_status pkm_navaro_build(const pkm_navaro_params *p, const double pose[3], pkm_model **out,
                            pkm_ctx *ctx)
{
    return navaro_build_model(p, pose, 0, out, ctx);
}

pkm_status pkm_navaro_build_rigid(const pkm_navaro_params *p, const double pose[3], pkm_model **out,
                                  pkm_ctx *ctx)
{
    return navaro_build_model(p, pose, 1, out, ctx);
}

/* The parameter table: every number of the model; the values are in cases/navaro.yaml. */
static const pkm_param_choice navaro_mass[] = {
    {"rotary", PKM_FEM_ROTARY_INERTIA}, {"translational", 0}, {NULL, 0}};
static const pkm_param_choice navaro_locked[] = {
    {"both", PKM_NAVARO_LOCKED_BOTH}, {"drive", PKM_NAVARO_LOCKED_DRIVE}, {NULL, 0}};
static const pkm_param_choice navaro_drive[] = {
    {"link1", PKM_NAVARO_DRIVE_LINK1}, {"link2", PKM_NAVARO_DRIVE_LINK2}, {NULL, 0}};

#define NAVARO_D(key, field, unit, range, help)                                                    \
    PKM_PARAM_DOUBLE(pkm_navaro_params, key, field, unit, range, help)
static const pkm_param_desc navaro_params[] = {
    NAVARO_D("base_radius", base_radius, "m", pkm_range_length, "|O A_i|, base circumradius"),
    NAVARO_D("link_length", link_length, "m", pkm_range_length,
             "rhombus side |A_i D_i| = |D_i E_i|"),
    NAVARO_D("platform_radius", platform_radius, "m", pkm_range_length,
             "|P E_i|, platform circumradius"),
    NAVARO_D("material.E", material.E, "Pa", pkm_range_modulus, "Young's modulus"),
    NAVARO_D("material.G", material.G, "Pa", pkm_range_modulus, "shear modulus"),
    NAVARO_D("material.rho", material.rho, "kg/m^3", pkm_range_density, "density"),
    NAVARO_D("leg.A", leg_section.A, "m^2", pkm_range_area, "links 1-4: area"),
    NAVARO_D("leg.Iy", leg_section.Iy, "m^4", pkm_range_moment, "links 1-4: out-of-plane bending"),
    NAVARO_D("leg.Iz", leg_section.Iz, "m^4", pkm_range_moment, "links 1-4: in-plane bending"),
    NAVARO_D("leg.I0", leg_section.I0, "m^4", pkm_range_moment, "links 1-4: torsion constant"),
    NAVARO_D("leg.Ip", leg_section.Ip, "m^4", pkm_range_moment,
             "links 1-4: polar moment (torsional inertia)"),
    NAVARO_D("platform.A", platform_section.A, "m^2", pkm_range_area, "links 5: area"),
    NAVARO_D("platform.Iy", platform_section.Iy, "m^4", pkm_range_moment,
             "links 5: out-of-plane bending"),
    NAVARO_D("platform.Iz", platform_section.Iz, "m^4", pkm_range_moment,
             "links 5: in-plane bending"),
    NAVARO_D("platform.I0", platform_section.I0, "m^4", pkm_range_moment,
             "links 5: torsion constant"),
    NAVARO_D("platform.Ip", platform_section.Ip, "m^4", pkm_range_moment, "links 5: polar moment"),
    PKM_PARAM_INT(pkm_navaro_params, "elements_per_link", elements_per_link, pkm_range_elements,
                  "beam elements per link (link 4 gets twice as many)"),
    PKM_PARAM_ENUM(pkm_navaro_params, "mass", mass_flags, navaro_mass,
                   "beam mass: rotary (with section rotary inertia) or translational"),
    PKM_PARAM_ENUM(pkm_navaro_params, "drive", drive, navaro_drive,
                   "rigid-body model: the link the motor at A_i drives, link1 (A_iD_i) or link2 "
                   "(A_iB_i)"),
    PKM_CASE_DYNAMICS(pkm_navaro_params, "N m s/rad", "rad/s"),
    PKM_CASE_LOAD(pkm_navaro_params, "load", "load"),
    NAVARO_D("clutch.k1", clutch_k[0], "N m/rad", pkm_range_joint_stiffness,
             "clutch elasticity about z at A_i, base to link 1i (A_iD_i); 0: locked"),
    NAVARO_D("clutch.k2", clutch_k[1], "N m/rad", pkm_range_joint_stiffness,
             "clutch elasticity about z at A_i, base to link 2i (A_iB_i); 0: locked"),
    PKM_PARAM_ENUM(pkm_navaro_params, "clutch.locked", clutch_locked, navaro_locked,
                   "finite-element model: both clutches locked (Table 3), or only the driven "
                   "link's (drive), the other link free about z (the locked-drive model)"),
    NAVARO_D("joint_mass.B", joint_mass[0], "kg", pkm_range_mass, "point mass at each B_i"),
    NAVARO_D("joint_mass.C", joint_mass[1], "kg", pkm_range_mass, "point mass at each C_i"),
    NAVARO_D("joint_mass.D", joint_mass[2], "kg", pkm_range_mass, "point mass at each D_i"),
    NAVARO_D("joint_mass.E", joint_mass[3], "kg", pkm_range_mass, "point mass at each E_i"),
    NAVARO_D("joint_mass.P", joint_mass[4], "kg", pkm_range_mass,
             "point mass at the platform centre P"),
};
#undef NAVARO_D

static pkm_status navaro_build(const void *params, const double *pose, pkm_model **out,
                               pkm_ctx *ctx)
{
    *out = NULL;
    const pkm_status rc = pkm_case_params_check(&pkm_navaro_case, params, ctx);
    return rc != PKM_OK ? rc : pkm_navaro_build(params, pose, out, ctx);
}

/* The turn by 2 pi / 3 about the base centre takes leg i's base point to leg i + 1's and the
 * platform, whose joints E_i are 2 pi / 3 apart too, onto itself: pose (x, y, theta) and its
 * centre turned, theta unchanged, are one configuration with the legs renumbered (Table 3's
 * poses 3-6 are such images of poses 7-8, with the same frequencies). A reflection is not a
 * symmetry: each leg's rhombus closes on one side (pkm_navaro_leg_points). */
static void navaro_symmetry(const double *pose, double *image)
{
    const double c = cos(2.0 * PKM_PI / 3.0), s = sin(2.0 * PKM_PI / 3.0);
    const double x = pose[0], y = pose[1];
    image[0] = c * x - s * y;
    image[1] = s * x + c * y;
    image[2] = pose[2];
}

static pkm_status navaro_build_rigid(const void *params, const double *pose, pkm_model **out,
                                     pkm_ctx *ctx)
{
    *out = NULL;
    const pkm_status rc = pkm_case_params_check(&pkm_navaro_case, params, ctx);
    return rc != PKM_OK ? rc : pkm_navaro_build_rigid(params, pose, out, ctx);
}

static const char *const navaro_names[3] = {"x", "y", "theta"};
static const char *const navaro_units[3] = {"m", "m", "rad"};
static const double navaro_home[3] = {0.0, 0.0, 0.0};

/* The platform's floating coordinates of the rigid-body model are the pose itself (the model is
 * built at home, the platform's origin at P): x, y and the turn about z. */
static const char *const navaro_driven[3] = {"platform.x", "platform.y", "platform.rz"};

pkm_status pkm_navaro_case_drive(const void *params, const double *pose, const double *dpose,
                                 const double *ddpose, double *q, double *qd, double *qdd,
                                 pkm_ctx *ctx)
{
    double pts[5][3];
    for (int i = 0; i < 3; i++) {
        const pkm_status rc = pkm_navaro_leg_points(params, pose, i, pts, ctx);
        if (rc != PKM_OK) return rc;
    }
    for (int k = 0; k < 3; k++) {
        q[k] = pose[k];
        qd[k] = dpose[k];
        qdd[k] = ddpose[k];
    }
    return PKM_OK;
}

/* A point-to-point motion of the platform (Germain et al. 2015 run none): rest to rest by a
 * quintic from the home pose to x = 40 mm, y = 20 mm, theta = -0.1 rad in 1 s, held for 0.5 s.
 * Every leg reaches every pose of the path: |A_iE_i| stays between 0.294 and 0.370 m, inside the
 * leg's span (0, 0.42) m (0.35 m at home); tests/test_case_battery.c builds the model along it. */
static const pkm_traj_coord navaro_p2p[3] = {{PKM_TRAJ_QUINTIC, {0.0, 0.040, 1.0, 0.0}},
                                             {PKM_TRAJ_QUINTIC, {0.0, 0.020, 1.0, 0.0}},
                                             {PKM_TRAJ_QUINTIC, {0.0, -0.1, 1.0, 0.0}}};
static const pkm_traj_desc navaro_traj[] = {
    {"p2p", "platform rest to rest from home to (40 mm, 20 mm, -0.1 rad) in 1 s, quintic", 1.5,
     navaro_p2p}};

const pkm_case pkm_navaro_case = {
    .name = "navaro",
    .description = "NaVARo 3-dof planar parallel robot (Germain et al. 2015), clutches locked",
    .npose = PKM_CASE_NPOSE(3),
    .pose_names = navaro_names,
    .pose_units = navaro_units,
    .home = navaro_home,
    .params_size = sizeof(pkm_navaro_params),
    .params = navaro_params,
    .nparams = (int)(sizeof(navaro_params) / sizeof(navaro_params[0])),
    .yaml = (const char *)pkm_navaro_yaml,
    .yaml_name = "cases/navaro.yaml",
    .formulation = PKM_FORM_TREE,
    .build = navaro_build,
    .symmetry = navaro_symmetry,
    .analyses = PKM_CASE_MODAL | PKM_CASE_DYNAMICS,
    .build_rigid = navaro_build_rigid,
    .dynamics_offset = offsetof(pkm_navaro_params, dynamics),
    .ndriven = 3,
    .driven_names = navaro_driven,
    .platform_names = navaro_driven,
    .drive = pkm_navaro_case_drive,
    .ntraj = (int)(sizeof(navaro_traj) / sizeof(navaro_traj[0])),
    .traj = navaro_traj,
};
