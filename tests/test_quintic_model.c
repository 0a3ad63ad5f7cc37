/* tests/test_quintic_model.c: quintic beams (Li et al. 2020) through the model API and the nodal
 * assembly, against the element kernels assembled by hand, Euler-Bernoulli beam theory (Blevins,
 * "Formulas for natural frequency and mode shape", 1979, table 8-1) and fine cubic meshes.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_lapack.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/assembly.h"
#include "pkm/modal.h"
#include "pkm/model.h"

#include <stdlib.h>
#include <string.h>

static const pkm_material steel = {2.06e11, 7.94e10, 7900.0};

/* Solid circle of radius r. */
static pkm_section circle(double r)
{
    const double I = PKM_PI * r * r * r * r / 4.0;
    pkm_section s = {.A = PKM_PI * r * r, .Iy = I, .Iz = I, .I0 = 2.0 * I, .Ip = 2.0 * I};
    return s;
}

static pkm_model *new_model(void)
{
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    return m;
}

/* Beam along the polyline pts[0..np-1], ne elements per segment, local z towards zref. */
static int add_beam(pkm_model *m, const char *name, int np, const double (*pts)[3], int ne,
                    const double zref[3], pkm_section s, pkm_beam_element kind, int ecz)
{
    int nelem[8];
    for (int k = 0; k < 8; ++k)
        nelem[k] = ne;
    assert_true(np <= 9);
    pkm_beam_desc d = {.name = name,
                       .npoints = np,
                       .points = pts,
                       .nelem = nelem,
                       .zref = {zref[0], zref[1], zref[2]},
                       .section = s,
                       .material = steel,
                       .element = kind,
                       .end_curvature_zero = ecz};
    int id = -1;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_model_add_beam(m, &d, &id, &ctx), &ctx);
    return id;
}

static void add_joint(pkm_model *m, const char *name, pkm_joint_type type, int a, int b,
                      const double pt[3], const double axis[3])
{
    pkm_joint_desc d = {.name = name, .type = type, .body_a = a, .body_b = b};
    memcpy(d.point, pt, sizeof(d.point));
    if (axis != NULL) memcpy(d.axis, axis, sizeof(d.axis));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_model_add_joint(m, &d, NULL, &ctx), &ctx);
}

/* Lowest nev eigenvalues w^2 of the nodal pencil (sparse shift-invert path). */
static void lowest(const pkm_model *m, int nev, double *omega2, pkm_assembly_info *info)
{
    model_lowest(m, PKM_FORM_NODAL, nev, omega2, info);
}

/* All eigenvalues of a chain of nel equal elements (order 2 nd, row-major Ke, Me) with the
 * first nfix dofs of node 0 removed; returns the order. */
static int chain_eigs(int nd, const double *Ke, const double *Me, int nel, int nfix, double *w)
{
    const int nall = nd * (nel + 1), n = nall - nfix;
    double *K = calloc((size_t)(n * n), sizeof(double)),
           *M = calloc((size_t)(n * n), sizeof(double));
    assert_non_null(K);
    assert_non_null(M);
    for (int e = 0; e < nel; ++e)
        for (int a = 0; a < 2 * nd; ++a)
            for (int b = 0; b < 2 * nd; ++b) {
                const int i = e * nd + a - nfix, j = e * nd + b - nfix;
                if (i < 0 || j < 0) continue;
                K[i * n + j] += Ke[a * 2 * nd + b];
                M[i * n + j] += Me[a * 2 * nd + b];
            }
    dense_pencil_eigs(n, K, M, w);
    free(K);
    free(M);
    return n;
}

/* Clamped-free beta_1 L, refined from Blevins' table to full precision by Newton. */
static double beta1(void)
{
    double b = 1.87510407;
    for (int it = 0; it < 8; ++it)
        b -= (1.0 + cos(b) * cosh(b)) / (cos(b) * sinh(b) - sin(b) * cosh(b));
    return b;
}

/* 1. Clamped-free quintic beam (the Li et al. 2020 link, Ø60, L = 0.52 m) through the model:
 * the same 8 lowest eigenvalues as the 18-dof kernel assembled by hand, f1 within 2e-6 of beam
 * theory with one element; 6 coordinates per free node and 3 curvatures per node. A straight
 * polyline with an unjointed middle point shares its curvatures: same spectrum. */
static void test_cantilever(void **state)
{
    (void)state;
    const double L = 0.52, zref[3] = {0, 0, 1}, root[3] = {0, 0, 0};
    const pkm_section s = circle(0.03);
    const double ex = pow(beta1(), 4) * steel.E * s.Iz / (steel.rho * s.A * pow(L, 4));
    for (int nel = 1; nel <= 2; ++nel) {
        pkm_model *m = new_model();
        const double pts[2][3] = {{0, 0, 0}, {L, 0, 0}};
        int b = add_beam(m, "link", 2, pts, nel, zref, s, PKM_BEAM_QUINTIC, 0);
        add_joint(m, "root", PKM_JOINT_CLAMPED, PKM_GROUND, b, root, NULL);
        double w[8], wref[32], K[18][18], M[18][18];
        pkm_assembly_info info;
        lowest(m, 8, w, &info);
        assert_int_equal(info.n_reduced, 6 * nel + 3 * (nel + 1));
        assert_int_equal(info.n_total, 6 * (nel + 1) + 3 * (nel + 1));
        pkm_fem_quintic_stiffness(&s, &steel, L / nel, K);
        pkm_fem_quintic_mass(&s, &steel, L / nel, 0u, M);
        assert_int_equal(chain_eigs(9, &K[0][0], &M[0][0], nel, 6, wref), info.n_reduced);
        for (int k = 0; k < 8; ++k)
            assert_close(w[k], wref[k], 1e-9, 0.0);
        const double err = sqrt(w[0] / ex) - 1.0;
        print_message("cantilever, %d quintic element(s): f1 = %.6f Hz, rel. error %.3e\n", nel,
                      sqrt(w[0]) / (2.0 * PKM_PI), err);
        assert_close(w[1], w[0], 1e-9, 0.0); /* Iy = Iz */
        assert_true(err > 0.0 && err < (nel == 1 ? 2e-6 : 2e-8));

        /* The same beam as a two-segment polyline (middle point unjointed): shared curvatures. */
        pkm_model *m2 = new_model();
        const double pts2[3][3] = {{0, 0, 0}, {L / 2, 0, 0}, {L, 0, 0}};
        if (nel == 2) {
            b = add_beam(m2, "link", 3, pts2, 1, zref, s, PKM_BEAM_QUINTIC, 0);
            add_joint(m2, "root", PKM_JOINT_CLAMPED, PKM_GROUND, b, root, NULL);
            double w2[8];
            pkm_assembly_info info2;
            lowest(m2, 8, w2, &info2);
            assert_int_equal(info2.n_reduced, info.n_reduced);
            for (int k = 0; k < 8; ++k)
                assert_close(w2[k], w[k], 1e-12, 0.0);
        }
        pkm_model_destroy(&m2);
        pkm_model_destroy(&m);
    }
}

/* 2. end_curvature_zero (Li et al. 2020, eq. 9): a strip pinned at both ends in its plane
 * (revolutes about z) has zero in-plane curvature there, so imposing it keeps the exact
 * simply-supported frequencies beta L = pi, 2 pi (Blevins table 8-1); it removes the 3
 * curvatures of each end node, and being a constraint it can only raise the eigenvalues. */
static void test_end_curvature_zero(void **state)
{
    (void)state;
    const double L = 0.52, zref[3] = {0, 0, 1}, a[3] = {0, 0, 0}, b[3] = {L, 0, 0};
    const double axis[3] = {0, 0, 1}, ty = 0.01, tz = 0.1;
    pkm_section s = {.A = ty * tz, .Iy = ty * tz * tz * tz / 12.0, .Iz = tz * ty * ty * ty / 12.0};
    s.Ip = s.Iy + s.Iz;
    s.I0 = s.Ip;
    const double w0 = sqrt(steel.E * s.Iz / (steel.rho * s.A)) / (L * L);
    const double ex[2] = {PKM_PI * PKM_PI * w0, 4.0 * PKM_PI * PKM_PI * w0};
    double w[2][2];
    for (int ecz = 0; ecz < 2; ++ecz) {
        pkm_model *m = new_model();
        const double pts[2][3] = {{0, 0, 0}, {L, 0, 0}};
        int beam = add_beam(m, "strip", 2, pts, 4, zref, s, PKM_BEAM_QUINTIC, ecz);
        add_joint(m, "pin a", PKM_JOINT_REVOLUTE, PKM_GROUND, beam, a, axis);
        add_joint(m, "pin b", PKM_JOINT_REVOLUTE, beam, PKM_GROUND, b, axis);
        pkm_assembly_info info;
        lowest(m, 2, w[ecz], &info);
        /* 1 + 3 x 6 + 1 twist coordinates; curvatures at 5 nodes, or at the 3 inner ones */
        assert_int_equal(info.n_reduced, ecz ? 29 : 35);
        for (int k = 0; k < 2; ++k) {
            const double err = sqrt(w[ecz][k]) / ex[k] - 1.0;
            print_message("pinned-pinned, 4 quintic elements, end_curvature_zero %d: mode %d rel. "
                          "error %.3e\n",
                          ecz, k + 1, err);
            assert_true(err > 0.0 && err < 1e-5);
        }
        pkm_model_destroy(&m);
    }
    for (int k = 0; k < 2; ++k)
        assert_true(w[1][k] >= w[0][k] * (1.0 - 1e-12));
}

/* 3. PKM_BEAM_QUINTIC_C0: the printed lead-screw element (Li et al. 2020, eq. 15) in 3D. A
 * cantilever of 8 such elements has, in each bending plane, the spectrum of the planar printed
 * screw element, about 9.6 % above beam theory (the limit is sqrt(1.2) - 1), with 6 coordinates
 * per free node and none for curvatures. */
static void test_c0_is_printed_screw(void **state)
{
    (void)state;
    const double L = 0.432, zref[3] = {0, 0, 1}, root[3] = {0, 0, 0};
    const int nel = 8;
    const pkm_section s = circle(0.02);
    pkm_model *m = new_model();
    const double pts[2][3] = {{0, 0, 0}, {L, 0, 0}};
    int b = add_beam(m, "screw", 2, pts, nel, zref, s, PKM_BEAM_QUINTIC_C0, 0);
    add_joint(m, "motor end", PKM_JOINT_CLAMPED, PKM_GROUND, b, root, NULL);
    double w[2], wref[64], K[6][6], M[6][6], Kl[16], Ml[16];
    pkm_assembly_info info;
    lowest(m, 2, w, &info);
    assert_int_equal(info.n_reduced, 6 * nel);
    pkm_fem_screw_paper_stiffness(&s, &steel, L / nel, K);
    pkm_fem_screw_paper_mass(&s, &steel, L / nel, 0u, M);
    const int lat[4] = {1, 2, 4, 5};
    for (int a = 0; a < 4; ++a)
        for (int c = 0; c < 4; ++c) {
            Kl[a * 4 + c] = K[lat[a]][lat[c]];
            Ml[a * 4 + c] = M[lat[a]][lat[c]];
        }
    chain_eigs(2, Kl, Ml, nel, 2, wref);
    const double ex = pow(beta1(), 4) * steel.E * s.Iy / (steel.rho * s.A * pow(L, 4));
    const double err = sqrt(w[0] / ex) - 1.0;
    print_message("cantilever, 8 QUINTIC_C0 elements: rel. error of f1 %+.4f (limit %+.4f)\n", err,
                  sqrt(1.2) - 1.0);
    assert_close(w[0], wref[0], 1e-9, 0.0);
    assert_close(w[1], wref[0], 1e-9, 0.0);
    assert_true(err > 0.0954 && err < 0.097);
    pkm_model_destroy(&m);
}

/* A spatial frame with a polyline kink, a brace jointed to interior points of two members, a
 * rigid plate clamped to one member and held by a spherical joint on the other:
 *  - member A: ground (0,0,0) up to (0,0,0.5), kink, to (0.2,0,0.5), a point at (0,0,0.25);
 *  - member B: ground (0.4,0.1,0) up to (0.4,0.1,0.5), a point at (0.4,0.1,0.25);
 *  - brace C: from A at (0,0,0.25) (clamped) to B at (0.4,0.1,0.25) (revolute about z);
 *  - plate: 3 kg, clamped to A's end, spherical joint to B's top.
 * ne elements per polyline segment of kind k. */
static pkm_model *frame(int ne, pkm_beam_element k)
{
    pkm_model *m = new_model();
    const pkm_section s = circle(0.01);
    const double ptsA[4][3] = {{0, 0, 0}, {0, 0, 0.25}, {0, 0, 0.5}, {0.2, 0, 0.5}};
    const double ptsB[3][3] = {{0.4, 0.1, 0}, {0.4, 0.1, 0.25}, {0.4, 0.1, 0.5}};
    const double ptsC[2][3] = {{0, 0, 0.25}, {0.4, 0.1, 0.25}};
    const double zx[3] = {1, 0, 0}, zxy[3] = {1, 1, 0}, zz[3] = {0, 0, 1}, axis[3] = {0, 0, 1};
    const int a = add_beam(m, "A", 4, ptsA, ne, zxy, s, k, 0);
    const int b = add_beam(m, "B", 3, ptsB, ne, zx, s, k, 0);
    const int c = add_beam(m, "C", 2, ptsC, ne, zz, s, k, 0);
    pkm_rigid_desc d = {.name = "plate",
                        .origin = {0.2, 0.05, 0.5},
                        .mass = 3.0,
                        .com = {0.22, 0.06, 0.52},
                        .inertia = {{0.02, 0.001, 0}, {0.001, 0.03, 0.002}, {0, 0.002, 0.04}}};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int p = -1;
    assert_pkm_ok(pkm_model_add_rigid(m, &d, &p, &ctx), &ctx);
    add_joint(m, "A root", PKM_JOINT_CLAMPED, PKM_GROUND, a, ptsA[0], NULL);
    add_joint(m, "B root", PKM_JOINT_CLAMPED, PKM_GROUND, b, ptsB[0], NULL);
    add_joint(m, "C to A", PKM_JOINT_CLAMPED, a, c, ptsC[0], NULL);
    add_joint(m, "C to B", PKM_JOINT_REVOLUTE, c, b, ptsC[1], axis);
    add_joint(m, "plate to A", PKM_JOINT_CLAMPED, a, p, ptsA[3], NULL);
    add_joint(m, "plate to B", PKM_JOINT_SPHERICAL, b, p, ptsB[2], NULL);
    return m;
}

/* 4. The acceptance criterion of the 5-PSS/UPU issue: quintic and many cubic elements agree
 * within 0.1 % on the first six frequencies of a jointed spatial frame (here far closer). The
 * curvature coordinates follow the sharing rule: split at the kink and at the jointed interior
 * points, shared at unjointed interior nodes of a segment (18 ne + 18 in all). */
static void test_frame_quintic_vs_cubic(void **state)
{
    (void)state;
    double ref[6];
    pkm_model *m = frame(32, PKM_BEAM_CUBIC);
    lowest(m, 6, ref, NULL);
    pkm_model_destroy(&m);
    for (int ne = 1; ne <= 2; ++ne) {
        double w[6], wc[6];
        pkm_assembly_info info, infoc;
        m = frame(ne, PKM_BEAM_QUINTIC);
        lowest(m, 6, w, &info);
        pkm_model_destroy(&m);
        m = frame(ne, PKM_BEAM_CUBIC);
        lowest(m, 6, wc, &infoc);
        pkm_model_destroy(&m);
        assert_int_equal(info.n_reduced - infoc.n_reduced, 18 * ne + 18);
        double worst = 0.0, worst_c = 0.0;
        for (int k = 0; k < 6; ++k) {
            const double d = sqrt(w[k] / ref[k]) - 1.0;
            worst = fmax(worst, fabs(d));
            worst_c = fmax(worst_c, fabs(sqrt(wc[k] / ref[k]) - 1.0));
            assert_true(fabs(d) < 1e-3);
        }
        print_message("frame, %d element(s) per segment vs 32 cubic: quintic (%lld coordinates) "
                      "f1..f6 = %.3f %.3f %.3f %.3f %.3f %.3f Hz, max rel diff %.2e; cubic (%lld "
                      "coordinates) %.2e\n",
                      ne, (long long)info.n_reduced, sqrt(w[0]) / (2 * PKM_PI),
                      sqrt(w[1]) / (2 * PKM_PI), sqrt(w[2]) / (2 * PKM_PI),
                      sqrt(w[3]) / (2 * PKM_PI), sqrt(w[4]) / (2 * PKM_PI),
                      sqrt(w[5]) / (2 * PKM_PI), worst, (long long)infoc.n_reduced, worst_c);
        /* the quintic mesh is far closer than the cubic one of the same nodes */
        assert_true(worst < 0.1 * worst_c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cantilever),
        cmocka_unit_test(test_end_curvature_zero),
        cmocka_unit_test(test_c0_is_printed_screw),
        cmocka_unit_test(test_frame_quintic_vs_cubic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
