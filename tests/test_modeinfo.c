/* tests/test_modeinfo.c: pkm_mode_describe (studies/modeinfo.c) on NaVARo, every mode of the
 * pencil (LAPACK dsygv), both formulations: the strain energy from the elements and joint springs
 * is w^2 / 2 (the eigenvalue: a second path); the leg energies add up to it; summed over all
 * modes, the squared platform twists (1 / effective mass) are the platform's mobility
 * T M^-1 T^T computed by a Cholesky solve with M; at the symmetric pose (0, 0, 0) the three legs
 * store equal shares (a single mode, and the repeated pair together) and the pair's effective
 * masses are the same along x and y.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "navaro_defaults.h"
#include "pss5upu_defaults.h"
#include "test_lapack.h"

#include "pkm/analysis.h"
#include "pkm/cases.h"
#include "pkm/modeinfo.h"
#include "pkm/topology.h"

#include <math.h>

typedef struct described {
    int n, nleg;
    double *omega2;
    pkm_mode_info *info; /* n */
    double *leg;         /* n x nleg */
    double mobility[6];  /* (T M^-1 T^T)_dd */
} described;

/* (T M^-1 T^T)_dd for the platform's rows T of the dof map: T^T e_d solved with M's Cholesky
 * factor, dotted with T^T e_d. */
static void mobility(const pkm_pencil *p, const pkm_dofmap *map, int node, double out[6])
{
    const int n = (int)p->n, one = 1;
    double *M = calloc((size_t)n * (size_t)n, sizeof *M), *t = calloc((size_t)n, sizeof *t),
           *y = calloc((size_t)n, sizeof *y);
    assert_true(M && t && y);
    pkm_pencil_to_dense(p, NULL, M);
    int info = 0;
    dpotrf_("U", &n, M, &n, &info, 1);
    assert_int_equal(info, 0);
    int ncol;
    const int64_t *col;
    const double(*tw)[6];
    pkm_dofmap_node(map, node, &ncol, &col, &tw);
    for (int d = 0; d < 6; d++) {
        memset(t, 0, sizeof *t * (size_t)n);
        for (int c = 0; c < ncol; c++)
            t[col[c]] = tw[c][d];
        memcpy(y, t, sizeof *t * (size_t)n);
        dpotrs_("U", &n, &one, M, &n, y, &n, &info, 1);
        assert_int_equal(info, 0);
        out[d] = 0.0;
        for (int i = 0; i < n; i++)
            out[d] += t[i] * y[i];
    }
    free(M);
    free(t);
    free(y);
}

/* All n modes of p, M-normalised, by LAPACK's dsygv (the solver layer's routines stop at n - 1),
 * column k at k n; their eigenvalues into *omega2. */
static double *all_modes(const pkm_pencil *p, double **omega2)
{
    const int n = (int)p->n, itype = 1, lwork = 8 * n;
    double *K = calloc((size_t)n * (size_t)n, sizeof *K),
           *M = calloc((size_t)n * (size_t)n, sizeof *M),
           *work = malloc(sizeof *work * (size_t)lwork);
    *omega2 = malloc(sizeof **omega2 * (size_t)n);
    assert_true(K && M && work && *omega2);
    pkm_pencil_to_dense(p, K, M);
    int info = 0;
    dsygv_(&itype, "V", "U", &n, K, &n, M, &n, *omega2, work, &lwork, &info, 1, 1);
    assert_int_equal(info, 0);
    free(M);
    free(work);
    return K;
}

/* Every mode of model m (consumed) in formulation f, described. */
static described describe_model(pkm_model *m, pkm_formulation f)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_pencil *p = NULL;
    pkm_dofmap *map = NULL;
    assert_pkm_ok(pkm_assemble(m, f, &p, NULL, &ctx), &ctx);
    assert_pkm_ok(pkm_dofmap_create(m, f, &map, &ctx), &ctx);
    pkm_topology *t = NULL;
    assert_pkm_ok(pkm_topology_create(m, &t, &ctx), &ctx);
    described d = {.n = (int)p->n, .nleg = pkm_topology_leg_count(t)};
    pkm_topology_destroy(&t);
    double *X = all_modes(p, &d.omega2);
    d.info = malloc(sizeof(*d.info) * (size_t)d.n);
    d.leg = malloc(sizeof(double) * (size_t)(d.n * d.nleg));
    assert_true(d.omega2 && d.info && d.leg);
    for (int k = 0; k < d.n; k++)
        assert_pkm_ok(pkm_mode_describe(m, map, X + (size_t)k * (size_t)d.n, &d.info[k], NULL, NULL,
                                        d.leg + k * d.nleg, &ctx),
                      &ctx);
    mobility(p, map, pkm_model_body(m, pkm_model_platform(m))->first_node, d.mobility);
    free(X);
    pkm_dofmap_destroy(&map);
    pkm_pencil_destroy(&p);
    pkm_model_destroy(&m);
    return d;
}

/* Every mode of NaVARo at pose in formulation f, described. */
static described describe_all(const double pose[3], pkm_formulation f)
{
    pkm_navaro_params par = navaro_defaults();
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_navaro_build(&par, pose, &m, &ctx), &ctx);
    described d = describe_model(m, f);
    assert_int_equal(d.nleg, 3);
    return d;
}

static void described_free(described *d)
{
    free(d->omega2);
    free(d->info);
    free(d->leg);
}

/* Energy = w^2 / 2, legs add up to it, sum of 1 / effective masses = mobility. */
static void check_sums(const described *d)
{
    double inv[6] = {0};
    for (int k = 0; k < d->n; k++) {
        const pkm_mode_info *in = &d->info[k];
        assert_close(in->energy, 0.5 * d->omega2[k], 1e-9, 0.0);
        double legs = 0.0;
        for (int l = 0; l < d->nleg; l++)
            legs += d->leg[k * d->nleg + l];
        assert_close(legs, in->energy, 1e-12, 0.0);
        for (int a = 0; a < 6; a++) {
            if (in->twist[a] != 0.0)
                assert_close(in->eff_mass[a] * in->twist[a] * in->twist[a], 1.0, 1e-12, 0.0);
            inv[a] += 1.0 / in->eff_mass[a];
        }
    }
    /* NaVARo is planar: z, rx, ry of the platform do not move; pss5upu's UPU holds rz. */
    for (int a = 0; a < 6; a++)
        assert_close(inv[a], d->mobility[a], 1e-8, 1e-12 * d->mobility[0]);
}

static void test_general_pose(void **state)
{
    (void)state;
    const double pose[3] = {0.03, -0.02, 0.1};
    for (int f = 0; f < 2; f++) {
        described d = describe_all(pose, f == 0 ? PKM_FORM_TREE : PKM_FORM_NODAL);
        check_sums(&d);
        described_free(&d);
    }
}

/* At (0, 0, 0) the three legs are turned copies: mode 3 (single) shares its energy equally,
 * modes 1-2 (a repeated pair) together too, and the pair's summed 1 / effective masses are equal
 * along x and y. */
static void test_symmetric_pose(void **state)
{
    (void)state;
    const double pose[3] = {0.0, 0.0, 0.0};
    described d = describe_all(pose, PKM_FORM_TREE);
    check_sums(&d);
    assert_close(d.omega2[0], d.omega2[1], 1e-8, 0.0);
    assert_true(d.omega2[2] > 1.01 * d.omega2[1]);
    for (int l = 1; l < 3; l++) {
        assert_close(d.leg[2 * 3 + l], d.leg[2 * 3], 1e-8, 0.0);
        assert_close(d.leg[l] + d.leg[3 + l], d.leg[0] + d.leg[3], 1e-8, 0.0);
    }
    const double ix = 1.0 / d.info[0].eff_mass[0] + 1.0 / d.info[1].eff_mass[0],
                 iy = 1.0 / d.info[0].eff_mass[1] + 1.0 / d.info[1].eff_mass[1];
    assert_close(ix, iy, 1e-8, 0.0);
    described_free(&d);
}

/* pss5upu's links are quintic elements (nodal formulation only): their energy needs the
 * curvature coordinates of the dof map. Both variants, the paper's (one element per link, end
 * curvatures held) and the spherical one (two elements, curvatures free), at a general pose (the
 * spherical variant is singular at the centre). */
static void test_quintic_links(void **state)
{
    (void)state;
    const double pose[5] = {0.01, -0.02, 0.005, 0.05, -0.03};
    for (int v = 0; v < 2; v++) {
        pkm_pss5upu_params *par = pss5upu_params((pkm_pss5upu_variant)v, 0.0, 1.0);
        assert_int_equal(par->link_element, PKM_BEAM_QUINTIC);
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        pkm_model *m = NULL;
        assert_pkm_ok(pkm_pss5upu_build(par, pose, &m, &ctx), &ctx);
        described d = describe_model(m, PKM_FORM_NODAL);
        check_sums(&d);
        described_free(&d);
        free(par);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_general_pose),
        cmocka_unit_test(test_symmetric_pose),
        cmocka_unit_test(test_quintic_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
