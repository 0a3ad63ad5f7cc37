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
 * 404 -> 192 us a factorisation, docs/performance.md). The solves apply P themselves.
 * Where CHOLMOD's analysis chooses a simplicial factor (LL^T, or LDL^T for the inertia), the
 * numeric factorisation and the substitutions are this layer's own on the pattern analysed once
 * (chol.c, which keeps a positive definite A's Cholesky factor as L D L^T: 3.1x faster than
 * cholmod_l_factorize at n = 90 to 414, 2.7x at 1710, on NaVARo's pencils); supernodal factors
 * stay CHOLMOD's. */
#include "pkm/linsolve.h"
#include "core/core_impl.h"
#include "solvers/chol_impl.h"

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
    int64_t *lpos;     /* with chol: its place in the factor's values (pkm_chol_values) */
    int64_t *colptr, *rowind; /* the pencil's pattern analysed (pkm_linsolve_check_pattern) */
    cholmod_factor *L;
    pkm_chol *chol;               /* the simplicial factor (L D L^T), else NULL (L is CHOLMOD's) */
    cholmod_dense *B, *X, *Y, *E; /* cholmod_l_solve2 right-hand side, result and workspace */
    cholmod_dense *BB, *XB;       /* block solves: n x ncol right-hand sides and results */
    /* The operator of pkm_linsolve_set_operator: with chol, in the layout of the factor's values
     * (at lpos); else in the pencil's order. */
    double *ov;
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

/* Whether CHOLMOD factorises the permuted matrix in its own order (it may reorder anyway). */
static int natural_order(const cholmod_factor *L)
{
    const SuiteSparse_long *P1 = L->Perm;
    for (size_t k = 0; P1 != NULL && k < L->n; k++)
        if (P1[k] != (SuiteSparse_long)k) return 0;
    return 1;
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
    if (!s->L->is_super && natural_order(s->L)) {
        rc = pkm_chol_create(n, (const int64_t *)s->A->p, (const int64_t *)s->A->i, s->perm,
                             &s->chol, ctx);
        if (rc == PKM_OK &&
            (s->lpos = malloc(sizeof(int64_t) * (size_t)(nnz > 0 ? nnz : 1))) == NULL)
            rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a factor's entry map");
        if (rc != PKM_OK) {
            pkm_linsolve_destroy(&s);
            return rc;
        }
        for (int64_t q = 0; q < nnz; q++)
            s->lpos[q] = s->chol->amap[s->pos[q]];
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
    free(s->lpos);
    free(s->pos);
    free(s->colptr);
    free(s->rowind);
    free(s->ov);
    pkm_chol_destroy(&s->chol);
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

/* out[pos[q]] = cK K_q + cM M_q for every entry q of p (pos NULL: out[q]). */
static void place_combination(const pkm_pencil *p, double cK, double cM, const int64_t *pos,
                              double *out)
{
    for (int64_t q = 0; q < p->nnz; q++)
        out[pos != NULL ? pos[q] : q] = cK * p->k[q] + cM * p->m[q];
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
    if (ls->chol != NULL) {
        /* A formed in the factor's own values: one pass over the entries where forming A->x and
         * then placing it took two (NaVARo at 16 elements per link: 54.7 -> 49.1 us a
         * factorisation). */
        place_combination(p, cK, cM, ls->lpos, pkm_chol_values(ls->chol));
        const int64_t j = pkm_chol_factor(ls->chol, ls->kind == PKM_LINSOLVE_LDLT);
        if (j < ls->n) {
            *minor = j;
            return PKM_OK;
        }
    } else {
        place_combination(p, cK, cM, ls->pos, ls->A->x);
        const int ok = cholmod_l_factorize(ls->A, ls->L, &ls->c);
        /* A supernodal LL^T (or a simplicial factor CHOLMOD reordered): minor < n where it
         * stops, with or without CHOLMOD_NOT_POSDEF. */
        if (ls->c.status == CHOLMOD_NOT_POSDEF || (SuiteSparse_long)ls->L->minor < ls->n) {
            *minor = (int64_t)ls->L->minor;
            return PKM_OK;
        }
        if (!ok || ls->c.status != CHOLMOD_OK)
            return PKM_FAIL(
                ctx, ls->c.status == CHOLMOD_OUT_OF_MEMORY ? PKM_ERR_NOMEM : PKM_ERR_SOLVER,
                "cholmod_l_factorize of %g K + %g M failed (status %d)", cK, cM, ls->c.status);
    }
    ls->factored = 1;
    ls->cK = cK;
    ls->cM = cM;
    return PKM_OK;
}

pkm_status pkm_linsolve_set_operator(pkm_linsolve *ls, const pkm_pencil *p, double cK, double cM,
                                     pkm_ctx *ctx)
{
    const int64_t n = ls->n, nnz = ls->nnz;
    if (p->n != n || p->nnz != nnz)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "operator of order %lld, %lld entries; analysed %lld, %lld",
                        (long long)p->n, (long long)p->nnz, (long long)n, (long long)nnz);
    /* In the factor's layout the places of L's fill stay zero. */
    const size_t size = ls->chol != NULL ? (size_t)(ls->chol->below + n) : (size_t)nnz;
    if (ls->ov == NULL && (ls->ov = calloc(size, sizeof(double))) == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate an operator of %zu entries", size);
    place_combination(p, cK, cM, ls->chol != NULL ? ls->lpos : NULL, ls->ov);
    return PKM_OK;
}

void pkm_linsolve_apply_add(const pkm_linsolve *ls, const double *x, double *y)
{
    if (ls->chol != NULL) {
        pkm_chol_symv_add(ls->chol, ls->ov, x, y);
        return;
    }
    const pkm_pencil view = {ls->n, ls->nnz, ls->colptr, ls->rowind, ls->ov, ls->ov};
    pkm_pencil_matvec_add(&view, 'K', x, y);
}

pkm_status pkm_linsolve_solve(pkm_linsolve *ls, const double *b, double *x, pkm_ctx *ctx)
{
    if (!ls->factored)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "linear solve without a factorisation");
    /* chol.c's factors solve in the caller's order (P applied in their indices). */
    if (ls->chol != NULL) {
        if (x != b) memcpy(x, b, sizeof(double) * (size_t)ls->n);
        pkm_chol_solve(ls->chol, x);
        return PKM_OK;
    }
    double *pb = ls->B->x;
    for (int64_t k = 0; k < ls->n; k++)
        pb[k] = b[ls->perm[k]];
    /* CHOLMOD's factors: cholmod_l_solve2 with its workspace kept across calls. */
    if (!cholmod_l_solve2(CHOLMOD_A, ls->L, ls->B, NULL, &ls->X, NULL, &ls->Y, &ls->E, &ls->c) ||
        ls->X == NULL)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "cholmod_l_solve2 failed (status %d)", ls->c.status);
    const double *px = ls->X->x;
    for (int64_t k = 0; k < ls->n; k++)
        x[ls->perm[k]] = px[k];
    return PKM_OK;
}

/* CHOLMOD's factors: cholmod_l_solve2 on an n x nc dense block of A(P, P) (column-major,
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
    if (ls->chol == NULL) return cholmod_solve_block(ls, (size_t)ncol, b, x, ctx);
    if (x != b) memcpy(x, b, sizeof(double) * (size_t)ls->n * (size_t)ncol);
    pkm_chol_solve_block(ls->chol, (size_t)ncol, x); /* each entry of L read once for all */
    return PKM_OK;
}

pkm_status pkm_linsolve_inertia(const pkm_linsolve *ls, const pkm_pencil *p, double rtol,
                                int64_t *negative, int64_t *tiny, pkm_ctx *ctx)
{
    *negative = 0;
    *tiny = 0;
    if (!ls->factored || ls->chol == NULL || !ls->chol->ldl || p->n != ls->n)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "inertia needs a successful LDL^T factorisation");
    const int64_t *perm = ls->perm;
    for (int64_t j = 0; j < ls->n; j++) {
        const int64_t i = perm[j];
        const int64_t qd = p->colptr[i + 1] - 1; /* the diagonal is last in its column */
        const double scale = fabs(ls->cK) * fabs(p->k[qd]) + fabs(ls->cM) * fabs(p->m[qd]);
        const double d = pkm_chol_pivot(ls->chol, j);
        if (!(fabs(d) > rtol * scale)) (*tiny)++;
        if (d < 0.0) (*negative)++;
    }
    return PKM_OK;
}

pkm_linsolve_kind pkm_linsolve_factor_kind(const pkm_linsolve *ls)
{
    if (!ls->factored) return PKM_LINSOLVE_AUTO;
    if (ls->chol != NULL) return ls->chol->ldl ? PKM_LINSOLVE_LDLT : PKM_LINSOLVE_SIMPLICIAL;
    if (ls->L->is_super) return PKM_LINSOLVE_SUPERNODAL;
    return ls->L->is_ll ? PKM_LINSOLVE_SIMPLICIAL : PKM_LINSOLVE_LDLT;
}
