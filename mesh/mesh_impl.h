/* mesh/mesh_impl.h: the model's internal layout (mesh/ only; other layers read the model
 * through the accessors of pkm/model.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_MESH_IMPL_H
#define PKM_MESH_IMPL_H

#include "pkm/model.h"

/* A joint's point is a node of a body when within this times max(1 m, the body's largest |node|)
 * of it (relative to the body's size, in metres below 1 m). Cases compute joint points and beam
 * points by separate inverse-kinematics paths (trigonometry and rotations, a few roundings each,
 * so about 1e-15 relative apart); 1e-9 leaves a margin of a million over that, and a point
 * farther off is a point missing from the beam's polyline, which the error message says. */
#define PKM_MESH_COINCIDENT_RTOL 1e-9

/* An inertia tensor is symmetric when its off-diagonal pairs agree to this, relative to their
 * magnitudes (dimensionless): a few roundings of a tensor rotated or summed by the caller, not a
 * typing error. The floor (kg m^2, far below any inertia) keeps the bound positive. */
#define PKM_MESH_INERTIA_SYM_RTOL  1e-12
#define PKM_MESH_INERTIA_SYM_FLOOR 1e-300

struct pkm_model {
    pkm_body *bodies;
    int nbodies, cap_bodies;
    pkm_node *nodes;
    int nnodes, cap_nodes;
    pkm_elem *elems;
    int nelems, cap_elems;
    pkm_joint *joints;
    int njoints, cap_joints;
    pkm_lumped_mass *masses;
    int nmasses, cap_masses;
    pkm_plane *planes;
    int nplanes, cap_planes;
    int platform; /* body index or -1 */
};

#endif
