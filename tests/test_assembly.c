/* tests/test_assembly.c: the two assembly formulations against each other and against beam theory.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The virtual-tree formulation (Germain et al. 2015, secs. 3-4) and the direct nodal assembly
 * share only the element kernels, so the agreement of their spectra checks both the tree
 * kinematics and the loop closure. Analytic references: Euler-Bernoulli beams (Blevins, "Formulas
 * for natural frequency and mode shape", 1979, table 8-1) and exact massless-beam flexibilities
 * (Timoshenko & Gere, cantilever tip load and tip moment). */
#include "navaro_defaults.h"
#include "test_util.h"

#include "assembly/assembly_impl.h"
#include "pkm/analysis.h"
#include "pkm/assembly.h"
#include "pkm/io.h"
#include "pkm/map.h"
#include "pkm/modal.h"
#include "pkm/model.h"
#include "pkm/cases.h"

#include <stdlib.h>
#include <string.h>

#define PI     3.14159265358979323846
#define TABLE3 PKM_SOURCE_DIR "/cases/navaro/table3_cast3m.csv"

/* Steel of the brief: E = 206 GPa, nu = 0.3 (G = E / 2.6). */
static pkm_material steel(double rho)
{
    pkm_material mat = {.E = 2.06e11, .G = 2.06e11 / 2.6, .rho = rho};
    return mat;
}

/* Solid circle of radius r: A = pi r^2, Iy = Iz = pi r^4 / 4, I0 = Ip = pi r^4 / 2. */
static pkm_section circle(double r)
{
    const double I = PI * r * r * r * r / 4.0;
    pkm_section s = {.A = PI * r * r, .Iy = I, .Iz = I, .I0 = 2.0 * I, .Ip = 2.0 * I};
    return s;
}

/* Straight beam from a to b in nelem elements, local z = global z. */
static int add_beam(pkm_model *m, const char *name, const double a[3], const double b[3], int nelem,
                    pkm_section s, pkm_material mat)
{
    const double pts[2][3] = {{a[0], a[1], a[2]}, {b[0], b[1], b[2]}};
    pkm_beam_desc d = {.name = name,
                       .npoints = 2,
                       .points = pts,
                       .nelem = &nelem,
                       .zref = {0.0, 0.0, 1.0},
                       .section = s,
                       .material = mat,
                       .mass_flags = 0};
    int id = -1;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_model_add_beam(m, &d, &id, &ctx), &ctx);
    return id;
}

/* Joint at pt; revolute and other one-axis joints about global z. */
static void add_joint(pkm_model *m, const char *name, pkm_joint_type type, int a, int b,
                      const double pt[3], int cut)
{
    pkm_joint_desc d = {.name = name,
                        .type = type,
                        .body_a = a,
                        .body_b = b,
                        .point = {pt[0], pt[1], pt[2]},
                        .axis = {0.0, 0.0, 1.0},
                        .cut = cut};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_model_add_joint(m, &d, NULL, &ctx), &ctx);
}

static pkm_model *new_model(void)
{
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    assert_non_null(m);
    return m;
}

/* Upper CSC storage well formed: colptr monotone from 0 to nnz, rows strictly increasing and
 * <= column within each column, diagonal present (the last entry of each column). */
static void check_storage(const pkm_pencil *p)
{
    assert_true(p->n > 0);
    assert_int_equal(p->colptr[0], 0);
    assert_int_equal(p->colptr[p->n], p->nnz);
    for (int64_t j = 0; j < p->n; j++) {
        const int64_t q0 = p->colptr[j], q1 = p->colptr[j + 1];
        assert_true(q1 > q0);
        for (int64_t q = q0; q < q1; q++) {
            assert_true(p->rowind[q] >= 0 && p->rowind[q] <= j);
            if (q > q0) assert_true(p->rowind[q] > p->rowind[q - 1]);
            assert_true(isfinite(p->k[q]) && isfinite(p->m[q]));
        }
        assert_int_equal(p->rowind[q1 - 1], j);
        assert_true(p->m[q1 - 1] > 0.0 && p->k[q1 - 1] >= 0.0);
    }
}

/* Lowest nev eigenvalues w^2 of model m in formulation f, by the sparse path (ARPACK
 * shift-invert, accurate relative to the lowest eigenvalues whatever the stiffest element) or the
 * dense LAPACK path (relative accuracy of the lowest eigenvalues ~ eps w^2_max / w^2: about 1e-9
 * for a 16-element beam, whose axial modes reach 1e11 rad^2/s^2). */
static void lowest(const pkm_model *m, pkm_formulation f, int sparse, int nev, double *omega2,
                   pkm_assembly_info *info)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_pencil *p = NULL;
    pkm_assembly_info inf;
    assert_pkm_ok(pkm_assemble(m, f, &p, &inf, &ctx), &ctx);
    check_storage(p);
    assert_int_equal(p->n, inf.n_reduced);
    assert_true(p->n >= nev);
    pkm_modes *md = NULL;
    assert_pkm_ok(pkm_modes_create(p->n, nev, &md, &ctx), &ctx);
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    if (sparse) {
        pkm_modal *sv = NULL;
        assert_pkm_ok(pkm_modal_create(p, &sv, &ctx), &ctx);
        assert_pkm_ok(pkm_modal_solve(sv, p, &o, md, &ctx), &ctx);
        pkm_modal_destroy(&sv);
    } else {
        assert_pkm_ok(pkm_modal_solve_dense(p, &o, md, &ctx), &ctx);
    }
    memcpy(omega2, md->omega2, sizeof(double) * (size_t)nev);
    if (info != NULL) *info = inf;
    pkm_modes_destroy(&md);
    pkm_pencil_destroy(&p);
}

/* Euler-Bernoulli beam: w = (beta L)^2 / L^2 sqrt(E I / (rho A)), rad/s. */
static double eb_omega(double betaL, double L, pkm_section s, pkm_material mat, double I)
{
    return betaL * betaL / (L * L) * sqrt(mat.E * I / (mat.rho * s.A));
}

static const pkm_formulation forms[2] = {PKM_FORM_TREE, PKM_FORM_NODAL};

/* The two lowest frequencies of a one-loop model in both formulations (sparse path): each
 * within 1e-4 of the analytic ex, the formulations within 1e-9 of each other, n_reduced
 * coordinates and one cut in the tree. Returns the worst relative frequency error. */
static double check_one_loop(const pkm_model *m, int64_t n_reduced, const double ex[2])
{
    double worst = 0.0, wf[2][2];
    for (int f = 0; f < 2; f++) {
        pkm_assembly_info info;
        lowest(m, forms[f], 1, 2, wf[f], &info);
        assert_int_equal(info.n_reduced, n_reduced);
        if (forms[f] == PKM_FORM_TREE) assert_int_equal(info.n_cuts, 1);
        for (int k = 0; k < 2; k++) {
            assert_close(sqrt(wf[f][k]), ex[k], 1e-4, 0.0);
            worst = fmax(worst, fabs(sqrt(wf[f][k]) - ex[k]) / ex[k]);
        }
    }
    for (int k = 0; k < 2; k++)
        assert_close(wf[0][k], wf[1][k], 1e-9, 0.0);
    return worst;
}

/* 1. Both formulations give the same spectrum of NaVARo at the eight Table 3 poses. */
static void test_formulations_agree_navaro(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_table *t = NULL;
    assert_pkm_ok(pkm_table_read(TABLE3, 3, &t, &ctx), &ctx);
    assert_int_equal(t->nrows, 8);
    const pkm_navaro_params par = navaro_defaults();
    double worst = 0.0;
    for (int r = 0; r < t->nrows; r++) {
        pkm_model *m = NULL;
        assert_pkm_ok(pkm_navaro_build(&par, t->pose + 3 * r, &m, &ctx), &ctx);
        double w[2][20];
        pkm_assembly_info info[2];
        for (int f = 0; f < 2; f++)
            lowest(m, forms[f], 0, 20, w[f], &info[f]);
        /* Germain et al. 2015, sec. 5.2: 90 independent coordinates for NaVARo. */
        assert_int_equal(info[0].n_reduced, 90);
        assert_int_equal(info[1].n_reduced, 90);
        assert_int_equal(info[0].n_legs, 3);
        assert_int_equal(info[0].n_cuts, 6); /* D_i (cut flag) and the platform joints */
        for (int k = 0; k < 20; k++) {
            worst = fmax(worst, fabs(w[0][k] - w[1][k]) / w[1][k]);
            assert_close(w[0][k], w[1][k], 1e-9, 0.0);
        }
        pkm_model_destroy(&m);
    }
    print_message("tree vs nodal, 8 poses x 20 eigenvalues: max rel diff %.2e\n", worst);
    pkm_table_destroy(&t);
}

/* Cantilever along x from the origin, clamped to the ground there. */
static pkm_model *cantilever(double L, int nelem, pkm_section s, pkm_material mat)
{
    pkm_model *m = new_model();
    const double a[3] = {0, 0, 0}, b[3] = {L, 0, 0};
    int beam = add_beam(m, "cantilever", a, b, nelem, s, mat);
    add_joint(m, "root", PKM_JOINT_CLAMPED, PKM_GROUND, beam, a, 0);
    return m;
}

/* 2. Cantilever: Blevins table 8-1, clamped-free beta L = 1.87510407, 4.69409113. */
static void test_cantilever(void **state)
{
    (void)state;
    const double L = 0.52;
    const pkm_section s = circle(0.03);
    const pkm_material mat = steel(7900.0);
    const double w1 = eb_omega(1.87510407, L, s, mat, s.Iz);
    const double w2 = eb_omega(4.69409113, L, s, mat, s.Iz);
    pkm_model *m = cantilever(L, 8, s, mat);
    double worst = 0.0;
    for (int f = 0; f < 2; f++) {
        double w[4];
        pkm_assembly_info info;
        lowest(m, forms[f], 1, 4, w, &info);
        /* 8 elements x 6 dofs; the tree has no platform and no loop */
        assert_int_equal(info.n_reduced, 48);
        /* Iy = Iz: each bending frequency is double (x-y and x-z planes). */
        const double ex[4] = {w1, w1, w2, w2};
        for (int k = 0; k < 4; k++) {
            assert_close(sqrt(w[k]), ex[k], 1e-4, 0.0);
            worst = fmax(worst, fabs(sqrt(w[k]) - ex[k]) / ex[k]);
        }
    }
    print_message("cantilever, 8 elements: max rel freq error %.2e\n", worst);
    pkm_model_destroy(&m);
}

/* Beam along x from 0 to L clamped at both ends to the ground. Variants: 0 one beam; 1 two
 * beams clamped together at L/2 (the mid joint becomes the cut); 2 two beams, the far ground
 * joint (beam, ground) flagged as the cut; 3 the same written (ground, beam), so that the
 * eliminated element is on side b of the cut (the other sign of eq. 51). */
static pkm_model *clamped_clamped(int variant, double L, int nelem, pkm_section s, pkm_material mat)
{
    pkm_model *m = new_model();
    const double a[3] = {0, 0, 0}, c[3] = {L / 2.0, 0, 0}, b[3] = {L, 0, 0};
    if (variant == 0) {
        int beam = add_beam(m, "beam", a, b, nelem, s, mat);
        add_joint(m, "left", PKM_JOINT_CLAMPED, PKM_GROUND, beam, a, 0);
        add_joint(m, "right", PKM_JOINT_CLAMPED, PKM_GROUND, beam, b, 0);
        return m;
    }
    int b1 = add_beam(m, "left half", a, c, nelem / 2, s, mat);
    int b2 = add_beam(m, "right half", c, b, nelem / 2, s, mat);
    add_joint(m, "left", PKM_JOINT_CLAMPED, PKM_GROUND, b1, a, 0);
    add_joint(m, "middle", PKM_JOINT_CLAMPED, b1, b2, c, 0);
    if (variant == 3)
        add_joint(m, "right", PKM_JOINT_CLAMPED, PKM_GROUND, b2, b, 1);
    else
        add_joint(m, "right", PKM_JOINT_CLAMPED, b2, PKM_GROUND, b, variant == 2);
    return m;
}

/* 3. Clamped-clamped beam closed through a cut: Blevins table 8-1, beta L = 4.73004074,
 * 7.85320462; and the same spectrum as the single beam on the same mesh. */
static void test_clamped_clamped_loop(void **state)
{
    (void)state;
    const double L = 0.52;
    const int ne = 16;
    const pkm_section s = circle(0.03);
    const pkm_material mat = steel(7900.0);
    const double w1 = eb_omega(4.73004074, L, s, mat, s.Iz);
    const double w2 = eb_omega(7.85320462, L, s, mat, s.Iz);
    double ref[8];
    pkm_model *single = clamped_clamped(0, L, ne, s, mat);
    lowest(single, PKM_FORM_NODAL, 1, 8, ref, NULL);
    const double ex[4] = {w1, w1, w2, w2};
    double worst_an = 0.0, worst_eq = 0.0;
    for (int k = 0; k < 4; k++) {
        assert_close(sqrt(ref[k]), ex[k], 1e-4, 0.0);
        worst_an = fmax(worst_an, fabs(sqrt(ref[k]) - ex[k]) / ex[k]);
    }
    for (int f = 0; f < 2; f++) {
        double w[8];
        pkm_assembly_info info;
        lowest(single, forms[f], 1, 8, w, &info);
        for (int k = 0; k < 8; k++)
            assert_close(w[k], ref[k], 1e-9, 0.0);
        for (int v = 1; v <= 3; v++) {
            pkm_model *m = clamped_clamped(v, L, ne, s, mat);
            lowest(m, forms[f], 1, 8, w, &info);
            /* 15 interior nodes x 6 dofs either way */
            assert_int_equal(info.n_reduced, 90);
            if (forms[f] == PKM_FORM_TREE) {
                assert_int_equal(info.n_cuts, 1);
                assert_int_equal(info.n_legs, 1);
            }
            for (int k = 0; k < 8; k++) {
                assert_close(w[k], ref[k], 1e-9, 0.0);
                worst_eq = fmax(worst_eq, fabs(w[k] - ref[k]) / ref[k]);
            }
            pkm_model_destroy(&m);
        }
    }
    print_message("clamped-clamped, 16 elements: max rel freq error %.2e; two beams + cut vs one "
                  "beam: max rel diff %.2e\n",
                  worst_an, worst_eq);
    pkm_model_destroy(&single);
}

/* Smaller root of a x^2 - b x + c = 0 (a, b, c > 0, real roots), then the larger. */
static void quad_roots(double a, double b, double c, double r[2])
{
    const double q = 0.5 * (b + sqrt(b * b - 4.0 * a * c));
    r[0] = c / q;
    r[1] = q / a;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 4. Massless cantilever (rho -> 0, one element: Hermite elements are exact for end loads)
 * carrying a rigid body of mass mt whose centre is at the tip, inertia diag(Jx, Jy, Jz). The
 * tip flexibility of an Euler-Bernoulli cantilever (Timoshenko & Gere: v = F L^3 / 3EI +
 * C L^2 / 2EI, theta = F L^2 / 2EI + C L / EI) inverts to a = EI / L^3 [12, -6L; -6L, 4L^2], so
 * each bending plane gives mt J w^4 - a (12 J + 4 L^2 mt) w^2 + 12 L^2 a^2 = 0 (w^2 = 3EI/(mt L^3)
 * for J = 0); axial w^2 = EA / (L mt); torsion w^2 = G I0 / (L Jx). Variants: the body as a
 * plain rigid body in the tree, or as the platform (cut free, the clamped tip joint closed). */
static void test_tip_mass(void **state)
{
    (void)state;
    const double L = 0.52, mt = 2.0, J[3] = {0.01, 0.02, 0.03};
    const pkm_material mat = steel(1e-9); /* beam mass 2e-12 kg: negligible at 1e-8 */
    double worst = 0.0;
    /* The solvers return at most n - 1 = 5 of the 6 modes: with the full area the axial mode is
     * the highest, with A = 1e-5 m^2 it is the lowest, so the two variants check all six. */
    for (int variant = 0; variant < 2; variant++) {
        pkm_section s = circle(0.03);
        if (variant) s.A = 1e-5;
        double ex[6], r[2];
        ex[0] = mat.E * s.A / (L * mt);
        ex[1] = mat.G * s.I0 / (L * J[0]);
        const double I[2] = {s.Iy, s.Iz}, Jb[2] = {J[1], J[2]};
        for (int p = 0; p < 2; p++) {
            const double a = mat.E * I[p] / (L * L * L);
            quad_roots(mt * Jb[p], a * (12.0 * Jb[p] + 4.0 * L * L * mt), 12.0 * L * L * a * a, r);
            ex[2 + 2 * p] = r[0];
            ex[3 + 2 * p] = r[1];
        }
        qsort(ex, 6, sizeof(double), cmp_double);
        for (int platform = 0; platform < 2; platform++) {
            pkm_model *m = cantilever(L, 1, s, mat);
            pkm_ctx ctx;
            pkm_ctx_clear(&ctx);
            /* Reference point away from the tip: exercises the rigid attachment transfer. */
            pkm_rigid_desc d = {.name = "tip mass",
                                .origin = {L + 0.1, 0.05, -0.07},
                                .mass = mt,
                                .com = {L, 0.0, 0.0},
                                .inertia = {{J[0], 0, 0}, {0, J[1], 0}, {0, 0, J[2]}}};
            int body = -1;
            assert_pkm_ok(pkm_model_add_rigid(m, &d, &body, &ctx), &ctx);
            if (platform) assert_pkm_ok(pkm_model_set_platform(m, body, &ctx), &ctx);
            const double tip[3] = {L, 0, 0};
            add_joint(m, "tip", PKM_JOINT_CLAMPED, 0, body, tip, 0);
            for (int f = 0; f < 2; f++) {
                double w[5];
                pkm_assembly_info info;
                lowest(m, forms[f], 0, 5, w, &info);
                assert_int_equal(info.n_reduced, 6);
                if (forms[f] == PKM_FORM_TREE) assert_int_equal(info.n_cuts, platform ? 1 : 0);
                for (int k = 0; k < 5; k++) {
                    assert_close(w[k], ex[k], 1e-8, 0.0);
                    worst = fmax(worst, fabs(w[k] - ex[k]) / ex[k]);
                }
            }
            pkm_model_destroy(&m);
        }
    }
    print_message("massless cantilever + rigid tip body: max rel w^2 error %.2e\n", worst);
}

/* Point mass (no rotary inertia) at the tip of a massless cantilever: w^2 = 3 E I / (m L^3)
 * (Timoshenko & Gere), lowest two modes (the x-y and x-z planes) by the sparse path; the mass is
 * the platform in the tree formulation. */
static void test_tip_point_mass(void **state)
{
    (void)state;
    const double L = 0.52, mt = 2.0;
    pkm_section s = circle(0.03);
    s.Iy = 2.0 * s.Iz; /* separate the two bending planes */
    const pkm_material mat = steel(1e-6);
    const double ex[2] = {3.0 * mat.E * s.Iz / (mt * L * L * L),
                          3.0 * mat.E * s.Iy / (mt * L * L * L)};
    double worst = 0.0;
    pkm_model *m = cantilever(L, 1, s, mat);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_rigid_desc d = {.name = "point mass", .origin = {L, 0, 0}, .mass = mt, .com = {L, 0, 0}};
    int body = -1;
    assert_pkm_ok(pkm_model_add_rigid(m, &d, &body, &ctx), &ctx);
    assert_pkm_ok(pkm_model_set_platform(m, body, &ctx), &ctx);
    const double tip[3] = {L, 0, 0};
    add_joint(m, "tip", PKM_JOINT_CLAMPED, 0, body, tip, 0);
    for (int f = 0; f < 2; f++) {
        pkm_pencil *p = NULL;
        assert_pkm_ok(pkm_assemble(m, forms[f], &p, NULL, &ctx), &ctx);
        pkm_modal *sv = NULL;
        pkm_modes *md = NULL;
        pkm_modal_opts o = pkm_modal_opts_default();
        o.nev = 2;
        o.ncv = (int)p->n;
        assert_pkm_ok(pkm_modal_create(p, &sv, &ctx), &ctx);
        assert_pkm_ok(pkm_modes_create(p->n, 2, &md, &ctx), &ctx);
        assert_pkm_ok(pkm_modal_solve(sv, p, &o, md, &ctx), &ctx);
        for (int k = 0; k < 2; k++) {
            assert_close(md->omega2[k], ex[k], 1e-8, 0.0);
            worst = fmax(worst, fabs(md->omega2[k] - ex[k]) / ex[k]);
        }
        pkm_modes_destroy(&md);
        pkm_modal_destroy(&sv);
        pkm_pencil_destroy(&p);
    }
    print_message("massless cantilever + tip point mass: max rel w^2 error %.2e\n", worst);
    pkm_model_destroy(&m);
}

/* Thin rectangle, 10 mm in plane (y) x 100 mm out of plane (z): Iz = 8.333e-9, Iy = 100 Iz; the
 * torsion constant is set to Ip so that torsion stays above the in-plane modes checked. */
static pkm_section strip(void)
{
    const double ty = 0.01, tz = 0.1;
    pkm_section s = {.A = ty * tz, .Iy = ty * tz * tz * tz / 12.0, .Iz = tz * ty * ty * ty / 12.0};
    s.Ip = s.Iy + s.Iz;
    s.I0 = s.Ip;
    return s;
}

/* 5a. Pinned-pinned beam (revolute about z to the ground at both ends; the second is the cut):
 * in-plane simply supported, beta L = pi, 2 pi (Blevins table 8-1); out of plane the beam is
 * clamped-clamped and, with Iy = 100 Iz, far above. */
static void test_pinned_pinned(void **state)
{
    (void)state;
    const double L = 0.52;
    const pkm_section s = strip();
    const pkm_material mat = steel(7900.0);
    const double ex[2] = {eb_omega(PI, L, s, mat, s.Iz), eb_omega(2.0 * PI, L, s, mat, s.Iz)};
    double worst = 0.0;
    /* order 1 writes the second pin (ground, beam): the eliminated element is then on side b */
    for (int order = 0; order < 2; order++) {
        pkm_model *m = new_model();
        const double a[3] = {0, 0, 0}, b[3] = {L, 0, 0};
        int beam = add_beam(m, "pinned beam", a, b, 16, s, mat);
        add_joint(m, "pin a", PKM_JOINT_REVOLUTE, PKM_GROUND, beam, a, 0);
        add_joint(m, "pin b", PKM_JOINT_REVOLUTE, order ? PKM_GROUND : beam,
                  order ? beam : PKM_GROUND, b, 0);
        /* 15 interior nodes x 6 + one rotation at each pin */
        worst = fmax(worst, check_one_loop(m, 92, ex));
        pkm_model_destroy(&m);
    }
    print_message("pinned-pinned, 16 elements: max rel freq error %.2e\n", worst);
}

/* 5b. Clamped at both ends with a hinge (revolute about z) in the middle: by symmetry the
 * in-plane modes are those of each half, clamped-free for the symmetric mode (zero moment and
 * shear at the hinge) and clamped-pinned for the antisymmetric one: beta (L/2) = 1.87510407,
 * 3.92660231 (Blevins table 8-1). The hinge closes the loop through the ground. */
static void test_mid_hinge(void **state)
{
    (void)state;
    const double L = 0.52, h = L / 2.0;
    const pkm_section s = strip();
    const pkm_material mat = steel(7900.0);
    pkm_model *m = new_model();
    const double a[3] = {0, 0, 0}, c[3] = {h, 0, 0}, b[3] = {L, 0, 0};
    int b1 = add_beam(m, "left half", a, c, 8, s, mat);
    int b2 = add_beam(m, "right half", c, b, 8, s, mat);
    add_joint(m, "left", PKM_JOINT_CLAMPED, PKM_GROUND, b1, a, 0);
    add_joint(m, "right", PKM_JOINT_CLAMPED, PKM_GROUND, b2, b, 0);
    add_joint(m, "hinge", PKM_JOINT_REVOLUTE, b1, b2, c, 0);
    const double ex[2] = {eb_omega(1.87510407, h, s, mat, s.Iz),
                          eb_omega(3.92660231, h, s, mat, s.Iz)};
    const double worst = check_one_loop(m, 91, ex);
    print_message("clamped-hinge-clamped, 16 elements: max rel freq error %.2e\n", worst);
    pkm_model_destroy(&m);
}

/* 5c. A loop through a rigid connector with mass, the cut on the connector away from the beam
 * end (so the closure of eq. 51 carries a lever arm d): beam 1 from the ground to the connector,
 * the connector offset in y and z, beam 2 from it to the ground. No closed form: the two
 * formulations must agree. */
static void test_rigid_in_loop(void **state)
{
    (void)state;
    const double L = 0.52;
    const pkm_section s = circle(0.02);
    const pkm_material mat = steel(7900.0);
    pkm_model *m = new_model();
    const double a[3] = {0, 0, 0}, c1[3] = {L / 2.0, 0, 0}, c2[3] = {L / 2.0, 0.05, 0.03},
                 b[3] = {L, 0.05, 0.03};
    int b1 = add_beam(m, "beam 1", a, c1, 6, s, mat);
    int b2 = add_beam(m, "beam 2", c2, b, 6, s, mat);
    pkm_rigid_desc d = {.name = "connector",
                        .origin = {L / 2.0, 0.02, 0.01},
                        .mass = 0.4,
                        .com = {L / 2.0 + 0.01, 0.03, 0.02},
                        .inertia = {{2e-4, 1e-5, 0}, {1e-5, 3e-4, 2e-5}, {0, 2e-5, 4e-4}}};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int r = -1;
    assert_pkm_ok(pkm_model_add_rigid(m, &d, &r, &ctx), &ctx);
    add_joint(m, "root 1", PKM_JOINT_CLAMPED, PKM_GROUND, b1, a, 0);
    add_joint(m, "root 2", PKM_JOINT_CLAMPED, b2, PKM_GROUND, b, 0);
    add_joint(m, "connector 1", PKM_JOINT_REVOLUTE, b1, r, c1, 0);
    add_joint(m, "connector 2", PKM_JOINT_CLAMPED, r, b2, c2, 0);
    double w[2][10];
    pkm_assembly_info info[2];
    for (int f = 0; f < 2; f++)
        lowest(m, forms[f], 1, 10, w[f], &info[f]);
    assert_int_equal(info[0].n_reduced, info[1].n_reduced);
    assert_int_equal(info[0].n_cuts, 1);
    double worst = 0.0;
    for (int k = 0; k < 10; k++) {
        assert_close(w[0][k], w[1][k], 1e-9, 0.0);
        worst = fmax(worst, fabs(w[0][k] - w[1][k]) / w[1][k]);
    }
    print_message("rigid connector in a loop: tree vs nodal max rel diff %.2e\n", worst);
    pkm_model_destroy(&m);
}

/* 6. Error paths of the model and assembly API. */
static void test_model_errors(void **state)
{
    (void)state;
    const double L = 0.52;
    const pkm_section s = circle(0.03);
    const pkm_material mat = steel(7900.0);
    pkm_ctx ctx;
    pkm_model *m = cantilever(L, 2, s, mat);

    /* Joint point not on a node of the beam (nodes at 0, L/2, L). */
    pkm_joint_desc jd = {.name = "stray joint",
                         .type = PKM_JOINT_CLAMPED,
                         .body_a = PKM_GROUND,
                         .body_b = 0,
                         .point = {L / 3.0, 0, 0}};
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_add_joint(m, &jd, NULL, &ctx), PKM_ERR_MODEL);
    assert_int_equal(ctx.status, PKM_ERR_MODEL);
    assert_non_null(strstr(ctx.msg, "stray joint"));

    /* Joint to a body that does not exist. */
    jd.name = "ghost joint";
    jd.body_b = 7;
    jd.point[0] = L;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_add_joint(m, &jd, NULL, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "ghost joint"));

    /* Zero-length segment. */
    const double pts[3][3] = {{0, 1, 0}, {0.2, 1, 0}, {0.2, 1, 0}};
    pkm_beam_desc bd = {.name = "degenerate",
                        .npoints = 3,
                        .points = pts,
                        .zref = {0, 0, 1},
                        .section = s,
                        .material = mat};
    pkm_ctx_clear(&ctx);
    int before = pkm_model_body_count(m);
    assert_int_equal(pkm_model_add_beam(m, &bd, NULL, &ctx), PKM_ERR_MODEL);
    assert_int_equal(pkm_model_body_count(m), before);

    /* Zero section area. */
    bd.npoints = 2;
    bd.section.A = 0.0;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_add_beam(m, &bd, NULL, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "degenerate"));

    /* A body joined to nothing: the virtual tree cannot reach it from the ground. */
    const double a[3] = {0, 1, 0}, b[3] = {0.3, 1, 0};
    add_beam(m, "floating link", a, b, 1, s, mat);
    pkm_pencil *p = NULL;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_assemble(m, PKM_FORM_TREE, &p, NULL, &ctx), PKM_ERR_MODEL);
    assert_null(p);
    assert_non_null(strstr(ctx.msg, "floating link"));

    /* Platform must be a rigid body. */
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_set_platform(m, 0, &ctx), PKM_ERR_INVALID);

    /* NULL-safe destruction, pointers reset. */
    pkm_model_destroy(&m);
    assert_null(m);
    pkm_model_destroy(&m);
    pkm_model_destroy(NULL);
    pkm_pencil_destroy(&p);
    pkm_pencil_destroy(NULL);
}

/* 7. Pencil storage of NaVARo in both formulations: well-formed upper CSC, K and M symmetric
 * positive semi-definite diagonals, every column holding its diagonal. */
static void test_pencil_storage(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_navaro_params par = navaro_defaults();
    const double pose[3] = {0.02, -0.01, 0.1};
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_navaro_build(&par, pose, &m, &ctx), &ctx);
    for (int f = 0; f < 2; f++) {
        pkm_pencil *p = NULL;
        assert_pkm_ok(pkm_assemble(m, forms[f], &p, NULL, &ctx), &ctx);
        check_storage(p);
        /* upper storage: at most n (n + 1) / 2 entries */
        assert_true(p->nnz <= p->n * (p->n + 1) / 2);
        pkm_pencil_destroy(&p);
        assert_null(p);
    }
    pkm_model_destroy(&m);
}

/* Beam along x of length L in 8 elements, a spherical joint to the ground at x = 0 and, at
 * x = L, a spherical joint (spin = 1: the beam can spin about its own axis, a mechanism) or a
 * clamped one (spin = 0). */
static pkm_model *spin_beam(int spin, double L, pkm_section s, pkm_material mat)
{
    pkm_model *m = new_model();
    const double a[3] = {0, 0, 0}, b[3] = {L, 0, 0};
    int beam = add_beam(m, "spinning link", a, b, 8, s, mat);
    add_joint(m, "left ball", PKM_JOINT_SPHERICAL, PKM_GROUND, beam, a, 0);
    add_joint(m, "right end", spin ? PKM_JOINT_SPHERICAL : PKM_JOINT_CLAMPED, beam, PKM_GROUND, b,
              0);
    return m;
}

/* 8. A mechanism mode is reported as singular, with the mode, never as a 0 Hz frequency: the
 * beam on two ball joints spins freely about its axis. The refused mode has no strain energy
 * (x^T K x ~ eps ||K|| ||x||^2); with zero modes allowed, the next ones are the pinned-pinned
 * bending pair (Blevins table 8-1, beta L = pi), in both formulations. */
static void test_mechanism_singular(void **state)
{
    (void)state;
    const double L = 0.4;
    const pkm_section s = circle(0.01);
    const pkm_material mat = steel(7900.0);
    const double w_pp = eb_omega(PI, L, s, mat, s.Iz);
    pkm_model *m = spin_beam(1, L, s, mat);
    for (int f = 0; f < 2; f++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        pkm_modal_opts o = pkm_modal_opts_default();
        o.nev = 3;
        pkm_analysis *an = NULL;
        assert_pkm_ok(pkm_analysis_create(forms[f], PKM_EIG_ARPACK, &o, &an, &ctx), &ctx);
        const pkm_modes *md = NULL;
        assert_int_equal(pkm_analysis_solve(an, m, &md, NULL, &ctx), PKM_ERR_SINGULAR);
        assert_non_null(md);
        assert_int_equal(md->zero_modes, 1);
        assert_non_null(strstr(ctx.msg, "mode 1 is"));
        assert_non_null(strstr(ctx.msg, "mechanism"));
        print_message("%s: %s\n", forms[f] == PKM_FORM_TREE ? "tree" : "nodal", ctx.msg);
        /* Strain energy of the refused mode, from the pencil itself. */
        pkm_pencil *p = NULL;
        assert_pkm_ok(pkm_assemble(m, forms[f], &p, NULL, &ctx), &ctx);
        assert_int_equal(p->n, md->n);
        double *kx = calloc((size_t)p->n, sizeof(double));
        assert_non_null(kx);
        pkm_pencil_matvec(p, 'K', md->vectors, kx);
        double xkx = 0.0, xx = 0.0, kmax = 0.0;
        for (int64_t i = 0; i < p->n; i++) {
            xkx += md->vectors[i] * kx[i];
            xx += md->vectors[i] * md->vectors[i];
        }
        for (int64_t q = 0; q < p->nnz; q++)
            kmax = fmax(kmax, fabs(p->k[q]));
        assert_true(fabs(xkx) <= 1e-12 * kmax * xx);
        free(kx);
        pkm_pencil_destroy(&p);
        pkm_analysis_destroy(&an);

        /* The same model with zero-energy modes allowed: spin, then the bending pair. */
        o.allow_zero_modes = 1;
        assert_pkm_ok(pkm_analysis_create(forms[f], PKM_EIG_ARPACK, &o, &an, &ctx), &ctx);
        assert_pkm_ok(pkm_analysis_solve(an, m, &md, NULL, &ctx), &ctx);
        assert_int_equal(md->zero_modes, 1);
        assert_close(sqrt(md->omega2[1]), w_pp, 1e-4, 0.0);
        assert_close(sqrt(md->omega2[2]), w_pp, 1e-4, 0.0);
        pkm_analysis_destroy(&an);

        /* The dense path refuses the same mode. */
        o.allow_zero_modes = 0;
        assert_pkm_ok(pkm_analysis_create(forms[f], PKM_EIG_DENSE, &o, &an, &ctx), &ctx);
        assert_int_equal(pkm_analysis_solve(an, m, &md, NULL, &ctx), PKM_ERR_SINGULAR);
        assert_non_null(md);
        assert_int_equal(md->zero_modes, 1);
        pkm_analysis_destroy(&an);
    }
    pkm_model_destroy(&m);
}

/* The spin_beam mechanism as a one-coordinate case: pose[0] > 0.5 makes it spin. */
static pkm_status spin_case_build(const void *params, const double *pose, pkm_model **out,
                                  pkm_ctx *ctx)
{
    (void)params;
    (void)ctx;
    *out = spin_beam(pose[0] > 0.5, 0.4, circle(0.01), steel(7900.0));
    return PKM_OK;
}

/* 9. A map sweep records the mechanism pose as PKM_POSE_SINGULAR and the other as OK. */
static void test_sweep_records_singular(void **state)
{
    (void)state;
    static const char *const names[] = {"spin"}, *const units[] = {"-"};
    static const double home[] = {0.0};
    const pkm_case c = {.name = "spin beam",
                        .npose = 1,
                        .pose_names = names,
                        .pose_units = units,
                        .home = home,
                        .build = spin_case_build};
    for (int f = 0; f < 2; f++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        pkm_map map;
        pkm_map_init(&map);
        snprintf(map.case_name, sizeof(map.case_name), "%s", c.name);
        map.npose = 1;
        snprintf(map.pose_names[0], sizeof(map.pose_names[0]), "spin");
        map.naxes = 1;
        snprintf(map.axes[0].name, sizeof(map.axes[0].name), "spin");
        snprintf(map.axes[0].unit, sizeof(map.axes[0].unit), "-");
        map.axes[0].count = 3;
        map.axes[0].start = 0.0;
        map.axes[0].stop = 1.0; /* spin = 0, 0.5 (no mechanism), 1 (mechanism) */
        map.nev = 2;
        map.formulation = forms[f];
        map.eigensolver = PKM_EIG_ARPACK;
        map.opts = pkm_modal_opts_default();
        map.opts.nev = 2;
        assert_pkm_ok(pkm_map_alloc(&map, &ctx), &ctx);
        const pkm_sweep_opts so = pkm_sweep_opts_default();
        assert_pkm_ok(pkm_map_sweep(&c, NULL, &map, &so, &ctx), &ctx);
        assert_int_equal(map.status[0], PKM_POSE_OK);
        assert_int_equal(map.status[1], PKM_POSE_OK);
        assert_int_equal(map.status[2], PKM_POSE_SINGULAR);
        assert_true(map.freq_hz[0] > 0.0);
        assert_true(isnan(map.freq_hz[4]) && isnan(map.freq_hz[5]));
        pkm_map_free(&map);
    }
}

/* 10. The assembly cache (scatter map) gives the values and the pattern of a fresh assembly, bit
 * for bit, over a NaVARo sweep that starts at the symmetric pose (where some entries vanish and
 * appear later), passes the same poses again and changes topology (elements per link), in both
 * formulations; a pose assembled twice in a row records once (the second is scatter only). Some
 * steps change a section, the material or the link length (as a model update does between two
 * solves): the element matrices the tree formulation keeps from pose to pose must follow. */
static void test_assembly_cache(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double poses[6][3] = {{0.0, 0.0, 0.0}, {0.01, 0.0, 0.0},   {0.02, -0.03, 0.1},
                                {0.0, 0.0, 0.0}, {-0.04, 0.05, 0.0}, {0.03, 0.01, -0.2}};
    for (int f = 0; f < 2; f++) {
        pkm_asm_cache *cache = NULL;
        assert_pkm_ok(pkm_asm_cache_create(&cache, &ctx), &ctx);
        int64_t records[3] = {0, 0, 0};
        for (int step = 0; step < 18; step++) {
            pkm_navaro_params par = navaro_defaults();
            par.elements_per_link = step < 12 ? 1 : 2;
            if (step % 4 == 1) par.leg_section.Iz *= 1.5;
            if (step % 4 == 2) par.material.rho *= 0.75;
            if (step % 5 == 3) par.link_length *= 1.01;
            if (step % 7 == 4) par.mass_flags ^= PKM_FEM_ROTARY_INERTIA;
            pkm_model *m = NULL;
            assert_pkm_ok(pkm_navaro_build(&par, poses[step % 6], &m, &ctx), &ctx);
            pkm_pencil *ref = NULL;
            const pkm_pencil *p = NULL;
            int64_t version = 0;
            pkm_assembly_info ia, ib;
            assert_pkm_ok(pkm_assemble(m, forms[f], &ref, &ia, &ctx), &ctx);
            assert_pkm_ok(pkm_assemble_cached(m, forms[f], cache, &p, &version, &ib, &ctx), &ctx);
            const int64_t recorded = cache->records, v0 = version;
            assert_pkm_ok(pkm_assemble_cached(m, forms[f], cache, &p, &version, &ib, &ctx), &ctx);
            assert_int_equal(cache->records, recorded);
            assert_int_equal(version, v0);
            assert_int_equal(ia.n_reduced, ib.n_reduced);
            assert_int_equal(p->n, ref->n);
            check_storage(p);
            /* The pattern is the pose's own, not a union over the poses seen (issue 8). */
            assert_int_equal(p->nnz, ref->nnz);
            for (int64_t j = 0; j <= p->n; j++)
                assert_int_equal(p->colptr[j], ref->colptr[j]);
            for (int64_t q = 0; q < p->nnz; q++) {
                assert_int_equal(p->rowind[q], ref->rowind[q]);
                assert_true(p->k[q] == ref->k[q] && p->m[q] == ref->m[q]);
            }
            pkm_pencil_destroy(&ref);
            pkm_model_destroy(&m);
            records[step / 6] = cache->records;
        }
        print_message("%s: recording passes after 6, 12, 18 poses: %lld, %lld, %lld\n",
                      f ? "nodal" : "tree", (long long)records[0], (long long)records[1],
                      (long long)records[2]);
        assert_in_range(records[0], 1, 6);
        assert_true(records[2] > records[1]); /* new topology: recorded */
        pkm_asm_cache_destroy(&cache);
        assert_null(cache);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formulations_agree_navaro),
        cmocka_unit_test(test_cantilever),
        cmocka_unit_test(test_clamped_clamped_loop),
        cmocka_unit_test(test_tip_mass),
        cmocka_unit_test(test_tip_point_mass),
        cmocka_unit_test(test_pinned_pinned),
        cmocka_unit_test(test_mid_hinge),
        cmocka_unit_test(test_rigid_in_loop),
        cmocka_unit_test(test_model_errors),
        cmocka_unit_test(test_pencil_storage),
        cmocka_unit_test(test_mechanism_singular),
        cmocka_unit_test(test_sweep_records_singular),
        cmocka_unit_test(test_assembly_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
