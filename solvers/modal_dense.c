/* solvers/modal_dense.c: reference modal solve of the dense pencil by LAPACK dsygvx.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "solvers/solvers_impl.h"
#include "core/core_impl.h"

#include <stddef.h>
#include <stdlib.h>

/* LAPACK's Fortran symbols. The trailing size_t arguments are the hidden lengths of the
 * CHARACTER arguments, passed by value (GNU Fortran manual, "Argument passing conventions",
 * GCC >= 8); leaving them out is undefined behaviour. */
extern void dsygvx_(const int *itype, const char *jobz, const char *range, const char *uplo,
                    const int *n, double *a, const int *lda, double *b, const int *ldb,
                    const double *vl, const double *vu, const int *il, const int *iu,
                    const double *abstol, int *m, double *w, double *z, const int *ldz,
                    double *work, const int *lwork, int *iwork, int *ifail, int *info,
                    size_t jobz_len, size_t range_len, size_t uplo_len);
extern double dlamch_(const char *cmach, size_t cmach_len);

/* The spectrum check of the dense result: w[0..nw) and the n x nw vectors Z, of which the first
 * nev are the answer and the one beyond (if any) places the shift. dsygvx computes eigenvalues
 * il..iu by bisection on the Sturm sequence, so a missing one means a failure elsewhere; the
 * check makes the reference as accountable as the sparse path. floor: nw scratch. */
static pkm_status check_dense(const pkm_pencil *p, pkm_linsolve *ldlt, const double *w,
                              const double *Z, int nev, int nw, double *floor, pkm_ctx *ctx)
{
    for (int j = 0; j < nw; j++)
        floor[j] = pkm_modal_rounding_floor(p, Z + (size_t)j * (size_t)p->n, w[j]);
    int missing = 0;
    double tau = 0.0;
    pkm_status rc = pkm_modal_check_complete(ldlt, p, w, floor, nev, nw, &missing, &tau, ctx);
    if (rc != PKM_OK || missing == 0) return rc;
    return PKM_FAIL(ctx, PKM_ERR_SOLVER,
                    "dsygvx: the Sylvester count of K - tau M (tau = %.6g) differs from the %d "
                    "eigenvalues found below it by %d",
                    tau, nev, missing);
}

pkm_status pkm_modal_solve_dense(const pkm_pencil *p, const pkm_modal_opts *opts, pkm_modes *out,
                                 pkm_ctx *ctx)
{
    pkm_status rc = pkm_modal_check_args(p, opts, out, ctx);
    if (rc != PKM_OK) return rc;
    pkm_linsolve *ldlt = NULL;
    rc = pkm_linsolve_create(p, PKM_LINSOLVE_LDLT, &ldlt, ctx);
    if (rc == PKM_OK) rc = pkm_modal_solve_dense_counted(p, opts, ldlt, out, ctx);
    pkm_linsolve_destroy(&ldlt);
    return rc;
}

pkm_status pkm_modal_solve_dense_counted(const pkm_pencil *p, const pkm_modal_opts *opts,
                                         pkm_linsolve *ldlt, pkm_modes *out, pkm_ctx *ctx)
{
    pkm_status rc = pkm_modal_check_args(p, opts, out, ctx);
    if (rc != PKM_OK) return rc;
    out->zero_modes = 0;
    pkm_lapack_clear();
    int n = 0, lwork = 0;
    const int64_t n64 = p->n;
    /* dsygvx: lwork >= 8 n; the blocked tridiagonal reduction is faster with (nb + 3) n, and
     * nb = 32 covers the reference LAPACK's ilaenv block size (32) for dsytrd. */
    if ((rc = pkm_solvers_to_int(n64, "pencil order", &n, ctx)) != PKM_OK ||
        (rc = pkm_solvers_to_int(35 * n64, "dsygvx lwork", &lwork, ctx)) != PKM_OK)
        return rc;
    const size_t nn = (size_t)n * (size_t)n;
    const int nev = opts->nev;
    /* One eigenpair beyond the answer (nev < n) places the shift of the spectrum check. */
    const int nw = nev + 1;
    double *K = calloc(nn, sizeof(double));
    double *M = calloc(nn, sizeof(double));
    double *Z = calloc((size_t)n * (size_t)nw, sizeof(double));
    double *w = calloc((size_t)n + (size_t)nw, sizeof(double)); /* n values, then nw floors */
    double *work = calloc((size_t)lwork, sizeof(double));
    int *iwork = calloc(5 * (size_t)n, sizeof(int));
    int *ifail = calloc((size_t)n, sizeof(int));
    if (K == NULL || M == NULL || Z == NULL || w == NULL || work == NULL || iwork == NULL ||
        ifail == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a dense pencil of order %d", n);
        goto done;
    }
    pkm_pencil_to_dense(p, K, M);
    const int itype = 1, il = 1, iu = nw; /* K x = lambda M x, eigenvalues 1..nev + 1 */
    const double vl = 0.0, vu = 0.0;
    /* 2 safmin: eigenvalues to full accuracy by bisection (dsygvx documentation, ABSTOL). */
    const double abstol = 2.0 * dlamch_("S", 1);
    int found = 0, info = 0;
    dsygvx_(&itype, "V", "I", "U", &n, K, &n, M, &n, &vl, &vu, &il, &iu, &abstol, &found, w, Z, &n,
            work, &lwork, iwork, ifail, &info, 1, 1, 1);
    if ((rc = pkm_lapack_check("dsygvx", ctx)) != PKM_OK) goto done;
    if (info > n) {
        rc = PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                      "dsygvx: M is not positive definite (leading minor of order %d)", info - n);
        goto done;
    }
    if (info > 0) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOCONV, "dsygvx: %d eigenvectors did not converge", info);
        goto done;
    }
    if (info < 0) {
        rc = PKM_FAIL(ctx, PKM_ERR_SOLVER, "dsygvx: argument %d is invalid", -info);
        goto done;
    }
    if (found != nw) {
        rc = PKM_FAIL(ctx, PKM_ERR_SOLVER, "dsygvx returned %d of %d eigenpairs", found, nw);
        goto done;
    }
    /* w is ascending and Z holds the M-orthonormal eigenvectors, column-major. */
    rc = check_dense(p, ldlt, w, Z, nev, nw, w + n, ctx);
    if (rc != PKM_OK) goto done;
    rc = pkm_modes_finish(p, opts, w, w + n, NULL, Z, NULL, NULL, out, ctx);
    out->sigma = 0.0;
    out->iterations = 0;
    out->op_count = 0;
done:
    free(K);
    free(M);
    free(Z);
    free(w);
    free(work);
    free(iwork);
    free(ifail);
    return rc;
}
