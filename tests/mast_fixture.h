/* tests/mast_fixture.h: the surrogate of Cheng, Yuan, Li, Zeng 2024's chewing robot (the
 * paper's geometry is lost from its text; this mechanism is fully specified instead, with
 * reference values computed at 40 digits): the built-in case `masticatory` (cases/masticatory.yaml)
 * in the references' units (mm, g, s), the condyle contacts written out (the closed-form plane
 * solution of the contact tests), the free coordinates' trajectory.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_MAST_FIXTURE_H
#define PKM_TEST_MAST_FIXTURE_H

#include "core/core_impl.h"
#include "reference/mastref.h"
#include "pkm/contact.h"
#include "pkm/casefile.h"
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

/* The bite force f_b = (1, -0.5, 30) N at r_b = (25, 20, -12) mm, in g mm / s^2 and mm. */
static const pkm_mast_load mast_bite = {{1e6, -0.5e6, 30e6}, {25.0, 20.0, -12.0}};

/* The states of the target (s) and of the twin (sw) at t, tracked from home in steps of 0.01 s. */
static inline pkm_status mast_states_at(double t, pkm_mast_state *s, pkm_mast_state *sw,
                                        pkm_ctx *ctx)
{
    pkm_mast tg, tw;
    mast_mechanism(1, &tg), mast_mechanism(0, &tw);
    memset(s, 0, sizeof(*s));
    pkm_status rc = PKM_OK;
    for (int k = 0; rc == PKM_OK && 0.01 * k < t; k++)
        rc = mast_state_at(&tg, 0.01 * k, s, ctx);
    if (rc == PKM_OK) rc = mast_state_at(&tg, t, s, ctx);
    return rc == PKM_OK ? mast_twin_at(&tw, s, sw, ctx) : rc;
}

/* Target and twin walked along the motion together: states tracked sample to sample. */
typedef struct mast_walk {
    pkm_mast tg, tw;
    pkm_mast_state s, sw; /* the target's, the twin's */
    pkm_ctx ctx;
} mast_walk;

static inline void mast_walk_init(mast_walk *w)
{
    memset(w, 0, sizeof(*w));
    mast_mechanism(1, &w->tg), mast_mechanism(0, &w->tw);
    pkm_ctx_clear(&w->ctx);
}

/* Both states at t. */
static inline pkm_status mast_walk_to(mast_walk *w, double t)
{
    pkm_status rc = mast_state_at(&w->tg, t, &w->s, &w->ctx);
    return rc == PKM_OK ? mast_twin_at(&w->tw, &w->s, &w->sw, &w->ctx) : rc;
}

/* The six chains (mm). */
static inline void mast_chains(pkm_rss c[MAST_NCHAIN])
{
    pkm_mast m;
    mast_mechanism(0, &m);
    memcpy(c, m.chain, sizeof(pkm_rss) * MAST_NCHAIN);
}

#endif
