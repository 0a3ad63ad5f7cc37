/* studies/sweep.c: frequency maps: one modal analysis per grid point, failures kept as data,
 * mode vectors kept for tracking, checkpoints of the results so far. The partition, the tile
 * runner and the serial executor; the fork executor is sweep_fork.c (seam: sweep_impl.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _DEFAULT_SOURCE

#include "studies/sweep_impl.h"

#include "core/core_impl.h"
#include "pkm/motion.h"
#include "studies/studies_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

pkm_sweep_opts pkm_sweep_opts_default(void)
{
    return (pkm_sweep_opts){.nworkers = 1, .checkpoint_interval = 10.0};
}

/* CLOCK_MONOTONIC is one clock for every process of the machine: the workers' times are
 * comparable in the sweeping process. */
long long pkm_sweep_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

double pkm_sweep_now_seconds(void)
{
    return 1e-9 * (double)pkm_sweep_now_ns();
}

/* Tiles: a tile is computed in one go by one analysis, so that a warm-started eigensolver
 * (PKM_EIG_BLOCK), which starts every tile cold, gives the same map bit for bit with any number
 * of workers or ranks; the partition depends on the number of points only. About 32 tiles, of 8
 * to 64 poses: contiguous tiles keep a worker on neighbouring poses, many of them, taken in turn,
 * balance the cost of unreachable poses (cheap, in whole regions of a grid: the corners of the
 * NaVARo's) and give 2 or 3 MPI ranks work on small maps (7 x 6 poses: 6 tiles), and each costs
 * the block solver one cold start (ARPACK for nev + guards modes).
 * map_bench's 60 x 60 nodal map with 2 workers took 0.717 s with tiles of 225 poses against
 * 0.665 s with tiles of 28. */
#define PKM_SWEEP_TILES    32
#define PKM_SWEEP_TILE_MIN 8
#define PKM_SWEEP_TILE_MAX 64

pkm_sweep_tiles pkm_sweep_partition(int64_t npoints)
{
    int64_t size = (npoints + PKM_SWEEP_TILES - 1) / PKM_SWEEP_TILES;
    size = size < PKM_SWEEP_TILE_MIN   ? PKM_SWEEP_TILE_MIN
           : size > PKM_SWEEP_TILE_MAX ? PKM_SWEEP_TILE_MAX
                                       : size;
    return (pkm_sweep_tiles){npoints, size, (npoints + size - 1) / size};
}

void pkm_sweep_tile_range(const pkm_sweep_tiles *t, int64_t tile, int64_t *begin, int64_t *end)
{
    *begin = tile * t->size;
    *end = *begin + t->size < t->npoints ? *begin + t->size : t->npoints;
}

/* The grid point of step k of the walk: the grid in serpentine (boustrophedon) order, each axis
 * traversed backwards when the index of the slower axes' row is odd, so that consecutive steps
 * are neighbouring points (a row's last point is followed by the next row's point beside it)
 * and a warm-started eigensolver starts every pose from a computed neighbour. Tiles are ranges of
 * k; the results stay indexed by the row-major point. */
int64_t pkm_sweep_walk_point(const pkm_map *map, int64_t k)
{
    int64_t digit[PKM_MAP_MAX_AXES];
    for (int a = map->naxes - 1; a >= 0; a--) {
        digit[a] = k % map->axes[a].count;
        k /= map->axes[a].count;
    }
    int64_t p = 0, row = 0;
    for (int a = 0; a < map->naxes; a++) {
        const int64_t c = map->axes[a].count;
        p = p * c + ((row & 1) ? c - 1 - digit[a] : digit[a]);
        row = row * c + digit[a];
    }
    return p;
}

/* The grid index along each axis of walk step k's point. */
static void walk_digits(const pkm_map *map, int64_t k, int64_t *d)
{
    int64_t p = pkm_sweep_walk_point(map, k);
    for (int a = map->naxes - 1; a >= 0; a--) {
        d[a] = p % map->axes[a].count;
        p /= map->axes[a].count;
    }
}

/* Whether walk step j was solved (status NULL: every step). */
static int solved(const pkm_map *map, const signed char *status, int64_t j)
{
    return status == NULL || status[pkm_sweep_walk_point(map, j)] == PKM_POSE_OK;
}

int pkm_sweep_walk_line(const pkm_map *map, const signed char *status, int64_t begin, int64_t k)
{
    if (k <= begin || !solved(map, status, k - 1)) return 0;
    int64_t here[PKM_MAP_MAX_AXES], prev[PKM_MAP_MAX_AXES], step[PKM_MAP_MAX_AXES];
    walk_digits(map, k, here);
    walk_digits(map, k - 1, prev);
    for (int a = 0; a < map->naxes; a++)
        step[a] = here[a] - prev[a];
    int line = 1;
    for (int64_t j = k - 1; j > begin && line < 8 && solved(map, status, j - 1); j--, line++) {
        memcpy(here, prev, sizeof(here));
        walk_digits(map, j - 1, prev);
        for (int a = 0; a < map->naxes; a++)
            if (here[a] - prev[a] != step[a]) return line;
    }
    return line;
}

int pkm_sweep_walk_parallelogram(const pkm_map *map, const signed char *status, int64_t begin,
                                 int64_t k)
{
    if (k - 3 < begin || pkm_sweep_walk_line(map, status, begin, k) != 1 ||
        !solved(map, status, k - 2) || !solved(map, status, k - 3))
        return 0;
    int64_t p0[PKM_MAP_MAX_AXES], p1[PKM_MAP_MAX_AXES], p2[PKM_MAP_MAX_AXES], p3[PKM_MAP_MAX_AXES];
    walk_digits(map, k, p0);
    walk_digits(map, k - 1, p1);
    walk_digits(map, k - 2, p2);
    walk_digits(map, k - 3, p3);
    for (int a = 0; a < map->naxes; a++)
        if (p0[a] - p1[a] != p3[a] - p2[a]) return 0;
    return 1;
}

/* How a failed pose is recorded; 0 if the failure must stop the sweep instead. */
static int pose_status_of(pkm_status st)
{
    switch (st) {
    case PKM_ERR_UNREACHABLE:
        return PKM_POSE_UNREACHABLE;
    case PKM_ERR_SINGULAR:
        return PKM_POSE_SINGULAR;
    case PKM_ERR_SOLVER:
    case PKM_ERR_NOCONV:
    case PKM_ERR_ACCURACY:
        return PKM_POSE_FAILED;
    default:
        return 0;
    }
}

/* A pose's status is written after its results, and read before them (sweep_fork.c), with
 * fences: a process that sees a final status (a checkpoint taken while workers run) sees the
 * complete results. volatile keeps each one-byte access a single load or store. */
static void publish_status(signed char *s, int value)
{
    atomic_thread_fence(memory_order_release);
    *(volatile signed char *)s = (signed char)value;
}

/* Ids equal to the ranks: the tracked ids of a sweep in progress. */
static void rank_ids(pkm_map *map, const char *note)
{
    pkm_map_track_ranks(map);
    snprintf(map->tracking_note, sizeof(map->tracking_note), "%s", note);
}

pkm_status pkm_sweep_checkpoint(pkm_map *map, pkm_sweep_ctl *ctl, int force, pkm_ctx *ctx)
{
    const pkm_sweep_opts *so = ctl->so;
    if (so->checkpoint == NULL || (!force && pkm_sweep_now_seconds() < ctl->next)) return PKM_OK;
    /* Link what can be linked, so that the checkpoint holds only the vectors further links need
     * (work the final tracking would do anyway: not counted in the checkpoint's time). */
    pkm_status st = pkm_map_link(map, 1, PKM_MAP_RING_BYTES, ctx);
    if (st != PKM_OK) return st;
    char note[sizeof(map->tracking_note)];
    snprintf(note, sizeof(note), "%s", map->tracking_note);
    rank_ids(map, "not tracked yet: sweep in progress");
    const double t0 = pkm_sweep_now_seconds();
    st = so->checkpoint(map, so->user, ctx);
    const double t1 = pkm_sweep_now_seconds();
    snprintf(map->tracking_note, sizeof(map->tracking_note), "%s", note);
    ctl->next = t1 + fmax(so->checkpoint_interval, 10.0 * (t1 - t0));
    return st;
}

void pkm_sweep_store_vectors(const pkm_map *map, double *modes, int64_t p, const double *vectors)
{
    const size_t count = (size_t)map->nev * (size_t)map->ncoord;
    double *dst = modes + (size_t)p * count;
    for (size_t i = 0; i < count; i++)
        dst[i] = map->modes_single ? (double)(float)vectors[i] : vectors[i];
}

/* Vectors for tracking only are single precision (pkm_map.modes_single); vectors to be written
 * (keep_modes) must be exact: a resumed checkpoint's are rounded, or dropped if too coarse (its
 * OK points are then computed again). A resumed checkpoint's links were made from vectors of
 * its precision: they go with a change of precision, as an uninterrupted sweep would have made
 * them from the other one. */
static void settle_precision(pkm_map *map)
{
    if (map->keep_modes && (map->modes == NULL || map->modes_single)) {
        pkm_map_free_modes(map);
        pkm_map_free_links(map);
    }
    if (map->modes != NULL && !map->keep_modes && !map->modes_single) {
        const size_t count = (size_t)map->npoints * (size_t)map->nev * (size_t)map->ncoord;
        for (size_t i = 0; i < count; i++)
            map->modes[i] = (double)(float)map->modes[i];
        pkm_map_free_links(map);
    }
    map->modes_single = !map->keep_modes;
}

/* Solve pose p into out. Returns PKM_OK when the pose is recorded (computed or a per-pose
 * failure), else the error that stops the sweep (recorded in ctx). *modes: the modes of an OK
 * pose, owned by an. */
static pkm_status solve_pose(const pkm_case *c, const void *params, const pkm_map *map,
                             pkm_analysis *an, int64_t p, const pkm_sweep_out *out,
                             const pkm_modes **modes, pkm_ctx *ctx)
{
    double pose[PKM_POSE_MAX];
    pkm_map_pose(map, p, pose);
    pkm_model *m = NULL;
    const pkm_modes *md = NULL;
    pkm_assembly_info info;
    *modes = NULL;
    /* Per-pose failures go to a scratch context: they are data, not the sweep's error. */
    pkm_ctx pctx;
    pkm_ctx_clear(&pctx);
    pkm_status st = c->build(params, pose, &m, &pctx);
    if (st == PKM_OK) st = pkm_analysis_solve(an, m, &md, &info, &pctx);
    /* The closure's conditioning wherever the model was built, from it alone (the same bits
     * whoever computes the pose); its failure leaves NaN, as the pose's own failures do. */
    double cond = NAN;
    pkm_ctx cctx;
    pkm_ctx_clear(&cctx);
    if (m != NULL && pkm_pose_conditioning(c, m, &cond, &cctx) != PKM_OK) cond = NAN;
    out->conditioning[p] = cond;
    pkm_model_destroy(&m);
    if (st == PKM_OK) {
        const int nev = map->nev;
        if (out->modes != NULL) {
            /* The kept vectors have one length; a mechanism's pencil has one order. */
            if (info.n_reduced != map->ncoord)
                return PKM_FAIL(ctx, PKM_ERR_MODEL,
                                "map sweep: point %lld has %lld coordinates, earlier points "
                                "%lld: cannot keep its mode vectors",
                                (long long)p, (long long)info.n_reduced, (long long)map->ncoord);
            pkm_sweep_store_vectors(map, out->modes, p, md->vectors);
        }
        *out->ncoord = info.n_reduced;
        for (int k = 0; k < nev; k++) {
            out->freq_hz[p * nev + k] = md->freq_hz[k];
            out->residual[p * nev + k] = md->residual[k];
            out->accuracy[p * nev + k] = md->accuracy[k];
        }
        publish_status(&out->status[p], PKM_POSE_OK);
        *modes = md;
    } else if (pose_status_of(st) != 0) {
        publish_status(&out->status[p], pose_status_of(st));
    } else {
        return PKM_FAIL(ctx, st, "map sweep stopped at point %lld: %s", (long long)p, pctx.msg);
    }
    return PKM_OK;
}

/* Tell the watchdog of the sweeping process that pose p starts (t0 > 0) or is done. */
static void watch_pose(const pkm_sweep_out *out, int64_t p, long long t0)
{
    if (out->slot == NULL) return;
    if (t0 > 0) {
        atomic_store(&out->slot->point, p);
        atomic_store(&out->slot->busy_ns, t0);
        return;
    }
    const long long dt = pkm_sweep_now_ns() - atomic_load(&out->slot->busy_ns);
    if (dt > atomic_load(&out->slot->slowest_ns)) atomic_store(&out->slot->slowest_ns, dt);
    atomic_store(&out->slot->busy_ns, 0);
}

/* The bookkeeping of a newly computed point p (rc: its solve's): the fallback count, the
 * progress, the stop asked, the executor's poll. A point solved again is counted once. */
static pkm_status pose_done(pkm_map *map, const pkm_sweep_out *out, const pkm_sweep_ctl *ctl,
                            int64_t p, const pkm_modes *md, pkm_status rc, pkm_ctx *ctx)
{
    if (md != NULL && md->fallback && out->fallbacks != NULL)
        atomic_fetch_add(out->fallbacks, 1);
    else if (md != NULL && md->fallback)
        map->solver_fallbacks++;
    const long long d = atomic_fetch_add(out->done, 1) + 1;
    if (ctl != NULL && ctl->so->progress != NULL) ctl->so->progress(d, map->npoints, ctl->so->user);
    if (rc == PKM_OK && out->so->stop != NULL && out->so->stop(p, out->so->user))
        atomic_store(out->stopping, 1);
    if (rc == PKM_OK && out->poll != NULL) rc = out->poll(out->poll_arg, p, md, ctx);
    return rc;
}

/* Whether the tile [begin, end) of the walk has a pending point. */
static int tile_pending(const pkm_map *map, const pkm_sweep_out *out, int64_t begin, int64_t end)
{
    for (int64_t k = begin; k < end; k++)
        if (out->status[pkm_sweep_walk_point(map, k)] == PKM_POSE_PENDING) return 1;
    return 0;
}

/* One analysis serves every pose of a worker. Its assembly pattern is the pose's own
 * (assembly/triplets.c), so with ARPACK a pose's result does not depend on the poses computed
 * before it and any partition gives the same map bit for bit; the scatter map and the symbolic
 * analysis are reused while the pattern stays (45 x 45 NaVARo map, nodal: 4,050 poses/s against
 * 3,100 with a fresh analysis per pose). A warm-started eigensolver's results depend on the
 * poses solved before in the tile (to the convergence tolerance's square): it forgets them at the
 * tile's start, and a tile found partly computed (a resumed map, the probe's pose) is computed
 * again whole, from its first point, so that each tile is the same computation in every
 * executor, run or resume; its finished points are then solved again to the same bits and
 * counted once. */
pkm_status pkm_sweep_run_tile(const pkm_case *c, const void *params, pkm_map *map, int64_t begin,
                              int64_t end, const pkm_sweep_out *out, pkm_sweep_ctl *ctl,
                              pkm_analysis **an, int64_t *first_ok, const pkm_modes **modes,
                              pkm_ctx *ctx)
{
    if (first_ok != NULL) *first_ok = -1;
    pkm_modal_opts opts = map->opts;
    opts.nev = map->nev;
    const pkm_eigensolver_type *et = pkm_eigensolver_type_of(map->eigensolver);
    const int whole = et != NULL && et->forget != NULL;
    if (whole && !tile_pending(map, out, begin, end)) return PKM_OK;
    pkm_analysis_forget(*an);
    pkm_status rc = PKM_OK;
    for (int64_t k = begin; rc == PKM_OK && k < end; k++) {
        const int64_t p = pkm_sweep_walk_point(map, k);
        const int pending = out->status[p] == PKM_POSE_PENDING;
        if (!pending && !whole) continue;
        if (atomic_load(out->stopping)) break;
        /* A worker whose sweeping process was killed stops: nobody will read its results. */
        if (out->parent != 0 && getppid() != out->parent) break;
        if (*an == NULL)
            rc = pkm_analysis_create(map->formulation, map->eigensolver, &opts, an, ctx);
        if (rc != PKM_OK) break;
        pkm_analysis_walk(*an, pkm_sweep_walk_line(map, out->status, begin, k),
                          pkm_sweep_walk_parallelogram(map, out->status, begin, k));
        const pkm_modes *md = NULL;
        watch_pose(out, p, pkm_sweep_now_ns());
        rc = solve_pose(c, params, map, *an, p, out, &md, ctx);
        watch_pose(out, p, 0);
        if (pending) rc = pose_done(map, out, ctl, p, md, rc, ctx);
        if (rc == PKM_OK && first_ok != NULL && md != NULL) {
            *first_ok = p;
            *modes = md;
            return rc;
        }
        if (pending && rc == PKM_OK && ctl != NULL) rc = pkm_sweep_checkpoint(map, ctl, 0, ctx);
    }
    return rc;
}

/* Decide whether the mode vectors of n coordinates are kept, and allocate them if so. Not
 * keeping them is told through so->notice at once: tracking is lost for the whole map. */
pkm_status pkm_sweep_keep_vectors(pkm_map *map, int64_t n, const pkm_sweep_opts *so, pkm_ctx *ctx)
{
    map->ncoord = n;
    const double free_bytes = pkm_map_memory_free();
    double limit = (double)(map->track_bytes > 0 ? map->track_bytes : PKM_MAP_TRACK_BYTES);
    if (free_bytes > 0.0 && free_bytes / 2 < limit) limit = free_bytes / 2;
    const double need = 8.0 * (double)map->npoints * (double)map->nev * (double)n;
    if (!map->keep_modes && need > limit) {
        snprintf(map->tracking_note, sizeof(map->tracking_note),
                 "mode vectors would take %.0f MiB (%lld points x %d modes x %lld coordinates "
                 "x 8 bytes), above the limit of %.0f MiB",
                 need / 1048576.0, (long long)map->npoints, map->nev, (long long)n,
                 limit / 1048576.0);
        if (so->notice != NULL) so->notice(map->tracking_note, so->user);
        return PKM_OK;
    }
    map->tracking_note[0] = '\0';
    return pkm_map_alloc_modes(map, ctx);
}

pkm_status pkm_sweep_probe(const pkm_case *c, const void *params, pkm_map *map,
                           const pkm_sweep_out *out, pkm_sweep_ctl *ctl, pkm_analysis **an,
                           pkm_ctx *ctx)
{
    if (map->modes != NULL || map->ncoord != 0) return PKM_OK;
    int64_t p = -1;
    const pkm_modes *md = NULL;
    pkm_status rc = pkm_sweep_run_tile(c, params, map, 0, map->npoints, out, ctl, an, &p, &md, ctx);
    if (rc == PKM_OK && p >= 0) rc = pkm_sweep_keep_vectors(map, md->n, ctl->so, ctx);
    if (rc == PKM_OK && map->modes != NULL)
        pkm_sweep_store_vectors(map, map->modes, p, md->vectors);
    return rc;
}

/* The serial executor: one tile, the whole grid, in the calling process, which gathers nothing
 * (the map is the output) and checkpoints between poses. The first OK pose gives the vectors'
 * length, then the rest. */
static pkm_status serial_run(const pkm_case *c, const void *params, pkm_map *map,
                             pkm_sweep_ctl *ctl, int *stopped, pkm_ctx *ctx)
{
    atomic_llong done;
    atomic_int stopping;
    atomic_init(&done, 0);
    atomic_init(&stopping, 0);
    pkm_sweep_out out = {.status = map->status,
                         .freq_hz = map->freq_hz,
                         .residual = map->residual,
                         .accuracy = map->accuracy,
                         .conditioning = map->conditioning,
                         .modes = map->modes,
                         .ncoord = &map->ncoord,
                         .done = &done,
                         .stopping = &stopping,
                         .so = ctl->so};
    for (int64_t p = 0; p < map->npoints; p++)
        if (map->status[p] != PKM_POSE_PENDING) atomic_fetch_add(&done, 1);
    const pkm_sweep_tiles tiles = pkm_sweep_partition(map->npoints);
    pkm_analysis *an = NULL;
    pkm_status rc = pkm_sweep_probe(c, params, map, &out, ctl, &an, ctx);
    out.modes = map->modes;
    for (int64_t t = 0; rc == PKM_OK && t < tiles.count; t++) {
        int64_t begin, end;
        pkm_sweep_tile_range(&tiles, t, &begin, &end);
        rc = pkm_sweep_run_tile(c, params, map, begin, end, &out, ctl, &an, NULL, NULL, ctx);
    }
    pkm_analysis_destroy(&an);
    *stopped = atomic_load(&stopping);
    return rc;
}

/* The executors of pkm_map_sweep, by the number of workers: one process, or processes forked
 * from this one. The MPI executor (sweep_mpi.c) is chosen by its own entry point,
 * pkm_map_sweep_mpi, which passes the communicator. */
static const pkm_sweep_executor executors[] = {
    {"serial", serial_run},
    {"fork", pkm_sweep_fork_run},
};

pkm_status pkm_sweep_drive(const pkm_case *c, const void *params, pkm_map *map,
                           const pkm_sweep_opts *so, const pkm_sweep_executor *ex, void *exec,
                           pkm_ctx *ctx)
{
    if (map->status == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map sweep: map arrays not allocated");
    if (map->npose != c->npose)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "map sweep: map has %d pose coordinates, case '%s' %d", map->npose, c->name,
                        c->npose);
    if (so->nworkers < 1 || so->nworkers > PKM_SWEEP_MAX_WORKERS || !(so->stall_timeout >= 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "map sweep: %d workers (need 1 to %d), stall timeout %g s (need >= 0)",
                        so->nworkers, PKM_SWEEP_MAX_WORKERS, so->stall_timeout);
    pkm_sweep_ctl ctl = {so, pkm_sweep_now_seconds() + so->checkpoint_interval, exec};
    map->tracking_note[0] = '\0'; /* a resumed checkpoint's note no longer holds */
    settle_precision(map);
    pkm_status rc = PKM_OK;
    /* A resumed map whose vectors were not kept: its OK points are computed again if vectors
     * are to be kept now, as tracking needs them; unless its links are made (a checkpoint
     * whose every OK point was linked holds no vectors). */
    if (map->modes == NULL && map->ncoord > 0) {
        rc = pkm_sweep_keep_vectors(map, map->ncoord, so, ctx);
        for (int64_t p = 0;
             rc == PKM_OK && map->modes != NULL && map->link_match == NULL && p < map->npoints; p++)
            if (map->status[p] == PKM_POSE_OK) map->status[p] = PKM_POSE_PENDING;
    }
    int stopped = 0;
    if (rc == PKM_OK) rc = ex->run(c, params, map, &ctl, &stopped, ctx);
    if (rc == PKM_OK && stopped) {
        rc = pkm_sweep_checkpoint(map, &ctl, 1, ctx);
        rank_ids(map, "not tracked: the sweep was stopped");
        return rc;
    }
    if (rc == PKM_OK) rc = pkm_map_track(map, ctx);
    if (rc != PKM_OK) rank_ids(map, "not tracked: the sweep stopped");
    return rc;
}

pkm_status pkm_map_sweep(const pkm_case *c, const void *params, pkm_map *map,
                         const pkm_sweep_opts *so, pkm_ctx *ctx)
{
    const int fork = so->nworkers > 1 && map->npoints > 1;
    return pkm_sweep_drive(c, params, map, so, &executors[fork], NULL, ctx);
}
