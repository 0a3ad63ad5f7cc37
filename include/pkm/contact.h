/* include/pkm/contact.h: point-on-surface constraints (higher kinematic pairs) between a point of
 * a rigid body and an implicit surface of the base, and the parasitic coordinates they fix.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Cheng, Yuan, Li, Zeng 2024 (Mech. Sci. 15, 587): the mandible of a chewing robot carries two
 * condyle balls that slide on articular surfaces, so two of its six pose coordinates (Z and gamma)
 * follow from the four free ones (X, Y, alpha, beta). The printed equations (1)-(5) are lost; they
 * are rebuilt here in the generic form the paper's elimination implies: each contact i gives one
 * equation Phi_i(X) = sigma_i(p + R r_i) = 0, solved for the parasitic coordinates by Newton, whose
 * derivatives follow from the implicit-function theorem (docs/dynamics.md, "Higher pairs").
 *
 * Pose: X = (x, y, z, alpha, beta, gamma), the body origin p = (x, y, z) in base axes and
 * R = R_x(alpha) R_y(beta) R_z(gamma) (rotations about moving axes, Cheng et al. 2024, eq. 3,
 * rebuilt: R maps body components to base components). Lengths in any one unit, angles in rad. */
#ifndef PKM_CONTACT_H
#define PKM_CONTACT_H

#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pose coordinates of a rigid body: three translations, three angles. */
#define PKM_POSE_DOF 6

/* Terms of a polynomial surface. */
#define PKM_SURFACE_MAX_TERMS 20

typedef enum pkm_surface_kind {
    PKM_SURFACE_PLANE,     /* b . x + c = 0 */
    PKM_SURFACE_QUADRIC,   /* x^T A x + b . x + c = 0, A symmetric (only its upper part is read) */
    PKM_SURFACE_POLYNOMIAL /* sum_k coef_k x^pow_k[0] y^pow_k[1] z^pow_k[2] = 0 */
} pkm_surface_kind;

/* An implicit surface sigma(x) = 0 in base axes. */
typedef struct pkm_surface {
    pkm_surface_kind kind;
    double a[3][3]; /* quadric */
    double b[3], c; /* plane, quadric */
    int nterm;      /* polynomial: terms, exponents >= 0 */
    double coef[PKM_SURFACE_MAX_TERMS];
    int pow[PKM_SURFACE_MAX_TERMS][3];
} pkm_surface;

/* One higher pair: the body point `point` (body axes) stays on `surface`. */
typedef struct pkm_contact {
    const char *name; /* for messages */
    double point[3];
    pkm_surface surface;
} pkm_contact;

/* The surface checked: known kind, finite coefficients, a plane's b not zero, a polynomial's
 * 1..PKM_SURFACE_MAX_TERMS terms with exponents in 0..16. PKM_ERR_INVALID naming the contact. */
pkm_status pkm_surface_check(const pkm_surface *s, const char *name, pkm_ctx *ctx);

/* sigma, its gradient and its Hessian at x (g, H may be NULL). */
void pkm_surface_eval(const pkm_surface *s, const double x[3], double *f, double g[3],
                      double H[3][3]);

/* R = R_x(X[3]) R_y(X[4]) R_z(X[5]). */
void pkm_pose_rotation(const double X[PKM_POSE_DOF], double R[3][3]);

/* The derivative J (3 x 6, row-major) of the base position p + R r of body point r in the pose
 * coordinates. */
void pkm_pose_point_jacobian(const double X[PKM_POSE_DOF], const double r[3],
                             double J[3][PKM_POSE_DOF]);

/* E with w = E (alpha', beta', gamma'), w the body's angular velocity in base axes:
 * E = [e_x, R_x(alpha) e_y, R_x(alpha) R_y(beta) e_z] (Cheng et al. 2024, eq. 33, rebuilt). */
void pkm_pose_angular_jacobian(const double X[PKM_POSE_DOF], double E[3][3]);

/* The residuals Phi_i(X) of the nc contacts, their gradients dPhi (nc x 6, row-major) and
 * Hessians d2Phi (nc x 6 x 6) in the pose coordinates; dPhi, d2Phi may be NULL. */
void pkm_contact_residual(int nc, const pkm_contact *c, const double X[PKM_POSE_DOF], double *Phi,
                          double *dPhi, double *d2Phi);

/* The parasitic coordinates X[par[0..nc-1]] (distinct pose indices, 1 <= nc <= 5) solved by
 * Newton from their values in X (the previous sample's, say) so that every contact holds, the
 * other nf = 6 - nc coordinates (the free ones, in increasing index order) fixed. Then, if not
 * NULL, their first derivatives dz (nc x nf, row-major: dz[a nf + j] = d X[par[a]] / d free_j)
 * and second derivatives d2z (nc x nf x nf) by the implicit-function theorem:
 *   Phi_z dz = -Phi_q,  Phi_z d2z_jk = -D_j^T Hess(Phi) D_k,
 * with D the derivative of the whole pose with respect to the free coordinates (unit columns for
 * the free ones, dz rows for the parasitic ones), which gathers the four terms Phi_qq, Phi_qz z_k,
 * Phi_zq z_j and Phi_zz : z_j z_k of the second-order rule. t only names the time in messages.
 * PKM_ERR_INVALID for bad arguments or surfaces; PKM_ERR_SINGULAR naming t when Phi_z is singular
 * (a contact normal without a component the parasitic coordinates can move); PKM_ERR_UNREACHABLE
 * naming the worst contact and t when Newton does not converge (the point cannot reach its
 * surface). X is left at the last iterate on failure. */
pkm_status pkm_contact_parasitic(int nc, const pkm_contact *c, const int *par, double t,
                                 double X[PKM_POSE_DOF], double *dz, double *d2z, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
