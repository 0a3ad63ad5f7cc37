/* tests/test_io_trajectory_csv.c: trajectories read from CSV samples (io/trajectory_csv.c): the
 * columns found by name in any order, the spline through them, one "file:line: ..." message for
 * each malformed input.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "pkm/io.h"
#include "pkm/trajectory.h"

#include <stdio.h>

static const char *const names[2] = {"x", "theta"};

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

/* x = 1 + t^3 and theta = 2 t - t^2 at uneven times, columns swapped, comments, blank lines,
 * blanks around names and a CRLF line ending: the spline reproduces both cubics. */
static void test_read_good(void **state)
{
    (void)state;
    const char *path = PKM_TEST_OUT "/traj_good.csv";
    char text[2048] = "# a trajectory\n t , theta,x \r\n";
    const double times[6] = {0.0, 0.1, 0.35, 0.4, 0.8, 1.0};
    for (int i = 0; i < 6; i++) {
        const double t = times[i];
        char row[128];
        snprintf(row, sizeof(row), "%s%.17g,%.17g,%.17g\n", i == 3 ? "\n# comment\n" : "", t,
                 2.0 * t - t * t, 1.0 + t * t * t);
        strcat(text, row);
    }
    write_file(path, text);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    assert_pkm_ok(pkm_trajectory_read_csv(path, names, 2, &tr, &ctx), &ctx);
    double t0, t1;
    pkm_trajectory_span(tr, &t0, &t1);
    assert_true(t0 == 0.0 && t1 == 1.0);
    for (double t = 0.0; t <= 1.0; t += 0.0625) {
        double q[2], qd[2], qdd[2];
        assert_pkm_ok(pkm_trajectory_eval(tr, t, q, qd, qdd, &ctx), &ctx);
        assert_close(q[0], 1.0 + t * t * t, 0.0, 1e-12);
        assert_close(qd[0], 3.0 * t * t, 0.0, 1e-12);
        assert_close(qdd[0], 6.0 * t, 0.0, 1e-11);
        assert_close(q[1], 2.0 * t - t * t, 0.0, 1e-12);
        assert_close(qd[1], 2.0 - 2.0 * t, 0.0, 1e-12);
        assert_close(qdd[1], -2.0, 0.0, 1e-11);
    }
    pkm_trajectory_destroy(&tr);
    remove(path);
}

static void expect_parse_error(const char *text, const char *what)
{
    const char *path = PKM_TEST_OUT "/traj_bad.csv";
    write_file(path, text);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    assert_int_equal(pkm_trajectory_read_csv(path, names, 2, &tr, &ctx), PKM_ERR_PARSE);
    assert_null(tr);
    char expect[512];
    snprintf(expect, sizeof(expect), "%s:%s", path, what);
    if (!strstr(ctx.msg, expect)) {
        print_error("message \"%s\" does not contain \"%s\"\n", ctx.msg, expect);
        fail();
    }
    remove(path);
}

static void test_read_bad(void **state)
{
    (void)state;
    const char *rows = "0,0,0\n1,1,1\n2,2,2\n3,3,3\n";
    char text[512];
    snprintf(text, sizeof(text), "t,x\n%s", "0,0\n1,1\n2,2\n3,3\n");
    expect_parse_error(text, "1: missing column 'theta'");
    snprintf(text, sizeof(text), "t,x,phi\n%s", rows);
    expect_parse_error(text, "1: unknown column 'phi' (field 3)");
    snprintf(text, sizeof(text), "t,x,theta,x\n%s", "0,0,0,0\n");
    expect_parse_error(text, "1: column 'x' given twice (fields 2, 4)");
    snprintf(text, sizeof(text), "time,x,theta\n%s", rows);
    expect_parse_error(text, "1: the header must start with the column 't', not 'time'");
    expect_parse_error("t,x,theta\n0,0,0\n1,abc,1\n", "3:3: field 2 'abc' is not a finite number");
    expect_parse_error("t,x,theta\n0,0,0\n1,1\n", "3: 2 fields, the header has 3");
    expect_parse_error("t,x,theta\n0,0,0\n1,1,1\n2,2,2\n", "4: 3 samples, a not-a-knot");
    expect_parse_error("t,x,theta\n0,0,0\n1,1,1\n1,2,2\n3,3,3\n", "4: time 1 s is not after");
    expect_parse_error("t,x,theta\n0,0,0\n1,1,1\n0.5,2,2\n3,3,3\n", "4: time 0.5 s is not after");
    expect_parse_error("# nothing\n\n", "2: no header");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_trajectory *tr = NULL;
    assert_int_equal(pkm_trajectory_read_csv(PKM_TEST_OUT "/no/such.csv", names, 2, &tr, &ctx),
                     PKM_ERR_IO);
    assert_non_null(strstr(ctx.msg, "no/such.csv: cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_good),
        cmocka_unit_test(test_read_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
