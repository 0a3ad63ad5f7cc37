/* assembly/assemble.c: the formulation type table (pkm/assembly.h) and the plain assembly.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"
#include "pkm/assembly.h"
#include "pkm/spatial.h"

#include <stddef.h>
#include <string.h>

const pkm_formulation_type pkm_formulation_types[PKM_FORMULATION_COUNT] = {
    [PKM_FORM_TREE] = {PKM_FORM_TREE, "tree",
                       "Germain et al. 2015 virtual tree + leg-variable elimination",
                       pkm_assemble_tree},
    [PKM_FORM_NODAL] = {PKM_FORM_NODAL, "nodal", "direct FE assembly", pkm_assemble_nodal},
};

void pkm_asm_rigid_inertia(const pkm_model *m, const pkm_body *b, double Mr[6][6])
{
    double c[3];
    pkm_vec3_sub(b->com, pkm_model_node(m, b->first_node)->x, c);
    pkm_spatial_inertia(b->mass, c, b->inertia, Mr);
}

const pkm_formulation_type *pkm_formulation_type_of(pkm_formulation f)
{
    return ((unsigned)f < PKM_FORMULATION_COUNT) ? &pkm_formulation_types[f] : NULL;
}

const pkm_formulation_type *pkm_formulation_type_find(const char *name)
{
    for (int k = 0; name != NULL && k < PKM_FORMULATION_COUNT; k++)
        if (strcmp(pkm_formulation_types[k].name, name) == 0) return &pkm_formulation_types[k];
    return NULL;
}

pkm_status pkm_assemble_formulation(const pkm_model *m, pkm_formulation f, pkm_trip *t,
                                    pkm_assembly_info *info, pkm_ctx *ctx)
{
    if (m == NULL) return PKM_FAIL(ctx, PKM_ERR_INVALID, "assemble: no model");
    const pkm_formulation_type *type = pkm_formulation_type_of(f);
    if (type == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "assemble: unknown formulation %d", (int)f);
    return type->assemble(m, t, info, ctx);
}

/* Plain assembly into a pencil (out) and, or only, the dof map (map): either may be NULL. */
static pkm_status assemble_plain(const pkm_model *m, pkm_formulation f, pkm_pencil **out,
                                 pkm_dofmap *map, pkm_assembly_info *info, pkm_ctx *ctx)
{
    pkm_trip t;
    memset(&t, 0, sizeof(t));
    t.dofmap = map;
    pkm_status rc = pkm_assemble_formulation(m, f, &t, info, ctx);
    if (rc == PKM_OK && out != NULL) rc = pkm_trip_to_pencil(&t, NULL, out, ctx);
    pkm_trip_free(&t);
    return rc;
}

pkm_status pkm_assemble(const pkm_model *m, pkm_formulation f, pkm_pencil **out,
                        pkm_assembly_info *info, pkm_ctx *ctx)
{
    *out = NULL;
    return assemble_plain(m, f, out, NULL, info, ctx);
}

pkm_status pkm_dofmap_create(const pkm_model *m, pkm_formulation f, pkm_dofmap **out, pkm_ctx *ctx)
{
    pkm_status rc = pkm_dofmap_alloc(out, ctx);
    if (rc == PKM_OK) rc = assemble_plain(m, f, NULL, *out, NULL, ctx);
    if (rc != PKM_OK) pkm_dofmap_destroy(out);
    return rc;
}
