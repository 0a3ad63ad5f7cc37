/* tests/dyn_util.h: mechanisms and reference solvers of the rigid-body dynamics tests: the
 * built-in cases by name (the two mechanisms of Guo, Ju, Wang 2024, Tables 2 and 3, robot files
 * embedded in pkmflex, among them)
 * and a dense KKT solve of the constrained equations of motion.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_DYN_UTIL_H
#define PKM_TEST_DYN_UTIL_H

#include "test_util.h"

#include "pkm/casefile.h"
#include "pkm/cases.h"
#include "pkm/dynamics.h"
#include "pkm/model.h"

#include <math.h>
#include <stdio.h>
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

/* The case named by source, a built-in case's name (pkm_case_open) or a robot file's path, and
 * its default parameters (pkm_case_params_destroy). */
static inline void *dyn_load(const char *source, const pkm_case **c)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *params = NULL;
    if (strchr(source, '/') != NULL)
        assert_pkm_ok(pkm_case_file_load(source, c, &params, &ctx), &ctx);
    else
        assert_pkm_ok(pkm_case_open(source, NULL, 0, NULL, c, &params, &ctx), &ctx);
    return params;
}

/* The rigid-body model of source (dyn_load) at the pose its dynamics starts from
 * (pkm_case_rigid_pose). */
static inline pkm_model *dyn_source(const char *source)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = NULL;
    void *params = dyn_load(source, &c);
    pkm_model *m = NULL;
    assert_pkm_ok(c->build_rigid(params, pkm_case_rigid_pose(c), &m, &ctx), &ctx);
    pkm_case_params_destroy(&params);
    return m;
}

/* tree5 (Guo et al. 2024, Table 2) and loop3 (Table 3, rebuilt pivots, reading A), joints named
 * as in the paper. */
static inline pkm_model *dyn_tree5(void)
{
    return dyn_source("tree5");
}

static inline pkm_model *dyn_loop3(void)
{
    return dyn_source("loop3");
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

/* The driven coordinates (coord, or the actuated ones if coord < 0) along a sin(t) + b t from
 * the previous solution. */
typedef struct dyn_motion {
    int coord;
    double a, b;
} dyn_motion;

static inline pkm_status dyn_move(pkm_mbs *s, const dyn_motion *mo, double t, pkm_joint_result *res,
                                  pkm_ctx *ctx)
{
    double q[8], qd[8], qdd[8];
    for (int k = 0; k < 8; k++) {
        q[k] = mo->a * sin(t) + mo->b * t;
        qd[k] = mo->a * cos(t) + mo->b;
        qdd[k] = -mo->a * sin(t);
    }
    pkm_status st = pkm_mbs_kinematics(s, t, q, qd, qdd, ctx);
    return (st == PKM_OK) ? pkm_mbs_inverse(s, NULL, res, ctx) : st;
}

static inline double dyn_max_abs(const double *v, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(v[i]));
    return m;
}

/* The sparse solves (the default) against the dense reference along the motion at nt times 0,
 * dt, ...: the same status, the same state and results to 1e-10 of their largest magnitude.
 * Returns the number of times both solved. */
static inline int dyn_compare_solvers(pkm_model *m, const double g[3], const dyn_motion *mo,
                                      double dt, int nt)
{
    pkm_mbs *s[2] = {NULL, NULL};
    pkm_ctx ctx[2];
    const int nj = pkm_model_joint_count(m);
    pkm_joint_result *res[2] = {calloc((size_t)nj, sizeof(pkm_joint_result)),
                                calloc((size_t)nj, sizeof(pkm_joint_result))};
    assert_non_null(res[0]);
    assert_non_null(res[1]);
    for (int k = 0; k < 2; k++) {
        pkm_ctx_clear(&ctx[k]);
        assert_int_equal(pkm_mbs_create(m, g, &s[k], &ctx[k]), PKM_OK);
        assert_int_equal(pkm_mbs_set_solver(s[k], k == 0 ? PKM_DYN_SPARSE : PKM_DYN_DENSE, &ctx[k]),
                         PKM_OK);
        if (mo->coord >= 0) assert_int_equal(pkm_mbs_set_driven(s[k], 1, &mo->coord, &ctx[k]), 0);
    }
    const int nq = pkm_mbs_coord_count(s[0]);
    double worst = 0.0;
    int solved = 0;
    for (int i = 0; i < nt; i++) {
        const pkm_status st0 = dyn_move(s[0], mo, i * dt, res[0], &ctx[0]);
        const pkm_status st1 = dyn_move(s[1], mo, i * dt, res[1], &ctx[1]);
        assert_int_equal(st0, st1);
        if (st0 != PKM_OK) break;
        solved++;
        const double *a[3] = {pkm_mbs_q(s[0]), pkm_mbs_qd(s[0]), pkm_mbs_qdd(s[0])};
        const double *b[3] = {pkm_mbs_q(s[1]), pkm_mbs_qd(s[1]), pkm_mbs_qdd(s[1])};
        /* One scale for the three levels: at a rest or a reversal one level is rounding only. */
        double scale = 1e-300;
        for (int l = 0; l < 3; l++)
            scale = fmax(scale, dyn_max_abs(b[l], nq));
        for (int l = 0; l < 3; l++)
            for (int k = 0; k < nq; k++)
                worst = fmax(worst, fabs(a[l][k] - b[l][k]) / scale);
        double wmax = 1e-300;
        for (int j = 0; j < nj; j++)
            wmax = fmax(wmax, fmax(dyn_max_abs(res[1][j].wrench, 6), fabs(res[1][j].drive)));
        for (int j = 0; j < nj; j++) {
            for (int k = 0; k < 6; k++)
                worst = fmax(worst, fabs(res[0][j].wrench[k] - res[1][j].wrench[k]) / wmax);
            worst = fmax(worst, fabs(res[0][j].drive - res[1][j].drive) / wmax);
        }
    }
    print_message("sparse - dense: largest relative difference %.3g over %d times\n", worst,
                  solved);
    assert_true(worst < 1e-10);
    for (int k = 0; k < 2; k++) {
        pkm_mbs_destroy(&s[k]);
        free(res[k]);
    }
    return solved;
}

#endif
