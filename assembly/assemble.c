/* assembly/assemble.c: formulation dispatch.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"
#include "pkm/assembly.h"

#include <stddef.h>
#include <string.h>

pkm_status pkm_assemble_formulation(const pkm_model *m, pkm_formulation f, pkm_trip *t,
                                    pkm_assembly_info *info, pkm_ctx *ctx)
{
    if (m == NULL) return PKM_FAIL(ctx, PKM_ERR_INVALID, "assemble: no model");
    switch (f) {
    case PKM_FORM_TREE:
        return pkm_assemble_tree(m, t, info, ctx);
    case PKM_FORM_NODAL:
        return pkm_assemble_nodal(m, t, info, ctx);
    }
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "assemble: unknown formulation %d", (int)f);
}

pkm_status pkm_assemble(const pkm_model *m, pkm_formulation f, pkm_pencil **out,
                        pkm_assembly_info *info, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_trip t;
    memset(&t, 0, sizeof(t));
    pkm_status rc = pkm_assemble_formulation(m, f, &t, info, ctx);
    if (rc == PKM_OK) rc = pkm_trip_to_pencil(&t, NULL, out, ctx);
    pkm_trip_free(&t);
    return rc;
}
