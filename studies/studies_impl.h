/* studies/studies_impl.h: private interface of the studies layer (sweep, maps, tracking).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_STUDIES_IMPL_H
#define PKM_STUDIES_IMPL_H

#include "pkm/map.h"
#include "pkm/modal.h"

/* Tracked ids equal to the frequency ranks at every OK point (-1 elsewhere), no links: the ids
 * of a sweep in progress, or of a map whose mode vectors were not kept. */
void pkm_map_track_ranks(pkm_map *map);

/* Link every pair of neighbouring OK points not linked yet whose two vectors are at hand
 * (map->modes; the links go to map->link_match and link_mac, allocated here); with drop, and
 * unless map->keep_modes, then drop (NaN) the vectors of the OK points that no further link
 * needs (pkm_map_vectors_needed). Nothing without map->modes. ring_bytes: the most memory the
 * points' prepared modes may take (PKM_MAP_RING_BYTES; a smaller ring prepares points again,
 * with the same links). */
#define PKM_MAP_RING_BYTES ((size_t)64 << 20)
pkm_status pkm_map_link(pkm_map *map, int drop, size_t ring_bytes, pkm_ctx *ctx);

/* Equal numbers: values that went through a file come back bit for bit; NaN (automatic sigma)
 * equals NaN. */
int pkm_map_same_value(double a, double b);

/* The resolved parameters of a and b, matched by key, equal by value; PKM_ERR_INVALID naming the
 * first difference, a's value first. */
pkm_status pkm_map_same_params(const pkm_map *a, const pkm_map *b, pkm_ctx *ctx);

/* The transient driver's natural frequencies along the trajectory: a modal solver kept while the
 * pattern version of the assembly cache stays, and the last solve's modes. */
typedef struct pkm_tr_freq {
    pkm_modal *solver;
    pkm_modes *modes;
    int64_t version; /* the pattern version the solver was analysed on */
} pkm_tr_freq;

/* The lowest nev frequencies of p (pattern version `version`) into f->modes->freq_hz; the
 * failure names the time t. */
pkm_status pkm_tr_freq_update(pkm_tr_freq *f, const pkm_pencil *p, int64_t version, int nev,
                              double t, pkm_ctx *ctx);
void pkm_tr_freq_free(pkm_tr_freq *f);

/* A point's rigid acceleration less the gravity g (NULL: none) and the angular acceleration, from
 * its body's twist V and acceleration A at the origin: a point at x accelerates at A_v + A_w x x +
 * w x (v + w x x). */
void pkm_tr_node_accel(const double V[6], const double A[6], const double g[3], const double x[3],
                       double out[6]);

/* Beam element e of body b moving with its body's twist and acceleration VA: its nodes' rigid
 * accelerations less g as the loads take them (6 per node, the rotations the slopes of the rigid
 * field along the element) and the moment each node takes of the sections' angular momentum
 * rate (pkm_transient_loads: the element's load is -(M_e ua) and -gyro at each node). */
pkm_status pkm_tr_element_rigid(const pkm_model *m, const pkm_body *b, const pkm_elem *e,
                                const double VA[12], const double g[3], double ua[12],
                                double gyro[3], pkm_ctx *ctx);

/* Beam element e of body b (a spatial entry of pkm_beam_types) of model m: the twist blocks (its
 * first 6 dofs per node) of its consistent mass M and, when K is not NULL, its stiffness, rotated
 * to global axes. */
pkm_status pkm_tr_element_matrices(const pkm_model *m, const pkm_body *b, const pkm_elem *e,
                                   double M[12][12], double K[12][12], pkm_ctx *ctx);

#endif
