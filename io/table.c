/* io/table.c: CSV reference tables (pose, reference frequencies).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "io/csv_impl.h"
#include "pkm/io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pkm_table_destroy(pkm_table **t)
{
    if (t == NULL || *t == NULL) return;
    free((*t)->id);
    free((*t)->pose);
    free((*t)->freq);
    free(*t);
    *t = NULL;
}

/* Data line lineno into row[ncols]: the pose id (an integer), npose coordinates, frequencies
 * (> 0 Hz), each a finite number. */
static pkm_status parse_row(const char *path, int lineno, const char *line, int ncols, int npose,
                            double *row, pkm_ctx *ctx)
{
    pkm_status rc = pkm_csv_parse_row(path, lineno, line, ncols, row, ctx);
    if (rc != PKM_OK) return rc;
    for (int k = 1 + npose; k < ncols; k++)
        if (!(row[k] > 0.0))
            return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: frequency %g Hz in field %d must be > 0",
                            path, lineno, row[k], k + 1);
    if (row[0] != floor(row[0]) || fabs(row[0]) > 1e9)
        return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: pose id '%g' is not an integer", path, lineno,
                        row[0]);
    return PKM_OK;
}

/* The rows read (vals, t->nrows x ncols) into the table's pose and frequency arrays. */
static pkm_status split_columns(const char *path, const double *vals, int ncols, pkm_table *t,
                                pkm_ctx *ctx)
{
    const int npose = t->npose;
    t->pose = malloc(sizeof(double) * (size_t)t->nrows * (size_t)npose);
    t->freq = malloc(sizeof(double) * (size_t)t->nrows * (size_t)t->nfreq);
    if (t->pose == NULL || t->freq == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: cannot allocate the table", path);
    for (int r = 0; r < t->nrows; r++) {
        const double *row = vals + (size_t)r * (size_t)ncols;
        memcpy(t->pose + (size_t)r * npose, row + 1, sizeof(double) * (size_t)npose);
        memcpy(t->freq + (size_t)r * t->nfreq, row + 1 + npose, sizeof(double) * (size_t)t->nfreq);
    }
    return PKM_OK;
}

pkm_status pkm_table_read(const char *path, int npose, pkm_table **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (npose < 1) return PKM_FAIL(ctx, PKM_ERR_INVALID, "table: npose = %d must be >= 1", npose);
    FILE *f = fopen(path, "r");
    if (f == NULL) return PKM_FAIL(ctx, PKM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    pkm_status rc = PKM_OK;
    pkm_table *t = calloc(1, sizeof(*t));
    char line[PKM_CSV_LINE_MAX];
    int lineno = 0, ncols = 0, cap = 0, got = 0;
    double *vals = NULL;
    if (t == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: cannot allocate the table", path);
        goto done;
    }
    t->npose = npose;
    while ((rc = pkm_csv_next_line(f, path, line, &lineno, &got, ctx)) == PKM_OK && got) {
        if (ncols == 0) {
            ncols = pkm_csv_count_fields(line);
            t->nfreq = ncols - 1 - npose;
            if (t->nfreq < 1) {
                rc = PKM_FAIL(ctx, PKM_ERR_PARSE,
                              "%s:%d: header has %d columns; expected the pose id, %d pose "
                              "coordinates and at least one frequency",
                              path, lineno, ncols, npose);
                goto done;
            }
            continue;
        }
        const int nf = pkm_csv_count_fields(line);
        if (nf != ncols) {
            rc = PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: %d fields, the header has %d", path, lineno,
                          nf, ncols);
            goto done;
        }
        if (t->nrows == cap) {
            cap = cap ? 2 * cap : 16;
            int *id = realloc(t->id, sizeof(*id) * (size_t)cap);
            if (id != NULL) t->id = id;
            double *v = realloc(vals, sizeof(*v) * (size_t)cap * (size_t)ncols);
            if (v != NULL) vals = v;
            if (id == NULL || v == NULL) {
                rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: cannot allocate the table", path);
                goto done;
            }
        }
        double *row = vals + (size_t)t->nrows * (size_t)ncols;
        if ((rc = parse_row(path, lineno, line, ncols, npose, row, ctx)) != PKM_OK) goto done;
        t->id[t->nrows] = (int)row[0];
        t->nrows++;
    }
    if (rc != PKM_OK) goto done;
    if (t->nrows == 0) {
        rc = PKM_FAIL(ctx, PKM_ERR_PARSE, "%s: no data rows", path);
        goto done;
    }
    if ((rc = split_columns(path, vals, ncols, t, ctx)) != PKM_OK) goto done;
    *out = t;
    t = NULL;
done:
    free(vals);
    pkm_table_destroy(&t);
    fclose(f);
    return rc;
}
