/* mesh/mesh_impl.h: the model's internal layout (mesh/ only; other layers read the model
 * through the accessors of pkm/model.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_MESH_IMPL_H
#define PKM_MESH_IMPL_H

#include "pkm/model.h"

struct pkm_model {
    pkm_body *bodies;
    int nbodies, cap_bodies;
    pkm_node *nodes;
    int nnodes, cap_nodes;
    pkm_elem *elems;
    int nelems, cap_elems;
    pkm_joint *joints;
    int njoints, cap_joints;
    int platform; /* body index or -1 */
};

#endif
