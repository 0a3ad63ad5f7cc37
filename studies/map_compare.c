/* studies/map_compare.c: statistics of frequency maps: two maps compared rank by rank, and the
 * summary of one (status counts, frequency ranges, tracking links).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "pkm/map.h"
#include "pkm/motion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pkm_map_diff_free(pkm_map_diff *d)
{
    if (d == NULL) return;
    free(d->max_rel);
    free(d->mean_rel);
    free(d->worst);
    memset(d, 0, sizeof(*d));
}

pkm_status pkm_map_compare(const pkm_map *a, const pkm_map *b, pkm_map_diff *d, pkm_ctx *ctx)
{
    memset(d, 0, sizeof(*d));
    pkm_status st = pkm_map_same_grid(a, b, ctx);
    if (st != PKM_OK) return st;
    d->nev = a->nev < b->nev ? a->nev : b->nev;
    const size_t n = d->nev > 0 ? (size_t)d->nev : 1;
    d->max_rel = calloc(n, sizeof(*d->max_rel));
    d->mean_rel = calloc(n, sizeof(*d->mean_rel));
    d->worst = calloc(n, sizeof(*d->worst));
    if (d->max_rel == NULL || d->mean_rel == NULL || d->worst == NULL) {
        pkm_map_diff_free(d);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map comparison: cannot allocate %zu ranks", n);
    }
    /* -1: the first point OK in both is the worst so far, even at a difference of 0 */
    for (int k = 0; k < d->nev; k++)
        d->max_rel[k] = -1.0;
    for (int64_t p = 0; p < a->npoints; p++) {
        const int oka = a->status[p] == PKM_POSE_OK, okb = b->status[p] == PKM_POSE_OK;
        if (oka != okb) d->one_only++;
        if (!oka || !okb) continue;
        d->both++;
        for (int k = 0; k < d->nev; k++) {
            const double fa = a->freq_hz[p * a->nev + k], fb = b->freq_hz[p * b->nev + k];
            const double r = (fa == fb) ? 0.0 : fabs(fa - fb) / fabs(fb);
            d->mean_rel[k] += r; /* the sum until divided below */
            if (r > d->max_rel[k]) {
                d->max_rel[k] = r;
                d->worst[k] = p;
            }
        }
    }
    d->max_rank = 1;
    for (int k = 0; k < d->nev; k++) {
        if (d->both == 0) {
            d->max_rel[k] = 0.0;
            continue;
        }
        d->mean_rel[k] /= (double)d->both;
        if (d->max_rel[k] > d->max_all) d->max_all = d->max_rel[k], d->max_rank = k + 1;
    }
    return PKM_OK;
}

void pkm_map_summary_free(pkm_map_summary *s)
{
    if (s == NULL) return;
    free(s->freq_min);
    free(s->freq_max);
    memset(s, 0, sizeof(*s));
}

pkm_status pkm_map_summarize(const pkm_map *map, pkm_map_summary *s, pkm_ctx *ctx)
{
    memset(s, 0, sizeof(*s));
    const size_t n = map->nev > 0 ? (size_t)map->nev : 1;
    s->freq_min = malloc(n * sizeof(*s->freq_min));
    s->freq_max = malloc(n * sizeof(*s->freq_max));
    if (s->freq_min == NULL || s->freq_max == NULL) {
        pkm_map_summary_free(s);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map summary: cannot allocate %zu ranks", n);
    }
    for (int k = 0; k < map->nev; k++)
        s->freq_min[k] = INFINITY, s->freq_max[k] = -INFINITY;
    s->lowest_mac = 1.0;
    for (int64_t p = 0; p < map->npoints; p++) {
        const int status = map->status[p];
        if (status == PKM_POSE_PENDING) s->pending++;
        if (status < PKM_POSE_OK || status > PKM_POSE_FAILED) continue;
        s->count[status]++;
        if (status != PKM_POSE_OK) continue;
        s->near_singular += map->conditioning != NULL && map->conditioning[p] < PKM_NEAR_SINGULAR;
        for (int k = 0; k < map->nev; k++) {
            s->freq_min[k] = fmin(s->freq_min[k], map->freq_hz[p * map->nev + k]);
            s->freq_max[k] = fmax(s->freq_max[k], map->freq_hz[p * map->nev + k]);
        }
    }
    if (map->tracking != PKM_TRACK_MAC) return PKM_OK;
    for (int64_t p = 0; p < map->npoints; p++) {
        if (map->tracking_parent[p] < 0) continue;
        s->links++;
        for (int k = 0; k < map->nev; k++) {
            const double m = map->tracking_mac[p * map->nev + k];
            s->low_links += m < map->track.mac_threshold;
            s->lowest_mac = fmin(s->lowest_mac, m);
        }
    }
    return PKM_OK;
}
