/* tests/dyn_util.h: mechanisms and reference solvers of the rigid-body dynamics tests: the
 * built-in cases by name (the two mechanisms of Guo, Ju, Wang 2024, Tables 2 and 3, among them)
 * and a dense KKT solve of the constrained equations of motion.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_DYN_UTIL_H
#define PKM_TEST_DYN_UTIL_H

#include "test_util.h"

#include "pkm/cases.h"
#include "pkm/dynamics.h"
#include "pkm/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern void dgelss_(const int *m, const int *n, const int *nrhs, double *a, const int *lda,
                    double *b, const int *ldb, double *s, const double *rcond, int *rank,
                    double *work, const int *lwork, int *info);

/* The index of the model's joint of that name. */
static inline int dyn_joint(const pkm_model *m, const char *name)
{
    for (int j = 0; j < pkm_model_joint_count(m); j++)
        if (strcmp(pkm_model_joint(m, j)->name, name) == 0) return j;
    fail_msg("no joint %s", name);
    return -1;
}

/* A built-in case's model at its home pose from its default parameters (its YAML file). */
static inline pkm_model *dyn_case(const char *name)
{
    const pkm_case *c = pkm_case_find(name);
    assert_non_null(c);
    void *params = calloc(1, c->params_size);
    assert_non_null(params);
    case_defaults(name, params, c->params_size);
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(c->build(params, c->home, &m, &ctx), PKM_OK);
    free(params);
    return m;
}

/* tree5 (Guo et al. 2024, Table 2) and loop3 (Table 3, rebuilt pivots, reading A), joints named
 * as in the paper. */
static inline pkm_model *dyn_tree5(void)
{
    return dyn_case("tree5");
}

static inline pkm_model *dyn_loop3(void)
{
    return dyn_case("loop3");
}

/* Table 2's friction data with unit arms (ADAMS's default arms, as the notes' table). */
static inline pkm_friction dyn_tree5_friction(pkm_friction_model model)
{
    return (pkm_friction){.model = model,
                          .kc = 0.005,
                          .kv = 0.01,
                          .ks = 0.05,
                          .vs = 0.03,
                          .delta = 2.0,
                          .rp = 1.0,
                          .rn = 1.0,
                          .rb = 1.0};
}

static inline void dyn_add(const double a[3], const double b[3], double c[3])
{
    for (int k = 0; k < 3; k++)
        c[k] = a[k] + b[k];
}

static inline void dyn_add_joint(pkm_model *m, const char *name, pkm_joint_type type, int a, int b,
                                 const double point[3], const double axis[3], int cut, int act)
{
    pkm_joint_desc d = {
        .name = name, .type = type, .body_a = a, .body_b = b, .cut = cut, .actuated = act};
    memcpy(d.point, point, sizeof(d.point));
    memcpy(d.axis, axis, sizeof(d.axis));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_add_joint(m, &d, NULL, &ctx), PKM_OK);
}

/* Minimum-norm least squares min |A x - b| (A m x n row-major) by dgelss on copies. */
static inline void dyn_lstsq(int m, int n, const double *A, const double *b, double *x)
{
    const int ld = m > n ? m : n, one = 1, lwork = 64 * (m + n + 8);
    double *a = malloc(sizeof(double) * (size_t)(m * n + ld + (m + n) + lwork));
    assert_non_null(a);
    double *bb = a + m * n, *sv = bb + ld, *work = sv + (m + n);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            a[j * m + i] = A[i * n + j];
    for (int i = 0; i < ld; i++)
        bb[i] = i < m ? b[i] : 0.0;
    const double rcond = 1e-12;
    int rank = 0, info = -1;
    dgelss_(&m, &n, &one, a, &m, bb, &ld, sv, &rcond, &rank, work, &lwork, &info);
    assert_int_equal(info, 0);
    memcpy(x, bb, sizeof(double) * (size_t)n);
    free(a);
}

/* The KKT reference (test-only): the accelerations of the constrained equations of motion
 * M qdd - C^T lambda = tau - h, C qdd = -gamma (lambda the cut wrenches' multipliers), with the
 * generalised drives tau (nq), solved densely at the system's current state into qdd. */
static inline void dyn_kkt(pkm_mbs *s, const double *tau, double *qdd)
{
    const int n = pkm_mbs_coord_count(s), c = pkm_mbs_constraint_count(s), N = n + c;
    double *K = calloc((size_t)(N * N + 3 * N + n * n + c * n + c), sizeof(double));
    assert_non_null(K);
    double *rhs = K + N * N, *x = rhs + N, *M = x + N, *h = M + n * n, *C = h + N, *g = C + c * n;
    pkm_mbs_mass_matrix(s, M, h);
    pkm_mbs_constraints(s, C, g);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            K[i * N + j] = M[i * n + j];
        for (int r = 0; r < c; r++)
            K[i * N + n + r] = -C[r * n + i];
        rhs[i] = tau[i] - h[i];
    }
    for (int r = 0; r < c; r++) {
        for (int j = 0; j < n; j++)
            K[(n + r) * N + j] = C[r * n + j];
        rhs[n + r] = -g[r];
    }
    dyn_lstsq(N, N, K, rhs, x);
    memcpy(qdd, x, sizeof(double) * (size_t)n);
    free(K);
}

#endif
