/* tests/test_fit.c: pairing computed with reference frequencies (studies/match.c, pkm/fit.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The nearest pairing is checked against a second, independent path: the least cost over every
 * order-keeping one-to-one pairing, enumerated by brute force. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, unlink */
#include "test_util.h"

#include "pkm/fit.h"
#include "pkm/io.h"

#include <stdlib.h>
#include <unistd.h>

#define TABLE4 PKM_SOURCE_DIR "/cases/navaro/table4_measured.csv"

/* Cost of a pairing as pkm/fit.h defines it: |c - r| / r per pair, gap per unpaired value. */
static double pairing_cost(const double *ref, int n, const double *g, const int *pair, double gap)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += pair[k] < 0 ? gap : fabs(g[pair[k]] - ref[k]) / ref[k];
    return s;
}

/* The least cost over the pairings of ref[k..] with g[j..] keeping both orders. */
static double brute(const double *ref, int n, const double *g, int ng, int k, int j, double gap)
{
    if (k == n) return 0.0;
    double best = gap + brute(ref, n, g, ng, k + 1, j, gap);
    for (int q = j; q < ng; q++) {
        const double e = fabs(g[q] - ref[k]) / ref[k];
        if (e < gap) best = fmin(best, e + brute(ref, n, g, ng, k + 1, q + 1, gap));
    }
    return best;
}

static void test_nearest_is_least_cost(void **state)
{
    (void)state;
    srand(12);
    pkm_match_opts o = pkm_match_opts_default();
    o.mode = PKM_MATCH_NEAREST;
    o.gap = 0.2;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int checked = 0;
    for (int trial = 0; trial < 400; trial++) {
        const int n = 1 + rand() % 6, ng = 1 + rand() % 7;
        double ref[6], g[7];
        int pair[6], mult[6], np = 0;
        for (int k = 0; k < n; k++)
            ref[k] = (k ? ref[k - 1] : 10.0) + 1.0 + rand() % 90 / 10.0;
        for (int q = 0; q < ng; q++)
            g[q] = (q ? g[q - 1] : 10.0) + 1.0 + rand() % 90 / 10.0;
        assert_pkm_ok(pkm_freq_match(ref, n, g, ng, &o, pair, mult, &np, &ctx), &ctx);
        int last = -1, count = 0;
        for (int k = 0; k < n; k++) {
            if (pair[k] < 0) continue;
            assert_true(pair[k] > last); /* one to one, both orders kept */
            assert_int_equal(mult[k], 1);
            assert_true(fabs(g[pair[k]] - ref[k]) < o.gap * ref[k]);
            last = pair[k];
            count++;
        }
        assert_int_equal(np, count);
        assert_close(pairing_cost(ref, n, g, pair, o.gap), brute(ref, n, g, ng, 0, 0, o.gap), 1e-12,
                     1e-15);
        checked += count > 0;
    }
    assert_true(checked > 100);
}

/* A row of distinct values pairs a computed doublet once (mult 2) and leaves a value without a
 * close partner unpaired; a row listing a doublet (Table 3) counts every mode, in order. */
static void test_doublets_and_order(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double comp[5] = {19.72, 19.72 * (1 + 1e-9), 21.10, 42.2, 44.1};
    const double meas[5] = {22, 24, 32, NAN, 42};
    int pair[5], mult[5], np;
    pkm_match_opts o = pkm_match_opts_default();
    o.mode = PKM_MATCH_NEAREST;
    assert_pkm_ok(pkm_freq_match(meas, 5, comp, 5, &o, pair, mult, &np, &ctx), &ctx);
    const int want[5] = {0, 2, -1, -1, 3}, wmult[5] = {2, 1, 0, 0, 1};
    for (int k = 0; k < 5; k++) {
        assert_int_equal(pair[k], want[k]);
        assert_int_equal(mult[k], wmult[k]);
    }
    assert_int_equal(np, 3);
    /* order: column k with the k-th value, the doublet once; the empty column stays unpaired */
    o.mode = PKM_MATCH_ORDER;
    assert_pkm_ok(pkm_freq_match(meas, 5, comp, 5, &o, pair, mult, &np, &ctx), &ctx);
    const int word[5] = {0, 2, 3, -1, -1};
    for (int k = 0; k < 5; k++)
        assert_int_equal(pair[k], word[k]);
    /* Table 3's row lists the doublet: modes 1 and 2 each */
    const double t3[5] = {44.10, 44.10, 53.98, 60.63, 95.62};
    const double c3[5] = {44.1046, 44.1046, 53.9798, 60.6305, 95.6152};
    for (int mode = 0; mode < 2; mode++) {
        o.mode = mode ? PKM_MATCH_NEAREST : PKM_MATCH_ORDER;
        assert_pkm_ok(pkm_freq_match(t3, 5, c3, 5, &o, pair, mult, &np, &ctx), &ctx);
        for (int k = 0; k < 5; k++) {
            assert_int_equal(pair[k], k);
            assert_int_equal(mult[k], 1);
        }
    }
    o.gap = 0.0;
    assert_int_equal(pkm_freq_match(t3, 5, c3, 5, &o, pair, mult, &np, &ctx), PKM_ERR_INVALID);
}

/* Table 4 as pkm_table_read gives it: a kind per row, empty cells NAN, the Table 3 poses. */
static void test_table_kinds(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_table *t = NULL;
    assert_pkm_ok(pkm_table_read(TABLE4, 3, &t, &ctx), &ctx);
    assert_int_equal(t->nrows, 8);
    assert_int_equal(t->nfreq, 12);
    assert_non_null(t->kind);
    assert_string_equal(t->kind[0], "meas");
    assert_string_equal(t->kind[7], "calc");
    assert_int_equal(t->id[7], 4);
    assert_close(t->pose[3 * 2 + 2], -1.0471975511965976, 1e-15, 0.0);
    assert_true(isnan(t->freq[3]));                 /* pose 1 meas f4: '-' */
    assert_close(t->freq[12 + 7], 67.94, 0.0, 0.0); /* pose 1 calc f8 */
    pkm_table_destroy(&t);
    /* a row without any frequency, a kind with a blank inside: one error naming the line */
    const char *bad[2] = {"pose,kind,x,f1,f2\n1,meas,0,,\n", "pose,kind,x,f1\n1,me as,0,3\n"};
    for (int b = 0; b < 2; b++) {
        char path[] = "/tmp/pkm_table_XXXXXX";
        const int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, bad[b], strlen(bad[b])), (ssize_t)strlen(bad[b]));
        close(fd);
        assert_int_equal(pkm_table_read(path, 1, &t, &ctx), PKM_ERR_PARSE);
        assert_null(t);
        assert_non_null(strstr(ctx.msg, ":2:"));
        unlink(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nearest_is_least_cost),
        cmocka_unit_test(test_doublets_and_order),
        cmocka_unit_test(test_table_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
