/* tests/test_studies_transient_pss.c: the 5-PSS/UPU along eq. 40 (Li et al. 2020) by its inverse
 * kinematics: the bodies' motion against its own finite differences, the paper variant through
 * the singular centre, the spherical variant stopping there, the reactions at the screws' motor
 * clamps against the rigid-body drives in the rigid limit.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pss5upu_defaults.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/dynamics.h"
#include "pkm/transient.h"

#include <stdlib.h>
#include <string.h>

#define NB_MAX 32

/* Eq. 40 at t: x = y = 10 sin(0.4 pi t) mm, alpha = beta = 7.5 sin(0.4 pi t) deg, z = 0. */
static void eq40(double t, double p[5], double pd[5], double pdd[5])
{
    const double w = 0.4 * PKM_PI,
                 a[5] = {0.010, 0.010, 0.0, 7.5 * PKM_PI / 180.0, 7.5 * PKM_PI / 180.0};
    for (int k = 0; k < 5; k++) {
        p[k] = a[k] * sin(w * t);
        pd[k] = a[k] * w * cos(w * t);
        pdd[k] = -a[k] * w * w * sin(w * t);
    }
}

/* The spatial acceleration is the time derivative of the twist at the global origin: the
 * inverse kinematics' A against central differences of its V (h = 1e-5 s), at 1.0 s and near the
 * centre (2.499 s), every body. */
static void test_body_motion_derivative(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("pss5upu");
    void *p = pss5upu_params(PKM_PSS5UPU_PAPER, 0.0, 1.0);
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(c->build_rigid(p, pkm_case_rigid_pose(c), &m, &ctx), &ctx);
    const int nb = pkm_model_body_count(m);
    assert_true(nb <= NB_MAX);
    const double ts[2] = {1.0, 2.499}, h = 1e-5;
    double worst = 0.0;
    for (int it = 0; it < 2; it++) {
        double V[3][NB_MAX][6], A[3][NB_MAX][6];
        for (int s = 0; s < 3; s++) {
            double q[5], qd[5], qdd[5];
            eq40(ts[it] + (s - 1) * h, q, qd, qdd);
            assert_pkm_ok(c->body_motion(p, q, qd, qdd, nb, V[s], A[s], &ctx), &ctx);
        }
        for (int b = 0; b < nb; b++)
            for (int k = 0; k < 6; k++) {
                const double fd = (V[2][b][k] - V[0][b][k]) / (2.0 * h);
                worst = fmax(worst, fabs(fd - A[1][b][k]) / (1.0 + fabs(A[1][b][k])));
            }
    }
    print_message("pss5upu inverse-kinematics motion: A against d V / dt, worst %.3g\n", worst);
    assert_true(worst < 1e-6);
    double q[5] = {0.0}, V[NB_MAX + 1][6], A[NB_MAX + 1][6];
    assert_int_equal(c->body_motion(p, q, q, q, nb + 1, V, A, &ctx), PKM_ERR_MODEL);
    pkm_model_destroy(&m);
    free(p);
}

/* The rigid model's closure (Newton on the loop-closure equations, velocities and accelerations
 * by linear solves) driven through the case's rail travels, followed along eq40-off from the
 * build pose to 0.5 s, against the closed-form inverse kinematics (the UPU's orientations
 * Rx(q1) Ry(beta) Rx(alpha - q1)): every body's twist and spatial acceleration. Both go through
 * the UPU's universal joints, the base one in the tree entered from its body_a (the ground), the
 * platform one a cut: with the tree turning about axis2 first, the two agreed in velocity at the
 * build pose but parted by 9e-4 rad/s^2 in acceleration there and by 3.4e-4 in velocity at
 * 0.5 s. Also the closure's A against central differences of its own V (h = 1e-5 s). */
static void test_closure_matches_inverse_kinematics(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("pss5upu");
    void *p = pss5upu_params(PKM_PSS5UPU_SPHERICAL, 0.0, 1.0);
    pkm_model *m = NULL;
    pkm_mbs *s = NULL;
    pkm_trajectory *tr = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(c->build_rigid(p, pkm_case_rigid_pose(c), &m, &ctx), &ctx);
    const double g[3] = {0.0, 0.0, 0.0};
    assert_pkm_ok(pkm_mbs_create(m, g, &s, &ctx), &ctx);
    int idx[PKM_POSE_MAX];
    for (int k = 0; k < c->ndriven; k++) {
        idx[k] = -1;
        for (int i = 0; i < pkm_mbs_coord_count(s); i++)
            if (strcmp(pkm_mbs_coord_name(s, i), c->driven_names[k]) == 0) idx[k] = i;
        assert_true(idx[k] >= 0);
    }
    assert_pkm_ok(pkm_mbs_set_driven(s, c->ndriven, idx, &ctx), &ctx);
    assert_pkm_ok(
        pkm_trajectory_create_analytic(pkm_case_traj_find(c, "eq40-off"), c->npose, &tr, &ctx),
        &ctx);
    const int nb = pkm_model_body_count(m);
    assert_true(nb <= NB_MAX);
    const double h = 1e-5;
    double worst = 0.0, worst_fd = 0.0, Vc[3][NB_MAX][6], Ac[NB_MAX][6];
    for (int step = 0; step <= 50; step++) {
        /* Three instants at 0.01 s steps (h either side at 0.25 s), the closure continued. */
        const int fd = step == 25;
        for (int k = fd ? -1 : 0; k <= (fd ? 1 : 0); k++) {
            const double t = 0.01 * step + k * h;
            double pose[5], pd[5], pdd[5], q[5], qd[5], qdd[5], V[NB_MAX][6], A[NB_MAX][6];
            assert_pkm_ok(pkm_trajectory_eval(tr, t, pose, pd, pdd, &ctx), &ctx);
            assert_pkm_ok(c->drive(p, pose, pd, pdd, q, qd, qdd, &ctx), &ctx);
            assert_pkm_ok(pkm_mbs_kinematics(s, t, q, qd, qdd, &ctx), &ctx);
            assert_pkm_ok(c->body_motion(p, pose, pd, pdd, nb, V, A, &ctx), &ctx);
            for (int b = 0; b < nb; b++) {
                double Ab[6];
                pkm_mbs_body_motion(s, b, Vc[k + 1][b], Ab);
                if (k != 0) continue;
                memcpy(Ac[b], Ab, sizeof(Ab));
                for (int i = 0; i < 6; i++) {
                    const double dv = fabs(Vc[1][b][i] - V[b][i]) / (1.0 + fabs(V[b][i]));
                    const double da = fabs(Ab[i] - A[b][i]) / (1.0 + fabs(A[b][i]));
                    worst = fmax(worst, fmax(dv, da));
                }
            }
        }
        for (int b = 0; b < nb && fd; b++)
            for (int i = 0; i < 6; i++)
                worst_fd = fmax(worst_fd, fabs((Vc[2][b][i] - Vc[0][b][i]) / (2.0 * h) - Ac[b][i]) /
                                              (1.0 + fabs(Ac[b][i])));
    }
    print_message("pss5upu closure against inverse kinematics, 0-0.5 s: worst |dV|, |dA| %.3g; "
                  "closure A against d V / dt %.3g\n",
                  worst, worst_fd);
    assert_true(worst < 1e-9);
    assert_true(worst_fd < 1e-8);
    pkm_trajectory_destroy(&tr);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
    free(p);
}

typedef struct seen {
    int64_t rows, nan_drive, nan_reaction, nonfinite_error;
    double drive, reaction_diff, err;
} seen;

static int record(void *user, const pkm_transient_row *row)
{
    seen *s = user;
    s->rows++;
    for (int k = 0; k < 6; k++) {
        s->nonfinite_error += !isfinite(row->error[k]);
        if (k < 3) s->err = fmax(s->err, fabs(row->error[k]));
    }
    for (int k = 0; k < row->ndrive; k++) {
        s->nan_drive += isnan(row->drive[k]);
        s->nan_reaction += isnan(row->reaction[k]);
        if (isnan(row->drive[k])) continue;
        s->drive = fmax(s->drive, fabs(row->drive[k]));
        s->reaction_diff = fmax(s->reaction_diff, fabs(row->reaction[k] - row->drive[k]));
    }
    return 0;
}

static pkm_status run(void *params, const char *traj, double start, double duration, int gravity,
                      seen *s, pkm_ctx *ctx)
{
    const pkm_case *c = pkm_case_find("pss5upu");
    pkm_trajectory *tr = NULL;
    assert_pkm_ok(pkm_trajectory_create_analytic(pkm_case_traj_find(c, traj), c->npose, &tr, ctx),
                  ctx);
    pkm_transient_opts o = pkm_transient_opts_default(c, 1e-3, duration);
    o.start = start;
    o.static_start = 1;
    o.gravity = gravity;
    o.singular = 1e-7;
    assert_pkm_ok(pkm_rayleigh_from_ratios(0.02, 154.3, 0.02, 856.3, &o.nm.l1, &o.nm.l2, ctx), ctx);
    memset(s, 0, sizeof(*s));
    const pkm_status st = pkm_transient_run(c, params, tr, &o, record, s, ctx);
    pkm_trajectory_destroy(&tr);
    return st;
}

/* Eq. 40 from 2.45 to 2.55 s crosses the centre at 2.5 s: the paper variant (links welded to the
 * platform) goes through with finite errors and reactions at every step, the rigid-body drives
 * NAN where the closure is singular; the spherical variant stops there naming the time. */
static void test_eq40_through_centre(void **state)
{
    (void)state;
    void *p = pss5upu_params(PKM_PSS5UPU_PAPER, 0.0, 1.0);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    seen s;
    assert_pkm_ok(run(p, "eq40", 2.45, 0.1, 0, &s, &ctx), &ctx);
    print_message("paper variant 2.45-2.55 s: %lld rows, max |e| %.3g m, %lld NAN drives\n",
                  (long long)s.rows, s.err, (long long)s.nan_drive);
    assert_int_equal(s.rows, 101);
    assert_int_equal(s.nonfinite_error, 0);
    assert_int_equal(s.nan_reaction, 0);
    assert_true(s.nan_drive > 0 && s.nan_drive < 5 * 101);
    assert_true(s.err > 0.0 && s.err < 1e-7);
    free(p);
    p = pss5upu_params(PKM_PSS5UPU_SPHERICAL, 0.0, 1.0);
    pkm_ctx_clear(&ctx);
    assert_int_equal(run(p, "eq40", 2.45, 0.1, 0, &s, &ctx), PKM_ERR_SINGULAR);
    assert_non_null(strstr(ctx.msg, "t = 2.5 s"));
    assert_true(s.rows == 50);
    free(p);
}

/* The rigid limit: links and screws 1e6 times stiffer, the spherical variant (the rigid model's
 * joints), eq40-off with gravity: the reactions at the motor clamps, times -2 pi / lead, equal the
 * rigid-body drives of the rails (1.6e-8 of the largest drive measured, 1.6e-7 before the reactions
 * used the loads' slopes; 2.3e-4 while the rigid tree turned a universal joint about its axes in
 * the wrong order). */
static void test_reactions_rigid_limit(void **state)
{
    (void)state;
    void *p = pss5upu_params(PKM_PSS5UPU_SPHERICAL, 0.0, 1e6);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    seen s;
    assert_pkm_ok(run(p, "eq40-off", 0.5, 0.01, 1, &s, &ctx), &ctx);
    print_message("rigid limit: largest drive %.6g N, reaction - drive %.3g N (%.3g)\n", s.drive,
                  s.reaction_diff, s.reaction_diff / s.drive);
    assert_int_equal(s.nan_reaction, 0);
    assert_int_equal(s.nan_drive, 0);
    assert_true(s.reaction_diff < 1e-5 * s.drive);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body_motion_derivative),
        cmocka_unit_test(test_closure_matches_inverse_kinematics),
        cmocka_unit_test(test_eq40_through_centre),
        cmocka_unit_test(test_reactions_rigid_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
