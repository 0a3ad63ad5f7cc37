/* mesh/topology.c: spanning tree, legs and cuts of a model (Germain et al. 2015, sec. 3).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/topology.h"

#include "core/core_impl.h"
#include "mesh/mesh_impl.h"

#include <stdlib.h>

struct pkm_topology {
    int nbodies, njoints, nlegs, ncuts;
    int *order; /* bodies but the platform, breadth-first from the ground */
    int norder;
    int *parent;                       /* per body: tree joint, -1 if none */
    int *entry;                        /* per body: node where the tree enters it, -1 if none */
    int *body_leg;                     /* per body: leg, -1 for the platform */
    int *is_cut;                       /* per joint */
    int *joint_leg;                    /* per joint */
    int *leg_body_start, *leg_bodies;  /* nlegs + 1 offsets into nbodies entries */
    int *leg_joint_start, *leg_joints; /* nlegs + 1 offsets into njoints entries */
};

void pkm_topology_destroy(pkm_topology **tp)
{
    if (tp == NULL || *tp == NULL) return;
    pkm_topology *t = *tp;
    free(t->order);
    free(t->parent);
    free(t->entry);
    free(t->body_leg);
    free(t->is_cut);
    free(t->joint_leg);
    free(t->leg_body_start);
    free(t->leg_bodies);
    free(t->leg_joint_start);
    free(t->leg_joints);
    free(t);
    *tp = NULL;
}

/* Breadth-first spanning tree of the bodies from the ground, not entering the platform and not
 * using joints flagged as cuts; the other joints are the loop-closure cuts. */
static pkm_status build_tree(const pkm_model *m, pkm_topology *t, pkm_ctx *ctx)
{
    int *seen = calloc((size_t)m->nbodies + 1, sizeof(*seen));
    if (seen == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the virtual tree");
    for (int b = 0; b < m->nbodies; b++)
        t->parent[b] = t->entry[b] = -1;
    for (int j = 0; j < m->njoints; j++)
        t->is_cut[j] = 1;
    /* The ground is vertex -1; it is popped first. */
    int qh = 0;
    t->norder = 0;
    for (int u = PKM_GROUND;; u = (qh < t->norder) ? t->order[qh++] : -2) {
        if (u == -2) break;
        for (int j = 0; j < m->njoints; j++) {
            const pkm_joint *jt = &m->joints[j];
            if (jt->cut || (jt->body[0] != u && jt->body[1] != u)) continue;
            int side = (jt->body[0] == u) ? 1 : 0, v = jt->body[side];
            if (v == PKM_GROUND || v == m->platform || seen[v]) continue;
            seen[v] = 1;
            t->parent[v] = j;
            t->entry[v] = jt->node[side];
            t->is_cut[j] = 0;
            t->order[t->norder++] = v;
        }
    }
    free(seen);
    for (int b = 0; b < m->nbodies; b++)
        if (b != m->platform && t->parent[b] < 0)
            return PKM_FAIL(ctx, PKM_ERR_MODEL,
                            "body '%s' is not connected to the ground except through the platform "
                            "or cut joints",
                            m->bodies[b].name);
    for (int j = 0; j < m->njoints; j++)
        t->ncuts += t->is_cut[j];
    return PKM_OK;
}

static int find_root(int *uf, int x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* Legs: groups of bodies joined without passing through the ground or the platform. */
static pkm_status find_legs(const pkm_model *m, pkm_topology *t, pkm_ctx *ctx)
{
    int *uf = malloc(sizeof(*uf) * (size_t)(m->nbodies + 1));
    if (uf == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate legs");
    for (int b = 0; b < m->nbodies; b++)
        uf[b] = b;
    for (int j = 0; j < m->njoints; j++) {
        int a = m->joints[j].body[0], b = m->joints[j].body[1];
        if (a < 0 || b < 0 || a == m->platform || b == m->platform) continue;
        uf[find_root(uf, a)] = find_root(uf, b);
    }
    t->nlegs = 0;
    for (int b = 0; b < m->nbodies; b++)
        t->body_leg[b] = -1;
    for (int b = 0; b < m->nbodies; b++) {
        if (b == m->platform) continue;
        int r = find_root(uf, b);
        if (t->body_leg[r] < 0) t->body_leg[r] = t->nlegs++;
        t->body_leg[b] = t->body_leg[r];
    }
    free(uf);
    for (int j = 0; j < m->njoints; j++) {
        const pkm_joint *jt = &m->joints[j];
        t->joint_leg[j] = -1;
        for (int s = 0; s < 2; s++)
            if (jt->body[s] >= 0 && jt->body[s] != m->platform)
                t->joint_leg[j] = t->body_leg[jt->body[s]];
        if (t->joint_leg[j] < 0)
            return PKM_FAIL(ctx, PKM_ERR_MODEL,
                            "joint '%s' connects the platform to the ground directly; model it "
                            "through a leg",
                            jt->name);
    }
    return PKM_OK;
}

/* Per-leg lists (counting sort by leg, stable): bodies in tree order; tree joints in the order
 * of the bodies they enter, then cuts by index. */
static pkm_status list_legs(pkm_topology *t, pkm_ctx *ctx)
{
    const size_t nl = (size_t)t->nlegs + 1;
    t->leg_body_start = calloc(nl, sizeof(int));
    t->leg_joint_start = calloc(nl, sizeof(int));
    t->leg_bodies = malloc(sizeof(int) * (size_t)(t->norder + 1));
    t->leg_joints = malloc(sizeof(int) * (size_t)(t->njoints + 1));
    if (t->leg_body_start == NULL || t->leg_joint_start == NULL || t->leg_bodies == NULL ||
        t->leg_joints == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate legs");
    for (int i = 0; i < t->norder; i++)
        t->leg_body_start[t->body_leg[t->order[i]] + 1]++;
    for (int j = 0; j < t->njoints; j++)
        t->leg_joint_start[t->joint_leg[j] + 1]++;
    for (int l = 0; l < t->nlegs; l++) {
        t->leg_body_start[l + 1] += t->leg_body_start[l];
        t->leg_joint_start[l + 1] += t->leg_joint_start[l];
    }
    int *nb = calloc(nl, sizeof(int)), *nj = calloc(nl, sizeof(int));
    if (nb == NULL || nj == NULL) {
        free(nb);
        free(nj);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate legs");
    }
    for (int i = 0; i < t->norder; i++) {
        const int b = t->order[i], l = t->body_leg[b];
        t->leg_bodies[t->leg_body_start[l] + nb[l]++] = b;
        t->leg_joints[t->leg_joint_start[l] + nj[l]++] = t->parent[b];
    }
    for (int j = 0; j < t->njoints; j++)
        if (t->is_cut[j]) {
            const int l = t->joint_leg[j];
            t->leg_joints[t->leg_joint_start[l] + nj[l]++] = j;
        }
    free(nb);
    free(nj);
    return PKM_OK;
}

pkm_status pkm_topology_create(const pkm_model *m, pkm_topology **out, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_topology *t = calloc(1, sizeof(*t));
    if (t == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the virtual tree");
    t->nbodies = m->nbodies;
    t->njoints = m->njoints;
    const size_t nb = (size_t)m->nbodies + 1, nj = (size_t)m->njoints + 1;
    t->order = calloc(nb, sizeof(int));
    t->parent = calloc(nb, sizeof(int));
    t->entry = calloc(nb, sizeof(int));
    t->body_leg = calloc(nb, sizeof(int));
    t->is_cut = calloc(nj, sizeof(int));
    t->joint_leg = calloc(nj, sizeof(int));
    pkm_status rc;
    if (t->order == NULL || t->parent == NULL || t->entry == NULL || t->body_leg == NULL ||
        t->is_cut == NULL || t->joint_leg == NULL)
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the virtual tree");
    else if ((rc = build_tree(m, t, ctx)) == PKM_OK && (rc = find_legs(m, t, ctx)) == PKM_OK)
        rc = list_legs(t, ctx);
    if (rc != PKM_OK) {
        pkm_topology_destroy(&t);
        return rc;
    }
    *out = t;
    return PKM_OK;
}

int pkm_topology_leg_count(const pkm_topology *t)
{
    return t->nlegs;
}

int pkm_topology_cut_count(const pkm_topology *t)
{
    return t->ncuts;
}

int pkm_topology_order(const pkm_topology *t, const int **bodies)
{
    *bodies = t->order;
    return t->norder;
}

int pkm_topology_body_leg(const pkm_topology *t, int body)
{
    return t->body_leg[body];
}

int pkm_topology_joint_leg(const pkm_topology *t, int joint)
{
    return t->joint_leg[joint];
}

int pkm_topology_parent_joint(const pkm_topology *t, int body)
{
    return t->parent[body];
}

int pkm_topology_entry_node(const pkm_topology *t, int body)
{
    return t->entry[body];
}

int pkm_topology_is_cut(const pkm_topology *t, int joint)
{
    return t->is_cut[joint];
}

int pkm_topology_leg_bodies(const pkm_topology *t, int leg, const int **bodies)
{
    *bodies = t->leg_bodies + t->leg_body_start[leg];
    return t->leg_body_start[leg + 1] - t->leg_body_start[leg];
}

int pkm_topology_leg_joints(const pkm_topology *t, int leg, const int **joints)
{
    *joints = t->leg_joints + t->leg_joint_start[leg];
    return t->leg_joint_start[leg + 1] - t->leg_joint_start[leg];
}
