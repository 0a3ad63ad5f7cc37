/* io/case_write.c: a case file of every parameter's value (pkm_case_file_write, casefile.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Dotted keys become nested mappings (`material.E` under `material:`), each prefix written once
 * where its first key stands in the table, so the file reads back through the schema of
 * case_schema.c. Doubles with 17 significant digits and their SI unit: the value read back is
 * the value written. The file is written beside its final name and renamed onto it, so a reader
 * sees the old file or the new one, never a part. */
#define _POSIX_C_SOURCE 200809L /* fsync, fileno */
#include "core/core_impl.h"
#include "pkm/casefile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Key k's value as YAML text. */
static void value_text(const pkm_param_desc *d, const void *params, char *buf, size_t cap)
{
    const char *field = (const char *)params + d->offset;
    if (d->kind == PKM_PARAM_DOUBLE) {
        double v;
        memcpy(&v, field, sizeof(v));
        snprintf(buf, cap, "%.17g%s%s", v, d->unit[0] ? " " : "", d->unit);
    } else if (d->kind == PKM_PARAM_INT) {
        int v;
        memcpy(&v, field, sizeof(v));
        snprintf(buf, cap, "%d", v);
    } else {
        unsigned v;
        memcpy(&v, field, sizeof(v));
        snprintf(buf, cap, "?");
        for (const pkm_param_choice *ch = d->choices; ch->name != NULL; ch++)
            if (ch->value == v) snprintf(buf, cap, "%s", ch->name);
    }
}

/* The segment of key after its first plen characters, up to the next '.': its length. */
static size_t segment(const char *key, size_t plen)
{
    return strcspn(key + plen, ".");
}

/* The table's keys under prefix (plen characters, ending in '.', or empty) at depth. */
static void write_level(FILE *f, const pkm_case *c, const void *params, const char *prefix,
                        size_t plen, int depth)
{
    for (int k = 0; k < c->nparams; k++) {
        const char *key = c->params[k].key;
        if (strncmp(key, prefix, plen) != 0) continue;
        const size_t n = segment(key, plen);
        int seen = 0; /* the segment written at an earlier key */
        for (int j = 0; j < k && !seen; j++)
            seen = strncmp(c->params[j].key, prefix, plen) == 0 &&
                   segment(c->params[j].key, plen) == n &&
                   strncmp(c->params[j].key + plen, key + plen, n) == 0;
        if (seen) continue;
        if (key[plen + n] == '\0') {
            char v[96];
            value_text(&c->params[k], params, v, sizeof(v));
            fprintf(f, "%*s%s: %s\n", 2 * depth, "", key + plen, v);
        } else {
            fprintf(f, "%*s%.*s:\n", 2 * depth, "", (int)n, key + plen);
            write_level(f, c, params, key, plen + n + 1, depth + 1);
        }
    }
}

pkm_status pkm_case_file_write(const char *path, const pkm_case *c, const void *params,
                               const char *comment, pkm_ctx *ctx)
{
    const size_t len = strlen(path) + sizeof(".tmp");
    char *tmp = malloc(len);
    if (tmp == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: cannot allocate its name", path);
    snprintf(tmp, len, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    pkm_status rc = PKM_OK;
    if (f == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return rc;
    }
    for (const char *p = comment; p != NULL && *p != '\0';) {
        const size_t n = strcspn(p, "\n");
        fprintf(f, "# %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    fprintf(f, "case: %s\nparameters:\n", c->name);
    write_level(f, c, params, "", 0, 1);
    const int bad = ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0;
    const int e = errno;
    if (fclose(f) != 0 || bad)
        rc = PKM_FAIL(ctx, PKM_ERR_IO, "cannot write %s: %s", tmp, strerror(bad ? e : errno));
    /* rename(2) replaces the target atomically: readers see the old file or the new one. */
    if (rc == PKM_OK && rename(tmp, path) != 0)
        rc = PKM_FAIL(ctx, PKM_ERR_IO, "cannot rename %s onto %s: %s", tmp, path, strerror(errno));
    if (rc != PKM_OK) remove(tmp);
    free(tmp);
    return rc;
}
