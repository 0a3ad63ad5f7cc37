/* io/case_robot_set.c: `--set KEY=VALUE` on a robot file: the dotted key names a value of the
 * document, which takes VALUE as if the file had said so, before the file is read (so the value
 * is checked, and the mechanism built, as the file's own).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "io/case_robot_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Item c of sequence n: the mapping whose `name` is c, else x, y, z of a 3-vector, else the
 * decimal index c; NULL if none. */
static yaml_node_t *sequence_item(robot_reader *rd, const yaml_node_t *n, const char *c)
{
    const yaml_node_item_t *b = n->data.sequence.items.start, *e = n->data.sequence.items.top;
    for (const yaml_node_item_t *it = b; it < e; it++) {
        yaml_node_t *item = yaml_document_get_node(&rd->doc, *it);
        const yaml_node_t *name =
            item->type == YAML_MAPPING_NODE ? robot_get(rd, item, "name") : NULL;
        if (name != NULL && name->type == YAML_SCALAR_NODE &&
            strcmp((const char *)name->data.scalar.value, c) == 0)
            return item;
    }
    long k = -1;
    if (e - b == 3 && c[0] >= 'x' && c[0] <= 'z' && c[1] == '\0') k = c[0] - 'x';
    char *end = NULL;
    if (k < 0 && c[0] >= '0' && c[0] <= '9') k = strtol(c, &end, 10);
    if (k < 0 || (end != NULL && *end != '\0') || k >= e - b) return NULL;
    return yaml_document_get_node(&rd->doc, b[k]);
}

/* The scalar node that key names, or NULL with why in msg. */
static yaml_node_t *resolve(robot_reader *rd, const char *key, char *msg, size_t n)
{
    yaml_node_t *node = yaml_document_get_root_node(&rd->doc);
    for (const char *c = key; node != NULL;) {
        const char *dot = strchr(c, '.');
        char part[128];
        const size_t len = dot != NULL ? (size_t)(dot - c) : strlen(c);
        snprintf(part, sizeof part, "%.*s", (int)len, c);
        yaml_node_t *next = NULL;
        if (node->type == YAML_MAPPING_NODE) next = robot_get(rd, node, part);
        if (node->type == YAML_SEQUENCE_NODE) next = sequence_item(rd, node, part);
        if (next == NULL) {
            snprintf(msg, n, "the file has no entry '%s'%s%.*s", part, c > key ? " in '" : "",
                     c > key ? (int)(c - key - 1) : 0, key);
            if (c > key) strncat(msg, "'", n - strlen(msg) - 1);
            return NULL;
        }
        node = next;
        if (dot == NULL) break;
        c = dot + 1;
    }
    if (node->type != YAML_SCALAR_NODE) {
        snprintf(msg, n, "it names %s, not one value (name a component: .x, .0, a key)",
                 node->type == YAML_MAPPING_NODE ? "a mapping" : "a list");
        return NULL;
    }
    return node;
}

pkm_status robot_apply_sets(robot_reader *rd, const char *const *sets, int nsets, int *applied,
                            char *why, size_t nwhy)
{
    why[0] = '\0';
    for (int i = 0; i < nsets; i++) {
        applied[i] = 0;
        const char *eq = strchr(sets[i], '=');
        char key[256], msg[200];
        const size_t len = eq != NULL ? (size_t)(eq - sets[i]) : 0;
        if (len == 0 || len >= sizeof key) continue; /* the caller's parser says why */
        memcpy(key, sets[i], len);
        key[len] = '\0';
        yaml_node_t *node = resolve(rd, key, msg, sizeof msg);
        if (node == NULL) {
            if (why[0] == '\0') snprintf(why, nwhy, "--set '%s': %s", key, msg);
            continue;
        }
        const size_t vlen = strlen(eq + 1);
        yaml_char_t *v = malloc(vlen + 1); /* libyaml frees its scalars with free() */
        if (v == NULL) return PKM_FAIL(rd->ctx, PKM_ERR_NOMEM, "--set '%s': out of memory", key);
        memcpy(v, eq + 1, vlen + 1);
        free(node->data.scalar.value);
        node->data.scalar.value = v;
        node->data.scalar.length = vlen;
        node->data.scalar.style = YAML_PLAIN_SCALAR_STYLE;
        applied[i] = 1;
    }
    return PKM_OK;
}
