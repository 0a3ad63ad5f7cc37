/* tests/test_lapack.h: the Fortran LAPACK routines the dense reference solves of the tests call;
 * the trailing size_t are the hidden lengths of the character arguments.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_LAPACK_H
#define PKM_TEST_LAPACK_H

#include <stddef.h>

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

#endif
