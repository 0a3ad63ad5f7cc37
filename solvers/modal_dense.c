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

pkm_status pkm_modal_solve_dense(const pkm_pencil *p, const pkm_modal_opts *opts, pkm_modes *out,
                                 pkm_ctx *ctx)
{
    pkm_status rc = pkm_modal_check_args(p, opts, out, ctx);
    if (rc != PKM_OK) return rc;
    out->zero_modes = 0;
    int n = 0, lwork = 0;
    const int64_t n64 = p->n;
    /* dsygvx: lwork >= 8 n; the blocked tridiagonal reduction is faster with (nb + 3) n, and
     * nb = 32 covers the reference LAPACK's ilaenv block size (32) for dsytrd. */
    if ((rc = pkm_solvers_to_int(n64, "pencil order", &n, ctx)) != PKM_OK ||
        (rc = pkm_solvers_to_int(35 * n64, "dsygvx lwork", &lwork, ctx)) != PKM_OK)
        return rc;
    const size_t nn = (size_t)n * (size_t)n;
    const int nev = opts->nev;
    double *K = calloc(nn, sizeof(double));
    double *M = calloc(nn, sizeof(double));
    double *Z = calloc((size_t)n * (size_t)nev, sizeof(double));
    double *w = calloc((size_t)n, sizeof(double));
    double *work = calloc((size_t)lwork, sizeof(double));
    int *iwork = calloc(5 * (size_t)n, sizeof(int));
    int *ifail = calloc((size_t)n, sizeof(int));
    if (K == NULL || M == NULL || Z == NULL || w == NULL || work == NULL || iwork == NULL ||
        ifail == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a dense pencil of order %d", n);
        goto done;
    }
    pkm_pencil_to_dense(p, K, M);
    const int itype = 1, il = 1, iu = nev; /* K x = lambda M x, eigenvalues 1..nev */
    const double vl = 0.0, vu = 0.0;
    /* 2 safmin: eigenvalues to full accuracy by bisection (dsygvx documentation, ABSTOL). */
    const double abstol = 2.0 * dlamch_("S", 1);
    int found = 0, info = 0;
    dsygvx_(&itype, "V", "I", "U", &n, K, &n, M, &n, &vl, &vu, &il, &iu, &abstol, &found, w, Z, &n,
            work, &lwork, iwork, ifail, &info, 1, 1, 1);
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
    if (found != nev) {
        rc = PKM_FAIL(ctx, PKM_ERR_SOLVER, "dsygvx returned %d of %d eigenpairs", found, nev);
        goto done;
    }
    /* w is ascending and Z holds the M-orthonormal eigenvectors, column-major. */
    rc = pkm_modes_finish(p, opts, w, Z, NULL, NULL, out, ctx);
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
