/* include/pkm/cases.h: built-in robots, each built only through the public model API, and the
 * parameter tables that make their numbers settable by name (--set, case files).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * How a case is declared (cases/navaro.c is the example to copy):
 *  1. Its parameters are a plain struct (pkm_navaro_params): every number the model needs, in SI.
 *     The C file holds only topology and kinematics (joint layout, base angles); it has no
 *     default values.
 *  2. A table of pkm_param_desc, one entry per parameter, built with PKM_PARAM_DOUBLE / _INT /
 *     _ENUM: dotted key, field offset, SI unit, range (one of pkm_range_*, below), help line.
 *     The key "leg.A" is written `leg: {A: ...}` in a case file and `--set leg.A=...` on the
 *     command line.
 *  3. cases/<name>.yaml: a case file (format in include/pkm/casefile.h) that sets EVERY
 *     parameter of the table, with comments citing the source of each number. CMake embeds its
 *     bytes at build time (pkm_embed_text in cases/CMakeLists.txt, cmake/PkmEmbed.cmake) as
 *     `const unsigned char pkm_<name>_yaml[]`, declared in cases/cases_impl.h, so the defaults
 *     travel with the binary. pkm_case_params_create (casefile.h) parses this text; a built-in
 *     whose text misses a parameter of its table fails there, naming the parameter.
 *  4. A pkm_case with .params/.nparams = the table, .yaml = the embedded text, .yaml_name = its
 *     source path, added to the registry list in cases/registry.c.
 *  5. What it supports (.analyses): a finite-element model (modes, map, compare) and/or a
 *     rigid-body model (dynamics). The latter needs .build_rigid (the model with its actuated
 *     joints flagged), a pkm_case_dynamics field `dynamics` in the parameter struct with its
 *     table entries (PKM_CASE_DYNAMICS in cases/cases_impl.h) and .dynamics_offset, and at least
 *     one named trajectory (.traj, .ntraj). docs/cases/rigid-bodies.md describes those of the
 *     built-in cases.
 * A mechanism that a robot file can describe needs no C: cases/tree5.yaml and cases/loop3.yaml
 * are robot files (docs/robot-files.md) embedded in the io layer (io/CMakeLists.txt) and
 * registered by name in io/case_registry.c (pkm_case_names, pkm_case_open in casefile.h). */
#ifndef PKM_CASES_H
#define PKM_CASES_H

#include <stddef.h>

#include "pkm/assembly.h"
#include "pkm/friction.h"
#include "pkm/model.h"
#include "pkm/trajectory.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a parameter's field holds. */
typedef enum pkm_param_kind {
    PKM_PARAM_DOUBLE, /* double, a quantity in the entry's SI unit */
    PKM_PARAM_INT,    /* int, a plain integer */
    PKM_PARAM_ENUM    /* unsigned, given by one of the entry's choice names */
} pkm_param_kind;

/* One name of an enumerated parameter and the value it stores. */
typedef struct pkm_param_choice {
    const char *name;
    unsigned value;
} pkm_param_choice;

/* The closed interval a DOUBLE or INT parameter must lie in, in its SI unit, and why. The
 * bounds are wide (they admit any plausible robot, and limit studies such as E = 1e15 Pa) but
 * finite, so that the products and powers of the assembly (E I / h^3 with h down to 1/4096 of a
 * micrometre, rho A h) stay between 1e-30 and 1e60, far inside the range of a double: a value
 * such as 1e300 m^2 would overflow to inf in K and make LAPACK stop the process (issue 8). */
typedef struct pkm_param_range {
    double min, max;
    const char *why; /* for --help and messages, e.g. "sections of 1 um to 10 m side" */
} pkm_param_range;

extern const pkm_param_range pkm_range_length;          /* m: 1e-6 .. 1e3 */
extern const pkm_param_range pkm_range_area;            /* m^2: 1e-12 .. 1e2 */
extern const pkm_param_range pkm_range_moment;          /* m^4 (second moment): 1e-26 .. 1e4 */
extern const pkm_param_range pkm_range_modulus;         /* Pa (E, G): 1e3 .. 1e18 */
extern const pkm_param_range pkm_range_density;         /* kg/m^3: 0.1 .. 1e5 */
extern const pkm_param_range pkm_range_mass;            /* kg: 0 .. 1e6 */
extern const pkm_param_range pkm_range_inertia;         /* kg m^2: 0 .. 1e6 */
extern const pkm_param_range pkm_range_joint_stiffness; /* N m/rad or N/m: 0 (locked) .. 1e12 */
extern const pkm_param_range pkm_range_angle;           /* rad: -4 pi .. 4 pi */
extern const pkm_param_range pkm_range_elements;     /* elements per link or segment: 1 .. 4096 */
extern const pkm_param_range pkm_range_position;     /* m, a signed coordinate: -1e3 .. 1e3 */
extern const pkm_param_range pkm_range_acceleration; /* m/s^2, a signed component: -1e4 .. 1e4 */
extern const pkm_param_range pkm_range_friction;     /* friction coefficient: 0 .. 10 */
extern const pkm_param_range pkm_range_load;         /* N, a signed component: -1e10 .. 1e10 */
extern const pkm_param_range pkm_range_viscous;      /* N m s/rad or N s/m: 0 .. 1e6 */
extern const pkm_param_range pkm_range_velocity;     /* rad/s or m/s, > 0: 1e-9 .. 1e3 */
extern const pkm_param_range pkm_range_exponent;     /* Stribeck exponent: 0.1 .. 10 */

/* One settable parameter of a case's parameter struct. */
typedef struct pkm_param_desc {
    const char *key;                 /* dotted name, e.g. "leg.A" */
    pkm_param_kind kind;             /* type of the field at offset */
    size_t offset;                   /* offsetof(params struct, field) */
    const char *unit;                /* DOUBLE: SI unit (see pkm_quantity_parse); else "" */
    const pkm_param_range *range;    /* DOUBLE, INT: the values allowed; ENUM: NULL */
    const char *help;                /* one line for --help */
    const pkm_param_choice *choices; /* ENUM: the names, ended by {NULL, 0}; else NULL */
} pkm_param_desc;

#define PKM_PARAM_DOUBLE(type, key, field, unit, range, help)                                      \
    {                                                                                              \
        (key), PKM_PARAM_DOUBLE, offsetof(type, field), (unit), &(range), (help), NULL             \
    }
#define PKM_PARAM_INT(type, key, field, range, help)                                               \
    {                                                                                              \
        (key), PKM_PARAM_INT, offsetof(type, field), "", &(range), (help), NULL                    \
    }
#define PKM_PARAM_ENUM(type, key, field, choices, help)                                            \
    {                                                                                              \
        (key), PKM_PARAM_ENUM, offsetof(type, field), "", NULL, (help), (choices)                  \
    }

/* Parse a quantity: a finite decimal number in the SI unit `unit`, or a number followed by a
 * unit of the same dimension ("210 mm" for unit "m" gives 0.21). Units known:
 *   m: m, cm, mm                    m^2: m^2, cm^2, mm^2           m^4: m^4, cm^4, mm^4
 *   Pa: Pa, kPa, MPa, GPa, N/mm^2   kg: kg, g                      kg/m^3: kg/m^3, g/cm^3
 *   kg m^2: kg m^2, g cm^2, kg mm^2, g mm^2                        N: N
 *   rad: rad, deg                   N/m: N/m, N/mm
 *   N m/rad: N m/rad, N m/deg       m/s^2: m/s^2, mm/s^2           rad/s: rad/s, deg/s
 *   m/s: m/s, mm/s                  N m s/rad: N m s/rad           N s/m: N s/m
 *   "": a pure number, no unit allowed
 * ('*' may stand for the space of a product: "kg*m^2"). Decimal prefixes shift the decimal
 * exponent before rounding, so "210 mm" is exactly the double nearest 0.21. PKM_ERR_INVALID
 * with a message naming the text and the expected unit: not a number, unknown unit, unit of
 * another dimension, or an unknown SI unit in `unit` itself. */
pkm_status pkm_quantity_parse(const char *text, const char *unit, double *value, pkm_ctx *ctx);

/* What a rigid-body dynamics run needs from a case besides its model: gravity and the joints'
 * friction (Guo et al. 2024, eqs. 40-42, 47 and 52; include/pkm/friction.h has the laws). Every
 * case's parameter struct holds one, named `dynamics` in its table (PKM_CASE_DYNAMICS_PARAMS in
 * cases/cases_impl.h) and reached through pkm_case.dynamics_offset. */
typedef enum pkm_case_friction_joints {
    PKM_CASE_FRICTION_ALL = 0,     /* every revolute, prismatic and helical joint, cuts included */
    PKM_CASE_FRICTION_ACTUATED = 1 /* the actuated joints only */
} pkm_case_friction_joints;

typedef struct pkm_case_dynamics {
    double gravity[3];        /* m/s^2, global axes */
    unsigned friction_model;  /* a pkm_friction_model (none, coulomb-viscous, stribeck) */
    double kc, kv, ks, vs;    /* Coulomb and static coefficients (pure numbers), viscous
                                 coefficient (N m s/rad or N s/m), Stribeck velocity (rad/s or m/s) */
    double delta;             /* Stribeck exponent */
    double rp, rn, rb;        /* pin radius, axial friction arm, bending arm, m */
    unsigned friction_joints; /* a pkm_case_friction_joints */
    /* A constant force on the rigid model's platform (N, global axes) acting at load_point (m:
     * the platform's point there at the configuration the rigid model is built in, moving with
     * it): a process force, a payload's push, the chewing robot's bite. 0: none. The rigid-body
     * dynamics carries it (pkm_dynamics_motion_create); the elastodynamics refuses a case with
     * one (its wrench is pkm_transient_opts.wrench). */
    double load_force[3], load_point[3];
} pkm_case_dynamics;

/* NaVARo, the 3-dof planar parallel robot of Germain et al. 2015, sec. 5, with the printed data
 * read as the Cast3M model of their Table 3 requires (see cases/navaro/README.md). The values
 * are in cases/navaro.yaml (the built-in defaults). */
typedef struct pkm_navaro_params {
    double base_radius;     /* |O A_i|, m (base triangle side 0.700 m) */
    double link_length;     /* |A_i D_i| = |D_i E_i| = rhombus side, m */
    double platform_radius; /* |P E_i|, m */
    pkm_material material;
    pkm_section leg_section;      /* links 1i-4i */
    pkm_section platform_section; /* links 5i (E_i P) */
    int elements_per_link;        /* beam elements per link; link 4i (C-D-E) gets twice as many */
    unsigned mass_flags;          /* PKM_FEM_ROTARY_INERTIA or 0 */
    unsigned drive;               /* a pkm_navaro_drive: the rigid-body model's actuated joints */
    pkm_case_dynamics dynamics;
    /* Germain et al. 2015, sec. 5.3: the clutches' elasticity about z at A_i, N m/rad, between
     * the base and link 1i (A_iD_i, [0]) and link 2i (A_iB_i, [1]); 0: the clutch locked (the
     * link clamped, as for Table 3). */
    double clutch_k[2];
    /* Which clutches the finite-element model locks (a pkm_navaro_locked): both (Table 3), or
     * only the driven link's (drive), the other link turning freely about z at A_i as in the
     * rigid-body model: the locked-drive model whose reaction at A_i is the motor's torque. */
    unsigned clutch_locked;
    /* Point masses at the joints B_i, C_i, D_i, E_i of every leg and at P (one), kg; 0: none. */
    double joint_mass[5];
} pkm_navaro_params;

/* Which link the motor at A_i drives through its clutch (Germain et al. 2015, sec. 5: each leg's
 * motor drives link 1i or link 2i). The finite-element model has both clutches locked (both
 * links clamped at A_i, what Table 3 was computed with); the rigid-body model releases them:
 * revolute joints A1i, A2i about z, the driven one actuated. */
typedef enum pkm_navaro_drive {
    PKM_NAVARO_DRIVE_LINK1 = 0, /* link 1i = A_iD_i, joint A1i */
    PKM_NAVARO_DRIVE_LINK2 = 1  /* link 2i = A_iB_i, joint A2i */
} pkm_navaro_drive;

/* The clutches the finite-element model locks (pkm_navaro_params.clutch_locked). */
typedef enum pkm_navaro_locked {
    PKM_NAVARO_LOCKED_BOTH = 0, /* links 1i and 2i clamped at A_i (Table 3) */
    PKM_NAVARO_LOCKED_DRIVE = 1 /* only the link of drive clamped, the other revolute about z */
} pkm_navaro_locked;

/* Joint positions of leg i (0..2) at pose (x, y, theta) [m, m, rad]: A, B, C, D, E (m, z = 0).
 * PKM_ERR_UNREACHABLE (naming the leg and the distance |A_i E_i|) when the leg cannot reach. */
pkm_status pkm_navaro_leg_points(const pkm_navaro_params *p, const double pose[3], int leg,
                                 double pts[5][3], pkm_ctx *ctx);

/* The mechanism at pose (x, y, theta): beams and joints of Germain et al. 2015, Fig. 3, the
 * clutches locked (links 1i and 2i clamped at A_i). */
pkm_status pkm_navaro_build(const pkm_navaro_params *p, const double pose[3], pkm_model **out,
                            pkm_ctx *ctx);

/* The same mechanism for the rigid-body dynamics: the joints A1i, A2i at A_i revolute about z,
 * the one of p->drive actuated. */
pkm_status pkm_navaro_build_rigid(const pkm_navaro_params *p, const double pose[3], pkm_model **out,
                                  pkm_ctx *ctx);

/* The 5-PSS/UPU parallel mechanism of Li et al. 2020 (Chin. J. Mech. Eng. 33): five legs, each a
 * slider driven along an inclined rail by a lead screw (P), a link with spherical joints at both
 * ends (S-S), and a central U-P-U chain that keeps the platform from turning about its normal.
 * Pose (x, y, z, alpha, beta) [m, m, m, rad, rad], z relative to the home height h0. The paper
 * leaves most of the geometry out; every value is a field below, set in cases/pss5upu.yaml with
 * its source or the reason for the choice (docs/cases/pss5upu.md). */
#define PKM_PSS5UPU_LEGS 5

typedef enum pkm_pss5upu_variant {
    /* As the paper writes it: link spherical at the slider, welded to the platform (Li et al.
     * 2020, eq. 25: the rotations at a_i are the platform's). */
    PKM_PSS5UPU_PAPER = 0,
    /* What the drawing shows: spherical at both ends (a universal joint at the slider stands in
     * for the spherical joint there, so that the link cannot spin about its own axis, an idle
     * motion at 0 Hz). A regular layout is singular at its centre. */
    PKM_PSS5UPU_SPHERICAL = 1
} pkm_pss5upu_variant;

typedef enum pkm_pss5upu_upu {
    PKM_PSS5UPU_UPU_NONE = 0,  /* no central chain (Li et al. 2020, eq. 38 has no UPU term) */
    PKM_PSS5UPU_UPU_RIGID = 1, /* rigid massless bodies, ideal joints, P passive: the chain
                                  removes only the turn about the platform normal */
    PKM_PSS5UPU_UPU_LOCKED = 2 /* as RIGID with the P joint locked: a rigid U-U strut, which also
                                  fixes the distance from the base centre to the platform centre */
} pkm_pss5upu_upu;

typedef enum pkm_pss5upu_screw_end {
    PKM_PSS5UPU_SCREW_FREE = 0,     /* far end of the screw free */
    PKM_PSS5UPU_SCREW_SUPPORTED = 1 /* far end in a floating bearing: held across the screw,
                                       free along it and in rotation (Li et al. 2020, eq. 13) */
} pkm_pss5upu_screw_end;

/* The link mesh of one variant: the welded link of the paper and the pinned link of the drawing
 * call for different meshes, so each variant has its own. */
typedef struct pkm_pss5upu_link_mesh {
    int nelem;                   /* elements per link */
    unsigned end_curvature_zero; /* quintic: 1 holds the curvatures at both link ends at zero
                                    (Li et al. 2020, eq. 9), 0 leaves them free */
} pkm_pss5upu_link_mesh;

typedef struct pkm_pss5upu_params {
    double base_radius;                      /* R = |O B_i|, m */
    double platform_radius;                  /* r = |p a_i| in the platform, m */
    double base_angle[PKM_PSS5UPU_LEGS];     /* angle of B_i about z from x, rad */
    double platform_angle[PKM_PSS5UPU_LEGS]; /* angle of a_i about the platform z, rad */
    double rail_angle;  /* rail inclination to the base plane, rising towards the centre, rad */
    double travel;      /* slider travel along the rail from B_i, m; also the screw's length */
    double home_travel; /* slider travel at the home pose (sets the home height h0), m */
    double link_length; /* |a_i b_i|, m */
    pkm_section link_section;
    pkm_material link_material;
    unsigned link_element;              /* a pkm_beam_element */
    pkm_pss5upu_link_mesh link_mesh[2]; /* indexed by pkm_pss5upu_variant */
    pkm_section screw_section;
    pkm_material screw_material;
    unsigned screw_element;     /* a pkm_beam_element */
    int screw_nelem;            /* elements between the motor end and the nut, and again
                                   between the nut and the far end */
    double screw_lead;          /* slider travel per screw turn, m */
    unsigned screw_end;         /* a pkm_pss5upu_screw_end */
    double slider_mass;         /* kg; a point mass, the rail holds its turns */
    double platform_mass;       /* kg */
    double platform_inertia[3]; /* about the platform centre, platform axes, kg m^2 */
    unsigned mass_flags;        /* PKM_FEM_ROTARY_INERTIA or 0, links and screws */
    unsigned variant;           /* a pkm_pss5upu_variant */
    unsigned upu;               /* a pkm_pss5upu_upu */
    pkm_case_dynamics dynamics;
    /* The drive at the motor end of each screw: its torsional stiffness about the screw, N m/rad
     * (0: locked, the screw clamped there, the paper's model), and with a stiffness the rotor's
     * inertia on that turn, kg m^2. */
    double motor_k, motor_inertia;
} pkm_pss5upu_params;

/* Joint positions and actuator travels of one pose. */
typedef struct pkm_pss5upu_geometry {
    double h0;        /* home height of the platform centre above the base plane, m */
    double centre[3]; /* platform centre p, m */
    double rot[3][3]; /* platform orientation: columns are the platform axes, global */
    double upu_q1;    /* UPU base joint angle about x, rad */
    double base[PKM_PSS5UPU_LEGS][3];           /* B_i, motor end of rail i, m */
    double rail[PKM_PSS5UPU_LEGS][3];           /* unit direction of rail i */
    double s[PKM_PSS5UPU_LEGS];                 /* slider travel, m */
    double slider[PKM_PSS5UPU_LEGS][3];         /* b_i = B_i + s_i rail_i, m */
    double platform_joint[PKM_PSS5UPU_LEGS][3]; /* a_i, m */
} pkm_pss5upu_geometry;

/* Inverse kinematics at pose (x, y, z, alpha, beta): platform centre (x, y, h0 + z), orientation
 * Rx(q1) Ry(beta) Rx(alpha - q1) with q1 the UPU base angle (the orientations the UPU chain
 * allows), each slider's travel from |a_i - b_i| = L. PKM_ERR_UNREACHABLE naming the leg if a link
 * cannot reach its rail or the travel leaves (0, travel); PKM_ERR_INVALID for bad parameters. */
pkm_status pkm_pss5upu_inverse(const pkm_pss5upu_params *p, const double pose[5],
                               pkm_pss5upu_geometry *g, pkm_ctx *ctx);

/* The slider travels s at pose, and their first two time derivatives while the pose moves at
 * dpose, ddpose (exact: the closure |a_i - b_i| = L differentiated through the orientation
 * Rx(q1) Ry(beta) Rx(alpha - q1) and the UPU angle q1). Errors of pkm_pss5upu_inverse, and
 * PKM_ERR_SINGULAR naming the leg whose link is normal to its rail (its rate unbounded). */
pkm_status pkm_pss5upu_travel_rates(const pkm_pss5upu_params *p, const double pose[5],
                                    const double dpose[5], const double ddpose[5], double s[5],
                                    double sd[5], double sdd[5], pkm_ctx *ctx);

/* The mechanism at pose: per leg the screw (beam), slider (rigid, prismatic to the ground and
 * helical to the screw), link (beam); the platform (rigid); the UPU chain. The slider's prismatic
 * joint "rail i" is actuated (sec. 2: "the power input is the moving pair of five PSS joint
 * branches"). The motors are locked: each screw clamped to the ground at B_i (joint "motor i"). */
pkm_status pkm_pss5upu_build(const pkm_pss5upu_params *p, const double pose[5], pkm_model **out,
                             pkm_ctx *ctx);

/* The same mechanism for the rigid-body dynamics: each screw free to turn about its axis at B_i
 * (joint "motor i" revolute), so that the slider's travel turns it through the nut, and the
 * links on the joints of the spherical variant whatever p->variant (universal at the slider,
 * spherical at the platform: |a_i - b_i| = L, what pkm_pss5upu_inverse solves; the paper's
 * welded link over-constrains a rigid platform). */
pkm_status pkm_pss5upu_build_rigid(const pkm_pss5upu_params *p, const double pose[5],
                                   pkm_model **out, pkm_ctx *ctx);

/* Most pose coordinates a case may declare (cases_impl.h refuses more when the case is compiled):
 * a platform has at most 6 degrees of freedom, and 16 leaves room for coordinates beyond them
 * (a redundant actuator, a tool axis) while a map keeps its pose names and base pose in fixed
 * arrays, written as one list attribute of the map file (io/h5map_impl.h, LIST_LEN). */
#define PKM_POSE_MAX 16

/* What a case can be analysed with (pkm_case.analyses). */
enum {
    PKM_CASE_MODAL = 1u,   /* a finite-element model: modes, map, compare */
    PKM_CASE_DYNAMICS = 2u /* a rigid-body model with actuated joints: dynamics */
};

/* A built-in case as the command line sees it: a name, its pose coordinates, its parameters. */
typedef struct pkm_case {
    const char *name;
    const char *description;
    int npose;                     /* pose coordinates, 1 to PKM_POSE_MAX */
    const char *const *pose_names; /* e.g. "x", "y", "theta" */
    const char *const *pose_units; /* SI units: "m", "rad" */
    const double *home;            /* default pose */
    size_t params_size;            /* bytes of the case's parameter struct */
    const pkm_param_desc *params;  /* its parameter table */
    int nparams;
    const char *yaml;      /* the default case file, embedded at build time, NUL-terminated */
    const char *yaml_name; /* its source, for messages: "cases/navaro.yaml" */
    /* The formulation the command line uses unless told otherwise: the one that handles every
     * option of the case (e.g. a loop of rigid bodies needs PKM_FORM_NODAL). */
    pkm_formulation formulation;
    /* Checks params with pkm_case_params_check, then builds the model at pose. */
    pkm_status (*build)(const void *params, const double *pose, pkm_model **out, pkm_ctx *ctx);
    /* NULL, or the image of a pose under a symmetry of the mechanism with its built-in
     * parameters (a turn or a reflection that maps base, legs and platform onto themselves, legs
     * renumbered): the same structure, so the same frequencies at pose and image (the case
     * battery checks it to 1e-9). A case file that breaks the layout's symmetry breaks it. */
    void (*symmetry)(const double *pose, double *image);
    unsigned analyses; /* PKM_CASE_MODAL | PKM_CASE_DYNAMICS */
    /* The rigid-body model at pose, actuated joints flagged (the dynamics layer makes rigid
     * bodies of its beams); the same as build for a case without flexible bodies. */
    pkm_status (*build_rigid)(const void *params, const double *pose, pkm_model **out,
                              pkm_ctx *ctx);
    /* NULL, or the pose the rigid-body model is built at when home is a singular pose of the
     * closure (the centre of pss5upu's regular layout: its legs cannot hold the platform there,
     * and Newton would start from it); pkm_case_rigid_pose gives the one to use. */
    const double *rigid_pose;
    /* NULL, or what a singular closure of this mechanism means, for the error line. */
    const char *singular_note;
    size_t dynamics_offset; /* offsetof(params struct, dynamics): its pkm_case_dynamics */
    /* The coordinates of the rigid-body model (pkm_mbs coordinate names) that a pose prescribes
     * (ndriven of them), and their values and first two time derivatives at a pose moving at
     * dpose, ddpose, measured from the model build_rigid makes at pkm_case_rigid_pose(c).
     * drive NULL: the pose coordinates themselves, the model coordinates driven_names (npose of
     * them: a robot file's pose naming joints) or, driven_names NULL too, of the same names. A
     * pose out of reach is PKM_ERR_UNREACHABLE naming the leg. */
    int ndriven;
    const char *const *driven_names;
    pkm_status (*drive)(const void *params, const double *pose, const double *dpose,
                        const double *ddpose, double *q, double *qd, double *qdd, pkm_ctx *ctx);
    /* NULL, or per pose coordinate the coordinate of the rigid-body model's platform it sets
     * ("platform.x" ... "platform.rz", pkm_mbs_coord_name), measured from its value at
     * pkm_case_rigid_pose: the generic route of the rigid motion (pkm/motion.h), the closure
     * solving the legs from the platform's placement. Rotation coordinates compose as the
     * floating joint's, Rx Ry Rz from the build orientation. */
    const char *const *platform_names;
    /* NULL, or the finite-element model from the placements of the rigid-body model's bodies
     * (R[b], p[b]: pkm_mbs_body_displacement, x -> R x + p from the configuration build_rigid
     * made at pkm_case_rigid_pose) where its closure holds at a pose: what build makes there,
     * without solving the closure again (robot files: build walks from the assembly
     * configuration, which a trajectory already follows). */
    pkm_status (*build_placed)(const void *params, const double (*R)[3][3], const double (*p)[3],
                               pkm_model **out, pkm_ctx *ctx);
    /* Named motions of the pose coordinates, the first the default (include/pkm/trajectory.h). */
    int ntraj;
    const pkm_traj_desc *traj;
    /* NULL, or every body's rigid motion at a pose moving at dpose, ddpose from the inverse
     * kinematics alone: the twist V and spatial acceleration A (as pkm_mbs_body_motion gives
     * them) of each of the nbody bodies of the model build_rigid makes, in body order. It needs
     * no loop closure, so it holds where the closure is singular (pss5upu's centre); the
     * elastodynamics (pkm/transient.h) loads its models by it. PKM_ERR_MODEL for another body
     * count, the errors of the drive. */
    pkm_status (*body_motion)(const void *params, const double *pose, const double *dpose,
                              const double *ddpose, int nbody, double (*V)[6], double (*A)[6],
                              pkm_ctx *ctx);
    /* NULL, or the joint of the finite-element model that locks actuated joint k of the rigid
     * model (k counting the actuated joints in joint order) where that is not the actuated
     * joint's namesake, and the ratio of the drive to the lock's reaction (the moment about its
     * axis, the force along it): pss5upu's rail i is locked by its screw's clamp "motor i", the
     * rail's force the screw's torque times the nut's -2 pi / lead. */
    void (*drive_lock)(const void *params, int k, char name[PKM_NAME_LEN], double *ratio);
    /* NULL, or per-time quantities defined on the case's own coordinates, which its rigid-body
     * model does not have (the chewing robot's parasitic coordinates and, asked for inertia, its
     * joint-space inertia and inertia coupling index, Cheng et al. 2024, eqs. 58-60): at time t
     * (for messages) of a pose moving at dpose, ddpose, nextra[inertia != 0] values into out,
     * named by extra_columns (the first nextra[0] always, the rest with inertia). The errors of
     * the case's kinematics naming t. */
    int nextra[2];
    const pkm_column *extra_columns;
    pkm_status (*extra)(const void *params, double t, const double *pose, const double *dpose,
                        const double *ddpose, int inertia, double *out, pkm_ctx *ctx);
} pkm_case;

/* The pkm_case_dynamics of params, a parameter struct of case c. */
const pkm_case_dynamics *pkm_case_dynamics_of(const pkm_case *c, const void *params);

/* The friction law of d (no preload, the normal load from the reactions). */
pkm_friction pkm_case_friction(const pkm_case_dynamics *d);

/* 1 if d loads the platform (a load_force not zero: the rigid-body dynamics' case load). */
int pkm_case_loaded(const pkm_case_dynamics *d);

/* 1 if joint j carries d's friction: a revolute, prismatic or helical joint, actuated if d asks
 * for the actuated joints only. */
int pkm_case_joint_has_friction(const pkm_case_dynamics *d, const pkm_joint *j);

/* The pose the rigid-body model of c is built at (and its drive measured from): c->rigid_pose,
 * or c->home. */
const double *pkm_case_rigid_pose(const pkm_case *c);

/* The trajectory of c with that name, or NULL. */
const pkm_traj_desc *pkm_case_traj_find(const pkm_case *c, const char *name);

/* c's trajectory of that name (NULL: the first, the default), lasting at least t_end (its last
 * law held). PKM_ERR_INVALID naming the case's trajectories when there is no such one; the
 * errors of pkm_trajectory_create_analytic. */
pkm_status pkm_case_trajectory(const pkm_case *c, const char *name, double t_end,
                               pkm_trajectory **tr, pkm_ctx *ctx);

/* A harmonic motion of c's pose coordinate k: home + amp sin(2 pi f t), the others held at home,
 * over PKM_CASE_HARMONIC_PERIODS periods or until t_end if later (NAN: none). A motion of chosen
 * frequency along one axis, to sweep through a mode; it starts at home moving at 2 pi f amp,
 * with no acceleration. PKM_ERR_INVALID for k out of range, amp 0 or beyond 1e3 (m or rad), f
 * outside [1e-6, 1e6] Hz. */
#define PKM_CASE_HARMONIC_PERIODS 20
pkm_status pkm_case_harmonic(const pkm_case *c, int k, double amp, double f, double t_end,
                             pkm_trajectory **tr, pkm_ctx *ctx);

/* The compiled case of that name, or NULL. The compiled cases are the topologies written in C
 * (cases/), the ones a case file's `case:` names. Not every built-in: pkmflex also knows robot
 * files embedded in it (tree5, loop3); pkm_case_names and pkm_case_open (include/pkm/casefile.h)
 * list and open every built-in by name. */
const pkm_case *pkm_case_find(const char *name);

/* NULL-terminated list of the compiled cases (pkm_case_find). */
const pkm_case *const *pkm_case_list(void);

/* The table entry of c with that key, or NULL. */
const pkm_param_desc *pkm_case_param_find(const pkm_case *c, const char *key);

/* Set one parameter of c by key from text: a quantity (pkm_quantity_parse) for a DOUBLE, a
 * decimal integer for an INT, a choice name for an ENUM. The one setter behind --set and the
 * case files. PKM_ERR_INVALID naming the case and the key if the key is unknown, the value does
 * not parse, or lies outside the entry's range (the message names the value and the bounds);
 * the field is then left unchanged. Checks that involve several parameters (a home travel inside
 * the travel, a link long enough) happen when the model is built. */
pkm_status pkm_case_param_set(const pkm_case *c, void *params, const char *key, const char *value,
                              pkm_ctx *ctx);

/* Every entry of params (a struct of case c, filled by hand or by the setter) against its range
 * and its choices; PKM_ERR_INVALID naming the first one outside. The cases' build functions
 * (pkm_case.build) call it first. */
pkm_status pkm_case_params_check(const pkm_case *c, const void *params, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
