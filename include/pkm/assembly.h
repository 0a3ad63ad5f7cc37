/* include/pkm/assembly.h: from a mechanism model to its reduced, symmetric (K, M) pencil.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_ASSEMBLY_H
#define PKM_ASSEMBLY_H

#include <stdint.h>

#include "pkm/dofmap.h"
#include "pkm/model.h"
#include "pkm/pencil.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Index of an entry of pkm_formulation_types (stored in maps, cases and options). */
typedef enum pkm_formulation {
    /* Germain et al. 2015, secs. 3-4: virtual tree (every joint virtually actuated, platform cut
     * free, floating-frame beam coordinates), loops closed by eliminating the last elastic
     * coordinates of each loop through the per-leg block inverse (eqs. 45-54). */
    PKM_FORM_TREE = 0,
    /* Direct finite-element assembly: nodal displacements in global axes, jointed nodes share
     * every displacement but the joint's free motions. Scales to large meshes. */
    PKM_FORM_NODAL = 1
} pkm_formulation;

#define PKM_FORMULATION_COUNT 2

typedef struct pkm_assembly_info pkm_assembly_info;
struct pkm_trip; /* assembly/assembly_impl.h: the triplets or the cached pencil being filled */

/* The formulations as a type table (the GSL pattern, as pkm/eigensolver.h): the command line's
 * --formulation, the map file's `formulation` attribute and their help texts read it; a new
 * formulation is one more entry and one more enum value. */
typedef struct pkm_formulation_type {
    pkm_formulation id; /* its index in the table */
    const char *name;   /* lower-case identifier: "tree", "nodal" */
    const char *description;
    /* Assemble m: pkm_trip_begin with the order, then one congruence per element and rigid
     * body; also the dof map of the pose when the trip carries one (pkm/dofmap.h): the same
     * function builds both, so the map is the one the matrices were projected with. */
    pkm_status (*assemble)(const pkm_model *m, struct pkm_trip *trip, pkm_assembly_info *info,
                           pkm_ctx *ctx);
} pkm_formulation_type;

/* The table, indexed by pkm_formulation. */
extern const pkm_formulation_type pkm_formulation_types[PKM_FORMULATION_COUNT];

/* The entry of f, or NULL if f is not a table index. */
const pkm_formulation_type *pkm_formulation_type_of(pkm_formulation f);

/* The entry named `name`, or NULL. */
const pkm_formulation_type *pkm_formulation_type_find(const char *name);

struct pkm_assembly_info {
    int64_t n_total;   /* coordinates before loop closure (tree: q_tot; nodal: nodal dofs) */
    int64_t n_reduced; /* independent coordinates: order of the pencil */
    int n_legs;        /* legs found (tree formulation) */
    int n_cuts;        /* loop-closure joints (tree formulation) */
};

/* Assemble the reduced pencil of m. info may be NULL. PKM_ERR_MODEL if the model cannot be
 * closed (e.g. a leg not connected to the ground, a loop without an element to eliminate). */
pkm_status pkm_assemble(const pkm_model *m, pkm_formulation f, pkm_pencil **out,
                        pkm_assembly_info *info, pkm_ctx *ctx);

/* The dof map of m at its pose in formulation f (pkm/dofmap.h), on its own (the formulation
 * runs once, its matrices dropped); a driver solving pose after pose keeps it in its assembly
 * cache instead (pkm_asm_cache_keep_dofmap). */
pkm_status pkm_dofmap_create(const pkm_model *m, pkm_formulation f, pkm_dofmap **out, pkm_ctx *ctx);

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

/* From now on, every assembly through c keeps the pose's dof map for the caller to read (both
 * formulations fill one at every assembly, to project their elements; off by default, it is
 * then the cache's scratch and may be refilled in place by the next assembly). */
pkm_status pkm_asm_cache_keep_dofmap(pkm_asm_cache *c, pkm_ctx *ctx);

/* The dof map of the last assembly through c, or NULL if not kept or none done yet. */
const pkm_dofmap *pkm_asm_cache_dofmap(const pkm_asm_cache *c);

#ifdef __cplusplus
}
#endif
#endif
