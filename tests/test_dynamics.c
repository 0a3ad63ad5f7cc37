/* tests/test_dynamics.c: the rigid-body inverse dynamics on the two mechanisms of Guo, Ju, Wang
 * 2024 against reference values computed independently (a plain Newton-Euler recursion in
 * another language, for the five-axis tree; a closure-and-force solve of the three-loop chain
 * with the rebuilt pivots), the power balance and the dense KKT reference, on the built-in cases
 * tree5 and loop3 (the robot files cases/tree5.yaml and cases/loop3.yaml embedded in pkmflex).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dyn_util.h"

#include <stdio.h>

/* The mechanism the test runs on (its state): a built-in case's name (dyn_source). */
#define ON_CASE(test, name)                                                                        \
    ((struct CMUnitTest){#test " (" name ")", test, NULL, NULL, (void *)(name)})

/* tree5's system (source: the state); its joints "1" ... "5" are the model's joints 0 ... 4. */
static pkm_mbs *tree5_system(pkm_model **m, void **source)
{
    *m = dyn_source(*source);
    static const char *names[5] = {"1", "2", "3", "4", "5"};
    for (int j = 0; j < 5; j++)
        assert_int_equal(dyn_joint(*m, names[j]), j);
    pkm_mbs *s = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_mbs_create(*m, (const double[3]){0, 0, -9.8}, &s, &ctx), PKM_OK);
    return s;
}

/* tree5 at time t under the default motion (every joint 0.2 rad/s^2 from rest). */
static void tree5_at(pkm_mbs *s, double t, pkm_joint_result res[5])
{
    const double q[5] = {0.1 * t * t, 0.1 * t * t, 0.1 * t * t, 0.1 * t * t, 0.1 * t * t};
    const double qd[5] = {0.2 * t, 0.2 * t, 0.2 * t, 0.2 * t, 0.2 * t};
    const double qdd[5] = {0.2, 0.2, 0.2, 0.2, 0.2};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_mbs_kinematics(s, t, q, qd, qdd, &ctx), PKM_OK);
    assert_int_equal(pkm_mbs_inverse(s, NULL, res, &ctx), PKM_OK);
}

/* Largest difference from a 6-decimal reference seen by near6 (printed by the tests). */
static double worst6;

/* The reference table is printed to 6 decimals. */
static void near6(double got, double want)
{
    worst6 = fmax(worst6, fabs(got - want));
    if (fabs(got - want) > 5.01e-7 + 1e-9 * fabs(want)) {
        printf("got %.9f want %.6f\n", got, want);
        fail();
    }
}

static void test_tree5_table(void **state)
{
    /* t, joint (1-based), ideal drive, bending moment, radial force (seed-002 notes, sec. 4.2,
     * computed there by an independent recursion). */
    static const double ref[][5] = {
        {0, 1, 1.965952, 27.439889, 2.043916},    {0, 2, 1.499971, 46.670466, 1.474567},
        {0, 3, 0.180010, 17.639612, 1.066581},    {0, 4, 1.095981, 31.113644, 1.111385},
        {0, 5, 0.144006, 11.759741, 0.787907},    {0.15, 1, 1.970776, 27.490845, 2.047790},
        {0.15, 2, 1.511767, 46.709450, 1.483890}, {0.15, 4, 1.087852, 31.087668, 1.105983},
        {0.5, 1, 2.025536, 28.029897, 2.105460},  {0.5, 2, 1.632271, 47.104573, 1.586423},
        {0.5, 4, 1.006621, 30.825728, 1.057100},  {1, 1, 2.284110, 30.088976, 2.506219},
        {1, 2, 2.043826, 48.417043, 2.021991},    {1, 4, 0.752218, 29.973183, 0.968880},
        {2, 1, 4.499021, 41.167656, 5.663037},    {2, 2, 3.808744, 53.679067, 4.849103},
        {2, 4, -0.000667, 26.850948, 1.182936},   {5, 1, 6.029607, 78.518164, 23.353058},
        {5, 2, 2.461462, 69.476614, 38.970715},   {5, 4, 8.169490, 35.849908, 16.811632}};
    static const double axial[5] = {107.8, 58.8, 29.4, 39.2, 19.6};
    pkm_model *m = NULL;
    pkm_mbs *s = tree5_system(&m, state);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]); i++) {
        pkm_joint_result res[5];
        tree5_at(s, ref[i][0], res);
        const pkm_joint_result *r = &res[(int)ref[i][1] - 1];
        near6(r->ideal, ref[i][2]);
        near6(r->drive, ref[i][2]);
        near6(r->m_bending, ref[i][3]);
        near6(r->f_radial, ref[i][4]);
        for (int j = 0; j < 5; j++) /* 9.8 times the subtree's mass, exactly */
            assert_true(fabs(res[j].f_axial - axial[j]) < 1e-12 * axial[j]);
    }
    printf("tree5 table: largest difference %.2e (the table's rounding: 5e-7)\n", worst6);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

static void test_tree5_mass_matrix(void **state)
{
    static const double ref[5][5] = {{4.729842, 2.999905, -0.299952, 2.479937, -0.079968},
                                     {2.999905, 4.439905, 0.060048, 0, 0},
                                     {-0.299952, 0.060048, 1.139952, 0, 0},
                                     {2.479937, 0, 0, 2.959937, 0.040032},
                                     {-0.079968, 0, 0, 0.040032, 0.759968}};
    pkm_model *m = NULL;
    pkm_mbs *s = tree5_system(&m, state);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double M[25], h[5];
    int c[5];
    for (int j = 0; j < 5; j++)
        assert_int_equal(pkm_mbs_joint_coords(s, j, &c[j]), 1);
    pkm_mbs_mass_matrix(s, M, h);
    for (int i = 0; i < 5; i++) {
        assert_true(fabs(h[i]) < 1e-12); /* gravity along the axes: no torque */
        for (int j = 0; j < 5; j++) {
            near6(M[c[i] * 5 + c[j]], ref[i][j]);
            assert_true(fabs(M[i * 5 + j] - M[j * 5 + i]) < 1e-14);
        }
    }
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

/* loop3 at crank angle 0.1 t from the previous solution (the kinematics' Newton starts there). */
static pkm_status loop3_at(pkm_mbs *s, double t, pkm_joint_result res[10], pkm_ctx *ctx)
{
    const double qa = 0.1 * t, qda = 0.1, qdda = 0.0;
    pkm_status st = pkm_mbs_kinematics(s, t, &qa, &qda, &qdda, ctx);
    if (st == PKM_OK && res != NULL) st = pkm_mbs_inverse(s, NULL, res, ctx);
    return st;
}

static pkm_mbs *loop3_system(pkm_model **m, void **source)
{
    *m = dyn_source(*source);
    pkm_mbs *s = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_mbs_create(*m, (const double[3]){0, -9.8, 0}, &s, &ctx), PKM_OK);
    assert_int_equal(pkm_mbs_coord_count(s), 7);
    assert_int_equal(pkm_mbs_constraint_count(s), 15);
    static const char *names[10] = {"1", "2", "3", "4", "1'", "2'", "1''", "C1", "C2", "C3"};
    for (int j = 0; j < 10; j++) /* the indices the tests below use */
        assert_int_equal(dyn_joint(*m, names[j]), j);
    return s;
}

static void test_loop3_angles(void **state)
{
    /* seed-002 notes sec. 4.3: q1, q2, q3, q4, q1', q2' at t = 1, 2, 4, ..., 14 s. */
    static const double ref[8][7] = {{1, 0.06926, -0.00000, 0.00000, -0.00000, 0.08191, -0.08186},
                                     {2, 0.13771, 0.00071, -0.00084, 0.00061, 0.16354, -0.16511},
                                     {4, 0.26999, 0.00462, -0.00540, 0.00391, 0.32471, -0.33500},
                                     {6, 0.39114, 0.01304, -0.01523, 0.01107, 0.48036, -0.50841},
                                     {8, 0.49146, 0.02930, -0.03418, 0.02493, 0.62533, -0.68444},
                                     {10, 0.55150, 0.06200, -0.07208, 0.05296, 0.74953, -0.86237},
                                     {12, 0.52420, 0.13745, -0.15866, 0.11842, 0.82861, -1.04168},
                                     {14, 0.25923, 0.36837, -0.41794, 0.32399, 0.78381, -1.22189}};
    static const double rate0[6] = {0.06951, -0.00035, 0.00041, -0.00030, 0.08196, -0.08109};
    pkm_model *m = NULL;
    pkm_mbs *s = loop3_system(&m, state);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int c[6];
    for (int j = 0; j < 6; j++)
        assert_int_equal(pkm_mbs_joint_coords(s, j, &c[j]), 1);
    assert_int_equal(loop3_at(s, 0.0, NULL, &ctx), PKM_OK);
    for (int k = 0; k < 6; k++) /* printed to 5 decimals */
        assert_true(fabs(pkm_mbs_qd(s)[c[k]] - rate0[k]) < 5.01e-6);
    int row = 0;
    for (int step = 1; step <= 140; step++) {
        const double t = 0.1 * step;
        assert_int_equal(loop3_at(s, t, NULL, &ctx), PKM_OK);
        double pos, vel;
        pkm_mbs_closure_residual(s, &pos, &vel);
        assert_true(pos < 1e-12 && vel < 1e-12);
        if (row < 8 && fabs(t - ref[row][0]) < 1e-9) {
            for (int k = 0; k < 6; k++)
                assert_true(fabs(pkm_mbs_q(s)[c[k]] - ref[row][1 + k]) < 1e-5);
            row++;
        }
    }
    assert_int_equal(row, 8);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

static void test_loop3_forces(void **state)
{
    /* t, |F3|, |F2|, |F1|, frictionless drive of 1'', radial force of 1'' (notes sec. 4.3). */
    static const double ref[6][6] = {{0, 28.6896, 69.1049, 70.3605, 0.88059, 58.7401},
                                     {2, 26.2252, 75.0180, 88.8282, 1.40652, 78.1415},
                                     {5, 21.7353, 81.5997, 128.9553, 1.94656, 119.9722},
                                     {10, 14.4331, 85.7018, 249.4212, 0.90499, 242.3730},
                                     {12, 13.0874, 84.9453, 344.8717, -1.79159, 337.8355},
                                     {14, 14.3058, 79.7597, 501.2515, -9.74748, 493.0219}};
    pkm_model *m = NULL;
    pkm_mbs *s = loop3_system(&m, state);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_joint_result res[10];
    int row = 0;
    for (int step = 0; step <= 140; step++) {
        const double t = 0.1 * step;
        assert_int_equal(loop3_at(s, t, res, &ctx), PKM_OK);
        if (row < 6 && fabs(t - ref[row][0]) < 1e-9) {
            /* Joints 7, 8, 9 are C1, C2, C3; 6 is 1''. Planar: no out-of-plane wrench. */
            assert_true(fabs(res[9].f_radial - ref[row][1]) < 1e-4);
            assert_true(fabs(res[8].f_radial - ref[row][2]) < 1e-4);
            assert_true(fabs(res[7].f_radial - ref[row][3]) < 1e-4);
            assert_true(fabs(res[6].drive - ref[row][4]) < 1e-5);
            assert_true(fabs(res[6].f_radial - ref[row][5]) < 1e-4);
            assert_true(res[6].m_bending < 1e-9 && res[6].f_axial < 1e-9);
            row++;
        }
    }
    assert_int_equal(row, 6);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

static void test_loop3_dead_point(void **state)
{
    pkm_model *m = NULL, *m2 = NULL;
    pkm_mbs *s = loop3_system(&m, state);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_status st = PKM_OK;
    for (int step = 0; step < 140; step++)
        assert_int_equal(loop3_at(s, 0.1 * step, NULL, &ctx), PKM_OK);
    double t = 14.0;
    for (; t < 16.5 && st == PKM_OK; t += 0.01) {
        st = loop3_at(s, t, NULL, &ctx);
        for (int k = 0; k < 7 && st == PKM_OK; k++)
            assert_true(isfinite(pkm_mbs_q(s)[k]) && isfinite(pkm_mbs_qdd(s)[k]));
    }
    printf("dead point reported at crank %.4f rad: %s\n", 0.1 * (t - 0.01), ctx.msg);
    assert_int_equal(st, PKM_ERR_SINGULAR);
    assert_true(0.1 * (t - 0.01) < 1.578);
    assert_non_null(strstr(ctx.msg, "t = "));
    /* A crank angle the chain cannot reach (between its dead points 1.579 and 2 pi - 2.5):
     * Newton from q = 0 runs into a dead point or leaves a cut open; either way the message
     * names the time. */
    pkm_mbs_destroy(&s);
    s = loop3_system(&m2, state);
    pkm_ctx_clear(&ctx);
    const double qa = 2.2, z = 0.0;
    assert_int_equal(pkm_mbs_kinematics(s, 22.0, &qa, &z, &z, &ctx), PKM_ERR_SINGULAR);
    printf("%s\n", ctx.msg);
    assert_non_null(strstr(ctx.msg, "t = 22"));
    pkm_model_destroy(&m2);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

/* The system's total energy at time t of a motion (kinematics given by `at`). */
typedef pkm_status (*motion_fn)(pkm_mbs *s, double t, pkm_joint_result *res, pkm_ctx *ctx);

static double energy_at(pkm_mbs *s, motion_fn at, double t)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(at(s, t, NULL, &ctx), PKM_OK);
    double T, V;
    pkm_mbs_energy(s, &T, &V);
    return T + V;
}

/* Power balance sum(drive qd) = dE/dt (dE/dt by the fourth-order central difference, step h)
 * and the dense KKT reference's accelerations under the computed drives, at each time of ts. */
static void check_balance(pkm_mbs *s, motion_fn at, const double *ts, int nt, double h)
{
    const int n = pkm_mbs_coord_count(s);
    pkm_joint_result res[16];
    double tau[16], qdd[16], qkkt[16];
    for (int i = 0; i < nt; i++) {
        const double t = ts[i];
        const double dE = (energy_at(s, at, t - 2 * h) - 8 * energy_at(s, at, t - h) +
                           8 * energy_at(s, at, t + h) - energy_at(s, at, t + 2 * h)) /
                          (12 * h);
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_int_equal(at(s, t, res, &ctx), PKM_OK);
        memset(tau, 0, sizeof(tau));
        double P = 0.0;
        for (int j = 0; j < 16 && j < n; j++) {
            int c;
            if (pkm_mbs_joint_coords(s, j, &c) == 1) {
                tau[c] = res[j].drive;
                P += res[j].drive * res[j].qd[0];
            }
        }
        printf("t %5.2f  power %.12f  dE/dt %.12f  rel %.2e\n", t, P, dE,
               fabs(P - dE) / fmax(fabs(P), 1e-300));
        assert_true(fabs(P - dE) <= 1e-8 * fabs(P));
        memcpy(qdd, pkm_mbs_qdd(s), sizeof(double) * (size_t)n);
        dyn_kkt(s, tau, qkkt);
        double dq = 0.0, sc = 0.0;
        for (int k = 0; k < n; k++) {
            dq = fmax(dq, fabs(qkkt[k] - qdd[k]));
            sc = fmax(sc, fabs(qdd[k]));
        }
        printf("        KKT |qdd - qdd_kkt| %.2e of %.2e\n", dq, sc);
        assert_true(dq <= 1e-9 * sc);
    }
}

static pkm_status tree5_motion(pkm_mbs *s, double t, pkm_joint_result *res, pkm_ctx *ctx)
{
    const double q = 0.1 * t * t, qd = 0.2 * t, qdd = 0.2;
    const double Q[5] = {q, q, q, q, q}, QD[5] = {qd, qd, qd, qd, qd},
                 QDD[5] = {qdd, qdd, qdd, qdd, qdd};
    pkm_status st = pkm_mbs_kinematics(s, t, Q, QD, QDD, ctx);
    if (st == PKM_OK && res != NULL) st = pkm_mbs_inverse(s, NULL, res, ctx);
    return st;
}

static void test_tree5_power(void **state)
{
    pkm_model *m = NULL;
    pkm_mbs *s = tree5_system(&m, state);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double ts[4] = {0.15, 1, 2, 5};
    check_balance(s, tree5_motion, ts, 4, 1e-3);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

static void test_loop3_power(void **state)
{
    pkm_model *m = NULL;
    pkm_mbs *s = loop3_system(&m, state);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double ts[4] = {0.5, 5, 10, 14};
    for (int i = 0; i < 4; i++) {
        for (double t = (i ? ts[i - 1] : 0.0); t < ts[i]; t += 0.1) /* follow the branch */
            assert_int_equal(loop3_at(s, t, NULL, &ctx), PKM_OK);
        check_balance(s, loop3_at, ts + i, 1, 1e-3);
    }
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

static void test_tree5_friction(void **state)
{
    /* t, joint, normal load, drive C-V, drive Stribeck (seed-002 notes, sec. 4.2). */
    static const double ref[][5] = {
        {0.05, 1, 137.28986, 2.653032, 8.181389}, {0.05, 2, 106.95039, 2.036133, 6.342787},
        {0.05, 4, 71.42154, 1.452285, 4.328271},  {0.15, 1, 137.33863, 2.657769, 4.931351},
        {0.15, 2, 106.99334, 2.047034, 3.818263}, {0.15, 4, 71.39365, 1.445121, 2.627012},
        {1, 1, 140.39520, 2.988086, 2.988086},    {1, 4, 70.14206, 1.104928, 1.104928},
        {5, 1, 209.67122, 7.087963, 7.087963},    {5, 2, 167.24733, 3.307699, 3.307699},
        {5, 4, 91.86154, 8.638798, 8.638798}};
    pkm_model *m = NULL;
    pkm_mbs *s = tree5_system(&m, state);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int law = 0; law < 2; law++) {
        pkm_friction fr[5];
        for (int j = 0; j < 5; j++)
            fr[j] = dyn_tree5_friction(law ? PKM_FRICTION_STRIBECK : PKM_FRICTION_COULOMB_VISCOUS);
        assert_int_equal(pkm_mbs_set_friction(s, fr, &ctx), PKM_OK);
        for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]); i++) {
            pkm_joint_result res[5];
            tree5_at(s, ref[i][0], res);
            const pkm_joint_result *r = &res[(int)ref[i][1] - 1];
            const double N = r->f_radial + r->m_bending + r->f_axial; /* unit arms */
            assert_true(fabs(N - ref[i][2]) < 5.01e-6);
            near6(r->drive, ref[i][3 + law]);
            near6(r->drive - r->friction, r->ideal);
        }
        /* From rest, sgn(0) = 0: no friction at t = 0. */
        pkm_joint_result res[5];
        tree5_at(s, 0.0, res);
        near6(res[0].drive, 1.965952);
    }
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

/* loop3 with Table 3's friction on the crank (unit arms): friction = k Rp f_r + kv v with
 * k = 0.05 (Coulomb-viscous) or 0.105181916 (Stribeck at v = vs); the reactions do not change.
 * Then friction on every joint (5 mm pins): the drive's power is dE/dt plus the friction power
 * (the fixed point on the normal loads; with unit arms on a 0.1 m mechanism the friction would
 * outweigh the inertial loads twenty-fold and the iteration diverges). */
static void test_loop3_friction(void **state)
{
    pkm_model *m = NULL;
    pkm_mbs *s = loop3_system(&m, state);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_friction fr[10];
    const pkm_friction f = {.model = PKM_FRICTION_STRIBECK,
                            .kc = 0.05,
                            .kv = 0.01,
                            .ks = 0.2,
                            .vs = 0.1,
                            .delta = 2.0,
                            .rp = 1.0,
                            .rn = 1.0,
                            .rb = 1.0};
    for (int law = 0; law < 3; law++) {
        for (int j = 0; j < 10; j++) {
            fr[j] = (j == 6 || law == 2) ? f : (pkm_friction){.model = PKM_FRICTION_NONE};
            if (law == 2) fr[j].rp = fr[j].rn = 0.005; /* pins of 5 mm, bending arm 1 m */
            if (law == 0 && j == 6) fr[j].model = PKM_FRICTION_COULOMB_VISCOUS;
        }
        assert_int_equal(pkm_mbs_set_friction(s, fr, &ctx), PKM_OK);
        pkm_joint_result res[10], ideal[10];
        for (int step = 0; step <= 100; step++) {
            const double t = 0.1 * step;
            assert_int_equal(pkm_mbs_set_friction(s, NULL, &ctx), PKM_OK);
            assert_int_equal(loop3_at(s, t, ideal, &ctx), PKM_OK);
            assert_int_equal(pkm_mbs_set_friction(s, fr, &ctx), PKM_OK);
            assert_int_equal(loop3_at(s, t, res, &ctx), PKM_OK);
            if (law < 2) {
                const double k = law ? 0.05 + 0.15 * exp(-1.0) : 0.05; /* 0.105181916 */
                assert_true(fabs(res[6].friction - (k * ideal[6].f_radial + 0.001)) < 1e-9);
                assert_true(fabs(res[6].drive - ideal[6].drive - res[6].friction) < 1e-12);
                assert_true(fabs(res[7].f_radial - ideal[7].f_radial) < 1e-9);
            } else if (step % 25 == 0) {
                const double h = 1e-3;
                const double dE =
                    (energy_at(s, loop3_at, t - 2 * h) - 8 * energy_at(s, loop3_at, t - h) +
                     8 * energy_at(s, loop3_at, t + h) - energy_at(s, loop3_at, t + 2 * h)) /
                    (12 * h);
                assert_int_equal(loop3_at(s, t, res, &ctx), PKM_OK);
                double Pf = 0.0;
                for (int j = 0; j < 7; j++)
                    Pf += res[j].friction * res[j].qd[0];
                const double P = res[6].drive * res[6].qd[0];
                printf("t %5.2f drive power %.10f = dE/dt %.10f + friction %.10f (%.1e)\n", t, P,
                       dE, Pf, fabs(P - dE - Pf) / fabs(P));
                assert_true(Pf > 0.0 && fabs(P - dE - Pf) <= 1e-8 * fabs(P));
            }
        }
    }
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

/* Solve the n x n system A x = b (row-major, n <= 4) by Gaussian elimination with pivoting. */
static void solve_small(int n, double *A, double *b)
{
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(A[r * n + c]) > fabs(A[p * n + c])) p = r;
        for (int k = 0; k < n; k++) {
            const double t = A[c * n + k];
            A[c * n + k] = A[p * n + k];
            A[p * n + k] = t;
        }
        const double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (int r = c + 1; r < n; r++) {
            const double f = A[r * n + c] / A[c * n + c];
            for (int k = c; k < n; k++)
                A[r * n + k] -= f * A[c * n + k];
            b[r] -= f * b[c];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        for (int k = r + 1; k < n; k++)
            b[r] -= A[r * n + k] * b[k];
        b[r] /= A[r * n + r];
    }
}

/* The paper's sequential solution of loop3 (Guo et al. 2024, eqs. 62-65): subsystem III (joints
 * 1 ... 4) gives the in-plane forces of C2 and C3, then II (1', 2') those of C1, then I (1'')
 * the drive; the same as the monolithic minimum-norm solve (seed notes' V10). */
static void test_loop3_sequential(void **state)
{
    pkm_model *m = NULL;
    pkm_mbs *s = loop3_system(&m, state);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double M[49], h[7], C[15 * 7], g[7];
    int c[7];
    for (int j = 0; j < 7; j++)
        pkm_mbs_joint_coords(s, j, &c[j]);
    for (int step = 0; step <= 140; step += 35) {
        pkm_joint_result res[10];
        for (int k = (step ? step - 34 : 0); k <= step; k++)
            assert_int_equal(loop3_at(s, 0.1 * k, res, &ctx), PKM_OK);
        pkm_mbs_mass_matrix(s, M, h);
        pkm_mbs_constraints(s, C, NULL);
        for (int i = 0; i < 7; i++) {
            g[i] = h[i];
            for (int k = 0; k < 7; k++)
                g[i] += M[i * 7 + k] * pkm_mbs_qdd(s)[k];
        }
        /* Rows 5 r + 0, 1 are cut r's in-plane forces (C1, C2, C3 = cuts 0, 1, 2). */
        static const int rows3[4] = {5, 6, 10, 11}, rows2[2] = {0, 1};
        double A[16], b[4], A2[4], b2[2];
        for (int e = 0; e < 4; e++) {
            b[e] = g[c[e]];
            for (int u = 0; u < 4; u++)
                A[e * 4 + u] = C[rows3[u] * 7 + c[e]];
        }
        solve_small(4, A, b); /* lambda of C2 (x, y), C3 (x, y) */
        for (int e = 0; e < 2; e++) {
            b2[e] = g[c[4 + e]] - C[5 * 7 + c[4 + e]] * b[0] - C[6 * 7 + c[4 + e]] * b[1];
            for (int u = 0; u < 2; u++)
                A2[e * 2 + u] = C[rows2[u] * 7 + c[4 + e]];
        }
        solve_small(2, A2, b2); /* lambda of C1 */
        const double tau = g[c[6]] - C[0 * 7 + c[6]] * b2[0] - C[1 * 7 + c[6]] * b2[1];
        const double F1 = hypot(b2[0], b2[1]), F2 = hypot(b[0], b[1]), F3 = hypot(b[2], b[3]);
        printf("t %5.1f sequential |F1| %.10f |F2| %.10f |F3| %.10f tau %.10f\n", 0.1 * step, F1,
               F2, F3, tau);
        assert_true(fabs(F1 - res[7].f_radial) < 1e-10 * F1);
        assert_true(fabs(F2 - res[8].f_radial) < 1e-10 * F2);
        assert_true(fabs(F3 - res[9].f_radial) < 1e-10 * F3);
        assert_true(fabs(tau - res[6].drive) < 1e-10 * fabs(tau));
    }
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        ON_CASE(test_tree5_table, "tree5"),      ON_CASE(test_tree5_mass_matrix, "tree5"),
        ON_CASE(test_loop3_angles, "loop3"),     ON_CASE(test_loop3_forces, "loop3"),
        ON_CASE(test_loop3_dead_point, "loop3"), ON_CASE(test_tree5_power, "tree5"),
        ON_CASE(test_loop3_power, "loop3"),      ON_CASE(test_tree5_friction, "tree5"),
        ON_CASE(test_loop3_friction, "loop3"),   ON_CASE(test_loop3_sequential, "loop3"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
