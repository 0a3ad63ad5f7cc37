/* cli/rows.c: the rows of `pkmflex dynamics`, one printer and one writer for every case and
 * engine (docs/dynamics.md, "Output columns"): the joint table CLI_ROWS_HEADER, one row per time
 * and joint, a quantity the case does not have an empty cell (csv), null (json) or '-' (table);
 * the per-time table (--per-time) t and the case's columns; -o both in one HDF5 file.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_rows_keep(cli_rows *r, int64_t ntime, int wrench)
{
    const double cells = (double)ntime * r->njoint;
    const double bytes =
        8.0 * ((double)ntime * (1.0 + r->ncol) + (PKM_DYN_SERIES_COLUMNS + 6.0 * wrench) * cells);
    const int rc = cli_check_output_memory(bytes, ntime, "times", "fewer times (--time)");
    if (rc != 0) return rc;
    const size_t nt = (size_t)ntime, nc = (size_t)ntime * (size_t)r->njoint;
    r->t = malloc(sizeof(double) * nt);
    r->pt = malloc(sizeof(double) * (nt * (size_t)r->ncol + 1));
    r->wrench = wrench ? malloc(sizeof(double) * 6 * nc) : NULL;
    int ok = r->t != NULL && r->pt != NULL && (!wrench || r->wrench != NULL);
    for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
        ok = (r->value[c] = malloc(sizeof(double) * (nc + 1))) != NULL && ok;
    r->cap = ntime;
    return ok ? 0
              : cli_usage_error("-o: cannot allocate %.3g GB for %lld times", bytes / 1e9,
                                (long long)ntime);
}

void cli_rows_free(cli_rows *r)
{
    free(r->t);
    free(r->pt);
    free(r->wrench);
    for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
        free(r->value[c]);
}

/* One value: in csv %.15g if it reads back to the same double (0.2, not 0.20000000000000001),
 * else %.17g (bit for bit always); in the table the column's width; NaN as an empty cell or
 * '-'. */
static void rows_cell(int csv, double v)
{
    if (!csv) {
        isnan(v) ? printf(" %13s", "-") : printf(" %13.6g", v);
        return;
    }
    if (isnan(v)) {
        printf(",");
        return;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v); /* 17 always do */
    printf(",%s", buf);
}

static void rows_header(const cli_rows *r)
{
    if (r->per_time) {
        printf(r->csv ? "t" : "# %8s", r->csv ? "" : "t [s]");
        for (int c = 0; c < r->ncol; c++)
            printf(r->csv ? ",%s" : " %13s", r->cols[c].name);
        printf("\n");
        return;
    }
    if (r->csv) {
        printf("%s\n", CLI_ROWS_HEADER);
        return;
    }
    printf("# %8s  %-10s %-13s", "t [s]", "joint", "type");
    for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
        printf(" %13s", pkm_dyn_series_columns[c]);
    printf("\n");
}

void cli_rows_put(cli_rows *r, int64_t k, double t, const double *v, const double *wrench,
                  const double *pt)
{
    r->done = k + 1;
    if (r->t != NULL) {
        const size_t nj = (size_t)r->njoint, at = (size_t)k * nj;
        r->t[k] = t;
        for (size_t j = 0; j < nj; j++)
            for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
                r->value[c][at + j] = v[j * PKM_DYN_SERIES_COLUMNS + (size_t)c];
        if (r->wrench != NULL) memcpy(r->wrench + 6 * at, wrench, sizeof(double) * 6 * nj);
        if (r->ncol > 0)
            memcpy(r->pt + (size_t)k * (size_t)r->ncol, pt, sizeof(double) * (size_t)r->ncol);
        return;
    }
    if (k == 0) rows_header(r);
    if (r->per_time) {
        printf(r->csv ? "%.10g" : "%10.4f", t);
        for (int c = 0; c < r->ncol; c++)
            rows_cell(r->csv, pt[c]);
        printf("\n");
        return;
    }
    for (int j = 0; j < r->njoint; j++) {
        if (r->csv)
            printf("%.10g,%s,%s", t, r->joints[j], r->types[j]);
        else
            printf("%10.4f  %-10s %-13s", t, r->joints[j], r->types[j]);
        for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
            rows_cell(r->csv, v[(size_t)j * PKM_DYN_SERIES_COLUMNS + (size_t)c]);
        printf("\n");
    }
}

int cli_rows_write(const cli_rows *r, const char *path, const cli_rows_source *src, int partial)
{
    pkm_dyn_series s = {.case_name = src->case_name,
                        .trajectory = src->trajectory,
                        .friction = src->friction,
                        .ntime = (int)r->done,
                        .njoint = r->njoint,
                        .joints = r->joints,
                        .types = r->types,
                        .t = r->t,
                        .wrench = r->wrench,
                        .ncol = r->ncol,
                        .cols = r->cols,
                        .per_time = r->pt,
                        .partial = partial};
    for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
        s.value[c] = r->value[c];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_dyn_series_write_h5(path, &s, &ctx);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    printf("# wrote %s: %lld times x %d joints (%s)\n", path, (long long)r->done, r->njoint,
           src->case_name);
    return 0;
}
