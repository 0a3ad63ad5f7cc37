/* solvers/sweep.c: frequency maps: one modal analysis per grid point, failures kept as data.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include "core/core_impl.h"
#include "pkm/map.h"

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

/* Where the results of one pose go: the map itself, or shared memory for worker processes. */
typedef struct sweep_out {
    signed char *status;
    double *freq_hz, *residual;
    int64_t *ncoord;
    atomic_llong *done;
} sweep_out;

/* Poses first, first + stride, ... that are still pending. Returns PKM_OK or the error that
 * stopped the sweep (recorded in ctx). */
static pkm_status sweep_range(const pkm_case *c, const void *params, const pkm_map *map,
                              int64_t first, int64_t stride, const sweep_out *out,
                              pkm_progress_fn progress, void *user, pkm_ctx *ctx)
{
    pkm_modal_opts opts = map->opts;
    opts.nev = map->nev;
    pkm_analysis *an = NULL;
    pkm_status rc = pkm_analysis_create(map->formulation, map->eigensolver, &opts, &an, ctx);
    for (int64_t p = first; rc == PKM_OK && p < map->npoints; p += stride) {
        if (out->status[p] != PKM_POSE_PENDING) continue;
        double pose[16];
        pkm_map_pose(map, p, pose);
        pkm_model *m = NULL;
        const pkm_modes *md = NULL;
        pkm_assembly_info info;
        /* Per-pose failures go to a scratch context: they are data, not the sweep's error. */
        pkm_ctx pctx;
        pkm_ctx_clear(&pctx);
        pkm_status st = c->build(params, pose, &m, &pctx);
        if (st == PKM_OK) st = pkm_analysis_solve(an, m, &md, &info, &pctx);
        pkm_model_destroy(&m);
        if (st == PKM_OK) {
            *out->ncoord = info.n_reduced;
            for (int k = 0; k < map->nev; k++) {
                out->freq_hz[p * map->nev + k] = md->freq_hz[k];
                out->residual[p * map->nev + k] = md->residual[k];
            }
            out->status[p] = PKM_POSE_OK;
        } else if (pose_status_of(st) != 0) {
            out->status[p] = (signed char)pose_status_of(st);
        } else {
            rc = PKM_FAIL(ctx, st, "map sweep stopped at point %lld: %s", (long long)p, pctx.msg);
        }
        const long long d = atomic_fetch_add(out->done, 1) + 1;
        if (progress != NULL) progress(d, map->npoints, user);
    }
    pkm_analysis_destroy(&an);
    return rc;
}

/* Shared memory of a parallel sweep: results, the done counter and the first worker error. */
typedef struct shared {
    atomic_llong done;
    atomic_int failed;
    int64_t ncoord;
    pkm_ctx error;
} shared;

static pkm_status sweep_parallel(const pkm_case *c, const void *params, pkm_map *map, int nworkers,
                                 pkm_progress_fn progress, void *user, pkm_ctx *ctx)
{
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
    memcpy(out.freq_hz, map->freq_hz, nv * sizeof(double));
    memcpy(out.residual, map->residual, nv * sizeof(double));
    memcpy(out.status, map->status, (size_t)map->npoints);
    for (int64_t p = 0; p < map->npoints; p++)
        if (map->status[p] != PKM_POSE_PENDING) atomic_fetch_add(&sh->done, 1);

    pkm_status rc = PKM_OK;
    pid_t pids[256];
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
            pkm_ctx wctx;
            pkm_ctx_clear(&wctx);
            pkm_status st = sweep_range(c, params, map, started, nworkers, &out, NULL, NULL, &wctx);
            if (st != PKM_OK && atomic_exchange(&sh->failed, 1) == 0) sh->error = wctx;
            _exit(st == PKM_OK ? 0 : 1);
        }
        pids[started] = pid;
    }
    /* Wait, reporting progress from this process only. */
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
        if (progress != NULL) progress(atomic_load(&sh->done), map->npoints, user);
        if (alive > 0) nanosleep(&tick, NULL);
    }
    if (rc == PKM_OK && atomic_load(&sh->failed))
        rc = PKM_FAIL(ctx, sh->error.status, "%s", sh->error.msg);
    memcpy(map->freq_hz, out.freq_hz, nv * sizeof(double));
    memcpy(map->residual, out.residual, nv * sizeof(double));
    memcpy(map->status, out.status, (size_t)map->npoints);
    map->ncoord = sh->ncoord;
    munmap(mem, bytes);
    return rc;
}

pkm_status pkm_map_sweep(const pkm_case *c, const void *params, pkm_map *map, int nworkers,
                         pkm_progress_fn progress, void *user, pkm_ctx *ctx)
{
    if (map->status == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map sweep: map arrays not allocated");
    if (map->npose != c->npose)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "map sweep: map has %d pose coordinates, case '%s' %d", map->npose, c->name,
                        c->npose);
    if (nworkers < 1 || nworkers > 256)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map sweep: %d workers (need 1 to 256)", nworkers);
    pkm_status rc;
    if (nworkers == 1 || map->npoints < 2) {
        atomic_llong done;
        atomic_init(&done, 0);
        for (int64_t p = 0; p < map->npoints; p++)
            if (map->status[p] != PKM_POSE_PENDING) atomic_fetch_add(&done, 1);
        sweep_out out = {map->status, map->freq_hz, map->residual, &map->ncoord, &done};
        rc = sweep_range(c, params, map, 0, 1, &out, progress, user, ctx);
    } else {
        rc = sweep_parallel(c, params, map, nworkers, progress, user, ctx);
    }
    /* Modes are ranked by frequency at each pose; /tracked_mode holds that rank until
     * MAC-based tracking across neighbouring poses is implemented. */
    for (int64_t p = 0; p < map->npoints; p++)
        for (int k = 0; k < map->nev; k++)
            map->tracked[p * map->nev + k] = (map->status[p] == PKM_POSE_OK) ? k : -1;
    return rc;
}
