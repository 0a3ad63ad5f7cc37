/* cases/pss5upu_drive.c: the 5-PSS/UPU's slider travels along a motion of its platform, with
 * their exact first two time derivatives (the drives of its rigid-body model).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cases/cases_impl.h"
#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The UPU's base angle q1 = atan2(u, v), u = -y, v = h0 + z (pkm_pss5upu_inverse), and its
 * first two time derivatives. */
static void upu_angle_rates(const double centre[3], const double dp[5], const double ddp[5],
                            double *q1d, double *q1dd)
{
    const double u = -centre[1], v = centre[2], ud = -dp[1], vd = dp[2], udd = -ddp[1],
                 vdd = ddp[2];
    const double r2 = u * u + v * v, num = v * ud - u * vd;
    *q1d = num / r2;
    *q1dd = ((v * udd - u * vdd) * r2 - num * 2.0 * (u * ud + v * vd)) / (r2 * r2);
}

/* The platform's angular velocity w and acceleration wd at pose (geometry g) moving at dpose,
 * ddpose. R = Rx(q1) Ry(beta) Rx(alpha - q1): its angular velocity is the sum of the three rates
 * about the successive axes e_x, e2 = Rx(q1) e_y, e3 = Rx(q1) Ry(beta) e_x, and its acceleration
 * adds the turning of e2 (at q1d e_x) and of e3 (at w12 = q1d e_x + bd e2). */
static void platform_rates(const pkm_pss5upu_geometry *g, const double pose[5],
                           const double dpose[5], const double ddpose[5], double w[3], double wd[3])
{
    double q1d, q1dd;
    upu_angle_rates(g->centre, dpose, ddpose, &q1d, &q1dd);
    const double c1 = cos(g->upu_q1), s1 = sin(g->upu_q1), cb = cos(pose[4]), sb = sin(pose[4]);
    const double ex[3] = {1.0, 0.0, 0.0}, e2[3] = {0.0, c1, s1}, e3[3] = {cb, s1 * sb, -c1 * sb};
    const double bd = dpose[4], bdd = ddpose[4], gd = dpose[3] - q1d, gdd = ddpose[3] - q1dd;
    double w12[3], e2d[3], e3d[3];
    for (int k = 0; k < 3; k++)
        w12[k] = q1d * ex[k] + bd * e2[k];
    pkm_vec3_cross(ex, e2, e2d);
    pkm_vec3_cross(w12, e3, e3d);
    for (int k = 0; k < 3; k++) {
        w[k] = w12[k] + gd * e3[k];
        wd[k] = q1dd * ex[k] + bdd * e2[k] + bd * q1d * e2d[k] + gdd * e3[k] + gd * e3d[k];
    }
}

pkm_status pkm_pss5upu_travel_rates(const pkm_pss5upu_params *p, const double pose[5],
                                    const double dpose[5], const double ddpose[5], double s[5],
                                    double sd[5], double sdd[5], pkm_ctx *ctx)
{
    pkm_pss5upu_geometry g;
    const pkm_status rc = pkm_pss5upu_inverse(p, pose, &g, ctx);
    if (rc != PKM_OK) return rc;
    double w[3], wd[3];
    platform_rates(&g, pose, dpose, ddpose, w, wd);
    for (int i = 0; i < PKM_PSS5UPU_LEGS; i++) {
        /* a_i = p + r, r turning with the platform; the link closes |a_i - b_i| = L with
         * b_i = B_i + s_i d_i: e.(a' - s' d) = 0 and |e'|^2 + e.(a'' - s'' d) = 0, e = a - b. */
        double r[3], e[3], ad[3], add[3], wr[3], wdr[3], wwr[3];
        pkm_vec3_sub(g.platform_joint[i], g.centre, r);
        pkm_vec3_sub(g.platform_joint[i], g.slider[i], e);
        pkm_vec3_cross(w, r, wr);
        pkm_vec3_cross(wd, r, wdr);
        pkm_vec3_cross(w, wr, wwr);
        for (int k = 0; k < 3; k++) {
            ad[k] = dpose[k] + wr[k];
            add[k] = ddpose[k] + wdr[k] + wwr[k];
        }
        const double ed = pkm_vec3_dot(e, g.rail[i]);
        /* The link normal to its rail: the slider's rate is unbounded (a serial singularity). */
        if (!(fabs(ed) > PKM_PSS5UPU_RAIL_COS_MIN * p->link_length))
            return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                            "pss5upu: leg %d: link %d is normal to its rail at pose (%g m, %g m, "
                            "%g m, %g rad, %g rad)",
                            i + 1, i + 1, pose[0], pose[1], pose[2], pose[3], pose[4]);
        s[i] = g.s[i];
        sd[i] = pkm_vec3_dot(e, ad) / ed;
        double ev[3];
        for (int k = 0; k < 3; k++)
            ev[k] = ad[k] - sd[i] * g.rail[i][k];
        sdd[i] = (pkm_vec3_dot(ev, ev) + pkm_vec3_dot(e, add)) / ed;
    }
    return PKM_OK;
}

pkm_status pkm_pss5upu_case_drive(const void *params, const double *pose, const double *dpose,
                                  const double *ddpose, double *q, double *qd, double *qdd,
                                  pkm_ctx *ctx)
{
    /* The rails' coordinates are the travels from those of the pose the rigid model is built
     * at (its reference pose, off the singular centre). */
    double s0[5], d0[5], dd0[5];
    const double zero[5] = {0};
    pkm_status rc = pkm_pss5upu_travel_rates(params, pkm_case_rigid_pose(&pkm_pss5upu_case), zero,
                                             zero, s0, d0, dd0, ctx);
    if (rc == PKM_OK) rc = pkm_pss5upu_travel_rates(params, pose, dpose, ddpose, q, qd, qdd, ctx);
    for (int i = 0; i < PKM_PSS5UPU_LEGS && rc == PKM_OK; i++)
        q[i] -= s0[i];
    return rc;
}

/* A body's twist V and spatial acceleration A at the global origin from the velocity v and
 * acceleration a of its point x and its angular velocity w and acceleration wd: v0 = v - w x x,
 * A_v = a - wd x x - w x v (Featherstone 2008, ch. 2). */
static void twist_of(const double x[3], const double v[3], const double a[3], const double w[3],
                     const double wd[3], double V[6], double A[6])
{
    double wx[3], wdx[3], wv[3];
    pkm_vec3_cross(w, x, wx);
    pkm_vec3_cross(wd, x, wdx);
    pkm_vec3_cross(w, v, wv);
    for (int k = 0; k < 3; k++) {
        V[k] = v[k] - wx[k];
        V[3 + k] = w[k];
        A[k] = a[k] - wdx[k] - wv[k];
        A[3 + k] = wd[k];
    }
}

/* The turning of a body along r(t) = x(t) - o(t) (r, r', r'' given) hung from a universal joint
 * whose first axis u1 is fixed in the frame and whose second is fixed in the body, normal to
 * u1 and to r: w = e x e' + sigma e (e = r/|r|), the spin sigma keeping w in the plane of the
 * two axes, w . (u1 (u1.e) - e) = 0, so sigma = c p / (1 - c^2), c = u1.e, p = u1.(e x e');
 * its acceleration wd = e x e'' + sigma' e + sigma e'. (Rebuilt here: the paper's links are
 * welded to the platform and it gives no joint kinematics.) */
static void hung_rates(const double r[3], const double rd[3], const double rdd[3],
                       const double u1[3], double w[3], double wd[3])
{
    const double l = pkm_vec3_norm(r), ld = pkm_vec3_dot(r, rd) / l;
    double e[3], ed[3], edd[3], exd[3], exdd[3];
    for (int k = 0; k < 3; k++) {
        e[k] = r[k] / l;
        ed[k] = (rd[k] - e[k] * ld) / l;
    }
    const double ldd = pkm_vec3_dot(ed, rd) + pkm_vec3_dot(e, rdd);
    for (int k = 0; k < 3; k++)
        edd[k] = (rdd[k] - 2.0 * ed[k] * ld - e[k] * ldd) / l;
    pkm_vec3_cross(e, ed, exd);
    pkm_vec3_cross(e, edd, exdd);
    const double c = pkm_vec3_dot(u1, e), cd = pkm_vec3_dot(u1, ed), q = 1.0 - c * c;
    const double p = pkm_vec3_dot(u1, exd), pd = pkm_vec3_dot(u1, exdd);
    const double sg = c * p / q, sgd = ((cd * p + c * pd) * q + 2.0 * c * c * cd * p) / (q * q);
    for (int k = 0; k < 3; k++) {
        w[k] = exd[k] + sg * e[k];
        wd[k] = exdd[k] + sgd * e[k] + sg * ed[k];
    }
}

/* The slider-side axis of link i's universal joint in the rigid-body model: the leg's tangent
 * made normal to the link as build_rigid places it (at pkm_case_rigid_pose). */
static void link_axis(const pkm_pss5upu_geometry *g0, int i, const double t[3], double u1[3])
{
    double u[3];
    pkm_vec3_sub(g0->platform_joint[i], g0->slider[i], u);
    const double n = pkm_vec3_norm(u);
    for (int k = 0; k < 3; k++)
        u[k] /= n;
    const double tu = pkm_vec3_dot(t, u);
    for (int k = 0; k < 3; k++)
        u1[k] = t[k] - tu * u[k];
    const double m = pkm_vec3_norm(u1);
    for (int k = 0; k < 3; k++)
        u1[k] /= m;
}

pkm_status pkm_pss5upu_case_body_motion(const void *params, const double *pose, const double *dpose,
                                        const double *ddpose, int nbody, double (*V)[6],
                                        double (*A)[6], pkm_ctx *ctx)
{
    const pkm_pss5upu_params *p = params;
    const int supported = p->screw_end == PKM_PSS5UPU_SCREW_SUPPORTED;
    const int per_leg = 3 + supported, nupu = p->upu != PKM_PSS5UPU_UPU_NONE ? 2 : 0;
    if (nbody != 1 + PKM_PSS5UPU_LEGS * per_leg + nupu)
        return PKM_FAIL(ctx, PKM_ERR_MODEL, "pss5upu: %d bodies, the model has %d", nbody,
                        1 + PKM_PSS5UPU_LEGS * per_leg + nupu);
    pkm_pss5upu_geometry g, g0;
    double s[5], sd[5], sdd[5], w[3], wd[3];
    pkm_status rc = pkm_pss5upu_travel_rates(p, pose, dpose, ddpose, s, sd, sdd, ctx);
    if (rc == PKM_OK) rc = pkm_pss5upu_inverse(p, pose, &g, ctx);
    if (rc == PKM_OK) rc = pkm_pss5upu_inverse(p, pkm_case_rigid_pose(&pkm_pss5upu_case), &g0, ctx);
    if (rc != PKM_OK) return rc;
    memset(V, 0, (size_t)nbody * sizeof(*V));
    memset(A, 0, (size_t)nbody * sizeof(*A));
    platform_rates(&g, pose, dpose, ddpose, w, wd);
    twist_of(g.centre, dpose, ddpose, w, wd, V[0], A[0]);
    /* The nut (helical, pitch lead) holds the screw's point B_i still: the screw turns by
     * -2 pi / lead per metre the slider travels. */
    const double turn = -2.0 * PKM_PI / p->screw_lead, zero[3] = {0.0};
    for (int i = 0; i < PKM_PSS5UPU_LEGS; i++) {
        const double *d = g.rail[i], t[3] = {-sin(p->base_angle[i]), cos(p->base_angle[i]), 0.0};
        const int b = 1 + i * per_leg;
        double sw[3], swd[3], vb[3], ab[3], r[3], rd[3], rdd[3], aw[3], awd[3], u1[3], wl[3],
            wld[3], war[3], ra[3];
        for (int k = 0; k < 3; k++) {
            sw[k] = turn * sd[i] * d[k];
            swd[k] = turn * sdd[i] * d[k];
            vb[k] = sd[i] * d[k];
            ab[k] = sdd[i] * d[k];
        }
        twist_of(g.base[i], zero, zero, sw, swd, V[b], A[b]);
        twist_of(g.slider[i], vb, ab, zero, zero, V[b + 1], A[b + 1]);
        /* The link from b_i to a_i: a_i moves with the platform. */
        pkm_vec3_sub(g.platform_joint[i], g.centre, ra);
        pkm_vec3_cross(w, ra, aw);
        pkm_vec3_cross(wd, ra, awd);
        pkm_vec3_cross(w, aw, war);
        for (int k = 0; k < 3; k++) {
            r[k] = g.platform_joint[i][k] - g.slider[i][k];
            rd[k] = dpose[k] + aw[k] - vb[k];
            rdd[k] = ddpose[k] + awd[k] + war[k] - ab[k];
        }
        link_axis(&g0, i, t, u1);
        hung_rates(r, rd, rdd, u1, wl, wld);
        twist_of(g.slider[i], vb, ab, wl, wld, V[b + 2], A[b + 2]);
    }
    if (nupu > 0) {
        /* The UPU's cylinder hangs from O by its universal joint (x fixed), the rod slides in
         * it to the platform centre. */
        const double ex[3] = {1.0, 0.0, 0.0};
        double wc[3], wcd[3];
        hung_rates(g.centre, dpose, ddpose, ex, wc, wcd);
        twist_of(zero, zero, zero, wc, wcd, V[nbody - 2], A[nbody - 2]);
        twist_of(g.centre, dpose, ddpose, wc, wcd, V[nbody - 1], A[nbody - 1]);
    }
    return PKM_OK;
}

void pkm_pss5upu_case_drive_lock(const void *params, int k, char name[PKM_NAME_LEN], double *ratio)
{
    /* Power through the nut: the rail's force F on a slider moving at s' equals the motor's
     * torque tau on the screw turning at -2 pi s' / lead. */
    const pkm_pss5upu_params *p = params;
    snprintf(name, PKM_NAME_LEN, "motor %d", k + 1);
    *ratio = -2.0 * PKM_PI / p->screw_lead;
}
