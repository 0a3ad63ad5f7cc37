/* tests/test_studies_transient.c: pkm_transient_run, the KED driver, on the built-in cases: the
 * quasi-static limit of a slow motion, the error's scaling with the stiffness, the loads of a
 * rigid motion against the rigid-body dynamics, bad input.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "navaro_defaults.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/transient.h"

#include <stdlib.h>
#include <string.h>

/* The largest |component| of the error and of the quasi-static error, and the largest
 * difference between them, over a run. */
typedef struct extremes {
    double err[6], qs[6], diff[6];
    double drive, reaction_diff; /* the largest |drive| and |reaction - drive| */
    int64_t rows, updates, nan_reactions;
} extremes;

static int record(void *user, const pkm_transient_row *row)
{
    extremes *x = user;
    for (int k = 0; k < 6; k++) {
        x->err[k] = fmax(x->err[k], fabs(row->error[k]));
        x->qs[k] = fmax(x->qs[k], fabs(row->quasi_static[k]));
        x->diff[k] = fmax(x->diff[k], fabs(row->error[k] - row->quasi_static[k]));
    }
    for (int k = 0; k < row->ndrive; k++) {
        x->drive = fmax(x->drive, fabs(row->drive[k]));
        x->reaction_diff = fmax(x->reaction_diff, fabs(row->reaction[k] - row->drive[k]));
        x->nan_reactions += isnan(row->reaction[k]);
    }
    x->rows++;
    x->updates += row->updated;
    return 0;
}

static double largest(const double v[6], int from)
{
    double m = 0.0;
    for (int k = from; k < from + 3; k++)
        m = fmax(m, v[k]);
    return m;
}

static extremes run_case(const char *name, const void *params, const pkm_transient_opts *o,
                         const char *traj)
{
    const double start = isnan(o->start) ? 0.0 : o->start;
    const pkm_case *c = pkm_case_find(name);
    assert_non_null(c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    pkm_traj_desc d = *pkm_case_traj_find(c, traj);
    if (d.duration < start + o->duration) d.duration = start + o->duration;
    assert_pkm_ok(pkm_trajectory_create_analytic(&d, c->npose, &tr, &ctx), &ctx);
    extremes x;
    memset(&x, 0, sizeof(x));
    assert_pkm_ok(pkm_transient_run(c, params, tr, o, record, &x, &ctx), &ctx);
    pkm_trajectory_destroy(&tr);
    return x;
}

static void print_extremes(const char *what, const extremes *x)
{
    print_message("%s: max |e| %.4g m, %.4g rad; quasi-static %.4g m, %.4g rad; difference "
                  "%.3g m, %.3g rad; %lld rows, %lld updates\n",
                  what, largest(x->err, 0), largest(x->err, 3), largest(x->qs, 0),
                  largest(x->qs, 3), largest(x->diff, 0), largest(x->diff, 3), (long long)x->rows,
                  (long long)x->updates);
}

/* NaVARo's options: its p2p motion in steps of 2 ms, Rayleigh 2 % at 40 and 150 Hz. */
static pkm_transient_opts navaro_opts(void)
{
    pkm_transient_opts o = pkm_transient_opts_default(pkm_case_find("navaro"), 2e-3, 1.0);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_rayleigh_from_ratios(0.02, 40.0, 0.02, 150.0, &o.nm.l1, &o.nm.l2, &ctx),
                  &ctx);
    return o;
}

/* NaVARo's point-to-point motion (1 s in steps of 2 ms, its first frequency 44 Hz): the response
 * follows the quasi-static one; with the links' modulus 10 times higher, the error is 10 times
 * smaller (the loads do not depend on the stiffness; the dynamic part of the response, a tenth of
 * it, scales the same way up to the sqrt(10) in its frequency). */
static void test_navaro_p2p(void **state)
{
    (void)state;
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 1;
    pkm_transient_opts o = navaro_opts();
    const extremes a = run_case("navaro", &par, &o, "p2p");
    print_extremes("navaro p2p", &a);
    assert_int_equal(a.rows, 501);
    assert_int_equal(a.updates, 501);
    assert_true(largest(a.err, 0) > 0.0);
    assert_true(largest(a.diff, 0) < 0.2 * largest(a.qs, 0));
    par.material.E *= 10.0;
    par.material.G *= 10.0;
    const extremes b = run_case("navaro", &par, &o, "p2p");
    print_extremes("navaro p2p, E x 10", &b);
    assert_close(largest(a.qs, 0) / largest(b.qs, 0), 10.0, 1e-6, 0.0);
    assert_close(largest(a.err, 0) / largest(b.err, 0), 10.0, 0.1, 0.0);
}

/* Gravity: from the static deflection under the weight (the motion starts at rest), the response
 * follows the quasi-static one as closely as without gravity; from U(0) = 0 the structure falls
 * into its static deflection and vibrates about it (a difference of the deflection's size). The
 * reassembly every 10 steps counts 51 updates and changes the error by a fraction of it. */
static void test_navaro_gravity_update(void **state)
{
    (void)state;
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 1;
    pkm_transient_opts o = navaro_opts();
    o.gravity = o.static_start = 1;
    const extremes s = run_case("navaro", &par, &o, "p2p");
    print_extremes("navaro p2p, gravity, static start", &s);
    assert_true(largest(s.qs, 0) > 10.0 * 3.243e-6); /* the sag dominates the motion's error */
    assert_true(largest(s.diff, 0) < 0.01 * largest(s.qs, 0));
    o.static_start = 0;
    const extremes z = run_case("navaro", &par, &o, "p2p");
    print_extremes("navaro p2p, gravity, from U = 0", &z);
    assert_true(largest(z.diff, 0) > 0.5 * largest(s.qs, 0));
    o.gravity = 0;
    o.update_every = 10;
    const extremes u = run_case("navaro", &par, &o, "p2p");
    print_extremes("navaro p2p, update every 10 steps", &u);
    assert_int_equal(u.updates, 51);
    o.update_every = 1;
    const extremes e = run_case("navaro", &par, &o, "p2p");
    assert_close(largest(u.err, 0), largest(e.err, 0), 0.05, 0.0);
}

/* The rigid limit (Li et al. 2020, eq. 37 with K -> infinity): NaVARo with only the driven
 * clutches locked (clutch.locked = drive, the other link free about z at A_i as in the rigid
 * model), links 1e6 times stiffer, from the quasi-static state: the reactions at the locked
 * drives equal the rigid-body inverse dynamics' drives to 1e-5 of the largest drive (the
 * differences over the first 0.5 s: 4.8e-2 at the links' stiffness, 1.4e-3 at 1e3 times it,
 * 7.0e-6 at 1e6), and the
 * platform error falls as 1/stiffness (1e3 times stiffer: 1e3 times smaller). With both clutches
 * locked (the paper's model) the drives have no reaction of their own (NAN). */
static void test_navaro_rigid_limit(void **state)
{
    (void)state;
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 1;
    pkm_transient_opts o = navaro_opts();
    o.static_start = 1;
    o.duration = 0.01;
    const extremes both = run_case("navaro", &par, &o, "p2p");
    assert_int_equal(both.nan_reactions, 3 * both.rows);
    o.duration = 0.5; /* the accelerations peak at 0.21 s */
    par.clutch_locked = PKM_NAVARO_LOCKED_DRIVE;
    const extremes soft = run_case("navaro", &par, &o, "p2p");
    print_extremes("navaro p2p, drives locked", &soft);
    print_message("  reactions - drives: %.3g of the largest drive %.4g N m\n",
                  soft.reaction_diff / soft.drive, soft.drive);
    assert_int_equal(soft.nan_reactions, 0);
    double err[2] = {0.0};
    for (int s = 0; s < 2; s++) {
        pkm_navaro_params stiff = par;
        const double f = s == 0 ? 1e3 : 1e6;
        stiff.material.E *= f;
        stiff.material.G *= f;
        const extremes x = run_case("navaro", &stiff, &o, "p2p");
        print_message("  E x %g: reactions - drives %.3g of %.4g N m; max |e| %.4g m, %.4g rad\n",
                      f, x.reaction_diff / x.drive, x.drive, largest(x.err, 0), largest(x.err, 3));
        err[s] = largest(x.err, 0);
        if (s == 1) assert_true(x.reaction_diff < 1e-5 * x.drive);
    }
    assert_close(err[0] / err[1], 1e3, 1e-3, 0.0);
}

/* The 5-PSS/UPU, paper variant, along eq. 40 (0.2 Hz, far below its first frequency, 154 Hz at
 * the centre) over 1 to 1.5 s, where the accelerations peak (t = 1.25 s; the rigid closure is
 * followed there from the centre, where it is singular): Rayleigh 2 % at the centre's modes 1
 * and 3, started from the quasi-static state, Newmark equals the quasi-static solution within
 * 1 % of its largest value; the largest translation error is of the size of the independent
 * model's (Li et al. 2020's notes, Task 4: 1.6e-5 mm and -9.4e-6 mm in x and y for the solid
 * link; 2.2e-5 mm and -3.2e-5 mm for the tube), far below the paper's 0.096 mm. */
static void test_pss5upu_eq40(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("pss5upu");
    void *params = calloc(1, c->params_size);
    assert_non_null(params);
    case_defaults("pss5upu", params, c->params_size);
    pkm_transient_opts o = pkm_transient_opts_default(c, 2e-3, 0.5);
    o.start = 1.0;
    o.static_start = 1;
    o.singular = 1e-7;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_rayleigh_from_ratios(0.02, 154.3, 0.02, 856.3, &o.nm.l1, &o.nm.l2, &ctx),
                  &ctx);
    const extremes x = run_case("pss5upu", params, &o, "eq40");
    print_extremes("pss5upu eq40, 1 to 1.5 s", &x);
    for (int k = 0; k < 6; k++)
        assert_true(x.diff[k] < 0.01 * largest(x.qs, k < 3 ? 0 : 3));
    const double ex_mm = 1e3 * largest(x.err, 0);
    assert_true(ex_mm > 1.6e-5 / 3.0 && ex_mm < 3.2e-5 * 3.0);
    free(params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_navaro_p2p),
        cmocka_unit_test(test_navaro_gravity_update),
        cmocka_unit_test(test_navaro_rigid_limit),
        cmocka_unit_test(test_pss5upu_eq40),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
