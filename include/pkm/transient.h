/* include/pkm/transient.h: elastodynamics of a case along a trajectory by the kineto-elastodynamic
 * (KED) method: the platform's elastic error over time.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Li et al. 2020, eq. 37: M(q) U'' + C U' + K(q) U = F - M(q) U''_r, the elastic displacements U
 * (the reduced coordinates of the finite-element pencil) about the rigid motion q(t) of the
 * trajectory, C = l1 M + l2 K, solved by Newmark's method (pkm/newmark.h). At every update the
 * case's finite-element model is built at the pose of the trajectory and reassembled (M(q),
 * K(q)); in between, and in the fixed-configuration mode throughout, the last model serves.
 *
 * The rigid motion (pkm/motion.h). The rigid-body model of the case (pkm_case.build_rigid: the
 * same bodies as the finite-element model, in the same order, with the joints the
 * finite-element model locks, e.g. NaVARo's clutches, the 5-PSS/UPU's motors, released) is moved
 * along the trajectory, its closure followed from the configuration it was built in, and its
 * kinematics gives every body's twist and acceleration analytically; a case with
 * pkm_case.body_motion (pss5upu) gives them from its inverse kinematics instead, which holds
 * where the closure is singular (the closure then serves the rigid-body drives only, NAN there).
 * Each node of the finite-element model moves with its body. For the 5-PSS/UPU's paper variant,
 * whose link is welded to the platform in the finite-element model, the rigid model moves the
 * link as the spherical variant's (from b_i to a_i, what the inverse kinematics places at every
 * pose), which is how the rebuilt finite-element model places it too.
 *
 * The loads, as nodal wrenches restricted to the reduced coordinates (f_red += P^T f, the dof
 * map): on every beam element -M_e (U''_r,e - g) over all of its 2 nodes' twist coordinates,
 * fixed ones included (M_e the element's consistent mass in global axes, U''_r,e its nodes' rigid
 * accelerations, their rotations the slopes of the rigid acceleration field along the element,
 * g the gravity as a uniform acceleration of the frame, when asked), with what the slopes leave
 * of the sections' angular momentum rate at the nodes; on every rigid body and every lumped mass
 * its inertial wrench and weight, -(m (a_c - g), J_c alpha + w x J_c w) moved from the centre of
 * mass. A quintic element's load covers its curvature coordinates too (zero curvature in a rigid
 * motion, but coupled to the translations through M_e), added directly to the element's
 * curvature coordinates of the dof map (pkm_transient_loads).
 *
 * The platform's elastic error: the displacement twist u = P U of the platform's origin node
 * (a rigid platform's origin; NaVARo's is the centre P where the links 5i meet): three
 * translations (m) and three small rotations (rad), global axes. Beside it the quasi-static
 * error of K(t)^-1 F(t). The drives are locked (the finite-element model's joints at the motors
 * as the case builds them: NaVARo's clutches clamped, the 5-PSS/UPU's screws clamped at the
 * motors) or elastic (elastic_drives); an external wrench may load the platform. Beside the error,
 * the rigid-body inverse dynamics' drive of each actuated joint and the elastic model's reaction at
 * each locked drive (pkm_transient_row.reaction). */
#ifndef PKM_TRANSIENT_H
#define PKM_TRANSIENT_H

#include "pkm/assembly.h"
#include "pkm/cases.h"
#include "pkm/motion.h"
#include "pkm/newmark.h"
#include "pkm/trajectory.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_transient_opts {
    pkm_newmark_opts nm; /* dt, Newmark / HHT parameters, Rayleigh l1, l2 */
    double duration;     /* s, at least one step */
    int update_every;    /* >= 1: M, K reassembled every that many steps; 0: fixed at the start */
    int gravity;         /* nonzero: the case's gravity (its dynamics.gravity) loads the model */
    int static_start;    /* nonzero: U(0) = K^-1 F(0), the quasi-static deflection at the start
                            (from rest: under the weight alone); 0: U(0) = 0 */
    pkm_formulation form;
    double singular; /* the rigid model's closure threshold; 0: the route's (pkm/motion.h) */
    /* Time of step 0, s, in the trajectory's span; NAN: the span's start. A later start is
     * reached by following the rigid closure from the span's start (where the rigid model is
     * built) in at least 20 steps, so that its Newton iteration stays on the assembly branch. */
    double start;
    /* Rayleigh damping from two damping ratios at two mode numbers (from 1) of the start pose's
     * pencil, when damping_mode[0] > 0 (pkm_rayleigh_from_modes): it replaces nm.l1, nm.l2. */
    int damping_mode[2];
    double damping_zeta[2];
    /* The lowest nfreq natural frequencies at every configuration update (0: none), from the
     * same M(q), K(q) that the step uses (pkm_modal_solve, ARPACK shift-invert). */
    int nfreq;
    /* An external wrench on the platform, at its reference point (the node of the error), global
     * axes: Fx, Fy, Fz (N), Mx, My, Mz (N m). The constant wrench, plus the six coordinates of
     * wrench_series at t when it is not NULL (a spline through the samples of a CSV file with the
     * header t,fx,fy,fz,mx,my,mz, pkm_trajectory_read_csv; outside its span, its end values). */
    double wrench[6];
    const pkm_trajectory *wrench_series;
    /* Nonzero: elastic drives. Each actuated joint's joint in the finite-element model (its
     * namesake, or the one pkm_case.drive_lock names) is a one-coordinate joint with a
     * stiffness (the case's drive spring: navaro clutch.k1 or k2, pss5upu motor.k), loaded by
     * the rigid-body inverse dynamics' drive (divided by the drive_lock ratio): the servo's
     * feed-forward, the spring its stiffness about the commanded motion. */
    int elastic_drives;
} pkm_transient_opts;

/* Defaults: Newmark 1/4, 1/2 at dt, no damping, update every step, no gravity, the case's
 * formulation, from the trajectory's start. */

pkm_transient_opts pkm_transient_opts_default(const pkm_case *c, double dt, double duration);

/* One time step's results. */
typedef struct pkm_transient_row {
    double t;                  /* s */
    int64_t step;              /* 0 .. nsteps */
    double error[6];           /* platform elastic error: ex, ey, ez (m), rx, ry, rz (rad) */
    double quasi_static[6];    /* the same of K^-1 F at t */
    pkm_newmark_energy energy; /* J */
    int updated;               /* M and K were reassembled at this step */
    /* The rigid-body inverse dynamics' drive of every actuated joint of the rigid model (joint
     * order; N or N m), under the run's gravity: the actuator force of the rigid motion, what a
     * locked drive supplies in the rigid limit. */
    int ndrive;
    const double *drive;
    /* The reaction at each locked drive (the same order; N m or N): the moment about (force
     * along) the joint's axis that the finite-element model's clamp at the actuated joint
     * exerts on its link, from the element equations of motion there; NAN where the
     * finite-element model does not lock that joint alone by a clamp of the same name (NaVARo:
     * clutch.locked = drive) or by the clamp pkm_case.drive_lock names (pss5upu: the screw's
     * motor, times the nut's ratio). In the rigid limit it equals drive[]. NAN drive[] where the
     * rigid closure is singular and the case's body_motion carries the run through. */
    const double *reaction;
    /* The lowest nfreq natural frequencies (Hz) of the pencil of the last update (at this step
     * when updated); nfreq = 0 without opts.nfreq. */
    int nfreq;
    const double *freq;
    double rayleigh[2]; /* the Rayleigh l1 (1/s), l2 (s) of the run */
    /* Elastic drives: each drive's deflection, the finite-element joint's coordinate (rad or m;
     * NULL with locked drives); reaction[] then holds the drive's force, the feed-forward less
     * the spring's k deflection, in the drive's units (drive - ratio k deflection). */
    const double *deflection;
    /* The locked closure's dimensionless conditioning (pkm_pose_conditioning) of the
     * finite-element model of the last update: below PKM_NEAR_SINGULAR the pose is near a
     * singularity, where the lowest modes are the mechanism's near-free motion; NaN where the
     * case has no rigid-body model. */
    double conditioning;
} pkm_transient_row;

/* The columns of a run's rows after t, described once for the command line's csv, json and
 * table and for Python (docs/transient.md, "Output columns"): ex, ey, ez (m), rx, ry, rz (rad),
 * the platform's elastic error; drive_J per actuated joint J of the rigid model (N or N m: the
 * reaction at the locked drive where the finite-element model has one, else the rigid-body
 * drive); with elastic drives defl_J (rad or m); f1 .. fN (Hz, nfreq of them); qs_ex .. qs_rz
 * (the quasi-static error); kinetic, strain, dissipated, work (J, the Newmark energies);
 * updated (1 where M and K were reassembled); conditioning (1, the locked closure's). */
#define PKM_TRANSIENT_COL_LEN (PKM_NAME_LEN + 8)
/* Column 6 + k (k < ndrive) is the prefix and the name of actuated joint k. */
#define PKM_TRANSIENT_DRIVE_PREFIX "drive_"
typedef struct pkm_transient_columns {
    int n;                               /* columns after t */
    int ndrive, elastic, nfreq;          /* the run's layout */
    pkm_column *col;                     /* n columns */
    char (*name)[PKM_TRANSIENT_COL_LEN]; /* the storage of their names */
} pkm_transient_columns;

/* The columns of a run of case c (its rigid model's actuated joints at home name the drives)
 * with elastic drives (nonzero) and nfreq >= 0 frequencies; the
 * errors of the rigid model's build; PKM_ERR_NOMEM. */
pkm_status pkm_transient_columns_create(const pkm_case *c, const void *params, int elastic,
                                        int nfreq, pkm_transient_columns **out, pkm_ctx *ctx);
void pkm_transient_columns_destroy(pkm_transient_columns **cols);

/* Row r's values in the order of cols (cols->n of them) into v; NaN where r lacks one (a
 * frequency beyond r->nfreq, a deflection of locked drives). */
void pkm_transient_row_values(const pkm_transient_columns *cols, const pkm_transient_row *r,
                              double *v);

/* Called with each row, step 0 included; a nonzero return stops the run (PKM_OK is returned). */
typedef int (*pkm_transient_sink)(void *user, const pkm_transient_row *row);

/* The loads of a rigid motion on finite-element model m (the nodal formulation's map, or the
 * tree's, pkm_dofmap_create): motion holds per body of m its twist V (the velocity of the body
 * point at the global origin, then the angular velocity) and its spatial acceleration A (the
 * same point's, then the angular acceleration), 12 values, global axes; g the gravity (m/s^2, a
 * uniform acceleration of the frame; NULL: none). On every beam element -M_e (U''_r,e - g) over
 * all of its coordinates (the curvature coordinates of quintic elements included; the nodes'
 * rotations the slopes of the rigid field) and the sections' spin and gyroscopic moments, on
 * every rigid body its inertial wrench and weight at its origin node, on every lumped mass the
 * same at its node: each body's load is minus the rate of its momentum plus its weight
 * (tests/test_studies_ked.c). fn receives the nodal wrenches
 * of the twist coordinates (6 per node), f (the map's order) the reduced load, P^T fn plus the
 * curvature loads. PKM_ERR_INVALID for a map of another model, PKM_ERR_MODEL for a beam whose
 * element is not spatial. */
pkm_status pkm_transient_loads(const pkm_model *m, const pkm_dofmap *map,
                               const double (*motion)[12], const double g[3], double *fn, double *f,
                               pkm_ctx *ctx);

/* Number of steps a run of opts takes: duration / dt rounded to the nearest integer. */
int64_t pkm_transient_steps(const pkm_transient_opts *o);

/* Integrates case c (params: its parameter struct) along tr from its start for opts->duration.
 * PKM_ERR_INVALID for options out of range (naming the option: dt, a duration shorter than one
 * step, update_every < 0), a trajectory of another number of coordinates, a wrench series of
 * other than 6, elastic drives where a drive's finite-element joint has no stiffness (naming
 * it), or a case without a finite-element or rigid-body model; PKM_ERR_UNREACHABLE naming the time
 * and the leg when the trajectory leaves the workspace; PKM_ERR_SINGULAR naming the time when the
 * rigid closure is singular (the 5-PSS/UPU's spherical variant at its centre); PKM_ERR_MODEL when
 * the two models' bodies differ; the errors of the assembly and of pkm_newmark. Every step's pose
 * is checked (reach, drive) before the first step is computed. */
pkm_status pkm_transient_run(const pkm_case *c, const void *params, const pkm_trajectory *tr,
                             const pkm_transient_opts *opts, pkm_transient_sink sink, void *user,
                             pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
