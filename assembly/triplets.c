/* assembly/triplets.c: accumulation of element congruences and projected blocks, and the cached
 * scatter map that skips both at the next pose of the same mechanism.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Grow *p (elements of size elem, *cap held) to hold need; 0 if out of memory. */
static int grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap) return 1;
    int64_t c = *cap > 0 ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, elem * (size_t)c);
    if (q == NULL) return 0;
    *p = q;
    *cap = c;
    return 1;
}

static void record_free(pkm_trip_record *r)
{
    free(r->calls);
    free(r->idx);
    free(r->mask);
    free(r->pos);
    free(r->st);
    memset(r, 0, sizeof(*r));
}

pkm_status pkm_trip_begin(pkm_trip *t, int64_t n, pkm_ctx *ctx)
{
    t->n = n;
    t->len = 0;
    t->call = 0;
    if (t->scatter) {
        pkm_pencil *p = t->cache->pencil;
        if (p->n != n) {
            t->miss = 1;
            return PKM_OK;
        }
        memset(p->k, 0, sizeof(double) * (size_t)p->nnz);
        memset(p->m, 0, sizeof(double) * (size_t)p->nnz);
        return PKM_OK;
    }
    if (t->cap == 0) {
        t->cap = 1024;
        t->row = malloc(sizeof(*t->row) * (size_t)t->cap);
        t->col = malloc(sizeof(*t->col) * (size_t)t->cap);
        t->k = malloc(sizeof(*t->k) * (size_t)t->cap);
        t->m = malloc(sizeof(*t->m) * (size_t)t->cap);
        if (t->row == NULL || t->col == NULL || t->k == NULL || t->m == NULL)
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
    free(t->iwork);
    free(t->fwork);
    record_free(&t->rec);
    memset(t, 0, sizeof(*t));
}

double *pkm_trip_scratch(pkm_trip *t, int64_t n)
{
    return grow((void **)&t->fwork, &t->fwork_cap, n > 0 ? n : 1, sizeof(double)) ? t->fwork : NULL;
}

pkm_status pkm_trip_memo(pkm_trip *t, int64_t n, double **out, pkm_ctx *ctx)
{
    pkm_asm_cache *c = t->cache;
    *out = NULL;
    if (c == NULL) return PKM_OK;
    const int64_t old = c->memo_cap;
    if (!grow((void **)&c->memo, &c->memo_cap, n > 0 ? n : 1, sizeof(double)))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the assembly's memo of %lld values",
                        (long long)n);
    for (int64_t i = old; i < c->memo_cap; i++)
        c->memo[i] = NAN;
    *out = c->memo;
    return PKM_OK;
}

int pkm_trip_ram_fits(pkm_trip *t, double need)
{
    if (t->cache != NULL && need <= t->cache->ram_ok) return 1;
    if (need > pkm_memory_bytes()) return 0;
    if (t->cache != NULL) t->cache->ram_ok = need;
    return 1;
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

/* The record of call t->call in the cache, if it has the same shape and coordinates. */
static const pkm_trip_call *cached_call(const pkm_trip *t, int nrow, int ncol, const int64_t *idx)
{
    if (t->cache == NULL || t->cache->pencil == NULL) return NULL;
    const pkm_trip_record *r = &t->cache->rec;
    if (t->call >= r->ncalls) return NULL;
    const pkm_trip_call *c = &r->calls[t->call];
    if (c->nrow != nrow || c->ncol != ncol ||
        memcmp(r->idx + c->idx_off, idx, sizeof(int64_t) * (size_t)ncol) != 0)
        return NULL;
    return c;
}

/* Whether the nonzero flags of A (nrow x nrow, NULL = zero) equal mask; with set, write them.
 * Branch-free: the compare runs at every call of every pose of a map. */
PKM_TARGET_CLONES static int mask_block(unsigned char *mask, int set, int64_t len, const double *A)
{
    if (set) {
        for (int64_t q = 0; q < len; q++)
            mask[q] = A != NULL && A[q] != 0.0;
        return 1;
    }
    /* In 64-bit lanes, so that it vectorises: the flag widened, compared with A[q] != 0. */
    uint64_t diff = 0;
    if (A == NULL)
        for (int64_t q = 0; q < len; q++)
            diff |= mask[q];
    else
        for (int64_t q = 0; q < len; q++)
            diff |= (uint64_t)mask[q] ^ (uint64_t)(A[q] != 0.0);
    return diff == 0;
}

/* Whether the zero structure of (E, Ka, Ma) equals the record's mask; with set, write it. */
static int mask_call(unsigned char *mask, int set, int nrow, int ncol, const double *E,
                     const double *Ka, const double *Ma)
{
    const int64_t ne = (int64_t)nrow * ncol, na = (int64_t)nrow * nrow;
    return mask_block(mask, set, ne, E) && mask_block(mask + ne, set, na, Ka) &&
           mask_block(mask + ne + na, set, na, Ma);
}

/* Append the call's record to t->rec: the zero structure of E, Ka, Ma, what follows from it
 * (the nk kept columns ec, the live rows of Ka and Ma) and room for the entries of its kept
 * block. */
static int record_call(pkm_trip *t, int ncol, const int64_t *idx, const pkm_ecols *ec,
                       const unsigned char *live_k, const unsigned char *live_m, const double *E,
                       const double *Ka, const double *Ma)
{
    pkm_trip_record *r = &t->rec;
    const int nrow = ec->nrow, nk = ec->nk;
    const int64_t ne = (int64_t)nk * (nk + 1) / 2;
    const int64_t nm = (int64_t)nrow * (ncol + 2 * (int64_t)nrow);
    const int64_t ns = 2 * (int64_t)nk + (int64_t)nk * nrow + 2 * (int64_t)nrow;
    if (!grow((void **)&r->calls, &r->calls_cap, r->ncalls + 1, sizeof(*r->calls)) ||
        !grow((void **)&r->idx, &r->idx_cap, r->idx_len + ncol, sizeof(*r->idx)) ||
        !grow((void **)&r->mask, &r->mask_cap, r->mask_len + nm, sizeof(*r->mask)) ||
        !grow((void **)&r->pos, &r->pos_cap, r->pos_len + ne, sizeof(*r->pos)) ||
        !grow((void **)&r->st, &r->st_cap, r->st_len + ns, sizeof(*r->st)))
        return 0;
    pkm_trip_call *c = &r->calls[r->ncalls++];
    c->nrow = nrow;
    c->ncol = ncol;
    c->nk = nk;
    c->idx_off = r->idx_len;
    c->mask_off = r->mask_len;
    c->pos_off = r->pos_len;
    c->st_off = r->st_len;
    memcpy(r->idx + r->idx_len, idx, sizeof(int64_t) * (size_t)ncol);
    mask_call(r->mask + r->mask_len, 1, nrow, ncol, E, Ka, Ma);
    int *st = r->st + r->st_len;
    for (int q = 0; q < nk; q++) {
        st[q] = ec->keep[q];
        st[nk + q] = ec->cnt[q];
        for (int k = 0; k < ec->cnt[q]; k++)
            st[2 * nk + q * nrow + k] = ec->rows[q * nrow + k];
    }
    for (int k = 0; k < nrow; k++) {
        st[2 * nk + nk * nrow + k] = live_k[k];
        st[2 * nk + nk * nrow + nrow + k] = live_m[k];
    }
    r->idx_len += ncol;
    r->mask_len += nm;
    r->pos_len += ne;
    r->st_len += ns;
    return 1;
}

/* The kept columns of E (nrow x ncol) into keep and their nonzeros into cnt, rows, vals. */
static pkm_ecols kept_columns(int nrow, int ncol, const double *E, int *keep, int *cnt, int *rows,
                              double *vals)
{
    int nk = 0;
    for (int c = 0; c < ncol; c++) {
        int nz = 0;
        for (int r = 0; r < nrow && !nz; r++)
            nz = E[r * ncol + c] != 0.0;
        if (nz) keep[nk++] = c;
    }
    for (int q = 0; q < nk; q++) {
        cnt[q] = 0;
        for (int r = 0; r < nrow; r++) {
            const double v = E[r * ncol + keep[q]];
            if (v == 0.0) continue;
            rows[q * nrow + cnt[q]] = r;
            vals[q * nrow + cnt[q]] = v;
            cnt[q]++;
        }
    }
    const pkm_ecols ec = {nrow, nk, keep, cnt, rows, vals};
    return ec;
}

/* The same from a recorded call whose zeros E has (the values gathered), with the live rows of
 * Ka and Ma into live. */
static pkm_ecols recorded_columns(const pkm_trip_record *r, const pkm_trip_call *c, int ncol,
                                  const double *E, double *vals,
                                  unsigned char live[2][PKM_TRIP_MAX_ROWS])
{
    const int nrow = c->nrow, nk = c->nk;
    const int *st = r->st + c->st_off, *keep = st, *cnt = st + nk, *rows = st + 2 * nk;
    const int *lv = rows + (size_t)nk * (size_t)nrow; /* live rows of Ka, then of Ma */
    for (int q = 0; q < nk; q++)
        for (int k = 0; k < cnt[q]; k++)
            vals[q * nrow + k] = E[rows[q * nrow + k] * ncol + keep[q]];
    for (int k = 0; k < nrow; k++) {
        live[0][k] = (unsigned char)lv[k];
        live[1][k] = (unsigned char)lv[nrow + k];
    }
    const pkm_ecols ec = {nrow, nk, keep, cnt, rows, vals};
    return ec;
}

pkm_status pkm_trip_add_congruence(pkm_trip *t, int nrow, int ncol, const int64_t *idx,
                                   const double *E, const double *Ka, const double *Ma,
                                   pkm_ctx *ctx)
{
    if (ncol <= 0 || t->miss) return PKM_OK;
    const pkm_trip_call *old = cached_call(t, nrow, ncol, idx);
    if (t->scatter && old == NULL) {
        t->miss = 1;
        return PKM_OK;
    }
    if (nrow > PKM_TRIP_MAX_ROWS)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "congruence of %d rows (at most %d)", nrow,
                        PKM_TRIP_MAX_ROWS);
    /* Scratch: doubles Ec, vals, AE, vals of the live rows (nrow ncol each), BK, BM (ncol^2),
     * column maxima (ncol); ints keep, cnt, cnt of the live rows (ncol each), rows, rows of the
     * live rows (nrow ncol each). */
    const int64_t nd = 4 * (int64_t)nrow * ncol + 2 * (int64_t)ncol * ncol + ncol;
    const int64_t ni = 3 * (int64_t)ncol + 2 * (int64_t)nrow * ncol;
    if (!grow((void **)&t->work, &t->work_cap, nd, sizeof(double)) ||
        !grow((void **)&t->iwork, &t->iwork_cap, ni, sizeof(int)))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate assembly scratch");
    int *keep = t->iwork, *cnt = keep + ncol, *rows = cnt + ncol;
    int *lcnt = rows + (int64_t)nrow * ncol, *lrows = lcnt + ncol;
    double *Ec = t->work, *vals = Ec + (int64_t)nrow * ncol, *AE = vals + (int64_t)nrow * ncol;
    double *lvals = AE + (int64_t)nrow * ncol;
    double *BK = lvals + (int64_t)nrow * ncol, *BM = BK + (int64_t)ncol * ncol,
           *big = BM + (int64_t)ncol * ncol;
    pkm_congruence_clean(nrow, ncol, E, Ec, big);
    E = Ec;
    unsigned char live[2][PKM_TRIP_MAX_ROWS];
    pkm_ecols ec;
    if (t->scatter) {
        if (!mask_call(t->cache->rec.mask + old->mask_off, 0, nrow, ncol, E, Ka, Ma)) {
            t->miss = 1; /* another zero structure, e.g. at a symmetric pose: record again */
            return PKM_OK;
        }
        /* The same zeros: the kept columns, their rows and the live rows are the record's
         * (finding them again was a fifth of a NaVARo tree pose's congruence work). */
        ec = recorded_columns(&t->cache->rec, old, ncol, E, vals, live);
    } else {
        ec = kept_columns(nrow, ncol, E, keep, cnt, rows, vals);
    }
    const int nk = ec.nk;
    if (Ka != NULL)
        pkm_congruence_project(&ec, Ka, live[0], t->scatter, AE, BK, lcnt, lrows, lvals);
    else
        memset(BK, 0, sizeof(double) * (size_t)nk * (size_t)nk);
    if (Ma != NULL)
        pkm_congruence_project(&ec, Ma, live[1], t->scatter, AE, BM, lcnt, lrows, lvals);
    else
        memset(BM, 0, sizeof(double) * (size_t)nk * (size_t)nk);
    if (Ka == NULL) memset(live[0], 0, sizeof(live[0]));
    if (Ma == NULL) memset(live[1], 0, sizeof(live[1]));
    if (t->scatter) {
        const int64_t *opos = t->cache->rec.pos + old->pos_off;
        pkm_pencil *p = t->cache->pencil;
        int64_t e = 0;
        for (int a = 0; a < nk; a++)
            for (int b = a; b < nk; b++, e++)
                if (opos[e] >= 0) {
                    p->k[opos[e]] += BK[a * nk + b];
                    p->m[opos[e]] += BM[a * nk + b];
                }
        t->call++;
        return PKM_OK;
    }
    if (t->cache != NULL && !record_call(t, ncol, idx, &ec, live[0], live[1], E, Ka, Ma))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot grow the assembly record");
    if (!trip_reserve(t, (int64_t)nk * (nk + 1) / 2))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot grow assembly triplets");
    int64_t *pos = t->cache != NULL ? t->rec.pos + t->rec.calls[t->rec.ncalls - 1].pos_off : NULL;
    int64_t e = 0;
    for (int a = 0; a < nk; a++)
        for (int b = a; b < nk; b++, e++) {
            const int in = pkm_congruence_structural(&ec, Ka, Ma, a, b);
            if (pos != NULL) pos[e] = in ? t->len : -1;
            if (in) trip_push(t, idx[ec.keep[a]], idx[ec.keep[b]], BK[a * nk + b], BM[a * nk + b]);
        }
    t->call++;
    return PKM_OK;
}

/* Record a dense block call (nrow 0): its coordinates, and per upper entry, row by row, whether
 * K or M holds a nonzero there (its mask) and room for its position. */
static int record_block(pkm_trip *t, int ncol, const int64_t *idx, const unsigned char *nz)
{
    pkm_trip_record *r = &t->rec;
    const int64_t ne = (int64_t)ncol * (ncol + 1) / 2;
    if (!grow((void **)&r->calls, &r->calls_cap, r->ncalls + 1, sizeof(*r->calls)) ||
        !grow((void **)&r->idx, &r->idx_cap, r->idx_len + ncol, sizeof(*r->idx)) ||
        !grow((void **)&r->mask, &r->mask_cap, r->mask_len + ne, sizeof(*r->mask)) ||
        !grow((void **)&r->pos, &r->pos_cap, r->pos_len + ne, sizeof(*r->pos)))
        return 0;
    pkm_trip_call *c = &r->calls[r->ncalls++];
    memset(c, 0, sizeof(*c));
    c->ncol = c->nk = ncol;
    c->idx_off = r->idx_len;
    c->mask_off = r->mask_len;
    c->pos_off = r->pos_len;
    c->st_off = r->st_len;
    memcpy(r->idx + r->idx_len, idx, sizeof(int64_t) * (size_t)ncol);
    memcpy(r->mask + r->mask_len, nz, (size_t)ne);
    r->idx_len += ncol;
    r->mask_len += ne;
    r->pos_len += ne;
    return 1;
}

/* The nonzero flags of the upper triangle of K or M (ncol x ncol, row-major; NULL: zero), row
 * by row, into nz. */
static void block_mask(int ncol, const double *K, const double *M, unsigned char *nz)
{
    int64_t e = 0;
    for (int a = 0; a < ncol; a++)
        for (int b = a; b < ncol; b++, e++) {
            const int64_t q = (int64_t)a * ncol + b;
            nz[e] = (unsigned char)((K != NULL && K[q] != 0.0) | (M != NULL && M[q] != 0.0));
        }
}

pkm_status pkm_trip_add_block(pkm_trip *t, int ncol, const int64_t *idx, const double *K,
                              const double *M, pkm_ctx *ctx)
{
    if (ncol <= 0 || t->miss) return PKM_OK;
    const pkm_trip_call *old = cached_call(t, 0, ncol, idx);
    if (t->scatter) {
        if (old == NULL) {
            t->miss = 1; /* another topology: record again */
            return PKM_OK;
        }
        /* The values go in while the zeros are compared: on another zero structure the pose is
         * recorded again into a new pencil, and this one is dropped. */
        const int64_t *pos = t->cache->rec.pos + old->pos_off;
        const unsigned char *nz = t->cache->rec.mask + old->mask_off;
        pkm_pencil *p = t->cache->pencil;
        int diff = 0;
        int64_t e = 0;
        for (int a = 0; a < ncol; a++)
            for (int b = a; b < ncol; b++, e++) {
                const double kv = K != NULL ? K[(int64_t)a * ncol + b] : 0.0,
                             mv = M != NULL ? M[(int64_t)a * ncol + b] : 0.0;
                diff |= ((kv != 0.0) | (mv != 0.0)) ^ nz[e];
                if (pos[e] >= 0) {
                    p->k[pos[e]] += kv;
                    p->m[pos[e]] += mv;
                }
            }
        t->miss |= diff;
        t->call++;
        return PKM_OK;
    }
    const int64_t ne = (int64_t)ncol * (ncol + 1) / 2;
    if (!grow((void **)&t->work, &t->work_cap, (ne + 7) / 8, sizeof(double)))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate assembly scratch");
    unsigned char *nz = (unsigned char *)t->work;
    block_mask(ncol, K, M, nz);
    if (t->cache != NULL && !record_block(t, ncol, idx, nz))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot grow the assembly record");
    int64_t count = 0;
    for (int64_t e = 0; e < ne; e++)
        count += nz[e];
    if (!trip_reserve(t, count))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot grow assembly triplets");
    int64_t *pos = t->cache != NULL ? t->rec.pos + t->rec.calls[t->rec.ncalls - 1].pos_off : NULL;
    int64_t e = 0;
    for (int a = 0; a < ncol; a++)
        for (int b = a; b < ncol; b++, e++) {
            if (pos != NULL) pos[e] = nz[e] ? t->len : -1;
            if (nz[e])
                trip_push(t, idx[a], idx[b], K != NULL ? K[(int64_t)a * ncol + b] : 0.0,
                          M != NULL ? M[(int64_t)a * ncol + b] : 0.0);
        }
    t->call++;
    return PKM_OK;
}

pkm_status pkm_asm_cache_create(pkm_asm_cache **out, pkm_ctx *ctx)
{
    *out = calloc(1, sizeof(**out));
    if (*out == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate an assembly cache");
    return PKM_OK;
}

void pkm_asm_cache_destroy(pkm_asm_cache **c)
{
    if (c == NULL || *c == NULL) return;
    record_free(&(*c)->rec);
    pkm_pencil_destroy(&(*c)->pencil);
    pkm_dofmap_destroy(&(*c)->dofmap);
    pkm_dofmap_destroy(&(*c)->scratch);
    free((*c)->work);
    free((*c)->iwork);
    free((*c)->fwork);
    free((*c)->memo);
    free(*c);
    *c = NULL;
}

pkm_status pkm_asm_cache_keep_dofmap(pkm_asm_cache *c, pkm_ctx *ctx)
{
    return c->dofmap != NULL ? PKM_OK : pkm_dofmap_alloc(&c->dofmap, ctx);
}

const pkm_dofmap *pkm_asm_cache_dofmap(const pkm_asm_cache *c)
{
    return c->dofmap_ok ? c->dofmap : NULL;
}

static int same_pattern(const pkm_pencil *a, const pkm_pencil *b)
{
    return a != NULL && b != NULL && a->n == b->n && a->nnz == b->nnz &&
           memcmp(a->colptr, b->colptr, sizeof(int64_t) * (size_t)(a->n + 1)) == 0 &&
           memcmp(a->rowind, b->rowind, sizeof(int64_t) * (size_t)a->nnz) == 0;
}

/* Recording pass done: compress, turn triplet numbers into positions, keep the record and the
 * pencil in the cache. */
static pkm_status keep_record(pkm_trip *t, pkm_formulation form, pkm_ctx *ctx)
{
    pkm_asm_cache *c = t->cache;
    int64_t *tpos = malloc(sizeof(int64_t) * (size_t)(t->len > 0 ? t->len : 1));
    if (tpos == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the assembly scatter map");
    pkm_pencil *p = NULL;
    pkm_status rc = pkm_trip_to_pencil(t, tpos, &p, ctx);
    if (rc != PKM_OK) {
        free(tpos);
        return rc;
    }
    for (int64_t e = 0; e < t->rec.pos_len; e++)
        if (t->rec.pos[e] >= 0) t->rec.pos[e] = tpos[t->rec.pos[e]];
    free(tpos);
    if (!same_pattern(p, c->pencil)) c->version++;
    pkm_pencil_destroy(&c->pencil);
    c->pencil = p;
    record_free(&c->rec);
    c->rec = t->rec;
    memset(&t->rec, 0, sizeof(t->rec));
    c->form = form;
    c->records++;
    return PKM_OK;
}

/* Exchange two buffers with their capacities (grow's pairs). */
static void swap_buf(void **a, int64_t *ca, void **b, int64_t *cb)
{
    void *p = *a;
    const int64_t c = *ca;
    *a = *b;
    *ca = *cb;
    *b = p;
    *cb = c;
}

/* Swap the scratch of t and of the cache (the congruences' and the formulation's): lends the
 * cache's to a new trip, and takes it back, grown or not, before the trip is freed. */
static void swap_scratch(pkm_trip *t, pkm_asm_cache *c)
{
    swap_buf((void **)&t->work, &t->work_cap, (void **)&c->work, &c->work_cap);
    swap_buf((void **)&t->iwork, &t->iwork_cap, (void **)&c->iwork, &c->iwork_cap);
    swap_buf((void **)&t->fwork, &t->fwork_cap, (void **)&c->fwork, &c->fwork_cap);
}

pkm_status pkm_assemble_cached(const pkm_model *m, pkm_formulation form, pkm_asm_cache *c,
                               const pkm_pencil **out, int64_t *version, pkm_assembly_info *info,
                               pkm_ctx *ctx)
{
    *out = NULL;
    pkm_assembly_info inf;
    memset(&inf, 0, sizeof(inf));
    pkm_trip t;
    memset(&t, 0, sizeof(t));
    t.cache = c;
    t.dofmap = c->dofmap;
    t.scratch = &c->scratch;
    c->dofmap_ok = 0;
    pkm_status rc = PKM_OK;
    if (c->pencil != NULL && c->form == form) {
        t.scatter = 1;
        swap_scratch(&t, c);
        rc = pkm_assemble_formulation(m, form, &t, &inf, ctx);
        swap_scratch(&t, c);
        /* Every recorded call must have been made, in order. */
        if (rc == PKM_OK && !t.miss && t.call == c->rec.ncalls) {
            pkm_trip_free(&t);
            goto ok;
        }
        pkm_trip_free(&t);
        if (rc != PKM_OK) return rc;
        t.cache = c;
        t.dofmap = c->dofmap;
        t.scratch = &c->scratch;
    }
    swap_scratch(&t, c);
    rc = pkm_assemble_formulation(m, form, &t, &inf, ctx);
    swap_scratch(&t, c);
    if (rc == PKM_OK) rc = keep_record(&t, form, ctx);
    pkm_trip_free(&t);
    if (rc != PKM_OK) return rc;
ok:
    c->dofmap_ok = c->dofmap != NULL;
    *out = c->pencil;
    *version = c->version;
    if (info != NULL) *info = inf;
    return PKM_OK;
}
