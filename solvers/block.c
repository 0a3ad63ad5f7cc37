/* solvers/block.c: the warm-started block eigensolver (eigensolver "block", pkm/eigensolver.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Block subspace iteration with Rayleigh-Ritz projection (Bathe and Wilson, Numerical Methods in
 * Finite Element Analysis, 1976, sec. 10.6; Saad, Numerical Methods for Large Eigenvalue
 * Problems, 2nd ed., sec. 5.2): a block X of nev wanted + g guard vectors is multiplied by the
 * shift-invert operator (K - sigma M)^-1 M a few times, then K and M are projected onto it and the
 * small pencil is solved (LAPACK dsygv); repeated until the wanted Ritz pairs have converged.
 * Column j converges like ((w2_j - sigma) / (w2_{nev+g+1} - sigma))^steps, so the guards keep
 * the ratio of the last wanted mode away from 1 at near-doubles and crossings.
 *
 * Along a map, neighbouring poses have nearly the same modes: the block starts from the previous
 * solve's Ritz vectors, and one or two projections suffice. A cold start (first solve, another
 * nev, a fallback before) takes the nev + g lowest modes from ARPACK. Every result gets ARPACK's
 * checks (pkm_modes_finish) and the Sylvester count (pkm_modal_check_complete); a solve whose
 * block does not converge in PKM_BLOCK_ROUNDS projections, whose projected M is not positive
 * definite, or whose count finds a mode missing is solved again by ARPACK (counted in
 * pkm_modes.fallback). */
#include "solvers/solvers_impl.h"
#include "core/core_impl.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
                   const int *lda, double *b, const int *ldb, double *w, double *work,
                   const int *lwork, int *info, size_t jobz_len, size_t uplo_len);

/* Defaults, measured on the 60 x 60 NaVARo map (x, y in +-0.3 m, 218 reachable poses, 8 modes,
 * tree): 4 guards and 4 steps converge in 2-3 projections per pose (8 guards and 2 steps: 3-5;
 * 8 guards and 1 step: 6-8 and 4 fallbacks). A relative residual of 1e-8 gives frequencies
 * within 1.4e-11 of ARPACK's (their error is quadratic in the residual); at 1e-6 some poses
 * failed the backward-error acceptance test. */
#define PKM_BLOCK_GUARDS 4
#define PKM_BLOCK_STEPS  4
#define PKM_BLOCK_TOL    1e-8
/* Projections before a solve is handed to ARPACK. */
#define PKM_BLOCK_ROUNDS 8

typedef struct pkm_block {
    int64_t n;
    pkm_modal *arpack;           /* cold starts and fallbacks */
    pkm_linsolve *op;            /* LL^T of K - sigma M */
    pkm_linsolve *ldlt;          /* Sylvester count */
    pkm_modes *cold;             /* ARPACK's nev + g modes of a cold start */
    int cap;                     /* block columns allocated */
    int warm;                    /* columns of x holding the last solve's Ritz vectors (0: none) */
    double *x, *y, *kx, *mx, *t; /* n x cap each */
    double *a, *b, *w, *floor, *work; /* cap x cap, cap x cap, cap, cap, lwork */
    int lwork;
    double *work2; /* 2 n: pkm_modes_finish */
} pkm_block;

void pkm_block_destroy(void **solver)
{
    if (solver == NULL || *solver == NULL) return;
    pkm_block *s = *solver;
    pkm_modal_destroy(&s->arpack);
    pkm_linsolve_destroy(&s->op);
    pkm_linsolve_destroy(&s->ldlt);
    pkm_modes_destroy(&s->cold);
    double **arrays[] = {&s->x, &s->y, &s->kx,    &s->mx,   &s->t,    &s->a,
                         &s->b, &s->w, &s->floor, &s->work, &s->work2};
    for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++)
        free(*arrays[k]);
    free(s);
    *solver = NULL;
}

pkm_status pkm_block_create(const pkm_pencil *pattern, void **solver, pkm_ctx *ctx)
{
    *solver = NULL;
    pkm_status rc = PKM_OK;
    pkm_block *s = calloc(1, sizeof(*s));
    if (s == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the block solver");
    rc = pkm_modal_create(pattern, &s->arpack, ctx);
    if (rc == PKM_OK) rc = pkm_linsolve_create(pattern, PKM_LINSOLVE_AUTO, &s->op, ctx);
    if (rc == PKM_OK) rc = pkm_linsolve_create(pattern, PKM_LINSOLVE_LDLT, &s->ldlt, ctx);
    if (rc != PKM_OK) goto fail;
    s->n = pattern->n;
    s->work2 = malloc(2 * (size_t)s->n * sizeof(double));
    if (s->work2 == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the block solver");
        goto fail;
    }
    *solver = s;
    return PKM_OK;
fail:
    pkm_block_destroy((void **)&s);
    return rc;
}

/* Room for a block of bs columns; a new size forgets the warm start. */
static pkm_status ensure_block(pkm_block *s, int bs, pkm_ctx *ctx)
{
    if (bs == s->cap) return PKM_OK;
    const size_t n = (size_t)s->n, c = (size_t)bs;
    double **big[] = {&s->x, &s->y, &s->kx, &s->mx, &s->t};
    double **small[] = {&s->a, &s->b, &s->w, &s->floor, &s->work};
    const size_t small_size[] = {c * c, c * c, c, c, 64 * c};
    s->cap = 0;
    s->warm = 0;
    pkm_modes_destroy(&s->cold);
    int bad = 0;
    for (size_t k = 0; k < 5; k++) {
        free(*big[k]);
        free(*small[k]);
        *big[k] = malloc(n * c * sizeof(double));
        *small[k] = malloc(small_size[k] * sizeof(double));
        bad |= *big[k] == NULL || *small[k] == NULL;
    }
    if (bad)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a block of %d vectors of order %lld",
                        bs, (long long)n);
    s->lwork = 64 * bs;
    s->cap = bs;
    return pkm_modes_create(s->n, bs, &s->cold, ctx);
}

/* y_j = (K - sigma M)^-1 M x_j for the bs columns, each scaled to unit 2-norm so that the block's
 * columns keep comparable sizes (their directions are what the projection uses). */
static pkm_status shift_invert(pkm_block *s, const pkm_pencil *p, int bs, pkm_ctx *ctx)
{
    const size_t n = (size_t)s->n;
    for (int j = 0; j < bs; j++) {
        double *x = s->x + (size_t)j * n, *t = s->t + (size_t)j * n;
        pkm_pencil_matvec(p, 'M', x, t);
        pkm_status rc = pkm_linsolve_solve(s->op, t, x, ctx);
        if (rc != PKM_OK) return rc;
        double nrm = 0.0;
        for (size_t i = 0; i < n; i++)
            nrm += x[i] * x[i];
        nrm = sqrt(nrm);
        if (nrm > 0.0)
            for (size_t i = 0; i < n; i++)
                x[i] /= nrm;
    }
    return PKM_OK;
}

/* out = in Q for the n x bs block in and the bs x bs Q (column-major). */
static void rotate(const double *in, const double *q, int bs, size_t n, double *out)
{
    for (int j = 0; j < bs; j++) {
        double *o = out + (size_t)j * n;
        memset(o, 0, n * sizeof(double));
        for (int k = 0; k < bs; k++) {
            const double c = q[(size_t)j * (size_t)bs + (size_t)k];
            const double *v = in + (size_t)k * n;
            for (size_t i = 0; i < n; i++)
                o[i] += c * v[i];
        }
    }
}

/* Rayleigh-Ritz on span(x): A = X^T K X, B = X^T M X, A Q = B Q diag(w) by dsygv; x, kx, mx
 * become X Q, K X Q, M X Q (M-orthonormal Ritz vectors, values w ascending). Returns 0 when B
 * is not numerically positive definite (the block lost rank) or dsygv fails otherwise. */
static int rayleigh_ritz(pkm_block *s, const pkm_pencil *p, int bs)
{
    const size_t n = (size_t)s->n;
    for (int j = 0; j < bs; j++) {
        pkm_pencil_matvec(p, 'K', s->x + (size_t)j * n, s->kx + (size_t)j * n);
        pkm_pencil_matvec(p, 'M', s->x + (size_t)j * n, s->mx + (size_t)j * n);
    }
    for (int j = 0; j < bs; j++)
        for (int k = 0; k <= j; k++) {
            const double *xk = s->x + (size_t)k * n, *kj = s->kx + (size_t)j * n,
                         *mj = s->mx + (size_t)j * n;
            double a = 0.0, b = 0.0;
            for (size_t i = 0; i < n; i++) {
                a += xk[i] * kj[i];
                b += xk[i] * mj[i];
            }
            s->a[(size_t)j * (size_t)bs + (size_t)k] = a;
            s->b[(size_t)j * (size_t)bs + (size_t)k] = b;
        }
    const int itype = 1;
    int info = 0;
    dsygv_(&itype, "V", "U", &bs, s->a, &bs, s->b, &bs, s->w, s->work, &s->lwork, &info, 1, 1);
    if (info != 0) return 0;
    double *from[] = {s->x, s->kx, s->mx};
    for (int k = 0; k < 3; k++) {
        rotate(from[k], s->a, bs, n, s->t);
        memcpy(from[k], s->t, n * (size_t)bs * sizeof(double));
    }
    return 1;
}

/* The leading Ritz pairs whose relative residual is at most tol. */
static int converged_count(const pkm_block *s, int bs, double tol)
{
    const size_t n = (size_t)s->n;
    for (int j = 0; j < bs; j++) {
        const double *kx = s->kx + (size_t)j * n, *mx = s->mx + (size_t)j * n, w = s->w[j];
        double r = 0.0, nk = 0.0, nm = 0.0;
        for (size_t i = 0; i < n; i++) {
            const double d = kx[i] - w * mx[i];
            r += d * d;
            nk += kx[i] * kx[i];
            nm += mx[i] * mx[i];
        }
        if (!(sqrt(r) <= tol * (sqrt(nk) + fabs(w) * sqrt(nm)))) return j;
    }
    return bs;
}

/* The block iteration from the vectors in x. *done: 1 if nev pairs converged and the Sylvester
 * count found none missing, 0 if the solve should go to ARPACK. */
static pkm_status iterate(pkm_block *s, const pkm_pencil *p, const pkm_modal_opts *opts, int bs,
                          int *done, pkm_modes *out, pkm_ctx *ctx)
{
    const int steps = opts->block_steps > 0 ? opts->block_steps : PKM_BLOCK_STEPS;
    const double tol = opts->block_tol > 0.0 ? opts->block_tol : PKM_BLOCK_TOL;
    *done = 0;
    for (int round = 1; round <= PKM_BLOCK_ROUNDS; round++) {
        for (int k = 0; k < steps; k++) {
            pkm_status rc = shift_invert(s, p, bs, ctx);
            if (rc != PKM_OK) return rc;
        }
        out->iterations = round;
        out->op_count += steps * bs;
        if (!rayleigh_ritz(s, p, bs)) return PKM_OK;
        const int nconv = converged_count(s, bs, tol);
        if (nconv < opts->nev) continue;
        for (int j = 0; j < nconv; j++)
            s->floor[j] = pkm_modal_rounding_floor(p, s->x + (size_t)j * (size_t)s->n, s->w[j]);
        int missing = 0;
        pkm_status rc = pkm_modal_check_complete(s->ldlt, p, s->w, s->floor, opts->nev, nconv,
                                                 &missing, NULL, ctx);
        if (rc != PKM_OK) return rc;
        *done = missing == 0;
        return PKM_OK;
    }
    return PKM_OK;
}

/* Cold start: the nev + g lowest modes by ARPACK into x. *ok = 0 if ARPACK could not give that
 * many (the solve then goes to ARPACK for nev alone). */
static pkm_status cold_start(pkm_block *s, const pkm_pencil *p, const pkm_modal_opts *opts, int bs,
                             int *ok, pkm_ctx *ctx)
{
    pkm_modal_opts o = *opts;
    o.nev = bs;
    s->cold->nev = bs;
    pkm_ctx scratch;
    pkm_ctx_clear(&scratch);
    const pkm_status rc = pkm_modal_solve(s->arpack, p, &o, s->cold, &scratch);
    *ok = rc == PKM_OK;
    if (rc == PKM_ERR_NOMEM) return PKM_FAIL(ctx, rc, "%s", scratch.msg);
    if (*ok) memcpy(s->x, s->cold->vectors, (size_t)s->n * (size_t)bs * sizeof(double));
    return PKM_OK;
}

pkm_status pkm_block_solve(void *solver, const pkm_pencil *p, const pkm_modal_opts *opts,
                           pkm_modes *out, pkm_ctx *ctx)
{
    pkm_block *s = solver;
    if (s == NULL) return PKM_FAIL(ctx, PKM_ERR_INVALID, "block solve: NULL solver");
    pkm_status rc = pkm_modal_check_args(p, opts, out, ctx);
    if (rc == PKM_OK) rc = pkm_linsolve_check_pattern(s->op, p, ctx);
    if (rc != PKM_OK) return rc;
    const int guards = opts->block_guards > 0 ? opts->block_guards : PKM_BLOCK_GUARDS;
    const int bs = (int)(opts->nev + guards < s->n - 1 ? opts->nev + guards : s->n - 1);
    rc = ensure_block(s, bs, ctx);
    if (rc != PKM_OK) return rc;
    out->zero_modes = 0;
    out->iterations = 0;
    out->op_count = 0;
    out->fallback = 0;
    pkm_lapack_clear();
    double sigma = opts->sigma;
    rc = pkm_modal_choose_shift(s->op, p, &sigma, ctx);
    if (rc != PKM_OK) return rc;
    int ok = s->warm == bs, done = 0;
    if (!ok) rc = cold_start(s, p, opts, bs, &ok, ctx);
    if (rc == PKM_OK && ok) rc = iterate(s, p, opts, bs, &done, out, ctx);
    if (rc != PKM_OK) return rc;
    if (!done) {
        s->warm = 0;
        rc = pkm_modal_solve(s->arpack, p, opts, out, ctx);
        out->fallback = 1;
        return rc;
    }
    rc = pkm_modes_finish(p, opts, s->w, s->floor, s->x, NULL, s->work2, out, ctx);
    out->sigma = sigma;
    s->warm = rc == PKM_OK ? bs : 0;
    return rc;
}
