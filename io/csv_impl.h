/* io/csv_impl.h: the line and number reading shared by the CSV readers of io/ (reference
 * tables, trajectory samples).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_IO_CSV_IMPL_H
#define PKM_IO_CSV_IMPL_H

#include "pkm/status.h"

#include <stdio.h>

/* Longest line accepted, newline included. */
#define PKM_CSV_LINE_MAX 4096

/* The next line of f that is neither blank nor a comment ('#' first after blanks), its newline
 * stripped, into line (PKM_CSV_LINE_MAX bytes); *lineno counts every line read. PKM_OK with
 * *got = 1, or *got = 0 at the end of the file; PKM_ERR_PARSE "path:line: ..." for a line too
 * long, PKM_ERR_IO for a read error. */
pkm_status pkm_csv_next_line(FILE *f, const char *path, char *line, int *lineno, int *got,
                             pkm_ctx *ctx);

/* Number of comma-separated fields of a line. */
int pkm_csv_count_fields(const char *line);

/* Field k of data line `line`, starting at start, as a finite double into *v; PKM_ERR_PARSE
 * "path:line:column: field k '...' is not a finite number" otherwise. */
pkm_status pkm_csv_parse_field(const char *path, int lineno, const char *start, const char *line,
                               int k, double *v, pkm_ctx *ctx);

/* The ncols fields of a data line (the caller has checked the count) as finite numbers, into
 * row; PKM_ERR_PARSE "path:line:column: field k '...' is not a finite number" otherwise. */
pkm_status pkm_csv_parse_row(const char *path, int lineno, const char *line, int ncols, double *row,
                             pkm_ctx *ctx);

#endif
