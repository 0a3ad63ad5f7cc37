/* io/h5map.c: frequency maps in HDF5 files (layout in docs/hdf5-layout.md).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every HDF5 call is checked (ids and herr_t are negative on failure) and every id is closed on
 * one cleanup path in reverse order of opening. The library never prints: HDF5's automatic error
 * printing is per-thread state of the default error stack, so the two entry points switch it off
 * and restore the caller's handler on return (HDF5 User Guide, "HDF5 Error Handling"). The cause
 * of a failure is the innermost entry of the error stack, taken with H5Ewalk2(H5E_WALK_UPWARD)
 * right after the failed call, before any other API call clears the stack. */
#define _POSIX_C_SOURCE 200809L /* gmtime_r, fsync, lstat, unlink */

#include "io/h5map_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * Errors */

static herr_t innermost_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    /* Walking upward, entry 0 is the deepest function: the real cause (e.g. the errno of the
     * open in the file driver) rather than the API-level "unable to create file". */
    if (n == 0) {
        char *out = data;
        snprintf(out, 256, "%s: %s", err->func_name ? err->func_name : "?",
                 err->desc ? err->desc : "?");
        /* One line: the sec2 driver's descriptions hold ctime()'s newline. */
        for (char *c = out; *c != '\0'; c++)
            if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    }
    return 0;
}

pkm_status pkm_h5_fail_at(const h5io *io, pkm_status st, int with_cause, const char *file, int line,
                          const char *fmt, ...)
{
    char cause[256] = "";
    if (with_cause) H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_cb, cause);
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (cause[0] != '\0')
        return pkm_ctx_fail(io->ctx, st, file, line, "%s: %s (HDF5: %s)", io->path, what, cause);
    return pkm_ctx_fail(io->ctx, st, file, line, "%s: %s", io->path, what);
}

void pkm_h5_quiet_begin(h5_quiet *q)
{
    q->func = NULL;
    q->data = NULL;
    q->saved = H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data) >= 0;
    if (q->saved) H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void pkm_h5_quiet_end(const h5_quiet *q)
{
    if (q->saved) H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

/* ---------------------------------------------------------------------------------------------
 * Writing */

const char *const pkm_h5_tracking_names[2] = {[PKM_TRACK_RANK] = "rank", [PKM_TRACK_MAC] = "mac"};

static const char *formulation_name(pkm_formulation f)
{
    const pkm_formulation_type *t = pkm_formulation_type_of(f);
    return t != NULL ? t->name : NULL;
}

static const char *eigensolver_name(pkm_eigensolver e)
{
    const pkm_eigensolver_type *t = pkm_eigensolver_type_of(e);
    return t != NULL ? t->name : NULL;
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
    if (memchr(map->case_name, '\0', sizeof(map->case_name)) == NULL ||
        memchr(map->case_params, '\0', sizeof(map->case_params)) == NULL ||
        memchr(map->tracking_note, '\0', sizeof(map->tracking_note)) == NULL ||
        memchr(map->case_file, '\0', sizeof(map->case_file)) == NULL ||
        memchr(map->case_sha256, '\0', sizeof(map->case_sha256)) == NULL ||
        memchr(map->version, '\0', sizeof(map->version)) == NULL ||
        memchr(map->commit, '\0', sizeof(map->commit)) == NULL)
        return OWN_FAIL(io, PKM_ERR_INVALID,
                        "case name, parameters or tracking note is not "
                        "terminated");
    if (map->nparams < 0 || map->nparams > PKM_MAP_MAX_PARAMS)
        return OWN_FAIL(io, PKM_ERR_INVALID, "%d case parameters", map->nparams);
    for (int k = 0; k < map->nparams; k++)
        if (!good_name(map->params[k].key, sizeof(map->params[k].key), "/,") ||
            memchr(map->params[k].choice, '\0', sizeof(map->params[k].choice)) == NULL)
            return OWN_FAIL(io, PKM_ERR_INVALID, "case parameter %d has a bad name or choice", k);
    if (map->tracking != PKM_TRACK_RANK && map->tracking != PKM_TRACK_MAC)
        return OWN_FAIL(io, PKM_ERR_INVALID, "unknown tracking %d", (int)map->tracking);
    if (formulation_name(map->formulation) == NULL || eigensolver_name(map->eigensolver) == NULL)
        return OWN_FAIL(io, PKM_ERR_INVALID, "unknown formulation %d or eigensolver %d",
                        (int)map->formulation, (int)map->eigensolver);
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

/* Attribute NAME of OBJ (named OBJNAME in messages): n values (n = 0: scalar) of memory type
 * mtype stored as ftype. */
static pkm_status write_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                             hid_t ftype, hid_t mtype, hsize_t n, const void *buf)
{
    pkm_status rc = PKM_OK;
    hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
    space = (n == 0) ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    if (space < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create the dataspace of attribute '%s' of %s", name,
                     objname);
        goto done;
    }
    attr = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create attribute '%s' of %s", name, objname);
        goto done;
    }
    if (H5Awrite(attr, mtype, buf) < 0)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot write attribute '%s' of %s", name, objname);
done:
    if (attr >= 0 && H5Aclose(attr) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close attribute '%s' of %s", name, objname);
    if (space >= 0) H5Sclose(space);
    return rc;
}

/* Scalar string attribute: fixed-length UTF-8 of strlen + 1 bytes, null-terminated. Never
 * variable-length: those live in the file's global heap, whose reader in libhdf5 1.10.8 overflows
 * or hangs on a crafted file (tests/fuzz/known/), so the reader refuses them (h5map_read.c). */
static pkm_status write_str_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                 const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type < 0) return H5_FAIL(io, PKM_ERR_IO, "cannot create a string type");
    pkm_status rc = PKM_OK;
    if (H5Tset_size(type, strlen(value) + 1) < 0 || H5Tset_strpad(type, H5T_STR_NULLTERM) < 0 ||
        H5Tset_cset(type, H5T_CSET_UTF8) < 0)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create a string type");
    else
        rc = write_attr(io, obj, objname, name, type, type, 0, value);
    H5Tclose(type);
    return rc;
}

static pkm_status write_int_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                 hid_t ftype, int64_t value)
{
    return write_attr(io, obj, objname, name, ftype, H5T_NATIVE_INT64, 0, &value);
}

static pkm_status write_f64_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                 double value)
{
    return write_attr(io, obj, objname, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &value);
}

/* Chunk shape: whole trailing dimensions (for the maps, the last axis x nev) and as many of the
 * leading ones as fit in CHUNK_BYTES; a small map is a single chunk. */
static void chunk_shape(int rank, const hsize_t *dims, size_t elsize, hsize_t *chunk)
{
    size_t bytes = elsize;
    for (int d = rank - 1; d >= 0; d--) {
        const hsize_t room = CHUNK_BYTES / bytes;
        chunk[d] = dims[d] < room ? dims[d] : (room > 0 ? room : 1);
        bytes *= (size_t)chunk[d];
    }
}

/* Create and write dataset NAME in loc; on success *out is the open dataset (caller closes). */
static pkm_status write_dataset(const h5io *io, hid_t loc, const char *name, const char *objname,
                                hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                                const void *buf, hid_t *out)
{
    pkm_status rc = PKM_OK;
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, dset = H5I_INVALID_HID;
    space = H5Screate_simple(rank, dims, NULL);
    if (space < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create the dataspace of %s", objname);
        goto done;
    }
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create the creation properties of %s", objname);
        goto done;
    }
    hsize_t chunk[PKM_MAP_MAX_AXES + 1];
    chunk_shape(rank, dims, H5Tget_size(ftype), chunk);
    if (H5Pset_chunk(dcpl, rank, chunk) < 0 || H5Pset_fletcher32(dcpl) < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot set the chunks of %s", objname);
        goto done;
    }
    dset = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create dataset %s", objname);
        goto done;
    }
    if (H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot write dataset %s", objname);
done:
    if (rc != PKM_OK && dset >= 0) {
        H5Dclose(dset);
        dset = H5I_INVALID_HID;
    }
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    *out = dset;
    return rc;
}

/* write_dataset plus one string attribute, closed. */
static pkm_status write_described(const h5io *io, hid_t loc, const char *name, hid_t ftype,
                                  hid_t mtype, int rank, const hsize_t *dims, const void *buf,
                                  const char *attr, const char *text)
{
    char objname[64];
    snprintf(objname, sizeof(objname), "/%s", name);
    hid_t dset = H5I_INVALID_HID;
    pkm_status rc = write_dataset(io, loc, name, objname, ftype, mtype, rank, dims, buf, &dset);
    if (rc == PKM_OK) rc = write_str_attr(io, dset, objname, attr, text);
    if (dset >= 0 && H5Dclose(dset) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close %s", objname);
    return rc;
}

/* names[0..n-1] joined with ',' (the caller checked that they hold no ','). */
static void join_names(char *out, size_t cap, const char *const *names, int n)
{
    size_t len = 0;
    out[0] = '\0';
    for (int k = 0; k < n && len < cap; k++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", k > 0 ? "," : "", names[k]);
}

static pkm_status write_root_attrs(const h5io *io, hid_t file, const pkm_map *map)
{
    char list[LIST_LEN], created[32] = "unknown";
    const time_t now = time(NULL);
    struct tm utc;
    if (now != (time_t)-1 && gmtime_r(&now, &utc) != NULL)
        strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &utc);

    pkm_status rc = write_str_attr(io, file, "/", "format", MAP_FORMAT);
    if (rc == PKM_OK)
        rc = write_int_attr(io, file, "/", "format_version", H5T_STD_I32LE, MAP_FORMAT_VERSION);
    if (rc == PKM_OK) rc = write_str_attr(io, file, "/", "case", map->case_name);
    if (rc == PKM_OK) rc = write_str_attr(io, file, "/", "case_parameters", map->case_params);
    const char *names[PKM_POSE_MAX] = {NULL};
    for (int k = 0; k < map->npose; k++)
        names[k] = map->pose_names[k];
    join_names(list, sizeof(list), names, map->npose);
    if (rc == PKM_OK) rc = write_str_attr(io, file, "/", "pose_names", list);
    if (rc == PKM_OK)
        rc = write_attr(io, file, "/", "base_pose", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                        (hsize_t)map->npose, map->base_pose);
    for (int a = 0; a < map->naxes; a++)
        names[a] = map->axes[a].name;
    join_names(list, sizeof(list), names, map->naxes);
    if (rc == PKM_OK) rc = write_str_attr(io, file, "/", "axes", list);
    if (rc == PKM_OK) rc = write_str_attr(io, file, "/", "pkmflex_version", map->version);
    if (rc == PKM_OK) rc = write_str_attr(io, file, "/", "pkmflex_commit", map->commit);
    if (rc == PKM_OK) rc = write_str_attr(io, file, "/", "case_file", map->case_file);
    if (rc == PKM_OK) rc = write_str_attr(io, file, "/", "case_file_sha256", map->case_sha256);
    if (rc == PKM_OK) rc = write_str_attr(io, file, "/", "created", created);
    if (rc == PKM_OK)
        rc = write_str_attr(io, file, "/", "formulation", formulation_name(map->formulation));
    if (rc == PKM_OK)
        rc = write_str_attr(io, file, "/", "eigensolver", eigensolver_name(map->eigensolver));
    if (rc == PKM_OK) rc = write_int_attr(io, file, "/", "nev", H5T_STD_I32LE, map->nev);
    if (rc == PKM_OK) rc = write_int_attr(io, file, "/", "ncv", H5T_STD_I32LE, map->opts.ncv);
    if (rc == PKM_OK) rc = write_f64_attr(io, file, "/", "sigma", map->opts.sigma);
    if (rc == PKM_OK) rc = write_f64_attr(io, file, "/", "tol", map->opts.tol);
    if (rc == PKM_OK)
        rc = write_int_attr(io, file, "/", "maxiter", H5T_STD_I32LE, map->opts.maxiter);
    if (rc == PKM_OK) rc = write_f64_attr(io, file, "/", "max_residual", map->opts.max_residual);
    if (rc == PKM_OK)
        rc = write_f64_attr(io, file, "/", "max_backward_error", map->opts.max_backward_error);
    if (rc == PKM_OK) rc = write_int_attr(io, file, "/", "ncoord", H5T_STD_I64LE, map->ncoord);
    if (rc == PKM_OK)
        rc = write_str_attr(io, file, "/", "tracking", pkm_h5_tracking_names[map->tracking]);
    if (rc == PKM_OK) rc = write_str_attr(io, file, "/", "tracking_note", map->tracking_note);
    if (rc == PKM_OK) rc = write_f64_attr(io, file, "/", "mac_threshold", map->track.mac_threshold);
    if (rc == PKM_OK) rc = write_f64_attr(io, file, "/", "cluster_tol", map->track.cluster_tol);
    return rc;
}

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
    pkm_status rc = write_str_attr(io, file, "/", "parameter_keys", keys);
    if (rc != PKM_OK) return rc;
    hid_t g = H5Gcreate2(file, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return H5_FAIL(io, PKM_ERR_IO, "cannot create group /parameters");
    for (int k = 0; k < map->nparams && rc == PKM_OK; k++) {
        const pkm_map_param *q = &map->params[k];
        if (q->kind == PKM_PARAM_DOUBLE)
            rc = write_f64_attr(io, g, "/parameters", q->key, q->value);
        else if (q->kind == PKM_PARAM_INT)
            rc = write_int_attr(io, g, "/parameters", q->key, H5T_STD_I64LE, (int64_t)q->value);
        else
            rc = write_str_attr(io, g, "/parameters", q->key, q->choice);
    }
    if (H5Gclose(g) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close group /parameters");
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
        rc = write_dataset(io, grid, ax->name, objname, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, v,
                           &dset);
        free(v);
        if (rc == PKM_OK) rc = write_str_attr(io, dset, objname, "units", ax->unit);
        if (rc == PKM_OK)
            rc = write_int_attr(io, dset, objname, "pose_index", H5T_STD_I32LE, ax->pose_index);
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
        rc = write_str_attr(io, dset, "/modes", "description",
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
    if (rc == PKM_OK) rc = write_params(io, file, map);
    if (rc == PKM_OK) rc = write_grid(io, file, map);
    if (rc == PKM_OK)
        rc = write_described(io, file, "freq_hz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r + 1, dims,
                             map->freq_hz, "units", "Hz");
    if (rc == PKM_OK)
        rc = write_described(io, file, "residual", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r + 1, dims,
                             map->residual, "description",
                             "relative residual of each mode, ||K x - w^2 M x|| / max(||K x||, "
                             "max(|w^2|, s) ||M x||) with s = 1e-6 max diag K / max diag M; "
                             "NaN where status != 0");
    if (rc == PKM_OK)
        rc = write_described(io, file, "accuracy", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r + 1, dims,
                             map->accuracy, "description",
                             "estimated relative error of each frequency that the rounding of "
                             "the assembled matrices can cause (pkm_modes.accuracy); NaN where "
                             "status != 0");
    if (rc == PKM_OK)
        rc = write_described(io, file, "status", H5T_STD_I8LE, H5T_NATIVE_SCHAR, r, dims,
                             map->status, "meaning", STATUS_MEANING);
    if (rc == PKM_OK)
        rc = write_described(io, file, "tracked_mode", H5T_STD_I32LE, H5T_NATIVE_INT, r + 1, dims,
                             map->tracked, "description",
                             "id of the physical mode found at each frequency rank, linked "
                             "across neighbouring poses by the MAC (root attribute tracking = "
                             "mac) or equal to the rank (tracking = rank); -1 where status != 0");
    if (rc == PKM_OK)
        rc = write_described(io, file, "tracking_mac", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r + 1,
                             dims, map->tracking_mac, "description",
                             "MAC of the link that gave each mode its id, from the mode of the "
                             "same id at the pose /tracking_parent; below the root attribute "
                             "mac_threshold the link is uncertain; NaN without parent");
    if (rc == PKM_OK)
        rc = write_described(io, file, "tracking_parent", H5T_STD_I64LE, H5T_NATIVE_INT64, r, dims,
                             map->tracking_parent, "description",
                             "row-major index of the neighbouring pose each pose took its mode "
                             "ids from; -1 for the first pose of a connected set of computed "
                             "poses (ids = ranks) and where status != 0");
    if (rc == PKM_OK && map->modes != NULL) rc = write_modes(io, file, map);
    return rc;
}

/* Remove what this call may have left at tmp. Only a regular file: a directory or a special file
 * at that name was not made by us. */
static void remove_tmp(const char *tmp)
{
    struct stat st;
    if (lstat(tmp, &st) == 0 && S_ISREG(st.st_mode)) unlink(tmp);
}

/* The whole file, built in memory by HDF5's core driver without backing store, into *image
 * (malloc'd). HDF5 then never writes to disk: written through its sec2 driver, a write that
 * failed (full disk, file size limit) left H5Fclose failing on a half-closed file, on which
 * HDF5's exit handler crashed (SIGSEGV, issue 8). Costs the file's size in memory, twice while
 * the image is copied out. */
static pkm_status build_image(const h5io *io, const pkm_map *map, void **image, size_t *size)
{
    *image = NULL;
    *size = 0;
    pkm_status rc = PKM_OK;
    hid_t file = H5I_INVALID_HID;
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, CHUNK_BYTES, 0) < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot set up an in-memory file");
        goto done;
    }
    file = H5Fcreate(io->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0) {
        rc = H5_FAIL(io, PKM_ERR_NOMEM, "cannot create the file in memory");
        goto done;
    }
    rc = write_contents(io, file, map);
    if (rc == PKM_OK && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        rc = H5_FAIL(io, PKM_ERR_NOMEM, "cannot flush the file in memory");
    const ssize_t n = rc == PKM_OK ? H5Fget_file_image(file, NULL, 0) : -1;
    if (rc == PKM_OK && n <= 0) rc = H5_FAIL(io, PKM_ERR_IO, "cannot get the file's image");
    if (rc == PKM_OK && (*image = malloc((size_t)n)) == NULL)
        rc = OWN_FAIL(io, PKM_ERR_NOMEM, "cannot allocate %zd bytes for the file", n);
    if (rc == PKM_OK && H5Fget_file_image(file, *image, (size_t)n) != n)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot copy the file's image");
    if (rc == PKM_OK) *size = (size_t)n;
done:
    if (file >= 0 && H5Fclose(file) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close the file in memory");
    if (fapl >= 0) H5Pclose(fapl);
    if (rc != PKM_OK) {
        free(*image);
        *image = NULL;
    }
    return rc;
}

/* size bytes to tmp, a new regular file (a symbolic link there is not followed), synced: without
 * fsync a power loss after the rename can leave an empty file at the final path on some file
 * systems. Every error is one message with its errno text, e.g. "No space left on device". */
static pkm_status write_image(const h5io *io, const char *tmp, const void *image, size_t size)
{
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) return OWN_FAIL(io, PKM_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
    size_t done = 0;
    while (done < size) {
        const ssize_t k = write(fd, (const char *)image + done, size - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            const int e = k < 0 ? errno : ENOSPC;
            close(fd);
            return OWN_FAIL(io, PKM_ERR_IO, "cannot write %s (%zu of %zu bytes written): %s", tmp,
                            done, size, strerror(e));
        }
        done += (size_t)k;
    }
    if (fsync(fd) != 0) {
        const int e = errno;
        close(fd);
        return OWN_FAIL(io, PKM_ERR_IO, "cannot sync %s: %s", tmp, strerror(e));
    }
    if (close(fd) != 0)
        return OWN_FAIL(io, PKM_ERR_IO, "cannot close %s: %s", tmp, strerror(errno));
    return PKM_OK;
}

pkm_status pkm_map_write_h5(const pkm_map *map, const char *path, pkm_ctx *ctx)
{
    if (map == NULL || path == NULL || path[0] == '\0')
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map write: NULL map or empty path");
    const h5io io = {path, ctx};
    pkm_status rc = check_map(&io, map);
    if (rc != PKM_OK) return rc;
    /* rename(2) would replace a symbolic link, a device node or a FIFO at path with a regular
     * file; what the user named is not ours to replace. */
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return OWN_FAIL(&io, PKM_ERR_INVALID,
                        "is not a regular file (a %s): not replaced; write to another name",
                        S_ISLNK(st.st_mode)   ? "symbolic link"
                        : S_ISDIR(st.st_mode) ? "directory"
                                              : "device, FIFO or socket");
    const size_t len = strlen(path) + sizeof(".tmp");
    char *tmp = malloc(len);
    if (tmp == NULL) return OWN_FAIL(&io, PKM_ERR_NOMEM, "cannot allocate the temporary name");
    snprintf(tmp, len, "%s.tmp", path);

    h5_quiet q;
    pkm_h5_quiet_begin(&q);
    void *image = NULL;
    size_t size = 0;
    rc = build_image(&io, map, &image, &size);
    pkm_h5_quiet_end(&q);
    if (rc == PKM_OK) rc = write_image(&io, tmp, image, size);
    free(image);
    /* rename(2) replaces the target atomically: readers see the old file or the new one. */
    if (rc == PKM_OK && rename(tmp, path) != 0)
        rc = OWN_FAIL(&io, PKM_ERR_IO, "cannot rename %s onto it: %s", tmp, strerror(errno));
    if (rc != PKM_OK) remove_tmp(tmp);
    free(tmp);
    return rc;
}
