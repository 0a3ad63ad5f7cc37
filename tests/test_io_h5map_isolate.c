/* tests/test_io_h5map_isolate.c: pkm_map_read_h5_isolated (io/h5map_isolate.c): a map read in a
 * child process equals the direct read; the reader's errors come back as they are; a child that
 * is killed (here by the file size limit while it writes the clean copy) or never finishes (a
 * FIFO nobody writes to) is one error naming the file; no temporary file is left.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L

#include "map_fixture.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary directory of the isolated reads: empty after each. */
static char tmpdir[512];

static void assert_tmpdir_empty(void)
{
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        entries += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    assert_int_equal(entries, 0);
}

static int setup(void **state)
{
    (void)state;
    out_path(tmpdir, sizeof(tmpdir), "isolate_tmp");
    mkdir(tmpdir, 0700);
    return setenv("TMPDIR", tmpdir, 1);
}

/* The map and its vectors as the direct reader gives them. */
static void test_same_as_direct(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "isolate_map.h5");
    pkm_map m, r, d;
    make_map_with_modes(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    assert_pkm_ok(pkm_map_read_h5_isolated(path, 0.0, &r, &ctx), &ctx);
    assert_pkm_ok(pkm_map_read_h5(path, &d, &ctx), &ctx);
    assert_maps_equal(&d, &r);
    assert_non_null(r.modes);
    assert_memory_equal(r.modes, d.modes, sizeof(double) * NPTS * NEV * NC);
    assert_tmpdir_empty();
    assert_no_open_objects();
    pkm_map_free(&r);
    pkm_map_free(&d);
    pkm_map_free(&m);
    unlink(path);
}

/* Every input of tests/fuzz/known/ (libhdf5 crashed, looped or leaked on them in-process):
 * PKM_ERR_PARSE naming the file, this process untouched. */
static void test_known_fuzz_inputs(void **state)
{
    (void)state;
    const char *names[] = {"attr_decode_uaf",      "cache_huge_alloc", "chunk_huge_alloc",
                           "chunk_overread",       "elsize_overread",  "global_heap_hang",
                           "global_heap_overflow", "layout_leak"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/tests/fuzz/known/map_reader_hdf5_%s.h5", PKM_SOURCE_DIR,
                 names[i]);
        pkm_map r;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_int_equal(pkm_map_read_h5_isolated(path, 0.0, &r, &ctx), PKM_ERR_PARSE);
        assert_non_null(strstr(ctx.msg, path));
        assert_null(r.freq_hz);
        assert_tmpdir_empty();
        assert_no_open_objects();
    }
}

/* A child killed by a signal (SIGXFSZ: the file size limit, while it writes the clean copy). */
static void test_child_killed(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "isolate_killed.h5");
    pkm_map m, r;
    make_map_with_modes(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    struct rlimit old, small = {.rlim_cur = 1000, .rlim_max = RLIM_INFINITY};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    const pkm_status st = pkm_map_read_h5_isolated(path, 0.0, &r, &ctx);
    setrlimit(RLIMIT_FSIZE, &old);
    assert_int_equal(st, PKM_ERR_PARSE);
    assert_non_null(strstr(ctx.msg, path));
    char want[64];
    snprintf(want, sizeof(want), "ended on signal %d", SIGXFSZ);
    assert_non_null(strstr(ctx.msg, want));
    assert_tmpdir_empty();
    pkm_map_free(&m);
    unlink(path);
}

/* A child that never finishes: opening a FIFO with no writer blocks for ever. */
static void test_child_hangs(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "isolate_fifo.h5");
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    pkm_map r;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_read_h5_isolated(path, 0.5, &r, &ctx), PKM_ERR_PARSE);
    assert_non_null(strstr(ctx.msg, path));
    assert_non_null(strstr(ctx.msg, "not read in"));
    assert_tmpdir_empty();
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_direct),
        cmocka_unit_test(test_known_fuzz_inputs),
        cmocka_unit_test(test_child_killed),
        cmocka_unit_test(test_child_hangs),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
