/* io/h5_impl.h: private interface of the io layer's general HDF5 helpers (io/h5util.c,
 * io/h5util_read.c), free of any one file layout: the map files (io/h5map*.c) use them, and so
 * will the other HDF5 writers of io/ (ParaView's VTKHDF, trajectories).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_IO_H5_IMPL_H
#define PKM_IO_H5_IMPL_H

#include "core/core_impl.h"

#include <hdf5.h>
#include <stdint.h>

/* The default raw-data chunk cache holds 1 MiB per dataset; a chunk larger than that bypasses it
 * (HDF5 User Guide, "Chunking in HDF5"), so chunks are kept below that size. */
#define PKM_H5_CHUNK_BYTES ((size_t)1 << 20)
/* Longest value of a choice attribute read (pkm_h5_read_choice_attr); longer is an error. */
#define PKM_H5_CHOICE_LEN 1024

/* Where messages point: the file named by the caller and the caller's context. */
typedef struct h5io {
    const char *path;
    pkm_ctx *ctx;
} h5io;

/* Record "PATH: WHAT (HDF5: cause)" on the error stack's one line; with_cause = 0 for failures
 * detected by this code, where the error stack may hold a stale, unrelated entry. */
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

/* ---- Files (h5util.c, h5util_read.c) */

/* Fills a new file (open as file) from user. */
typedef pkm_status (*pkm_h5_fill_fn)(const h5io *io, hid_t file, const void *user);

/* A new file at path, filled by fill: built in memory, written to PATH.tmp (no symbolic link
 * followed), synced, renamed onto path; a path that exists and is not a regular file is not
 * replaced (PKM_ERR_INVALID). HDF5's error printing is off meanwhile. */
pkm_status pkm_h5_file_write(const char *path, pkm_h5_fill_fn fill, const void *user, pkm_ctx *ctx);

/* io->path opened read-only: PKM_ERR_IO if it cannot be read, PKM_ERR_PARSE if it is not HDF5.
 * The caller has switched error printing off. */
pkm_status pkm_h5_file_open_read(const h5io *io, hid_t *file);

/* ---- Writing (h5util.c); OBJNAME names obj in messages */

/* Attribute NAME: n values (n = 0: scalar) of memory type mtype stored as ftype. */
pkm_status pkm_h5_write_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                             hid_t ftype, hid_t mtype, hsize_t n, const void *buf);
/* Scalar string attribute: fixed-length UTF-8 of strlen + 1 bytes, null-terminated. */
pkm_status pkm_h5_write_str_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                 const char *value);
/* Scalar integer stored as ftype. */
pkm_status pkm_h5_write_int_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                 hid_t ftype, int64_t value);
pkm_status pkm_h5_write_f64_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                 double value);
/* Dataset NAME in loc (rank <= H5S_MAX_RANK), chunked (whole trailing dimensions, at most
 * PKM_H5_CHUNK_BYTES) with a Fletcher32 checksum per chunk, written from buf; on success *out is
 * the open dataset (the caller closes it). */
pkm_status pkm_h5_write_dataset(const h5io *io, hid_t loc, const char *name, const char *objname,
                                hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                                const void *buf, hid_t *out);

/* Dataset NAME in loc as pkm_h5_write_dataset, closed, with the string attribute attr = text
 * (its description or units). */
pkm_status pkm_h5_write_described(const h5io *io, hid_t loc, const char *name, hid_t ftype,
                                  hid_t mtype, int rank, const hsize_t *dims, const void *buf,
                                  const char *attr, const char *text);

/* ---- Reading (h5util_read.c) */

/* Scalar fixed-length string NAME into out[cap]; variable-length strings are refused without
 * being read. */
pkm_status pkm_h5_read_str_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                char *out, size_t cap);
/* n numbers (a scalar for n = 1) converted to mtype; integers_only rejects floating point. */
pkm_status pkm_h5_read_num_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                hid_t mtype, int integers_only, hssize_t n, void *buf);
/* A scalar integer in [lo, hi]. */
pkm_status pkm_h5_read_int_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                int64_t lo, int64_t hi, int64_t *value);
/* A string attribute that must be one of the names choice(0), choice(1), ... (up to the first
 * NULL, however many): *which = its index. */
pkm_status pkm_h5_read_choice_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                   const char *(*choice)(int k), int *which);
/* The class of attribute NAME of obj, or H5T_NO_CLASS. */
H5T_class_t pkm_h5_attr_class(hid_t obj, const char *name);

/* Dataset NAME (absolute) of class cls, elsize-byte elements and rank `rank` opened as *out; its
 * dimensions go to dims. */
pkm_status pkm_h5_open_dataset(const h5io *io, hid_t file, const char *name, H5T_class_t cls,
                               size_t elsize, int rank, hsize_t *dims, hid_t *out);
/* Before reading dataset name: chunks no larger than dims, Fletcher32 as the only filter, every
 * stored chunk whole. */
pkm_status pkm_h5_check_chunks(const h5io *io, hid_t dset, const char *name, int rank,
                               const hsize_t *dims, size_t elsize);
/* Before allocating for dataset name: it stores at least `need` bytes, and the file is as large. */
pkm_status pkm_h5_check_stored(const h5io *io, hid_t file, hid_t dset, const char *name,
                               double need);
/* Dataset NAME, of exactly the shape `want`, checked (above) and read converted to mtype. */
pkm_status pkm_h5_read_dataset(const h5io *io, hid_t file, const char *name, hid_t mtype,
                               H5T_class_t cls, size_t elsize, int rank, const hsize_t *want,
                               void *buf);

#endif
