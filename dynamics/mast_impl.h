/* dynamics/mast_impl.h: what dynamics/mast.c shares with mast_mass.c, and the pieces of both that
 * the tests' reference inverse dynamics of the same mechanism (tests/reference/) builds on.
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

/* dS/dtheta and d2S/dtheta2 of chain c's crank tip at theta. */
void pkm_mast_crank(const pkm_rss *c, double th, double dS[3], double ddS[3]);

/* First and second derivatives, in the generalised coordinates q = (theta, q_free), of every point
 * the energies and closures are made of, at a state (dynamics/mast_mass.c). Each crank tip S_i
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

/* Chain i's crank-tip and body-end Jacobians JS, JM in q (3 x n, rows of stride n = D->n). */
void pkm_mast_chain_jacobians(const mast_deriv *D, int i, double *JS, double *JM);
/* The body's: its origin's JO and its body-axes angular map Jw (3 x n). */
void pkm_mast_body_jacobians(const mast_deriv *D, double *JO, double *Jw);

/* The bilinear mass forms whose sum over the bodies is M (eq. 27, eq. 30 in body axes), added to
 * the n x n matrix A: a coupler's mc (XS^T (YS/3 + YM/6) + XM^T (YS/6 + YM/3)), the body's
 * m XO^T YO + Xw^T I Yw (X, Y: 3 x n). M's terms are the forms at X = Y = the Jacobians, their
 * derivative in q_k the forms at (dJ/dq_k, J) plus (J, dJ/dq_k). */
void pkm_mast_coupler_form(int n, double mc, const double *XS, const double *XM, const double *YS,
                           const double *YM, double *A);
void pkm_mast_body_form(const pkm_mast *m, int n, const double *XO, const double *Xw,
                        const double *YO, const double *Yw, double *A);

#endif
