/* solvers/map.c: frequency-map storage and grid indexing.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "pkm/map.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

pkm_status pkm_map_alloc(pkm_map *map, pkm_ctx *ctx)
{
    if (map->naxes < 1 || map->naxes > PKM_MAP_MAX_AXES)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map: %d axes (need 1 to %d)", map->naxes,
                        PKM_MAP_MAX_AXES);
    if (map->nev < 1) return PKM_FAIL(ctx, PKM_ERR_INVALID, "map: nev = %d must be >= 1", map->nev);
    int64_t np = 1;
    for (int a = 0; a < map->naxes; a++) {
        if (map->axes[a].count < 1 || np > INT64_MAX / 2 / map->axes[a].count)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "map: axis '%s' has %d points",
                            map->axes[a].name, map->axes[a].count);
        np *= map->axes[a].count;
    }
    map->npoints = np;
    const size_t nv = (size_t)np * (size_t)map->nev;
    map->status = malloc(sizeof(*map->status) * (size_t)np);
    map->freq_hz = malloc(sizeof(*map->freq_hz) * nv);
    map->residual = malloc(sizeof(*map->residual) * nv);
    map->tracked = malloc(sizeof(*map->tracked) * nv);
    if (map->status == NULL || map->freq_hz == NULL || map->residual == NULL ||
        map->tracked == NULL) {
        pkm_map_free(map);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map: cannot allocate %lld points x %d modes",
                        (long long)np, map->nev);
    }
    for (int64_t p = 0; p < np; p++) map->status[p] = PKM_POSE_PENDING;
    for (size_t i = 0; i < nv; i++) {
        map->freq_hz[i] = NAN;
        map->residual[i] = NAN;
        map->tracked[i] = -1;
    }
    return PKM_OK;
}

void pkm_map_free(pkm_map *map)
{
    if (map == NULL) return;
    free(map->status);
    free(map->freq_hz);
    free(map->residual);
    free(map->tracked);
    map->status = NULL;
    map->freq_hz = map->residual = NULL;
    map->tracked = NULL;
}

double pkm_map_axis_value(const pkm_map_axis *a, int k)
{
    if (a->count <= 1) return a->start;
    /* Interpolate from both ends so that the last value is exactly `stop`. */
    const double t = (double)k / (double)(a->count - 1);
    return (1.0 - t) * a->start + t * a->stop;
}

void pkm_map_pose(const pkm_map *map, int64_t p, double *pose)
{
    for (int k = 0; k < map->npose; k++) pose[k] = map->base_pose[k];
    /* Row-major: the last axis varies fastest. */
    for (int a = map->naxes - 1; a >= 0; a--) {
        const int c = map->axes[a].count;
        pose[map->axes[a].pose_index] = pkm_map_axis_value(&map->axes[a], (int)(p % c));
        p /= c;
    }
}
