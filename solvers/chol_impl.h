/* solvers/chol_impl.h: sparse Cholesky LL^T and LDL^T on a fixed pattern, the numeric factorisation
 * and substitutions of pkm_linsolve's simplicial factors (linsolve.c). SPDX-License-Identifier:
 * LGPL-2.1-or-later */
#ifndef PKM_CHOL_IMPL_H
#define PKM_CHOL_IMPL_H

#include "pkm/status.h"

#include <stddef.h>
#include <stdint.h>

/* The factor L of A = L L^T (A given by its upper triangle, in the order to factorise), its
 * pattern fixed by the symbolic analysis: column j's rows at li[lp[j] .. lp[j + 1]), ascending,
 * the diagonal first; the transpose's lists of where row j meets earlier columns; dinv the
 * reciprocal diagonal. */
typedef struct pkm_chol {
    int64_t n, annz; /* order, entries of the upper A */
    int64_t *lp;     /* column j of L at lp[j] .. lp[j + 1] */
    int32_t *li;     /* its rows (32-bit: half the index traffic of the substitutions) */
    int64_t *rp, *rq,
        *rk;        /* row j's entries L(j, k), k < j: places rq, columns rk [rp[j], rp[j + 1]) */
    int64_t *amap;  /* per entry of the upper A: its place in lx */
    int64_t *where; /* n: a row's place in the column being factorised */
    double *lx, *dinv; /* values of L, reciprocals of its diagonal (LDL^T: of D) */
    int ldl;           /* the last factorisation was LDL^T */
} pkm_chol;

/* Symbolic analysis of the upper triangle of A (n columns, ap/ai: compressed columns, rows sorted,
 * every diagonal present, n < 2^31): the elimination tree, the pattern of L with the entries of A
 * placed in it. PKM_ERR_NOMEM or PKM_OK. */
pkm_status pkm_chol_create(int64_t n, const int64_t *ap, const int64_t *ai, pkm_chol **out,
                           pkm_ctx *ctx);
void pkm_chol_destroy(pkm_chol **c);

/* Numeric factorisation of the upper A with values ax (ap/ai of pkm_chol_create): left-looking,
 * a column at a time; LL^T, or with ldl LDL^T (unit L, D on its diagonal). Returns n, else the
 * column whose pivot is not positive (LL^T) or zero (LDL^T), or not finite: the factor is then
 * unusable. */
int64_t pkm_chol_factor(pkm_chol *c, const double *ax, int ldl);

/* D_j of an LDL^T factor. */
double pkm_chol_pivot(const pkm_chol *c, int64_t j);

/* w = A^-1 w in place (the order of A). */
void pkm_chol_solve(const pkm_chol *c, double *w);

/* The same for nc interleaved columns (entry i of column c at i nc + c): each entry of L is read
 * once for all of them. */
void pkm_chol_solve_block(const pkm_chol *c, size_t nc, double *w);

#endif
