/* include/pkm/friction.h: joint friction laws (Coulomb-viscous, Stribeck) and the normal load
 * built from a joint's reaction components.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Guo, Ju, Wang 2024 (Aerospace 11, 368), eqs. 40-42, 47 and 52. Units: a revolute or helical
 * joint's friction is a torque (N m) and its velocity an angular rate (rad/s); a prismatic joint's
 * a force (N) and a velocity (m/s). The coefficients kc and ks are dimensionless (they multiply
 * the normal load); kv is in N m s/rad or N s/m. */
#ifndef PKM_FRICTION_H
#define PKM_FRICTION_H

#include "pkm/model.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pkm_friction_model {
    PKM_FRICTION_NONE,
    PKM_FRICTION_COULOMB_VISCOUS, /* kc N sgn(v) + kv v (Guo et al. 2024, eq. 42) */
    PKM_FRICTION_STRIBECK /* [kc N + (ks - kc) N exp(-(|v|/vs)^delta)] sgn(v) + kv v (eq. 52) */
} pkm_friction_model;

/* The friction data of one joint. Zero-initialised, it is "no friction". */
typedef struct pkm_friction {
    pkm_friction_model model;
    double kc, kv, ks, vs, delta; /* Coulomb, viscous (N m s/rad | N s/m), static, Stribeck
                                     velocity (rad/s | m/s), exponent (default 2) */
    double rp, rn, rb;            /* pin radius, axial friction arm, bending arm, m */
    double preload;               /* added to the normal load (N m | N) */
    double normal;                /* > 0: constant normal load instead of the reactions */
} pkm_friction;

/* The Stribeck exponent of Bo and Pavelescu, used by Guo et al. 2024, eq. 52. */
#define PKM_FRICTION_DELTA_DEFAULT 2.0

/* The data of joint `joint` (its name, for the message) checked: every field finite and
 * non-negative; for Stribeck ks >= kc, vs > 0 and delta > 0; when the normal load comes from the
 * reactions (normal == 0, model not NONE) the three arms rp, rn, rb > 0 (the normal load divides
 * by rb, and by rn for a prismatic joint). PKM_ERR_INVALID with one line naming the joint and the
 * field, PKM_OK otherwise. */
pkm_status pkm_friction_check(const pkm_friction *f, const char *joint, pkm_ctx *ctx);

/* The normal load of a joint of this type from the magnitudes of its reaction components
 * (Guo et al. 2024, eq. 47), plus f->preload; or f->normal when it is > 0. A NULL f or model NONE
 * gives 0.
 *   revolute, helical: rp (f_radial + m_bending / rb) + rn f_axial  [N m], with f_axial the force
 *     along the axis, f_radial the force normal to it, m_bending the moment normal to it. The
 *     printed eq. 47 adds a moment and forces; this is its dimensionally consistent rebuild,
 *     which is also what ADAMS's revolute joint friction computes with the same three arms.
 *   prismatic: f_radial + m_bending / rb + f_axial / rn  [N], as printed; for a prismatic joint
 *     the axial component that loads the guide is the twisting MOMENT about the axis (the force
 *     along the axis is the drive), so f_axial carries that moment (N m) here.
 * Other joint types have no friction law here: 0. */
double pkm_friction_normal(const pkm_friction *f, pkm_joint_type type, double f_axial,
                           double f_radial, double m_bending);

/* The signed friction force or torque at velocity v under normal load `normal` (>= 0): it has
 * the sign of v (it opposes the motion when subtracted from the drive, i.e. drive = ideal +
 * friction), with sgn(0) = 0 (Guo et al. 2024, eqs. 40-42 and 52). */
double pkm_friction_force(const pkm_friction *f, double v, double normal);

/* The same law with sgn(v) replaced by the linear ramp clamp(v / eps, -1, 1) (eps > 0, same unit
 * as v), for forward dynamics: the ramp is continuous, so an explicit integrator with steps that
 * resolve it sees a smooth right-hand side, and unlike tanh it equals the exact law wherever
 * |v| >= eps. eps <= 0 gives the exact law. A body that should stick instead creeps at a speed of
 * order eps (docs/dynamics.md). */
double pkm_friction_force_smooth(const pkm_friction *f, double v, double normal, double eps);

#ifdef __cplusplus
}
#endif
#endif
