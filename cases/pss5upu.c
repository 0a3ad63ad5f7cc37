/* cases/pss5upu.c: the 5-PSS/UPU parallel mechanism with elastic active chains (Li et al. 2020,
 * Chin. J. Mech. Eng. 33, doi:10.1186/s10033-020-00460-4).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Leg i: a lead screw along an inclined rail from its motor end B_i (beam), a slider on the rail
 * (rigid, prismatic to the ground, helical to the screw's node at the nut: Li et al. 2020, eq.
 * 26), a link from b_i on the slider to a_i on the platform (beam). A U-P-U chain joins the base
 * centre O to the platform centre p. The paper gives neither the joint layout, the rail
 * direction, the home pose nor the link section consistently (docs/cases/pss5upu.md lists what
 * is missing); every value it does not give is a parameter, with the reason for its default
 * below. */
#include "core/core_impl.h"
#include "cases/cases_impl.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Table 1 of Li et al. 2020 as printed, for the link section presets. */
#define PSS_TABLE1_LINK_AREA          2826e-6 /* S_ab, m^2 (pi 30^2 with pi = 3.14: a 60 mm bar) */
#define PSS_TABLE1_LINK_MASS          2.5     /* m_l, kg */
#define PSS_TABLE1_LINK_AXIAL_INERTIA 7.8e-4  /* I_li about the link axis, kg m^2 */
#define PSS_TABLE1_SCREW_AREA         1256e-6 /* S_L, m^2 (pi 20^2 with pi = 3.14: 40 mm) */

/* The nut must stay this far from the screw ends, m: at an end the nut node is the bearing's
 * node and the slider's joint loop would hold no flexible element. */
#define PSS_END_CLEARANCE 1e-6

/* Section of a solid round bar of area A: I = A^2 / (4 pi) about a diameter, twice that polar. */
static pkm_section round_bar(double A)
{
    const double I = A * A / (4.0 * PKM_PI);
    return (pkm_section){.A = A, .Iy = I, .Iz = I, .I0 = 2.0 * I, .Ip = 2.0 * I};
}

pkm_status pkm_pss5upu_link_section(pkm_pss5upu_params *p, const char *name, pkm_ctx *ctx)
{
    if (strcmp(name, "solid") == 0) {
        p->link_section = round_bar(PSS_TABLE1_LINK_AREA);
        return PKM_OK;
    }
    if (strcmp(name, "tube") == 0) {
        const double rl = p->link_material.rho * p->link_length;
        if (!(rl > 0.0) || !isfinite(rl))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "pss5upu: link.section=tube needs link.rho and link.L > 0");
        /* Round tube (radii ro, ri): m = rho L A, I_axial = m (ro^2 + ri^2) / 2 and the area
         * moment I = A (ro^2 + ri^2) / 4, so A = m / (rho L), I = I_axial / (2 rho L). */
        const double A = PSS_TABLE1_LINK_MASS / rl, I = PSS_TABLE1_LINK_AXIAL_INERTIA / (2.0 * rl);
        p->link_section = (pkm_section){.A = A, .Iy = I, .Iz = I, .I0 = 2.0 * I, .Ip = 2.0 * I};
        return PKM_OK;
    }
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: link.section = '%s': expected solid or tube",
                    name);
}

pkm_pss5upu_params pkm_pss5upu_params_default(void)
{
    pkm_pss5upu_params p;
    memset(&p, 0, sizeof(p));
    /* Table 1: circumradii of the base and platform pentagons. */
    p.base_radius = 0.686;
    p.platform_radius = 0.306;
    /* Not given: regular pentagons, aligned at home, x towards B_1 and x_p towards a_1 (sec. 2:
     * the only layout information in the text). */
    for (int i = 0; i < PKM_PSS5UPU_LEGS; i++)
        p.base_angle[i] = p.platform_angle[i] = 2.0 * PKM_PI * i / PKM_PSS5UPU_LEGS;
    /* Table 1 gives the rail angle to the base (pi/6) but not its direction: rails rising
     * towards the centre from B_i, the motor end. Rising outwards, links of 0.52 m cannot lift
     * the platform above about 0.3 m. */
    p.rail_angle = PKM_PI / 6.0;
    /* Table 1's screw length L_s = 0.432 m taken as the slider travel; home at mid-travel, which
     * puts the platform centre at h0 = 0.5909 m. */
    p.travel = 0.432;
    p.home_travel = 0.216;
    p.link_length = 0.52;
    p.link_material = (pkm_material){.E = 2.06e11, .G = 7.94e10, .rho = 7.9e3};
    /* Table 1's m_l = 2.5 kg and I_li contradict S_ab = 2826 mm^2 with rho = 7900 kg/m^3 (11.6
     * kg). The paper's mass and stiffness matrices (eqs. 5-7) use rho S_ab, so S_ab it is: a
     * solid 60 mm bar (link.section=tube gives the 2.5 kg tube). */
    p.link_section = round_bar(PSS_TABLE1_LINK_AREA);
    /* Cubic elements (the quintic element of eqs. 1-7 is a parameter); 4 per link puts f1 within
     * 1e-4 of the converged value (docs/cases/pss5upu.md). */
    p.link_element = PKM_BEAM_CUBIC;
    p.link_nelem = 4;
    /* Table 1: solid 40 mm screw (area S_L), its own E and G, lead 10 mm. */
    p.screw_section = round_bar(PSS_TABLE1_SCREW_AREA);
    p.screw_material = (pkm_material){.E = 2.19e11, .G = 8.44e10, .rho = 7.9e3};
    p.screw_element = PKM_BEAM_CUBIC;
    p.screw_nelem = 2;
    p.screw_lead = 0.01;
    /* Eq. 13 holds the far end across the screw and leaves it free along it; the motor end is
     * clamped (the motor holds the screw's turn, which the helical nut needs). */
    p.screw_end = PKM_PSS5UPU_SCREW_SUPPORTED;
    p.slider_mass = 0.84;
    p.platform_mass = 8.2;
    p.platform_inertia[0] = 0.24;
    p.platform_inertia[1] = 0.24;
    p.platform_inertia[2] = 0.47;
    /* Eq. 5 has translational and torsional inertia only, no rotary inertia in bending. */
    p.mass_flags = 0;
    p.variant = PKM_PSS5UPU_PAPER;
    /* Eq. 38 has no UPU term, so the paper's model has no central chain; upu=rigid adds it
     * (rigid and massless, as assumption 2 of sec. 2 says; the nodal formulation only: the
     * virtual tree cannot close a loop of rigid bodies). */
    p.upu = PKM_PSS5UPU_UPU_NONE;
    return p;
}

static void mat_mul3(double A[3][3], double B[3][3], double C[3][3])
{
    double T[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            T[r][c] = A[r][0] * B[0][c] + A[r][1] * B[1][c] + A[r][2] * B[2][c];
    memcpy(C, T, sizeof(T));
}

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

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static void unit3(double a[3])
{
    const double n = sqrt(dot3(a, a));
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
    return (p->home_travel <= dot3(d, c)) ? -1.0 : 1.0;
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
    mat_mul3(R1, R2, g->rot);
    mat_mul3(g->rot, R3, g->rot);
    for (int i = 0; i < PKM_PSS5UPU_LEGS; i++) {
        rail_of(p, i, g->base[i], g->rail[i]);
        const double ap[3] = {p->platform_radius * cos(p->platform_angle[i]),
                              p->platform_radius * sin(p->platform_angle[i]), 0.0};
        double *a = g->platform_joint[i];
        for (int k = 0; k < 3; k++)
            a[k] = g->centre[k] + dot3(g->rot[k], ap);
        /* |a - B - s d| = L: s^2 - 2 (d.c) s + |c|^2 - L^2 = 0, c = a - B. */
        const double c[3] = {a[0] - g->base[i][0], a[1] - g->base[i][1], a[2] - g->base[i][2]};
        const double dc = dot3(g->rail[i], c), disc = dc * dc - dot3(c, c) + L * L;
        if (!(disc >= 0.0))
            return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE,
                            "pss5upu: leg %d cannot reach pose (%g m, %g m, %g m, %g rad, %g rad): "
                            "a_%d is %.4g m from rail %d, the link is %g m",
                            i + 1, pose[0], pose[1], pose[2], pose[3], pose[4], i + 1,
                            sqrt(dot3(c, c) - dc * dc), i + 1, L);
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
    if (p->link_nelem < 1 || p->screw_nelem < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "pss5upu: link.nelem = %d and screw.nelem = %d must be >= 1", p->link_nelem,
                        p->screw_nelem);
    for (int k = 0; k < 3; k++)
        if (!(p->platform_inertia[k] >= 0.0) || !isfinite(p->platform_inertia[k]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "pss5upu: platform inertia %g kg m^2 must be finite and >= 0",
                            p->platform_inertia[k]);
    if (p->variant != PKM_PSS5UPU_PAPER && p->variant != PKM_PSS5UPU_SPHERICAL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: unknown variant %d", (int)p->variant);
    if (p->upu != PKM_PSS5UPU_UPU_NONE && p->upu != PKM_PSS5UPU_UPU_RIGID &&
        p->upu != PKM_PSS5UPU_UPU_LOCKED)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: unknown upu mode %d", (int)p->upu);
    if (p->screw_end != PKM_PSS5UPU_SCREW_FREE && p->screw_end != PKM_PSS5UPU_SCREW_SUPPORTED)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: unknown screw end %d", (int)p->screw_end);
    return PKM_OK;
}

/* Section axis for a beam along u: whichever of t and z is further from parallel to u (the
 * sections are round, so only the frame's existence matters). */
static void section_axis(const double u[3], const double t[3], double zref[3])
{
    const double z[3] = {0.0, 0.0, 1.0};
    const double ct = fabs(dot3(u, t)) / sqrt(dot3(u, u) * dot3(t, t));
    const double cz = fabs(u[2]) / sqrt(dot3(u, u));
    memcpy(zref, (ct < cz) ? t : z, sizeof(double) * 3);
}

/* Leg i: screw, slider, link, their joints; the link's far end joins the platform. Joints are
 * added so that the virtual tree (Germain et al. 2015, sec. 3) reaches the slider from the
 * ground and the screw through the nut: the motor clamp and the far bearing then close loops on
 * the screw's end elements, one each. */
static pkm_status build_leg(pkm_model *m, const pkm_pss5upu_params *p,
                            const pkm_pss5upu_geometry *g, int i, int platform, pkm_ctx *ctx)
{
    const double *B = g->base[i], *d = g->rail[i], *b = g->slider[i], *a = g->platform_joint[i];
    const double t[3] = {-sin(p->base_angle[i]), cos(p->base_angle[i]), 0.0};
    double E[3];
    for (int k = 0; k < 3; k++)
        E[k] = B[k] + p->travel * d[k];
    char nm[48];
    /* Screw: motor end, nut, far end. */
    const double spts[3][3] = {{B[0], B[1], B[2]}, {b[0], b[1], b[2]}, {E[0], E[1], E[2]}};
    const int sne[2] = {p->screw_nelem, p->screw_nelem};
    snprintf(nm, sizeof(nm), "screw %d", i + 1);
    pkm_beam_desc sd = {.name = nm,
                        .npoints = 3,
                        .points = spts,
                        .nelem = sne,
                        .section = p->screw_section,
                        .material = p->screw_material,
                        .mass_flags = p->mass_flags,
                        .element = p->screw_element};
    memcpy(sd.zref, t, sizeof(t));
    int screw, slider, link, support = -1;
    pkm_status rc = pkm_model_add_beam(m, &sd, &screw, ctx);
    if (rc != PKM_OK) return rc;
    /* Slider: a point mass on the rail (no rotary data in Table 1; the rail holds its turns). */
    snprintf(nm, sizeof(nm), "slider %d", i + 1);
    pkm_rigid_desc rd = {.name = nm, .mass = p->slider_mass};
    memcpy(rd.origin, b, sizeof(rd.origin));
    memcpy(rd.com, b, sizeof(rd.com));
    if ((rc = pkm_model_add_rigid(m, &rd, &slider, ctx)) != PKM_OK) return rc;
    /* Link from b_i to a_i. Eq. 9 (curvature zero at both ends) applies to quintic elements. */
    const double lpts[2][3] = {{b[0], b[1], b[2]}, {a[0], a[1], a[2]}};
    const double u[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    snprintf(nm, sizeof(nm), "link %d", i + 1);
    pkm_beam_desc ld = {.name = nm,
                        .npoints = 2,
                        .points = lpts,
                        .nelem = &p->link_nelem,
                        .section = p->link_section,
                        .material = p->link_material,
                        .mass_flags = p->mass_flags,
                        .element = p->link_element,
                        .end_curvature_zero = (p->variant == PKM_PSS5UPU_PAPER)};
    section_axis(u, t, ld.zref);
    if ((rc = pkm_model_add_beam(m, &ld, &link, ctx)) != PKM_OK) return rc;
    if (p->screw_end == PKM_PSS5UPU_SCREW_SUPPORTED) {
        snprintf(nm, sizeof(nm), "bearing %d", i + 1);
        pkm_rigid_desc bd = {.name = nm, .mass = 0.0};
        memcpy(bd.origin, E, sizeof(E));
        memcpy(bd.com, E, sizeof(E));
        if ((rc = pkm_model_add_rigid(m, &bd, &support, ctx)) != PKM_OK) return rc;
    }
    char jn[6][24];
    const char *tag[6] = {"rail", "nut", "motor", "bearing slide", "bearing", "b"};
    for (int k = 0; k < 6; k++)
        snprintf(jn[k], sizeof(jn[k]), "%s %d", tag[k], i + 1);
    pkm_joint_desc js[8];
    int nj = 0;
    memset(js, 0, sizeof(js));
    js[nj] = (pkm_joint_desc){
        .name = jn[0], .type = PKM_JOINT_PRISMATIC, .body_a = PKM_GROUND, .body_b = slider};
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
    js[nj] = (pkm_joint_desc){
        .name = jn[2], .type = PKM_JOINT_CLAMPED, .body_a = PKM_GROUND, .body_b = screw, .cut = 1};
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
     * spin about its own axis. */
    js[nj] = (pkm_joint_desc){.name = jn[5], .body_a = slider, .body_b = link};
    memcpy(js[nj].point, b, sizeof(js[nj].point));
    if (p->variant == PKM_PSS5UPU_PAPER) {
        js[nj].type = PKM_JOINT_SPHERICAL;
    } else {
        double w1[3], w2[3], uu[3] = {u[0], u[1], u[2]};
        unit3(uu);
        const double tu = dot3(t, uu);
        for (int k = 0; k < 3; k++)
            w1[k] = t[k] - tu * uu[k];
        cross3(uu, w1, w2);
        js[nj].type = PKM_JOINT_UNIVERSAL;
        memcpy(js[nj].axis, w1, sizeof(w1));
        memcpy(js[nj].axis2, w2, sizeof(w2));
    }
    nj++;
    /* Platform end: welded in the paper (eq. 25: the rotations at a_i are the platform's),
     * spherical in the spherical variant. */
    snprintf(jn[5], sizeof(jn[5]), "a %d", i + 1);
    js[nj] = (pkm_joint_desc){.name = jn[5],
                              .type = (p->variant == PKM_PSS5UPU_PAPER) ? PKM_JOINT_CLAMPED
                                                                        : PKM_JOINT_SPHERICAL,
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

pkm_status pkm_pss5upu_build(const pkm_pss5upu_params *p, const double pose[5], pkm_model **out,
                             pkm_ctx *ctx)
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
        rc = build_leg(m, p, &g, i, platform, ctx);
    if (rc == PKM_OK && p->upu != PKM_PSS5UPU_UPU_NONE) rc = build_upu(m, p, &g, platform, ctx);
    if (rc != PKM_OK) {
        pkm_model_destroy(&m);
        return rc;
    }
    *out = m;
    return PKM_OK;
}

/* Parameters settable by name (--set key=value). */
typedef enum pss_kind { PSS_DOUBLE, PSS_INT, PSS_CHOICE } pss_kind;

typedef enum pss_choice {
    PSS_VARIANT,
    PSS_UPU,
    PSS_LINK_SECTION,
    PSS_LINK_ELEMENT,
    PSS_SCREW_ELEMENT,
    PSS_SCREW_END,
    PSS_ROTARY
} pss_choice;

typedef struct pss_key {
    const char *key;
    pss_kind kind;
    size_t offset;     /* PSS_DOUBLE, PSS_INT */
    pss_choice choice; /* PSS_CHOICE */
} pss_key;

static const char *const variant_names[] = {"paper", "spherical", NULL};
static const char *const upu_names[] = {"none", "rigid", "locked", NULL};
static const char *const section_names[] = {"solid", "tube", NULL};
static const char *const element_names[] = {"cubic", "quintic", "quintic_c0", NULL};
static const char *const end_names[] = {"free", "supported", NULL};
static const char *const rotary_names[] = {"0", "1", NULL};
static const char *const *const choice_names[] = {
    variant_names, upu_names, section_names, element_names, element_names, end_names, rotary_names};

#define PSS_D(name, field)                                                                         \
    {                                                                                              \
        .key = name, .kind = PSS_DOUBLE, .offset = offsetof(pkm_pss5upu_params, field)             \
    }
#define PSS_I(name, field)                                                                         \
    {                                                                                              \
        .key = name, .kind = PSS_INT, .offset = offsetof(pkm_pss5upu_params, field)                \
    }
#define PSS_C(name, which)                                                                         \
    {                                                                                              \
        .key = name, .kind = PSS_CHOICE, .choice = which                                           \
    }
static const pss_key pss_keys[] = {
    PSS_D("base.radius", base_radius),
    PSS_D("platform.radius", platform_radius),
    PSS_D("base.phi1", base_angle[0]),
    PSS_D("base.phi2", base_angle[1]),
    PSS_D("base.phi3", base_angle[2]),
    PSS_D("base.phi4", base_angle[3]),
    PSS_D("base.phi5", base_angle[4]),
    PSS_D("platform.phi1", platform_angle[0]),
    PSS_D("platform.phi2", platform_angle[1]),
    PSS_D("platform.phi3", platform_angle[2]),
    PSS_D("platform.phi4", platform_angle[3]),
    PSS_D("platform.phi5", platform_angle[4]),
    PSS_D("rail.angle", rail_angle),
    PSS_D("rail.travel", travel),
    PSS_D("rail.home", home_travel),
    PSS_D("link.L", link_length),
    PSS_D("link.A", link_section.A),
    PSS_D("link.Iy", link_section.Iy),
    PSS_D("link.Iz", link_section.Iz),
    PSS_D("link.I0", link_section.I0),
    PSS_D("link.Ip", link_section.Ip),
    PSS_D("link.E", link_material.E),
    PSS_D("link.G", link_material.G),
    PSS_D("link.rho", link_material.rho),
    PSS_C("link.section", PSS_LINK_SECTION),
    PSS_C("link.element", PSS_LINK_ELEMENT),
    PSS_I("link.nelem", link_nelem),
    PSS_D("screw.A", screw_section.A),
    PSS_D("screw.Iy", screw_section.Iy),
    PSS_D("screw.Iz", screw_section.Iz),
    PSS_D("screw.I0", screw_section.I0),
    PSS_D("screw.Ip", screw_section.Ip),
    PSS_D("screw.E", screw_material.E),
    PSS_D("screw.G", screw_material.G),
    PSS_D("screw.rho", screw_material.rho),
    PSS_C("screw.element", PSS_SCREW_ELEMENT),
    PSS_I("screw.nelem", screw_nelem),
    PSS_D("screw.lead", screw_lead),
    PSS_C("screw.end", PSS_SCREW_END),
    PSS_D("slider.mass", slider_mass),
    PSS_D("platform.mass", platform_mass),
    PSS_D("platform.Ixx", platform_inertia[0]),
    PSS_D("platform.Iyy", platform_inertia[1]),
    PSS_D("platform.Izz", platform_inertia[2]),
    PSS_C("rotary_inertia", PSS_ROTARY),
    PSS_C("variant", PSS_VARIANT),
    PSS_C("upu", PSS_UPU),
};
#undef PSS_D
#undef PSS_I
#undef PSS_C
#define PSS_NKEYS ((int)(sizeof(pss_keys) / sizeof(pss_keys[0])))

static pkm_status set_choice(pkm_pss5upu_params *p, const pss_key *k, const char *value,
                             pkm_ctx *ctx)
{
    const char *const *names = choice_names[k->choice];
    int v = -1;
    for (int i = 0; names[i] != NULL && v < 0; i++)
        if (strcmp(names[i], value) == 0) v = i;
    if (v < 0) {
        char list[96] = "";
        for (int i = 0; names[i] != NULL; i++) {
            strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
            strncat(list, names[i], sizeof(list) - strlen(list) - 1);
        }
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: %s = '%s': expected one of %s", k->key,
                        value, list);
    }
    switch (k->choice) {
    case PSS_VARIANT:
        p->variant = (pkm_pss5upu_variant)v;
        break;
    case PSS_UPU:
        p->upu = (pkm_pss5upu_upu)v;
        break;
    case PSS_LINK_SECTION:
        return pkm_pss5upu_link_section(p, value, ctx);
    case PSS_LINK_ELEMENT:
        p->link_element = (pkm_beam_element)v;
        break;
    case PSS_SCREW_ELEMENT:
        p->screw_element = (pkm_beam_element)v;
        break;
    case PSS_SCREW_END:
        p->screw_end = (pkm_pss5upu_screw_end)v;
        break;
    case PSS_ROTARY:
        p->mass_flags = v ? PKM_FEM_ROTARY_INERTIA : 0u;
        break;
    }
    return PKM_OK;
}

pkm_status pkm_pss5upu_params_set(pkm_pss5upu_params *p, const char *key, const char *value,
                                  pkm_ctx *ctx)
{
    for (int i = 0; i < PSS_NKEYS; i++) {
        const pss_key *k = &pss_keys[i];
        if (strcmp(k->key, key) != 0) continue;
        if (k->kind == PSS_CHOICE) return set_choice(p, k, value, ctx);
        char *end = NULL;
        errno = 0;
        if (k->kind == PSS_INT) {
            long v = strtol(value, &end, 10);
            if (end == value || *end != '\0' || errno != 0 || v < INT_MIN || v > INT_MAX)
                return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: %s = '%s' is not an integer", key,
                                value);
            *(int *)((char *)p + k->offset) = (int)v;
            return PKM_OK;
        }
        double v = strtod(value, &end);
        if (end == value || *end != '\0' || errno != 0 || !isfinite(v))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "pss5upu: %s = '%s' is not a finite number", key,
                            value);
        *(double *)((char *)p + k->offset) = v;
        return PKM_OK;
    }
    return PKM_FAIL(ctx, PKM_ERR_INVALID,
                    "pss5upu: unknown parameter '%s' (see pkmflex modes --help)", key);
}

static void pss_default(void *params)
{
    *(pkm_pss5upu_params *)params = pkm_pss5upu_params_default();
}

static pkm_status pss_set(void *params, const char *key, const char *value, pkm_ctx *ctx)
{
    return pkm_pss5upu_params_set(params, key, value, ctx);
}

static pkm_status pss_build(const void *params, const double *pose, pkm_model **out, pkm_ctx *ctx)
{
    return pkm_pss5upu_build(params, pose, out, ctx);
}

static const char *const pss_help[] = {
    "base.radius, platform.radius [m]; base.phi1..5, platform.phi1..5 [rad] (joint angles);",
    "rail.angle [rad], rail.travel, rail.home (home slider travel) [m];",
    "link.{L [m], A [m^2], Iy, Iz, I0, Ip [m^4], E, G [Pa], rho [kg/m^3]};",
    "link.section=solid|tube (Table 1 S_ab bar or the m_l = 2.5 kg tube); link.nelem;",
    "link.element, screw.element = cubic|quintic|quintic_c0;",
    "screw.{A, Iy, Iz, I0, Ip, E, G, rho, lead [m], nelem (each side of the nut)};",
    "screw.end=free|supported; slider.mass, platform.mass [kg];",
    "platform.{Ixx, Iyy, Izz} [kg m^2]; rotary_inertia=0|1;",
    "variant=paper|spherical; upu=none|rigid|locked (use --formulation nodal with a UPU)",
    NULL};

static const char *const pss_names[5] = {"x", "y", "z", "alpha", "beta"};
static const char *const pss_units[5] = {"m", "m", "m", "rad", "rad"};
static const double pss_home[5] = {0.0, 0.0, 0.0, 0.0, 0.0};

const pkm_case pkm_pss5upu_case = {
    .name = "pss5upu",
    .description = "5-PSS/UPU parallel mechanism with elastic links and lead screws (Li et al. "
                   "2020); z from the home height",
    .npose = 5,
    .pose_names = pss_names,
    .pose_units = pss_units,
    .home = pss_home,
    .params_size = sizeof(pkm_pss5upu_params),
    .params_default = pss_default,
    .params_set = pss_set,
    .params_help = pss_help,
    .build = pss_build,
};
