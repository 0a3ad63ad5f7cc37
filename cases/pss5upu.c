/* cases/pss5upu.c: the 5-PSS/UPU parallel mechanism with elastic active chains (Li et al. 2020,
 * Chin. J. Mech. Eng. 33, doi:10.1186/s10033-020-00460-4).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Leg i: a lead screw along an inclined rail from its motor end B_i (beam), a slider on the rail
 * (rigid, prismatic to the ground, helical to the screw's node at the nut: Li et al. 2020, eq.
 * 26), a link from b_i on the slider to a_i on the platform (beam). A U-P-U chain joins the base
 * centre O to the platform centre p. The paper gives neither the joint layout, the rail
 * direction, the home pose nor the link section consistently (docs/cases/pss5upu.md lists what
 * is missing). Every number is a parameter; the values, with the source of each or the reason
 * for the choice where the paper gives none, are in cases/pss5upu.yaml. */
#include "core/core_impl.h"
#include "cases/cases_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The nut must stay this far from the screw ends, m: at an end the nut node is the bearing's
 * node and the slider's joint loop would hold no flexible element. */
#define PSS_END_CLEARANCE 1e-6

static void rot_x(double a, double R[3][3])
{
    const double c = cos(a), s = sin(a);
    const double T[3][3] = {{1, 0, 0}, {0, c, -s}, {0, s, c}};
    memcpy(R, T, sizeof(T));
}

static void rot_y(double a, double R[3][3])
{
    const double c = cos(a), s = sin(a);
    const double T[3][3] = {{c, 0, s}, {0, 1, 0}, {-s, 0, c}};
    memcpy(R, T, sizeof(T));
}

static void unit3(double a[3])
{
    const double n = pkm_vec3_norm(a);
    for (int k = 0; k < 3; k++)
        a[k] /= n;
}

/* Motor end B_i and unit rail direction (towards the centre, rising at the rail angle). */
static void rail_of(const pkm_pss5upu_params *p, int i, double B[3], double d[3])
{
    const double c = cos(p->base_angle[i]), s = sin(p->base_angle[i]);
    B[0] = p->base_radius * c;
    B[1] = p->base_radius * s;
    B[2] = 0.0;
    d[0] = -cos(p->rail_angle) * c;
    d[1] = -cos(p->rail_angle) * s;
    d[2] = sin(p->rail_angle);
}

static pkm_status check_geometry(const pkm_pss5upu_params *p, pkm_ctx *ctx)
{
    const double pos[4] = {p->base_radius, p->platform_radius, p->travel, p->link_length};
    const char *name[4] = {"base.radius", "platform.radius", "rail.travel", "link.L"};
    for (int k = 0; k < 4; k++)
        if (!(pos[k] > 0.0) || !isfinite(pos[k]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: %s = %g m must be > 0", name[k],
                            pos[k]);
    if (!(p->home_travel > PSS_END_CLEARANCE && p->home_travel < p->travel - PSS_END_CLEARANCE))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "pss5upu: rail.home = %g m must lie inside the travel (0, %g) m",
                        p->home_travel, p->travel);
    if (!(fabs(p->rail_angle) < PKM_PI / 2.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "pss5upu: rail.angle = %g rad must be in (-pi/2, pi/2)", p->rail_angle);
    for (int i = 0; i < PKM_PSS5UPU_LEGS; i++)
        if (!isfinite(p->base_angle[i]) || !isfinite(p->platform_angle[i]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: joint angles of leg %d are not finite",
                            i + 1);
    return PKM_OK;
}

/* Root sign of the leg equation that gives the home travel of leg i at the home height h0. */
static double home_branch(const pkm_pss5upu_params *p, int i, double h0)
{
    double B[3], d[3];
    rail_of(p, i, B, d);
    const double a[3] = {p->platform_radius * cos(p->platform_angle[i]),
                         p->platform_radius * sin(p->platform_angle[i]), h0};
    const double c[3] = {a[0] - B[0], a[1] - B[1], a[2] - B[2]};
    return (p->home_travel <= pkm_vec3_dot(d, c)) ? -1.0 : 1.0;
}

pkm_status pkm_pss5upu_inverse(const pkm_pss5upu_params *p, const double pose[5],
                               pkm_pss5upu_geometry *g, pkm_ctx *ctx)
{
    memset(g, 0, sizeof(*g));
    pkm_status rc = check_geometry(p, ctx);
    if (rc != PKM_OK) return rc;
    for (int k = 0; k < 5; k++)
        if (!isfinite(pose[k]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: pose coordinate %d is not finite",
                            k + 1);
    /* Home height: leg 1's link at the home travel reaches a_1 straight above it (for a regular
     * layout every leg does). */
    double B[3], d[3];
    rail_of(p, 0, B, d);
    const double bh[3] = {B[0] + p->home_travel * d[0], B[1] + p->home_travel * d[1],
                          B[2] + p->home_travel * d[2]};
    const double ah[2] = {p->platform_radius * cos(p->platform_angle[0]),
                          p->platform_radius * sin(p->platform_angle[0])};
    const double dxy2 = (ah[0] - bh[0]) * (ah[0] - bh[0]) + (ah[1] - bh[1]) * (ah[1] - bh[1]);
    const double L = p->link_length;
    if (!(L * L > dxy2))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "pss5upu: link.L = %g m cannot span the %g m between slider 1 at the home "
                        "travel and a_1",
                        L, sqrt(dxy2));
    g->h0 = bh[2] + sqrt(L * L - dxy2);
    g->centre[0] = pose[0];
    g->centre[1] = pose[1];
    g->centre[2] = g->h0 + pose[2];
    if (!(g->centre[2] > 0.0))
        return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE,
                        "pss5upu: pose z = %g m puts the platform centre at or below the base "
                        "(home height %g m)",
                        pose[2], g->h0);
    /* The UPU's base joint turns about x by q1 and about the turned y by q2 (the leg direction);
     * the platform joint turns about the same inner axis, then about the platform's x. The
     * orientations it allows are Rx(q1) Ry(beta) Rx(alpha - q1), beta = q2 + q3, alpha = q1 + q4:
     * no turn about the platform normal. */
    g->upu_q1 = atan2(-g->centre[1], g->centre[2]);
    double R1[3][3], R2[3][3], R3[3][3];
    rot_x(g->upu_q1, R1);
    rot_y(pose[4], R2);
    rot_x(pose[3] - g->upu_q1, R3);
    pkm_mat3_mul(PKM_CONST33(R1), PKM_CONST33(R2), g->rot);
    pkm_mat3_mul(PKM_CONST33(g->rot), PKM_CONST33(R3), g->rot);
    for (int i = 0; i < PKM_PSS5UPU_LEGS; i++) {
        rail_of(p, i, g->base[i], g->rail[i]);
        const double ap[3] = {p->platform_radius * cos(p->platform_angle[i]),
                              p->platform_radius * sin(p->platform_angle[i]), 0.0};
        double *a = g->platform_joint[i];
        for (int k = 0; k < 3; k++)
            a[k] = g->centre[k] + pkm_vec3_dot(g->rot[k], ap);
        /* |a - B - s d| = L: s^2 - 2 (d.c) s + |c|^2 - L^2 = 0, c = a - B. */
        const double c[3] = {a[0] - g->base[i][0], a[1] - g->base[i][1], a[2] - g->base[i][2]};
        const double dc = pkm_vec3_dot(g->rail[i], c), disc = dc * dc - pkm_vec3_dot(c, c) + L * L;
        if (!(disc >= 0.0))
            return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE,
                            "pss5upu: leg %d cannot reach pose (%g m, %g m, %g m, %g rad, %g rad): "
                            "a_%d is %.4g m from rail %d, the link is %g m",
                            i + 1, pose[0], pose[1], pose[2], pose[3], pose[4], i + 1,
                            sqrt(pkm_vec3_dot(c, c) - dc * dc), i + 1, L);
        const double s = dc + home_branch(p, i, g->h0) * sqrt(disc);
        if (!(s > PSS_END_CLEARANCE && s < p->travel - PSS_END_CLEARANCE))
            return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE,
                            "pss5upu: leg %d cannot reach pose (%g m, %g m, %g m, %g rad, %g rad): "
                            "slider travel %.6g m outside (0, %g) m",
                            i + 1, pose[0], pose[1], pose[2], pose[3], pose[4], s, p->travel);
        g->s[i] = s;
        for (int k = 0; k < 3; k++)
            g->slider[i][k] = g->base[i][k] + s * g->rail[i][k];
    }
    return PKM_OK;
}

static pkm_status check_params(const pkm_pss5upu_params *p, pkm_ctx *ctx)
{
    if (p->variant != PKM_PSS5UPU_PAPER && p->variant != PKM_PSS5UPU_SPHERICAL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: unknown variant %u", p->variant);
    const char *vname = (p->variant == PKM_PSS5UPU_PAPER) ? "paper" : "spherical";
    if (p->link_mesh[p->variant].nelem < 1 || p->screw_nelem < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "pss5upu: link.%s.nelem = %d and screw.nelem = %d must be >= 1", vname,
                        p->link_mesh[p->variant].nelem, p->screw_nelem);
    for (int k = 0; k < 3; k++)
        if (!(p->platform_inertia[k] >= 0.0) || !isfinite(p->platform_inertia[k]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "pss5upu: platform inertia %g kg m^2 must be finite and >= 0",
                            p->platform_inertia[k]);
    if (p->upu != PKM_PSS5UPU_UPU_NONE && p->upu != PKM_PSS5UPU_UPU_RIGID &&
        p->upu != PKM_PSS5UPU_UPU_LOCKED)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: unknown upu mode %u", p->upu);
    if (p->screw_end != PKM_PSS5UPU_SCREW_FREE && p->screw_end != PKM_PSS5UPU_SCREW_SUPPORTED)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: unknown screw end %u", p->screw_end);
    for (int k = 0; k < 2; k++) {
        const unsigned e = k ? p->screw_element : p->link_element;
        if (e >= (unsigned)pkm_beam_type_count || !pkm_beam_type_spatial(&pkm_beam_types[e]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: unknown beam element %u", e);
    }
    return PKM_OK;
}

/* Section axis for a beam along u: whichever of t and z is further from parallel to u (the
 * sections are round, so only the frame's existence matters). */
static void section_axis(const double u[3], const double t[3], double zref[3])
{
    const double z[3] = {0.0, 0.0, 1.0};
    const double ct = fabs(pkm_vec3_dot(u, t)) / sqrt(pkm_vec3_dot(u, u) * pkm_vec3_dot(t, t));
    const double cz = fabs(u[2]) / sqrt(pkm_vec3_dot(u, u));
    memcpy(zref, (ct < cz) ? t : z, sizeof(double) * 3);
}

/* The bodies of leg i (build_leg): screw, slider, link, and the screw's far bearing if
 * supported (support, else -1); E is the rail's far end, t the leg's tangent. */
typedef struct leg_bodies {
    int screw, slider, link, support;
} leg_bodies;

static pkm_status add_leg_bodies(pkm_model *m, const pkm_pss5upu_params *p,
                                 const pkm_pss5upu_geometry *g, int i, const double E[3],
                                 const double t[3], leg_bodies *lb, pkm_ctx *ctx)
{
    const double *B = g->base[i], *b = g->slider[i], *a = g->platform_joint[i];
    /* Constant names: no formatting in the per-pose build of a map. */
    static const char *const names[PKM_PSS5UPU_LEGS][4] = {
        {"screw 1", "slider 1", "link 1", "bearing 1"},
        {"screw 2", "slider 2", "link 2", "bearing 2"},
        {"screw 3", "slider 3", "link 3", "bearing 3"},
        {"screw 4", "slider 4", "link 4", "bearing 4"},
        {"screw 5", "slider 5", "link 5", "bearing 5"}};
    /* Screw: motor end, nut, far end. */
    const double spts[3][3] = {{B[0], B[1], B[2]}, {b[0], b[1], b[2]}, {E[0], E[1], E[2]}};
    const int sne[2] = {p->screw_nelem, p->screw_nelem};
    pkm_beam_desc sd = {.name = names[i][0],
                        .npoints = 3,
                        .points = spts,
                        .nelem = sne,
                        .section = p->screw_section,
                        .material = p->screw_material,
                        .mass_flags = p->mass_flags,
                        .element = (pkm_beam_element)p->screw_element};
    memcpy(sd.zref, t, sizeof(sd.zref));
    lb->support = -1;
    pkm_status rc = pkm_model_add_beam(m, &sd, &lb->screw, ctx);
    if (rc != PKM_OK) return rc;
    /* Slider: a point mass on the rail (no rotary data in Table 1; the rail holds its turns). */
    pkm_rigid_desc rd = {.name = names[i][1], .mass = p->slider_mass};
    memcpy(rd.origin, b, sizeof(rd.origin));
    memcpy(rd.com, b, sizeof(rd.com));
    if ((rc = pkm_model_add_rigid(m, &rd, &lb->slider, ctx)) != PKM_OK) return rc;
    /* Link from b_i to a_i, meshed as its variant asks; eq. 9 (curvatures zero at both ends)
     * applies to quintic elements. */
    const pkm_pss5upu_link_mesh *lm = &p->link_mesh[p->variant];
    const double lpts[2][3] = {{b[0], b[1], b[2]}, {a[0], a[1], a[2]}};
    const double u[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    pkm_beam_desc ld = {.name = names[i][2],
                        .npoints = 2,
                        .points = lpts,
                        .nelem = &lm->nelem,
                        .section = p->link_section,
                        .material = p->link_material,
                        .mass_flags = p->mass_flags,
                        .element = (pkm_beam_element)p->link_element,
                        .end_curvature_zero = (int)lm->end_curvature_zero};
    section_axis(u, t, ld.zref);
    if ((rc = pkm_model_add_beam(m, &ld, &lb->link, ctx)) != PKM_OK) return rc;
    if (p->screw_end == PKM_PSS5UPU_SCREW_SUPPORTED) {
        pkm_rigid_desc bd = {.name = names[i][3], .mass = 0.0};
        memcpy(bd.origin, E, sizeof(bd.origin));
        memcpy(bd.com, E, sizeof(bd.com));
        rc = pkm_model_add_rigid(m, &bd, &lb->support, ctx);
    }
    return rc;
}

/* Leg i: screw, slider, link, their joints; the link's far end joins the platform. Joints are
 * added so that the virtual tree (Germain et al. 2015, sec. 3) reaches the slider from the
 * ground and the screw through the nut: the motor clamp and the far bearing then close loops on
 * the screw's end elements, one each. */
static pkm_status build_leg(pkm_model *m, const pkm_pss5upu_params *p,
                            const pkm_pss5upu_geometry *g, int i, int platform, int rigid,
                            pkm_ctx *ctx)
{
    const double *B = g->base[i], *d = g->rail[i], *b = g->slider[i], *a = g->platform_joint[i];
    const double t[3] = {-sin(p->base_angle[i]), cos(p->base_angle[i]), 0.0};
    const double u[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    double E[3];
    for (int k = 0; k < 3; k++)
        E[k] = B[k] + p->travel * d[k];
    leg_bodies lb;
    pkm_status rc = add_leg_bodies(m, p, g, i, E, t, &lb, ctx);
    if (rc != PKM_OK) return rc;
    const int screw = lb.screw, slider = lb.slider, link = lb.link, support = lb.support;
    static const char *const names[PKM_PSS5UPU_LEGS][7] = {
        {"rail 1", "nut 1", "motor 1", "bearing slide 1", "bearing 1", "b 1", "a 1"},
        {"rail 2", "nut 2", "motor 2", "bearing slide 2", "bearing 2", "b 2", "a 2"},
        {"rail 3", "nut 3", "motor 3", "bearing slide 3", "bearing 3", "b 3", "a 3"},
        {"rail 4", "nut 4", "motor 4", "bearing slide 4", "bearing 4", "b 4", "a 4"},
        {"rail 5", "nut 5", "motor 5", "bearing slide 5", "bearing 5", "b 5", "a 5"}};
    const char *const *jn = names[i];
    pkm_joint_desc js[8];
    int nj = 0;
    memset(js, 0, sizeof(js));
    /* The rail's prismatic joint is the drive (sec. 2: "the power input is the moving pair of
     * five PSS joint branches"). */
    js[nj] = (pkm_joint_desc){.name = jn[0],
                              .type = PKM_JOINT_PRISMATIC,
                              .body_a = PKM_GROUND,
                              .body_b = slider,
                              .actuated = 1};
    memcpy(js[nj].point, b, sizeof(js[nj].point));
    memcpy(js[nj++].axis, d, sizeof(js[0].axis));
    /* The nut: the slider moves lead/(2 pi) along the screw per radian the screw turns relative
     * to it (eq. 26 with the screw's torsion; the paper's u_6 is a bending slope). */
    js[nj] = (pkm_joint_desc){.name = jn[1],
                              .type = PKM_JOINT_HELICAL,
                              .body_a = slider,
                              .body_b = screw,
                              .pitch = p->screw_lead};
    memcpy(js[nj].point, b, sizeof(js[nj].point));
    memcpy(js[nj++].axis, d, sizeof(js[0].axis));
    /* The motor end: locked for the modes unless the drive has a stiffness (motor.k: the joint
     * turns about the screw against it, with the rotor's inertia); turning freely about the
     * screw in the rigid-body model, where the slider's travel turns the screw through the nut. */
    const int elastic = !rigid && p->motor_k > 0.0;
    js[nj] = (pkm_joint_desc){.name = jn[2],
                              .type = (rigid || elastic) ? PKM_JOINT_REVOLUTE : PKM_JOINT_CLAMPED,
                              .body_a = PKM_GROUND,
                              .body_b = screw,
                              .cut = 1,
                              .stiffness = {elastic ? p->motor_k : 0.0},
                              .rotor_inertia = {(rigid || elastic) ? p->motor_inertia : 0.0}};
    memcpy(js[nj].axis, d, sizeof(js[0].axis));
    memcpy(js[nj++].point, B, sizeof(js[0].point));
    if (support >= 0) {
        js[nj] = (pkm_joint_desc){
            .name = jn[3], .type = PKM_JOINT_PRISMATIC, .body_a = PKM_GROUND, .body_b = support};
        memcpy(js[nj].point, E, sizeof(E));
        memcpy(js[nj++].axis, d, sizeof(js[0].axis));
        js[nj] = (pkm_joint_desc){
            .name = jn[4], .type = PKM_JOINT_SPHERICAL, .body_a = support, .body_b = screw};
        memcpy(js[nj++].point, E, sizeof(E));
    }
    /* Slider end of the link: spherical (paper); in the spherical variant a universal joint
     * with both axes across the link, which is the spherical joint without the link's idle
     * spin about its own axis. The rigid-body model has the spherical variant's joints: the
     * paper's link welded to a rigid platform would keep b_i, a point of the platform, on rail
     * i, ten conditions on the platform's six coordinates, which no motion of eq. 40 meets. */
    const int welded = !rigid && p->variant == PKM_PSS5UPU_PAPER;
    js[nj] = (pkm_joint_desc){.name = jn[5], .body_a = slider, .body_b = link};
    memcpy(js[nj].point, b, sizeof(js[nj].point));
    if (welded) {
        js[nj].type = PKM_JOINT_SPHERICAL;
    } else {
        double w1[3], w2[3], uu[3] = {u[0], u[1], u[2]};
        unit3(uu);
        const double tu = pkm_vec3_dot(t, uu);
        for (int k = 0; k < 3; k++)
            w1[k] = t[k] - tu * uu[k];
        pkm_vec3_cross(uu, w1, w2);
        js[nj].type = PKM_JOINT_UNIVERSAL;
        memcpy(js[nj].axis, w1, sizeof(w1));
        memcpy(js[nj].axis2, w2, sizeof(w2));
    }
    nj++;
    /* Platform end: welded in the paper (eq. 25: the rotations at a_i are the platform's),
     * spherical in the spherical variant. */
    js[nj] = (pkm_joint_desc){.name = jn[6],
                              .type = welded ? PKM_JOINT_CLAMPED : PKM_JOINT_SPHERICAL,
                              .body_a = link,
                              .body_b = platform};
    memcpy(js[nj++].point, a, sizeof(js[0].point));
    for (int k = 0; k < nj && rc == PKM_OK; k++)
        rc = pkm_model_add_joint(m, &js[k], NULL, ctx);
    return rc;
}

/* The U-P-U chain: base U at O (x, then the inner axis), P along O p, platform U at p (the inner
 * axis, then the platform's x), massless rigid bodies between. */
static pkm_status build_upu(pkm_model *m, const pkm_pss5upu_params *p,
                            const pkm_pss5upu_geometry *g, int platform, pkm_ctx *ctx)
{
    const double *c = g->centre;
    const double mid[3] = {0.5 * c[0], 0.5 * c[1], 0.5 * c[2]};
    const double inner[3] = {0.0, cos(g->upu_q1), sin(g->upu_q1)};
    const double xp[3] = {g->rot[0][0], g->rot[1][0], g->rot[2][0]};
    pkm_rigid_desc lower = {.name = "upu cylinder", .mass = 0.0};
    pkm_rigid_desc upper = {.name = "upu rod", .mass = 0.0};
    memcpy(upper.origin, c, sizeof(upper.origin));
    memcpy(upper.com, c, sizeof(upper.com));
    int lo, up;
    pkm_status rc = pkm_model_add_rigid(m, &lower, &lo, ctx);
    if (rc == PKM_OK) rc = pkm_model_add_rigid(m, &upper, &up, ctx);
    if (rc != PKM_OK) return rc;
    pkm_joint_desc js[3] = {
        {.name = "upu U base",
         .type = PKM_JOINT_UNIVERSAL,
         .body_a = PKM_GROUND,
         .body_b = lo,
         .axis = {1.0, 0.0, 0.0}},
        {.name = "upu P",
         .type = (p->upu == PKM_PSS5UPU_UPU_LOCKED) ? PKM_JOINT_CLAMPED : PKM_JOINT_PRISMATIC,
         .body_a = lo,
         .body_b = up},
        {.name = "upu U platform", .type = PKM_JOINT_UNIVERSAL, .body_a = up, .body_b = platform},
    };
    memcpy(js[0].axis2, inner, sizeof(inner));
    memcpy(js[1].point, mid, sizeof(mid));
    memcpy(js[1].axis, c, sizeof(js[1].axis));
    memcpy(js[2].point, c, sizeof(js[2].point));
    memcpy(js[2].axis, inner, sizeof(inner));
    memcpy(js[2].axis2, xp, sizeof(xp));
    for (int k = 0; k < 3 && rc == PKM_OK; k++)
        rc = pkm_model_add_joint(m, &js[k], NULL, ctx);
    return rc;
}

static pkm_status pss_build_model(const pkm_pss5upu_params *p, const double pose[5], int rigid,
                                  pkm_model **out, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_status rc = check_params(p, ctx);
    if (rc != PKM_OK) return rc;
    pkm_pss5upu_geometry g;
    if ((rc = pkm_pss5upu_inverse(p, pose, &g, ctx)) != PKM_OK) return rc;
    pkm_model *m = NULL;
    if ((rc = pkm_model_create(&m, ctx)) != PKM_OK) return rc;
    /* Platform: Table 1 mass and inertia (platform axes) about its centre, turned to global. */
    pkm_rigid_desc pd = {.name = "platform", .mass = p->platform_mass};
    memcpy(pd.origin, g.centre, sizeof(pd.origin));
    memcpy(pd.com, g.centre, sizeof(pd.com));
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                pd.inertia[r][c] += g.rot[r][k] * p->platform_inertia[k] * g.rot[c][k];
    int platform = -1;
    rc = pkm_model_add_rigid(m, &pd, &platform, ctx);
    if (rc == PKM_OK) rc = pkm_model_set_platform(m, platform, ctx);
    for (int i = 0; i < PKM_PSS5UPU_LEGS && rc == PKM_OK; i++)
        rc = build_leg(m, p, &g, i, platform, rigid, ctx);
    if (rc == PKM_OK && p->upu != PKM_PSS5UPU_UPU_NONE) rc = build_upu(m, p, &g, platform, ctx);
    if (rc != PKM_OK) {
        pkm_model_destroy(&m);
        return rc;
    }
    *out = m;
    return PKM_OK;
}

pkm_status pkm_pss5upu_build(const pkm_pss5upu_params *p, const double pose[5], pkm_model **out,
                             pkm_ctx *ctx)
{
    return pss_build_model(p, pose, 0, out, ctx);
}

pkm_status pkm_pss5upu_build_rigid(const pkm_pss5upu_params *p, const double pose[5],
                                   pkm_model **out, pkm_ctx *ctx)
{
    return pss_build_model(p, pose, 1, out, ctx);
}

/* The parameter table: every number of the model; the values are in cases/pss5upu.yaml. */
static const pkm_param_choice pss_variant[] = {
    {"paper", PKM_PSS5UPU_PAPER}, {"spherical", PKM_PSS5UPU_SPHERICAL}, {NULL, 0}};
static const pkm_param_choice pss_upu[] = {{"none", PKM_PSS5UPU_UPU_NONE},
                                           {"rigid", PKM_PSS5UPU_UPU_RIGID},
                                           {"locked", PKM_PSS5UPU_UPU_LOCKED},
                                           {NULL, 0}};
static const pkm_param_choice pss_element[] = {{"cubic", PKM_BEAM_CUBIC},
                                               {"quintic", PKM_BEAM_QUINTIC},
                                               {"quintic_c0", PKM_BEAM_QUINTIC_C0},
                                               {NULL, 0}};
static const pkm_param_choice pss_curvature[] = {{"zero", 1}, {"free", 0}, {NULL, 0}};
static const pkm_param_choice pss_end[] = {
    {"supported", PKM_PSS5UPU_SCREW_SUPPORTED}, {"free", PKM_PSS5UPU_SCREW_FREE}, {NULL, 0}};
static const pkm_param_choice pss_mass[] = {
    {"rotary", PKM_FEM_ROTARY_INERTIA}, {"translational", 0}, {NULL, 0}};

#define PSS_D(key, field, unit, range, help)                                                       \
    PKM_PARAM_DOUBLE(pkm_pss5upu_params, key, field, unit, range, help)
#define PSS_I(key, field, help)                                                                    \
    PKM_PARAM_INT(pkm_pss5upu_params, key, field, pkm_range_elements, help)
#define PSS_E(key, field, choices, help)                                                           \
    PKM_PARAM_ENUM(pkm_pss5upu_params, key, field, choices, help)
static const pkm_param_desc pss_params[] = {
    PSS_D("base.radius", base_radius, "m", pkm_range_length, "R = |O B_i|, base circumradius"),
    PSS_D("base.phi1", base_angle[0], "rad", pkm_range_angle, "angle of B_1 about z from x"),
    PSS_D("base.phi2", base_angle[1], "rad", pkm_range_angle, "angle of B_2"),
    PSS_D("base.phi3", base_angle[2], "rad", pkm_range_angle, "angle of B_3"),
    PSS_D("base.phi4", base_angle[3], "rad", pkm_range_angle, "angle of B_4"),
    PSS_D("base.phi5", base_angle[4], "rad", pkm_range_angle, "angle of B_5"),
    PSS_D("platform.radius", platform_radius, "m", pkm_range_length,
          "r = |p a_i|, platform circumradius"),
    PSS_D("platform.phi1", platform_angle[0], "rad", pkm_range_angle,
          "angle of a_1 about the platform z"),
    PSS_D("platform.phi2", platform_angle[1], "rad", pkm_range_angle, "angle of a_2"),
    PSS_D("platform.phi3", platform_angle[2], "rad", pkm_range_angle, "angle of a_3"),
    PSS_D("platform.phi4", platform_angle[3], "rad", pkm_range_angle, "angle of a_4"),
    PSS_D("platform.phi5", platform_angle[4], "rad", pkm_range_angle, "angle of a_5"),
    PSS_D("platform.mass", platform_mass, "kg", pkm_range_mass, "platform mass"),
    PSS_D("platform.Ixx", platform_inertia[0], "kg m^2", pkm_range_inertia,
          "platform inertia about its x_p"),
    PSS_D("platform.Iyy", platform_inertia[1], "kg m^2", pkm_range_inertia,
          "platform inertia about its y_p"),
    PSS_D("platform.Izz", platform_inertia[2], "kg m^2", pkm_range_inertia,
          "platform inertia about its normal"),
    PSS_D("rail.angle", rail_angle, "rad", pkm_range_angle,
          "rail rise to the base plane, towards the centre"),
    PSS_D("rail.travel", travel, "m", pkm_range_length,
          "slider travel from B_i (the screw's length)"),
    PSS_D("rail.home", home_travel, "m", pkm_range_length, "slider travel at the home pose"),
    PSS_D("link.L", link_length, "m", pkm_range_length, "link length |a_i b_i|"),
    PSS_D("link.A", link_section.A, "m^2", pkm_range_area, "link area"),
    PSS_D("link.Iy", link_section.Iy, "m^4", pkm_range_moment, "link bending moment, local y"),
    PSS_D("link.Iz", link_section.Iz, "m^4", pkm_range_moment, "link bending moment, local z"),
    PSS_D("link.I0", link_section.I0, "m^4", pkm_range_moment, "link torsion constant"),
    PSS_D("link.Ip", link_section.Ip, "m^4", pkm_range_moment,
          "link polar moment (torsional inertia)"),
    PSS_D("link.E", link_material.E, "Pa", pkm_range_modulus, "link Young's modulus"),
    PSS_D("link.G", link_material.G, "Pa", pkm_range_modulus, "link shear modulus"),
    PSS_D("link.rho", link_material.rho, "kg/m^3", pkm_range_density, "link density"),
    PSS_E("link.element", link_element, pss_element, "link beam: cubic, quintic or quintic_c0"),
    PSS_I("link.paper.nelem", link_mesh[PKM_PSS5UPU_PAPER].nelem,
          "elements per link, variant paper"),
    PSS_E("link.paper.end_curvature", link_mesh[PKM_PSS5UPU_PAPER].end_curvature_zero,
          pss_curvature, "quintic link-end curvatures, variant paper: zero (eq. 9) or free"),
    PSS_I("link.spherical.nelem", link_mesh[PKM_PSS5UPU_SPHERICAL].nelem,
          "elements per link, variant spherical"),
    PSS_E("link.spherical.end_curvature", link_mesh[PKM_PSS5UPU_SPHERICAL].end_curvature_zero,
          pss_curvature, "quintic link-end curvatures, variant spherical: zero or free"),
    PSS_D("screw.A", screw_section.A, "m^2", pkm_range_area, "screw area"),
    PSS_D("screw.Iy", screw_section.Iy, "m^4", pkm_range_moment, "screw bending moment, local y"),
    PSS_D("screw.Iz", screw_section.Iz, "m^4", pkm_range_moment, "screw bending moment, local z"),
    PSS_D("screw.I0", screw_section.I0, "m^4", pkm_range_moment, "screw torsion constant"),
    PSS_D("screw.Ip", screw_section.Ip, "m^4", pkm_range_moment,
          "screw polar moment (torsional inertia)"),
    PSS_D("screw.E", screw_material.E, "Pa", pkm_range_modulus, "screw Young's modulus"),
    PSS_D("screw.G", screw_material.G, "Pa", pkm_range_modulus, "screw shear modulus"),
    PSS_D("screw.rho", screw_material.rho, "kg/m^3", pkm_range_density, "screw density"),
    PSS_D("screw.lead", screw_lead, "m", pkm_range_length, "slider travel per screw turn"),
    PSS_E("screw.element", screw_element, pss_element, "screw beam: cubic, quintic or quintic_c0"),
    PSS_I("screw.nelem", screw_nelem, "screw elements on each side of the nut"),
    PSS_E("screw.end", screw_end, pss_end, "far end of the screw: supported or free"),
    PSS_D("slider.mass", slider_mass, "kg", pkm_range_mass,
          "slider mass (a point mass on the rail)"),
    PSS_E("mass", mass_flags, pss_mass,
          "beam mass: rotary (with section rotary inertia) or "
          "translational"),
    PSS_E("variant", variant, pss_variant, "link joints: paper (welded at a_i) or spherical"),
    PSS_E("upu", upu, pss_upu, "central chain: none, rigid (P passive) or locked"),
    PKM_CASE_DYNAMICS(pkm_pss5upu_params, "N s/m", "m/s"),
    PKM_CASE_LOAD(pkm_pss5upu_params, "load", "load"),
    PSS_D("motor.k", motor_k, "N m/rad", pkm_range_joint_stiffness,
          "drive stiffness about the screw at its motor end; 0: locked"),
    PSS_D("motor.J", motor_inertia, "kg m^2", pkm_range_inertia,
          "rotor inertia on the screw's turn (with motor.k > 0)"),
};
#undef PSS_D
#undef PSS_I
#undef PSS_E

static pkm_status pss_build(const void *params, const double *pose, pkm_model **out, pkm_ctx *ctx)
{
    *out = NULL;
    const pkm_status rc = pkm_case_params_check(&pkm_pss5upu_case, params, ctx);
    return rc != PKM_OK ? rc : pkm_pss5upu_build(params, pose, out, ctx);
}

/* The reflection y -> -y: the built-in base and platform pentagons have a vertex on x, the UPU
 * chain's base axis is x, and the lead screws' handedness does not change a frequency (the
 * screw's torsion meets the rest of the model only through the nut's pitch, whose sign a turn of
 * the screw's torsion coordinates takes back). The platform orientation Rx(q1) Ry(beta)
 * Rx(alpha - q1), q1 = atan2(-y, z), is reflected into that of (-alpha, beta) at -y. */
static void pss_symmetry(const double *pose, double *image)
{
    image[0] = pose[0];
    image[1] = -pose[1];
    image[2] = pose[2];
    image[3] = -pose[3];
    image[4] = pose[4];
}

static pkm_status pss_build_rigid(const void *params, const double *pose, pkm_model **out,
                                  pkm_ctx *ctx)
{
    *out = NULL;
    const pkm_status rc = pkm_case_params_check(&pkm_pss5upu_case, params, ctx);
    return rc != PKM_OK ? rc : pkm_pss5upu_build_rigid(params, pose, out, ctx);
}

static const char *const pss_names[5] = {"x", "y", "z", "alpha", "beta"};
static const char *const pss_units[5] = {"m", "m", "m", "rad", "rad"};
static const double pss_home[5] = {0.0, 0.0, 0.0, 0.0, 0.0};

/* Nodal: the virtual tree cannot close the UPU's loop of rigid bodies, nor assemble quintic
 * beams. */
const pkm_case pkm_pss5upu_case = {
    .name = "pss5upu",
    .description = "5-PSS/UPU parallel mechanism with elastic links and lead screws (Li et al. "
                   "2020); z from the home height",
    .npose = PKM_CASE_NPOSE(5),
    .pose_names = pss_names,
    .pose_units = pss_units,
    .home = pss_home,
    .params_size = sizeof(pkm_pss5upu_params),
    .params = pss_params,
    .nparams = (int)(sizeof(pss_params) / sizeof(pss_params[0])),
    .yaml = (const char *)pkm_pss5upu_yaml,
    .yaml_name = "cases/pss5upu.yaml",
    .formulation = PKM_FORM_NODAL,
    .build = pss_build,
    .symmetry = pss_symmetry,
    .analyses = PKM_CASE_MODAL | PKM_CASE_DYNAMICS,
    .build_rigid = pss_build_rigid,
    .rigid_pose = pkm_pss5upu_rigid_pose,
    .singular_note = "a singular pose of the S-S legs (the centre of the regular layout, x = y = "
                     "0 untilted, is one): the legs cannot hold the platform there",
    .dynamics_offset = offsetof(pkm_pss5upu_params, dynamics),
    .ndriven = PKM_PSS5UPU_LEGS,
    .driven_names = pkm_pss5upu_driven,
    .drive = pkm_pss5upu_case_drive,
    .ntraj = PKM_PSS5UPU_NTRAJ,
    .traj = pkm_pss5upu_traj,
    .body_motion = pkm_pss5upu_case_body_motion,
    .drive_lock = pkm_pss5upu_case_drive_lock,
};
