/* tests/test_dynamics_mast.c: the R-S-S chains of the chewing robot's surrogate
 * (tests/mast_fixture.h) driven through the parasitic pose of its condyle contacts: the crank
 * angles at t = 0.13 s against the reference values computed at 40 digits, loop closure, branch
 * tracking, mirror symmetry, an unreachable pose; the joint-space inertia M_A and the inertia
 * coupling index of the mechanism and of its 6-RSS twin, assembled here from the library's
 * Jacobians (chains, pose points, angular rates, the contacts' implicit derivatives), against
 * the reference values; the minimum-norm torques under a bite force by Lagrange's equations of
 * the first kind.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "mast_fixture.h"
#include "test_lapack.h"

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
 * differences (E: w = vee(dR/dt R^T) along a pose path). */
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
        assert_close(jth, fd, 1e-7, 1e-6);
        for (int k = 0; k < PKM_POSE_DOF; k++) {
            double Xp[PKM_POSE_DOF], Xm[PKM_POSE_DOF];
            memcpy(Xp, X, sizeof(X)), memcpy(Xm, X, sizeof(X));
            Xp[k] += h, Xm[k] -= h;
            const double fdx = (pkm_rss_closure(&ch[i], Xp, 0.2, NULL, NULL) -
                                pkm_rss_closure(&ch[i], Xm, 0.2, NULL, NULL)) /
                               (2 * h);
            assert_close(jx[k], fdx, 1e-7, 1e-6);
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

/* Inertias of the surrogate (g, mm): cranks about their shafts, couplers as line masses of
 * rho A L, the mandible's mass and inertia in body axes. */
static const double mast_crank[MAST_NCHAIN] = {5000, 5000, 4000, 4000, 3000, 3000};
static const double mast_rho_a = 7.8e-3 * 17.3494, mast_m_ee = 340.22;
static const double mast_i_ee[3][3] = {{4e5, 0, 2e4}, {0, 3e5, 0}, {2e4, 0, 5e5}};

/* Add w A^T B (A, B: 3 x n rows of stride n) to the n x n matrix M. */
static void add_atb(int n, double w, const double *A, const double *B, double *M)
{
    for (int p = 0; p < n; p++)
        for (int q = 0; q < n; q++)
            for (int k = 0; k < 3; k++)
                M[p * n + q] += w * A[k * n + p] * B[k * n + q];
}

/* The mass matrix M (n x n, n = 6 + nf) of the generalised coordinates q = (theta, free pose
 * coordinates) and J1 = -J_theta^-1 J_qEE (6 x nf); mj (6 x nf) maps the free rates to the pose
 * rates (the contacts' implicit derivatives, or the identity for the 6-RSS twin). M: the cranks,
 * each coupler m (J_S^T J_S / 3 + (J_S^T J_M + J_M^T J_S) / 6 + J_M^T J_M / 3) (the exact
 * integral of a line mass whose velocity is linear along it), the mandible
 * M0b^T diag(m, m, m, R I R^T) M0b with M0b = diag(I, E) mj (Cheng et al. 2024, eqs. 24-38 as
 * rebuilt). */
static void mass_matrix(const double X[PKM_POSE_DOF], const double th[MAST_NCHAIN], int nf,
                        const double *mj, double *M, double *J1)
{
    enum { NMAX = MAST_NCHAIN + PKM_POSE_DOF, N6 = PKM_POSE_DOF };
    const int n = MAST_NCHAIN + nf;
    pkm_rss ch[MAST_NCHAIN];
    mast_chains(ch);
    double E[3][3], R[3][3], Ib[3][3], Iw[3][3], T[6 * NMAX] = {0};
    memset(M, 0, sizeof(double) * (size_t)(n * n));
    pkm_pose_angular_jacobian(X, E);
    pkm_pose_rotation(X, R);
    pkm_mat3_mul(PKM_CONST33(R), mast_i_ee, Ib);
    for (int i = 0; i < 3; i++) /* I in base axes: R I R^T */
        for (int j = 0; j < 3; j++)
            Iw[i][j] = pkm_vec3_dot(Ib[i], R[j]);
    for (int j = 0; j < nf; j++) /* the mandible's twist map M0b in the columns of q */
        for (int k = 0; k < 3; k++) {
            T[k * n + MAST_NCHAIN + j] = mj[k * nf + j];
            for (int l = 0; l < 3; l++)
                T[(3 + k) * n + MAST_NCHAIN + j] += E[k][l] * mj[(3 + l) * nf + j];
        }
    add_atb(n, mast_m_ee, T, T, M);
    double IT[3 * NMAX];
    for (int k = 0; k < 3; k++)
        for (int p = 0; p < n; p++)
            IT[k * n + p] =
                Iw[k][0] * T[3 * n + p] + Iw[k][1] * T[4 * n + p] + Iw[k][2] * T[5 * n + p];
    add_atb(n, 1.0, T + 3 * n, IT, M);
    for (int i = 0; i < MAST_NCHAIN; i++) {
        double jth, jx[N6], P[3][N6], JS[3 * NMAX] = {0}, JM[3 * NMAX] = {0};
        pkm_rss_closure(&ch[i], X, th[i], &jth, jx);
        pkm_pose_point_jacobian(X, ch[i].M, P);
        const double local[3] = {-ch[i].r * sin(th[i]), ch[i].r * cos(th[i]), 0.0};
        double dS[3];
        pkm_mat3_apply(PKM_CONST33(ch[i].R0), local, dS);
        for (int j = 0; j < nf; j++) {
            double jq = 0.0;
            for (int k = 0; k < N6; k++) {
                jq += jx[k] * mj[k * nf + j];
                for (int d = 0; d < 3; d++)
                    JM[d * n + MAST_NCHAIN + j] += P[d][k] * mj[k * nf + j];
            }
            J1[i * nf + j] = -jq / jth;
        }
        for (int d = 0; d < 3; d++)
            JS[d * n + i] = dS[d];
        const double m = mast_rho_a * ch[i].L;
        add_atb(n, m / 3.0, JS, JS, M);
        add_atb(n, m / 6.0, JS, JM, M);
        add_atb(n, m / 6.0, JM, JS, M);
        add_atb(n, m / 3.0, JM, JM, M);
        M[i * n + i] += mast_crank[i];
    }
}

/* B = J1^+ = (J1^T J1)^-1 J1^T (nf x 6, B[i nf + p] its entry (p, i)) by Cholesky. */
static void pseudo_inverse(int nf, const double *J1, double *B)
{
    enum { N6 = PKM_POSE_DOF };
    double G[N6 * N6] = {0};
    for (int p = 0; p < nf; p++) {
        for (int q = 0; q < nf; q++)
            for (int i = 0; i < MAST_NCHAIN; i++)
                G[p * nf + q] += J1[i * nf + p] * J1[i * nf + q];
        for (int i = 0; i < MAST_NCHAIN; i++)
            B[i * nf + p] = J1[i * nf + p];
    }
    int info = 0, six = MAST_NCHAIN;
    dpotrf_("L", &nf, G, &nf, &info, 1);
    assert_int_equal(info, 0);
    dpotrs_("L", &nf, &six, G, &nf, B, &nf, &info, 1);
}

/* The joint-space inertia M_A = J5^T M J5, J5 = [I_6; J1^+] (eqs. 58-59) and MCI(a)_i =
 * sum_{k != i} |M_A(i,k)| / sum_k |M_A(i,k)| (eq. 60, one reading of the lost formula). */
static void joint_inertia(const double X[PKM_POSE_DOF], const double th[MAST_NCHAIN], int nf,
                          const double *mj, double MA[36], double mci[6])
{
    enum { NMAX = MAST_NCHAIN + PKM_POSE_DOF, N6 = PKM_POSE_DOF };
    const int n = MAST_NCHAIN + nf;
    double M[NMAX * NMAX], J1[MAST_NCHAIN * N6], B[N6 * MAST_NCHAIN], J5[NMAX * MAST_NCHAIN] = {0};
    mass_matrix(X, th, nf, mj, M, J1);
    pseudo_inverse(nf, J1, B);
    for (int i = 0; i < MAST_NCHAIN; i++) {
        J5[i * MAST_NCHAIN + i] = 1.0;
        for (int p = 0; p < nf; p++)
            J5[(MAST_NCHAIN + p) * MAST_NCHAIN + i] = B[i * nf + p];
    }
    for (int a = 0; a < 6; a++) {
        double off = 0.0, all = 0.0;
        for (int b = 0; b < 6; b++) {
            double v = 0.0;
            for (int p = 0; p < n; p++)
                for (int q = 0; q < n; q++)
                    v += J5[p * 6 + a] * M[p * n + q] * J5[q * 6 + b];
            MA[a * 6 + b] = v;
            all += fabs(v);
            off += a == b ? 0.0 : fabs(v);
        }
        mci[a] = off / all;
    }
}

/* The pose map of the target (dz rows for Z and gamma) or of the 6-RSS twin (the identity). */
static void pose_map(const double X[PKM_POSE_DOF], int twin, double *mj)
{
    if (twin) {
        for (int k = 0; k < 36; k++)
            mj[k] = k % 7 == 0;
        return;
    }
    pkm_contact c[MAST_NC];
    mast_contacts(c);
    double Xc[PKM_POSE_DOF], dz[MAST_NC * MAST_NF];
    memcpy(Xc, X, sizeof(Xc));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_contact_parasitic(MAST_NC, c, mast_par, 0.0, Xc, dz, NULL, &ctx), &ctx);
    memset(mj, 0, sizeof(double) * PKM_POSE_DOF * MAST_NF);
    for (int j = 0; j < MAST_NF; j++) {
        mj[mast_free[j] * MAST_NF + j] = 1.0;
        for (int s = 0; s < MAST_NC; s++)
            mj[mast_par[s] * MAST_NF + j] = dz[s * MAST_NF + j];
    }
}

/* M_A diagonals (home only) and MCI(a) of the target and its 6-RSS twin at home and at
 * t = 0.13 s, the twin replaying the target's whole pose (Z and gamma too); 12-digit references. */
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
    double X013[PKM_POSE_DOF] = {0}, th013[MAST_NCHAIN] = {0};
    for (int k = 0; k <= 13; k++)
        pose_and_cranks(0.01 * k, X013, th013);
    const double home[PKM_POSE_DOF] = {0}, th0[MAST_NCHAIN] = {0};
    for (size_t r = 0; r < sizeof(ref) / sizeof(ref[0]); r++) {
        double mj[36], MA[36], mci[6];
        const double *X = ref[r].home ? home : X013, *th = ref[r].home ? th0 : th013;
        pose_map(X, ref[r].twin, mj);
        joint_inertia(X, th, ref[r].twin ? PKM_POSE_DOF : MAST_NF, mj, MA, mci);
        for (int i = 0; i < 6; i++) {
            if (ref[r].home) assert_close(MA[i * 7], ref[r].diag[i], 1e-11, 0.0);
            assert_close(mci[i], ref[r].mci[i], 1e-11, 0.0);
        }
    }
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
    double X[PKM_POSE_DOF] = {0}, th[MAST_NCHAIN] = {0}, mean[2][6] = {{0}};
    for (int k = 0; k < 20; k++) {
        pose_and_cranks(k / 20.0, X, th);
        for (int twin = 0; twin < 2; twin++) {
            double mj[36], MA[36], mci[6];
            pose_map(X, twin, mj);
            joint_inertia(X, th, twin ? PKM_POSE_DOF : MAST_NF, mj, MA, mci);
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

/* Mass matrix, J1 and potential energy of the target at the free coordinates of X (parasitic
 * ones re-solved from their values in X) and crank angles th (not necessarily closed: the
 * Lagrangian of the first kind takes q = (theta, free) independent). */
static double target_state(double X[PKM_POSE_DOF], const double th[MAST_NCHAIN], double *M,
                           double *J1, double *mj)
{
    pose_map(X, 0, mj);
    pkm_contact c[MAST_NC];
    mast_contacts(c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_contact_parasitic(MAST_NC, c, mast_par, 0.0, X, NULL, NULL, &ctx), &ctx);
    mass_matrix(X, th, MAST_NF, mj, M, J1);
    pkm_rss ch[MAST_NCHAIN];
    mast_chains(ch);
    double R[3][3], V = mast_m_ee * 9800.0 * X[2];
    pkm_pose_rotation(X, R);
    for (int i = 0; i < MAST_NCHAIN; i++) { /* the coupler's centre at the middle of S M */
        double S[3], Mb[3];
        pkm_rss_tip(&ch[i], th[i], S);
        pkm_mat3_apply(PKM_CONST33(R), ch[i].M, Mb);
        V += mast_rho_a * ch[i].L * 9800.0 * 0.5 * (S[2] + Mb[2] + X[2]);
    }
    return V;
}

/* The free coordinates' rates along the trajectory (mm/s, rad/s). */
static void free_rates(double t, double v[MAST_NF])
{
    const double w = 2.0 * PKM_PI * t, o = 2.0 * PKM_PI;
    v[0] = 2.0 * o * cos(w), v[1] = o * cos(w + 0.3), v[2] = 0.03 * o * cos(w + 0.7);
    v[3] = 0.15 * o * cos(w);
}

enum { NQ = MAST_NCHAIN + MAST_NF };

/* The state (X, th tracked from their values) at t, the rates qd = (J1 v, v), the momentum M qd. */
static void momentum(double t, double X[PKM_POSE_DOF], double th[MAST_NCHAIN], double qd[NQ],
                     double p[NQ])
{
    double M[NQ * NQ], J1[MAST_NCHAIN * MAST_NF], mj[36], v[MAST_NF];
    pose_and_cranks(t, X, th);
    target_state(X, th, M, J1, mj);
    free_rates(t, v);
    for (int i = 0; i < MAST_NCHAIN; i++) {
        qd[i] = 0.0;
        for (int j = 0; j < MAST_NF; j++)
            qd[i] += J1[i * MAST_NF + j] * v[j];
    }
    memcpy(qd + MAST_NCHAIN, v, sizeof(v));
    for (int a = 0; a < NQ; a++) {
        p[a] = 0.0;
        for (int b = 0; b < NQ; b++)
            p[a] += M[a * NQ + b] * qd[b];
    }
}

/* T = qd^T M(q) qd / 2 and V at q = (th, the free coordinates of X) with qd held. */
static double lagrangian_parts(const double X0[PKM_POSE_DOF], const double th[MAST_NCHAIN],
                               const double qd[NQ], double *V)
{
    double X[PKM_POSE_DOF], M[NQ * NQ], J1[MAST_NCHAIN * MAST_NF], mj[36], T = 0.0;
    memcpy(X, X0, sizeof(X));
    *V = target_state(X, th, M, J1, mj);
    for (int a = 0; a < NQ; a++)
        for (int b = 0; b < NQ; b++)
            T += 0.5 * qd[a] * M[a * NQ + b] * qd[b];
    return T;
}

/* Minimum-norm torques at t = 0.13 s under the bite force f_b = (1, -0.5, 30) N at
 * r_b = (25, 20, -12) mm by Lagrange's equations of the first kind (Cheng et al. 2024, eqs.
 * 55-57, rebuilt): Q = d/dt(M qd) - dT/dq + dV/dq by central differences (time, coordinates),
 * tau = (J1^T)^+ (J3^T Q - F_EE), F_EE = J_b^T f_b. Against the 8-digit reference values. */
static void test_torques(void **state)
{
    (void)state;
    const double t0 = 0.13, h = 1e-5;
    double X[PKM_POSE_DOF] = {0}, th[MAST_NCHAIN] = {0}, qd[NQ], p[NQ], Q[NQ];
    for (int k = 0; k < 13; k++)
        pose_and_cranks(0.01 * k, X, th);
    momentum(t0, X, th, qd, p);
    for (int s = -1; s <= 1; s += 2) {
        double Xs[PKM_POSE_DOF], ths[MAST_NCHAIN], qds[NQ], ps[NQ];
        memcpy(Xs, X, sizeof(X)), memcpy(ths, th, sizeof(th));
        momentum(t0 + s * h, Xs, ths, qds, ps);
        for (int a = 0; a < NQ; a++)
            Q[a] = (s < 0 ? 0.0 : Q[a]) + s * ps[a] / (2.0 * h);
    }
    for (int a = 0; a < NQ; a++) {
        const double hq = 1e-6;
        double Tv[2], Vv[2];
        for (int s = 0; s < 2; s++) {
            double Xs[PKM_POSE_DOF], ths[MAST_NCHAIN];
            memcpy(Xs, X, sizeof(X)), memcpy(ths, th, sizeof(th));
            double *q = a < MAST_NCHAIN ? &ths[a] : &Xs[mast_free[a - MAST_NCHAIN]];
            *q += s ? hq : -hq;
            Tv[s] = lagrangian_parts(Xs, ths, qd, &Vv[s]);
        }
        Q[a] += (-(Tv[1] - Tv[0]) + (Vv[1] - Vv[0])) / (2.0 * hq);
    }
    double M[NQ * NQ], J1[MAST_NCHAIN * MAST_NF], mj[36], B[MAST_NF * MAST_NCHAIN], P[3][6];
    target_state(X, th, M, J1, mj);
    pseudo_inverse(MAST_NF, J1, B);
    const double fb[3] = {1e6, -0.5e6, 30e6}, rb[3] = {25.0, 20.0, -12.0}; /* g mm / s^2 */
    pkm_pose_point_jacobian(X, rb, P);
    double rhs[MAST_NF];
    for (int j = 0; j < MAST_NF; j++) {
        rhs[j] = Q[MAST_NCHAIN + j];
        for (int i = 0; i < MAST_NCHAIN; i++)
            rhs[j] += J1[i * MAST_NF + j] * Q[i];
        for (int d = 0; d < 3; d++)
            for (int k = 0; k < PKM_POSE_DOF; k++)
                rhs[j] -= fb[d] * P[d][k] * mj[k * MAST_NF + j];
    }
    const double ref[MAST_NCHAIN] = {0.31990664,  -0.06216404, 0.25763482,
                                     -0.14900497, 0.062543973, -0.071280529};
    for (int i = 0; i < MAST_NCHAIN; i++) {
        double tau = 0.0;
        for (int j = 0; j < MAST_NF; j++)
            tau += B[i * MAST_NF + j] * rhs[j];
        assert_close(tau * 1e-9, ref[i], 0.0, 1e-8); /* N m, the references' last digit */
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
        cmocka_unit_test(test_jacobians),
        cmocka_unit_test(test_inertia),
        cmocka_unit_test(test_inertia_means),
        cmocka_unit_test(test_torques),
        cmocka_unit_test(test_unreachable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
