/* tests/reference/mastref_impl.h: what the reference's files share (mastref.h), on the library's
 * point derivatives and mass forms (dynamics/mast_impl.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_MASTREF_IMPL_H
#define PKM_MASTREF_IMPL_H

#include "dynamics/mast_impl.h"
#include "reference/mastref.h"

/* F_EE = J_b^T f_b (Cheng et al. 2024, eq. 45, rebuilt): the load's generalised force on the
 * free coordinates (nfree; zero for no load). */
void pkm_mast_load_force(const pkm_mast_state *s, const pkm_mast_load *load, double *F);

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
 * first-kind equations (mast_lagrange.c): PKM_MAST_HESSIAN, PKM_MAST_LIANG,
 * PKM_MAST_FIRST_KIND. */
void pkm_mast_lagrange_rhs(const pkm_mast *m, const pkm_mast_state *s, pkm_mast_route route,
                           const pkm_mast_load *load, double *rhs, double *Qth);

#endif
