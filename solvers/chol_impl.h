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
 * of the factorisation and of the substitutions. Its columns and the nr rows below it, prow[r0
 * ..], are numbered as the caller's vectors are; its values at vx[v0 ..]: the unit triangle
 * inside it, row by row (L(1,0), L(2,0), L(2,1)), then each row below, its w values side by
 * side. */
typedef struct pkm_chol_panel {
    int32_t col[PKM_CHOL_PANEL];
    int32_t w, nr, r0, v0;
} pkm_chol_panel;

/* The factor of A = L D L^T (unit L), its pattern fixed by the symbolic analysis: L's panels in
 * column order (the factorisation's) and in the orders of the two substitutions (fp, bp:
 * pkm_chol_create); for each panel the earlier panels that update it; the values, L's below the
 * diagonal then D, and the reciprocals of D. A is the caller's matrix permuted, row k of A being
 * row perm[k] of the caller's: the substitutions work on the caller's vectors as they are, and
 * D and its reciprocals are stored in the caller's order. */
typedef struct pkm_chol {
    int64_t n;                       /* order */
    int64_t below;                   /* entries of L below the diagonal */
    int64_t np;                      /* panels */
    pkm_chol_panel *panel, *fp, *bp; /* np each: in column order, by height, by depth */
    int32_t *first;                  /* np + 1: panel p's columns of A are first[p] .. first[p+1] */
    int32_t *prow;                   /* the panels' rows below them */
    int64_t *up;                     /* np + 1: panel p's updates at [up[p], up[p + 1]) */
    int32_t *usrc, *urow;            /* per update: the source panel, its first row in the target */
    int32_t *where;                  /* n: a row's place in the panel being factorised */
    int64_t *amap;                   /* per entry of the upper A: its place in vx */
    int32_t *perm;                   /* n: row k of A is row perm[k] of the caller's vectors */
    double *vx;   /* below + n: L below the diagonal (panels), then D (caller's order) */
    double *dinv; /* n: 1 / D (caller's order) */
    int ldl;      /* the last factorisation allowed negative pivots */
} pkm_chol;

/* Symbolic analysis of the upper triangle of A (n columns, ap/ai: compressed columns, rows sorted,
 * every diagonal present, n and nnz(L) < 2^31): the elimination tree, the pattern of L, its
 * panels and their updates, the places of A's entries. A is the permuted matrix of the caller,
 * row k of A being row perm[k] of the caller's vectors (NULL: the same order). PKM_ERR_NOMEM,
 * PKM_ERR_INVALID (too large) or PKM_OK. */
pkm_status pkm_chol_create(int64_t n, const int64_t *ap, const int64_t *ai, const int64_t *perm,
                           pkm_chol **out, pkm_ctx *ctx);
void pkm_chol_destroy(pkm_chol **c);

/* The values zeroed (below + n of them), for the caller to place entry q of the upper A (ap/ai
 * of pkm_chol_create) at amap[q] before pkm_chol_factor: a caller forming A from other arrays
 * writes it there at once. */
double *pkm_chol_values(pkm_chol *c);

/* Numeric factorisation A = L D L^T of the A placed in the values (pkm_chol_values): left-looking,
 * a panel at a time. Without ldl the pivots must be positive (A positive definite: the Cholesky
 * factor is L D^1/2), with ldl nonzero (no pivoting, as CHOLMOD's LDL^T). Returns n, else the
 * column of A whose pivot fails that test or is not finite: the factor is then unusable. */
int64_t pkm_chol_factor(pkm_chol *c, int ldl);

/* D_j, j numbering A's columns. */
double pkm_chol_pivot(const pkm_chol *c, int64_t j);

/* w = A^-1 w in place, w in the caller's order (the solve of the unpermuted matrix). */
void pkm_chol_solve(const pkm_chol *c, double *w);

/* The same for nc interleaved columns (entry i of column c at i nc + c): each entry of L is read
 * once for all of them. */
void pkm_chol_solve_block(const pkm_chol *c, size_t nc, double *w);

/* y += B x, B symmetric with the pattern of L (or part of it), its values in the layout of the
 * factor's (vals: below + n, as pkm_chol_values), x and y in the caller's order. */
void pkm_chol_symv_add(const pkm_chol *c, const double *vals, const double *x, double *y);

/* The panel kernels (PKM_KERNEL) take the width as a constant (PKM_CHOL_WIDTHS): inlined with it,
 * each width is a kernel of its own, its loops over the panel's columns unrolled ('#pragma GCC
 * unroll 3' before each: GCC's -O2 does not unroll them by itself, and clang reads the pragma too)
 * and its unknowns in registers (else they went through the stack: substitutions 14 against 6.4 us
 * at NaVARo's 1710 dofs). */
#define PKM_CHOL_WIDTHS(call, pn, ...)                                                             \
    do {                                                                                           \
        if ((pn)->w == 3)                                                                          \
            call(pn, 3, __VA_ARGS__);                                                              \
        else if ((pn)->w == 2)                                                                     \
            call(pn, 2, __VA_ARGS__);                                                              \
        else                                                                                       \
            call(pn, 1, __VA_ARGS__);                                                              \
    } while (0)

#endif
