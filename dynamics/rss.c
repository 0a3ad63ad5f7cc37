/* dynamics/rss.c: closed-form inverse kinematics of an R-S-S chain (Cheng et al. 2024, eqs.
 * 8-10, the solution rebuilt: see pkm/rss.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/rss.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>

void pkm_rss_tip(const pkm_rss *c, double theta, double S[3])
{
    const double local[3] = {c->r * cos(theta), c->r * sin(theta), 0.0};
    pkm_mat3_apply(c->R0, local, S);
    for (int k = 0; k < 3; k++)
        S[k] += c->G[k];
}

double pkm_rss_closure(const pkm_rss *c, const double X[PKM_POSE_DOF], double theta, double *jth,
                       double jx[PKM_POSE_DOF])
{
    double R[3][3], M[3], S[3], d[3], J[3][PKM_POSE_DOF];
    pkm_pose_rotation(X, R);
    pkm_mat3_apply(PKM_CONST33(R), c->M, M);
    for (int k = 0; k < 3; k++)
        M[k] += X[k];
    pkm_rss_tip(c, theta, S);
    pkm_vec3_sub(M, S, d);
    if (jth) {
        const double local[3] = {-c->r * sin(theta), c->r * cos(theta), 0.0};
        double dS[3];
        pkm_mat3_apply(c->R0, local, dS);
        *jth = -2.0 * pkm_vec3_dot(d, dS);
    }
    if (jx) {
        pkm_pose_point_jacobian(X, c->M, J);
        for (int k = 0; k < PKM_POSE_DOF; k++)
            jx[k] = 2.0 * (d[0] * J[0][k] + d[1] * J[1][k] + d[2] * J[2][k]);
    }
    return pkm_vec3_dot(d, d) - c->L * c->L;
}

pkm_status pkm_rss_ik(const pkm_rss *c, const double X[PKM_POSE_DOF], double t, double *theta,
                      pkm_ctx *ctx)
{
    const char *who = c->name ? c->name : "?";
    if (!(c->r > 0.0) || !(c->L > 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "chain %s: crank length %g and coupler length %g must be positive", who,
                        c->r, c->L);
    double R[3][3], M[3], v[3];
    pkm_pose_rotation(X, R);
    pkm_mat3_apply(PKM_CONST33(R), c->M, M);
    for (int k = 0; k < 3; k++)
        M[k] += X[k] - c->G[k];
    pkm_mat3_apply_t(c->R0, M, v);
    const double K = (pkm_vec3_dot(v, v) + c->r * c->r - c->L * c->L) / (2.0 * c->r);
    const double rho = hypot(v[0], v[1]);
    if (!(fabs(K) <= rho))
        return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE,
                        "chain %s: the coupler cannot reach the crank circle%s (|K| = %g > rho "
                        "= %g)",
                        who, pkm_at_time(t, (char[PKM_AT_TIME_LEN]){0}), fabs(K), rho);
    const double phi = atan2(v[1], v[0]), da = acos(K / rho);
    double best = 0.0, dist = INFINITY;
    for (int s = -1; s <= 1; s += 2) {
        /* the root's turn nearest to the previous angle */
        double th = phi + s * da;
        th += 2.0 * PKM_PI * round((*theta - th) / (2.0 * PKM_PI));
        if (fabs(th - *theta) < dist) dist = fabs(th - *theta), best = th;
    }
    *theta = best;
    return PKM_OK;
}
