/* dynamics/mast_impl.h: what dynamics/mast.c shares with mast_inverse.c.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_MAST_IMPL_H
#define PKM_MAST_IMPL_H

#include "pkm/mast.h"
#include "pkm/spatial.h"

/* The moving body's rotation, angular-rate map E, inertia R I R^T, angular velocity and
 * acceleration (base axes) at a state. */
typedef struct mast_body {
    double R[3][3], E[3][3], Iw[3][3], w[3], wd[3];
} mast_body;

void pkm_mast_body_motion(const pkm_mast *m, const pkm_mast_state *s, mast_body *b);

/* Position, velocity and acceleration of the body point r (body axes). */
void pkm_mast_point_motion(const pkm_mast_state *s, const mast_body *b, const double r[3],
                           double x[3], double v[3], double a[3]);

/* F_EE = J_b^T f_b (Cheng et al. 2024, eq. 45, rebuilt): the load's generalised force on the
 * free coordinates (nfree; zero for no load). */
void pkm_mast_load_force(const pkm_mast_state *s, const pkm_mast_load *load, double *F);

/* dS/dtheta and d2S/dtheta2 of chain c's crank tip at theta. */
void pkm_mast_crank(const pkm_rss *c, double th, double dS[3], double ddS[3]);

/* First and second derivatives, in the generalised coordinates q = (theta, q_free), of every point
 * the energies and closures are made of, at a state (dynamics/mast_hessian.c). Each crank tip S_i
 * depends on theta_i alone, the body's points on the free coordinates alone (through the pose and
 * its parasitic coordinates). */
typedef struct mast_deriv {
    int nch, nf, n;
    double qd[PKM_MAST_MAX_Q]; /* q' */
    double S[PKM_MAST_MAX_CHAINS][3], dS[PKM_MAST_MAX_CHAINS][3], ddS[PKM_MAST_MAX_CHAINS][3];
    double M[PKM_MAST_MAX_CHAINS][3];                              /* body ends */
    double JM[PKM_MAST_MAX_CHAINS][3][PKM_POSE_DOF];               /* d M_i / d q_free */
    double HM[PKM_MAST_MAX_CHAINS][3][PKM_POSE_DOF][PKM_POSE_DOF]; /* d2 M_i / d q_free2 */
    double JO[3][PKM_POSE_DOF], HO[3][PKM_POSE_DOF][PKM_POSE_DOF]; /* the body's origin */
    /* body-axes angular velocity w_b = Jw q_free' and dJw(:, j) / dq_free_k */
    double Jw[3][PKM_POSE_DOF], Hw[3][PKM_POSE_DOF][PKM_POSE_DOF];
} mast_deriv;

/* The derivatives at s; the second ones (HM, HO, Hw) only if second is set (the mass matrix
 * needs the first ones alone). */
void pkm_mast_deriv_eval(const pkm_mast *m, const pkm_mast_state *s, int second, mast_deriv *D);

/* Chain i's closure h_i = |M_i - S_i|^2 - L_i^2: dh/dtheta_i, dh/dq_free, and its Hessian's
 * blocks (theta theta, theta free, free free). */
typedef struct mast_closure {
    double jth, jq[PKM_POSE_DOF], htt, htq[PKM_POSE_DOF], hqq[PKM_POSE_DOF][PKM_POSE_DOF];
} mast_closure;

void pkm_mast_closure_eval(const mast_deriv *D, int i, mast_closure *c);
/* Its dh/dtheta_i alone. */
double pkm_mast_closure_jth(const mast_deriv *D, int i);

/* J_theta' (nch) and J_q' (nch x nf) by the route's contraction (PKM_MAST_HESSIAN: the
 * Hessians', otherwise the Jacobians' partial derivatives). */
void pkm_mast_rates_eval(const mast_deriv *D, pkm_mast_route route, double *Jthd, double *Jqd);

/* The routes of the reduced right-hand side J1^T tau = rhs and the crank rows Q_theta of the
 * first-kind equations (dynamics/mast_lagrange.c): PKM_MAST_HESSIAN, PKM_MAST_LIANG,
 * PKM_MAST_FIRST_KIND. */
void pkm_mast_lagrange_rhs(const pkm_mast *m, const pkm_mast_state *s, pkm_mast_route route,
                           const pkm_mast_load *load, double *rhs, double *Qth);

#endif
