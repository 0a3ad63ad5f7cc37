/* io/case_schema.c: the libcyaml schema of a case file, generated from the case's parameter
 * table (io/case_file_impl.h; every value read as a string, then converted by
 * pkm_case_param_set), and libcyaml's configuration.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "io/case_file_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every mapping of the document loads into an array of pointers, one slot per key: a string
 * for a value, another slot array for a nested mapping; NULL when the key is absent. */
static void schema_free(cyaml_schema_field_t *fields)
{
    for (cyaml_schema_field_t *f = fields; f != NULL && f->key != NULL; f++) {
        if (f->value.type == CYAML_MAPPING)
            schema_free((cyaml_schema_field_t *)f->value.mapping.fields);
        free((char *)f->key);
    }
    free(fields);
}

/* Length of the next dotted component of key after the prefix of length plen. */
static size_t component_len(const char *key, size_t plen)
{
    return strcspn(key + plen, ".");
}

/* The fields of the mapping holding the table keys that start with prefix (e.g. "leg."), with
 * their count in *n; NULL with *n = -1 when out of memory. */
static cyaml_schema_field_t *schema_fields(const pkm_case *c, const char *prefix, int *n)
{
    const size_t plen = strlen(prefix);
    *n = -1;
    cyaml_schema_field_t *fields = calloc((size_t)c->nparams + 1, sizeof(*fields));
    if (fields == NULL) return NULL;
    int count = 0;
    for (int i = 0; i < c->nparams; i++) {
        const char *key = c->params[i].key;
        if (strncmp(key, prefix, plen) != 0) continue;
        const size_t len = component_len(key, plen);
        int seen = 0;
        for (int j = 0; j < count && !seen; j++)
            seen = strlen(fields[j].key) == len && strncmp(fields[j].key, key + plen, len) == 0;
        if (seen) continue;
        char *name = malloc(len + 1);
        if (name == NULL) goto fail;
        memcpy(name, key + plen, len);
        name[len] = '\0';
        cyaml_schema_field_t *f = &fields[count++];
        f->key = name;
        f->data_offset = (uint32_t)((size_t)(count - 1) * sizeof(void *));
        f->value.flags = CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER;
        if (key[plen + len] == '\0') {
            f->value.type = CYAML_STRING;
            f->value.data_size = sizeof(char *);
            f->value.string.min = 0;
            f->value.string.max = CYAML_UNLIMITED;
        } else {
            char sub[PATH_MAX_LEN];
            snprintf(sub, sizeof(sub), "%.*s.", (int)(plen + len), key);
            int nsub = 0;
            f->value.type = CYAML_MAPPING;
            f->value.mapping.fields = schema_fields(c, sub, &nsub);
            if (f->value.mapping.fields == NULL) goto fail;
            f->value.data_size = (uint32_t)((size_t)nsub * sizeof(void *));
        }
    }
    *n = count;
    return fields;
fail:
    schema_free(fields);
    return NULL;
}

int pkm_case_schema_init(doc_schema *s, const pkm_case *c)
{
    memset(s, 0, sizeof(*s));
    s->top[0].key = "case";
    s->top[0].data_offset = 0;
    s->top[0].value.type = CYAML_STRING;
    s->top[0].value.flags = CYAML_FLAG_POINTER;
    s->top[0].value.data_size = sizeof(char *);
    s->top[0].value.string.max = CYAML_UNLIMITED;
    if (c != NULL) {
        int n = 0;
        s->top[1].key = "parameters";
        s->top[1].data_offset = sizeof(void *);
        s->top[1].value.type = CYAML_MAPPING;
        s->top[1].value.flags = CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER;
        s->top[1].value.mapping.fields = schema_fields(c, "", &n);
        if (s->top[1].value.mapping.fields == NULL) return 0;
        s->top[1].value.data_size = (uint32_t)((size_t)n * sizeof(void *));
    }
    s->value.type = CYAML_MAPPING;
    s->value.flags = CYAML_FLAG_POINTER;
    s->value.data_size = 2 * sizeof(void *);
    s->value.mapping.fields = s->top;
    return 1;
}

void pkm_case_schema_free(doc_schema *s)
{
    if (s->top[1].key != NULL) schema_free((cyaml_schema_field_t *)s->top[1].value.mapping.fields);
    memset(s, 0, sizeof(*s));
}

static void log_capture(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;

static void log_capture(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
    log_buf *b = ctx;
    if (level < CYAML_LOG_ERROR || b->msg[0] != '\0') return;
    vsnprintf(b->msg, sizeof(b->msg), fmt, args);
    b->msg[strcspn(b->msg, "\n")] = '\0';
}

cyaml_config_t pkm_case_cyaml_config(log_buf *log, cyaml_cfg_flags_t flags)
{
    memset(log, 0, sizeof(*log));
    return (cyaml_config_t){.log_fn = log_capture,
                            .log_ctx = log,
                            .mem_fn = cyaml_mem,
                            .log_level = CYAML_LOG_ERROR,
                            .flags = CYAML_CFG_NO_ALIAS | flags};
}
