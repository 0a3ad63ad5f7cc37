/* solvers/solvers_impl.h: private interface shared by the sparse and dense modal solvers.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_SOLVERS_IMPL_H
#define PKM_SOLVERS_IMPL_H

#include "pkm/map.h"
#include "pkm/modal.h"

/* Narrow a 64-bit count to the int used by ARPACK (a_int) and LAPACK; PKM_ERR_INVALID naming
 * `what` if it does not fit. */
pkm_status pkm_solvers_to_int(int64_t value, const char *what, int *out, pkm_ctx *ctx);

/* Argument checks common to both paths: opts valid, 1 <= nev < n, out sized for p and nev. */
pkm_status pkm_modal_check_args(const pkm_pencil *p, const pkm_modal_opts *opts,
                                const pkm_modes *out, pkm_ctx *ctx);

/* Copy the eigenpairs order[0..nev) (identity if order is NULL) of w2 and the n x * column-major
 * vecs into out, fill frequencies, then compute residuals and backward errors and check them,
 * the M-orthonormality and the zero-energy threshold. work: 2 n doubles, or NULL to allocate. */
pkm_status pkm_modes_finish(const pkm_pencil *p, const pkm_modal_opts *opts, const double *w2,
                            const double *vecs, const int *order, double *work, pkm_modes *out,
                            pkm_ctx *ctx);

/* Tracked ids equal to the frequency ranks at every OK point (-1 elsewhere), no links: the ids
 * of a sweep in progress, or of a map whose mode vectors were not kept. */
void pkm_map_track_ranks(pkm_map *map);

#endif
