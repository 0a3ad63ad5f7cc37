/* tests/test_solvers_modal.c: sparse (ARPACK + CHOLMOD) and dense (LAPACK) modal solvers.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "pkm/modal.h"
#include "pkm/pencil.h"

#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* Chain kinds. Fixed-free: ground spring then n - 1 springs; free-free: n - 1 springs only. */
enum chain_kind { FIXED_FREE, FREE_FREE, VARIED_CONSISTENT };

/* Adds a chain of n nodes at offset off into the dense N x N matrices K and M. */
static void add_chain(double *K, double *M, int64_t N, int64_t off, int64_t n, enum chain_kind kind,
                      double k, double m)
{
    for (int64_t e = 0; e < n; e++) {
        /* spring e joins node e - 1 (ground if e == 0) and node e */
        double ke = (kind == VARIED_CONSISTENT) ? k * (1.0 + 0.5 * sin((double)e)) : k;
        int64_t b = off + e, a = b - 1;
        if (e == 0 && kind == FREE_FREE) continue;
        K[b + b * N] += ke;
        if (e > 0) {
            K[a + a * N] += ke;
            K[a + b * N] -= ke;
            K[b + a * N] -= ke;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t b = off + i;
        if (kind == VARIED_CONSISTENT) {
            /* consistent-mass-like tridiagonal M, positive definite (diagonally dominant) */
            M[b + b * N] += (i + 1 < n ? 4.0 : 2.0) * m / 6.0;
            if (i + 1 < n) {
                M[b + (b + 1) * N] += m / 6.0;
                M[b + 1 + b * N] += m / 6.0;
            }
        } else {
            M[b + b * N] += m;
        }
    }
}

/* Pencil of `copies` identical uncoupled chains of n nodes each (block diagonal). */
static pkm_pencil *chains(int64_t n, int copies, enum chain_kind kind, double k, double m)
{
    int64_t N = n * copies;
    double *K = calloc((size_t)(N * N), sizeof(double));
    double *M = calloc((size_t)(N * N), sizeof(double));
    assert_non_null(K);
    assert_non_null(M);
    for (int c = 0; c < copies; c++)
        add_chain(K, M, N, c * n, n, kind, k, m);
    pkm_pencil *p = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_pencil_from_dense(N, K, M, &p, &ctx), &ctx);
    free(K);
    free(M);
    return p;
}

/* lambda_j = 4 k/m sin^2((2j - 1) pi / (2 (2n + 1))), j = 1..n, for the fixed-free chain. */
static double fixed_free_exact(int64_t n, int j, double k, double m)
{
    double s = sin((2.0 * j - 1.0) * PI / (2.0 * (2.0 * (double)n + 1.0)));
    return 4.0 * k / m * s * s;
}

/* lambda_j = 4 k/m sin^2(j pi / (2n)), j = 0..n-1, for the free-free chain. */
static double free_free_exact(int64_t n, int j, double k, double m)
{
    double s = sin((double)j * PI / (2.0 * (double)n));
    return 4.0 * k / m * s * s;
}

/* max |X^T M X - I| recomputed independently of the solver. */
static double orth_error(const pkm_pencil *p, const pkm_modes *md)
{
    int64_t n = p->n;
    double *mx = calloc((size_t)n, sizeof(double));
    assert_non_null(mx);
    double e = 0.0;
    for (int j = 0; j < md->nev; j++) {
        pkm_pencil_matvec(p, 'M', md->vectors + j * n, mx);
        for (int i = 0; i < md->nev; i++) {
            double g = 0.0;
            for (int64_t r = 0; r < n; r++)
                g += md->vectors[i * n + r] * mx[r];
            e = fmax(e, fabs(g - (i == j ? 1.0 : 0.0)));
        }
    }
    free(mx);
    return e;
}

typedef struct solved {
    pkm_pencil *p;
    pkm_modal *s;
    pkm_modes *md;
    pkm_ctx ctx;
} solved;

/* Sparse solve of p with opts; the test owns the result through `out`. */
static pkm_status sparse_solve(pkm_pencil *p, const pkm_modal_opts *opts, solved *out)
{
    memset(out, 0, sizeof(*out));
    out->p = p;
    pkm_ctx_clear(&out->ctx);
    assert_pkm_ok(pkm_modal_create(p, &out->s, &out->ctx), &out->ctx);
    assert_pkm_ok(pkm_modes_create(p->n, opts->nev, &out->md, &out->ctx), &out->ctx);
    return pkm_modal_solve(out->s, p, opts, out->md, &out->ctx);
}

static void solved_free(solved *sv)
{
    pkm_modes_destroy(&sv->md);
    pkm_modal_destroy(&sv->s);
    pkm_pencil_destroy(&sv->p);
    assert_null(sv->md);
    assert_null(sv->s);
}

static void test_fixed_free_analytic(void **state)
{
    (void)state;
    const int64_t n = 200;
    const double k = 3.0, m = 2.0;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = 8;
    solved sv;
    assert_pkm_ok(sparse_solve(chains(n, 1, FIXED_FREE, k, m), &o, &sv), &sv.ctx);
    assert_int_equal(sv.md->nev, 8);
    assert_true(sv.md->sigma == 0.0); /* K is positive definite: no shift needed */
    assert_true(sv.md->op_count > 0 && sv.md->iterations > 0);
    double max_rel = 0.0, max_res = 0.0;
    for (int j = 0; j < o.nev; j++) {
        double ex = fixed_free_exact(n, j + 1, k, m);
        assert_close(sv.md->omega2[j], ex, 1e-10, 0.0);
        assert_close(sv.md->freq_hz[j], sqrt(ex) / (2.0 * PI), 1e-10, 0.0);
        assert_true(sv.md->residual[j] <= 1e-10);
        max_rel = fmax(max_rel, fabs(sv.md->omega2[j] - ex) / ex);
        max_res = fmax(max_res, sv.md->residual[j]);
    }
    assert_true(sv.md->orth_error <= 1e-12);
    assert_true(orth_error(sv.p, sv.md) <= 1e-12);
    print_message("fixed-free n=200 nev=8: max rel err %.2e, max residual %.2e, orth %.2e, "
                  "restarts %d, OP applications %d\n",
                  max_rel, max_res, sv.md->orth_error, sv.md->iterations, sv.md->op_count);
    /* Independent residual of the first mode: the stored vector really is a mode. */
    double *kx = calloc((size_t)n, sizeof(double)), *mx = calloc((size_t)n, sizeof(double));
    assert_non_null(kx);
    assert_non_null(mx);
    pkm_pencil_matvec(sv.p, 'K', sv.md->vectors, kx);
    pkm_pencil_matvec(sv.p, 'M', sv.md->vectors, mx);
    for (int64_t i = 0; i < n; i++)
        assert_close(kx[i], sv.md->omega2[0] * mx[i], 0.0, 1e-10);
    free(kx);
    free(mx);
    solved_free(&sv);
}

static void test_sparse_matches_dense(void **state)
{
    (void)state;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = 10;
    solved sv;
    assert_pkm_ok(sparse_solve(chains(60, 1, VARIED_CONSISTENT, 5.0, 0.7), &o, &sv), &sv.ctx);
    pkm_modes *dn = NULL;
    assert_pkm_ok(pkm_modes_create(sv.p->n, o.nev, &dn, &sv.ctx), &sv.ctx);
    assert_pkm_ok(pkm_modal_solve_dense(sv.p, &o, dn, &sv.ctx), &sv.ctx);
    double max_rel = 0.0;
    for (int j = 0; j < o.nev; j++) {
        assert_close(sv.md->omega2[j], dn->omega2[j], 1e-10, 0.0);
        max_rel = fmax(max_rel, fabs(sv.md->omega2[j] - dn->omega2[j]) / dn->omega2[j]);
        /* Same simple mode up to sign: |<x_sparse, M x_dense>| = 1. */
        double *mx = calloc((size_t)sv.p->n, sizeof(double));
        assert_non_null(mx);
        pkm_pencil_matvec(sv.p, 'M', dn->vectors + j * sv.p->n, mx);
        double g = 0.0;
        for (int64_t r = 0; r < sv.p->n; r++)
            g += sv.md->vectors[j * sv.p->n + r] * mx[r];
        free(mx);
        assert_close(fabs(g), 1.0, 1e-8, 0.0);
    }
    assert_true(dn->orth_error <= 1e-12);
    assert_true(dn->iterations == 0 && dn->op_count == 0);
    print_message("varied chain, consistent M, nev=10: max rel sparse-dense %.2e, sparse orth "
                  "%.2e, dense orth %.2e, OP applications %d\n",
                  max_rel, sv.md->orth_error, dn->orth_error, sv.md->op_count);
    pkm_modes_destroy(&dn);
    assert_null(dn);
    pkm_modes_destroy(&dn); /* NULL-safe */
    pkm_modes_destroy(NULL);
    solved_free(&sv);
}

/* Two identical uncoupled chains: every eigenvalue is double. */
static void check_double_chain(int nev)
{
    const int64_t n = 100;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    solved sv;
    assert_pkm_ok(sparse_solve(chains(n, 2, FIXED_FREE, 1.0, 1.0), &o, &sv), &sv.ctx);
    for (int j = 0; j < nev; j++) {
        double ex = fixed_free_exact(n, j / 2 + 1, 1.0, 1.0);
        assert_close(sv.md->omega2[j], ex, 1e-10, 0.0);
        assert_true(sv.md->residual[j] <= 1e-10);
    }
    for (int j = 0; j + 1 < nev; j += 2)
        assert_close(sv.md->omega2[j], sv.md->omega2[j + 1], 1e-10, 0.0);
    /* The two copies span the eigenspace: M-orthonormal, not the same vector twice. */
    assert_true(sv.md->orth_error <= 1e-12);
    assert_true(orth_error(sv.p, sv.md) <= 1e-12);
    print_message("double chain nev=%d: orth %.2e, OP applications %d\n", nev, sv.md->orth_error,
                  sv.md->op_count);
    solved_free(&sv);
}

static void test_repeated_eigenvalues(void **state)
{
    (void)state;
    check_double_chain(6);
    check_double_chain(5); /* the double value lambda_3 straddles the cut */
}

static void test_singular_k_auto_shift(void **state)
{
    (void)state;
    const int64_t n = 200;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = 6;
    solved sv;
    /* By default the rigid mode is a zero-energy mode and refused, naming it; the mode is left in
     * the result: the uniform translation, M-normalised (x_i = 1/sqrt(n) for unit masses). */
    assert_int_equal(sparse_solve(chains(n, 1, FREE_FREE, 1.0, 1.0), &o, &sv), PKM_ERR_SINGULAR);
    assert_int_equal(sv.md->zero_modes, 1);
    assert_non_null(strstr(sv.ctx.msg, "mode 1 is"));
    assert_non_null(strstr(sv.ctx.msg, "zero-energy"));
    for (int64_t i = 0; i < n; i++)
        assert_close(fabs(sv.md->vectors[i]), 1.0 / sqrt((double)n), 1e-8, 0.0);
    solved_free(&sv);

    o.allow_zero_modes = 1;
    assert_pkm_ok(sparse_solve(chains(n, 1, FREE_FREE, 1.0, 1.0), &o, &sv), &sv.ctx);
    assert_int_equal(sv.md->zero_modes, 1);
    assert_true(sv.md->sigma < 0.0);
    assert_true(fabs(sv.md->omega2[0]) <= 1e-10 * sv.md->omega2[1]);
    for (int j = 1; j < o.nev; j++)
        assert_close(sv.md->omega2[j], free_free_exact(n, j, 1.0, 1.0), 1e-10, 0.0);
    assert_true(sv.md->orth_error <= 1e-12);
    assert_true(sv.md->freq_hz[0] >= 0.0 && sv.md->freq_hz[0] < 1e-6);
    print_message("free-free n=200: sigma %.3g, omega2[0] %.2e, omega2[1] %.6g, residual[0] %.2e, "
                  "OP applications %d\n",
                  sv.md->sigma, sv.md->omega2[0], sv.md->omega2[1], sv.md->residual[0],
                  sv.md->op_count);

    /* The dense reference agrees, rigid mode included (its residual is measured against the
     * rigid-mode scale, not against ||K x|| which is rounding noise). */
    pkm_modes *dn = NULL;
    assert_pkm_ok(pkm_modes_create(n, o.nev, &dn, &sv.ctx), &sv.ctx);
    assert_pkm_ok(pkm_modal_solve_dense(sv.p, &o, dn, &sv.ctx), &sv.ctx);
    assert_true(fabs(dn->omega2[0]) <= 1e-10 * dn->omega2[1]);
    for (int j = 1; j < o.nev; j++)
        assert_close(dn->omega2[j], sv.md->omega2[j], 1e-10, 0.0);
    pkm_modes_destroy(&dn);

    /* The same singular K with an explicit sigma = 0 is an error, not garbage modes. */
    pkm_ctx_clear(&sv.ctx);
    o.sigma = 0.0;
    assert_int_equal(pkm_modal_solve(sv.s, sv.p, &o, sv.md, &sv.ctx), PKM_ERR_SINGULAR);
    assert_int_equal(sv.ctx.status, PKM_ERR_SINGULAR);
    assert_non_null(strstr(sv.ctx.msg, "not positive definite"));
    assert_non_null(strstr(sv.ctx.msg, "column"));

    /* A shift above the lowest eigenvalue is refused the same way. */
    pkm_ctx_clear(&sv.ctx);
    o.sigma = 0.5 * free_free_exact(n, 1, 1.0, 1.0);
    assert_int_equal(pkm_modal_solve(sv.s, sv.p, &o, sv.md, &sv.ctx), PKM_ERR_SINGULAR);

    /* An explicit negative shift works and is reported. */
    pkm_ctx_clear(&sv.ctx);
    o.sigma = -1e-4;
    assert_pkm_ok(pkm_modal_solve(sv.s, sv.p, &o, sv.md, &sv.ctx), &sv.ctx);
    assert_true(sv.md->sigma == -1e-4);
    assert_close(sv.md->omega2[1], free_free_exact(n, 1, 1.0, 1.0), 1e-10, 0.0);
    solved_free(&sv);
}

static void test_small_orders(void **state)
{
    (void)state;
    /* ncv is clamped to n and the internal nev + 2 to n - 1: every admissible nev must work. */
    for (int64_t n = 2; n <= 7; n++) {
        for (int nev = 1; nev < n; nev++) {
            pkm_modal_opts o = pkm_modal_opts_default();
            o.nev = nev;
            solved sv;
            assert_pkm_ok(sparse_solve(chains(n, 1, VARIED_CONSISTENT, 2.0, 1.5), &o, &sv),
                          &sv.ctx);
            pkm_modes *dn = NULL;
            assert_pkm_ok(pkm_modes_create(n, nev, &dn, &sv.ctx), &sv.ctx);
            assert_pkm_ok(pkm_modal_solve_dense(sv.p, &o, dn, &sv.ctx), &sv.ctx);
            for (int j = 0; j < nev; j++)
                assert_close(sv.md->omega2[j], dn->omega2[j], 1e-10, 0.0);
            pkm_modes_destroy(&dn);
            solved_free(&sv);
        }
    }
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = 4;
    solved sv;
    assert_pkm_ok(sparse_solve(chains(20, 1, FIXED_FREE, 1.0, 1.0), &o, &sv), &sv.ctx);

    /* Other order. */
    pkm_pencil *q = chains(21, 1, FIXED_FREE, 1.0, 1.0);
    pkm_modes *mq = NULL;
    assert_pkm_ok(pkm_modes_create(21, 4, &mq, &sv.ctx), &sv.ctx);
    assert_int_equal(pkm_modal_solve(sv.s, q, &o, mq, &sv.ctx), PKM_ERR_INVALID);
    assert_int_equal(sv.ctx.status, PKM_ERR_INVALID);
    pkm_modes_destroy(&mq);
    pkm_pencil_destroy(&q);

    /* Same order and entry count, different pattern: (0,2) coupled instead of (18,19). */
    double *K = calloc(400, sizeof(double)), *M = calloc(400, sizeof(double));
    assert_non_null(K);
    assert_non_null(M);
    add_chain(K, M, 20, 0, 20, FIXED_FREE, 1.0, 1.0);
    K[18 + 19 * 20] = K[19 + 18 * 20] = 0.0;
    K[0 + 2 * 20] = K[2 + 0 * 20] = -0.5;
    assert_pkm_ok(pkm_pencil_from_dense(20, K, M, &q, &sv.ctx), &sv.ctx);
    free(K);
    free(M);
    assert_int_equal(q->nnz, sv.p->nnz);
    pkm_ctx_clear(&sv.ctx);
    assert_int_equal(pkm_modal_solve(sv.s, q, &o, sv.md, &sv.ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(sv.ctx.msg, "pattern"));
    pkm_pencil_destroy(&q);

    /* nev out of range, for both paths; result too small. */
    const int bad_nev[] = {0, -1, 20, 21};
    for (size_t t = 0; t < sizeof(bad_nev) / sizeof(bad_nev[0]); t++) {
        pkm_modal_opts b = o;
        b.nev = bad_nev[t];
        pkm_ctx_clear(&sv.ctx);
        assert_int_equal(pkm_modal_solve(sv.s, sv.p, &b, sv.md, &sv.ctx), PKM_ERR_INVALID);
        pkm_ctx_clear(&sv.ctx);
        assert_int_equal(pkm_modal_solve_dense(sv.p, &b, sv.md, &sv.ctx), PKM_ERR_INVALID);
    }
    pkm_modal_opts b = o;
    b.nev = 5; /* sv.md holds 4 */
    pkm_ctx_clear(&sv.ctx);
    assert_int_equal(pkm_modal_solve(sv.s, sv.p, &b, sv.md, &sv.ctx), PKM_ERR_INVALID);
    b = o;
    b.ncv = o.nev + 2; /* not above the nev + 2 modes computed internally */
    pkm_ctx_clear(&sv.ctx);
    assert_int_equal(pkm_modal_solve(sv.s, sv.p, &b, sv.md, &sv.ctx), PKM_ERR_INVALID);
    pkm_ctx_clear(&sv.ctx);
    assert_int_equal(pkm_modes_create(0, 3, &mq, &sv.ctx), PKM_ERR_INVALID);
    assert_null(mq);
    /* The solver is still usable after refused calls. */
    pkm_ctx_clear(&sv.ctx);
    assert_pkm_ok(pkm_modal_solve(sv.s, sv.p, &o, sv.md, &sv.ctx), &sv.ctx);
    assert_close(sv.md->omega2[3], fixed_free_exact(20, 4, 1.0, 1.0), 1e-10, 0.0);
    solved_free(&sv);
    pkm_modal_destroy(NULL);
}

static void test_arpack_no_convergence(void **state)
{
    (void)state;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = 8;
    o.maxiter = 1;
    o.ncv = o.nev + 3; /* the smallest basis accepted: nev + 2 internal values + 1 */
    solved sv;
    /* Double eigenvalues with a minimal basis and one restart cannot converge. */
    assert_int_equal(sparse_solve(chains(100, 2, FIXED_FREE, 1.0, 1.0), &o, &sv), PKM_ERR_NOCONV);
    assert_int_equal(sv.ctx.status, PKM_ERR_NOCONV);
    assert_non_null(strstr(sv.ctx.msg, "converged"));
    print_message("no convergence: %s\n", sv.ctx.msg);
    solved_free(&sv);
}

static void test_accuracy_check_is_live(void **state)
{
    (void)state;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = 3;
    o.max_residual = 1e-300; /* below any achievable residual */
    solved sv;
    assert_int_equal(sparse_solve(chains(50, 1, FIXED_FREE, 1.0, 1.0), &o, &sv), PKM_ERR_ACCURACY);
    assert_non_null(strstr(sv.ctx.msg, "mode 1 ("));
    pkm_ctx_clear(&sv.ctx);
    assert_int_equal(pkm_modal_solve_dense(sv.p, &o, sv.md, &sv.ctx), PKM_ERR_ACCURACY);
    solved_free(&sv);
}

static void test_dense_singular_mass(void **state)
{
    (void)state;
    double K[9] = {2, -1, 0, -1, 2, -1, 0, -1, 1};
    double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, 0}; /* massless third node */
    pkm_pencil *p = NULL;
    pkm_modes *md = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_pencil_from_dense(3, K, M, &p, &ctx), &ctx);
    assert_pkm_ok(pkm_modes_create(3, 1, &md, &ctx), &ctx);
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = 1;
    assert_int_equal(pkm_modal_solve_dense(p, &o, md, &ctx), PKM_ERR_SINGULAR);
    assert_non_null(strstr(ctx.msg, "M is not positive definite"));
    pkm_modes_destroy(&md);
    pkm_pencil_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_free_analytic),   cmocka_unit_test(test_sparse_matches_dense),
        cmocka_unit_test(test_repeated_eigenvalues),  cmocka_unit_test(test_singular_k_auto_shift),
        cmocka_unit_test(test_small_orders),          cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_arpack_no_convergence), cmocka_unit_test(test_accuracy_check_is_live),
        cmocka_unit_test(test_dense_singular_mass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
