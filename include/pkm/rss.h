/* include/pkm/rss.h: the R-S-S chain (a crank on a base shaft, a coupler with spherical joints at
 * both ends) driving a rigid body, and its closed-form inverse kinematics.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Cheng, Yuan, Li, Zeng 2024 (Mech. Sci. 15, 587), eqs. 8-10: the crank tip
 * S = G + R0 R_z(theta) (r, 0, 0) and the coupler end M = p + R M_body (pose X and R as in
 * pkm/contact.h) keep |M - S| = L. The paper takes the inverse kinematics from its eq. 7 of Cheng
 * et al. 2015, not in the text; rebuilt here: with v = R0^T (M - G),
 * v_x cos theta + v_y sin theta = K = (|v|^2 + r^2 - L^2) / (2 r), so
 * theta = atan2(v_y, v_x) +- acos(K / rho), rho = |(v_x, v_y)|, reachable while |K| <= rho. */
#ifndef PKM_RSS_H
#define PKM_RSS_H

#include "pkm/contact.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_rss {
    const char *name; /* for messages */
    double G[3];      /* a point of the crank shaft, base axes */
    double R0[3][3];  /* shaft frame at theta = 0 (columns: x towards the crank tip, y, z the
                         shaft axis), base axes */
    double r, L;      /* crank and coupler lengths */
    double M[3];      /* the coupler's end on the moving body, body axes */
} pkm_rss;

/* The crank tip S at crank angle theta. */
void pkm_rss_tip(const pkm_rss *c, double theta, double S[3]);

/* The closure h = |M - S|^2 - L^2 of the chain (the paper's eq. 8 in its squared form, rebuilt)
 * at pose X and crank angle theta, its derivatives dh/dtheta (*jth) and dh/dX (jx; NULL-safe
 * both). */
double pkm_rss_closure(const pkm_rss *c, const double X[PKM_POSE_DOF], double theta, double *jth,
                       double jx[PKM_POSE_DOF]);

/* The crank angle that puts the coupler end at pose X, of the two roots the one nearest to
 * *theta (the previous sample's: branch tracking; 0 at the home pose), written to *theta.
 * PKM_ERR_UNREACHABLE naming the chain and t when |K| > rho (the coupler cannot reach the crank
 * circle); PKM_ERR_INVALID for r or L not positive. */
pkm_status pkm_rss_ik(const pkm_rss *c, const double X[PKM_POSE_DOF], double t, double *theta,
                      pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
