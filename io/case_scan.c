/* io/case_scan.c: the libyaml pass over a case file (io/case_file_impl.h): the document's shape
 * bounded before libcyaml reads it, and the position of what a load or a conversion rejected,
 * found by walking the event stream with the rules of the schema (libcyaml 1.3.1 gives none:
 * io/case_file.c says why).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "io/case_file_impl.h"

#include <yaml.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A dotted key (leg.A) in a mapping: --set's spelling, which YAML reads as one key named
 * "leg.A", not as A in leg. The message shows the nested form to write instead. */
static void scan_dotted(scan *s, const yaml_event_t *ev, const char *key)
{
    char nested[PATH_MAX_LEN + 64] = "";
    size_t n = 0;
    int depth = 0;
    for (const char *p = key; *p != '\0' && n + 8 < sizeof(nested); p++) {
        if (*p == '.')
            n += (size_t)snprintf(nested + n, sizeof(nested) - n, ": {"), depth++;
        else
            nested[n++] = *p;
    }
    n += (size_t)snprintf(nested + n, sizeof(nested) - n, ": VALUE");
    for (; depth > 0 && n + 1 < sizeof(nested); depth--)
        nested[n++] = '}';
    nested[n < sizeof(nested) ? n : sizeof(nested) - 1] = '\0';
    scan_fail(s, ev->start_mark,
              "dotted key '%s': a case file nests its keys (write `%s`, or put the key under "
              "its group's mapping); the dotted form is --set's",
              key, nested);
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
    if (f->len > 0 && strchr(key, '.') != NULL) { /* under parameters: --set's spelling */
        scan_dotted(s, ev, key);
        return;
    }
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
pkm_status pkm_case_check_shape(const char *text, size_t len, const char *name, pkm_ctx *ctx)
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
pkm_status pkm_case_fail_at_problem(const char *text, size_t len, const char *name,
                                    const pkm_case *c, cyaml_err_t err, const log_buf *log,
                                    pkm_ctx *ctx)
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
pkm_status pkm_case_fail_at_value(const char *text, size_t len, const char *name, const pkm_case *c,
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
