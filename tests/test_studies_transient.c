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
    int64_t rows, updates;
} extremes;

static int record(void *user, const pkm_transient_row *row)
{
    extremes *x = user;
    for (int k = 0; k < 6; k++) {
        x->err[k] = fmax(x->err[k], fabs(row->error[k]));
        x->qs[k] = fmax(x->qs[k], fabs(row->quasi_static[k]));
        x->diff[k] = fmax(x->diff[k], fabs(row->error[k] - row->quasi_static[k]));
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
    const pkm_case *c = pkm_case_find(name);
    assert_non_null(c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    pkm_traj_desc d = *pkm_case_traj_find(c, traj);
    if (d.duration < o->duration) d.duration = o->duration;
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

/* NaVARo's point-to-point motion (1 s, its first frequency 44 Hz): the response follows the
 * quasi-static one; with the links' modulus 10 times higher, the error is 10 times smaller
 * (the loads do not depend on the stiffness; the dynamic part of the response, a tenth of it,
 * scales the same way up to the sqrt(10) in its frequency). */
static void test_navaro_p2p(void **state)
{
    (void)state;
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 1;
    const pkm_case *c = pkm_case_find("navaro");
    pkm_transient_opts o = pkm_transient_opts_default(c, 1e-3, 1.0);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_rayleigh_from_ratios(0.02, 40.0, 0.02, 150.0, &o.nm.l1, &o.nm.l2, &ctx),
                  &ctx);
    const extremes a = run_case("navaro", &par, &o, "p2p");
    print_extremes("navaro p2p", &a);
    assert_int_equal(a.rows, 1001);
    assert_int_equal(a.updates, 1001);
    assert_true(largest(a.err, 0) > 0.0);
    assert_true(largest(a.diff, 0) < 0.2 * largest(a.qs, 0));
    par.material.E *= 10.0;
    par.material.G *= 10.0;
    const extremes b = run_case("navaro", &par, &o, "p2p");
    print_extremes("navaro p2p, E x 10", &b);
    assert_close(largest(a.qs, 0) / largest(b.qs, 0), 10.0, 1e-6, 0.0);
    assert_close(largest(a.err, 0) / largest(b.err, 0), 10.0, 0.1, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_navaro_p2p),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
