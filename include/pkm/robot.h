/* include/pkm/robot.h: a mechanism described by its topology and numbers (a robot file, the
 * format of docs/robot-files.md) rather than by a built-in case's C code: bodies, joints, the
 * platform, the pose coordinates, and the inverse kinematics solved numerically.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The description holds the mechanism in one configuration, its assembly configuration: every
 * body's geometry there, every joint's point and axes. A pose sets some of the platform's six
 * coordinates (position of its origin, and rotations Rx(rx) Ry(ry) Rz(rz) from its assembly
 * orientation); the rest of the configuration follows from the loop closure, solved by Newton on
 * the closure equations of the rigid-body model (include/pkm/dynamics.h: every beam moves as a
 * rigid body, the platform is cut free, each joint to it a loop closure) along the straight path
 * from the assembly configuration to the pose, so that the branch of the assembly configuration
 * is kept and the result does not depend on which pose was computed before. The finite-element
 * model at the pose is then built from the bodies moved rigidly. Fixed capacities (below) keep
 * the description one plain struct. */
#ifndef PKM_ROBOT_H
#define PKM_ROBOT_H

#include "pkm/assembly.h"
#include "pkm/cases.h"
#include "pkm/model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PKM_ROBOT_MAX_BODIES 64
#define PKM_ROBOT_MAX_JOINTS 128
#define PKM_ROBOT_MAX_POINTS 16 /* polyline points of one beam */
#define PKM_ROBOT_MAX_TRAJ   8  /* named trajectories */
#define PKM_ROBOT_MAX_MASSES 64 /* lumped masses */
#define PKM_ROBOT_MAX_EXTRA  64 /* springs on named axes, contacts */

/* The coordinates a pose may set: the platform's, or an actuated joint's (a description's pose
 * names either kind, not both). */
typedef enum pkm_robot_coord {
    PKM_ROBOT_X = 0, /* position of the platform's origin, m */
    PKM_ROBOT_Y,
    PKM_ROBOT_Z,
    PKM_ROBOT_RX, /* rotation from the assembly orientation, rad: R = Rx(rx) Ry(ry) Rz(rz) */
    PKM_ROBOT_RY,
    PKM_ROBOT_RZ,
    PKM_ROBOT_JOINT /* the coordinate of a revolute (rad) or prismatic (m) joint, pkm_robot's
                       pose_joint, from the assembly configuration (an open tree, a crank) */
} pkm_robot_coord;

/* A named trajectory of the pose coordinates (pkm_traj_desc, one pkm_traj_coord per pose
 * coordinate). */
typedef struct pkm_robot_traj {
    char name[PKM_NAME_LEN];
    char description[160];
    double duration; /* s, the default end time */
    pkm_traj_coord coord[PKM_POSE_MAX];
} pkm_robot_traj;

/* A lumped mass at a joint (pkm_mass_desc) in the assembly configuration: carried by the
 * joint's body_a (side 0) or body_b (1), inertia about the joint point in global axes. */
typedef struct pkm_robot_mass {
    char name[PKM_NAME_LEN];
    int joint, side;
    double mass, inertia[3][3];
} pkm_robot_mass;

/* A spring on a named axis of a joint (pkm_model_add_joint_spring), the axis in the assembly
 * configuration, turning with the joint's carrier. */
typedef struct pkm_robot_spring {
    int joint;
    pkm_spring_kind kind;
    double axis[3], k;
} pkm_robot_spring;

/* A point-on-plane contact (pkm_model_add_plane): a point of a body held in the plane through
 * it of the given normal (fixed in the ground), in the assembly configuration. */
typedef struct pkm_robot_contact {
    char name[PKM_NAME_LEN];
    int body;
    double point[3], normal[3];
} pkm_robot_contact;

/* One body: a beam along a polyline (pkm_beam_desc) or a rigid body (pkm_rigid_desc), in the
 * assembly configuration. */
typedef struct pkm_robot_body {
    char name[PKM_NAME_LEN];
    pkm_body_kind kind;
    /* beam */
    int npoints;
    double points[PKM_ROBOT_MAX_POINTS][3];
    int nelem[PKM_ROBOT_MAX_POINTS - 1];
    double zref[3];
    pkm_section section;
    pkm_material material;
    unsigned mass_flags;
    pkm_beam_element element;
    /* rigid */
    double origin[3], mass, com[3], inertia[3][3];
} pkm_robot_body;

/* One joint (pkm_joint_desc, name kept here), and whether the elastic model locks it. */
typedef struct pkm_robot_joint {
    char name[PKM_NAME_LEN];
    pkm_joint_desc d; /* d.name is set when a model is built */
    /* Free in the kinematics, clamped in the finite-element model (a locked motor, brake or
     * clutch) unless it has a stiffness, which then stands for the drive's (pkm_joint_desc). */
    int locked;
} pkm_robot_joint;

typedef struct pkm_robot {
    char name[PKM_NAME_LEN];
    char description[160];
    pkm_formulation formulation;
    int nbody, njoint;
    pkm_robot_body body[PKM_ROBOT_MAX_BODIES];
    pkm_robot_joint joint[PKM_ROBOT_MAX_JOINTS];
    int platform; /* body index; -1: none (the pose names joints) */
    int npose;
    char pose_name[PKM_POSE_MAX][PKM_NAME_LEN];
    pkm_robot_coord pose_coord[PKM_POSE_MAX];
    int pose_joint[PKM_POSE_MAX]; /* PKM_ROBOT_JOINT: the joint's index */
    double home[PKM_POSE_MAX];
    /* What the time domain needs (pkmflex dynamics, transient): gravity and friction, the
     * named trajectories (the first the default), lumped masses. */
    pkm_case_dynamics dynamics;
    int ntraj;
    pkm_robot_traj traj[PKM_ROBOT_MAX_TRAJ];
    int nmass;
    pkm_robot_mass mass[PKM_ROBOT_MAX_MASSES];
    int nspring, ncontact; /* springs on named axes (the elastic model's), contacts */
    pkm_robot_spring spring[PKM_ROBOT_MAX_EXTRA];
    pkm_robot_contact contact[PKM_ROBOT_MAX_EXTRA];
} pkm_robot;

/* r's dynamics block as a file without one has it: no gravity, no friction (and the friction
 * law's placeholder data). A description filled by hand calls it before setting its own. */
void pkm_robot_dynamics_defaults(pkm_robot *r);

/* The assembly configuration's value of coordinate kind k (the platform origin's position; 0 for
 * a rotation or a joint). */
double pkm_robot_assembly_value(const pkm_robot *r, pkm_robot_coord k);

/* The SI unit of r's pose coordinate k: "m" (a position, a prismatic joint) or "rad". */
const char *pkm_robot_pose_unit(const pkm_robot *r, int k);

/* Where every body is at pose (r->npose values): R[b], p[b] take a point of body b from the
 * assembly configuration to the pose (x -> R x + p). Errors: PKM_ERR_INVALID when the pose
 * coordinates leave the mechanism free (naming a coordinate) or are not finite;
 * PKM_ERR_UNREACHABLE when the loops cannot be closed on the way from the assembly
 * configuration (the pose is out of the workspace of that branch, or past a singularity), naming
 * the joint left most open, whose index goes to *bad_joint (-1 otherwise; bad_joint may be
 * NULL); PKM_ERR_MODEL from the model of the assembly configuration. */
pkm_status pkm_robot_solve(const pkm_robot *r, const double *pose, double R[][3][3], double p[][3],
                           int *bad_joint, pkm_ctx *ctx);

/* The finite-element model at pose (errors of pkm_robot_solve and of the model). */
pkm_status pkm_robot_build(const pkm_robot *r, const double *pose, pkm_model **out, pkm_ctx *ctx);

/* The rigid-body model at pose: the bodies moved as for pkm_robot_build, one element per beam
 * segment, every joint free as its type says (locked ones too), the actuated ones flagged. */
pkm_status pkm_robot_build_rigid(const pkm_robot *r, const double *pose, pkm_model **out,
                                 pkm_ctx *ctx);

/* The model of the assembly configuration as it is described, every joint free as its type says
 * (locked joints too) and one element per beam segment: the rigid-body model the kinematics
 * moves (its nodes at the polyline points, where the joints are). */
pkm_status pkm_robot_build_assembly(const pkm_robot *r, pkm_model **out, pkm_ctx *ctx);

/* The mobility of r's mechanism (pkm_mbs_mobility of the rigid model at the assembly
 * configuration, every joint free as its type says): how many pose coordinates it can take at
 * most. Errors of the model and of pkm_mbs_create. */
pkm_status pkm_robot_mobility(const pkm_robot *r, int *mobility, pkm_ctx *ctx);

/* A case (include/pkm/cases.h) made of r: *c and *params are one allocation that
 * pkm_case_params_destroy(params) frees (c with it); c->name is r->name, its pose coordinates
 * r's, its build pkm_robot_build (analyses PKM_CASE_MODAL where r has an elastic model: a beam, a
 * spring on a named axis or a joint stiffness; rigid bodies on free joints have none); with an
 * actuated joint also its rigid-body model (pkm_robot_build_rigid, at the assembly
 * configuration, driven by the platform's coordinates, pkm_case.platform_names, or by the
 * joints' the pose names, pkm_case.driven_names without a drive), gravity, friction and
 * trajectories. Its parameter table holds the dynamics block (gravity.x ... friction.joints).
 * source names the file in messages. */
pkm_status pkm_robot_case_create(const pkm_robot *r, const char *source, const pkm_case **c,
                                 void **params, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
