/* io/h5map_read.c: reading frequency maps back from HDF5 files (layout in docs/hdf5-layout.md).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every attribute and dataset is checked (type class, rank, shape, range) and every size
 * against what the file stores before anything is allocated for it; errors name the object
 * and the file (io/h5map_impl.h). */
#define _POSIX_C_SOURCE 200809L

#include "io/h5map_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LIST entry e of the table (pkm/map.h): a comma-separated list split into at most max_count
 * names of its fields. */
static pkm_status split_names(const h5io *io, const pkm_map_attr *e, const char *list, pkm_map *map)
{
    char *base = (char *)map + e->offset;
    int n = 0;
    const char *p = list;
    for (;;) {
        const size_t len = strcspn(p, ",");
        if (len == 0 || len >= e->size || n == e->max_count)
            return OWN_FAIL(io, PKM_ERR_PARSE,
                            "attribute '%s' = '%s': expected 1 to %d "
                            "comma-separated names of 1 to %zu characters",
                            e->name, list, e->max_count, e->size - 1);
        char *name = base + (size_t)n * e->stride;
        memcpy(name, p, len);
        name[len] = '\0';
        n++;
        memcpy((char *)map + e->count_offset, &n, sizeof(n));
        if (p[len] == '\0') return PKM_OK;
        p += len + 1;
    }
}

/* /grid/<name>: the axis values, which must be evenly spaced from start to stop. */
static pkm_status read_axis(const h5io *io, hid_t file, pkm_map_axis *ax, int npose)
{
    char name[64];
    snprintf(name, sizeof(name), "/grid/%s", ax->name);
    hsize_t n = 0;
    hid_t dset = H5I_INVALID_HID;
    double *v = NULL;
    pkm_status rc = pkm_h5_open_dataset(io, file, name, H5T_FLOAT, 8, 1, &n, &dset);
    if (rc != PKM_OK) return rc;
    if (n < 1 || n > INT32_MAX) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s has %llu values", name, (unsigned long long)n);
        goto done;
    }
    rc = pkm_h5_check_stored(io, file, dset, name, 8.0 * (double)n);
    if (rc == PKM_OK) rc = pkm_h5_check_chunks(io, dset, name, 1, &n, 8);
    if (rc != PKM_OK) goto done;
    v = malloc(sizeof(*v) * (size_t)n);
    if (v == NULL) {
        rc = OWN_FAIL(io, PKM_ERR_NOMEM, "cannot allocate %llu values of %s", (unsigned long long)n,
                      name);
        goto done;
    }
    if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot read dataset %s", name);
        goto done;
    }
    ax->count = (int)n;
    ax->start = v[0];
    ax->stop = v[n - 1];
    const double tol = 1e-9 * (fabs(ax->start) + fabs(ax->stop)) + 1e-300;
    for (int k = 0; k < ax->count; k++)
        if (!(fabs(v[k] - pkm_map_axis_value(ax, k)) <= tol)) {
            rc = OWN_FAIL(io, PKM_ERR_PARSE,
                          "dataset %s: value %d = %g breaks the even spacing "
                          "from %g to %g",
                          name, k, v[k], ax->start, ax->stop);
            goto done;
        }
    rc = pkm_h5_read_str_attr(io, dset, name, "units", ax->unit, sizeof(ax->unit));
    int64_t idx = 0;
    if (rc == PKM_OK) rc = pkm_h5_read_int_attr(io, dset, name, "pose_index", 0, npose - 1, &idx);
    ax->pose_index = (int)idx;
done:
    free(v);
    if (H5Dclose(dset) < 0 && rc == PKM_OK) rc = H5_FAIL(io, PKM_ERR_IO, "cannot close %s", name);
    return rc;
}

/* One parameter of /parameters (open as g), by its key. */
static pkm_status read_param(const h5io *io, hid_t g, pkm_map_param *q)
{
    const H5T_class_t cls = pkm_h5_attr_class(g, q->key);
    int64_t iv = 0;
    pkm_status rc = PKM_OK;
    if (cls == H5T_FLOAT) {
        q->kind = PKM_PARAM_DOUBLE;
        rc = pkm_h5_read_num_attr(io, g, "/parameters", q->key, H5T_NATIVE_DOUBLE, 0, 1, &q->value);
    } else if (cls == H5T_INTEGER) {
        q->kind = PKM_PARAM_INT;
        rc = pkm_h5_read_num_attr(io, g, "/parameters", q->key, H5T_NATIVE_INT64, 1, 1, &iv);
        q->value = (double)iv;
    } else {
        q->kind = PKM_PARAM_ENUM;
        rc = pkm_h5_read_str_attr(io, g, "/parameters", q->key, q->choice, sizeof(q->choice));
    }
    return rc;
}

/* Version 3: /parameters, one attribute per resolved case parameter, each opened by its key from
 * the root attribute parameter_keys, never listed by index (io/h5map.c, write_params). */
static pkm_status read_params(const h5io *io, hid_t file, pkm_map *map)
{
    char keys[KEYS_LEN];
    pkm_status rc = pkm_h5_read_str_attr(io, file, "/", "parameter_keys", keys, sizeof(keys));
    if (rc != PKM_OK) return rc;
    if (H5Lexists(file, "parameters", H5P_DEFAULT) <= 0)
        return OWN_FAIL(io, PKM_ERR_PARSE, "group /parameters is missing");
    const hid_t g = H5Gopen2(file, "parameters", H5P_DEFAULT);
    if (g < 0) return H5_FAIL(io, PKM_ERR_PARSE, "cannot open group /parameters");
    map->nparams = 0;
    const char *p = keys;
    while (rc == PKM_OK && keys[0] != '\0') {
        pkm_map_param *q = &map->params[map->nparams];
        memset(q, 0, sizeof(*q));
        const size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof(q->key) || map->nparams == PKM_MAP_MAX_PARAMS) {
            rc = OWN_FAIL(io, PKM_ERR_PARSE,
                          "attribute 'parameter_keys': expected at most %d comma-separated keys "
                          "of 1 to %zu characters",
                          PKM_MAP_MAX_PARAMS, sizeof(q->key) - 1);
            break;
        }
        memcpy(q->key, p, len);
        q->key[len] = '\0';
        rc = read_param(io, g, q);
        map->nparams++;
        if (p[len] == '\0') break;
        p += len + 1;
    }
    H5Gclose(g);
    return rc;
}

/* A per-point dataset (/modes), present: only the OK points' vectors are stored, and with
 * links (a checkpoint) at least those further links need; without one there is nothing to
 * read, and each one stored bounds ncoord by the file's size. float32 in a checkpoint
 * (pkm_map.modes_single). */
static pkm_status read_per_point(const h5io *io, hid_t file, pkm_map *map,
                                 const pkm_h5_map_dataset *d, const char *objname)
{
    if (map->ncoord < 1)
        return OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s with attribute ncoord = %lld", objname,
                        (long long)map->ncoord);
    int64_t stored = 0;
    for (int64_t p = 0; p < map->npoints; p++)
        stored += map->status[p] == PKM_POSE_OK;
    if (map->link_match != NULL) stored = pkm_map_vectors_needed(map);
    if (stored == 0 && map->link_match == NULL) return PKM_OK;
    const hid_t dset = H5Dopen2(file, objname, H5P_DEFAULT);
    if (dset < 0) return H5_FAIL(io, PKM_ERR_PARSE, "cannot open dataset %s", objname);
    if (stored == 0 && H5Dget_storage_size(dset) > 0) stored = 1; /* kept by --modes */
    const hid_t type = H5Dget_type(dset);
    map->modes_single = type >= 0 && H5Tget_size(type) == 4;
    if (type >= 0) H5Tclose(type);
    pkm_status rc = PKM_OK;
    if (stored > 0)
        rc = pkm_h5_check_stored(io, file, dset, objname,
                                 (map->modes_single ? 4.0 : 8.0) * (double)stored *
                                     (double)map->nev * (double)map->ncoord);
    H5Dclose(dset);
    if (stored == 0) return rc;
    if (rc == PKM_OK) rc = d->alloc(map, io->ctx);
    hsize_t dims[PKM_MAP_MAX_AXES + 2];
    const int rank = pkm_h5_map_dims(d, map, dims);
    if (rc == PKM_OK)
        rc = pkm_h5_read_dataset(io, file, objname, H5T_NATIVE_DOUBLE, H5T_FLOAT,
                                 map->modes_single ? 4 : 8, rank, dims, pkm_h5_map_array(d, map));
    return rc;
}

/* The values of d read into map (count of them), against what the table says they are. */
static pkm_status check_values(const h5io *io, const pkm_map *map, const pkm_h5_map_dataset *d,
                               size_t count)
{
    const void *v = pkm_h5_map_array(d, map);
    for (int64_t p = 0; p < map->npoints && d->values == PKM_H5_VALUES_STATUS; p++)
        if (map->status[p] < PKM_POSE_PENDING || map->status[p] > PKM_POSE_FAILED)
            return OWN_FAIL(io, PKM_ERR_PARSE,
                            "dataset /%s: value %d at point %lld is not a pose status (%s)",
                            d->name, ((const signed char *)v)[p], (long long)p, STATUS_MEANING);
    for (int64_t p = 0; p < map->npoints && d->values == PKM_H5_VALUES_POINT; p++) {
        const int64_t q = ((const int64_t *)v)[p];
        if (q < -1 || q >= map->npoints)
            return OWN_FAIL(io, PKM_ERR_PARSE,
                            "dataset /%s: value %lld at point %lld is not a point", d->name,
                            (long long)q, (long long)p);
    }
    for (size_t i = 0; i < count && d->values == PKM_H5_VALUES_MODE; i++) {
        const int m = ((const int *)v)[i];
        if (m < -1 || m >= map->nev)
            return OWN_FAIL(io, PKM_ERR_PARSE, "dataset /%s: value %d is not a mode", d->name, m);
    }
    return PKM_OK;
}

/* Dataset d of the table: one that not every file has only if this file has it, its array then
 * allocated (by itself or by the dataset before it that it accompanies). */
static pkm_status read_dataset(const h5io *io, hid_t file, pkm_map *map,
                               const pkm_h5_map_dataset *d)
{
    char objname[64];
    snprintf(objname, sizeof(objname), "/%s", d->name);
    if (d->presence != PKM_H5_ALWAYS && H5Lexists(file, d->name, H5P_DEFAULT) <= 0) return PKM_OK;
    if (d->per_point) return read_per_point(io, file, map, d, objname);
    pkm_status rc = d->alloc != NULL ? d->alloc(map, io->ctx) : PKM_OK;
    if (rc == PKM_OK && pkm_h5_map_array(d, map) == NULL)
        return OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s without the dataset it accompanies",
                        objname);
    hsize_t dims[PKM_MAP_MAX_AXES + 2];
    const int rank = pkm_h5_map_dims(d, map, dims);
    size_t count = 1;
    for (int a = 0; a < rank; a++)
        count *= (size_t)dims[a];
    const pkm_h5_elem t = pkm_h5_map_elem(d->type);
    if (rc == PKM_OK)
        rc = pkm_h5_read_dataset(io, file, objname, t.mem, t.cls, t.size, rank, dims,
                                 pkm_h5_map_array(d, map));
    if (rc == PKM_OK) rc = check_values(io, map, d, count);
    return rc;
}

/* Every dataset of the table that the file's version has (pkm_h5_map_datasets). */
static pkm_status read_datasets(const h5io *io, hid_t file, pkm_map *map, int version)
{
    pkm_status rc = PKM_OK;
    for (int k = 0; k < pkm_h5_map_dataset_count && rc == PKM_OK; k++)
        if (pkm_h5_map_datasets[k].since <= version)
            rc = read_dataset(io, file, map, &pkm_h5_map_datasets[k]);
    if (rc == PKM_OK && version < 2)
        snprintf(map->tracking_note, sizeof(map->tracking_note), "format version 1");
    return rc;
}

/* /freq_hz stores points x nev doubles: checked before pkm_map_alloc allocates for them. */
static pkm_status check_results_size(const h5io *io, hid_t file, const pkm_map *map)
{
    double need = 8.0 * (double)map->nev;
    for (int a = 0; a < map->naxes; a++)
        need *= (double)map->axes[a].count;
    if (H5Lexists(file, "freq_hz", H5P_DEFAULT) <= 0)
        return OWN_FAIL(io, PKM_ERR_PARSE, "dataset /freq_hz is missing");
    const hid_t dset = H5Dopen2(file, "/freq_hz", H5P_DEFAULT);
    if (dset < 0) return H5_FAIL(io, PKM_ERR_PARSE, "cannot open dataset /freq_hz");
    const pkm_status rc = pkm_h5_check_stored(io, file, dset, "/freq_hz", need);
    H5Dclose(dset);
    return rc;
}

/* Root attribute e of the table (pkm/map.h) into its field: an INT within [lo, hi], a CHOICE one
 * of its names, a LIST of at most max_count names. */
static pkm_status read_table_attr(const h5io *io, hid_t file, pkm_map *map, const pkm_map_attr *e)
{
    char *field = (char *)map + e->offset;
    char text[LIST_LEN];
    int n = 0, i32 = 0;
    int64_t i = 0;
    pkm_status rc = PKM_OK;
    switch (e->kind) {
    case PKM_MAP_ATTR_STRING:
        return pkm_h5_read_str_attr(io, file, "/", e->name, field, e->size);
    case PKM_MAP_ATTR_INT:
        rc = pkm_h5_read_int_attr(io, file, "/", e->name, e->lo, e->hi, &i);
        if (e->size == sizeof(int32_t)) {
            const int32_t v = (int32_t)i; /* within [lo, hi], which the field holds */
            memcpy(field, &v, sizeof(v));
        } else {
            memcpy(field, &i, sizeof(i));
        }
        return rc;
    case PKM_MAP_ATTR_DOUBLE:
    case PKM_MAP_ATTR_DOUBLES:
        n = 1;
        if (e->kind == PKM_MAP_ATTR_DOUBLES) memcpy(&n, (char *)map + e->count_offset, sizeof(n));
        return pkm_h5_read_num_attr(io, file, "/", e->name, H5T_NATIVE_DOUBLE, 0, n, field);
    case PKM_MAP_ATTR_CHOICE:
        rc = pkm_h5_read_choice_attr(io, file, "/", e->name, e->choice, &i32);
        memcpy(field, &i32, sizeof(i32));
        return rc;
    case PKM_MAP_ATTR_LIST:
        rc = pkm_h5_read_str_attr(io, file, "/", e->name, text, sizeof(text));
        return rc == PKM_OK ? split_names(io, e, text, map) : rc;
    case PKM_MAP_ATTR_PARAMS:
        return read_params(io, file, map);
    case PKM_MAP_ATTR_WRITTEN:
        return PKM_OK; /* a record of the file, not of the map */
    }
    return OWN_FAIL(io, PKM_ERR_PARSE, "attribute '%s' of unknown kind %d", e->name, (int)e->kind);
}

static pkm_status read_contents(const h5io *io, hid_t file, pkm_map *map)
{
    char text[LIST_LEN];
    int64_t i = 0;
    pkm_status rc = pkm_h5_read_str_attr(io, file, "/", "format", text, sizeof(text));
    if (rc == PKM_OK && strcmp(text, MAP_FORMAT) != 0)
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "attribute 'format' = '%s', expected '%s'", text,
                      MAP_FORMAT);
    if (rc == PKM_OK)
        rc = pkm_h5_read_int_attr(io, file, "/", "format_version", 1, MAP_FORMAT_VERSION, &i);
    const int version = (int)i;
    /* What an older version lacks: no commit, the default tracking settings. */
    snprintf(map->commit, sizeof(map->commit), "unknown");
    map->track = pkm_track_opts_default();
    for (int k = 0; k < pkm_map_attr_count && rc == PKM_OK; k++)
        if (pkm_map_attrs[k].since <= version)
            rc = read_table_attr(io, file, map, &pkm_map_attrs[k]);
    map->opts.nev = map->nev;
    if (rc == PKM_OK && H5Lexists(file, "grid", H5P_DEFAULT) <= 0)
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "group /grid is missing");
    for (int a = 0; a < map->naxes && rc == PKM_OK; a++) {
        rc = read_axis(io, file, &map->axes[a], map->npose);
        for (int b = 0; b < a && rc == PKM_OK; b++)
            if (map->axes[b].pose_index == map->axes[a].pose_index)
                rc = OWN_FAIL(io, PKM_ERR_PARSE,
                              "axes '%s' and '%s' sweep the same pose "
                              "coordinate %d",
                              map->axes[b].name, map->axes[a].name, map->axes[a].pose_index);
    }
    if (rc != PKM_OK) return rc;
    rc = check_results_size(io, file, map);
    if (rc != PKM_OK) return rc;

    /* pkm_map_alloc resets how the ids were made; the file says. */
    const pkm_tracking tracking = map->tracking;
    char note[sizeof(map->tracking_note)];
    memcpy(note, map->tracking_note, sizeof(note));
    rc = pkm_map_alloc(map, io->ctx);
    if (rc != PKM_OK) return rc;
    map->tracking = tracking;
    memcpy(map->tracking_note, note, sizeof(note));
    return read_datasets(io, file, map, version);
}

pkm_status pkm_map_read_h5(const char *path, pkm_map *map, pkm_ctx *ctx)
{
    if (map == NULL || path == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map read: NULL map or path");
    memset(map, 0, sizeof(*map));
    const h5io io = {path, ctx};
    h5_quiet q;
    pkm_h5_quiet_begin(&q);
    hid_t file = H5I_INVALID_HID;
    pkm_status rc = pkm_h5_file_open_read(&io, &file);
    if (rc == PKM_OK) {
        rc = read_contents(&io, file, map);
        if (H5Fclose(file) < 0 && rc == PKM_OK) rc = H5_FAIL(&io, PKM_ERR_IO, "cannot close");
    }
    if (rc != PKM_OK) pkm_map_free(map);
    pkm_h5_quiet_end(&q);
    return rc;
}
