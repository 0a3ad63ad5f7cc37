/* include/pkm/pencil.h: the symmetric pencil (K, M) in compressed sparse column form.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * K and M share one pattern (their union), so K - sigma*M is formed entrywise and one symbolic
 * analysis serves every shift and every pose of a mechanism. Only the upper triangle is stored
 * (row <= column), rows sorted within each column, 0-based int64_t indices. */
#ifndef PKM_PENCIL_H
#define PKM_PENCIL_H

#include <stdint.h>

#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_pencil {
    int64_t n;       /* order */
    int64_t nnz;     /* stored entries (upper triangle) */
    int64_t *colptr; /* n + 1 column starts */
    int64_t *rowind; /* nnz row indices, sorted, row <= column */
    double *k;       /* nnz stiffness values, N/m, N m/rad ... (SI) */
    double *m;       /* nnz mass values, kg, kg m^2 ... (SI) */
} pkm_pencil;

/* Pencil from dense, column-major, symmetric n x n matrices (entries with |K|+|M| == 0 are not
 * stored, except the diagonal). For tests and small models. */
pkm_status pkm_pencil_from_dense(int64_t n, const double *K, const double *M, pkm_pencil **out,
                                 pkm_ctx *ctx);

/* Dense column-major copies (n*n each, caller-allocated) of K and M; either may be NULL. */
void pkm_pencil_to_dense(const pkm_pencil *p, double *K, double *M);

/* y = A x for A = K (which = 'K') or M (which = 'M'), using the symmetric upper storage; x and y
 * must not overlap. */
void pkm_pencil_matvec(const pkm_pencil *p, char which, const double *x, double *y);

/* y += A x, as pkm_pencil_matvec (a Newmark step's right-hand side, y holding its load terms). */
void pkm_pencil_matvec_add(const pkm_pencil *p, char which, const double *x, double *y);

/* Y = A X for ncol vectors at once, stored interleaved: entry i of vector c at x[i * ncol + c]
 * (row-major n x ncol), so that every stored entry of A is read once for all ncol vectors and the
 * inner loop runs over contiguous memory. x and y must not overlap. */
void pkm_pencil_matvec_block(const pkm_pencil *p, char which, int ncol, const double *x, double *y);

void pkm_pencil_destroy(pkm_pencil **p);

#ifdef __cplusplus
}
#endif
#endif
