/* assembly/pencil.c: the symmetric (K, M) pencil in upper-triangular CSC form.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"

#include <stdlib.h>
#include <string.h>

pkm_status pkm_pencil_alloc(int64_t n, int64_t nnz, pkm_pencil **out, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_pencil *p = calloc(1, sizeof(*p));
    if (p == NULL) goto fail;
    p->n = n;
    p->nnz = nnz;
    p->colptr = calloc((size_t)n + 1, sizeof(*p->colptr));
    p->rowind = calloc((size_t)(nnz > 0 ? nnz : 1), sizeof(*p->rowind));
    p->k = calloc((size_t)(nnz > 0 ? nnz : 1), sizeof(*p->k));
    p->m = calloc((size_t)(nnz > 0 ? nnz : 1), sizeof(*p->m));
    if (p->colptr == NULL || p->rowind == NULL || p->k == NULL || p->m == NULL) goto fail;
    *out = p;
    return PKM_OK;
fail:
    pkm_pencil_destroy(&p);
    return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a pencil of order %lld with %lld entries",
                    (long long)n, (long long)nnz);
}

void pkm_pencil_destroy(pkm_pencil **p)
{
    if (p == NULL || *p == NULL) return;
    free((*p)->colptr);
    free((*p)->rowind);
    free((*p)->k);
    free((*p)->m);
    free(*p);
    *p = NULL;
}

pkm_status pkm_pencil_from_dense(int64_t n, const double *K, const double *M, pkm_pencil **out,
                                 pkm_ctx *ctx)
{
    *out = NULL;
    if (n <= 0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "pencil order %lld must be > 0", (long long)n);
    int64_t nnz = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i <= j; i++)
            if (i == j || K[i + j * n] != 0.0 || M[i + j * n] != 0.0) nnz++;
    pkm_pencil *p = NULL;
    pkm_status rc = pkm_pencil_alloc(n, nnz, &p, ctx);
    if (rc != PKM_OK) return rc;
    int64_t k = 0;
    for (int64_t j = 0; j < n; j++) {
        p->colptr[j] = k;
        for (int64_t i = 0; i <= j; i++) {
            if (i != j && K[i + j * n] == 0.0 && M[i + j * n] == 0.0) continue;
            p->rowind[k] = i;
            p->k[k] = K[i + j * n];
            p->m[k] = M[i + j * n];
            k++;
        }
    }
    p->colptr[n] = k;
    *out = p;
    return PKM_OK;
}

void pkm_pencil_to_dense(const pkm_pencil *p, double *K, double *M)
{
    const int64_t n = p->n;
    if (K != NULL) memset(K, 0, sizeof(double) * (size_t)(n * n));
    if (M != NULL) memset(M, 0, sizeof(double) * (size_t)(n * n));
    for (int64_t j = 0; j < n; j++) {
        for (int64_t q = p->colptr[j]; q < p->colptr[j + 1]; q++) {
            int64_t i = p->rowind[q];
            if (K != NULL) K[i + j * n] = K[j + i * n] = p->k[q];
            if (M != NULL) M[i + j * n] = M[j + i * n] = p->m[q];
        }
    }
}

/* y = A x (with add, y += A x) over the upper pattern. One pass over the upper triangle: entry
 * (i, j), i < j, adds to y_i and y_j; the diagonal, the last entry of a column (rows sorted, row
 * <= column), adds once. Restrict-qualified locals let the compiler keep x_j and the column sum
 * in registers. */
static void sym_matvec(const pkm_pencil *p, const double *restrict a, const double *restrict x,
                       double *restrict y, int add)
{
    const int64_t *restrict cp = p->colptr, *restrict ri = p->rowind;
    if (!add) memset(y, 0, sizeof(double) * (size_t)p->n);
    for (int64_t j = 0; j < p->n; j++) {
        const double xj = x[j];
        int64_t end = cp[j + 1];
        double yj = 0.0;
        if (end > cp[j] && ri[end - 1] == j) {
            end--;
            yj = a[end] * xj;
        }
        for (int64_t q = cp[j]; q < end; q++) {
            const int64_t i = ri[q];
            yj += a[q] * x[i];
            y[i] += a[q] * xj;
        }
        y[j] += yj;
    }
}

void pkm_pencil_matvec(const pkm_pencil *p, char which, const double *x, double *y)
{
    sym_matvec(p, which == 'K' ? p->k : p->m, x, y, 0);
}

void pkm_pencil_matvec_add(const pkm_pencil *p, char which, const double *x, double *y)
{
    sym_matvec(p, which == 'K' ? p->k : p->m, x, y, 1);
}

/* Columns c0 .. c0 + w - 1 of y = A x (x, y interleaved, nc columns) in the upper-triangle pass
 * of pkm_pencil_matvec; w is a constant where it is inlined (1 to 4), so its loops are unrolled
 * into one vector operation. The diagonal is each column's last entry (rows sorted, row <=
 * column, every diagonal stored), so the sums are added in the same order as a test per entry
 * gave. Row j of y is stored at column j, before any later column adds to it (rows <= column):
 * y needs no clearing. */
PKM_KERNEL void block_columns(size_t c0, size_t w, const pkm_pencil *p, const double *restrict a,
                              size_t nc, const double *restrict x, double *restrict y)
{
    const int64_t *restrict cp = p->colptr, *restrict ri = p->rowind;
    for (int64_t j = 0; j < p->n; j++) {
        const double *restrict xj = x + (size_t)j * nc + c0;
        /* y_j's own sum in registers: no other column has reached row j yet (rows <= column) */
        double yj[4] = {0.0, 0.0, 0.0, 0.0};
        int64_t end = cp[j + 1];
        const int diag = end > cp[j] && ri[end - 1] == j;
        end -= diag;
        for (int64_t q = cp[j]; q < end; q++) {
            const double aq = a[q];
            const double *restrict xi = x + (size_t)ri[q] * nc + c0;
            double *restrict yi = y + (size_t)ri[q] * nc + c0;
            for (size_t c = 0; c < w; c++) {
                yj[c] += aq * xi[c];
                yi[c] += aq * xj[c];
            }
        }
        if (diag)
            for (size_t c = 0; c < w; c++)
                yj[c] += a[end] * xj[c];
        for (size_t c = 0; c < w; c++)
            y[(size_t)j * nc + c0 + c] = yj[c];
    }
}

/* The upper-triangle pass of pkm_pencil_matvec with an ncol-vector inner loop, four columns at a
 * time (the pattern, a few kB, stays in cache across the passes). */
PKM_TARGET_CLONES void pkm_pencil_matvec_block(const pkm_pencil *p, char which, int ncol,
                                               const double *x, double *y)
{
    const double *a = (which == 'K') ? p->k : p->m;
    PKM_BY_FOURS((size_t)ncol, block_columns, p, a, (size_t)ncol, x, y);
}
