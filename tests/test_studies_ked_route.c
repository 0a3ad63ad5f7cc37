/* tests/test_studies_ked_route.c: pkmflex transient against a second KED driver written here
 * from eq. 37 of Li et al. 2020 alone: the nodal formulation (the same assembly and Newmark
 * integrator) loaded by -M_e U''_r with the finite-element nodes' rigid accelerations taken by
 * central differences of the models the case builds at t - h, t, t + h (positions of the nodes,
 * turns of the elements and bodies about z: NaVARo is planar). No code of dynamics/, of
 * pkm/motion.h or of the transient's loads: a fault in the rigid closure, the bodies' motion or
 * the loads would part the two.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ked_fd.h"
#include "navaro_defaults.h"

#include "pkm/dofmap.h"
#include "pkm/newmark.h"
#include "pkm/transient.h"

#include <stdlib.h>
#include <string.h>

/* s: the differences' step. The CSV's spline has jumps of its third derivative at the samples,
 * so a second difference across one errs by O(h): the two drivers part by 1e-4 of the peak at
 * h = 1e-4 s, 1e-5 at 1e-5 s; at 1e-6 s the rounding of the positions takes over (5e-4). */
#define FD_H 1e-5

/* The second central difference of a node's position. */
static void node_accel(pkm_model *const m[3], int n, double a[3])
{
    for (int k = 0; k < 3; k++)
        a[k] = (pkm_model_node(m[2], n)->x[k] - 2.0 * pkm_model_node(m[1], n)->x[k] +
                pkm_model_node(m[0], n)->x[k]) /
               (FD_H * FD_H);
}

/* Element e's -M_e U''_r on fn, U''_r = (a1, alpha e_z, a2, alpha e_z) by differences. */
static void element_load(pkm_model *const m[3], int e, double *fn)
{
    const pkm_elem *el = pkm_model_elem(m[1], e);
    double u[12] = {0}, M[12][12];
    node_accel(m, el->n1, u);
    node_accel(m, el->n2, u + 6);
    double ang[3];
    for (int s = 0; s < 3; s++)
        ang[s] = ked_angle(pkm_model_node(m[s], el->n1)->x, pkm_model_node(m[s], el->n2)->x);
    u[5] = u[11] = ked_angle_dd(ang[0], ang[1], ang[2], FD_H);
    ked_element_mass(m[1], e, ~0u, M);
    for (int i = 0; i < 12; i++) {
        double s = 0.0;
        for (int j = 0; j < 12; j++)
            s += M[i][j] * u[j];
        fn[6 * (i < 6 ? el->n1 : el->n2) + i % 6] -= s;
    }
}

/* Rigid body b's -(m a_c, J_zz alpha) at its origin node, by differences of its centre of mass
 * and of the turn of its first two nodes. */
static void rigid_load(pkm_model *const m[3], int b, double *fn)
{
    const pkm_body *bd = pkm_model_body(m[1], b);
    if (bd->mass == 0.0 && bd->inertia[2][2] == 0.0) return;
    int other = -1;
    for (int n = bd->first_node + 1; n < pkm_model_node_count(m[1]) && other < 0; n++)
        if (pkm_model_node(m[1], n)->body == b) other = n;
    assert_true(other >= 0);
    double ac[3], ang[3], F[3], d[3];
    for (int k = 0; k < 3; k++)
        ac[k] =
            (pkm_model_body(m[2], b)->com[k] - 2.0 * bd->com[k] + pkm_model_body(m[0], b)->com[k]) /
            (FD_H * FD_H);
    for (int s = 0; s < 3; s++)
        ang[s] = ked_angle(pkm_model_node(m[s], pkm_model_body(m[s], b)->first_node)->x,
                           pkm_model_node(m[s], other)->x);
    const double alpha = ked_angle_dd(ang[0], ang[1], ang[2], FD_H);
    const double *o = pkm_model_node(m[1], bd->first_node)->x;
    for (int k = 0; k < 3; k++) {
        F[k] = -bd->mass * ac[k];
        d[k] = bd->com[k] - o[k];
        fn[6 * bd->first_node + k] += F[k];
    }
    fn[6 * bd->first_node + 5] += d[0] * F[1] - d[1] * F[0] - bd->inertia[2][2] * alpha;
}

/* The platform error ex .. rz of the second driver at t0 + k dt, k = 0 .. n. */
static void fd_route(const pkm_case *c, const void *params, const pkm_trajectory *tr, double t0,
                     double dt, int n, double l1, double l2, double (*err)[6])
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_asm_cache *cache = NULL;
    pkm_newmark *nm = NULL;
    assert_pkm_ok(pkm_asm_cache_create(&cache, &ctx), &ctx);
    assert_pkm_ok(pkm_asm_cache_keep_dofmap(cache, &ctx), &ctx);
    pkm_newmark_opts o = pkm_newmark_opts_default(dt);
    o.l1 = l1;
    o.l2 = l2;
    for (int k = 0; k <= n; k++) {
        const double t = t0 + k * dt;
        pkm_model *m[3];
        for (int s = 0; s < 3; s++)
            m[s] = ked_model_at(c, params, tr, t + (s - 1) * FD_H);
        const pkm_pencil *p = NULL;
        int64_t version = 0;
        assert_pkm_ok(pkm_assemble_cached(m[1], PKM_FORM_NODAL, cache, &p, &version, NULL, &ctx),
                      &ctx);
        const pkm_dofmap *map = pkm_asm_cache_dofmap(cache);
        const int nn = pkm_model_node_count(m[1]);
        double *fn = calloc(6 * (size_t)nn, sizeof(double)), *f = calloc((size_t)p->n, 8);
        assert_non_null(fn);
        assert_non_null(f);
        for (int e = 0; e < pkm_model_element_count(m[1]); e++)
            element_load(m, e, fn);
        for (int b = 0; b < pkm_model_body_count(m[1]); b++)
            if (pkm_model_body(m[1], b)->kind == PKM_BODY_RIGID) rigid_load(m, b, fn);
        for (int i = 0; i < pkm_model_mass_count(m[1]); i++) {
            const pkm_lumped_mass *l = pkm_model_mass(m[1], i);
            double a[3];
            node_accel(m, l->node, a);
            for (int q = 0; q < 3; q++)
                fn[6 * l->node + q] -= l->mass * a[q];
        }
        pkm_dofmap_restrict(map, fn, f);
        if (k == 0) {
            assert_pkm_ok(pkm_newmark_create(p, &o, &nm, &ctx), &ctx);
            assert_pkm_ok(pkm_newmark_start(nm, NULL, NULL, f, &ctx), &ctx);
        } else {
            assert_pkm_ok(pkm_newmark_set_pencil(nm, p, &ctx), &ctx);
            assert_pkm_ok(pkm_newmark_step(nm, f, &ctx), &ctx);
        }
        int ncol = 0;
        const int64_t *col = NULL;
        const double(*tw)[6] = NULL;
        const int pn = pkm_model_body(m[1], pkm_model_platform(m[1]))->first_node;
        pkm_dofmap_node(map, pn, &ncol, &col, &tw);
        for (int q = 0; q < 6; q++) {
            err[k][q] = 0.0;
            for (int j = 0; j < ncol; j++)
                err[k][q] += tw[j][q] * pkm_newmark_u(nm)[col[j]];
        }
        free(fn);
        free(f);
        for (int s = 0; s < 3; s++)
            pkm_model_destroy(&m[s]);
    }
    pkm_newmark_destroy(&nm);
    pkm_asm_cache_destroy(&cache);
}

typedef struct rows {
    double (*err)[6];
    int n;
} rows;

static int keep(void *user, const pkm_transient_row *row)
{
    rows *r = user;
    memcpy(r->err[r->n++], row->error, sizeof(row->error));
    return 0;
}

/* A smooth point-to-point motion at turn theta as CSV samples every 10 ms (the spline of
 * `--trajectory FILE.csv`): x -30 -> 40 mm, y 20 -> -20 mm, theta + 0.05 rad in 0.5 s, quintic,
 * at rest 50 ms before and after. */
static pkm_trajectory *csv_motion(double theta)
{
    enum { N = 71 };
    double t[N], q[3 * N];
    for (int i = 0; i < N; i++) {
        t[i] = -0.05 + 0.01 * i;
        const double s = fmin(1.0, fmax(0.0, t[i] / 0.5));
        const double b = s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
        q[3 * i] = -0.03 + 0.07 * b;
        q[3 * i + 1] = 0.02 - 0.04 * b;
        q[3 * i + 2] = theta + 0.05 * b;
    }
    pkm_trajectory *tr = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_create_spline(3, N, t, q, &tr, &ctx), &ctx);
    return tr;
}

/* NaVARo (1 element per link, clutches locked, no gravity), dt 1 ms over 0.6 s, Rayleigh 10 1/s
 * and 2e-5 s (the comparison): the transient's platform error and the second driver's
 * agree along the whole history to 1e-4 of the largest (measured: 1.0e-5 to 2.7e-5 for ex, ey,
 * rz), at theta = -60 deg and 0. */
static void route_at(double theta)
{
    const pkm_case *c = pkm_case_find("navaro");
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 1;
    pkm_trajectory *tr = csv_motion(theta);
    const int n = 600;
    const double dt = 1e-3, l1 = 10.0, l2 = 2e-5;
    double(*ref)[6] = calloc(n + 1, sizeof(*ref));
    rows run = {calloc(n + 1, sizeof(*run.err)), 0};
    fd_route(c, &par, tr, 0.0, dt, n, l1, l2, ref);
    pkm_transient_opts o = pkm_transient_opts_default(c, dt, n * dt);
    o.nm.l1 = l1;
    o.nm.l2 = l2;
    o.start = 0.0;
    o.form = PKM_FORM_NODAL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_transient_run(c, &par, tr, &o, keep, &run, &ctx), &ctx);
    assert_int_equal(run.n, n + 1);
    double peak[6] = {0}, diff[6] = {0};
    for (int k = 0; k <= n; k++)
        for (int q = 0; q < 6; q++) {
            peak[q] = fmax(peak[q], fabs(ref[k][q]));
            diff[q] = fmax(diff[q], fabs(run.err[k][q] - ref[k][q]));
        }
    print_message("theta %+.4f: peak ex %.4e ey %.4e m rz %.4e rad; largest difference over the "
                  "peak %.2e, %.2e, %.2e\n",
                  theta, peak[0], peak[1], peak[5], diff[0] / peak[0], diff[1] / peak[1],
                  diff[5] / peak[5]);
    for (int q = 0; q < 6; q++)
        if (q == 0 || q == 1 || q == 5) assert_true(diff[q] < 1e-4 * peak[q]);
    free(ref);
    free(run.err);
    pkm_trajectory_destroy(&tr);
}

static void test_route_minus60(void **state)
{
    (void)state;
    route_at(-PKM_PI / 3.0);
}

static void test_route_zero(void **state)
{
    (void)state;
    route_at(0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_route_minus60),
        cmocka_unit_test(test_route_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
