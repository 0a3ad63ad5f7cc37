/* studies/studies_impl.h: private interface of the studies layer (sweep, maps, tracking).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_STUDIES_IMPL_H
#define PKM_STUDIES_IMPL_H

#include "pkm/map.h"

/* Tracked ids equal to the frequency ranks at every OK point (-1 elsewhere), no links: the ids
 * of a sweep in progress, or of a map whose mode vectors were not kept. */
void pkm_map_track_ranks(pkm_map *map);

#endif
