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
#include "io/case_file_impl.h"
#include "pkm/casefile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            return pkm_case_fail_at_value(a->text, a->len, a->name, a->c, path, local.msg, ctx);
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
    if (!pkm_case_schema_init(&schema, c)) {
        pkm_case_schema_free(&schema);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: out of memory for the schema of case %s", name,
                        c->name);
    }
    log_buf log;
    const cyaml_config_t cfg = pkm_case_cyaml_config(&log, CYAML_CFG_DEFAULT);
    void **doc = NULL;
    apply_state a = {.c = c, .params = params, .text = text, .name = name, .len = len};
    pkm_status rc = PKM_OK;
    const cyaml_err_t err =
        cyaml_load_data((const uint8_t *)text, len, &cfg, &schema.value, (void **)&doc, NULL);
    if (err != CYAML_OK || doc == NULL) {
        rc = pkm_case_fail_at_problem(text, len, name, c, err, &log, ctx);
        goto done;
    }
    if (strcmp(doc[0], c->name) != 0) {
        char msg[200];
        snprintf(msg, sizeof(msg), "the file is for case '%.60s', not %s", (const char *)doc[0],
                 c->name);
        rc = pkm_case_fail_at_value(text, len, name, c, "case", msg, ctx);
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
    pkm_case_schema_free(&schema);
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

/* The case a file names: a first libcyaml load that reads `case` alone. `case:` names a compiled
 * topology (pkm_case_find); a built-in robot file (tree5, loop3) has no parameter table. */
static pkm_status case_of_text(const char *text, size_t len, const char *name, const pkm_case **c,
                               pkm_ctx *ctx)
{
    doc_schema schema;
    pkm_case_schema_init(&schema, NULL);
    log_buf log;
    const cyaml_config_t cfg = pkm_case_cyaml_config(&log, CYAML_CFG_IGNORE_UNKNOWN_KEYS);
    void **doc = NULL;
    const cyaml_err_t err =
        cyaml_load_data((const uint8_t *)text, len, &cfg, &schema.value, (void **)&doc, NULL);
    if (err != CYAML_OK || doc == NULL)
        return pkm_case_fail_at_problem(text, len, name, NULL, err, &log, ctx);
    *c = pkm_case_find(doc[0]);
    pkm_status rc = PKM_OK;
    if (*c == NULL) {
        char msg[200];
        int n = snprintf(msg, sizeof(msg),
                         "unknown case '%.60s'; compiled cases:", (const char *)doc[0]);
        for (const pkm_case *const *k = pkm_case_list(); *k != NULL && n > 0; k++)
            if ((size_t)n < sizeof(msg))
                n += snprintf(msg + n, sizeof(msg) - (size_t)n, " %s", (*k)->name);
        rc = pkm_case_fail_at_value(text, len, name, NULL, "case", msg, ctx);
    }
    cyaml_free(&cfg, &schema.value, doc, 0);
    return rc;
}

pkm_status pkm_case_text_load_set(const char *text, size_t len, const char *name,
                                  const char *const *sets, int nsets, int *applied,
                                  const pkm_case **c, void **params, pkm_ctx *ctx)
{
    *c = NULL;
    *params = NULL;
    for (int i = 0; i < nsets; i++)
        applied[i] = 0;
    const pkm_case *found = NULL;
    void *p = NULL;
    pkm_status rc = pkm_case_check_shape(text, len, name, ctx);
    int robot = 0;
    if (rc == PKM_OK)
        rc = pkm_case_robot_load(text, len, name, sets, nsets, applied, &robot, c, params, ctx);
    if (robot || rc != PKM_OK) return rc;
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

pkm_status pkm_case_text_load(const char *text, size_t len, const char *name, const pkm_case **c,
                              void **params, pkm_ctx *ctx)
{
    return pkm_case_text_load_set(text, len, name, NULL, 0, NULL, c, params, ctx);
}

pkm_status pkm_case_file_load(const char *path, const pkm_case **c, void **params, pkm_ctx *ctx)
{
    return pkm_case_file_load_set(path, NULL, 0, NULL, c, params, ctx);
}

pkm_status pkm_case_file_load_set(const char *path, const char *const *sets, int nsets,
                                  int *applied, const pkm_case **c, void **params, pkm_ctx *ctx)
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
        rc = pkm_case_text_load_set(text, len, path, sets, nsets, applied, c, params, ctx);
    free(text);
    return rc;
}
