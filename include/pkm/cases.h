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
