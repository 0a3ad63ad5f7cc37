/* include/pkm/forward.h: forward dynamics of a rigid multibody system (closed chains included)
 * under given drives, with regularised joint friction, integrated by RK4 with an energy monitor.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Formulation (docs/dynamics.md, "Forward dynamics"): all coordinates q of the pkm_mbs are
 * integrated; at every evaluation the accelerations solve the constrained equations of motion
 *   M(q) qdd - C^T lambda = B tau - f - h(q, qd),   C qdd = -gamma
 * by the null-space method (C = U S V^T; the particular part qdd_p = -C^+ gamma, the free part
 * in the null space Z of C from the reduced mass matrix Z^T M Z, a Cholesky solve), which drops
 * the identically zero rows of planar mechanisms as the kinematics does. After every RK4 step the
 * state is projected back onto the constraint manifold without Baumgarte terms: Newton on the
 * position closure (minimum-norm steps), then the velocity's least-squares projection onto
 * C qd = 0. The state vector is (q, qd, W_drive, W_friction), 2 nq + 2 doubles: the work the
 * drives did on the system and the work friction took from it, integrated along. */
#ifndef PKM_FORWARD_H
#define PKM_FORWARD_H

#include "pkm/dynamics.h"
#include "pkm/friction.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_fwd pkm_fwd;

/* Number of states for nq coordinates: q, qd, the drives' work and the friction work. */
#define PKM_FWD_STATES(nq) (2 * (nq) + 2)

/* Drives of the actuated joints (one per actuated joint, in joint order, as pkm_mbs_inverse's
 * weights; N m or N) at time t and state (q, qd). A failure recorded in ctx stops the run. */
typedef pkm_status (*pkm_fwd_drive)(double t, const double *q, const double *qd, double *tau,
                                    void *user, pkm_ctx *ctx);

/* Default width of the friction law's sign ramp (rad/s or m/s; pkm_friction_force_smooth). */
#define PKM_FWD_EPS 1e-3

/* How the algebraic loop through the normal loads (friction depends on the reactions, which
 * depend on qdd, which depends on friction) is closed in each evaluation of the accelerations. */
typedef enum pkm_fwd_loop {
    PKM_FWD_FIXED_POINT, /* iterate N -> friction -> qdd -> reactions -> N to tolerance */
    PKM_FWD_LAGGED       /* one pass with the normal loads of the previous evaluation */
} pkm_fwd_loop;

/* Forward dynamics of s (which must outlive it) under the drives `drive` (NULL: no drive) with
 * the friction fr (pkm_model_joint_count entries, copied; NULL: none; only tree joints with one
 * coordinate take friction, as in pkm_mbs_inverse) regularised by a ramp of width eps (> 0).
 * While friction is on, the forward dynamics sets the friction of s (pkm_mbs_set_friction) at
 * each evaluation to present the friction forces to the reaction solve. PKM_ERR_INVALID for bad
 * friction data (naming the joint) or eps; PKM_ERR_NOMEM. */
pkm_status pkm_fwd_create(pkm_mbs *s, pkm_fwd_drive drive, void *user, const pkm_friction *fr,
                          double eps, pkm_fwd **out, pkm_ctx *ctx);
void pkm_fwd_destroy(pkm_fwd **f);

/* The loop through the normal loads (PKM_FWD_FIXED_POINT by default, relative tolerance 1e-12 of
 * the largest normal load, at most 50 passes, else PKM_ERR_NOCONV). */
void pkm_fwd_set_loop(pkm_fwd *f, pkm_fwd_loop loop);

/* Accelerations qdd (nq) at time t and state (q, qd) with the drives of the callback, the
 * friction forces (nq, per coordinate, sign of qd; may be NULL) and the drives (na; may be NULL).
 * PKM_ERR_SINGULAR when the reduced mass matrix is not positive definite; the callback's
 * failures; PKM_ERR_NOCONV from the friction loop. */
pkm_status pkm_fwd_accel(pkm_fwd *f, double t, const double *q, const double *qd, double *qdd,
                         double *friction, double *tau, pkm_ctx *ctx);

/* Project (q, qd) onto the constraint manifold: Newton on the position closure with minimum-norm
 * steps, then qd -= C^+ C qd. PKM_ERR_SINGULAR when Newton does not close the loops. */
pkm_status pkm_fwd_project(pkm_fwd *f, double *q, double *qd, pkm_ctx *ctx);

/* What the energy monitor reports after each step (and before the first, step 0). */
typedef struct pkm_fwd_record {
    int step;
    double t;
    const double *y;        /* the state (q, qd, W_drive, W_friction) */
    double T, V;            /* kinetic and potential energy, J */
    double w_drive, w_fric; /* work of the drives on the system, work taken by friction, J */
    double balance;         /* E(t) - E(0) - W_drive + W_friction, J: 0 up to the integrator */
    double closure; /* position closure residual after the projection (pkm_mbs_closure_residual) */
} pkm_fwd_record;

typedef pkm_status (*pkm_fwd_monitor)(const pkm_fwd_record *r, void *user, pkm_ctx *ctx);

/* nsteps RK4 steps (pkm/ode.h) of size h from t0, y (PKM_FWD_STATES(nq) doubles: q, qd
 * consistent with the closure, the two works, usually 0) overwritten with the final state; each
 * step followed by the projection, then the energy monitor (pkm_ode_monitor), which calls
 * `monitor` (NULL: none) with the record. Errors of the accelerations and the projection;
 * PKM_ERR_INVALID for a bad step. The run does not allocate. */
pkm_status pkm_fwd_run(pkm_fwd *f, double t0, double h, int nsteps, double *y,
                       pkm_fwd_monitor monitor, void *user, pkm_ctx *ctx);

/* Accelerations evaluated and passes of the friction loop since creation. */
void pkm_fwd_stats(const pkm_fwd *f, long *evals, long *passes);

#ifdef __cplusplus
}
#endif
#endif
