/* include/pkm/dynamics.h: rigid-body kinematics and inverse dynamics of a pkm_model, closed
 * chains included, with every joint's reaction wrench.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The rigid multibody system of a model (docs/dynamics.md):
 *  - bodies: rigid bodies as they are; each beam body one rigid body with the mass, centre of
 *    mass and inertia tensor of its elements' consistent mass under rigid motion;
 *  - coordinates: every tree joint as 1-dof elementary screws (revolute 1 rotation, prismatic 1
 *    translation, helical 1 screw, universal 2 rotations (axis, then axis2), spherical 3
 *    rotations about the global x, y, z axes of the reference configuration, clamped none),
 *    massless frames between the screws of one joint; a platform gets a virtual floating joint
 *    from the ground (translations x, y, z, then rotations about x, y, z through its origin), so
 *    every joint attached to it is a cut. q = 0 is the configuration the model was built in; a
 *    coordinate's value is the motion of the joint's child relative to its parent (the body the
 *    tree reaches it from);
 *  - cuts (the topology's loop-closure joints) constrain the relative twist of their two bodies
 *    to the joint's free twists: 6 - nfree constraint rows each;
 *  - the model's point-on-plane constraints (pkm_model_add_plane: higher pairs, Cheng et al.
 *    2024) hold a point of a body on a plane fixed in the ground, through the point's reference
 *    position: one row each, n . (P - P0) = 0, whose multiplier is the plane's normal force.
 * All vectors in global axes, SI units. Twists (v, w) and wrenches (F, M) as in pkm/spatial.h.
 *
 * Reaction convention: the reaction of a joint is the wrench (force, moment about the joint's
 * current point) that the joint applies to its child: for a tree joint the body the tree enters
 * through it (what the parent side passes to the child's subtree: the subtree's inertial wrench
 * minus its weight minus the cut forces acting on it); for a cut, the body body_b of the joint
 * (body_a receives the opposite wrench). */
#ifndef PKM_DYNAMICS_H
#define PKM_DYNAMICS_H

#include "pkm/friction.h"
#include "pkm/model.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_mbs pkm_mbs;

/* Default singularity threshold: the kinematics stops with PKM_ERR_SINGULAR when the passive
 * Jacobian (made dimensionless: translation rows over the mechanism's size, then every column
 * to unit norm, so that the units of the coordinates do not count) has its smallest singular
 * value below this times its largest (a condition number above 200). At a dead point (a fold of
 * the closure) the smallest singular value falls like the square root of the distance, so the
 * threshold stops a drive some way before it: the three-loop chain of Guo et al. 2024 at crank
 * 1.576 rad, its dead point being
 * near 1.579 rad. A long chain of loops is ill-conditioned without any dead point (the ladder of
 * bench/dyn_bench.c passes this threshold near 100 loops): give it a smaller threshold. */
#define PKM_DYN_SINGULAR 5e-3

/* Rank of a constraint Jacobian: singular values below this times the largest are zero (planar
 * mechanisms modelled in 3-D have identically zero rows). */
#define PKM_DYN_RANK_TOL 1e-10

/* The rigid multibody system of m (which must outlive it and not change) under gravity (m/s^2).
 * The driven coordinates default to those of the actuated joints. PKM_ERR_MODEL naming the joint
 * when an actuated joint is a cut; errors of pkm_topology_create; PKM_ERR_NOMEM. */
pkm_status pkm_mbs_create(const pkm_model *m, const double gravity[3], pkm_mbs **out, pkm_ctx *ctx);
void pkm_mbs_destroy(pkm_mbs **s);

/* Number of coordinates, their names (the joint's name for a 1-coordinate joint, "name.1" ...
 * otherwise; "platform.x" ... "platform.rz" for the platform's floating joint). */
int pkm_mbs_coord_count(const pkm_mbs *s);
const char *pkm_mbs_coord_name(const pkm_mbs *s, int i);
/* The coordinates of model joint j: their number (0 for a cut or clamped joint), the first in
 * *first. */
int pkm_mbs_joint_coords(const pkm_mbs *s, int j, int *first);
/* Number of constraint rows of all cuts and planes. */
int pkm_mbs_constraint_count(const pkm_mbs *s);

/* Set the singularity threshold (0 < threshold < 1; PKM_DYN_SINGULAR by default). */
pkm_status pkm_mbs_set_singular(pkm_mbs *s, double threshold, pkm_ctx *ctx);

/* Nonzero: pkm_mbs_kinematics starts Newton from a second-order Taylor step of the last solved
 * state (default 0: from the last coordinates). Fewer Newton steps along a finely sampled
 * trajectory (the transient driver's), the same closure tolerance; the converged coordinates
 * then differ at the rounding level. */
void pkm_mbs_set_warm_start(pkm_mbs *s, int on);

/* How the closure kinematics and the inverse dynamics solve their linear systems:
 *  - PKM_DYN_SPARSE (default): the passive Jacobian's normal equations (Cp^T Cp, rows and
 *    columns scaled as for the conditioning check) factorised by CHOLMOD (symbolic analysis once
 *    per driven set, numeric factorisation per solve, iterative refinement on the sparse rows);
 *    the conditioning by inverse and power iteration on that factor; the cut wrenches the
 *    minimum-norm solution of Cp^T lambda = g_p through the same normal equations (unscaled
 *    rows), the drives from the actuated coordinates' equations. Work per sample linear in the
 *    mechanism's size for a chain of loops. It falls back to the dense path where it cannot give
 *    the dense path's answer: redundant actuation (the weighted minimum-norm drives), driven
 *    coordinates other than the actuated ones (inverse dynamics only), a passive Jacobian that
 *    loses rank or falls below the singularity threshold (the dense path then names the
 *    coordinate);
 *  - PKM_DYN_DENSE: LAPACK SVDs of the dense matrices (the reference; cubic in the size). */
typedef enum pkm_dyn_solver { PKM_DYN_SPARSE = 0, PKM_DYN_DENSE = 1 } pkm_dyn_solver;
pkm_status pkm_mbs_set_solver(pkm_mbs *s, pkm_dyn_solver solver, pkm_ctx *ctx);

/* The coordinates prescribed by the trajectory (n indices, distinct). PKM_ERR_INVALID. */
pkm_status pkm_mbs_set_driven(pkm_mbs *s, int n, const int *idx, pkm_ctx *ctx);
int pkm_mbs_driven(const pkm_mbs *s, const int **idx);

/* Kinematics at time t (for messages): the driven coordinates and their first two derivatives
 * given (in the order of pkm_mbs_driven), the passive ones solved from the loop closure: Newton
 * from the previous solution at position level, then linear solves for the rates and the
 * accelerations (least squares, minimum-norm where not unique; identically zero rows of planar
 * mechanisms drop out; sparse or dense: pkm_mbs_set_solver). PKM_ERR_SINGULAR naming t and the
 * worst-determined coordinate when the passive Jacobian's conditioning falls below the threshold or
 * Newton does not converge; PKM_ERR_INVALID when the driven coordinates leave passive ones free. */
pkm_status pkm_mbs_kinematics(pkm_mbs *s, double t, const double *qa, const double *qda,
                              const double *qdda, pkm_ctx *ctx);
/* The continuation of pkm_mbs_walk: steps of at most PKM_DYN_WALK_STEP of the mechanism's size
 * for a translation and PKM_DYN_WALK_ANGLE rad for a rotation, each closed by Newton from the
 * last; a step whose Newton fails is halved, at most PKM_DYN_WALK_HALVINGS times. A step of 5 %
 * of the size starts Newton well inside its quadratic basin for linkages whose links are a few
 * tenths of the size (the error of the first iterate is second order in the step). */
#define PKM_DYN_WALK_STEP     0.05
#define PKM_DYN_WALK_ANGLE    0.1
#define PKM_DYN_WALK_HALVINGS 10

/* The conditioning below which a closure driven by the pose coordinates of its platform (the
 * inverse kinematics: the legs' passive joints solved) is singular. Near a fold of the closure (a
 * stretched leg) the smallest singular value falls like the square root of the distance, so
 * 1e-7 lets a pose come within about 1e-14 of the size to the workspace's boundary, as the
 * finite-element models' inverse kinematics does, while Newton still has about 7 digits to gain
 * quadratically there: a pose where the finite-element model is built is not called singular. */
#define PKM_DYN_SINGULAR_IK 1e-7

/* From the current state to the driven values qa (in the order of pkm_mbs_driven), at rest: the
 * closure followed along the straight line of the driven coordinates (PKM_DYN_WALK_*), so that
 * the branch of the current configuration is kept. On failure *reached (if not NULL) is the share
 * of the path closed, and the error that of the last Newton (PKM_ERR_SINGULAR naming the
 * worst-determined coordinate, PKM_ERR_INVALID). The path runs from time t_from to t_to (for
 * the messages: a failure names the time of the point of the path where it failed). */
pkm_status pkm_mbs_walk(pkm_mbs *s, const double *qa, double t_from, double t_to, double *reached,
                        pkm_ctx *ctx);
/* The number of continuation steps pkm_mbs_walk takes from the current state to qa: the largest
 * move of a driven coordinate over its step, at least 1, at most 1e4. */
int pkm_mbs_walk_steps(const pkm_mbs *s, const double *qa);
/* The passive Jacobian's dimensionless conditioning (smallest singular value over the largest,
 * rows and columns scaled as for the singularity threshold) at the current state, the closure taken
 * as holding there (after pkm_mbs_set_state or a kinematics), without a solve: one SVD; NAN without
 * passive coordinates. PKM_ERR_SOLVER, PKM_ERR_NOMEM. */
pkm_status pkm_mbs_passive_conditioning(pkm_mbs *s, double *cond, pkm_ctx *ctx);

/* The mobility at the current configuration: the coordinates less the rank of the constraint
 * Jacobian C (rows made dimensionless as for the conditioning; singular values below
 * PKM_DYN_RANK_TOL times the largest are zero), every coordinate counted free (the driven set
 * plays no part). PKM_ERR_SOLVER if LAPACK fails, PKM_ERR_NOMEM. */
pkm_status pkm_mbs_mobility(pkm_mbs *s, int *mobility, pkm_ctx *ctx);

/* Set the whole state without closure (q, qd, qdd of every coordinate; NULL keeps). */
void pkm_mbs_set_state(pkm_mbs *s, const double *q, const double *qd, const double *qdd);
const double *pkm_mbs_q(const pkm_mbs *s);
const double *pkm_mbs_qd(const pkm_mbs *s);
const double *pkm_mbs_qdd(const pkm_mbs *s);

/* Closure residuals at the current state: position (m; rotation rows in rad), velocity. */
void pkm_mbs_closure_residual(const pkm_mbs *s, double *pos, double *vel);

/* Friction of every joint (pkm_model_joint_count entries, copied; NULL: none). Only the
 * joints with one coordinate (revolute, prismatic, helical, tree joints) have friction: its law
 * (pkm/friction.h) at the coordinate's rate under the normal load of the joint's reaction
 * components. PKM_ERR_INVALID from pkm_friction_check, naming the joint. */
pkm_status pkm_mbs_set_friction(pkm_mbs *s, const pkm_friction *fr, pkm_ctx *ctx);

/* External loads at once: a case's own (pkm_case_dynamics.load) and a run's wrench. */
#define PKM_MBS_LOADS 2

/* The external load in slot (0 .. PKM_MBS_LOADS - 1) on body b: force f (N) and moment n (N m),
 * global axes, the force acting at the point of the body that is at x in the reference
 * configuration and moves with it. It enters the equations of motion beside gravity
 * (pkm_mbs_inverse: the drives and joints carry it; the forward dynamics' bias), not
 * pkm_mbs_energy. b < 0 empties the slot. PKM_ERR_INVALID for another slot, a body that is not
 * a moving body of the model or a component not finite. */
pkm_status pkm_mbs_set_load(pkm_mbs *s, int slot, int b, const double f[3], const double n[3],
                            const double x[3], pkm_ctx *ctx);

/* A redundant actuation's preload: na drives (actuated joint order, N m or N) whose part in the
 * null space of the actuation map pkm_mbs_inverse adds to the drives (an internal load that
 * moves nothing; with weights, in the weighted metric); copied; NULL: none. PKM_ERR_INVALID for
 * a component not finite; PKM_ERR_NOMEM. A mechanism actuated without redundancy has no such
 * null space: its drives are unchanged. */
pkm_status pkm_mbs_set_preload(pkm_mbs *s, const double *p, pkm_ctx *ctx);

/* One joint's inverse-dynamics result. */
typedef struct pkm_joint_result {
    double wrench[6]; /* reaction (F, M about the joint's current point), global axes */
    double point[3];  /* the joint's current point */
    double axis[3];   /* its current (first) axis */
    int ncoord;       /* coordinates of the joint (0 for cuts and clamped joints) */
    double q[3], qd[3], qdd[3];
    double ideal;     /* 1-coordinate joints: the reaction's free-direction component (torque
                         about the axis, force along a prismatic axis, their power-conjugate
                         combination for a helical joint); 0 otherwise */
    double drive;     /* actuated: the drive (ideal + friction); passive: 0 */
    double friction;  /* friction force or torque (0 without friction) */
    double f_axial;   /* revolute, helical, universal: |force along the axis|; prismatic: |moment
                         about the axis| (what loads a guide); spherical, clamped: 0 */
    double f_radial;  /* |force normal to the axis|; spherical, clamped: |force| */
    double m_bending; /* |moment normal to the axis|; prismatic: the same; spherical: 0;
                         clamped: |moment| */
} pkm_joint_result;

/* Inverse dynamics at the current state (after pkm_mbs_kinematics or pkm_mbs_set_state): every
 * model joint's result in res[joint] (pkm_model_joint_count entries). The actuated coordinates'
 * drives and the cut wrenches solve, in the least-squares minimum-norm sense, the coordinates'
 * equations of motion (Guo et al. 2024, eq. 55 with the cut forces as unknowns, rebuilt for
 * spatial cuts): the cut forces are eliminated through the null space of the constraint
 * Jacobian, the drives take the minimum of sum(w_i tau_i^2) (weights w, one per actuated joint
 * in joint order, NULL for 1) when the actuation is redundant, then the cut wrenches the minimum
 * norm (out-of-plane components of a planar mechanism's cuts are 0). With friction
 * (pkm_mbs_set_friction) the friction of every joint enters its coordinate's equation as a load
 * (drive = ideal + friction); since the normal loads depend on the reactions, which in a closed
 * chain depend on the friction, the solve is repeated with the friction of the last reactions
 * until it changes by less than 1e-12 relative (a fixed point; in a tree, or with friction on
 * the drives of a non-redundant chain only, the reactions do not depend on the friction and two
 * passes suffice). PKM_ERR_SINGULAR when the system has no solution (the actuators cannot
 * produce the motion); PKM_ERR_NOCONV when the friction iteration does not settle. */
pkm_status pkm_mbs_inverse(pkm_mbs *s, const double *weights, pkm_joint_result *res, pkm_ctx *ctx);

/* After pkm_mbs_inverse: the largest residual of the equations of motion that its drives and
 * joint forces leave (N or N m; a least-squares solve's, at rounding when the actuators can
 * produce the motion). */
double pkm_mbs_residual(const pkm_mbs *s);

/* After pkm_mbs_inverse: the force with which model plane i pushes its point along the plane's
 * unit normal (N; negative: pulls); NaN for i not a plane of the model. */
double pkm_mbs_plane_force(const pkm_mbs *s, int i);

/* Joint-space mass matrix at the current q (nq x nq, row-major) and the bias h = M(q)qdd + h
 * with qdd = 0 (Coriolis, centrifugal and gravity generalised forces); either may be NULL. */
void pkm_mbs_mass_matrix(pkm_mbs *s, double *M, double *h);

/* Constraint Jacobian C (nc x nq, row-major: C qd = 0) and the acceleration bias gamma (C qdd +
 * gamma = 0) at the current state; either may be NULL. */
void pkm_mbs_constraints(const pkm_mbs *s, double *C, double *gamma);

/* Kinetic and potential energy (J) at the current state. */
void pkm_mbs_energy(const pkm_mbs *s, double *T, double *V);

/* The motion of body b at the current state (after pkm_mbs_kinematics or pkm_mbs_set_state):
 * its twist V and spatial acceleration A without gravity, referred to the global origin (v, w
 * order of pkm/spatial.h; Featherstone 2008, ch. 2). A point of the body at x moves at v + w x x
 * with the acceleration A_v + A_w x x + w x (v + w x x). Zero for a body on the ground. */
void pkm_mbs_body_motion(const pkm_mbs *s, int b, double V[6], double A[6]);

/* The rigid mass properties the system gives body b: mass (kg), centre of mass (m) and inertia
 * about it (kg m^2), global axes, reference configuration; the model's lumped masses on the body
 * included. */
void pkm_mbs_body_mass(const pkm_mbs *s, int b, double *mass, double com[3], double J[3][3]);

/* The displacement of body b from the reference configuration at the current state: a point
 * of the body at x there is at R x + p now (identity for a body on the ground). */
void pkm_mbs_body_displacement(const pkm_mbs *s, int b, double R[3][3], double p[3]);

#ifdef __cplusplus
}
#endif
#endif
