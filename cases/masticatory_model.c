/* cases/masticatory_model.c: the chewing robot's surrogate as a pkm_model at a state of its own
 * rigid model (pkm/mast.h): the rigid-body model of the case `masticatory` and the
 * finite-element model of its rigid-link modal limit (pkm_masticatory_model).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/masticatory.h"

#include "cases/cases_impl.h"
#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <string.h>

/* Unit vector of b - a, and a unit vector normal to it. */
static void axis_and_normal(const double a[3], const double b[3], double e[3], double n[3])
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

/* Chain i: the crank (a rigid body with its inertia about the shaft, no mass) on its revolute
 * shaft, the coupler (a stiff beam whose consistent mass under rigid motion is the line mass
 * rho A L, Cheng et al. 2024 eq. 29) on a universal joint at the crank tip (which holds only the
 * coupler's idle spin) and a spherical joint at the body. */
static pkm_status add_chain(pkm_model *fe, const pkm_mast *m, const pkm_mast_state *s, int i,
                            int body, double k_shaft, int rigid, pkm_ctx *ctx)
{
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
    pkm_status st = pkm_model_add_rigid(fe, &crank, &cb, ctx);
    const double pts[2][3] = {{S[0], S[1], S[2]}, {M[0], M[1], M[2]}};
    /* Rigid: the torsional inertia rho Ip L negligible (the line mass has none). */
    const pkm_section sec = {
        .A = 1e-5, .Iy = 1e-11, .Iz = 1e-11, .I0 = 2e-11, .Ip = rigid ? 1e-24 : 2e-11};
    const pkm_material mat = {
        .E = 210e9 * 1e6, .G = 81e9 * 1e6, .rho = m->coupler_mass[i] / (sec.A * c->L)};
    axis_and_normal(S, M, e, n);
    pkm_beam_desc link = {
        .name = "coupler", .npoints = 2, .points = pts, .section = sec, .material = mat};
    memcpy(link.zref, n, sizeof(n));
    if (st == PKM_OK) st = pkm_model_add_beam(fe, &link, &lb, ctx);
    pkm_joint_desc shaft = {.name = m->chain[i].name,
                            .type = PKM_JOINT_REVOLUTE,
                            .body_a = PKM_GROUND,
                            .body_b = cb,
                            .actuated = rigid,
                            .stiffness = {k_shaft}};
    memcpy(shaft.point, c->G, sizeof(shaft.point));
    memcpy(shaft.axis, a, sizeof(a));
    if (st == PKM_OK) st = pkm_model_add_joint(fe, &shaft, NULL, ctx);
    pkm_joint_desc u = {.name = "S", .type = PKM_JOINT_UNIVERSAL, .body_a = cb, .body_b = lb};
    memcpy(u.point, S, sizeof(S));
    memcpy(u.axis, n, sizeof(n));
    pkm_vec3_cross(e, n, u.axis2);
    if (st == PKM_OK) st = pkm_model_add_joint(fe, &u, NULL, ctx);
    pkm_joint_desc sph = {.name = "M", .type = PKM_JOINT_SPHERICAL, .body_a = lb, .body_b = body};
    memcpy(sph.point, M, sizeof(M));
    if (st == PKM_OK) st = pkm_model_add_joint(fe, &sph, NULL, ctx);
    return st;
}

pkm_status pkm_masticatory_model(const pkm_mast *m, const pkm_mast_state *s, double k_shaft,
                                 int rigid, pkm_model **out, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_model *fe = NULL;
    pkm_status st = pkm_model_create(&fe, ctx);
    if (st != PKM_OK) return st;
    double R[3][3], p[3] = {s->X[0], s->X[1], s->X[2]};
    pkm_pose_rotation(s->X, R);
    pkm_rigid_desc mandible = {.name = "mandible", .mass = m->mass};
    memcpy(mandible.origin, p, sizeof(p));
    memcpy(mandible.com, p, sizeof(p));
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    mandible.inertia[a][b] += R[a][i] * m->inertia[i][j] * R[b][j];
    int body = -1;
    st = pkm_model_add_rigid(fe, &mandible, &body, ctx);
    if (st == PKM_OK && rigid) st = pkm_model_set_platform(fe, body, ctx);
    for (int i = 0; i < m->nchain && st == PKM_OK; i++)
        st = add_chain(fe, m, s, i, body, k_shaft, rigid, ctx);
    /* The condyles on their surfaces' tangent planes through the contact points. */
    for (int c = 0; c < m->ncontact && st == PKM_OK; c++) {
        pkm_plane_desc pl = {.name = m->contact[c].name, .body = body};
        const double *r = m->contact[c].point;
        for (int k = 0; k < 3; k++)
            pl.point[k] = p[k] + R[k][0] * r[0] + R[k][1] * r[1] + R[k][2] * r[2];
        double f;
        pkm_surface_eval(&m->contact[c].surface, pl.point, &f, pl.normal, NULL);
        st = pkm_model_add_plane(fe, &pl, NULL, ctx);
    }
    if (st != PKM_OK) {
        pkm_model_destroy(&fe);
        return st;
    }
    *out = fe;
    return PKM_OK;
}

pkm_status pkm_masticatory_states(const void *params, double t, const double *pose,
                                  const double *dpose, const double *ddpose, pkm_mast *tg,
                                  pkm_mast_state *s, pkm_mast *tw, pkm_mast_state *sw, pkm_ctx *ctx)
{
    pkm_masticatory_params q = *(const pkm_masticatory_params *)params;
    q.higher_pairs = 1; /* the target's contacts give the pose */
    memset(s, 0, sizeof(*s));
    pkm_status st = pkm_masticatory_mechanism(&q, tg, ctx);
    if (st == PKM_OK) st = pkm_mast_kinematics(tg, t, pose, dpose, ddpose, s, ctx);
    if (st != PKM_OK || tw == NULL) return st;
    q.higher_pairs = 0;
    memset(sw, 0, sizeof(*sw));
    memcpy(sw->th, s->th, sizeof(sw->th)); /* the same pose, the same angles */
    st = pkm_masticatory_mechanism(&q, tw, ctx);
    return st == PKM_OK ? pkm_mast_kinematics(tw, t, s->X, s->Xd, s->Xdd, sw, ctx) : st;
}

/* The case's rigid-body model at pose (X, Y, alpha, beta): the state there (parasitic
 * coordinates and crank angles from the target's contacts, pkm_masticatory_states at rest), the
 * model of that state with the shafts actuated; the 6-RSS twin's (higher_pairs off) at the
 * target's pose. */
pkm_status pkm_masticatory_build_rigid(const void *params, const double *pose, pkm_model **out,
                                       pkm_ctx *ctx)
{
    *out = NULL;
    pkm_mast tg, tw;
    pkm_mast_state s, sw;
    const double zero[4] = {0.0, 0.0, 0.0, 0.0};
    const int twin = ((const pkm_masticatory_params *)params)->higher_pairs == 0;
    pkm_status st = pkm_masticatory_states(params, 0.0, pose, zero, zero, &tg, &s,
                                           twin ? &tw : NULL, twin ? &sw : NULL, ctx);
    if (st != PKM_OK) return st;
    return twin ? pkm_masticatory_model(&tw, &sw, 0.0, 1, out, ctx)
                : pkm_masticatory_model(&tg, &s, 0.0, 1, out, ctx);
}
