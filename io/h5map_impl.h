/* io/h5map_impl.h: private interface of the HDF5 map writer (h5map.c) and reader (h5map_read.c):
 * the file's names and sizes; the HDF5 helpers they use are io/h5_impl.h's.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_IO_H5MAP_IMPL_H
#define PKM_IO_H5MAP_IMPL_H

#include "io/h5_impl.h"
#include "pkm/io.h"
#include "pkm/map.h"

#define MAP_FORMAT "pkmflex-map"
/* 2: mode tracking, case parameters, /modes; 3: /accuracy, resolved parameters, case file
 * digest, commit, Fletcher32 checksums; 5: /closure_conditioning */
#define MAP_FORMAT_VERSION 5
#define STATUS_MEANING     "-1 pending, 0 ok, 1 unreachable, 2 singular, 3 solver failure"
#define LIST_LEN           1024 /* comma-separated name lists */
_Static_assert(LIST_LEN >= PKM_POSE_MAX * (PKM_MAP_NAME_LEN + 1),
               "a list attribute holds PKM_POSE_MAX names and their commas");
/* The root attribute parameter_keys: every key of /parameters, comma-separated. */
#define KEYS_LEN (PKM_MAP_MAX_PARAMS * sizeof(((pkm_map_param *)0)->key))

/* io/h5map_layout.c describes the file: */

/* The root attributes that name the format, written before the table's (io/h5map.c,
 * write_root_attrs), with their types as docs/hdf5-layout.md names them. */
typedef struct pkm_h5_map_file_attr {
    const char *name, *type;
} pkm_h5_map_file_attr;
#define PKM_H5_MAP_FILE_ATTRS 2
extern const pkm_h5_map_file_attr pkm_h5_map_file_attrs[PKM_H5_MAP_FILE_ATTRS];

/* The file type of entry e of pkm_map_attrs, as docs/hdf5-layout.md names it: "string", "int32"
 * or "int64" (the width of its field), "float64", "float64 array". */
const char *pkm_h5_map_attr_type(const pkm_map_attr *e);

/* A dataset's element type, and its shape over the grid (the axes in the order of the root
 * attribute axes, then the modes, then the coordinates). */
typedef enum pkm_h5_type { PKM_H5_F64, PKM_H5_I8, PKM_H5_I32, PKM_H5_I64 } pkm_h5_type;
typedef enum pkm_h5_shape {
    PKM_H5_SHAPE_GRID,
    PKM_H5_SHAPE_GRID_NEV,
    PKM_H5_SHAPE_GRID_NEV_NCOORD,
    PKM_H5_SHAPE_GRID_AXES_NEV /* a pair of neighbours along each axis, per mode */
} pkm_h5_shape;

/* A dataset over the grid: one array of pkm_map (at offset, a pointer), with one string
 * attribute (attr = text), since a format version. Chunked with Fletcher32 checksums: whole
 * trailing dimensions up to 1 MiB (pkm_h5_write_dataset), or with per_point one chunk per grid
 * point, NaN-filled, only the OK points that hold a vector written (/modes).
 * /grid/<axis> and /parameters are not over the grid: h5map.c writes them on their own. */
typedef enum pkm_h5_values {
    PKM_H5_VALUES_ANY,
    PKM_H5_VALUES_STATUS, /* a pkm_pose_status */
    PKM_H5_VALUES_POINT,  /* a row-major point index, or -1 */
    PKM_H5_VALUES_MODE    /* a frequency rank, or -1 */
} pkm_h5_values;

/* Which files hold a dataset, as docs/hdf5-layout.md marks its path: every file; optional
 * ("(optional)": written when the map holds the array); or only a running sweep's checkpoints
 * ("(checkpoints)": the links, pkm_map.link_match and link_mac, which pkm_map_track turns into
 * the tracking datasets and frees). The reader reads the last two only if the file has them,
 * allocating the array with alloc. */
typedef enum pkm_h5_presence { PKM_H5_ALWAYS, PKM_H5_OPTIONAL, PKM_H5_CHECKPOINT } pkm_h5_presence;

typedef struct pkm_h5_map_dataset {
    const char *name;
    pkm_h5_type type;
    pkm_h5_shape shape;
    size_t offset;
    const char *attr, *text;
    int since;
    int per_point;
    pkm_h5_values values; /* what the reader checks each value against */
    pkm_h5_presence presence;
    /* Allocates the array (and its companions) before reading an optional dataset; NULL where a
     * companion read before it allocated it (/tracking_links_mac, with /tracking_links). */
    pkm_status (*alloc)(pkm_map *map, pkm_ctx *ctx);
} pkm_h5_map_dataset;

extern const pkm_h5_map_dataset pkm_h5_map_datasets[];
extern const int pkm_h5_map_dataset_count;

/* Names as docs/hdf5-layout.md writes them: "float64", "int8", ...; "[count_0, ..., nev]". */
const char *pkm_h5_map_type_name(pkm_h5_type t);
const char *pkm_h5_map_shape_name(pkm_h5_shape s);
const char *pkm_h5_map_presence_mark(pkm_h5_presence p); /* "", "optional", "checkpoints" */

/* The HDF5 file and memory types, class and element size of t. */
typedef struct pkm_h5_elem {
    hid_t file, mem;
    H5T_class_t cls;
    size_t size;
} pkm_h5_elem;
pkm_h5_elem pkm_h5_map_elem(pkm_h5_type t);

/* Dimensions of d for map into dims (PKM_MAP_MAX_AXES + 2); its rank. */
int pkm_h5_map_dims(const pkm_h5_map_dataset *d, const pkm_map *map, hsize_t *dims);

/* The array of map that d stores (NULL if not allocated). */
void *pkm_h5_map_array(const pkm_h5_map_dataset *d, const pkm_map *map);

#endif
