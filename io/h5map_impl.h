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
 * digest, commit, Fletcher32 checksums */
#define MAP_FORMAT_VERSION 3
#define STATUS_MEANING     "-1 pending, 0 ok, 1 unreachable, 2 singular, 3 solver failure"
#define LINKS_DESCRIPTION                                                                          \
    "in a checkpoint, the links made so far: at [point, a, i], the mode of the neighbour one "     \
    "step up axis a that mode i of the point is linked to; -1 while not linked"
#define LIST_LEN 1024 /* comma-separated name lists */
_Static_assert(LIST_LEN >= PKM_POSE_MAX * (PKM_MAP_NAME_LEN + 1),
               "a list attribute holds PKM_POSE_MAX names and their commas");
/* The root attribute parameter_keys: every key of /parameters, comma-separated. */
#define KEYS_LEN (PKM_MAP_MAX_PARAMS * sizeof(((pkm_map_param *)0)->key))

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

#endif
