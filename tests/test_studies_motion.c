/* tests/test_studies_motion.c: the rigid motion of pkm/motion.h under the time domain: NaVARo's
 * workspace run through wherever `modes` is regular, the robot-file NaVARo equal to the built-in
 * case, the 3-RRR's rigid limit, the generic route equal to the case's drive.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ked_fd.h"
#include "navaro_defaults.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/analysis.h"
#include "pkm/motion.h"
#include "pkm/robot.h"
#include "pkm/transient.h"

#include <stdlib.h>
#include <string.h>

/* The straight line from pose a to b (3 coordinates) over [0, T] as CSV samples (the spline of
 * `--trajectory FILE.csv`), at rest at both ends. */
static pkm_trajectory *line(const double a[3], const double b[3], double T)
{
    enum { N = 9 };
    double t[N], q[3 * N];
    for (int i = 0; i < N; i++) {
        t[i] = T * i / (N - 1);
        const double s = (double)i / (N - 1), w = s * s * (3.0 - 2.0 * s);
        for (int k = 0; k < 3; k++)
            q[3 * i + k] = a[k] + w * (b[k] - a[k]);
    }
    pkm_trajectory *tr = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_create_spline(3, N, t, q, &tr, &ctx), &ctx);
    return tr;
}

typedef struct run_rows {
    int64_t rows;
    double peak[6], drive, reaction_diff;
    double (*err)[6]; /* NULL, or room for every row's error */
    double *drives;   /* NULL, or room for every row's ndrive drives */
} run_rows;

static int count(void *user, const pkm_transient_row *row)
{
    run_rows *r = user;
    for (int k = 0; k < 6; k++) {
        r->peak[k] = fmax(r->peak[k], fabs(row->error[k]));
        if (!isfinite(row->error[k])) return 1;
    }
    for (int k = 0; k < row->ndrive; k++) {
        r->drive = fmax(r->drive, fabs(row->drive[k]));
        r->reaction_diff = fmax(r->reaction_diff, fabs(row->reaction[k] - row->drive[k]));
        if (r->drives != NULL) r->drives[row->step * row->ndrive + k] = row->drive[k];
    }
    if (r->err != NULL) memcpy(r->err[row->step], row->error, sizeof(row->error));
    r->rows++;
    return 0;
}

/* transient (default options: dt, duration) and dynamics (the closure and the inverse dynamics
 * at every sample) along tr from its start; PKM_OK or the first failure. */
static pkm_status run_both(const pkm_case *c, const void *par, const pkm_trajectory *tr, double dt,
                           int n, pkm_ctx *ctx)
{
    pkm_transient_opts o = pkm_transient_opts_default(c, dt, n * dt);
    run_rows r = {0};
    pkm_status st = pkm_transient_run(c, par, tr, &o, count, &r, ctx);
    if (st != PKM_OK) return st;
    assert_int_equal(r.rows, n + 1);
    pkm_motion *mo = NULL;
    st = pkm_motion_create(c, par, NULL, &mo, ctx);
    pkm_joint_result res[64];
    assert_true(st != PKM_OK || pkm_model_joint_count(pkm_motion_model(mo)) <= 64);
    for (int k = 0; k <= n && st == PKM_OK; k++) {
        double p[3], pd[3], pdd[3];
        st = pkm_trajectory_eval(tr, k * dt, p, pd, pdd, ctx);
        if (st == PKM_OK) st = pkm_motion_at(mo, k * dt, p, pd, pdd, ctx);
        if (st == PKM_OK) st = pkm_mbs_inverse(pkm_motion_mbs(mo), NULL, res, ctx);
    }
    pkm_motion_destroy(&mo);
    return st;
}

/* Every pose of a 15 x 15 grid over x, y in [-0.22, 0.22] m at theta = -60 deg, 0 and +30 deg
 * where `modes` reports ok (the finite-element model built, its spectrum regular): a constant
 * pose runs transient and dynamics through (the reference orientation -60 deg stopped
 * at t = 0 before: the forward problem's threshold 5e-3 applied to the inverse kinematics); and
 * so does the straight line to the next such pose along two rows of the grid. -30 deg added; at +30
 * deg no pose of the grid is reachable (at the centre |A1E1| = 0.452 m, the leg spans 0.42 m). */
static void test_navaro_grid(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("navaro");
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 1;
    pkm_modal_opts mo = pkm_modal_opts_default();
    mo.nev = 4;
    pkm_analysis *an = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_analysis_create(PKM_FORM_TREE, PKM_EIG_ARPACK, &mo, &an, &ctx), &ctx);
    const double thetas[4] = {-PKM_PI / 3.0, -PKM_PI / 6.0, 0.0, PKM_PI / 6.0};
    enum { G = 15 };
    for (int it = 0; it < 4; it++) {
        int ok = 0, lines = 0;
        double last[3];
        for (int i = 0; i < G; i++) {
            int have_last = 0;
            for (int j = 0; j < G; j++) {
                const double pose[3] = {-0.22 + 0.44 * j / (G - 1), -0.22 + 0.44 * i / (G - 1),
                                        thetas[it]};
                pkm_model *m = NULL;
                pkm_ctx_clear(&ctx);
                pkm_status st = c->build(&par, pose, &m, &ctx);
                const pkm_modes *md = NULL;
                if (st == PKM_OK) st = pkm_analysis_solve(an, m, &md, NULL, &ctx);
                pkm_model_destroy(&m);
                if (st != PKM_OK) {
                    have_last = 0;
                    continue;
                }
                ok++;
                pkm_trajectory *tr = line(pose, pose, 0.02);
                pkm_ctx_clear(&ctx);
                assert_pkm_ok(run_both(c, &par, tr, 0.01, 2, &ctx), &ctx);
                pkm_trajectory_destroy(&tr);
                if (have_last && (i == G / 2 || i == 2)) { /* lines along two rows */
                    tr = line(last, pose, 0.1);
                    assert_pkm_ok(run_both(c, &par, tr, 0.01, 10, &ctx), &ctx);
                    pkm_trajectory_destroy(&tr);
                    lines++;
                }
                memcpy(last, pose, sizeof(last));
                have_last = 1;
            }
        }
        print_message("theta %+.4f rad: %d of %d poses ok, each run through; %d lines between "
                      "neighbours\n",
                      thetas[it], ok, G * G, lines);
        assert_true(thetas[it] > 0.0 ? ok == 0 : ok > 20);
    }
    pkm_analysis_destroy(&an);
}

/* A run of case c along tr: its errors and drives per row (n + 1 rows). */
static run_rows run_kept(const pkm_case *c, const void *par, const pkm_trajectory *tr, double dt,
                         int n, int ndrive)
{
    run_rows r = {0};
    r.err = calloc((size_t)n + 1, sizeof(*r.err));
    r.drives = calloc(((size_t)n + 1) * (size_t)ndrive, sizeof(double));
    pkm_transient_opts o = pkm_transient_opts_default(c, dt, n * dt);
    o.start = 0.0;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_transient_run(c, par, tr, &o, count, &r, &ctx), &ctx);
    assert_int_equal(r.rows, n + 1);
    return r;
}

/* examples/navaro.yaml against the built-in navaro along p2p and along a CSV line at -60 deg:
 * the platform errors of transient (its inverse kinematics by continuation of the closure, the
 * built-in's in closed form) and the rigid-body drives to 1e-9 of their largest. */
static void test_navaro_file_equals_builtin(void **state)
{
    (void)state;
    void *fp = NULL;
    const pkm_case *f = ked_load_file("examples/navaro.yaml", &fp);
    const pkm_case *c = pkm_case_find("navaro");
    pkm_navaro_params par = navaro_defaults();
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr[2] = {NULL, NULL};
    assert_pkm_ok(pkm_trajectory_create_analytic(&c->traj[0], 3, &tr[0], &ctx), &ctx);
    const double a[3] = {-0.05, -0.03, -PKM_PI / 3.0}, b[3] = {0.04, 0.02, -PKM_PI / 3.0 + 0.1};
    tr[1] = line(a, b, 0.4);
    for (int k = 0; k < 2; k++) {
        const int n = k == 0 ? 300 : 200;
        const double dt = k == 0 ? 5e-3 : 2e-3;
        run_rows x = run_kept(c, &par, tr[k], dt, n, 3), y = run_kept(f, fp, tr[k], dt, n, 3);
        double de = 0.0, pe = 0.0, dd = 0.0, pd = 0.0;
        for (int i = 0; i <= n; i++) {
            for (int q = 0; q < 6; q++) {
                de = fmax(de, fabs(x.err[i][q] - y.err[i][q]));
                pe = fmax(pe, fabs(x.err[i][q]));
            }
            for (int q = 0; q < 3; q++) {
                dd = fmax(dd, fabs(x.drives[3 * i + q] - y.drives[3 * i + q]));
                pd = fmax(pd, fabs(x.drives[3 * i + q]));
            }
        }
        print_message("%s: platform error %.3e (largest %.3e), drives %.3e (largest %.3e)\n",
                      k == 0 ? "p2p" : "CSV line at -60 deg", de / pe, pe, dd / pd, pd);
        assert_true(de <= 1e-9 * pe);
        assert_true(dd <= 1e-9 * pd);
        free(x.err);
        free(x.drives);
        free(y.err);
        free(y.drives);
        pkm_trajectory_destroy(&tr[k]);
    }
    pkm_case_params_destroy(&fp);
}

/* The rigid-limit run: 0.3 s from the quasi-static start, 5 % damping at modes 1 and 3. */
static run_rows rigid_limit_run(const pkm_case *c, const void *params, const pkm_trajectory *tr)
{
    pkm_transient_opts o = pkm_transient_opts_default(c, 1e-3, 0.3);
    o.static_start = 1;
    o.damping_mode[0] = 1;
    o.damping_mode[1] = 3;
    o.damping_zeta[0] = o.damping_zeta[1] = 0.05;
    run_rows x = {0};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_transient_run(c, params, tr, &o, count, &x, &ctx), &ctx);
    return x;
}

/* The 3-RRR of examples/3rrr.yaml with its links 1e6, 1e7 and 1e8 times stiffer, drives locked,
 * from the quasi-static start along its p2p (damping 5 % at modes 1 and 3): the platform error
 * falls as 1/stiffness, and the reactions at the locked drives A_i tend to the rigid-body drives:
 * 5.7e-5, 1.7e-5, 2.4e-6 of the largest (0.444 N m). They tend as 1/sqrt(stiffness), not 1/k:
 * the quintic's jerk jumps at both ends, and a jump dj excites vibrations whose accelerations are
 * dj / w (the same with 20 or 70 % damping, or dt 0.2 ms), so 1e-5 needs the links 1e8 times
 * stiffer. */
static void test_3rrr_rigid_limit(void **state)
{
    (void)state;
    void *params = NULL;
    const pkm_case *c = ked_load_file("examples/3rrr.yaml", &params);
    pkm_robot *r = params; /* a robot case's parameters begin with its description */
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    assert_pkm_ok(pkm_trajectory_create_analytic(&c->traj[0], 3, &tr, &ctx), &ctx);
    double peak[3], diff[3];
    for (int s = 0; s < 3; s++) {
        for (int b = 0; b < r->nbody; b++) {
            r->body[b].material.E *= s == 0 ? 1e6 : 10.0;
            r->body[b].material.G *= s == 0 ? 1e6 : 10.0;
        }
        const run_rows x = rigid_limit_run(c, params, tr);
        peak[s] = fmax(x.peak[0], x.peak[1]);
        diff[s] = x.reaction_diff / x.drive;
        print_message("3-RRR links x 1e%d: reactions - drives %.3e of %.4g N m; largest error "
                      "%.4e m\n",
                      6 + s, diff[s], x.drive, peak[s]);
        assert_true(x.drive > 0.0);
    }
    assert_close(peak[0] / peak[1], 10.0, 1e-2, 0.0);
    assert_close(peak[1] / peak[2], 10.0, 1e-2, 0.0);
    assert_true(diff[1] < diff[0] && diff[2] < diff[1]);
    assert_true(diff[2] < 1e-5);
    /* Rotors on the drives A_i (1e-3 kg m^2) and on the elbows B_i (5e-4): the rigid model's
     * drives take J d'' of both, the reactions the clamps' rotors, the elastic model the elbows'
     * on their coordinates (the transient's rotor loads): 2.4e-6 as without them; without the
     * elbows' rotor loads 4.4e-3, without the drives' rotors in the reactions 8.4e-3. */
    double plain = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; j < r->njoint && pass == 1; j++)
            if (r->joint[j].name[0] == 'A' || r->joint[j].name[0] == 'B')
                r->joint[j].d.rotor_inertia[0] = r->joint[j].name[0] == 'A' ? 1e-3 : 5e-4;
        const run_rows x = rigid_limit_run(c, params, tr);
        if (pass == 0) {
            plain = x.drive;
            continue;
        }
        print_message("3-RRR links x 1e8 with rotors: reactions - drives %.3e of %.4g N m "
                      "(without rotors %.4g)\n",
                      x.reaction_diff / x.drive, x.drive, plain);
        assert_true(x.reaction_diff < 1e-5 * x.drive);
    }
    pkm_trajectory_destroy(&tr);
    pkm_case_params_destroy(&params);
}

/* NaVARo's generic route (the platform's coordinates driven, the inverse kinematics by the
 * closure) against the route through the case's drive hook, along p2p: every joint's drive and
 * reaction to 1e-9 of the largest. */
static void test_routes_agree(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("navaro");
    pkm_navaro_params par = navaro_defaults();
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    assert_pkm_ok(pkm_trajectory_create_analytic(&c->traj[0], 3, &tr, &ctx), &ctx);
    pkm_motion *m[2] = {NULL, NULL};
    const pkm_motion_route routes[2] = {PKM_MOTION_PLATFORM, PKM_MOTION_DRIVE};
    for (int k = 0; k < 2; k++) {
        pkm_motion_opts o = {.gravity = {0, 0, -9.81}, .route = routes[k], .singular = 1e-7};
        assert_pkm_ok(pkm_motion_create(c, &par, &o, &m[k], &ctx), &ctx);
        assert_int_equal(pkm_motion_route_of(m[k]), routes[k]);
    }
    const int nj = pkm_model_joint_count(pkm_motion_model(m[0]));
    pkm_joint_result *res = calloc(2 * (size_t)nj, sizeof(*res));
    double diff = 0.0, big = 0.0;
    for (int i = 0; i <= 150; i++) {
        const double t = 0.01 * i;
        double p[3], pd[3], pdd[3];
        assert_pkm_ok(pkm_trajectory_eval(tr, t, p, pd, pdd, &ctx), &ctx);
        for (int k = 0; k < 2; k++) {
            assert_pkm_ok(pkm_motion_at(m[k], t, p, pd, pdd, &ctx), &ctx);
            assert_pkm_ok(pkm_mbs_inverse(pkm_motion_mbs(m[k]), NULL, res + k * nj, &ctx), &ctx);
        }
        for (int j = 0; j < nj; j++)
            for (int q = 0; q < 6; q++) {
                diff = fmax(diff, fabs(res[j].wrench[q] - res[nj + j].wrench[q]));
                big = fmax(big, fabs(res[j].wrench[q]));
            }
    }
    print_message("navaro p2p, platform route against the drive hook: reactions %.2e of %.4g\n",
                  diff / big, big);
    assert_true(diff <= 1e-9 * big);
    free(res);
    for (int k = 0; k < 2; k++)
        pkm_motion_destroy(&m[k]);
    pkm_trajectory_destroy(&tr);
}

/* The five-bar's locked closure towards its parallel singularity (the distal links aligned near
 * y = 0.1727 m), by pkm_pose_conditioning: its conditioning falls as f1 does, f1 = 1000 Hz x the
 * conditioning within 3 % at 3.1e-3 .. 6.9e-3 (f1 3.0 .. 7.0 Hz; measured 986 to 1011), and below
 * PKM_NEAR_SINGULAR at f1 = 0.23 Hz; NaVARo's locked closure at theta = -60 deg, 0.026, is far
 * from it. */
static void test_locked_conditioning(void **state)
{
    (void)state;
    void *fp = NULL;
    const pkm_case *f = ked_load_file("examples/fivebar.yaml", &fp);
    pkm_modal_opts mo = pkm_modal_opts_default();
    mo.nev = 1;
    pkm_analysis *an = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_analysis_create(PKM_FORM_NODAL, PKM_EIG_ARPACK, &mo, &an, &ctx), &ctx);
    const double ys[4] = {0.176, 0.170, 0.167, 0.173};
    for (int i = 0; i < 4; i++) {
        const double pose[2] = {0.0, ys[i]};
        pkm_model *m = NULL;
        const pkm_modes *md = NULL;
        double cond = NAN;
        assert_pkm_ok(f->build(fp, pose, &m, &ctx), &ctx);
        assert_pkm_ok(pkm_analysis_solve(an, m, &md, NULL, &ctx), &ctx);
        assert_pkm_ok(pkm_pose_conditioning(f, m, &cond, &ctx), &ctx);
        print_message("five-bar y = %.3f m: conditioning %.3e, f1 %.4f Hz, f1 / cond %.1f\n", ys[i],
                      cond, md->freq_hz[0], md->freq_hz[0] / cond);
        if (i < 3) assert_close(md->freq_hz[0] / cond, 1000.0, 0.03, 0.0);
        if (i == 3) assert_true(cond < PKM_NEAR_SINGULAR);
        pkm_model_destroy(&m);
    }
    const pkm_case *n = pkm_case_find("navaro");
    pkm_navaro_params par = navaro_defaults();
    const double pose[3] = {0.0, 0.0, -PKM_PI / 3.0};
    pkm_model *m = NULL;
    double cond = NAN;
    assert_pkm_ok(n->build(&par, pose, &m, &ctx), &ctx);
    assert_pkm_ok(pkm_pose_conditioning(n, m, &cond, &ctx), &ctx);
    print_message("navaro at -60 deg: locked conditioning %.3e\n", cond);
    assert_true(cond > 10.0 * PKM_NEAR_SINGULAR);
    pkm_model_destroy(&m);
    /* The elastic clutches of Germain et al. 2015, sec. 5.3 (no clamp at A_i, a spring on each
     * link's joint there): their springs hold the joints as the clamps do, the same conditioning
     * (before, nothing was held: 0, and `modes` warned of a singularity at every pose). */
    par.clutch_k[0] = par.clutch_k[1] = 2000.0;
    double sprung = NAN;
    assert_pkm_ok(n->build(&par, pose, &m, &ctx), &ctx);
    assert_pkm_ok(pkm_pose_conditioning(n, m, &sprung, &ctx), &ctx);
    print_message("navaro at -60 deg, elastic clutches: %.3e\n", sprung);
    assert_close(sprung, cond, 1e-12, 0.0);
    pkm_model_destroy(&m);
    pkm_analysis_destroy(&an);
    pkm_case_params_destroy(&fp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_navaro_grid),
        cmocka_unit_test(test_navaro_file_equals_builtin),
        cmocka_unit_test(test_3rrr_rigid_limit),
        cmocka_unit_test(test_routes_agree),
        cmocka_unit_test(test_locked_conditioning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
