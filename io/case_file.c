/* io/case_file.c: YAML case files (format in include/pkm/casefile.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The load is libcyaml's: a schema generated from the case's parameter table (every value read
 * as a string, then converted by pkm_case_param_set, so "210 mm" and 0.21 go through the one
 * setter of --set). libcyaml 1.3.1 does not give the position of what it rejects: its log
 * callback (cyaml_config.log_fn) prints a message and a backtrace of the enclosing mappings,
 * whose line and column are those of the container, or of a stale event after a libyaml syntax
 * error, never of the offending key or value. So when a load or a conversion fails, a second
 * pass walks the libyaml event stream of the same text with the same rules (scan_text) and
 * reports the node at fault from its start_mark (0-based, printed 1-based); the libcyaml message
 * is kept only as a fallback should the two passes ever disagree. */
#include "core/core_impl.h"
#include "pkm/casefile.h"

#include <cyaml/cyaml.h>
#include <yaml.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes: a case file is a page of numbers (the built-in ones are 2-7 KB). With the nesting
 * bounded, 1 MiB of comments, a string or a flat sequence is read or refused in 0.03-0.2 s. */
#define CASE_FILE_MAX (1 << 20)
#define PATH_MAX_LEN  256 /* "parameters.leg.A" */
/* Nesting of mappings and sequences: the deepest key of a table, "parameters.link.paper.nelem",
 * needs 4. libyaml's scanner keeps one possible simple key per flow level and checks them all
 * at every token, so deep flow collections cost depth^2: 200 KB of them took 20-43 s (issue 8).
 * The check stops at the first node too deep, before libyaml has read much further. */
#define MAX_DEPTH 16

/* ------------------------------------------------------------------------------------------ */
/* libcyaml schema from a parameter table */

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

/* The document: {case: string, parameters: mapping of the table}, or {case} alone when c is
 * NULL (the first pass, which only learns the case's name). */
typedef struct doc_schema {
    cyaml_schema_field_t top[3];
    cyaml_schema_value_t value;
} doc_schema;

static int doc_schema_init(doc_schema *s, const pkm_case *c)
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

static void doc_schema_free(doc_schema *s)
{
    if (s->top[1].key != NULL) schema_free((cyaml_schema_field_t *)s->top[1].value.mapping.fields);
    memset(s, 0, sizeof(*s));
}

/* The first error libcyaml logs, kept for the fallback message: the library never prints. */
typedef struct log_buf {
    char msg[160];
} log_buf;

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

/* ------------------------------------------------------------------------------------------ */
/* Positions: the libyaml pass */

typedef enum key_class { KEY_UNKNOWN, KEY_VALUE, KEY_GROUP, KEY_ANY } key_class;

/* What the document path ("case", "parameters.leg", "parameters.leg.A") may hold. Without a
 * case, anything under parameters is accepted (the first pass only reads `case`). */
static key_class classify(const pkm_case *c, const char *path)
{
    if (strcmp(path, "case") == 0) return KEY_VALUE;
    if (strcmp(path, "parameters") == 0) return KEY_GROUP;
    if (strncmp(path, "parameters.", 11) != 0) return KEY_UNKNOWN;
    if (c == NULL) return KEY_ANY;
    const char *key = path + 11;
    const size_t len = strlen(key);
    for (int i = 0; i < c->nparams; i++) {
        const char *k = c->params[i].key;
        if (strcmp(k, key) == 0) return KEY_VALUE;
        if (strncmp(k, key, len) == 0 && k[len] == '.') return KEY_GROUP;
    }
    return KEY_UNKNOWN;
}

typedef struct scan {
    const pkm_case *c;
    const char *target; /* path whose value position is wanted, or NULL */
    int target_found;
    yaml_mark_t target_mark;
    int problem; /* first problem found, at problem_mark */
    yaml_mark_t problem_mark;
    char msg[320];
} scan;

typedef struct frame {
    size_t len; /* length of the mapping's path */
    int want_key;
    key_class cls; /* of the key whose value comes next */
} frame;

static void scan_fail(scan *s, yaml_mark_t mark, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void scan_fail(scan *s, yaml_mark_t mark, const char *fmt, ...)
{
    if (s->problem) return;
    s->problem = 1;
    s->problem_mark = mark;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
    va_end(ap);
}

static const char *node_kind(yaml_event_type_t t)
{
    return t == YAML_MAPPING_START_EVENT ? "a mapping" : "a sequence";
}

/* A key of the mapping in frame f: checked against the table and the keys already seen. */
static void scan_key(scan *s, frame *f, const yaml_event_t *ev, char *path, char ***seen,
                     int *nseen)
{
    if (ev->type != YAML_SCALAR_EVENT) {
        scan_fail(s, ev->start_mark, "a key must be a plain name, not %s", node_kind(ev->type));
        return;
    }
    const char *key = (const char *)ev->data.scalar.value;
    const int w = snprintf(path + f->len, PATH_MAX_LEN - f->len, "%s%s", f->len ? "." : "", key);
    if (w < 0 || (size_t)w >= PATH_MAX_LEN - f->len) {
        scan_fail(s, ev->start_mark, "key '%.40s...' is too long", key);
        return;
    }
    f->cls = classify(s->c, path);
    if (f->cls == KEY_UNKNOWN) {
        if (f->len == 0)
            scan_fail(s, ev->start_mark,
                      "unknown key '%s' (a case file has the keys 'case' and 'parameters')", key);
        else
            scan_fail(s, ev->start_mark,
                      "unknown parameter '%s' of case %s (pkmflex cases --show %s lists them)",
                      path + 11, s->c->name, s->c->name);
        return;
    }
    for (int i = 0; i < *nseen; i++)
        if (strcmp((*seen)[i], path) == 0) {
            scan_fail(s, ev->start_mark, "key '%s' given twice", key);
            return;
        }
    char **grown = realloc(*seen, sizeof(char *) * (size_t)(*nseen + 1));
    char *copy = malloc(strlen(path) + 1);
    if (grown != NULL) *seen = grown;
    if (grown == NULL || copy == NULL) {
        free(copy);
        scan_fail(s, ev->start_mark, "out of memory");
        return;
    }
    strcpy(copy, path);
    (*seen)[(*nseen)++] = copy;
    f->want_key = 0;
}

/* Walk the first document of text with the rules of the schema: record the first problem and
 * the position of the target's value. */
static void scan_text(const char *text, size_t len, scan *s)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        yaml_mark_t zero = {0, 0, 0};
        scan_fail(s, zero, "out of memory");
        return;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    char path[PATH_MAX_LEN] = "";
    frame stack[MAX_DEPTH];
    int depth = 0, skip = 0, root_seen = 0, case_seen = 0, done = 0, nseen = 0;
    char **seen = NULL;
    yaml_mark_t root_mark = {0, 0, 0};
    while (!done && !s->problem) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            if (parser.context != NULL)
                scan_fail(s, parser.problem_mark, "syntax error: %s (%s at line %zu)",
                          parser.problem ? parser.problem : "malformed YAML", parser.context,
                          parser.context_mark.line + 1);
            else
                scan_fail(s, parser.problem_mark, "syntax error: %s",
                          parser.problem ? parser.problem : "malformed YAML");
            break;
        }
        const yaml_event_type_t t = ev.type;
        const int start = (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT);
        const int end = (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT);
        if (t == YAML_STREAM_END_EVENT || (t == YAML_DOCUMENT_END_EVENT && root_seen)) {
            if (!root_seen) scan_fail(s, ev.start_mark, "missing key 'case' (the file is empty)");
            done = 1;
        } else if (t == YAML_ALIAS_EVENT) {
            scan_fail(s, ev.start_mark, "YAML aliases are not supported in case files");
        } else if (skip > 0) {
            skip += start - end;
        } else if (t == YAML_MAPPING_END_EVENT) {
            depth--;
            if (depth == 0 && !case_seen)
                scan_fail(s, root_mark, "missing key 'case' (the built-in topology)");
        } else if (t == YAML_SCALAR_EVENT || start) {
            if (!root_seen) {
                root_seen = 1;
                root_mark = ev.start_mark;
                if (t != YAML_MAPPING_START_EVENT)
                    scan_fail(s, ev.start_mark,
                              "a case file is a mapping with the keys 'case' and 'parameters'");
                else
                    stack[depth++] = (frame){.len = 0, .want_key = 1, .cls = KEY_UNKNOWN};
            } else {
                frame *f = &stack[depth - 1];
                if (f->want_key) {
                    scan_key(s, f, &ev, path, &seen, &nseen);
                    if (!s->problem && strcmp(path, "case") == 0) case_seen = 1;
                } else {
                    f->want_key = 1;
                    if (f->cls == KEY_ANY) {
                        skip = start;
                    } else if (f->cls == KEY_VALUE && t != YAML_SCALAR_EVENT) {
                        scan_fail(s, ev.start_mark, "'%s' takes a single value, not %s",
                                  path + (f->len > 0 ? 11 : 0), node_kind(t));
                    } else if (f->cls == KEY_VALUE) {
                        if (s->target != NULL && strcmp(path, s->target) == 0) {
                            s->target_found = 1;
                            s->target_mark = ev.start_mark;
                        }
                    } else if (t != YAML_MAPPING_START_EVENT) {
                        scan_fail(s, ev.start_mark,
                                  "'%s' is a group of parameters: expected a mapping of keys",
                                  strcmp(path, "parameters") == 0 ? path : path + 11);
                    } else if (depth == MAX_DEPTH) {
                        scan_fail(s, ev.start_mark, "mappings nested too deep");
                    } else {
                        stack[depth++] =
                            (frame){.len = strlen(path), .want_key = 1, .cls = KEY_UNKNOWN};
                    }
                    path[stack[depth - 1].len] = '\0';
                }
            }
        }
        yaml_event_delete(&ev);
    }
    for (int i = 0; i < nseen; i++)
        free(seen[i]);
    free(seen);
    yaml_parser_delete(&parser);
}

/* The shape of text, checked before libcyaml reads it: one YAML document, nested at most
 * MAX_DEPTH deep, within CASE_FILE_MAX bytes. PKM_ERR_PARSE at the node at fault. */
static pkm_status check_shape(const char *text, size_t len, const char *name, pkm_ctx *ctx)
{
    if (len > CASE_FILE_MAX)
        return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:1:1: the file is larger than %d bytes", name,
                        CASE_FILE_MAX);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: out of memory for the YAML parser", name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    pkm_status rc = PKM_OK;
    int depth = 0, docs = 0, done = 0;
    while (!done && rc == PKM_OK) {
        yaml_event_t ev;
        /* A syntax error is reported, at its place, by the full pass (scan_text). */
        if (!yaml_parser_parse(&parser, &ev)) break;
        const yaml_mark_t at = ev.start_mark;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                rc = PKM_FAIL(ctx, PKM_ERR_PARSE,
                              "%s:%zu:%zu: a second YAML document: a case file holds one", name,
                              at.line + 1, at.column + 1);
            break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (++depth > MAX_DEPTH)
                rc = PKM_FAIL(ctx, PKM_ERR_PARSE,
                              "%s:%zu:%zu: mappings and sequences nested deeper than %d", name,
                              at.line + 1, at.column + 1, MAX_DEPTH);
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return rc;
}

/* PKM_ERR_PARSE "name:line:col: msg" at the scan's problem, or from libcyaml's own message. */
static pkm_status fail_at_problem(const char *text, size_t len, const char *name, const pkm_case *c,
                                  cyaml_err_t err, const log_buf *log, pkm_ctx *ctx)
{
    scan s;
    memset(&s, 0, sizeof(s));
    s.c = c;
    scan_text(text, len, &s);
    if (s.problem)
        return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%zu:%zu: %s", name, s.problem_mark.line + 1,
                        s.problem_mark.column + 1, s.msg);
    return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:1:1: %s (libcyaml: %s)", name, cyaml_strerror(err),
                    log->msg[0] ? log->msg : "no detail");
}

/* PKM_ERR_PARSE "name:line:col: msg" at the value of path (the start of the file if the scan
 * cannot find it). */
static pkm_status fail_at_value(const char *text, size_t len, const char *name, const pkm_case *c,
                                const char *path, const char *msg, pkm_ctx *ctx)
{
    scan s;
    memset(&s, 0, sizeof(s));
    s.c = c;
    s.target = path;
    scan_text(text, len, &s);
    return PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%zu:%zu: %s", name,
                    s.target_found ? s.target_mark.line + 1 : 1,
                    s.target_found ? s.target_mark.column + 1 : 1, msg);
}

/* ------------------------------------------------------------------------------------------ */
/* Loading */

static cyaml_config_t cyaml_config(log_buf *log, cyaml_cfg_flags_t flags)
{
    memset(log, 0, sizeof(*log));
    return (cyaml_config_t){.log_fn = log_capture,
                            .log_ctx = log,
                            .mem_fn = cyaml_mem,
                            .log_level = CYAML_LOG_ERROR,
                            .flags = CYAML_CFG_NO_ALIAS | flags};
}

typedef struct apply_state {
    const pkm_case *c;
    void *params;
    const char *text, *name;
    size_t len;
    unsigned char *set; /* per table entry: given by the file */
} apply_state;

/* Set the parameters of the slot array of a mapping whose table keys start with prefix. */
static pkm_status apply_fields(apply_state *a, const cyaml_schema_field_t *fields,
                               void *const *slots, const char *prefix, pkm_ctx *ctx)
{
    for (const cyaml_schema_field_t *f = fields; f->key != NULL; f++) {
        void *v = slots[f->data_offset / sizeof(void *)];
        if (v == NULL) continue;
        char key[PATH_MAX_LEN];
        snprintf(key, sizeof(key), "%s%s", prefix, f->key);
        if (f->value.type == CYAML_MAPPING) {
            char sub[PATH_MAX_LEN + 1];
            snprintf(sub, sizeof(sub), "%s.", key);
            pkm_status rc = apply_fields(a, f->value.mapping.fields, v, sub, ctx);
            if (rc != PKM_OK) return rc;
            continue;
        }
        pkm_ctx local;
        pkm_ctx_clear(&local);
        if (pkm_case_param_set(a->c, a->params, key, v, &local) != PKM_OK) {
            char path[PATH_MAX_LEN + 16];
            snprintf(path, sizeof(path), "parameters.%s", key);
            return fail_at_value(a->text, a->len, a->name, a->c, path, local.msg, ctx);
        }
        a->set[pkm_case_param_find(a->c, key) - a->c->params] = 1;
    }
    return PKM_OK;
}

/* Apply the case file text (for case c) to params; with require_all, every parameter of the
 * table must be set (a built-in's embedded file). */
static pkm_status case_apply(const pkm_case *c, void *params, const char *text, size_t len,
                             const char *name, int require_all, pkm_ctx *ctx)
{
    doc_schema schema;
    if (!doc_schema_init(&schema, c)) {
        doc_schema_free(&schema);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: out of memory for the schema of case %s", name,
                        c->name);
    }
    log_buf log;
    const cyaml_config_t cfg = cyaml_config(&log, CYAML_CFG_DEFAULT);
    void **doc = NULL;
    apply_state a = {.c = c, .params = params, .text = text, .name = name, .len = len};
    pkm_status rc = PKM_OK;
    const cyaml_err_t err =
        cyaml_load_data((const uint8_t *)text, len, &cfg, &schema.value, (void **)&doc, NULL);
    if (err != CYAML_OK || doc == NULL) {
        rc = fail_at_problem(text, len, name, c, err, &log, ctx);
        goto done;
    }
    if (strcmp(doc[0], c->name) != 0) {
        char msg[200];
        snprintf(msg, sizeof(msg), "the file is for case '%.60s', not %s", (const char *)doc[0],
                 c->name);
        rc = fail_at_value(text, len, name, c, "case", msg, ctx);
        goto done;
    }
    a.set = calloc((size_t)c->nparams + 1, 1);
    if (a.set == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: out of memory", name);
        goto done;
    }
    if (doc[1] != NULL) rc = apply_fields(&a, schema.top[1].value.mapping.fields, doc[1], "", ctx);
    for (int i = 0; rc == PKM_OK && require_all && i < c->nparams; i++)
        if (!a.set[i])
            rc = PKM_FAIL(ctx, PKM_ERR_INVALID,
                          "%s: the built-in case %s does not set its parameter '%s'", name, c->name,
                          c->params[i].key);
done:
    free(a.set);
    if (doc != NULL) cyaml_free(&cfg, &schema.value, doc, 0);
    doc_schema_free(&schema);
    return rc;
}

pkm_status pkm_case_params_create(const pkm_case *c, void **params, pkm_ctx *ctx)
{
    *params = NULL;
    void *p = calloc(1, c->params_size);
    if (p == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: out of memory", c->name);
    pkm_status rc = case_apply(c, p, c->yaml, strlen(c->yaml), c->yaml_name, 1, ctx);
    if (rc != PKM_OK) {
        free(p);
        return rc;
    }
    *params = p;
    return PKM_OK;
}

void pkm_case_params_destroy(void **params)
{
    if (params == NULL) return;
    free(*params);
    *params = NULL;
}

/* The case a file names: a first libcyaml load that reads `case` alone. */
static pkm_status case_of_text(const char *text, size_t len, const char *name, const pkm_case **c,
                               pkm_ctx *ctx)
{
    doc_schema schema;
    doc_schema_init(&schema, NULL);
    log_buf log;
    const cyaml_config_t cfg = cyaml_config(&log, CYAML_CFG_IGNORE_UNKNOWN_KEYS);
    void **doc = NULL;
    const cyaml_err_t err =
        cyaml_load_data((const uint8_t *)text, len, &cfg, &schema.value, (void **)&doc, NULL);
    if (err != CYAML_OK || doc == NULL)
        return fail_at_problem(text, len, name, NULL, err, &log, ctx);
    *c = pkm_case_find(doc[0]);
    pkm_status rc = PKM_OK;
    if (*c == NULL) {
        char msg[200];
        int n = snprintf(msg, sizeof(msg),
                         "unknown case '%.60s'; built-in cases:", (const char *)doc[0]);
        for (const pkm_case *const *k = pkm_case_list(); *k != NULL && n > 0; k++)
            if ((size_t)n < sizeof(msg))
                n += snprintf(msg + n, sizeof(msg) - (size_t)n, " %s", (*k)->name);
        rc = fail_at_value(text, len, name, NULL, "case", msg, ctx);
    }
    cyaml_free(&cfg, &schema.value, doc, 0);
    return rc;
}

pkm_status pkm_case_text_load(const char *text, size_t len, const char *name, const pkm_case **c,
                              void **params, pkm_ctx *ctx)
{
    *c = NULL;
    *params = NULL;
    const pkm_case *found = NULL;
    void *p = NULL;
    pkm_status rc = check_shape(text, len, name, ctx);
    if (rc == PKM_OK) rc = case_of_text(text, len, name, &found, ctx);
    if (rc == PKM_OK) rc = pkm_case_params_create(found, &p, ctx);
    if (rc == PKM_OK) rc = case_apply(found, p, text, len, name, 0, ctx);
    if (rc != PKM_OK) {
        free(p);
        return rc;
    }
    *c = found;
    *params = p;
    return PKM_OK;
}

pkm_status pkm_case_file_load(const char *path, const pkm_case **c, void **params, pkm_ctx *ctx)
{
    *c = NULL;
    *params = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return PKM_FAIL(ctx, PKM_ERR_IO, "cannot open case file '%s': %s", path, strerror(errno));
    char *text = malloc(CASE_FILE_MAX + 1);
    if (text == NULL) {
        fclose(f);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "out of memory reading '%s'", path);
    }
    const size_t len = fread(text, 1, CASE_FILE_MAX + 1, f);
    const int bad = ferror(f);
    fclose(f);
    pkm_status rc;
    if (bad)
        rc = PKM_FAIL(ctx, PKM_ERR_IO, "cannot read case file '%s'", path);
    else
        rc = pkm_case_text_load(text, len, path, c, params, ctx);
    free(text);
    return rc;
}
