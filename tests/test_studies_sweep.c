/* tests/test_studies_sweep.c: the executors of a map sweep (studies/sweep.c, sweep_fork.c): the
 * same map for any number of workers, a sweep stopped at a chosen pose and resumed from its
 * checkpoint file, the probe, the watchdog of a stalled or killed worker, the notice of untracked
 * modes.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE /* kill, nanosleep, ppoll */

#include "sweep_fixture.h"
#include "test_util.h"

#include "pkm/casefile.h"
#include "pkm/io.h"
#include "pkm/map.h"
#include "studies/sweep_impl.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A case that builds nothing: poses with x < 0.9 are unreachable, x >= 0.9 hangs (a worker stuck
 * for ever, as in a deadlock), kills its process or exits it with status 0 (as LAPACK's xerbla
 * does), as hang_mode says. No pose reaches CHOLMOD,
 * so these sweeps fork from a clean process whatever the other tests do. */
static int hang_mode; /* 0: hang, 1: SIGKILL, 2: exit(0) */
/* Read end of a pipe the first pose of a process waits on before it starts, or -1. */
static int gate_fd = -1;

static pkm_status fake_build(const void *params, const double *pose, pkm_model **out, pkm_ctx *ctx)
{
    (void)params;
    *out = NULL;
    if (gate_fd >= 0) {
        char go;
        assert_int_equal(read(gate_fd, &go, 1), 1);
        gate_fd = -1;
    }
    if (pose[0] >= 0.9) {
        if (hang_mode == 1) kill(getpid(), SIGKILL);
        if (hang_mode == 2) exit(0);
        for (;;) {
            const struct timespec t = {1, 0};
            nanosleep(&t, NULL);
        }
    }
    return pkm_ctx_fail(ctx, PKM_ERR_UNREACHABLE, __FILE__, __LINE__, "x = %g out of reach",
                        pose[0]);
}

static const char *const fake_names[1] = {"x"};
static const char *const fake_units[1] = {"m"};
static const double fake_home[1] = {0.0};
static const pkm_case fake_case = {
    .name = "fake",
    .npose = 1,
    .pose_names = fake_names,
    .pose_units = fake_units,
    .home = fake_home,
    .build = fake_build,
};

static void make_fake_map(pkm_map *m, double stop, int count)
{
    pkm_map_init(m);
    snprintf(m->case_name, sizeof(m->case_name), "fake");
    m->npose = 1;
    snprintf(m->pose_names[0], PKM_MAP_NAME_LEN, "x");
    m->naxes = 1;
    m->axes[0] = (pkm_map_axis){"x", "m", 0, count, 0.0, stop};
    m->nev = m->opts.nev = 3;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_alloc(m, &ctx), &ctx);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifndef PKM_TEST_OUT
#define PKM_TEST_OUT "."
#endif

/* The pose the test stops at, and the checkpoints written. The stop callback runs in the
 * process that computed the pose: a worker's copy of stop_at is the one set before the fork. */
static int64_t stop_at;
static int checkpoints;
static const char *const checkpoint_path = PKM_TEST_OUT "/sweep_stop.h5.partial";

static int stop_at_pose(int64_t point, void *user)
{
    (void)user;
    return point == stop_at;
}

static pkm_status write_checkpoint(const pkm_map *snap, void *user, pkm_ctx *ctx)
{
    (void)user;
    checkpoints++;
    return pkm_map_write_h5(snap, checkpoint_path, ctx);
}

/* One sweep of navaro with nworkers, stopping at stop_at (the checkpoint written to
 * checkpoint_path) if stop is set. */
static void sweep_navaro(const void *par, pkm_map *m, int nworkers, int stop)
{
    pkm_sweep_opts so = pkm_sweep_opts_default();
    so.nworkers = nworkers;
    if (stop) {
        so.stop = stop_at_pose;
        so.checkpoint = write_checkpoint;
        so.checkpoint_interval = 1e6; /* only the one taken at the stop */
    }
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_sweep(pkm_case_find("navaro"), par, m, &so, &ctx), &ctx);
}

/* OK points of m holding vectors. */
static int64_t points_with_vectors(const pkm_map *m)
{
    int64_t n = 0;
    for (int64_t p = 0; m->modes != NULL && p < m->npoints; p++)
        n += m->status[p] == PKM_POSE_OK &&
             !isnan(m->modes[(size_t)p * (size_t)m->nev * (size_t)m->ncoord]);
    return n;
}

/* A sweep interrupted at each of stops (ascending, -1 ended), each time written to its
 * checkpoint file and resumed from it, gives the uninterrupted map whole, tracking included;
 * each checkpoint holds the links made so far and only the vectors further links need, which
 * for the serial executor (one tile, row-major) are at most one row of the last axis and the
 * stop itself. */
static void resume_in_steps(const pkm_case *c, const void *par, const pkm_map *whole, int workers,
                            const int64_t *stops)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_map m;
    make_navaro_grid(c, par, &m, whole->axes[0].count, whole->axes[1].count, whole->eigensolver);
    for (int i = 0; stops[i] >= 0; i++) {
        /* A worker that was computing this pose when an earlier stop was requested finished
         * it (the stop is seen between poses): it cannot be stopped at any more. */
        if (m.status[stops[i]] != PKM_POSE_PENDING) continue;
        stop_at = stops[i];
        checkpoints = 0;
        remove(checkpoint_path);
        sweep_navaro(par, &m, workers, 1);
        assert_int_equal(checkpoints, 1);
        pkm_map_free(&m);
        assert_pkm_ok(pkm_map_read_h5(checkpoint_path, &m, &ctx), &ctx);
        int64_t ok = 0;
        for (int64_t p = 0; p < m.npoints; p++)
            ok += m.status[p] == PKM_POSE_OK;
        if (ok > 0) assert_non_null(m.link_match);
        const int64_t kept = points_with_vectors(&m);
        assert_int_equal(kept, pkm_map_vectors_needed(&m));
        /* Serial only: with several workers the poses solved by the stop depend on timing
         * (tiles of 8 poses finished out of order, unreachable poses among them), and all of
         * them may still need their vectors. */
        if (workers == 1) assert_true(kept <= m.axes[1].count + 1);
        if (workers == 1 && stops[i] >= 2 * m.axes[1].count) assert_true(kept < ok);
    }
    stop_at = -1;
    sweep_navaro(par, &m, workers, 0);
    assert_null(m.link_match); /* consumed by the tracking */
    assert_same_map(&m, whole);
    pkm_map_free(&m);
    remove(checkpoint_path);
}

/* The executors: the serial one and the fork one with 2 and 3 workers give the same map bit for
 * bit (each pose is computed the same way whoever computes it, in any tile), and a sweep
 * stopped at a chosen pose, its checkpoint written to a file and resumed from it, gives the
 * uninterrupted map, tracking ids included. The forked sweeps run first: this process solves
 * nothing before them (pkm_map_sweep's fork safety). */
static void test_executors_same_map(void **state)
{
    (void)state;
    const pkm_case *c = NULL;
    void *par = navaro_params(&c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_map whole[4];
    for (int w = 3; w >= 1; w--) {
        make_navaro_map(c, par, &whole[w]);
        sweep_navaro(par, &whole[w], w, 0);
    }
    assert_int_equal(whole[1].tracking, PKM_TRACK_MAC);
    int unreachable = 0;
    for (int64_t p = 0; p < whole[1].npoints; p++)
        unreachable += whole[1].status[p] == PKM_POSE_UNREACHABLE;
    assert_true(unreachable > 0 && unreachable < whole[1].npoints / 2);
    assert_same_map(&whole[2], &whole[1]);
    assert_same_map(&whole[3], &whole[1]);

    /* Pose 0, an unreachable corner, stops the probe of the fork executor (the vectors' length
     * still unknown); pose 20 stops a worker or the serial executor in the middle of the grid. */
    assert_int_equal(whole[1].status[0], PKM_POSE_UNREACHABLE);
    const int workers[4] = {2, 2, 1, 1}; /* fork first, as above */
    for (int i = 0; i < 4; i++) {
        stop_at = i % 2 ? 20 : 0;
        checkpoints = 0;
        remove(checkpoint_path);
        pkm_map m;
        make_navaro_map(c, par, &m);
        sweep_navaro(par, &m, workers[i], 1);
        assert_int_equal(checkpoints, 1);
        assert_int_not_equal(m.status[stop_at], PKM_POSE_PENDING);
        /* Stopped early: some pose left PENDING (not necessarily the last: with two workers the
         * other may have taken the last tile before the stop was seen). */
        int64_t pending = 0;
        for (int64_t p = 0; p < m.npoints; p++)
            pending += m.status[p] == PKM_POSE_PENDING;
        assert_true(pending > 0);
        assert_int_equal(m.tracking, PKM_TRACK_RANK);
        /* Resumed from the file, with the stop out of reach. */
        pkm_map r;
        assert_pkm_ok(pkm_map_read_h5(checkpoint_path, &r, &ctx), &ctx);
        assert_memory_equal(r.status, m.status, (size_t)m.npoints);
        stop_at = -1;
        sweep_navaro(par, &r, workers[i], 0);
        assert_same_map(&r, &whole[1]);
        pkm_map_free(&r);
        pkm_map_free(&m);
    }
    remove(checkpoint_path);
    /* Interrupted again and again, mid-tile for the serial executor (its one tile is the grid),
     * at the probe's first pose and between the workers' tiles for the fork one. */
    const int64_t fork_stops[] = {0, 9, 19, 30, -1}, serial_stops[] = {4, 11, 16, 23, 29, 36, -1};
    resume_in_steps(c, par, &whole[1], 2, fork_stops);
    resume_in_steps(c, par, &whole[1], 1, serial_stops);
    for (int w = 1; w <= 3; w++)
        pkm_map_free(&whole[w]);
    pkm_case_params_destroy(&par);
}

/* The warm-started block solver, whose results depend on the poses solved before in a tile:
 * each tile starts cold and a partly computed tile is computed again whole, so that the serial
 * executor and the fork one with 2 and 3 workers give the same map bit for bit on a 12 x 12 grid
 * (three tiles of the walk), and so do sweeps stopped again and again (at the probe's first pose,
 * inside each tile) and resumed from their checkpoints. */
static void test_block_same_map(void **state)
{
    (void)state;
    const pkm_case *c = NULL;
    void *par = navaro_params(&c);
    pkm_map whole[4];
    for (int w = 3; w >= 1; w--) {
        make_navaro_grid(c, par, &whole[w], 12, 12, PKM_EIG_BLOCK);
        sweep_navaro(par, &whole[w], w, 0);
    }
    int64_t ok = 0;
    for (int64_t p = 0; p < whole[1].npoints; p++)
        ok += whole[1].status[p] == PKM_POSE_OK;
    assert_true(ok > 64);
    assert_int_equal(whole[1].solver_fallbacks, 0);
    assert_same_map(&whole[2], &whole[1]);
    assert_same_map(&whole[3], &whole[1]);
    const int64_t stops[] = {0, 30, 70, 100, 130, -1};
    resume_in_steps(c, par, &whole[1], 2, stops);
    resume_in_steps(c, par, &whole[1], 1, stops);
    for (int w = 1; w <= 3; w++)
        pkm_map_free(&whole[w]);
    pkm_case_params_destroy(&par);
}

/* How the sweeping process waits, counted while counting is set: this program's nanosleep and
 * poll replace the C library's (whose work they forward to clock_nanosleep and ppoll), so the
 * library's calls come here. */
static int counting, sleeps, polls;

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    sleeps += counting;
    const int e = clock_nanosleep(CLOCK_REALTIME, 0, req, rem);
    if (e == 0) return 0;
    errno = e;
    return -1;
}

int poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
    polls += counting;
    const struct timespec t = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    return ppoll(fds, n, timeout_ms < 0 ? NULL : &t, NULL);
}

/* The progress report of the sweeping process opens the gate of the probe. */
static void open_gate(int64_t done, int64_t total, void *user)
{
    (void)done;
    (void)total;
    assert_int_equal(write(*(const int *)user, "g", 1), 1);
}

/* No OK pose: the probe goes through every pose and no other worker starts. The sweeping process
 * waits for it on the pipes it ends (poll), never by sleeping a fixed tick (nanosleep), which
 * cost up to 50 ms per phase (docs/performance.md). The probe holds its first pose until the
 * first progress report, so the sweeping process has waited for it at least once. */
static void test_probe_without_ok_pose(void **state)
{
    (void)state;
    int gate[2];
    assert_int_equal(pipe(gate), 0);
    pkm_map m;
    make_fake_map(&m, 0.8, 9);
    pkm_sweep_opts so = pkm_sweep_opts_default();
    so.nworkers = 2;
    so.progress = open_gate;
    so.user = &gate[1];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    gate_fd = gate[0];
    sleeps = polls = 0;
    counting = 1;
    const pkm_status rc = pkm_map_sweep(&fake_case, NULL, &m, &so, &ctx);
    counting = 0;
    gate_fd = -1;
    assert_pkm_ok(rc, &ctx);
    assert_int_equal(sleeps, 0);
    assert_true(polls >= 1);
    for (int64_t p = 0; p < m.npoints; p++)
        assert_int_equal(m.status[p], PKM_POSE_UNREACHABLE);
    assert_int_equal(m.ncoord, 0);
    pkm_map_free(&m);
    close(gate[0]);
    close(gate[1]);
}

/* A worker stuck on one pose is reported within the stall limit instead of hanging the sweep,
 * with the probe (vectors' length unknown) and with the workers (length known). */
static void test_stalled_worker(void **state)
{
    (void)state;
    hang_mode = 0;
    for (int known = 0; known < 2; known++) {
        pkm_map m;
        make_fake_map(&m, 1.0, 6);
        m.ncoord = known ? 10 : 0; /* as a resumed map whose vectors are not kept */
        m.track_bytes = 1;
        pkm_sweep_opts so = pkm_sweep_opts_default();
        so.nworkers = 2;
        so.stall_timeout = 0.5;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        const double t0 = seconds();
        assert_int_equal(pkm_map_sweep(&fake_case, NULL, &m, &so, &ctx), PKM_ERR_SOLVER);
        assert_true(seconds() - t0 < 10.0);
        assert_non_null(strstr(ctx.msg, "stalled"));
        assert_non_null(strstr(ctx.msg, "point 5"));
        assert_int_equal(m.status[0], PKM_POSE_UNREACHABLE);
        assert_int_equal(m.status[5], PKM_POSE_PENDING);
        pkm_map_free(&m);
    }
}

/* A worker that dies is an error naming the signal. */
static void test_killed_worker(void **state)
{
    (void)state;
    hang_mode = 1;
    pkm_map m;
    make_fake_map(&m, 1.0, 6);
    pkm_sweep_opts so = pkm_sweep_opts_default();
    so.nworkers = 2;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_sweep(&fake_case, NULL, &m, &so, &ctx), PKM_ERR_SOLVER);
    assert_non_null(strstr(ctx.msg, "killed by signal 9"));
    pkm_map_free(&m);
}

/* A worker that exits early without an error leaves its poses pending: an error, not a map
 * with holes that looks complete. */
static void test_worker_exits_early(void **state)
{
    (void)state;
    hang_mode = 2;
    for (int known = 0; known < 2; known++) {
        pkm_map m;
        make_fake_map(&m, 1.0, 6);
        m.ncoord = known ? 10 : 0; /* without or with the probe */
        m.track_bytes = 1;
        pkm_sweep_opts so = pkm_sweep_opts_default();
        so.nworkers = 2;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_int_equal(pkm_map_sweep(&fake_case, NULL, &m, &so, &ctx), PKM_ERR_SOLVER);
        assert_non_null(strstr(ctx.msg, known ? "point 5 was not computed" : "at point 5"));
        assert_non_null(strstr(ctx.msg, "ended early"));
        pkm_map_free(&m);
    }
}

static char notice_text[256];
static int notices;

static void take_notice(const char *msg, void *user)
{
    (void)user;
    snprintf(notice_text, sizeof(notice_text), "%s", msg);
    notices++;
}

/* Vectors above the tracking bound: the caller is told once, at the first OK pose, and the
 * reason is recorded in tracking_note. */
static void test_untracked_notice(void **state)
{
    (void)state;
    const pkm_case *c = NULL;
    void *par = navaro_params(&c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_map m;
    pkm_map_init(&m);
    snprintf(m.case_name, sizeof(m.case_name), "navaro");
    m.npose = 3;
    for (int k = 0; k < 3; k++)
        snprintf(m.pose_names[k], PKM_MAP_NAME_LEN, "%s", c->pose_names[k]);
    m.naxes = 1;
    m.axes[0] = (pkm_map_axis){"x", "m", 0, 3, -0.01, 0.01};
    m.nev = m.opts.nev = 4;
    m.track_bytes = 1000;
    assert_pkm_ok(pkm_map_alloc(&m, &ctx), &ctx);
    pkm_sweep_opts so = pkm_sweep_opts_default();
    so.notice = take_notice;
    notices = 0;
    assert_pkm_ok(pkm_map_sweep(c, par, &m, &so, &ctx), &ctx);
    assert_int_equal(notices, 1);
    assert_int_equal(m.tracking, PKM_TRACK_RANK);
    assert_string_equal(m.tracking_note, notice_text);
    assert_non_null(strstr(notice_text, "above the limit"));
    pkm_map_free(&m);
    pkm_case_params_destroy(&par);
}

/* The straight runs of the walk that the block solver may extrapolate along: on a 4 x 5 grid
 * (rows of 5), 1 at each turn and at the step after it, growing along a row, 0 at the tile's
 * first step, and counting only the tile's steps; the parallelograms after the turns. */
static void test_walk_line(void **state)
{
    (void)state;
    pkm_map map;
    pkm_map_init(&map);
    map.naxes = 2;
    map.axes[0].count = 4;
    map.axes[1].count = 5;
    map.npoints = 20;
    const int whole[20] = {0, 1, 2, 3, 4, 1, 1, 2, 3, 4, 1, 1, 2, 3, 4, 1, 1, 2, 3, 4};
    for (int64_t k = 0; k < 20; k++)
        assert_int_equal(pkm_sweep_walk_line(&map, NULL, 0, k), whole[k]);
    const int from7[5] = {0, 1, 2, 1, 1};
    for (int64_t k = 7; k < 12; k++)
        assert_int_equal(pkm_sweep_walk_line(&map, NULL, 7, k), from7[k - 7]);
    /* The step after each turn completes a parallelogram (steps 6, 11, 16), the turn itself
     * does not (5, 10, 15), nor a step whose three earlier ones are not all in the tile. */
    for (int64_t k = 0; k < 20; k++)
        assert_int_equal(pkm_sweep_walk_parallelogram(&map, NULL, 0, k),
                         k == 6 || k == 11 || k == 16);
    assert_int_equal(pkm_sweep_walk_parallelogram(&map, NULL, 4, 6), 0);
    assert_int_equal(pkm_sweep_walk_parallelogram(&map, NULL, 3, 6), 1);
    /* An unsolved (e.g. unreachable) step breaks the run: the solver never saw it. */
    signed char status[20] = {0};
    status[pkm_sweep_walk_point(&map, 2)] = PKM_POSE_UNREACHABLE;
    assert_int_equal(pkm_sweep_walk_line(&map, status, 0, 3), 0);
    assert_int_equal(pkm_sweep_walk_line(&map, status, 0, 4), 1);
    assert_int_equal(pkm_sweep_walk_line(&map, status, 0, 2), 2);
    status[pkm_sweep_walk_point(&map, 2)] = PKM_POSE_OK;
    status[pkm_sweep_walk_point(&map, 3)] = PKM_POSE_SINGULAR;
    assert_int_equal(pkm_sweep_walk_parallelogram(&map, status, 0, 6), 0);
    map.axes[0].count = 1;
    map.axes[1].count = 20;
    for (int64_t k = 1; k < 20; k++)
        assert_int_equal(pkm_sweep_walk_line(&map, NULL, 0, k), k < 8 ? (int)k : 8);
}

/* The serpentine walk visits every point of a grid once, and consecutive steps are neighbours
 * (one axis changes by one), on grids of 1, 2 and 3 axes, odd and even counts: the warm-started
 * eigensolver starts every pose from the one computed before it. */
static void test_serpentine_walk(void **state)
{
    (void)state;
    const int counts[][3] = {{7, 0, 0}, {4, 5, 0}, {5, 4, 0}, {3, 4, 5}, {2, 3, 1}};
    for (size_t g = 0; g < sizeof(counts) / sizeof(counts[0]); g++) {
        pkm_map map;
        pkm_map_init(&map);
        map.npoints = 1;
        while (map.naxes < 3 && counts[g][map.naxes] > 0) {
            map.axes[map.naxes].count = counts[g][map.naxes];
            map.npoints *= counts[g][map.naxes];
            map.naxes++;
        }
        char *seen = calloc((size_t)map.npoints, 1);
        assert_non_null(seen);
        int64_t last = -1;
        for (int64_t k = 0; k < map.npoints; k++) {
            const int64_t p = pkm_sweep_walk_point(&map, k);
            assert_true(p >= 0 && p < map.npoints);
            assert_int_equal(seen[p], 0);
            seen[p] = 1;
            if (last >= 0) {
                /* Row-major digits of both points: exactly one differs, by one. */
                int64_t a = p, b = last, moved = 0;
                for (int ax = map.naxes - 1; ax >= 0; ax--) {
                    const int64_t c = map.axes[ax].count, d = a % c - b % c;
                    assert_true(d >= -1 && d <= 1);
                    moved += d != 0;
                    a /= c;
                    b /= c;
                }
                assert_int_equal(moved, 1);
            }
            last = p;
        }
        free(seen);
    }
}

/* The warm block solver's fallbacks to ARPACK are counted in the map (solver_fallbacks), by
 * the serial and the forking executor, and kept through a file: with a block tolerance no Ritz
 * pair can meet (1e-300) every OK pose falls back and the frequencies are ARPACK's (1e-9); with
 * the default settings few or none do (printed). */
static void test_block_fallbacks(void **state)
{
    (void)state;
    const pkm_case *c = NULL;
    void *par = navaro_params(&c);
    pkm_map ref, m;
    make_navaro_map(c, par, &ref);
    sweep_navaro(par, &ref, 1, 0);
    int64_t ok = 0;
    for (int64_t p = 0; p < ref.npoints; p++)
        ok += ref.status[p] == PKM_POSE_OK;
    assert_true(ok > 10);
    assert_int_equal(ref.solver_fallbacks, 0);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int nw = 1; nw <= 3; nw++) {
        make_navaro_map(c, par, &m);
        m.eigensolver = PKM_EIG_BLOCK;
        m.opts.block_tol = nw < 3 ? 1e-300 : 0.0;
        sweep_navaro(par, &m, nw < 3 ? nw : 2, 0);
        if (nw == 3) {
            print_message("block solver, default settings: %lld of %lld poses fell back\n",
                          (long long)m.solver_fallbacks, (long long)ok);
            assert_true(10 * m.solver_fallbacks < ok);
            pkm_map_free(&m);
            continue;
        }
        assert_int_equal(m.solver_fallbacks, ok);
        for (int64_t i = 0; i < ref.npoints * ref.nev; i++)
            if (ref.status[i / ref.nev] == PKM_POSE_OK)
                assert_true(fabs(m.freq_hz[i] - ref.freq_hz[i]) <= 1e-9 * ref.freq_hz[i]);
        pkm_map back;
        assert_pkm_ok(pkm_map_write_h5(&m, PKM_TEST_OUT "/fallbacks.h5", &ctx), &ctx);
        assert_pkm_ok(pkm_map_read_h5(PKM_TEST_OUT "/fallbacks.h5", &back, &ctx), &ctx);
        assert_int_equal(back.solver_fallbacks, ok);
        pkm_map_free(&back);
        pkm_map_free(&m);
    }
    remove(PKM_TEST_OUT "/fallbacks.h5");
    pkm_map_free(&ref);
    pkm_case_params_destroy(&par);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_executors_same_map), cmocka_unit_test(test_probe_without_ok_pose),
        cmocka_unit_test(test_stalled_worker),     cmocka_unit_test(test_killed_worker),
        cmocka_unit_test(test_worker_exits_early), cmocka_unit_test(test_untracked_notice),
        cmocka_unit_test(test_serpentine_walk),    cmocka_unit_test(test_walk_line),
        cmocka_unit_test(test_block_fallbacks),    cmocka_unit_test(test_block_same_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
