/* solvers/chol.c: sparse L D L^T factorisation on a pattern fixed once (the simplicial factors of
 * pkm_linsolve: Cholesky's of a positive definite A, or LDL^T for the inertia): the symbolic
 * analysis and the numeric factorisation; the substitutions are in chol_solve.c.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The symbolic analysis is the textbook one (Davis, Direct Methods for Sparse Linear Systems,
 * SIAM 2006, secs. 4.1-4.4: the elimination tree, then each row's pattern as the tree's reach of
 * the row of A), done once per pattern, and cuts L into panels of up to 3 columns with one
 * pattern below them (sec. 4.14's fundamental supernodes, cut). The numeric factorisation is
 * left-looking by panels (sec. 4.8, a panel where the text has a column): a panel gathers the
 * updates of the earlier panels that meet its columns, listed by the analysis, so a
 * refactorisation does no graph traversal at all, and takes a row of each once for its 3 columns.
 * The pencils of beam models have little or no fill under AMD (NaVARo at 16 elements per link:
 * nnz(L) = nnz(A) = 8529, 44 kflop), and there CHOLMOD's up-looking factorisation, which
 * recomputes every row's pattern and then turns LDL^T into LL^T, spends most of its time outside
 * the arithmetic (docs/performance.md). */
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
    void *arrays[] = {s->panel, s->fp,    s->bp,   s->first, s->prow, s->up,  s->usrc,
                      s->urow,  s->where, s->amap, s->perm,  s->vx,   s->dinv};
    for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++)
        free(arrays[k]);
    free(s);
    *c = NULL;
}

/* The pattern of L while the analysis runs: column j's rows at li[lp[j] .. lp[j + 1]), ascending,
 * the diagonal first; row j's entries L(j, k), k < j, at the places rq with columns rk, [rp[j],
 * rp[j + 1]). */
typedef struct pattern {
    int64_t *lp, *rp, *rq, *rk;
    int32_t *li;
} pattern;

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
static void count(int64_t n, pattern *l, const int64_t *ap, const int64_t *ai,
                  const int64_t *parent, int64_t *mark, int64_t *stack)
{
    memset(l->lp, 0, sizeof(int64_t) * (size_t)(n + 1));
    memset(l->rp, 0, sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t k = 0; k < n; k++)
        mark[k] = -1;
    for (int64_t k = 0; k < n; k++) {
        const int64_t top = row_reach(k, ap, ai, parent, mark, stack);
        for (int64_t t = 0; t < top; t++)
            l->lp[stack[t] + 1]++;
        l->lp[k + 1]++; /* the diagonal */
        l->rp[k + 1] = top;
    }
    for (int64_t k = 0; k < n; k++) {
        l->lp[k + 1] += l->lp[k];
        l->rp[k + 1] += l->rp[k];
    }
}

/* Pass 2: the rows of each column in ascending order (row k appended to the columns of its
 * reach, k ascending), the row lists, and the places in L of A's entries (into amap, for now). */
static void fill(int64_t n, pattern *l, const int64_t *ap, const int64_t *ai, const int64_t *parent,
                 int64_t *amap, int64_t *mark, int64_t *stack, int64_t *next)
{
    for (int64_t k = 0; k < n; k++) {
        mark[k] = -1;
        l->li[l->lp[k]] = (int32_t)k;
        next[k] = l->lp[k] + 1;
    }
    for (int64_t k = 0; k < n; k++) {
        const int64_t top = row_reach(k, ap, ai, parent, mark, stack);
        for (int64_t t = 0; t < top; t++) {
            const int64_t j = stack[t], p = next[j]++;
            l->li[p] = (int32_t)k;
            l->rq[l->rp[k] + t] = p;
            l->rk[l->rp[k] + t] = j;
            next[n + j] = p; /* the place of L(k, j), for A's entries of row k below */
        }
        for (int64_t q = ap[k]; q < ap[k + 1]; q++)
            amap[q] = ai[q] == k ? l->lp[k] : next[n + ai[q]];
    }
}

/* Column j joins the panel of column j - 1 when j is the parent of j - 1 and column j - 1 has one
 * entry more: their patterns below j are then the same (Davis sec. 4.14). Panels are cut at
 * PKM_CHOL_PANEL columns. start[0 .. np] receives their first columns; returns np. */
static int64_t panel_starts(int64_t n, const pattern *l, int64_t *start)
{
    const int64_t *lp = l->lp;
    int64_t np = 0;
    for (int64_t j = 0; j < n; j++) {
        const int64_t prev = j > 0 ? lp[j] - lp[j - 1] : 0;
        if (np == 0 || j - start[np - 1] >= PKM_CHOL_PANEL || prev != lp[j + 1] - lp[j] + 1 ||
            prev < 2 || l->li[lp[j - 1] + 1] != j)
            start[np++] = j;
    }
    start[np] = n;
    return np;
}

/* The panel of columns c0 .. c1 - 1, its rows and the places of its values in vx (slot, per
 * place in L): the triangle inside it row by row, then the rows below it (those of its last
 * column), w values each. */
static pkm_chol_panel panel_at(pkm_chol *s, const pattern *l, int64_t c0, int64_t c1, int64_t *slot,
                               int64_t *r0, int64_t *v0)
{
    const int64_t *lp = l->lp, w = c1 - c0, last = c1 - 1, nr = lp[c1] - lp[last] - 1;
    pkm_chol_panel pn = {
        .w = (int32_t)w, .nr = (int32_t)nr, .r0 = (int32_t)*r0, .v0 = (int32_t)*v0};
    int64_t q = *v0;
    for (int64_t k = 0; k < w; k++)
        pn.col[k] = s->perm[c0 + k];
    for (int64_t t = 0; t < nr; t++)
        s->prow[*r0 + t] = s->perm[l->li[lp[last] + 1 + t]];
    for (int64_t i = 1; i < w; i++)
        for (int64_t k = 0; k < i; k++)
            slot[lp[c0 + k] + i - k] = q++;
    for (int64_t t = 0; t < nr; t++)
        for (int64_t k = 0; k < w; k++)
            slot[lp[c0 + k] + w - k + t] = q++;
    *r0 += nr;
    *v0 = q;
    return pn;
}

/* Counting sort of the np panels by level: their places into place[]. Workspace count np + 1. */
static void sort_by_level(int64_t np, const int64_t *level, int64_t *count, int64_t *place)
{
    for (int64_t l = 0; l <= np; l++)
        count[l] = 0;
    for (int64_t p = 0; p < np; p++)
        count[level[p] + 1]++;
    for (int64_t l = 0; l < np; l++)
        count[l + 1] += count[l];
    for (int64_t p = 0; p < np; p++)
        place[p] = count[level[p]]++;
}

/* The panels in column order and in the orders of the substitutions. Forward (L y = b: a panel's
 * unknowns final before it updates the rows below it): by the height of the panel in the tree
 * of panels, leaves first; backward (L^T x = y: the rows below final before the panel takes
 * them): by depth, the root first. Panels of one level are independent, so the processor
 * overlaps them; in column order each waited for the one before through a store and a load (a
 * beam model's tree is a few long paths: NaVARo at 16 elements per link, 1710 columns, height
 * 385). A panel of w columns reads a row's unknown once for w entries and updates it once: the
 * substitutions 21.1 (column by column) -> 11.6 (entries in level order) -> 7.2 us (panels in
 * level order). of[j] receives the panel of column j; slot the places in vx of L's entries. */
static pkm_status panels(pkm_chol *s, const pattern *l, int64_t *of, int64_t *slot)
{
    const int64_t n = s->n;
    int64_t *start = malloc(sizeof(int64_t) * (6 * (size_t)n + 3));
    if (start == NULL) return PKM_ERR_NOMEM;
    const int64_t np = panel_starts(n, l, start);
    int64_t *parent = start + n + 1, *level = parent + n, *count = level + n,
            *fplace = count + n + 1, *bplace = fplace + n;
    s->np = np;
    s->panel = malloc(sizeof(pkm_chol_panel) * (size_t)(np > 0 ? np : 1));
    s->fp = malloc(sizeof(pkm_chol_panel) * (size_t)(np > 0 ? np : 1));
    s->bp = malloc(sizeof(pkm_chol_panel) * (size_t)(np > 0 ? np : 1));
    s->first = malloc(sizeof(int32_t) * (size_t)(np + 1));
    s->prow = malloc(sizeof(int32_t) * (size_t)(s->below > 0 ? s->below : 1));
    if (s->panel == NULL || s->fp == NULL || s->bp == NULL || s->first == NULL || s->prow == NULL) {
        free(start);
        return PKM_ERR_NOMEM;
    }
    for (int64_t p = 0; p <= np; p++)
        s->first[p] = (int32_t)start[p];
    for (int64_t p = 0; p < np; p++)
        for (int64_t j = start[p]; j < start[p + 1]; j++)
            of[j] = p;
    for (int64_t p = 0; p < np; p++) { /* the panel of the last column's parent, > p */
        const int64_t last = start[p + 1] - 1, lp1 = l->lp[last] + 1;
        parent[p] = lp1 < l->lp[last + 1] ? of[l->li[lp1]] : -1;
        level[p] = 0;
    }
    for (int64_t p = 0; p < np; p++) /* heights: children before parents */
        if (parent[p] >= 0 && level[parent[p]] < level[p] + 1) level[parent[p]] = level[p] + 1;
    sort_by_level(np, level, count, fplace);
    for (int64_t p = np - 1; p >= 0; p--) /* depths: parents first */
        level[p] = parent[p] >= 0 ? level[parent[p]] + 1 : 0;
    sort_by_level(np, level, count, bplace);
    int64_t r0 = 0, v0 = 0;
    for (int64_t p = 0; p < np; p++) {
        const pkm_chol_panel pn = panel_at(s, l, start[p], start[p + 1], slot, &r0, &v0);
        s->panel[p] = pn;
        s->fp[fplace[p]] = pn;
        s->bp[bplace[p]] = pn;
    }
    free(start);
    return PKM_OK;
}

/* Each panel's updates: the earlier panels K with an entry in its columns, and the first of K's
 * rows below K that is one of them (its rows ascend, the panel's columns come first among those
 * >= the panel's first column). From the row lists: L(j, k) at place p of column k, the w_K - 1
 * - (k - first[K]) entries of K's later columns before K's rows. mark: np. */
static pkm_status updates(pkm_chol *s, const pattern *l, const int64_t *of, int64_t *mark)
{
    const int64_t np = s->np, most = l->rp[s->n] > 0 ? l->rp[s->n] : 1;
    s->up = malloc(sizeof(int64_t) * (size_t)(np + 1));
    s->usrc = malloc(sizeof(int32_t) * (size_t)most);
    s->urow = malloc(sizeof(int32_t) * (size_t)most);
    if (s->up == NULL || s->usrc == NULL || s->urow == NULL) return PKM_ERR_NOMEM;
    for (int64_t p = 0; p < np; p++)
        mark[p] = -1;
    int64_t u = 0;
    for (int64_t p = 0; p < np; p++) {
        s->up[p] = u;
        for (int64_t j = s->first[p]; j < s->first[p + 1]; j++)
            for (int64_t t = l->rp[j]; t < l->rp[j + 1]; t++) {
                const int64_t k = l->rk[t], K = of[k];
                if (K == p) continue;
                const int64_t row = l->rq[t] - l->lp[k] - s->panel[K].w + (k - s->first[K]);
                if (mark[K] < s->up[p]) {
                    mark[K] = u;
                    s->usrc[u] = (int32_t)K;
                    s->urow[u++] = (int32_t)row;
                } else if (row < s->urow[mark[K]]) {
                    s->urow[mark[K]] = (int32_t)row;
                }
            }
    }
    s->up[np] = u;
    return PKM_OK;
}

/* The symbolic work of pkm_chol_create on s (n, perm set): L's pattern, its panels, their
 * updates and the places of A's entries; PKM_ERR_NOMEM or PKM_OK. */
static pkm_status analyse(pkm_chol *s, const int64_t *ap, const int64_t *ai, pattern *l,
                          int64_t *work)
{
    const int64_t n = s->n;
    int64_t *parent = work, *mark = work + n, *stack = work + 2 * n, *next = work + 3 * n;
    etree(n, ap, ai, parent, mark);
    count(n, l, ap, ai, parent, mark, stack);
    const int64_t lnz = l->lp[n], off = l->rp[n] > 0 ? l->rp[n] : 1;
    if (lnz > INT32_MAX) return PKM_ERR_INVALID; /* the panels' places are int32 */
    s->below = lnz - n;
    l->li = malloc(sizeof(int32_t) * (size_t)lnz);
    l->rq = malloc(sizeof(int64_t) * (size_t)off);
    l->rk = malloc(sizeof(int64_t) * (size_t)off);
    int64_t *slot = malloc(sizeof(int64_t) * (size_t)lnz);
    if (l->li == NULL || l->rq == NULL || l->rk == NULL || slot == NULL) {
        free(slot);
        return PKM_ERR_NOMEM;
    }
    fill(n, l, ap, ai, parent, s->amap, mark, stack, next);
    pkm_status rc = panels(s, l, parent, slot);
    if (rc == PKM_OK) rc = updates(s, l, parent, mark);
    for (int64_t k = 0; rc == PKM_OK && k < n; k++) /* amap: from places in L to places in vx */
        for (int64_t q = ap[k]; q < ap[k + 1]; q++)
            s->amap[q] = ai[q] == k ? s->below + s->perm[k] : slot[s->amap[q]];
    free(slot);
    return rc;
}

pkm_status pkm_chol_create(int64_t n, const int64_t *ap, const int64_t *ai, const int64_t *perm,
                           pkm_chol **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (n > INT32_MAX / 2)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "sparse factor of order %lld: at most %d",
                        (long long)n, INT32_MAX / 2);
    pkm_chol *s = calloc(1, sizeof(*s));
    int64_t *work = malloc(sizeof(int64_t) * (5 * (size_t)n + 1));
    pattern l = {.lp = malloc(sizeof(int64_t) * (size_t)(n + 1)),
                 .rp = malloc(sizeof(int64_t) * (size_t)(n + 1))};
    pkm_status rc = PKM_ERR_NOMEM;
    if (s == NULL || work == NULL || l.lp == NULL || l.rp == NULL) goto done;
    s->n = n;
    s->where = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    s->amap = malloc(sizeof(int64_t) * (size_t)(ap[n] > 0 ? ap[n] : 1));
    s->dinv = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    s->perm = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (s->where == NULL || s->amap == NULL || s->dinv == NULL || s->perm == NULL) goto done;
    for (int64_t k = 0; k < n; k++)
        s->perm[k] = (int32_t)(perm != NULL ? perm[k] : k);
    rc = analyse(s, ap, ai, &l, work);
    if (rc == PKM_OK && (s->vx = calloc((size_t)(s->below + n), sizeof(double))) == NULL)
        rc = PKM_ERR_NOMEM;
done:
    free(work);
    free(l.lp);
    free(l.rp);
    free(l.li);
    free(l.rq);
    free(l.rk);
    if (rc == PKM_OK) {
        *out = s;
        return PKM_OK;
    }
    pkm_chol_destroy(&s);
    if (rc == PKM_ERR_INVALID)
        return PKM_FAIL(ctx, rc, "sparse factor of order %lld: more than %d entries", (long long)n,
                        INT32_MAX);
    return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a sparse factor of order %lld",
                    (long long)n);
}

double *pkm_chol_values(pkm_chol *c)
{
    memset(c->vx, 0, sizeof(double) * (size_t)(c->below + c->n));
    return c->vx;
}

/* The update of panel pj (w columns: its triangle tri, its rows below it rows, D of its
 * columns in d) by the source panel pk (wk columns, factorised) from pk's row s on: for each of
 * pk's rows u that is a column iu of pj, L(v, iu) D_iu -= sum_k L(v, k) D_k L(u, k) over pk's
 * rows v >= u (v = u: D_iu itself), the rows found through where. */
PKM_KERNEL void panel_update(const pkm_chol_panel *pk, const int wk, int32_t s,
                             const pkm_chol_panel *pj, const int32_t *restrict rk,
                             const double *restrict lk, const int32_t *restrict where,
                             double *restrict tri, double *restrict rows, double *restrict d)
{
    const int w = pj->w;
    double dk[PKM_CHOL_PANEL];
#pragma GCC unroll 3
    for (int k = 0; k < wk; k++)
        dk[k] = d[pk->col[k]];
    for (int32_t u = s; u < pk->nr; u++) {
        const int32_t iu = where[rk[u]];
        if (iu >= w) break;
        const double *lu = lk + (size_t)u * (size_t)wk;
        double ld[PKM_CHOL_PANEL], sum = 0.0;
#pragma GCC unroll 3
        for (int k = 0; k < wk; k++) {
            ld[k] = lu[k] * dk[k];
            sum += lu[k] * ld[k];
        }
        d[pj->col[iu]] -= sum;
        int32_t v = u + 1;
        for (int32_t pos; v < pk->nr && (pos = where[rk[v]]) < w; v++) {
            const double *lv = lk + (size_t)v * (size_t)wk;
            double t = lv[0] * ld[0];
#pragma GCC unroll 3
            for (int k = 1; k < wk; k++)
                t += lv[k] * ld[k];
            tri[pos * (pos - 1) / 2 + iu] -= t;
        }
        for (; v < pk->nr; v++) {
            const double *lv = lk + (size_t)v * (size_t)wk;
            double t = lv[0] * ld[0];
#pragma GCC unroll 3
            for (int k = 1; k < wk; k++)
                t += lv[k] * ld[k];
            rows[(size_t)(where[rk[v]] - w) * (size_t)w + (size_t)iu] -= t;
        }
    }
}

/* Panel pj's own columns once its updates are in: column i takes those of the columns k < i
 * of the panel, then its pivot is tested and its entries divided by it. *bad: the failing
 * column of the panel, or -1. */
PKM_KERNEL void panel_factor(const pkm_chol_panel *pj, const int w, double *restrict tri,
                             double *restrict rows, double *restrict d, double *restrict dinv,
                             int ldl, int *bad)
{
    *bad = -1;
    double dd[PKM_CHOL_PANEL];
#pragma GCC unroll 3
    for (int i = 0; i < w; i++) {
        double ld[PKM_CHOL_PANEL], di = d[pj->col[i]];
#pragma GCC unroll 3
        for (int k = 0; k < i; k++) {
            ld[k] = tri[i * (i - 1) / 2 + k] * dd[k];
            di -= tri[i * (i - 1) / 2 + k] * ld[k];
        }
        /* A positive definite needs a positive pivot; LDL^T (no pivoting, as CHOLMOD's) a
         * nonzero one. */
        if (!isfinite(di) || (ldl ? di == 0.0 : !(di > 0.0))) {
            *bad = i;
            return;
        }
        const double inv = 1.0 / di;
        dd[i] = di;
        d[pj->col[i]] = di;
        dinv[pj->col[i]] = inv;
#pragma GCC unroll 3
        for (int m = i + 1; m < w; m++) {
            double t = tri[m * (m - 1) / 2 + i];
#pragma GCC unroll 3
            for (int k = 0; k < i; k++)
                t -= tri[m * (m - 1) / 2 + k] * ld[k];
            tri[m * (m - 1) / 2 + i] = t * inv;
        }
        for (int32_t r = 0; r < pj->nr; r++) {
            double *lr = rows + (size_t)r * (size_t)w;
            double t = lr[i];
#pragma GCC unroll 3
            for (int k = 0; k < i; k++)
                t -= lr[k] * ld[k];
            lr[i] = t * inv;
        }
    }
}

int64_t pkm_chol_factor(pkm_chol *c, int ldl)
{
    int32_t *restrict where = c->where;
    double *restrict vx = c->vx, *restrict d = vx + c->below;
    c->ldl = ldl;
    for (int64_t p = 0; p < c->np; p++) {
        const pkm_chol_panel *pj = &c->panel[p];
        const int w = pj->w;
        double *tri = vx + pj->v0, *rows = tri + w * (w - 1) / 2;
        for (int i = 0; i < w; i++)
            where[pj->col[i]] = i;
        for (int32_t t = 0; t < pj->nr; t++)
            where[c->prow[pj->r0 + t]] = w + t;
        for (int64_t u = c->up[p]; u < c->up[p + 1]; u++) {
            const pkm_chol_panel *pk = &c->panel[c->usrc[u]];
            PKM_CHOL_WIDTHS(panel_update, pk, c->urow[u], pj, c->prow + pk->r0,
                            vx + pk->v0 + pk->w * (pk->w - 1) / 2, where, tri, rows, d);
        }
        int bad;
        PKM_CHOL_WIDTHS(panel_factor, pj, tri, rows, d, c->dinv, ldl, &bad);
        if (bad >= 0) return c->first[p] + bad;
    }
    return c->n;
}

double pkm_chol_pivot(const pkm_chol *c, int64_t j)
{
    return c->vx[c->below + c->perm[j]];
}
