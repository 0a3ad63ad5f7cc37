/* include/pkm/io.h: reference tables and result files (the io layer; the maps they store are
 * the studies layer's, include/pkm/map.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_IO_H
#define PKM_IO_H

#include "pkm/map.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A table of reference natural frequencies per pose (e.g. Cast3M results), read from CSV:
 *   # comment lines anywhere
 *   pose,<pose coordinate columns...>,<frequency columns...>    (header, names free)
 *   1,0.0,0.0,0.0,44.10,44.10,...                                (id, pose in SI, Hz)
 * The number of pose columns is given by the caller (the case's pose dimension); every data
 * row has as many fields as the header. */
typedef struct pkm_table {
    int nrows;
    int npose;    /* pose coordinates per row */
    int nfreq;    /* frequencies per row */
    int *id;      /* nrows pose labels (first column) */
    double *pose; /* nrows x npose, row-major, SI */
    double *freq; /* nrows x nfreq, row-major, Hz */
} pkm_table;

/* Errors name the file and line (and the field): PKM_ERR_IO if it cannot be read,
 * PKM_ERR_PARSE for malformed content. */
pkm_status pkm_table_read(const char *path, int npose, pkm_table **out, pkm_ctx *ctx);
void pkm_table_destroy(pkm_table **t);

/* Frequency maps (io/h5map.c, io/h5map_read.c). */
/* HDF5 file (layout in docs/hdf5-layout.md), written to PATH.tmp then renamed, so a crash
 * never leaves a partial file at PATH. /modes is written if map->modes is not NULL. */
pkm_status pkm_map_write_h5(const pkm_map *map, const char *path, pkm_ctx *ctx);

/* Read a file written by pkm_map_write_h5 (map is filled, with /modes if the file has it;
 * release with pkm_map_free). */
pkm_status pkm_map_read_h5(const char *path, pkm_map *map, pkm_ctx *ctx);

/* pkm_map_read_h5 of a file that may be damaged or crafted (one a user names), in a child process
 * (io/h5map_isolate.c): libhdf5 1.10.8 can crash, exhaust memory or loop decoding a crafted
 * file's metadata, and only a process boundary contains that. The child reads the file and
 * writes what it read with pkm_map_write_h5 to a temporary directory ($TMPDIR or /tmp), which
 * this process reads and removes: the disk and time of a second copy. A child that crashes,
 * ends without a result or takes more than limit_s seconds (<= 0: 60 s plus 1 s per 10 MB of
 * the file) is PKM_ERR_PARSE naming the file and what happened; the reader's own errors are
 * returned as they are. POSIX fork: call it from a single-threaded process, or one whose other
 * threads hold no lock the child needs (the child only reads and writes the files). */
pkm_status pkm_map_read_h5_isolated(const char *path, double limit_s, pkm_map *map, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
