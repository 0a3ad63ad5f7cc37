/* studies/studies_impl.h: private interface of the studies layer (sweep, maps, tracking).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_STUDIES_IMPL_H
#define PKM_STUDIES_IMPL_H

#include "pkm/map.h"

/* Tracked ids equal to the frequency ranks at every OK point (-1 elsewhere), no links: the ids
 * of a sweep in progress, or of a map whose mode vectors were not kept. */
void pkm_map_track_ranks(pkm_map *map);

/* Link every pair of neighbouring OK points not linked yet whose two vectors are at hand
 * (map->modes; the links go to map->link_match and link_mac, allocated here); with drop, and
 * unless map->keep_modes, then drop (NaN) the vectors of the OK points that no further link
 * needs (pkm_map_vectors_needed). Nothing without map->modes. */
pkm_status pkm_map_link(pkm_map *map, int drop, pkm_ctx *ctx);

/* Equal numbers: values that went through a file come back bit for bit; NaN (automatic sigma)
 * equals NaN. */
int pkm_map_same_value(double a, double b);

/* The resolved parameters of a and b, matched by key, equal by value; PKM_ERR_INVALID naming the
 * first difference, a's value first. */
pkm_status pkm_map_same_params(const pkm_map *a, const pkm_map *b, pkm_ctx *ctx);

#endif
