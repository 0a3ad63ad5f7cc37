/* include/pkm/cases.h: built-in robots, each built only through the public model API.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_CASES_H
#define PKM_CASES_H

#include <stddef.h>

#include "pkm/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NaVARo, the 3-dof planar parallel robot of Germain et al. 2015, sec. 5, with the printed data
 * read as the Cast3M model of their Table 3 requires (see cases/navaro/README.md). */
typedef struct pkm_navaro_params {
    double base_radius;     /* |O A_i|, m (base triangle side 0.700 m) */
    double link_length;     /* |A_i D_i| = |D_i E_i| = rhombus side, m */
    double platform_radius; /* |P E_i|, m */
    pkm_material material;
    pkm_section leg_section;      /* links 1i-4i */
    pkm_section platform_section; /* links 5i (E_i P) */
    int elements_per_link;        /* beam elements per link; link 4i (C-D-E) gets twice as many */
    unsigned mass_flags;          /* PKM_FEM_ROTARY_INERTIA or 0 */
} pkm_navaro_params;

/* The Table 3 model: duralumin E = 74 GPa, nu = 0.33, rho = 2800 kg/m^3, one element per link. */
pkm_navaro_params pkm_navaro_params_default(void);

/* Joint positions of leg i (0..2) at pose (x, y, theta) [m, m, rad]: A, B, C, D, E (m, z = 0).
 * PKM_ERR_UNREACHABLE (naming the leg and the distance |A_i E_i|) when the leg cannot reach. */
pkm_status pkm_navaro_leg_points(const pkm_navaro_params *p, const double pose[3], int leg,
                                 double pts[5][3], pkm_ctx *ctx);

/* The mechanism at pose (x, y, theta): beams and joints of Germain et al. 2015, Fig. 3. */
pkm_status pkm_navaro_build(const pkm_navaro_params *p, const double pose[3], pkm_model **out,
                            pkm_ctx *ctx);

/* Set one parameter by name from text ("E=7.4e10", "leg.A=2.4e-4", "elements_per_link=4").
 * PKM_ERR_INVALID naming the key if it is unknown or the value is not a number of the right kind
 * (range checks happen when the model is built). */
pkm_status pkm_navaro_params_set(pkm_navaro_params *p, const char *key, const char *value,
                                 pkm_ctx *ctx);

/* The 5-PSS/UPU parallel mechanism of Li et al. 2020 (Chin. J. Mech. Eng. 33): five legs, each a
 * slider driven along an inclined rail by a lead screw (P), a link with spherical joints at both
 * ends (S-S), and a central U-P-U chain that keeps the platform from turning about its normal.
 * Pose (x, y, z, alpha, beta) [m, m, m, rad, rad], z relative to the home height h0. The paper
 * leaves most of the geometry out; every value it does not give is a field below, with the
 * reason for its default in cases/pss5upu.c and docs/cases/pss5upu.md. */
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

typedef struct pkm_pss5upu_params {
    double base_radius;                      /* R = |O B_i|, m (Table 1) */
    double platform_radius;                  /* r = |p a_i| in the platform, m (Table 1) */
    double base_angle[PKM_PSS5UPU_LEGS];     /* angle of B_i about z from x, rad */
    double platform_angle[PKM_PSS5UPU_LEGS]; /* angle of a_i about the platform z, rad */
    double rail_angle;  /* rail inclination to the base plane, rising towards the centre, rad */
    double travel;      /* slider travel along the rail from B_i, m; also the screw's length */
    double home_travel; /* slider travel at the home pose (sets the home height h0), m */
    double link_length; /* |a_i b_i|, m (Table 1) */
    pkm_section link_section;
    pkm_material link_material;
    pkm_beam_element link_element;
    int link_nelem; /* elements per link */
    pkm_section screw_section;
    pkm_material screw_material;
    pkm_beam_element screw_element;
    int screw_nelem;   /* elements between the motor end and the nut, and again
                          between the nut and the far end */
    double screw_lead; /* slider travel per screw turn, m (Table 1 P) */
    pkm_pss5upu_screw_end screw_end;
    double slider_mass;         /* kg (Table 1 m_o); a point mass, the rail holds its turns */
    double platform_mass;       /* kg (Table 1 m) */
    double platform_inertia[3]; /* about the platform centre, platform axes, kg m^2 */
    unsigned mass_flags;        /* PKM_FEM_ROTARY_INERTIA or 0, links and screws */
    pkm_pss5upu_variant variant;
    pkm_pss5upu_upu upu;
} pkm_pss5upu_params;

/* The defaults of docs/cases/pss5upu.md: regular pentagons aligned at home, rails rising at 30
 * degrees towards the centre from B_i, sliders at mid-travel, solid 60 mm links, variant paper,
 * no UPU (as eq. 38), cubic elements (4 per link, 2 + 2 per screw). */
pkm_pss5upu_params pkm_pss5upu_params_default(void);

/* Section of the links from Table 1 of Li et al. 2020: "solid" takes the area S_ab (a solid
 * round bar, I = S^2 / 4 pi), "tube" the round tube whose mass and axial moment of inertia are
 * Table 1's m_l = 2.5 kg and I_li,z = 0.00078 kg m^2 with the current link density and length.
 * PKM_ERR_INVALID for another name. */
pkm_status pkm_pss5upu_link_section(pkm_pss5upu_params *p, const char *name, pkm_ctx *ctx);

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

/* The mechanism at pose: per leg the screw (beam), slider (rigid, prismatic to the ground and
 * helical to the screw), link (beam); the platform (rigid); the UPU chain. */
pkm_status pkm_pss5upu_build(const pkm_pss5upu_params *p, const double pose[5], pkm_model **out,
                             pkm_ctx *ctx);

/* Set one parameter by name from text (key "link.L", value "0.5"; "variant", "spherical"; "upu",
 * "rigid"); the keys are listed in docs/cases/pss5upu.md.
 * PKM_ERR_INVALID naming the key if it is unknown or the value is not of its kind. */
pkm_status pkm_pss5upu_params_set(pkm_pss5upu_params *p, const char *key, const char *value,
                                  pkm_ctx *ctx);

/* A built-in case as the command line sees it: a name, its pose coordinates, its parameters. */
typedef struct pkm_case {
    const char *name;
    const char *description;
    int npose;                     /* pose coordinates */
    const char *const *pose_names; /* e.g. "x", "y", "theta" */
    const char *const *pose_units; /* SI units: "m", "rad" */
    const double *home;            /* default pose */
    size_t params_size;            /* bytes of the case's parameter struct */
    void (*params_default)(void *params);
    pkm_status (*params_set)(void *params, const char *key, const char *value, pkm_ctx *ctx);
    /* NULL-terminated "key: meaning [unit]" lines for --help */
    const char *const *params_help;
    pkm_status (*build)(const void *params, const double *pose, pkm_model **out, pkm_ctx *ctx);
} pkm_case;

/* The built-in case of that name, or NULL. */
const pkm_case *pkm_case_find(const char *name);

/* NULL-terminated list of the built-in cases. */
const pkm_case *const *pkm_case_list(void);

#ifdef __cplusplus
}
#endif
#endif
