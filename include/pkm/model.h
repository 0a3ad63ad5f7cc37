/* include/pkm/model.h: the mechanism model: bodies, joints, platform. SI units, global axes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A mechanism is a set of bodies (flexible beams split into elements, rigid bodies) connected to
 * each other and to the ground by joints. One rigid body may be named the platform: the virtual
 * tree of Germain et al. 2015 (sec. 3) cuts it free, and the connected groups of bodies between
 * the ground and the platform are the legs. Joints are located at a point; each body must have a
 * node there (a beam: one of its polyline points; a rigid body: any point, attached rigidly). */
#ifndef PKM_MODEL_H
#define PKM_MODEL_H

#include "pkm/fem.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Body index of the fixed base in joint descriptions. */
#define PKM_GROUND (-1)

typedef enum pkm_joint_type {
    PKM_JOINT_CLAMPED = 0,   /* rigid connection, no relative motion */
    PKM_JOINT_REVOLUTE = 1,  /* relative rotation about axis */
    PKM_JOINT_PRISMATIC = 2, /* relative translation along axis */
    PKM_JOINT_SPHERICAL = 3, /* relative rotation about any axis */
    PKM_JOINT_UNIVERSAL = 4, /* relative rotations about axis and axis2 */
    PKM_JOINT_HELICAL = 5    /* screw motion about axis: translation pitch/(2 pi) per radian (a
                                lead screw's nut, Li et al. 2020, eq. 26) */
} pkm_joint_type;

/* The element a beam body is split into: an index into the element type table pkm_beam_types
 * (pkm/fem.h), whose entry the assembly reads (dofs per node, kernels); a beam body takes the
 * spatial entries (pkm_beam_type_spatial), and a new one is a table entry and a name here. The
 * virtual tree takes the entries with floating-frame kernels (cubic); the curvature coordinates
 * of the quintic are shared between the elements of a straight segment and split at kinks and at
 * nodes where a joint attaches. */
typedef enum pkm_beam_element {
    PKM_BEAM_CUBIC = 0,     /* 12-dof Euler-Bernoulli beam (Germain et al. 2015, eqs. 23-27) */
    PKM_BEAM_QUINTIC = 1,   /* 18-dof quintic-Hermite beam with curvature dofs (Li et al. 2020,
                               eqs. 1-7) */
    PKM_BEAM_QUINTIC_C0 = 2 /* the quintic field with the curvature dofs held at zero at every
                               node: the lead-screw element of Li et al. 2020, eq. 15, as printed
                               (it does not converge: about +9.5 % on every mode) */
} pkm_beam_element;

/* A flexible beam body along a polyline. Nodes are placed at every polyline point (the places
 * where joints may attach) and between them as the element counts ask. */
typedef struct pkm_beam_desc {
    const char *name;          /* for messages; copied */
    int npoints;               /* >= 2 */
    const double (*points)[3]; /* npoints positions, m */
    const int *nelem;          /* npoints - 1 element counts (>= 1), or NULL for one element each */
    double zref[3];            /* direction of the section's local z axis (need not be unit) */
    pkm_section section;
    pkm_material material;
    unsigned mass_flags;      /* PKM_FEM_ROTARY_INERTIA or 0 */
    pkm_beam_element element; /* PKM_BEAM_CUBIC (0) unless set */
    int end_curvature_zero;   /* quintic: nonzero holds the curvature dofs (both bending
                                 curvatures and the twist rate) at the beam's first and last node
                                 at zero (Li et al. 2020, eq. 9): exact at spherical ends, too
                                 stiff at clamped ones */
} pkm_beam_desc;

/* A rigid body; mass 0 is allowed (a massless connector, e.g. a platform whose mass is in the
 * beams attached to it). Its reference point is `origin`. */
typedef struct pkm_rigid_desc {
    const char *name;
    double origin[3];     /* reference point, m */
    double mass;          /* kg, >= 0 */
    double com[3];        /* centre of mass, m (global) */
    double inertia[3][3]; /* inertia tensor about the centre of mass, global axes, kg m^2 */
} pkm_rigid_desc;

/* Most free directions a joint has (a spherical joint: 3). */
#define PKM_JOINT_MAX_FREE 3

typedef struct pkm_joint_desc {
    const char *name;
    pkm_joint_type type;
    int body_a;      /* body index or PKM_GROUND */
    int body_b;      /* body index or PKM_GROUND (not both) */
    double point[3]; /* location, m */
    double axis[3];  /* revolute/prismatic/universal first axis (need not be unit) */
    double axis2[3]; /* universal second axis */
    double pitch;    /* helical: translation along axis per turn (the screw lead), m */
    int cut;         /* nonzero: open this joint in the virtual tree (a loop-closure joint) */
    int actuated;    /* nonzero: a drive acts on the joint's free coordinate (revolute, prismatic
                        and helical joints only); what the rigid-body inverse dynamics solves for */
    /* A spring on each free motion d_f (u_b = u_a + S d, the order of pkm_joint_free_twists):
     * N m/rad about a revolute, universal or spherical axis (a spherical joint's are the global
     * x, y, z), N/m along a prismatic axis, N m/rad on a helical joint's screw angle; 0: none.
     * A locked actuator given a stiffness is modelled this way: the joint free, the drive's
     * stiffness on its coordinate. The entries past the joint's free motions must be 0. */
    double stiffness[PKM_JOINT_MAX_FREE];
    /* An inertia on each free coordinate (kg m^2 on a rotation, kg on a translation): a clutch's
     * or a rotor's, turning with the joint's relative motion (a motor's rotor seen through its
     * gear is its inertia times the squared ratio); 0: none. The rigid-body model of dynamics/
     * takes it on revolute, prismatic and helical joints (a torque or force J d'' between the
     * two bodies; docs/dynamics.md). */
    double rotor_inertia[PKM_JOINT_MAX_FREE];
} pkm_joint_desc;

/* A spring between a joint's two bodies about (or along) a named axis, acting on the component
 * of their relative motion there: torsion about axis (N m/rad), or a linear spring along it
 * (N/m). The axis must carry some of the joint's free motions. */
typedef enum pkm_spring_kind { PKM_SPRING_TORSION = 0, PKM_SPRING_LINEAR = 1 } pkm_spring_kind;

/* A lumped mass at a joint: a point mass at the joint point and optionally a rotary inertia,
 * carried by one of the joint's two bodies (for the joint's free rotations to know which body
 * turns it). The rigid-body model of dynamics/ adds it to that body's mass properties. */
typedef struct pkm_mass_desc {
    const char *name;     /* for messages; copied */
    int joint;            /* the joint index */
    int side;             /* 0: carried by the joint's body_a, 1: by body_b (not the ground) */
    double mass;          /* kg, >= 0 */
    double inertia[3][3]; /* about the joint point, global axes, kg m^2, symmetric; 0: none */
} pkm_mass_desc;

/* A point-on-plane constraint (a higher pair linearised at the pose, Cheng et al. 2024): the
 * point of a body (a node of it, as for a joint) moves only in the plane through it of normal
 * `normal` (need not be unit), n^T u = 0 on the point's translation. The nodal formulation
 * eliminates it from the coordinates (assembly/nodal.c), so the pencil stays symmetric positive
 * definite; the tree formulation refuses it. */
typedef struct pkm_plane_desc {
    const char *name; /* for messages; copied */
    int body;
    double point[3], normal[3];
} pkm_plane_desc;

typedef struct pkm_model pkm_model;

pkm_status pkm_model_create(pkm_model **out, pkm_ctx *ctx);
void pkm_model_destroy(pkm_model **model);

/* Each add returns the new body/joint index in *id (may be NULL). Errors name the body or joint:
 * PKM_ERR_INVALID for bad properties (zero or negative section data ...), PKM_ERR_MODEL for bad
 * geometry (zero-length segment, joint point not on a node of its body, ...). */
pkm_status pkm_model_add_beam(pkm_model *m, const pkm_beam_desc *d, int *id, pkm_ctx *ctx);
pkm_status pkm_model_add_rigid(pkm_model *m, const pkm_rigid_desc *d, int *id, pkm_ctx *ctx);
pkm_status pkm_model_add_joint(pkm_model *m, const pkm_joint_desc *d, int *id, pkm_ctx *ctx);

/* Add a spring of stiffness k >= 0 between joint j's bodies about (torsion) or along (linear)
 * axis (need not be unit): the joint's stiffness on its free motions gains k e e^T, e_f the
 * component of free twist f about or along the unit axis. PKM_ERR_INVALID if the axis carries
 * none of the joint's free motions (a spring there would hold nothing). */
pkm_status pkm_model_add_joint_spring(pkm_model *m, int joint, pkm_spring_kind kind,
                                      const double axis[3], double k, pkm_ctx *ctx);

/* Add a lumped mass at a joint (pkm_mass_desc); its index in *id (may be NULL). */
pkm_status pkm_model_add_mass(pkm_model *m, const pkm_mass_desc *d, int *id, pkm_ctx *ctx);

/* Add a point-on-plane constraint (pkm_plane_desc); its index in *id (may be NULL): the point is
 * a node of a beam body or becomes an attachment node of a rigid body (as for a joint).
 * PKM_ERR_INVALID for a missing body or a zero or non-finite normal, PKM_ERR_MODEL for a point
 * that is not a node of a beam body. */
pkm_status pkm_model_add_plane(pkm_model *m, const pkm_plane_desc *d, int *id, pkm_ctx *ctx);

/* Name a rigid body as the platform (the body cut free in the virtual tree). */
pkm_status pkm_model_set_platform(pkm_model *m, int body, pkm_ctx *ctx);

int pkm_model_body_count(const pkm_model *m);
int pkm_model_node_count(const pkm_model *m);
int pkm_model_element_count(const pkm_model *m);
int pkm_model_joint_count(const pkm_model *m);
int pkm_model_mass_count(const pkm_model *m);
int pkm_model_plane_count(const pkm_model *m);
/* The platform's body index, -1 if none. */
int pkm_model_platform(const pkm_model *m);

/* Read-only views of a model's parts, for the assembly and the dynamics layers: valid until the
 * model is changed or destroyed; indices from 0 to the counts above minus 1. */

/* Longest body or joint name kept (with its terminating zero). */
#define PKM_NAME_LEN 64

typedef enum pkm_body_kind { PKM_BODY_BEAM, PKM_BODY_RIGID } pkm_body_kind;

typedef struct pkm_body {
    pkm_body_kind kind;
    char name[PKM_NAME_LEN];
    /* beam: nnodes consecutive nodes along the polyline from first_node; rigid: first_node is
     * the origin, attachment nodes (node.body == this body) may be anywhere after it */
    int first_node, nnodes;
    int first_elem, nelem; /* beam elements, node i to node i+1 of the body */
    double zref[3];
    pkm_section section;
    pkm_material material;
    unsigned mass_flags;
    pkm_beam_element element;
    int end_curvature_zero;
    double mass, com[3], inertia[3][3]; /* rigid */
} pkm_body;

typedef struct pkm_node {
    double x[3];
    int body;
} pkm_node;

typedef struct pkm_elem {
    int body;
    int n1, n2; /* global node indices, n2 = n1 + 1 */
} pkm_elem;

typedef struct pkm_joint {
    char name[PKM_NAME_LEN];
    pkm_joint_type type;
    int body[2]; /* body_a, body_b (PKM_GROUND allowed) */
    int node[2]; /* their nodes at the joint point, -1 for the ground */
    double point[3];
    double axis[3], axis2[3]; /* unit */
    double pitch;             /* helical: m per turn */
    int cut;
    int actuated;
    /* Stiffness on the joint's free motions d (nfree x nfree, symmetric): the diagonal of
     * pkm_joint_desc.stiffness plus the springs of pkm_model_add_joint_spring; zero beyond. */
    double stiffness[PKM_JOINT_MAX_FREE][PKM_JOINT_MAX_FREE];
    double rotor_inertia[PKM_JOINT_MAX_FREE]; /* on each free coordinate */
} pkm_joint;

typedef struct pkm_lumped_mass {
    char name[PKM_NAME_LEN];
    int joint, node; /* the joint, and the node of the body that carries the mass */
    double mass;
    double inertia[3][3]; /* about the node, global axes */
} pkm_lumped_mass;

const pkm_body *pkm_model_body(const pkm_model *m, int i);
const pkm_node *pkm_model_node(const pkm_model *m, int i);
const pkm_elem *pkm_model_elem(const pkm_model *m, int i);
const pkm_joint *pkm_model_joint(const pkm_model *m, int i);
typedef struct pkm_plane {
    char name[PKM_NAME_LEN];
    int node;         /* the constrained node */
    double normal[3]; /* unit */
} pkm_plane;

const pkm_lumped_mass *pkm_model_mass(const pkm_model *m, int i);
const pkm_plane *pkm_model_plane(const pkm_model *m, int i);

/* Free directions of a joint as twists (v at the joint point, then w), rows of S; returns their
 * number (0 for clamped, 3 for spherical). */
int pkm_joint_free_twists(const pkm_joint *j, double S[PKM_JOINT_MAX_FREE][6]);

#ifdef __cplusplus
}
#endif
#endif
