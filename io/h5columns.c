/* io/h5columns.c: a table of columns (a command's csv rows) as HDF5 time series, one dataset per
 * column named as the csv header names it, with its unit; layout in docs/hdf5-layout.md,
 * "Column files".
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "io/h5_impl.h"
#include "pkm/io.h"

#include <stdlib.h>
#include <string.h>

static pkm_status fill_columns(const h5io *io, hid_t file, const void *user)
{
    const pkm_columns *c = user;
    pkm_status rc = pkm_h5_write_str_attr(io, file, "/", "format", c->format);
    if (rc == PKM_OK) rc = pkm_h5_write_int_attr(io, file, "/", "format_version", H5T_STD_I32LE, 1);
    if (rc == PKM_OK) rc = pkm_h5_write_str_attr(io, file, "/", "case", c->case_name);
    double *col = malloc(sizeof(double) * (size_t)c->nrow);
    if (rc == PKM_OK && col == NULL) rc = OWN_FAIL(io, PKM_ERR_NOMEM, "no memory for a column");
    const hsize_t dims[1] = {(hsize_t)c->nrow};
    for (int k = 0; k < c->ncol && rc == PKM_OK; k++) {
        for (int r = 0; r < c->nrow; r++)
            col[r] = c->data[(size_t)r * (size_t)c->ncol + (size_t)k];
        rc = pkm_h5_write_described(io, file, c->names[k], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1,
                                    dims, col, "units", c->units[k]);
    }
    free(col);
    return rc;
}

pkm_status pkm_columns_write_h5(const char *path, const pkm_columns *c, pkm_ctx *ctx)
{
    if (c == NULL || path == NULL || path[0] == '\0' || c->nrow < 1 || c->ncol < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "columns write: empty table or path");
    for (int k = 0; k < c->ncol; k++)
        if (c->names[k] == NULL || c->names[k][0] == '\0' || strchr(c->names[k], '/') != NULL)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "columns write: column %d has no usable name",
                            k + 1);
    return pkm_h5_file_write(path, fill_columns, c, ctx);
}
