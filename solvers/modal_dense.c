/* solvers/modal_dense.c: reference modal solve of the dense pencil by LAPACK dsygvd.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "solvers/solvers_impl.h"
#include "core/core_impl.h"

#include <stddef.h>
#include <stdlib.h>

/* LAPACK's Fortran symbol. The two trailing arguments are the hidden lengths of the CHARACTER
 * arguments jobz and uplo, passed by value as size_t (GNU Fortran manual, "Argument passing
 * conventions", GCC >= 8); leaving them out is undefined behaviour. */
extern void dsygvd_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
                    const int *lda, double *b, const int *ldb, double *w, double *work,
                    const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len,
                    size_t uplo_len);

pkm_status pkm_modal_solve_dense(const pkm_pencil *p, const pkm_modal_opts *opts, pkm_modes *out,
                                 pkm_ctx *ctx)
{
    pkm_status rc = pkm_modal_check_args(p, opts, out, ctx);
    if (rc != PKM_OK) return rc;
    int n = 0, lwork = 0, liwork = 0;
    const int64_t n64 = p->n;
    /* Workspace sizes for jobz = 'V' from the dsygvd documentation. */
    if ((rc = pkm_solvers_to_int(n64, "pencil order", &n, ctx)) != PKM_OK ||
        (rc = pkm_solvers_to_int(1 + 6 * n64 + 2 * n64 * n64, "dsygvd lwork", &lwork, ctx)) !=
            PKM_OK ||
        (rc = pkm_solvers_to_int(3 + 5 * n64, "dsygvd liwork", &liwork, ctx)) != PKM_OK)
        return rc;
    const size_t nn = (size_t)n * (size_t)n;
    double *K = calloc(nn, sizeof(double));
    double *M = calloc(nn, sizeof(double));
    double *w = calloc((size_t)n, sizeof(double));
    double *work = calloc((size_t)lwork, sizeof(double));
    int *iwork = calloc((size_t)liwork, sizeof(int));
    if (K == NULL || M == NULL || w == NULL || work == NULL || iwork == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a dense pencil of order %d", n);
        goto done;
    }
    pkm_pencil_to_dense(p, K, M);
    const int itype = 1; /* K x = lambda M x */
    int info = 0;
    dsygvd_(&itype, "V", "U", &n, K, &n, M, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    if (info > n) {
        rc = PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                      "dsygvd: M is not positive definite (leading minor of order %d)", info - n);
        goto done;
    }
    if (info > 0) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOCONV, "dsygvd: %d eigenvalues did not converge", info);
        goto done;
    }
    if (info < 0) {
        rc = PKM_FAIL(ctx, PKM_ERR_SOLVER, "dsygvd: argument %d is invalid", -info);
        goto done;
    }
    /* w is ascending and K now holds the M-orthonormal eigenvectors, column-major. */
    rc = pkm_modes_finish(p, opts, w, K, NULL, out, ctx);
    out->sigma = 0.0;
    out->iterations = 0;
    out->op_count = 0;
done:
    free(K);
    free(M);
    free(w);
    free(work);
    free(iwork);
    return rc;
}
