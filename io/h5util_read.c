/* io/h5util_read.c: reading HDF5 attributes and datasets (io/h5_impl.h) with the checks a
 * damaged or crafted file needs: type class, shape and range before any value is read, no
 * variable-length string (libhdf5 1.10.8 reads those from the file's global heap), chunks as
 * pkm_h5_write_dataset makes them and sizes the file can hold before anything is allocated.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L

#include "io/h5_impl.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open attribute NAME of obj with its type and shape (the caller closes the three, valid or not).
 */
static pkm_status open_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                            hid_t *attr, hid_t *type, hid_t *space)
{
    *attr = *type = *space = H5I_INVALID_HID;
    const htri_t e = H5Aexists(obj, name);
    if (e < 0)
        return H5_FAIL(io, PKM_ERR_PARSE, "cannot look up attribute '%s' of %s", name, objname);
    if (e == 0)
        return OWN_FAIL(io, PKM_ERR_PARSE, "attribute '%s' of %s is missing", name, objname);
    *attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (*attr < 0)
        return H5_FAIL(io, PKM_ERR_PARSE, "cannot open attribute '%s' of %s", name, objname);
    *type = H5Aget_type(*attr);
    *space = H5Aget_space(*attr);
    if (*type < 0 || *space < 0)
        return H5_FAIL(io, PKM_ERR_PARSE, "cannot inspect attribute '%s' of %s", name, objname);
    return PKM_OK;
}

/* A fixed-length string longer than this is not one of a map's (the longest, parameter_keys,
 * holds < KEYS_LEN = 6144 bytes): refused before anything is allocated for it. */
#define STR_ATTR_MAX ((size_t)64 << 10)

/* The stored size of fixed-length string attribute NAME, with type ftype, after the checks a
 * crafted file needs: not variable-length (never read: libhdf5 1.10.8 reads those from the
 * file's global heap, where a crafted file overflowed H5HG_read (SIGSEGV) or hung H5HG__protect,
 * tests/fuzz/known/), and a size that the file can hold. */
static pkm_status check_str_type(const h5io *io, hid_t attr, hid_t ftype, const char *objname,
                                 const char *name, size_t *size)
{
    const htri_t var = H5Tis_variable_str(ftype);
    if (var < 0)
        return H5_FAIL(io, PKM_ERR_PARSE, "cannot inspect attribute '%s' of %s", name, objname);
    if (var > 0)
        return OWN_FAIL(io, PKM_ERR_PARSE,
                        "attribute '%s' of %s: variable-length strings are not read from map "
                        "files (format 3 stores fixed-length ones); a damaged, crafted or older "
                        "file",
                        name, objname);
    *size = H5Tget_size(ftype);
    hsize_t fsize = 0;
    const hid_t file = H5Iget_file_id(attr);
    const herr_t got = file >= 0 ? H5Fget_filesize(file, &fsize) : -1;
    if (file >= 0) H5Fclose(file);
    if (got < 0) return H5_FAIL(io, PKM_ERR_PARSE, "cannot get the file's size");
    if (*size == 0 || *size > STR_ATTR_MAX || *size >= fsize)
        return OWN_FAIL(io, PKM_ERR_PARSE,
                        "attribute '%s' of %s: string of %zu bytes in a file of %llu bytes (at "
                        "most %zu)",
                        name, objname, *size, (unsigned long long)fsize, STR_ATTR_MAX);
    return PKM_OK;
}

/* A scalar fixed-length string attribute into out[cap]. */
pkm_status pkm_h5_read_str_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                char *out, size_t cap)
{
    hid_t attr = H5I_INVALID_HID, ftype = H5I_INVALID_HID, space = H5I_INVALID_HID,
          mtype = H5I_INVALID_HID;
    char *str = NULL;
    pkm_status rc = open_attr(io, obj, objname, name, &attr, &ftype, &space);
    if (rc != PKM_OK) goto done;
    const H5T_cset_t cset = H5Tget_cset(ftype);
    if (H5Tget_class(ftype) != H5T_STRING || H5Sget_simple_extent_npoints(space) != 1 || cset < 0) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "attribute '%s' of %s is not a single string", name,
                      objname);
        goto done;
    }
    size_t size = 0;
    rc = check_str_type(io, attr, ftype, objname, name, &size);
    if (rc != PKM_OK) goto done;
    /* One more byte than stored, so that a null-padded string of full length keeps its last
     * character when converted to null-terminated; same character set as the file: HDF5
     * converts no character sets. */
    str = calloc(size + 1, 1);
    if (str == NULL) {
        rc = OWN_FAIL(io, PKM_ERR_NOMEM, "cannot allocate %zu bytes for attribute '%s' of %s",
                      size + 1, name, objname);
        goto done;
    }
    mtype = H5Tcopy(H5T_C_S1);
    if (mtype < 0 || H5Tset_cset(mtype, cset) < 0 || H5Tset_size(mtype, size + 1) < 0 ||
        H5Tset_strpad(mtype, H5T_STR_NULLTERM) < 0 || H5Aread(attr, mtype, str) < 0) {
        rc = H5_FAIL(io, PKM_ERR_PARSE, "cannot read attribute '%s' of %s", name, objname);
        goto done;
    }
    str[size] = '\0';
    if (strlen(str) >= cap) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "attribute '%s' of %s is longer than %zu characters", name,
                      objname, cap - 1);
        goto done;
    }
    memcpy(out, str, strlen(str) + 1);
done:
    free(str);
    if (mtype >= 0) H5Tclose(mtype);
    if (space >= 0) H5Sclose(space);
    if (ftype >= 0) H5Tclose(ftype);
    if (attr >= 0) H5Aclose(attr);
    return rc;
}

/* n numbers (a scalar for n = 1) converted to mtype; integers_only rejects floating point. */
pkm_status pkm_h5_read_num_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                hid_t mtype, int integers_only, hssize_t n, void *buf)
{
    hid_t attr = H5I_INVALID_HID, ftype = H5I_INVALID_HID, space = H5I_INVALID_HID;
    pkm_status rc = open_attr(io, obj, objname, name, &attr, &ftype, &space);
    if (rc != PKM_OK) goto done;
    const H5T_class_t cls = H5Tget_class(ftype);
    const hssize_t got = H5Sget_simple_extent_npoints(space);
    if (!(cls == H5T_INTEGER || (cls == H5T_FLOAT && !integers_only)) || got != n) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE,
                      "attribute '%s' of %s: expected %lld %s, found %lld "
                      "values of HDF5 class %d",
                      name, objname, (long long)n, integers_only ? "integers" : "numbers",
                      (long long)got, (int)cls);
        goto done;
    }
    if (H5Aread(attr, mtype, buf) < 0)
        rc = H5_FAIL(io, PKM_ERR_PARSE, "cannot read attribute '%s' of %s", name, objname);
done:
    if (space >= 0) H5Sclose(space);
    if (ftype >= 0) H5Tclose(ftype);
    if (attr >= 0) H5Aclose(attr);
    return rc;
}

pkm_status pkm_h5_read_int_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                int64_t lo, int64_t hi, int64_t *value)
{
    pkm_status rc = pkm_h5_read_num_attr(io, obj, objname, name, H5T_NATIVE_INT64, 1, 1, value);
    if (rc == PKM_OK && (*value < lo || *value > hi))
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "attribute '%s' of %s = %lld is outside [%lld, %lld]",
                      name, objname, (long long)*value, (long long)lo, (long long)hi);
    return rc;
}

/* The class of attribute NAME of obj, or H5T_NO_CLASS. */
H5T_class_t pkm_h5_attr_class(hid_t obj, const char *name)
{
    H5T_class_t cls = H5T_NO_CLASS;
    const hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
    const hid_t type = attr >= 0 ? H5Aget_type(attr) : H5I_INVALID_HID;
    if (type >= 0) cls = H5Tget_class(type);
    if (type >= 0) H5Tclose(type);
    if (attr >= 0) H5Aclose(attr);
    return cls;
}

static void shape_text(char *out, size_t cap, int rank, const hsize_t *dims)
{
    size_t len = (size_t)snprintf(out, cap, "[");
    for (int d = 0; d < rank && len < cap; d++)
        len += (size_t)snprintf(out + len, cap - len, "%s%llu", d > 0 ? ", " : "",
                                (unsigned long long)dims[d]);
    if (len < cap) snprintf(out + len, cap - len, "]");
}

/* Before reading dataset name (open as dset, of shape dims and elsize-byte elements): its chunks
 * must be as the writer makes them (io/h5util.c, pkm_h5_write_dataset), since libhdf5 1.10.8 reads
 * past its buffers for others: no larger than the dataset (a crafted /accuracy with chunks {2, 2,
 * 16386} over [2, 2, 2]: SIGSEGV in H5VM_memcpyvv), filtered by Fletcher32 at most, and each one
 * stored whole (a crafted /status declaring 6-byte integers over its 2 bytes: heap overflow). The
 * checksum then vouches for the bytes. */
pkm_status pkm_h5_check_chunks(const h5io *io, hid_t dset, const char *name, int rank,
                               const hsize_t *dims, size_t elsize)
{
    const hid_t dcpl = H5Dget_create_plist(dset);
    if (dcpl < 0) return H5_FAIL(io, PKM_ERR_PARSE, "cannot inspect dataset %s", name);
    hsize_t chunk[H5S_MAX_RANK], off[H5S_MAX_RANK] = {0};
    unsigned flags = 0;
    size_t ncd = 0;
    const int nf = H5Pget_nfilters(dcpl);
    const int fletcher = nf == 1 && H5Pget_filter2(dcpl, 0, &flags, &ncd, NULL, 0, NULL, NULL) ==
                                        H5Z_FILTER_FLETCHER32;
    pkm_status rc = PKM_OK;
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, rank, chunk) != rank ||
        (nf != 0 && !fletcher))
        rc = OWN_FAIL(io, PKM_ERR_PARSE,
                      "dataset %s is not chunked, or has filters other than Fletcher32: a "
                      "damaged or crafted file",
                      name);
    H5Pclose(dcpl);
    hsize_t whole = elsize;
    for (int d = 0; d < rank && rc == PKM_OK; d++) {
        if (chunk[d] < 1 || chunk[d] > dims[d])
            rc = OWN_FAIL(io, PKM_ERR_PARSE,
                          "dataset %s: chunk dimension %d is %llu, its shape's %llu: a damaged "
                          "or crafted file",
                          name, d, (unsigned long long)chunk[d], (unsigned long long)dims[d]);
        whole *= chunk[d];
    }
    whole += fletcher ? 4 : 0;
    while (rc == PKM_OK) { /* every chunk, in row-major order */
        /* Fails for a chunk not stored (/modes where status != 0: the fill value is read) */
        hsize_t size = 0;
        if (H5Dget_chunk_storage_size(dset, off, &size) < 0)
            H5Eclear2(H5E_DEFAULT);
        else if (size != whole)
            rc = OWN_FAIL(io, PKM_ERR_PARSE,
                          "dataset %s: a chunk stores %llu bytes, a whole one %llu: a damaged or "
                          "crafted file",
                          name, (unsigned long long)size, (unsigned long long)whole);
        int d = rank - 1;
        while (d >= 0 && (off[d] += chunk[d]) >= dims[d])
            off[d--] = 0;
        if (d < 0) break;
    }
    return rc;
}

/* Open dataset NAME (absolute) of class cls, elsize-byte elements and rank `rank`; its
 * dimensions go to dims. */
pkm_status pkm_h5_open_dataset(const h5io *io, hid_t file, const char *name, H5T_class_t cls,
                               size_t elsize, int rank, hsize_t *dims, hid_t *out)
{
    pkm_status rc = PKM_OK;
    hid_t dset = H5I_INVALID_HID, type = H5I_INVALID_HID, space = H5I_INVALID_HID;
    const htri_t e = H5Lexists(file, name, H5P_DEFAULT);
    if (e <= 0) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s is missing", name);
        goto done;
    }
    dset = H5Dopen2(file, name, H5P_DEFAULT);
    if (dset < 0) {
        rc = H5_FAIL(io, PKM_ERR_PARSE, "cannot open dataset %s", name);
        goto done;
    }
    type = H5Dget_type(dset);
    space = H5Dget_space(dset);
    if (type < 0 || space < 0) {
        rc = H5_FAIL(io, PKM_ERR_PARSE, "cannot inspect dataset %s", name);
        goto done;
    }
    if (H5Tget_class(type) != cls || H5Tget_size(type) != elsize) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s is not of %zu-byte %s type", name, elsize,
                      cls == H5T_FLOAT ? "floating-point" : "integer");
        goto done;
    }
    const int r = H5Sget_simple_extent_ndims(space);
    if (r != rank) {
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s has rank %d, expected %d", name, r, rank);
        goto done;
    }
    if (H5Sget_simple_extent_dims(space, dims, NULL) < 0)
        rc = H5_FAIL(io, PKM_ERR_PARSE, "cannot get the shape of dataset %s", name);
done:
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (rc != PKM_OK && dset >= 0) {
        H5Dclose(dset);
        dset = H5I_INVALID_HID;
    }
    *out = dset;
    return rc;
}

/* Read dataset NAME of class cls and elsize-byte elements, which must have exactly the shape
 * `want`, converted to mtype. */
pkm_status pkm_h5_read_dataset(const h5io *io, hid_t file, const char *name, hid_t mtype,
                               H5T_class_t cls, size_t elsize, int rank, const hsize_t *want,
                               void *buf)
{
    hsize_t dims[H5S_MAX_RANK];
    hid_t dset = H5I_INVALID_HID;
    pkm_status rc = pkm_h5_open_dataset(io, file, name, cls, elsize, rank, dims, &dset);
    if (rc != PKM_OK) return rc;
    if (memcmp(dims, want, sizeof(*dims) * (size_t)rank) != 0) {
        char got[128], exp[128];
        shape_text(got, sizeof(got), rank, dims);
        shape_text(exp, sizeof(exp), rank, want);
        rc = OWN_FAIL(io, PKM_ERR_PARSE, "dataset %s has shape %s, expected %s", name, got, exp);
    } else {
        rc = pkm_h5_check_chunks(io, dset, name, rank, dims, elsize);
    }
    if (rc == PKM_OK && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        rc = H5_FAIL(io, PKM_ERR_IO, "cannot read dataset %s", name);
    if (H5Dclose(dset) < 0 && rc == PKM_OK) rc = H5_FAIL(io, PKM_ERR_IO, "cannot close %s", name);
    return rc;
}

/* Before allocating for dataset name (open as dset): it must store `need` bytes, and the file
 * must be that large. A crafted file can declare huge dimensions in a few bytes (a 36 KB file
 * made compare allocate 3 GB); a map file stores every value it declares, except /modes. */
pkm_status pkm_h5_check_stored(const h5io *io, hid_t file, hid_t dset, const char *name,
                               double need)
{
    hsize_t fsize = 0;
    if (H5Fget_filesize(file, &fsize) < 0)
        return H5_FAIL(io, PKM_ERR_PARSE, "cannot get the file's size");
    const double stored = (double)H5Dget_storage_size(dset);
    if (need > (double)fsize || (dset >= 0 && stored < need))
        return OWN_FAIL(io, PKM_ERR_PARSE,
                        "dataset %s needs %.0f bytes for its shape, but stores %.0f in a file of "
                        "%llu bytes: a damaged or crafted file",
                        name, need, stored, (unsigned long long)fsize);
    return PKM_OK;
}

pkm_status pkm_h5_read_choice_attr(const h5io *io, hid_t obj, const char *objname, const char *name,
                                   const char *(*choice)(int k), int *which)
{
    char text[PKM_H5_CHOICE_LEN];
    pkm_status rc = pkm_h5_read_str_attr(io, obj, objname, name, text, sizeof(text));
    if (rc != PKM_OK) return rc;
    char expected[PKM_H5_CHOICE_LEN] = "";
    size_t len = 0;
    for (int k = 0; choice(k) != NULL; k++) {
        if (strcmp(text, choice(k)) == 0) {
            *which = k;
            return PKM_OK;
        }
        const char *sep = k == 0 ? "" : (choice(k + 1) != NULL ? ", " : " or ");
        const int w = snprintf(expected + len, sizeof(expected) - len, "%s'%s'", sep, choice(k));
        if (w > 0 && (size_t)w < sizeof(expected) - len) len += (size_t)w;
    }
    return OWN_FAIL(io, PKM_ERR_PARSE, "attribute '%s' = '%s', expected %s", name, text, expected);
}

pkm_status pkm_h5_file_open_read(const h5io *io, hid_t *file)
{
    *file = H5Fopen(io->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*file >= 0) return PKM_OK;
    /* Tell "cannot read the file" from "the file is not HDF5". */
    FILE *f = fopen(io->path, "rb");
    /* The system's reason alone: HDF5's own (its driver's flags) says nothing more to a user. */
    if (f == NULL) return OWN_FAIL(io, PKM_ERR_IO, "cannot open: %s", strerror(errno));
    fclose(f);
    return H5_FAIL(io, PKM_ERR_PARSE, "not an HDF5 file, or a damaged one");
}
