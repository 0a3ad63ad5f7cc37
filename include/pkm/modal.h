/* include/pkm/modal.h: natural frequencies of the pencil K x = w^2 M x.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The sparse path is ARPACK-ng's symmetric implicitly restarted Lanczos in shift-invert mode
 * (mode 3) on (K - sigma M)^-1 M, with K - sigma M factorised by CHOLMOD (pkm/linsolve.h):
 * symbolic analysis once per pattern (pkm_modal_create), numeric factorisation per solve. The
 * dense path (LAPACK dsygvx) is a reference for tests and small models. Every returned mode is
 * checked: its backward error (see pkm_modes.backward_error), its accuracy estimate
 * (pkm_modes.accuracy), the M-orthonormality of the set, and that it is not a zero-energy
 * (mechanism) mode unless those are allowed. Every result of either path is also checked complete:
 * the number of eigenvalues below a shift just above the last returned one, counted by the inertia
 * of an LDL^T factorisation of K - tau M (Sylvester), must equal the number returned; the sparse
 * path recovers a missed one (Lanczos restarted on the M-orthogonal complement of the modes found),
 * or fails with PKM_ERR_NOCONV naming the missing count. Never a short or shifted spectrum.
 *
 * Threads: a pkm_modal object must not be used by two threads at once, and ARPACK keeps Fortran
 * SAVE state between its reverse-communication calls, so sparse solves are not reentrant: run at
 * most one pkm_modal_solve at a time per process. The library takes no lock. */
#ifndef PKM_MODAL_H
#define PKM_MODAL_H

#include <stdint.h>

#include "pkm/pencil.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_modal_opts {
    int nev; /* number of lowest modes wanted (>= 1) */
    /* Lanczos basis size, > nev + 2 and <= n; 0 = automatic (2 nev + 3, at least nev + 3 and 12).
     * nev + 2 Ritz values are computed so that a multiple eigenvalue at the end of the wanted
     * set is complete. */
    int ncv;
    /* Shift, rad^2/s^2, below the lowest eigenvalue (K - sigma M must be positive definite).
     * NaN = automatic: 0 if K is positive definite, else -1e-6 max diag K / max diag M (rigid or
     * mechanism modes). */
    double sigma;
    double tol;  /* ARPACK relative tolerance of the Ritz values; 0 = 1e-10 (see modal.c) */
    int maxiter; /* ARPACK restarts per run; 0 = 300, fewer above 20,000 coordinates (modal.c) */
    /* Acceptance test of every returned mode: its normwise backward error (pkm_modes) must not
     * exceed this; 0 = 1e-10. */
    double max_backward_error;
    /* Optional second test: the relative residual (pkm_modes) must not exceed this; 0 = not
     * checked (it measures the conditioning of fine meshes as much as the solver, see
     * docs/performance.md). */
    double max_residual;
    /* A mode whose strain energy x^T K x (x M-normalised) is within its rounding floor (see
     * pkm_modes.accuracy), i.e. not distinguishable from zero, is a zero-energy mode: a
     * mechanism mode of a singular pose, or a rigid-body mode of a free-floating structure. 0
     * (default): the solve fails with PKM_ERR_SINGULAR naming it; 1: such modes are returned. */
    int allow_zero_modes;
    /* Largest accepted accuracy estimate (pkm_modes.accuracy) of a frequency that is not a
     * zero-energy mode; above it the solve fails with PKM_ERR_ACCURACY naming the mode. 0 =
     * 1e-3: every returned frequency holds three significant digits (see solvers/modes.c). */
    double max_accuracy;
    /* The warm-started block solver (eigensolver "block", solvers/block.c): guard vectors
     * iterated beside the nev wanted ones (0 = 4), shift-invert steps between two Rayleigh-Ritz
     * projections, each followed by the convergence test (0: one before the first, then as
     * many as the slowest wanted pair is estimated to need, at most 4), and the relative residual
     * ||K x - w^2 M x|| / (||K x|| + |w^2| ||M x||) below which a Ritz pair counts as converged
     * (0 = 1e-6). */
    int block_guards;
    int block_steps;
    double block_tol;
} pkm_modal_opts;

/* Defaults: nev = 10, automatic ncv, sigma, tol and maxiter, backward error <= 1e-10, relative
 * residual not checked, zero-energy modes refused. */
pkm_modal_opts pkm_modal_opts_default(void);

/* The result of one modal solve. Plain struct; allocated by pkm_modes_create. */
typedef struct pkm_modes {
    int64_t n;       /* order of the pencil */
    int nev;         /* modes held */
    double *omega2;  /* nev eigenvalues w^2, ascending, rad^2/s^2 */
    double *freq_hz; /* nev natural frequencies sqrt(max(w^2,0)) / (2 pi), Hz */
    /* nev relative residuals ||K x - w^2 M x|| / max(||K x||, max(|w^2|, s) ||M x||) with
     * s = 1e-6 max diag K / max diag M: ||r|| / ||K x|| for an elastic mode; for a rigid mode
     * (w^2 ~ 0) ||K x|| is rounding noise and s sets the scale instead. Reported, checked only
     * if opts.max_residual > 0. */
    double *residual;
    /* nev normwise backward errors ||K x - w^2 M x|| / ((||K|| + |w^2| ||M||) ||x||) (Higham and
     * Higham 1998; Tisseur 2000, Theorem 1): the smallest relative perturbation of K and M of
     * which (w^2, x) is an exact eigenpair, with ||A|| the largest column 2-norm (a lower bound
     * of the 2-norm, so the value is an upper bound of the 2-norm backward error). The
     * acceptance test. */
    double *backward_error;
    /* nev estimates of the relative error of freq_hz that the rounding of the assembled K and M
     * and the solve can cause: (d + |x^T r|) / (2 |w^2|) with the rounding floor d = eps
     * (|x|^T |K| |x| + |w^2| |x|^T |M| |x|) of the M-normalised x and its residual r. An upper
     * bound by measurement (NaVARo, 128 to 2048 elements per link: 4.7x to 1500x the actual
     * error), growing like (L/h)^4 with the mesh: the limit of double precision, which the
     * backward error does not see. Above opts.max_accuracy the solve fails; the command line
     * flags values above 1e-6. */
    double *accuracy;
    double *vectors;   /* n x nev column-major, M-orthonormal mode shapes */
    double orth_error; /* max |X^T M X - I| over the returned modes */
    double sigma;      /* shift actually used (sparse path), rad^2/s^2 */
    int iterations;    /* ARPACK restarts used (0 for the dense path) */
    int op_count;      /* applications of (K - sigma M)^-1 M (0 for the dense path) */
    /* Leading modes below the zero-energy threshold (see pkm_modal_opts.allow_zero_modes). On
     * PKM_ERR_SINGULAR from such a mode the modes are still filled in: the first zero_modes are
     * the offending mechanism modes. */
    int zero_modes;
    /* 1 if a warm-started solver (eigensolver "block") handed this solve to ARPACK (its block
     * did not converge or the Sylvester count found a mode missing), else 0. */
    int fallback;
    /* Scratch of the acceptance checks (3 n nev doubles: the modes and their products with K
     * and M, a block at a time), owned by the modes; pkm_modes_create sets it. */
    double *check_work;
} pkm_modes;

pkm_status pkm_modes_create(int64_t n, int nev, pkm_modes **out, pkm_ctx *ctx);
void pkm_modes_destroy(pkm_modes **modes);

/* Sparse shift-invert solver bound to one sparsity pattern. */
typedef struct pkm_modal pkm_modal;

/* Symbolic analysis of the pattern of `pattern` (its values are not used). */
pkm_status pkm_modal_create(const pkm_pencil *pattern, pkm_modal **out, pkm_ctx *ctx);
void pkm_modal_destroy(pkm_modal **solver);

/* Lowest opts->nev modes of p, which must have the pattern given to pkm_modal_create.
 * out must have been created with out->n == p->n and out->nev >= opts->nev; out->nev is set to
 * opts->nev. Errors: PKM_ERR_INVALID (also a non-finite entry of K or M, named, or scales
 * beyond 1e+-100), PKM_ERR_SINGULAR (K - sigma M not positive definite even after the automatic
 * shift; or a zero-energy mode, reported with its largest coordinates and left in out, see
 * pkm_modes.zero_modes), PKM_ERR_SOLVER (ARPACK, CHOLMOD or LAPACK error, an illegal argument
 * named with its routine), PKM_ERR_NOCONV (also eigenvalues missing after the deflated runs,
 * with their count), PKM_ERR_ACCURACY (backward error, orthonormality or accuracy estimate). */
pkm_status pkm_modal_solve(pkm_modal *solver, const pkm_pencil *p, const pkm_modal_opts *opts,
                           pkm_modes *out, pkm_ctx *ctx);

/* Dense reference: the lowest opts->nev eigenpairs by LAPACK dsygvx (Cholesky reduction,
 * tridiagonalisation, bisection and inverse iteration for the wanted ones only), with the same
 * checks. Both are entries of the eigensolver table (pkm/eigensolver.h). */
pkm_status pkm_modal_solve_dense(const pkm_pencil *p, const pkm_modal_opts *opts, pkm_modes *out,
                                 pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
