/* studies/map.c: frequency-map storage, grid indexing and comparison of map set-ups.
 * SPDX-License-Identifier: LGPL-2.1-or-later */

#include "core/core_impl.h"
#include "pkm/map.h"
#include "studies/studies_impl.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PKM_VERSION
#define PKM_VERSION "unknown"
#endif
#ifndef PKM_COMMIT
#define PKM_COMMIT "unknown"
#endif

void pkm_map_init(pkm_map *map)
{
    memset(map, 0, sizeof(*map));
    map->opts = pkm_modal_opts_default();
    map->track = pkm_track_opts_default();
    map->track_bytes = PKM_MAP_TRACK_BYTES;
    snprintf(map->version, sizeof(map->version), "%s", PKM_VERSION);
    snprintf(map->commit, sizeof(map->commit), "%s", PKM_COMMIT);
}

/* The bytes of a case file and their SHA-256; the file is read again here rather than handed
 * over by the loader, so a file changed in between is recorded as it is now. */
static pkm_status hash_file(const char *path, char hex[65], pkm_ctx *ctx)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return PKM_FAIL(ctx, PKM_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    pkm_status rc = PKM_OK;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 65536;
            char *b = realloc(buf, cap);
            if (b == NULL) {
                rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, cap);
                break;
            }
            buf = b;
        }
        const size_t k = fread(buf + len, 1, cap - len, f);
        len += k;
        if (k == 0) break;
    }
    if (rc == PKM_OK && ferror(f)) rc = PKM_FAIL(ctx, PKM_ERR_IO, "%s: read error", path);
    if (rc == PKM_OK) pkm_sha256_hex(buf, len, hex);
    free(buf);
    fclose(f);
    return rc;
}

pkm_status pkm_map_set_case(pkm_map *map, const pkm_case *c, const void *params,
                            const char *case_file, pkm_ctx *ctx)
{
    if (c->nparams > PKM_MAP_MAX_PARAMS)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map: case '%s' has %d parameters, at most %d",
                        c->name, c->nparams, PKM_MAP_MAX_PARAMS);
    snprintf(map->case_name, sizeof(map->case_name), "%s", c->name);
    map->nparams = c->nparams;
    for (int k = 0; k < c->nparams; k++) {
        const pkm_param_desc *d = &c->params[k];
        pkm_map_param *q = &map->params[k];
        memset(q, 0, sizeof(*q));
        if (snprintf(q->key, sizeof(q->key), "%s", d->key) >= (int)sizeof(q->key))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "map: parameter key '%s' is too long", d->key);
        q->kind = d->kind;
        const char *field = (const char *)params + d->offset;
        if (d->kind == PKM_PARAM_DOUBLE) {
            memcpy(&q->value, field, sizeof(double));
        } else if (d->kind == PKM_PARAM_INT) {
            int v;
            memcpy(&v, field, sizeof(v));
            q->value = v;
        } else {
            unsigned v;
            memcpy(&v, field, sizeof(v));
            q->value = v;
            snprintf(q->choice, sizeof(q->choice), "?");
            for (const pkm_param_choice *ch = d->choices; ch->name != NULL; ch++)
                if (ch->value == v) snprintf(q->choice, sizeof(q->choice), "%s", ch->name);
        }
    }
    map->case_file[0] = map->case_sha256[0] = '\0';
    if (case_file == NULL) return PKM_OK;
    if (snprintf(map->case_file, sizeof(map->case_file), "%s", case_file) >=
        (int)sizeof(map->case_file))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map: case file name '%s' is too long", case_file);
    return hash_file(case_file, map->case_sha256, ctx);
}

pkm_status pkm_map_alloc(pkm_map *map, pkm_ctx *ctx)
{
    if (map->naxes < 1 || map->naxes > PKM_MAP_MAX_AXES)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map: %d axes (need 1 to %d)", map->naxes,
                        PKM_MAP_MAX_AXES);
    if (map->nev < 1) return PKM_FAIL(ctx, PKM_ERR_INVALID, "map: nev = %d must be >= 1", map->nev);
    int64_t np = 1;
    for (int a = 0; a < map->naxes; a++) {
        if (map->axes[a].count < 1 || np > INT64_MAX / 2 / map->axes[a].count)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "map: axis '%s' has %d points", map->axes[a].name,
                            map->axes[a].count);
        np *= map->axes[a].count;
    }
    map->npoints = np;
    const size_t nv = (size_t)np * (size_t)map->nev;
    map->status = malloc(sizeof(*map->status) * (size_t)np);
    map->freq_hz = malloc(sizeof(*map->freq_hz) * nv);
    map->residual = malloc(sizeof(*map->residual) * nv);
    map->accuracy = malloc(sizeof(*map->accuracy) * nv);
    map->conditioning = malloc(sizeof(*map->conditioning) * (size_t)np);
    map->tracked = malloc(sizeof(*map->tracked) * nv);
    map->tracking_mac = malloc(sizeof(*map->tracking_mac) * nv);
    map->tracking_parent = malloc(sizeof(*map->tracking_parent) * (size_t)np);
    if (map->status == NULL || map->freq_hz == NULL || map->residual == NULL ||
        map->accuracy == NULL || map->conditioning == NULL || map->tracked == NULL ||
        map->tracking_mac == NULL || map->tracking_parent == NULL) {
        pkm_map_free(map);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map: cannot allocate %lld points x %d modes",
                        (long long)np, map->nev);
    }
    for (int64_t p = 0; p < np; p++) {
        map->status[p] = PKM_POSE_PENDING;
        map->tracking_parent[p] = -1;
        map->conditioning[p] = NAN;
    }
    for (size_t i = 0; i < nv; i++) {
        map->freq_hz[i] = NAN;
        map->residual[i] = NAN;
        map->accuracy[i] = NAN;
        map->tracked[i] = -1;
        map->tracking_mac[i] = NAN;
    }
    map->tracking = PKM_TRACK_RANK;
    map->tracking_note[0] = '\0';
    return PKM_OK;
}

/* Per point: status, parent, conditioning; per mode: frequency, residual, accuracy, MAC (8 bytes
 * each) and tracked id (4), as allocated by pkm_map_alloc and written by pkm_map_write_h5. */
static double bytes_per_point(const pkm_map *map)
{
    return 1.0 + 2 * 8.0 + (double)map->nev * (4 * 8.0 + 4.0);
}

pkm_map_needs pkm_map_estimate(const pkm_map *map, int nworkers)
{
    double np = 1.0;
    for (int a = 0; a < map->naxes; a++)
        np *= (double)map->axes[a].count;
    const double arrays = np * bytes_per_point(map);
    /* The workers' shared copy: status, conditioning, frequency, residual, accuracy. */
    const double shared = nworkers > 1 ? np * (1.0 + 8.0 + 3 * 8.0 * (double)map->nev) : 0.0;
    /* The tracking links (pkm_map.link_match, link_mac), in memory and in checkpoints. */
    const double links = np * (double)map->naxes * (double)map->nev * (4.0 + 8.0);
    /* A file holds the arrays plus its metadata (~64 KiB measured, with the parameters); the
     * writer builds it in memory and copies it out once (io/h5map.c). A checkpoint adds the
     * links; the new one is written beside the old. */
    const double file = arrays + 65536.0;
    return (pkm_map_needs){arrays + links + shared + 2.0 * (file + links),
                           file + 2.0 * (file + links)};
}

double pkm_map_memory_free(void)
{
    return pkm_memory_free_bytes();
}

pkm_status pkm_map_alloc_modes(pkm_map *map, pkm_ctx *ctx)
{
    pkm_map_free_modes(map);
    if (map->ncoord < 1 || map->npoints < 1 || map->nev < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map: cannot keep modes of %lld coordinates",
                        (long long)map->ncoord);
    const uint64_t per_point = (uint64_t)map->nev * (uint64_t)map->ncoord;
    if (per_point > SIZE_MAX / sizeof(double) / (uint64_t)map->npoints)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map: %lld points x %llu mode values overflow",
                        (long long)map->npoints, (unsigned long long)per_point);
    const size_t count = (size_t)map->npoints * (size_t)per_point;
    const size_t bytes = count * sizeof(double);
    /* malloc would succeed beyond the memory (overcommit) and the NaN fill below be killed. */
    const double avail = pkm_map_memory_free();
    if (avail > 0.0 && (double)bytes > avail)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM,
                        "map: the mode vectors need %.3g GiB (%lld points x %d modes x %lld "
                        "coordinates x 8 bytes), %.3g GiB of memory is free",
                        (double)bytes / 1073741824.0, (long long)map->npoints, map->nev,
                        (long long)map->ncoord, avail / 1073741824.0);
    map->modes = malloc(bytes);
    if (map->modes == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map: cannot allocate %zu bytes for the mode vectors",
                        bytes);
    for (size_t i = 0; i < count; i++)
        map->modes[i] = NAN;
    return PKM_OK;
}

void pkm_map_free_modes(pkm_map *map)
{
    if (map == NULL) return;
    free(map->modes);
    map->modes = NULL;
}

pkm_status pkm_map_alloc_links(pkm_map *map, pkm_ctx *ctx)
{
    pkm_map_free_links(map);
    const size_t count = (size_t)map->npoints * (size_t)map->naxes * (size_t)map->nev;
    map->link_match = malloc(sizeof(*map->link_match) * count);
    map->link_mac = malloc(sizeof(*map->link_mac) * count);
    if (map->link_match == NULL || map->link_mac == NULL) {
        pkm_map_free_links(map);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map: cannot allocate the links of %lld points",
                        (long long)map->npoints);
    }
    for (size_t i = 0; i < count; i++) {
        map->link_match[i] = -1;
        map->link_mac[i] = NAN;
    }
    return PKM_OK;
}

void pkm_map_free_links(pkm_map *map)
{
    if (map == NULL) return;
    free(map->link_match);
    free(map->link_mac);
    map->link_match = NULL;
    map->link_mac = NULL;
}

void pkm_map_free(pkm_map *map)
{
    if (map == NULL) return;
    pkm_map_free_links(map);
    free(map->status);
    free(map->freq_hz);
    free(map->residual);
    free(map->accuracy);
    free(map->conditioning);
    free(map->tracked);
    free(map->tracking_mac);
    free(map->tracking_parent);
    pkm_map_free_modes(map);
    map->status = NULL;
    map->freq_hz = map->residual = map->accuracy = map->tracking_mac = map->conditioning = NULL;
    map->tracked = NULL;
    map->tracking_parent = NULL;
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
    for (int k = 0; k < map->npose; k++)
        pose[k] = map->base_pose[k];
    /* Row-major: the last axis varies fastest. */
    for (int a = map->naxes - 1; a >= 0; a--) {
        const int c = map->axes[a].count;
        pose[map->axes[a].pose_index] = pkm_map_axis_value(&map->axes[a], (int)(p % c));
        p /= c;
    }
}

pkm_status pkm_map_same_grid(const pkm_map *a, const pkm_map *b, pkm_ctx *ctx)
{
    if (a->npose != b->npose)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "%d pose coordinates against %d", a->npose, b->npose);
    for (int k = 0; k < a->npose; k++) {
        if (strcmp(a->pose_names[k], b->pose_names[k]) != 0)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "pose coordinate %d is '%s' against '%s'", k,
                            a->pose_names[k], b->pose_names[k]);
        if (!pkm_map_same_value(a->base_pose[k], b->base_pose[k]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "base pose %s = %.15g against %.15g",
                            a->pose_names[k], a->base_pose[k], b->base_pose[k]);
    }
    if (a->naxes != b->naxes)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "%d axes against %d", a->naxes, b->naxes);
    for (int i = 0; i < a->naxes; i++) {
        const pkm_map_axis *x = &a->axes[i], *y = &b->axes[i];
        if (strcmp(x->name, y->name) != 0 || x->pose_index != y->pose_index)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "axis %d is '%s' against '%s'", i, x->name,
                            y->name);
        /* A single value is start: the stop of a COUNT=1 axis is not used, and a file stores
         * only the values (it reads back as start = stop). */
        if (x->count != y->count || !pkm_map_same_value(x->start, y->start) ||
            (x->count > 1 && !pkm_map_same_value(x->stop, y->stop)))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "axis '%s' is %.15g:%.15g:%d against %.15g:%.15g:%d", x->name, x->start,
                            x->stop, x->count, y->start, y->stop, y->count);
    }
    return PKM_OK;
}

static void param_text(const pkm_map_param *q, char *out, size_t cap)
{
    if (q->kind == PKM_PARAM_ENUM)
        snprintf(out, cap, "%s", q->choice);
    else
        snprintf(out, cap, "%.17g", q->value);
}

pkm_status pkm_map_same_params(const pkm_map *a, const pkm_map *b, pkm_ctx *ctx)
{
    for (int pass = 0; pass < 2; pass++) {
        const pkm_map *x = pass ? b : a, *y = pass ? a : b;
        for (int i = 0; i < x->nparams; i++) {
            const pkm_map_param *p = &x->params[i], *q = NULL;
            for (int j = 0; j < y->nparams && q == NULL; j++)
                if (strcmp(y->params[j].key, p->key) == 0) q = &y->params[j];
            if (q == NULL)
                return PKM_FAIL(ctx, PKM_ERR_INVALID, "parameter %s %s", p->key,
                                pass ? "missing against present" : "present against missing");
            const int same = p->kind == q->kind &&
                             (p->kind == PKM_PARAM_ENUM ? strcmp(p->choice, q->choice) == 0
                                                        : pkm_map_same_value(p->value, q->value));
            if (pass == 0 && !same) {
                char u[64], v[64];
                param_text(p, u, sizeof(u));
                param_text(q, v, sizeof(v));
                return PKM_FAIL(ctx, PKM_ERR_INVALID, "parameter %s = %s against %s", p->key, u, v);
            }
        }
    }
    return PKM_OK;
}
