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

/* Unit vector of b - a, and a unit vector normal to it. */
static inline void mast_axis_and_normal(const double a[3], const double b[3], double e[3],
                                        double n[3])
{
    for (int k = 0; k < 3; k++)
        e[k] = b[k] - a[k];
    const double l = pkm_vec3_norm(e);
    for (int k = 0; k < 3; k++)
        e[k] /= l;
    const double h[3] = {fabs(e[0]) < 0.9 ? 1.0 : 0.0, fabs(e[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    pkm_vec3_cross(e, h, n);
    const double ln = pkm_vec3_norm(n);
    for (int k = 0; k < 3; k++)
        n[k] /= ln;
}

/* Chain i: crank, coupler and their three joints (shaft spring k_shaft). */
static inline void mast_fe_chain(pkm_model *fe, const pkm_mast *m, const pkm_mast_state *s, int i,
                                 int mand, double k_shaft, int rigid)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_rss *c = &m->chain[i];
    double R[3][3], S[3], M[3], e[3], n[3], a[3];
    pkm_pose_rotation(s->X, R);
    pkm_rss_tip(c, s->th[i], S);
    for (int k = 0; k < 3; k++) {
        M[k] = s->X[k] + R[k][0] * c->M[0] + R[k][1] * c->M[1] + R[k][2] * c->M[2];
        a[k] = c->R0[k][2];
    }
    pkm_rigid_desc crank = {.name = "crank"};
    memcpy(crank.origin, c->G, sizeof(crank.origin));
    memcpy(crank.com, c->G, sizeof(crank.com));
    for (int u = 0; u < 3; u++)
        for (int v = 0; v < 3; v++)
            crank.inertia[u][v] = m->crank_inertia[i] * a[u] * a[v];
    int cb = -1, lb = -1;
    assert_pkm_ok(pkm_model_add_rigid(fe, &crank, &cb, &ctx), &ctx);
    const double pts[2][3] = {{S[0], S[1], S[2]}, {M[0], M[1], M[2]}};
    const pkm_section sec = {
        .A = 1e-5, .Iy = 1e-11, .Iz = 1e-11, .I0 = 2e-11, .Ip = rigid ? 1e-24 : 2e-11};
    const pkm_material mat = {
        .E = 210e9 * 1e6, .G = 81e9 * 1e6, .rho = m->coupler_mass[i] / (sec.A * c->L)};
    mast_axis_and_normal(S, M, e, n);
    pkm_beam_desc link = {
        .name = "coupler", .npoints = 2, .points = pts, .section = sec, .material = mat};
    memcpy(link.zref, n, sizeof(n));
    assert_pkm_ok(pkm_model_add_beam(fe, &link, &lb, &ctx), &ctx);
    pkm_joint_desc shaft = {.name = "shaft",
                            .type = PKM_JOINT_REVOLUTE,
                            .body_a = PKM_GROUND,
                            .body_b = cb,
                            .actuated = rigid,
                            .stiffness = {k_shaft}};
    memcpy(shaft.point, c->G, sizeof(shaft.point));
    memcpy(shaft.axis, a, sizeof(a));
    assert_pkm_ok(pkm_model_add_joint(fe, &shaft, NULL, &ctx), &ctx);
    pkm_joint_desc u = {.name = "S", .type = PKM_JOINT_UNIVERSAL, .body_a = cb, .body_b = lb};
    memcpy(u.point, S, sizeof(S));
    memcpy(u.axis, n, sizeof(n));
    pkm_vec3_cross(e, n, u.axis2);
    assert_pkm_ok(pkm_model_add_joint(fe, &u, NULL, &ctx), &ctx);
    pkm_joint_desc sph = {.name = "M", .type = PKM_JOINT_SPHERICAL, .body_a = lb, .body_b = mand};
    memcpy(sph.point, M, sizeof(M));
    assert_pkm_ok(pkm_model_add_joint(fe, &sph, NULL, &ctx), &ctx);
}

/* The model at state s; joints in order shaft, S, M per chain (3 i, 3 i + 1, 3 i + 2), the
 * moving body first and the platform, the planes in the contacts' order. */
static inline pkm_model *mast_fe_model(const pkm_mast *m, const pkm_mast_state *s, double k_shaft,
                                       int rigid)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *fe = NULL;
    assert_pkm_ok(pkm_model_create(&fe, &ctx), &ctx);
    double R[3][3], p[3] = {s->X[0], s->X[1], s->X[2]};
    pkm_pose_rotation(s->X, R);
    pkm_rigid_desc body = {.name = "mandible", .mass = m->mass};
    memcpy(body.origin, p, sizeof(p));
    memcpy(body.com, p, sizeof(p));
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    body.inertia[a][b] += R[a][i] * m->inertia[i][j] * R[b][j];
    int mand = -1;
    assert_pkm_ok(pkm_model_add_rigid(fe, &body, &mand, &ctx), &ctx);
    if (rigid) assert_pkm_ok(pkm_model_set_platform(fe, mand, &ctx), &ctx);
    for (int i = 0; i < m->nchain; i++)
        mast_fe_chain(fe, m, s, i, mand, k_shaft, rigid);
    for (int c = 0; c < m->ncontact; c++) {
        pkm_plane_desc pl = {.name = m->contact[c].name, .body = mand};
        const double *r = m->contact[c].point;
        for (int k = 0; k < 3; k++)
            pl.point[k] = p[k] + R[k][0] * r[0] + R[k][1] * r[1] + R[k][2] * r[2];
        double f;
        pkm_surface_eval(&m->contact[c].surface, pl.point, &f, pl.normal, NULL);
        assert_pkm_ok(pkm_model_add_plane(fe, &pl, NULL, &ctx), &ctx);
    }
    return fe;
}

#endif
