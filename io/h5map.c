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

const pkm_h5_map_file_attr pkm_h5_map_file_attrs[PKM_H5_MAP_FILE_ATTRS] = {
    {"format", "string"}, {"format_version", "int32"}};

const char *pkm_h5_map_attr_type(const pkm_map_attr *e)
{
    switch (e->kind) {
    case PKM_MAP_ATTR_INT:
        return e->size == sizeof(int32_t) ? "int32" : "int64";
    case PKM_MAP_ATTR_DOUBLE:
        return "float64";
    case PKM_MAP_ATTR_DOUBLES:
        return "float64 array";
    default:
        return "string";
    }
}

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
    if (map->status == NULL || map->freq_hz == NULL || map->residual == NULL ||
        map->accuracy == NULL || map->tracked == NULL || map->tracking_mac == NULL ||
        map->tracking_parent == NULL)
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

/* /modes [grid..., nev, ncoord], one chunk per pose, NaN-filled: only the OK poses are written,
 * so a pose without modes takes no space and a checkpoint taken while workers run writes only
 * complete vectors. */
static pkm_status write_modes(const h5io *io, hid_t file, const pkm_map *map)
{
    const int rank = map->naxes + 2;
    hsize_t dims[PKM_MAP_MAX_AXES + 2], chunk[PKM_MAP_MAX_AXES + 2], start[PKM_MAP_MAX_AXES + 2];
    for (int a = 0; a < map->naxes; a++) {
        dims[a] = (hsize_t)map->axes[a].count;
        chunk[a] = 1;
    }
    dims[map->naxes] = chunk[map->naxes] = (hsize_t)map->nev;
    dims[map->naxes + 1] = chunk[map->naxes + 1] = (hsize_t)map->ncoord;
    const hsize_t per_point = (hsize_t)map->nev * (hsize_t)map->ncoord;
    const double nan = NAN;
    pkm_status rc = PKM_OK;
    hid_t space = H5I_INVALID_HID, mspace = H5I_INVALID_HID, dcpl = H5I_INVALID_HID,
          dset = H5I_INVALID_HID;
    space = H5Screate_simple(rank, dims, NULL);
    mspace = H5Screate_simple(1, &per_point, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || mspace < 0 || dcpl < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0 ||
        H5Pset_fletcher32(dcpl) < 0 || H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan) < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot set up dataset /modes");
        goto done;
    }
    const hid_t ftype = map->modes_single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    dset = H5Dcreate2(file, "modes", ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create dataset /modes");
        goto done;
    }
    start[map->naxes] = start[map->naxes + 1] = 0;
    for (int64_t p = 0; p < map->npoints && rc == PKM_OK; p++) {
        if (map->status[p] != PKM_POSE_OK) continue;
        int64_t q = p;
        for (int a = map->naxes - 1; a >= 0; a--) {
            start[a] = (hsize_t)(q % map->axes[a].count);
            q /= map->axes[a].count;
        }
        if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, chunk, NULL) < 0 ||
            H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, space, H5P_DEFAULT,
                     map->modes + (size_t)p * (size_t)per_point) < 0)
            rc = H5_FAIL(io, PKM_ERR_IO, "cannot write the modes of point %lld to /modes",
                         (long long)p);
    }
    if (rc == PKM_OK)
        rc = pkm_h5_write_str_attr(
            io, dset, "/modes", "description",
            "mode shapes in the independent coordinates of the reduced pencil "
            "(mass-orthonormal: x^T M x = 1), one row per frequency rank; NaN "
            "where status != 0");
done:
    if (dset >= 0 && H5Dclose(dset) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close /modes");
    if (dcpl >= 0) H5Pclose(dcpl);
    if (mspace >= 0) H5Sclose(mspace);
    if (space >= 0) H5Sclose(space);
    return rc;
}

static pkm_status write_contents(const h5io *io, hid_t file, const pkm_map *map)
{
    hsize_t dims[PKM_MAP_MAX_AXES + 1];
    for (int a = 0; a < map->naxes; a++)
        dims[a] = (hsize_t)map->axes[a].count;
    dims[map->naxes] = (hsize_t)map->nev;
    const int r = map->naxes;

    pkm_status rc = write_root_attrs(io, file, map);
    if (rc == PKM_OK) rc = write_grid(io, file, map);
    if (rc == PKM_OK)
        rc = pkm_h5_write_described(io, file, "freq_hz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r + 1,
                                    dims, map->freq_hz, "units", "Hz");
    if (rc == PKM_OK)
        rc = pkm_h5_write_described(
            io, file, "residual", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r + 1, dims, map->residual,
            "description",
            "relative residual of each mode, ||K x - w^2 M x|| / max(||K x||, "
            "max(|w^2|, s) ||M x||) with s = 1e-6 max diag K / max diag M; "
            "NaN where status != 0");
    if (rc == PKM_OK)
        rc = pkm_h5_write_described(
            io, file, "accuracy", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r + 1, dims, map->accuracy,
            "description",
            "estimated relative error of each frequency that the rounding of "
            "the assembled matrices can cause (pkm_modes.accuracy); NaN where "
            "status != 0");
    if (rc == PKM_OK)
        rc = pkm_h5_write_described(io, file, "status", H5T_STD_I8LE, H5T_NATIVE_SCHAR, r, dims,
                                    map->status, "meaning", STATUS_MEANING);
    if (rc == PKM_OK)
        rc = pkm_h5_write_described(
            io, file, "tracked_mode", H5T_STD_I32LE, H5T_NATIVE_INT, r + 1, dims, map->tracked,
            "description",
            "id of the physical mode found at each frequency rank, linked "
            "across neighbouring poses by the MAC (root attribute tracking = "
            "mac) or equal to the rank (tracking = rank); -1 where status != 0");
    if (rc == PKM_OK)
        rc = pkm_h5_write_described(
            io, file, "tracking_mac", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r + 1, dims,
            map->tracking_mac, "description",
            "MAC of the link that gave each mode its id, from the mode of the "
            "same id at the pose /tracking_parent; below the root attribute "
            "mac_threshold the link is uncertain; NaN without parent");
    if (rc == PKM_OK)
        rc = pkm_h5_write_described(
            io, file, "tracking_parent", H5T_STD_I64LE, H5T_NATIVE_INT64, r, dims,
            map->tracking_parent, "description",
            "row-major index of the neighbouring pose each pose took its mode "
            "ids from; -1 for the first pose of a connected set of computed "
            "poses (ids = ranks) and where status != 0");
    if (rc == PKM_OK && map->modes != NULL) rc = write_modes(io, file, map);
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
