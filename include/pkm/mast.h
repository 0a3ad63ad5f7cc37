/* include/pkm/mast.h: a rigid body driven by R-S-S chains and held by point-on-surface contacts
 * (higher pairs): its kinematics along a motion of the free pose coordinates, mass matrix,
 * joint-space inertia and inertia coupling index. Its inverse dynamics is the general engine's
 * (pkm/dynengine.h, on the model pkm_masticatory_model); the mechanism's own inverse and forward
 * dynamics are the tests' independent reference (tests/reference/).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Cheng, Yuan, Li, Zeng 2024 (Mech. Sci. 15, 587): the mandible of a chewing robot, six R-S-S
 * chains (pkm/rss.h) and two condyle contacts (pkm/contact.h) that make Z and gamma parasitic
 * functions of the four free coordinates (X, Y, alpha, beta). With no contacts the same
 * description is the paper's 6-RSS twin, all six pose coordinates free. Their printed equations
 * are lost; the forms below are rebuilt from the text (docs/dynamics.md, "The chewing robot").
 *
 * Units: any one consistent set (SI, or the paper's g mm s). Generalised coordinates
 * q = (theta_1 .. theta_n, the free pose coordinates in increasing index order). The moving
 * body's origin is its centre of mass. Each coupler is a line mass rho A L between its crank tip
 * S and its body end M (no rotary inertia about its axis), each crank has only its moment of
 * inertia about its shaft (its centre of mass on the shaft: no potential energy). */
#ifndef PKM_MAST_H
#define PKM_MAST_H

#include "pkm/contact.h"
#include "pkm/rss.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PKM_MAST_MAX_CHAINS   8
#define PKM_MAST_MAX_CONTACTS 5
/* Generalised coordinates at most: chains and free pose coordinates. */
#define PKM_MAST_MAX_Q (PKM_MAST_MAX_CHAINS + PKM_POSE_DOF)

typedef struct pkm_mast {
    int nchain; /* 1 .. PKM_MAST_MAX_CHAINS */
    pkm_rss chain[PKM_MAST_MAX_CHAINS];
    double crank_inertia[PKM_MAST_MAX_CHAINS]; /* about the shaft */
    double coupler_mass[PKM_MAST_MAX_CHAINS];  /* rho A L */
    double mass, inertia[3][3];                /* moving body: about its origin, body axes */
    double gravity[3];                         /* base axes */
    int ncontact;                              /* 0 .. PKM_MAST_MAX_CONTACTS */
    pkm_contact contact[PKM_MAST_MAX_CONTACTS];
    int par[PKM_MAST_MAX_CONTACTS]; /* the parasitic pose coordinates, one per contact */
} pkm_mast;

/* The mechanism at one time. Before the first sample of a motion, zero it (home pose, cranks at
 * 0); each later sample starts its Newton and its branch tracking from the previous one's X and
 * th, so a motion is followed by calling pkm_mast_kinematics on the same state. */
typedef struct pkm_mast_state {
    double t;
    int nfree, free[PKM_POSE_DOF]; /* the free pose coordinates' indices */
    double X[PKM_POSE_DOF], Xd[PKM_POSE_DOF], Xdd[PKM_POSE_DOF]; /* pose and its rates */
    double th[PKM_MAST_MAX_CHAINS], thd[PKM_MAST_MAX_CHAINS], thdd[PKM_MAST_MAX_CHAINS];
    double mj[PKM_POSE_DOF * PKM_POSE_DOF]; /* dX / dq_free (6 x nfree, row-major) */
    double mj2[PKM_POSE_DOF * PKM_POSE_DOF * PKM_POSE_DOF]; /* d2X / dq_free dq_free (6 x nfree
                                                               x nfree) */
    double J1[PKM_MAST_MAX_CHAINS * PKM_POSE_DOF];          /* dtheta / dq_free (nchain x nfree) */
} pkm_mast_state;

/* Gruebler-Kutzbach mobility of the topology: 6 per moving body (the moving body, each chain's
 * crank and coupler) less 6 - f per joint (a chain's revolute f = 1 and two spherical joints
 * f = 3, a higher pair f = 5: one constraint) and less each coupler's idle spin about its own
 * axis (the S-S pair): 4 for the chewing robot, 6 for its 6-RSS twin (Cheng et al. 2024,
 * sec. 2). */
int pkm_mast_mobility(const pkm_mast *m);

/* The description checked: counts in range, chains' lengths positive, inertias and masses
 * finite and not negative, surfaces (pkm_surface_check), parasitic indices distinct in 0..5.
 * PKM_ERR_INVALID naming the chain, contact or field. */
pkm_status pkm_mast_check(const pkm_mast *m, pkm_ctx *ctx);

/* The state at time t from the free coordinates qf, their rates qfd and accelerations qfdd
 * (nfree = 6 - ncontact each): parasitic coordinates by Newton (pkm_contact_parasitic, its
 * errors name the contact and t), their rates and accelerations by the implicit-function
 * theorem, the crank angles in closed form with branch tracking (pkm_rss_ik), their rates
 * theta' = J1 qf' with J1 = -J_theta^-1 J_q (Cheng et al. 2024, eqs. 12-14, rebuilt) and
 * accelerations from the second time derivative of each closure |M - S|^2 = L^2.
 * PKM_ERR_SINGULAR naming the chain and t at a dead centre (the crank tip moving normal to its
 * coupler: J_theta(i, i) = 0). */
pkm_status pkm_mast_kinematics(const pkm_mast *m, double t, const double *qf, const double *qfd,
                               const double *qfdd, pkm_mast_state *s, pkm_ctx *ctx);

/* The mass matrix M (n x n, n = nchain + nfree, row-major) of q at the state s: the cranks, each
 * coupler m (J_S^T J_S / 3 + (J_S^T J_M + J_M^T J_S) / 6 + J_M^T J_M / 3) (the exact integral of
 * a line mass whose velocity is linear along it), the body's M0b^T diag(m I, R I R^T) M0b with
 * M0b = diag(I, E) dX/dq_free (Cheng et al. 2024, eqs. 24-38, rebuilt), computed in body axes as
 * m J_O^T J_O + J_w^T I J_w (J_w the body-axes angular velocity map). q is taken independent
 * (theta and the free coordinates), as in Lagrange's equations of the first kind. */
void pkm_mast_mass_matrix(const pkm_mast *m, const pkm_mast_state *s, double *M);

/* The joint-space inertia M_A = J5^T M J5 (nchain x nchain, row-major), J5 = [I; J1^+]
 * (eqs. 58-59), and the inertia coupling index of each chain in its two readings of the lost
 * eq. 60 (either may be NULL): mci_a[i] = sum_{k != i} |M_A(i,k)| / sum_k |M_A(i,k)|,
 * mci_b[i] = sum_{k != i} |M_A(i,k)| / |M_A(i,i)|. PKM_ERR_SINGULAR naming t when J1 has not full
 * column rank (the chains do not determine the free coordinates). */
pkm_status pkm_mast_joint_inertia(const pkm_mast *m, const pkm_mast_state *s, double *MA,
                                  double *mci_a, double *mci_b, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
