/* io/vtkhdf_map.c: a frequency map over its grid as a VTKHDF UnstructuredGrid (pkmflex map
 * --vtk, pkmflex export --vtk): f_k, the tracked modes' frequencies, the closure's conditioning
 * and the status at the grid points, the status of each grid cell. Layout in docs/hdf5-layout.md,
 * "Map files for ParaView".
 *
 * Not ImageData, the natural type of a regular grid: Debian 12's VTK 9.1 vtkHDFReader copies the
 * six extent values of an ImageData into the reduced (fewer than 3 dimensions) extent it reads
 * with, overrunning it, and aborts on every image with a flat dimension, so on every 1-D and
 * 2-D map. Its UnstructuredGrid path reads the same grid as points, and as lines, pixels or
 * voxels between them.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "io/vtkhdf_impl.h"
#include "pkm/io.h"
#include "pkm/motion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The grid as VTK sees it: the axes with more than one point, in the map's order, are x, y, z. */
typedef struct map_cells {
    int dim;                  /* 0 to 3 */
    int axis[3];              /* the map axis of each VTK coordinate */
    int64_t stride[3];        /* its step in the map's row-major point index */
    int64_t ncell, corners;   /* cells and points per cell (2^dim) */
    double *points;           /* npoints x 3 */
    int64_t *offsets, *conn;  /* ncell + 1, ncell x corners */
    unsigned char *types;     /* ncell */
    signed char *cell_status; /* ncell */
    double *field;            /* npoints: one frequency rank */
    const pkm_map *map;
} map_cells;

/* VTK coordinates of the map's swept axes; PKM_ERR_INVALID above three of them. */
static pkm_status map_cells_axes(map_cells *mc, pkm_ctx *ctx)
{
    const pkm_map *map = mc->map;
    int64_t stride = 1;
    mc->dim = 0;
    mc->ncell = 1;
    for (int a = map->naxes - 1; a >= 0; a--) {
        if (map->axes[a].count > 1) {
            if (mc->dim == 3)
                return PKM_FAIL(ctx, PKM_ERR_INVALID,
                                "vtkhdf: the map sweeps more than 3 axes; VTK shows at most 3");
            mc->axis[mc->dim] = a;
            mc->stride[mc->dim++] = stride;
            mc->ncell *= map->axes[a].count - 1;
        }
        stride *= map->axes[a].count;
    }
    /* Collected last axis first; VTK's x is the map's first swept axis. */
    for (int e = 0; e < mc->dim / 2; e++) {
        int t = mc->axis[e];
        mc->axis[e] = mc->axis[mc->dim - 1 - e];
        mc->axis[mc->dim - 1 - e] = t;
        int64_t s = mc->stride[e];
        mc->stride[e] = mc->stride[mc->dim - 1 - e];
        mc->stride[mc->dim - 1 - e] = s;
    }
    mc->corners = (int64_t)1 << mc->dim;
    return PKM_OK;
}

/* The status of a cell: 0 if every corner's is 0, else its worst corner's (3 failed > 2 singular
 * > 1 unreachable > -1 pending). */
static signed char worst_status(signed char worst, signed char s)
{
    if (s > 0 && s > worst) return s;
    if (s < 0 && worst == 0) return -1;
    return worst;
}

/* Points at the axis values, and cells: one per grid cell of the swept axes, its corners in the
 * order of VTK_LINE, VTK_PIXEL, VTK_VOXEL (bit e of the corner number steps VTK axis e); a
 * single pose is one VTK_VERTEX. */
static void map_cells_fill(map_cells *mc)
{
    const pkm_map *map = mc->map;
    static const unsigned char type[4] = {PKM_VTK_VERTEX, PKM_VTK_LINE, PKM_VTK_PIXEL,
                                          PKM_VTK_VOXEL};
    int64_t c = 0;
    for (int64_t p = 0; p < map->npoints; p++) {
        int inner = 1;
        for (int e = 0; e < 3; e++) {
            double v = 0.0;
            if (e < mc->dim) {
                const pkm_map_axis *ax = &map->axes[mc->axis[e]];
                int64_t k = (p / mc->stride[e]) % ax->count;
                v = ax->start + (double)k * (ax->stop - ax->start) / (ax->count - 1);
                inner = inner && k + 1 < ax->count;
            }
            mc->points[3 * p + e] = v;
        }
        if (!inner) continue;
        signed char worst = 0;
        for (int64_t q = 0; q < mc->corners; q++) {
            int64_t id = p;
            for (int e = 0; e < mc->dim; e++)
                if (q >> e & 1) id += mc->stride[e];
            mc->conn[c * mc->corners + q] = id;
            worst = worst_status(worst, map->status[id]);
        }
        mc->types[c] = type[mc->dim];
        mc->cell_status[c] = worst;
        mc->offsets[c + 1] = (c + 1) * mc->corners;
        c++;
    }
}

/* PointData tracked_J: the frequency of the mode whose /tracked_mode id is J at each pose (the
 * rank holding it differs from pose to pose where modes cross), NaN where not computed; only for
 * a map tracked by MAC (with ids equal to the ranks, tracked_J would be f_{J+1}). */
static pkm_status write_tracked(const h5io *io, hid_t pd, const map_cells *mc)
{
    const pkm_map *map = mc->map;
    if (map->tracking != PKM_TRACK_MAC || map->tracked == NULL) return PKM_OK;
    pkm_status rc = PKM_OK;
    for (int id = 0; id < map->nev && rc == PKM_OK; id++) {
        for (int64_t p = 0; p < map->npoints; p++) {
            mc->field[p] = NAN;
            for (int k = 0; k < map->nev; k++)
                if (map->tracked[p * map->nev + k] == id)
                    mc->field[p] = map->freq_hz[p * map->nev + k];
        }
        char name[24];
        snprintf(name, sizeof name, "tracked_%d", id);
        rc = pkm_vtk_write_array(io, pd, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1,
                                 (hsize_t)map->npoints, mc->field);
    }
    return rc;
}

/* PointData closure_conditioning (/closure_conditioning) and near_singular: 1 where it is below
 * PKM_NEAR_SINGULAR, 0 at or above, -1 where it is NaN (for ParaView's Threshold). */
static pkm_status write_conditioning(const h5io *io, hid_t pd, const map_cells *mc)
{
    const pkm_map *map = mc->map;
    if (map->conditioning == NULL) return PKM_OK;
    const hsize_t np = (hsize_t)map->npoints;
    pkm_status rc = pkm_vtk_write_array(io, pd, "closure_conditioning", H5T_IEEE_F64LE,
                                        H5T_NATIVE_DOUBLE, 1, np, map->conditioning);
    signed char *flag = (signed char *)mc->field; /* npoints doubles hold npoints flags */
    for (int64_t p = 0; p < map->npoints; p++) {
        const double c = map->conditioning[p];
        flag[p] = isnan(c) ? -1 : c < PKM_NEAR_SINGULAR ? 1 : 0;
    }
    if (rc == PKM_OK)
        rc = pkm_vtk_write_array(io, pd, "near_singular", H5T_STD_I8LE, H5T_NATIVE_SCHAR, 1, np,
                                 flag);
    return rc;
}

/* PointData f_K (K from 1, NaN where not computed), tracked_J, the closure's conditioning and
 * status; CellData status. */
static pkm_status write_fields(const h5io *io, hid_t root, const map_cells *mc)
{
    const pkm_map *map = mc->map;
    const hsize_t np = (hsize_t)map->npoints;
    hid_t pd = H5Gcreate2(root, "PointData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (pd < 0) return H5_FAIL(io, PKM_ERR_IO, "cannot create /VTKHDF/PointData");
    pkm_status rc = PKM_OK;
    for (int k = 0; k < map->nev && rc == PKM_OK; k++) {
        for (int64_t p = 0; p < map->npoints; p++)
            mc->field[p] = map->freq_hz[p * map->nev + k];
        char name[24];
        snprintf(name, sizeof name, "f_%d", k + 1);
        rc = pkm_vtk_write_array(io, pd, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, np, mc->field);
    }
    if (rc == PKM_OK) rc = write_tracked(io, pd, mc);
    if (rc == PKM_OK) rc = write_conditioning(io, pd, mc);
    if (rc == PKM_OK)
        rc = pkm_vtk_write_array(io, pd, "status", H5T_STD_I8LE, H5T_NATIVE_SCHAR, 1, np,
                                 map->status);
    H5Gclose(pd);
    hid_t cd =
        rc == PKM_OK ? H5Gcreate2(root, "CellData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    if (rc == PKM_OK && cd < 0) rc = H5_FAIL(io, PKM_ERR_IO, "cannot create /VTKHDF/CellData");
    if (rc == PKM_OK)
        rc = pkm_vtk_write_array(io, cd, "status", H5T_STD_I8LE, H5T_NATIVE_SCHAR, 1,
                                 (hsize_t)mc->ncell, mc->cell_status);
    if (cd >= 0) H5Gclose(cd);
    return rc;
}

static pkm_status fill_map(const h5io *io, hid_t file, const void *user)
{
    const map_cells *mc = user;
    const pkm_vtk_grid g = {mc->map->npoints, mc->ncell, mc->points,
                            mc->offsets,      mc->conn,  mc->types};
    hid_t root = -1;
    pkm_status rc = pkm_vtk_write_grid(io, file, &g, &root);
    if (rc == PKM_OK) rc = write_fields(io, root, mc);
    if (root >= 0) H5Gclose(root);
    return rc;
}

pkm_status pkm_map_write_vtkhdf(const pkm_map *map, const char *path, pkm_ctx *ctx)
{
    if (path == NULL || path[0] == '\0' || map == NULL || map->npoints < 1 || map->nev < 1 ||
        map->status == NULL || map->freq_hz == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "vtkhdf write: no path or map");
    map_cells mc = {.map = map};
    pkm_status rc = map_cells_axes(&mc, ctx);
    if (rc != PKM_OK) return rc;
    size_t np = (size_t)map->npoints, nc = (size_t)mc.ncell;
    mc.points = calloc(3 * np, sizeof *mc.points);
    mc.field = calloc(np, sizeof *mc.field);
    mc.offsets = calloc(nc + 1, sizeof *mc.offsets);
    mc.conn = calloc(nc * (size_t)mc.corners, sizeof *mc.conn);
    mc.types = calloc(nc, 1);
    mc.cell_status = calloc(nc, 1);
    if (!mc.points || !mc.field || !mc.offsets || !mc.conn || !mc.types || !mc.cell_status) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "vtkhdf write: %zu points, %zu cells", np, nc);
        goto fail;
    }
    map_cells_fill(&mc);
    rc = pkm_h5_file_write(path, fill_map, &mc, ctx);
fail:
    free(mc.points);
    free(mc.field);
    free(mc.offsets);
    free(mc.conn);
    free(mc.types);
    free(mc.cell_status);
    return rc;
}
