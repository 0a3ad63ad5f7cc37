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
    free(s->fp);
    free(s->bp);
    free(s->prow);
    free(s->px);
    free(s->slot);
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

/* Column j joins the panel of column j - 1 when j is the parent of j - 1 and column j - 1 has one
 * entry more: their patterns below j are then the same (Davis sec. 4.14). Panels are cut at
 * PKM_CHOL_PANEL columns. start[0 .. np] receives their first columns; returns np. */
static int64_t panel_starts(const pkm_chol *s, int64_t *start)
{
    const int64_t *lp = s->lp;
    int64_t np = 0;
    for (int64_t j = 0; j < s->n; j++) {
        const int64_t prev = j > 0 ? lp[j] - lp[j - 1] : 0;
        if (np == 0 || j - start[np - 1] >= PKM_CHOL_PANEL || prev != lp[j + 1] - lp[j] + 1 ||
            prev < 2 || s->li[lp[j - 1] + 1] != j)
            start[np++] = j;
    }
    start[np] = s->n;
    return np;
}

/* Panel p's description and the places of its values: the triangle inside it row by row, then
 * the rows below it (those of its last column), w values each. */
static pkm_chol_panel panel_at(pkm_chol *s, int64_t c0, int64_t c1, int64_t *r0, int64_t *v0)
{
    const int64_t *lp = s->lp, w = c1 - c0, last = c1 - 1, nr = lp[c1] - lp[last] - 1;
    pkm_chol_panel pn = {
        .w = (int32_t)w, .nr = (int32_t)nr, .r0 = (int32_t)*r0, .v0 = (int32_t)*v0};
    int64_t q = *v0;
    for (int64_t k = 0; k < w; k++)
        pn.col[k] = s->perm[c0 + k];
    for (int64_t t = 0; t < nr; t++)
        s->prow[*r0 + t] = s->perm[s->li[lp[last] + 1 + t]];
    for (int64_t i = 1; i < w; i++)
        for (int64_t k = 0; k < i; k++)
            s->slot[lp[c0 + k] + i - k] = (int32_t)q++;
    for (int64_t t = 0; t < nr; t++)
        for (int64_t k = 0; k < w; k++)
            s->slot[lp[c0 + k] + w - k + t] = (int32_t)q++;
    *r0 += nr;
    *v0 = q;
    return pn;
}

/* The panels in the orders of the substitutions. Forward (L y = b: a panel's unknowns final
 * before it updates the rows below it): by the height of the panel in the tree of panels, leaves
 * first; backward (L^T x = y: the rows below final before the panel takes them): by depth, the
 * root first. Panels of one level are independent, so the processor overlaps them; in column
 * order each waited for the one before through a store and a load (a beam model's tree is a few
 * long paths: NaVARo at 16 elements per link, 1710 columns, height 385). A panel of w columns
 * reads a row's unknown once for w entries and updates it once: the substitutions 21.1 (column
 * by column) -> 11.6 (entries in level order) -> 6.6 us (panels in level order). */
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

static pkm_status panels(pkm_chol *s)
{
    const int64_t n = s->n, below = s->lp[n] > n ? s->lp[n] - n : 1;
    int64_t *start = malloc(sizeof(int64_t) * (5 * (size_t)n + 3));
    if (start == NULL) return PKM_ERR_NOMEM;
    const int64_t np = panel_starts(s, start);
    int64_t *of = start + n + 1, *parent = of + n, *level = parent + n, *count = level + n;
    s->np = np;
    s->fp = malloc(sizeof(pkm_chol_panel) * (size_t)(np > 0 ? np : 1));
    s->bp = malloc(sizeof(pkm_chol_panel) * (size_t)(np > 0 ? np : 1));
    s->prow = malloc(sizeof(int32_t) * (size_t)below);
    s->px = malloc(sizeof(double) * (size_t)below);
    s->slot = malloc(sizeof(int32_t) * (size_t)(s->lp[n] > 0 ? s->lp[n] : 1));
    if (s->fp == NULL || s->bp == NULL || s->prow == NULL || s->px == NULL || s->slot == NULL) {
        free(start);
        return PKM_ERR_NOMEM;
    }
    for (int64_t p = 0; p < np; p++)
        for (int64_t j = start[p]; j < start[p + 1]; j++)
            of[j] = p;
    for (int64_t p = 0; p < np; p++) { /* the panel of the last column's parent, > p */
        const int64_t last = start[p + 1] - 1, lp1 = s->lp[last] + 1;
        parent[p] = lp1 < s->lp[last + 1] ? of[s->li[lp1]] : -1;
        level[p] = 0;
    }
    for (int64_t p = 0; p < np; p++) /* heights: children before parents */
        if (parent[p] >= 0 && level[parent[p]] < level[p] + 1) level[parent[p]] = level[p] + 1;
    sort_by_level(np, level, count, of);  /* of: the forward places */
    for (int64_t p = np - 1; p >= 0; p--) /* depths: parents first */
        level[p] = parent[p] >= 0 ? level[parent[p]] + 1 : 0;
    sort_by_level(np, level, count, parent); /* parent: the backward places */
    int64_t r0 = 0, v0 = 0;
    for (int64_t p = 0; p < np; p++) {
        const pkm_chol_panel pn = panel_at(s, start[p], start[p + 1], &r0, &v0);
        s->fp[of[p]] = pn;
        s->bp[parent[p]] = pn;
    }
    free(start);
    return PKM_OK;
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
    const int64_t lnz = s->lp[n], off = s->rp[n] > 0 ? s->rp[n] : 1;
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
    if (s->li == NULL || s->lx == NULL || s->rq == NULL || s->rk == NULL) goto nomem;
    fill(s, ap, ai, parent, mark, stack, next);
    free(work);
    work = NULL;
    if (panels(s) != PKM_OK) goto nomem;
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
    double *restrict lx = c->lx, *restrict px = c->px;
    const int32_t *restrict slot = c->slot;
    c->ldl = ldl;
    for (int64_t j = 0; j < n; j++) {
        const int64_t p0 = lp[j], p1 = lp[j + 1];
        for (int64_t p = p0; p < p1; p++)
            where[li[p]] = p;
        /* L(:, j) D_j -= L(:, k) D_k L(j, k) over the rows >= j of each column k meeting row j
         * (the row j itself gives D_j): all of them are in column j's pattern (the fill
         * property). D rather than LL^T's square roots: the substitutions then take a unit L,
         * the same entry by entry in any order (pkm_chol_solve), from px, a copy of L in
         * panels (NaVARo at 16 elements per link: solves 13.4 -> 11.6 us for a
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
            px[slot[p]] = lx[p];
        }
    }
    return n;
}

double pkm_chol_pivot(const pkm_chol *c, int64_t j)
{
    return c->lx[c->lp[j]];
}

/* The panel kernels take the width as a constant (PANEL_WIDTHS): inlined with it, each width
 * is a kernel of its own, its loops unrolled and its unknowns in registers (with the width a
 * variable they went through the stack: substitutions 18 against 7.2 us at NaVARo's 1710 dofs). */
#if defined(__GNUC__)
#define PANEL_KERNEL static inline __attribute__((always_inline))
#else
#define PANEL_KERNEL static inline
#endif
#define PANEL_WIDTHS(call, pn, ...)                                                                \
    do {                                                                                           \
        if ((pn)->w == 3)                                                                          \
            call(pn, 3, __VA_ARGS__);                                                              \
        else if ((pn)->w == 2)                                                                     \
            call(pn, 2, __VA_ARGS__);                                                              \
        else                                                                                       \
            call(pn, 1, __VA_ARGS__);                                                              \
    } while (0)

/* Panel pn's part of L y = b and of D z = y: its unknowns y (the triangle inside it), z = D^-1 y
 * stored, y taken from the rows below it. */
PANEL_KERNEL void panel_forward(const pkm_chol_panel *pn, const int w, const int32_t *restrict rows,
                                const double *restrict a, const double *restrict dinv,
                                double *restrict x)
{
    double y[PKM_CHOL_PANEL];
    for (int i = 0; i < w; i++) {
        double yi = x[pn->col[i]];
        for (int k = 0; k < i; k++)
            yi -= a[i * (i - 1) / 2 + k] * y[k];
        y[i] = yi;
        x[pn->col[i]] = yi * dinv[pn->col[i]];
    }
    a += w * (w - 1) / 2;
    for (int32_t t = 0; t < pn->nr; t++, a += w) {
        double sum = a[0] * y[0];
        for (int k = 1; k < w; k++)
            sum += a[k] * y[k];
        x[rows[t]] -= sum;
    }
}

/* Panel pn's part of L^T x = z: the rows below it taken, then the triangle inside it. */
PANEL_KERNEL void panel_backward(const pkm_chol_panel *pn, const int w,
                                 const int32_t *restrict rows, const double *restrict a,
                                 double *restrict x)
{
    const double *restrict tri = a;
    double z[PKM_CHOL_PANEL];
    a += w * (w - 1) / 2;
    for (int k = 0; k < w; k++)
        z[k] = x[pn->col[k]];
    for (int32_t t = 0; t < pn->nr; t++, a += w) {
        const double xr = x[rows[t]];
        for (int k = 0; k < w; k++)
            z[k] -= a[k] * xr;
    }
    for (int i = w - 1; i >= 0; i--) {
        for (int m = i + 1; m < w; m++)
            z[i] -= tri[m * (m - 1) / 2 + i] * z[m];
        x[pn->col[i]] = z[i];
    }
}

/* The substitutions L y = b, D z = y, L^T x = z, panel by panel in the orders of panels(). The
 * one-vector form is kept apart from the block one: through pkm_chol_solve_block with nc = 1 a
 * Newmark step of NaVARo at 4 elements per link took 14.5 instead of 10.9 us. */
void pkm_chol_solve(const pkm_chol *c, double *w)
{
    const int32_t *restrict rows = c->prow;
    const double *restrict px = c->px, *restrict dinv = c->dinv;
    double *restrict x = w;
    for (int64_t p = 0; p < c->np; p++) {
        const pkm_chol_panel *pn = &c->fp[p];
        PANEL_WIDTHS(panel_forward, pn, rows + pn->r0, px + pn->v0, dinv, x);
    }
    for (int64_t p = 0; p < c->np; p++) {
        const pkm_chol_panel *pn = &c->bp[p];
        PANEL_WIDTHS(panel_backward, pn, rows + pn->r0, px + pn->v0, x);
    }
}

/* y += B x for a symmetric B on the pattern of L (pkm_chol_symv_add), panel pn's part: its
 * triangle and diagonal, then the rows below it, each giving to y_r and taking from x_r. */
PANEL_KERNEL void panel_symv(const pkm_chol_panel *pn, const int w, const int32_t *restrict rows,
                             const double *restrict a, const double *restrict diag,
                             const double *restrict x, double *restrict y)
{
    double xs[PKM_CHOL_PANEL], ys[PKM_CHOL_PANEL];
    for (int k = 0; k < w; k++) {
        xs[k] = x[pn->col[k]];
        ys[k] = diag[pn->col[k]] * xs[k];
    }
    for (int i = 1; i < w; i++) {
        for (int k = 0; k < i; k++) {
            const double l = a[i * (i - 1) / 2 + k];
            ys[i] += l * xs[k];
            ys[k] += l * xs[i];
        }
    }
    a += w * (w - 1) / 2;
    for (int32_t t = 0; t < pn->nr; t++, a += w) {
        const double xr = x[rows[t]];
        double sum = a[0] * xs[0];
        ys[0] += a[0] * xr;
        for (int k = 1; k < w; k++) {
            sum += a[k] * xs[k];
            ys[k] += a[k] * xr;
        }
        y[rows[t]] += sum;
    }
    for (int k = 0; k < w; k++)
        y[pn->col[k]] += ys[k];
}

/* Panels read x and y once for their 3 columns (NaVARo at 16 elements per link: 7.2 us for the
 * pencil's column by column product, 4.8 us by panels). */
void pkm_chol_symv_add(const pkm_chol *c, const double *vals, const double *diag, const double *x,
                       double *y)
{
    const int32_t *restrict rows = c->prow;
    for (int64_t p = 0; p < c->np; p++) {
        const pkm_chol_panel *pn = &c->fp[p];
        PANEL_WIDTHS(panel_symv, pn, rows + pn->r0, vals + pn->v0, diag, x, y);
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
