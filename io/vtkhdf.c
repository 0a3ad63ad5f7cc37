/* io/vtkhdf.c: a model's geometry and mode shapes as a VTKHDF UnstructuredGrid (pkmflex modes
 * --vtk), the HDF5 file format that VTK's vtkHDFReader and ParaView open directly; layout in
 * docs/hdf5-layout.md, "Mode-shape files".
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "io/vtkhdf_impl.h"
#include "pkm/io.h"

#include <stdlib.h>
#include <string.h>

typedef struct vtk_job {
    const pkm_model *m;
    int nmode;
    const double *freq_hz, *u;
    int64_t ncell;
    int64_t *offsets, *conn; /* ncell + 1, 2 ncell */
    unsigned char *types;    /* ncell */
    int32_t *body;           /* ncell: the body each cell draws */
    double *points, *field;  /* nnode x 3 each */
} vtk_job;

/* The cells, lines (VTK_LINE): every beam element, then for every rigid body a line from its
 * origin node to each other node of the body (where its joints attach). With out = 0 only
 * counts. */
static int64_t list_cells(vtk_job *j, int out)
{
    const pkm_model *m = j->m;
    int64_t c = 0;
    for (int b = 0; b < pkm_model_body_count(m); b++) {
        const pkm_body *body = pkm_model_body(m, b);
        for (int i = 0; i < pkm_model_node_count(m); i++) {
            int end = -1;
            if (body->kind == PKM_BODY_BEAM && i >= body->first_node &&
                i < body->first_node + body->nnodes - 1)
                end = i + 1;
            else if (body->kind == PKM_BODY_RIGID && i != body->first_node &&
                     pkm_model_node(m, i)->body == b)
                end = i;
            if (end < 0) continue;
            if (out) {
                j->conn[2 * c] = body->kind == PKM_BODY_BEAM ? i : body->first_node;
                j->conn[2 * c + 1] = end;
                j->offsets[c + 1] = 2 * (c + 1);
                j->types[c] = PKM_VTK_LINE;
                j->body[c] = b;
            }
            c++;
        }
    }
    return c;
}

/* Scalar attribute of fixed-length ASCII, null-padded, without a terminator: the form of the
 * Type attribute in the VTKHDF files VTK itself writes. */
static pkm_status write_ascii_attr(const h5io *io, hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type < 0) return H5_FAIL(io, PKM_ERR_IO, "cannot create a string type");
    pkm_status rc = PKM_OK;
    if (H5Tset_size(type, strlen(value)) < 0 || H5Tset_strpad(type, H5T_STR_NULLPAD) < 0 ||
        H5Tset_cset(type, H5T_CSET_ASCII) < 0)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create a string type");
    else
        rc = pkm_h5_write_attr(io, obj, "/VTKHDF", name, type, type, 0, value);
    H5Tclose(type);
    return rc;
}

pkm_status pkm_vtk_write_array(const h5io *io, hid_t loc, const char *name, hid_t ftype,
                               hid_t mtype, int rank, hsize_t n, const void *buf)
{
    const hsize_t dims[2] = {n, 3};
    hid_t dset = -1;
    pkm_status rc = pkm_h5_write_dataset(io, loc, name, name, ftype, mtype, rank, dims, buf, &dset);
    if (dset >= 0) H5Dclose(dset);
    return rc;
}

/* /VTKHDF/PointData: per mode k (1-based, as printed) the translation of every node,
 * mode_k, and its rotation, mode_k_rotation (u's 6 values per node: translation then rotation). */
static pkm_status write_modes(const h5io *io, hid_t root, const vtk_job *j)
{
    hid_t pd = H5Gcreate2(root, "PointData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (pd < 0) return H5_FAIL(io, PKM_ERR_IO, "cannot create /VTKHDF/PointData");
    int nnode = pkm_model_node_count(j->m);
    pkm_status rc = PKM_OK;
    for (int k = 0; k < j->nmode && rc == PKM_OK; k++) {
        for (int part = 0; part < 2 && rc == PKM_OK; part++) {
            const double *uk = j->u + (size_t)k * 6 * (size_t)nnode;
            for (int i = 0; i < nnode; i++)
                memcpy(j->field + 3 * i, uk + 6 * i + 3 * part, 3 * sizeof(double));
            char name[40];
            snprintf(name, sizeof name, part == 0 ? "mode_%d" : "mode_%d_rotation", k + 1);
            rc = pkm_vtk_write_array(io, pd, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2,
                                     (hsize_t)nnode, j->field);
        }
    }
    H5Gclose(pd);
    return rc;
}

static pkm_status write_data(const h5io *io, hid_t root, const vtk_job *j)
{
    pkm_status rc = write_modes(io, root, j);
    hid_t cd =
        rc == PKM_OK ? H5Gcreate2(root, "CellData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    if (rc == PKM_OK && cd < 0) rc = H5_FAIL(io, PKM_ERR_IO, "cannot create /VTKHDF/CellData");
    if (rc == PKM_OK)
        rc = pkm_vtk_write_array(io, cd, "body", H5T_STD_I32LE, H5T_NATIVE_INT32, 1,
                                 (hsize_t)j->ncell, j->body);
    if (cd >= 0) H5Gclose(cd);
    hid_t fd =
        rc == PKM_OK ? H5Gcreate2(root, "FieldData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    if (rc == PKM_OK && fd < 0) rc = H5_FAIL(io, PKM_ERR_IO, "cannot create /VTKHDF/FieldData");
    if (rc == PKM_OK)
        rc = pkm_vtk_write_array(io, fd, "frequency_hz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1,
                                 (hsize_t)j->nmode, j->freq_hz);
    if (fd >= 0) H5Gclose(fd);
    return rc;
}

pkm_status pkm_vtk_write_grid(const h5io *io, hid_t file, const pkm_vtk_grid *g, hid_t *root)
{
    *root = H5Gcreate2(file, "VTKHDF", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (*root < 0) return H5_FAIL(io, PKM_ERR_IO, "cannot create /VTKHDF");
    const int64_t version[2] = {1, 0}, nconn = g->offsets[g->ncell];
    pkm_status rc = pkm_h5_write_attr(io, *root, "/VTKHDF", "Version", H5T_STD_I64LE,
                                      H5T_NATIVE_INT64, 2, version);
    if (rc == PKM_OK) rc = write_ascii_attr(io, *root, "Type", "UnstructuredGrid");
    /* One partition: the counts are arrays of one entry. */
    const char *count_name[3] = {"NumberOfPoints", "NumberOfCells", "NumberOfConnectivityIds"};
    const int64_t *count[3] = {&g->npoint, &g->ncell, &nconn};
    for (int k = 0; k < 3 && rc == PKM_OK; k++)
        rc = pkm_vtk_write_array(io, *root, count_name[k], H5T_STD_I64LE, H5T_NATIVE_INT64, 1, 1,
                                 count[k]);
    if (rc == PKM_OK)
        rc = pkm_vtk_write_array(io, *root, "Points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2,
                                 (hsize_t)g->npoint, g->points);
    if (rc == PKM_OK)
        rc = pkm_vtk_write_array(io, *root, "Types", H5T_STD_U8LE, H5T_NATIVE_UCHAR, 1,
                                 (hsize_t)g->ncell, g->types);
    if (rc == PKM_OK)
        rc = pkm_vtk_write_array(io, *root, "Offsets", H5T_STD_I64LE, H5T_NATIVE_INT64, 1,
                                 (hsize_t)g->ncell + 1, g->offsets);
    if (rc == PKM_OK)
        rc = pkm_vtk_write_array(io, *root, "Connectivity", H5T_STD_I64LE, H5T_NATIVE_INT64, 1,
                                 (hsize_t)nconn, g->conn);
    return rc;
}

static pkm_status fill_vtk(const h5io *io, hid_t file, const void *user)
{
    const vtk_job *j = user;
    const pkm_vtk_grid g = {
        pkm_model_node_count(j->m), j->ncell, j->points, j->offsets, j->conn, j->types};
    hid_t root = -1;
    pkm_status rc = pkm_vtk_write_grid(io, file, &g, &root);
    if (rc == PKM_OK) rc = write_data(io, root, j);
    if (root >= 0) H5Gclose(root);
    return rc;
}

pkm_status pkm_modes_write_vtkhdf(const char *path, const pkm_model *m, int nmode,
                                  const double *freq_hz, const double *u, pkm_ctx *ctx)
{
    if (path == NULL || path[0] == '\0' || m == NULL || nmode < 1 || freq_hz == NULL || u == NULL ||
        pkm_model_node_count(m) < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "vtkhdf write: no path, model or modes");
    vtk_job j = {.m = m, .nmode = nmode, .freq_hz = freq_hz, .u = u};
    j.ncell = list_cells(&j, 0);
    size_t nnode = (size_t)pkm_model_node_count(m), nc = (size_t)j.ncell;
    j.offsets = calloc(nc + 1, sizeof *j.offsets);
    j.conn = calloc(2 * nc + 1, sizeof *j.conn);
    j.types = calloc(nc + 1, 1);
    j.body = calloc(nc + 1, sizeof *j.body);
    j.points = calloc(3 * nnode, sizeof *j.points);
    j.field = calloc(3 * nnode, sizeof *j.field);
    pkm_status rc = PKM_OK;
    if (!j.offsets || !j.conn || !j.types || !j.body || !j.points || !j.field) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "vtkhdf write: %zu nodes, %zu cells", nnode, nc);
        goto fail;
    }
    list_cells(&j, 1);
    for (size_t i = 0; i < nnode; i++)
        memcpy(j.points + 3 * i, pkm_model_node(m, (int)i)->x, 3 * sizeof(double));
    rc = pkm_h5_file_write(path, fill_vtk, &j, ctx);
fail:
    free(j.offsets);
    free(j.conn);
    free(j.types);
    free(j.body);
    free(j.points);
    free(j.field);
    return rc;
}
