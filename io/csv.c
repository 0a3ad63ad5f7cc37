/* io/csv.c: lines and numbers of the CSV files io/ reads (io/csv_impl.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "io/csv_impl.h"

#include "core/core_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Strip the trailing newline / carriage return; 1 if the line is blank or a comment. */
static int skip_line(char *s)
{
    s[strcspn(s, "\r\n")] = '\0';
    const char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == '\0' || *p == '#';
}

pkm_status pkm_csv_next_line(FILE *f, const char *path, char *line, int *lineno, int *got,
                             pkm_ctx *ctx)
{
    *got = 0;
    while (fgets(line, PKM_CSV_LINE_MAX, f) != NULL) {
        ++*lineno;
        if (strlen(line) == PKM_CSV_LINE_MAX - 1 && line[PKM_CSV_LINE_MAX - 2] != '\n')
            return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d: line longer than %d characters", path,
                            *lineno, PKM_CSV_LINE_MAX - 2);
        if (!skip_line(line)) {
            *got = 1;
            return PKM_OK;
        }
    }
    if (ferror(f)) return PKM_FAIL(ctx, PKM_ERR_IO, "%s: read error", path);
    return PKM_OK;
}

int pkm_csv_count_fields(const char *s)
{
    int n = 1;
    for (; *s; s++)
        n += (*s == ',');
    return n;
}

pkm_status pkm_csv_parse_field(const char *path, int lineno, const char *start, const char *line,
                               int k, double *v, pkm_ctx *ctx)
{
    char *end = NULL;
    errno = 0;
    double x = strtod(start, &end);
    while (end != NULL && (*end == ' ' || *end == '\t'))
        end++;
    if (end == start || (*end != ',' && *end != '\0') || errno == ERANGE || !isfinite(x)) {
        size_t len = strcspn(start, ",");
        return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%d:%d: field %d '%.*s' is not a finite number",
                        path, lineno, (int)(start - line) + 1, k + 1, (int)(len > 40 ? 40 : len),
                        start);
    }
    *v = x;
    return PKM_OK;
}

pkm_status pkm_csv_parse_row(const char *path, int lineno, const char *line, int ncols, double *row,
                             pkm_ctx *ctx)
{
    const char *p = line;
    for (int k = 0; k < ncols; k++) {
        while (*p == ' ' || *p == '\t')
            p++;
        const pkm_status rc = pkm_csv_parse_field(path, lineno, p, line, k, &row[k], ctx);
        if (rc != PKM_OK) return rc;
        p += strcspn(p, ",");
        if (*p == ',') p++;
    }
    return PKM_OK;
}
