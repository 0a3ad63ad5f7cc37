/* tests/test_dynamics_mast.c: the R-S-S chains of the chewing robot's surrogate
 * (tests/mast_fixture.h) driven through the parasitic pose of its condyle contacts: the crank
 * angles at t = 0.13 s against the reference values computed at 40 digits, loop closure, branch
 * tracking, mirror symmetry, an unreachable pose; the joint-space inertia M_A and the inertia
 * coupling index of the mechanism and of its 6-RSS twin (pkm/mast.h) against the reference
 * values.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "mast_fixture.h"

/* The pose at t from the previous one (parasitic coordinates by Newton), then the cranks. */
static void pose_and_cranks(double t, double X[PKM_POSE_DOF], double th[MAST_NCHAIN])
{
    pkm_mast m;
    mast_mechanism(1, &m);
    pkm_mast_state s = {0};
    memcpy(s.X, X, sizeof(s.X)), memcpy(s.th, th, sizeof(double) * MAST_NCHAIN);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(mast_state_at(&m, t, &s, &ctx), &ctx);
    memcpy(X, s.X, sizeof(s.X)), memcpy(th, s.th, sizeof(double) * MAST_NCHAIN);
}

/* The closure |M - S|^2 - L^2 of chain c (mm^2). */
static double closure(const pkm_rss *c, const double X[PKM_POSE_DOF], double th)
{
    return pkm_rss_closure(c, X, th, NULL, NULL);
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
        assert_true(fabs(closure(&ch[i], X, 0.0)) <= 1e-9);
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
        assert_true(fabs(closure(&ch[i], X, th[i])) <= 1e-9);
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
            assert_true(fabs(closure(&ch[i], X, th[i])) <= 1e-9);
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

/* The closure's derivatives in theta and in the pose, and the angle-rate map E, against central
 * differences (E: w = vee(dR/dt R^T) along a pose path): 1e-8 relative (the surrogate's T2;
 * the exact check is the complex step of test_dynamics_mast_exact.c). */
static void test_jacobians(void **state)
{
    (void)state;
    pkm_rss ch[MAST_NCHAIN];
    mast_chains(ch);
    const double h = 1e-6, X[PKM_POSE_DOF] = {1.0, -2.0, -4.0, 0.1, -0.2, 0.3};
    for (int i = 0; i < MAST_NCHAIN; i++) {
        double jth, jx[PKM_POSE_DOF];
        pkm_rss_closure(&ch[i], X, 0.2, &jth, jx);
        const double fd = (pkm_rss_closure(&ch[i], X, 0.2 + h, NULL, NULL) -
                           pkm_rss_closure(&ch[i], X, 0.2 - h, NULL, NULL)) /
                          (2 * h);
        assert_close(jth, fd, 1e-8, 0.0);
        for (int k = 0; k < PKM_POSE_DOF; k++) {
            double Xp[PKM_POSE_DOF], Xm[PKM_POSE_DOF];
            memcpy(Xp, X, sizeof(X)), memcpy(Xm, X, sizeof(X));
            Xp[k] += h, Xm[k] -= h;
            const double fdx = (pkm_rss_closure(&ch[i], Xp, 0.2, NULL, NULL) -
                                pkm_rss_closure(&ch[i], Xm, 0.2, NULL, NULL)) /
                               (2 * h);
            assert_close(jx[k], fdx, 1e-8, 1e-8 * fabs(jth));
        }
    }
    const double rate[3] = {0.7, -1.1, 0.4};
    double E[3][3], R[3][3], Rp[3][3], Rm[3][3], Xp[PKM_POSE_DOF], Xm[PKM_POSE_DOF];
    memcpy(Xp, X, sizeof(X)), memcpy(Xm, X, sizeof(X));
    for (int a = 0; a < 3; a++)
        Xp[3 + a] += h * rate[a], Xm[3 + a] -= h * rate[a];
    pkm_pose_angular_jacobian(X, E);
    pkm_pose_rotation(X, R);
    pkm_pose_rotation(Xp, Rp);
    pkm_pose_rotation(Xm, Rm);
    double W[3][3] = {{0}}; /* dR/dt R^T = [w]x */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                W[i][j] += (Rp[i][k] - Rm[i][k]) / (2 * h) * R[j][k];
    const double w[3] = {W[2][1], W[0][2], W[1][0]};
    for (int i = 0; i < 3; i++)
        assert_close(E[i][0] * rate[0] + E[i][1] * rate[1] + E[i][2] * rate[2], w[i], 1e-8, 1e-9);
}

/* M_A diagonals (home only) and MCI(a) of the target and its 6-RSS twin at home and at
 * t = 0.13 s, the twin replaying the target's whole pose (Z and gamma too); 12-digit references
 * (the notes' surrogate, computed at 40 digits). */
static void test_inertia(void **state)
{
    (void)state;
    static const struct {
        int home, twin;
        double diag[6], mci[6];
    } ref[] = {
        {1,
         0,
         {156325.323488, 156325.323488, 34919.657176, 34919.657176, 140177.654129, 140177.654129},
         {0.720933999151, 0.720933999151, 0.806808352439, 0.806808352439, 0.715405600615,
          0.715405600615}},
        {1,
         1,
         {3243764.91571, 3243764.91571, 2445421.88784, 2445421.88784, 364664.503004, 364664.503004},
         {0.741584613227, 0.741584613227, 0.777313676517, 0.777313676517, 0.901537013547,
          0.901537013547}},
        {0,
         0,
         {0},
         {0.707823049263, 0.756363813701, 0.800040175763, 0.75096374421, 0.669730700733,
          0.659511117659}},
        {0,
         1,
         {0},
         {0.690772040064, 0.746148313236, 0.726928576332, 0.778679127729, 0.84419388165,
          0.846389761897}},
    };
    pkm_mast tg, tw;
    mast_mechanism(1, &tg), mast_mechanism(0, &tw);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_mast_state home = {0}, s013 = {0};
    const double zero[MAST_NF] = {0};
    assert_pkm_ok(pkm_mast_kinematics(&tg, 0.0, zero, zero, zero, &home, &ctx), &ctx);
    for (int k = 0; k <= 13; k++)
        assert_pkm_ok(mast_state_at(&tg, 0.01 * k, &s013, &ctx), &ctx);
    double worst = 0.0;
    for (size_t r = 0; r < sizeof(ref) / sizeof(ref[0]); r++) {
        pkm_mast_state s = ref[r].home ? home : s013, sw;
        if (ref[r].twin) {
            assert_pkm_ok(mast_twin_at(&tw, &s, &sw, &ctx), &ctx);
            s = sw;
        }
        double MA[36], mci[6], mcib[6];
        assert_pkm_ok(pkm_mast_joint_inertia(ref[r].twin ? &tw : &tg, &s, MA, mci, mcib, &ctx),
                      &ctx);
        for (int i = 0; i < 6; i++) {
            if (ref[r].home) {
                assert_close(MA[i * 7], ref[r].diag[i], 1e-11, 0.0);
                worst = fmax(worst, fabs(MA[i * 7] / ref[r].diag[i] - 1.0));
            }
            assert_close(mci[i], ref[r].mci[i], 1e-11, 0.0);
            worst = fmax(worst, fabs(mci[i] / ref[r].mci[i] - 1.0));
            /* the two readings of eq. 60: b = a / (1 - a) */
            assert_close(mcib[i], mci[i] / (1.0 - mci[i]), 1e-13, 0.0);
            for (int k = 0; k < 6; k++) /* M_A symmetric */
                assert_close(MA[i * 6 + k], MA[k * 6 + i], 1e-13, 1e-9);
        }
    }
    print_message("M_A, MCI: worst relative error against the references %.2e\n", worst);
}

/* The time means of MCI(a) over t = k/20 s, k = 0..19 (8-digit references), and the target's
 * ratio to the twin (the paper's comparison; on this surrogate 79-105 %). */
static void test_inertia_means(void **state)
{
    (void)state;
    static const double ref[2][6] = {
        {0.72412537, 0.73798918, 0.80307722, 0.77801524, 0.69379174, 0.69408898},
        {0.71844993, 0.73882125, 0.76204697, 0.77938111, 0.87601932, 0.87204099}};
    static const double ratio[6] = {100.79, 99.887, 105.38, 99.825, 79.198, 79.594};
    pkm_mast tg, tw;
    mast_mechanism(1, &tg), mast_mechanism(0, &tw);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_mast_state s = {0}, sw;
    double mean[2][6] = {{0}};
    for (int k = 0; k < 20; k++) {
        assert_pkm_ok(mast_state_at(&tg, k / 20.0, &s, &ctx), &ctx);
        assert_pkm_ok(mast_twin_at(&tw, &s, &sw, &ctx), &ctx);
        for (int twin = 0; twin < 2; twin++) {
            double MA[36], mci[6];
            assert_pkm_ok(
                pkm_mast_joint_inertia(twin ? &tw : &tg, twin ? &sw : &s, MA, mci, NULL, &ctx),
                &ctx);
            for (int i = 0; i < 6; i++)
                mean[twin][i] += mci[i] / 20.0;
        }
    }
    for (int i = 0; i < 6; i++) {
        assert_close(mean[0][i], ref[0][i], 1e-8, 0.0);
        assert_close(mean[1][i], ref[1][i], 1e-8, 0.0);
        assert_close(100.0 * mean[0][i] / mean[1][i], ratio[i], 1e-4, 0.0);
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

extern void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
                    const int *lda, double *s, double *u, const int *ldu, double *vt,
                    const int *ldvt, double *work, const int *lwork, int *info, size_t ljobu,
                    size_t ljobvt);

/* T18: the Gruebler-Kutzbach mobility of the topology, 4 (target) and 6 (6-RSS twin), equals
 * 12 - rank of the whole constraint Jacobian at a general pose: the six closures h_i in
 * (X, theta) and the contact rows in X (SVD, rank above 1e-10 of the largest singular value). */
static void test_mobility(void **state)
{
    (void)state;
    for (int on = 0; on < 2; on++) {
        pkm_mast m;
        mast_mechanism(on, &m);
        double X[PKM_POSE_DOF] = {0}, th[MAST_NCHAIN] = {0};
        pose_and_cranks(0.13, X, th);
        const int rows = MAST_NCHAIN + m.ncontact, cols = PKM_POSE_DOF + MAST_NCHAIN;
        double A[(MAST_NCHAIN + PKM_MAST_MAX_CONTACTS) * (PKM_POSE_DOF + MAST_NCHAIN)] = {0};
        for (int i = 0; i < MAST_NCHAIN; i++) {
            double jth = 0.0, jx[PKM_POSE_DOF];
            pkm_rss_closure(&m.chain[i], X, th[i], &jth, jx);
            for (int k = 0; k < PKM_POSE_DOF; k++)
                A[k * rows + i] = jx[k]; /* column-major */
            A[(PKM_POSE_DOF + i) * rows + i] = jth;
        }
        double Phi[PKM_MAST_MAX_CONTACTS], dPhi[PKM_MAST_MAX_CONTACTS * PKM_POSE_DOF];
        if (m.ncontact > 0) pkm_contact_residual(m.ncontact, m.contact, X, Phi, dPhi, NULL);
        for (int c = 0; c < m.ncontact; c++)
            for (int k = 0; k < PKM_POSE_DOF; k++)
                A[k * rows + MAST_NCHAIN + c] = dPhi[c * PKM_POSE_DOF + k];
        double sv[PKM_POSE_DOF + MAST_NCHAIN], work[512];
        const int lwork = 512, one = 1;
        int info = -1;
        dgesvd_("N", "N", &rows, &cols, A, &rows, sv, NULL, &one, NULL, &one, work, &lwork, &info,
                1, 1);
        assert_int_equal(info, 0);
        int rank = 0;
        for (int k = 0; k < (rows < cols ? rows : cols); k++)
            rank += sv[k] > 1e-10 * sv[0];
        print_message("%s: Gruebler-Kutzbach %d, 12 - rank %d\n", on ? "target" : "6-RSS twin",
                      pkm_mast_mobility(&m), cols - rank);
        assert_int_equal(pkm_mast_mobility(&m), on ? 4 : 6);
        assert_int_equal(pkm_mast_mobility(&m), cols - rank);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_home),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_branch_tracking),
        cmocka_unit_test(test_mirror),
        cmocka_unit_test(test_jacobians),
        cmocka_unit_test(test_inertia),
        cmocka_unit_test(test_inertia_means),
        cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_mobility),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
