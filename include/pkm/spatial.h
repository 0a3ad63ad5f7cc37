/* include/pkm/spatial.h: spatial algebra of the core layer. Pure functions on fixed-size arrays,
 * global axes, SI units, no allocation; shared by the element kernels, the model, the two
 * assembly formulations, the cases' inverse kinematics and the rigid-body dynamics to come.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Conventions (Featherstone, Rigid Body Dynamics Algorithms, 2008, ch. 2, in the 3-vector pairs
 * of Germain et al. 2015, eqs. 33-37):
 *  - a twist t = (v, w) is the velocity v of a reference point and the angular velocity w, or a
 *    small displacement (translation, rotation); a unit screw is the twist at the origin;
 *  - a wrench f = (F, M) is a force and its moment about the reference point;
 *  - the power f . t = F . v + M . w does not depend on the reference point, which is what makes
 *    pkm_wrench_transfer the dual (the transpose inverse) of pkm_twist_transfer;
 *  - 3x3 matrices are row-major double[3][3]; rotations map body axes to global axes. They are
 *    const-qualified inputs, which is what a const model's inertias and frames need; C before C2X
 *    does not convert double (*)[3] to const double (*)[3] by itself, so a caller with a
 *    modifiable array passes PKM_CONST33(A).
 * Every function writes its result only after reading its inputs, so out may alias an input. */
#ifndef PKM_SPATIAL_H
#define PKM_SPATIAL_H

#include <math.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A modifiable 3x3 array as the const input of the functions below. */
#define PKM_CONST33(A) ((const double(*)[3])(A))

static inline double pkm_vec3_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline double pkm_vec3_norm(const double a[3])
{
    return sqrt(pkm_vec3_dot(a, a));
}

/* c = a x b. */
static inline void pkm_vec3_cross(const double a[3], const double b[3], double c[3])
{
    const double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                         a[0] * b[1] - a[1] * b[0]};
    memcpy(c, t, sizeof(t));
}

/* c = a - b. */
static inline void pkm_vec3_sub(const double a[3], const double b[3], double c[3])
{
    for (int k = 0; k < 3; k++)
        c[k] = a[k] - b[k];
}

/* y += alpha x. */
static inline void pkm_vec3_axpy(double alpha, const double x[3], double y[3])
{
    for (int k = 0; k < 3; k++)
        y[k] += alpha * x[k];
}

/* S = [a]x, the matrix of the cross product: S b = a x b. */
static inline void pkm_vec3_skew(const double a[3], double S[3][3])
{
    const double T[3][3] = {{0.0, -a[2], a[1]}, {a[2], 0.0, -a[0]}, {-a[1], a[0], 0.0}};
    memcpy(S, T, sizeof(T));
}

/* C = A B (C may alias A or B). */
static inline void pkm_mat3_mul(const double A[3][3], const double B[3][3], double C[3][3])
{
    double T[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            T[r][c] = A[r][0] * B[0][c] + A[r][1] * B[1][c] + A[r][2] * B[2][c];
    memcpy(C, T, sizeof(T));
}

/* y = R x (body axes to global for a rotation). */
static inline void pkm_mat3_apply(const double R[3][3], const double x[3], double y[3])
{
    const double t[3] = {pkm_vec3_dot(R[0], x), pkm_vec3_dot(R[1], x), pkm_vec3_dot(R[2], x)};
    memcpy(y, t, sizeof(t));
}

/* y = R^T x (global axes to body for a rotation). */
static inline void pkm_mat3_apply_t(const double R[3][3], const double x[3], double y[3])
{
    double t[3];
    for (int k = 0; k < 3; k++)
        t[k] = R[0][k] * x[0] + R[1][k] * x[1] + R[2][k] * x[2];
    memcpy(y, t, sizeof(t));
}

/* Rotation by angle (rad) about the unit axis u (Rodrigues): R = cos I + sin [u]x +
 * (1 - cos) u u^T. */
static inline void pkm_rot_rodrigues(const double u[3], double angle, double R[3][3])
{
    const double c = cos(angle), s = sin(angle), v = 1.0 - c;
    double S[3][3];
    pkm_vec3_skew(u, S);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[i][j] = (i == j ? c : 0.0) + s * S[i][j] + v * u[i] * u[j];
}

/* The same rigid motion at a point shifted by r: v' = v + w x r, w' = w (the adjoint of the
 * translation r; Germain et al. 2015, eq. 35). With r = -y it gives the screw at the origin of
 * a twist known at y. */
static inline void pkm_twist_transfer(const double t[6], const double r[3], double out[6])
{
    double wxr[3];
    pkm_vec3_cross(t + 3, r, wxr);
    const double o[6] = {t[0] + wxr[0], t[1] + wxr[1], t[2] + wxr[2], t[3], t[4], t[5]};
    memcpy(out, o, sizeof(o));
}

/* The same wrench about a point shifted by r: F' = F, M' = M - r x F = M + F x r; the dual of
 * pkm_twist_transfer: wrench_transfer(f, r) . twist_transfer(t, r) = f . t. */
static inline void pkm_wrench_transfer(const double f[6], const double r[3], double out[6])
{
    double fxr[3];
    pkm_vec3_cross(f, r, fxr);
    const double o[6] = {f[0], f[1], f[2], f[3] + fxr[0], f[4] + fxr[1], f[5] + fxr[2]};
    memcpy(out, o, sizeof(o));
}

/* Spatial inertia of a rigid body on the twist (v, w) of a reference point O: mass m (kg), c the
 * centre of mass minus O (m), Jc the inertia tensor about the centre of mass (kg m^2, row-major,
 * global axes). Kinetic energy 1/2 m |v + w x c|^2 + 1/2 w^T Jc w with w x c = -[c]x w, so the
 * blocks are m I, -m [c]x, m [c]x and Jc - m [c]x [c]x (the parallel-axis theorem). */
static inline void pkm_spatial_inertia(double m, const double c[3], const double Jc[3][3],
                                       double M[6][6])
{
    double cx[3][3];
    pkm_vec3_skew(c, cx);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double cc = 0.0;
            for (int k = 0; k < 3; ++k)
                cc += cx[i][k] * cx[k][j];
            M[i][j] = (i == j) ? m : 0.0;
            M[i][j + 3] = -m * cx[i][j];
            M[i + 3][j] = m * cx[i][j];
            M[i + 3][j + 3] = Jc[i][j] - m * cc;
        }
}

#ifdef __cplusplus
}
#endif
#endif
