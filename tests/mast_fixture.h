/* tests/mast_fixture.h: the surrogate of Cheng, Yuan, Li, Zeng 2024's chewing robot (the
 * paper's geometry is lost from its text; this mechanism is fully specified instead, with
 * reference values computed at 40 digits): six R-S-S chains, two condyle contacts on an inclined
 * plane, the free coordinates' trajectory. Units mm, rad.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_MAST_FIXTURE_H
#define PKM_TEST_MAST_FIXTURE_H

#include "core/core_impl.h"
#include "pkm/contact.h"
#include "pkm/mast.h"
#include "pkm/rss.h"
#include "pkm/spatial.h"

#include <math.h>
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
    static const double amp[MAST_NF] = {2.0, 1.0, 0.03, 0.15}, ph[MAST_NF] = {0.0, 0.3, 0.7, 0.0};
    const double o = 2.0 * PKM_PI;
    for (int j = 0; j < MAST_NF; j++) {
        q[j] = amp[j] * sin(o * t + ph[j]);
        qd[j] = amp[j] * o * cos(o * t + ph[j]);
        qdd[j] = -o * o * q[j];
    }
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

static inline void mast_unit(double v[3])
{
    const double n = pkm_vec3_norm(v);
    for (int k = 0; k < 3; k++)
        v[k] /= n;
}

/* Chains 1, 3, 5 from M (body = base axes at home), the coupler direction d (S to M), L and r:
 * S = M - L d, x = unit(e - (e.d) d) with e = e_X if |d_X| < 0.9 else e_Z, z = unit(x cross d),
 * y = d, G = S - r x. Chains 2, 4, 6 their mirror images in Y: points and x, z reflected,
 * y = z cross x. theta = 0 at home. */
static inline void mast_chains(pkm_rss c[MAST_NCHAIN])
{
    static const char *const names[MAST_NCHAIN] = {"theta1", "theta2", "theta3",
                                                   "theta4", "theta5", "theta6"};
    static const double Mh[3][3] = {{-20, 45, -10}, {-30, 48, -35}, {-40, 42, -15}};
    static const double dh[3][3] = {{0.1, 0.1, -1}, {-0.3, 0, -1}, {-1, 0.4, 0}};
    static const double Lh[3] = {60, 50, 45}, rh[3] = {20, 18, 16};
    memset(c, 0, sizeof(pkm_rss) * MAST_NCHAIN);
    for (int k = 0; k < 3; k++) {
        double d[3] = {dh[k][0], dh[k][1], dh[k][2]}, e[3] = {0, 0, 0}, x[3], z[3], S[3];
        mast_unit(d);
        e[fabs(d[0]) < 0.9 ? 0 : 2] = 1.0;
        const double ed = pkm_vec3_dot(e, d);
        for (int i = 0; i < 3; i++)
            x[i] = e[i] - ed * d[i];
        mast_unit(x);
        pkm_vec3_cross(x, d, z);
        mast_unit(z);
        for (int side = 0; side < 2; side++) {
            pkm_rss *ch = &c[2 * k + side];
            const double f[3] = {1.0, side ? -1.0 : 1.0, 1.0};
            double xs[3], zs[3], ys[3];
            for (int i = 0; i < 3; i++) {
                S[i] = f[i] * (Mh[k][i] - Lh[k] * d[i]);
                xs[i] = f[i] * x[i], zs[i] = f[i] * z[i];
                ch->M[i] = f[i] * Mh[k][i];
                ch->G[i] = S[i] - rh[k] * xs[i];
            }
            pkm_vec3_cross(zs, xs, ys);
            for (int i = 0; i < 3; i++)
                ch->R0[i][0] = xs[i], ch->R0[i][1] = ys[i], ch->R0[i][2] = zs[i];
            ch->name = names[2 * k + side];
            ch->r = rh[k], ch->L = Lh[k];
        }
    }
}

/* Inertias of the surrogate (g, mm): cranks about their shafts, couplers rho A L with rho =
 * 7.8e-3 g/mm^3 and A = 17.3494 mm^2, the mandible's mass and inertia in body axes, g = 9800
 * mm/s^2 along -Z. */
static const double mast_crank[MAST_NCHAIN] = {5000, 5000, 4000, 4000, 3000, 3000};
static const double mast_rho_a = 7.8e-3 * 17.3494, mast_m_ee = 340.22;
static const double mast_i_ee[3][3] = {{4e5, 0, 2e4}, {0, 3e5, 0}, {2e4, 0, 5e5}};

/* The surrogate with its two condyle contacts (higher_pairs) or without (the 6-RSS twin). */
static inline void mast_mechanism(int higher_pairs, pkm_mast *m)
{
    memset(m, 0, sizeof(*m));
    m->nchain = MAST_NCHAIN;
    mast_chains(m->chain);
    for (int i = 0; i < MAST_NCHAIN; i++) {
        m->crank_inertia[i] = mast_crank[i];
        m->coupler_mass[i] = mast_rho_a * m->chain[i].L;
    }
    m->mass = mast_m_ee;
    memcpy(m->inertia, mast_i_ee, sizeof(mast_i_ee));
    m->gravity[2] = -9800.0;
    if (!higher_pairs) return;
    m->ncontact = MAST_NC;
    mast_contacts(m->contact);
    for (int k = 0; k < MAST_NC; k++)
        m->par[k] = mast_par[k];
}

#endif
