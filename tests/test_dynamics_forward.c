/* tests/test_dynamics_forward.c: the forward dynamics of include/pkm/forward.h on the two
 * mechanisms of Guo, Ju, Wang 2024 (tree5, loop3): the accelerations against the dense KKT
 * reference, forward(inverse(motion)) against the motion, and the energy balance with and
 * without friction, with its fourth-order convergence.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dyn_util.h"

#include "pkm/forward.h"

#include <stdio.h>

enum { NQ_MAX = 16 };

static pkm_mbs *system_of(pkm_model *m, const double g[3])
{
    pkm_mbs *s = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_mbs_create(m, g, &s, &ctx), &ctx);
    return s;
}

static const double g_tree5[3] = {0, 0, -9.8}, g_loop3[3] = {0, -9.8, 0};

/* Table 3's Stribeck data with 5 mm pins and a bending arm of 1 m (unit arms on loop3's 0.1 m
 * links give friction twenty times the loads, docs/dynamics.md). */
static pkm_friction loop3_friction(void)
{
    return (pkm_friction){.model = PKM_FRICTION_STRIBECK,
                          .kc = 0.05,
                          .kv = 0.01,
                          .ks = 0.2,
                          .vs = 0.1,
                          .delta = 2.0,
                          .rp = 0.005,
                          .rn = 0.005,
                          .rb = 1.0};
}

/* Drives given as constants (user: na doubles). */
static pkm_status const_drive(double t, const double *q, const double *qd, double *tau, void *user,
                              pkm_ctx *ctx)
{
    (void)t, (void)q, (void)qd, (void)ctx;
    const double *d = user;
    for (int a = 0; d != NULL && a < (int)d[0]; a++)
        tau[a] = d[1 + a];
    return PKM_OK;
}

/* The forward accelerations under random drives equal the dense KKT solve's at a state. */
static void kkt_check(pkm_mbs *s, pkm_fwd *f, double *drv, const pkm_model *m, double *worst)
{
    const int nq = pkm_mbs_coord_count(s);
    double qdd[NQ_MAX], qk[NQ_MAX], gen[NQ_MAX] = {0};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int a = 0;
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        int c;
        if (!pkm_model_joint(m, j)->actuated) continue;
        pkm_mbs_joint_coords(s, j, &c);
        drv[1 + a] = 2.0 * rand() / RAND_MAX - 1.0;
        gen[c] = drv[1 + a++];
    }
    drv[0] = a;
    double q[NQ_MAX], qd[NQ_MAX];
    memcpy(q, pkm_mbs_q(s), sizeof(double) * (size_t)nq);
    memcpy(qd, pkm_mbs_qd(s), sizeof(double) * (size_t)nq);
    assert_pkm_ok(pkm_fwd_accel(f, 0.0, q, qd, qdd, NULL, NULL, &ctx), &ctx);
    pkm_mbs_set_state(s, q, qd, NULL);
    dyn_kkt(s, gen, qk);
    double d = 0.0, sc = 0.0;
    for (int k = 0; k < nq; k++) {
        d = fmax(d, fabs(qdd[k] - qk[k]));
        sc = fmax(sc, fabs(qk[k]));
    }
    assert_true(d <= 1e-9 * sc);
    *worst = fmax(*worst, d / sc);
}

static void test_kkt(void **state)
{
    (void)state;
    srand(7);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = dyn_tree5();
    pkm_mbs *s = system_of(m, g_tree5);
    double drv[1 + NQ_MAX], worst = 0.0;
    pkm_fwd *f = NULL;
    assert_pkm_ok(pkm_fwd_create(s, const_drive, drv, NULL, PKM_FWD_EPS, &f, &ctx), &ctx);
    for (int trial = 0; trial < 20; trial++) { /* tree5: any state */
        double q[5], qd[5];
        for (int k = 0; k < 5; k++)
            q[k] = 6.0 * rand() / RAND_MAX - 3.0, qd[k] = 4.0 * rand() / RAND_MAX - 2.0;
        pkm_mbs_set_state(s, q, qd, NULL);
        kkt_check(s, f, drv, m, &worst);
    }
    pkm_fwd_destroy(&f);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
    m = dyn_loop3();
    s = system_of(m, g_loop3);
    assert_pkm_ok(pkm_fwd_create(s, const_drive, drv, NULL, PKM_FWD_EPS, &f, &ctx), &ctx);
    for (int trial = 0; trial < 20; trial++) { /* loop3: states on the closure, crank 0 ... 1.4 */
        const double qa = 1.4 * trial / 19.0, qda = 2.0 * rand() / RAND_MAX - 1.0, z = 0.0;
        assert_pkm_ok(pkm_mbs_kinematics(s, qa, &qa, &qda, &z, &ctx), &ctx);
        kkt_check(s, f, drv, m, &worst);
    }
    printf("forward vs dense KKT: largest relative difference %.2e\n", worst);
    pkm_fwd_destroy(&f);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

/* With friction on every joint of loop3 (5 mm pins: the cut forces, hence the normal loads,
 * depend on the passive joints' friction), the forward accelerations under a drive, given back
 * to the inverse dynamics with the exact friction law (the same as the ramp at speeds above
 * eps), return that drive: the forward friction loop found the inverse dynamics' fixed point. */
static void test_friction_inverse(void **state)
{
    (void)state;
    srand(11);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = dyn_loop3();
    pkm_mbs *s = system_of(m, g_loop3);
    pkm_friction fr[10];
    for (int j = 0; j < 10; j++)
        fr[j] = loop3_friction();
    double drv[2] = {1.0, 0.0}, worst = 0.0;
    int checked = 0;
    pkm_fwd *f = NULL;
    assert_pkm_ok(pkm_fwd_create(s, const_drive, drv, fr, PKM_FWD_EPS, &f, &ctx), &ctx);
    for (int trial = 0; trial < 10; trial++) {
        const double qa = 0.1 + 1.3 * trial / 9.0, qda = trial % 2 ? 1.5 : -1.5, z = 0.0;
        assert_pkm_ok(pkm_mbs_kinematics(s, qa, &qa, &qda, &z, &ctx), &ctx);
        double q[7], qd[7], qdd[7], fq[7];
        memcpy(q, pkm_mbs_q(s), sizeof(q));
        memcpy(qd, pkm_mbs_qd(s), sizeof(qd));
        drv[1] = 4.0 * rand() / RAND_MAX - 2.0;
        assert_pkm_ok(pkm_fwd_accel(f, 0.0, q, qd, qdd, fq, NULL, &ctx), &ctx);
        pkm_mbs_set_state(s, q, qd, qdd);
        pkm_joint_result res[10];
        assert_pkm_ok(pkm_mbs_set_friction(s, fr, &ctx), &ctx);
        assert_pkm_ok(pkm_mbs_inverse(s, NULL, res, &ctx), &ctx);
        double fmin_speed = HUGE_VAL;
        for (int k = 0; k < 7; k++)
            fmin_speed = fmin(fmin_speed, fabs(qd[k]));
        if (fmin_speed < PKM_FWD_EPS) continue; /* inside the ramp the laws differ */
        checked++;
        const double d = fabs(res[6].drive - drv[1]);
        worst = fmax(worst, d / fabs(res[6].friction));
        assert_true(d <= 1e-9 * fabs(drv[1]) + 1e-12);
        for (int j = 0; j < 7; j++) { /* the same friction forces */
            int c;
            assert_int_equal(pkm_mbs_joint_coords(s, j, &c), 1);
            assert_true(fabs(res[j].friction - fq[c]) <= 1e-9 * fabs(fq[c]));
        }
    }
    printf(
        "loop3, friction on every joint: inverse(forward(tau)) - tau at most %.2e of the drive's "
        "friction (%d states)\n",
        worst, checked);
    assert_true(checked >= 8);
    pkm_fwd_destroy(&f);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

/* A prescribed motion: the reference system follows it by the closure kinematics; its inverse
 * dynamics gives the drives, evaluated exactly at the RK4 stage times. */
typedef struct motion {
    pkm_mbs *ref;
    const pkm_model *m;
    int tree5; /* 1: every joint at 0.2 rad/s^2 from rest; 0: loop3's crank at 0.1 rad/s */
    double dev;
    pkm_joint_result res[16];
} motion;

static pkm_status motion_at(motion *mo, double t, pkm_ctx *ctx)
{
    if (mo->tree5) {
        const double q = 0.1 * t * t, qd = 0.2 * t, qdd = 0.2;
        const double Q[5] = {q, q, q, q, q}, QD[5] = {qd, qd, qd, qd, qd},
                     QDD[5] = {qdd, qdd, qdd, qdd, qdd};
        return pkm_mbs_kinematics(mo->ref, t, Q, QD, QDD, ctx);
    }
    const double qa = 0.1 * t, qda = 0.1, qdda = 0.0;
    return pkm_mbs_kinematics(mo->ref, t, &qa, &qda, &qdda, ctx);
}

static pkm_status inverse_drive(double t, const double *q, const double *qd, double *tau,
                                void *user, pkm_ctx *ctx)
{
    (void)q, (void)qd;
    motion *mo = user;
    pkm_status st = motion_at(mo, t, ctx);
    if (st == PKM_OK) st = pkm_mbs_inverse(mo->ref, NULL, mo->res, ctx);
    int a = 0;
    for (int j = 0; st == PKM_OK && j < pkm_model_joint_count(mo->m); j++)
        if (pkm_model_joint(mo->m, j)->actuated) tau[a++] = mo->res[j].drive;
    return st;
}

static pkm_status follow(const pkm_fwd_record *r, void *user, pkm_ctx *ctx)
{
    motion *mo = user;
    pkm_status st = motion_at(mo, r->t, ctx);
    const int nq = pkm_mbs_coord_count(mo->ref);
    for (int k = 0; st == PKM_OK && k < nq; k++)
        mo->dev = fmax(mo->dev, fabs(r->y[k] - pkm_mbs_q(mo->ref)[k]));
    return st;
}

/* Forward dynamics from the motion's initial state under its inverse drives over 5 s at 1 ms;
 * returns the largest deviation of q from the motion. */
static double round_trip(pkm_model *m, const double g[3], int tree5)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_mbs *s = system_of(m, g);
    motion mo = {.ref = system_of(m, g), .m = m, .tree5 = tree5};
    const int nq = pkm_mbs_coord_count(s);
    double y[PKM_FWD_STATES(NQ_MAX)] = {0};
    assert_pkm_ok(motion_at(&mo, 0.0, &ctx), &ctx);
    memcpy(y, pkm_mbs_q(mo.ref), sizeof(double) * (size_t)nq);
    memcpy(y + nq, pkm_mbs_qd(mo.ref), sizeof(double) * (size_t)nq);
    pkm_fwd *f = NULL;
    assert_pkm_ok(pkm_fwd_create(s, inverse_drive, &mo, NULL, PKM_FWD_EPS, &f, &ctx), &ctx);
    assert_pkm_ok(pkm_fwd_run(f, 0.0, 1e-3, 5000, y, follow, &mo, &ctx), &ctx);
    pkm_fwd_destroy(&f);
    pkm_mbs_destroy(&mo.ref);
    pkm_mbs_destroy(&s);
    return mo.dev;
}

static void test_round_trip(void **state)
{
    (void)state;
    pkm_model *m = dyn_tree5();
    const double d5 = round_trip(m, g_tree5, 1);
    pkm_model_destroy(&m);
    m = dyn_loop3();
    const double d3 = round_trip(m, g_loop3, 0);
    pkm_model_destroy(&m);
    printf("forward(inverse): largest |q - q_motion| over 5 s at 1 ms: tree5 %.2e, loop3 %.2e\n",
           d5, d3);
    assert_true(d5 < 1e-9 && d3 < 1e-9);
}

/* The energy monitor's record: the largest |balance|, the largest rise of E between steps. */
typedef struct watch {
    double bal, rise, E, E0, wf;
    int nq;
    double vmin; /* the slowest coordinate's speed over the run */
} watch;

static pkm_status energy_watch(const pkm_fwd_record *r, void *user, pkm_ctx *ctx)
{
    (void)ctx;
    watch *w = user;
    const double E = r->T + r->V;
    if (r->step == 0) w->E0 = E;
    if (r->step > 0) w->rise = fmax(w->rise, E - w->E);
    w->E = E;
    w->bal = fmax(w->bal, fabs(r->balance));
    w->wf = r->w_fric;
    for (int k = 0; k < w->nq; k++)
        w->vmin = fmin(w->vmin, fabs(r->y[w->nq + k]));
    return PKM_OK;
}

/* A release: a mechanism without drive from a moving state y0 over T s in steps of h, with the
 * friction fr (per joint, NULL: none); the final state into y. */
typedef struct release {
    pkm_model *(*model)(void);
    const double *g;
    const pkm_friction *fr;
    const double *y0;
    double T;
} release;

static watch run_release(const release *rl, pkm_fwd_loop loop, double h, double *y, double *ppe)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = rl->model();
    pkm_mbs *s = system_of(m, rl->g);
    pkm_fwd *f = NULL;
    assert_pkm_ok(pkm_fwd_create(s, NULL, NULL, rl->fr, PKM_FWD_EPS, &f, &ctx), &ctx);
    pkm_fwd_set_loop(f, loop);
    const int nq = pkm_mbs_coord_count(s);
    memcpy(y, rl->y0, sizeof(double) * (size_t)PKM_FWD_STATES(nq));
    watch w = {.nq = nq, .vmin = HUGE_VAL};
    assert_pkm_ok(pkm_fwd_run(f, 0.0, h, (int)lround(rl->T / h), y, energy_watch, &w, &ctx), &ctx);
    assert_true(rl->fr == NULL || w.vmin > 10 * PKM_FWD_EPS); /* no joint near rest: smooth */
    long ev = 0, ps = 0;
    pkm_fwd_stats(f, &ev, &ps);
    *ppe = ev > 0 ? (double)ps / ev : 0.0;
    pkm_fwd_destroy(&f);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
    return w;
}

/* The balance's largest error at h, h/2, h/4 falls as h^4 (ratios near 16); with friction E
 * never rises and friction took work. The final states into y[i] if y is not NULL. */
static void convergence(const char *what, const release *rl, double h, double *err,
                        double (*y)[PKM_FWD_STATES(NQ_MAX)])
{
    for (int i = 0; i < 3; i++) {
        double yi[PKM_FWD_STATES(NQ_MAX)], ppe;
        const watch w = run_release(rl, PKM_FWD_FIXED_POINT, h / (1 << i), yi, &ppe);
        if (y != NULL) memcpy(y[i], yi, sizeof(yi));
        err[i] = w.bal;
        printf("%s h %.5f: max |E - E0 - W_drive + W_friction| %.3e J (E0 %.4f J), friction work "
               "%.5f J, E rise %.1e, %.2f friction passes per evaluation, slowest joint %.3f\n",
               what, h / (1 << i), w.bal, w.E0, w.wf, w.rise, ppe, w.vmin);
        if (rl->fr != NULL) {
            assert_true(w.wf > 0.0);
            assert_true(w.rise <= 1e-13 * fabs(w.E0)); /* E non-increasing */
        }
    }
    printf("%s: orders %.2f %.2f\n", what, log2(err[0] / err[1]), log2(err[1] / err[2]));
    assert_true(log2(err[0] / err[1]) > 3.7 && log2(err[1] / err[2]) > 3.7);
}

static pkm_model *tree5_model(void)
{
    return dyn_tree5();
}

static pkm_model *loop3_model(void)
{
    return dyn_loop3();
}

/* tree5 released at (1, -0.8, 0.6, 1.2, -1) rad/s; gravity along the axes only loads the joints. */
static const double y_tree5[PKM_FWD_STATES(5)] = {0, 0, 0, 0, 0, 1.0, -0.8, 0.6, 1.2, -1.0, 0, 0};

/* loop3 released at q = 0 with the crank 1'' at 1 rad/s and the rates of the closure. */
static void loop3_start(double *y)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = dyn_loop3();
    pkm_mbs *s = system_of(m, g_loop3);
    const double qa = 1.0, qda = -1.0, z = 0.0;
    for (double c = 0.0; c < 1.0; c += 0.05) /* along the assembly branch */
        assert_pkm_ok(pkm_mbs_kinematics(s, c, &c, &qda, &z, &ctx), &ctx);
    assert_pkm_ok(pkm_mbs_kinematics(s, 0.0, &qa, &qda, &z, &ctx), &ctx);
    memset(y, 0, sizeof(double) * PKM_FWD_STATES(7));
    memcpy(y, pkm_mbs_q(s), 7 * sizeof(double));
    memcpy(y + 7, pkm_mbs_qd(s), 7 * sizeof(double));
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

static void test_friction_energy(void **state)
{
    (void)state;
    double e[3];
    pkm_friction fr[10];
    for (int j = 0; j < 10; j++)
        fr[j] = dyn_tree5_friction(PKM_FRICTION_COULOMB_VISCOUS);
    const release t5 = {tree5_model, g_tree5, fr, y_tree5, 1.0};
    double y[3][PKM_FWD_STATES(NQ_MAX)], d[3] = {0};
    convergence("tree5 C-V", &t5, 0.004, e, y);
    assert_true(e[2] < 1e-9);
    /* Lagging the normal loads by one evaluation: one pass instead of ~5, but the motion is
     * then that of another, first-order, scheme: its distance from the fixed point's halves
     * with the step. */
    for (int i = 0; i < 3; i++) {
        const double h = 0.004 / (1 << i);
        double yl[PKM_FWD_STATES(5)], ppl;
        const watch w = run_release(&t5, PKM_FWD_LAGGED, h, yl, &ppl);
        for (int k = 0; k < 10; k++)
            d[i] = fmax(d[i], fabs(y[i][k] - yl[k]));
        printf("tree5 C-V h %.5f: lagged normal loads (%.2f passes per evaluation) move the "
               "state by %.2e, balance %.2e J\n",
               h, ppl, d[i], w.bal);
        assert_true(ppl < 1.01);
    }
    assert_true(fabs(log2(d[0] / d[1]) - 1.0) < 0.2 && fabs(log2(d[1] / d[2]) - 1.0) < 0.2);
    /* loop3 with Table 3's Stribeck friction on every joint, 5 mm pins (docs/dynamics.md): the
     * cut forces, hence the normal loads, depend on the passive joints' friction. */
    for (int j = 0; j < 10; j++)
        fr[j] = loop3_friction();
    double y3[PKM_FWD_STATES(7)];
    loop3_start(y3);
    const release l3 = {loop3_model, g_loop3, fr, y3, 0.2};
    convergence("loop3 Stribeck", &l3, 0.004, e, NULL);
    assert_true(e[2] < 1e-9);
}

static void test_free_energy(void **state)
{
    (void)state;
    double e[3], y3[PKM_FWD_STATES(7)];
    const release t5 = {tree5_model, g_tree5, NULL, y_tree5, 1.0};
    convergence("tree5 frictionless", &t5, 0.004, e, NULL);
    assert_true(e[2] < 1e-9);
    loop3_start(y3);
    const release l3 = {loop3_model, g_loop3, NULL, y3, 1.0};
    convergence("loop3 frictionless", &l3, 0.004, e, NULL);
    assert_true(e[2] < 1e-9);
}

/* Bad input: the ramp's width, friction data (naming the joint), the step. */
static void test_bad_input(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = dyn_tree5();
    pkm_mbs *s = system_of(m, g_tree5);
    pkm_fwd *f = NULL;
    assert_int_equal(pkm_fwd_create(s, NULL, NULL, NULL, 0.0, &f, &ctx), PKM_ERR_INVALID);
    assert_int_equal(pkm_fwd_create(s, NULL, NULL, NULL, NAN, &f, &ctx), PKM_ERR_INVALID);
    assert_null(f);
    pkm_friction fr[5];
    for (int j = 0; j < 5; j++)
        fr[j] = dyn_tree5_friction(PKM_FRICTION_COULOMB_VISCOUS);
    fr[3].kc = -0.1;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_fwd_create(s, NULL, NULL, fr, PKM_FWD_EPS, &f, &ctx), PKM_ERR_INVALID);
    printf("%s\n", ctx.msg);
    assert_non_null(strstr(ctx.msg, "joint 4:"));
    assert_null(f);
    assert_pkm_ok(pkm_fwd_create(s, NULL, NULL, NULL, PKM_FWD_EPS, &f, &ctx), &ctx);
    double y[PKM_FWD_STATES(5)] = {0};
    assert_int_equal(pkm_fwd_run(f, 0.0, 0.0, 10, y, NULL, NULL, &ctx), PKM_ERR_INVALID);
    assert_int_equal(pkm_fwd_run(f, 0.0, 1e-3, -1, y, NULL, NULL, &ctx), PKM_ERR_INVALID);
    assert_int_equal(pkm_fwd_run(f, 0.0, INFINITY, 1, y, NULL, NULL, &ctx), PKM_ERR_INVALID);
    pkm_fwd_destroy(&f);
    pkm_fwd_destroy(&f); /* NULL-safe */
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kkt),         cmocka_unit_test(test_friction_inverse),
        cmocka_unit_test(test_round_trip),  cmocka_unit_test(test_friction_energy),
        cmocka_unit_test(test_free_energy), cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
