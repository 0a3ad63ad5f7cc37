/* fem/quintic.c: the quintic-Hermite spatial beam and the lead-screw elements of Li et al. 2020.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Li et al. 2020, eqs. 1-7: lateral displacements interpolated by quintic Hermite polynomials
 * (value, slope and curvature at both nodes), axial displacement linearly, twist by cubic Hermite
 * polynomials (twist and twist rate). The matrices are integrated exactly by Gauss-Legendre
 * quadrature; the products of quintic shapes have degree 10, and six points are exact to degree
 * 11. */
#include "pkm/fem.h"

#include <string.h>

/* Local dofs of the 18-dof beam: per node the translations and rotations of fem/beam3d.c, then
 * the curvature vector k = d(rx, ry, rz)/dx = (phi', -w'', v''), the derivative of the rotation
 * triple, so that each curvature dof sits in the slot of the rotation it differentiates and the
 * x-z plane keeps beam3d's sign (ry = -w'). */
enum { U1, V1, W1, RX1, RY1, RZ1, KX1, KY1, KZ1, U2, V2, W2, RX2, RY2, RZ2, KX2, KY2, KZ2 };

/* Gauss-Legendre points and weights on [0, 1]. */
static const double gx[6] = {0.033765242898423986, 0.16939530676686774, 0.38069040695840155,
                             0.61930959304159845,  0.83060469323313226, 0.96623475710157601};
static const double gw[6] = {0.085662246189585173, 0.18038078652406930, 0.23395696728634552,
                             0.23395696728634552,  0.18038078652406930, 0.085662246189585173};

/* A field (a displacement or one of its derivatives) at one point: at most 6 nonzero entries of
 * its row of the interpolation matrix. */
typedef struct field {
    int n;
    int idx[6];
    double val[6];
} field;

/* A += c f^T f on an order-n row-major matrix. */
static void add_outer(double *A, int n, double c, const field *f)
{
    for (int a = 0; a < f->n; ++a)
        for (int b = 0; b < f->n; ++b)
            A[f->idx[a] * n + f->idx[b]] += c * f->val[a] * f->val[b];
}

/* Derivative d (0, 1, 2) with respect to x of the quintic Hermite shapes n1..n6 of Li et al.
 * 2020, eq. 2, at xi = x/l: coefficients of (v1, v1', v1'', v2, v2', v2''). */
static void quintic_shapes(double xi, double l, int d, double n[6])
{
    const double e = xi, e2 = e * e, e3 = e2 * e, e4 = e3 * e, e5 = e4 * e;
    switch (d) {
    case 0:
        n[0] = 1.0 - 10.0 * e3 + 15.0 * e4 - 6.0 * e5;
        n[1] = l * (e - 6.0 * e3 + 8.0 * e4 - 3.0 * e5);
        n[2] = 0.5 * l * l * (e2 - 3.0 * e3 + 3.0 * e4 - e5);
        n[3] = 10.0 * e3 - 15.0 * e4 + 6.0 * e5;
        n[4] = l * (-4.0 * e3 + 7.0 * e4 - 3.0 * e5);
        n[5] = 0.5 * l * l * (e3 - 2.0 * e4 + e5);
        break;
    case 1:
        n[0] = (-30.0 * e2 + 60.0 * e3 - 30.0 * e4) / l;
        n[1] = 1.0 - 18.0 * e2 + 32.0 * e3 - 15.0 * e4;
        n[2] = 0.5 * l * (2.0 * e - 9.0 * e2 + 12.0 * e3 - 5.0 * e4);
        n[3] = (30.0 * e2 - 60.0 * e3 + 30.0 * e4) / l;
        n[4] = -12.0 * e2 + 28.0 * e3 - 15.0 * e4;
        n[5] = 0.5 * l * (3.0 * e2 - 8.0 * e3 + 5.0 * e4);
        break;
    default:
        n[0] = (-60.0 * e + 180.0 * e2 - 120.0 * e3) / (l * l);
        n[1] = (-36.0 * e + 96.0 * e2 - 60.0 * e3) / l;
        n[2] = 0.5 * (2.0 - 18.0 * e + 36.0 * e2 - 20.0 * e3);
        n[3] = (60.0 * e - 180.0 * e2 + 120.0 * e3) / (l * l);
        n[4] = (-24.0 * e + 84.0 * e2 - 60.0 * e3) / l;
        n[5] = 0.5 * (6.0 * e - 24.0 * e2 + 20.0 * e3);
        break;
    }
}

/* Derivative d (0, 1) of the cubic Hermite shapes n7..n10 of Li et al. 2020, eq. 2:
 * coefficients of (phi1, phi1', phi2, phi2'). */
static void cubic_shapes(double xi, double l, int d, double n[4])
{
    const double e = xi, e2 = e * e, e3 = e2 * e;
    if (d == 0) {
        n[0] = 1.0 - 3.0 * e2 + 2.0 * e3;
        n[1] = l * (e - 2.0 * e2 + e3);
        n[2] = 3.0 * e2 - 2.0 * e3;
        n[3] = l * (-e2 + e3);
    } else {
        n[0] = (-6.0 * e + 6.0 * e2) / l;
        n[1] = 1.0 - 4.0 * e + 3.0 * e2;
        n[2] = (6.0 * e - 6.0 * e2) / l;
        n[3] = -2.0 * e + 3.0 * e2;
    }
}

/* The field from shapes n[0..nn-1] on dofs idx (entries < 0 are absent), each times sign[k]. */
static field make_field(int nn, const double *n, const int *idx, const double *sign)
{
    field f = {0};
    for (int k = 0; k < nn; ++k) {
        if (idx[k] < 0) continue;
        f.idx[f.n] = idx[k];
        f.val[f.n] = sign[k] * n[k];
        f.n++;
    }
    return f;
}

/* Axial displacement (d = 0) or strain (d = 1), linear shapes on dofs u1, u2 (Li et al. 2020,
 * eq. 2, N_w). */
static field axial_field(double xi, double l, int d, int u1, int u2)
{
    const double n[2] = {d ? -1.0 / l : 1.0 - xi, d ? 1.0 / l : xi}, one[2] = {1.0, 1.0};
    const int idx[2] = {u1, u2};
    return make_field(2, n, idx, one);
}

/* Bending plane of the 18-dof beam as (translation, rotation, curvature) at node 1, then at node
 * 2. In the x-z plane the rotation and curvature dofs are -w' and -w'', hence the signs. */
static const int plane_xy[6] = {V1, RZ1, KZ1, V2, RZ2, KZ2};
static const int plane_xz[6] = {W1, RY1, KY1, W2, RY2, KY2};
static const double sign_xy[6] = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
static const double sign_xz[6] = {1.0, -1.0, -1.0, 1.0, -1.0, -1.0};
static const int twist[4] = {RX1, KX1, RX2, KX2};
static const double sign_tw[4] = {1.0, 1.0, 1.0, 1.0};

void pkm_fem_quintic_stiffness(const pkm_section *s, const pkm_material *m, double l,
                               double K[18][18])
{
    /* Li et al. 2020, eq. 7 (eq. 6 prints E*S*I for the bending rigidity and leaves the torsion
     * term unsquared; both are misprints: the energy is 1/2 int EA u'^2 + EI v''^2 + EI w''^2 +
     * G I0 phi'^2 dx, as eq. 7 has). */
    double *A = &K[0][0];
    double n[6];
    memset(K, 0, 18 * sizeof(K[0]));
    for (int g = 0; g < 6; ++g) {
        const double xi = gx[g], dx = gw[g] * l;
        const field fu = axial_field(xi, l, 1, U1, U2);
        add_outer(A, 18, m->E * s->A * dx, &fu);
        quintic_shapes(xi, l, 2, n);
        const field fv = make_field(6, n, plane_xy, sign_xy);
        const field fw = make_field(6, n, plane_xz, sign_xz);
        add_outer(A, 18, m->E * s->Iz * dx, &fv);
        add_outer(A, 18, m->E * s->Iy * dx, &fw);
        cubic_shapes(xi, l, 1, n);
        const field ft = make_field(4, n, twist, sign_tw);
        add_outer(A, 18, m->G * s->I0 * dx, &ft);
    }
}

void pkm_fem_quintic_mass(const pkm_section *s, const pkm_material *m, double l, unsigned flags,
                          double M[18][18])
{
    /* Li et al. 2020, eq. 5: rho A int N^T N over the three displacements plus the torsional
     * inertia rho Ip int N_phi^T N_phi; with PKM_FEM_ROTARY_INERTIA also the section rotary
     * inertia rho Iz int v'^2 + rho Iy int w'^2, as in fem/beam3d.c. */
    const int rotary = (flags & PKM_FEM_ROTARY_INERTIA) != 0;
    const double rho = m->rho;
    double *A = &M[0][0];
    double n[6];
    memset(M, 0, 18 * sizeof(M[0]));
    for (int g = 0; g < 6; ++g) {
        const double xi = gx[g], dx = gw[g] * l;
        const field fu = axial_field(xi, l, 0, U1, U2);
        add_outer(A, 18, rho * s->A * dx, &fu);
        quintic_shapes(xi, l, 0, n);
        const field fv = make_field(6, n, plane_xy, sign_xy);
        const field fw = make_field(6, n, plane_xz, sign_xz);
        add_outer(A, 18, rho * s->A * dx, &fv);
        add_outer(A, 18, rho * s->A * dx, &fw);
        cubic_shapes(xi, l, 0, n);
        const field ft = make_field(4, n, twist, sign_tw);
        add_outer(A, 18, rho * s->Ip * dx, &ft);
        if (rotary) {
            quintic_shapes(xi, l, 1, n);
            const field sv = make_field(6, n, plane_xy, sign_xy);
            const field sw = make_field(6, n, plane_xz, sign_xz);
            add_outer(A, 18, rho * s->Iz * dx, &sv);
            add_outer(A, 18, rho * s->Iy * dx, &sw);
        }
    }
}

void pkm_fem_quintic_interpolate(const double ul[18], double l, double xi, double d[6])
{
    /* Li et al. 2020, eq. 2: u linear, v and w quintic Hermite, phi cubic Hermite; the rotations
     * of beam3d's convention, rz = v', ry = -w', rx = phi. */
    double n[6], dn[6], c[4];
    quintic_shapes(xi, l, 0, n);
    quintic_shapes(xi, l, 1, dn);
    cubic_shapes(xi, l, 0, c);
    d[0] = (1.0 - xi) * ul[U1] + xi * ul[U2];
    d[1] = d[2] = d[4] = d[5] = 0.0;
    for (int k = 0; k < 6; k++) {
        d[1] += n[k] * sign_xy[k] * ul[plane_xy[k]];
        d[5] += dn[k] * sign_xy[k] * ul[plane_xy[k]];
        d[2] += n[k] * sign_xz[k] * ul[plane_xz[k]];
        d[4] -= dn[k] * sign_xz[k] * ul[plane_xz[k]];
    }
    d[3] = c[0] * ul[RX1] + c[1] * ul[KX1] + c[2] * ul[RX2] + c[3] * ul[KX2];
}

void pkm_fem_quintic_rotate(double R[3][3], double L[18][18], double G[18][18])
{
    /* T = blockdiag(R, R, I, R, R, I): the translation and rotation triples are vectors taken to
     * global axes; the curvature triple stays in the element's local axes (see fem.h). The
     * temporary lets G alias L. */
    double LT[18][18];
    for (int i = 0; i < 18; ++i)
        for (int b = 0; b < 6; ++b)
            for (int j = 0; j < 3; ++j) {
                double acc = L[i][3 * b + j];
                if (b % 3 != 2) {
                    acc = 0.0;
                    for (int k = 0; k < 3; ++k)
                        acc += L[i][3 * b + k] * R[k][j];
                }
                LT[i][3 * b + j] = acc;
            }
    for (int a = 0; a < 6; ++a)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 18; ++j) {
                double acc = LT[3 * a + i][j];
                if (a % 3 != 2) {
                    acc = 0.0;
                    for (int k = 0; k < 3; ++k)
                        acc += R[k][i] * LT[3 * a + k][j];
                }
                G[3 * a + i][j] = acc;
            }
}

/* The planar lead-screw beam (Li et al. 2020, eqs. 12-17) on an order-n matrix, n = 6 (the
 * printed element: per node u, w, theta) or 8 (consistent: per node u, w, theta, kappa).
 * stiffness != 0: EA int u'^2 + EIy int w''^2 (eq. 17); else rho A int (u^2 + w^2) (eq. 16) plus,
 * with PKM_FEM_ROTARY_INERTIA, rho Iy int w'^2. */
static void screw_matrix(const pkm_section *s, const pkm_material *m, double l, unsigned flags,
                         int stiffness, int n, double *A)
{
    const int nd = n / 2;
    /* Lateral dofs (w, theta, kappa) per node; the printed element has no kappa, which drops
     * the shapes n3 and n6 (eq. 15 keeps l3..l6 = n1, n2, n4, n5). */
    const int lat[6] = {1, 2, nd == 4 ? 3 : -1, nd + 1, nd + 2, nd == 4 ? nd + 3 : -1};
    const double one[6] = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
    const int rotary = (flags & PKM_FEM_ROTARY_INERTIA) != 0;
    double sh[6];
    memset(A, 0, sizeof(double) * (size_t)(n * n));
    for (int g = 0; g < 6; ++g) {
        const double xi = gx[g], dx = gw[g] * l;
        const field fu = axial_field(xi, l, stiffness, 0, nd);
        quintic_shapes(xi, l, stiffness ? 2 : 0, sh);
        const field fw = make_field(6, sh, lat, one);
        if (stiffness) {
            add_outer(A, n, m->E * s->A * dx, &fu);
            add_outer(A, n, m->E * s->Iy * dx, &fw);
            continue;
        }
        add_outer(A, n, m->rho * s->A * dx, &fu);
        add_outer(A, n, m->rho * s->A * dx, &fw);
        if (rotary) {
            quintic_shapes(xi, l, 1, sh);
            const field sw = make_field(6, sh, lat, one);
            add_outer(A, n, m->rho * s->Iy * dx, &sw);
        }
    }
}

void pkm_fem_screw_paper_stiffness(const pkm_section *s, const pkm_material *m, double l,
                                   double K[6][6])
{
    screw_matrix(s, m, l, 0u, 1, 6, &K[0][0]);
}

void pkm_fem_screw_paper_mass(const pkm_section *s, const pkm_material *m, double l, unsigned flags,
                              double M[6][6])
{
    screw_matrix(s, m, l, flags, 0, 6, &M[0][0]);
}

void pkm_fem_screw_consistent_stiffness(const pkm_section *s, const pkm_material *m, double l,
                                        double K[8][8])
{
    screw_matrix(s, m, l, 0u, 1, 8, &K[0][0]);
}

void pkm_fem_screw_consistent_mass(const pkm_section *s, const pkm_material *m, double l,
                                   unsigned flags, double M[8][8])
{
    screw_matrix(s, m, l, flags, 0, 8, &M[0][0]);
}
