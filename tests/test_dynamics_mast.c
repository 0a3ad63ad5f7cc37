/* tests/test_dynamics_mast.c: the R-S-S chains of the chewing robot's surrogate
 * (tests/mast_fixture.h) driven through the parasitic pose of its condyle contacts: the crank
 * angles at t = 0.13 s against the reference values computed at 40 digits, loop closure, branch
 * tracking, mirror symmetry, an unreachable pose.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "mast_fixture.h"

/* The pose at t from the previous one (parasitic coordinates by Newton), then the cranks. */
static void pose_and_cranks(double t, double X[PKM_POSE_DOF], double th[MAST_NCHAIN])
{
    pkm_contact c[MAST_NC];
    pkm_rss ch[MAST_NCHAIN];
    mast_contacts(c);
    mast_chains(ch);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    mast_free_at(t, X);
    assert_pkm_ok(pkm_contact_parasitic(MAST_NC, c, mast_par, t, X, NULL, NULL, &ctx), &ctx);
    for (int i = 0; i < MAST_NCHAIN; i++)
        assert_pkm_ok(pkm_rss_ik(&ch[i], X, t, &th[i], &ctx), &ctx);
}

/* |M - S| - L of chain c at pose X and crank angle th (mm). */
static double closure(const pkm_rss *c, const double X[PKM_POSE_DOF], double th)
{
    double R[3][3], M[3], S[3], d[3];
    pkm_pose_rotation(X, R);
    pkm_mat3_apply(PKM_CONST33(R), c->M, M);
    for (int k = 0; k < 3; k++)
        M[k] += X[k];
    pkm_rss_tip(c, th, S);
    pkm_vec3_sub(M, S, d);
    return pkm_vec3_norm(d) - c->L;
}

static void test_home(void **state)
{
    (void)state;
    pkm_rss ch[MAST_NCHAIN];
    mast_chains(ch);
    const double X[PKM_POSE_DOF] = {0};
    for (int i = 0; i < MAST_NCHAIN; i++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        double th = 0.3; /* from a nearby guess the tracked root is the home one */
        assert_pkm_ok(pkm_rss_ik(&ch[i], X, 0.0, &th, &ctx), &ctx);
        assert_true(fabs(th) <= 1e-13);
        assert_true(fabs(closure(&ch[i], X, 0.0)) <= 1e-12);
        /* the shaft frame is a rotation (the mirrored chains too) */
        double det = 0.0;
        for (int k = 0; k < 3; k++)
            det += ch[i].R0[0][k] * (ch[i].R0[1][(k + 1) % 3] * ch[i].R0[2][(k + 2) % 3] -
                                     ch[i].R0[1][(k + 2) % 3] * ch[i].R0[2][(k + 1) % 3]);
        assert_close(det, 1.0, 1e-14, 0.0);
    }
}

/* Along the trajectory from home, sample by sample (branch tracking), to t = 0.13 s. */
static void test_golden(void **state)
{
    (void)state;
    double X[PKM_POSE_DOF] = {0}, th[MAST_NCHAIN] = {0};
    for (int k = 0; k <= 13; k++)
        pose_and_cranks(0.01 * k, X, th);
    const double ref[MAST_NCHAIN] = {0.322853344751975,  -0.544845814764294, 0.372434119206322,
                                     -0.490712791014406, 0.12679433826603,   0.0872754832945209};
    for (int i = 0; i < MAST_NCHAIN; i++)
        assert_close(th[i], ref[i], 1e-13, 0.0);
    pkm_rss ch[MAST_NCHAIN];
    mast_chains(ch);
    for (int i = 0; i < MAST_NCHAIN; i++)
        assert_true(fabs(closure(&ch[i], X, th[i])) <= 1e-12);
}

/* Over one period at 1 ms from the pose at t = 0 (not the home pose: Y and alpha are not 0
 * there): every chain closes, no crank jumps to its other root, the period closes. */
static void test_branch_tracking(void **state)
{
    (void)state;
    pkm_rss ch[MAST_NCHAIN];
    mast_chains(ch);
    double X[PKM_POSE_DOF] = {0}, th[MAST_NCHAIN] = {0}, prev[MAST_NCHAIN], first[MAST_NCHAIN];
    pose_and_cranks(0.0, X, th);
    memcpy(prev, th, sizeof(th)), memcpy(first, th, sizeof(th));
    for (int k = 1; k <= 1000; k++) {
        pose_and_cranks(1e-3 * k, X, th);
        for (int i = 0; i < MAST_NCHAIN; i++) {
            assert_true(fabs(closure(&ch[i], X, th[i])) <= 1e-11);
            assert_true(fabs(th[i] - prev[i]) <= 0.01);
            prev[i] = th[i];
        }
    }
    for (int i = 0; i < MAST_NCHAIN; i++)
        assert_close(th[i], first[i], 1e-11, 1e-13);
}

/* At poses symmetric in Y (Y = alpha = gamma = 0) the mirrored chains turn opposite ways. */
static void test_mirror(void **state)
{
    (void)state;
    pkm_rss ch[MAST_NCHAIN];
    mast_chains(ch);
    for (int k = 0; k < 10; k++) {
        const double X[PKM_POSE_DOF] = {3.0 * sin(k),       0.0, -2.0 + cos(k), 0.0,
                                        0.1 * sin(2.0 * k), 0.0};
        double th[MAST_NCHAIN] = {0};
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        for (int i = 0; i < MAST_NCHAIN; i++)
            assert_pkm_ok(pkm_rss_ik(&ch[i], X, 0.0, &th[i], &ctx), &ctx);
        for (int i = 0; i < MAST_NCHAIN; i += 2)
            assert_close(th[i + 1], -th[i], 1e-12, 1e-15);
    }
}

static void test_unreachable(void **state)
{
    (void)state;
    pkm_rss ch[MAST_NCHAIN];
    mast_chains(ch);
    const double X[PKM_POSE_DOF] = {0.0, 0.0, 500.0, 0.0, 0.0, 0.0};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double th = 0.0;
    assert_int_equal(pkm_rss_ik(&ch[2], X, 0.5, &th, &ctx), PKM_ERR_UNREACHABLE);
    assert_non_null(strstr(ctx.msg, "chain theta3"));
    assert_non_null(strstr(ctx.msg, "t = 0.5"));
    ch[0].r = 0.0;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_rss_ik(&ch[0], X, 0.5, &th, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "chain theta1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_home),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_branch_tracking),
        cmocka_unit_test(test_mirror),
        cmocka_unit_test(test_unreachable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
