/* io/vtkhdf.c: a model's geometry and mode shapes as a VTKHDF UnstructuredGrid (pkmflex modes
 * --vtk), the HDF5 file format that VTK's vtkHDFReader and ParaView open directly; layout in
 * docs/hdf5-layout.md, "Mode-shape files".
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "io/vtkhdf_impl.h"
#include "pkm/fem.h"
#include "pkm/io.h"

#include <stdlib.h>
#include <string.h>

/* Segments a quintic element is drawn with: its shape functions bend within the element (the
 * cubic and linear elements' fields are drawn straight between nodes). */
#define VTK_QUINTIC_SEGMENTS 8

typedef struct vtk_job {
    const pkm_model *m;
    int nmode;
    const double *freq_hz, *u, *kappa;
    int64_t ncell, nextra; /* cells; points inside quintic elements, after the nodes */
    int *extra_elem;       /* nextra: the element a point is inside, at xi = extra_xi */
    double *extra_xi;
    double (*frame)[3][3];   /* per element: its axes (rows) where subdivided */
    double *length;          /* per element */
    int64_t *offsets, *conn; /* ncell + 1, 2 ncell */
    unsigned char *types;    /* ncell */
    int32_t *body;           /* ncell: the body each cell draws */
    double *points, *field;  /* nnode x 3 each */
} vtk_job;

/* Whether beam element ei is drawn through interior points (a quintic, with curvatures given). */
static int subdivided(const vtk_job *j, int ei)
{
    const pkm_body *b = pkm_model_body(j->m, pkm_model_elem(j->m, ei)->body);
    return j->kappa != NULL && pkm_beam_types[b->element].dofs_per_node == 9;
}

/* Cell c from point a to point b of body. */
static void put_line(vtk_job *j, int64_t c, int64_t a, int64_t b, int body)
{
    j->conn[2 * c] = a;
    j->conn[2 * c + 1] = b;
    j->offsets[c + 1] = 2 * (c + 1);
    j->types[c] = PKM_VTK_LINE;
    j->body[c] = body;
}

/* The cells, lines (VTK_LINE): every beam element (a quintic one as VTK_QUINTIC_SEGMENTS lines
 * through its interior points), then for every rigid body a line from its origin node to each
 * other node of the body (where its joints attach). With out = 0 only counts (cells and
 * interior points). */
static int64_t list_cells(vtk_job *j, int out)
{
    const pkm_model *m = j->m;
    const int64_t nnode = pkm_model_node_count(m);
    int64_t c = 0;
    j->nextra = 0;
    for (int b = 0; b < pkm_model_body_count(m); b++) {
        const pkm_body *body = pkm_model_body(m, b);
        for (int i = 0; i < pkm_model_node_count(m); i++) {
            if (body->kind == PKM_BODY_BEAM && i >= body->first_node &&
                i < body->first_node + body->nnodes - 1) {
                const int ei = body->first_elem + (i - body->first_node);
                const int nseg = subdivided(j, ei) ? VTK_QUINTIC_SEGMENTS : 1;
                for (int s = 0; s < nseg; s++, c++) {
                    const int64_t a = s == 0 ? i : nnode + j->nextra - 1,
                                  e = s == nseg - 1 ? i + 1 : nnode + j->nextra;
                    if (s < nseg - 1 && out) {
                        j->extra_elem[j->nextra] = ei;
                        j->extra_xi[j->nextra] = (s + 1.0) / nseg;
                    }
                    if (s < nseg - 1) j->nextra++;
                    if (out) put_line(j, c, a, e, b);
                }
            } else if (body->kind == PKM_BODY_RIGID && i != body->first_node &&
                       pkm_model_node(m, i)->body == b) {
                if (out) put_line(j, c, body->first_node, i, b);
                c++;
            }
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

/* Mode k's translation and rotation (global axes) at interior point q of a quintic element: the
 * element's 18 local dofs (the end nodes' twists in its axes, then their curvatures, local
 * already) interpolated by its shape functions. */
static void interior_field(const vtk_job *j, int k, int64_t q, double g[6])
{
    const int ei = j->extra_elem[q], nelem = pkm_model_element_count(j->m);
    const pkm_elem *el = pkm_model_elem(j->m, ei);
    double(*R)[3] = j->frame[ei], ul[18], d[6];
    const double *uk = j->u + (size_t)k * 6 * (size_t)pkm_model_node_count(j->m),
                 *kk = j->kappa + ((size_t)k * (size_t)nelem + (size_t)ei) * 6;
    for (int side = 0; side < 2; side++) {
        const double *un = uk + 6 * (side == 0 ? el->n1 : el->n2);
        for (int t = 0; t < 2; t++)
            for (int a = 0; a < 3; a++)
                ul[9 * side + 3 * t + a] =
                    R[a][0] * un[3 * t] + R[a][1] * un[3 * t + 1] + R[a][2] * un[3 * t + 2];
        memcpy(ul + 9 * side + 6, kk + 3 * side, 3 * sizeof(double));
    }
    pkm_fem_quintic_interpolate(ul, j->length[ei], j->extra_xi[q], d);
    for (int t = 0; t < 2; t++)
        for (int a = 0; a < 3; a++)
            g[3 * t + a] = R[0][a] * d[3 * t] + R[1][a] * d[3 * t + 1] + R[2][a] * d[3 * t + 2];
}

/* /VTKHDF/PointData: per mode k (1-based, as printed) the translation of every point, mode_k,
 * and its rotation, mode_k_rotation: u's 6 values per node (translation then rotation), then
 * the interior points of quintic elements. */
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
            for (int64_t q = 0; q < j->nextra; q++) {
                double g[6];
                interior_field(j, k, q, g);
                memcpy(j->field + 3 * (nnode + q), g + 3 * part, 3 * sizeof(double));
            }
            char name[40];
            snprintf(name, sizeof name, part == 0 ? "mode_%d" : "mode_%d_rotation", k + 1);
            rc = pkm_vtk_write_array(io, pd, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2,
                                     (hsize_t)(nnode + j->nextra), j->field);
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
        pkm_model_node_count(j->m) + j->nextra, j->ncell, j->points, j->offsets, j->conn, j->types};
    hid_t root = -1;
    pkm_status rc = pkm_vtk_write_grid(io, file, &g, &root);
    if (rc == PKM_OK) rc = write_data(io, root, j);
    if (root >= 0) H5Gclose(root);
    return rc;
}

/* Each subdivided element's axes and length, and the points: the nodes, then the interior
 * points on the straight elements. */
static pkm_status place_points(vtk_job *j, pkm_ctx *ctx)
{
    const pkm_model *m = j->m;
    const int nnode = pkm_model_node_count(m);
    for (int ei = 0; ei < pkm_model_element_count(m); ei++) {
        if (!subdivided(j, ei)) continue;
        const pkm_elem *el = pkm_model_elem(m, ei);
        const pkm_status rc = pkm_fem_beam3d_frame(
            pkm_model_node(m, el->n1)->x, pkm_model_node(m, el->n2)->x,
            pkm_model_body(m, el->body)->zref, j->frame[ei], &j->length[ei], ctx);
        if (rc != PKM_OK) return rc;
    }
    for (int i = 0; i < nnode; i++)
        memcpy(j->points + 3 * i, pkm_model_node(m, i)->x, 3 * sizeof(double));
    for (int64_t q = 0; q < j->nextra; q++) {
        const pkm_elem *el = pkm_model_elem(m, j->extra_elem[q]);
        const double *a = pkm_model_node(m, el->n1)->x, *b = pkm_model_node(m, el->n2)->x,
                     xi = j->extra_xi[q];
        for (int t = 0; t < 3; t++)
            j->points[3 * (nnode + q) + t] = a[t] + xi * (b[t] - a[t]);
    }
    return PKM_OK;
}

pkm_status pkm_modes_write_vtkhdf(const char *path, const pkm_model *m, int nmode,
                                  const double *freq_hz, const double *u, const double *kappa,
                                  pkm_ctx *ctx)
{
    if (path == NULL || path[0] == '\0' || m == NULL || nmode < 1 || freq_hz == NULL || u == NULL ||
        pkm_model_node_count(m) < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "vtkhdf write: no path, model or modes");
    vtk_job j = {.m = m, .nmode = nmode, .freq_hz = freq_hz, .u = u, .kappa = kappa};
    j.ncell = list_cells(&j, 0);
    const size_t ne = (size_t)pkm_model_element_count(m) + 1, nc = (size_t)j.ncell,
                 nx = (size_t)j.nextra, np = (size_t)pkm_model_node_count(m) + nx;
    j.offsets = calloc(nc + 1, sizeof *j.offsets);
    j.conn = calloc(2 * nc + 1, sizeof *j.conn);
    j.types = calloc(nc + 1, 1);
    j.body = calloc(nc + 1, sizeof *j.body);
    j.points = calloc(3 * np, sizeof *j.points);
    j.field = calloc(3 * np, sizeof *j.field);
    j.extra_elem = calloc(nx + 1, sizeof *j.extra_elem);
    j.extra_xi = calloc(nx + 1, sizeof *j.extra_xi);
    j.frame = calloc(ne, sizeof *j.frame);
    j.length = calloc(ne, sizeof *j.length);
    pkm_status rc = PKM_OK;
    if (!j.offsets || !j.conn || !j.types || !j.body || !j.points || !j.field || !j.extra_elem ||
        !j.extra_xi || !j.frame || !j.length) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "vtkhdf write: %zu points, %zu cells", np, nc);
        goto fail;
    }
    list_cells(&j, 1);
    rc = place_points(&j, ctx);
    if (rc == PKM_OK) rc = pkm_h5_file_write(path, fill_vtk, &j, ctx);
fail:
    free(j.offsets);
    free(j.conn);
    free(j.types);
    free(j.body);
    free(j.points);
    free(j.field);
    free(j.extra_elem);
    free(j.extra_xi);
    free(j.frame);
    free(j.length);
    return rc;
}
