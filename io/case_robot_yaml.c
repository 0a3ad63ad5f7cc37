/* io/case_robot_yaml.c: YAML node helpers of the robot-file reader (io/case_robot_impl.h). The
 * robot file is read as a libyaml document (yaml_parser_load): every node keeps its start mark,
 * so a fault is reported at its own line and column.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "io/case_robot_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pkm_status robot_fail(robot_reader *rd, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return PKM_FAIL(rd->ctx, PKM_ERR_PARSE, "%s:%zu:%zu: %s", rd->file,
                    n != NULL ? n->start_mark.line + 1 : 1,
                    n != NULL ? n->start_mark.column + 1 : 1, msg);
}

static const char *kind(const yaml_node_t *n)
{
    return n->type == YAML_MAPPING_NODE    ? "a mapping"
           : n->type == YAML_SEQUENCE_NODE ? "a sequence"
                                           : "a single value";
}

static yaml_node_t *node(robot_reader *rd, int id)
{
    return yaml_document_get_node(&rd->doc, id);
}

static int is_key(const yaml_node_t *k, const char *key)
{
    return k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0;
}

yaml_node_t *robot_get(robot_reader *rd, const yaml_node_t *n, const char *key)
{
    if (n == NULL || n->type != YAML_MAPPING_NODE) return NULL;
    for (const yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
         p++)
        if (is_key(node(rd, p->key), key)) return node(rd, p->value);
    return NULL;
}

pkm_status robot_keys(robot_reader *rd, const yaml_node_t *n, const char *what,
                      const char *const *allowed)
{
    if (n->type != YAML_MAPPING_NODE)
        return robot_fail(rd, n, "%s: expected a mapping of keys, not %s", what, kind(n));
    for (const yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = node(rd, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return robot_fail(rd, k, "%s: a key must be a plain name, not %s", what, kind(k));
        const char *key = (const char *)k->data.scalar.value;
        int known = 0;
        for (const char *const *a = allowed; *a != NULL && !known; a++)
            known = strcmp(*a, key) == 0;
        if (!known) {
            char list[200];
            size_t len = 0;
            list[0] = '\0';
            for (const char *const *a = allowed; *a != NULL && len < sizeof(list); a++)
                len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                        a == allowed ? "" : ", ", *a);
            return robot_fail(rd, k, "%s: unknown key '%s' (expected %s)", what, key, list);
        }
        for (const yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++)
            if (is_key(node(rd, q->key), key))
                return robot_fail(rd, k, "%s: key '%s' given twice", what, key);
    }
    return PKM_OK;
}

pkm_status robot_need(robot_reader *rd, const yaml_node_t *n, const char *key, const char *what,
                      yaml_node_t **out)
{
    *out = robot_get(rd, n, key);
    return *out != NULL ? PKM_OK : robot_fail(rd, n, "%s: missing key '%s'", what, key);
}

pkm_status robot_text(robot_reader *rd, const yaml_node_t *n, const char *what, const char **out)
{
    if (n->type != YAML_SCALAR_NODE)
        return robot_fail(rd, n, "%s: expected a single value, not %s", what, kind(n));
    *out = (const char *)n->data.scalar.value;
    return PKM_OK;
}

pkm_status robot_name(robot_reader *rd, const yaml_node_t *n, const char *what, char *out)
{
    const char *s = NULL;
    pkm_status rc = robot_text(rd, n, what, &s);
    if (rc != PKM_OK) return rc;
    if (s[0] == '\0' || strlen(s) >= PKM_NAME_LEN)
        return robot_fail(rd, n, "%s: a name of 1 to %d characters", what, PKM_NAME_LEN - 1);
    strcpy(out, s);
    return PKM_OK;
}

pkm_status robot_quantity(robot_reader *rd, const yaml_node_t *n, const char *unit, double *v)
{
    const char *s = NULL;
    pkm_status rc = robot_text(rd, n, "a quantity", &s);
    if (rc != PKM_OK) return rc;
    pkm_ctx local;
    pkm_ctx_clear(&local);
    if (pkm_quantity_parse(s, unit, v, &local) != PKM_OK) return robot_fail(rd, n, "%s", local.msg);
    return PKM_OK;
}

pkm_status robot_items(robot_reader *rd, const yaml_node_t *n, const char *what,
                       yaml_node_item_t **items, int *count)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return robot_fail(rd, n, "%s: expected a sequence [...], not %s", what, kind(n));
    *items = n->data.sequence.items.start;
    *count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    return PKM_OK;
}

pkm_status robot_list(robot_reader *rd, const yaml_node_t *n, const char *what, int max,
                      yaml_node_item_t **items, int *count)
{
    pkm_status rc = robot_items(rd, n, what, items, count);
    if (rc == PKM_OK && (*count < 1 || *count > max))
        rc = robot_fail(rd, n, "%s: 1 to %d entries, not %d", what, max, *count);
    return rc;
}

pkm_status robot_vector(robot_reader *rd, const yaml_node_t *n, const char *unit, int count,
                        double *v)
{
    yaml_node_item_t *it = NULL;
    int len = 0;
    pkm_status rc = robot_items(rd, n, "a vector", &it, &len);
    if (rc == PKM_OK && len != count)
        rc = robot_fail(rd, n, "expected %d components, got %d", count, len);
    for (int i = 0; i < count && rc == PKM_OK; i++)
        rc = robot_quantity(rd, node(rd, it[i]), unit, &v[i]);
    return rc;
}

pkm_status robot_bool(robot_reader *rd, const yaml_node_t *n, int *v)
{
    static const char *const names[] = {"false", "true", "no", "yes", "off", "on", NULL};
    int k = 0;
    pkm_status rc = robot_choice(rd, n, "a flag", names, &k);
    *v = k % 2;
    return rc;
}

pkm_status robot_int(robot_reader *rd, const yaml_node_t *n, int lo, int hi, int *v)
{
    const char *s = NULL;
    pkm_status rc = robot_text(rd, n, "an integer", &s);
    if (rc != PKM_OK) return rc;
    char *end = NULL;
    errno = 0;
    const long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || x < lo || x > hi)
        return robot_fail(rd, n, "'%s' is not an integer from %d to %d", s, lo, hi);
    *v = (int)x;
    return PKM_OK;
}

pkm_status robot_choice(robot_reader *rd, const yaml_node_t *n, const char *what,
                        const char *const *names, int *index)
{
    const char *s = NULL;
    pkm_status rc = robot_text(rd, n, what, &s);
    if (rc != PKM_OK) return rc;
    char list[200];
    size_t len = 0;
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(names[i], s) == 0) {
            *index = i;
            return PKM_OK;
        }
        if (len < sizeof(list))
            len +=
                (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", names[i]);
    }
    return robot_fail(rd, n, "%s: '%s' is not one of %s", what, s, list);
}

pkm_status robot_inertia(robot_reader *rd, const yaml_node_t *n, double J[3][3])
{
    static const int at[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
    double v[6] = {0};
    const int six = n->type == YAML_SEQUENCE_NODE &&
                    n->data.sequence.items.top - n->data.sequence.items.start == 6;
    const pkm_status rc = robot_vector(rd, n, "kg m^2", six ? 6 : 3, v);
    for (int k = 0; k < 6; k++)
        J[at[k][0]][at[k][1]] = J[at[k][1]][at[k][0]] = v[k];
    return rc;
}
