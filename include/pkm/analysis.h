/* include/pkm/analysis.h: one pose's modal analysis, reusable across poses.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Assembles the reduced pencil of a model and solves for its lowest modes. The assembly keeps a
 * scatter map of the mechanism's topology (element entries straight into the pencil, no
 * triplets or sorting) and the CHOLMOD symbolic analysis is kept while the pattern stays (the
 * same mechanism at another pose), so a caller solving pose after pose pays only for the element
 * matrices, the numeric factorisation and the Lanczos iterations per pose. The pattern is the
 * pose's own (a symmetric pose, with exact zeros, has another), so a result depends on the pose
 * only, never on the poses solved before it. One analysis object serves one thread. */
#ifndef PKM_ANALYSIS_H
#define PKM_ANALYSIS_H

#include "pkm/assembly.h"
#include "pkm/eigensolver.h"
#include "pkm/modal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_analysis pkm_analysis;

pkm_status pkm_analysis_create(pkm_formulation form, pkm_eigensolver eig,
                               const pkm_modal_opts *opts, pkm_analysis **out, pkm_ctx *ctx);
void pkm_analysis_destroy(pkm_analysis **a);

/* Forget the eigensolver's earlier solves (pkm_eigensolver_type.forget): the next solve gives
 * what a fresh analysis would. Nothing to do for a solver without history. */
void pkm_analysis_forget(pkm_analysis *a);

/* Where the next pose lies on the walk (pkm_eigensolver_type.walk: a straight run through the
 * last `line` poses solved, or the parallelogram after a turn); the map's sweep tells it at
 * every pose. */
void pkm_analysis_walk(pkm_analysis *a, int line, int parallelogram);

/* Modes of m; *modes is owned by the analysis and valid until the next solve or destroy.
 * info (may be NULL) receives the assembly sizes. On PKM_ERR_SINGULAR from a zero-energy
 * (mechanism) mode, *modes is set too: its first zero_modes modes are the offending ones. */
pkm_status pkm_analysis_solve(pkm_analysis *a, const pkm_model *m, const pkm_modes **modes,
                              pkm_assembly_info *info, pkm_ctx *ctx);

/* From now on every solve also keeps the pose's dof map (pkm/dofmap.h; off by default; see
 * pkm_asm_cache_keep_dofmap). */
pkm_status pkm_analysis_keep_dofmap(pkm_analysis *a, pkm_ctx *ctx);

/* The dof map of the last solve's pose, or NULL (not kept, or the assembly failed). */
const pkm_dofmap *pkm_analysis_dofmap(const pkm_analysis *a);

/* Mode k (0-based, of the last solve) as nodal displacements u = P x_k: 6 per node of the model,
 * translation then rotation in global axes (the M-normalised mode, so rad and m per unit modal
 * amplitude). PKM_ERR_INVALID without a kept dof map or a solve, or for k out of range. */
pkm_status pkm_analysis_mode_displacements(const pkm_analysis *a, int k, double *u, pkm_ctx *ctx);

/* Mode k's curvature coordinates at both ends of every beam element of m (the model of the last
 * solve): kappa[elements][2][3], the
 * element's local axes (pkm/fem.h), zero where the element has none or holds them (a cubic
 * element, an end held at zero curvature: pkm_dofmap_element_curvature). Errors as
 * pkm_analysis_mode_displacements. */
pkm_status pkm_analysis_mode_curvatures(const pkm_analysis *a, const pkm_model *m, int k,
                                        double *kappa, pkm_ctx *ctx);

/* Symbolic analyses done so far (one each time the pose's pattern differs from the previous
 * pose's: a new topology, or entering or leaving a pose with exact zeros). */
int pkm_analysis_symbolic_count(const pkm_analysis *a);

#ifdef __cplusplus
}
#endif
#endif
