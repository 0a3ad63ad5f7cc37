/* tests/dyn_util.h: mechanisms and reference solvers of the rigid-body dynamics tests: the two
 * mechanisms of Guo, Ju, Wang 2024 (Tables 2 and 3; the three-loop chain's ground pivots
 * rebuilt by closing its loops at q = 0, since the paper does not give them), built from the
 * pkm_model API, and a dense KKT solve of the constrained equations of motion.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_DYN_UTIL_H
#define PKM_TEST_DYN_UTIL_H

#include "test_util.h"

#include "pkm/dynamics.h"
#include "pkm/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern void dgelss_(const int *m, const int *n, const int *nrhs, double *a, const int *lda,
                    double *b, const int *ldb, double *s, const double *rcond, int *rank,
                    double *work, const int *lwork, int *info);

/* A rigid body of mass m with its centre of mass at com, principal inertias Jd along the global
 * axes, reference point at origin. */
static inline int dyn_add_body(pkm_model *m, const char *name, const double origin[3], double mass,
                               const double com[3], const double Jd[3])
{
    pkm_rigid_desc d = {.name = name, .mass = mass};
    memcpy(d.origin, origin, sizeof(d.origin));
    memcpy(d.com, com, sizeof(d.com));
    for (int k = 0; k < 3; k++)
        d.inertia[k][k] = Jd[k];
    int id = -1;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_add_rigid(m, &d, &id, &ctx), PKM_OK);
    return id;
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

static inline void dyn_add(const double a[3], const double b[3], double c[3])
{
    for (int k = 0; k < 3; k++)
        c[k] = a[k] + b[k];
}

/* tree5: Guo et al. 2024, Table 2 (joint 1 at the origin; every axis +z, gravity -z). */
static inline pkm_model *dyn_tree5(void)
{
    static const double z[3] = {0, 0, 1};
    static const double off[5][3] = {
        {0, 0, 0}, {-0.4, 0, 0}, {0.6, 1.0392, 0}, {-0.2, 0, 0}, {0.6, -1.0392, 0}};
    static const double rc[5][3] = {
        {-0.2, 0, 0}, {0.3, 0.5196, 0}, {0.3, -0.5196, 0}, {0.3, -0.5196, 0}, {0.3, 0.5196, 0}};
    static const double mass[5] = {1, 3, 3, 2, 2};
    static const double J[5][3] = {{0.002, 0.01, 0.01},
                                   {0.008, 0.06, 0.06},
                                   {0.008, 0.06, 0.06},
                                   {0.005, 0.04, 0.04},
                                   {0.005, 0.04, 0.04}};
    static const int parent[5] = {-1, 0, 1, 0, 3};
    static const char *names[5] = {"1", "2", "3", "4", "5"};
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_create(&m, &ctx), PKM_OK);
    double O[5][3];
    for (int i = 0; i < 5; i++) {
        double c[3];
        if (parent[i] < 0)
            memcpy(O[i], off[i], sizeof(O[i]));
        else
            dyn_add(O[parent[i]], off[i], O[i]);
        dyn_add(O[i], rc[i], c);
        const int b = dyn_add_body(m, names[i], O[i], mass[i], c, J[i]);
        dyn_add_joint(m, names[i], PKM_JOINT_REVOLUTE, parent[i] < 0 ? PKM_GROUND : parent[i], b,
                      O[i], z, 0, 1);
    }
    return m;
}

/* loop3: Guo et al. 2024, Table 3, masses of reading A (1' 1 kg, 1'' 1.2 kg), ground pivots
 * O_1 = 0, O_1' = (-0.05, 0), O_1'' = (-0.1, 0.0001) (they close the three loops at q = 0);
 * cuts C1 (2IS on 2' with 1S on 1''), C2 (2IIS on 2' with 4S on 4), C3 (3S on 3 with 4S on 4);
 * the crank 1'' actuated. Bodies 0..6: 1, 2, 3, 4, 1', 2', 1''. */
static inline pkm_model *dyn_loop3(void)
{
    static const double z[3] = {0, 0, 1};
    const double O1[3] = {0, 0, 0}, O1p[3] = {-0.05, 0, 0}, O1pp[3] = {-0.1, 0.0001, 0};
    double O2[3], O3[3], O4[3], O2p[3], S3[3], S4[3], S2II[3], S2I[3], S1[3];
    dyn_add(O1, (const double[3]){0.0737, -0.0676, 0}, O2);
    dyn_add(O2, (const double[3]){-0.0451, -0.0217, 0}, O3);
    dyn_add(O1, (const double[3]){0.0368, -0.0338, 0}, O4);
    dyn_add(O1p, (const double[3]){-0.0079, -0.0544, 0}, O2p);
    dyn_add(O3, (const double[3]){-0.0375, 0.0249, 0}, S3);
    dyn_add(O4, (const double[3]){-0.0457, -0.0306, 0}, S4);
    dyn_add(O2p, (const double[3]){0.049, -0.01, 0}, S2II);
    dyn_add(O2p, (const double[3]){-0.049, 0.01, 0}, S2I);
    dyn_add(O1pp, (const double[3]){-0.0069, -0.0445, 0}, S1);
    const double J1[3] = {0.005, 0.04, 0.04}, J3[3] = {0.002, 0.01, 0.01},
                 J4[3] = {0.003, 0.02, 0.02};
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_create(&m, &ctx), PKM_OK);
    double c[3];
    dyn_add(O1, (const double[3]){0.0369, -0.0338, 0}, c);
    const int b1 = dyn_add_body(m, "1", O1, 2.0, c, J1);
    dyn_add(O2, (const double[3]){-0.0451, -0.0217, 0}, c);
    const int b2 = dyn_add_body(m, "2", O2, 2.0, c, J1);
    dyn_add(O3, (const double[3]){-0.0187, 0.0124, 0}, c);
    const int b3 = dyn_add_body(m, "3", O3, 1.0, c, J3);
    dyn_add(O4, (const double[3]){-0.0229, -0.0153, 0}, c);
    const int b4 = dyn_add_body(m, "4", O4, 1.2, c, J4);
    dyn_add(O1p, (const double[3]){-0.0039, -0.0272, 0}, c);
    const int b1p = dyn_add_body(m, "1'", O1p, 1.0, c, J3);
    const int b2p = dyn_add_body(m, "2'", O2p, 2.0, O2p, J1);
    dyn_add(O1pp, (const double[3]){-0.0034, -0.0222, 0}, c);
    const int b1pp = dyn_add_body(m, "1''", O1pp, 1.2, c, J4);
    dyn_add_joint(m, "1", PKM_JOINT_REVOLUTE, PKM_GROUND, b1, O1, z, 0, 0);
    dyn_add_joint(m, "2", PKM_JOINT_REVOLUTE, b1, b2, O2, z, 0, 0);
    dyn_add_joint(m, "3", PKM_JOINT_REVOLUTE, b2, b3, O3, z, 0, 0);
    dyn_add_joint(m, "4", PKM_JOINT_REVOLUTE, b1, b4, O4, z, 0, 0);
    dyn_add_joint(m, "1'", PKM_JOINT_REVOLUTE, PKM_GROUND, b1p, O1p, z, 0, 0);
    dyn_add_joint(m, "2'", PKM_JOINT_REVOLUTE, b1p, b2p, O2p, z, 0, 0);
    dyn_add_joint(m, "1''", PKM_JOINT_REVOLUTE, PKM_GROUND, b1pp, O1pp, z, 0, 1);
    dyn_add_joint(m, "C1", PKM_JOINT_REVOLUTE, b2p, b1pp, S2I, z, 1, 0);
    dyn_add_joint(m, "C2", PKM_JOINT_REVOLUTE, b2p, b4, S2II, z, 1, 0);
    dyn_add_joint(m, "C3", PKM_JOINT_REVOLUTE, b3, b4, S3, z, 1, 0);
    (void)S4;
    (void)S1;
    return m;
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
