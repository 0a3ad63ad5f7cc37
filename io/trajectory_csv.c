/* io/trajectory_csv.c: a trajectory from a CSV file of samples (the spline of
 * include/pkm/trajectory.h through them).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "io/csv_impl.h"
#include "pkm/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The column of each coordinate from the header "t,<names...>": col[j] = field of names[j]. */
static pkm_status read_header(const char *path, int lineno, const char *line,
                              const char *const *names, int n, int *col, pkm_ctx *ctx)
{
    const int nf = pkm_csv_count_fields(line);
    for (int j = 0; j < n; j++)
        col[j] = -1;
    const char *p = line;
    for (int k = 0; k < nf; k++) {
        size_t len = strcspn(p, ",");
        const char *s = p;
        p += len + (p[len] == ',');
        while (len > 0 && (*s == ' ' || *s == '\t'))
            s++, len--;
        while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            len--;
        if (k == 0) {
            if (len != 1 || s[0] != 't')
                return PKM_FAIL(ctx, PKM_ERR_PARSE,
                                "%s:%d: the header must start with the column 't', not '%.*s'",
                                path, lineno, (int)(len > 40 ? 40 : len), s);
            continue;
        }
        int j = 0;
        while (j < n && !(strlen(names[j]) == len && strncmp(names[j], s, len) == 0))
            j++;
        if (j == n)
            return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: unknown column '%.*s' (field %d)", path,
                            lineno, (int)(len > 40 ? 40 : len), s, k + 1);
        if (col[j] >= 0)
            return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: column '%s' given twice (fields %d, %d)",
                            path, lineno, names[j], col[j] + 1, k + 1);
        col[j] = k;
    }
    for (int j = 0; j < n; j++)
        if (col[j] < 0)
            return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: missing column '%s'", path, lineno,
                            names[j]);
    return PKM_OK;
}

/* Append one sample (time row[0], coordinates in the header's columns) to the growing arrays. */
static pkm_status add_sample(const char *path, int lineno, const double *row, const int *col, int n,
                             int *m, int *cap, double **t, double **q, pkm_ctx *ctx)
{
    if (*m > 0 && !(row[0] > (*t)[*m - 1]))
        return PKM_FAIL(ctx, PKM_ERR_PARSE,
                        "%s:%d: time %.17g s is not after the previous sample's %.17g s", path,
                        lineno, row[0], (*t)[*m - 1]);
    if (*m == *cap) {
        const int c = *cap ? 2 * *cap : 64;
        double *tn = realloc(*t, sizeof(double) * (size_t)c);
        if (tn != NULL) *t = tn;
        double *qn = realloc(*q, sizeof(double) * (size_t)c * (size_t)n);
        if (qn != NULL) *q = qn;
        if (tn == NULL || qn == NULL)
            return PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: cannot allocate %d samples", path, c);
        *cap = c;
    }
    (*t)[*m] = row[0];
    for (int j = 0; j < n; j++)
        (*q)[(size_t)*m * n + j] = row[col[j]];
    ++*m;
    return PKM_OK;
}

pkm_status pkm_trajectory_read_csv(const char *path, const char *const *names, int n,
                                   pkm_trajectory **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (n < 1) return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: no coordinates asked for", path);
    FILE *f = fopen(path, "r");
    if (f == NULL) return PKM_FAIL(ctx, PKM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    pkm_status rc = PKM_OK;
    char line[PKM_CSV_LINE_MAX];
    int lineno = 0, got = 0, ncols = 0, m = 0, cap = 0;
    int *col = malloc(sizeof(int) * (size_t)n);
    double *row = malloc(sizeof(double) * ((size_t)n + 1)), *t = NULL, *q = NULL;
    if (col == NULL || row == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: cannot allocate %d columns", path, n);
        goto done;
    }
    while ((rc = pkm_csv_next_line(f, path, line, &lineno, &got, ctx)) == PKM_OK && got) {
        const int nf = pkm_csv_count_fields(line);
        if (ncols == 0) {
            rc = read_header(path, lineno, line, names, n, col, ctx);
            if (rc != PKM_OK) goto done;
            ncols = nf;
            continue;
        }
        if (nf != ncols) {
            rc = PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: %d fields, the header has %d", path, lineno,
                          nf, ncols);
            goto done;
        }
        rc = pkm_csv_parse_row(path, lineno, line, ncols, row, ctx);
        if (rc == PKM_OK) rc = add_sample(path, lineno, row, col, n, &m, &cap, &t, &q, ctx);
        if (rc != PKM_OK) goto done;
    }
    if (rc != PKM_OK) goto done;
    if (ncols == 0) {
        rc = PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: no header 't,...'", path, lineno);
        goto done;
    }
    if (m < 4) {
        rc = PKM_FAIL(ctx, PKM_ERR_PARSE,
                      "%s:%d: %d samples, a not-a-knot cubic spline needs at least 4", path, lineno,
                      m);
        goto done;
    }
    rc = pkm_trajectory_create_spline(n, m, t, q, out, ctx);
done:
    free(col);
    free(row);
    free(t);
    free(q);
    fclose(f);
    return rc;
}

pkm_status pkm_wrench_read_csv(const char *path, pkm_trajectory **out, pkm_ctx *ctx)
{
    static const char *const names[6] = {"fx", "fy", "fz", "mx", "my", "mz"};
    return pkm_trajectory_read_csv(path, names, 6, out, ctx);
}

pkm_status pkm_forces_read_csv(const pkm_model *m, const char *path, pkm_trajectory **out,
                               pkm_ctx *ctx)
{
    const char *names[PKM_POSE_MAX];
    int na = 0;
    for (int j = 0; j < pkm_model_joint_count(m); j++)
        if (pkm_model_joint(m, j)->actuated) {
            if (na == PKM_POSE_MAX)
                return PKM_FAIL(ctx, PKM_ERR_INVALID, "more than %d actuated joints", PKM_POSE_MAX);
            names[na++] = pkm_model_joint(m, j)->name;
        }
    return pkm_trajectory_read_csv(path, names, na, out, ctx);
}
