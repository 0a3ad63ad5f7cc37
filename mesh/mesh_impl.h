/* mesh/mesh_impl.h: the model's internal layout, shared with the assembly layer.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_MESH_IMPL_H
#define PKM_MESH_IMPL_H

#include "pkm/model.h"

#define PKM_NAME_LEN 64

typedef enum pkm_body_kind { PKM_BODY_BEAM, PKM_BODY_RIGID } pkm_body_kind;

typedef struct pkm_body {
    pkm_body_kind kind;
    char name[PKM_NAME_LEN];
    /* beam: nnodes consecutive nodes along the polyline from first_node; rigid: first_node is
     * the origin, attachment nodes (node.body == this body) may be anywhere after it */
    int first_node, nnodes;
    int first_elem, nelem; /* beam elements, node i to node i+1 of the body */
    double zref[3];
    pkm_section section;
    pkm_material material;
    unsigned mass_flags;
    pkm_beam_element element;
    int end_curvature_zero;
    double mass, com[3], inertia[3][3]; /* rigid */
} pkm_body;

typedef struct pkm_node {
    double x[3];
    int body;
} pkm_node;

typedef struct pkm_elem {
    int body;
    int n1, n2; /* global node indices, n2 = n1 + 1 */
} pkm_elem;

typedef struct pkm_joint {
    char name[PKM_NAME_LEN];
    pkm_joint_type type;
    int body[2]; /* body_a, body_b (PKM_GROUND allowed) */
    int node[2]; /* their nodes at the joint point, -1 for the ground */
    double point[3];
    double axis[3], axis2[3]; /* unit */
    double pitch;             /* helical: m per turn */
    int cut;
} pkm_joint;

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

/* Most free directions a joint has (a spherical joint: 3). */
#define PKM_JOINT_MAX_FREE 3

/* Free directions of a joint as twists (v at the joint point, then w), rows of S; returns their
 * number (0 for clamped, 3 for spherical). */
int pkm_joint_free_twists(const pkm_joint *j, double S[PKM_JOINT_MAX_FREE][6]);

#endif
