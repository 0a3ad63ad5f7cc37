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

/* Split a comma-separated list into at most max names. */
static pkm_status split_names(const h5io *io, const char *attr, const char *list,
                              char (*names)[PKM_MAP_NAME_LEN], int max, int *n)
{
    *n = 0;
    const char *p = list;
    for (;;) {
        const size_t len = strcspn(p, ",");
        if (len == 0 || len >= PKM_MAP_NAME_LEN || *n == max)
            return OWN_FAIL(io, PKM_ERR_PARSE,
                            "attribute '%s' = '%s': expected 1 to %d "
                            "comma-separated names of 1 to %d characters",
                            attr, list, max, PKM_MAP_NAME_LEN - 1);
        memcpy(names[*n], p, len);
        names[*n][len] = '\0';
        (*n)++;
        if (p[len] == '\0') return PKM_OK;
        p += len + 1;
    }
}

static void shape_text(char *out, size_t cap, int rank, const hsize_t *dims)
{
    size_t len = (size_t)snprintf(out, cap, "[");
    for (int d = 0; d < rank && len < cap; d++)
        len += (size_t)snprintf(out + len, cap - len, "%s%llu", d > 0 ? ", " : "",
                                (unsigned long long)dims[d]);
    if (len < cap) snprintf(out + len, cap - len, "]");
}

/* Before reading dataset name (open as dset, of shape dims and elsize-byte elements): its chunks
 * must be as the writer makes them (io/h5map.c, write_dataset), since libhdf5 1.10.8 reads past
 * its buffers for others: no larger than the dataset (a crafted /accuracy with chunks {2, 2,
 * 16386} over [2, 2, 2]: SIGSEGV in H5VM_memcpyvv), filtered by Fletcher32 at most, and each one
 * stored whole (a crafted /status declaring 6-byte integers over its 2 bytes: heap overflow). The
 * checksum then vouches for the bytes. */
static pkm_status check_chunks(const h5io *io, hid_t dset, const char *name, int rank,
                               const hsize_t *dims, size_t elsize)
{
    const hid_t dcpl = H5Dget_create_plist(dset);
    if (dcpl < 0) return H5_FAIL(io, PKM_ERR_PARSE, "cannot inspect dataset %s", name);
    hsize_t chunk[PKM_MAP_MAX_AXES + 2], off[PKM_MAP_MAX_AXES + 2] = {0};
    unsigned flags = 0;
    size_t ncd = 0;
    const int nf = H5Pget_nfilters(dcpl);
    const int fletcher = nf == 1 && H5Pget_filter2(dcpl, 0, &flags, &ncd, NULL, 0, NULL, NULL) ==
                                        H5Z_FILTER_FLETCHER32;
    pkm_status rc = PKM_OK;
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, rank, chunk) != rank ||
        (nf != 0 && !fletcher))
        rc = OWN_FAIL(io, PKM_ERR_PARSE,
                      "dataset %s is not chunked, or has filters other than Fletcher32: a "
                      "damaged or crafted file",
                      name);
    H5Pclose(dcpl);
    hsize_t whole = elsize;
    for (int d = 0; d < rank && rc == PKM_OK; d++) {
        if (chunk[d] < 1 || chunk[d] > dims[d])
            rc = OWN_FAIL(io, PKM_ERR_PARSE,
                          "dataset %s: chunk dimension %d is %llu, its shape's %llu: a damaged "
                          "or crafted file",
                          name, d, (unsigned long long)chunk[d], (unsigned long long)dims[d]);
        whole *= chunk[d];
    }
    whole += fletcher ? 4 : 0;
    while (rc == PKM_OK) { /* every chunk, in row-major order */
        /* Fails for a chunk not stored (/modes where status != 0: the fill value is read) */
        hsize_t size = 0;
        if (H5Dget_chunk_storage_size(dset, off, &size) < 0)
            H5Eclear2(H5E_DEFAULT);
        else if (size != whole)
            rc = OWN_FAIL(io, PKM_ERR_PARSE,
                          "dataset %s: a chunk stores %llu bytes, a whole one %llu: a damaged or "
                          "crafted file",
                          name, (unsigned long long)size, (unsigned long long)whole);
        int d = rank - 1;
        while (d >= 0 && (off[d] += chunk[d]) >= dims[d])
            off[d--] = 0;
        if (d < 0) break;
    }
    return rc;
}

/* Open dataset NAME (absolute) of class cls, elsize-byte elements and rank `rank`; its
 * dimensions go to dims. */
static pkm_status open_dataset(const h5io *io, hid_t file, const char *name, H5T_class_t cls,
                               size_t elsize, int rank, hsize_t *dims, hid_t *out)
{
    pkm_status rc = PKM_OK;
    hid_t dset = H5I_INVALID_HID, type = H5I_INVALID_HID, space = H5I_INVALID_HID;
    const htri_t e = H5Lexists(file, name, H5P_DEFAULT);
    if (e <= 0) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s is missing", name);
        goto done;
    }
    dset = H5Dopen2(file, name, H5P_DEFAULT);
    if (dset < 0) {
        rc = H5_FAIL(io, PKM_ERR_PARSE, "cannot open dataset %s", name);
        goto done;
    }
    type = H5Dget_type(dset);
    space = H5Dget_space(dset);
    if (type < 0 || space < 0) {
        rc = H5_FAIL(io, PKM_ERR_PARSE, "cannot inspect dataset %s", name);
        goto done;
    }
    if (H5Tget_class(type) != cls || H5Tget_size(type) != elsize) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s is not of %zu-byte %s type", name, elsize,
                      cls == H5T_FLOAT ? "floating-point" : "integer");
        goto done;
    }
    const int r = H5Sget_simple_extent_ndims(space);
    if (r != rank) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s has rank %d, expected %d", name, r, rank);
        goto done;
    }
    if (H5Sget_simple_extent_dims(space, dims, NULL) < 0)
        rc = H5_FAIL(io, PKM_ERR_PARSE, "cannot get the shape of dataset %s", name);
done:
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (rc != PKM_OK && dset >= 0) {
        H5Dclose(dset);
        dset = H5I_INVALID_HID;
    }
    *out = dset;
    return rc;
}

/* Read dataset NAME of class cls and elsize-byte elements, which must have exactly the shape
 * `want`, converted to mtype. */
static pkm_status read_dataset(const h5io *io, hid_t file, const char *name, hid_t mtype,
                               H5T_class_t cls, size_t elsize, int rank, const hsize_t *want,
                               void *buf)
{
    hsize_t dims[PKM_MAP_MAX_AXES + 2];
    hid_t dset = H5I_INVALID_HID;
    pkm_status rc = open_dataset(io, file, name, cls, elsize, rank, dims, &dset);
    if (rc != PKM_OK) return rc;
    if (memcmp(dims, want, sizeof(*dims) * (size_t)rank) != 0) {
        char got[128], exp[128];
        shape_text(got, sizeof(got), rank, dims);
        shape_text(exp, sizeof(exp), rank, want);
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s has shape %s, expected %s", name, got, exp);
    } else {
        rc = check_chunks(io, dset, name, rank, dims, elsize);
    }
    if (rc == PKM_OK && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot read dataset %s", name);
    if (H5Dclose(dset) < 0 && rc == PKM_OK) rc = H5_FAIL(io, PKM_ERR_IO, "cannot close %s", name);
    return rc;
}

/* Before allocating for dataset name (open as dset): it must store `need` bytes, and the file
 * must be that large. A crafted file can declare huge dimensions in a few bytes (a 36 KB file
 * made compare allocate 3 GB); a map file stores every value it declares, except /modes. */
static pkm_status check_stored(const h5io *io, hid_t file, hid_t dset, const char *name,
                               double need)
{
    hsize_t fsize = 0;
    if (H5Fget_filesize(file, &fsize) < 0)
        return H5_FAIL(io, PKM_ERR_PARSE, "cannot get the file's size");
    const double stored = (double)H5Dget_storage_size(dset);
    if (need > (double)fsize || (dset >= 0 && stored < need))
        return OWN_FAIL(io, PKM_ERR_PARSE,
                        "dataset %s needs %.0f bytes for its shape, but stores %.0f in a file of "
                        "%llu bytes: a damaged or crafted file",
                        name, need, stored, (unsigned long long)fsize);
    return PKM_OK;
}

/* /grid/<name>: the axis values, which must be evenly spaced from start to stop. */
static pkm_status read_axis(const h5io *io, hid_t file, pkm_map_axis *ax, int npose)
{
    char name[64];
    snprintf(name, sizeof(name), "/grid/%s", ax->name);
    hsize_t n = 0;
    hid_t dset = H5I_INVALID_HID;
    double *v = NULL;
    pkm_status rc = open_dataset(io, file, name, H5T_FLOAT, 8, 1, &n, &dset);
    if (rc != PKM_OK) return rc;
    if (n < 1 || n > INT32_MAX) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s has %llu values", name, (unsigned long long)n);
        goto done;
    }
    rc = check_stored(io, file, dset, name, 8.0 * (double)n);
    if (rc == PKM_OK) rc = check_chunks(io, dset, name, 1, &n, 8);
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

/* A string attribute of the root that must be one of count names: *which = its index. */
static pkm_status read_choice_attr(const h5io *io, hid_t file, const char *name,
                                   const char *const *names, int count, int *which)
{
    char text[LIST_LEN];
    pkm_status rc = pkm_h5_read_str_attr(io, file, "/", name, text, sizeof(text));
    if (rc != PKM_OK) return rc;
    char expected[LIST_LEN] = "";
    size_t len = 0;
    for (int k = 0; k < count; k++) {
        if (strcmp(text, names[k]) == 0) {
            *which = k;
            return PKM_OK;
        }
        const char *sep = k == 0 ? "" : (k + 1 < count ? ", " : " or ");
        const int w = snprintf(expected + len, sizeof(expected) - len, "%s'%s'", sep, names[k]);
        if (w > 0 && (size_t)w < sizeof(expected) - len) len += (size_t)w;
    }
    return OWN_FAIL(io, PKM_ERR_PARSE, "attribute '%s' = '%s', expected %s", name, text, expected);
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

/* Version 3: provenance beyond the parameters. */
static pkm_status read_provenance(const h5io *io, hid_t file, pkm_map *map)
{
    pkm_status rc =
        pkm_h5_read_str_attr(io, file, "/", "pkmflex_commit", map->commit, sizeof(map->commit));
    if (rc == PKM_OK)
        rc = pkm_h5_read_str_attr(io, file, "/", "case_file", map->case_file,
                                  sizeof(map->case_file));
    if (rc == PKM_OK)
        rc = pkm_h5_read_str_attr(io, file, "/", "case_file_sha256", map->case_sha256,
                                  sizeof(map->case_sha256));
    if (rc == PKM_OK)
        rc = pkm_h5_read_num_attr(io, file, "/", "max_backward_error", H5T_NATIVE_DOUBLE, 0, 1,
                                  &map->opts.max_backward_error);
    if (rc == PKM_OK) rc = read_params(io, file, map);
    return rc;
}

/* Version 2: how the ids were made, the links, and /modes if present. */
static pkm_status read_tracking(const h5io *io, hid_t file, pkm_map *map)
{
    int which = 0;
    pkm_status rc = read_choice_attr(io, file, "tracking", pkm_h5_tracking_names, 2, &which);
    map->tracking = (pkm_tracking)which;
    if (rc == PKM_OK)
        rc = pkm_h5_read_str_attr(io, file, "/", "tracking_note", map->tracking_note,
                                  sizeof(map->tracking_note));
    hsize_t dims[PKM_MAP_MAX_AXES + 2];
    for (int a = 0; a < map->naxes; a++)
        dims[a] = (hsize_t)map->axes[a].count;
    dims[map->naxes] = (hsize_t)map->nev;
    dims[map->naxes + 1] = (hsize_t)map->ncoord;
    const int r = map->naxes;
    if (rc == PKM_OK)
        rc = read_dataset(io, file, "/tracking_mac", H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, r + 1, dims,
                          map->tracking_mac);
    if (rc == PKM_OK)
        rc = read_dataset(io, file, "/tracking_parent", H5T_NATIVE_INT64, H5T_INTEGER, 8, r, dims,
                          map->tracking_parent);
    for (int64_t p = 0; p < map->npoints && rc == PKM_OK; p++)
        if (map->tracking_parent[p] < -1 || map->tracking_parent[p] >= map->npoints)
            rc = OWN_FAIL(io, PKM_ERR_PARSE,
                          "dataset /tracking_parent: value %lld at point %lld is not a point",
                          (long long)map->tracking_parent[p], (long long)p);
    if (rc != PKM_OK || H5Lexists(file, "modes", H5P_DEFAULT) <= 0) return rc;
    if (map->ncoord < 1)
        return OWN_FAIL(io, PKM_ERR_PARSE, "dataset /modes with attribute ncoord = %lld",
                        (long long)map->ncoord);
    /* Only the OK points' vectors are stored: without one there is nothing to read, and each
     * one stored bounds ncoord by the file's size. */
    int64_t nok = 0;
    for (int64_t p = 0; p < map->npoints; p++)
        nok += map->status[p] == PKM_POSE_OK;
    if (nok == 0) return PKM_OK;
    const hid_t dset = H5Dopen2(file, "/modes", H5P_DEFAULT);
    if (dset < 0) return H5_FAIL(io, PKM_ERR_PARSE, "cannot open dataset /modes");
    const hid_t type = H5Dget_type(dset);
    map->modes_single = type >= 0 && H5Tget_size(type) == 4;
    if (type >= 0) H5Tclose(type);
    rc = check_stored(io, file, dset, "/modes",
                      (map->modes_single ? 4.0 : 8.0) * (double)nok * (double)map->nev *
                          (double)map->ncoord);
    H5Dclose(dset);
    if (rc == PKM_OK) rc = pkm_map_alloc_modes(map, io->ctx);
    if (rc == PKM_OK)
        rc = read_dataset(io, file, "/modes", H5T_NATIVE_DOUBLE, H5T_FLOAT,
                          map->modes_single ? 4 : 8, r + 2, dims, map->modes);
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
    const pkm_status rc = check_stored(io, file, dset, "/freq_hz", need);
    H5Dclose(dset);
    return rc;
}

/* The solver settings: formulation, eigensolver, nev, ARPACK and acceptance options, ncoord. */
static pkm_status read_solver_attrs(const h5io *io, hid_t file, pkm_map *map)
{
    pkm_status rc = PKM_OK;
    int64_t i = 0;
    int which = 0;
    const char *form_names[PKM_FORMULATION_COUNT];
    for (int k = 0; k < PKM_FORMULATION_COUNT; k++)
        form_names[k] = pkm_formulation_types[k].name;
    if (rc == PKM_OK)
        rc = read_choice_attr(io, file, "formulation", form_names, PKM_FORMULATION_COUNT, &which);
    map->formulation = (pkm_formulation)which;
    const char *eig_names[PKM_EIGENSOLVER_COUNT];
    for (int k = 0; k < PKM_EIGENSOLVER_COUNT; k++)
        eig_names[k] = pkm_eigensolver_types[k].name;
    if (rc == PKM_OK)
        rc = read_choice_attr(io, file, "eigensolver", eig_names, PKM_EIGENSOLVER_COUNT, &which);
    map->eigensolver = (pkm_eigensolver)which;
    if (rc == PKM_OK) rc = pkm_h5_read_int_attr(io, file, "/", "nev", 1, INT32_MAX, &i);
    map->nev = map->opts.nev = (int)i;
    if (rc == PKM_OK) rc = pkm_h5_read_int_attr(io, file, "/", "ncv", 0, INT32_MAX, &i);
    map->opts.ncv = (int)i;
    if (rc == PKM_OK) rc = pkm_h5_read_int_attr(io, file, "/", "maxiter", 0, INT32_MAX, &i);
    map->opts.maxiter = (int)i;
    if (rc == PKM_OK)
        rc =
            pkm_h5_read_num_attr(io, file, "/", "sigma", H5T_NATIVE_DOUBLE, 0, 1, &map->opts.sigma);
    if (rc == PKM_OK)
        rc = pkm_h5_read_num_attr(io, file, "/", "tol", H5T_NATIVE_DOUBLE, 0, 1, &map->opts.tol);
    if (rc == PKM_OK)
        rc = pkm_h5_read_num_attr(io, file, "/", "max_residual", H5T_NATIVE_DOUBLE, 0, 1,
                                  &map->opts.max_residual);
    if (rc == PKM_OK)
        rc = pkm_h5_read_int_attr(io, file, "/", "ncoord", 0, INT64_MAX, &map->ncoord);
    return rc;
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
    if (rc == PKM_OK)
        rc = pkm_h5_read_str_attr(io, file, "/", "case", map->case_name, sizeof(map->case_name));
    if (rc == PKM_OK)
        rc = pkm_h5_read_str_attr(io, file, "/", "pkmflex_version", map->version,
                                  sizeof(map->version));
    snprintf(map->commit, sizeof(map->commit), "unknown");
    if (rc == PKM_OK && version >= 3) rc = read_provenance(io, file, map);
    /* Version 1 had no tracking settings nor case parameters: the defaults apply. */
    map->track = pkm_track_opts_default();
    if (rc == PKM_OK && version >= 2)
        rc = pkm_h5_read_str_attr(io, file, "/", "case_parameters", map->case_params,
                                  sizeof(map->case_params));
    if (rc == PKM_OK && version >= 2)
        rc = pkm_h5_read_num_attr(io, file, "/", "mac_threshold", H5T_NATIVE_DOUBLE, 0, 1,
                                  &map->track.mac_threshold);
    if (rc == PKM_OK && version >= 2)
        rc = pkm_h5_read_num_attr(io, file, "/", "cluster_tol", H5T_NATIVE_DOUBLE, 0, 1,
                                  &map->track.cluster_tol);
    if (rc == PKM_OK) rc = pkm_h5_read_str_attr(io, file, "/", "pose_names", text, sizeof(text));
    if (rc == PKM_OK)
        rc = split_names(io, "pose_names", text, map->pose_names, PKM_POSE_MAX, &map->npose);
    if (rc == PKM_OK)
        rc = pkm_h5_read_num_attr(io, file, "/", "base_pose", H5T_NATIVE_DOUBLE, 0, map->npose,
                                  map->base_pose);
    if (rc == PKM_OK) rc = read_solver_attrs(io, file, map);
    if (rc == PKM_OK) rc = pkm_h5_read_str_attr(io, file, "/", "axes", text, sizeof(text));
    char axis_names[PKM_MAP_MAX_AXES][PKM_MAP_NAME_LEN];
    if (rc == PKM_OK) rc = split_names(io, "axes", text, axis_names, PKM_MAP_MAX_AXES, &map->naxes);
    for (int a = 0; a < map->naxes && rc == PKM_OK; a++)
        memcpy(map->axes[a].name, axis_names[a], sizeof(axis_names[a]));
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

    rc = pkm_map_alloc(map, io->ctx);
    if (rc != PKM_OK) return rc;
    hsize_t dims[PKM_MAP_MAX_AXES + 1];
    for (int a = 0; a < map->naxes; a++)
        dims[a] = (hsize_t)map->axes[a].count;
    dims[map->naxes] = (hsize_t)map->nev;
    const int r = map->naxes;
    rc = read_dataset(io, file, "/freq_hz", H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, r + 1, dims,
                      map->freq_hz);
    if (rc == PKM_OK)
        rc = read_dataset(io, file, "/residual", H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, r + 1, dims,
                          map->residual);
    if (rc == PKM_OK && version >= 3)
        rc = read_dataset(io, file, "/accuracy", H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, r + 1, dims,
                          map->accuracy);
    if (rc == PKM_OK)
        rc = read_dataset(io, file, "/status", H5T_NATIVE_SCHAR, H5T_INTEGER, 1, r, dims,
                          map->status);
    if (rc == PKM_OK)
        rc = read_dataset(io, file, "/tracked_mode", H5T_NATIVE_INT, H5T_INTEGER, 4, r + 1, dims,
                          map->tracked);
    if (rc == PKM_OK && version >= 2)
        rc = read_tracking(io, file, map);
    else if (rc == PKM_OK)
        snprintf(map->tracking_note, sizeof(map->tracking_note), "format version 1");
    for (int64_t p = 0; p < map->npoints && rc == PKM_OK; p++)
        if (map->status[p] < PKM_POSE_PENDING || map->status[p] > PKM_POSE_FAILED)
            rc = OWN_FAIL(io, PKM_ERR_PARSE,
                          "dataset /status: value %d at point %lld is not a "
                          "pose status (%s)",
                          map->status[p], (long long)p, STATUS_MEANING);
    return rc;
}

pkm_status pkm_map_read_h5(const char *path, pkm_map *map, pkm_ctx *ctx)
{
    if (map == NULL || path == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map read: NULL map or path");
    memset(map, 0, sizeof(*map));
    const h5io io = {path, ctx};
    pkm_status rc = PKM_OK;
    h5_quiet q;
    pkm_h5_quiet_begin(&q);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        /* Tell "cannot read the file" from "the file is not HDF5". */
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            fclose(f);
            rc = H5_FAIL(&io, PKM_ERR_PARSE, "not an HDF5 file, or a damaged one");
        } else {
            rc = H5_FAIL(&io, PKM_ERR_IO, "cannot open");
        }
    } else {
        rc = read_contents(&io, file, map);
        if (H5Fclose(file) < 0 && rc == PKM_OK) rc = H5_FAIL(&io, PKM_ERR_IO, "cannot close");
    }
    if (rc != PKM_OK) pkm_map_free(map);
    pkm_h5_quiet_end(&q);
    return rc;
}
