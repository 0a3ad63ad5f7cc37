/* tests/test_studies_sweep_mpi.c: the MPI executor (studies/sweep_mpi.c), run by mpirun with 2
 * and 3 ranks (a PKM_MPI build): the map of the ranks equals the one of one process bit for bit,
 * tracking included, and every rank computes; a stop asked on whichever rank computes the chosen
 * pose leaves a checkpoint (written by rank 0) that the ranks complete into the same map; an
 * error on rank 1 stops every rank and is returned by rank 0 naming rank 1.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "sweep_fixture.h"
#include "test_util.h"

#include "pkm/io.h"
#include "pkm/map.h"
#include "pkm/sweep_mpi.h"

#include <stdlib.h>
#include <string.h>

#ifndef PKM_TEST_OUT
#define PKM_TEST_OUT "."
#endif

static int rank, nranks;
static const char *checkpoint_path;

static int64_t stop_at = -1;
static int checkpoints;

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

/* The sweep of m by the ranks; stop: at stop_at, the checkpoint written. The stats of rank 0. */
static pkm_status sweep_ranks(const pkm_case *c, const void *par, pkm_map *m, int stop,
                              pkm_sweep_rank_stats *stats, pkm_ctx *ctx)
{
    pkm_sweep_opts so = pkm_sweep_opts_default();
    if (stop) {
        so.stop = stop_at_pose;
        so.checkpoint = write_checkpoint;
        so.checkpoint_interval = 1e6; /* only the one taken at the stop */
    }
    return pkm_map_sweep_mpi(c, par, m, &so, MPI_COMM_WORLD, stats, ctx);
}

/* The map of one process, on rank 0 (no fork: the other ranks wait at the barrier); the 7 x 6
 * map with ARPACK, or with block the 12 x 12 one with the warm-started block solver. */
static void reference(const pkm_case *c, const void *par, pkm_map *whole, int block)
{
    if (block)
        make_navaro_grid(c, par, whole, 12, 12, PKM_EIG_BLOCK);
    else
        make_navaro_map(c, par, whole);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_sweep_opts so = pkm_sweep_opts_default();
    if (rank == 0) assert_pkm_ok(pkm_map_sweep(c, par, whole, &so, &ctx), &ctx);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The map on the ranks: every point computed once, by some rank, each rank with tiles.
 * mode 0, the 7 x 6 map with ARPACK, and mode 2, the 12 x 12 one with the warm-started block
 * solver (each tile from a cold start): the one-process map bit for bit. mode 1
 * (block_fallback): the 7 x 6 map with the block solver and a tolerance no Ritz pair meets, whose
 * fallbacks to ARPACK are counted over the ranks: every OK pose, whichever rank computed it. */
static void ranks_map(int mode)
{
    const int block_fallback = mode == 1;
    const pkm_case *c = NULL;
    void *par = navaro_params(&c);
    pkm_map whole, m;
    reference(c, par, &whole, mode == 2);
    if (mode == 2)
        make_navaro_grid(c, par, &m, 12, 12, PKM_EIG_BLOCK);
    else
        make_navaro_map(c, par, &m);
    if (block_fallback) {
        m.eigensolver = PKM_EIG_BLOCK;
        m.opts.block_tol = 1e-300;
    }
    pkm_sweep_rank_stats stats[8];
    memset(stats, 0, sizeof(stats));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(sweep_ranks(c, par, &m, 0, stats, &ctx), &ctx);
    if (rank == 0) {
        int64_t poses = 0, ok = 0;
        for (int r = 0; r < nranks; r++) {
            poses += stats[r].poses;
            assert_true(stats[r].tiles >= 1);
            assert_true(stats[r].busy_s > 0.0 && stats[r].total_s >= stats[r].busy_s);
        }
        assert_int_equal(poses, m.npoints);
        for (int64_t p = 0; p < whole.npoints; p++)
            ok += whole.status[p] == PKM_POSE_OK;
        assert_int_equal(m.solver_fallbacks, block_fallback ? ok : 0);
        if (!block_fallback) {
            assert_int_equal(m.tracking, PKM_TRACK_MAC);
            assert_same_map(&m, &whole);
        }
    }
    pkm_map_free(&m);
    pkm_map_free(&whole);
    pkm_case_params_destroy(&par);
}

static void test_ranks_same_map(void **state)
{
    (void)state;
    ranks_map(0);
}

static void test_ranks_same_block_map(void **state)
{
    (void)state;
    ranks_map(2);
}

static void test_ranks_count_fallbacks(void **state)
{
    (void)state;
    ranks_map(1);
}

/* Stopped at pose 0 (the probe of rank 0, before any tile is handed out), then at poses of the
 * middle rows, each time resumed from the file by rank 0 while the other ranks
 * start from a fresh map of the same settings; at the end the uninterrupted map. */
static void test_ranks_stop_resume(void **state)
{
    (void)state;
    const pkm_case *c = NULL;
    void *par = navaro_params(&c);
    pkm_map whole, m;
    reference(c, par, &whole, 0);
    make_navaro_map(c, par, &m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const int64_t stops[] = {0, 12, 24, -1};
    for (int i = 0; stops[i] >= 0; i++) {
        int pending = m.status[stops[i]] == PKM_POSE_PENDING;
        MPI_Bcast(&pending, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!pending) continue; /* computed before an earlier stop reached every rank */
        stop_at = stops[i];
        checkpoints = 0;
        if (rank == 0) remove(checkpoint_path);
        assert_pkm_ok(sweep_ranks(c, par, &m, 1, NULL, &ctx), &ctx);
        pkm_map_free(&m);
        if (rank == 0) {
            assert_int_equal(checkpoints, 1);
            assert_pkm_ok(pkm_map_read_h5(checkpoint_path, &m, &ctx), &ctx);
            assert_int_not_equal(m.status[stops[i]], PKM_POSE_PENDING);
            int64_t left = 0;
            for (int64_t p = 0; p < m.npoints; p++)
                left += m.status[p] == PKM_POSE_PENDING;
            assert_true(left > 0);
        } else {
            assert_int_equal(checkpoints, 0);
            make_navaro_map(c, par, &m);
        }
    }
    stop_at = -1;
    assert_pkm_ok(sweep_ranks(c, par, &m, 0, NULL, &ctx), &ctx);
    if (rank == 0) assert_same_map(&m, &whole);
    if (rank == 0) remove(checkpoint_path);
    pkm_map_free(&m);
    pkm_map_free(&whole);
    pkm_case_params_destroy(&par);
}

/* A case whose every pose is out of reach, except on rank 1, where building fails as an
 * ill-formed model would (an error that stops a sweep). */
static pkm_status fail_on_rank1(const void *params, const double *pose, pkm_model **out,
                                pkm_ctx *ctx)
{
    (void)params;
    *out = NULL;
    if (rank == 1)
        return pkm_ctx_fail(ctx, PKM_ERR_MODEL, __FILE__, __LINE__, "model broken at x = %g",
                            pose[0]);
    return pkm_ctx_fail(ctx, PKM_ERR_UNREACHABLE, __FILE__, __LINE__, "x = %g out of reach",
                        pose[0]);
}

static void test_error_on_rank1(void **state)
{
    (void)state;
    static const char *const names[1] = {"x"}, *const units[1] = {"m"};
    static const double home[1] = {0.0};
    const pkm_case fake = {.name = "fake",
                           .npose = 1,
                           .pose_names = names,
                           .pose_units = units,
                           .home = home,
                           .build = fail_on_rank1};
    pkm_map m;
    pkm_map_init(&m);
    snprintf(m.case_name, sizeof(m.case_name), "fake");
    m.npose = 1;
    snprintf(m.pose_names[0], PKM_MAP_NAME_LEN, "x");
    m.naxes = 1;
    m.axes[0] = (pkm_map_axis){"x", "m", 0, 400, 0.0, 1.0};
    m.nev = m.opts.nev = 3;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_alloc(&m, &ctx), &ctx);
    m.ncoord = 5; /* known: no probe on rank 0, which would reach every pose before rank 1 */
    const pkm_status st = sweep_ranks(&fake, NULL, &m, 0, NULL, &ctx);
    if (rank == 0 || rank == 1) {
        assert_int_equal(st, PKM_ERR_MODEL);
        assert_non_null(strstr(ctx.msg, "model broken at x"));
    } else {
        assert_int_equal(st, PKM_OK);
    }
    if (rank == 0) assert_non_null(strstr(ctx.msg, "rank 1"));
    pkm_map_free(&m);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks < 2 || nranks > 8) {
        fprintf(stderr, "run with mpirun -n 2 ... 8\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    static char path[512];
    snprintf(path, sizeof(path), "%s/sweep_mpi_%d.h5.partial", PKM_TEST_OUT, nranks);
    checkpoint_path = path;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranks_same_map),        cmocka_unit_test(test_ranks_same_block_map),
        cmocka_unit_test(test_ranks_count_fallbacks), cmocka_unit_test(test_ranks_stop_resume),
        cmocka_unit_test(test_error_on_rank1),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    /* A rank that failed an assertion left the others in a collective: end them all. */
    if (failed != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
