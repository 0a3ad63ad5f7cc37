/* tests/test_util.h: tolerance assertions for cmocka (1.1.5 has no double assert).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_UTIL_H
#define PKM_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

/* |a - b| <= rtol * max(|a|, |b|) + atol, with both values in the failure message. */
#define assert_close(a, b, rtol, atol)                                                             \
    do {                                                                                           \
        double pkm_a_ = (a), pkm_b_ = (b);                                                         \
        double pkm_s_ = fmax(fabs(pkm_a_), fabs(pkm_b_));                                          \
        if (!(fabs(pkm_a_ - pkm_b_) <= (rtol)*pkm_s_ + (atol))) {                                  \
            print_error("%s = %.17g, %s = %.17g, rel. diff %.3e > rtol %.1e (atol %.1e)\n", #a,    \
                        pkm_a_, #b, pkm_b_, fabs(pkm_a_ - pkm_b_) / (pkm_s_ > 0 ? pkm_s_ : 1.0),   \
                        (double)(rtol), (double)(atol));                                           \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* Assert a pkm call returned PKM_OK, printing the context message otherwise. */
#define assert_pkm_ok(call, ctx)                                                                   \
    do {                                                                                           \
        pkm_status pkm_st_ = (call);                                                               \
        if (pkm_st_ != PKM_OK) {                                                                   \
            print_error("%s returned %d (%s): %s\n", #call, (int)pkm_st_, pkm_status_str(pkm_st_), \
                        (ctx)->msg);                                                               \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

#endif
