/* include/pkm/topology.h: the spanning tree, legs and cuts of a pkm_model, read-only.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The virtual tree of Germain et al. 2015, sec. 3: the bodies are reached breadth-first from the
 * ground through joints not flagged as cuts, never entering the platform (which is cut free and
 * carries its own twist); every joint not used by the tree closes a loop and is a cut. A leg is a
 * group of bodies joined without passing through the ground or the platform. The virtual-tree
 * assembly builds its leg Jacobians on it; the rigid-body dynamics walks the same legs. Bodies,
 * joints and nodes are the model's indices; the model must outlive the topology and not change. */
#ifndef PKM_TOPOLOGY_H
#define PKM_TOPOLOGY_H

#include "pkm/model.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_topology pkm_topology;

/* Fails with PKM_ERR_MODEL naming the body or joint when a body other than the platform is
 * reached from the ground only through the platform or cut joints, or when a joint connects the
 * platform to the ground directly; PKM_ERR_NOMEM. */
pkm_status pkm_topology_create(const pkm_model *m, pkm_topology **out, pkm_ctx *ctx);
void pkm_topology_destroy(pkm_topology **t);

int pkm_topology_leg_count(const pkm_topology *t);
int pkm_topology_cut_count(const pkm_topology *t);

/* Every body but the platform in breadth-first order from the ground (a body after its parent);
 * returns their number. */
int pkm_topology_order(const pkm_topology *t, const int **bodies);

/* The leg of a body (-1 for the platform) or of a joint (the leg of its body that is not the
 * platform or the ground). */
int pkm_topology_body_leg(const pkm_topology *t, int body);
int pkm_topology_joint_leg(const pkm_topology *t, int joint);

/* The tree joint through which the tree enters a body and the body's node at it; -1 for the
 * platform. */
int pkm_topology_parent_joint(const pkm_topology *t, int body);
int pkm_topology_entry_node(const pkm_topology *t, int body);

/* 1 if the joint closes a loop (not in the tree), else 0. */
int pkm_topology_is_cut(const pkm_topology *t, int joint);

/* A leg's bodies in breadth-first order from the base, and its joints: the tree joints in the
 * order of the bodies they enter, then its cuts by index. Return their number. */
int pkm_topology_leg_bodies(const pkm_topology *t, int leg, const int **bodies);
int pkm_topology_leg_joints(const pkm_topology *t, int leg, const int **joints);

#ifdef __cplusplus
}
#endif
#endif
