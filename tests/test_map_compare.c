/* tests/test_map_compare.c: studies/map_compare.c: two maps compared rank by rank (pkmflex
 * compare --against) and the summary of one (the end of pkmflex map), on the synthetic map of
 * map_fixture.h, whose frequencies, statuses and tracking MACs are given by formulas.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "map_fixture.h"

/* A map compared with itself: every point OK in both, every difference 0. */
static void test_compare_self(void **state)
{
    (void)state;
    pkm_map a;
    make_map(&a);
    pkm_map_diff d;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_compare(&a, &a, &d, &ctx), &ctx);
    assert_int_equal(d.nev, NEV);
    assert_int_equal(d.both, 8); /* 12 points: 1, 6, 7 not OK, 11 pending */
    assert_int_equal(d.one_only, 0);
    for (int k = 0; k < NEV; k++) {
        assert_true(d.max_rel[k] == 0.0);
        assert_true(d.mean_rel[k] == 0.0);
    }
    assert_true(d.max_all == 0.0);
    assert_int_equal(d.max_rank, 1);
    pkm_map_diff_free(&d);
    pkm_map_diff_free(&d); /* twice: a no-op */
    pkm_map_free(&a);
}

/* b's frequencies are a's scaled by 1 + s (p + 1) (k + 1) at point p and rank k, so that the
 * relative difference |f_a - f_b| / f_b is r = x / (1 + x), x = s (p + 1) (k + 1): largest at
 * the last OK point (10) and rank NEV; point 4 is OK in a only. */
static void test_compare_scaled(void **state)
{
    (void)state;
    const double s = 1e-3;
    pkm_map a, b;
    make_map(&a);
    make_map(&b);
    for (int64_t p = 0; p < b.npoints; p++)
        for (int k = 0; k < NEV; k++)
            b.freq_hz[p * NEV + k] *= 1.0 + s * (double)(p + 1) * (double)(k + 1);
    b.status[4] = PKM_POSE_FAILED;
    pkm_map_diff d;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_compare(&a, &b, &d, &ctx), &ctx);
    assert_int_equal(d.both, 7);
    assert_int_equal(d.one_only, 1);
    const int ok[] = {0, 2, 3, 5, 8, 9, 10};
    for (int k = 0; k < NEV; k++) {
        double mean = 0.0;
        for (int i = 0; i < 7; i++) {
            const double x = s * (ok[i] + 1) * (k + 1);
            mean += x / (1.0 + x) / 7.0;
        }
        const double x = s * 11.0 * (k + 1);
        assert_close(d.max_rel[k], x / (1.0 + x), 1e-12, 0.0);
        assert_close(d.mean_rel[k], mean, 1e-12, 0.0);
        assert_int_equal(d.worst[k], 10);
    }
    assert_close(d.max_all, 11.0 * s * NEV / (1.0 + 11.0 * s * NEV), 1e-12, 0.0);
    assert_int_equal(d.max_rank, NEV);
    pkm_map_diff_free(&d);
    /* fewer modes in b: the first b.nev ranks */
    b.nev = 3;
    assert_pkm_ok(pkm_map_compare(&a, &b, &d, &ctx), &ctx);
    assert_int_equal(d.nev, 3);
    pkm_map_diff_free(&d);
    b.nev = NEV;
    pkm_map_free(&a);
    pkm_map_free(&b);
}

/* Different grids: an error naming the axis, and nothing to free. */
static void test_compare_grids(void **state)
{
    (void)state;
    pkm_map a, b;
    make_map(&a);
    make_map(&b);
    b.axes[1].stop = 0.7;
    pkm_map_diff d;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_compare(&a, &b, &d, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "theta"));
    assert_null(d.max_rel);
    pkm_map_free(&a);
    pkm_map_free(&b);
}

/* The summary of the fixture: its statuses, the frequency ranges of its formula (lowest at
 * point 0, highest at point 10) and its tracking links, MAC 1 - 0.01 (k + p). */
static void test_summary(void **state)
{
    (void)state;
    pkm_map m;
    make_map(&m);
    pkm_map_summary s;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_summarize(&m, &s, &ctx), &ctx);
    assert_int_equal(s.count[PKM_POSE_OK], 8);
    assert_int_equal(s.count[PKM_POSE_UNREACHABLE], 1);
    assert_int_equal(s.count[PKM_POSE_SINGULAR], 1);
    assert_int_equal(s.count[PKM_POSE_FAILED], 1);
    assert_int_equal(s.pending, 1);
    for (int k = 0; k < NEV; k++) {
        assert_close(s.freq_min[k], 10.0 * (k + 1) + 1e-3 * k * k, 1e-15, 0.0);
        assert_close(s.freq_max[k], 10.0 * (k + 1) + 2.5 + 1e-3 * k * k, 1e-15, 0.0);
    }
    assert_int_equal(s.links, 7); /* the OK points but the root 0 */
    assert_int_equal(s.low_links, 0);
    assert_close(s.lowest_mac, 1.0 - 0.01 * (4 + 10), 1e-15, 0.0);
    pkm_map_summary_free(&s);
    /* threshold 0.9: the links with k + p > 10, i.e. 4 at point 10, 3 at 9, 2 at 8 */
    m.track.mac_threshold = 0.9;
    assert_pkm_ok(pkm_map_summarize(&m, &s, &ctx), &ctx);
    assert_int_equal(s.low_links, 9);
    pkm_map_summary_free(&s);
    /* ranks only: no links counted */
    m.tracking = PKM_TRACK_RANK;
    assert_pkm_ok(pkm_map_summarize(&m, &s, &ctx), &ctx);
    assert_int_equal(s.links, 0);
    assert_true(s.lowest_mac == 1.0);
    pkm_map_summary_free(&s);
    pkm_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_self),
        cmocka_unit_test(test_compare_scaled),
        cmocka_unit_test(test_compare_grids),
        cmocka_unit_test(test_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
