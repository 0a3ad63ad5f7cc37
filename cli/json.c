/* cli/json.c: --format json for the commands that print csv (modes, compare --table,
 * dynamics, transient, the module chains): the command prints its csv into a temporary file,
 * printed then as JSON: an array of the tables (one, or two for modes --describe), each an
 * array of objects, one per row, keyed by the csv header (numbers as numbers; NaN, infinities
 * and empty cells as null; other cells as strings). One converter, not a printer per command.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* dup, fileno, getline */
#endif

#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JSON_MAX_COLS 256

int cli_format_is_rows(const char *format)
{
    return strcmp(format, "csv") == 0 || strcmp(format, "json") == 0;
}

int cli_wants_json(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if ((strcmp(argv[i], "--format") == 0 && i + 1 < argc &&
             strcmp(argv[i + 1], "json") == 0) ||
            strcmp(argv[i], "--format=json") == 0)
            return 1;
    return 0;
}

static void print_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void print_cell(const char *s)
{
    char *end = NULL;
    const double v = strtod(s, &end);
    if (*s == '\0')
        printf("null");
    else if (end != s && *end == '\0')
        isfinite(v) ? printf("%s", s) : printf("null");
    else
        print_string(s);
}

/* Split line (its newline removed) at commas into at most JSON_MAX_COLS cells, a cell in double
 * quotes (RFC 4180, "" for a quote: cli_csv_cell) unquoted in place; their count. */
static int split(char *line, char **cell)
{
    line[strcspn(line, "\r\n")] = '\0';
    int n = 0;
    for (char *p = line; n < JSON_MAX_COLS;) {
        cell[n++] = p;
        if (*p == '"') {
            char *w = p;
            for (p++; *p != '\0' && !(*p == '"' && p[1] != '"'); p++) {
                if (*p == '"') p++; /* "" */
                *w++ = *p;
            }
            *w = '\0';
            if (*p == '"') p++;
            if (*p != ',') break;
        } else {
            p = strchr(p, ',');
            if (p == NULL) break;
        }
        *p++ = '\0';
    }
    return n;
}

void cli_csv_cell(const char *s)
{
    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"') putchar('"');
        putchar(*s);
    }
    putchar('"');
}

/* The csv of f (tables separated by a new header: a line whose cells are not all numbers after
 * a row of another width, or a blank or '#' line) printed as JSON. */
static void print_json(FILE *f)
{
    char *line = NULL, *head[JSON_MAX_COLS], *cell[JSON_MAX_COLS], *hbuf = NULL;
    size_t cap = 0;
    int nhead = 0, ntab = 0, nrow = 0;
    printf("[");
    while (getline(&line, &cap, f) > 0) {
        if (line[0] == '#' || line[0] == '\n') {
            nhead = 0;
            continue;
        }
        char *copy = strdup(line);
        if (copy == NULL) break;
        const int n = split(copy, cell);
        if (nhead == 0 || n != nhead) {
            free(hbuf);
            hbuf = copy;
            nhead = n;
            memcpy(head, cell, sizeof(char *) * (size_t)n);
            printf("%s[", ntab++ ? "]," : "");
            nrow = 0;
            continue;
        }
        printf("%s{", nrow++ ? "," : "");
        for (int k = 0; k < n; k++) {
            printf("%s", k ? "," : "");
            print_string(head[k]);
            putchar(':');
            print_cell(cell[k]);
        }
        putchar('}');
        free(copy);
    }
    printf("%s]\n", ntab ? "]" : "");
    free(hbuf);
    free(line);
}

static FILE *capture;
static int saved_stdout = -1;

int cli_json_begin(void)
{
    fflush(stdout);
    capture = tmpfile();
    saved_stdout = capture != NULL ? dup(STDOUT_FILENO) : -1;
    if (saved_stdout < 0 || dup2(fileno(capture), STDOUT_FILENO) < 0) {
        fprintf(stderr, "%s: error: --format json: cannot capture the output\n", CLI_PROG);
        return EXIT_COMPUTE;
    }
    return 0;
}

void cli_json_end(int ok)
{
    fflush(stdout);
    dup2(saved_stdout, STDOUT_FILENO);
    close(saved_stdout);
    rewind(capture);
    if (ok) print_json(capture);
    fclose(capture);
    fflush(stdout);
}
