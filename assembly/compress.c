/* assembly/compress.c: upper-triangle triplets to a sorted CSC pencil (pkm_trip_to_pencil).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

pkm_status pkm_trip_to_pencil(const pkm_trip *t, int64_t *pos_out, pkm_pencil **out, pkm_ctx *ctx)
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
    /* perm holds triplet numbers, -1 - j for the added diagonal of column j; within a column
     * the triplets keep their order, so duplicates are summed in the order they were added. */
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
            if (pos_out != NULL) pos_out[perm[q]] = lo;
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
