/* assembly/tree_map.c: what the virtual tree's maps give besides the matrices: the dof map
 * (pkm/dofmap.h) and the memory the formulation will need.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/tree_impl.h"
#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <stdio.h>
#include <stdlib.h>

/* P of the dof map (made only when asked for or when joint terms go through it; the matrices
 * are assembled without it, tree_mass.c): a node's twist at itself through its leg's screws and
 * closure, a platform node's from x_p by the
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
 * (ncoord x (n0 + np)) are dense, and so are its tree matrices and their reduction (tree_mass.c:
 * ncoord^2, two ncoord (n0 + np), two (n0 + np)^2) and the reduced block it adds to the
 * pencil, up to the upper triangle of (n0 + np)^2 triplets per leg: the memory grows as the
 * square of the mesh. A triplet holds 32 bytes, up to twice that while its arrays grow by
 * doubling, and 8 more in the cache's record. */
#define TREE_TRIPLET_BYTES 72.0

static const char tree_advice[] =
    "use the nodal formulation (--formulation nodal) or fewer elements per link";

/* Bytes of a leg's dense J and Q and of its tree matrices (their reduced order w). */
static double leg_bytes(const leg *L, double w)
{
    const double nc = L->ncoord;
    return 8.0 * nc * (6.0 * L->nnodes + w) + 8.0 * (nc * nc + 2.0 * nc * w + 2.0 * w * w);
}

/* Bytes of the dense J and Q of every leg, before they are allocated. */
pkm_status pkm_tree_check_dense_size(const tree *t, pkm_trip *trip, pkm_ctx *ctx)
{
    double bytes = 0.0, n = t->np;
    for (int l = 0; l < t->nlegs; l++) {
        const leg *L = &t->legs[l];
        /* the reduced order n0 + np is at most ncoord + np, n0 not known yet */
        bytes += leg_bytes(L, (double)L->ncoord + t->np);
        n += L->ncoord;
    }
    /* The message is formatted only for a refusal: the check runs on every map pose. */
    if (pkm_trip_ram_fits(trip, bytes)) return PKM_OK;
    char what[160];
    snprintf(what, sizeof(what),
             "the tree formulation of %.0f coordinates in %d legs (dense per leg)", n, t->nlegs);
    return pkm_memory_check(bytes, what, tree_advice, ctx);
}

/* The tree matrices and the triplets the legs will make, against RAM. */
pkm_status pkm_tree_check_triplet_size(const tree *t, pkm_trip *trip, pkm_ctx *ctx)
{
    double bytes = 0.0, n = t->np, ntrip = 21.0; /* the platform's 6 x 6 */
    for (int l = 0; l < t->nlegs; l++) {
        const leg *L = &t->legs[l];
        const double w = L->n0 + t->np;
        bytes += leg_bytes(L, w);
        ntrip += w * (w + 1.0) / 2.0;
        n += L->n0;
    }
    if (pkm_trip_ram_fits(trip, bytes + TREE_TRIPLET_BYTES * ntrip)) return PKM_OK;
    char what[200];
    snprintf(what, sizeof(what),
             "the tree formulation of %.0f independent coordinates (%.3g triplets, dense per leg)",
             n, ntrip);
    return pkm_memory_check(bytes + TREE_TRIPLET_BYTES * ntrip, what, tree_advice, ctx);
}
