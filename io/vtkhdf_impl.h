/* io/vtkhdf_impl.h: private interface of the io layer's VTKHDF writers (io/vtkhdf.c: mode
 * shapes, io/vtkhdf_map.c: frequency maps): the UnstructuredGrid both write, the format VTK's
 * vtkHDFReader and ParaView open (layout in docs/hdf5-layout.md).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_IO_VTKHDF_IMPL_H
#define PKM_IO_VTKHDF_IMPL_H

#include "io/h5_impl.h"

/* VTK's cell types (vtkCellType.h) the writers use. */
enum { PKM_VTK_VERTEX = 1, PKM_VTK_LINE = 3, PKM_VTK_PIXEL = 8, PKM_VTK_VOXEL = 11 };

/* One partition of an UnstructuredGrid: npoint points, ncell cells of which cell c has the
 * point ids conn[offsets[c] .. offsets[c + 1]) and type types[c]. */
typedef struct pkm_vtk_grid {
    int64_t npoint, ncell;
    const double *points;   /* npoint x 3 */
    const int64_t *offsets; /* ncell + 1, offsets[0] = 0 */
    const int64_t *conn;    /* offsets[ncell] */
    const unsigned char *types;
} pkm_vtk_grid;

/* A new group /VTKHDF in file holding g (Version 1.0, Type UnstructuredGrid, the counts, Points,
 * Types, Offsets, Connectivity), returned open in *root (the caller adds PointData etc. and
 * closes it). */
pkm_status pkm_vtk_write_grid(const h5io *io, hid_t file, const pkm_vtk_grid *g, hid_t *root);

/* Dataset name in loc, [n] (rank 1) or [n][3] (rank 2), closed. */
pkm_status pkm_vtk_write_array(const h5io *io, hid_t loc, const char *name, hid_t ftype,
                               hid_t mtype, int rank, hsize_t n, const void *buf);

#endif
