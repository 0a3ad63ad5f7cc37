/* tests/test_joints.c: joint springs, rotor inertias and lumped masses (issue 12, items 1-2) in
 * both formulations, against closed forms and limit cases.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * References: a rigid body on a torsion spring, w^2 = k / J_pivot; a beam with a tip mass,
 * 1 + cos b cosh b + mu b (cos b sinh b - sin b cosh b) = 0 with mu the mass ratio (Blevins,
 * "Formulas for natural frequency and mode shape", 1979, table 8-1, case 4 without rotary
 * inertia); the kinetic energy of a point mass with a rotary inertia under a rigid rotation. */
#include "navaro_defaults.h"
#include "test_util.h"

#include "pkm/io.h"

#include <stdlib.h>
#include <string.h>

#define TABLE3 PKM_SOURCE_DIR "/cases/navaro/table3_cast3m.csv"

static const pkm_formulation forms[2] = {PKM_FORM_TREE, PKM_FORM_NODAL};

static pkm_model *model_new(void)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    return m;
}

/* A joint about global z (revolute) at pt, with a stiffness on its free motion. */
static int joint_z(pkm_model *m, pkm_joint_type type, int a, int b, const double pt[3], int cut,
                   double k)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_joint_desc d = {.type = type,
                              .body_a = a,
                              .body_b = b,
                              .point = {pt[0], pt[1], pt[2]},
                              .axis = {0, 0, 1},
                              .cut = cut,
                              .stiffness = {k}};
    int id = -1;
    assert_pkm_ok(pkm_model_add_joint(m, &d, &id, &ctx), &ctx);
    return id;
}

/* An aluminium strip from a to b in ne elements, 10 mm in plane, 24 mm out of plane. */
static int strip(pkm_model *m, const double a[3], const double b[3], int ne, unsigned mass_flags)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double pts[2][3] = {{a[0], a[1], a[2]}, {b[0], b[1], b[2]}};
    const pkm_beam_desc d = {
        .npoints = 2,
        .points = pts,
        .nelem = &ne,
        .zref = {0, 0, 1},
        .section = {.A = 2.4e-4, .Iy = 1.152e-8, .Iz = 2e-9, .I0 = 5.9e-9, .Ip = 1.352e-8},
        .material = {.E = 7.4e10, .G = 2.78e10, .rho = 2800.0},
        .mass_flags = mass_flags};
    int id = -1;
    assert_pkm_ok(pkm_model_add_beam(m, &d, &id, &ctx), &ctx);
    return id;
}

/* A rigid body (mass mb, centre r from the pivot, Jzz about the centre) on a revolute joint about
 * z to the ground with a stiffness k and a rotor inertia Jr: one coordinate, w^2 = k / (Jzz +
 * mb |r|^2 + Jr). A spring about a tilted axis (0, sin a, cos a) holds the rotation about z with
 * k cos^2 a; one about x holds nothing and is refused. */
static void test_single_dof(void **state)
{
    (void)state;
    const double mb = 1.7, r[3] = {0.3, -0.2, 0.1}, Jzz = 0.02, Jr = 0.013, k = 850.0, a = 0.4;
    const double Jp = Jzz + mb * (r[0] * r[0] + r[1] * r[1]) + Jr;
    for (int variant = 0; variant < 2; variant++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        pkm_model *m = model_new();
        pkm_rigid_desc rd = {.mass = mb, .com = {r[0], r[1], r[2]}};
        rd.inertia[0][0] = rd.inertia[1][1] = 0.05;
        rd.inertia[2][2] = Jzz;
        int b = -1;
        assert_pkm_ok(pkm_model_add_rigid(m, &rd, &b, &ctx), &ctx);
        const pkm_joint_desc jd = {.type = PKM_JOINT_REVOLUTE,
                                   .body_a = PKM_GROUND,
                                   .body_b = b,
                                   .axis = {0, 0, 1},
                                   .stiffness = {variant == 0 ? k : 0.0},
                                   .rotor_inertia = {Jr}};
        int j = -1;
        assert_pkm_ok(pkm_model_add_joint(m, &jd, &j, &ctx), &ctx);
        double ex = k / Jp;
        if (variant == 1) {
            const double tilted[3] = {0.0, sin(a), cos(a)}, x[3] = {2.0, 0.0, 0.0};
            assert_pkm_ok(pkm_model_add_joint_spring(m, j, PKM_SPRING_TORSION, tilted, k, &ctx),
                          &ctx);
            assert_int_equal(pkm_model_add_joint_spring(m, j, PKM_SPRING_TORSION, x, k, &ctx),
                             PKM_ERR_INVALID);
            assert_int_equal(pkm_model_add_joint_spring(m, j, PKM_SPRING_LINEAR, tilted, k, &ctx),
                             PKM_ERR_INVALID);
            ex = k * cos(a) * cos(a) / Jp;
        }
        for (int f = 0; f < 2; f++) { /* a 1 x 1 pencil: w^2 = K / M */
            pkm_pencil *p = NULL;
            assert_pkm_ok(pkm_assemble(m, forms[f], &p, NULL, &ctx), &ctx);
            assert_int_equal(p->n, 1);
            assert_close(p->k[0] / p->m[0], ex, 1e-13, 0.0);
            pkm_pencil_destroy(&p);
        }
        pkm_model_destroy(&m);
    }
}

/* A portal frame: columns from (0, 0) and (L, 0) to height H, clamped to the ground; the beam
 * across welded to the right column and joined to the left one by a revolute joint about z with
 * a torsion spring k (opened in the virtual tree, so that the spring sits on a cut joint's
 * coordinate); welded: the welded frame instead. */
static pkm_model *portal(double k, int welded)
{
    const double L = 0.4, H = 0.3, o[3] = {0, 0, 0}, a[3] = {0, H, 0}, b[3] = {L, H, 0},
                 g[3] = {L, 0, 0};
    pkm_model *m = model_new();
    const int c1 = strip(m, o, a, 4, 0), c2 = strip(m, g, b, 4, 0), beam = strip(m, a, b, 4, 0);
    joint_z(m, PKM_JOINT_CLAMPED, PKM_GROUND, c1, o, 0, 0.0);
    joint_z(m, PKM_JOINT_CLAMPED, PKM_GROUND, c2, g, 0, 0.0);
    joint_z(m, PKM_JOINT_CLAMPED, c2, beam, b, 0, 0.0);
    joint_z(m, welded ? PKM_JOINT_CLAMPED : PKM_JOINT_REVOLUTE, c1, beam, a, 1, k);
    return m;
}

/* The frame's in-plane modes move monotonically from the hinged frame (k -> 0) to the welded one
 * (k -> inf), the distance to either limit falling like k (resp. 1 / k); both formulations agree
 * to 1e-9 at every k. EI / L of the strip is about 370 N m/rad. */
static void test_frame_limits(void **state)
{
    (void)state;
    enum { NEV = 6 };
    const double ks[] = {0.0, 1e-4, 1e-1, 3.7e2, 1e5, 1e8};
    const int nk = (int)(sizeof(ks) / sizeof(ks[0]));
    double w[6][2][NEV], weld[2][NEV];
    for (int f = 0; f < 2; f++) {
        pkm_model *m = portal(0.0, 1);
        model_lowest(m, forms[f], NEV, weld[f], NULL);
        pkm_model_destroy(&m);
        for (int i = 0; i < nk; i++) {
            m = portal(ks[i], 0);
            model_lowest(m, forms[f], NEV, w[i][f], NULL);
            pkm_model_destroy(&m);
        }
    }
    double near0 = 0.0, nearinf = 0.0;
    for (int q = 0; q < NEV; q++) {
        for (int i = 0; i < nk; i++) {
            assert_close(w[i][0][q], w[i][1][q], 1e-9, 0.0);
            if (i > 0) assert_true(w[i][1][q] >= w[i - 1][1][q] * (1.0 - 1e-12));
            assert_true(w[i][1][q] <= weld[1][q] * (1.0 + 1e-12));
        }
        assert_close(weld[0][q], weld[1][q], 1e-9, 0.0);
        near0 = fmax(near0, fabs(w[1][1][q] - w[0][1][q]) / w[0][1][q]);
        nearinf = fmax(nearinf, fabs(w[nk - 1][1][q] - weld[1][q]) / weld[1][q]);
    }
    /* k = 1e-4 N m/rad is 3e-7 EI / L: the hinge to that order; 1e8 N m/rad is 3e5 EI / L. */
    assert_true(near0 < 1e-6);
    assert_true(nearinf < 1e-5);
    /* the spring matters in between: the first mode moves by more than 1 % */
    assert_true(w[3][1][0] > 1.01 * w[0][1][0] && w[3][1][0] < 0.99 * weld[1][0]);
    print_message("portal frame: k = 1e-4 within %.1e of the hinge, k = 1e8 within %.1e of the "
                  "welded frame\n",
                  near0, nearinf);
}

/* First root of the tip-mass frequency equation above b0 (bisection, the sign changes once in
 * each bracket of width 0.5 scanned). */
static double tip_mass_root(double mu, double b0)
{
    double lo = b0, hi = b0 + 0.05;
#define TIPF(b) (1.0 + cos(b) * cosh(b) + mu * (b) * (cos(b) * sinh(b) - sin(b) * cosh(b)))
    while (TIPF(lo) * TIPF(hi) > 0.0)
        lo = hi, hi += 0.05;
    for (int it = 0; it < 200; it++) {
        const double mid = 0.5 * (lo + hi);
        if (TIPF(lo) * TIPF(mid) <= 0.0)
            hi = mid;
        else
            lo = mid;
    }
#undef TIPF
    return 0.5 * (lo + hi);
}

/* A cantilever of 64 elements (no section rotary inertia) with a point mass at its tip, carried
 * through a joint to a massless rigid cap: the first two in-plane bending modes against the
 * frequency equation, to 1e-6 (the mesh's own error is about 1e-8 there). */
static void test_tip_mass(void **state)
{
    (void)state;
    const double L = 0.5, o[3] = {0, 0, 0}, tip[3] = {L, 0, 0}, mu = 0.7;
    const double rhoA = 2800.0 * 2.4e-4, EI = 7.4e10 * 2e-9;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int f = 0; f < 2; f++) {
        pkm_model *m = model_new();
        const int beam = strip(m, o, tip, 64, 0);
        joint_z(m, PKM_JOINT_CLAMPED, PKM_GROUND, beam, o, 0, 0.0);
        const pkm_rigid_desc cap = {.origin = {L, 0, 0}, .com = {L, 0, 0}};
        int c = -1;
        assert_pkm_ok(pkm_model_add_rigid(m, &cap, &c, &ctx), &ctx);
        const int j = joint_z(m, PKM_JOINT_CLAMPED, beam, c, tip, 0, 0.0);
        const pkm_mass_desc md = {.joint = j, .side = 0, .mass = mu * rhoA * L};
        assert_pkm_ok(pkm_model_add_mass(m, &md, NULL, &ctx), &ctx);
        double w2[3];
        model_lowest(m, forms[f], 3, w2, NULL);
        /* in-plane (Iz) modes 1 and 2; the out-of-plane ones (Iy = 5.76 Iz) lie between */
        const double b1 = tip_mass_root(mu, 0.5), b2 = tip_mass_root(mu, b1 + 0.1);
        const double ex1 = pow(b1, 4) * EI / (rhoA * pow(L, 4));
        const double ex2 = pow(b2, 4) * EI / (rhoA * pow(L, 4));
        assert_close(sqrt(w2[0]), sqrt(ex1), 1e-6, 0.0);
        assert_close(sqrt(w2[2]), sqrt(ex2), 1e-6, 0.0);
        print_message("%s: tip mass mu = %.1f, f1 rel. error %.1e, f2 %.1e\n",
                      f == 0 ? "tree" : "nodal", mu, fabs(sqrt(w2[0] / ex1) - 1.0),
                      fabs(sqrt(w2[2] / ex2) - 1.0));
        pkm_model_destroy(&m);
    }
}

/* x^T M x of an upper-CSC pencil. */
static double mass_energy(const pkm_pencil *p, const double *x)
{
    double e = 0.0;
    for (int64_t c = 0; c < p->n; c++)
        for (int64_t q = p->colptr[c]; q < p->colptr[c + 1]; q++)
            e += (p->rowind[q] == c ? 1.0 : 2.0) * p->m[q] * x[p->rowind[q]] * x[c];
    return e;
}

/* A massless rigid arm on a spherical joint at O, a massless cap welded to it at r carrying a
 * lumped mass with a full rotary inertia: under the rigid rotation w about O (the spherical
 * joint's coordinates) x^T M x = m |w x (r - O)|^2 + w^T I w exactly, in both formulations. */
static void test_mass_kinetic_energy(void **state)
{
    (void)state;
    const double O[3] = {0.1, 0.2, 0.3}, r[3] = {0.5, -0.2, 0.4}, mass = 2.5;
    const double I[3][3] = {{0.3, 0.01, -0.02}, {0.01, 0.2, 0.03}, {-0.02, 0.03, 0.25}};
    const double w[3] = {0.7, -1.1, 0.4};
    double v[3], d[3] = {r[0] - O[0], r[1] - O[1], r[2] - O[2]}, Iw = 0.0;
    v[0] = w[1] * d[2] - w[2] * d[1];
    v[1] = w[2] * d[0] - w[0] * d[2];
    v[2] = w[0] * d[1] - w[1] * d[0];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            Iw += w[a] * I[a][b] * w[b];
    const double ex = mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + Iw;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = model_new();
    const pkm_rigid_desc arm = {.origin = {O[0], O[1], O[2]}, .com = {O[0], O[1], O[2]}};
    const pkm_rigid_desc cap = {.origin = {r[0], r[1], r[2]}, .com = {r[0], r[1], r[2]}};
    int a = -1, c = -1, js = -1, jc = -1;
    assert_pkm_ok(pkm_model_add_rigid(m, &arm, &a, &ctx), &ctx);
    assert_pkm_ok(pkm_model_add_rigid(m, &cap, &c, &ctx), &ctx);
    const pkm_joint_desc sph = {.type = PKM_JOINT_SPHERICAL,
                                .body_a = PKM_GROUND,
                                .body_b = a,
                                .point = {O[0], O[1], O[2]}};
    const pkm_joint_desc weld = {
        .type = PKM_JOINT_CLAMPED, .body_a = a, .body_b = c, .point = {r[0], r[1], r[2]}};
    assert_pkm_ok(pkm_model_add_joint(m, &sph, &js, &ctx), &ctx);
    assert_pkm_ok(pkm_model_add_joint(m, &weld, &jc, &ctx), &ctx);
    pkm_mass_desc md = {.joint = jc, .side = 1, .mass = mass};
    memcpy(md.inertia, I, sizeof(I));
    assert_pkm_ok(pkm_model_add_mass(m, &md, NULL, &ctx), &ctx);
    for (int f = 0; f < 2; f++) {
        pkm_pencil *p = NULL;
        pkm_dofmap *map = NULL;
        assert_pkm_ok(pkm_assemble(m, forms[f], &p, NULL, &ctx), &ctx);
        assert_pkm_ok(pkm_dofmap_create(m, forms[f], &map, &ctx), &ctx);
        int nf = 0;
        const int64_t c0 = pkm_dofmap_joint_coordinate(map, js, &nf);
        assert_int_equal(nf, 3);
        double *x = calloc((size_t)p->n, sizeof(double));
        assert_non_null(x);
        for (int k = 0; k < 3; k++)
            x[c0 + k] = w[k];
        assert_close(mass_energy(p, x), ex, 1e-14, 0.0);
        free(x);
        pkm_dofmap_destroy(&map);
        pkm_pencil_destroy(&p);
    }
    /* a mass on the ground side of a joint, or at a joint that does not exist, is refused */
    md.joint = js;
    md.side = 0;
    assert_int_equal(pkm_model_add_mass(m, &md, NULL, &ctx), PKM_ERR_INVALID);
    md.joint = 7;
    assert_int_equal(pkm_model_add_mass(m, &md, NULL, &ctx), PKM_ERR_INVALID);
    pkm_model_destroy(&m);
}

/* Bad springs: negative, on a clamped joint, past the joint's free motions. */
static void test_spring_errors(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = model_new();
    const double o[3] = {0, 0, 0}, b[3] = {1, 0, 0};
    const int beam = strip(m, o, b, 1, 0);
    pkm_joint_desc d = {.type = PKM_JOINT_CLAMPED,
                        .body_a = PKM_GROUND,
                        .body_b = beam,
                        .axis = {0, 0, 1},
                        .stiffness = {10.0}};
    assert_int_equal(pkm_model_add_joint(m, &d, NULL, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "free motion 1"));
    d.type = PKM_JOINT_REVOLUTE;
    d.stiffness[0] = -1.0;
    assert_int_equal(pkm_model_add_joint(m, &d, NULL, &ctx), PKM_ERR_INVALID);
    d.stiffness[0] = 1.0;
    d.rotor_inertia[1] = 1.0;
    assert_int_equal(pkm_model_add_joint(m, &d, NULL, &ctx), PKM_ERR_INVALID);
    assert_int_equal(pkm_model_joint_count(m), 0);
    pkm_model_destroy(&m);
}

/* NaVARo with elastic clutches and joint masses (every parameter of issue 12, item 3, set to a
 * different value): tree and nodal agree to 1e-9 on 20 eigenvalues at the eight Table 3 poses,
 * and every frequency lies below the locked, massless model's. */
static void test_navaro_tree_nodal(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_table *t = NULL;
    assert_pkm_ok(pkm_table_read(TABLE3, 3, &t, &ctx), &ctx);
    pkm_navaro_params par = navaro_defaults();
    const pkm_navaro_params locked = par;
    par.clutch_k[0] = 2000.0;
    par.clutch_k[1] = 1500.0;
    const double masses[5] = {0.3, 0.25, 0.35, 0.2, 0.4};
    memcpy(par.joint_mass, masses, sizeof(masses));
    double worst = 0.0;
    for (int r = 0; r < t->nrows; r++) {
        double w[3][20];
        for (int f = 0; f < 3; f++) {
            pkm_pencil *p = case_pencil("navaro", f < 2 ? &par : &locked, t->pose + 3 * r,
                                        f < 2 ? forms[f] : PKM_FORM_TREE, NULL);
            pkm_modes *md = solved_modes(p, 20, 0);
            memcpy(w[f], md->omega2, sizeof(w[f]));
            pkm_modes_destroy(&md);
            pkm_pencil_destroy(&p);
        }
        for (int k = 0; k < 20; k++) {
            assert_close(w[0][k], w[1][k], 1e-9, 0.0);
            assert_true(w[0][k] < w[2][k]);
            worst = fmax(worst, fabs(w[0][k] - w[1][k]) / w[1][k]);
        }
    }
    print_message("navaro with clutches and joint masses, tree vs nodal, 8 poses x 20: max rel "
                  "diff %.2e\n",
                  worst);
    pkm_table_destroy(&t);
}

/* The 5-PSS/UPU's locked drives become drive springs (motor.k) with a rotor (motor.J): 1e12
 * N m/rad is the locked model to 1e-6, 2000 N m/rad lowers every frequency, a rotor inertia
 * lowers them further. */
static void test_pss5upu_drive_spring(void **state)
{
    (void)state;
    enum { NEV = 6 };
    const pkm_case *c = pkm_case_find("pss5upu");
    pkm_pss5upu_params par;
    case_defaults("pss5upu", &par, sizeof(par));
    const double pose[5] = {0.05, 0, 0, 0, 0}, k[3] = {1e12, 2000.0, 2000.0},
                 J[3] = {0.0, 0.0, 1e-4};
    double w[4][NEV];
    for (int v = 0; v < 4; v++) {
        if (v > 0) par.motor_k = k[v - 1], par.motor_inertia = J[v - 1];
        pkm_pencil *p = case_pencil("pss5upu", &par, pose, c->formulation, NULL);
        pkm_modes *md = solved_modes(p, NEV, 0);
        memcpy(w[v], md->omega2, sizeof(w[v]));
        pkm_modes_destroy(&md);
        pkm_pencil_destroy(&p);
    }
    for (int q = 0; q < NEV; q++) {
        assert_close(w[1][q], w[0][q], 1e-6, 0.0);
        assert_true(w[2][q] < w[0][q] && w[3][q] < w[2][q]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_dof),
        cmocka_unit_test(test_frame_limits),
        cmocka_unit_test(test_tip_mass),
        cmocka_unit_test(test_mass_kinetic_energy),
        cmocka_unit_test(test_spring_errors),
        cmocka_unit_test(test_navaro_tree_nodal),
        cmocka_unit_test(test_pss5upu_drive_spring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
