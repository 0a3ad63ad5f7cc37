/* solvers/solvers_impl.h: private interface shared by the sparse and dense modal solvers.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_SOLVERS_IMPL_H
#define PKM_SOLVERS_IMPL_H

#include "pkm/linsolve.h"
#include "pkm/modal.h"

/* Narrow a 64-bit count to the int used by ARPACK (a_int) and LAPACK; PKM_ERR_INVALID naming
 * `what` if it does not fit. */
pkm_status pkm_solvers_to_int(int64_t value, const char *what, int *out, pkm_ctx *ctx);

/* Argument checks common to both paths: opts valid, 1 <= nev < n, out sized for p and nev, the
 * pencil's entries finite and within the scales the eigensolvers handle (PKM_ERR_INVALID). */
pkm_status pkm_modal_check_args(const pkm_pencil *p, const pkm_modal_opts *opts,
                                const pkm_modes *out, pkm_ctx *ctx);

/* Copy the eigenpairs order[0..nev) (identity if order is NULL) of w2 and the n x * column-major
 * vecs into out, fill frequencies, then compute residuals, backward errors and accuracy
 * estimates and check them, the M-orthonormality and the zero-energy test. floor: the rounding
 * floors of w2 (pkm_modal_rounding_floor, indexed like w2) if the caller has them, else NULL.
 * colnorm: the largest column 2-norms of K and M (pkm_modal_column_norm) if the caller has them,
 * else NULL. work: 2 n doubles, or NULL to allocate. */
pkm_status pkm_modes_finish(const pkm_pencil *p, const pkm_modal_opts *opts, const double *w2,
                            const double *floor, const double *colnorm, const double *vecs,
                            const int *order, double *work, pkm_modes *out, pkm_ctx *ctx);

/* Scales of the pencil's diagonal: max diag K, max diag M and max_i K_ii / M_ii over M_ii > 0. */
typedef struct pkm_diag_scales {
    double dk, dm, ratio;
} pkm_diag_scales;

pkm_diag_scales pkm_pencil_diag_scales(const pkm_pencil *p);

/* 1e-6 of max diag K / max diag M, in rad^2/s^2: the automatic shift for a singular K and the
 * scale of a rigid mode's residual; 0 if M has no positive diagonal. */
double pkm_modal_zero_scale(const pkm_diag_scales *d);

/* Rounding floor of the eigenvalue lam of the M-normalised vector x: the change of lam that
 * perturbations of K and M of the size of their rounding can cause (see modes.c). */
double pkm_modal_rounding_floor(const pkm_pencil *p, const double *x, double lam);

/* The same for nm vectors stored interleaved (entry i of vector c at x[i ld + c], a block's
 * layout) and their eigenvalues lam: their floors, the same bits as one at a time, with each
 * entry of the pencil read once per four of them. work: 2 nm. */
void pkm_modal_rounding_floors(const pkm_pencil *p, const double *x, int ld, int nm,
                               const double *lam, double *floor, double *work);

/* Factorise K - sigma M by op (LL^T on p's pattern) with the requested shift, or with the automatic
 * one if *sigma is NaN (0, or slightly below 0 if K is singular: pkm_modal_opts.sigma); sets *sigma
 * to the shift used. PKM_ERR_SINGULAR if K - sigma M is not positive definite. */
pkm_status pkm_modal_choose_shift(pkm_linsolve *op, const pkm_pencil *p, double *sigma,
                                  pkm_ctx *ctx);

/* Number of eigenvalues of p below tau, i.e. negative pivots of D in P (K - tau M) P^T = L D L^T,
 * factorised by ldlt (a pkm_linsolve of kind PKM_LINSOLVE_LDLT on p's pattern). *tiny is set when a
 * pivot is too small for its sign to count (tau is on an eigenvalue). */
pkm_status pkm_inertia_count(pkm_linsolve *ldlt, const pkm_pencil *p, double tau, int64_t *count,
                             int *tiny, pkm_ctx *ctx);

/* Spectrum completeness. w[0..nknown): computed eigenvalues of p, ascending, of which the first
 * nret are the solver's answer and the rest extra ones it also found (e.g. ARPACK's margin Ritz
 * values); floor: their rounding floors (pkm_modal_rounding_floor) or NULL. The eigenvalues of p
 * below a shift tau in the first gap above w[nret - 1] (above a whole cluster, never inside it)
 * are counted; *missing = that count - the values of w below tau: 0 when none is missing, > 0
 * eigenvalues the solver did not find, < 0 values that are no eigenvalues. *tau_used (if not
 * NULL): the shift. Errors: PKM_ERR_SINGULAR if every shift tried meets a vanishing pivot, the
 * counter's own failures. */
pkm_status pkm_modal_check_complete(pkm_linsolve *ldlt, const pkm_pencil *p, const double *w,
                                    const double *floor, int nret, int nknown, int *missing,
                                    double *tau_used, pkm_ctx *ctx);

/* pkm_modal_solve_dense with the caller's eigenvalue counter (same pattern as p), so that a
 * sequence of solves analyses the pattern once. */
pkm_status pkm_modal_solve_dense_counted(const pkm_pencil *p, const pkm_modal_opts *opts,
                                         pkm_linsolve *ldlt, pkm_modes *out, pkm_ctx *ctx);

/* modes.c: the largest column 2-norm of the symmetric matrix with upper values a (sq: n
 * scratch), as the backward error's norm of K and M; the backward-error bound of opts. */
double pkm_modal_column_norm(const pkm_pencil *p, const double *a, double *sq);
double pkm_modal_max_backward(const pkm_modal_opts *opts);

/* The dense products of the block eigensolver (block_gemm.c), on blocks of bs columns stored
 * interleaved (n x bs row-major: entry i of column c at i bs + c). pkm_block_gram: C = A^T B
 * (bs x bs, column-major), C(j, k) = sum_i A(i, j) B(i, k). pkm_block_rotate: out = Y V for the
 * bs x bs column-major V (vt: bs x (bs rounded up to a multiple of 16) scratch); out must not
 * overlap y. */
void pkm_block_gram(int bs, int64_t n, const double *a, const double *b, double *c);
void pkm_block_rotate(int bs, int64_t n, const double *v, const double *y, double *vt, double *out);

/* The warm-started block eigensolver (block.c), an entry of the eigensolver table. */
pkm_status pkm_block_create(const pkm_pencil *pattern, void **solver, pkm_ctx *ctx);
pkm_status pkm_block_solve(void *solver, const pkm_pencil *p, const pkm_modal_opts *opts,
                           pkm_modes *out, pkm_ctx *ctx);
void pkm_block_destroy(void **solver);
void pkm_block_forget(void *solver);
void pkm_block_walk(void *solver, int line, int parallelogram);

/* LAPACK argument errors (xerbla.c): pkm_lapack_clear forgets a pending report;
 * pkm_lapack_check turns the report of an XERBLA call since then into PKM_ERR_SOLVER naming the
 * routine, the argument and `site` (the caller's call), and clears it. */
void pkm_lapack_clear(void);
pkm_status pkm_lapack_check(const char *site, pkm_ctx *ctx);

#endif
