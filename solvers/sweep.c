/* solvers/sweep.c: frequency maps: one modal analysis per grid point, failures kept as data,
 * mode vectors kept for tracking, checkpoints of the results so far.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include "core/core_impl.h"
#include "pkm/map.h"
#include "solvers/solvers_impl.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

pkm_sweep_opts pkm_sweep_opts_default(void)
{
    return (pkm_sweep_opts){.nworkers = 1, .checkpoint_interval = 10.0};
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

/* A pose's status is written after its results, and read before them, with fences: a process
 * that sees a final status (a checkpoint taken while workers run) sees the complete results.
 * volatile keeps each one-byte access a single load or store. */
static void publish_status(signed char *s, int value)
{
    atomic_thread_fence(memory_order_release);
    *(volatile signed char *)s = (signed char)value;
}

static int observe_status(const signed char *s)
{
    const int v = *(const volatile signed char *)s;
    atomic_thread_fence(memory_order_acquire);
    return v;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Where the results of one pose go: the map itself, or shared memory for worker processes. The
 * mode vectors always go to map->modes, which is shared (pkm_map_alloc_modes). */
typedef struct sweep_out {
    signed char *status;
    double *freq_hz, *residual, *modes;
    int64_t *ncoord;
    atomic_llong *done;
    pid_t parent; /* in a worker process: the sweeping process; else 0 */
} sweep_out;

/* Progress and checkpoints of the calling process. */
typedef struct sweep_ctl {
    const pkm_sweep_opts *so;
    double next; /* time of the next checkpoint */
} sweep_ctl;

/* Ids equal to the ranks: the tracked ids of a sweep in progress. */
static void rank_ids(pkm_map *map, const char *note)
{
    pkm_map_track_ranks(map);
    snprintf(map->tracking_note, sizeof(map->tracking_note), "%s", note);
}

/* Hand the map (every point PENDING or final) to the checkpoint callback if one is due. */
static pkm_status maybe_checkpoint(pkm_map *map, sweep_ctl *ctl, pkm_ctx *ctx)
{
    const pkm_sweep_opts *so = ctl->so;
    if (so->checkpoint == NULL || now_seconds() < ctl->next) return PKM_OK;
    char note[sizeof(map->tracking_note)];
    snprintf(note, sizeof(note), "%s", map->tracking_note);
    rank_ids(map, "not tracked yet: sweep in progress");
    const double t0 = now_seconds();
    pkm_status st = so->checkpoint(map, so->user, ctx);
    const double t1 = now_seconds();
    snprintf(map->tracking_note, sizeof(map->tracking_note), "%s", note);
    ctl->next = t1 + fmax(so->checkpoint_interval, 10.0 * (t1 - t0));
    return st;
}

/* Solve pose p into out. Returns PKM_OK when the pose is recorded (computed or a per-pose
 * failure), else the error that stops the sweep (recorded in ctx). *modes: the modes of an OK
 * pose, owned by an. */
static pkm_status solve_pose(const pkm_case *c, const void *params, const pkm_map *map,
                             pkm_analysis *an, int64_t p, const sweep_out *out,
                             const pkm_modes **modes, pkm_ctx *ctx)
{
    double pose[16];
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
            memcpy(out->modes + (size_t)p * (size_t)nev * (size_t)md->n, md->vectors,
                   sizeof(double) * (size_t)nev * (size_t)md->n);
        }
        *out->ncoord = info.n_reduced;
        for (int k = 0; k < nev; k++) {
            out->freq_hz[p * nev + k] = md->freq_hz[k];
            out->residual[p * nev + k] = md->residual[k];
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

/* Poses first, first + stride, ... that are still pending, with the analysis an. With first_ok
 * not NULL, stops after the first OK pose, setting *first_ok (else -1) and *modes. ctl is NULL
 * in a worker process. */
static pkm_status sweep_range(const pkm_case *c, const void *params, pkm_map *map, pkm_analysis *an,
                              int64_t first, int64_t stride, const sweep_out *out, sweep_ctl *ctl,
                              int64_t *first_ok, const pkm_modes **modes, pkm_ctx *ctx)
{
    if (first_ok != NULL) *first_ok = -1;
    pkm_status rc = PKM_OK;
    for (int64_t p = first; rc == PKM_OK && p < map->npoints; p += stride) {
        if (out->status[p] != PKM_POSE_PENDING) continue;
        /* A worker whose sweeping process was killed stops: nobody will read its results. */
        if (out->parent != 0 && getppid() != out->parent) break;
        const pkm_modes *md = NULL;
        rc = solve_pose(c, params, map, an, p, out, &md, ctx);
        const long long d = atomic_fetch_add(out->done, 1) + 1;
        if (ctl != NULL && ctl->so->progress != NULL)
            ctl->so->progress(d, map->npoints, ctl->so->user);
        if (rc == PKM_OK && first_ok != NULL && md != NULL) {
            *first_ok = p;
            *modes = md;
            break;
        }
        if (rc == PKM_OK && ctl != NULL) rc = maybe_checkpoint(map, ctl, ctx);
    }
    return rc;
}

/* Shared memory of a parallel sweep: the done counter, the first worker error, results. */
typedef struct shared {
    atomic_llong done;
    atomic_int failed;
    int64_t ncoord;
    pkm_ctx error;
} shared;

/* Copy the final points of the workers' results into map (status first, see publish_status). */
static void collect(pkm_map *map, const sweep_out *out)
{
    for (int64_t p = 0; p < map->npoints; p++) {
        const int s = observe_status(&out->status[p]);
        if (s == map->status[p]) continue;
        if (s == PKM_POSE_OK)
            for (int k = 0; k < map->nev; k++) {
                map->freq_hz[p * map->nev + k] = out->freq_hz[p * map->nev + k];
                map->residual[p * map->nev + k] = out->residual[p * map->nev + k];
            }
        map->status[p] = (signed char)s;
    }
    map->ncoord = *out->ncoord;
}

static pkm_status sweep_parallel(const pkm_case *c, const void *params, pkm_map *map,
                                 sweep_ctl *ctl, pkm_ctx *ctx)
{
    const int nworkers = ctl->so->nworkers;
    const size_t nv = (size_t)map->npoints * (size_t)map->nev;
    const size_t bytes = sizeof(shared) + 2 * nv * sizeof(double) + (size_t)map->npoints;
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: cannot map %zu bytes of shared memory: %s",
                        bytes, strerror(errno));
    shared *sh = mem;
    atomic_init(&sh->done, 0);
    atomic_init(&sh->failed, 0);
    sh->ncoord = map->ncoord;
    sweep_out out = {.freq_hz = (double *)(sh + 1), .ncoord = &sh->ncoord, .done = &sh->done};
    out.residual = out.freq_hz + nv;
    out.status = (signed char *)(out.residual + nv);
    out.modes = map->modes;
    memcpy(out.freq_hz, map->freq_hz, nv * sizeof(double));
    memcpy(out.residual, map->residual, nv * sizeof(double));
    memcpy(out.status, map->status, (size_t)map->npoints);
    for (int64_t p = 0; p < map->npoints; p++)
        if (map->status[p] != PKM_POSE_PENDING) atomic_fetch_add(&sh->done, 1);

    pkm_status rc = PKM_OK;
    pid_t pids[256];
    const pid_t parent = getpid();
    int started = 0;
    for (; started < nworkers; started++) {
        pid_t pid = fork();
        if (pid < 0) {
            rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: cannot start worker %d: %s", started,
                          strerror(errno));
            break;
        }
        if (pid == 0) {
            /* Worker: interleaved poses balance the cost of unreachable and reachable ones. */
            out.parent = parent;
            pkm_ctx wctx;
            pkm_ctx_clear(&wctx);
            pkm_modal_opts opts = map->opts;
            opts.nev = map->nev;
            pkm_analysis *an = NULL;
            pkm_status st =
                pkm_analysis_create(map->formulation, map->eigensolver, &opts, &an, &wctx);
            if (st == PKM_OK)
                st = sweep_range(c, params, map, an, started, nworkers, &out, NULL, NULL, NULL,
                                 &wctx);
            pkm_analysis_destroy(&an);
            if (st != PKM_OK && atomic_exchange(&sh->failed, 1) == 0) sh->error = wctx;
            _exit(st == PKM_OK ? 0 : 1);
        }
        pids[started] = pid;
    }
    /* Wait, reporting progress and taking checkpoints from this process only. */
    int alive = started;
    const struct timespec tick = {0, 50 * 1000 * 1000};
    while (alive > 0) {
        for (int w = 0; w < started; w++) {
            if (pids[w] <= 0) continue;
            int wstatus = 0;
            pid_t r = waitpid(pids[w], &wstatus, WNOHANG);
            if (r == 0) continue;
            pids[w] = -1;
            alive--;
            if (r > 0 && WIFSIGNALED(wstatus) && rc == PKM_OK)
                rc = PKM_FAIL(ctx, PKM_ERR_SOLVER, "map sweep: worker %d killed by signal %d", w,
                              WTERMSIG(wstatus));
        }
        if (ctl->so->progress != NULL)
            ctl->so->progress(atomic_load(&sh->done), map->npoints, ctl->so->user);
        if (alive > 0 && rc == PKM_OK && ctl->so->checkpoint != NULL &&
            now_seconds() >= ctl->next) {
            collect(map, &out);
            rc = maybe_checkpoint(map, ctl, ctx);
            /* A failed checkpoint stops the sweep: the workers are ours to end. */
            for (int w = 0; rc != PKM_OK && w < started; w++)
                if (pids[w] > 0) kill(pids[w], SIGKILL);
        }
        if (alive > 0) nanosleep(&tick, NULL);
    }
    if (rc == PKM_OK && atomic_load(&sh->failed))
        rc = PKM_FAIL(ctx, sh->error.status, "%s", sh->error.msg);
    collect(map, &out);
    munmap(mem, bytes);
    return rc;
}

/* Decide whether the mode vectors of n coordinates are kept, and allocate them if so. */
static pkm_status keep_vectors(pkm_map *map, int64_t n, pkm_ctx *ctx)
{
    map->ncoord = n;
    const int64_t limit = map->track_bytes > 0 ? map->track_bytes : PKM_MAP_TRACK_BYTES;
    const double need = 8.0 * (double)map->npoints * (double)map->nev * (double)n;
    if (!map->keep_modes && need > (double)limit) {
        snprintf(map->tracking_note, sizeof(map->tracking_note),
                 "mode vectors would take %.3g MiB (%lld points x %d modes x %lld coordinates "
                 "x 8 bytes), above the limit of %.3g MiB",
                 need / 1048576.0, (long long)map->npoints, map->nev, (long long)n,
                 (double)limit / 1048576.0);
        return PKM_OK;
    }
    map->tracking_note[0] = '\0';
    return pkm_map_alloc_modes(map, ctx);
}

pkm_status pkm_map_sweep(const pkm_case *c, const void *params, pkm_map *map,
                         const pkm_sweep_opts *so, pkm_ctx *ctx)
{
    if (map->status == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map sweep: map arrays not allocated");
    if (map->npose != c->npose)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "map sweep: map has %d pose coordinates, case '%s' %d", map->npose, c->name,
                        c->npose);
    if (so->nworkers < 1 || so->nworkers > 256)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map sweep: %d workers (need 1 to 256)",
                        so->nworkers);
    pkm_modal_opts opts = map->opts;
    opts.nev = map->nev;
    pkm_analysis *an = NULL;
    pkm_status rc = pkm_analysis_create(map->formulation, map->eigensolver, &opts, &an, ctx);
    if (rc != PKM_OK) return rc;
    sweep_ctl ctl = {so, now_seconds() + so->checkpoint_interval};
    map->tracking_note[0] = '\0'; /* a resumed checkpoint's note no longer holds */
    atomic_llong done;
    atomic_init(&done, 0);
    sweep_out out = {map->status, map->freq_hz, map->residual, map->modes, &map->ncoord, &done, 0};

    /* A resumed map whose vectors were not kept: its OK points are computed again if vectors
     * are to be kept now, as tracking needs them. */
    if (map->modes == NULL && map->ncoord > 0) {
        rc = keep_vectors(map, map->ncoord, ctx);
        for (int64_t p = 0; rc == PKM_OK && map->modes != NULL && p < map->npoints; p++)
            if (map->status[p] == PKM_POSE_OK) map->status[p] = PKM_POSE_PENDING;
        out.modes = map->modes;
    }
    for (int64_t p = 0; p < map->npoints; p++)
        if (map->status[p] != PKM_POSE_PENDING) atomic_fetch_add(&done, 1);
    /* The vectors' length is known at the first OK pose: computed here, before any worker. */
    if (rc == PKM_OK && map->modes == NULL && map->ncoord == 0) {
        int64_t p = -1;
        const pkm_modes *md = NULL;
        rc = sweep_range(c, params, map, an, 0, 1, &out, &ctl, &p, &md, ctx);
        if (rc == PKM_OK && p >= 0) rc = keep_vectors(map, md->n, ctx);
        if (rc == PKM_OK && map->modes != NULL) {
            memcpy(map->modes + (size_t)p * (size_t)map->nev * (size_t)md->n, md->vectors,
                   sizeof(double) * (size_t)map->nev * (size_t)md->n);
            out.modes = map->modes;
        }
    }
    if (rc == PKM_OK) {
        if (so->nworkers == 1 || map->npoints < 2)
            rc = sweep_range(c, params, map, an, 0, 1, &out, &ctl, NULL, NULL, ctx);
        else
            rc = sweep_parallel(c, params, map, &ctl, ctx);
    }
    pkm_analysis_destroy(&an);
    if (rc == PKM_OK) rc = pkm_map_track(map, ctx);
    if (rc != PKM_OK) rank_ids(map, "not tracked: the sweep stopped");
    return rc;
}
