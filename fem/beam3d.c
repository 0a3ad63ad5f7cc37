/* fem/beam3d.c: 3D Euler-Bernoulli beam kernels (nodal and floating-frame forms) and beam frames.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/fem.h"
#include "pkm/spatial.h"

#include "core/core_impl.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* A beam shorter than this times max(1 m, |xa|, |xb|) has zero length (relative to the size of its
 * end coordinates, in metres below 1 m): each coordinate carries a rounding error of about
 * DBL_EPSILON |x| = 2.2e-16 |x|, so a length 4500 times that is still only the rounding of two
 * coincident points, and a real element (at least 1 um / element count, pkm_range_length) is
 * longer. */
#define PKM_BEAM_ZERO_LENGTH_RTOL 1e-12

/* Local dofs of the nodal form: (u, v, w, rx, ry, rz) at node 1, then at node 2. */
enum { U1, V1, W1, RX1, RY1, RZ1, U2, V2, W2, RX2, RY2, RZ2 };

/* Bending planes as (translation 1, rotation 1, translation 2, rotation 2). In the x-z plane the
 * section rotation is ry = -dw/dx (Germain et al. 2015, eq. 16e), so the translation-rotation
 * couplings change sign with respect to the x-y plane, where rz = +dv/dx (eq. 16f). */
static const int plane_xy[4] = {V1, RZ1, V2, RZ2};
static const int plane_xz[4] = {W1, RY1, W2, RY2};

static pkm_status check_positive(double value, const char *what, const char *name, const char *unit,
                                 pkm_ctx *ctx)
{
    if (isfinite(value) && value > 0.0) return PKM_OK;
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: %s = %g %s must be finite and > 0", what, name,
                    value, unit);
}

pkm_status pkm_fem_props_check(const pkm_section *s, const pkm_material *m, const char *what,
                               pkm_ctx *ctx)
{
    if (what == NULL) what = "beam";
    if (s == NULL || m == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: missing section or material", what);
    const struct {
        double value;
        const char *name;
        const char *unit;
    } props[] = {
        {s->A, "section area A", "m^2"},
        {s->Iy, "second moment of area Iy", "m^4"},
        {s->Iz, "second moment of area Iz", "m^4"},
        {s->I0, "torsion constant I0", "m^4"},
        {s->Ip, "polar moment of area Ip", "m^4"},
        {m->E, "Young's modulus E", "Pa"},
        {m->G, "shear modulus G", "Pa"},
        {m->rho, "density rho", "kg/m^3"},
    };
    for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); ++i) {
        pkm_status st = check_positive(props[i].value, what, props[i].name, props[i].unit, ctx);
        if (st != PKM_OK) return st;
    }
    return PKM_OK;
}

/* Add the 4x4 matrix P, written for the x-y plane, on the dofs of a bending plane; sign = -1
 * flips the translation-rotation couplings for the x-z plane. P is not const because C11 does not
 * convert double (*)[4] to const double (*)[4]. */
static void add_plane(double K[12][12], const int dof[4], double sign, double P[4][4])
{
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
            double s = ((a & 1) != (b & 1)) ? sign : 1.0;
            K[dof[a]][dof[b]] += s * P[a][b];
        }
}

/* Add c * [2 1; 1 2] (linear two-node mass) or c * [1 -1; -1 1] (bar stiffness) on (i, j). */
static void add_pair(double K[12][12], int i, int j, double diag, double off)
{
    K[i][i] += diag;
    K[j][j] += diag;
    K[i][j] += off;
    K[j][i] += off;
}

static void bending_stiffness(double EI, double l, double P[4][4])
{
    const double c = EI / (l * l * l), l2 = l * l;
    const double Q[4][4] = {{12.0, 6.0 * l, -12.0, 6.0 * l},
                            {6.0 * l, 4.0 * l2, -6.0 * l, 2.0 * l2},
                            {-12.0, -6.0 * l, 12.0, -6.0 * l},
                            {6.0 * l, 2.0 * l2, -6.0 * l, 4.0 * l2}};
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            P[a][b] = c * Q[a][b];
}

void pkm_fem_beam3d_stiffness(const pkm_section *s, const pkm_material *m, double l,
                              double K[12][12])
{
    double P[4][4];
    memset(K, 0, 12 * sizeof(K[0]));
    const double ka = m->E * s->A / l, kt = m->G * s->I0 / l;
    add_pair(K, U1, U2, ka, -ka);
    add_pair(K, RX1, RX2, kt, -kt);
    bending_stiffness(m->E * s->Iz, l, P);
    add_plane(K, plane_xy, 1.0, P);
    bending_stiffness(m->E * s->Iy, l, P);
    add_plane(K, plane_xz, -1.0, P);
}

/* Consistent translational mass of cubic Hermite bending (Przemieniecki, Theory of Matrix
 * Structural Analysis, 1968), plus with rotary != 0 the section rotary inertia rho*I of the
 * rotation dv/dx, x-y plane pattern. */
static void bending_mass(double mass, double rhoI, double l, int rotary, double P[4][4])
{
    const double l2 = l * l;
    const double T[4][4] = {{156.0, 22.0 * l, 54.0, -13.0 * l},
                            {22.0 * l, 4.0 * l2, 13.0 * l, -3.0 * l2},
                            {54.0, 13.0 * l, 156.0, -22.0 * l},
                            {-13.0 * l, -3.0 * l2, -22.0 * l, 4.0 * l2}};
    const double Rr[4][4] = {{36.0, 3.0 * l, -36.0, 3.0 * l},
                             {3.0 * l, 4.0 * l2, -3.0 * l, -l2},
                             {-36.0, -3.0 * l, 36.0, -3.0 * l},
                             {3.0 * l, -l2, -3.0 * l, 4.0 * l2}};
    const double ct = mass / 420.0, cr = rotary ? rhoI / (30.0 * l) : 0.0;
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            P[a][b] = ct * T[a][b] + cr * Rr[a][b];
}

void pkm_fem_beam3d_mass(const pkm_section *s, const pkm_material *m, double l, unsigned flags,
                         double M[12][12])
{
    double P[4][4];
    const int rotary = (flags & PKM_FEM_ROTARY_INERTIA) != 0;
    const double mass = m->rho * s->A * l, jt = m->rho * s->Ip * l;
    memset(M, 0, 12 * sizeof(M[0]));
    add_pair(M, U1, U2, mass / 3.0, mass / 6.0);
    add_pair(M, RX1, RX2, jt / 3.0, jt / 6.0);
    bending_mass(mass, m->rho * s->Iz, l, rotary, P);
    add_plane(M, plane_xy, 1.0, P);
    bending_mass(mass, m->rho * s->Iy, l, rotary, P);
    add_plane(M, plane_xz, -1.0, P);
}

void pkm_fem_beam3d_floating_stiffness(const pkm_section *s, const pkm_material *m, double l,
                                       double K[6][6])
{
    /* Germain et al. 2015, eq. 23: the node-2 block of the nodal stiffness, i.e. the stiffness
     * of the beam clamped at node 1. */
    const double l2 = l * l, l3 = l2 * l;
    const double EIy = m->E * s->Iy, EIz = m->E * s->Iz;
    memset(K, 0, 6 * sizeof(K[0]));
    K[0][0] = m->E * s->A / l;
    K[1][1] = 12.0 * EIz / l3;
    K[2][2] = 12.0 * EIy / l3;
    K[3][3] = m->G * s->I0 / l;
    K[4][4] = 4.0 * EIy / l;
    K[5][5] = 4.0 * EIz / l;
    K[1][5] = K[5][1] = -6.0 * EIz / l2;
    K[2][4] = K[4][2] = 6.0 * EIy / l2;
}

/* M += c b b^T over the entries nz[0 .. n) of b, ascending, which hold all its nonzeros (2 to 4
 * of 12 in the floating mass below: a tenth of the work): the same values as the full loop, whose
 * other terms add exact zeros. The lists are the rows' structure, written out: found entry by
 * entry at every call, they cost a third of the kernel in mispredicted branches. */
static void add_outer(double M[12][12], double c, const double b[12], const int *nz, int n)
{
    for (int p = 0; p < n; ++p)
        for (int q = 0; q < n; ++q)
            M[nz[p]][nz[q]] += c * b[nz[p]] * b[nz[q]];
}

void pkm_fem_beam3d_floating_mass(const pkm_section *s, const pkm_material *m, double l,
                                  unsigned flags, double M[12][12])
{
    /* Germain et al. 2015, eq. 8 integrated exactly rather than transcribed from eqs. 25-27: the
     * velocity of the point (x, y, z) is B0(x) + y B1(x) + z B2(x) times [v_A; w_A; qdot_e]
     * (eqs. 5, 16-17), and over a doubly symmetric section the first moments and int yz vanish,
     * leaving rho int (A B0^T B0 + Iz B1^T B1 + Iy B2^T B2) dx. The y and z rows of B1 and B2
     * carry the twist (w_x + phi_rx qdot_e); their Iz and Iy parts add up to the torsional
     * inertia, taken as rho*Ip as in the nodal kernel. The x rows carry the bending rotations of
     * the section and are the rotary inertia, kept only with PKM_FEM_ROTARY_INERTIA.
     * The integration gives M12(2,6) = -m l/12, where eq. 26 of Germain et al. 2015 prints
     * +m l/12 (a sign misprint: int_0^1 l (xi^3 - xi^2) dxi = -l/12; the (3,5) entry +m l/12 is
     * right), as the congruence with the nodal mass confirms. */
    static const double gx[4] = {0.069431844202973713, 0.33000947820757187, 0.66999052179242813,
                                 0.93056815579702629};
    static const double gw[4] = {0.17392742256872693, 0.32607257743127307, 0.32607257743127307,
                                 0.17392742256872693};
    /* Where the rows below can be nonzero. */
    static const int ix[2] = {0, 6}, iy[4] = {1, 5, 7, 11}, iz[4] = {2, 4, 8, 10}, it[2] = {3, 9},
                     isz[3] = {5, 7, 11}, isy[3] = {4, 8, 10};
    const int rotary = (flags & PKM_FEM_ROTARY_INERTIA) != 0;
    const double rho = m->rho;
    memset(M, 0, 12 * sizeof(M[0]));
    /* Four Gauss-Legendre points integrate the degree-6 products of cubic shapes exactly. */
    for (int g = 0; g < 4; ++g) {
        const double xi = gx[g], x = xi * l, dx = gw[g] * l;
        const double n1 = 3.0 * xi * xi - 2.0 * xi * xi * xi; /* eqs. 16b-c */
        const double n2 = l * (xi * xi * xi - xi * xi);
        const double r1 = 6.0 * (xi - xi * xi) / l; /* eqs. 16e-f */
        const double r2 = 3.0 * xi * xi - 2.0 * xi;
        /* Rows of B0: v_A + w_A x (x, 0, 0) + (phi_dx, phi_dy, phi_dz) qdot_e. */
        const double bx[12] = {1, 0, 0, 0, 0, 0, xi, 0, 0, 0, 0, 0};
        const double by[12] = {0, 1, 0, 0, 0, x, 0, n1, 0, 0, 0, n2};
        const double bz[12] = {0, 0, 1, 0, -x, 0, 0, 0, n1, 0, -n2, 0};
        /* Twist of the section w_x + phi_rx qdot_e (eq. 16d). */
        const double tw[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0, xi, 0, 0};
        add_outer(M, rho * s->A * dx, bx, ix, 2);
        add_outer(M, rho * s->A * dx, by, iy, 4);
        add_outer(M, rho * s->A * dx, bz, iz, 4);
        add_outer(M, rho * s->Ip * dx, tw, it, 2);
        if (rotary) {
            /* Axial velocity from the section rotations: -y (w_z + phi_rz qdot_e) and
             * +z (w_y + phi_ry qdot_e) (eq. 17). */
            const double sz[12] = {0, 0, 0, 0, 0, 1, 0, r1, 0, 0, 0, r2};
            const double sy[12] = {0, 0, 0, 0, 1, 0, 0, 0, -r1, 0, r2, 0};
            add_outer(M, rho * s->Iz * dx, sz, isz, 3);
            add_outer(M, rho * s->Iy * dx, sy, isy, 3);
        }
    }
}

pkm_status pkm_fem_beam3d_frame(const double xa[3], const double xb[3], const double zref[3],
                                double R[3][3], double *l, pkm_ctx *ctx)
{
    double d[3], zp[3];
    for (int i = 0; i < 3; ++i)
        d[i] = xb[i] - xa[i];
    const double len = pkm_vec3_norm(d);
    const double scale = fmax(1.0, fmax(pkm_vec3_norm(xa), pkm_vec3_norm(xb)));
    if (!(len > PKM_BEAM_ZERO_LENGTH_RTOL * scale))
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "beam from (%g, %g, %g) to (%g, %g, %g) has zero length (%g m)", xa[0],
                        xa[1], xa[2], xb[0], xb[1], xb[2], len);
    double dot = 0.0;
    for (int i = 0; i < 3; ++i) {
        d[i] /= len;
        dot += zref[i] * d[i];
    }
    for (int i = 0; i < 3; ++i)
        zp[i] = zref[i] - dot * d[i];
    const double zn = pkm_vec3_norm(zp);
    if (!(zn > PKM_PARALLEL_SIN * pkm_vec3_norm(zref)))
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "beam from (%g, %g, %g) to (%g, %g, %g): reference z axis (%g, %g, %g) "
                        "is zero or parallel to the beam",
                        xa[0], xa[1], xa[2], xb[0], xb[1], xb[2], zref[0], zref[1], zref[2]);
    for (int i = 0; i < 3; ++i) {
        R[0][i] = d[i];
        R[2][i] = zp[i] / zn;
    }
    /* y = z x x keeps (x, y, z) right-handed. */
    R[1][0] = R[2][1] * R[0][2] - R[2][2] * R[0][1];
    R[1][1] = R[2][2] * R[0][0] - R[2][0] * R[0][2];
    R[1][2] = R[2][0] * R[0][1] - R[2][1] * R[0][0];
    *l = len;
    return PKM_OK;
}

void pkm_fem_rotate12(double R[3][3], double L[12][12], double G[12][12])
{
    /* Blockwise R^T L_ab R; the temporary lets G alias L. */
    double LT[12][12];
    for (int i = 0; i < 12; ++i)
        for (int b = 0; b < 4; ++b)
            for (int j = 0; j < 3; ++j) {
                double acc = 0.0;
                for (int k = 0; k < 3; ++k)
                    acc += L[i][3 * b + k] * R[k][j];
                LT[i][3 * b + j] = acc;
            }
    for (int a = 0; a < 4; ++a)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 12; ++j) {
                double acc = 0.0;
                for (int k = 0; k < 3; ++k)
                    acc += R[k][i] * LT[3 * a + k][j];
                G[3 * a + i][j] = acc;
            }
}
