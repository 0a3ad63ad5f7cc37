/* solvers/chol_impl.h: sparse L D L^T on a fixed pattern, the numeric factorisation
 * and substitutions of pkm_linsolve's simplicial factors (linsolve.c). SPDX-License-Identifier:
 * LGPL-2.1-or-later */
#ifndef PKM_CHOL_IMPL_H
#define PKM_CHOL_IMPL_H

#include "pkm/status.h"

#include <stddef.h>
#include <stdint.h>

/* The widest panel: 3 columns, a node's dofs of a planar beam model (NaVARo's supernodes are 3
 * wide: at 16 elements per link 534 of 610 panels), half a node of a spatial one. */
#define PKM_CHOL_PANEL 3

/* A panel of L: w <= PKM_CHOL_PANEL consecutive columns with one pattern below them (a
 * fundamental supernode of Davis, sec. 4.14, cut into pieces of at most 3 columns), the unit
 * of the one-vector substitutions. Its columns and the nr rows below it, prow[r0 ..], are
 * numbered as the caller's vectors are; its values at px[v0 ..]: the unit triangle inside it,
 * row by row (L(1,0), L(2,0), L(2,1)), then each row below, its w values side by side. */
typedef struct pkm_chol_panel {
    int32_t col[PKM_CHOL_PANEL];
    int32_t w, nr, r0, v0;
} pkm_chol_panel;

/* The factor of A = L D L^T (unit L; D on L's diagonal), its pattern fixed by the symbolic
 * analysis: column j's rows at li[lp[j] .. lp[j + 1]), ascending, the diagonal first; the
 * transpose's lists of where row j meets earlier columns; the reciprocals of D; L's panels in
 * the orders of the two substitutions (fp, bp: pkm_chol_create) with their values, a copy of
 * lx's below the diagonal. A is the caller's matrix permuted, row k of A being row perm[k] of
 * the caller's: the substitutions work on the caller's vectors as they are. */
typedef struct pkm_chol {
    int64_t n;   /* order */
    int64_t *lp; /* column j of L at lp[j] .. lp[j + 1] */
    int32_t *li; /* its rows */
    int64_t *rp, *rq,
        *rk;        /* row j's entries L(j, k), k < j: places rq, columns rk [rp[j], rp[j + 1]) */
    int64_t *amap;  /* per entry of the upper A: its place in lx */
    int64_t *where; /* n: a row's place in the column being factorised */
    int64_t np;     /* panels */
    pkm_chol_panel *fp, *bp; /* np each: by height, by depth in the tree of panels */
    int32_t *prow;           /* the panels' rows below them */
    double *px;              /* the panels' values */
    int32_t *slot;           /* lp[n]: the place in px of the entry at lx[p] below the diagonal */
    int32_t *perm;           /* n: row k of A is row perm[k] of the caller's vectors */
    double *lx, *dinv;       /* values of L (D on the diagonal), reciprocals of D (dinv[perm[k]] =
                                1 / D_k) */
    int ldl;                 /* the last factorisation allowed negative pivots */
} pkm_chol;

/* Symbolic analysis of the upper triangle of A (n columns, ap/ai: compressed columns, rows sorted,
 * every diagonal present, n and nnz(L) < 2^31): the elimination tree, the pattern of L with the
 * entries of A placed in it, the panels in the substitutions' orders. A is the permuted matrix of
 * the caller, row k of A being row perm[k] of the caller's vectors (NULL: the same order).
 * PKM_ERR_NOMEM, PKM_ERR_INVALID (too large) or PKM_OK. */
pkm_status pkm_chol_create(int64_t n, const int64_t *ap, const int64_t *ai, const int64_t *perm,
                           pkm_chol **out, pkm_ctx *ctx);
void pkm_chol_destroy(pkm_chol **c);

/* The values of L zeroed, for the caller to place entry q of the upper A (ap/ai of
 * pkm_chol_create) at amap[q] before pkm_chol_factor: a caller forming A from other arrays
 * writes it there at once. */
double *pkm_chol_values(pkm_chol *c);

/* Numeric factorisation A = L D L^T of the A placed in the values (pkm_chol_values): left-looking,
 * a column at a time. Without ldl the pivots must be positive (A positive definite: the Cholesky
 * factor is L D^1/2), with ldl nonzero (no pivoting, as CHOLMOD's LDL^T). Returns n, else the
 * column whose pivot fails that test or is not finite: the factor is then unusable. */
int64_t pkm_chol_factor(pkm_chol *c, int ldl);

/* D_j. */
double pkm_chol_pivot(const pkm_chol *c, int64_t j);

/* w = A^-1 w in place, w in the caller's order (the solve of the unpermuted matrix). */
void pkm_chol_solve(const pkm_chol *c, double *w);

/* y += B x, B symmetric with the pattern of L (or part of it): its entries below the diagonal
 * where L's are in px (slot), its diagonal as the caller numbers it. */
void pkm_chol_symv_add(const pkm_chol *c, const double *vals, const double *diag, const double *x,
                       double *y);

/* The same for nc interleaved columns (entry i of column c at i nc + c): each entry of L is read
 * once for all of them. */
void pkm_chol_solve_block(const pkm_chol *c, size_t nc, double *w);

#endif
