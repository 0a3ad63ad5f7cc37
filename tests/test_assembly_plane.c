/* tests/test_assembly_plane.c: point-on-plane constraints in the finite-element model
 * (pkm_model_add_plane, eliminated by assembly/nodal.c): a higher pair of Cheng et al. 2024
 * linearised at the pose, n^T u = 0 at a node. Against an independent elimination: the same
 * frame without the constraint, its pencil projected densely on the null space of the
 * constraint row (a Householder basis) and solved by LAPACK.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_lapack.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/assembly.h"
#include "pkm/dofmap.h"
#include "pkm/model.h"
#include "pkm/pencil.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEV 8

static const pkm_material steel = {.E = 210e9, .G = 80.77e9, .rho = 7850.0};
static const pkm_section tube = {.A = 4e-4, .Iy = 3e-8, .Iz = 5e-8, .I0 = 8e-8, .Ip = 8e-8};

/* x -> Q x */
static void turn(const double Q[3][3], const double x[3], double y[3])
{
    for (int a = 0; a < 3; a++)
        y[a] = Q[a][0] * x[0] + Q[a][1] * x[1] + Q[a][2] * x[2];
}

/* A portal frame turned by Q: two columns clamped to the ground, a beam across their tops
 * clamped to them, 4 elements per member; with a normal, the middle of the beam (0.5, 0, 1)
 * held on the plane of that normal (before Q). */
static pkm_model *portal(const double Q[3][3], const double *normal)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    static const double pts[3][3][3] = {{{0, 0, 0}, {0, 0, 0.5}, {0, 0, 1}},
                                        {{1, 0, 0}, {1, 0, 0.5}, {1, 0, 1}},
                                        {{0, 0, 1}, {0.5, 0, 1}, {1, 0, 1}}};
    static const double zref[3][3] = {{1, 0, 0}, {1, 0, 0}, {0, 0.3, 1}};
    static const int nelem[2] = {2, 2};
    static const char *const names[3] = {"left", "right", "top"};
    for (int b = 0; b < 3; b++) {
        double p[3][3], z[3];
        for (int k = 0; k < 3; k++)
            turn(Q, pts[b][k], p[k]);
        turn(Q, zref[b], z);
        pkm_beam_desc d = {.name = names[b],
                           .npoints = 3,
                           .points = (const double(*)[3])p,
                           .nelem = nelem,
                           .section = tube,
                           .material = steel,
                           .mass_flags = PKM_FEM_ROTARY_INERTIA};
        memcpy(d.zref, z, sizeof(z));
        assert_pkm_ok(pkm_model_add_beam(m, &d, NULL, &ctx), &ctx);
    }
    static const int ja[4] = {PKM_GROUND, PKM_GROUND, 0, 1}, jb[4] = {0, 1, 2, 2};
    static const double jp[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}};
    for (int j = 0; j < 4; j++) {
        pkm_joint_desc d = {.type = PKM_JOINT_CLAMPED, .body_a = ja[j], .body_b = jb[j]};
        turn(Q, jp[j], d.point);
        assert_pkm_ok(pkm_model_add_joint(m, &d, NULL, &ctx), &ctx);
    }
    if (normal != NULL) {
        pkm_plane_desc d = {.name = "condyle", .body = 2};
        turn(Q, (const double[3]){0.5, 0, 1}, d.point);
        turn(Q, normal, d.normal);
        assert_pkm_ok(pkm_model_add_plane(m, &d, NULL, &ctx), &ctx);
    }
    return m;
}

/* The NEV lowest eigenvalues of the unconstrained frame's pencil on the null space of
 * n^T u(node) = c^T x: Z the last n - 1 columns of the Householder reflector that maps c to a
 * multiple of e_1, (Z^T K Z, Z^T M Z) by dsygv. */
static void projected_lowest(const double Q[3][3], const double normal[3], double *w)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = portal(Q, NULL);
    pkm_pencil *p = NULL;
    pkm_dofmap *P = NULL;
    assert_pkm_ok(pkm_assemble(m, PKM_FORM_NODAL, &p, NULL, &ctx), &ctx);
    assert_pkm_ok(pkm_dofmap_create(m, PKM_FORM_NODAL, &P, &ctx), &ctx);
    const int n = (int)p->n, r = n - 1;
    double *K = calloc((size_t)n * n, sizeof(double)), *M = calloc((size_t)n * n, sizeof(double)),
           *c = calloc((size_t)n, sizeof(double)), *Z = calloc((size_t)n * r, sizeof(double)),
           *A = calloc((size_t)r * r, sizeof(double)), *B = calloc((size_t)r * r, sizeof(double)),
           *ev = calloc((size_t)r, sizeof(double));
    assert_true(K && M && c && Z && A && B && ev);
    pkm_pencil_to_dense(p, K, M);
    /* the node at (0.5, 0, 1) turned: the top beam's middle node */
    double x0[3], nq[3];
    turn(Q, (const double[3]){0.5, 0, 1}, x0);
    turn(Q, normal, nq);
    int node = -1;
    for (int i = 0; i < pkm_model_node_count(m); i++) {
        const double *x = pkm_model_node(m, i)->x;
        if (fabs(x[0] - x0[0]) + fabs(x[1] - x0[1]) + fabs(x[2] - x0[2]) < 1e-12) node = i;
    }
    assert_true(node >= 0);
    int nt = 0;
    const int64_t *col = NULL;
    const double(*tw)[6] = NULL;
    pkm_dofmap_node(P, node, &nt, &col, &tw);
    for (int t = 0; t < nt; t++)
        c[col[t]] += pkm_vec3_dot(nq, tw[t]);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += c[i] * c[i];
    const double norm = sqrt(s);
    /* v = c / |c| - sign e_1, H = I - 2 v v^T / v^T v; H e_1 ~ c, the other columns span c's
     * orthogonal complement. */
    double *v = calloc((size_t)n, sizeof(double));
    assert_non_null(v);
    for (int i = 0; i < n; i++)
        v[i] = c[i] / norm;
    v[0] += v[0] >= 0.0 ? 1.0 : -1.0;
    double vv = 0.0;
    for (int i = 0; i < n; i++)
        vv += v[i] * v[i];
    for (int i = 0; i < n; i++)
        for (int k = 0; k < r; k++)
            Z[(size_t)i * r + k] = (i == k + 1) - 2.0 * v[i] * v[k + 1] / vv;
    for (int a = 0; a < r; a++)
        for (int b = 0; b < r; b++) {
            double ka = 0.0, ma = 0.0;
            for (int i = 0; i < n; i++) {
                double ki = 0.0, mi = 0.0;
                for (int j = 0; j < n; j++) {
                    ki += K[(size_t)i * n + j] * Z[(size_t)j * r + b];
                    mi += M[(size_t)i * n + j] * Z[(size_t)j * r + b];
                }
                ka += Z[(size_t)i * r + a] * ki;
                ma += Z[(size_t)i * r + a] * mi;
            }
            A[(size_t)a * r + b] = ka;
            B[(size_t)a * r + b] = ma;
        }
    dense_pencil_eigs(r, A, B, ev);
    memcpy(w, ev, sizeof(double) * NEV);
    free(K);
    free(M);
    free(c);
    free(Z);
    free(A);
    free(B);
    free(ev);
    free(v);
    pkm_dofmap_destroy(&P);
    pkm_pencil_destroy(&p);
    pkm_model_destroy(&m);
}

static const double I3[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* The constrained frame's frequencies equal the independent elimination's to 1e-9, for a
 * normal along a global axis and a skew one; the frame and its plane turned together give the
 * same frequencies; the constraint removes one coordinate and lowers no frequency. */
static void test_plane_matches_projection(void **state)
{
    (void)state;
    static const double normals[2][3] = {{0, 1, 0}, {0.3, 0.8, -0.5}};
    const double c = cos(0.7), s = sin(0.7), cb = cos(-0.4), sb = sin(-0.4);
    /* Q = R_z(0.7) R_x(-0.4) */
    const double Q[3][3] = {{c, -s * cb, s * sb}, {s, c * cb, -c * sb}, {0, sb, cb}};
    double worst = 0.0, turned = 0.0;
    double free_w[NEV];
    pkm_model *m0 = portal(I3, NULL);
    model_lowest(m0, PKM_FORM_NODAL, NEV, free_w, NULL);
    pkm_model_destroy(&m0);
    for (int q = 0; q < 2; q++) {
        double w[NEV], ref[NEV], wq[NEV];
        pkm_assembly_info info, info0;
        pkm_model *m = portal(I3, normals[q]);
        model_lowest(m, PKM_FORM_NODAL, NEV, w, &info);
        pkm_model_destroy(&m);
        m = portal(I3, NULL);
        model_lowest(m, PKM_FORM_NODAL, 1, ref, &info0);
        pkm_model_destroy(&m);
        assert_int_equal(info.n_reduced, info0.n_reduced - 1);
        projected_lowest(I3, normals[q], ref);
        m = portal(Q, normals[q]);
        model_lowest(m, PKM_FORM_NODAL, NEV, wq, NULL);
        pkm_model_destroy(&m);
        for (int k = 0; k < NEV; k++) {
            worst = fmax(worst, fabs(w[k] - ref[k]) / ref[k]);
            turned = fmax(turned, fabs(wq[k] - w[k]) / w[k]);
            assert_true(w[k] >= free_w[k] * (1.0 - 1e-12));
        }
        /* the in-plane normal (0, 1, 0) holds the frame's sway out of its plane: f1 rises */
        if (q == 0) assert_true(w[0] > 1.5 * free_w[0]);
    }
    print_message("point-on-plane vs dense projection %.2e, turned frame %.2e\n", worst, turned);
    assert_true(worst < 1e-9);
    assert_true(turned < 1e-9);
}

/* Bad input: a zero normal, a point off the beam's nodes, the tree formulation. */
static void test_plane_errors(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = portal(I3, NULL);
    pkm_plane_desc d = {.name = "p", .body = 2, .point = {0.5, 0, 1}};
    assert_int_equal(pkm_model_add_plane(m, &d, NULL, &ctx), PKM_ERR_INVALID);
    d.normal[2] = 1.0;
    d.point[0] = 0.4;
    assert_int_equal(pkm_model_add_plane(m, &d, NULL, &ctx), PKM_ERR_MODEL);
    d.point[0] = 0.5;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_model_add_plane(m, &d, NULL, &ctx), &ctx);
    pkm_pencil *p = NULL;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_assemble(m, PKM_FORM_TREE, &p, NULL, &ctx), PKM_ERR_MODEL);
    assert_non_null(strstr(ctx.msg, "point-on-plane"));
    pkm_model_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane_matches_projection),
        cmocka_unit_test(test_plane_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
