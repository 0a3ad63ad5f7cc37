/* include/pkm/masticatory.h: the built-in chewing robot `masticatory`, a surrogate of Cheng, Yuan,
 * Li, Zeng 2024 (Mech. Sci. 15, 587): six R-S-S chains and two condyle contacts on an inclined
 * plane drive a mandible (pkm/mast.h). The paper's geometry and inertias are lost from its text;
 * this mechanism is fully specified instead (cases/masticatory.yaml gives every number and its
 * source), so that its results can be checked against reference values.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_MASTICATORY_H
#define PKM_MASTICATORY_H

#include "pkm/cases.h"
#include "pkm/mast.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One left chain (1, 3 or 5); its mirror image in the body's x-z plane is the next (2, 4, 6),
 * with the same lengths and crank inertia. */
typedef struct pkm_masticatory_chain {
    double M[3];    /* coupler end on the body, body axes at home (= base axes), m */
    double d[3];    /* coupler direction from crank tip to M at home (any length) */
    double L, r;    /* coupler and crank lengths, m */
    double inertia; /* crank inertia about its shaft, kg m^2 */
} pkm_masticatory_chain;

/* The parameters (SI), settable by name (pkmflex cases --show masticatory). */
typedef struct pkm_masticatory_params {
    pkm_masticatory_chain chain[3];
    double density, area;       /* couplers: rho, A (line masses rho A L) */
    double mass, inertia[3][3]; /* mandible: mass, inertia about its origin, body axes */
    double condyle[3];          /* the left condyle (the right one mirrored), body axes, m */
    double slope;               /* the condyles' plane Z = slope X + c (c puts them on it) */
    unsigned higher_pairs;      /* 1: the condyle contacts; 0: the 6-RSS twin */
    /* gravity (m/s^2, base axes), the joints' friction, and the bite load: load_force on the
     * mandible (base axes, N) at load_point (body axes, m; keys bite.force, bite.point) */
    pkm_case_dynamics dynamics;
} pkm_masticatory_params;

/* The case (one of pkm_case_list(); cases/masticatory.yaml): pose (X, Y, alpha, beta), the free
 * coordinates of the mandible; its rigid-body model pkm_masticatory_model at the state of that
 * pose, driven through the platform's coordinates; trajectory "chewing" (pkm_masticatory_motion).
 * `pkmflex dynamics masticatory` analyses that model on the general path (pkm/dynengine.h). */
const pkm_case *pkm_masticatory_case(void);

/* The mechanism of p: chain frames by the rule of cases/masticatory.yaml, chains named theta1 ..
 * theta6, contacts condyle_L and condyle_R with Z and gamma parasitic when p->higher_pairs.
 * Errors of pkm_case_params_check and pkm_mast_check. */
pkm_status pkm_masticatory_mechanism(const pkm_masticatory_params *p, pkm_mast *m, pkm_ctx *ctx);

/* The mechanism m at state s as a pkm_model: the mandible (a rigid body; with rigid, the
 * platform), per chain a crank (rigid, its inertia about the shaft) on a revolute joint named
 * after the chain (theta1 ..; with rigid actuated, else a spring k_shaft N m/rad), a coupler (a
 * stiff beam of the chain's line mass) on a universal joint "S" and a spherical joint "M", the
 * condyles as point-on-plane constraints on the tangent planes of their surfaces. Joints in order
 * shaft, S, M per chain (3 i, 3 i + 1, 3 i + 2). The errors of the model. */
pkm_status pkm_masticatory_model(const pkm_mast *m, const pkm_mast_state *s, double k_shaft,
                                 int rigid, pkm_model **out, pkm_ctx *ctx);

/* The default motion of the free coordinates (X, Y, alpha, beta) at t with their rates:
 * (2 mm sin 2 pi t, 1 mm sin(2 pi t + 0.3), 0.03 sin(2 pi t + 0.7), 0.15 sin 2 pi t) (m, rad). */
void pkm_masticatory_motion(double t, double q[4], double qd[4], double qdd[4]);

#ifdef __cplusplus
}
#endif
#endif
