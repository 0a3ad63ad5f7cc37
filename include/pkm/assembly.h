/* include/pkm/assembly.h: from a mechanism model to its reduced, symmetric (K, M) pencil.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_ASSEMBLY_H
#define PKM_ASSEMBLY_H

#include <stdint.h>

#include "pkm/model.h"
#include "pkm/pencil.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pkm_formulation {
    /* Germain et al. 2015, secs. 3-4: virtual tree (every joint virtually actuated, platform cut
     * free, floating-frame beam coordinates), loops closed by eliminating the last elastic
     * coordinates of each loop through the per-leg block inverse (eqs. 45-54). */
    PKM_FORM_TREE = 0,
    /* Direct finite-element assembly: nodal displacements in global axes, jointed nodes share
     * every displacement but the joint's free motions. Scales to large meshes. */
    PKM_FORM_NODAL = 1
} pkm_formulation;

typedef struct pkm_assembly_info {
    int64_t n_total;   /* coordinates before loop closure (tree: q_tot; nodal: nodal dofs) */
    int64_t n_reduced; /* independent coordinates: order of the pencil */
    int n_legs;        /* legs found (tree formulation) */
    int n_cuts;        /* loop-closure joints (tree formulation) */
} pkm_assembly_info;

/* Assemble the reduced pencil of m. info may be NULL. PKM_ERR_MODEL if the model cannot be
 * closed (e.g. a leg not connected to the ground, a loop without an element to eliminate). */
pkm_status pkm_assemble(const pkm_model *m, pkm_formulation f, pkm_pencil **out,
                        pkm_assembly_info *info, pkm_ctx *ctx);

/* Assembly cache of one mechanism's topology (its scatter map and the pencil of the last pose),
 * so that a caller assembling pose after pose skips the triplets and the sorting; the pattern is
 * always the pose's own (assembly/assembly_impl.h says why). One cache serves one thread. */
typedef struct pkm_asm_cache pkm_asm_cache;

pkm_status pkm_asm_cache_create(pkm_asm_cache **out, pkm_ctx *ctx);
void pkm_asm_cache_destroy(pkm_asm_cache **c);

/* Assemble m through the cache: *out is the cache's pencil (valid until the next call or the
 * destruction of the cache), *version the cache's pattern version, which changes whenever the
 * pattern does (a caller keeps a symbolic analysis while it stays). Same values as
 * pkm_assemble, summed in the same order. */
pkm_status pkm_assemble_cached(const pkm_model *m, pkm_formulation form, pkm_asm_cache *c,
                               const pkm_pencil **out, int64_t *version, pkm_assembly_info *info,
                               pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
