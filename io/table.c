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
    free((*t)->kind);
    free(*t);
    *t = NULL;
}

/* Field k (at p, len characters) of line lineno, a row kind: a word of 1 to
 * PKM_TABLE_KIND_LEN - 1 characters without blanks inside, into kind. */
static pkm_status parse_kind(const char *path, int lineno, const char *p, size_t len,
                             char kind[PKM_TABLE_KIND_LEN], pkm_ctx *ctx)
{
    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
        len--;
    if (len == 0 || len >= PKM_TABLE_KIND_LEN || strcspn(p, " \t") < len)
        return PKM_FAIL(ctx, PKM_ERR_PARSE,
                        "%s:%d: field 2 '%.*s': a row kind of 1 to %d "
                        "characters without blanks expected",
                        path, lineno, (int)(len > 40 ? 40 : len), p, PKM_TABLE_KIND_LEN - 1);
    memcpy(kind, p, len);
    kind[len] = '\0';
    return PKM_OK;
}

/* Data line lineno (ncols fields, the row kind second when kind != NULL) into row: the pose id
 * (an integer), npose coordinates, frequencies (> 0 Hz, or NAN for an empty cell, at least
 * one given), each number finite. */
static pkm_status parse_row(const char *path, int lineno, const char *line, int ncols, int npose,
                            double *row, char *kind, pkm_ctx *ctx)
{
    const char *p = line;
    int c = 0, given = 0;
    for (int k = 0; k < ncols; k++) {
        while (*p == ' ' || *p == '\t')
            p++;
        const size_t len = strcspn(p, ",");
        pkm_status rc = PKM_OK;
        if (kind != NULL && k == 1) {
            rc = parse_kind(path, lineno, p, len, kind, ctx);
        } else if (c > npose && len == 0) {
            row[c++] = NAN;
        } else {
            rc = pkm_csv_parse_field(path, lineno, p, line, k, &row[c], ctx);
            if (rc == PKM_OK && c > npose && !(row[c] > 0.0))
                rc = PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: frequency %g Hz in field %d must be > 0",
                              path, lineno, row[c], k + 1);
            given += c++ > npose;
        }
        if (rc != PKM_OK) return rc;
        p += len;
        if (*p == ',') p++;
    }
    if (given == 0) return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: no frequency given", path, lineno);
    if (row[0] != floor(row[0]) || fabs(row[0]) > 1e9)
        return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: pose id '%g' is not an integer", path, lineno,
                        row[0]);
    return PKM_OK;
}

/* A header whose second field is `kind` (blanks around it ignored). */
static int header_has_kind(const char *line)
{
    const char *p = line + strcspn(line, ",");
    if (*p != ',') return 0;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "kind", 4) != 0) return 0;
    p += 4;
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == ',' || *p == '\0';
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
    int lineno = 0, ncols = 0, cap = 0, got = 0, has_kind = 0;
    double *vals = NULL;
    if (t == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: cannot allocate the table", path);
        goto done;
    }
    t->npose = npose;
    while ((rc = pkm_csv_next_line(f, path, line, &lineno, &got, ctx)) == PKM_OK && got) {
        if (ncols == 0) {
            ncols = pkm_csv_count_fields(line);
            has_kind = header_has_kind(line);
            t->nfreq = ncols - 1 - has_kind - npose;
            if (t->nfreq < 1) {
                rc = PKM_FAIL(ctx, PKM_ERR_PARSE,
                              "%s:%d: header has %d columns; expected the pose id, %s%d pose "
                              "coordinates and at least one frequency",
                              path, lineno, ncols, has_kind ? "the row kind, " : "", npose);
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
            char(*kd)[PKM_TABLE_KIND_LEN] =
                has_kind ? realloc(t->kind, sizeof(*kd) * (size_t)cap) : NULL;
            if (kd != NULL) t->kind = kd;
            if (id == NULL || v == NULL || (has_kind && kd == NULL)) {
                rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: cannot allocate the table", path);
                goto done;
            }
        }
        double *row = vals + (size_t)t->nrows * (size_t)ncols;
        rc = parse_row(path, lineno, line, ncols, npose, row, has_kind ? t->kind[t->nrows] : NULL,
                       ctx);
        if (rc != PKM_OK) goto done;
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
