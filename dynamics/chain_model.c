/* dynamics/chain_model.c: the module chain as a generic pkm_model (an open tree with the rod
 * pins cut), for reference solutions with pkm_mbs and a dense KKT solve.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/chain_impl.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Mass properties of a rigid link being assembled from body slots, global axes. */
typedef struct link_mass {
    double m, mc[3], J[3][3]; /* mass, first moment, inertia about the global origin */
} link_mass;

/* Add a body at its world pose: its inertia about the origin by the parallel-axis theorem. */
static void link_add(link_mass *l, const pkm_chain_body *b, const pkm_chain_pose *p)
{
    double c[3], J[3][3], t[3][3];
    pkm_mat3_apply(PKM_CONST33(p->R), b->com, c);
    pkm_vec3_axpy(1.0, p->r, c);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[i][j] = b->inertia[i][0] * p->R[j][0] + b->inertia[i][1] * p->R[j][1] +
                      b->inertia[i][2] * p->R[j][2];
    pkm_mat3_mul(PKM_CONST33(p->R), PKM_CONST33(t), J);
    const double cc = pkm_vec3_dot(c, c);
    for (int i = 0; i < 3; i++) {
        l->mc[i] += b->mass * c[i];
        for (int j = 0; j < 3; j++)
            l->J[i][j] += J[i][j] + b->mass * ((i == j ? cc : 0.0) - c[i] * c[j]);
    }
    l->m += b->mass;
}

/* The link as a rigid body of the model (inertia moved back to its centre of mass). */
static pkm_status link_body(pkm_model *md, const link_mass *l, const char *name,
                            const double origin[3], int *id, pkm_ctx *ctx)
{
    pkm_rigid_desc d = {.name = name, .mass = l->m};
    memcpy(d.origin, origin, sizeof(d.origin));
    memcpy(d.com, origin, sizeof(d.com));
    if (l->m > 0.0)
        for (int i = 0; i < 3; i++)
            d.com[i] = l->mc[i] / l->m;
    const double cc = pkm_vec3_dot(d.com, d.com);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            d.inertia[i][j] = l->J[i][j] - l->m * ((i == j ? cc : 0.0) - d.com[i] * d.com[j]);
    return pkm_model_add_rigid(md, &d, id, ctx);
}

static pkm_status add_joint(pkm_model *md, const char *name, pkm_joint_type type, int a, int b,
                            const pkm_chain_pose *p, int axis, int cut, int act, int *id,
                            pkm_ctx *ctx)
{
    pkm_joint_desc d = {
        .name = name, .type = type, .body_a = a, .body_b = b, .cut = cut, .actuated = act};
    memcpy(d.point, p->r, sizeof(d.point));
    for (int k = 0; k < 3; k++)
        d.axis[k] = p->R[k][axis];
    return pkm_model_add_joint(md, &d, id, ctx);
}

/* One module's links and joints; *parent is the link carrying the next module. */
static pkm_status add_module(pkm_model *md, const chain_mod *m, const pkm_chain_pose *P,
                             int *parent, int *coord, pkm_ctx *ctx)
{
    char name[PKM_CHAIN_NAME + 16];
    const int loop = m->d.type == PKM_CHAIN_LOOP;
    link_mass up = {0};
    int upper = -1, barrel = -1, rod = -1;
    link_add(&up, &m->d.body[PKM_CHAIN_MOVING], &P[PKM_CHAIN_MOVING]);
    link_add(&up, &m->d.body[PKM_CHAIN_END], &P[PKM_CHAIN_END]);
    snprintf(name, sizeof(name), "%s.link", m->d.name);
    pkm_status st = link_body(md, &up, name, P[PKM_CHAIN_MOVING].r, &upper, ctx);
    if (st == PKM_OK && !loop)
        st = add_joint(md, m->d.name,
                       m->d.type == PKM_CHAIN_REVOLUTE ? PKM_JOINT_REVOLUTE : PKM_JOINT_PRISMATIC,
                       *parent, upper, &P[PKM_CHAIN_MOVING],
                       m->d.type == PKM_CHAIN_REVOLUTE ? 2 : 0, 0, 1, &coord[0], ctx);
    if (st == PKM_OK && loop) {
        link_mass b = {0}, r = {0};
        link_add(&b, &m->d.body[PKM_CHAIN_BARREL], &P[PKM_CHAIN_BARREL]);
        link_add(&r, &m->d.body[PKM_CHAIN_ROD], &P[PKM_CHAIN_ROD]);
        snprintf(name, sizeof(name), "%s.barrel", m->d.name);
        st = link_body(md, &b, name, P[PKM_CHAIN_BARREL].r, &barrel, ctx);
        snprintf(name, sizeof(name), "%s.rod", m->d.name);
        if (st == PKM_OK) st = link_body(md, &r, name, P[PKM_CHAIN_ROD].r, &rod, ctx);
    }
    if (st == PKM_OK && loop) {
        /* the rod pin Tc at (Lb, 0, 0) in B1 */
        pkm_chain_pose tc = P[PKM_CHAIN_MOVING];
        pkm_vec3_axpy(m->d.Lb, (const double[3]){tc.R[0][0], tc.R[1][0], tc.R[2][0]}, tc.r);
        snprintf(name, sizeof(name), "%s.q1", m->d.name);
        st = add_joint(md, name, PKM_JOINT_REVOLUTE, *parent, upper, &P[PKM_CHAIN_MOVING], 2, 0, 0,
                       &coord[0], ctx);
        snprintf(name, sizeof(name), "%s.q11", m->d.name);
        if (st == PKM_OK)
            st = add_joint(md, name, PKM_JOINT_REVOLUTE, *parent, barrel, &P[PKM_CHAIN_BARREL], 2,
                           0, 0, &coord[1], ctx);
        if (st == PKM_OK)
            st = add_joint(md, m->d.name, PKM_JOINT_PRISMATIC, barrel, rod, &P[PKM_CHAIN_ROD], 0, 0,
                           1, &coord[2], ctx);
        snprintf(name, sizeof(name), "%s.q12", m->d.name);
        if (st == PKM_OK)
            st = add_joint(md, name, PKM_JOINT_REVOLUTE, rod, upper, &tc, 2, 1, 0, NULL, ctx);
    }
    *parent = upper;
    return st;
}

pkm_status pkm_chain_model(pkm_chain *c, const double *q, pkm_model **out, int *coord, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_model *md = NULL;
    pkm_chain_pose *P = malloc(sizeof(*P) * (size_t)c->n * PKM_CHAIN_NBODY);
    pkm_status st = P != NULL ? pkm_chain_poses(c, q, P, ctx)
                              : PKM_FAIL(ctx, PKM_ERR_NOMEM, "out of memory for the poses");
    if (st == PKM_OK) st = pkm_model_create(&md, ctx);
    int parent = PKM_GROUND;
    for (int i = 0; i < c->n && st == PKM_OK; i++) {
        coord[3 * i] = coord[3 * i + 1] = coord[3 * i + 2] = -1;
        /* a loop's base body rides on the previous link (fixed when on the ground) */
        if (parent != PKM_GROUND && c->m[i].d.body[PKM_CHAIN_BASE].mass > 0.0) {
            st = PKM_FAIL(ctx, PKM_ERR_INVALID,
                          "module %s: a base body off the ground has no link in the model",
                          c->m[i].d.name);
            break;
        }
        st = add_module(md, &c->m[i], &P[PKM_CHAIN_NBODY * i], &parent, &coord[3 * i], ctx);
    }
    free(P);
    if (st != PKM_OK) {
        pkm_model_destroy(&md);
        return st;
    }
    *out = md;
    return PKM_OK;
}
