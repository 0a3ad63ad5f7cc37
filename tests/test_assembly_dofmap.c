/* tests/test_assembly_dofmap.c: the dof map (pkm/dofmap.h) of both formulations and the
 * formulation type table.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * P is checked against the assembled pencil by a second path (the element energies of the nodal
 * 12x12 kernels on the prolonged displacements), against the joints' definition (u_b - u_a =
 * S d), across the two formulations (the same mode shapes of NaVARo) and on a free-floating
 * structure (a zero-energy mode is a rigid displacement field). */
#include "navaro_defaults.h"
#include "test_util.h"

#include "pkm/analysis.h"
#include "pkm/assembly.h"
#include "pkm/cases.h"
#include "pkm/dofmap.h"
#include "pkm/fem.h"
#include "pkm/io.h"
#include "pkm/spatial.h"

#include <stdlib.h>
#include <string.h>

#define PI     3.14159265358979323846
#define TABLE3 PKM_SOURCE_DIR "/cases/navaro/table3_cast3m.csv"

/* NaVARo at Table 3 pose 1 (a pose with a double eigenvalue: threefold symmetry). */
static pkm_model *navaro_pose1(void)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_table *t = NULL;
    assert_pkm_ok(pkm_table_read(TABLE3, 3, &t, &ctx), &ctx);
    const pkm_navaro_params par = navaro_defaults();
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_navaro_build(&par, t->pose, &m, &ctx), &ctx);
    pkm_table_destroy(&t);
    return m;
}

/* Deterministic pseudo-random numbers in [-1, 1) (xorshift64). */
static double rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

static double dot(const double *a, const double *b, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* x^T A x for the upper CSC values a of p. */
static double quad(const pkm_pencil *p, const double *a, const double *x)
{
    double s = 0.0;
    for (int64_t j = 0; j < p->n; j++)
        for (int64_t q = p->colptr[j]; q < p->colptr[j + 1]; q++)
            s += (p->rowind[q] == j ? 1.0 : 2.0) * x[p->rowind[q]] * a[q] * x[j];
    return s;
}

/* The elastic and kinetic energies 2 U = u^T K u, 2 T = u^T M u of the nodal displacements u by
 * the element kernels in global axes (beams: pkm_fem_beam3d_*, rotated; rigid bodies: spatial
 * inertia at their reference node): the assembly's sums by another path. Cubic beams only. */
static void nodal_energies(const pkm_model *m, const double *u, double *ek, double *em)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    *ek = *em = 0.0;
    for (int e = 0; e < pkm_model_element_count(m); e++) {
        const pkm_elem *el = pkm_model_elem(m, e);
        const pkm_body *b = pkm_model_body(m, el->body);
        double R[3][3], l, K[12][12], M[12][12], ue[12];
        assert_pkm_ok(pkm_fem_beam3d_frame(pkm_model_node(m, el->n1)->x,
                                           pkm_model_node(m, el->n2)->x, b->zref, R, &l, &ctx),
                      &ctx);
        pkm_fem_beam3d_stiffness(&b->section, &b->material, l, K);
        pkm_fem_beam3d_mass(&b->section, &b->material, l, b->mass_flags, M);
        pkm_fem_rotate12(R, K, K);
        pkm_fem_rotate12(R, M, M);
        memcpy(ue, u + 6 * el->n1, sizeof(double) * 6);
        memcpy(ue + 6, u + 6 * el->n2, sizeof(double) * 6);
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 12; j++) {
                *ek += ue[i] * K[i][j] * ue[j];
                *em += ue[i] * M[i][j] * ue[j];
            }
    }
    for (int bi = 0; bi < pkm_model_body_count(m); bi++) {
        const pkm_body *b = pkm_model_body(m, bi);
        if (b->kind != PKM_BODY_RIGID) continue;
        double c[3], Mr[6][6];
        const double *uo = u + 6 * b->first_node;
        pkm_vec3_sub(b->com, pkm_model_node(m, b->first_node)->x, c);
        pkm_spatial_inertia(b->mass, c, b->inertia, Mr);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++)
                *em += uo[i] * Mr[i][j] * uo[j];
    }
}

/* 1. P is the map the matrices were projected with: for random x, x^T K x and x^T M x of the
 * pencil equal the element energies of u = P x, in both formulations; P^T is P's adjoint:
 * x . (P^T f) = (P x) . f for a random nodal load f (the virtual work of a constant load, i.e.
 * the derivative of its potential). */
static void test_dofmap_consistent_with_pencil(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = navaro_pose1();
    const int64_t nu = 6 * (int64_t)pkm_model_node_count(m);
    uint64_t seed = 0x9e3779b97f4a7c15u;
    double worst = 0.0;
    for (int f = 0; f < PKM_FORMULATION_COUNT; f++) {
        pkm_pencil *p = NULL;
        pkm_dofmap *map = NULL;
        assert_pkm_ok(pkm_assemble(m, (pkm_formulation)f, &p, NULL, &ctx), &ctx);
        assert_pkm_ok(pkm_dofmap_create(m, (pkm_formulation)f, &map, &ctx), &ctx);
        assert_int_equal(pkm_dofmap_reduced_count(map), p->n);
        assert_int_equal(pkm_dofmap_node_count(map), pkm_model_node_count(m));
        double *x = malloc(sizeof(double) * (size_t)p->n), *fr = calloc((size_t)p->n, 8);
        double *u = malloc(sizeof(double) * (size_t)nu), *fn = malloc(sizeof(double) * (size_t)nu);
        assert_true(x != NULL && fr != NULL && u != NULL && fn != NULL);
        for (int trial = 0; trial < 3; trial++) {
            for (int64_t i = 0; i < p->n; i++)
                x[i] = rnd(&seed);
            for (int64_t i = 0; i < nu; i++)
                fn[i] = rnd(&seed);
            pkm_dofmap_prolong(map, x, u);
            double ek, em;
            nodal_energies(m, u, &ek, &em);
            assert_close(quad(p, p->k, x), ek, 1e-10, 0.0);
            assert_close(quad(p, p->m, x), em, 1e-10, 0.0);
            worst = fmax(worst, fabs(quad(p, p->k, x) - ek) / ek);
            worst = fmax(worst, fabs(quad(p, p->m, x) - em) / em);
            memset(fr, 0, sizeof(double) * (size_t)p->n);
            pkm_dofmap_restrict(map, fn, fr);
            assert_close(dot(x, fr, p->n), dot(u, fn, nu), 1e-12, 1e-12 * sqrt(dot(fr, fr, p->n)));
        }
        free(x);
        free(fr);
        free(u);
        free(fn);
        pkm_dofmap_destroy(&map);
        pkm_dofmap_destroy(&map); /* NULL-safe */
        pkm_pencil_destroy(&p);
    }
    print_message("NaVARo pose 1, energies through P vs pencil: max rel diff %.2e\n", worst);
    pkm_model_destroy(&m);
}

/* 2. Each joint's free coordinates are its relative motion: u_b - u_a = S d (ground: u = 0),
 * d = x at pkm_dofmap_joint_coordinate, in both formulations (tree: cut joints included, which
 * hold through the closure). */
static void test_dofmap_joint_coordinates(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = navaro_pose1();
    uint64_t seed = 12345;
    for (int f = 0; f < PKM_FORMULATION_COUNT; f++) {
        pkm_dofmap *map = NULL;
        assert_pkm_ok(pkm_dofmap_create(m, (pkm_formulation)f, &map, &ctx), &ctx);
        const int64_t n = pkm_dofmap_reduced_count(map);
        double *x = malloc(sizeof(double) * (size_t)n);
        double *u = malloc(sizeof(double) * 6 * (size_t)pkm_model_node_count(m));
        assert_true(x != NULL && u != NULL);
        for (int64_t i = 0; i < n; i++)
            x[i] = rnd(&seed);
        pkm_dofmap_prolong(map, x, u);
        int with_motion = 0;
        for (int j = 0; j < pkm_model_joint_count(m); j++) {
            const pkm_joint *jt = pkm_model_joint(m, j);
            double S[PKM_JOINT_MAX_FREE][6], rel[6] = {0};
            const int nf = pkm_joint_free_twists(jt, S);
            int nfree = -1;
            const int64_t c = pkm_dofmap_joint_coordinate(map, j, &nfree);
            assert_int_equal(nfree, nf);
            assert_true(nf == 0 ? c == -1 : (c >= 0 && c + nf <= n));
            with_motion += nf > 0;
            for (int k = 0; k < 6; k++) {
                rel[k] = (jt->node[1] >= 0 ? u[6 * jt->node[1] + k] : 0.0) -
                         (jt->node[0] >= 0 ? u[6 * jt->node[0] + k] : 0.0);
                for (int q = 0; q < nf; q++)
                    rel[k] -= S[q][k] * x[c + q];
                assert_close(rel[k], 0.0, 0.0, 1e-12);
            }
        }
        assert_true(with_motion > 0);
        assert_int_equal(pkm_dofmap_joint_coordinate(map, -1, NULL), -1);
        assert_int_equal(pkm_dofmap_joint_coordinate(map, pkm_model_joint_count(m), NULL), -1);
        free(x);
        free(u);
        pkm_dofmap_destroy(&map);
    }
    pkm_model_destroy(&m);
}

/* The nev modes of m as nodal displacements (6 nnodes x nev, column-major) and their w^2. */
static double *mode_fields(const pkm_model *m, pkm_formulation f, pkm_eigensolver eig,
                           int allow_zero, int nev, double *omega2)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    o.allow_zero_modes = allow_zero;
    pkm_analysis *a = NULL;
    const pkm_modes *md = NULL;
    assert_pkm_ok(pkm_analysis_create(f, eig, &o, &a, &ctx), &ctx);
    /* the dof map is kept only when asked */
    assert_int_equal(pkm_analysis_mode_displacements(a, 0, NULL, &ctx), PKM_ERR_INVALID);
    assert_pkm_ok(pkm_analysis_keep_dofmap(a, &ctx), &ctx);
    assert_pkm_ok(pkm_analysis_solve(a, m, &md, NULL, &ctx), &ctx);
    const size_t nu = 6 * (size_t)pkm_model_node_count(m);
    double *u = malloc(sizeof(double) * nu * (size_t)nev);
    assert_non_null(u);
    for (int k = 0; k < nev; k++) {
        omega2[k] = md->omega2[k];
        assert_pkm_ok(pkm_analysis_mode_displacements(a, k, u + nu * (size_t)k, &ctx), &ctx);
    }
    assert_int_equal(pkm_analysis_mode_displacements(a, nev, u, &ctx), PKM_ERR_INVALID);
    assert_non_null(pkm_analysis_dofmap(a));
    pkm_analysis_destroy(&a);
    return u;
}

/* Share of field v (length n) in the span of the nc fields W (column-major, overwritten by an
 * orthonormal basis of their span): ||proj v||^2 / ||v||^2, the MAC against a subspace. */
static double subspace_mac(double *W, int nc, const double *v, int64_t n)
{
    for (int a = 0; a < nc; a++) {
        double *wa = W + (size_t)a * (size_t)n;
        for (int pass = 0; pass < 2; pass++) /* Gram-Schmidt, twice is enough */
            for (int b = 0; b < a; b++) {
                const double *wb = W + (size_t)b * (size_t)n;
                const double c = dot(wa, wb, n);
                for (int64_t i = 0; i < n; i++)
                    wa[i] -= c * wb[i];
            }
        const double s = sqrt(dot(wa, wa, n));
        for (int64_t i = 0; i < n; i++)
            wa[i] /= s;
    }
    double pr = 0.0;
    for (int a = 0; a < nc; a++) {
        const double c = dot(W + (size_t)a * (size_t)n, v, n);
        pr += c * c;
    }
    return pr / dot(v, v, n);
}

/* 2b. A map kept in an assembly cache follows the pose: at NaVARo pose 1 again (the cache's
 * scatter path), then pose 2, it is the map built afresh at that pose, in both formulations. */
static void test_dofmap_kept_in_cache(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_table *tab = NULL;
    assert_pkm_ok(pkm_table_read(TABLE3, 3, &tab, &ctx), &ctx);
    const pkm_navaro_params par = navaro_defaults();
    pkm_model *m[2] = {NULL, NULL};
    for (int r = 0; r < 2; r++)
        assert_pkm_ok(pkm_navaro_build(&par, tab->pose + 3 * r, &m[r], &ctx), &ctx);
    const size_t nu = 6 * (size_t)pkm_model_node_count(m[1]);
    uint64_t seed = 777;
    for (int f = 0; f < PKM_FORMULATION_COUNT; f++) {
        pkm_asm_cache *c = NULL;
        const pkm_pencil *p = NULL;
        int64_t version = 0;
        assert_pkm_ok(pkm_asm_cache_create(&c, &ctx), &ctx);
        assert_pkm_ok(pkm_assemble_cached(m[0], (pkm_formulation)f, c, &p, &version, NULL, &ctx),
                      &ctx);
        assert_null(pkm_asm_cache_dofmap(c)); /* not kept unless asked */
        assert_pkm_ok(pkm_asm_cache_keep_dofmap(c, &ctx), &ctx);
        for (int r = 0; r < 2; r++) {
            /* r = 0: the recorded pose again, through the scatter path */
            assert_pkm_ok(
                pkm_assemble_cached(m[r], (pkm_formulation)f, c, &p, &version, NULL, &ctx), &ctx);
            const pkm_dofmap *kept = pkm_asm_cache_dofmap(c);
            pkm_dofmap *fresh = NULL;
            assert_pkm_ok(pkm_dofmap_create(m[r], (pkm_formulation)f, &fresh, &ctx), &ctx);
            assert_non_null(kept);
            assert_int_equal(pkm_dofmap_reduced_count(kept), p->n);
            double *x = malloc(sizeof(double) * (size_t)p->n), *u = malloc(sizeof(double) * 2 * nu);
            assert_true(x != NULL && u != NULL);
            for (int64_t i = 0; i < p->n; i++)
                x[i] = rnd(&seed);
            pkm_dofmap_prolong(kept, x, u);
            pkm_dofmap_prolong(fresh, x, u + nu);
            assert_memory_equal(u, u + nu, sizeof(double) * nu);
            free(x);
            free(u);
            pkm_dofmap_destroy(&fresh);
        }
        pkm_asm_cache_destroy(&c);
    }
    pkm_model_destroy(&m[0]);
    pkm_model_destroy(&m[1]);
    pkm_table_destroy(&tab);
}

/* 3. The mode shapes leave the library as nodal displacements, the same in both formulations:
 * NaVARo pose 1, 10 modes, each tree mode in the span of the nodal modes of its eigenvalue
 * (f1 = f2 there: a double eigenvalue has no unique basis) with MAC > 0.999999. */
static void test_mode_shapes_agree(void **state)
{
    (void)state;
    enum { NEV = 10 };
    pkm_model *m = navaro_pose1();
    const int64_t nu = 6 * (int64_t)pkm_model_node_count(m);
    double w[2][NEV];
    double *u[2];
    for (int f = 0; f < 2; f++)
        u[f] = mode_fields(m, (pkm_formulation)f, PKM_EIG_ARPACK, 0, NEV, w[f]);
    double *W = malloc(sizeof(double) * (size_t)nu * NEV);
    assert_non_null(W);
    double worst = 1.0;
    int multiple = 0;
    for (int k = 0; k < NEV; k++) {
        int nc = 0;
        for (int j = 0; j < NEV; j++)
            if (fabs(w[1][j] - w[0][k]) <= 1e-6 * w[0][k])
                memcpy(W + (size_t)nc++ * (size_t)nu, u[1] + (size_t)j * (size_t)nu,
                       sizeof(double) * (size_t)nu);
        assert_true(nc >= 1);
        multiple += nc > 1;
        const double mac = subspace_mac(W, nc, u[0] + (size_t)k * (size_t)nu, nu);
        worst = fmin(worst, mac);
        assert_true(mac > 0.999999);
    }
    assert_true(multiple >= 2); /* the double pair was met, and compared as a subspace */
    print_message("NaVARo pose 1, tree vs nodal mode shapes: min MAC %.12f\n", worst);
    free(W);
    free(u[0]);
    free(u[1]);
    pkm_model_destroy(&m);
}

static void add_beam(pkm_model *m, const double a[3], const double b[3], int nelem, int *id)
{
    const double r = 0.01, I = PI * r * r * r * r / 4.0;
    const double pts[2][3] = {{a[0], a[1], a[2]}, {b[0], b[1], b[2]}};
    pkm_beam_desc d = {.name = "beam",
                       .npoints = 2,
                       .points = pts,
                       .nelem = &nelem,
                       .zref = {0.0, 0.0, 1.0},
                       .section = {.A = PI * r * r, .Iy = I, .Iz = I, .I0 = 2 * I, .Ip = 2 * I},
                       .material = {.E = 2.06e11, .G = 2.06e11 / 2.6, .rho = 7800.0}};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_model_add_beam(m, &d, id, &ctx), &ctx);
}

static void add_clamp(pkm_model *m, int a, int b, const double pt[3])
{
    pkm_joint_desc d = {.name = "clamp",
                        .type = PKM_JOINT_CLAMPED,
                        .body_a = a,
                        .body_b = b,
                        .point = {pt[0], pt[1], pt[2]}};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_model_add_joint(m, &d, NULL, &ctx), &ctx);
}

/* Largest deviation of field u from the rigid field of node 0's twist, relative to max |u|. */
static double rigid_deviation(const pkm_model *m, const double *u)
{
    double dev = 0.0, big = 0.0;
    for (int i = 0; i < pkm_model_node_count(m); i++) {
        double r[3], t[6];
        pkm_vec3_sub(pkm_model_node(m, i)->x, pkm_model_node(m, 0)->x, r);
        pkm_twist_transfer(u, r, t);
        for (int k = 0; k < 6; k++) {
            dev = fmax(dev, fabs(u[6 * i + k] - t[k]));
            big = fmax(big, fabs(u[6 * i + k]));
        }
    }
    return dev / big;
}

/* 4. A free-floating structure (an L of two beams clamped together, a rigid body clamped at its
 * end, nothing to the ground; nodal formulation): its six zero-energy modes prolong to rigid
 * displacement fields, its elastic modes do not. */
static void test_rigid_modes_prolong_rigidly(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    const double o[3] = {0, 0, 0}, k[3] = {1, 0, 0}, e[3] = {1, 0.5, 0};
    int b1, b2, r;
    add_beam(m, o, k, 4, &b1);
    add_beam(m, k, e, 3, &b2);
    pkm_rigid_desc rd = {.name = "tip",
                         .origin = {e[0], e[1], e[2]},
                         .mass = 2.0,
                         .com = {1.0, 0.6, 0.1},
                         .inertia = {{0.01, 0, 0}, {0, 0.02, 0}, {0, 0, 0.015}}};
    assert_pkm_ok(pkm_model_add_rigid(m, &rd, &r, &ctx), &ctx);
    add_clamp(m, b1, b2, k);
    add_clamp(m, b2, r, e);
    enum { NEV = 8 };
    double w[NEV];
    double *u = mode_fields(m, PKM_FORM_NODAL, PKM_EIG_DENSE, 1, NEV, w);
    const size_t nu = 6 * (size_t)pkm_model_node_count(m);
    double worst = 0.0;
    for (int q = 0; q < NEV; q++) {
        const double dev = rigid_deviation(m, u + nu * (size_t)q);
        if (q < 6) {
            assert_true(dev < 1e-8);
            worst = fmax(worst, dev);
        } else {
            assert_true(dev > 1e-3);
        }
    }
    print_message("free L: rigid modes' deviation from a rigid field %.2e\n", worst);
    free(u);
    pkm_model_destroy(&m);
}

/* 5. The formulation type table: every entry gives NaVARo pose 1 the same lowest 10 frequencies
 * (to 1e-8), is found by its name and is its own index; unknown names and indices are refused. */
static void test_formulation_table(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = navaro_pose1();
    double w[PKM_FORMULATION_COUNT][10];
    for (int f = 0; f < PKM_FORMULATION_COUNT; f++) {
        const pkm_formulation_type *t = &pkm_formulation_types[f];
        assert_int_equal(t->id, f);
        assert_ptr_equal(pkm_formulation_type_of((pkm_formulation)f), t);
        assert_ptr_equal(pkm_formulation_type_find(t->name), t);
        assert_true(t->description != NULL && t->description[0] != '\0');
        assert_non_null(t->assemble);
        pkm_modal_opts o = pkm_modal_opts_default();
        o.nev = 10;
        pkm_analysis *a = NULL;
        const pkm_modes *md = NULL;
        assert_pkm_ok(pkm_analysis_create(t->id, PKM_EIG_ARPACK, &o, &a, &ctx), &ctx);
        assert_pkm_ok(pkm_analysis_solve(a, m, &md, NULL, &ctx), &ctx);
        memcpy(w[f], md->freq_hz, sizeof(w[f]));
        pkm_analysis_destroy(&a);
        for (int k = 0; k < 10; k++)
            assert_close(w[f][k], w[0][k], 1e-8, 0.0);
    }
    assert_null(pkm_formulation_type_find("Tree"));
    assert_null(pkm_formulation_type_find(""));
    assert_null(pkm_formulation_type_find(NULL));
    assert_null(pkm_formulation_type_of((pkm_formulation)PKM_FORMULATION_COUNT));
    assert_null(pkm_formulation_type_of((pkm_formulation)-1));
    pkm_pencil *p = NULL;
    assert_int_equal(pkm_assemble(m, (pkm_formulation)PKM_FORMULATION_COUNT, &p, NULL, &ctx),
                     PKM_ERR_INVALID);
    assert_null(p);
    pkm_model_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dofmap_consistent_with_pencil),
        cmocka_unit_test(test_dofmap_joint_coordinates),
        cmocka_unit_test(test_dofmap_kept_in_cache),
        cmocka_unit_test(test_mode_shapes_agree),
        cmocka_unit_test(test_rigid_modes_prolong_rigidly),
        cmocka_unit_test(test_formulation_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
