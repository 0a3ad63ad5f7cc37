/* include/pkm/io.h: reference tables and result files.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_IO_H
#define PKM_IO_H

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

#ifdef __cplusplus
}
#endif
#endif
