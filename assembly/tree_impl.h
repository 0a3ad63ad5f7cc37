/* assembly/tree_impl.h: the virtual tree's state, shared by tree.c (coordinates, screws,
 * closure, matrices) and tree_map.c (its dof map and memory estimate).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TREE_IMPL_H
#define PKM_TREE_IMPL_H

#include "assembly/assembly_impl.h"
#include "pkm/topology.h"

typedef struct leg {
    int ncoord;    /* coordinates of the virtual tree, q_t,i */
    int n0;        /* independent ones, q_t,i^0 */
    int64_t first; /* reduced index of the first independent coordinate */
    int nnodes;    /* nodes of the leg's bodies */
    double *J;     /* nnodes x 6 x ncoord: screw (v_O, w) of each node per coordinate */
    int *indep;    /* ncoord: local independent index, or -1 if eliminated */
    /* ncoord x (n0 + np): q_t,i = Q [q_t,i^0; x_p] (eq. 52, leg rows); only the rows of the
     * eliminated coordinates are stored, an independent one's being the unit row at indep[c] */
    double *Q;
} leg;

typedef struct tree {
    const pkm_model *m;
    int np;             /* 6 with a platform, else 0 */
    pkm_topology *topo; /* spanning tree, legs, cuts (mesh/topology.c) */
    int nlegs;
    leg *legs;
    const int *order; /* bodies in breadth-first order */
    int norder;
    int *joint_coord; /* per joint: first leg coordinate of its free motions */
    int *elem_coord;  /* per element: first of its 6 elastic coordinates */
    int *elem_start;  /* per element: node carrying the floating frame */
    int *node_local;  /* per node: index within its leg */
    int *last_elem;   /* per node: last element on its path from the ground, -1 if none */
    int *elim_elem;   /* per joint: element eliminated for this cut, -1 */
    /* The tree of the legs' nodes as propagate walks it (parents first): per node its parent
     * (the node its screws are copied from; -1 at the ground or on the platform) and the leg
     * coordinates located at it (its body's joint motions at the entry node, an element's
     * elastic coordinates at its far node): node_nc of them from node_c0. */
    int *node_parent, *node_c0, *node_nc;
    int *node_seq;      /* the nodes in the order propagate reached them */
    double *elem_frame; /* per element: its frame R (row-major) and length, 10 doubles */
    int nseq;
} tree;

/* Element e's far node: its node other than its floating frame's (elem_start, set by
 * propagate), where its elastic coordinates are located. */
static inline int pkm_tree_far_node(const tree *t, int e)
{
    const pkm_elem *el = pkm_model_elem(t->m, e);
    return t->elem_start[e] == el->n1 ? el->n2 : el->n1;
}

/* Node's screws (v_O, w) per leg coordinate: 6 x ncoord, row-major, inside its leg's J. */
double *pkm_tree_node_J(const tree *t, int node);

/* Twists at point y of node n's coordinates: T (6 x ncoord, row-major) = [I, -[y]x; 0, I] J_n. */
void pkm_tree_node_twists(const tree *t, int n, const double y[3], double *T);

/* E = A Q for a leg: A is nrow x ncoord (row-major), E nrow x (n0 + np). */
void pkm_tree_times_Q(const leg *L, int np, int nrow, const double *A, double *E);

/* The most coordinates of a leg (*maxc) and columns of its projections, n0 + np (*maxw). */
void pkm_tree_leg_widths(const tree *t, int *maxc, int *maxw);

/* tree_mass.c: the reduced K and M of every leg and of the platform into trip (eq. 54). */
pkm_status pkm_tree_assemble_legs(const tree *t, pkm_trip *trip, int64_t nred, pkm_ctx *ctx);

/* tree_map.c: the dof map of the built tree (order nred), and the memory checks of its dense
 * maps (before propagate) and of the triplets (after build_closure). */
pkm_status pkm_tree_fill_dofmap(const tree *t, pkm_dofmap *map, int64_t nred, pkm_ctx *ctx);
pkm_status pkm_tree_check_dense_size(const tree *t, pkm_trip *trip, pkm_ctx *ctx);
pkm_status pkm_tree_check_triplet_size(const tree *t, pkm_trip *trip, pkm_ctx *ctx);

#endif
