/* tests/test_lapack.h: the Fortran LAPACK routines the dense reference solves of the tests call;
 * the trailing size_t are the hidden lengths of the character arguments.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_LAPACK_H
#define PKM_TEST_LAPACK_H

#include "test_util.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                   double *w, double *work, const int *lwork, int *info, size_t ljobz,
                   size_t luplo);
extern void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
                   const int *lda, double *b, const int *ldb, double *w, double *work,
                   const int *lwork, int *info, size_t ljobz, size_t luplo);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info,
                    size_t luplo);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info, size_t luplo);

/* All n eigenvalues w (ascending) of the symmetric n x n matrix a (full storage, row- or
 * column-major alike), by dsyev on a copy. */
static inline void dense_sym_eigs(int n, const double *a, double *w)
{
    const int lwork = 8 * n;
    double *buf = malloc(sizeof(double) * (size_t)(n * n)),
           *work = malloc(sizeof(double) * (size_t)lwork);
    assert_true(buf != NULL && work != NULL);
    memcpy(buf, a, sizeof(double) * (size_t)(n * n));
    int info = -1;
    dsyev_("N", "U", &n, buf, &n, w, work, &lwork, &info, 1, 1);
    assert_int_equal(info, 0);
    free(buf);
    free(work);
}

/* All n eigenvalues w (ascending) of the symmetric definite pencil (K, M), n x n full storage
 * (symmetric, so row- or column-major alike), by dsygv; K and M are overwritten. */
static inline void dense_pencil_eigs(int n, double *K, double *M, double *w)
{
    const int itype = 1, lwork = 8 * n;
    double *work = malloc(sizeof(double) * (size_t)lwork);
    assert_non_null(work);
    int info = -1;
    dsygv_(&itype, "N", "U", &n, K, &n, M, &n, w, work, &lwork, &info, 1, 1);
    assert_int_equal(info, 0);
    free(work);
}

#endif
