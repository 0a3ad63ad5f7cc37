/* io/h5util.c: general HDF5 helpers of the io layer (io/h5_impl.h): error recording with the
 * innermost HDF5 cause, HDF5's automatic error printing switched off for a call, fixed-length
 * string and numeric attributes, chunked datasets with Fletcher32 checksums, and whole files
 * built in memory then written safely. They know nothing of maps: the map writer (io/h5map.c)
 * uses them, and so will other writers of HDF5 files.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every HDF5 call is checked (ids and herr_t are negative on failure) and every id is closed on
 * one cleanup path in reverse order of opening. The library never prints: HDF5's automatic error
 * printing is per-thread state of the default error stack, so entry points switch it off and
 * restore the caller's handler on return (HDF5 User Guide, "HDF5 Error Handling"). The cause of a
 * failure is the innermost entry of the error stack, taken with H5Ewalk2(H5E_WALK_UPWARD) right
 * after the failed call, before any other API call clears the stack. */
#define _POSIX_C_SOURCE 200809L /* fsync, lstat, unlink */

#include "io/h5_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * Errors */

static herr_t innermost_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    /* Walking upward, entry 0 is the deepest function: the real cause (e.g. the errno of the
     * open in the file driver) rather than the API-level "unable to create file". */
    if (n == 0) {
        char *out = data;
        snprintf(out, 256, "%s: %s", err->func_name ? err->func_name : "?",
                 err->desc ? err->desc : "?");
        /* One line: the sec2 driver's descriptions hold ctime()'s newline. */
        for (char *c = out; *c != '\0'; c++)
            if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    }
    return 0;
}

pkm_status pkm_h5_fail_at(const h5io *io, pkm_status st, int with_cause, const char *file, int line,
                          const char *fmt, ...)
{
    char cause[256] = "";
    if (with_cause) H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_cb, cause);
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (cause[0] != '\0')
        return pkm_ctx_fail(io->ctx, st, file, line, "%s: %s (HDF5: %s)", io->path, what, cause);
    return pkm_ctx_fail(io->ctx, st, file, line, "%s: %s", io->path, what);
}

void pkm_h5_quiet_begin(h5_quiet *q)
{
    q->func = NULL;
    q->data = NULL;
    q->saved = H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data) >= 0;
    if (q->saved) H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void pkm_h5_quiet_end(const h5_quiet *q)
{
    if (q->saved) H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

/* ---------------------------------------------------------------------------------------------
 * Writing */

/* Attribute NAME of OBJ (named OBJNAME in messages): n values (n = 0: scalar) of memory type
 * mtype stored as ftype. */
pkm_status pkm_h5_write_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                             hid_t ftype, hid_t mtype, hsize_t n, const void *buf)
{
    pkm_status rc = PKM_OK;
    hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
    space = (n == 0) ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    if (space < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create the dataspace of attribute '%s' of %s", name,
                     objname);
        goto done;
    }
    attr = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create attribute '%s' of %s", name, objname);
        goto done;
    }
    if (H5Awrite(attr, mtype, buf) < 0)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot write attribute '%s' of %s", name, objname);
done:
    if (attr >= 0 && H5Aclose(attr) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close attribute '%s' of %s", name, objname);
    if (space >= 0) H5Sclose(space);
    return rc;
}

/* Scalar string attribute: fixed-length UTF-8 of strlen + 1 bytes, null-terminated. Never
 * variable-length: those live in the file's global heap, whose reader in libhdf5 1.10.8 overflows
 * or hangs on a crafted file (tests/fuzz/known/), so the reader refuses them (h5util_read.c). */
pkm_status pkm_h5_write_str_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                 const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type < 0) return H5_FAIL(io, PKM_ERR_IO, "cannot create a string type");
    pkm_status rc = PKM_OK;
    if (H5Tset_size(type, strlen(value) + 1) < 0 || H5Tset_strpad(type, H5T_STR_NULLTERM) < 0 ||
        H5Tset_cset(type, H5T_CSET_UTF8) < 0)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create a string type");
    else
        rc = pkm_h5_write_attr(io, obj, objname, name, type, type, 0, value);
    H5Tclose(type);
    return rc;
}

pkm_status pkm_h5_write_int_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                 hid_t ftype, int64_t value)
{
    return pkm_h5_write_attr(io, obj, objname, name, ftype, H5T_NATIVE_INT64, 0, &value);
}

pkm_status pkm_h5_write_f64_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                 double value)
{
    return pkm_h5_write_attr(io, obj, objname, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &value);
}

/* Chunk shape: whole trailing dimensions (for the maps, the last axis x nev) and as many of the
 * leading ones as fit in PKM_H5_CHUNK_BYTES; a small dataset is a single chunk. */
static void chunk_shape(int rank, const hsize_t *dims, size_t elsize, hsize_t *chunk)
{
    size_t bytes = elsize;
    for (int d = rank - 1; d >= 0; d--) {
        const hsize_t room = PKM_H5_CHUNK_BYTES / bytes;
        chunk[d] = dims[d] < room ? dims[d] : (room > 0 ? room : 1);
        bytes *= (size_t)chunk[d];
    }
}

/* Create and write dataset NAME in loc; on success *out is the open dataset (caller closes). */
pkm_status pkm_h5_write_dataset(const h5io *io, hid_t loc, const char *name, const char *objname,
                                hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                                const void *buf, hid_t *out)
{
    pkm_status rc = PKM_OK;
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, dset = H5I_INVALID_HID;
    space = H5Screate_simple(rank, dims, NULL);
    if (space < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create the dataspace of %s", objname);
        goto done;
    }
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create the creation properties of %s", objname);
        goto done;
    }
    hsize_t chunk[H5S_MAX_RANK];
    chunk_shape(rank, dims, H5Tget_size(ftype), chunk);
    if (H5Pset_chunk(dcpl, rank, chunk) < 0 || H5Pset_fletcher32(dcpl) < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot set the chunks of %s", objname);
        goto done;
    }
    dset = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot create dataset %s", objname);
        goto done;
    }
    if (H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot write dataset %s", objname);
done:
    if (rc != PKM_OK && dset >= 0) {
        H5Dclose(dset);
        dset = H5I_INVALID_HID;
    }
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    *out = dset;
    return rc;
}

/* Remove what this call may have left at tmp. Only a regular file: a directory or a special file
 * at that name was not made by us. */
static void remove_tmp(const char *tmp)
{
    struct stat st;
    if (lstat(tmp, &st) == 0 && S_ISREG(st.st_mode)) unlink(tmp);
}

/* The whole file, built in memory by HDF5's core driver without backing store, into *image
 * (malloc'd). HDF5 then never writes to disk: written through its sec2 driver, a write that
 * failed (full disk, file size limit) left H5Fclose failing on a half-closed file, on which
 * HDF5's exit handler crashed (SIGSEGV, issue 8). Costs the file's size in memory, twice while
 * the image is copied out. */
static pkm_status build_image(const h5io *io, pkm_h5_fill_fn fill, const void *user, void **image,
                              size_t *size)
{
    *image = NULL;
    *size = 0;
    pkm_status rc = PKM_OK;
    hid_t file = H5I_INVALID_HID;
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, PKM_H5_CHUNK_BYTES, 0) < 0) {
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot set up an in-memory file");
        goto done;
    }
    file = H5Fcreate(io->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0) {
        rc = H5_FAIL(io, PKM_ERR_NOMEM, "cannot create the file in memory");
        goto done;
    }
    rc = fill(io, file, user);
    if (rc == PKM_OK && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        rc = H5_FAIL(io, PKM_ERR_NOMEM, "cannot flush the file in memory");
    const ssize_t n = rc == PKM_OK ? H5Fget_file_image(file, NULL, 0) : -1;
    if (rc == PKM_OK && n <= 0) rc = H5_FAIL(io, PKM_ERR_IO, "cannot get the file's image");
    if (rc == PKM_OK && (*image = malloc((size_t)n)) == NULL)
        rc = OWN_FAIL(io, PKM_ERR_NOMEM, "cannot allocate %zd bytes for the file", n);
    if (rc == PKM_OK && H5Fget_file_image(file, *image, (size_t)n) != n)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot copy the file's image");
    if (rc == PKM_OK) *size = (size_t)n;
done:
    if (file >= 0 && H5Fclose(file) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close the file in memory");
    if (fapl >= 0) H5Pclose(fapl);
    if (rc != PKM_OK) {
        free(*image);
        *image = NULL;
    }
    return rc;
}

/* size bytes to tmp, a new regular file (a symbolic link there is not followed), synced: without
 * fsync a power loss after the rename can leave an empty file at the final path on some file
 * systems. Every error is one message with its errno text, e.g. "No space left on device". */
static pkm_status write_image(const h5io *io, const char *tmp, const void *image, size_t size)
{
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) return OWN_FAIL(io, PKM_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
    size_t done = 0;
    while (done < size) {
        const ssize_t k = write(fd, (const char *)image + done, size - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            const int e = k < 0 ? errno : ENOSPC;
            close(fd);
            return OWN_FAIL(io, PKM_ERR_IO, "cannot write %s (%zu of %zu bytes written): %s", tmp,
                            done, size, strerror(e));
        }
        done += (size_t)k;
    }
    if (fsync(fd) != 0) {
        const int e = errno;
        close(fd);
        return OWN_FAIL(io, PKM_ERR_IO, "cannot sync %s: %s", tmp, strerror(e));
    }
    if (close(fd) != 0)
        return OWN_FAIL(io, PKM_ERR_IO, "cannot close %s: %s", tmp, strerror(errno));
    return PKM_OK;
}

pkm_status pkm_h5_file_write(const char *path, pkm_h5_fill_fn fill, const void *user, pkm_ctx *ctx)
{
    const h5io io = {path, ctx};
    /* rename(2) would replace a symbolic link, a device node or a FIFO at path with a regular
     * file; what the user named is not ours to replace. */
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return OWN_FAIL(&io, PKM_ERR_INVALID,
                        "is not a regular file (a %s): not replaced; write to another name",
                        S_ISLNK(st.st_mode)   ? "symbolic link"
                        : S_ISDIR(st.st_mode) ? "directory"
                                              : "device, FIFO or socket");
    const size_t len = strlen(path) + sizeof(".tmp");
    char *tmp = malloc(len);
    if (tmp == NULL) return OWN_FAIL(&io, PKM_ERR_NOMEM, "cannot allocate the temporary name");
    snprintf(tmp, len, "%s.tmp", path);

    h5_quiet q;
    pkm_h5_quiet_begin(&q);
    void *image = NULL;
    size_t size = 0;
    pkm_status rc = build_image(&io, fill, user, &image, &size);
    pkm_h5_quiet_end(&q);
    if (rc == PKM_OK) rc = write_image(&io, tmp, image, size);
    free(image);
    /* rename(2) replaces the target atomically: readers see the old file or the new one. */
    if (rc == PKM_OK && rename(tmp, path) != 0)
        rc = OWN_FAIL(&io, PKM_ERR_IO, "cannot rename %s onto it: %s", tmp, strerror(errno));
    if (rc != PKM_OK) remove_tmp(tmp);
    free(tmp);
    return rc;
}

pkm_status pkm_h5_write_described(const h5io *io, hid_t loc, const char *name, hid_t ftype,
                                  hid_t mtype, int rank, const hsize_t *dims, const void *buf,
                                  const char *attr, const char *text)
{
    char objname[64];
    snprintf(objname, sizeof(objname), "/%s", name);
    hid_t dset = H5I_INVALID_HID;
    pkm_status rc =
        pkm_h5_write_dataset(io, loc, name, objname, ftype, mtype, rank, dims, buf, &dset);
    if (rc == PKM_OK) rc = pkm_h5_write_str_attr(io, dset, objname, attr, text);
    if (dset >= 0 && H5Dclose(dset) < 0 && rc == PKM_OK)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot close %s", objname);
    return rc;
}
