/* solvers/chol.c: sparse L D L^T factorisation on a pattern fixed once (the simplicial factors of
 * pkm_linsolve: Cholesky's of a positive definite A, or LDL^T for the inertia).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The symbolic analysis is the textbook one (Davis, Direct Methods for Sparse Linear Systems,
 * SIAM 2006, secs. 4.1-4.4: the elimination tree, then each row's pattern as the tree's reach of
 * the row of A), done once per pattern. The numeric factorisation is left-looking (ibid. sec.
 * 4.8): column j gathers the updates of the earlier columns that meet row j, found in the row
 * lists kept by the analysis, so a refactorisation does no graph traversal at all. The pencils
 * of beam models have little or no fill under AMD (NaVARo at 16 elements per link: nnz(L) =
 * nnz(A) = 8565, 44 kflop), and there CHOLMOD's up-looking factorisation, which recomputes every
 * row's pattern and then turns LDL^T into LL^T, spends most of its time outside the arithmetic
 * (docs/performance.md). */
#include "solvers/chol_impl.h"
#include "core/core_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void pkm_chol_destroy(pkm_chol **c)
{
    if (c == NULL || *c == NULL) return;
    pkm_chol *s = *c;
    int64_t *ints[] = {s->lp, s->rp, s->rq, s->rk, s->amap, s->where};
    for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++)
        free(ints[k]);
    free(s->li);
    free(s->perm);
    free(s->fwd);
    free(s->bwd);
    free(s->fx);
    free(s->bx);
    free(s->fslot);
    free(s->bslot);
    free(s->lx);
    free(s->dinv);
    free(s);
    *c = NULL;
}

/* Elimination tree of the upper A (Davis sec. 4.1, with path compression through ancestor). */
static void etree(int64_t n, const int64_t *ap, const int64_t *ai, int64_t *parent,
                  int64_t *ancestor)
{
    for (int64_t k = 0; k < n; k++) {
        parent[k] = -1;
        ancestor[k] = -1;
        for (int64_t q = ap[k]; q < ap[k + 1]; q++)
            for (int64_t i = ai[q], next; i != -1 && i < k; i = next) {
                next = ancestor[i];
                ancestor[i] = k;
                if (next == -1) parent[i] = k;
            }
    }
}

/* The pattern of row k of L below the diagonal: the columns reached from the rows of A(:, k)
 * up the tree (Davis sec. 4.2), into stack[0 .. count); mark[j] == k flags them. */
static int64_t row_reach(int64_t k, const int64_t *ap, const int64_t *ai, const int64_t *parent,
                         int64_t *mark, int64_t *stack)
{
    int64_t top = 0;
    mark[k] = k;
    for (int64_t q = ap[k]; q < ap[k + 1]; q++)
        for (int64_t i = ai[q]; i < k && mark[i] != k; i = parent[i]) {
            mark[i] = k;
            stack[top++] = i;
        }
    return top;
}

/* Pass 1: column counts into lp[1 ..] (then prefix sums), row counts into rp likewise. */
static void count(pkm_chol *s, const int64_t *ap, const int64_t *ai, const int64_t *parent,
                  int64_t *mark, int64_t *stack)
{
    const int64_t n = s->n;
    memset(s->lp, 0, sizeof(int64_t) * (size_t)(n + 1));
    memset(s->rp, 0, sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t k = 0; k < n; k++)
        mark[k] = -1;
    for (int64_t k = 0; k < n; k++) {
        const int64_t top = row_reach(k, ap, ai, parent, mark, stack);
        for (int64_t t = 0; t < top; t++)
            s->lp[stack[t] + 1]++;
        s->lp[k + 1]++; /* the diagonal */
        s->rp[k + 1] = top;
    }
    for (int64_t k = 0; k < n; k++) {
        s->lp[k + 1] += s->lp[k];
        s->rp[k + 1] += s->rp[k];
    }
}

/* Pass 2: the rows of each column in ascending order (row k appended to the columns of its
 * reach, k ascending), the row lists, and the places of A's entries. */
static void fill(pkm_chol *s, const int64_t *ap, const int64_t *ai, const int64_t *parent,
                 int64_t *mark, int64_t *stack, int64_t *next)
{
    const int64_t n = s->n;
    for (int64_t k = 0; k < n; k++) {
        mark[k] = -1;
        s->li[s->lp[k]] = (int32_t)k;
        next[k] = s->lp[k] + 1;
    }
    for (int64_t k = 0; k < n; k++) {
        const int64_t top = row_reach(k, ap, ai, parent, mark, stack);
        for (int64_t t = 0; t < top; t++) {
            const int64_t j = stack[t], p = next[j]++;
            s->li[p] = (int32_t)k;
            s->rq[s->rp[k] + t] = p;
            s->rk[s->rp[k] + t] = j;
            s->where[j] = p; /* the place of L(k, j), for A's entries of row k below */
        }
        for (int64_t q = ap[k]; q < ap[k + 1]; q++)
            s->amap[q] = ai[q] == k ? s->lp[k] : s->where[ai[q]];
    }
}

/* The orders of the substitutions. Forward (L y = b, y_c final before L(r, c) y_c is taken from
 * b_r): the entries by the height in the elimination tree of their column, leaves first;
 * backward (L^T x = y, x_r final before L(r, c) x_r is taken from y_c): by the depth of their
 * row, the root first. Columns (rows) of one height (depth) are independent, so consecutive
 * entries of one level update different unknowns and the processor overlaps them; in column
 * order each column waited for the one before through a store and a load (a beam model's tree is
 * a few long paths: NaVARo at 16 elements per link, 1710 columns, height 385, forward and
 * backward substitutions 21.1 -> 11.6 us). Workspace: level n, start n + 1. */
static void schedule(pkm_chol *s, const int64_t *parent, int64_t *level, int64_t *start)
{
    const int64_t n = s->n;
    for (int pass = 0; pass < 2; pass++) {
        pkm_chol_entry *out = pass == 0 ? s->fwd : s->bwd;
        int32_t *slots = pass == 0 ? s->fslot : s->bslot;
        for (int64_t j = 0; j < n; j++)
            level[j] = 0;
        if (pass == 0) /* heights: children before parents (parent[j] > j) */
            for (int64_t j = 0; j < n; j++) {
                if (parent[j] >= 0 && level[parent[j]] < level[j] + 1)
                    level[parent[j]] = level[j] + 1;
            }
        else /* depths: parents first */
            for (int64_t j = n - 1; j >= 0; j--)
                level[j] = parent[j] >= 0 ? level[parent[j]] + 1 : 0;
        for (int64_t l = 0; l <= n; l++)
            start[l] = 0;
        for (int64_t j = 0; j < n; j++) /* a counting sort of the entries by level */
            for (int64_t p = s->lp[j] + 1; p < s->lp[j + 1]; p++)
                start[level[pass == 0 ? j : s->li[p]] + 1]++;
        for (int64_t l = 0; l < n; l++)
            start[l + 1] += start[l];
        for (int64_t j = 0; j < n; j++)
            for (int64_t p = s->lp[j] + 1; p < s->lp[j + 1]; p++) {
                const int64_t slot = start[level[pass == 0 ? j : s->li[p]]]++;
                out[slot] = (pkm_chol_entry){s->perm[s->li[p]], s->perm[j]};
                slots[p] = (int32_t)slot;
            }
    }
}

pkm_status pkm_chol_create(int64_t n, const int64_t *ap, const int64_t *ai, const int64_t *perm,
                           pkm_chol **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (n > INT32_MAX)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "sparse factor of order %lld: at most %d",
                        (long long)n, INT32_MAX);
    pkm_chol *s = calloc(1, sizeof(*s));
    int64_t *work = malloc(sizeof(int64_t) * (4 * (size_t)n + 1));
    if (s == NULL || work == NULL) goto nomem;
    s->n = n;
    int64_t *parent = work, *mark = work + n, *stack = work + 2 * n, *next = work + 3 * n;
    s->lp = malloc(sizeof(int64_t) * (size_t)(n + 1));
    s->rp = malloc(sizeof(int64_t) * (size_t)(n + 1));
    s->where = malloc(sizeof(int64_t) * (size_t)n);
    s->amap = malloc(sizeof(int64_t) * (size_t)(ap[n] > 0 ? ap[n] : 1));
    s->dinv = malloc(sizeof(double) * (size_t)n);
    s->perm = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (s->lp == NULL || s->rp == NULL || s->where == NULL || s->amap == NULL || s->dinv == NULL ||
        s->perm == NULL)
        goto nomem;
    for (int64_t k = 0; k < n; k++)
        s->perm[k] = (int32_t)(perm != NULL ? perm[k] : k);
    etree(n, ap, ai, parent, mark);
    count(s, ap, ai, parent, mark, stack);
    const int64_t lnz = s->lp[n], off = s->rp[n] > 0 ? s->rp[n] : 1, below = lnz > n ? lnz - n : 1;
    if (lnz > INT32_MAX) {
        free(work);
        pkm_chol_destroy(&s);
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "sparse factor with %lld entries: at most %d",
                        (long long)lnz, INT32_MAX);
    }
    s->li = malloc(sizeof(int32_t) * (size_t)lnz);
    s->lx = malloc(sizeof(double) * (size_t)lnz);
    s->rq = malloc(sizeof(int64_t) * (size_t)off);
    s->rk = malloc(sizeof(int64_t) * (size_t)off);
    s->fwd = malloc(sizeof(pkm_chol_entry) * (size_t)below);
    s->bwd = malloc(sizeof(pkm_chol_entry) * (size_t)below);
    s->fx = malloc(sizeof(double) * (size_t)below);
    s->bx = malloc(sizeof(double) * (size_t)below);
    s->fslot = malloc(sizeof(int32_t) * (size_t)lnz);
    s->bslot = malloc(sizeof(int32_t) * (size_t)lnz);
    if (s->li == NULL || s->lx == NULL || s->rq == NULL || s->rk == NULL || s->fwd == NULL ||
        s->bwd == NULL || s->fx == NULL || s->bx == NULL || s->fslot == NULL || s->bslot == NULL)
        goto nomem;
    fill(s, ap, ai, parent, mark, stack, next);
    schedule(s, parent, mark, stack);
    free(work);
    *out = s;
    return PKM_OK;
nomem:
    free(work);
    pkm_chol_destroy(&s);
    return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a sparse factor of order %lld",
                    (long long)n);
}

double *pkm_chol_values(pkm_chol *c)
{
    memset(c->lx, 0, sizeof(double) * (size_t)c->lp[c->n]);
    return c->lx;
}

int64_t pkm_chol_factor(pkm_chol *c, int ldl)
{
    const int64_t n = c->n;
    const int32_t *restrict li = c->li;
    const int64_t *restrict lp = c->lp, *restrict rp = c->rp, *restrict rq = c->rq,
                            *restrict rk = c->rk;
    int64_t *restrict where = c->where;
    double *restrict lx = c->lx, *restrict fx = c->fx, *restrict bx = c->bx;
    const int32_t *restrict fslot = c->fslot, *restrict bslot = c->bslot;
    c->ldl = ldl;
    for (int64_t j = 0; j < n; j++) {
        const int64_t p0 = lp[j], p1 = lp[j + 1];
        for (int64_t p = p0; p < p1; p++)
            where[li[p]] = p;
        /* L(:, j) D_j -= L(:, k) D_k L(j, k) over the rows >= j of each column k meeting row j
         * (the row j itself gives D_j): all of them are in column j's pattern (the fill
         * property). D rather than LL^T's square roots: the substitutions then take a unit L,
         * the same entry by entry in any order (pkm_chol_solve), from fx and bx, copies of L in
         * their orders (NaVARo at 16 elements per link: solves 13.4 -> 11.6 us for a
         * factorisation 48.7 -> 55.8 us). */
        for (int64_t t = rp[j]; t < rp[j + 1]; t++) {
            const int64_t pk = rq[t], end = lp[rk[t] + 1];
            const double ljk = lx[pk] * lx[lp[rk[t]]];
            for (int64_t p = pk; p < end; p++)
                lx[where[li[p]]] -= lx[p] * ljk;
        }
        const double d = lx[p0];
        /* A positive definite needs a positive pivot; LDL^T (no pivoting, as CHOLMOD's) a
         * nonzero one. */
        if (!isfinite(d) || (ldl ? d == 0.0 : !(d > 0.0))) return j;
        const double inv = 1.0 / d;
        c->dinv[c->perm[j]] = inv;
        for (int64_t p = p0 + 1; p < p1; p++) {
            lx[p] *= inv;
            fx[fslot[p]] = lx[p];
            bx[bslot[p]] = lx[p];
        }
    }
    return n;
}

double pkm_chol_pivot(const pkm_chol *c, int64_t j)
{
    return c->lx[c->lp[j]];
}

/* The substitutions L y = b, D z = y, L^T x = z over the entries in the orders of schedule. The
 * one-vector form is kept apart from the block one: through pkm_chol_solve_block with nc = 1 a
 * Newmark step of NaVARo at 4 elements per link took 14.5 instead of 10.9 us. */
void pkm_chol_solve(const pkm_chol *c, double *w)
{
    const int64_t n = c->n, m = c->lp[n] - n;
    const pkm_chol_entry *restrict fwd = c->fwd, *restrict bwd = c->bwd;
    const double *restrict fx = c->fx, *restrict bx = c->bx, *restrict dinv = c->dinv;
    double *restrict x = w;
    for (int64_t q = 0; q < m; q++) {
        const pkm_chol_entry e = fwd[q];
        x[e.row] -= fx[q] * x[e.col];
    }
    for (int64_t j = 0; j < n; j++)
        x[j] *= dinv[j];
    for (int64_t q = 0; q < m; q++) {
        const pkm_chol_entry e = bwd[q];
        x[e.col] -= bx[q] * x[e.row];
    }
}

/* The block form keeps the column order of L: a column's nc values are read once for all its
 * entries, where the level order reads the source row at every entry; with nc = 12 (a map's
 * block) the independence of a level's columns buys nothing that this does not (5-PSS/UPU map
 * 2-3 % faster in column order, A/B). */
void pkm_chol_solve_block(const pkm_chol *c, size_t nc, double *w)
{
    const int64_t n = c->n;
    const int64_t *restrict lp = c->lp;
    const int32_t *restrict li = c->li, *restrict perm = c->perm;
    const double *restrict lx = c->lx;
    for (int64_t j = 0; j < n; j++) {
        const double *restrict wj = w + (size_t)perm[j] * nc;
        for (int64_t p = lp[j] + 1; p < lp[j + 1]; p++) {
            double *restrict wr = w + (size_t)perm[li[p]] * nc;
            const double l = lx[p];
            for (size_t k = 0; k < nc; k++)
                wr[k] -= l * wj[k];
        }
    }
    for (int64_t j = 0; j < n; j++)
        for (size_t k = 0; k < nc; k++)
            w[(size_t)j * nc + k] *= c->dinv[j];
    for (int64_t j = n - 1; j >= 0; j--) {
        double *restrict wj = w + (size_t)perm[j] * nc;
        for (int64_t p = lp[j] + 1; p < lp[j + 1]; p++) {
            const double *restrict wr = w + (size_t)perm[li[p]] * nc;
            const double l = lx[p];
            for (size_t k = 0; k < nc; k++)
                wj[k] -= l * wr[k];
        }
    }
}
