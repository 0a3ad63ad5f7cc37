/* io/h5map_attr.c: reading the attributes of a map file (io/h5map_read.c) with the checks a
 * damaged or crafted file needs: type class, shape and range before any value is read, and no
 * variable-length string (libhdf5 1.10.8 reads those from the file's global heap).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L

#include "io/h5map_impl.h"

#include <stdint.h>
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
