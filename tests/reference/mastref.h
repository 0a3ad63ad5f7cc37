/* tests/reference/mastref.h: the chewing robot's own inverse and forward dynamics (pkm/mast.h;
 * Cheng, Yuan, Li, Zeng 2024, secs. 4-5, their printed equations lost, the forms rebuilt), kept
 * beside the tests as an independent reference: the library's inverse dynamics of this mechanism
 * is the general engine's (pkm/dynengine.h), which the tests check against these routes, and
 * these routes against each other, Newton-Euler and the exact energy balance
 * (docs/dynamics.md, "The chewing robot"). Static library pkm_reference.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_MASTREF_H
#define PKM_MASTREF_H

#include "pkm/mast.h"

/* The potential energy of the couplers (centre at the middle of S M) and of the body. */
double pkm_mast_potential(const pkm_mast *m, const pkm_mast_state *s);

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

#endif
