/* tests/mast_fe_fixture.h: the chewing robot's surrogate (Cheng et al. 2024; the built-in case
 * `masticatory`, SI) as a pkm_model at a state of its rigid model: the finite-element model of
 * the rigid-link modal limit (test_mast_modal.c) and, with `rigid` set, the rigid multibody system
 * of the general dynamics layer (test_dynamics_mbs_plane.c). Each crank a rigid body on a
 * revolute shaft (its inertia about the shaft, no mass), each coupler a stiff beam whose
 * consistent mass under rigid motion is the rigid model's line mass (rho A L, no rotary inertia;
 * the torsional one rho Ip L negligible when `rigid`: the universal joint turns the coupler about
 * its axis, which the line mass does not resist) joined to its crank by a universal joint (which
 * holds only the coupler's idle spin) and to the moving body by a spherical one, the moving body
 * rigid, the contacts point-on-plane constraints through the contact points with the surfaces'
 * normals there. `rigid` also makes the shafts actuated and the moving body the platform.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_MAST_FE_FIXTURE_H
#define PKM_TEST_MAST_FE_FIXTURE_H

#include "pkm/casefile.h"
#include "pkm/mast.h"
#include "pkm/masticatory.h"
#include "pkm/model.h"
#include "pkm/spatial.h"

#include <math.h>
#include <string.h>

/* The mechanism (SI) of the built-in case, target or twin. */
static inline void mast_si_mechanism(int higher_pairs, pkm_mast *m)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *params = NULL;
    assert_pkm_ok(pkm_case_params_create(pkm_masticatory_case(), &params, &ctx), &ctx);
    pkm_masticatory_params *p = params;
    p->higher_pairs = (unsigned)higher_pairs;
    assert_pkm_ok(pkm_masticatory_mechanism(p, m, &ctx), &ctx);
    pkm_case_params_destroy(&params);
}

/* The model at state s (pkm_masticatory_model): joints in order shaft, S, M per chain (3 i,
 * 3 i + 1, 3 i + 2), the moving body first and the platform, the planes in the contacts' order. */
static inline pkm_model *mast_fe_model(const pkm_mast *m, const pkm_mast_state *s, double k_shaft,
                                       int rigid)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *fe = NULL;
    assert_pkm_ok(pkm_masticatory_model(m, s, k_shaft, rigid, &fe, &ctx), &ctx);
    return fe;
}

#endif
