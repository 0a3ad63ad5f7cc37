/* assembly/tree_map.c: what the virtual tree's maps give besides the matrices: the dof map
 * (pkm/dofmap.h) and the memory the formulation will need.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/tree_impl.h"
#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <stdio.h>
#include <stdlib.h>

/* P of the dof map, through which assemble_legs projects every element and rigid body: a node's
 * twist at itself through its leg's screws and closure, a platform node's from x_p by the
 * rigid-body relation of eqs. 43-44; joint j's free motions are leg coordinates, never
 * eliminated (only elastic ones are). */
pkm_status pkm_tree_fill_dofmap(const tree *t, pkm_dofmap *map, int64_t nred, pkm_ctx *ctx)
{
    const pkm_model *m = t->m;
    const int nnodes = pkm_model_node_count(m);
    pkm_status rc = pkm_dofmap_begin(map, nnodes, pkm_model_joint_count(m), ctx);
    if (rc != PKM_OK) return rc;
    map->n = nred;
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        double S[PKM_JOINT_MAX_FREE][6];
        const leg *L = &t->legs[pkm_topology_joint_leg(t->topo, j)];
        map->joint_nfree[j] = pkm_joint_free_twists(pkm_model_joint(m, j), S);
        if (map->joint_nfree[j] > 0) map->joint_first[j] = L->first + L->indep[t->joint_coord[j]];
    }
    int maxc, maxw;
    pkm_tree_leg_widths(t, &maxc, &maxw);
    double *Tw = malloc(sizeof(double) * 6 * (size_t)maxc);
    double *E = malloc(sizeof(double) * 6 * (size_t)maxw);
    if (Tw == NULL || E == NULL) rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a dof map");
    for (int n = 0; n < nnodes && rc == PKM_OK; n++) {
        const int b = pkm_model_node(m, n)->body;
        const double *x = pkm_model_node(m, n)->x;
        if (b == pkm_model_platform(m)) {
            double r[3];
            pkm_vec3_sub(x, pkm_model_node(m, pkm_model_body(m, b)->first_node)->x, r);
            for (int k = 0; k < 6 && rc == PKM_OK; k++) {
                double e[6] = {0}, tw[6];
                e[k] = 1.0;
                pkm_twist_transfer(e, r, tw);
                rc = pkm_dofmap_add_term(map, nred - 6 + k, tw, ctx);
            }
        } else {
            const leg *L = &t->legs[pkm_topology_body_leg(t->topo, b)];
            const int w = L->n0 + t->np;
            pkm_tree_node_twists(t, n, x, Tw);
            pkm_tree_times_Q(L, t->np, 6, Tw, E);
            for (int c = 0; c < w && rc == PKM_OK; c++) {
                const double tw[6] = {E[c],         E[w + c],     E[2 * w + c],
                                      E[3 * w + c], E[4 * w + c], E[5 * w + c]};
                if (tw[0] == 0.0 && tw[1] == 0.0 && tw[2] == 0.0 && tw[3] == 0.0 && tw[4] == 0.0 &&
                    tw[5] == 0.0)
                    continue;
                rc = pkm_dofmap_add_term(map, c < L->n0 ? L->first + c : nred - t->np + (c - L->n0),
                                         tw, ctx);
            }
        }
        map->node_ptr[n + 1] = map->len;
    }
    free(Tw);
    free(E);
    return rc;
}

/* Memory of the tree formulation. Each leg's Jacobian J (nnodes x 6 x ncoord) and closure map Q
 * (ncoord x (n0 + np)) are dense, and every element adds the upper triangle of E^T K_e E over
 * the columns of E = A Q it reaches, up to the whole leg: the triplets grow as the cube of the
 * mesh. NaVARo at 1, 16, 32 elements per link makes 2.2e3, 4.8e6, 3.7e7 triplets (2.4 GB of RSS
 * at 32, 64 bytes a triplet; 18.8 GB at 64; killed by the kernel at 128). The count below,
 * 4.4e3, 9.8e6, 7.6e7, is of the entries the reached columns can fill: an upper bound, twice
 * the made ones for a planar robot, whose in-plane and out-of-plane motions do not couple. A
 * triplet holds 32 bytes, up to twice that while its arrays grow by doubling, and 8 more in the
 * cache's record. */
#define TREE_TRIPLET_BYTES 72.0

static const char tree_advice[] =
    "use the nodal formulation (--formulation nodal) or fewer elements per link";

/* Bytes of the dense J and Q of every leg, before they are allocated. */
pkm_status pkm_tree_check_dense_size(const tree *t, pkm_ctx *ctx)
{
    double bytes = 0.0, n = t->np;
    for (int l = 0; l < t->nlegs; l++) {
        const leg *L = &t->legs[l];
        bytes += 8.0 * L->ncoord * (6.0 * L->nnodes + L->ncoord + t->np);
        n += L->ncoord;
    }
    /* The message is formatted only for a refusal: the check runs on every map pose. */
    if (!(bytes > pkm_memory_bytes())) return PKM_OK;
    char what[160];
    snprintf(what, sizeof(what),
             "the tree formulation of %.0f coordinates in %d legs (dense per leg)", n, t->nlegs);
    return pkm_memory_check(bytes, what, tree_advice, ctx);
}

/* Columns of E = A Q that element or rigid body with start node s (own elastic coordinates from
 * c0, or none if c0 < 0) reaches: the leg coordinates upstream of s, through the rows of Q.
 * mark (n0 + np entries) holds stamp where reached; returns their count. */
static int64_t reached_columns(const tree *t, const leg *L, int s, int c0, int *mark, int stamp)
{
    const int nc = L->ncoord, w = L->n0 + t->np;
    const double *J = pkm_tree_node_J(t, s);
    int64_t nk = 0;
    for (int c = 0; c < nc; c++) {
        int nz = c0 >= 0 && c >= c0 && c < c0 + 6;
        for (int r = 0; r < 6 && !nz; r++)
            nz = J[r * nc + c] != 0.0;
        if (!nz) continue;
        if (L->indep[c] >= 0) {
            nk += mark[L->indep[c]] != stamp;
            mark[L->indep[c]] = stamp;
            continue;
        }
        for (int k = 0; k < w; k++)
            if (L->Q[(size_t)c * (size_t)w + k] != 0.0 && mark[k] != stamp) {
                mark[k] = stamp;
                nk++;
            }
    }
    return nk;
}

/* The triplets assemble_legs will make, counted from the patterns of J and Q, against RAM. */
pkm_status pkm_tree_check_triplet_size(const tree *t, pkm_ctx *ctx)
{
    const pkm_model *m = t->m;
    int maxw = 1;
    double bytes = 0.0, n = t->np;
    for (int l = 0; l < t->nlegs; l++) {
        const leg *L = &t->legs[l];
        maxw = (L->n0 + t->np > maxw) ? L->n0 + t->np : maxw;
        bytes += 8.0 * L->ncoord * (6.0 * L->nnodes + L->n0 + t->np);
        n += L->n0;
    }
    int *mark = calloc((size_t)maxw, sizeof(int));
    if (mark == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the assembly count");
    double trip = 21.0; /* the platform's 6 x 6 */
    for (int e = 0; e < pkm_model_element_count(m); e++) {
        const leg *L = &t->legs[pkm_topology_body_leg(t->topo, pkm_model_elem(m, e)->body)];
        const double nk =
            (double)reached_columns(t, L, t->elem_start[e], t->elem_coord[e], mark, e + 1);
        trip += nk * (nk + 1.0) / 2.0;
    }
    for (int b = 0; b < pkm_model_body_count(m); b++) {
        if (pkm_model_body(m, b)->kind != PKM_BODY_RIGID || b == pkm_model_platform(m)) continue;
        const leg *L = &t->legs[pkm_topology_body_leg(t->topo, b)];
        const double nk = (double)reached_columns(t, L, pkm_model_body(m, b)->first_node, -1, mark,
                                                  pkm_model_element_count(m) + b + 1);
        trip += nk * (nk + 1.0) / 2.0;
    }
    free(mark);
    if (!(bytes + TREE_TRIPLET_BYTES * trip > pkm_memory_bytes())) return PKM_OK;
    char what[200];
    snprintf(what, sizeof(what),
             "the tree formulation of %.0f independent coordinates (%.3g triplets; its cost grows "
             "as the cube of the mesh)",
             n, trip);
    return pkm_memory_check(bytes + TREE_TRIPLET_BYTES * trip, what, tree_advice, ctx);
}
