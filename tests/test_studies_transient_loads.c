/* tests/test_studies_transient_loads.c: pkm_transient_run's loads beyond the rigid motion: the
 * external wrench on the platform (the quasi-static K^-1 F once the transient decays, linear in
 * the wrench, a constant series equal to the constant) and the elastic drives (a stiff drive
 * equals the locked one; a drive spring's force k d is the locked drive's reaction, d as 1/k).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pss5upu_defaults.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/transient.h"

#include <stdlib.h>
#include <string.h>

#define ROWS_MAX 1100

/* Every row's error and drive columns. */
typedef struct rows {
    int64_t n;
    int ndrive;
    double err[ROWS_MAX][6], qs[ROWS_MAX][6], force[ROWS_MAX][5], defl[ROWS_MAX][5];
} rows;

static int keep(void *user, const pkm_transient_row *r)
{
    rows *x = user;
    assert_true(x->n < ROWS_MAX && r->ndrive <= 5);
    memcpy(x->err[x->n], r->error, sizeof(r->error));
    memcpy(x->qs[x->n], r->quasi_static, sizeof(r->quasi_static));
    for (int k = 0; k < r->ndrive; k++) {
        x->force[x->n][k] = r->reaction[k];
        x->defl[x->n][k] = r->deflection != NULL ? r->deflection[k] : NAN;
    }
    x->ndrive = r->ndrive;
    x->n++;
    return 0;
}

/* A case held still at pose (constant laws) for 10 s. */
static pkm_trajectory *still(const pkm_case *c, const double *pose)
{
    pkm_traj_coord coord[PKM_POSE_MAX];
    for (int k = 0; k < c->npose; k++)
        coord[k] = (pkm_traj_coord){PKM_TRAJ_POLY2, {pose[k], 0.0, 0.0, 0.0}};
    const pkm_traj_desc d = {"still", "held still", 10.0, coord};
    pkm_trajectory *tr = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_create_analytic(&d, c->npose, &tr, &ctx), &ctx);
    return tr;
}

static void run(const pkm_case *c, const void *params, const pkm_trajectory *tr,
                const pkm_transient_opts *o, rows *x)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    memset(x, 0, sizeof(*x));
    assert_pkm_ok(pkm_transient_run(c, params, tr, o, keep, x, &ctx), &ctx);
}

static double largest_diff(const rows *a, const rows *b)
{
    double d = 0.0;
    for (int64_t i = 0; i < a->n; i++)
        for (int k = 0; k < 6; k++)
            d = fmax(d, fabs(a->err[i][k] - b->err[i][k]));
    return d;
}

/* NaVARo at home, still, no gravity: a constant wrench (10 N, -5 N, 0.3 N m about z) from rest
 * with heavy damping (50 % at 40 and 400 Hz) settles on the quasi-static K^-1 F; the response is
 * linear in the wrench (2 W gives twice W's, W1 + W2 the sum, every step); a CSV-like series
 * of the same constant gives the same rows. */
static void test_wrench(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("navaro");
    void *params = calloc(1, c->params_size);
    assert_non_null(params);
    case_defaults("navaro", params, c->params_size);
    pkm_trajectory *tr = still(c, c->home);
    pkm_transient_opts o = pkm_transient_opts_default(c, 1e-3, 1.0);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_rayleigh_from_ratios(0.5, 40.0, 0.5, 400.0, &o.nm.l1, &o.nm.l2, &ctx), &ctx);
    o.update_every = 0;
    const double w1[6] = {10.0, -5.0, 0.0, 0.0, 0.0, 0.3}, w2[6] = {0.0, 7.0, 0.0, 0.0, 0.0, -1.0};
    rows *a = malloc(sizeof(rows)), *b = malloc(sizeof(rows)), *s = malloc(sizeof(rows));
    assert_true(a != NULL && b != NULL && s != NULL);
    memcpy(o.wrench, w1, sizeof(w1));
    run(c, params, tr, &o, a);
    const int64_t last = a->n - 1;
    double qs = 0.0, settle = 0.0;
    for (int k = 0; k < 6; k++) {
        qs = fmax(qs, fabs(a->qs[last][k]));
        settle = fmax(settle, fabs(a->err[last][k] - a->qs[last][k]));
    }
    print_message("wrench: K^-1 F %.6g m; Newmark - K^-1 F after 1 s %.3g\n", qs, settle / qs);
    assert_true(qs > 1e-6 && settle < 1e-6 * qs);
    memcpy(o.wrench, w2, sizeof(w2));
    run(c, params, tr, &o, b);
    for (int k = 0; k < 6; k++)
        o.wrench[k] = w1[k] + w2[k];
    run(c, params, tr, &o, s);
    double lin = 0.0;
    for (int64_t i = 0; i < a->n; i++)
        for (int k = 0; k < 6; k++)
            lin = fmax(lin, fabs(s->err[i][k] - a->err[i][k] - b->err[i][k]));
    print_message("wrench: superposition W1 + W2 - (W1) - (W2) %.3g of %.3g\n", lin, qs);
    assert_true(lin < 1e-10 * qs);
    /* The same constant as a series of six coordinates (4 samples, the spline a constant). */
    const double ts[4] = {0.0, 1.0, 2.0, 3.0};
    double ws[24];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 6; k++)
            ws[6 * i + k] = w1[k] - 0.5 * w2[k];
    pkm_trajectory *series = NULL;
    assert_pkm_ok(pkm_trajectory_create_spline(6, 4, ts, ws, &series, &ctx), &ctx);
    for (int k = 0; k < 6; k++)
        o.wrench[k] = 0.5 * w2[k];
    o.wrench_series = series;
    run(c, params, tr, &o, b);
    print_message("wrench: constant + series - constant %.3g\n", largest_diff(a, b));
    assert_true(largest_diff(a, b) < 1e-9 * qs);
    o.wrench[2] = NAN;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_transient_run(c, params, tr, &o, keep, b, &ctx), PKM_ERR_INVALID);
    pkm_trajectory_destroy(&series);
    pkm_trajectory_destroy(&tr);
    free(a);
    free(b);
    free(s);
    free(params);
}

/* The 5-PSS/UPU on eq40-off (0.5 to 0.52 s, 2 % at 154.3 and 856.3 Hz, quasi-static start):
 * motor.k = 1e10 N m/rad elastic drives against the locked ones, the platform error and the
 * drives' forces; without motion (at the rigid model's pose, no gravity, feed-forward zero) and
 * links and screws 1e6 times stiffer, under a constant wrench, each drive spring carries the
 * locked drive's reaction, -ratio k d = reaction with d as 1/k (k = 1e3 and 1e4 N m/rad). */
static void test_elastic_drives(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("pss5upu");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    assert_pkm_ok(pkm_trajectory_create_analytic(pkm_case_traj_find(c, "eq40-off"), 5, &tr, &ctx),
                  &ctx);
    pkm_transient_opts o = pkm_transient_opts_default(c, 1e-3, 0.02);
    o.start = 0.5;
    o.static_start = 1;
    assert_pkm_ok(pkm_rayleigh_from_ratios(0.02, 154.3, 0.02, 856.3, &o.nm.l1, &o.nm.l2, &ctx),
                  &ctx);
    rows *lk = malloc(sizeof(rows)), *el = malloc(sizeof(rows));
    assert_true(lk != NULL && el != NULL);
    void *p0 = pss5upu_params(PKM_PSS5UPU_SPHERICAL, 0.0, 1.0),
         *p1 = pss5upu_params(PKM_PSS5UPU_SPHERICAL, 1e10, 1.0);
    run(c, p0, tr, &o, lk);
    o.elastic_drives = 1;
    run(c, p1, tr, &o, el);
    double de = 0.0, e = 0.0, df = 0.0, f = 0.0;
    for (int64_t i = 0; i < lk->n; i++) {
        for (int k = 0; k < 6; k++) {
            e = fmax(e, fabs(lk->err[i][k]));
            de = fmax(de, fabs(el->err[i][k] - lk->err[i][k]));
        }
        for (int k = 0; k < 5; k++) {
            f = fmax(f, fabs(lk->force[i][k]));
            df = fmax(df, fabs(el->force[i][k] - lk->force[i][k]));
        }
    }
    print_message("elastic (k = 1e10) - locked: error %.3g of %.3g, drive force %.3g of %.4g N\n",
                  de, e, df, f);
    assert_true(de < 1e-6 * e && df < 1e-6 * f);
    pkm_trajectory_destroy(&tr);
    /* The spring law, at rest under a wrench. */
    tr = still(c, pkm_case_rigid_pose(c));
    const double w[6] = {20.0, -10.0, 50.0, 1.0, 2.0, 0.0};
    o = pkm_transient_opts_default(c, 1e-3, 0.002);
    o.static_start = 1;
    memcpy(o.wrench, w, sizeof(w));
    free(p0);
    free(p1);
    p0 = pss5upu_params(PKM_PSS5UPU_SPHERICAL, 0.0, 1e6);
    run(c, p0, tr, &o, lk);
    o.elastic_drives = 1;
    const double ks[2] = {1e3, 1e4}, ratio = -2.0 * PKM_PI / ((pkm_pss5upu_params *)p0)->screw_lead;
    double kd[2][5], worst = 0.0, scale = 0.0;
    for (int s = 0; s < 2; s++) {
        p1 = pss5upu_params(PKM_PSS5UPU_SPHERICAL, ks[s], 1e6);
        run(c, p1, tr, &o, el);
        for (int k = 0; k < 5; k++) {
            kd[s][k] = ks[s] * el->defl[0][k];
            scale = fmax(scale, fabs(lk->force[0][k]));
            worst = fmax(worst, fabs(-ratio * kd[s][k] - lk->force[0][k]));
            assert_true(fabs(el->force[0][k] + ratio * kd[s][k]) < 1e-9 * fabs(el->force[0][k]));
        }
        free(p1);
    }
    print_message("drive springs at rest: -ratio k d against the locked reactions %.3g of %.4g N; "
                  "k d at k = 1e3 and 1e4: %.6g, %.6g N m\n",
                  worst, scale, kd[0][0], kd[1][0]);
    assert_true(scale > 1.0 && worst < 1e-3 * scale);
    for (int k = 0; k < 5; k++)
        assert_true(fabs(kd[0][k] - kd[1][k]) < 1e-3 * fabs(kd[1][k]));
    /* A drive without a spring: refused, naming it. */
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_transient_run(c, p0, tr, &o, keep, el, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "rail 1"));
    pkm_trajectory_destroy(&tr);
    free(p0);
    free(lk);
    free(el);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrench),
        cmocka_unit_test(test_elastic_drives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
