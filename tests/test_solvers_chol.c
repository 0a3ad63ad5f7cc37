/* tests/test_solvers_chol.c: the panel L D L^T of solvers/chol.c (pkm_chol_*) against dense LAPACK
 * on random symmetric matrices of the shapes its panels take: 3 x 3 node blocks (planar beams,
 * 3-wide panels), 6 x 6 blocks (spatial beams, cut 3 + 3), arrowheads and random patterns (fill,
 * 1- and 2-wide panels), diagonal and dense matrices, each under a random permutation.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "solvers/chol_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
                   double *b, const int *ldb, int *info, size_t uplo_len);
extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                   double *w, double *work, const int *lwork, int *info, size_t jobz_len,
                   size_t uplo_len);

enum { KINDS = 6, NC = 12 };

static uint64_t seed;

static double urand(void)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(seed >> 11) * 0x1.0p-53;
}

/* Whether (i, j) is in the pattern of kind: 0 random (density 0.15), 1 3 x 3 node blocks of a
 * chain, 2 6 x 6 node blocks of a chain, 3 arrowhead (the last row full), 4 diagonal, 5 dense. */
static int in_pattern(int kind, int i, int j, int n)
{
    if (i == j || kind == 5) return 1;
    switch (kind) {
    case 0:
        return urand() < 0.15;
    case 1:
        return abs(i / 3 - j / 3) <= 1;
    case 2:
        return abs(i / 6 - j / 6) <= 1;
    case 3:
        return i == n - 1 || j == n - 1;
    default:
        return 0;
    }
}

/* A dense symmetric n x n matrix of the kind (column-major), diagonally dominant by 1 and then
 * shifted by -shift on its diagonal (shift 0: positive definite). */
static void random_matrix(int kind, int n, double shift, double *A)
{
    memset(A, 0, sizeof(double) * (size_t)n * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < j; i++)
            if (in_pattern(kind, i, j, n)) A[i + j * n] = A[j + i * n] = 2.0 * urand() - 1.0;
    for (int j = 0; j < n; j++) {
        double s = 1.0 + urand();
        for (int i = 0; i < n; i++)
            s += i != j ? fabs(A[i + j * n]) : 0.0;
        A[j + j * n] = s - shift;
    }
}

/* The upper triangle of A(P, P) in compressed columns, every diagonal stored (the caller's view
 * of pkm_chol_create: row k of the permuted matrix is row perm[k] of A). */
static int64_t permuted_upper(int n, const double *A, const int64_t *perm, int64_t *ap, int64_t *ai,
                              double *ax)
{
    int64_t q = 0;
    for (int j = 0; j < n; j++) {
        ap[j] = q;
        for (int i = 0; i <= j; i++) {
            const double v = A[perm[i] + perm[j] * n];
            if (v != 0.0 || i == j) {
                ai[q] = i;
                ax[q++] = v;
            }
        }
    }
    ap[n] = q;
    return q;
}

typedef struct problem {
    int n;
    double *A, *ax;
    int64_t *perm, *ap, *ai;
    pkm_chol *c;
} problem;

/* A problem of the kind; permute: under a random permutation, else in its own order. */
static problem make_problem(int kind, int n, double shift, int permute)
{
    problem p = {.n = n};
    p.A = malloc(sizeof(double) * (size_t)n * (size_t)n);
    p.ax = malloc(sizeof(double) * (size_t)n * (size_t)n);
    p.perm = malloc(sizeof(int64_t) * (size_t)n);
    p.ap = malloc(sizeof(int64_t) * (size_t)(n + 1));
    p.ai = malloc(sizeof(int64_t) * (size_t)n * (size_t)n);
    assert_true(p.A && p.ax && p.perm && p.ap && p.ai);
    random_matrix(kind, n, shift, p.A);
    for (int k = 0; k < n; k++)
        p.perm[k] = k;
    for (int k = n - 1; permute && k > 0; k--) { /* Fisher-Yates */
        const int r = (int)(urand() * (k + 1));
        const int64_t t = p.perm[k];
        p.perm[k] = p.perm[r];
        p.perm[r] = t;
    }
    permuted_upper(n, p.A, p.perm, p.ap, p.ai, p.ax);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_chol_create(n, p.ap, p.ai, p.perm, &p.c, &ctx), &ctx);
    return p;
}

static void free_problem(problem *p)
{
    pkm_chol_destroy(&p->c);
    assert_null(p->c);
    free(p->A);
    free(p->ax);
    free(p->perm);
    free(p->ap);
    free(p->ai);
}

/* Factorise the problem's A: the return of pkm_chol_factor. */
static int64_t factor(problem *p, int ldl)
{
    double *v = pkm_chol_values(p->c);
    for (int64_t q = 0; q < p->ap[p->n]; q++)
        v[p->c->amap[q]] = p->ax[q];
    return pkm_chol_factor(p->c, ldl);
}

static double max_abs(const double *x, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* A positive definite: one-vector and block solves against LAPACK's dposv, the product by A on
 * the factor's layout against the dense product. */
static void check_definite(int kind, int n)
{
    problem p = make_problem(kind, n, 0.0, 1);
    assert_int_equal(factor(&p, 0), n);
    double *b = malloc(sizeof(double) * (size_t)n * NC), *x = malloc(sizeof(double) * (size_t)n);
    double *ref = malloc(sizeof(double) * (size_t)n * NC), *Ad = malloc(sizeof(double) * n * n);
    double *blk = malloc(sizeof(double) * (size_t)n * NC), *vals = NULL;
    assert_true(b && x && ref && Ad && blk);
    for (int i = 0; i < n * NC; i++)
        b[i] = 2.0 * urand() - 1.0;
    memcpy(Ad, p.A, sizeof(double) * (size_t)n * (size_t)n);
    memcpy(ref, b, sizeof(double) * (size_t)n * NC);
    int info = 0, nn = n, nrhs = NC;
    dposv_("L", &nn, &nrhs, Ad, &nn, ref, &nn, &info, 1);
    assert_int_equal(info, 0);
    for (int c = 0; c < NC; c++) {
        const double *r = ref + (size_t)c * (size_t)n, scale = max_abs(r, n);
        memcpy(x, b + (size_t)c * (size_t)n, sizeof(double) * (size_t)n);
        pkm_chol_solve(p.c, x);
        for (int i = 0; i < n; i++) {
            assert_close(x[i], r[i], 0.0, 1e-13 * scale);
            blk[i * NC + c] = b[(size_t)c * (size_t)n + (size_t)i];
        }
    }
    pkm_chol_solve_block(p.c, NC, blk);
    for (int c = 0; c < NC; c++)
        for (int i = 0; i < n; i++)
            assert_close(blk[i * NC + c], ref[(size_t)c * (size_t)n + (size_t)i], 0.0,
                         1e-13 * max_abs(ref + (size_t)c * (size_t)n, n));
    /* y + A x on the factor's layout (the values as placed before the factorisation). */
    vals = calloc((size_t)(p.c->below + n), sizeof(double));
    assert_non_null(vals);
    for (int64_t q = 0; q < p.ap[n]; q++)
        vals[p.c->amap[q]] = p.ax[q];
    for (int i = 0; i < n; i++) {
        x[i] = b[i];
        ref[i] = b[n + i];
        for (int j = 0; j < n; j++)
            ref[i] += p.A[i + j * n] * b[j];
    }
    memcpy(blk, b + n, sizeof(double) * (size_t)n);
    pkm_chol_symv_add(p.c, vals, x, blk);
    for (int i = 0; i < n; i++)
        assert_close(blk[i], ref[i], 0.0, 1e-14 * (double)n * max_abs(ref, n));
    free(vals);
    free(b);
    free(x);
    free(ref);
    free(Ad);
    free(blk);
    free_problem(&p);
}

/* A indefinite: LDL^T's negative pivots count A's negative eigenvalues (Sylvester; dsyev), and
 * LL^T stops at the first pivot that is not positive, the column of the same elimination done
 * densely on A(P, P). */
static void check_indefinite(int kind, int n)
{
    problem p = make_problem(kind, n, 0.0, 1);
    /* Shift into the spectrum: half the diagonal's mean. */
    double mean = 0.0;
    for (int j = 0; j < n; j++)
        mean += p.A[j + j * n] / n;
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = p.ap[j]; q < p.ap[j + 1]; q++)
            if (p.ai[q] == j) p.ax[q] -= 0.5 * mean;
    for (int j = 0; j < n; j++)
        p.A[j + j * n] -= 0.5 * mean;
    double *Ad = malloc(sizeof(double) * (size_t)n * (size_t)n), *w = malloc(sizeof(double) * n);
    int lwork = 3 * n + 8, info = 0, nn = n;
    double *work = malloc(sizeof(double) * (size_t)lwork);
    assert_true(Ad && w && work);
    memcpy(Ad, p.A, sizeof(double) * (size_t)n * (size_t)n);
    dsyev_("N", "L", &nn, Ad, &nn, w, work, &lwork, &info, 1, 1);
    assert_int_equal(info, 0);
    int negative = 0;
    for (int i = 0; i < n; i++)
        negative += w[i] < 0.0;
    if (factor(&p, 1) == n) {
        int counted = 0;
        for (int j = 0; j < n; j++)
            counted += pkm_chol_pivot(p.c, j) < 0.0;
        assert_int_equal(counted, negative);
    }
    /* Dense right-looking elimination of A(P, P) without pivoting: its first pivot <= 0. */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            Ad[i + j * n] = p.A[p.perm[i] + p.perm[j] * n];
    int first = n;
    for (int k = 0; k < n && first == n; k++) {
        if (!(Ad[k + k * n] > 0.0)) {
            first = k;
            break;
        }
        for (int j = k + 1; j < n; j++)
            for (int i = k + 1; i < n; i++)
                Ad[i + j * n] -= Ad[i + k * n] * Ad[k + j * n] / Ad[k + k * n];
    }
    assert_int_equal(factor(&p, 0), first);
    free(Ad);
    free(w);
    free(work);
    free_problem(&p);
}

static void test_definite(void **state)
{
    (void)state;
    const int sizes[] = {1, 2, 3, 5, 6, 17, 40, 64};
    seed = 12345;
    for (int kind = 0; kind < KINDS; kind++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            for (int rep = 0; rep < 3; rep++)
                check_definite(kind, sizes[s]);
}

static void test_indefinite(void **state)
{
    (void)state;
    const int sizes[] = {2, 3, 6, 17, 40};
    seed = 67890;
    for (int kind = 0; kind < KINDS; kind++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            for (int rep = 0; rep < 3; rep++)
                check_indefinite(kind, sizes[s]);
}

/* The panels cover every column once, with widths 1 to 3; in their own order a chain of node
 * blocks makes 3-wide panels (the 6 x 6 blocks cut 3 + 3) and a diagonal matrix none wider than
 * 1. */
static void test_panels(void **state)
{
    (void)state;
    seed = 4242;
    for (int kind = 0; kind < KINDS; kind++) {
        problem p = make_problem(kind, 40, 0.0, 0);
        int seen[40] = {0}, widths[PKM_CHOL_PANEL + 1] = {0};
        for (int64_t k = 0; k < p.c->np; k++) {
            const pkm_chol_panel *pn = &p.c->panel[k];
            assert_true(pn->w >= 1 && pn->w <= PKM_CHOL_PANEL);
            widths[pn->w]++;
            for (int i = 0; i < pn->w; i++)
                seen[pn->col[i]]++;
        }
        for (int i = 0; i < 40; i++)
            assert_int_equal(seen[i], 1);
        if (kind == 1 || kind == 2) assert_true(widths[3] >= 10); /* node blocks: 3-wide */
        if (kind == 4) assert_int_equal(widths[1], 40);           /* diagonal: no panel joins */
        free_problem(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_panels),
        cmocka_unit_test(test_definite),
        cmocka_unit_test(test_indefinite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
