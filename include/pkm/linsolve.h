/* include/pkm/linsolve.h: sparse Cholesky factorisation of A = cK K + cM M on a pencil's pattern.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one place that calls CHOLMOD. The symbolic analysis (fill-reducing ordering, elimination
 * tree, factor structure) is done once per pattern (pkm_linsolve_create); the numeric
 * factorisation of any combination cK K + cM M of a pencil with that pattern is redone as often
 * as wanted (pkm_linsolve_factor): the shift-invert operator K - sigma M of the eigensolver
 * (cK = 1, cM = -sigma), the Sylvester count of K - tau M (LDL^T), the effective stiffness
 * K + c M of an implicit time integrator. One object serves one thread. */
#ifndef PKM_LINSOLVE_H
#define PKM_LINSOLVE_H

#include <stdint.h>

#include "pkm/pencil.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pkm_linsolve_kind {
    /* LL^T, simplicial or supernodal as CHOLMOD chooses from the flop count of the analysis
     * (simplicial for the small, sparse pencils of a map pose; supernodal, through the BLAS,
     * once the factor fills in). */
    PKM_LINSOLVE_AUTO = 0,
    PKM_LINSOLVE_SIMPLICIAL = 1, /* simplicial LL^T, column by column */
    PKM_LINSOLVE_SUPERNODAL = 2, /* supernodal LL^T, dense blocks through the BLAS */
    /* Simplicial LDL^T without pivoting: factorises an indefinite A whenever no pivot vanishes,
     * and its D gives the inertia of A (pkm_linsolve_inertia). */
    PKM_LINSOLVE_LDLT = 3
} pkm_linsolve_kind;

typedef struct pkm_linsolve pkm_linsolve;

/* Symbolic analysis of the pattern of `pattern` (its values are not used): order >= 1, upper
 * triangle, rows sorted (PKM_ERR_INVALID otherwise). */
pkm_status pkm_linsolve_create(const pkm_pencil *pattern, pkm_linsolve_kind kind,
                               pkm_linsolve **out, pkm_ctx *ctx);
void pkm_linsolve_destroy(pkm_linsolve **ls);

/* PKM_ERR_INVALID unless p has exactly the analysed pattern. O(nnz): once per pencil, not per
 * factorisation. */
pkm_status pkm_linsolve_check_pattern(const pkm_linsolve *ls, const pkm_pencil *p, pkm_ctx *ctx);

/* Numeric factorisation of A = cK K + cM M of p (the analysed pattern). *minor = -1 when A was
 * factorised; otherwise A is not positive definite (LL^T) or has a zero pivot (LDL^T), and
 * *minor is the column where the factorisation stopped: no error and nothing recorded in ctx,
 * the caller decides (another shift, a smaller time step), and no solve is possible until a
 * factorisation succeeds. Errors: PKM_ERR_INVALID (order or entry count not the analysed ones),
 * PKM_ERR_NOMEM, PKM_ERR_SOLVER. */
pkm_status pkm_linsolve_factor(pkm_linsolve *ls, const pkm_pencil *p, double cK, double cM,
                               int64_t *minor, pkm_ctx *ctx);

/* x = A^-1 b with the last successful factorisation; b and x have the analysed order and may be
 * the same array. Errors: PKM_ERR_INVALID (no factorisation), PKM_ERR_SOLVER. */
pkm_status pkm_linsolve_solve(pkm_linsolve *ls, const double *b, double *x, pkm_ctx *ctx);

/* Keeps B = cK K + cM M of p (the analysed pattern) for pkm_linsolve_apply_add, in the factor's
 * own layout where it has one: a Newmark step's product M x then reads the vectors once for
 * each 3 columns of a node (pkm_newmark). Errors: PKM_ERR_INVALID (another pattern),
 * PKM_ERR_NOMEM. */
pkm_status pkm_linsolve_set_operator(pkm_linsolve *ls, const pkm_pencil *p, double cK, double cM,
                                     pkm_ctx *ctx);

/* y += B x with the operator of the last successful pkm_linsolve_set_operator (x, y of the
 * analysed order, distinct). */
void pkm_linsolve_apply_add(const pkm_linsolve *ls, const double *x, double *y);

/* X = A^-1 B for ncol right-hand sides stored interleaved (entry i of column c at
 * b[i * ncol + c], as pkm_pencil_matvec_block), b and x may be the same array: one pass over the
 * factor for all columns. Errors: those of pkm_linsolve_solve, PKM_ERR_NOMEM. */
pkm_status pkm_linsolve_solve_block(pkm_linsolve *ls, int ncol, const double *b, double *x,
                                    pkm_ctx *ctx);

/* Sylvester inertia of the last LDL^T factorisation P A P^T = L D L^T (kind PKM_LINSOLVE_LDLT),
 * p the pencil factorised: *negative = the negative pivots of D, the number of negative
 * eigenvalues of A; *tiny = the pivots with |D_jj| <= rtol (|cK| |K_ii| + |cM| |M_ii|) at their
 * permuted position i, whose sign rounding may decide. Errors: PKM_ERR_INVALID (another kind, or
 * no factorisation). */
pkm_status pkm_linsolve_inertia(const pkm_linsolve *ls, const pkm_pencil *p, double rtol,
                                int64_t *negative, int64_t *tiny, pkm_ctx *ctx);

/* The factor kind of the last successful factorisation (SIMPLICIAL, SUPERNODAL or LDLT; AUTO
 * before the first): which one CHOLMOD chose for PKM_LINSOLVE_AUTO. */
pkm_linsolve_kind pkm_linsolve_factor_kind(const pkm_linsolve *ls);

#ifdef __cplusplus
}
#endif
#endif
