/* io/h5dyn.c: the time series of a rigid-body dynamics run (pkmflex dynamics -o, every case and
 * engine) and of an elastodynamics run (pkmflex transient -o) as HDF5 files; layouts in
 * docs/hdf5-layout.md, "Dynamics files" and "Transient files".
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "io/h5_impl.h"
#include "pkm/io.h"

#include <stdlib.h>
#include <string.h>

#define DYN_FORMAT         "pkmflex-dynamics"
#define DYN_FORMAT_VERSION 2 /* 2: the per-time table, NaN for a quantity a case lacks */
#define TR_FORMAT          "pkmflex-transient"
#define TR_FORMAT_VERSION  1

const char *const pkm_dyn_series_columns[PKM_DYN_SERIES_COLUMNS] = {
    "q", "qd", "qdd", "drive", "ideal", "friction", "f_axial", "f_radial", "m_bending"};

/* What each column holds, its dataset's `description`. */
static const char *const column_text[PKM_DYN_SERIES_COLUMNS] = {
    "the joint's first coordinate from the model's build pose: rad or m; cuts, clamped: 0",
    "its rate: rad/s or m/s",
    "its acceleration: rad/s^2 or m/s^2",
    "actuated joints: ideal + friction (N m or N); passive joints: 0",
    "the reaction's component along the joint's free direction (N m or N)",
    "the joint's friction torque or force (N m or N)",
    "|force along the axis| (N); prismatic: |moment about the axis| (N m)",
    "|force normal to the axis| (N); spherical, clamped: |force|",
    "|moment normal to the axis| (N m); clamped: |moment|"};

/* names[0..n-1] joined by commas into a new string; NULL if one holds a comma or on no memory. */
static char *comma_list(const char *const *names, int n)
{
    size_t len = 1;
    for (int k = 0; k < n; k++) {
        if (strchr(names[k], ',') != NULL) return NULL;
        len += strlen(names[k]) + 1;
    }
    char *s = malloc(len);
    if (s == NULL) return NULL;
    s[0] = '\0';
    for (int k = 0; k < n; k++) {
        if (k > 0) strcat(s, ",");
        strcat(s, names[k]);
    }
    return s;
}

/* The root attributes both formats share: format, format_version, case, trajectory, and
 * complete (0: a run stopped by the user, whose file holds the times done; a reader that ignores
 * it would take a cut run for a shorter trajectory). */
static pkm_status write_format(const h5io *io, hid_t file, const char *format, int version,
                               const char *case_name, const char *trajectory, int partial)
{
    pkm_status rc = pkm_h5_write_str_attr(io, file, "/", "format", format);
    if (rc == PKM_OK)
        rc = pkm_h5_write_int_attr(io, file, "/", "format_version", H5T_STD_I32LE, version);
    if (rc == PKM_OK) rc = pkm_h5_write_str_attr(io, file, "/", "case", case_name);
    if (rc == PKM_OK) rc = pkm_h5_write_str_attr(io, file, "/", "trajectory", trajectory);
    if (rc == PKM_OK)
        rc = pkm_h5_write_int_attr(io, file, "/", "complete", H5T_STD_I32LE, partial ? 0 : 1);
    return rc;
}

static pkm_status write_root(const h5io *io, hid_t file, const pkm_dyn_series *s)
{
    pkm_status rc = write_format(io, file, DYN_FORMAT, DYN_FORMAT_VERSION, s->case_name,
                                 s->trajectory, s->partial);
    if (rc == PKM_OK) rc = pkm_h5_write_str_attr(io, file, "/", "friction", s->friction);
    const char *const *lists[2] = {s->joints, s->types};
    static const char *const list_names[2] = {"joints", "types"};
    for (int k = 0; k < 2 && rc == PKM_OK; k++) {
        char *text = comma_list(lists[k], s->njoint);
        rc = text != NULL ? pkm_h5_write_str_attr(io, file, "/", list_names[k], text)
                          : OWN_FAIL(io, PKM_ERR_INVALID,
                                     "a joint name or type holds a comma, or no memory");
        free(text);
    }
    return rc;
}

/* The per-time table: group per_time, a dataset [ntime] per column with its units. */
static pkm_status write_per_time(const h5io *io, hid_t file, const pkm_dyn_series *s)
{
    const hid_t g = H5Gcreate2(file, "per_time", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return H5_FAIL(io, PKM_ERR_IO, "cannot create the group per_time");
    double *col = malloc(sizeof(double) * (size_t)s->ntime);
    pkm_status rc = col == NULL ? OWN_FAIL(io, PKM_ERR_NOMEM, "no memory for a column") : PKM_OK;
    const hsize_t dims[1] = {(hsize_t)s->ntime};
    for (int c = 0; c < s->ncol && rc == PKM_OK; c++) {
        for (int k = 0; k < s->ntime; k++)
            col[k] = s->per_time[(size_t)k * (size_t)s->ncol + (size_t)c];
        rc = pkm_h5_write_described(io, g, s->cols[c].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1,
                                    dims, col, "units", s->cols[c].unit);
    }
    free(col);
    H5Gclose(g);
    return rc;
}

static pkm_status fill_dyn(const h5io *io, hid_t file, const void *user)
{
    const pkm_dyn_series *s = user;
    pkm_status rc = write_root(io, file, s);
    const hsize_t dims[3] = {(hsize_t)s->ntime, (hsize_t)s->njoint, 6};
    if (rc == PKM_OK)
        rc = pkm_h5_write_described(io, file, "t", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, dims, s->t,
                                    "units", "s");
    for (int k = 0; k < PKM_DYN_SERIES_COLUMNS && rc == PKM_OK; k++)
        rc = pkm_h5_write_described(io, file, pkm_dyn_series_columns[k], H5T_IEEE_F64LE,
                                    H5T_NATIVE_DOUBLE, 2, dims, s->value[k], "description",
                                    column_text[k]);
    if (rc == PKM_OK && s->wrench != NULL)
        rc = pkm_h5_write_described(
            io, file, "wrench", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, dims, s->wrench,
            "description",
            "the reaction wrench the joint applies to its child (a cut: to its body_b): force (N), "
            "then moment about the joint's current point (N m), global axes");
    if (rc == PKM_OK && s->ncol > 0) rc = write_per_time(io, file, s);
    return rc;
}

pkm_status pkm_dyn_series_write_h5(const char *path, const pkm_dyn_series *s, pkm_ctx *ctx)
{
    if (s == NULL || path == NULL || path[0] == '\0' || s->ntime < 1 || s->njoint < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "dynamics write: empty series or path");
    for (int c = 0; c < s->ncol; c++)
        if (s->cols[c].name == NULL || s->cols[c].name[0] == '\0' ||
            strpbrk(s->cols[c].name, "/, \t") != NULL)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "dynamics write: per-time column %d has no "
                            "usable name",
                            c + 1);
    return pkm_h5_file_write(path, fill_dyn, s, ctx);
}

static pkm_status fill_transient(const h5io *io, hid_t file, const void *user)
{
    const pkm_transient_series *s = user;
    pkm_status rc = write_format(io, file, TR_FORMAT, TR_FORMAT_VERSION, s->case_name,
                                 s->trajectory, s->partial);
    char *text = comma_list(s->drives, s->ndrive);
    if (rc == PKM_OK)
        rc = text != NULL
                 ? pkm_h5_write_str_attr(io, file, "/", "drives", text)
                 : OWN_FAIL(io, PKM_ERR_INVALID, "a joint name holds a comma, or no memory");
    free(text);
    hsize_t dims[2] = {(hsize_t)s->ntime, 6};
    if (rc == PKM_OK)
        rc = pkm_h5_write_described(io, file, "t", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, dims, s->t,
                                    "units", "s");
    static const char *const name[5] = {"error", "quasi_static", "energy", "drive", "reaction"};
    static const char *const text5[5] = {
        "the platform's elastic error: ex, ey, ez (m), rx, ry, rz (rad), global axes",
        "the same of the quasi-static solution K^-1 F",
        "kinetic, strain, dissipated energy and work of the loads (J)",
        "the rigid-body inverse dynamics' drive of each actuated joint (N m or N)",
        "the reaction at each locked drive (N m or N); NaN where the model does not lock it"};
    const double *data[5] = {s->error, s->quasi_static, s->energy, s->drive, s->reaction};
    const hsize_t cols[5] = {6, 6, 4, (hsize_t)s->ndrive, (hsize_t)s->ndrive};
    for (int k = 0; k < 5 && rc == PKM_OK; k++) {
        dims[1] = cols[k];
        rc = pkm_h5_write_described(io, file, name[k], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dims,
                                    data[k], "description", text5[k]);
    }
    dims[1] = (hsize_t)s->ndrive;
    if (rc == PKM_OK && s->deflection != NULL)
        rc = pkm_h5_write_described(io, file, "deflection", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2,
                                    dims, s->deflection, "description",
                                    "the elastic drives' deflections: each drive joint's "
                                    "coordinate in the finite-element model (rad or m)");
    if (rc == PKM_OK && s->conditioning != NULL)
        rc = pkm_h5_write_described(io, file, "closure_conditioning", H5T_IEEE_F64LE,
                                    H5T_NATIVE_DOUBLE, 1, dims, s->conditioning, "description",
                                    "the locked closure's dimensionless conditioning at the last "
                                    "configuration update (pkm_pose_conditioning); below 1e-3 "
                                    "(PKM_NEAR_SINGULAR) near-singular; NaN where not computed");
    dims[1] = (hsize_t)s->nfreq;
    if (rc == PKM_OK && s->nfreq > 0)
        rc = pkm_h5_write_described(io, file, "frequencies", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2,
                                    dims, s->freq, "description",
                                    "the lowest natural frequencies at the last configuration "
                                    "update (Hz), the pencil of M(q), K(q) the step used");
    return rc;
}

pkm_status pkm_transient_series_write_h5(const char *path, const pkm_transient_series *s,
                                         pkm_ctx *ctx)
{
    if (s == NULL || path == NULL || path[0] == '\0' || s->ntime < 1 || s->ndrive < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "transient write: empty series or path");
    return pkm_h5_file_write(path, fill_transient, s, ctx);
}
