/* tests/test_studies_runs.c: the rigid-body runs of the studies layer that `pkmflex dynamics`
 * prints (pkm/chainrun.h, pkm/dynrun.h) and the chewing robot's reference run
 * (reference/mastrun.h): each time handed to the sink on the grid, a sink's stop, the refusals
 * before any row, and the numbers against independent references (the chain's passes called
 * directly, the energy balance, the chewing robot's reference values computed at 40 digits, the
 * closure's conditioning computed afresh on a new motion). SPDX-License-Identifier:
 * LGPL-2.1-or-later */
#include "test_util.h"

#include "reference/mastrun.h"

#include "core/core_impl.h"
#include "reference/chainrun.h"
#include "pkm/dynrun.h"
#include "pkm/hiab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A chain and its default motion (the sinusoids of docs/chain.md). */
typedef struct machine {
    pkm_chain *c;
    pkm_trajectory *tr;
    int n;
} machine;

static void machine_open(const char *name, machine *m)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = pkm_case_find(name);
    assert_non_null(c);
    const pkm_traj_desc *d = &c->traj[0];
    m->n = c->npose;
    assert_pkm_ok(pkm_hiab_chain(name, &m->c, &ctx), &ctx);
    assert_pkm_ok(pkm_trajectory_create_analytic(d, m->n, &m->tr, &ctx), &ctx);
}

static void machine_close(machine *m)
{
    pkm_chain_destroy(&m->c);
    pkm_trajectory_destroy(&m->tr);
}

/* What the chain sinks saw. */
typedef struct chain_seen {
    machine *m;
    int rows, stop_at;
    double t_last, dev, bal, drive_diff;
} chain_seen;

/* Each row of the inverse run against the chain's inverse dynamics called here at the
 * trajectory's state at the row's time. */
static int chain_check_inverse(void *user, const pkm_chain_row *r)
{
    chain_seen *s = user;
    assert_int_equal(r->step, s->rows);
    assert_null(r->energy);
    double q[4], qd[4], qdd[4], tau[4];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_eval(s->m->tr, r->t, q, qd, qdd, &ctx), &ctx);
    assert_pkm_ok(pkm_chain_inverse(s->m->c, q, qd, qdd, tau, NULL, &ctx), &ctx);
    for (int i = 0; i < s->m->n; i++) {
        assert_true(q[i] == r->q[i] && qdd[i] == r->qdd[i]);
        s->drive_diff = fmax(s->drive_diff, fabs(tau[i] - r->drive[i]));
    }
    s->t_last = r->t;
    return ++s->rows == s->stop_at;
}

static void test_chain_inverse_rows(void **state)
{
    (void)state;
    machine m;
    machine_open("crane4", &m);
    chain_seen s = {.m = &m};
    const pkm_chain_run_opts o = {.t0 = 0.0, .t1 = 10.0, .n = 11};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_chain_run(m.c, m.tr, &o, chain_check_inverse, &s, &ctx), &ctx);
    assert_int_equal(s.rows, 11);
    assert_true(s.t_last == 10.0);    /* the grid ends on t1 exactly */
    assert_true(s.drive_diff == 0.0); /* the same passes, the same numbers */
    /* a sink's stop: PKM_OK, nothing after it */
    s = (chain_seen){.m = &m, .stop_at = 4};
    assert_pkm_ok(pkm_chain_run(m.c, m.tr, &o, chain_check_inverse, &s, &ctx), &ctx);
    assert_int_equal(s.rows, 4);
    machine_close(&m);
}

static int chain_forward_sink(void *user, const pkm_chain_row *r)
{
    chain_seen *s = user;
    assert_non_null(r->energy);
    for (int i = 0; i < s->m->n; i++)
        s->dev = fmax(s->dev, fabs(r->q[i] - r->q_ref[i]));
    s->bal = fmax(s->bal, fabs(r->energy[3]));
    s->rows++;
    return 0;
}

/* The crane's RK4 run under its trajectory's drives follows the trajectory and keeps the energy
 * balance T + V - W - E(t0) to the integrator's error (docs/chain.md: 1e-6 over 10 s). */
static void test_chain_forward_balance(void **state)
{
    (void)state;
    machine m;
    machine_open("crane4", &m);
    chain_seen s = {.m = &m};
    const pkm_chain_run_opts o = {.t0 = 0.0, .t1 = 10.0, .n = 11, .forward = 1, .step = 1e-3};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_chain_run(m.c, m.tr, &o, chain_forward_sink, &s, &ctx), &ctx);
    assert_int_equal(s.rows, 11);
    assert_true(s.dev < 1e-6);
    assert_true(s.bal < 1e-6);
    machine_close(&m);
}

static int chain_no_row(void *user, const pkm_chain_row *r)
{
    (void)user, (void)r;
    fail_msg("a row before the refusal");
    return 1;
}

/* A step too small for the grid, a step of 0, a grid of one time: refused before any row. */
static void test_chain_refusals(void **state)
{
    (void)state;
    machine m;
    machine_open("boom1", &m);
    const pkm_chain_run_opts bad[3] = {{.t0 = 0.0, .t1 = 10.0, .n = 2, .forward = 1, .step = 1e-9},
                                       {.t0 = 0.0, .t1 = 10.0, .n = 11, .forward = 1, .step = 0.0},
                                       {.t0 = 0.0, .t1 = 10.0, .n = 1}};
    for (int k = 0; k < 3; k++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_int_equal(pkm_chain_run(m.c, m.tr, &bad[k], chain_no_row, NULL, &ctx),
                         PKM_ERR_INVALID);
    }
    machine_close(&m);
}

typedef struct mast_seen {
    int rows;
    double Z, tau1, tau5, tau6, residual, mci1;
} mast_seen;

static int mast_sink(void *user, const pkm_mast_row *r)
{
    mast_seen *s = user;
    if (r->step == 0) {
        s->Z = r->s->X[2], s->tau1 = r->forces->tau[0], s->tau5 = r->forces->tau[4];
        s->tau6 = r->forces->tau[5], s->residual = r->forces->residual;
        s->mci1 = r->mci != NULL ? r->mci[0] : NAN;
    }
    s->rows++;
    return 0;
}

/* The chewing robot at t = 0.13 s: the parasitic Z and the torques of the target and of its
 * 6-RSS twin against the references computed at 40 digits (docs/dynamics.md, "The chewing
 * robot"; 8 significant digits for the target's torques, 12 for the twin's); --inertia adds
 * MCI to the same rows. */
static void test_mast_reference(void **state)
{
    (void)state;
    void *params = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_case_params_create(pkm_masticatory_case(), &params, &ctx), &ctx);
    pkm_masticatory_params *p = params;
    pkm_mast_run_opts o = {.t0 = 0.13, .t1 = 0.2, .n = 2};
    mast_seen s = {0};
    assert_pkm_ok(pkm_mast_run(p, &o, mast_sink, &s, &ctx), &ctx);
    assert_int_equal(s.rows, 2);
    assert_true(fabs(s.Z - -0.0104684765328444) <= 1e-12 * 0.0104684765328444);
    assert_true(fabs(s.tau1 - 0.31990664) <= 2e-8 * 0.31990664);
    assert_true(fabs(s.tau6 - -0.071280529) <= 2e-8 * 0.071280529);
    assert_true(s.residual < 1e-12);
    assert_true(isnan(s.mci1));
    o.inertia = 1;
    mast_seen si = {0};
    assert_pkm_ok(pkm_mast_run(p, &o, mast_sink, &si, &ctx), &ctx);
    assert_true(si.tau1 == s.tau1 && si.mci1 > 0.0 && si.mci1 < 1.0);
    p->higher_pairs = 0;
    o.inertia = 0;
    mast_seen tw = {0};
    assert_pkm_ok(pkm_mast_run(p, &o, mast_sink, &tw, &ctx), &ctx);
    assert_true(fabs(tw.tau1 - 2.14946029955) <= 1e-10 * 2.14946029955);
    assert_true(fabs(tw.tau5 - 0.770120679151) <= 1e-10 * 0.770120679151);
    assert_true(tw.Z == s.Z); /* the twin replays the target's pose */
    /* A friction law this engine would ignore is refused before anything is computed. */
    p->dynamics.friction_model = PKM_FRICTION_COULOMB_VISCOUS;
    mast_seen fr = {0};
    assert_int_equal(pkm_mast_run(p, &o, mast_sink, &fr, &ctx), PKM_ERR_INVALID);
    assert_int_equal(fr.rows, 0);
    pkm_case_params_destroy(&params);
}

typedef struct fwd_seen {
    int rows, stop_at, njoint;
    double dev, bal, drive0;
} fwd_seen;

static int fwd_sink(void *user, const pkm_dynamics_fwd_row *r)
{
    fwd_seen *s = user;
    assert_int_equal(r->step, s->rows);
    s->dev = fmax(s->dev, r->deviation);
    s->bal = fmax(s->bal, fabs(r->balance));
    if (r->step == 0) s->drive0 = r->joint[0].drive;
    return ++s->rows == s->stop_at;
}

/* The run of a case and its default trajectory (the command line's defaults). */
static const pkm_case *case_motion(const char *name, void **params, pkm_motion **m,
                                   pkm_trajectory **tr)
{
    const pkm_case *c = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_case_open(name, NULL, 0, NULL, &c, params, &ctx), &ctx);
    assert_pkm_ok(pkm_dynamics_motion_create(c, *params, 0.0, m, &ctx), &ctx);
    assert_pkm_ok(pkm_case_trajectory(c, NULL, 0.0, tr, &ctx), &ctx);
    return c;
}

/* tree5's forward dynamics under the drives of its inverse dynamics follows the trajectory to
 * RK4's error with the energy balance closed (docs/dynamics.md: 2.4e-13 over 5 s at 1 ms); the
 * drives applied at t = 0 are the inverse dynamics' (joint 1: 1.965952 N m, Guo et al. 2024's
 * Table 2 data); a sink's stop ends the run with PKM_OK. */
static void test_forward_tree5(void **state)
{
    (void)state;
    void *params = NULL;
    pkm_motion *m = NULL;
    pkm_trajectory *tr = NULL;
    const pkm_case *c = case_motion("tree5", &params, &m, &tr);
    const pkm_dynamics_opts o = {.t0 = 0.0, .t1 = 1.0, .n = 1001};
    fwd_seen s = {0};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_dynamics_forward_run_on(m, c, params, tr, &o, fwd_sink, &s, &ctx), &ctx);
    assert_int_equal(s.rows, 1001);
    assert_true(s.dev < 1e-9 && s.bal < 1e-9);
    assert_true(fabs(s.drive0 - 1.965952) <= 1e-6 * 1.965952);
    pkm_motion_destroy(&m);
    assert_pkm_ok(pkm_dynamics_motion_create(c, params, 0.0, &m, &ctx), &ctx);
    s = (fwd_seen){.stop_at = 11};
    assert_pkm_ok(pkm_dynamics_forward_run_on(m, c, params, tr, &o, fwd_sink, &s, &ctx), &ctx);
    assert_int_equal(s.rows, 11);
    pkm_motion_destroy(&m);
    pkm_trajectory_destroy(&tr);
    pkm_case_params_destroy(&params);
}

typedef struct cond_seen {
    const pkm_case *c;
    const void *params;
    int rows;
    double worst;
} cond_seen;

/* Each time's conditioning against the same computed afresh at the row's pose: a new motion
 * walked there from the build configuration, at rest. */
static int cond_sink(void *user, const pkm_dynamics_row *r)
{
    cond_seen *s = user;
    double fresh = NAN, zero[PKM_POSE_MAX] = {0};
    pkm_motion *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_motion_create(s->c, s->params, NULL, &m, &ctx), &ctx);
    assert_pkm_ok(pkm_motion_at(m, r->t, r->pose, zero, zero, &ctx), &ctx);
    assert_pkm_ok(pkm_motion_locked_conditioning(m, &fresh, &ctx), &ctx);
    pkm_motion_destroy(&m);
    assert_true(r->conditioning > 0.0 && r->conditioning <= 1.0);
    s->worst = fmax(s->worst, fabs(r->conditioning - fresh) / fresh);
    s->rows++;
    return 0;
}

/* NaVARo along its default trajectory: the conditioning of the closure with its drives held,
 * per time, that of each pose on its own. */
static void test_run_conditioning(void **state)
{
    (void)state;
    void *params = NULL;
    pkm_motion *m = NULL;
    pkm_trajectory *tr = NULL;
    case_motion("navaro", &params, &m, &tr);
    double a, b;
    pkm_trajectory_span(tr, &a, &b);
    cond_seen s = {.c = pkm_case_find("navaro"), .params = params};
    const pkm_dynamics_opts o = {.t0 = a, .t1 = b, .n = 7};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_dynamics_run_on(m, tr, &o, cond_sink, &s, &ctx), &ctx);
    assert_int_equal(s.rows, 7);
    assert_true(s.worst < 1e-8);
    pkm_motion_destroy(&m);
    pkm_trajectory_destroy(&tr);
    pkm_case_params_destroy(&params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_inverse_rows), cmocka_unit_test(test_chain_forward_balance),
        cmocka_unit_test(test_chain_refusals),     cmocka_unit_test(test_mast_reference),
        cmocka_unit_test(test_forward_tree5),      cmocka_unit_test(test_run_conditioning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
