/* include/pkm/mast.h: a rigid body driven by R-S-S chains and held by point-on-surface contacts
 * (higher pairs): its kinematics along a motion of the free pose coordinates, mass matrix,
 * joint-space inertia and inertia coupling index, and minimum-norm inverse dynamics.
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

/* The potential energy of the couplers (centre at the middle of S M) and of the body. */
double pkm_mast_potential(const pkm_mast *m, const pkm_mast_state *s);

/* The joint-space inertia M_A = J5^T M J5 (nchain x nchain, row-major), J5 = [I; J1^+]
 * (eqs. 58-59), and the inertia coupling index of each chain in its two readings of the lost
 * eq. 60 (either may be NULL): mci_a[i] = sum_{k != i} |M_A(i,k)| / sum_k |M_A(i,k)|,
 * mci_b[i] = sum_{k != i} |M_A(i,k)| / |M_A(i,i)|. PKM_ERR_SINGULAR naming t when J1 has not full
 * column rank (the chains do not determine the free coordinates). */
pkm_status pkm_mast_joint_inertia(const pkm_mast *m, const pkm_mast_state *s, double *MA,
                                  double *mci_a, double *mci_b, pkm_ctx *ctx);

/* The routes of the inverse dynamics, which give the same torques (Cheng et al. 2024, sec. 5 and
 * their check of it, rebuilt; docs/dynamics.md):
 * - PKM_MAST_VIRTUAL_POWER (default, the cheapest): each body's inertia and gravity forces from its
 *   accelerations, projected through its velocity Jacobian (Kane's form);
 * - PKM_MAST_HESSIAN: the paper's reduced Lagrange-D'Alembert equations, eqs. 43-54: M_r = J3^T M
 *   J3, C_r = J3^T (M J4 + C J3), G_r = J3^T dV/dq, with J4 = [J2; 0] from J-dot by the closures'
 *   Hessians (eqs. 20-23) and C = N - N^T / 2, N the mixed (q', q) block of the Hessian of T
 *   (eqs. 48-52);
 * - PKM_MAST_LIANG: the same equations with J-dot and C from the partial derivatives of J and of M
 *   (Liang et al. 2017, as the paper's eq. 61: C = M' - N^T / 2);
 * - PKM_MAST_FIRST_KIND: Lagrange's equations of the first kind in all of q (eqs. 55-57):
 *   Q = M q'' + M' q' - dT/dq + dV/dq with q'' the state's (the closures differentiated twice in
 *   time), M' = sum_k dM/dq_k q_k', then J1^T tau = J3^T Q - F_EE. */
typedef enum pkm_mast_route {
    PKM_MAST_VIRTUAL_POWER = 0,
    PKM_MAST_HESSIAN,
    PKM_MAST_LIANG,
    PKM_MAST_FIRST_KIND
} pkm_mast_route;

/* The route's name ("virtual-power", "hessian", "liang", "first-kind"); NULL if unknown. */
const char *pkm_mast_route_name(pkm_mast_route route);

/* The closures h_i = |M_i - S_i|^2 - L_i^2 (Cheng et al. 2024, eq. 8, rebuilt) at the state s, q
 * taken independent: Jth (nchain: dh_i/dtheta_i, J_theta is diagonal), Jq (nchain x nfree) and,
 * if H is not NULL, their Hessians H (nchain x n x n, n = nchain + nfree; H_i vanishes outside the
 * rows and columns of theta_i and the free coordinates, eq. 20). */
void pkm_mast_closure_derivatives(const pkm_mast *m, const pkm_mast_state *s, double *Jth,
                                  double *Jq, double *H);

/* J_theta' (nchain) and J_q' (nchain x nfree) along the state's motion: route PKM_MAST_HESSIAN
 * contracts the Hessians with q' (eqs. 22-23), any other the Jacobians' partial derivatives
 * (dJ/dq^T)(q' x I) (Liang et al. 2017). */
void pkm_mast_jacobian_rates(const pkm_mast *m, const pkm_mast_state *s, pkm_mast_route route,
                             double *Jthd, double *Jqd);

/* The partial derivatives of the mass matrix dM (n x n x n, dM[(k n + a) n + b] = dM_ab/dq_k). */
void pkm_mast_mass_derivative(const pkm_mast *m, const pkm_mast_state *s, double *dM);

/* The forms of a Coriolis matrix C with C q' = M' q' - dT/dq (not unique): from the mixed block N
 * of the Hessian of T, N - N^T / 2 (the paper's); from dM/dq, M' - N^T / 2 (Liang's); and the
 * Christoffel form (M' + N - N^T) / 2, the one with M' - 2 C skew-symmetric. */
typedef enum pkm_mast_coriolis_form {
    PKM_MAST_CORIOLIS_HESSIAN,
    PKM_MAST_CORIOLIS_LIANG,
    PKM_MAST_CORIOLIS_CHRISTOFFEL
} pkm_mast_coriolis_form;

/* C (n x n, row-major) in the given form at the state s. */
void pkm_mast_coriolis(const pkm_mast *m, const pkm_mast_state *s, pkm_mast_coriolis_form form,
                       double *C);

/* A force on the moving body at a point of it (the bite load): base axes, body axes. */
typedef struct pkm_mast_load {
    double force[3], point[3];
} pkm_mast_load;

/* Options of the inverse dynamics (all may be NULL / zero: the minimum 2-norm torques). */
typedef struct pkm_mast_inverse_opts {
    const double *weight;  /* nchain weights > 0: minimise sum w_i tau_i^2 */
    const double *preload; /* nchain torques whose null-space part is added (internal load) */
    pkm_mast_route route;  /* how J1^T tau is formed (the torques agree to rounding) */
} pkm_mast_inverse_opts;

/* What the inverse dynamics gives. */
typedef struct pkm_mast_forces {
    double tau[PKM_MAST_MAX_CHAINS];           /* crank torques */
    double contact[PKM_MAST_MAX_CONTACTS];     /* normal forces the surfaces push the points with,
                                                  along grad sigma (negative: pulled) */
    double coupler[PKM_MAST_MAX_CHAINS][2][3]; /* force on each coupler at S (from the crank) and
                                                  at M (from the body), base axes */
    double generalised[PKM_POSE_DOF];          /* J1^T tau, the free coordinates' drive */
    double multiplier[PKM_MAST_MAX_CHAINS];    /* Lagrange's multipliers of the closures h_i
                                                  (eq. 57): lambda_i = (Q_theta_i - tau_i) /
                                                  (dh_i / dtheta_i) */
    double residual; /* largest force residual of the body's six equations, relative */
} pkm_mast_forces;

/* The crank torques that move the mechanism through the state s under load (NULL: none):
 * J1^T tau = J3^T Q - F_EE (Cheng et al. 2024, eqs. 43-57, rebuilt) formed by the route of opts
 * (pkm_mast_route; by default virtual power: each body's inertia and gravity forces projected on
 * the free coordinates), the closures' multipliers from Q's crank rows, and the equations solved
 * for the torques of least (weighted) norm by a QR factorisation of W^-1/2 J1, plus the null-space
 * part W^-1/2 (I - Q Q^T) W^1/2 of the preload. Then Newton-Euler body by body: each coupler's end
 * forces from its force and moment balance (the force along its axis from its crank's moment
 * balance about the shaft under tau), and the moving body's six equations with the couplers' forces
 * give the contact normal forces by least squares; their residual, relative to the largest force or
 * moment entering them, is 0 up to rounding when the reduced equations and the Newton-Euler
 * equations agree (the check of the route). PKM_ERR_SINGULAR naming t when W^-1/2 J1 is
 * rank-deficient (a redundant actuation map that cannot drive every free coordinate; not solved),
 * PKM_ERR_INVALID for a weight not > 0 or an unknown route. */
pkm_status pkm_mast_inverse(const pkm_mast *m, const pkm_mast_state *s, const pkm_mast_load *load,
                            const pkm_mast_inverse_opts *opts, pkm_mast_forces *f, pkm_ctx *ctx);

/* The free coordinates' accelerations qfdd at time t, coordinates qf and rates qfd under the
 * crank torques tau and the load (NULL: none): M_r qfdd = J1^T tau - (C_r qfd + G_r - F_EE), the
 * reduced equations of pkm_mast_inverse (affine in qfdd: M_r's columns and the rest from
 * nfree + 1 evaluations), solved by Cholesky; s is left at the solution's state (tracked from
 * its previous values). Errors of pkm_mast_kinematics and pkm_mast_inverse; PKM_ERR_SINGULAR
 * naming t if M_r is not positive definite. */
pkm_status pkm_mast_forward(const pkm_mast *m, double t, const double *qf, const double *qfd,
                            const double *tau, const pkm_mast_load *load, pkm_mast_state *s,
                            double *qfdd, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
