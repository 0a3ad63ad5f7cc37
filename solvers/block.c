/* solvers/block.c: the warm-started block eigensolver (eigensolver "block", pkm/eigensolver.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Block subspace iteration with Rayleigh-Ritz projection (Bathe and Wilson, Numerical Methods in
 * Finite Element Analysis, 1976, sec. 10.6; Saad, Numerical Methods for Large Eigenvalue
 * Problems, 2nd ed., sec. 5.2): a block X of nev wanted + g guard vectors is multiplied by the
 * shift-invert operator (K - sigma M)^-1 M a few times, then K and M are projected onto it and the
 * small pencil is solved; repeated until the wanted Ritz pairs have converged.
 * Column j converges like ((w2_j - sigma) / (w2_{nev+g+1} - sigma))^steps, so the guards keep
 * the ratio of the last wanted mode away from 1 at near-doubles and crossings.
 *
 * Along a map, neighbouring poses have nearly the same modes: the block starts from the previous
 * solves' Ritz vectors, extrapolated to the new pose, and one or two steps suffice. A cold start
 * (first solve, another nev, a fallback before) takes the nev + g lowest modes from ARPACK. Every
 * result gets ARPACK's checks (pkm_modes_finish) and the Sylvester count
 * (pkm_modal_check_complete); a solve whose block does not converge in PKM_BLOCK_MAX_STEPS steps,
 * whose projected M is not positive definite, whose count finds a mode missing or whose pairs
 * fail the acceptance checks is solved again by ARPACK (counted in pkm_modes.fallback). */
#include "solvers/solvers_impl.h"
#include "core/core_impl.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info,
                    size_t uplo_len);
extern void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag,
                   const int *m, const int *n, const double *alpha, const double *a, const int *lda,
                   double *b, const int *ldb, size_t side_len, size_t uplo_len, size_t transa_len,
                   size_t diag_len);

/* Defaults, measured on a 60 x 60 NaVARo map (x, y in +-0.06 m, theta = -pi/3, 8 modes, the
 * serpentine walk): one shift-invert step per Rayleigh-Ritz projection with the convergence test
 * after each, so that a pose stops as soon as its wanted pairs pass (4 steps per projection
 * overshot by 2 on average). A relative residual of 1e-7 took 1.74 steps and 1.45 projections
 * per pose (tree), 1e-6 takes 1.51 and 1.31, with frequencies within 7.3e-14 of ARPACK's (1e-7:
 * 5.7e-15; the 5-PSS/UPU 30 x 30 map 3.8e-15 either way), the same tracking, and no pose handed
 * to ARPACK: the pairs that miss 1e-6 after one step also miss the backward-error half bound
 * below, which sets the pace from there (3e-6 .. 1e-4: 1.50 steps; before that test was part of
 * the convergence, 3e-6 sent poses to ARPACK at the acceptance check).
 * 8 guards instead of 4 save 10 % of the steps at 1.7 times the work per step. A pair converges
 * when its normwise backward error is also within half the acceptance bound: on the 5-PSS/UPU
 * (30 x 30 map, x, y in +-0.01 m) the residual alone let 127 of 900 poses reach the acceptance
 * check with a backward error just above 1e-10 and go to ARPACK; with it, none. After the
 * first projection the next comes after the steps the slowest wanted pair is estimated to need
 * (converged_count), at most PKM_BLOCK_AHEAD: the 5-PSS/UPU, whose pairs converge slowly near
 * its double frequencies, spent a projection (two Gram products, the small pencil, three
 * rotations) after every step: 60 x 60 map 3,607 -> 3,809 poses/s, NaVARo unchanged (its second
 * projection needs one step). */
#define PKM_BLOCK_GUARDS 4
#define PKM_BLOCK_STEPS  1
#define PKM_BLOCK_AHEAD  4
#define PKM_BLOCK_TOL    1e-6
/* Earlier solves whose Ritz vectors extrapolate the start of a warm solve (extrapolate): on the
 * map above, 0 (the last solve's vectors as they are), 1, 2, 3 earlier solves take 5.5, 3.2,
 * 2.2, 1.85 steps per pose; each costs two Gram products of the block. */
#define PKM_BLOCK_HISTORY 3
/* Shift-invert steps before a solve is handed to ARPACK. */
#define PKM_BLOCK_MAX_STEPS 32

extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info, size_t uplo_len);

/* The n x bs blocks are stored interleaved (entry i of column c at i * bs + c; as a column-major
 * matrix, the bs x n transpose), the layout of pkm_pencil_matvec_block and
 * pkm_linsolve_solve_block: every entry of M and of the factor is read once per block. */
typedef struct pkm_block {
    int64_t n;
    pkm_modal *arpack;  /* cold starts and fallbacks */
    pkm_linsolve *op;   /* LL^T of K - sigma M */
    pkm_linsolve *ldlt; /* Sylvester count */
    pkm_modes *cold;    /* ARPACK's nev + g modes of a cold start */
    int cap;            /* block columns allocated */
    int warm;           /* columns of x holding the last solve's Ritz vectors (0: none) */
    double *x, *mx, *y, *my, *t, *vec; /* n x cap each; vec column-major (pkm_modes_finish) */
    double *prev[PKM_BLOCK_HISTORY];   /* n x cap: Ritz vectors of the solves before the last one */
    int nprev;                         /* how many of them prev holds (warm solves in a row) */
    /* cap x cap: the Cholesky factor of prev[h]^T prev[h] once a fit has made it (pgram_ok[h]):
     * a block serves PKM_BLOCK_HISTORY fits, its Gram matrix is formed once */
    double *pgram[PKM_BLOCK_HISTORY];
    int pgram_ok[PKM_BLOCK_HISTORY];
    int line; /* earlier solves on the walk's line through the next pose (pkm_block_walk) */
    int para; /* the next pose completes the parallelogram of the last three (pkm_block_walk) */
    double *a, *b, *v, *vt, *w, *floor,
        *work;         /* cap x cap (a, b, v), cap x cap rounded up to 16 (vt), cap, cap, 4 cap */
    double *work2;     /* 2 n: pkm_modes_finish */
    double colnorm[2]; /* the pencil's largest column norms, K then M (iterate) */
} pkm_block;

void pkm_block_destroy(void **solver)
{
    if (solver == NULL || *solver == NULL) return;
    pkm_block *s = *solver;
    pkm_modal_destroy(&s->arpack);
    pkm_linsolve_destroy(&s->op);
    pkm_linsolve_destroy(&s->ldlt);
    pkm_modes_destroy(&s->cold);
    double **arrays[] = {&s->x,    &s->mx,      &s->y,        &s->my,       &s->t,
                         &s->vec,  &s->prev[0], &s->prev[1],  &s->prev[2],  &s->a,
                         &s->b,    &s->v,       &s->vt,       &s->w,        &s->floor,
                         &s->work, &s->work2,   &s->pgram[0], &s->pgram[1], &s->pgram[2]};
    for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++)
        free(*arrays[k]);
    free(s);
    *solver = NULL;
}

/* The next solve starts cold: ARPACK's nev + g modes, as a fresh solver's first (a map's tile
 * starts so, whatever was solved before it in the same worker). */
void pkm_block_forget(void *solver)
{
    pkm_block *s = solver;
    s->warm = 0;
    s->nprev = 0;
}

/* Where the walk turns, the earlier solves are off the line of the next pose and their
 * extrapolation is a poor start: a serpentine 30 x 30 5-PSS/UPU map took 11-12 Rayleigh-Ritz
 * rounds at the first four poses of each row against ~3 elsewhere. */
void pkm_block_walk(void *solver, int line, int parallelogram)
{
    pkm_block *s = solver;
    s->line = line;
    s->para = parallelogram;
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
    s->line = PKM_BLOCK_HISTORY + 1;
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
    double **big[] = {&s->x,   &s->mx,      &s->y,       &s->my,     &s->t,
                      &s->vec, &s->prev[0], &s->prev[1], &s->prev[2]};
    double **small[] = {&s->a,     &s->b,    &s->v,        &s->vt,       &s->w,
                        &s->floor, &s->work, &s->pgram[0], &s->pgram[1], &s->pgram[2]};
    const size_t small_size[] = {c * c, c * c, c * c, c * ((c + 15) / 16 * 16), c, c, 4 * c,
                                 c * c, c * c, c * c};
    s->cap = 0;
    s->warm = 0;
    s->nprev = 0;
    memset(s->pgram_ok, 0, sizeof(s->pgram_ok));
    pkm_modes_destroy(&s->cold);
    int bad = 0;
    for (size_t k = 0; k < sizeof(big) / sizeof(big[0]); k++) {
        free(*big[k]);
        *big[k] = malloc(n * c * sizeof(double));
        bad |= *big[k] == NULL;
    }
    for (size_t k = 0; k < sizeof(small) / sizeof(small[0]); k++) {
        free(*small[k]);
        *small[k] = malloc(small_size[k] * sizeof(double));
        bad |= *small[k] == NULL;
    }
    if (bad)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a block of %d vectors of order %lld",
                        bs, (long long)n);
    s->cap = bs;
    return pkm_modes_create(s->n, bs, &s->cold, ctx);
}

static void swap(double **a, double **b)
{
    double *t = *a;
    *a = *b;
    *b = t;
}

/* Jacobi sweeps on the symmetric bs x bs c (column-major, both triangles), rotations
 * accumulated into v (Golub and Van Loan, Matrix Computations, 4th ed., alg. 8.5.2, cyclic
 * Jacobi; the rotation of alg. 8.5.1): c becomes diagonal, the eigenvalues of the original on its
 * diagonal, c = v^T c0 v. After a warm start the projected matrix is diagonal up to the size of the
 * residuals, and Jacobi, quadratically convergent, needs one or two sweeps where the Householder
 * tridiagonalisation and QR of dsyev cost as much as for any matrix. Returns 0 if 30 sweeps
 * leave it not diagonal to rounding. */
static int jacobi(double *c, double *v, int bs)
{
    const size_t m = (size_t)bs;
    for (size_t i = 0; i < m * m; i++)
        v[i] = 0.0;
    for (size_t i = 0; i < m; i++)
        v[i * m + i] = 1.0;
    for (int sweep = 0; sweep < 30; sweep++) {
        double off = 0.0, diag = 0.0;
        for (size_t q = 0; q < m; q++) {
            diag += c[q * m + q] * c[q * m + q];
            for (size_t p = 0; p < q; p++)
                off += c[q * m + p] * c[q * m + p];
        }
        if (off <= 1e-34 * diag) return 1;
        for (size_t q = 1; q < m; q++)
            for (size_t p = 0; p < q; p++) {
                const double apq = c[q * m + p];
                /* Entries below rounding against their diagonal are set to zero, not rotated
                 * away: the last sweep of a converging run costs little. */
                if (fabs(apq) <= 1e-18 * sqrt(fabs(c[p * m + p] * c[q * m + q]))) {
                    c[q * m + p] = c[p * m + q] = 0.0;
                    continue;
                }
                const double tau = (c[q * m + q] - c[p * m + p]) / (2.0 * apq);
                const double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
                const double cs = 1.0 / sqrt(1.0 + t * t), sn = t * cs;
                for (size_t k = 0; k < m; k++) { /* columns p, q */
                    const double ckp = c[p * m + k], ckq = c[q * m + k];
                    c[p * m + k] = cs * ckp - sn * ckq;
                    c[q * m + k] = sn * ckp + cs * ckq;
                }
                for (size_t k = 0; k < m; k++) { /* rows p, q */
                    const double cpk = c[k * m + p], cqk = c[k * m + q];
                    c[k * m + p] = cs * cpk - sn * cqk;
                    c[k * m + q] = sn * cpk + cs * cqk;
                }
                for (size_t k = 0; k < m; k++) {
                    const double vkp = v[p * m + k], vkq = v[q * m + k];
                    v[p * m + k] = cs * vkp - sn * vkq;
                    v[q * m + k] = sn * vkp + cs * vkq;
                }
            }
    }
    return 0;
}

/* The small pencil A q = w B q: B = L L^T (dpotrf), C = L^-1 A L^-T, C = V diag(w) V^T by
 * jacobi, Q = L^-T V (the reduction of dsygv, LAPACK Users' Guide sec. 2.3.5, with Jacobi for
 * the symmetric problem); a and b are overwritten, Q goes to v, w ascending. Returns 0 when B
 * is not numerically positive definite or Jacobi does not converge. */
static int small_pencil(pkm_block *s, int bs)
{
    const size_t m = (size_t)bs;
    const double one = 1.0;
    int info = 0;
    dpotrf_("L", &bs, s->b, &bs, &info, 1);
    if (info != 0) return 0;
    for (size_t j = 0; j < m; j++) /* A's lower triangle from its upper one */
        for (size_t i = j + 1; i < m; i++)
            s->a[j * m + i] = s->a[i * m + j];
    dtrsm_("L", "L", "N", "N", &bs, &bs, &one, s->b, &bs, s->a, &bs, 1, 1, 1, 1);
    dtrsm_("R", "L", "T", "N", &bs, &bs, &one, s->b, &bs, s->a, &bs, 1, 1, 1, 1);
    if (!jacobi(s->a, s->v, bs)) return 0;
    for (size_t j = 0; j < m; j++) /* selection sort of the values, their vectors with them */
    {
        size_t k = j;
        for (size_t i = j + 1; i < m; i++)
            if (s->a[i * m + i] < s->a[k * m + k]) k = i;
        const double d = s->a[k * m + k];
        s->a[k * m + k] = s->a[j * m + j];
        s->a[j * m + j] = d;
        s->w[j] = d;
        for (size_t i = 0; k != j && i < m; i++) {
            const double t = s->v[k * m + i];
            s->v[k * m + i] = s->v[j * m + i];
            s->v[j * m + i] = t;
        }
    }
    dtrsm_("L", "L", "T", "N", &bs, &bs, &one, s->b, &bs, s->v, &bs, 1, 1, 1, 1);
    return 1;
}

/* Rayleigh-Ritz on span(Y) after the step Y = (K - sigma M)^-1 M X (Bathe and Wilson, sec. 10.6):
 * K Y = M X + sigma M Y, so the projections need no product with K: B = Y^T M Y and
 * A = Y^T K Y = Y^T M X + sigma B (symmetric in exact arithmetic: the mean of the two triangles
 * is kept). A Q = B Q diag(w) by small_pencil; x, mx become Y Q, M Y Q (M-orthonormal Ritz
 * vectors, values w ascending) and y K Y Q. Returns 0 when small_pencil fails (the block lost
 * rank). */
static int rayleigh_ritz(pkm_block *s, double sigma, int bs)
{
    pkm_block_gram(bs, s->n, s->y, s->my, s->b);
    pkm_block_gram(bs, s->n, s->y, s->mx, s->a);
    for (int j = 0; j < bs; j++)
        for (int k = 0; k <= j; k++) {
            const size_t jk = (size_t)j * (size_t)bs + (size_t)k,
                         kj = (size_t)k * (size_t)bs + (size_t)j;
            s->a[jk] = 0.5 * (s->a[jk] + s->a[kj]) + sigma * s->b[jk];
        }
    if (!small_pencil(s, bs)) return 0;
    const size_t nb = (size_t)s->n * (size_t)bs;
    for (size_t i = 0; i < nb; i++)
        s->t[i] = s->mx[i] + sigma * s->my[i];
    pkm_block_rotate(bs, s->n, s->v, s->y, s->vt, s->x);
    pkm_block_rotate(bs, s->n, s->v, s->my, s->vt, s->mx);
    pkm_block_rotate(bs, s->n, s->v, s->t, s->vt, s->y);
    return 1;
}

/* The leading Ritz pairs (x, mx, K x in y) whose relative residual is at most tol and whose
 * normwise backward error r / ((|K| + |w| |M|) |x|) (pkm_modes_finish's, with the column norms
 * nrm[0..1] of K and M) is at most be: a pair that would fail the acceptance check is iterated
 * further instead of being handed to ARPACK. *ahead: the shift-invert steps the first nev pairs
 * still need, from their residuals over their bounds and their convergence factors |w_j -
 * sigma| / |w_last - sigma| (Bathe and Wilson sec. 10.6; the last Ritz value stands for the
 * first eigenvalue beyond the block, so the estimate errs long), 1 to PKM_BLOCK_AHEAD. */
static int converged_count(pkm_block *s, int bs, int nev, double sigma, double tol, double be,
                           const double nrm[2], int *ahead)
{
    double *restrict r = s->work, *restrict nk = r + bs, *restrict nm = nk + bs,
                     *restrict nx = nm + bs;
    const double *restrict w = s->w;
    for (int j = 0; j < bs; j++)
        r[j] = nk[j] = nm[j] = nx[j] = 0.0;
    for (int64_t i = 0; i < s->n; i++) {
        const double *restrict kx = s->y + (size_t)i * (size_t)bs,
                               *restrict mx = s->mx + (size_t)i * (size_t)bs,
                               *restrict x = s->x + (size_t)i * (size_t)bs;
        for (int j = 0; j < bs; j++) {
            const double d = kx[j] - w[j] * mx[j];
            r[j] += d * d;
            nk[j] += kx[j] * kx[j];
            nm[j] += mx[j] * mx[j];
            nx[j] += x[j] * x[j];
        }
    }
    int conv = bs;
    *ahead = 1;
    const double far = fabs(s->w[bs - 1] - sigma);
    for (int j = 0; j < bs; j++) {
        const double rj = sqrt(r[j]), lr = tol * (sqrt(nk[j]) + fabs(s->w[j]) * sqrt(nm[j])),
                     lb = be * (nrm[0] + fabs(s->w[j]) * nrm[1]) * sqrt(nx[j]);
        if (rj <= lr && rj <= lb) continue;
        if (conv == bs) conv = j;
        if (j >= nev) break;
        const double ratio = rj / fmin(lr, lb), rho = fabs(s->w[j] - sigma) / far;
        const double need = rho < 1.0 && ratio < 1e300 ? ceil(log(ratio) / -log(rho)) : 1e9;
        if (need > *ahead) *ahead = need < PKM_BLOCK_AHEAD ? (int)need : PKM_BLOCK_AHEAD;
    }
    return conv;
}

/* One shift-invert step: y = (K - sigma M)^-1 mx, my = M y. Unless it is the last before a
 * Rayleigh-Ritz projection, y becomes the next x, each column scaled to unit 2-norm so that the
 * block's columns keep comparable sizes. */
static pkm_status shift_invert(pkm_block *s, const pkm_pencil *p, int bs, int last, pkm_ctx *ctx)
{
    pkm_status rc = pkm_linsolve_solve_block(s->op, bs, s->mx, s->y, ctx);
    if (rc != PKM_OK) return rc;
    if (!last) {
        double *nrm = s->work;
        for (int j = 0; j < bs; j++)
            nrm[j] = 0.0;
        for (int64_t i = 0; i < s->n; i++)
            for (int j = 0; j < bs; j++)
                nrm[j] += s->y[(size_t)i * (size_t)bs + (size_t)j] *
                          s->y[(size_t)i * (size_t)bs + (size_t)j];
        for (int j = 0; j < bs; j++)
            nrm[j] = nrm[j] > 0.0 ? 1.0 / sqrt(nrm[j]) : 1.0;
        for (int64_t i = 0; i < s->n; i++)
            for (int j = 0; j < bs; j++)
                s->y[(size_t)i * (size_t)bs + (size_t)j] *= nrm[j];
        swap(&s->x, &s->y);
    }
    pkm_pencil_matvec_block(p, 'M', bs, last ? s->y : s->x, last ? s->my : s->mx);
    return PKM_OK;
}

/* out = X0 C, C = (X0^T X0)^-1 X0^T X1: the least-squares fit of X1 (the block x) in the span of
 * X0 (the block prev[h]), which also undoes the rotations and sign changes of the Ritz vectors
 * between two solves (dposv's steps, X0^T X0 factored once per block). Returns 0 if X0^T X0 is
 * not numerically positive definite. */
static int fit(pkm_block *s, int h, int bs, double *out)
{
    int info = 0;
    const double *x0 = s->prev[h];
    if (!s->pgram_ok[h]) {
        pkm_block_gram(bs, s->n, x0, x0, s->pgram[h]);
        dpotrf_("U", &bs, s->pgram[h], &bs, &info, 1);
        if (info != 0) return 0;
        s->pgram_ok[h] = 1;
    }
    pkm_block_gram(bs, s->n, x0, s->x, s->b);
    dpotrs_("U", &bs, &bs, s->pgram[h], &bs, s->b, &bs, &info, 1);
    if (info == 0) pkm_block_rotate(bs, s->n, s->b, x0, s->vt, out);
    return info == 0;
}

/* x = c0 x + c1 f0 + ... + ck f(k-1), k = 0 .. PKM_BLOCK_HISTORY, the terms added in that order;
 * one loop per k, so that each is a vector loop. */
_Static_assert(PKM_BLOCK_HISTORY == 3, "combine has one loop per history length");
static void combine(double *restrict x, size_t nb, const double *c, int k,
                    double *const f[PKM_BLOCK_HISTORY])
{
    const double *restrict f0 = f[0], *restrict f1 = f[1], *restrict f2 = f[2];
    switch (k) {
    case 0:
        for (size_t i = 0; i < nb; i++)
            x[i] = c[0] * x[i];
        break;
    case 1:
        for (size_t i = 0; i < nb; i++)
            x[i] = c[0] * x[i] + c[1] * f0[i];
        break;
    case 2:
        for (size_t i = 0; i < nb; i++)
            x[i] = c[0] * x[i] + c[1] * f0[i] + c[2] * f1[i];
        break;
    default:
        for (size_t i = 0; i < nb; i++)
            x[i] = c[0] * x[i] + c[1] * f0[i] + c[2] * f1[i] + c[3] * f2[i];
        break;
    }
}

/* The start block of a warm solve. x holds the last solve's Ritz vectors X1, prev[0..nprev)
 * those of the solves before, X0, X-1, ... Along a walk the modes move smoothly with the pose,
 * and so does the fit of X1 in the span of each earlier block (fit): the start is the polynomial
 * extrapolation of those fits F(1) = X1, F(0), F(-1), ... to the next pose of the walk (Newton's
 * backward differences on equal steps: 2 F(1) - F(0), 3 F(1) - 3 F(0) + F(-1), 4 F(1) - 6 F(0) +
 * 4 F(-1) - F(-2)), of error O(h^(k+1)) in the pose step h with k earlier blocks, where X1 alone
 * is O(h) (PKM_BLOCK_HISTORY), using only the earlier solves on the walk's line through the next
 * pose (pkm_block_walk). After a turn of the walk the next pose completes the parallelogram of
 * the last three, F(1) - F(0) + F(-1), of error O(h^2). Where the walk skips a pose the guess is
 * poorer, and the iteration only takes longer. The blocks are shifted: prev[0] becomes X1. */
static void extrapolate(pkm_block *s, int bs)
{
    static const double coef[PKM_BLOCK_HISTORY + 1][PKM_BLOCK_HISTORY + 1] = {
        {1.0}, {2.0, -1.0}, {3.0, -3.0, 1.0}, {4.0, -6.0, 4.0, -1.0}};
    static const double parallelogram[PKM_BLOCK_HISTORY + 1] = {1.0, -1.0, 1.0};
    const size_t nb = (size_t)s->n * (size_t)bs;
    double *f[PKM_BLOCK_HISTORY] = {s->t, s->y, s->my};
    const int want = s->para ? 2 : s->line - 1;
    int k = 0, failed = 0;
    while (k < want && k < s->nprev && !failed)
        if (!(failed = !fit(s, k, bs, f[k]))) k++;
    const double *c = s->para ? (k == 2 ? parallelogram : coef[0]) : coef[k];
    if (s->para && k < 2) k = 0;
    double *last = s->prev[PKM_BLOCK_HISTORY - 1], *lastg = s->pgram[PKM_BLOCK_HISTORY - 1];
    for (int h = PKM_BLOCK_HISTORY - 1; h > 0; h--) {
        s->prev[h] = s->prev[h - 1];
        s->pgram[h] = s->pgram[h - 1];
        s->pgram_ok[h] = s->pgram_ok[h - 1];
    }
    s->prev[0] = last;
    s->pgram[0] = lastg;
    s->pgram_ok[0] = 0;
    memcpy(s->prev[0], s->x, nb * sizeof(double));
    combine(s->x, nb, c, k, f);
    /* The earlier blocks stay usable unless a fit found one degenerate. */
    const int held = failed ? k + 1 : s->nprev + 1;
    s->nprev = held < PKM_BLOCK_HISTORY ? held : PKM_BLOCK_HISTORY;
}

/* Column-major copy (n x bs) of the interleaved block x, for the per-vector routines. */
static void unpack(const pkm_block *s, int bs)
{
    const size_t n = (size_t)s->n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < (size_t)bs; j++)
            s->vec[j * n + i] = s->x[i * (size_t)bs + j];
}

/* The block iteration from the vectors in x: shift-invert steps, a Rayleigh-Ritz projection
 * after every `steps` of them and the convergence test after each projection, so that a pose
 * stops at the first projection whose nev wanted pairs pass. *done: 1 if nev pairs converged and
 * the Sylvester count found none missing, 0 if the solve should go to ARPACK. */
static pkm_status iterate(pkm_block *s, const pkm_pencil *p, const pkm_modal_opts *opts,
                          double sigma, int bs, int *done, pkm_modes *out, pkm_ctx *ctx)
{
    int steps = opts->block_steps > 0 ? opts->block_steps : PKM_BLOCK_STEPS;
    const double tol = opts->block_tol > 0.0 ? opts->block_tol : PKM_BLOCK_TOL;
    /* Half the acceptance bound: the final check recomputes the residual from the unpacked
     * vectors, which may differ in the last digits. */
    const double be = 0.5 * pkm_modal_max_backward(opts);
    double *nrm = s->colnorm;
    nrm[0] = pkm_modal_column_norm(p, p->k, s->work2);
    nrm[1] = pkm_modal_column_norm(p, p->m, s->work2);
    *done = 0;
    pkm_pencil_matvec_block(p, 'M', bs, s->x, s->mx);
    for (int round = 1, taken = 0; taken + steps <= PKM_BLOCK_MAX_STEPS; round++) {
        for (int k = 1; k <= steps; k++) {
            pkm_status rc = shift_invert(s, p, bs, k == steps, ctx);
            if (rc != PKM_OK) return rc;
        }
        taken += steps;
        out->iterations = round;
        out->op_count += steps * bs;
        if (!rayleigh_ritz(s, sigma, bs)) return PKM_OK;
        int ahead = 1;
        const int nconv = converged_count(s, bs, opts->nev, sigma, tol, be, nrm, &ahead);
        /* Unless the caller fixed it, the next projection comes after the steps the slowest
         * wanted pair needs, not after one. */
        if (opts->block_steps <= 0) steps = ahead;
        if (nconv < opts->nev) continue;
        unpack(s, bs);
        pkm_modal_rounding_floors(p, s->x, bs, nconv, s->w, s->floor, s->work);
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
    const size_t n = (size_t)s->n;
    if (*ok)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < (size_t)bs; j++)
                s->x[i * (size_t)bs + j] = s->cold->vectors[j * n + i];
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
    if (ok) extrapolate(s, bs);
    if (!ok) {
        s->nprev = 0;
        rc = cold_start(s, p, opts, bs, &ok, ctx);
    }
    if (rc == PKM_OK && ok) rc = iterate(s, p, opts, sigma, bs, &done, out, ctx);
    if (rc != PKM_OK) return rc;
    /* A block whose pairs pass the convergence test but not the acceptance checks (a backward
     * error or an orthonormality just above its bound) goes to ARPACK as well. */
    if (done) {
        pkm_ctx scratch;
        pkm_ctx_clear(&scratch);
        rc = pkm_modes_finish(p, opts, s->w, s->floor, s->colnorm, s->vec, NULL, s->work2, out,
                              &scratch);
        if (rc == PKM_ERR_NOMEM) return PKM_FAIL(ctx, rc, "%s", scratch.msg);
        if (rc == PKM_OK) {
            out->sigma = sigma;
            s->warm = bs;
            return PKM_OK;
        }
    }
    s->warm = 0;
    rc = pkm_modal_solve(s->arpack, p, opts, out, ctx);
    out->fallback = 1;
    return rc;
}
