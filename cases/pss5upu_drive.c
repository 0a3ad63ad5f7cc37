/* cases/pss5upu_drive.c: the 5-PSS/UPU's slider travels along a motion of its platform, with
 * their exact first two time derivatives (the drives of its rigid-body model).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cases/cases_impl.h"
#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>

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

pkm_status pkm_pss5upu_travel_rates(const pkm_pss5upu_params *p, const double pose[5],
                                    const double dpose[5], const double ddpose[5], double s[5],
                                    double sd[5], double sdd[5], pkm_ctx *ctx)
{
    pkm_pss5upu_geometry g;
    const pkm_status rc = pkm_pss5upu_inverse(p, pose, &g, ctx);
    if (rc != PKM_OK) return rc;
    double q1d, q1dd;
    upu_angle_rates(g.centre, dpose, ddpose, &q1d, &q1dd);
    /* R = Rx(q1) Ry(beta) Rx(alpha - q1): its angular velocity is the sum of the three rates
     * about the successive axes e_x, e2 = Rx(q1) e_y, e3 = Rx(q1) Ry(beta) e_x, and its
     * acceleration adds the turning of e2 (at q1d e_x) and of e3 (at w12 = q1d e_x + bd e2). */
    const double c1 = cos(g.upu_q1), s1 = sin(g.upu_q1), cb = cos(pose[4]), sb = sin(pose[4]);
    const double ex[3] = {1.0, 0.0, 0.0}, e2[3] = {0.0, c1, s1}, e3[3] = {cb, s1 * sb, -c1 * sb};
    const double bd = dpose[4], bdd = ddpose[4], gd = dpose[3] - q1d, gdd = ddpose[3] - q1dd;
    double w12[3], w[3], wd[3], e2d[3], e3d[3];
    for (int k = 0; k < 3; k++)
        w12[k] = q1d * ex[k] + bd * e2[k];
    pkm_vec3_cross(ex, e2, e2d);
    pkm_vec3_cross(w12, e3, e3d);
    for (int k = 0; k < 3; k++) {
        w[k] = w12[k] + gd * e3[k];
        wd[k] = q1dd * ex[k] + bdd * e2[k] + bd * q1d * e2d[k] + gdd * e3[k] + gd * e3d[k];
    }
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
