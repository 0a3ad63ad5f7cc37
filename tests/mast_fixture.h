/* tests/mast_fixture.h: the surrogate of Cheng, Yuan, Li, Zeng 2024's chewing robot (the
 * paper's geometry is lost from its text; this mechanism is fully specified instead, with
 * reference values computed at 40 digits): the built-in case `masticatory` (cases/masticatory.yaml)
 * in the references' units (mm, g, s), the condyle contacts written out (the closed-form plane
 * solution of the contact tests), the free coordinates' trajectory.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_MAST_FIXTURE_H
#define PKM_TEST_MAST_FIXTURE_H

#include "core/core_impl.h"
#include "pkm/contact.h"
#include "pkm/casefile.h"
#include "pkm/mast.h"
#include "pkm/masticatory.h"
#include "pkm/rss.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAST_NC = 2, MAST_NF = PKM_POSE_DOF - MAST_NC, MAST_NCHAIN = 6 };
static const int mast_par[MAST_NC] = {2, 5}; /* Z, gamma */
static const int mast_free[MAST_NF] = {0, 1, 3, 4};
static const double mast_p1 = -0.6, mast_p2 = -12.0;

/* Condyles T_L = (-70, 50, 30), T_R = (-70, -50, 30) on Z = p1 X + p2 (p2 puts them on it at
 * home). */
static inline void mast_contacts(pkm_contact c[MAST_NC])
{
    memset(c, 0, sizeof(pkm_contact) * MAST_NC);
    const double y[MAST_NC] = {50.0, -50.0};
    for (int i = 0; i < MAST_NC; i++) {
        c[i].name = i == 0 ? "condyle_L" : "condyle_R";
        c[i].point[0] = -70.0, c[i].point[1] = y[i], c[i].point[2] = 30.0;
        c[i].surface.kind = PKM_SURFACE_PLANE;
        c[i].surface.b[0] = mast_p1, c[i].surface.b[2] = -1.0, c[i].surface.c = mast_p2;
    }
}

/* The free coordinates q = (X, Y, alpha, beta) at t: (2 sin 2 pi t, sin(2 pi t + 0.3),
 * 0.03 sin(2 pi t + 0.7), 0.15 sin 2 pi t), with their first and second rates. */
static inline void mast_motion(double t, double q[MAST_NF], double qd[MAST_NF], double qdd[MAST_NF])
{
    pkm_masticatory_motion(t, q, qd, qdd);
    for (int j = 0; j < 2; j++) /* X, Y in mm */
        q[j] *= 1e3, qd[j] *= 1e3, qdd[j] *= 1e3;
}

/* The pose X with its free coordinates at t (the others unchanged). */
static inline void mast_free_at(double t, double X[PKM_POSE_DOF])
{
    double q[MAST_NF], qd[MAST_NF], qdd[MAST_NF];
    mast_motion(t, q, qd, qdd);
    for (int j = 0; j < MAST_NF; j++)
        X[mast_free[j]] = q[j];
}

/* The state of the surrogate (higher pairs on) at t, tracked from s's previous values. */
static inline pkm_status mast_state_at(const pkm_mast *m, double t, pkm_mast_state *s, pkm_ctx *ctx)
{
    double q[MAST_NF], qd[MAST_NF], qdd[MAST_NF];
    mast_motion(t, q, qd, qdd);
    return pkm_mast_kinematics(m, t, q, qd, qdd, s, ctx);
}

/* The 6-RSS twin's state replaying the pose motion of the target's state st (Z, gamma too). */
static inline pkm_status mast_twin_at(const pkm_mast *twin, const pkm_mast_state *st,
                                      pkm_mast_state *s, pkm_ctx *ctx)
{
    *s = *st; /* the cranks tracked from the target's (the same pose: the same angles) */
    return pkm_mast_kinematics(twin, st->t, st->X, st->Xd, st->Xdd, s, ctx);
}

/* The built-in case `masticatory` (SI) in the units of the references, mm and g:
 * higher_pairs on (the target) or off (the 6-RSS twin). */
static inline void mast_mechanism(int higher_pairs, pkm_mast *m)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *params = NULL;
    if (pkm_case_params_create(pkm_masticatory_case(), &params, &ctx) != PKM_OK) abort();
    pkm_masticatory_params *p = params;
    p->higher_pairs = (unsigned)higher_pairs;
    if (pkm_masticatory_mechanism(p, m, &ctx) != PKM_OK) abort();
    pkm_case_params_destroy(&params);
    for (int i = 0; i < m->nchain; i++) {
        pkm_rss *c = &m->chain[i];
        for (int k = 0; k < 3; k++)
            c->G[k] *= 1e3, c->M[k] *= 1e3;
        c->r *= 1e3, c->L *= 1e3;
        m->crank_inertia[i] *= 1e9, m->coupler_mass[i] *= 1e3;
    }
    m->mass *= 1e3;
    for (int k = 0; k < 9; k++)
        m->inertia[k / 3][k % 3] *= 1e9;
    for (int k = 0; k < 3; k++)
        m->gravity[k] *= 1e3;
    for (int c = 0; c < m->ncontact; c++) {
        for (int k = 0; k < 3; k++)
            m->contact[c].point[k] *= 1e3;
        m->contact[c].surface.c *= 1e3;
    }
}

/* The six chains (mm). */
static inline void mast_chains(pkm_rss c[MAST_NCHAIN])
{
    pkm_mast m;
    mast_mechanism(0, &m);
    memcpy(c, m.chain, sizeof(pkm_rss) * MAST_NCHAIN);
}

#endif
