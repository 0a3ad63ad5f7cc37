/* include/pkm/chain.h: O(n) rigid-body dynamics of linearly actuated parallel-serial
 * manipulators: serial chains of 1-dof modules (revolute joint, prismatic joint, planar RRPR loop
 * driven by a linear actuator), after Paz Anaya and Mattila 2024 (arXiv:2403.08524).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Conventions (docs/chain.md):
 *  - every module has a base frame and an end frame; module i + 1's base frame is module i's end
 *    frame; module 0's base frame is the root pose in the world;
 *  - twists (v, w) and wrenches (F, M) as in pkm/spatial.h, but in the axes of a body-fixed frame
 *    and about its origin; a pose (R, r) is a child frame in its parent: r its origin, R its axes
 *    (child to parent);
 *  - a body's mass properties are in its own frame: centre of mass, inertia tensor about it;
 *  - each module has one coordinate q_i (rad for a revolute joint, m for a prismatic joint, the
 *    actuator stroke x for a loop) and one drive tau_i (N m or N);
 *  - gravity enters as the fictitious upward acceleration of the root, so every body wrench and
 *    every drive contains it.
 *
 * The loop module (the paper's sec. 2, Fig. 1): the base frame Bc holds the cylinder's pivot at
 * its origin and the upper link's pivot at (La, 0, 0); the upper link B1 (its frame at its pivot,
 * rotated by q1 about z) carries the rod pin Tc at (Lb, 0, 0) and, rigidly at Tc, the end frame
 * E; the barrel B3 turns by q11 about z at the origin; the rod B4 slides along the barrel's x,
 * its frame at c - lc from the pivot, with c = x + x0 the pin-to-pin length; the rod pin closes
 * the loop (relative rotation q12). */
#ifndef PKM_CHAIN_H
#define PKM_CHAIN_H

#include "pkm/model.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pkm_chain_type {
    PKM_CHAIN_REVOLUTE,  /* about the z axis of its joint frame */
    PKM_CHAIN_PRISMATIC, /* along the x axis of its joint frame */
    PKM_CHAIN_LOOP       /* RRPR loop driven by the stroke of its cylinder */
} pkm_chain_type;

/* A frame in its parent frame. */
typedef struct pkm_chain_pose {
    double R[3][3]; /* axes, child to parent */
    double r[3];    /* origin, m */
} pkm_chain_pose;

/* A rigid body in its own frame. */
typedef struct pkm_chain_body {
    double mass;          /* kg, >= 0 (0: no body) */
    double com[3];        /* centre of mass, m */
    double inertia[3][3]; /* about the centre of mass, kg m^2 */
} pkm_chain_body;

/* The body slots of a module; a serial module uses BASE, MOVING and END. */
enum {
    PKM_CHAIN_BASE,   /* fixed in the base frame (a loop's pillar Bc) */
    PKM_CHAIN_MOVING, /* the joint's body (serial) or the upper link B1 (loop) */
    PKM_CHAIN_END,    /* in the end frame, rigid on MOVING (E) */
    PKM_CHAIN_BARREL, /* loop: cylinder barrel B3 */
    PKM_CHAIN_ROD,    /* loop: rod and piston B4 */
    PKM_CHAIN_NBODY
};

#define PKM_CHAIN_NAME 32

typedef struct pkm_chain_module {
    char name[PKM_CHAIN_NAME]; /* the coordinate's name */
    pkm_chain_type type;
    double qmin, qmax;    /* range of the coordinate (a loop: the stroke) */
    pkm_chain_pose joint; /* serial: the joint frame in the base frame at q = 0 */
    pkm_chain_pose end;   /* the end frame: in the joint frame (serial), in Tc (loop) */
    double La, Lb;        /* loop: cylinder pivot to upper pivot, upper pivot to rod pin, m */
    double x0;            /* loop: pin-to-pin length at zero stroke, m */
    double lc;            /* loop: rod frame to rod pin, m */
    int sign[3];          /* loop: branch signs (+1 or -1) of q1, q11, q12 */
    pkm_chain_body body[PKM_CHAIN_NBODY];
} pkm_chain_module;

/* A chain holds the workspace of its passes (no allocation in inverse or forward dynamics):
 * one chain per thread. */
typedef struct pkm_chain pkm_chain;

/* Default singularity margin of the loops: the closure refuses |sin q1| < this (the paper's
 * existence condition after its eq. 5). */
#define PKM_CHAIN_SINGULAR 1e-2

/* A chain of n modules (copied) from the root pose in the world, under gravity (m/s^2, world
 * axes). PKM_ERR_INVALID naming the module for a bad type, range, length, branch sign or body
 * (negative mass, non-symmetric inertia); PKM_ERR_NOMEM. */
pkm_status pkm_chain_create(int n, const pkm_chain_module *mods, const pkm_chain_pose *root,
                            const double gravity[3], pkm_chain **out, pkm_ctx *ctx);
void pkm_chain_destroy(pkm_chain **c);

int pkm_chain_dof(const pkm_chain *c);
const pkm_chain_module *pkm_chain_module_get(const pkm_chain *c, int i);
/* Total mass of every body, kg. */
double pkm_chain_mass(const pkm_chain *c);
/* Set the singularity margin (0 < eps < 1). PKM_ERR_INVALID. */
pkm_status pkm_chain_set_singular(pkm_chain *c, double eps, pkm_ctx *ctx);

/* Closed-form kinematics of a loop module (Paz Anaya and Mattila 2024, eqs. 2, 5, 28; the
 * supplementary notes of Petrovic and Mattila 2022, eqs. 1-7, rebuilt): c = x + x0, the joint
 * angles q = (q1, q11, q12), their rates q' = a x' and accelerations q'' = a x'' + b. */
typedef struct pkm_chain_loop_state {
    double c, q[3], a[3], b[3];
} pkm_chain_loop_state;

/* PKM_ERR_UNREACHABLE naming the module when c is outside (|La - Lb|, La + Lb), PKM_ERR_SINGULAR
 * when |sin q1| < eps (both before any NaN could appear); PKM_ERR_INVALID if m is not a loop. */
pkm_status pkm_chain_loop_closure(const pkm_chain_module *m, double x, double xd, double eps,
                                  pkm_chain_loop_state *st, pkm_ctx *ctx);

/* World poses of every body frame at q: poses[PKM_CHAIN_NBODY * i + k] for body slot k of
 * module i (unused slots of a serial module get its base frame). Errors of the closure and
 * PKM_ERR_UNREACHABLE when a coordinate leaves its range. */
pkm_status pkm_chain_poses(pkm_chain *c, const double *q, pkm_chain_pose *poses, pkm_ctx *ctx);

/* One module's inverse-dynamics result. Body quantities in the body's frame, about its origin. */
typedef struct pkm_chain_loads {
    double V[PKM_CHAIN_NBODY][6]; /* twist */
    double A[PKM_CHAIN_NBODY][6]; /* acceleration, the root's upward gravity included */
    double F[PKM_CHAIN_NBODY][6]; /* inertial wrench I A - ad(V)^T I V; END: with the next module */
    double base[6];       /* wrench the module takes from its base (base frame, about its origin)
                             (eq. 15); the predecessor's end load */
    double pin_upper[6];  /* loop: base -> upper link at the q1 pin (B1 frame), eq. 13 rebuilt */
    double pin_barrel[6]; /* loop: base -> barrel at the q11 pin (B3 frame) */
    double slide[6];      /* loop: barrel -> rod (B4 frame): its x component is the drive */
    double pin_rod[6];    /* loop: rod -> upper link at the rod pin (Tc frame), in-plane force */
    double tau_closed;    /* loop: the drive by the closed form of eq. 61 (check); serial: tau */
} pkm_chain_loads;

/* Inverse dynamics, O(n): the drives tau (n) for coordinates q, rates qd, accelerations qdd;
 * loads (n entries, or NULL) the load set of every module. Errors of pkm_chain_poses. */
pkm_status pkm_chain_inverse(pkm_chain *c, const double *q, const double *qd, const double *qdd,
                             double *tau, pkm_chain_loads *loads, pkm_ctx *ctx);

/* Forward dynamics, O(n), the three passes of the paper's Algorithm 1: the accelerations qdd (n)
 * under the drives tau. Errors of pkm_chain_poses. */
pkm_status pkm_chain_forward(pkm_chain *c, const double *q, const double *qd, const double *tau,
                             double *qdd, pkm_ctx *ctx);

/* Actuator-space mass matrix M (n x n, row-major) at q: column j the drives of the unit
 * acceleration of coordinate j at rest without gravity (n inverse-dynamics calls). */
pkm_status pkm_chain_mass_matrix(pkm_chain *c, const double *q, double *M, pkm_ctx *ctx);

/* Static drives fs (n) holding q at rest against gravity, and their derivative dfs (n x n,
 * row-major, d fs_i / d q_j by central differences of step 1e-6 (m or rad), one-sided at the
 * range's ends; NULL: not computed): the gravity stiffness. */
pkm_status pkm_chain_gravity(pkm_chain *c, const double *q, double *fs, double *dfs, pkm_ctx *ctx);

/* Kinetic and potential energy (J) at (q, qd); potential zero at the world origin. */
pkm_status pkm_chain_energy(pkm_chain *c, const double *q, const double *qd, double *T, double *V,
                            pkm_ctx *ctx);

/* The same machine as a pkm_model at q (the reference configuration of the model): rigid bodies
 * (each module's bodies on one link merged), revolute and prismatic joints, the rod pins as cut
 * revolute joints, the loops' cylinders and the serial joints actuated. coord[3 i .. 3 i + 2]
 * receive module i's joints in the model (serial: its joint, -1, -1; loop: the q1 pin, the q11
 * pin, the cylinder). For reference solutions with the generic pkm_mbs (dense, O(n^3)). A base
 * body is allowed on module 0 only (it stays on the ground, where it does not move):
 * PKM_ERR_INVALID otherwise; errors of pkm_chain_poses and of the model. */
pkm_status pkm_chain_model(pkm_chain *c, const double *q, pkm_model **out, int *coord,
                           pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
