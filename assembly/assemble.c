/* assembly/assemble.c: formulation dispatch.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"
#include "pkm/assembly.h"

#include <stddef.h>

pkm_status pkm_assemble(const pkm_model *m, pkm_formulation f, pkm_pencil **out,
                        pkm_assembly_info *info, pkm_ctx *ctx)
{
    *out = NULL;
    if (m == NULL) return PKM_FAIL(ctx, PKM_ERR_INVALID, "assemble: no model");
    switch (f) {
    case PKM_FORM_TREE:
        return pkm_assemble_tree(m, out, info, ctx);
    case PKM_FORM_NODAL:
        return pkm_assemble_nodal(m, out, info, ctx);
    }
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "assemble: unknown formulation %d", (int)f);
}
