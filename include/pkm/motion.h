/* include/pkm/motion.h: the rigid motion of a case along a trajectory: its rigid-body model, the
 * closure followed from the configuration the model was built in, every body's motion; what the
 * rigid-body dynamics (pkmflex dynamics) and the elastodynamics (pkm/transient.h) share.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The model is the case's rigid-body model (pkm_case.build_rigid: the finite-element model's
 * bodies as rigid bodies, the joints the elastic model locks released, the actuated ones
 * flagged), built at pkm_case_rigid_pose. A pose sets it by one of three routes:
 *  - PKM_MOTION_PLATFORM, the generic one: the pose coordinates are coordinates of the platform
 *    (pkm_case.platform_names), the closure solves every leg (the inverse kinematics), and the
 *    actuated joints follow; a singular verdict is that of the inverse kinematics (the passive
 *    Jacobian's dimensionless conditioning below PKM_DYN_SINGULAR_IK), which is where the
 *    finite-element model cannot be built either;
 *  - PKM_MOTION_DRIVE: the case's drive gives the driven coordinates (an accelerator, or the only
 *    route where the pose is not a platform placement: the 5-PSS/UPU's UPU angles);
 *  - PKM_MOTION_POSE: the pose coordinates are model coordinates, of the same names (tree5,
 *    loop3) or those of pkm_case.driven_names (a robot file whose pose names joints, the cranes'
 *    modules), measured as the platform's from the build pose pkm_case_rigid_pose.
 * Whatever the route, the closure is followed: a pose farther from the last closed one than the
 * continuation's step (PKM_DYN_WALK_STEP of the size, PKM_DYN_WALK_ANGLE) is reached by
 * pkm_mbs_walk from it, so that a trajectory starting far from the build configuration stays on
 * its branch. */
#ifndef PKM_MOTION_H
#define PKM_MOTION_H

#include <stdint.h>

#include "pkm/cases.h"
#include "pkm/dynamics.h"
#include "pkm/trajectory.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pkm_motion_route {
    PKM_MOTION_AUTO = 0,     /* PLATFORM where the case names platform coordinates, else DRIVE
                                where it has a drive, else POSE */
    PKM_MOTION_PLATFORM = 1, /* the pose's platform coordinates driven (generic) */
    PKM_MOTION_DRIVE = 2,    /* the case's drive */
    PKM_MOTION_POSE = 3      /* the pose coordinates are model coordinates */
} pkm_motion_route;

typedef struct pkm_motion_opts {
    double gravity[3];      /* m/s^2, of the inverse dynamics */
    double singular;        /* closure conditioning threshold; 0: the route's default
                               (PKM_DYN_SINGULAR_IK for PLATFORM, else PKM_DYN_SINGULAR) */
    pkm_motion_route route; /* PKM_MOTION_AUTO by default */
    int warm_start;         /* pkm_mbs_set_warm_start */
} pkm_motion_opts;

typedef struct pkm_motion pkm_motion;

/* The rigid-body model of case c with params and its system under o (NULL: defaults). The route
 * asked for must exist (PKM_ERR_INVALID naming it); PKM_ERR_MODEL when the model lacks a
 * coordinate the route drives; the errors of build_rigid and pkm_mbs_create. */
pkm_status pkm_motion_create(const pkm_case *c, const void *params, const pkm_motion_opts *o,
                             pkm_motion **out, pkm_ctx *ctx);
void pkm_motion_destroy(pkm_motion **m);

const pkm_model *pkm_motion_model(const pkm_motion *m);
pkm_mbs *pkm_motion_mbs(pkm_motion *m);
pkm_motion_route pkm_motion_route_of(const pkm_motion *m);
/* The case and parameters m was created for (*params may be NULL to skip). */
const pkm_case *pkm_motion_case(const pkm_motion *m, const void **params);

/* The driven coordinates (pkm_mbs_driven's order) at a pose moving at pd, pdd: no closure. The
 * drive's errors (PKM_ERR_UNREACHABLE naming the leg). */
pkm_status pkm_motion_driven(const pkm_motion *m, const double *pose, const double *pd,
                             const double *pdd, double *q, double *qd, double *qdd, pkm_ctx *ctx);

/* The closure at time t (for messages) at a pose moving at pd, pdd, followed from the last closed
 * configuration (the build configuration at first) along the straight line of the driven
 * coordinates, or, on the drive's route where that fails, along the pose's (a drive that
 * prescribes coordinates other constraints set too: the chewing robot's); then
 * pkm_mbs_body_motion and pkm_mbs_inverse apply. Errors of pkm_motion_driven and pkm_mbs_walk /
 * pkm_mbs_kinematics (the first route's). */
pkm_status pkm_motion_at(pkm_motion *m, double t, const double *pose, const double *pd,
                         const double *pdd, pkm_ctx *ctx);

/* From the start of tr's span to t0 > that start: the closure followed along tr in steps of at
 * most step, at least PKM_MOTION_APPROACH_STEPS and at most PKM_MOTION_APPROACH_MAX of them, so
 * that a grid starting late stays on the branch of the trajectory's start (loop3 started at 14 s
 * from its reference configuration lands on another, singular, one). Nothing for t0 at the
 * start. The failure names the time. */
#define PKM_MOTION_APPROACH_STEPS 20
#define PKM_MOTION_APPROACH_MAX   100000
pkm_status pkm_motion_approach(pkm_motion *m, const pkm_trajectory *tr, double t0, double step,
                               pkm_ctx *ctx);

/* Back to the configuration the model was built in, at rest (the next pkm_motion_at walks from
 * there). */
void pkm_motion_reset(pkm_motion *m);

/* Every time t0 + k dt (k = 0 .. n - 1) of tr reachable, before anything is computed: the drive
 * at every time (DRIVE), or the closure followed over them and the motion reset (PLATFORM);
 * the first failure as PKM_ERR_UNREACHABLE naming the time. */
pkm_status pkm_motion_check(pkm_motion *m, const pkm_trajectory *tr, double t0, double dt,
                            int64_t n, pkm_ctx *ctx);

/* After pkm_motion_at: the dimensionless conditioning of the closure with the actuated joints
 * held (pkm_mbs_passive_conditioning at the closed configuration): what a locked robot's stiffness
 * loses near a singularity of its drives (a parallel singularity: f1 tends to 0 as it does). The
 * motion is left at rest at the pose. (At a pose with its finite-element model,
 * pkm_pose_conditioning.) */
pkm_status pkm_motion_locked_conditioning(pkm_motion *m, double *cond, pkm_ctx *ctx);

/* Below this conditioning of the locked closure a pose is near-singular: a locked five-bar's
 * f1 falls with it linearly near its parallel singularity (examples/fivebar.yaml: f1 = 1000 Hz x
 * pkm_pose_conditioning within 1.5 % from 2.3e-4 to 6.9e-3, 49 Hz at home at 0.12), so 1e-3 marks a
 * structure that kept about 2 % of its lowest frequency: what `modes` then reports is the
 * mechanism's near-free motion. */
#define PKM_NEAR_SINGULAR 1e-3

/* The largest |component| of a platform wrench (N, N m), constant or from a series: a million
 * tonnes-force, far beyond any load a robot model's linear elasticity means anything under, and
 * far below what overflows the solve (1e308 gave NaN rows). */
#define PKM_WRENCH_MAX 1e10

/* An external wrench on the platform at t (Fx, Fy, Fz in N, Mx, My, Mz in N m, global axes):
 * w0 plus, when series is not NULL, its six coordinates at t (held at its ends outside its
 * span). PKM_ERR_INVALID naming t and the component beyond PKM_WRENCH_MAX. */
pkm_status pkm_wrench_at(const double w0[6], const pkm_trajectory *series, double t, double w[6],
                         pkm_ctx *ctx);

/* pkm_wrench_at at every time t0 + k dt (k = 0 .. n - 1), before a run computes anything: its
 * first failure. */
pkm_status pkm_wrench_check(const double w0[6], const pkm_trajectory *series, double t0, double dt,
                            int64_t n, pkm_ctx *ctx);

/* The motion's system loaded by wrench w on the rigid model's platform at its reference point
 * (pkm_mbs_set_load, slot 1; the force at that point, which moves with the platform; slot 0 is
 * the case's own load, pkm_case_dynamics.load_force). PKM_ERR_INVALID when the model has no
 * platform. */
pkm_status pkm_motion_set_wrench(pkm_motion *m, const double w[6], pkm_ctx *ctx);

/* The locked closure's conditioning at a pose from the finite-element model fe built there alone
 * (pkm_mbs_passive_conditioning of fe's rigid-body system: its beams as rigid bodies, its
 * clamped joints held, else its actuated ones, and every joint coordinate with a stiffness, a
 * spring standing for a locked drive's clamp; q = 0 is the pose, closed): what `modes` prints
 * and a map stores per pose. No rigid model is walked there, so it depends on the pose only
 * (a map's poses: the same bits for any number of workers), and costs one SVD of the passive
 * Jacobian. Its rows are scaled by fe's size at the pose, so it differs from
 * pkm_motion_locked_conditioning (the build configuration's size) by the ratio of the sizes
 * where they differ: 1 to 10 % off the five-bar's and NaVARo's home, the same on the 3-RRR and
 * the Delta. NAN for a case without a rigid-body model. Errors of pkm_mbs_create. */
pkm_status pkm_pose_conditioning(const pkm_case *c, const pkm_model *fe, double *cond,
                                 pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
