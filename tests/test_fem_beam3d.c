/* tests/test_fem_beam3d.c: 3D beam and rigid-body kernels against analytic energies and
 * frequencies. SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_lapack.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/fem.h"
#include "pkm/spatial.h"

#include <stdint.h>
#include <string.h>

#define NMAX 32

/* Links of the NaVARo (Germain et al. 2015, Table 2), with Ip deliberately != Iy + Iz so that the
 * torsional inertia must come from Ip, and Iy != Iz so that swapped planes show. */
static const pkm_section sec = {2.4e-4, 1.152e-8, 2.0e-9, 1.352e-8, 1.6e-8};
static const pkm_material mat = {2.1e11, 8.0e10, 2700.0};
static const double len = 0.37;

static void assert_symmetric(int n, const double *a)
{
    double amax = 0.0;
    for (int i = 0; i < n * n; ++i)
        amax = fmax(amax, fabs(a[i]));
    assert_true(amax > 0.0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j)
            assert_close(a[i * n + j], a[j * n + i], 0.0, 1e-15 * amax);
}

static void assert_positive_definite(int n, const double *a)
{
    double w[NMAX];
    dense_sym_eigs(n, a, w);
    assert_true(w[0] > 1e-12 * w[n - 1]);
}

static double quad12(double A[12][12], const double x[12])
{
    double e = 0.0;
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j)
            e += x[i] * A[i][j] * x[j];
    return e;
}

/* Nodal rigid motion of a beam with nodes at X1, X2: translation t plus rotation w about p. */
static void rigid_nodal(const double X1[3], const double X2[3], const double t[3],
                        const double w[3], const double p[3], double x[12])
{
    const double *X[2] = {X1, X2};
    for (int n = 0; n < 2; ++n) {
        double r[3], wr[3];
        for (int i = 0; i < 3; ++i)
            r[i] = X[n][i] - p[i];
        pkm_vec3_cross(w, r, wr);
        for (int i = 0; i < 3; ++i) {
            x[6 * n + i] = t[i] + wr[i];
            x[6 * n + 3 + i] = w[i];
        }
    }
}

/* The 6 rigid modes (3 translations, 3 rotations about p) of a beam with nodes X1, X2. */
static void rigid_modes(const double X1[3], const double X2[3], const double p[3],
                        double modes[6][12])
{
    const double zero[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < 3; ++k) {
        double e[3] = {0.0, 0.0, 0.0};
        e[k] = 1.0;
        rigid_nodal(X1, X2, e, zero, p, modes[k]);
        rigid_nodal(X1, X2, zero, e, p, modes[3 + k]);
    }
}

/* K annihilates the rigid modes, has exactly 6 zero eigenvalues and a clearly positive 7th. */
static void assert_rigid_null_space(double K[12][12], const double X1[3], const double X2[3])
{
    const double p[3] = {0.13, -0.41, 0.27};
    double modes[6][12], w[12], kmax = 0.0;
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j)
            kmax = fmax(kmax, fabs(K[i][j]));
    rigid_modes(X1, X2, p, modes);
    for (int k = 0; k < 6; ++k) {
        double xmax = 0.0;
        for (int i = 0; i < 12; ++i)
            xmax = fmax(xmax, fabs(modes[k][i]));
        for (int i = 0; i < 12; ++i) {
            double f = 0.0;
            for (int j = 0; j < 12; ++j)
                f += K[i][j] * modes[k][j];
            assert_close(f, 0.0, 0.0, 1e-13 * kmax * xmax);
        }
    }
    dense_sym_eigs(12, &K[0][0], w);
    for (int i = 0; i < 6; ++i)
        assert_close(w[i], 0.0, 0.0, 1e-13 * w[11]);
    assert_true(w[6] > 1e-9 * w[11]);
}

static void test_symmetry_definiteness(void **state)
{
    (void)state;
    double K[12][12], M[12][12], Kf[6][6];
    pkm_fem_beam3d_stiffness(&sec, &mat, len, K);
    assert_symmetric(12, &K[0][0]);
    pkm_fem_beam3d_floating_stiffness(&sec, &mat, len, Kf);
    assert_symmetric(6, &Kf[0][0]);
    assert_positive_definite(6, &Kf[0][0]);
    const unsigned flags[2] = {0u, PKM_FEM_ROTARY_INERTIA};
    for (int f = 0; f < 2; ++f) {
        pkm_fem_beam3d_mass(&sec, &mat, len, flags[f], M);
        assert_symmetric(12, &M[0][0]);
        assert_positive_definite(12, &M[0][0]);
        pkm_fem_beam3d_floating_mass(&sec, &mat, len, flags[f], M);
        assert_symmetric(12, &M[0][0]);
        assert_positive_definite(12, &M[0][0]);
    }
}

static void test_stiffness_null_space(void **state)
{
    (void)state;
    const double X1[3] = {0.0, 0.0, 0.0}, X2[3] = {len, 0.0, 0.0};
    double K[12][12];
    pkm_fem_beam3d_stiffness(&sec, &mat, len, K);
    assert_rigid_null_space(K, X1, X2);
}

/* Kinetic energies of rigid motions against rho * int |v|^2 dV by hand: the centre line moves
 * as the rigid field, the section adds rho*Iz, rho*Iy (rotary) and rho*Ip (twist) terms. */
static void test_rigid_kinetic_energy(void **state)
{
    (void)state;
    const double X1[3] = {0.0, 0.0, 0.0}, X2[3] = {len, 0.0, 0.0}, zero[3] = {0.0, 0.0, 0.0};
    const double rho = mat.rho, l = len, m = rho * sec.A * l;
    double M[12][12], x[12];
    for (int f = 0; f < 2; ++f) {
        const unsigned flags = f ? PKM_FEM_ROTARY_INERTIA : 0u;
        pkm_fem_beam3d_mass(&sec, &mat, l, flags, M);
        for (int k = 0; k < 3; ++k) {
            double e[3] = {0.0, 0.0, 0.0};
            e[k] = 1.0;
            rigid_nodal(X1, X2, e, zero, zero, x);
            assert_close(quad12(M, x), m, 1e-13, 0.0);
        }
        const double ex[3] = {1.0, 0.0, 0.0}, ey[3] = {0.0, 1.0, 0.0}, ez[3] = {0.0, 0.0, 1.0};
        rigid_nodal(X1, X2, zero, ex, zero, x);
        assert_close(quad12(M, x), rho * sec.Ip * l, 1e-13, 0.0);
        rigid_nodal(X1, X2, zero, ez, zero, x);
        assert_close(quad12(M, x), m * l * l / 3.0 + f * rho * sec.Iz * l, 1e-13, 0.0);
        rigid_nodal(X1, X2, zero, ey, zero, x);
        assert_close(quad12(M, x), m * l * l / 3.0 + f * rho * sec.Iy * l, 1e-13, 0.0);
        /* Rotation about z through p: velocity (-(y - py), x - px, 0); int over the line of
         * (x - px)^2 is ((l - px)^3 + px^3) / 3, the axial part gives A py^2 + Iz (rotary). */
        const double p[3] = {0.7 * l, -0.3 * l, 0.2};
        rigid_nodal(X1, X2, zero, ez, p, x);
        const double ez_p = rho * sec.A * (pow(l - p[0], 3) + pow(p[0], 3)) / 3.0 +
                            m * p[1] * p[1] + f * rho * sec.Iz * l;
        assert_close(quad12(M, x), ez_p, 1e-13, 0.0);

        /* Same motions in the floating frame: v_A, w_A the node-1 twist, q_e = 0. */
        double Mf[12][12], y[12] = {0};
        pkm_fem_beam3d_floating_mass(&sec, &mat, l, flags, Mf);
        for (int i = 0; i < 6; ++i)
            y[i] = x[i];
        assert_close(quad12(Mf, y), ez_p, 1e-13, 0.0);
        memset(y, 0, sizeof(y));
        y[3] = 1.0;
        assert_close(quad12(Mf, y), rho * sec.Ip * l, 1e-13, 0.0);
    }
}

/* Germain et al. 2015, eqs. 25-27 (with eq. 26 entry (2,6) = -m l/12, see fem/beam3d.c) and the
 * node-2 block of the nodal mass, written from the printed formulas. */
static void test_paper_mass_entries(void **state)
{
    (void)state;
    const double rho = mat.rho, l = len, m = rho * sec.A * l;
    const double rIy = rho * sec.Iy, rIz = rho * sec.Iz;
    double M[12][12], Mf[12][12];
    pkm_fem_beam3d_mass(&sec, &mat, l, PKM_FEM_ROTARY_INERTIA, M);
    pkm_fem_beam3d_floating_mass(&sec, &mat, l, PKM_FEM_ROTARY_INERTIA, Mf);
    const double tol = 1e-13;
    for (int pass = 0; pass < 2; ++pass) {
        /* Eq. 27 is the node-2 block of the nodal mass and the M22 block of the floating one. */
        double(*B)[12] = pass ? Mf : M;
        assert_close(B[6][6], m / 3.0, tol, 0.0);
        assert_close(B[7][7], 13.0 * m / 35.0 + 6.0 * rIz / (5.0 * l), tol, 0.0);
        assert_close(B[8][8], 13.0 * m / 35.0 + 6.0 * rIy / (5.0 * l), tol, 0.0);
        assert_close(B[9][9], rho * l * sec.Ip / 3.0, tol, 0.0);
        assert_close(B[10][10], (m * l * l + 14.0 * rIy * l) / 105.0, tol, 0.0);
        assert_close(B[11][11], (m * l * l + 14.0 * rIz * l) / 105.0, tol, 0.0);
        assert_close(B[7][11], -(11.0 * m * l + 21.0 * rIz) / 210.0, tol, 0.0);
        assert_close(B[8][10], (11.0 * m * l + 21.0 * rIy) / 210.0, tol, 0.0);
    }
    /* Eq. 26. */
    assert_close(Mf[0][6], m / 2.0, tol, 0.0);
    assert_close(Mf[1][7], m / 2.0, tol, 0.0);
    assert_close(Mf[2][8], m / 2.0, tol, 0.0);
    assert_close(Mf[1][11], -m * l / 12.0, tol, 0.0);
    assert_close(Mf[2][10], m * l / 12.0, tol, 0.0);
    assert_close(Mf[3][9], rho * l * sec.Ip / 2.0, tol, 0.0);
    assert_close(Mf[4][8], -rIy - 7.0 * m * l / 20.0, tol, 0.0);
    assert_close(Mf[4][10], -m * l * l / 20.0, tol, 0.0);
    assert_close(Mf[5][7], rIz + 7.0 * m * l / 20.0, tol, 0.0);
    assert_close(Mf[5][11], -m * l * l / 20.0, tol, 0.0);
    /* Eq. 25 with G = (l/2, 0, 0) and the rigid inertia at node 1. */
    assert_close(Mf[0][0], m, tol, 0.0);
    assert_close(Mf[1][5], m * l / 2.0, tol, 0.0);
    assert_close(Mf[2][4], -m * l / 2.0, tol, 0.0);
    assert_close(Mf[3][3], rho * sec.Ip * l, tol, 0.0);
    assert_close(Mf[4][4], m * l * l / 3.0 + rIy * l, tol, 0.0);
    assert_close(Mf[5][5], m * l * l / 3.0 + rIz * l, tol, 0.0);
    assert_close(Mf[0][4], 0.0, 0.0, 0.0);
    assert_close(Mf[0][5], 0.0, 0.0, 0.0);
}

/* T maps [v_A; w_A; q_e] (local) to the nodal [u1; r1; u2; r2]. */
static void floating_map(double l, double T[12][12])
{
    memset(T, 0, 12 * sizeof(T[0]));
    for (int i = 0; i < 6; ++i) {
        T[i][i] = 1.0;     /* u1 = v_A, r1 = w_A */
        T[6 + i][i] = 1.0; /* u2 = v_A + ..., r2 = w_A + ... */
        T[6 + i][6 + i] = 1.0;
    }
    /* w_A x (l, 0, 0) = (0, l w_z, -l w_y). */
    T[7][5] = l;
    T[8][4] = -l;
}

/* max |F - T^T N T|_ij / (c_i c_j), c_i^2 = sum_k T_ki^2 N_kk: an energy-scaled entry error. */
static double congruence_error(double N[12][12], double F[12][12], double l)
{
    double T[12][12], NT[12][12], c[12], err = 0.0;
    floating_map(l, T);
    for (int i = 0; i < 12; ++i) {
        c[i] = 0.0;
        for (int k = 0; k < 12; ++k)
            c[i] += T[k][i] * T[k][i] * N[k][k];
        c[i] = sqrt(c[i]);
        for (int j = 0; j < 12; ++j) {
            NT[i][j] = 0.0;
            for (int k = 0; k < 12; ++k)
                NT[i][j] += N[i][k] * T[k][j];
        }
    }
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) {
            double g = 0.0;
            for (int k = 0; k < 12; ++k)
                g += T[k][i] * NT[k][j];
            err = fmax(err, fabs(F[i][j] - g) / (c[i] * c[j]));
        }
    return err;
}

static void test_floating_congruence(void **state)
{
    (void)state;
    double N[12][12], F[12][12], Kf[6][6];
    for (int f = 0; f < 2; ++f) {
        const unsigned flags = f ? PKM_FEM_ROTARY_INERTIA : 0u;
        pkm_fem_beam3d_mass(&sec, &mat, len, flags, N);
        pkm_fem_beam3d_floating_mass(&sec, &mat, len, flags, F);
        const double e = congruence_error(N, F, len);
        print_message("mass congruence (flags %u): max scaled error %.3e\n", flags, e);
        assert_true(e < 1e-12);
    }
    pkm_fem_beam3d_stiffness(&sec, &mat, len, N);
    pkm_fem_beam3d_floating_stiffness(&sec, &mat, len, Kf);
    memset(F, 0, sizeof(F));
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            F[6 + i][6 + j] = Kf[i][j];
    const double e = congruence_error(N, F, len);
    print_message("stiffness congruence: max scaled error %.3e\n", e);
    assert_true(e < 1e-12);
}

static void test_global_rotation(void **state)
{
    (void)state;
    const double xa[3] = {0.1, -0.2, 0.3}, xb[3] = {0.45, 0.05, -0.12}, zref[3] = {0.3, 0.2, 1.0};
    double R[3][3], l = 0.0, K[12][12], Kg[12][12], M[12][12], Mg[12][12];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_fem_beam3d_frame(xa, xb, zref, R, &l, &ctx), &ctx);
    double d[3], dn = 0.0;
    for (int i = 0; i < 3; ++i) {
        d[i] = xb[i] - xa[i];
        dn += d[i] * d[i];
    }
    assert_close(l, sqrt(dn), 1e-15, 0.0);
    for (int i = 0; i < 3; ++i) {
        assert_close(R[0][i], d[i] / l, 1e-15, 0.0);
        for (int j = 0; j < 3; ++j) {
            double g = 0.0;
            for (int k = 0; k < 3; ++k)
                g += R[i][k] * R[j][k];
            assert_close(g, i == j ? 1.0 : 0.0, 0.0, 1e-15);
        }
    }
    double y[3];
    pkm_vec3_cross(R[2], R[0], y);
    for (int i = 0; i < 3; ++i)
        assert_close(R[1][i], y[i], 0.0, 1e-15);
    /* z lies in the plane of the beam and zref, on zref's side. */
    double zz = 0.0, zn = 0.0, trip;
    pkm_vec3_cross(R[0], zref, y);
    trip = y[0] * R[2][0] + y[1] * R[2][1] + y[2] * R[2][2];
    for (int i = 0; i < 3; ++i) {
        zz += zref[i] * R[2][i];
        zn += zref[i] * zref[i];
    }
    assert_close(trip, 0.0, 0.0, 1e-15);
    assert_true(zz > 0.1 * sqrt(zn));

    pkm_fem_beam3d_stiffness(&sec, &mat, l, K);
    pkm_fem_rotate12(R, K, Kg);
    assert_symmetric(12, &Kg[0][0]);
    assert_rigid_null_space(Kg, xa, xb);
    /* Stretching along the beam and bending along local z, prescribed in global components. */
    double x[12] = {0};
    for (int i = 0; i < 3; ++i)
        x[6 + i] = R[0][i];
    assert_close(quad12(Kg, x), mat.E * sec.A / l, 1e-12, 0.0);
    for (int i = 0; i < 3; ++i)
        x[6 + i] = R[2][i];
    assert_close(quad12(Kg, x), 12.0 * mat.E * sec.Iy / (l * l * l), 1e-12, 0.0);
    /* Rigid twist about the beam axis: torsional inertia, in place (G aliasing L). */
    pkm_fem_beam3d_mass(&sec, &mat, l, 0u, M);
    memcpy(Mg, M, sizeof(M));
    pkm_fem_rotate12(R, Mg, Mg);
    pkm_fem_rotate12(R, M, M);
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j)
            assert_close(Mg[i][j], M[i][j], 0.0, 0.0);
    memset(x, 0, sizeof(x));
    for (int i = 0; i < 3; ++i)
        x[3 + i] = x[9 + i] = R[0][i];
    assert_close(quad12(Mg, x), mat.rho * sec.Ip * l, 1e-13, 0.0);
}

/* Clamped-free planar bending (v, rz) with N elements: the first nmodes circular frequencies. */
static void cantilever(int nel, const pkm_section *s, const pkm_material *m, double L, double *w)
{
    static const int dof[4] = {1, 5, 7, 11};
    double Ka[NMAX * NMAX] = {0}, Ma[NMAX * NMAX] = {0};
    double Ke[12][12], Me[12][12];
    const int n = 2 * nel;
    assert_true(n <= NMAX);
    pkm_fem_beam3d_stiffness(s, m, L / nel, Ke);
    pkm_fem_beam3d_mass(s, m, L / nel, 0u, Me);
    for (int e = 0; e < nel; ++e)
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b) {
                /* Node e has free dofs 2(e-1), 2(e-1)+1; node 0 is clamped. */
                const int i = 2 * e + a - 2, j = 2 * e + b - 2;
                if (i < 0 || j < 0) continue;
                Ka[i * n + j] += Ke[dof[a]][dof[b]];
                Ma[i * n + j] += Me[dof[a]][dof[b]];
            }
    dense_pencil_eigs(n, Ka, Ma, w);
    for (int i = 0; i < n; ++i)
        w[i] = sqrt(w[i]);
}

static void test_cantilever_convergence(void **state)
{
    (void)state;
    const double E = 2.06e11, rho = 7900.0, L = 0.52, r = 0.03, nu = 0.3;
    const double A = PKM_PI * r * r, I = PKM_PI * pow(r, 4) / 4.0;
    const pkm_section s = {A, I, I, 2.0 * I, 2.0 * I};
    const pkm_material m = {E, E / (2.0 * (1.0 + nu)), rho};
    const double betaL[3] = {1.8751041, 4.6940911, 7.8547574};
    const double w0 = sqrt(E * I / (rho * A * pow(L, 4)));
    double exact[3], err[5][3], err1sq[5], w[NMAX];
    for (int k = 0; k < 3; ++k) {
        /* Refine the tabulated roots of 1 + cos(b) cosh(b) = 0 to full precision by Newton. */
        double b = betaL[k];
        for (int it = 0; it < 8; ++it)
            b -= (1.0 + cos(b) * cosh(b)) / (cos(b) * sinh(b) - sin(b) * cosh(b));
        assert_close(b, betaL[k], 1e-7, 0.0);
        exact[k] = b * b * w0;
    }
    for (int q = 0, nel = 1; q < 5; ++q, nel *= 2) {
        cantilever(nel, &s, &m, L, w);
        for (int k = 0; k < 3; ++k)
            err[q][k] = k < 2 * nel ? fabs(w[k] - exact[k]) / exact[k] : INFINITY;
        err1sq[q] = fabs(w[0] * w[0] - exact[0] * exact[0]) / (exact[0] * exact[0]);
        print_message("N = %2d: rel. errors omega_1..3 = %.3e %.3e %.3e\n", nel, err[q][0],
                      err[q][1], err[q][2]);
        if (nel == 1) {
            /* One element: det(K - lambda M) = 0 on (v2, rz2) reduces with a = lambda/420 to
             * 140 a^2 - 408 a + 12 = 0, so omega_1^2 m L^3 / (E I) = 612 - 96 sqrt(39). */
            const double c = w[0] / sqrt(E * I / (rho * A * L * L * L * L));
            print_message("one element: omega_1 = %.8f sqrt(E I / (m L^3))\n", c);
            assert_close(c, sqrt(612.0 - 96.0 * sqrt(39.0)), 1e-12, 0.0);
            assert_close(c, 3.5327, 1e-4, 0.0);
        }
    }
    for (int q = 1; q < 5; ++q)
        for (int k = 0; k < 3; ++k)
            assert_true(err[q][k] < err[q - 1][k]);
    /* Cubic Hermite elements with consistent mass: lambda_h / lambda = 1 + (k h)^4 / 720 +
     * O(h^6), k = beta_n. Check the order on the pairs from N = 2 on (at N = 1, k h = 1.88 is not
     * asymptotic) where the error stays well above rounding. */
    int pairs = 0;
    for (int q = 0; q < 4; ++q) {
        const double order = log2(err1sq[q] / err1sq[q + 1]);
        print_message("order omega_1^2, N = %d -> %d: %.3f\n", 1 << q, 2 << q, order);
        if (q == 0 || err1sq[q + 1] < 1e-11) continue;
        assert_true(order > 3.7 && order < 4.3);
        ++pairs;
    }
    assert_true(pairs >= 2);
    /* N = 16: the first two modes are within 1e-5; the third (k h = 0.49) sits at the leading
     * error term (k h)^4 / 1440 of omega, about 4e-5. */
    assert_true(err[4][0] < 1e-5 && err[4][1] < 1e-5);
    for (int k = 0; k < 3; ++k) {
        const double kh = betaL[k] / 16.0;
        assert_close(err[4][k], pow(kh, 4) / 1440.0, 0.05, 0.0);
    }
}

static void test_props_check(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_fem_props_check(&sec, &mat, "link 5i", &ctx), &ctx);
    static const char *names[8] = {"area A", "Iy",        "Iz",        "I0",
                                   "Ip",     "modulus E", "modulus G", "rho"};
    const double bad[4] = {0.0, -1.0, NAN, INFINITY};
    for (int p = 0; p < 8; ++p)
        for (int b = 0; b < 4; ++b) {
            pkm_section s = sec;
            pkm_material m = mat;
            double *field[8] = {&s.A, &s.Iy, &s.Iz, &s.I0, &s.Ip, &m.E, &m.G, &m.rho};
            *field[p] = bad[b];
            pkm_ctx_clear(&ctx);
            assert_int_equal(pkm_fem_props_check(&s, &m, "link 5i", &ctx), PKM_ERR_INVALID);
            assert_int_equal(ctx.status, PKM_ERR_INVALID);
            assert_non_null(strstr(ctx.msg, "link 5i"));
            assert_non_null(strstr(ctx.msg, names[p]));
        }
}

static void test_frame_rejects(void **state)
{
    (void)state;
    const double xa[3] = {1.0, 2.0, 3.0}, xb[3] = {1.5, 2.0, 3.0};
    const double tiny[3] = {1.0 + 1e-13, 2.0, 3.0};
    const double zpar[3] = {-2.0, 1e-9, 0.0}, zzero[3] = {0.0, 0.0, 0.0};
    const double zok[3] = {0.0, 1e-6, 1.0};
    double R[3][3], l = -1.0;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_fem_beam3d_frame(xa, xa, zok, R, &l, &ctx), PKM_ERR_MODEL);
    assert_int_equal(ctx.status, PKM_ERR_MODEL);
    assert_non_null(strstr(ctx.msg, "length"));
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_fem_beam3d_frame(xa, tiny, zok, R, &l, &ctx), PKM_ERR_MODEL);
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_fem_beam3d_frame(xa, xb, zpar, R, &l, &ctx), PKM_ERR_MODEL);
    assert_non_null(strstr(ctx.msg, "parallel"));
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_fem_beam3d_frame(xa, xb, zzero, R, &l, &ctx), PKM_ERR_MODEL);
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_fem_beam3d_frame(xa, xb, zok, R, &l, &ctx), &ctx);
    assert_close(l, 0.5, 1e-15, 0.0);
}

/* Deterministic pseudo-random numbers in [-1, 1). */
static double lcg(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005u + 1442695040888963407u;
    return (double)(*seed >> 11) / 4503599627370496.0 - 1.0;
}

static void test_rigid_mass(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (int trial = 0; trial < 5; ++trial) {
        const double m = 2.0 + lcg(&seed);
        double c[3], Jc[3][3], Q[3][3], M[6][6], t[6];
        for (int i = 0; i < 3; ++i) {
            c[i] = 0.5 * lcg(&seed);
            for (int j = 0; j < 3; ++j)
                Q[i][j] = lcg(&seed);
        }
        /* Jc = Q^T Q + 0.1 I: symmetric positive definite. */
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                Jc[i][j] = i == j ? 0.1 : 0.0;
                for (int k = 0; k < 3; ++k)
                    Jc[i][j] += Q[k][i] * Q[k][j];
            }
        for (int i = 0; i < 6; ++i)
            t[i] = lcg(&seed);
        pkm_spatial_inertia(m, c, PKM_CONST33(Jc), M);
        assert_symmetric(6, &M[0][0]);
        double e = 0.0, vg[3], wc[3], ej = 0.0;
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j)
                e += 0.5 * t[i] * M[i][j] * t[j];
        pkm_vec3_cross(&t[3], c, wc);
        for (int i = 0; i < 3; ++i) {
            vg[i] = t[i] + wc[i];
            for (int j = 0; j < 3; ++j)
                ej += 0.5 * t[3 + i] * Jc[i][j] * t[3 + j];
        }
        const double eref = 0.5 * m * (vg[0] * vg[0] + vg[1] * vg[1] + vg[2] * vg[2]) + ej;
        assert_close(e, eref, 1e-13, 0.0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symmetry_definiteness),  cmocka_unit_test(test_stiffness_null_space),
        cmocka_unit_test(test_rigid_kinetic_energy),   cmocka_unit_test(test_paper_mass_entries),
        cmocka_unit_test(test_floating_congruence),    cmocka_unit_test(test_global_rotation),
        cmocka_unit_test(test_cantilever_convergence), cmocka_unit_test(test_props_check),
        cmocka_unit_test(test_frame_rejects),          cmocka_unit_test(test_rigid_mass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
