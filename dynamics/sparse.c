/* dynamics/sparse.c: the closure kinematics' and the inverse dynamics' linear solves on the
 * sparse constraint Jacobian, by normal equations that CHOLMOD factorises (symbolic analysis once
 * per driven set, numeric factorisation per solve, no allocation after the first sample).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Why normal equations reproduce the dense path's minimum-norm solutions: wherever the
 * kinematics goes on, the passive Jacobian Cp (nc x np) has full column rank (a rank loss is a
 * dead point or bad input, which the dense path reports), so K = Cp^T Cp is positive definite
 * and the least-squares solution of Cp x = b is unique. Identically zero rows (the out-of-plane
 * rows of a planar mechanism modelled in 3-D) and dependent rows drop out of K by themselves.
 * The cut wrenches solve Cp^T lambda = g_p, of full row rank, whose minimum-norm solution is
 * lambda = Cp K^-1 g_p: with the driven coordinates the actuated ones and no redundancy, the left
 * null spaces of Cp and of C are the same, so this is the dense path's lambda and the drives
 * follow from the actuated coordinates' equations. K squares Cp's conditioning; the systems
 * solved are consistent (rates, accelerations; Newton near its root), so iterative refinement
 * with the residual computed on the rows gains a factor of about eps cond(Cp)^2 per step. */
#include "dynamics/dynamics_impl.h"

#include "core/core_impl.h"

#include <cholmod.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Refinement steps of each solve (each one gains about eps cond^2): three bring the rates to
 * the dense path's rounding (the power balance of the spatial chain to 1e-8 needs them). */
#define SP_REFINE 3

/* The inverse iteration for the smallest eigenvalue of K stops when its Rayleigh quotient
 * changes by less than SP_EIG_TOL, relative (near a dead point that eigenvalue is well apart
 * from the others and a few iterations suffice); the power iteration for the largest at
 * SP_POW_TOL or after SP_POW_MAX iterations: a long chain's largest eigenvalues cluster, so its
 * vector converges slowly while its Rayleigh quotient, a lower bound, is already within the
 * cluster; both are warm-started from the last solve's vectors. */
#define SP_EIG_TOL 1e-8
#define SP_EIG_MAX 200
#define SP_POW_TOL 1e-6
#define SP_POW_MAX 8

/* An actuated column of C farther than this (relative) from the range of Cp makes the actuation
 * redundant: more drives than degrees of freedom. */
#define SP_REDUNDANT_TOL 1e-6

struct mbs_sparse {
    cholmod_common c;
    int started;
    int np;                   /* passive columns of the analysis */
    int *pcol, *pidx;         /* per coordinate its passive column or -1; the passive ones */
    int *ord;                 /* per passive column: its rank among the passive coordinates */
    int *kptr, *kpos;         /* per row: positions in K->x of its passive pairs */
    cholmod_sparse *K;        /* np x np, upper */
    cholmod_factor *Ls, *Lu;  /* K with the rows scaled (kinematics), unscaled (cut wrenches) */
    double *cs, *rw, *r, *l2; /* column scales (np), row weights, row residual, rows (nc) */
    double *ce;               /* Ls's column equilibration (np) */
    double *u, *v, *w, *vmin, *vmax, *y; /* np, np, np, np, np, nq */
    double *qf;                          /* the coordinates Ls was factorised at */
    int sfactored, ufactored, redundant; /* Ls, Lu valid; redundant actuation (-1: unknown) */
};

/* qsort's order of signed coordinates (k + 1 or -(k + 1)): by k. */
static int by_coordinate(const void *a, const void *b)
{
    const int x = abs(*(const int *)a), y = abs(*(const int *)b);
    return (x > y) - (x < y);
}

pkm_status mbs_sparse_pattern(pkm_mbs *s, pkm_ctx *ctx)
{
    int *mark = calloc((size_t)s->nf + 1, sizeof(int));
    s->cptr = calloc((size_t)s->nc + 1, sizeof(int));
    if (mark == NULL || s->cptr == NULL) goto nomem;
    int nnz = 0;
    for (int c = 0; c < s->ncut; c++) {
        mbs_cut *cu = &s->cut[c];
        for (int f = cu->fa; f >= 0; f = s->fr[f].parent)
            mark[f] = c + 1;
        cu->lca = cu->fb;
        while (cu->lca >= 0 && mark[cu->lca] != c + 1)
            cu->lca = s->fr[cu->lca].parent;
        int n = 0;
        for (int f = cu->fb; f != cu->lca; f = s->fr[f].parent)
            n += s->fr[f].coord >= 0;
        for (int f = cu->fa; f != cu->lca; f = s->fr[f].parent)
            n += s->fr[f].coord >= 0;
        for (int i = cu->row; i < cu->row + cu->nrow; i++)
            s->cptr[i + 1] = s->cptr[i] + n;
        nnz += n * cu->nrow;
    }
    s->cidx = calloc((size_t)nnz + 1, sizeof(int));
    s->cval = calloc(2 * (size_t)nnz + 2, sizeof(double));
    if (s->cidx == NULL || s->cval == NULL) goto nomem;
    s->csgn = s->cval + nnz + 1;
    /* Each cut's two paths' coordinates, k + 1 on body_b's and -(k + 1) on body_a's, sorted by
     * coordinate (the work of the cut's path lengths, not of the model's size). */
    int *on = calloc((size_t)s->nq + 1, sizeof(int));
    if (on == NULL) goto nomem;
    for (int c = 0; c < s->ncut; c++) {
        const mbs_cut *cu = &s->cut[c];
        int n = 0;
        for (int f = cu->fb; f != cu->lca; f = s->fr[f].parent)
            if (s->fr[f].coord >= 0) on[n++] = s->fr[f].coord + 1;
        for (int f = cu->fa; f != cu->lca; f = s->fr[f].parent)
            if (s->fr[f].coord >= 0) on[n++] = -(s->fr[f].coord + 1);
        qsort(on, (size_t)n, sizeof(int), by_coordinate);
        for (int i = cu->row; i < cu->row + cu->nrow; i++)
            for (int t = 0; t < n; t++) {
                s->csgn[s->cptr[i] + t] = (on[t] > 0) ? 1.0 : -1.0;
                s->cidx[s->cptr[i] + t] = abs(on[t]) - 1;
            }
    }
    free(on);
    free(mark);
    return PKM_OK;
nomem:
    free(mark);
    return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the constraint Jacobian's pattern");
}

static void free_analysis(mbs_sparse *sp)
{
    cholmod_free_sparse(&sp->K, &sp->c);
    cholmod_free_factor(&sp->Ls, &sp->c);
    cholmod_free_factor(&sp->Lu, &sp->c);
    free(sp->kptr);
    free(sp->kpos);
    sp->kptr = sp->kpos = NULL;
}

void mbs_sparse_destroy(pkm_mbs *s)
{
    free(s->cptr);
    free(s->cidx);
    free(s->cval);
    mbs_sparse *sp = s->sp;
    if (sp == NULL) return;
    if (sp->started) {
        free_analysis(sp);
        cholmod_finish(&sp->c);
    }
    free(sp->pcol);
    free(sp->cs);
    free(sp);
    s->sp = NULL;
}

/* For every pair of passive entries pa <= pb of row i (positions in s->cidx), the statement that
 * follows. */
#define FOR_PAIRS(s, sp, i, pa, pb)                                                                \
    for (int pa = (s)->cptr[i]; pa < (s)->cptr[(i) + 1]; pa++)                                     \
        if ((sp)->pcol[(s)->cidx[pa]] >= 0)                                                        \
            for (int pb = pa; pb < (s)->cptr[(i) + 1]; pb++)                                       \
                if ((sp)->pcol[(s)->cidx[pb]] >= 0)

/* Position of entry (a, b) or (b, a) in K's upper triangle (columns sorted). */
static int kfind(const cholmod_sparse *K, int a0, int b0)
{
    const int *Kp = K->p, *Ki = K->i, a = a0 < b0 ? a0 : b0, b = a0 < b0 ? b0 : a0;
    int lo = Kp[b], hi = Kp[b + 1] - 1;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (Ki[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* K's pattern: every passive pair of a row, and the diagonal, in the columns of sp->pcol. */
static int build_k(pkm_mbs *s, mbs_sparse *sp)
{
    sp->kptr = calloc((size_t)s->nc + 1, sizeof(int));
    if (sp->kptr == NULL) return 0;
    for (int i = 0; i < s->nc; i++) {
        sp->kptr[i + 1] = sp->kptr[i];
        FOR_PAIRS(s, sp, i, pa, pb) sp->kptr[i + 1]++;
    }
    const int npair = sp->kptr[s->nc];
    sp->kpos = calloc((size_t)npair + 1, sizeof(int));
    cholmod_triplet *T = cholmod_allocate_triplet(
        (size_t)sp->np, (size_t)sp->np, (size_t)(npair + sp->np), 1, CHOLMOD_REAL, &sp->c);
    if (sp->kpos == NULL || T == NULL) {
        cholmod_free_triplet(&T, &sp->c);
        return 0;
    }
    int *Ti = T->i, *Tj = T->j;
    double *Tx = T->x;
    for (int c = 0; c < sp->np; c++, T->nnz++) {
        Ti[T->nnz] = Tj[T->nnz] = c;
        Tx[T->nnz] = 1.0;
    }
    for (int i = 0; i < s->nc; i++)
        FOR_PAIRS(s, sp, i, pa, pb)
        {
            const int a = sp->pcol[s->cidx[pa]], b = sp->pcol[s->cidx[pb]];
            Ti[T->nnz] = a < b ? a : b; /* upper */
            Tj[T->nnz] = a < b ? b : a;
            Tx[T->nnz++] = 1.0;
        }
    sp->K = cholmod_triplet_to_sparse(T, T->nnz, &sp->c);
    cholmod_free_triplet(&T, &sp->c);
    if (sp->K == NULL) return 0;
    int k = 0;
    for (int i = 0; i < s->nc; i++)
        FOR_PAIRS(s, sp, i, pa, pb)
    sp->kpos[k++] = kfind(sp->K, sp->pcol[s->cidx[pa]], sp->pcol[s->cidx[pb]]);
    return 1;
}

/* The passive columns in a fill-reducing order, K's pattern and its symbolic analysis. */
static int analyse(pkm_mbs *s, mbs_sparse *sp)
{
    free_analysis(sp);
    sp->np = 0;
    for (int k = 0; k < s->nq; k++) {
        sp->pcol[k] = s->is_driven[k] ? -1 : sp->np;
        if (!s->is_driven[k]) sp->pidx[sp->np++] = k;
    }
    sp->c.nmethods = 0; /* CHOLMOD's default choice of orderings */
    sp->c.postorder = 1;
    if (!build_k(s, sp)) return 0;
    /* The fill-reducing ordering applied to the columns themselves, so that the numeric
     * factorisations work on K as stored (CHOLMOD permutes a copy otherwise, allocated at each
     * factorisation). */
    cholmod_factor *L = cholmod_analyze(sp->K, &sp->c);
    if (L == NULL) return 0;
    const int *perm = L->Perm;
    for (int c = 0; c < sp->np; c++) {
        sp->pcol[sp->pidx[perm[c]]] = c;
        sp->ord[c] = perm[c];
    }
    cholmod_free_factor(&L, &sp->c);
    for (int k = 0; k < s->nq; k++)
        if (sp->pcol[k] >= 0) sp->pidx[sp->pcol[k]] = k;
    for (int c = 0; c < sp->np; c++)
        sp->cs[c] = mbs_col_scale(s, sp->pidx[c]);
    free_analysis(sp);
    if (!build_k(s, sp)) return 0;
    sp->c.nmethods = 1;
    sp->c.method[0].ordering = CHOLMOD_NATURAL;
    sp->c.postorder = 0;
    sp->Ls = cholmod_analyze(sp->K, &sp->c);
    sp->Lu = cholmod_analyze(sp->K, &sp->c);
    for (int c = 0; c < sp->np; c++)
        sp->vmin[c] = sp->vmax[c] = 1.0 + 0.25 * sin(1.0 + c); /* no symmetry to be blind to */
    sp->sfactored = sp->ufactored = 0;
    sp->redundant = -1;
    return sp->Ls != NULL && sp->Lu != NULL;
}

/* The sparse state, analysed for the current driven set. */
static pkm_status sparse_ready(pkm_mbs *s, pkm_ctx *ctx)
{
    if (s->sp == NULL) {
        mbs_sparse *sp = calloc(1, sizeof(*sp));
        if (sp == NULL) goto nomem;
        s->sp = sp;
        sp->pcol = calloc(3 * (size_t)s->nq + 3, sizeof(int));
        sp->cs = calloc(9 * (size_t)s->nq + 3 * (size_t)s->nc + 12, sizeof(double));
        if (sp->pcol == NULL || sp->cs == NULL) goto nomem;
        sp->pidx = sp->pcol + s->nq + 1;
        sp->ord = sp->pidx + s->nq + 1;
        double **vq[8] = {&sp->u, &sp->v, &sp->w, &sp->vmin, &sp->vmax, &sp->y, &sp->ce, &sp->qf};
        double **vc[3] = {&sp->rw, &sp->r, &sp->l2};
        for (int k = 0; k < 8; k++) /* cs, then nq + 1 each, then nc + 1 each */
            *vq[k] = sp->cs + (size_t)(k + 1) * (s->nq + 1);
        for (int k = 0; k < 3; k++)
            *vc[k] = sp->cs + (size_t)9 * (s->nq + 1) + (size_t)k * (s->nc + 1);
        if (!cholmod_start(&sp->c)) goto nomem;
        sp->started = 1;
        /* The library never prints; a simplicial LL' reports a matrix that is not positive
         * definite (a passive Jacobian that lost rank) as CHOLMOD_NOT_POSDEF. */
        sp->c.print = 0;
        sp->c.final_ll = 1;
        sp->c.supernodal = CHOLMOD_SIMPLICIAL;
        s->sp_stale = 1;
    }
    if (s->sp_stale && !analyse(s, s->sp)) goto nomem;
    s->sp_stale = 0;
    return PKM_OK;
nomem:
    return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the sparse closure solver");
}

/* Entry p of row i of the passive Jacobian with its columns scaled by cs (and ce if not NULL),
 * its rows by rw (if not NULL). */
static double entry(const pkm_mbs *s, const mbs_sparse *sp, const double *rw, const double *ce,
                    int i, int p)
{
    const int c = sp->pcol[s->cidx[p]];
    const double v = s->cval[p] * sp->cs[c] * (ce != NULL ? ce[c] : 1.0);
    return (rw != NULL) ? v * rw[i] : v;
}

/* y = Cp x (nc rows; columns scaled, rows weighted by rw or not). */
static void cp_apply(const pkm_mbs *s, const mbs_sparse *sp, const double *rw, const double *ce,
                     const double *x, double *y)
{
    for (int i = 0; i < s->nc; i++) {
        double v = 0.0;
        for (int p = s->cptr[i]; p < s->cptr[i + 1]; p++)
            if (sp->pcol[s->cidx[p]] >= 0)
                v += entry(s, sp, rw, ce, i, p) * x[sp->pcol[s->cidx[p]]];
        y[i] = v;
    }
}

/* x = Cp^T y (np columns). */
static void cp_apply_t(const pkm_mbs *s, const mbs_sparse *sp, const double *rw, const double *ce,
                       const double *y, double *x)
{
    memset(x, 0, (size_t)sp->np * sizeof(double));
    for (int i = 0; i < s->nc; i++)
        for (int p = s->cptr[i]; p < s->cptr[i + 1]; p++)
            if (sp->pcol[s->cidx[p]] >= 0)
                x[sp->pcol[s->cidx[p]]] += entry(s, sp, rw, ce, i, p) * y[i];
}

/* K = Cp^T Cp (rows weighted by rw or not) into L; 0 if it is not positive definite. */
static int factor(pkm_mbs *s, mbs_sparse *sp, const double *rw, const double *ce, cholmod_factor *L)
{
    double *Kx = sp->K->x;
    memset(Kx, 0, sizeof(double) * (size_t)((int *)sp->K->p)[sp->np]);
    int k = 0;
    for (int i = 0; i < s->nc; i++)
        FOR_PAIRS(s, sp, i, pa, pb)
    Kx[sp->kpos[k++]] += entry(s, sp, rw, ce, i, pa) * entry(s, sp, rw, ce, i, pb);
    /* ksolve reads a simplicial LL' factor in K's order. */
    return cholmod_factorize(sp->K, L, &sp->c) && sp->c.status == CHOLMOD_OK && L->minor == L->n &&
           L->is_ll && !L->is_super && L->ordering == CHOLMOD_NATURAL;
}

/* x = K^-1 b (x and b distinct) by the two triangular solves with the simplicial LL' factor L,
 * whose rows are in K's own order (natural ordering, analyse); in place rather than through
 * cholmod_solve2, which reallocates its workspace at every call. */
static void ksolve(const mbs_sparse *sp, const cholmod_factor *L, const double *b, double *x)
{
    const int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
    const double *Lx = L->x;
    memcpy(x, b, (size_t)sp->np * sizeof(double));
    for (int j = 0; j < sp->np; j++) {
        x[j] /= Lx[Lp[j]]; /* the diagonal comes first in its column */
        for (int p = Lp[j] + 1; p < Lp[j] + Lnz[j]; p++)
            x[Li[p]] -= Lx[p] * x[j];
    }
    for (int j = sp->np - 1; j >= 0; j--) {
        for (int p = Lp[j] + 1; p < Lp[j] + Lnz[j]; p++)
            x[j] -= Lx[p] * x[Li[p]];
        x[j] /= Lx[Lp[j]];
    }
}

static double norm(const double *v, int n)
{
    double a = 0.0;
    for (int i = 0; i < n; i++)
        a += v[i] * v[i];
    return sqrt(a);
}

/* Normalise v into out; its norm. */
static double normalise(const double *v, double *out, int n)
{
    const double a = norm(v, n);
    for (int i = 0; i < n && a > 0.0; i++)
        out[i] = v[i] / a;
    return a;
}

/* sigma_min / sigma_max of the row-weighted Cp: the largest eigenvalue of Ls's K by power
 * iteration, the smallest by inverse iteration, each warm-started from the last solve's vector
 * (the Rayleigh quotients bound them from inside, so the estimate is at least the true ratio). */
static double cond_estimate(pkm_mbs *s, mbs_sparse *sp)
{
    const int n = sp->np;
    double lmax = 0.0, lmin = HUGE_VAL;
    normalise(sp->vmax, sp->vmax, n);
    for (int it = 0; it < SP_POW_MAX; it++) {
        cp_apply(s, sp, sp->rw, sp->ce, sp->vmax, sp->r);
        cp_apply_t(s, sp, sp->rw, sp->ce, sp->r, sp->w);
        double rq = 0.0;
        for (int c = 0; c < n; c++)
            rq += sp->vmax[c] * sp->w[c];
        if (normalise(sp->w, sp->vmax, n) == 0.0) return 0.0;
        const int done = fabs(rq - lmax) <= SP_POW_TOL * rq;
        lmax = rq;
        if (done) break;
    }
    for (int it = 0; it < SP_EIG_MAX; it++) {
        ksolve(sp, sp->Ls, sp->vmin, sp->w);
        if (normalise(sp->w, sp->vmin, n) == 0.0) return 0.0;
        cp_apply(s, sp, sp->rw, sp->ce, sp->vmin, sp->r);
        const double rq = norm(sp->r, s->nc) * norm(sp->r, s->nc);
        const int done = fabs(rq - lmin) <= SP_EIG_TOL * rq;
        lmin = rq;
        if (done) break;
    }
    return (lmax > 0.0) ? sqrt(lmin / lmax) : 0.0;
}

/* The row weights and the column equilibration of the passive Jacobian, as closure.c's dense
 * check has them. */
static void equilibrate(pkm_mbs *s, mbs_sparse *sp)
{
    for (int i = 0; i < s->nc; i++)
        sp->rw[i] = 1.0 / mbs_row_scale(s, i);
    memset(sp->ce, 0, (size_t)sp->np * sizeof(double));
    for (int i = 0; i < s->nc; i++)
        for (int p = s->cptr[i]; p < s->cptr[i + 1]; p++)
            if (sp->pcol[s->cidx[p]] >= 0) {
                const double v = entry(s, sp, sp->rw, NULL, i, p);
                sp->ce[sp->pcol[s->cidx[p]]] += v * v;
            }
    for (int c = 0; c < sp->np; c++)
        sp->ce[c] = (sp->ce[c] > 0.0) ? 1.0 / sqrt(sp->ce[c]) : 1.0;
}

pkm_status mbs_sparse_passive(pkm_mbs *s, int *done, pkm_ctx *ctx)
{
    *done = 0;
    pkm_status st = sparse_ready(s, ctx);
    if (st != PKM_OK) return st;
    mbs_sparse *sp = s->sp;
    if (sp->np == 0) return PKM_OK;
    /* The accelerations are solved at the coordinates of the rates: the factor is kept. */
    if (!sp->sfactored || memcmp(sp->qf, s->q, (size_t)s->nq * sizeof(double)) != 0) {
        equilibrate(s, sp);
        sp->sfactored =
            factor(s, sp, sp->rw, sp->ce, sp->Ls) && cond_estimate(s, sp) >= s->singular;
        memcpy(sp->qf, s->q, (size_t)s->nq * sizeof(double));
    }
    if (!sp->sfactored) return PKM_OK;
    /* Least squares of the weighted rows: K x = Cp^T b, refined on the rows' residual. */
    for (int i = 0; i < s->nc; i++)
        sp->l2[i] = s->rhs[i] * sp->rw[i];
    memset(sp->u, 0, (size_t)sp->np * sizeof(double));
    for (int it = 0; it <= SP_REFINE; it++) {
        cp_apply(s, sp, sp->rw, sp->ce, sp->u, sp->r);
        for (int i = 0; i < s->nc; i++)
            sp->r[i] = sp->l2[i] - sp->r[i];
        cp_apply_t(s, sp, sp->rw, sp->ce, sp->r, sp->v);
        ksolve(sp, sp->Ls, sp->v, sp->w);
        for (int c = 0; c < sp->np; c++)
            sp->u[c] += sp->w[c];
    }
    for (int c = 0; c < sp->np; c++)
        s->x[sp->ord[c]] = sp->u[c] * sp->cs[c] * sp->ce[c]; /* closure.c's order: ascending */
    s->checked = 1;
    *done = 1;
    return PKM_OK;
}

/* Redundant actuation: an actuated column of C outside the range of Cp (its projection on the
 * complement, by Lu, is not small). */
static int redundant(pkm_mbs *s, mbs_sparse *sp)
{
    for (int a = 0; a < s->na; a++) {
        for (int i = 0; i < s->nc; i++) {
            sp->l2[i] = 0.0;
            for (int p = s->cptr[i]; p < s->cptr[i + 1]; p++)
                if (s->cidx[p] == s->act[a]) sp->l2[i] = s->cval[p];
        }
        cp_apply_t(s, sp, NULL, NULL, sp->l2, sp->v);
        ksolve(sp, sp->Lu, sp->v, sp->w);
        cp_apply(s, sp, NULL, NULL, sp->w, sp->r);
        for (int i = 0; i < s->nc; i++)
            sp->r[i] -= sp->l2[i];
        if (norm(sp->r, s->nc) > SP_REDUNDANT_TOL * norm(sp->l2, s->nc)) return 1;
    }
    return 0;
}

pkm_status mbs_sparse_inverse(pkm_mbs *s, int refactor, double *residual, int *done, pkm_ctx *ctx)
{
    *done = 0;
    *residual = 0.0;
    if (s->solver != PKM_DYN_SPARSE || s->nd != s->na) return PKM_OK;
    for (int a = 0; a < s->na; a++)
        if (!s->is_driven[s->act[a]]) return PKM_OK;
    pkm_status st = sparse_ready(s, ctx);
    if (st != PKM_OK) return st;
    mbs_sparse *sp = s->sp;
    if (sp->np == 0 && s->nc > 0) return PKM_OK; /* every coordinate driven: the dense path */
    if (refactor && sp->np > 0) {
        sp->ufactored = factor(s, sp, NULL, NULL, sp->Lu);
        if (sp->ufactored && sp->redundant < 0) sp->redundant = redundant(s, sp);
    }
    if (sp->np > 0 && (!sp->ufactored || sp->redundant)) return PKM_OK;
    /* lambda = Cp K^-1 h, h the passive generalised forces (columns scaled), refined on
     * h - Cp^T lambda. */
    for (int c = 0; c < sp->np; c++)
        sp->u[c] = s->gq[sp->pidx[c]] * sp->cs[c];
    memset(s->lam, 0, (size_t)s->nc * sizeof(double));
    for (int it = 0; it <= SP_REFINE && sp->np > 0; it++) {
        cp_apply_t(s, sp, NULL, NULL, s->lam, sp->v);
        for (int c = 0; c < sp->np; c++)
            sp->v[c] = sp->u[c] - sp->v[c];
        ksolve(sp, sp->Lu, sp->v, sp->w);
        cp_apply(s, sp, NULL, NULL, sp->w, sp->r);
        for (int i = 0; i < s->nc; i++)
            s->lam[i] += sp->r[i];
    }
    /* C^T lambda: the drives balance the actuated coordinates' equations; the passive ones are
     * left with the residual. */
    memset(sp->y, 0, (size_t)s->nq * sizeof(double));
    for (int i = 0; i < s->nc; i++)
        for (int p = s->cptr[i]; p < s->cptr[i + 1]; p++)
            sp->y[s->cidx[p]] += s->cval[p] * s->lam[i];
    for (int a = 0; a < s->na; a++)
        s->tau[a] = s->gq[s->act[a]] - sp->y[s->act[a]];
    for (int c = 0; c < sp->np; c++)
        *residual = fmax(*residual, fabs(s->gq[sp->pidx[c]] - sp->y[sp->pidx[c]]));
    *done = 1;
    return PKM_OK;
}
