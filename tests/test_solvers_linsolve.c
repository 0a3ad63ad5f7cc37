/* tests/test_solvers_linsolve.c: pkm_linsolve, the CHOLMOD factorisation of cK K + cM M, in its
 * simplicial, supernodal and LDL^T kinds, and ARPACK over its supernodal path.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "navaro_defaults.h"
#include "test_util.h"

#include "pkm/assembly.h"
#include "pkm/cases.h"
#include "pkm/linsolve.h"
#include "pkm/modal.h"
#include "solvers/solvers_impl.h"

#include <stdlib.h>
#include <string.h>

/* The default NaVARo with `epl` elements per link at the pose of Table 3's first row. */
static pkm_pencil *navaro_pencil(int epl, pkm_formulation f)
{
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = epl;
    const double pose[3] = {0.0, 0.0, 0.0};
    return case_pencil("navaro", &par, pose, f, NULL);
}

static double norm2(const double *x, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

/* Normwise backward error ||A x - b|| / (||A||_F ||x|| + ||b||) of x for A = cK K + cM M
 * (Higham, Accuracy and Stability of Numerical Algorithms, sec. 7.1); work: 2 n. */
static double backward_error(const pkm_pencil *p, double cK, double cM, const double *x,
                             const double *b, double *work)
{
    const int64_t n = p->n;
    double fro = 0.0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = p->colptr[j]; q < p->colptr[j + 1]; q++) {
            const double a = cK * p->k[q] + cM * p->m[q];
            fro += (p->rowind[q] == j ? 1.0 : 2.0) * a * a;
        }
    pkm_pencil_matvec(p, 'K', x, work);
    pkm_pencil_matvec(p, 'M', x, work + n);
    for (int64_t i = 0; i < n; i++)
        work[i] = cK * work[i] + cM * work[n + i] - b[i];
    return norm2(work, n) / (sqrt(fro) * norm2(x, n) + norm2(b, n));
}

/* Solve A x = b with the factor kind `kind`, check the kind CHOLMOD used and the residual. */
static void solve_kind(const pkm_pencil *p, pkm_linsolve_kind kind, double cK, double cM,
                       const double *b, double *x)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_linsolve *ls = NULL;
    assert_pkm_ok(pkm_linsolve_create(p, kind, &ls, &ctx), &ctx);
    assert_int_equal(pkm_linsolve_factor_kind(ls), PKM_LINSOLVE_AUTO);
    int64_t minor = 0;
    assert_pkm_ok(pkm_linsolve_factor(ls, p, cK, cM, &minor, &ctx), &ctx);
    assert_int_equal(minor, -1);
    assert_int_equal(pkm_linsolve_factor_kind(ls), kind);
    assert_pkm_ok(pkm_linsolve_solve(ls, b, x, &ctx), &ctx);
    double *work = calloc(2 * (size_t)p->n, sizeof(double));
    assert_non_null(work);
    const double r = backward_error(p, cK, cM, x, b, work);
    if (!(r < 1e-15)) fail_msg("kind %d: backward error %.3e", (int)kind, r);
    free(work);
    pkm_linsolve_destroy(&ls);
    assert_null(ls);
}

/* One pencil, A = K + c M (an implicit integrator's effective stiffness) and K - sigma M (the
 * shift-invert operator): simplicial LL^T, supernodal LL^T and LDL^T each solve A x = b with a
 * backward error of rounding size, and agree with each other. */
static void test_factor_kinds_agree(void **state)
{
    (void)state;
    const pkm_formulation forms[2] = {PKM_FORM_TREE, PKM_FORM_NODAL};
    const double coef[2][2] = {{1.0, 4.0e4}, {1.0, -1.0e3}};
    const pkm_linsolve_kind kinds[3] = {PKM_LINSOLVE_SIMPLICIAL, PKM_LINSOLVE_SUPERNODAL,
                                        PKM_LINSOLVE_LDLT};
    for (int f = 0; f < 2; f++) {
        pkm_pencil *p = navaro_pencil(4, forms[f]);
        const int64_t n = p->n;
        double *b = calloc((size_t)n, sizeof(double)), *x = calloc(3 * (size_t)n, sizeof(double));
        assert_non_null(b);
        assert_non_null(x);
        for (int64_t i = 0; i < n; i++)
            b[i] = sin(0.37 * (double)i + 1.0);
        for (int c = 0; c < 2; c++) {
            for (int k = 0; k < 3; k++)
                solve_kind(p, kinds[k], coef[c][0], coef[c][1], b, x + (size_t)k * (size_t)n);
            const double xn = norm2(x, n);
            for (int k = 1; k < 3; k++)
                for (int64_t i = 0; i < n; i++)
                    assert_close(x[(size_t)k * (size_t)n + (size_t)i], x[i], 0.0, 1e-10 * xn);
        }
        free(b);
        free(x);
        pkm_pencil_destroy(&p);
    }
}

/* The negative pivots of the LDL^T of K - tau M count the eigenvalues below tau (Sylvester),
 * for tau in every gap of the dense spectrum; LL^T of the same matrix breaks down, with its
 * column and nothing recorded, exactly when tau is above the lowest eigenvalue, and refuses to
 * solve after. */
static void test_inertia_against_dense(void **state)
{
    (void)state;
    pkm_pencil *p = navaro_pencil(2, PKM_FORM_NODAL);
    const int nev = 12;
    pkm_modes *md = solved_modes(p, nev, 1);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_linsolve *ldlt = NULL, *ll = NULL;
    assert_pkm_ok(pkm_linsolve_create(p, PKM_LINSOLVE_LDLT, &ldlt, &ctx), &ctx);
    assert_pkm_ok(pkm_linsolve_create(p, PKM_LINSOLVE_SIMPLICIAL, &ll, &ctx), &ctx);
    for (int j = -1; j < nev - 1; j++) {
        /* tau in the middle of the gap above w_j (below w_0 for j = -1), skipping a gap of a
         * repeated eigenvalue. */
        const double lo = j < 0 ? 0.0 : md->omega2[j], hi = md->omega2[j + 1];
        if (hi - lo <= 1e-8 * hi) continue;
        const double tau = 0.5 * (lo + hi);
        int64_t minor = 0, neg = -1, tiny = -1;
        assert_pkm_ok(pkm_linsolve_factor(ldlt, p, 1.0, -tau, &minor, &ctx), &ctx);
        assert_int_equal(minor, -1);
        assert_pkm_ok(pkm_linsolve_inertia(ldlt, p, 1e-13, &neg, &tiny, &ctx), &ctx);
        assert_int_equal(neg, j + 1);
        assert_int_equal(tiny, 0);
        assert_pkm_ok(pkm_linsolve_factor(ll, p, 1.0, -tau, &minor, &ctx), &ctx);
        if (j < 0)
            assert_int_equal(minor, -1);
        else
            assert_true(minor >= 0 && minor < p->n);
    }
    assert_int_equal(ctx.status, PKM_OK);
    double *x = calloc((size_t)p->n, sizeof(double));
    assert_non_null(x);
    assert_int_equal(pkm_linsolve_solve(ll, x, x, &ctx), PKM_ERR_INVALID);
    pkm_ctx_clear(&ctx);
    int64_t neg = 0, tiny = 0;
    assert_int_equal(pkm_linsolve_inertia(ll, p, 1e-13, &neg, &tiny, &ctx), PKM_ERR_INVALID);
    free(x);
    pkm_linsolve_destroy(&ll);
    pkm_linsolve_destroy(&ldlt);
    pkm_modes_destroy(&md);
    pkm_pencil_destroy(&p);
}

/* ARPACK on the tree formulation at 6 elements per link, where CHOLMOD's automatic choice is the
 * supernodal factor (dense blocks from the loop closure; at 4, since the element matrices' exact
 * zeros are kept as such, the pattern is sparse enough for the simplicial one): the same
 * frequencies as the dense solver. */
static void test_arpack_supernodal(void **state)
{
    (void)state;
    pkm_pencil *p = navaro_pencil(6, PKM_FORM_TREE);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_linsolve *ls = NULL;
    int64_t minor = 0;
    assert_pkm_ok(pkm_linsolve_create(p, PKM_LINSOLVE_AUTO, &ls, &ctx), &ctx);
    assert_pkm_ok(pkm_linsolve_factor(ls, p, 1.0, 0.0, &minor, &ctx), &ctx);
    assert_int_equal(minor, -1);
    assert_int_equal(pkm_linsolve_factor_kind(ls), PKM_LINSOLVE_SUPERNODAL);
    pkm_linsolve_destroy(&ls);

    const int nev = 10;
    pkm_modes *ref = solved_modes(p, nev, 1), *md = solved_modes(p, nev, 0);
    for (int j = 0; j < nev; j++)
        assert_close(md->freq_hz[j], ref->freq_hz[j], 1e-9, 0.0);
    pkm_modes_destroy(&md);
    pkm_modes_destroy(&ref);
    pkm_pencil_destroy(&p);
}

/* The simplicial factor (this layer's own numeric factorisation, chol.c) where the fill is heavy:
 * the 5-point Laplacian of a 12 x 12 grid plus a diagonal M, whose AMD factor holds several times
 * the entries of A (NaVARo's nodal pencils have none). Its solves equal CHOLMOD's supernodal ones
 * and have a backward error of rounding size; for a shift between two eigenvalues LL^T breaks
 * down exactly when LDL^T counts a negative pivot. */
static void test_simplicial_fill(void **state)
{
    (void)state;
    const int g = 12, n = g * g;
    double *K = calloc((size_t)n * (size_t)n, sizeof(double));
    double *M = calloc((size_t)n * (size_t)n, sizeof(double));
    double *b = calloc((size_t)n, sizeof(double)), *x = calloc((size_t)n, sizeof(double));
    double *y = calloc((size_t)n, sizeof(double)), *work = calloc(2 * (size_t)n, sizeof(double));
    assert_true(K != NULL && M != NULL && b != NULL && x != NULL && y != NULL && work != NULL);
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            const int a = i * g + j;
            K[a * n + a] = 4.0 + 0.01 * (double)(a % 7);
            M[a * n + a] = 1.0 + 0.1 * (double)(a % 3);
            if (j + 1 < g) K[a * n + a + 1] = K[(a + 1) * n + a] = -1.0;
            if (i + 1 < g) K[a * n + a + g] = K[(a + g) * n + a] = -1.0;
        }
    pkm_pencil *p = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_pencil_from_dense(n, K, M, &p, &ctx), &ctx);
    pkm_linsolve *ll = NULL, *sn = NULL, *ldlt = NULL;
    assert_pkm_ok(pkm_linsolve_create(p, PKM_LINSOLVE_SIMPLICIAL, &ll, &ctx), &ctx);
    assert_pkm_ok(pkm_linsolve_create(p, PKM_LINSOLVE_SUPERNODAL, &sn, &ctx), &ctx);
    assert_pkm_ok(pkm_linsolve_create(p, PKM_LINSOLVE_LDLT, &ldlt, &ctx), &ctx);
    int64_t minor = 0;
    assert_pkm_ok(pkm_linsolve_factor(ll, p, 1.0, 0.5, &minor, &ctx), &ctx);
    assert_int_equal(minor, -1);
    assert_int_equal(pkm_linsolve_factor_kind(ll), PKM_LINSOLVE_SIMPLICIAL);
    assert_pkm_ok(pkm_linsolve_factor(sn, p, 1.0, 0.5, &minor, &ctx), &ctx);
    for (int i = 0; i < n; i++)
        b[i] = cos(0.7 * (double)i);
    assert_pkm_ok(pkm_linsolve_solve(ll, b, x, &ctx), &ctx);
    assert_pkm_ok(pkm_linsolve_solve(sn, b, y, &ctx), &ctx);
    assert_true(backward_error(p, 1.0, 0.5, x, b, work) < 1e-15);
    for (int i = 0; i < n; i++)
        assert_close(x[i], y[i], 0.0, 1e-13 * norm2(y, n));
    /* K - tau M for tau from below the spectrum (lowest eigenvalue ~0.1) into it. */
    int broke = 0, held = 0;
    for (double tau = 0.01; tau < 1.0; tau += 0.05) {
        int64_t neg = -1, tiny = -1;
        assert_pkm_ok(pkm_linsolve_factor(ldlt, p, 1.0, -tau, &minor, &ctx), &ctx);
        assert_int_equal(minor, -1);
        assert_pkm_ok(pkm_linsolve_inertia(ldlt, p, 1e-13, &neg, &tiny, &ctx), &ctx);
        assert_pkm_ok(pkm_linsolve_factor(ll, p, 1.0, -tau, &minor, &ctx), &ctx);
        if (neg == 0) {
            assert_int_equal(minor, -1);
            held++;
        } else {
            assert_true(minor >= 0 && minor < n);
            broke++;
        }
    }
    assert_true(broke > 0 && held > 0);
    pkm_linsolve_destroy(&ll);
    pkm_linsolve_destroy(&sn);
    pkm_linsolve_destroy(&ldlt);
    pkm_pencil_destroy(&p);
    free(K);
    free(M);
    free(b);
    free(x);
    free(y);
    free(work);
}

/* The block eigensolver's dense products (block_gemm.c: AVX2 kernels where the processor has
 * them, dgemm elsewhere) against plain sums, for every block width up to 20 (the kernels' 4-lane
 * chunks, their masked remainders and the rotation's 16-column slices) and odd and even
 * row counts. */
static void test_block_products(void **state)
{
    (void)state;
    const int64_t rows[4] = {1, 2, 7, 90};
    for (int bs = 1; bs <= 20; bs++)
        for (int r = 0; r < 4; r++) {
            const int64_t n = rows[r];
            const size_t m = (size_t)bs, nb = (size_t)n * m;
            double *a = calloc(nb, sizeof(double)), *b = calloc(nb, sizeof(double));
            double *out = calloc(nb, sizeof(double)), *c = calloc(m * m, sizeof(double));
            double *v = calloc(m * m, sizeof(double));
            double *vt = calloc(m * ((m + 15) / 16 * 16), sizeof(double));
            assert_true(a != NULL && b != NULL && out != NULL && c != NULL && v != NULL &&
                        vt != NULL);
            for (size_t i = 0; i < nb; i++) {
                a[i] = sin(0.37 * (double)i + 0.1 * bs);
                b[i] = cos(0.53 * (double)i - 0.2 * (double)r);
            }
            for (size_t i = 0; i < m * m; i++)
                v[i] = sin(1.7 * (double)i + 0.3);
            pkm_block_gram(bs, n, a, b, c);
            for (size_t j = 0; j < m; j++)
                for (size_t k = 0; k < m; k++) {
                    double ref = 0.0, mag = 0.0;
                    for (int64_t i = 0; i < n; i++) {
                        ref += a[(size_t)i * m + j] * b[(size_t)i * m + k];
                        mag += fabs(a[(size_t)i * m + j] * b[(size_t)i * m + k]);
                    }
                    assert_close(c[k * m + j], ref, 0.0, 1e-15 * mag + 1e-300);
                }
            pkm_block_rotate(bs, n, v, a, vt, out);
            for (int64_t i = 0; i < n; i++)
                for (size_t j = 0; j < m; j++) {
                    double ref = 0.0, mag = 0.0;
                    for (size_t k = 0; k < m; k++) {
                        ref += a[(size_t)i * m + k] * v[j * m + k];
                        mag += fabs(a[(size_t)i * m + k] * v[j * m + k]);
                    }
                    assert_close(out[(size_t)i * m + j], ref, 0.0, 1e-15 * mag + 1e-300);
                }
            free(a);
            free(b);
            free(out);
            free(c);
            free(v);
            free(vt);
        }
}

/* Wrong arguments are refused and named: an unknown kind, a pencil of another pattern. */
/* The block kernels against their one-vector forms, column by column, for every factor kind and
 * both formulations: pkm_linsolve_solve_block (in place, as the block solver uses it) and
 * pkm_pencil_matvec_block on 12 interleaved columns (a block of 8 wanted + 4 guard vectors)
 * and on 1 column. Only the summation order differs. */
static void test_block_kernels(void **state)
{
    (void)state;
    const pkm_formulation forms[2] = {PKM_FORM_TREE, PKM_FORM_NODAL};
    const pkm_linsolve_kind kinds[3] = {PKM_LINSOLVE_SIMPLICIAL, PKM_LINSOLVE_SUPERNODAL,
                                        PKM_LINSOLVE_LDLT};
    const int widths[2] = {12, 1};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int f = 0; f < 2; f++) {
        pkm_pencil *p = navaro_pencil(4, forms[f]);
        const size_t n = (size_t)p->n;
        double *b = calloc(12 * n, sizeof(double)), *x = calloc(12 * n, sizeof(double));
        double *col = calloc(n, sizeof(double)), *ref = calloc(n, sizeof(double));
        assert_true(b != NULL && x != NULL && col != NULL && ref != NULL);
        for (int w = 0; w < 2; w++) {
            const size_t nc = (size_t)widths[w];
            for (size_t i = 0; i < n * nc; i++)
                b[i] = sin(0.37 * (double)i + 1.0);
            for (int which = 0; which < 2; which++) {
                pkm_pencil_matvec_block(p, which ? 'M' : 'K', (int)nc, b, x);
                for (size_t c = 0; c < nc; c++) {
                    for (size_t i = 0; i < n; i++)
                        col[i] = b[i * nc + c];
                    pkm_pencil_matvec(p, which ? 'M' : 'K', col, ref);
                    const double rn = norm2(ref, (int64_t)n);
                    for (size_t i = 0; i < n; i++)
                        assert_close(x[i * nc + c], ref[i], 0.0, 1e-14 * rn);
                }
            }
            for (int k = 0; k < 3; k++) {
                pkm_linsolve *ls = NULL;
                int64_t minor = 0;
                assert_pkm_ok(pkm_linsolve_create(p, kinds[k], &ls, &ctx), &ctx);
                assert_pkm_ok(pkm_linsolve_factor(ls, p, 1.0, -1.0e3, &minor, &ctx), &ctx);
                assert_int_equal(minor, -1);
                memcpy(x, b, n * nc * sizeof(double));
                assert_pkm_ok(pkm_linsolve_solve_block(ls, (int)nc, x, x, &ctx), &ctx);
                for (size_t c = 0; c < nc; c++) {
                    for (size_t i = 0; i < n; i++)
                        col[i] = b[i * nc + c];
                    assert_pkm_ok(pkm_linsolve_solve(ls, col, ref, &ctx), &ctx);
                    const double rn = norm2(ref, (int64_t)n);
                    for (size_t i = 0; i < n; i++)
                        assert_close(x[i * nc + c], ref[i], 0.0, 1e-12 * rn);
                }
                assert_int_equal(pkm_linsolve_solve_block(ls, 0, x, x, &ctx), PKM_ERR_INVALID);
                pkm_ctx_clear(&ctx);
                pkm_linsolve_destroy(&ls);
            }
        }
        free(b);
        free(x);
        free(col);
        free(ref);
        pkm_pencil_destroy(&p);
    }
}

/* y + B x of pkm_linsolve_apply_add for B = cK K + cM M against the pencil's own products: on
 * the simplicial factor's panels (NaVARo's 3-wide ones, the tree formulation's cut supernodes,
 * the 5-PSS/UPU's 1- and 2-wide ones, a grid whose factor fills in) and on CHOLMOD's supernodal
 * factor (the pencil's order); B set twice, the second time replacing the first. */
static void test_operator_products(void **state)
{
    (void)state;
    pkm_pss5upu_params pss;
    case_defaults("pss5upu", &pss, sizeof(pss));
    const double pose[5] = {0.002, -0.001, 0.0, 0.0, 0.0};
    pkm_pencil *ps[4] = {navaro_pencil(4, PKM_FORM_NODAL), navaro_pencil(2, PKM_FORM_TREE),
                         case_pencil("pss5upu", &pss, pose, PKM_FORM_NODAL, NULL), NULL};
    enum { G = 9 };
    double *K = calloc(G * G * G * G, sizeof(double)), *M = calloc(G * G * G * G, sizeof(double));
    assert_true(K != NULL && M != NULL);
    for (int a = 0; a < G * G; a++) {
        K[a * G * G + a] = 4.0;
        M[a * G * G + a] = 1.0 + 0.1 * (double)(a % 3);
        if (a % G + 1 < G) K[a * G * G + a + 1] = K[(a + 1) * G * G + a] = -1.0;
        if (a + G < G * G) K[a * G * G + a + G] = K[(a + G) * G * G + a] = -1.0;
    }
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_pencil_from_dense(G * G, K, M, &ps[3], &ctx), &ctx);
    const pkm_linsolve_kind kinds[2] = {PKM_LINSOLVE_SIMPLICIAL, PKM_LINSOLVE_SUPERNODAL};
    for (int c = 0; c < 4; c++) {
        const pkm_pencil *p = ps[c];
        const int64_t n = p->n;
        double *x = calloc(4 * (size_t)n, sizeof(double));
        assert_non_null(x);
        double *y = x + n, *ref = y + n, *work = ref + n;
        for (int64_t i = 0; i < n; i++)
            x[i] = sin(0.37 * (double)i + 1.0);
        pkm_pencil_matvec(p, 'K', x, ref);
        pkm_pencil_matvec(p, 'M', x, work);
        for (int64_t i = 0; i < n; i++)
            ref[i] = cos((double)i) + 2.0 * ref[i] - 3e4 * work[i];
        for (int k = 0; k < 2; k++) {
            pkm_linsolve *ls = NULL;
            assert_pkm_ok(pkm_linsolve_create(p, kinds[k], &ls, &ctx), &ctx);
            assert_pkm_ok(pkm_linsolve_set_operator(ls, p, 0.0, 1.0, &ctx), &ctx);
            assert_pkm_ok(pkm_linsolve_set_operator(ls, p, 2.0, -3e4, &ctx), &ctx);
            for (int64_t i = 0; i < n; i++)
                y[i] = cos((double)i);
            pkm_linsolve_apply_add(ls, x, y);
            for (int64_t i = 0; i < n; i++)
                assert_close(y[i], ref[i], 0.0, 1e-14 * norm2(ref, n));
            pkm_linsolve_destroy(&ls);
        }
        free(x);
    }
    pkm_linsolve *ls = NULL;
    assert_pkm_ok(pkm_linsolve_create(ps[0], PKM_LINSOLVE_AUTO, &ls, &ctx), &ctx);
    assert_int_equal(pkm_linsolve_set_operator(ls, ps[1], 1.0, 0.0, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "analysed"));
    pkm_linsolve_destroy(&ls);
    for (int c = 0; c < 4; c++)
        pkm_pencil_destroy(&ps[c]);
    free(K);
    free(M);
}

static void test_invalid(void **state)
{
    (void)state;
    pkm_pencil *p = navaro_pencil(1, PKM_FORM_NODAL), *q = navaro_pencil(2, PKM_FORM_NODAL);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_linsolve *ls = NULL;
    assert_int_equal(pkm_linsolve_create(p, (pkm_linsolve_kind)7, &ls, &ctx), PKM_ERR_INVALID);
    assert_null(ls);
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_linsolve_create(p, PKM_LINSOLVE_AUTO, &ls, &ctx), &ctx);
    assert_pkm_ok(pkm_linsolve_check_pattern(ls, p, &ctx), &ctx);
    assert_int_equal(pkm_linsolve_check_pattern(ls, q, &ctx), PKM_ERR_INVALID);
    pkm_ctx_clear(&ctx);
    int64_t minor = 0;
    assert_int_equal(pkm_linsolve_factor(ls, q, 1.0, 0.0, &minor, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "analysed"));
    pkm_linsolve_destroy(&ls);
    pkm_linsolve_destroy(&ls);
    pkm_pencil_destroy(&p);
    pkm_pencil_destroy(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_factor_kinds_agree), cmocka_unit_test(test_inertia_against_dense),
        cmocka_unit_test(test_arpack_supernodal),  cmocka_unit_test(test_block_kernels),
        cmocka_unit_test(test_simplicial_fill),    cmocka_unit_test(test_block_products),
        cmocka_unit_test(test_operator_products),  cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
