/* assembly/triplets.c: accumulation of element congruences and compression to CSC.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"

#include <stdlib.h>
#include <string.h>

void pkm_cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

pkm_status pkm_trip_init(pkm_trip *t, int64_t n, pkm_ctx *ctx)
{
    memset(t, 0, sizeof(*t));
    t->n = n;
    t->cap = 1024;
    t->row = malloc(sizeof(*t->row) * (size_t)t->cap);
    t->col = malloc(sizeof(*t->col) * (size_t)t->cap);
    t->k = malloc(sizeof(*t->k) * (size_t)t->cap);
    t->m = malloc(sizeof(*t->m) * (size_t)t->cap);
    if (t->row == NULL || t->col == NULL || t->k == NULL || t->m == NULL) {
        pkm_trip_free(t);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate assembly triplets");
    }
    return PKM_OK;
}

void pkm_trip_free(pkm_trip *t)
{
    free(t->row);
    free(t->col);
    free(t->k);
    free(t->m);
    free(t->work);
    memset(t, 0, sizeof(*t));
}

static int trip_reserve(pkm_trip *t, int64_t extra)
{
    if (t->len + extra <= t->cap) return 1;
    int64_t cap = t->cap;
    while (cap < t->len + extra)
        cap *= 2;
    int64_t *r = realloc(t->row, sizeof(*r) * (size_t)cap);
    if (r == NULL) return 0;
    t->row = r;
    int64_t *c = realloc(t->col, sizeof(*c) * (size_t)cap);
    if (c == NULL) return 0;
    t->col = c;
    double *k = realloc(t->k, sizeof(*k) * (size_t)cap);
    if (k == NULL) return 0;
    t->k = k;
    double *m = realloc(t->m, sizeof(*m) * (size_t)cap);
    if (m == NULL) return 0;
    t->m = m;
    t->cap = cap;
    return 1;
}

/* Append one entry, upper triangle (room already reserved). */
static void trip_push(pkm_trip *t, int64_t row, int64_t col, double k, double m)
{
    t->row[t->len] = (row < col) ? row : col;
    t->col[t->len] = (row < col) ? col : row;
    t->k[t->len] = k;
    t->m[t->len] = m;
    t->len++;
}

/* B = E^T A E (ncol x ncol, row-major) with AE (nrow x ncol) as scratch. */
static void congruence(int nrow, int ncol, const double *E, const double *A, double *AE, double *B)
{
    for (int i = 0; i < nrow; i++)
        for (int j = 0; j < ncol; j++) {
            double s = 0.0;
            for (int k = 0; k < nrow; k++)
                s += A[i * nrow + k] * E[k * ncol + j];
            AE[i * ncol + j] = s;
        }
    for (int i = 0; i < ncol; i++)
        for (int j = i; j < ncol; j++) {
            double s = 0.0;
            for (int k = 0; k < nrow; k++)
                s += E[k * ncol + i] * AE[k * ncol + j];
            B[i * ncol + j] = s;
        }
}

pkm_status pkm_trip_add_congruence(pkm_trip *t, int nrow, int ncol, const int64_t *idx,
                                   const double *E, const double *Ka, const double *Ma,
                                   pkm_ctx *ctx)
{
    if (ncol <= 0) return PKM_OK;
    const int64_t need = (int64_t)nrow * ncol + 2 * (int64_t)ncol * ncol;
    if (need > t->work_cap) {
        double *w = realloc(t->work, sizeof(*w) * (size_t)need);
        if (w == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate assembly scratch");
        t->work = w;
        t->work_cap = need;
    }
    double *AE = t->work, *BK = AE + (int64_t)nrow * ncol, *BM = BK + (int64_t)ncol * ncol;
    memset(BK, 0, sizeof(double) * (size_t)ncol * (size_t)ncol);
    memset(BM, 0, sizeof(double) * (size_t)ncol * (size_t)ncol);
    if (Ka != NULL) congruence(nrow, ncol, E, Ka, AE, BK);
    if (Ma != NULL) congruence(nrow, ncol, E, Ma, AE, BM);
    if (!trip_reserve(t, (int64_t)ncol * (ncol + 1) / 2))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot grow assembly triplets");
    for (int i = 0; i < ncol; i++)
        for (int j = i; j < ncol; j++) {
            double kv = BK[i * ncol + j], mv = BM[i * ncol + j];
            if (kv != 0.0 || mv != 0.0) trip_push(t, idx[i], idx[j], kv, mv);
        }
    return PKM_OK;
}

pkm_status pkm_trip_add_entry(pkm_trip *t, int64_t row, int64_t col, double k, double m,
                              pkm_ctx *ctx)
{
    if (!trip_reserve(t, 1)) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot grow assembly triplets");
    trip_push(t, row, col, k, m);
    return PKM_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

pkm_status pkm_trip_to_pencil(const pkm_trip *t, pkm_pencil **out, pkm_ctx *ctx)
{
    *out = NULL;
    const int64_t n = t->n;
    pkm_status rc = PKM_OK;
    pkm_pencil *p = NULL;
    /* Bucket by column (diagonal added to every column), then sort rows and sum duplicates. */
    int64_t *cnt = calloc((size_t)n + 1, sizeof(*cnt));
    int64_t *perm = malloc(sizeof(*perm) * (size_t)(t->len + n + 1));
    int64_t *rows = malloc(sizeof(*rows) * (size_t)(t->len + n + 1));
    if (cnt == NULL || perm == NULL || rows == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate CSC compression workspace");
        goto done;
    }
    for (int64_t q = 0; q < t->len; q++)
        cnt[t->col[q] + 1]++;
    for (int64_t j = 0; j < n; j++)
        cnt[j + 1] += 1;
    for (int64_t j = 0; j < n; j++)
        cnt[j + 1] += cnt[j];
    /* perm holds triplet numbers, -1 - j for the added diagonal of column j. */
    {
        int64_t *pos = malloc(sizeof(*pos) * (size_t)(n > 0 ? n : 1));
        if (pos == NULL) {
            rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate CSC compression workspace");
            goto done;
        }
        memcpy(pos, cnt, sizeof(*pos) * (size_t)n);
        for (int64_t j = 0; j < n; j++)
            perm[pos[j]++] = -1 - j;
        for (int64_t q = 0; q < t->len; q++)
            perm[pos[t->col[q]]++] = q;
        free(pos);
    }
    /* Count distinct rows per column. */
    int64_t nnz = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t a = cnt[j], b = cnt[j + 1], len = 0;
        for (int64_t q = a; q < b; q++)
            rows[len++] = perm[q] < 0 ? j : t->row[perm[q]];
        qsort(rows, (size_t)len, sizeof(*rows), cmp_i64);
        for (int64_t q = 0; q < len; q++)
            if (q == 0 || rows[q] != rows[q - 1]) nnz++;
    }
    rc = pkm_pencil_alloc(n, nnz, &p, ctx);
    if (rc != PKM_OK) goto done;
    int64_t k = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t a = cnt[j], b = cnt[j + 1], len = 0;
        p->colptr[j] = k;
        for (int64_t q = a; q < b; q++)
            rows[len++] = perm[q] < 0 ? j : t->row[perm[q]];
        qsort(rows, (size_t)len, sizeof(*rows), cmp_i64);
        int64_t start = k;
        for (int64_t q = 0; q < len; q++)
            if (q == 0 || rows[q] != rows[q - 1]) p->rowind[k++] = rows[q];
        /* Sum the values into their slots by binary search in this column's rows. */
        for (int64_t q = a; q < b; q++) {
            if (perm[q] < 0) continue;
            int64_t r = t->row[perm[q]], lo = start, hi = k - 1;
            while (lo < hi) {
                int64_t mid = (lo + hi) / 2;
                if (p->rowind[mid] < r)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            p->k[lo] += t->k[perm[q]];
            p->m[lo] += t->m[perm[q]];
        }
    }
    p->colptr[n] = k;
    *out = p;
    p = NULL;
done:
    pkm_pencil_destroy(&p);
    free(cnt);
    free(perm);
    free(rows);
    return rc;
}
