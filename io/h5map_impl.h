/* io/h5map_impl.h: private interface of the HDF5 map writer (h5map.c) and reader (h5map_read.c,
 * h5map_attr.c): the file's names, error recording with the innermost HDF5 cause, HDF5's
 * automatic error printing switched off for the duration of a call, and the attribute readers.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_IO_H5MAP_IMPL_H
#define PKM_IO_H5MAP_IMPL_H

#include "core/core_impl.h"
#include "pkm/io.h"
#include "pkm/map.h"

#include <hdf5.h>

#define MAP_FORMAT "pkmflex-map"
/* 2: mode tracking, case parameters, /modes; 3: /accuracy, resolved parameters, case file
 * digest, commit, Fletcher32 checksums */
#define MAP_FORMAT_VERSION 3
#define STATUS_MEANING     "-1 pending, 0 ok, 1 unreachable, 2 singular, 3 solver failure"
/* The default raw-data chunk cache holds 1 MiB per dataset; a chunk larger than that bypasses it
 * (HDF5 User Guide, "Chunking in HDF5"), so chunks are kept below that size. */
#define CHUNK_BYTES ((size_t)1 << 20)
#define LIST_LEN    1024 /* comma-separated name lists */
_Static_assert(LIST_LEN >= PKM_POSE_MAX * (PKM_MAP_NAME_LEN + 1),
               "a list attribute holds PKM_POSE_MAX names and their commas");
/* The root attribute parameter_keys: every key of /parameters, comma-separated. */
#define KEYS_LEN (PKM_MAP_MAX_PARAMS * sizeof(((pkm_map_param *)0)->key))

/* Where messages point: the file named by the caller and the caller's context. */
typedef struct h5io {
    const char *path;
    pkm_ctx *ctx;
} h5io;

/* Record "PATH: WHAT (HDF5: cause)"; with_cause = 0 for failures detected by this code, where
 * the error stack may hold a stale, unrelated entry. */
pkm_status pkm_h5_fail_at(const h5io *io, pkm_status st, int with_cause, const char *file, int line,
                          const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

#define H5_FAIL(io, st, ...)  pkm_h5_fail_at((io), (st), 1, __FILE__, __LINE__, __VA_ARGS__)
#define OWN_FAIL(io, st, ...) pkm_h5_fail_at((io), (st), 0, __FILE__, __LINE__, __VA_ARGS__)

/* Automatic error printing off for the duration of one entry point, caller's handler restored. */
typedef struct h5_quiet {
    H5E_auto2_t func;
    void *data;
    int saved;
} h5_quiet;

void pkm_h5_quiet_begin(h5_quiet *q);
void pkm_h5_quiet_end(const h5_quiet *q);

/* Attributes of a map file (h5map_attr.c); OBJNAME names obj in messages. Scalar fixed-length
 * string NAME into out[cap]; variable-length strings are refused without being read. */
pkm_status pkm_h5_read_str_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                char *out, size_t cap);
/* n numbers (a scalar for n = 1) converted to mtype; integers_only rejects floating point. */
pkm_status pkm_h5_read_num_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                hid_t mtype, int integers_only, hssize_t n, void *buf);
/* A scalar integer in [lo, hi]. */
pkm_status pkm_h5_read_int_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                int64_t lo, int64_t hi, int64_t *value);
/* The class of attribute NAME of obj, or H5T_NO_CLASS. */
H5T_class_t pkm_h5_attr_class(hid_t obj, const char *name);

/* The names of the tracking settings in the file, indexed by their enum values; the writer and
 * the reader use the same table (formulations and eigensolvers: their type tables). */
extern const char *const pkm_h5_tracking_names[2];

#endif
