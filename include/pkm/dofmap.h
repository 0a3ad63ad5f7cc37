/* include/pkm/dofmap.h: the dof map of a formulation, from reduced coordinates to nodal
 * displacements.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Both formulations express every node's small displacement twist u_i = (translation, rotation),
 * in global axes at the node, as a linear combination of the n reduced coordinates x of the
 * pencil: u = P x (prolongation), P of 6 nnodes rows. Its transpose restricts nodal loads: a
 * wrench f_i (force, moment about the node, global axes) at every node does the virtual work
 * f . (P x) = (P^T f) . x, so f_red += P^T f is the reduced load (Newmark's inertial, gravity,
 * payload and drive loads). P is stored sparsely: per node, the reduced coordinates it depends
 * on and a twist per unit coordinate. The curvature coordinates of quintic beams (nodal
 * formulation) are not nodal displacements: P does not reach them; the map names each element's
 * own (pkm_dofmap_element_curvature), where a load on them goes directly. Each joint's free motions
 * d (u_b = u_a + S d across the joint, pkm_joint_free_twists) are reduced coordinates in both
 * formulations (tree: the virtually actuated joint coordinates, never eliminated; nodal: the
 * relative-motion coordinates of the node graph's spanning forest); pkm_dofmap_joint_coordinate
 * says where. */
#ifndef PKM_DOFMAP_H
#define PKM_DOFMAP_H

#include <stdint.h>

#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_dofmap pkm_dofmap;

void pkm_dofmap_destroy(pkm_dofmap **map); /* NULL-safe, sets *map to NULL */

/* Order n of the pencil (reduced coordinates) and number of nodes (P has 6 nnodes rows). */
int64_t pkm_dofmap_reduced_count(const pkm_dofmap *map);
int pkm_dofmap_node_count(const pkm_dofmap *map);

/* u = P x: x has n entries, u 6 nnodes (node i's translation then rotation at u + 6 i). */
void pkm_dofmap_prolong(const pkm_dofmap *map, const double *x, double *u);

/* f_red += P^T f: f has 6 nnodes entries (a wrench per node: force, then moment about the node),
 * f_red n. */
void pkm_dofmap_restrict(const pkm_dofmap *map, const double *f, double *f_red);

/* Node i's row block of P: *ncol reduced coordinates (*col) and for each the node's twist per
 * unit coordinate (*twist, 6 per coordinate); the pointers stay valid until the map changes. */
void pkm_dofmap_node(const pkm_dofmap *map, int node, int *ncol, const int64_t **col,
                     const double (**twist)[6]);

/* Reduced index of the first of element elem's curvature coordinates at its node side + 1 (side
 * 0 or 1; the element type's dofs_per_node - 6 of them, consecutive, in the element's local axes,
 * pkm/fem.h), or -1: an element without them (cubic, quintic_c0), an end held at zero curvature,
 * the tree formulation, elem or side out of range. */
int64_t pkm_dofmap_element_curvature(const pkm_dofmap *map, int elem, int side);

/* Reduced index of joint j's first free motion (its *nfree motions are consecutive), or -1 with
 * *nfree = 0 if j is out of range or has none. nfree may be NULL. */
int64_t pkm_dofmap_joint_coordinate(const pkm_dofmap *map, int j, int *nfree);

#ifdef __cplusplus
}
#endif
#endif
