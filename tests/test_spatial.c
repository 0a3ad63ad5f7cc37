/* tests/test_spatial.c: the spatial algebra of include/pkm/spatial.h held against identities,
 * a known rotation and the parallel-axis theorem.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Deterministic pseudo-random numbers in [-1, 1). */
static double lcg(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005u + 1442695040888963407u;
    return (double)(*seed >> 11) / 4503599627370496.0 - 1.0;
}

static void fill(uint64_t *seed, double *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = lcg(seed);
}

static void test_cross_dot_norm(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int trial = 0; trial < 20; trial++) {
        double a[3], b[3], ab[3], ba[3], y[3];
        fill(&seed, a, 3);
        fill(&seed, b, 3);
        pkm_vec3_cross(a, b, ab);
        pkm_vec3_cross(b, a, ba);
        for (int k = 0; k < 3; k++)
            assert_true(ab[k] == -ba[k]); /* exact: the same products, subtracted the other way */
        /* a x b is orthogonal to both, and |a x b|^2 = |a|^2 |b|^2 - (a.b)^2 (Lagrange). */
        assert_close(pkm_vec3_dot(ab, a), 0.0, 0.0, 1e-15);
        assert_close(pkm_vec3_dot(ab, b), 0.0, 0.0, 1e-15);
        const double na = pkm_vec3_norm(a), nb = pkm_vec3_norm(b), d = pkm_vec3_dot(a, b);
        assert_close(pkm_vec3_dot(ab, ab), na * na * nb * nb - d * d, 1e-13, 1e-15);
        /* [a]x b = a x b; a x a = 0 (aliasing the output with an input) */
        double S[3][3];
        pkm_vec3_skew(a, S);
        pkm_mat3_apply(PKM_CONST33(S), b, y);
        for (int k = 0; k < 3; k++)
            assert_close(y[k], ab[k], 0.0, 1e-15);
        memcpy(y, a, sizeof(y));
        pkm_vec3_cross(y, a, y);
        for (int k = 0; k < 3; k++)
            assert_true(y[k] == 0.0);
        /* axpy and sub: (b + 2 a) - b = 2 a */
        memcpy(y, b, sizeof(y));
        pkm_vec3_axpy(2.0, a, y);
        pkm_vec3_sub(y, b, y);
        for (int k = 0; k < 3; k++)
            assert_close(y[k], 2.0 * a[k], 0.0, 1e-15);
    }
    const double e1[3] = {1, 0, 0}, e2[3] = {0, 1, 0};
    double e3[3];
    pkm_vec3_cross(e1, e2, e3);
    assert_true(e3[0] == 0.0 && e3[1] == 0.0 && e3[2] == 1.0);
}

static void test_rodrigues(void **state)
{
    (void)state;
    /* A third of a turn about (1, 1, 1)/sqrt(3) permutes the axes: x -> y -> z -> x. */
    const double s3 = 1.0 / sqrt(3.0), u[3] = {s3, s3, s3};
    const double P[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    double R[3][3];
    pkm_rot_rodrigues(u, 2.0 * PKM_PI / 3.0, R);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            assert_close(R[i][j], P[i][j], 0.0, 1e-15);
    /* A quarter turn about z: R x = (-x_2, x_1, x_3); R^T undoes it. */
    const double z[3] = {0, 0, 1}, x[3] = {0.3, -0.7, 0.2};
    double y[3], back[3];
    pkm_rot_rodrigues(z, PKM_PI / 2.0, R);
    pkm_mat3_apply(PKM_CONST33(R), x, y);
    assert_close(y[0], 0.7, 0.0, 1e-15);
    assert_close(y[1], 0.3, 0.0, 1e-15);
    assert_close(y[2], 0.2, 0.0, 1e-15);
    pkm_mat3_apply_t(PKM_CONST33(R), y, back);
    for (int k = 0; k < 3; k++)
        assert_close(back[k], x[k], 0.0, 1e-15);
    /* Rotations compose: R(a) R(b) = R(a + b) about one axis; R R^T = I for any axis. */
    uint64_t seed = 11;
    double w[3], Ra[3][3], Rb[3][3], Rab[3][3], C[3][3];
    fill(&seed, w, 3);
    const double n = pkm_vec3_norm(w);
    for (int k = 0; k < 3; k++)
        w[k] /= n;
    pkm_rot_rodrigues(w, 0.4, Ra);
    pkm_rot_rodrigues(w, -1.3, Rb);
    pkm_rot_rodrigues(w, -0.9, Rab);
    pkm_mat3_mul(PKM_CONST33(Ra), PKM_CONST33(Rb), C);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            assert_close(C[i][j], Rab[i][j], 0.0, 1e-15);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            assert_close(pkm_vec3_dot(Ra[i], Ra[j]), i == j ? 1.0 : 0.0, 0.0, 4e-16);
    /* R^T (R v) = v, and R w = w on the axis. */
    double v[3], Rv[3], Rw[3];
    fill(&seed, v, 3);
    pkm_mat3_apply(PKM_CONST33(Ra), v, Rv);
    pkm_mat3_apply_t(PKM_CONST33(Ra), Rv, Rv);
    pkm_mat3_apply(PKM_CONST33(Ra), w, Rw);
    for (int k = 0; k < 3; k++) {
        assert_close(Rv[k], v[k], 0.0, 1e-15);
        assert_close(Rw[k], w[k], 0.0, 1e-15);
    }
}

static double dot6(const double a[6], const double b[6])
{
    return pkm_vec3_dot(a, b) + pkm_vec3_dot(a + 3, b + 3);
}

static void test_twist_wrench_transfer(void **state)
{
    (void)state;
    uint64_t seed = 3;
    for (int trial = 0; trial < 20; trial++) {
        double t[6], f[6], r1[3], r2[3], r12[3], t1[6], t12[6], t2[6], f1[6], back[6];
        fill(&seed, t, 6);
        fill(&seed, f, 6);
        fill(&seed, r1, 3);
        fill(&seed, r2, 3);
        /* Adjoint composition: shifting by r1 then r2 is shifting by r1 + r2. */
        pkm_twist_transfer(t, r1, t1);
        pkm_twist_transfer(t1, r2, t12);
        for (int k = 0; k < 3; k++)
            r12[k] = r1[k] + r2[k];
        pkm_twist_transfer(t, r12, t2);
        for (int k = 0; k < 6; k++)
            assert_close(t12[k], t2[k], 0.0, 1e-14);
        /* The inverse shift is the shift by -r. */
        const double m1[3] = {-r1[0], -r1[1], -r1[2]};
        pkm_twist_transfer(t1, m1, back);
        for (int k = 0; k < 6; k++)
            assert_close(back[k], t[k], 0.0, 1e-15);
        /* Duality: the power of a wrench on a twist is the same about any point. */
        pkm_wrench_transfer(f, r1, f1);
        assert_close(dot6(f1, t1), dot6(f, t), 1e-13, 1e-15);
        /* A pure force through the new point has no moment there: f = (F, r x F) at the old. */
        double pf[6] = {f[0], f[1], f[2], 0, 0, 0};
        pkm_vec3_cross(r1, f, pf + 3);
        pkm_wrench_transfer(pf, r1, pf);
        for (int k = 0; k < 3; k++) {
            assert_true(pf[k] == f[k]);
            assert_close(pf[3 + k], 0.0, 0.0, 1e-15);
        }
    }
}

static void test_spatial_inertia(void **state)
{
    (void)state;
    uint64_t seed = 5;
    /* A point mass m at offset c: Jc = 0, so the rotation block is the Steiner term
     * m (|c|^2 I - c c^T), and the coupling blocks give the momentum m (v + w x c). */
    const double zero[3][3] = {{0}};
    for (int trial = 0; trial < 10; trial++) {
        const double m = 2.0 + lcg(&seed);
        double c[3], M[6][6], t[6];
        fill(&seed, c, 3);
        fill(&seed, t, 6);
        pkm_spatial_inertia(m, c, zero, M);
        const double cc = pkm_vec3_dot(c, c);
        double wxc[3];
        pkm_vec3_cross(t + 3, c, wxc);
        for (int i = 0; i < 3; i++) {
            double p = 0.0;
            for (int j = 0; j < 3; j++) {
                assert_true(M[i][j] == (i == j ? m : 0.0));
                assert_close(M[3 + i][3 + j], m * ((i == j ? cc : 0.0) - c[i] * c[j]), 0.0, 1e-14);
                assert_true(M[i][3 + j] == M[3 + j][i]);
            }
            for (int j = 0; j < 6; j++)
                p += M[i][j] * t[j];
            assert_close(p, m * (t[i] + wxc[i]), 0.0, 1e-14);
        }
    }
    /* With Jc about the centre: the inertia at the centre (c = 0) is blockdiag(m I, Jc). */
    const double Jc[3][3] = {{0.3, 0.01, 0.0}, {0.01, 0.2, -0.02}, {0.0, -0.02, 0.1}}, o[3] = {0};
    double M0[6][6];
    pkm_spatial_inertia(1.5, o, Jc, M0);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            assert_true(M0[i][3 + j] == 0.0 && M0[3 + i][j] == 0.0);
            assert_true(M0[3 + i][3 + j] == Jc[i][j]);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_dot_norm),
        cmocka_unit_test(test_rodrigues),
        cmocka_unit_test(test_twist_wrench_transfer),
        cmocka_unit_test(test_spatial_inertia),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
