/* io/h5map.c: writing frequency maps to HDF5 files (layout in docs/hdf5-layout.md), through the
 * io layer's HDF5 helpers (io/h5_impl.h: errors, attributes, checksummed datasets, the file
 * built in memory and renamed into place).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */

#include "io/h5map_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 1 if s is a NUL-terminated string of 1 to cap - 1 characters without any of `bad`. */
static int good_name(const char *s, size_t cap, const char *bad)
{
    const char *end = memchr(s, '\0', cap);
    return end != NULL && end != s && strpbrk(s, bad) == NULL;
}

/* The map must be representable: names are HDF5 link names ('/' separates groups, "." is the
 * current group) and members of comma-separated lists. */
static pkm_status check_map(const h5io *io, const pkm_map *map)
{
    if (map->naxes < 1 || map->naxes > PKM_MAP_MAX_AXES || map->nev < 1 || map->npose < 1 ||
        map->npose > PKM_POSE_MAX)
        return OWN_FAIL(io, PKM_ERR_INVALID,
                        "cannot write a map with %d axes, %d modes, %d pose "
                        "coordinates",
                        map->naxes, map->nev, map->npose);
    for (int k = 0; k < pkm_h5_map_dataset_count; k++)
        if (pkm_h5_map_datasets[k].presence == PKM_H5_ALWAYS &&
            pkm_h5_map_array(&pkm_h5_map_datasets[k], map) == NULL)
            return OWN_FAIL(io, PKM_ERR_INVALID, "map arrays are not allocated");
    if (map->modes != NULL && map->ncoord < 1)
        return OWN_FAIL(io, PKM_ERR_INVALID, "map has mode vectors of %lld coordinates",
                        (long long)map->ncoord);
    for (int k = 0; k < pkm_map_attr_count; k++) {
        const pkm_map_attr *e = &pkm_map_attrs[k];
        const char *field = (const char *)map + e->offset;
        int v = 0;
        if (e->kind == PKM_MAP_ATTR_STRING && memchr(field, '\0', e->size) == NULL)
            return OWN_FAIL(io, PKM_ERR_INVALID, "attribute '%s' is not terminated", e->name);
        if (e->kind == PKM_MAP_ATTR_CHOICE) memcpy(&v, field, sizeof(v));
        if (e->kind == PKM_MAP_ATTR_CHOICE && e->choice(v) == NULL)
            return OWN_FAIL(io, PKM_ERR_INVALID, "unknown %s %d", e->name, v);
    }
    if (map->nparams < 0 || map->nparams > PKM_MAP_MAX_PARAMS)
        return OWN_FAIL(io, PKM_ERR_INVALID, "%d case parameters", map->nparams);
    for (int k = 0; k < map->nparams; k++)
        if (!good_name(map->params[k].key, sizeof(map->params[k].key), "/,") ||
            memchr(map->params[k].choice, '\0', sizeof(map->params[k].choice)) == NULL)
            return OWN_FAIL(io, PKM_ERR_INVALID, "case parameter %d has a bad name or choice", k);
    for (int k = 0; k < map->npose; k++)
        if (!good_name(map->pose_names[k], PKM_MAP_NAME_LEN, ","))
            return OWN_FAIL(io, PKM_ERR_INVALID,
                            "pose coordinate %d has an empty name or one "
                            "with ','",
                            k);
    int64_t np = 1;
    for (int a = 0; a < map->naxes; a++) {
        const pkm_map_axis *ax = &map->axes[a];
        if (!good_name(ax->name, PKM_MAP_NAME_LEN, ",/") || strcmp(ax->name, ".") == 0 ||
            memchr(ax->unit, '\0', PKM_MAP_NAME_LEN) == NULL)
            return OWN_FAIL(io, PKM_ERR_INVALID,
                            "axis %d: name must be 1 to %d characters "
                            "without ',' or '/', unit terminated",
                            a, PKM_MAP_NAME_LEN - 1);
        if (ax->pose_index < 0 || ax->pose_index >= map->npose || ax->count < 1)
            return OWN_FAIL(io, PKM_ERR_INVALID, "axis '%s': pose index %d (of %d), %d points",
                            ax->name, ax->pose_index, map->npose, ax->count);
        for (int b = 0; b < a; b++)
            if (strcmp(map->axes[b].name, ax->name) == 0)
                return OWN_FAIL(io, PKM_ERR_INVALID, "axis '%s' given twice", ax->name);
        np *= ax->count; /* cannot overflow: at most 8 factors below 2^31 */
    }
    if (np != map->npoints)
        return OWN_FAIL(io, PKM_ERR_INVALID, "map has %lld points, its axes %lld",
                        (long long)map->npoints, (long long)np);
    return PKM_OK;
}

/* write_dataset plus one string attribute, closed. */
/* /parameters: one attribute per resolved case parameter, named by its key: float64 in SI, int64,
 * or the choice name. Their keys are listed in the root attribute parameter_keys, so that the
 * reader opens each one by name: listing a group's attributes by index (H5Aget_name_by_idx) made
 * libhdf5 1.10.8 dereference NULL on a crafted file (H5A__attr_release_table, SIGSEGV). */
static pkm_status write_params(const h5io *io, hid_t file, const pkm_map *map)
{
    char keys[KEYS_LEN] = "";
    size_t len = 0;
    for (int k = 0; k < map->nparams; k++) /* fits: each key is shorter than its share */
        len += (size_t)snprintf(keys + len, sizeof(keys) - len, "%s%s", k > 0 ? "," : "",
                                map->params[k].key);
    pkm_status rc = pkm_h5_write_str_attr(io, file, "/", "parameter_keys", keys);
    if (rc != PKM_OK) return rc;
    hid_t g = H5Gcreate2(file, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return H5_FAIL(io, PKM_ERR_IO, "cannot create group /parameters");
    for (int k = 0; k < map->nparams && rc == PKM_OK; k++) {
        const pkm_map_param *q = &map->params[k];
        if (q->kind == PKM_PARAM_DOUBLE)
            rc = pkm_h5_write_f64_attr(io, g, "/parameters", q->key, q->value);
        else if (q->kind == PKM_PARAM_INT)
            rc = pkm_h5_write_int_attr(io, g, "/parameters", q->key, H5T_STD_I64LE,
                                       (int64_t)q->value);
        else
            rc = pkm_h5_write_str_attr(io, g, "/parameters", q->key, q->choice);
    }
    if (H5Gclose(g) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close group /parameters");
    return rc;
}

/* Root attribute e of the table (pkm/map.h) from its field: an INT in its field's width. */
static pkm_status write_table_attr(const h5io *io, hid_t file, const pkm_map *map,
                                   const pkm_map_attr *e)
{
    const char *field = (const char *)map + e->offset;
    int64_t i = 0;
    int n = 0;
    char list[LIST_LEN];
    switch (e->kind) {
    case PKM_MAP_ATTR_STRING:
        return pkm_h5_write_str_attr(io, file, "/", e->name, field);
    case PKM_MAP_ATTR_INT:
        if (e->size == sizeof(int32_t)) {
            int32_t v;
            memcpy(&v, field, sizeof(v));
            i = v;
        } else {
            memcpy(&i, field, sizeof(i));
        }
        return pkm_h5_write_int_attr(io, file, "/", e->name,
                                     e->size == sizeof(int32_t) ? H5T_STD_I32LE : H5T_STD_I64LE, i);
    case PKM_MAP_ATTR_DOUBLE:
    case PKM_MAP_ATTR_DOUBLES:
        if (e->kind == PKM_MAP_ATTR_DOUBLES)
            memcpy(&n, (const char *)map + e->count_offset, sizeof(n));
        return pkm_h5_write_attr(io, file, "/", e->name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                                 (hsize_t)n, field);
    case PKM_MAP_ATTR_CHOICE:
    case PKM_MAP_ATTR_LIST: /* check_map made every name fit, choices and lists alike */
        pkm_map_attr_text(e, map, list, sizeof(list));
        return pkm_h5_write_str_attr(io, file, "/", e->name, list);
    case PKM_MAP_ATTR_PARAMS:
        return write_params(io, file, map);
    case PKM_MAP_ATTR_WRITTEN: {
        char created[32] = "unknown";
        const time_t now = time(NULL);
        struct tm utc;
        if (now != (time_t)-1 && gmtime_r(&now, &utc) != NULL)
            strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &utc);
        return pkm_h5_write_str_attr(io, file, "/", e->name, created);
    }
    }
    return OWN_FAIL(io, PKM_ERR_INVALID, "attribute '%s' of unknown kind %d", e->name,
                    (int)e->kind);
}

/* The root attributes: the file's name and version, then every entry of the map's table. */
static pkm_status write_root_attrs(const h5io *io, hid_t file, const pkm_map *map)
{
    pkm_status rc = pkm_h5_write_str_attr(io, file, "/", "format", MAP_FORMAT);
    if (rc == PKM_OK)
        rc = pkm_h5_write_int_attr(io, file, "/", "format_version", H5T_STD_I32LE,
                                   MAP_FORMAT_VERSION);
    for (int k = 0; k < pkm_map_attr_count && rc == PKM_OK; k++)
        rc = write_table_attr(io, file, map, &pkm_map_attrs[k]);
    return rc;
}

static pkm_status write_grid(const h5io *io, hid_t file, const pkm_map *map)
{
    pkm_status rc = PKM_OK;
    hid_t grid = H5Gcreate2(file, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (grid < 0) return H5_FAIL(io, PKM_ERR_IO, "cannot create group /grid");
    for (int a = 0; a < map->naxes && rc == PKM_OK; a++) {
        const pkm_map_axis *ax = &map->axes[a];
        char objname[64];
        snprintf(objname, sizeof(objname), "/grid/%s", ax->name);
        double *v = malloc(sizeof(*v) * (size_t)ax->count);
        if (v == NULL) {
            rc = OWN_FAIL(io, PKM_ERR_NOMEM, "cannot allocate %d values of %s", ax->count, objname);
            break;
        }
        for (int k = 0; k < ax->count; k++)
            v[k] = pkm_map_axis_value(ax, k);
        const hsize_t n = (hsize_t)ax->count;
        hid_t dset = H5I_INVALID_HID;
        rc = pkm_h5_write_dataset(io, grid, ax->name, objname, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1,
                                  &n, v, &dset);
        free(v);
        if (rc == PKM_OK) rc = pkm_h5_write_str_attr(io, dset, objname, "units", ax->unit);
        if (rc == PKM_OK)
            rc = pkm_h5_write_int_attr(io, dset, objname, "pose_index", H5T_STD_I32LE,
                                       ax->pose_index);
        if (dset >= 0 && H5Dclose(dset) < 0 && rc == PKM_OK)
            rc = H5_FAIL(io, PKM_ERR_IO, "cannot close %s", objname);
    }
    if (H5Gclose(grid) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close group /grid");
    return rc;
}

/* A per-point dataset (/modes [grid..., nev, ncoord]), one chunk per pose, NaN-filled: only the
 * OK poses that hold vectors are written, so a pose without modes takes no space, a checkpoint
 * taken while workers run writes only complete vectors, and one whose links are made
 * (pkm_map.link_match) only those further links need. Its file type is float32 in a checkpoint
 * (pkm_map.modes_single), else d's. */
static pkm_status write_per_point(const h5io *io, hid_t file, const pkm_map *map,
                                  const pkm_h5_map_dataset *d)
{
    hsize_t dims[PKM_MAP_MAX_AXES + 2], chunk[PKM_MAP_MAX_AXES + 2], start[PKM_MAP_MAX_AXES + 2];
    const int rank = pkm_h5_map_dims(d, map, dims);
    hsize_t per_point = 1;
    for (int a = 0; a < rank; a++) {
        chunk[a] = a < map->naxes ? 1 : dims[a];
        start[a] = 0;
        per_point *= chunk[a];
    }
    const double *data = pkm_h5_map_array(d, map), nan = NAN;
    char objname[64];
    snprintf(objname, sizeof(objname), "/%s", d->name);
    pkm_status rc = PKM_OK;
    hid_t space = H5I_INVALID_HID, mspace = H5I_INVALID_HID, dcpl = H5I_INVALID_HID,
          dset = H5I_INVALID_HID;
    space = H5Screate_simple(rank, dims, NULL);
    mspace = H5Screate_simple(1, &per_point, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || mspace < 0 || dcpl < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0 ||
        H5Pset_fletcher32(dcpl) < 0 || H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan) < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot set up dataset %s", objname);
        goto done;
    }
    const hid_t ftype = map->modes_single ? H5T_IEEE_F32LE : pkm_h5_map_elem(d->type).file;
    dset = H5Dcreate2(file, d->name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create dataset %s", objname);
        goto done;
    }
    for (int64_t p = 0; p < map->npoints && rc == PKM_OK; p++) {
        if (map->status[p] != PKM_POSE_OK || isnan(data[(size_t)p * (size_t)per_point])) continue;
        int64_t q = p;
        for (int a = map->naxes - 1; a >= 0; a--) {
            start[a] = (hsize_t)(q % map->axes[a].count);
            q /= map->axes[a].count;
        }
        if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, chunk, NULL) < 0 ||
            H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, space, H5P_DEFAULT,
                     data + (size_t)p * (size_t)per_point) < 0)
            rc = H5_FAIL(io, PKM_ERR_IO, "cannot write point %lld to %s", (long long)p, objname);
    }
    if (rc == PKM_OK) rc = pkm_h5_write_str_attr(io, dset, objname, d->attr, d->text);
done:
    if (dset >= 0 && H5Dclose(dset) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close %s", objname);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (mspace >= 0) H5Sclose(mspace);
    if (space >= 0) H5Sclose(space);
    return rc;
}

/* The root attributes, /grid, then every dataset of the table (pkm_h5_map_datasets) that the
 * map holds: an optional or checkpoint-only one where its array is allocated. */
static pkm_status write_contents(const h5io *io, hid_t file, const pkm_map *map)
{
    pkm_status rc = write_root_attrs(io, file, map);
    if (rc == PKM_OK) rc = write_grid(io, file, map);
    for (int k = 0; k < pkm_h5_map_dataset_count && rc == PKM_OK; k++) {
        const pkm_h5_map_dataset *d = &pkm_h5_map_datasets[k];
        hsize_t dims[PKM_MAP_MAX_AXES + 2];
        const int rank = pkm_h5_map_dims(d, map, dims);
        const pkm_h5_elem t = pkm_h5_map_elem(d->type);
        if (d->presence != PKM_H5_ALWAYS && pkm_h5_map_array(d, map) == NULL) continue;
        if (d->per_point)
            rc = write_per_point(io, file, map, d);
        else
            rc = pkm_h5_write_described(io, file, d->name, t.file, t.mem, rank, dims,
                                        pkm_h5_map_array(d, map), d->attr, d->text);
    }
    return rc;
}

static pkm_status fill_map(const h5io *io, hid_t file, const void *user)
{
    return write_contents(io, file, user);
}

pkm_status pkm_map_write_h5(const pkm_map *map, const char *path, pkm_ctx *ctx)
{
    if (map == NULL || path == NULL || path[0] == '\0')
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map write: NULL map or empty path");
    const h5io io = {path, ctx};
    const pkm_status rc = check_map(&io, map);
    if (rc != PKM_OK) return rc;
    return pkm_h5_file_write(path, fill_map, map, ctx);
}
