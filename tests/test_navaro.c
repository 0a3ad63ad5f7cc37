/* tests/test_navaro.c: the NaVARo robot against the Cast3M results of Germain et al. 2015.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reference: Germain, Briot, Caro, Wenger, "Natural frequency computation of parallel robots",
 * J. Comput. Nonlinear Dynam. 10 (2015), Table 3 (cases/navaro/table3_cast3m.csv), with the data
 * reading of cases/navaro/README.md. */
#include "navaro_defaults.h"
#include "test_util.h"

#include "pkm/analysis.h"
#include "pkm/assembly.h"
#include "pkm/cases.h"
#include "pkm/io.h"
#include "pkm/modal.h"

#include <stdlib.h>
#include <string.h>

#define TABLE3 PKM_SOURCE_DIR "/cases/navaro/table3_cast3m.csv"

/* LAPACK Cholesky; the trailing size_t is the hidden length of the CHARACTER argument uplo
 * (GNU Fortran argument passing conventions). */
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info,
                    size_t uplo_len);

static pkm_table *table3(void)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_table *t = NULL;
    assert_pkm_ok(pkm_table_read(TABLE3, 3, &t, &ctx), &ctx);
    assert_int_equal(t->nrows, 8);
    assert_int_equal(t->npose, 3);
    assert_int_equal(t->nfreq, 5);
    return t;
}

/* Lowest nev modes of the default NaVARo (tree formulation) at pose by the sparse path. */
static pkm_modes *sparse_modes(const double pose[3], int nev, pkm_pencil **pencil)
{
    const pkm_navaro_params par = navaro_defaults();
    pkm_pencil *p = case_pencil("navaro", &par, pose, PKM_FORM_TREE, NULL);
    pkm_modes *md = solved_modes(p, nev, 0);
    assert_int_equal(md->nev, nev);
    if (pencil != NULL)
        *pencil = p;
    else
        pkm_pencil_destroy(&p);
    return md;
}

/* 1. Table 3 (Cast3M, printed to 0.01 Hz): all 8 poses x 5 frequencies within 0.05 %. */
static void test_table3(void **state)
{
    (void)state;
    pkm_table *t = table3();
    double worst = 0.0;
    int wr = 0, wk = 0;
    double got = 0.0;
    for (int r = 0; r < t->nrows; r++) {
        pkm_modes *md = sparse_modes(t->pose + 3 * r, 5, NULL);
        for (int k = 0; k < 5; k++) {
            const double ref = t->freq[5 * r + k];
            const double e = fabs(md->freq_hz[k] - ref) / ref;
            if (e > worst) worst = e, wr = r, wk = k, got = md->freq_hz[k];
        }
        pkm_modes_destroy(&md);
    }
    if (worst > 5e-4)
        print_error("Table 3: worst error %.4f %% at pose %d f%d: %.4f Hz vs %.2f Hz\n",
                    100.0 * worst, t->id[wr], wk + 1, got, t->freq[5 * wr + wk]);
    assert_true(worst <= 5e-4);
    pkm_table_destroy(&t);
}

/* 2. Poses 5, 7 and 6, 8 are the +-120 degree images of poses 3 and 4 (Table 3 note): the first
 * 10 eigenvalues are equal. */
static void test_symmetric_poses(void **state)
{
    (void)state;
    pkm_table *t = table3();
    double w[8][10];
    for (int r = 2; r < 8; r++) {
        pkm_modes *md = sparse_modes(t->pose + 3 * r, 10, NULL);
        memcpy(w[r], md->omega2, sizeof(w[r]));
        pkm_modes_destroy(&md);
    }
    const int img[4][2] = {{4, 2}, {6, 2}, {5, 3}, {7, 3}};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 10; k++)
            assert_close(w[img[i][0]][k], w[img[i][1]][k], 1e-9, 0.0);
    pkm_table_destroy(&t);
}

/* Dense column-major copies of K and M. */
static void dense_km(const pkm_pencil *p, double **K, double **M)
{
    *K = malloc(sizeof(double) * (size_t)(p->n * p->n));
    *M = malloc(sizeof(double) * (size_t)(p->n * p->n));
    assert_non_null(*K);
    assert_non_null(*M);
    pkm_pencil_to_dense(p, *K, *M);
}

/* max |X^T M X - I|, recomputed from the dense M. */
static double orthonormality(const double *M, int64_t n, const pkm_modes *md)
{
    double e = 0.0;
    for (int i = 0; i < md->nev; i++)
        for (int j = 0; j < md->nev; j++) {
            double g = 0.0;
            for (int64_t c = 0; c < n; c++) {
                double mx = 0.0;
                for (int64_t r = 0; r < n; r++)
                    mx += M[r + c * n] * md->vectors[j * n + r];
                g += md->vectors[i * n + c] * mx;
            }
            e = fmax(e, fabs(g - (i == j ? 1.0 : 0.0)));
        }
    return e;
}

/* 3. Poses 1 and 2 (Table 3: f1 = f2) have a double eigenvalue (threefold symmetry); the sparse
 * path returns both with M-orthonormal vectors. */
static void test_double_eigenvalues(void **state)
{
    (void)state;
    pkm_table *t = table3();
    for (int r = 0; r < 2; r++) {
        pkm_pencil *p = NULL;
        pkm_modes *md = sparse_modes(t->pose + 3 * r, 5, &p);
        assert_close(md->omega2[0], md->omega2[1], 1e-9, 0.0);
        /* and the double pair is not confused with f3 (Table 3: 53.98, 54.58 Hz) */
        assert_true(md->freq_hz[2] > 1.1 * md->freq_hz[1]);
        assert_true(md->orth_error <= 1e-10);
        double *K, *M;
        dense_km(p, &K, &M);
        assert_true(orthonormality(M, p->n, md) <= 1e-10);
        free(K);
        free(M);
        pkm_modes_destroy(&md);
        pkm_pencil_destroy(&p);
    }
    pkm_table_destroy(&t);
}

/* 4. Every returned mode (nev = 10) at the 8 poses: relative residual <= 1e-8, as reported and
 * as recomputed from the dense matrices. */
static void test_residuals(void **state)
{
    (void)state;
    pkm_table *t = table3();
    double worst = 0.0;
    for (int r = 0; r < t->nrows; r++) {
        pkm_pencil *p = NULL;
        pkm_modes *md = sparse_modes(t->pose + 3 * r, 10, &p);
        double *K, *M;
        dense_km(p, &K, &M);
        const int64_t n = p->n;
        for (int j = 0; j < 10; j++) {
            assert_true(md->residual[j] <= 1e-8);
            const double *x = md->vectors + j * n;
            double rr = 0.0, kk = 0.0;
            for (int64_t i = 0; i < n; i++) {
                double kx = 0.0, mx = 0.0;
                for (int64_t c = 0; c < n; c++) {
                    kx += K[i + c * n] * x[c];
                    mx += M[i + c * n] * x[c];
                }
                rr += (kx - md->omega2[j] * mx) * (kx - md->omega2[j] * mx);
                kk += kx * kx;
            }
            const double res = sqrt(rr / kk);
            assert_true(res <= 1e-8);
            worst = fmax(worst, fmax(res, md->residual[j]));
        }
        free(K);
        free(M);
        pkm_modes_destroy(&md);
        pkm_pencil_destroy(&p);
    }
    print_message("NaVARo, 8 poses x 10 modes: worst relative residual %.2e\n", worst);
    pkm_table_destroy(&t);
}

/* 5. Germain et al. 2015, sec. 5.2: 90 independent coordinates; K and M symmetric positive
 * definite (the clutches are locked: no mechanism mode), checked by dense Cholesky. */
static void test_order_and_definiteness(void **state)
{
    (void)state;
    const pkm_navaro_params par = navaro_defaults();
    const double poses[2][3] = {{0.0, 0.0, 0.0}, {0.18186533479473213, 0.105, -1.0471975511965976}};
    for (int f = 0; f < 2; f++)
        for (int q = 0; q < 2; q++) {
            pkm_assembly_info info;
            pkm_pencil *p =
                case_pencil("navaro", &par, poses[q], f ? PKM_FORM_NODAL : PKM_FORM_TREE, &info);
            assert_int_equal(p->n, 90);
            assert_int_equal(info.n_reduced, 90);
            double *K, *M;
            dense_km(p, &K, &M);
            const int n = (int)p->n;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    assert_true(K[i + j * n] == K[j + i * n]);
                    assert_true(M[i + j * n] == M[j + i * n]);
                }
            int info_k = -1, info_m = -1;
            dpotrf_("U", &n, K, &n, &info_k, 1);
            dpotrf_("U", &n, M, &n, &info_m, 1);
            assert_int_equal(info_k, 0);
            assert_int_equal(info_m, 0);
            free(K);
            free(M);
            pkm_pencil_destroy(&p);
        }
}

/* The default parameters of a case (pkm_case_params_destroy). */
static void *case_params(const pkm_case *c)
{
    assert_int_equal(c->params_size, sizeof(pkm_navaro_params));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *cp = NULL;
    assert_pkm_ok(pkm_case_params_create(c, &cp, &ctx), &ctx);
    return cp;
}

/* 6. A pose out of the workspace: leg 1 (A1 = (0, d1), d1 = 0.7 / sqrt 3) cannot reach
 * E1 = P + 0.2027 (cos 150 deg, sin 150 deg) at x = 0.5 m, |A1E1| > 2 x 0.21 m. */
static void test_unreachable(void **state)
{
    (void)state;
    const pkm_navaro_params par = navaro_defaults();
    const double pose[3] = {0.5, 0.0, 0.0};
    const double d1 = 0.7 / sqrt(3.0), c150 = -sqrt(3.0) / 2.0;
    const double dist = hypot(0.5 + 0.2027 * c150, 0.2027 * 0.5 - d1);
    assert_true(dist > 0.42);
    char expect[32];
    snprintf(expect, sizeof(expect), "%.4f", floor(dist * 1e4) / 1e4);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_int_equal(pkm_navaro_build(&par, pose, &m, &ctx), PKM_ERR_UNREACHABLE);
    assert_null(m);
    assert_int_equal(ctx.status, PKM_ERR_UNREACHABLE);
    assert_non_null(strstr(ctx.msg, "leg 1"));
    if (strstr(ctx.msg, expect) == NULL) {
        print_error("message '%s' does not give |A1E1| = %s m\n", ctx.msg, expect);
        fail();
    }
    /* the case entry reports the same */
    const pkm_case *c = pkm_case_find("navaro");
    assert_non_null(c);
    void *cp = case_params(c);
    pkm_ctx_clear(&ctx);
    assert_int_equal(c->build(cp, pose, &m, &ctx), PKM_ERR_UNREACHABLE);
    assert_null(m);
    pkm_case_params_destroy(&cp);
}

/* 7. Zero or negative section properties are rejected, naming the property. */
static void test_invalid_params(void **state)
{
    (void)state;
    const double pose[3] = {0.0, 0.0, 0.0};
    pkm_navaro_params par = navaro_defaults();
    par.leg_section.A = 0.0;
    assert_build_invalid(pkm_navaro_build, &par, pose, "area A");

    par = navaro_defaults();
    par.platform_section.Iz = -1.0;
    assert_build_invalid(pkm_navaro_build, &par, pose, "Iz");
    /* the same message names the link */
    assert_build_invalid(pkm_navaro_build, &par, pose, "link 5");

    par = navaro_defaults();
    par.material.rho = -2800.0;
    assert_build_invalid(pkm_navaro_build, &par, pose, "rho");

    par = navaro_defaults();
    par.elements_per_link = 0;
    assert_build_invalid(pkm_navaro_build, &par, pose, NULL);
}

/* 8. The case registry. */
static void test_case_registry(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("navaro");
    assert_non_null(c);
    assert_string_equal(c->name, "navaro");
    assert_int_equal(c->npose, 3);
    assert_null(pkm_case_find("nosuch"));
    assert_null(pkm_case_find(NULL));
    int found = 0;
    for (const pkm_case *const *l = pkm_case_list(); *l != NULL; l++)
        found += (*l == c);
    assert_int_equal(found, 1);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    void *cp = case_params(c);
    assert_pkm_ok(c->build(cp, c->home, &m, &ctx), &ctx);
    pkm_case_params_destroy(&cp);
    /* 3 legs x 6 links (link 4 has two elements) x 1 element = 18 elements */
    assert_int_equal(pkm_model_element_count(m), 18);
    assert_int_equal(pkm_model_body_count(m), 16);
    pkm_model_destroy(&m);
}

/* Lowest 5 frequencies (Hz) of NaVARo at pose with ne elements per link (dense path). */
static void refined_freqs(int ne, const double pose[3], pkm_formulation f, double hz[5])
{
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = ne;
    pkm_pencil *p = case_pencil("navaro", &par, pose, f, NULL);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_modes *md = NULL;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = 5;
    assert_pkm_ok(pkm_modes_create(p->n, 5, &md, &ctx), &ctx);
    assert_pkm_ok(pkm_modal_solve_dense(p, &o, md, &ctx), &ctx);
    memcpy(hz, md->freq_hz, sizeof(double) * 5);
    pkm_modes_destroy(&md);
    pkm_pencil_destroy(&p);
}

/* 9. Mesh refinement (README: about 0.1 % from the coarse Cast3M mesh): 1, 2, 4 elements per
 * link; the first 5 frequencies move by < 0.5 % and the changes shrink; both formulations agree
 * on the refined meshes. */
static void test_refinement(void **state)
{
    (void)state;
    const double poses[2][3] = {{0.0, 0.0, 0.0},
                                {0.11691342951089924, 0.0675, -1.0471975511965976}};
    double worst = 0.0;
    for (int q = 0; q < 2; q++) {
        double hz[3][5], nodal[5];
        refined_freqs(1, poses[q], PKM_FORM_TREE, hz[0]);
        for (int i = 1; i < 3; i++) {
            refined_freqs(1 << i, poses[q], PKM_FORM_TREE, hz[i]);
            refined_freqs(1 << i, poses[q], PKM_FORM_NODAL, nodal);
            for (int k = 0; k < 5; k++)
                assert_close(hz[i][k], nodal[k], 1e-9, 0.0);
        }
        for (int k = 0; k < 5; k++) {
            const double d1 = fabs(hz[1][k] - hz[0][k]), d2 = fabs(hz[2][k] - hz[1][k]);
            assert_close(hz[1][k], hz[0][k], 5e-3, 0.0);
            assert_close(hz[2][k], hz[0][k], 5e-3, 0.0);
            assert_true(d2 < d1);
            worst = fmax(worst, fabs(hz[2][k] - hz[0][k]) / hz[0][k]);
        }
    }
    print_message("NaVARo refinement 1 -> 4 elements per link: max rel change %.2e\n", worst);
}

/* 9b. Sizes beyond the machine are refused before allocation (issue 8: the tree formulation took
 * 18.8 GB at 64 elements per link and was killed at 128; by composite bodies, issue 15, it takes
 * 0.8 GB at 64). At 1024 elements per link the tree's dense per-leg maps and matrices need
 * hundreds of GB;
 * the nodal formulation assembles the same model (110 574 coordinates), and the dense
 * eigensolver, 2 n^2 doubles = 196 GB, is refused by the analysis before it allocates. */
static void test_size_bounds(void **state)
{
    (void)state;
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 1024;
    const double pose[3] = {0.0, 0.0, 0.0};
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_navaro_build(&par, pose, &m, &ctx), &ctx);
    pkm_pencil *p = NULL;
    assert_int_equal(pkm_assemble(m, PKM_FORM_TREE, &p, NULL, &ctx), PKM_ERR_INVALID);
    assert_null(p);
    assert_non_null(strstr(ctx.msg, "GB of RAM; use the nodal formulation"));
    pkm_ctx_clear(&ctx);
    pkm_assembly_info info;
    assert_pkm_ok(pkm_assemble(m, PKM_FORM_NODAL, &p, &info, &ctx), &ctx);
    assert_int_equal(info.n_reduced, 110574);
    pkm_pencil_destroy(&p);
    pkm_modal_opts mo = pkm_modal_opts_default();
    mo.nev = 3;
    pkm_analysis *an = NULL;
    const pkm_modes *md = NULL;
    assert_pkm_ok(pkm_analysis_create(PKM_FORM_NODAL, PKM_EIG_DENSE, &mo, &an, &ctx), &ctx);
    assert_int_equal(pkm_analysis_solve(an, m, &md, NULL, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "the dense eigensolver for 110574 coordinates needs about"));
    pkm_analysis_destroy(&an);
    pkm_model_destroy(&m);
}

/* One analysis over a sweep gives every pose the result of a fresh analysis bit for bit (the
 * pattern is the pose's own, so nothing depends on the poses solved before), and keeps its
 * symbolic analysis while the pattern stays: in both formulations the pattern is the same at
 * every pose of this grid (none is symmetric; the rounding residues of exact zeros in the tree's
 * reduced blocks no longer change it). */
static void test_pattern_reuse(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_navaro_params par = navaro_defaults();
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = 6;
    const pkm_formulation forms[2] = {PKM_FORM_TREE, PKM_FORM_NODAL};
    for (int f = 0; f < 2; f++) {
        pkm_analysis *sweep = NULL;
        assert_pkm_ok(pkm_analysis_create(forms[f], PKM_EIG_ARPACK, &o, &sweep, &ctx), &ctx);
        int solved = 0;
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 12; j++) {
                const double pose[3] = {-0.2 + 0.4 * i / 11.0, -0.2 + 0.4 * j / 11.0, -1.05};
                pkm_model *m = NULL;
                if (pkm_navaro_build(&par, pose, &m, &ctx) != PKM_OK) {
                    pkm_ctx_clear(&ctx);
                    continue;
                }
                const pkm_modes *a = NULL, *b = NULL;
                pkm_analysis *fresh = NULL;
                assert_pkm_ok(pkm_analysis_solve(sweep, m, &a, NULL, &ctx), &ctx);
                assert_pkm_ok(pkm_analysis_create(forms[f], PKM_EIG_ARPACK, &o, &fresh, &ctx),
                              &ctx);
                assert_pkm_ok(pkm_analysis_solve(fresh, m, &b, NULL, &ctx), &ctx);
                assert_memory_equal(a->omega2, b->omega2, sizeof(double) * (size_t)o.nev);
                assert_memory_equal(a->vectors, b->vectors,
                                    sizeof(double) * (size_t)o.nev * (size_t)a->n);
                pkm_analysis_destroy(&fresh);
                pkm_model_destroy(&m);
                solved++;
            }
        const int analyses = pkm_analysis_symbolic_count(sweep);
        print_message("%s: %d symbolic analyses over %d poses\n", f ? "nodal" : "tree", analyses,
                      solved);
        assert_true(solved > 50);
        assert_in_range(analyses, 1, 3);
        pkm_analysis_destroy(&sweep);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table3),
        cmocka_unit_test(test_symmetric_poses),
        cmocka_unit_test(test_double_eigenvalues),
        cmocka_unit_test(test_residuals),
        cmocka_unit_test(test_order_and_definiteness),
        cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_invalid_params),
        cmocka_unit_test(test_case_registry),
        cmocka_unit_test(test_refinement),
        cmocka_unit_test(test_size_bounds),
        cmocka_unit_test(test_pattern_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
