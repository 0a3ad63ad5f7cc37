/* solvers/linsolve.c: CHOLMOD factorisation of cK K + cM M, symbolic once, numeric many.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The matrix is factorised in the fill-reducing order of the symbolic analysis, applied once:
 * CHOLMOD analyses the pencil's pattern (its AMD or METIS ordering P), this file stores the upper
 * triangle of A(P, P) with a map from each pencil entry to its place there, and CHOLMOD analyses
 * and factorises that matrix in its natural order. Handing CHOLMOD a permuted matrix spares the
 * two transposes that cholmod_l_factorize makes of an upper-stored matrix with a permutation at
 * every call (A(p, p)': cholmod_l_ptranspose and cholmod_l_transpose_sym), which were 40 % of the
 * instructions of the factorisations of a Newmark run (NaVARo, 16 elements per link, n = 1710:
 * 404 -> 192 us a factorisation, docs/performance.md). The solves apply P themselves. */
#include "pkm/linsolve.h"
#include "core/core_impl.h"

#include <cholmod.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The analysed pattern is copied into CHOLMOD's own 64-bit index arrays. */
_Static_assert(sizeof(SuiteSparse_long) == sizeof(int64_t), "CHOLMOD long index is not 64-bit");

struct pkm_linsolve {
    cholmod_common c;
    int started; /* cholmod_l_start done, so cholmod_l_finish is due */
    pkm_linsolve_kind kind;
    int factored;      /* the last factorisation succeeded */
    double cK, cM;     /* its coefficients */
    int64_t n, nnz;    /* analysed order and entry count */
    cholmod_sparse *A; /* cK K + cM M, permuted: the upper triangle of A(P, P), sorted, packed */
    int64_t *perm;     /* P: row k of A(P, P) is row perm[k] of A */
    int64_t *pos;      /* per pencil entry q: its place in A->x */
    int64_t *colptr, *rowind; /* the pencil's pattern analysed (pkm_linsolve_check_pattern) */
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E; /* cholmod_l_solve2 right-hand side, result and workspace */
    double *dinv;                 /* n reciprocals of the diagonal of a simplicial LL' factor */
    cholmod_dense *BB, *XB;       /* block solves: n x ncol right-hand sides and results */
    double *wb;                   /* n x wb_cols interleaved workspace of block solves */
    int wb_cols;
};

static pkm_status check_structure(const pkm_pencil *p, pkm_ctx *ctx)
{
    const int64_t n = p->n, nnz = p->nnz;
    if (p->colptr[0] != 0 || p->colptr[n] != nnz)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "pencil column pointers do not span %lld entries",
                        (long long)nnz);
    for (int64_t j = 0; j < n; j++) {
        for (int64_t q = p->colptr[j]; q < p->colptr[j + 1]; q++) {
            int64_t i = p->rowind[q];
            if (i < 0 || i > j || (q > p->colptr[j] && i <= p->rowind[q - 1]))
                return PKM_FAIL(ctx, PKM_ERR_INVALID,
                                "pencil column %lld is not upper-triangular with sorted rows",
                                (long long)j);
        }
    }
    return PKM_OK;
}

/* CHOLMOD's copy of the pattern (upper, sorted, packed, real; values not set). */
static cholmod_sparse *cholmod_pattern(const pkm_pencil *pattern, cholmod_common *c)
{
    const int64_t n = pattern->n, nnz = pattern->nnz;
    cholmod_sparse *A =
        cholmod_l_allocate_sparse((size_t)n, (size_t)n, (size_t)nnz, 1, 1, 1, CHOLMOD_REAL, c);
    if (A == NULL) return NULL;
    SuiteSparse_long *ap = A->p, *ai = A->i;
    for (int64_t j = 0; j <= n; j++)
        ap[j] = (SuiteSparse_long)pattern->colptr[j];
    for (int64_t q = 0; q < nnz; q++)
        ai[q] = (SuiteSparse_long)pattern->rowind[q];
    return A;
}

/* The upper triangle of A(P, P) (pattern only) into s->A, and s->pos: entry (i, j) of the
 * pencil goes to (pinv i, pinv j), swapped into the upper triangle, each column's rows sorted by
 * insertion (a few per column). work: 2 n + nnz scratch. 0 if out of memory. */
static int permuted_pattern(pkm_linsolve *s, const pkm_pencil *p, int64_t *work)
{
    const int64_t n = p->n;
    int64_t *pinv = work, *next = work + n, *qof = work + 2 * n; /* qof[at]: entry at place at */
    s->A = cholmod_l_allocate_sparse((size_t)n, (size_t)n, (size_t)p->nnz, 1, 1, 1, CHOLMOD_REAL,
                                     &s->c);
    if (s->A == NULL) return 0;
    SuiteSparse_long *ap = s->A->p, *ai = s->A->i;
    for (int64_t k = 0; k < n; k++)
        pinv[s->perm[k]] = k;
    memset(ap, 0, sizeof(*ap) * (size_t)(n + 1));
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = p->colptr[j]; q < p->colptr[j + 1]; q++) {
            const int64_t a = pinv[p->rowind[q]], b = pinv[j];
            ap[(a > b ? a : b) + 1]++;
        }
    for (int64_t j = 0; j < n; j++) {
        ap[j + 1] += ap[j];
        next[j] = ap[j];
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = p->colptr[j]; q < p->colptr[j + 1]; q++) {
            const int64_t a = pinv[p->rowind[q]], b = pinv[j];
            const int64_t col = a > b ? a : b, row = a > b ? b : a;
            int64_t at = next[col]++;
            for (; at > ap[col] && ai[at - 1] > row; at--) {
                ai[at] = ai[at - 1];
                qof[at] = qof[at - 1];
            }
            ai[at] = (SuiteSparse_long)row;
            qof[at] = q;
        }
    for (int64_t at = 0; at < p->nnz; at++)
        s->pos[qof[at]] = at;
    return 1;
}

/* The fill-reducing order of pattern p (CHOLMOD's choice), the permuted matrix, its analysis in
 * natural order; the pattern kept for pkm_linsolve_check_pattern. CHOLMOD's status. */
static int analyze_permuted(pkm_linsolve *s, const pkm_pencil *p)
{
    const int64_t n = p->n, nnz = p->nnz;
    s->perm = malloc(sizeof(int64_t) * (size_t)n);
    s->pos = malloc(sizeof(int64_t) * (size_t)nnz);
    s->colptr = malloc(sizeof(int64_t) * (size_t)(n + 1));
    s->rowind = malloc(sizeof(int64_t) * (size_t)nnz);
    int64_t *work = malloc(sizeof(int64_t) * (size_t)(2 * n + nnz));
    cholmod_sparse *A0 = cholmod_pattern(p, &s->c);
    cholmod_factor *L0 = A0 != NULL ? cholmod_l_analyze(A0, &s->c) : NULL;
    int status = s->c.status;
    if (s->perm == NULL || s->pos == NULL || s->colptr == NULL || s->rowind == NULL || work == NULL)
        status = CHOLMOD_OUT_OF_MEMORY;
    if (status == CHOLMOD_OK && L0 != NULL) {
        const SuiteSparse_long *P0 = L0->Perm;
        for (int64_t k = 0; k < n; k++)
            s->perm[k] = P0 != NULL ? (int64_t)P0[k] : k;
        memcpy(s->colptr, p->colptr, sizeof(int64_t) * (size_t)(n + 1));
        memcpy(s->rowind, p->rowind, sizeof(int64_t) * (size_t)nnz);
        if (!permuted_pattern(s, p, work)) status = CHOLMOD_OUT_OF_MEMORY;
    }
    cholmod_l_free_factor(&L0, &s->c);
    cholmod_l_free_sparse(&A0, &s->c);
    if (status != CHOLMOD_OK) {
        free(work);
        return status;
    }
    s->c.nmethods = 1;
    s->c.method[0].ordering = CHOLMOD_NATURAL;
    s->c.postorder = 0;
    s->L = cholmod_l_analyze(s->A, &s->c);
    if (s->L == NULL) {
        free(work);
        return s->c.status != CHOLMOD_OK ? s->c.status : CHOLMOD_INVALID;
    }
    /* Row k of the factor is row Perm[k] of A(P, P) (the identity in natural order, unless
     * CHOLMOD reorders anyway): the solves' order is P composed with it. */
    const SuiteSparse_long *P1 = s->L->Perm;
    for (int64_t k = 0; k < n && P1 != NULL; k++)
        work[k] = s->perm[P1[k]];
    if (P1 != NULL) memcpy(s->perm, work, sizeof(int64_t) * (size_t)n);
    free(work);
    return s->c.status;
}

pkm_status pkm_linsolve_create(const pkm_pencil *pattern, pkm_linsolve_kind kind,
                               pkm_linsolve **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (pattern == NULL || pattern->n < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "linear solver needs a pencil of order >= 1");
    if ((unsigned)kind > (unsigned)PKM_LINSOLVE_LDLT)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "unknown factorisation kind %d", (int)kind);
    pkm_status rc = check_structure(pattern, ctx);
    if (rc != PKM_OK) return rc;
    const int64_t n = pattern->n, nnz = pattern->nnz;
    pkm_linsolve *s = calloc(1, sizeof(*s));
    if (s == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a linear solver");
    s->kind = kind;
    s->n = n;
    s->nnz = nnz;
    if (!cholmod_l_start(&s->c)) goto fail;
    s->started = 1;
    /* The library never prints; failures are read from return values and c.status instead of
     * the error_handler (which has no user pointer). final_ll makes a simplicial factorisation
     * LL^T, so an indefinite A is reported as CHOLMOD_NOT_POSDEF rather than silently factorised
     * as LDL^T; final_ll = 0 keeps D for the inertia, and the supernodal factorisation is LL^T
     * only (CHOLMOD user guide, cholmod_factorize and cholmod_common). */
    s->c.print = 0;
    s->c.final_ll = kind != PKM_LINSOLVE_LDLT;
    if (kind == PKM_LINSOLVE_SIMPLICIAL || kind == PKM_LINSOLVE_LDLT)
        s->c.supernodal = CHOLMOD_SIMPLICIAL;
    else if (kind == PKM_LINSOLVE_SUPERNODAL)
        s->c.supernodal = CHOLMOD_SUPERNODAL;
    s->c.status = analyze_permuted(s, pattern);
    if (s->c.status != CHOLMOD_OK) goto fail;
    s->B = cholmod_l_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &s->c);
    if (s->B == NULL) goto fail;
    s->dinv = calloc((size_t)n, sizeof(double));
    if (s->dinv == NULL) {
        pkm_linsolve_destroy(&s);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a factor diagonal of order %lld",
                        (long long)n);
    }
    *out = s;
    return PKM_OK;
fail:;
    const int status = s->c.status;
    pkm_linsolve_destroy(&s);
    return PKM_FAIL(ctx, status == CHOLMOD_OUT_OF_MEMORY ? PKM_ERR_NOMEM : PKM_ERR_SOLVER,
                    "CHOLMOD symbolic analysis of order %lld, %lld entries failed (status %d)",
                    (long long)n, (long long)nnz, status);
}

void pkm_linsolve_destroy(pkm_linsolve **ls)
{
    if (ls == NULL || *ls == NULL) return;
    pkm_linsolve *s = *ls;
    if (s->started) {
        cholmod_l_free_sparse(&s->A, &s->c);
        cholmod_l_free_factor(&s->L, &s->c);
        cholmod_l_free_dense(&s->B, &s->c);
        cholmod_l_free_dense(&s->X, &s->c);
        cholmod_l_free_dense(&s->Y, &s->c);
        cholmod_l_free_dense(&s->E, &s->c);
        cholmod_l_free_dense(&s->BB, &s->c);
        cholmod_l_free_dense(&s->XB, &s->c);
        cholmod_l_finish(&s->c);
    }
    free(s->perm);
    free(s->pos);
    free(s->colptr);
    free(s->rowind);
    free(s->dinv);
    free(s->wb);
    free(s);
    *ls = NULL;
}

pkm_status pkm_linsolve_check_pattern(const pkm_linsolve *ls, const pkm_pencil *p, pkm_ctx *ctx)
{
    if (p->n != ls->n || p->nnz != ls->nnz)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "pencil of order %lld with %lld entries, solver analysed order %lld "
                        "with %lld",
                        (long long)p->n, (long long)p->nnz, (long long)ls->n, (long long)ls->nnz);
    const int64_t *ap = ls->colptr, *ai = ls->rowind;
    for (int64_t j = 0; j <= ls->n; j++)
        if (p->colptr[j] != ap[j])
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "pencil pattern differs at column %lld",
                            (long long)j);
    for (int64_t q = 0; q < ls->nnz; q++)
        if (p->rowind[q] != ai[q])
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "pencil pattern differs at entry %lld",
                            (long long)q);
    return PKM_OK;
}

pkm_status pkm_linsolve_factor(pkm_linsolve *ls, const pkm_pencil *p, double cK, double cM,
                               int64_t *minor, pkm_ctx *ctx)
{
    *minor = -1;
    ls->factored = 0;
    if (p->n != ls->n || p->nnz != ls->nnz)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "factorisation of order %lld, %lld entries; analysed %lld, %lld",
                        (long long)p->n, (long long)p->nnz, (long long)ls->n, (long long)ls->nnz);
    double *ax = ls->A->x;
    const int64_t *pos = ls->pos;
    for (int64_t q = 0; q < ls->nnz; q++)
        ax[pos[q]] = cK * p->k[q] + cM * p->m[q];
    const int ok = cholmod_l_factorize(ls->A, ls->L, &ls->c);
    /* LDL^T stops at a zero pivot with minor < n, with or without CHOLMOD_NOT_POSDEF. */
    if (ls->c.status == CHOLMOD_NOT_POSDEF || (SuiteSparse_long)ls->L->minor < ls->n) {
        *minor = (int64_t)ls->L->minor;
        return PKM_OK;
    }
    if (!ok || ls->c.status != CHOLMOD_OK)
        return PKM_FAIL(ctx, ls->c.status == CHOLMOD_OUT_OF_MEMORY ? PKM_ERR_NOMEM : PKM_ERR_SOLVER,
                        "cholmod_l_factorize of %g K + %g M failed (status %d)", cK, cM,
                        ls->c.status);
    const cholmod_factor *L = ls->L;
    if (!L->is_super && L->is_ll) {
        const SuiteSparse_long *lp = L->p;
        const double *lx = L->x;
        for (int64_t j = 0; j < ls->n; j++)
            ls->dinv[j] = 1.0 / lx[lp[j]];
    }
    ls->factored = 1;
    ls->cK = cK;
    ls->cM = cM;
    return PKM_OK;
}

/* x = A^-1 b by the substitutions on a simplicial LL' factor (CHOLMOD's choice for small or very
 * sparse pencils, e.g. every NaVARo map pose): A(p, p) = L L^T, so x = P^T L^-T L^-1 P b with
 * (P b)_k = b_Perm[k], each column of L holding its diagonal first, then Lnz[j] - 1 entries below
 * it (CHOLMOD user guide, cholmod_factor). This spares cholmod_l_solve2's per-call checks and
 * copies, which cost more than the substitutions themselves at n ~ 100, and multiplies by the
 * reciprocal diagonal (dinv, set once per factorisation) instead of dividing twice per column
 * and solve. */
static void simplicial_ll_solve(pkm_linsolve *ls, const double *b, double *x)
{
    const cholmod_factor *L = ls->L;
    const int64_t n = ls->n;
    const SuiteSparse_long *lp = L->p, *li = L->i, *lnz = L->nz;
    const int64_t *perm = ls->perm;
    const double *lx = L->x, *dinv = ls->dinv;
    double *w = ls->B->x;
    for (int64_t k = 0; k < n; k++)
        w[k] = b[perm[k]];
    for (int64_t j = 0; j < n; j++) {
        const int64_t q0 = lp[j], q1 = lp[j] + lnz[j];
        const double wj = w[j] * dinv[j];
        w[j] = wj;
        for (int64_t q = q0 + 1; q < q1; q++)
            w[li[q]] -= lx[q] * wj;
    }
    for (int64_t j = n - 1; j >= 0; j--) {
        const int64_t q0 = lp[j], q1 = lp[j] + lnz[j];
        double t = w[j];
        for (int64_t q = q0 + 1; q < q1; q++)
            t -= lx[q] * w[li[q]];
        w[j] = t * dinv[j];
    }
    for (int64_t k = 0; k < n; k++)
        x[perm[k]] = w[k];
}

pkm_status pkm_linsolve_solve(pkm_linsolve *ls, const double *b, double *x, pkm_ctx *ctx)
{
    if (!ls->factored)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "linear solve without a factorisation");
    if (!ls->L->is_super && ls->L->is_ll) {
        simplicial_ll_solve(ls, b, x);
        return PKM_OK;
    }
    /* Supernodal and LDL^T factors: cholmod_l_solve2 with its workspace kept across calls. */
    double *pb = ls->B->x;
    for (int64_t k = 0; k < ls->n; k++)
        pb[k] = b[ls->perm[k]];
    if (!cholmod_l_solve2(CHOLMOD_A, ls->L, ls->B, NULL, &ls->X, NULL, &ls->Y, &ls->E, &ls->c) ||
        ls->X == NULL)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "cholmod_l_solve2 failed (status %d)", ls->c.status);
    const double *px = ls->X->x;
    for (int64_t k = 0; k < ls->n; k++)
        x[ls->perm[k]] = px[k];
    return PKM_OK;
}

/* simplicial_ll_solve for nc interleaved columns: each entry of L is read once for all of them,
 * and the inner loops over the columns are contiguous. */
static void simplicial_ll_solve_block(pkm_linsolve *ls, size_t nc, const double *b, double *x)
{
    const cholmod_factor *L = ls->L;
    const int64_t n = ls->n;
    const SuiteSparse_long *lp = L->p, *li = L->i, *lnz = L->nz;
    const int64_t *perm = ls->perm;
    const double *restrict lx = L->x, *restrict dinv = ls->dinv;
    double *restrict w = ls->wb;
    for (int64_t k = 0; k < n; k++)
        memcpy(w + (size_t)k * nc, b + (size_t)perm[k] * nc, nc * sizeof(double));
    for (int64_t j = 0; j < n; j++) {
        const int64_t q0 = lp[j], q1 = lp[j] + lnz[j];
        double *restrict wj = w + (size_t)j * nc;
        for (size_t c = 0; c < nc; c++)
            wj[c] *= dinv[j];
        for (int64_t q = q0 + 1; q < q1; q++) {
            double *restrict wi = w + (size_t)li[q] * nc;
            const double l = lx[q];
            for (size_t c = 0; c < nc; c++)
                wi[c] -= l * wj[c];
        }
    }
    for (int64_t j = n - 1; j >= 0; j--) {
        const int64_t q0 = lp[j], q1 = lp[j] + lnz[j];
        double *restrict wj = w + (size_t)j * nc;
        for (int64_t q = q0 + 1; q < q1; q++) {
            const double *restrict wi = w + (size_t)li[q] * nc;
            const double l = lx[q];
            for (size_t c = 0; c < nc; c++)
                wj[c] -= l * wi[c];
        }
        for (size_t c = 0; c < nc; c++)
            wj[c] *= dinv[j];
    }
    for (int64_t k = 0; k < n; k++)
        memcpy(x + (size_t)perm[k] * nc, w + (size_t)k * nc, nc * sizeof(double));
}

/* Supernodal and LDL^T factors: cholmod_l_solve2 on an n x nc dense block of A(P, P) (column-major,
 * so the interleaved columns are transposed and permuted in and out). */
static pkm_status cholmod_solve_block(pkm_linsolve *ls, size_t nc, const double *b, double *x,
                                      pkm_ctx *ctx)
{
    const size_t n = (size_t)ls->n;
    if (ls->BB == NULL || ls->BB->ncol != nc) {
        cholmod_l_free_dense(&ls->BB, &ls->c);
        ls->BB = cholmod_l_allocate_dense(n, nc, n, CHOLMOD_REAL, &ls->c);
        if (ls->BB == NULL)
            return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate %zu right-hand sides", nc);
    }
    double *bb = ls->BB->x;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < nc; c++)
            bb[c * n + i] = b[(size_t)ls->perm[i] * nc + c];
    if (!cholmod_l_solve2(CHOLMOD_A, ls->L, ls->BB, NULL, &ls->XB, NULL, &ls->Y, &ls->E, &ls->c) ||
        ls->XB == NULL)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "cholmod_l_solve2 of %zu columns failed (status %d)",
                        nc, ls->c.status);
    const double *xb = ls->XB->x;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < nc; c++)
            x[(size_t)ls->perm[i] * nc + c] = xb[c * n + i];
    return PKM_OK;
}

pkm_status pkm_linsolve_solve_block(pkm_linsolve *ls, int ncol, const double *b, double *x,
                                    pkm_ctx *ctx)
{
    if (!ls->factored)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "linear solve without a factorisation");
    if (ncol < 1) return PKM_FAIL(ctx, PKM_ERR_INVALID, "block solve of %d columns", ncol);
    if (ls->L->is_super || !ls->L->is_ll) return cholmod_solve_block(ls, (size_t)ncol, b, x, ctx);
    if (ncol > ls->wb_cols) {
        free(ls->wb);
        ls->wb_cols = 0;
        ls->wb = malloc((size_t)ls->n * (size_t)ncol * sizeof(double));
        if (ls->wb == NULL)
            return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate %d right-hand sides of order %lld",
                            ncol, (long long)ls->n);
        ls->wb_cols = ncol;
    }
    simplicial_ll_solve_block(ls, (size_t)ncol, b, x);
    return PKM_OK;
}

pkm_status pkm_linsolve_inertia(const pkm_linsolve *ls, const pkm_pencil *p, double rtol,
                                int64_t *negative, int64_t *tiny, pkm_ctx *ctx)
{
    *negative = 0;
    *tiny = 0;
    const cholmod_factor *L = ls->L;
    if (!ls->factored || L->is_super || L->is_ll || p->n != ls->n)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "inertia needs a successful LDL^T factorisation");
    /* Simplicial LDL^T keeps D on the diagonal of L, first in each column (CHOLMOD user guide,
     * cholmod_factor). */
    const SuiteSparse_long *lp = L->p;
    const int64_t *perm = ls->perm;
    const double *lx = L->x;
    for (int64_t j = 0; j < ls->n; j++) {
        const int64_t i = perm[j];
        const int64_t qd = p->colptr[i + 1] - 1; /* the diagonal is last in its column */
        const double scale = fabs(ls->cK) * fabs(p->k[qd]) + fabs(ls->cM) * fabs(p->m[qd]);
        const double d = lx[lp[j]];
        if (!(fabs(d) > rtol * scale)) (*tiny)++;
        if (d < 0.0) (*negative)++;
    }
    return PKM_OK;
}

pkm_linsolve_kind pkm_linsolve_factor_kind(const pkm_linsolve *ls)
{
    if (!ls->factored) return PKM_LINSOLVE_AUTO;
    if (ls->L->is_super) return PKM_LINSOLVE_SUPERNODAL;
    return ls->L->is_ll ? PKM_LINSOLVE_SIMPLICIAL : PKM_LINSOLVE_LDLT;
}
