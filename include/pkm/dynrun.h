/* include/pkm/dynrun.h: the rigid-body inverse dynamics of a case along a trajectory (what
 * `pkmflex dynamics` prints): at each time of a grid, the closure followed there (pkm/motion.h)
 * and every joint's drive, reaction and friction (pkm_mbs_inverse), handed to a sink.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_DYNRUN_H
#define PKM_DYNRUN_H

#include <stdint.h>

#include "pkm/dynengine.h"
#include "pkm/motion.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_dynamics_opts {
    double t0, t1; /* the grid: n >= 2 times from t0 to t1 > t0, inside the trajectory's span */
    int n;
    double singular; /* the closure's threshold; 0: the route's (pkm/motion.h) */
    /* An external wrench on the platform at its reference point (global axes; N, N m): the
     * constant wrench plus wrench_series at t when not NULL (pkm_wrench_at), the drives and
     * joints carrying it (pkm_motion_set_wrench); zero and NULL: none, the motion's system left
     * as the caller loaded it. The inverse run only: the forward run refuses it (its energy
     * balance has no work of external loads). */
    double wrench[6];
    const pkm_trajectory *wrench_series;
    /* A redundant actuation's weights, one > 0 per actuated joint (joint order): the drives of
     * least sum w_i tau_i^2 (pkm_mbs_inverse); NULL: all 1. The inverse run only. */
    const double *weights;
    /* A redundant actuation's preload, one drive per actuated joint (pkm_mbs_set_preload: its
     * null-space part is added); NULL: none. The inverse run only. */
    const double *preload;
    /* 1: also the case's inertia quantities (pkm_case.extra; the chewing robot's M_A and MCI);
     * PKM_ERR_INVALID for a case that has none. */
    int inertia;
    /* The engine of the inverse run (pkm/dynengine.h), or NULL: mbs. mbs and mbs-dense solve the
     * motion's own system (its sparse or dense path); another engine (chain) takes the actuated
     * joints' coordinates from the pose, so the case must drive exactly its actuated joints, and
     * has none of the loads, friction, weights or preload it does not offer (PKM_ERR_INVALID
     * naming the engine and what it lacks); it solves its own kinematics, so its rows'
     * residual and conditioning are NaN. The forward run integrates the general system (mbs)
     * only. */
    const pkm_dyn_engine *engine;
    /* The forward run: the drives as a function of time (one column per actuated joint, joint
     * order; a spline through samples), or NULL: the inverse dynamics of the trajectory at
     * every stage time; and the largest RK4 step (s; 0: the grid's spacing), several steps
     * between the grid's times. */
    const pkm_trajectory *forces;
    double step;
} pkm_dynamics_opts;

/* One time of the run: every joint's result (pkm_model_joint_count(model) of them, joint order),
 * the pose (the case's npose coordinates) and the dimensionless conditioning of the closure with
 * the actuated joints held (pkm_motion_locked_conditioning; below PKM_NEAR_SINGULAR:
 * near a singularity of the drives). */
typedef struct pkm_dynamics_row {
    double t;
    int64_t step;           /* 0 .. n - 1 */
    const pkm_model *model; /* the rigid-body model (its joints' names and types) */
    const pkm_joint_result *joint;
    int npose; /* the case's pose coordinates */
    const double *pose;
    double conditioning;
    /* The force with which each point-on-plane constraint of the model pushes its point along
     * the plane's unit normal (N; pkm_mbs_plane_force), model plane order: a contact's normal
     * force (the chewing robot's condyles). */
    int nplane;
    const double *plane_force;
    double residual; /* of the equations of motion (pkm_mbs_residual), N or N m */
    /* The case's own per-time quantities (pkm_case.extra: nextra[o->inertia] of them). */
    int nextra;
    const double *extra;
} pkm_dynamics_row;

/* Nonzero stops the run (PKM_OK returned: what was handed over stands). */
typedef int (*pkm_dynamics_sink)(void *user, const pkm_dynamics_row *row);

/* The per-time table of an inverse run on m (what `pkmflex dynamics --per-time` prints, Python's
 * and the HDF5 file's per-time columns; docs/dynamics.md, "Output columns"): the case's pose
 * coordinates, each point-on-plane constraint's normal force (named as its plane), `residual`,
 * `conditioning`, then the case's own quantities (pkm_case.extra, with inertia the inertia
 * ones). Returns their count; cols (NULL to count) receives them. */
int pkm_dynamics_columns(const pkm_motion *m, int inertia, pkm_column *cols);

/* A row's values in the order of pkm_dynamics_columns (out: as many). */
void pkm_dynamics_row_values(const pkm_dynamics_row *row, double *out);

/* The friction of every joint of m (a case's rigid-body model; fr holds its joint count) as the
 * case's dynamics block gives it: its law on the joints it names, none elsewhere; the errors of
 * pkm_friction_check naming the joint. */
pkm_status pkm_dynamics_friction(const pkm_case *c, const void *params, const pkm_model *m,
                                 pkm_friction *fr, pkm_ctx *ctx);

/* The case's rigid motion for its dynamics: pkm_motion_create under the case's gravity, its
 * system carrying the case's friction (pkm_dynamics_friction); singular as pkm_motion_opts. */
pkm_status pkm_dynamics_motion_create(const pkm_case *c, const void *params, double singular,
                                      pkm_motion **out, pkm_ctx *ctx);

/* Whether the inverse run o on m can take o->engine (NULL, mbs, mbs-dense: always): the errors
 * of its accepts, PKM_ERR_INVALID naming what it lacks or that the case does not drive its
 * actuated joints. The run makes the same check before its first time. */
pkm_status pkm_dynamics_engine_check(pkm_motion *m, const pkm_dynamics_opts *o, pkm_ctx *ctx);

/* The engine an inverse run o on m takes by default: the first of the table (the fastest) that
 * accepts m's model, offers what o asks (loads, friction, weights) and, if it is not the motion's
 * own system, finds the actuated joints among the driven coordinates; mbs for every other. */
const pkm_dyn_engine *pkm_dynamics_engine_choose(pkm_motion *m, const pkm_dynamics_opts *o);

/* pkm_dynamics_run on a motion of pkm_dynamics_motion_create (the caller's, e.g. to size its
 * output by the model's joints first), followed from where it is. */
pkm_status pkm_dynamics_run_on(pkm_motion *m, const pkm_trajectory *tr, const pkm_dynamics_opts *o,
                               pkm_dynamics_sink sink, void *user, pkm_ctx *ctx);

/* The inverse dynamics of case c (params, its gravity and friction: pkm_case_dynamics_of) along
 * tr at the n times of o. Every time checked before the first is computed (PKM_ERR_INVALID for a
 * grid outside the span, PKM_ERR_UNREACHABLE naming the time); a grid starting after the span's
 * start is reached by following the closure from there (at least 20 steps, at most 1e5); then
 * PKM_ERR_SINGULAR (a dead point) or PKM_ERR_NOCONV (friction) naming the time. */
pkm_status pkm_dynamics_run(const pkm_case *c, const void *params, const pkm_trajectory *tr,
                            const pkm_dynamics_opts *o, pkm_dynamics_sink sink, void *user,
                            pkm_ctx *ctx);

/* One time of the forward run (docs/dynamics.md, "Forward dynamics"): the largest deviation of
 * the integrated coordinates from the trajectory's (rad or m), the energy balance E(t) - E(t0) -
 * W_drive + W_friction and the friction work (J); joint: the inverse dynamics of the trajectory
 * at t (the drives applied then), every joint's result as in pkm_dynamics_row. */
typedef struct pkm_dynamics_fwd_row {
    double t;
    int64_t step; /* 0 .. n - 1 */
    double deviation, balance, friction_work;
    const pkm_joint_result *joint;
} pkm_dynamics_fwd_row;

/* Nonzero stops the run (PKM_OK returned: what was handed over stands). */
typedef int (*pkm_dynamics_fwd_sink)(void *user, const pkm_dynamics_fwd_row *row);

/* The per-time table of a forward run: `deviation` (rad or m), `balance` (J), `friction_work`
 * (J), the row's values in that order. Returns 3; cols (NULL to count) receives them. */
int pkm_dynamics_fwd_columns(pkm_column *cols);

/* The forward dynamics of case c (its gravity and friction) on the motion m of
 * pkm_dynamics_motion_create: from the trajectory's state at o->t0, n - 1 RK4 steps of the grid's
 * spacing (pkm/forward.h) under the drives that the inverse dynamics of tr gives at every stage
 * time (m follows tr: its closure at the trajectory's pose); a row per time. The grid's checks
 * and the approach of pkm_dynamics_run_on first; then the errors of pkm_fwd_run naming the
 * time. */
pkm_status pkm_dynamics_forward_run_on(pkm_motion *m, const pkm_case *c, const void *params,
                                       const pkm_trajectory *tr, const pkm_dynamics_opts *o,
                                       pkm_dynamics_fwd_sink sink, void *user, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
