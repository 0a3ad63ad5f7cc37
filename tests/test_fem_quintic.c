/* tests/test_fem_quintic.c: the quintic-Hermite beam and the lead-screw elements (Li et al. 2020,
 * eqs. 1-17) against exact rational matrices, rigid-body motions and Euler-Bernoulli beam theory.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_lapack.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/fem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Local dofs of the 18-dof beam (include/pkm/fem.h). */
enum { U1, V1, W1, RX1, RY1, RZ1, KX1, KY1, KZ1, U2, V2, W2, RX2, RY2, RZ2, KX2, KY2, KZ2 };

/* The link of Li et al. 2020, Table 1: solid 60 mm steel bar, L = 0.52 m. */
#define E_   2.06e11
#define G_   7.94e10
#define RHO  7900.0
#define LEN  0.52
#define RBAR 0.03

static pkm_section bar(void)
{
    const double I = PKM_PI * 0.06 * 0.06 * 0.06 * 0.06 / 64.0;
    pkm_section s = {.A = PKM_PI * RBAR * RBAR, .Iy = I, .Iz = I, .I0 = 2.0 * I, .Ip = 2.0 * I};
    return s;
}

static const pkm_material steel = {E_, G_, RHO};

/* A section with every property different, so that swapped terms show. */
static const pkm_section odd = {2.4e-4, 1.152e-8, 2.0e-9, 1.352e-8, 1.6e-8};

/* ---- small dense helpers (row-major; symmetric matrices are their own column-major form) ---- */

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

static double quad(int n, const double *A, const double *x)
{
    long double e = 0.0L;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            e += (long double)x[i] * A[i * n + j] * x[j];
    return (double)e;
}

/* out = A restricted to the dofs sel[0..ns-1]. */
static void extract(int n, const double *A, int ns, const int *sel, double *out)
{
    for (int a = 0; a < ns; ++a)
        for (int b = 0; b < ns; ++b)
            out[a * ns + b] = A[sel[a] * n + sel[b]];
}

/* A straight chain of nel equal elements with nd dofs per node (element order 2 nd) and the
 * dofs of node 0 flagged in fixed[] removed. */
typedef struct chain {
    int n;
    double *K, *M;
} chain;

static chain chain_build(int nd, const double *Ke, const double *Me, int nel, const int *fixed)
{
    const int nall = nd * (nel + 1);
    int map[512], n = 0;
    assert_true(nall <= 512);
    for (int i = 0; i < nall; ++i)
        map[i] = (i < nd && fixed[i]) ? -1 : n++;
    chain c = {n, calloc((size_t)(n * n), sizeof(double)), calloc((size_t)(n * n), sizeof(double))};
    assert_non_null(c.K);
    assert_non_null(c.M);
    for (int e = 0; e < nel; ++e)
        for (int a = 0; a < 2 * nd; ++a)
            for (int b = 0; b < 2 * nd; ++b) {
                const int i = map[e * nd + a], j = map[e * nd + b];
                if (i < 0 || j < 0) continue;
                c.K[i * n + j] += Ke[a * 2 * nd + b];
                c.M[i * n + j] += Me[a * 2 * nd + b];
            }
    return c;
}

static void chain_free(chain *c)
{
    free(c->K);
    free(c->M);
}

/* All eigenvalues w^2 (ascending) of the chain by LAPACK dsygv. */
static void chain_eigs(const chain *c, double *w)
{
    const int n = c->n;
    double *K = malloc(sizeof(double) * (size_t)(n * n)),
           *M = malloc(sizeof(double) * (size_t)(n * n));
    assert_non_null(K);
    assert_non_null(M);
    memcpy(K, c->K, sizeof(double) * (size_t)(n * n));
    memcpy(M, c->M, sizeof(double) * (size_t)(n * n));
    dense_pencil_eigs(n, K, M, w);
    free(K);
    free(M);
}

/* The lowest eigenvalue w^2 by inverse iteration and a Rayleigh quotient summed in long double:
 * its error is quadratic in that of the vector and free of the eps * w^2_max / w^2_1 floor of a
 * full dense solve, so errors down to ~1e-13 can be measured. K must be positive definite and the
 * lowest eigenvalue simple. */
static double chain_lowest(const chain *c)
{
    const int n = c->n, one = 1;
    double *L = malloc(sizeof(double) * (size_t)(n * n)), *x = malloc(sizeof(double) * (size_t)n);
    double *y = malloc(sizeof(double) * (size_t)n);
    assert_non_null(L);
    assert_non_null(x);
    assert_non_null(y);
    memcpy(L, c->K, sizeof(double) * (size_t)(n * n));
    int info = -1;
    dpotrf_("U", &n, L, &n, &info, 1);
    assert_int_equal(info, 0);
    for (int i = 0; i < n; ++i)
        x[i] = 1.0 + 0.01 * i;
    for (int it = 0; it < 60; ++it) {
        double nrm = 0.0;
        for (int i = 0; i < n; ++i) {
            long double acc = 0.0L;
            for (int j = 0; j < n; ++j)
                acc += (long double)c->M[i * n + j] * x[j];
            y[i] = (double)acc;
        }
        dpotrs_("U", &n, &one, L, &n, y, &n, &info, 1);
        assert_int_equal(info, 0);
        for (int i = 0; i < n; ++i)
            nrm = fmax(nrm, fabs(y[i]));
        for (int i = 0; i < n; ++i)
            x[i] = y[i] / nrm;
    }
    const double lam = quad(n, c->K, x) / quad(n, c->M, x);
    free(L);
    free(x);
    free(y);
    return lam;
}

/* Root of 1 + cos(b) cosh(b) = 0 near b0 (clamped-free beam) to full precision by Newton. */
static double clamped_free_root(double b0)
{
    double b = b0;
    for (int it = 0; it < 8; ++it)
        b -= (1.0 + cos(b) * cosh(b)) / (cos(b) * sinh(b) - sin(b) * cosh(b));
    return b;
}

/* ---- element matrices ---- */

/* Exact quintic Hermite bending matrices int n_a n_b and int n_a'' n_b'' over a unit element
 * (rational arithmetic, independent of the kernel), dofs (v1, v1', v1'', v2, v2', v2''); entry
 * (a, b) scales with l^(p_a + p_b), p = (0, 1, 2, 0, 1, 2). */
static const double qm[6][6] = {
    {181.0 / 462, 311.0 / 4620, 281.0 / 55440, 25.0 / 231, -151.0 / 4620, 181.0 / 55440},
    {311.0 / 4620, 52.0 / 3465, 23.0 / 18480, 151.0 / 4620, -19.0 / 1980, 13.0 / 13860},
    {281.0 / 55440, 23.0 / 18480, 1.0 / 9240, 181.0 / 55440, -13.0 / 13860, 1.0 / 11088},
    {25.0 / 231, 151.0 / 4620, 181.0 / 55440, 181.0 / 462, -311.0 / 4620, 281.0 / 55440},
    {-151.0 / 4620, -19.0 / 1980, -13.0 / 13860, -311.0 / 4620, 52.0 / 3465, -23.0 / 18480},
    {181.0 / 55440, 13.0 / 13860, 1.0 / 11088, 281.0 / 55440, -23.0 / 18480, 1.0 / 9240}};
static const double qk[6][6] = {{120.0 / 7, 60.0 / 7, 3.0 / 7, -120.0 / 7, 60.0 / 7, -3.0 / 7},
                                {60.0 / 7, 192.0 / 35, 11.0 / 35, -60.0 / 7, 108.0 / 35, -4.0 / 35},
                                {3.0 / 7, 11.0 / 35, 3.0 / 35, -3.0 / 7, 4.0 / 35, 1.0 / 70},
                                {-120.0 / 7, -60.0 / 7, -3.0 / 7, 120.0 / 7, -60.0 / 7, 3.0 / 7},
                                {60.0 / 7, 108.0 / 35, 4.0 / 35, -60.0 / 7, 192.0 / 35, -11.0 / 35},
                                {-3.0 / 7, -4.0 / 35, 1.0 / 70, 3.0 / 7, -11.0 / 35, 3.0 / 35}};
static const int qpow[6] = {0, 1, 2, 0, 1, 2};

/* Cubic Hermite int N N (l/420 [156 22l 54 -13l ...]) and int N' N' (1/(30 l) [36 3l -36 3l
 * ...]), dofs (phi1, phi1', phi2, phi2'), entries before the powers of l (p = (0, 1, 0, 1)). */
static const double cm[4][4] = {
    {156, 22, 54, -13}, {22, 4, 13, -3}, {54, 13, 156, -22}, {-13, -3, -22, 4}};
static const double ck[4][4] = {{36, 3, -36, 3}, {3, 4, -3, -1}, {-36, -3, 36, -3}, {3, -1, -3, 4}};
static const int cubpow[4] = {0, 1, 0, 1};

static void test_exact_entries(void **state)
{
    (void)state;
    const pkm_section s = odd;
    const double l = 0.37, rho = steel.rho, E = steel.E, G = steel.G;
    double K[18][18], M[18][18];
    pkm_fem_quintic_stiffness(&s, &steel, l, K);
    pkm_fem_quintic_mass(&s, &steel, l, 0u, M);
    /* Bending planes: x-y on (v, rz, kz) = (v, v', v''), x-z on (w, ry, ky) = (w, -w', -w''). */
    const int pxy[6] = {V1, RZ1, KZ1, V2, RZ2, KZ2}, pxz[6] = {W1, RY1, KY1, W2, RY2, KY2};
    const double sxz[6] = {1, -1, -1, 1, -1, -1};
    double worst = 0.0;
    for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b) {
            const double lp = pow(l, qpow[a] + qpow[b]);
            const double mxy = rho * s.A * l * qm[a][b] * lp, kxy = qk[a][b] * lp / (l * l * l);
            assert_close(M[pxy[a]][pxy[b]], mxy, 1e-13, 0.0);
            assert_close(M[pxz[a]][pxz[b]], sxz[a] * sxz[b] * mxy, 1e-13, 0.0);
            assert_close(K[pxy[a]][pxy[b]], E * s.Iz * kxy, 1e-13, 0.0);
            assert_close(K[pxz[a]][pxz[b]], sxz[a] * sxz[b] * E * s.Iy * kxy, 1e-13, 0.0);
            worst = fmax(worst, fabs(M[pxy[a]][pxy[b]] - mxy) / fabs(mxy));
        }
    /* Twist: cubic Hermite on (rx, kx) with G I0 and rho Ip. */
    const int tw[4] = {RX1, KX1, RX2, KX2};
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
            const double lp = pow(l, cubpow[a] + cubpow[b]);
            assert_close(M[tw[a]][tw[b]], rho * s.Ip * l / 420.0 * cm[a][b] * lp, 1e-13, 0.0);
            assert_close(K[tw[a]][tw[b]], G * s.I0 / (30.0 * l) * ck[a][b] * lp, 1e-13, 0.0);
        }
    /* Axial: linear. */
    assert_close(K[U1][U1], E * s.A / l, 1e-14, 0.0);
    assert_close(K[U1][U2], -E * s.A / l, 1e-14, 0.0);
    assert_close(M[U1][U1], rho * s.A * l / 3.0, 1e-14, 0.0);
    assert_close(M[U1][U2], rho * s.A * l / 6.0, 1e-14, 0.0);
    /* Nothing couples the four fields: count the nonzero entries (4 + 36 + 36 + 16 = 92). */
    int nzk = 0, nzm = 0;
    for (int i = 0; i < 18; ++i)
        for (int j = 0; j < 18; ++j) {
            nzk += K[i][j] != 0.0;
            nzm += M[i][j] != 0.0;
        }
    assert_int_equal(nzk, 92);
    assert_int_equal(nzm, 92);
    print_message("quintic bending mass vs exact rationals: max rel diff %.2e\n", worst);

    /* Screw elements: the paper's lateral block is the exact one on (w, w', w2, w2'), the
     * consistent one the whole table (theta = +w'). */
    double Kp[6][6], Mp[6][6], Kc[8][8], Mc[8][8];
    pkm_fem_screw_paper_stiffness(&s, &steel, l, Kp);
    pkm_fem_screw_paper_mass(&s, &steel, l, 0u, Mp);
    pkm_fem_screw_consistent_stiffness(&s, &steel, l, Kc);
    pkm_fem_screw_consistent_mass(&s, &steel, l, 0u, Mc);
    const int lp6[4] = {1, 2, 4, 5}, lq6[4] = {0, 1, 3, 4}, lp8[6] = {1, 2, 3, 5, 6, 7};
    for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b) {
            const double lp = pow(l, qpow[a] + qpow[b]);
            assert_close(Mc[lp8[a]][lp8[b]], rho * s.A * l * qm[a][b] * lp, 1e-13, 0.0);
            assert_close(Kc[lp8[a]][lp8[b]], E * s.Iy * qk[a][b] * lp / (l * l * l), 1e-13, 0.0);
        }
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
            const int qa = lq6[a], qb = lq6[b];
            const double lp = pow(l, qpow[qa] + qpow[qb]);
            assert_close(Mp[lp6[a]][lp6[b]], rho * s.A * l * qm[qa][qb] * lp, 1e-13, 0.0);
            assert_close(Kp[lp6[a]][lp6[b]], E * s.Iy * qk[qa][qb] * lp / (l * l * l), 1e-13, 0.0);
        }
    assert_close(Kp[0][3], -E * s.A / l, 1e-14, 0.0);
    assert_close(Kc[0][4], -E * s.A / l, 1e-14, 0.0);
    assert_close(Mp[0][0], rho * s.A * l / 3.0, 1e-14, 0.0);
    assert_close(Mc[4][0], rho * s.A * l / 6.0, 1e-14, 0.0);
    assert_close(Kp[0][1], 0.0, 0.0, 0.0);
    assert_close(Mc[0][5], 0.0, 0.0, 0.0);
}

/* Rigid motions of the 18-dof beam with nodes X1, X2 (x along the beam in local axes, or any
 * axes with the curvature dofs left at zero): translation t plus rotation w about p. */
static void rigid18(const double X1[3], const double X2[3], const double t[3], const double w[3],
                    const double p[3], double x[18])
{
    const double *X[2] = {X1, X2};
    memset(x, 0, 18 * sizeof(double));
    for (int n = 0; n < 2; ++n) {
        const double r[3] = {X[n][0] - p[0], X[n][1] - p[1], X[n][2] - p[2]};
        const double wr[3] = {w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2],
                              w[0] * r[1] - w[1] * r[0]};
        for (int i = 0; i < 3; ++i) {
            x[9 * n + i] = t[i] + wr[i];
            x[9 * n + 3 + i] = w[i];
        }
    }
}

static void rigid_modes18(const double X1[3], const double X2[3], double modes[6][18])
{
    const double p[3] = {0.13, -0.41, 0.27}, zero[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        double e[3] = {0, 0, 0};
        e[k] = 1.0;
        rigid18(X1, X2, e, zero, p, modes[k]);
        rigid18(X1, X2, zero, e, p, modes[3 + k]);
    }
}

/* K annihilates the 6 rigid modes and has rank 12: 6 zero eigenvalues, a clearly positive 7th. */
static void assert_rigid_null_space(double K[18][18], const double X1[3], const double X2[3])
{
    double modes[6][18], w[18], kmax = 0.0, worst = 0.0;
    for (int i = 0; i < 18; ++i)
        for (int j = 0; j < 18; ++j)
            kmax = fmax(kmax, fabs(K[i][j]));
    rigid_modes18(X1, X2, modes);
    for (int k = 0; k < 6; ++k) {
        double xmax = 0.0, r2 = 0.0;
        for (int i = 0; i < 18; ++i)
            xmax = fmax(xmax, fabs(modes[k][i]));
        for (int i = 0; i < 18; ++i) {
            double f = 0.0;
            for (int j = 0; j < 18; ++j)
                f += K[i][j] * modes[k][j];
            r2 += f * f;
        }
        worst = fmax(worst, sqrt(r2) / (kmax * xmax));
    }
    print_message("||K r|| / (max|K| max|r|) over the 6 rigid modes: %.2e\n", worst);
    assert_true(worst < 1e-14);
    dense_sym_eigs(18, &K[0][0], w);
    for (int i = 0; i < 6; ++i)
        assert_close(w[i], 0.0, 0.0, 1e-13 * w[17]);
    assert_true(w[6] > 1e-10 * w[17]);
}

static void test_symmetry_definiteness(void **state)
{
    (void)state;
    const pkm_section s = bar();
    double K[18][18], M[18][18], w[18];
    pkm_fem_quintic_stiffness(&s, &steel, LEN, K);
    assert_symmetric(18, &K[0][0]);
    for (int f = 0; f < 2; ++f) {
        pkm_fem_quintic_mass(&s, &steel, LEN, f ? PKM_FEM_ROTARY_INERTIA : 0u, M);
        assert_symmetric(18, &M[0][0]);
        dense_sym_eigs(18, &M[0][0], w);
        print_message("quintic mass (flags %d): eigenvalues %.3e .. %.3e\n", f, w[0], w[17]);
        assert_true(w[0] > 1e-9 * w[17]);
    }
    double Kp[6][6], Mp[6][6], Kc[8][8], Mc[8][8];
    pkm_fem_screw_paper_stiffness(&s, &steel, LEN, Kp);
    pkm_fem_screw_paper_mass(&s, &steel, LEN, PKM_FEM_ROTARY_INERTIA, Mp);
    pkm_fem_screw_consistent_stiffness(&s, &steel, LEN, Kc);
    pkm_fem_screw_consistent_mass(&s, &steel, LEN, PKM_FEM_ROTARY_INERTIA, Mc);
    assert_symmetric(6, &Kp[0][0]);
    assert_symmetric(6, &Mp[0][0]);
    assert_symmetric(8, &Kc[0][0]);
    assert_symmetric(8, &Mc[0][0]);
    dense_sym_eigs(6, &Mp[0][0], w);
    assert_true(w[0] > 1e-9 * w[5]);
    dense_sym_eigs(8, &Mc[0][0], w);
    assert_true(w[0] > 1e-9 * w[7]);
    /* Planar rigid motions (axial and lateral translation, rotation): nullity 3 in both. */
    dense_sym_eigs(6, &Kp[0][0], w);
    for (int i = 0; i < 3; ++i)
        assert_close(w[i], 0.0, 0.0, 1e-13 * w[5]);
    assert_true(w[3] > 1e-10 * w[5]);
    dense_sym_eigs(8, &Kc[0][0], w);
    for (int i = 0; i < 3; ++i)
        assert_close(w[i], 0.0, 0.0, 1e-13 * w[7]);
    assert_true(w[3] > 1e-10 * w[7]);
    /* The rigid rotation about node 1: w = theta x, slope theta, zero curvature. */
    const double xp[6] = {0, 0, 1, 0, LEN, 1}, xc[8] = {0, 0, 1, 0, 0, LEN, 1, 0};
    assert_close(quad(6, &Kp[0][0], xp), 0.0, 0.0, 1e-13 * w[7]);
    assert_close(quad(8, &Kc[0][0], xc), 0.0, 0.0, 1e-13 * w[7]);
    const double m = steel.rho * s.A * LEN, rot = m * LEN * LEN / 3.0 + steel.rho * s.Iy * LEN;
    assert_close(quad(6, &Mp[0][0], xp), rot, 1e-13, 0.0);
    assert_close(quad(8, &Mc[0][0], xc), rot, 1e-13, 0.0);
}

static void test_rigid_modes(void **state)
{
    (void)state;
    const pkm_section s = odd;
    const double l = 0.37, X1[3] = {0, 0, 0}, X2[3] = {l, 0, 0}, zero[3] = {0, 0, 0};
    double K[18][18], M[18][18], x[18];
    pkm_fem_quintic_stiffness(&s, &steel, l, K);
    assert_rigid_null_space(K, X1, X2);
    const double rho = steel.rho, m = rho * s.A * l;
    for (int f = 0; f < 2; ++f) {
        pkm_fem_quintic_mass(&s, &steel, l, f ? PKM_FEM_ROTARY_INERTIA : 0u, M);
        for (int k = 0; k < 3; ++k) {
            double e[3] = {0, 0, 0};
            e[k] = 1.0;
            rigid18(X1, X2, e, zero, zero, x);
            assert_close(quad(18, &M[0][0], x), m, 1e-13, 0.0);
        }
        /* Rotations about the axes through node 1: twist rho Ip l, bending m l^2/3 (+ rotary). */
        const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
        rigid18(X1, X2, zero, ex, zero, x);
        assert_close(quad(18, &M[0][0], x), rho * s.Ip * l, 1e-13, 0.0);
        rigid18(X1, X2, zero, ey, zero, x);
        assert_close(quad(18, &M[0][0], x), m * l * l / 3.0 + f * rho * s.Iy * l, 1e-13, 0.0);
        rigid18(X1, X2, zero, ez, zero, x);
        assert_close(quad(18, &M[0][0], x), m * l * l / 3.0 + f * rho * s.Iz * l, 1e-13, 0.0);
    }
}

/* Global axes: G = T^T L T with T = blockdiag(R, R, I, R, R, I) written out, in place too; the
 * rigid modes in global components (zero curvature) stay in the null space; a stretch and a
 * bending deflection along the global images of the local axes give the local energies. */
static void test_global_rotation(void **state)
{
    (void)state;
    const pkm_section s = odd;
    const double xa[3] = {0.1, -0.2, 0.3}, xb[3] = {0.45, 0.05, -0.12}, zref[3] = {0.3, 0.2, 1.0};
    double R[3][3], l = 0.0, K[18][18], Kg[18][18], M[18][18], Mg[18][18], T[18][18];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_fem_beam3d_frame(xa, xb, zref, R, &l, &ctx), &ctx);
    pkm_fem_quintic_stiffness(&s, &steel, l, K);
    pkm_fem_quintic_mass(&s, &steel, l, PKM_FEM_ROTARY_INERTIA, M);
    pkm_fem_quintic_rotate(R, K, Kg);
    memcpy(Mg, M, sizeof(M));
    pkm_fem_quintic_rotate(R, Mg, Mg);
    memset(T, 0, sizeof(T));
    for (int b = 0; b < 6; ++b)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                T[3 * b + i][3 * b + j] = (b % 3 == 2) ? (double)(i == j) : R[i][j];
    double kmax = 0.0, mmax = 0.0, ek = 0.0, em = 0.0;
    for (int i = 0; i < 18; ++i)
        for (int j = 0; j < 18; ++j) {
            double gk = 0.0, gm = 0.0;
            for (int a = 0; a < 18; ++a)
                for (int b = 0; b < 18; ++b) {
                    gk += T[a][i] * K[a][b] * T[b][j];
                    gm += T[a][i] * M[a][b] * T[b][j];
                }
            kmax = fmax(kmax, fabs(gk));
            mmax = fmax(mmax, fabs(gm));
            ek = fmax(ek, fabs(gk - Kg[i][j]));
            em = fmax(em, fabs(gm - Mg[i][j]));
        }
    assert_true(ek < 1e-14 * kmax);
    assert_true(em < 1e-14 * mmax);
    assert_symmetric(18, &Kg[0][0]);
    assert_rigid_null_space(Kg, xa, xb);
    double x[18] = {0};
    for (int i = 0; i < 3; ++i)
        x[U2 + i] = R[0][i];
    assert_close(quad(18, &Kg[0][0], x), steel.E * s.A / l, 1e-12, 0.0);
    /* A unit curvature kz at node 2 is a local dof: unchanged by the rotation. */
    memset(x, 0, sizeof(x));
    x[KZ2] = 1.0;
    assert_close(quad(18, &Kg[0][0], x), K[KZ2][KZ2], 1e-14, 0.0);
    assert_close(quad(18, &Mg[0][0], x), M[KZ2][KZ2], 1e-14, 0.0);
}

/* ---- convergence on a clamped-free beam ---- */

/* Lowest w^2 of a clamped-free chain of nel elements whose matrices are the nsel x nsel block
 * sel (nsel / 2 dofs per node) of full x full K and M; the clamp holds the first two dofs of the
 * root node. */
static double clamped_free_lowest(int full, const double *K, const double *M, int nsel,
                                  const int *sel, int nel)
{
    double Ke[36], Me[36];
    extract(full, K, nsel, sel, Ke);
    extract(full, M, nsel, sel, Me);
    const int fixed[3] = {1, 1, 0};
    chain c = chain_build(nsel / 2, Ke, Me, nel, fixed);
    const double w2 = chain_lowest(&c);
    chain_free(&c);
    return w2;
}

/* Clamped-free bending in the x-y plane with nel elements of the 18-dof beam (dofs v, rz, kz
 * per node; the clamp fixes v and rz, the curvature at the root is free) or of the cubic beam
 * (v, rz). Returns the lowest w^2. */
static double bending_lowest(int quintic, int nel, const pkm_section *s)
{
    const double l = LEN / nel;
    if (quintic) {
        double K[18][18], M[18][18];
        const int sel[6] = {V1, RZ1, KZ1, V2, RZ2, KZ2};
        pkm_fem_quintic_stiffness(s, &steel, l, K);
        pkm_fem_quintic_mass(s, &steel, l, 0u, M);
        return clamped_free_lowest(18, &K[0][0], &M[0][0], 6, sel, nel);
    }
    double K[12][12], M[12][12];
    const int sel[4] = {1, 5, 7, 11};
    pkm_fem_beam3d_stiffness(s, &steel, l, K);
    pkm_fem_beam3d_mass(s, &steel, l, 0u, M);
    return clamped_free_lowest(12, &K[0][0], &M[0][0], 4, sel, nel);
}

static void test_cantilever_bending(void **state)
{
    (void)state;
    const pkm_section s = bar();
    const double b1 = clamped_free_root(1.87510407);
    assert_close(b1, 1.87510407, 1e-8, 0.0);
    const double ex = pow(b1, 4) * steel.E * s.Iz / (steel.rho * s.A * pow(LEN, 4));
    double eq[4], ec[5];
    for (int q = 0, nel = 1; q < 5; ++q, nel *= 2) {
        ec[q] = bending_lowest(0, nel, &s) / ex - 1.0;
        if (q < 4) eq[q] = bending_lowest(1, nel, &s) / ex - 1.0;
        if (q < 4)
            print_message("N = %2d: rel. error of w1^2: quintic %.3e, cubic %.3e; f1 %.3e, %.3e\n",
                          nel, eq[q], ec[q], sqrt(1.0 + eq[q]) - 1.0, sqrt(1.0 + ec[q]) - 1.0);
        else
            print_message("N = %2d: rel. error of w1^2: cubic %.3e\n", nel, ec[q]);
    }
    /* Rayleigh-Ritz: the errors are positive. One quintic element: f1 within 2e-6 (Li et al.
     * 2020 elements are 3 orders of magnitude better than cubic at equal count). */
    for (int q = 0; q < 4; ++q)
        assert_true(eq[q] > 0.0 && ec[q] > 0.0);
    assert_true(sqrt(1.0 + eq[0]) - 1.0 < 2e-6);
    assert_true(sqrt(1.0 + eq[0]) - 1.0 > 1e-6);
    const double oq1 = log2(eq[0] / eq[1]), oq2 = log2(eq[1] / eq[2]);
    print_message("observed order, quintic: %.2f (1->2), %.2f (2->4); cubic: %.2f (4->8), %.2f "
                  "(8->16)\n",
                  oq1, oq2, log2(ec[2] / ec[3]), log2(ec[3] / ec[4]));
    /* Eigenvalue error O(h^(2(p + 1 - m))): p = 5, m = 2 gives h^8; cubic p = 3 gives h^4. */
    assert_true(oq1 > 6.5 && oq1 < 8.5);
    assert_true(oq2 > 7.6 && oq2 < 8.4);
    assert_true(log2(ec[3] / ec[4]) > 3.8 && log2(ec[3] / ec[4]) < 4.2);
    /* At 8 quintic elements the error is at round-off, far below the 16-element cubic one. */
    assert_true(fabs(eq[3]) < 1e-11 && ec[4] > 1e-9);
}

/* Clamped-free axial (linear) and torsion (cubic Hermite on phi, phi') chains of the 18-dof beam:
 * the exact w1 = pi/(2 L) sqrt(E/rho) and pi/(2 L) sqrt(G I0 / (rho Ip)). */
static void test_axial_torsion(void **state)
{
    (void)state;
    const pkm_section s = bar();
    const double exa = pow(PKM_PI / (2.0 * LEN), 2) * steel.E / steel.rho;
    const double ext = pow(PKM_PI / (2.0 * LEN), 2) * steel.G * s.I0 / (steel.rho * s.Ip);
    double ea[5], et[5];
    for (int q = 0, nel = 1; q < 5; ++q, nel *= 2) {
        double K[18][18], M[18][18], Ke[16], Me[16];
        pkm_fem_quintic_stiffness(&s, &steel, LEN / nel, K);
        pkm_fem_quintic_mass(&s, &steel, LEN / nel, 0u, M);
        const int ax[2] = {U1, U2}, tw[4] = {RX1, KX1, RX2, KX2};
        const int fixed_ax[1] = {1}, fixed_tw[2] = {1, 0};
        extract(18, &K[0][0], 2, ax, Ke);
        extract(18, &M[0][0], 2, ax, Me);
        chain c = chain_build(1, Ke, Me, nel, fixed_ax);
        const double wa = chain_lowest(&c);
        chain_free(&c);
        if (nel == 1) {
            /* One linear element: K = EA/L, M = rho A L/3. */
            assert_close(wa, 3.0 * steel.E / (steel.rho * LEN * LEN), 1e-14, 0.0);
        }
        extract(18, &K[0][0], 4, tw, Ke);
        extract(18, &M[0][0], 4, tw, Me);
        c = chain_build(2, Ke, Me, nel, fixed_tw);
        const double wt = chain_lowest(&c);
        chain_free(&c);
        ea[q] = wa / exa - 1.0;
        et[q] = wt / ext - 1.0;
        print_message("N = %2d: rel. error of w1^2: axial %.3e, torsion %.3e\n", nel, ea[q], et[q]);
    }
    /* Linear: O(h^2) (lambda_h / lambda - 1 = (k h)^2 / 12 + ...); cubic Hermite on a
     * second-order problem: O(h^(2(3 + 1 - 1))) = O(h^6), approached from below (5.4, 5.7, 5.9
     * from N = 2 on) while the errors stay far above round-off. */
    const double oa = log2(ea[3] / ea[4]), ot1 = log2(et[2] / et[3]), ot2 = log2(et[3] / et[4]);
    print_message("observed order: axial %.3f (8->16), torsion %.2f (4->8), %.2f (8->16)\n", oa,
                  ot1, ot2);
    assert_true(oa > 1.99 && oa < 2.01);
    assert_true(ot1 > 5.5 && ot2 > ot1 && ot2 < 6.2);
    assert_true(et[4] > 1e-11);
    assert_close(ea[4], pow(PKM_PI / 32.0, 2) / 12.0, 0.01, 0.0);
    for (int q = 0; q < 5; ++q)
        assert_true(ea[q] > 0.0 && et[q] > 0.0);
}

/* One spatial element clamped at node 1 (translations and rotations; its curvatures free): the
 * 12 eigenvalues of the full 18-dof matrices hold the bending pair (Iy = Iz), the exact one-element
 * axial value 3 E / (rho L^2) and the torsion of the planar chains above. */
static void test_one_element_3d(void **state)
{
    (void)state;
    const pkm_section s = bar();
    double K[18][18], M[18][18], w[12];
    pkm_fem_quintic_stiffness(&s, &steel, LEN, K);
    pkm_fem_quintic_mass(&s, &steel, LEN, 0u, M);
    const int fixed[9] = {1, 1, 1, 1, 1, 1, 0, 0, 0};
    chain c = chain_build(9, &K[0][0], &M[0][0], 1, fixed);
    assert_int_equal(c.n, 12);
    chain_eigs(&c, w);
    chain_free(&c);
    const double b1 = clamped_free_root(1.87510407);
    const double ex = pow(b1, 4) * steel.E * s.Iz / (steel.rho * s.A * pow(LEN, 4));
    const double bend = bending_lowest(1, 1, &s);
    print_message("one element, 3D: f1 = %.6f Hz (%.6f Hz twice), exact %.6f Hz\n",
                  sqrt(w[0]) / (2.0 * PKM_PI), sqrt(w[1]) / (2.0 * PKM_PI),
                  sqrt(ex) / (2.0 * PKM_PI));
    assert_close(w[0], bend, 1e-9, 0.0);
    assert_close(w[1], bend, 1e-9, 0.0);
    const double axial = 3.0 * steel.E / (steel.rho * LEN * LEN);
    const double tors = pow(PKM_PI / (2.0 * LEN), 2) * steel.G * s.I0 / (steel.rho * s.Ip);
    int found_axial = 0, found_torsion = 0;
    for (int k = 0; k < 12; ++k) {
        found_axial += fabs(w[k] / axial - 1.0) < 1e-9;
        /* one cubic torsion element: 1.4e-4 above the exact w^2 */
        found_torsion += fabs(w[k] / tors - 1.0) < 2e-4;
    }
    assert_int_equal(found_axial, 1);
    assert_int_equal(found_torsion, 1);
}

/* ---- lead-screw elements ---- */

/* Clamped-free lateral bending with nel screw elements (the axial dofs are uncoupled and
 * clamped too), paper (consistent = 0) or consistent; lowest w^2. */
static double screw_lowest(int consistent, int nel, const pkm_section *s)
{
    const double l = LEN / nel;
    if (consistent) {
        double K[8][8], M[8][8];
        const int sel2[6] = {1, 2, 3, 5, 6, 7};
        pkm_fem_screw_consistent_stiffness(s, &steel, l, K);
        pkm_fem_screw_consistent_mass(s, &steel, l, 0u, M);
        return clamped_free_lowest(8, &K[0][0], &M[0][0], 6, sel2, nel);
    }
    double K[6][6], M[6][6];
    const int sel2[4] = {1, 2, 4, 5};
    pkm_fem_screw_paper_stiffness(s, &steel, l, K);
    pkm_fem_screw_paper_mass(s, &steel, l, 0u, M);
    return clamped_free_lowest(6, &K[0][0], &M[0][0], 4, sel2, nel);
}

static void test_screw_cantilever(void **state)
{
    (void)state;
    const pkm_section s = bar();
    const double b1 = clamped_free_root(1.87510407);
    const double ex = pow(b1, 4) * steel.E * s.Iy / (steel.rho * s.A * pow(LEN, 4));
    const double limit = sqrt(1.2) - 1.0;
    double ep[6], ecs[3];
    for (int q = 0, nel = 1; q < 6; ++q, nel *= 2) {
        ep[q] = sqrt(screw_lowest(0, nel, &s) / ex) - 1.0;
        if (q < 3) ecs[q] = sqrt(screw_lowest(1, nel, &s) / ex) - 1.0;
        print_message("N = %2d: rel. error of f1: screw as printed %+.4e, consistent %+.3e\n", nel,
                      ep[q], q < 3 ? ecs[q] : NAN);
    }
    /* The printed element converges to the wrong limit sqrt(1.2) - 1 = 9.54 % from above. */
    for (int q = 1; q < 6; ++q)
        assert_true(ep[q] < ep[q - 1] && ep[q] > limit);
    assert_close(ep[5], limit, 2e-3, 0.0);
    assert_true(ep[5] - limit < 0.25 * (ep[3] - limit));
    /* The consistent one is the quintic beam's bending plane: 1.5e-6 with one element. */
    assert_true(ecs[0] > 0.0 && ecs[0] < 2e-6);
    assert_true(ecs[2] < 1e-9);
    assert_close(screw_lowest(1, 2, &s), bending_lowest(1, 2, &s), 1e-13, 0.0);
}

/* pkm_fem_quintic_interpolate reproduces fields of the element's own degrees exactly (u linear,
 * v and w quintic, phi cubic: the nodal values, slopes and curvatures taken from the
 * polynomials, rotations by beam3d's signs rz = v', ry = -w'), and its kinetic energy
 * 1/2 int rho A (u^2 + v^2 + w^2) + rho Ip phi^2 dx (Gauss, 6 points, exact to degree 11) is
 * 1/2 ul^T M ul: what the mode-shape files draw is the field the mass matrix assumes. */
static void test_interpolate(void **state)
{
    (void)state;
    const double l = LEN, cv[6] = {1e-3, -2e-3, 3e-2, -4e-2, 5e-2, -6e-2},
                 cw[6] = {-2e-3, 1e-3, -1e-2, 7e-2, -3e-2, 2e-2}, cp[4] = {3e-3, -1e-2, 2e-2, 4e-2};
    double ul[18];
    /* value, slope and curvature of sum c_k x^k at x */
    double f[3][6][2];
    for (int end = 0; end < 2; end++) {
        const double x = end * l;
        for (int d = 0; d < 3; d++) {
            f[d][0][end] = f[d][1][end] = f[d][2][end] = 0.0;
            for (int k = d; k < 6; k++) {
                double c = 1.0;
                for (int j = 0; j < d; j++)
                    c *= k - j;
                f[d][0][end] += cv[k] * c * pow(x, k - d);
                f[d][1][end] += cw[k] * c * pow(x, k - d);
                if (k < 4) f[d][2][end] += cp[k] * c * pow(x, k - d);
            }
        }
        double *n = ul + 9 * end;
        n[0] = 1e-3 + 2e-3 * x;
        n[1] = f[0][0][end];
        n[2] = f[0][1][end];
        n[3] = f[0][2][end];
        n[4] = -f[1][1][end];
        n[5] = f[1][0][end];
        n[6] = f[1][2][end];
        n[7] = -f[2][1][end];
        n[8] = f[2][0][end];
    }
    double worst = 0.0;
    for (int i = 0; i <= 10; i++) {
        const double xi = i / 10.0, x = xi * l;
        double d[6], e[6] = {1e-3 + 2e-3 * x, 0, 0, 0, 0, 0};
        pkm_fem_quintic_interpolate(ul, l, xi, d);
        for (int k = 0; k < 6; k++) {
            e[1] += cv[k] * pow(x, k);
            e[2] += cw[k] * pow(x, k);
            e[5] += k * cv[k] * (k ? pow(x, k - 1) : 0.0);
            e[4] -= k * cw[k] * (k ? pow(x, k - 1) : 0.0);
            if (k < 4) e[3] += cp[k] * pow(x, k);
        }
        for (int k = 0; k < 6; k++)
            worst = fmax(worst, fabs(d[k] - e[k]));
    }
    print_message("quintic interpolation vs polynomials: %.2e\n", worst);
    assert_true(worst < 1e-15);

    static const double gx[6] = {0.033765242898423986, 0.16939530676686774, 0.38069040695840155,
                                 0.61930959304159845,  0.83060469323313226, 0.96623475710157601};
    static const double gw[6] = {0.085662246189585173, 0.18038078652406930, 0.23395696728634552,
                                 0.23395696728634552,  0.18038078652406930, 0.085662246189585173};
    const pkm_section s = bar();
    double M[18][18], t = 0.0, tm = 0.0;
    pkm_fem_quintic_mass(&s, &steel, l, 0, M);
    for (int g = 0; g < 6; g++) {
        double d[6];
        pkm_fem_quintic_interpolate(ul, l, gx[g], d);
        t += gw[g] * l * RHO *
             (s.A * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + s.Ip * d[3] * d[3]);
    }
    for (int i = 0; i < 18; i++)
        for (int j = 0; j < 18; j++)
            tm += ul[i] * M[i][j] * ul[j];
    assert_close(t, tm, 1e-13, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_entries),      cmocka_unit_test(test_symmetry_definiteness),
        cmocka_unit_test(test_rigid_modes),        cmocka_unit_test(test_global_rotation),
        cmocka_unit_test(test_cantilever_bending), cmocka_unit_test(test_axial_torsion),
        cmocka_unit_test(test_one_element_3d),     cmocka_unit_test(test_screw_cantilever),
        cmocka_unit_test(test_interpolate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
