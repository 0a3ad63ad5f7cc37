/* io/case_registry.c: every case pkmflex knows by name (include/pkm/casefile.h): the compiled
 * cases of pkm_case_list() (cases/) and the robot files embedded in the io layer, the two
 * mechanisms of Guo, Ju, Wang 2024 (cases/tree5.yaml, Table 2; cases/loop3.yaml, Table 3).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "io/case_file_impl.h"
#include "pkm/casefile.h"

#include <stdio.h>
#include <string.h>

/* An embedded robot file: its case's name (the file's `robot:`), its text, its source path for
 * messages. */
typedef struct embedded_robot {
    const char *name;
    const unsigned char *text;
    const char *source;
} embedded_robot;

static const embedded_robot embedded[] = {
    {"tree5", pkm_tree5_yaml, "cases/tree5.yaml"},
    {"loop3", pkm_loop3_yaml, "cases/loop3.yaml"},
};
#define NEMBEDDED ((int)(sizeof(embedded) / sizeof(embedded[0])))

/* Every name, in the order `pkmflex cases` lists them: the compiled cases of cases/registry.c
 * (pkm_case_list, the same order) with the embedded robot files after pss5upu, where their C
 * descriptions stood. Static data: the library keeps no mutable state, so the list is written
 * out; tests/test_case_registry.c checks it against pkm_case_list() and the table above. */
static const char *const case_names[] = {"navaro",      "pss5upu", "tree5",  "loop3",
                                         "masticatory", "boom1",   "crane4", NULL};

const char *const *pkm_case_names(void)
{
    return case_names;
}

static const embedded_robot *embedded_find(const char *name)
{
    for (int k = 0; name != NULL && k < NEMBEDDED; k++)
        if (strcmp(embedded[k].name, name) == 0) return &embedded[k];
    return NULL;
}

const char *pkm_case_text(const char *name)
{
    const embedded_robot *r = embedded_find(name);
    if (r != NULL) return (const char *)r->text;
    const pkm_case *c = pkm_case_find(name);
    return c != NULL ? c->yaml : NULL;
}

pkm_status pkm_case_open(const char *name, const char *const *sets, int nsets, int *applied,
                         const pkm_case **c, void **params, pkm_ctx *ctx)
{
    *c = NULL;
    *params = NULL;
    for (int i = 0; i < nsets; i++)
        applied[i] = 0;
    const embedded_robot *r = embedded_find(name);
    if (r != NULL) {
        const char *text = (const char *)r->text;
        return pkm_case_text_load_set(text, strlen(text), r->source, sets, nsets, applied, c,
                                      params, ctx);
    }
    const pkm_case *found = pkm_case_find(name);
    if (found == NULL) {
        char names[256] = "";
        size_t n = 0;
        for (const char *const *k = case_names; *k != NULL && n < sizeof names; k++)
            n += (size_t)snprintf(names + n, sizeof names - n, " %s", *k);
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "unknown case '%.60s'; built-in cases:%s",
                        name != NULL ? name : "(null)", names);
    }
    const pkm_status rc = pkm_case_params_create(found, params, ctx);
    if (rc == PKM_OK) *c = found;
    return rc;
}
