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

#ifdef __cplusplus
}
#endif
#endif
