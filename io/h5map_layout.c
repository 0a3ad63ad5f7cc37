/* io/h5map_layout.c: the map file's objects described once (io/h5map_impl.h): the root
 * attributes that name the format, the HDF5 type of each entry of pkm_map_attrs, and the
 * datasets over the grid, which the writer (h5map.c) and the reader (h5map_read.c) iterate and
 * tests/test_io_h5map_layout.c holds against docs/hdf5-layout.md.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "io/h5map_impl.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

#define ARRAY(f) .offset = offsetof(pkm_map, f)

/* In the order they are written and read: /status before the datasets checked against it. */
const pkm_h5_map_dataset pkm_h5_map_datasets[] = {
    {.name = "freq_hz",
     .type = PKM_H5_F64,
     .shape = PKM_H5_SHAPE_GRID_NEV,
     ARRAY(freq_hz),
     .attr = "units",
     .text = "Hz",
     .since = 1},
    {.name = "residual",
     .type = PKM_H5_F64,
     .shape = PKM_H5_SHAPE_GRID_NEV,
     ARRAY(residual),
     .attr = "description",
     .text = "relative residual of each mode, ||K x - w^2 M x|| / max(||K x||, max(|w^2|, s) "
             "||M x||) with s = 1e-6 max diag K / max diag M; NaN where status != 0",
     .since = 1},
    {.name = "accuracy",
     .type = PKM_H5_F64,
     .shape = PKM_H5_SHAPE_GRID_NEV,
     ARRAY(accuracy),
     .attr = "description",
     .text = "estimated relative error of each frequency that the rounding of the assembled "
             "matrices can cause (pkm_modes.accuracy); NaN where status != 0",
     .since = 3},
    {.name = "status",
     .type = PKM_H5_I8,
     .shape = PKM_H5_SHAPE_GRID,
     ARRAY(status),
     .attr = "meaning",
     .text = STATUS_MEANING,
     .since = 1,
     .values = PKM_H5_VALUES_STATUS},
    {.name = "closure_conditioning",
     .type = PKM_H5_F64,
     .shape = PKM_H5_SHAPE_GRID,
     ARRAY(conditioning),
     .attr = "description",
     .text = "dimensionless conditioning of the loop closure with the drives locked at each pose "
             "whose model was built (smallest over largest singular value of the passive "
             "Jacobian, pkm_pose_conditioning); below 1e-3 (PKM_NEAR_SINGULAR) the pose is "
             "near-singular: status 0, but its lowest modes are the mechanism's near-free "
             "motion; NaN where the model was not built (status -1, 1) or the case has no "
             "rigid-body model",
     .since = 5},
    {.name = "tracked_mode",
     .type = PKM_H5_I32,
     .shape = PKM_H5_SHAPE_GRID_NEV,
     ARRAY(tracked),
     .attr = "description",
     .text = "id of the physical mode found at each frequency rank, linked across neighbouring "
             "poses by the MAC (root attribute tracking = mac) or equal to the rank (tracking = "
             "rank); -1 where status != 0",
     .since = 1},
    {.name = "tracking_mac",
     .type = PKM_H5_F64,
     .shape = PKM_H5_SHAPE_GRID_NEV,
     ARRAY(tracking_mac),
     .attr = "description",
     .text = "MAC of the link that gave each mode its id, from the mode of the same id at the "
             "pose /tracking_parent; below the root attribute mac_threshold the link is "
             "uncertain; NaN without parent",
     .since = 2},
    {.name = "tracking_parent",
     .type = PKM_H5_I64,
     .shape = PKM_H5_SHAPE_GRID,
     ARRAY(tracking_parent),
     .attr = "description",
     .text = "row-major index of the neighbouring pose each pose took its mode ids from; -1 for "
             "the first pose of a connected set of computed poses (ids = ranks) and where status "
             "!= 0",
     .since = 2,
     .values = PKM_H5_VALUES_POINT},
    /* The links before /modes: they say which vectors a checkpoint holds (read_per_point). */
    {.name = "tracking_links",
     .type = PKM_H5_I32,
     .shape = PKM_H5_SHAPE_GRID_AXES_NEV,
     ARRAY(link_match),
     .attr = "description",
     .text = "in a checkpoint, the links made so far: at [point, a, i], the mode of the neighbour "
             "one step up axis a that mode i of the point is linked to; -1 while not linked",
     .since = 3,
     .values = PKM_H5_VALUES_MODE,
     .presence = PKM_H5_CHECKPOINT,
     .alloc = pkm_map_alloc_links},
    {.name = "tracking_links_mac",
     .type = PKM_H5_F64,
     .shape = PKM_H5_SHAPE_GRID_AXES_NEV,
     ARRAY(link_mac),
     .attr = "description",
     .text = "MAC of each pair of /tracking_links; NaN while not linked",
     .since = 3,
     .presence = PKM_H5_CHECKPOINT},
    {.name = "modes",
     .type = PKM_H5_F64,
     .shape = PKM_H5_SHAPE_GRID_NEV_NCOORD,
     ARRAY(modes),
     .attr = "description",
     .text = "mode shapes in the independent coordinates of the reduced pencil (mass-orthonormal: "
             "x^T M x = 1), one row per frequency rank; NaN where status != 0",
     .since = 2,
     .per_point = 1,
     .presence = PKM_H5_OPTIONAL,
     .alloc = pkm_map_alloc_modes},
};
const int pkm_h5_map_dataset_count =
    (int)(sizeof(pkm_h5_map_datasets) / sizeof(pkm_h5_map_datasets[0]));

const char *pkm_h5_map_type_name(pkm_h5_type t)
{
    static const char *const names[] = {[PKM_H5_F64] = "float64",
                                        [PKM_H5_I8] = "int8",
                                        [PKM_H5_I32] = "int32",
                                        [PKM_H5_I64] = "int64"};
    return names[t];
}

const char *pkm_h5_map_shape_name(pkm_h5_shape s)
{
    static const char *const names[] = {
        [PKM_H5_SHAPE_GRID] = "[count_0, ..., count_{naxes-1}]",
        [PKM_H5_SHAPE_GRID_NEV] = "[count_0, ..., count_{naxes-1}, nev]",
        [PKM_H5_SHAPE_GRID_NEV_NCOORD] = "[count_0, ..., count_{naxes-1}, nev, ncoord]",
        [PKM_H5_SHAPE_GRID_AXES_NEV] = "[count_0, ..., count_{naxes-1}, naxes, nev]"};
    return names[s];
}

const char *pkm_h5_map_presence_mark(pkm_h5_presence p)
{
    static const char *const marks[] = {
        [PKM_H5_ALWAYS] = "", [PKM_H5_OPTIONAL] = "optional", [PKM_H5_CHECKPOINT] = "checkpoints"};
    return marks[p];
}

pkm_h5_elem pkm_h5_map_elem(pkm_h5_type t)
{
    switch (t) {
    case PKM_H5_I8:
        return (pkm_h5_elem){H5T_STD_I8LE, H5T_NATIVE_SCHAR, H5T_INTEGER, 1};
    case PKM_H5_I32:
        return (pkm_h5_elem){H5T_STD_I32LE, H5T_NATIVE_INT, H5T_INTEGER, 4};
    case PKM_H5_I64:
        return (pkm_h5_elem){H5T_STD_I64LE, H5T_NATIVE_INT64, H5T_INTEGER, 8};
    case PKM_H5_F64:
        break;
    }
    return (pkm_h5_elem){H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, H5T_FLOAT, 8};
}

int pkm_h5_map_dims(const pkm_h5_map_dataset *d, const pkm_map *map, hsize_t *dims)
{
    for (int a = 0; a < map->naxes; a++)
        dims[a] = (hsize_t)map->axes[a].count;
    int rank = map->naxes;
    if (d->shape == PKM_H5_SHAPE_GRID_AXES_NEV) dims[rank++] = (hsize_t)map->naxes;
    if (d->shape != PKM_H5_SHAPE_GRID) dims[rank++] = (hsize_t)map->nev;
    if (d->shape == PKM_H5_SHAPE_GRID_NEV_NCOORD) dims[rank++] = (hsize_t)map->ncoord;
    return rank;
}

void *pkm_h5_map_array(const pkm_h5_map_dataset *d, const pkm_map *map)
{
    void *p;
    memcpy(&p, (const char *)map + d->offset, sizeof(p));
    return p;
}
