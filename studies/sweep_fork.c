/* studies/sweep_fork.c: the fork executor of a map sweep: worker processes forked before any
 * solve, a probe process for the vectors' length, tiles taken in turn from shared memory, the
 * gather into the map's plain arrays, a watchdog. The seam is sweep_impl.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include "studies/sweep_impl.h"

#include "core/core_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The read side of pkm_sweep_run_tile's publish_status: the status before the results. */
static int observe_status(const signed char *s)
{
    const int v = *(const volatile signed char *)s;
    atomic_thread_fence(memory_order_acquire);
    return v;
}

/* Shared memory of the workers: the counters, the next tile to take, the first worker error,
 * the workers' slots, then the results. */
typedef struct shared {
    atomic_llong done;
    atomic_llong next_tile;
    atomic_int failed;
    atomic_int stopping;
    atomic_llong fallbacks; /* the warm solver's fallbacks to ARPACK, from the map's count */
    int64_t ncoord;
    pkm_ctx error;
    pkm_sweep_slot slot[PKM_SWEEP_MAX_WORKERS];
} shared;

/* The worker processes, as the sweeping process sees them. */
typedef struct crew {
    shared *sh;
    pkm_sweep_out out;
    pkm_sweep_tiles tiles;
    double *modes; /* the vectors while the workers run (shared), or NULL */
    size_t modes_bytes;
    pid_t pids[PKM_SWEEP_MAX_WORKERS];
    int started, alive;
    int fd;     /* read end of the probe's pipe, or -1 */
    int fd_end; /* the probe's pipe is at its end */
    char *buf;  /* what came through it */
    size_t len, cap;
    /* Read end of the pipe whose write end only the processes of the phase (the probe, or the
     * workers) hold: it ends when they have all exited, which wakes supervise at once. -1 if
     * the pipe could not be made (supervise then wakes on its tick only). */
    int life;
} crew;

/* The gather: copy the final points of the workers' results into map (status first, see
 * observe_status). The vectors stay in cr->modes until the workers are done. */
static void collect(pkm_map *map, const crew *cr)
{
    const pkm_sweep_out *out = &cr->out;
    for (int64_t p = 0; p < map->npoints; p++) {
        const int s = observe_status(&out->status[p]);
        if (s == map->status[p]) continue;
        map->conditioning[p] = out->conditioning[p];
        if (s == PKM_POSE_OK)
            for (int k = 0; k < map->nev; k++) {
                map->freq_hz[p * map->nev + k] = out->freq_hz[p * map->nev + k];
                map->residual[p * map->nev + k] = out->residual[p * map->nev + k];
                map->accuracy[p * map->nev + k] = out->accuracy[p * map->nev + k];
            }
        map->status[p] = (signed char)s;
    }
    map->ncoord = *out->ncoord;
    map->solver_fallbacks = atomic_load(out->fallbacks);
}

/* A checkpoint of the gathered map, its vectors read in place from the shared copy. */
static pkm_status checkpoint(pkm_map *map, crew *cr, pkm_sweep_ctl *ctl, pkm_ctx *ctx)
{
    collect(map, cr);
    if (cr->modes != NULL) map->modes = cr->modes;
    const pkm_status st = pkm_sweep_checkpoint(map, ctl, 0, ctx);
    if (cr->modes != NULL) map->modes = NULL;
    return st;
}

/* Move map's vectors (if kept) to shared memory, where the workers write theirs. */
static pkm_status share_vectors(pkm_map *map, crew *cr, pkm_ctx *ctx)
{
    if (map->modes == NULL) return PKM_OK;
    const size_t bytes =
        sizeof(double) * (size_t)map->npoints * (size_t)map->nev * (size_t)map->ncoord;
    /* mmap would succeed beyond the memory (overcommit) and the copy below be killed. */
    const double avail = pkm_map_memory_free();
    if (avail > 0.0 && (double)bytes > avail)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM,
                        "map sweep: the workers' copy of the mode vectors needs %.3g GiB, %.3g "
                        "GiB of memory is free",
                        (double)bytes / 1073741824.0, avail / 1073741824.0);
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM,
                        "map sweep: cannot map %zu bytes for the mode vectors: %s", bytes,
                        strerror(errno));
    memcpy(mem, map->modes, bytes);
    pkm_map_free_modes(map);
    cr->modes = cr->out.modes = mem;
    cr->modes_bytes = bytes;
    return PKM_OK;
}

/* Move them back to the map's plain memory, unmapping the shared pages as they are copied, so
 * that the two copies never exist whole at once. */
static pkm_status unshare_vectors(pkm_map *map, crew *cr, pkm_ctx *ctx)
{
    if (cr->modes == NULL) return PKM_OK;
    const size_t bytes = cr->modes_bytes, chunk = (size_t)64 << 20; /* a multiple of a page */
    double *dst = malloc(bytes);
    for (size_t off = 0; off < bytes; off += chunk) {
        const size_t n = bytes - off < chunk ? bytes - off : chunk;
        if (dst != NULL) memcpy((char *)dst + off, (char *)cr->modes + off, n);
        munmap((char *)cr->modes + off, n);
    }
    cr->modes = cr->out.modes = NULL;
    if (dst == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM,
                        "map sweep: cannot allocate %zu bytes for the mode "
                        "vectors",
                        bytes);
    map->modes = dst;
    return PKM_OK;
}

/* The probe's message through fd: pose p (or -1: no OK pose, every pose is done or a stop was
 * asked), the order of the pencil and the vectors. */
static pkm_status send_probe(const pkm_map *map, int fd, int64_t p, const pkm_modes *md,
                             pkm_ctx *ctx)
{
    const int64_t head[2] = {p, md != NULL ? md->n : 0};
    const size_t bytes = md != NULL ? sizeof(double) * (size_t)map->nev * (size_t)md->n : 0;
    const char *src[2] = {(const char *)head, md != NULL ? (const char *)md->vectors : NULL};
    const size_t len[2] = {sizeof(head), bytes};
    for (int i = 0; i < 2; i++)
        for (size_t off = 0; off < len[i];) {
            const ssize_t k = write(fd, src[i] + off, len[i] - off);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0)
                return PKM_FAIL(ctx, PKM_ERR_IO, "map sweep: probe cannot send its vectors: %s",
                                strerror(errno));
            off += (size_t)k;
        }
    return PKM_OK;
}

/* Worker w, with an analysis of its own: tiles taken in turn until none is left. The first
 * worker of a sweep that keeps vectors (a probe, fd >= 0) instead computes from the first pose
 * up to its first OK pose and sends it through fd: the sweeping process sizes the vectors from
 * it without solving anything itself. Never returns. */
static void run_worker(const pkm_case *c, const void *params, pkm_map *map, crew *cr, int w, int fd)
{
    pkm_ctx wctx;
    pkm_ctx_clear(&wctx);
    pkm_sweep_out out = cr->out;
    out.slot = &cr->sh->slot[w];
    out.parent = getppid();
    pkm_analysis *an = NULL;
    pkm_status st = PKM_OK;
    if (fd >= 0) {
        int64_t p = -1;
        const pkm_modes *md = NULL;
        st = pkm_sweep_run_tile(c, params, map, 0, map->npoints, &out, NULL, &an, &p, &md, &wctx);
        if (st == PKM_OK) st = send_probe(map, fd, p, md, &wctx);
    }
    while (fd < 0 && st == PKM_OK && !atomic_load(&cr->sh->stopping)) {
        const int64_t t = atomic_fetch_add(&cr->sh->next_tile, 1);
        if (t >= cr->tiles.count) break;
        int64_t begin, end;
        pkm_sweep_tile_range(&cr->tiles, t, &begin, &end);
        st = pkm_sweep_run_tile(c, params, map, begin, end, &out, NULL, &an, NULL, NULL, &wctx);
    }
    pkm_analysis_destroy(&an);
    if (st != PKM_OK && atomic_exchange(&cr->sh->failed, 1) == 0) cr->sh->error = wctx;
    _exit(st == PKM_OK ? 0 : 1);
}

/* Start worker w (a probe if want_probe). */
static pkm_status start_worker(const pkm_case *c, const void *params, pkm_map *map, crew *cr, int w,
                               int want_probe, pkm_ctx *ctx)
{
    int fds[2] = {-1, -1};
    if (want_probe && pipe(fds) != 0)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: cannot create a pipe: %s", strerror(errno));
    atomic_store(&cr->sh->slot[w].busy_ns, 0);
    const pid_t pid = fork();
    if (pid < 0) {
        const int e = errno;
        if (want_probe) close(fds[0]), close(fds[1]);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: cannot start worker %d: %s", w,
                        strerror(e));
    }
    if (pid == 0) {
        if (want_probe) close(fds[0]);
        run_worker(c, params, map, cr, w, want_probe ? fds[1] : -1);
    }
    if (want_probe) {
        close(fds[1]);
        cr->fd = fds[0];
    }
    cr->pids[w] = pid;
    cr->started = w + 1;
    cr->alive++;
    return PKM_OK;
}
/* The life pipe of a phase: the processes started before end_life inherit its write end. */
static void begin_life(crew *cr, int *write_end)
{
    int lp[2];
    cr->life = *write_end = -1;
    if (pipe(lp) != 0) return;
    cr->life = lp[0];
    *write_end = lp[1];
}

static void end_life(int write_end)
{
    if (write_end >= 0) close(write_end);
}

/* Wait until the processes of the phase have all exited, the probe sends, or the tick passes
 * (progress, checkpoints, the watchdog). Polling on the tick alone cost up to 50 ms twice per
 * fork sweep, while the probe ran alone and after the last worker: 0.1-0.2 s of a 2-worker
 * map_bench sweep of 0.66 s, most of the scaling lost (docs/performance.md). */
static void wait_tick(const crew *cr)
{
    struct pollfd p[2];
    nfds_t n = 0;
    if (cr->life >= 0) p[n++] = (struct pollfd){.fd = cr->life, .events = POLLIN};
    if (cr->fd >= 0 && !cr->fd_end) p[n++] = (struct pollfd){.fd = cr->fd, .events = POLLIN};
    if (n > 0) {
        poll(p, n, 50);
        return;
    }
    const struct timespec tick = {0, 50 * 1000 * 1000};
    nanosleep(&tick, NULL);
}

/* Read what the probe has sent so far (the pipe is non-blocking); 1 at its end, 0 if more may
 * come, -1 on an error. */
static int drain_probe(crew *cr)
{
    for (;;) {
        if (cr->len == cr->cap) {
            const size_t cap = cr->cap ? 2 * cr->cap : 65536;
            char *b = realloc(cr->buf, cap);
            if (b == NULL) return -1;
            cr->buf = b;
            cr->cap = cap;
        }
        const ssize_t k = read(cr->fd, cr->buf + cr->len, cr->cap - cr->len);
        if (k > 0) {
            cr->len += (size_t)k;
            continue;
        }
        if (k == 0) cr->fd_end = 1;
        if (k == 0) return 1;
        return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    }
}

/* The watchdog: a worker that has spent more than the stall limit on one pose is reported (a
 * deadlock, e.g. in a threaded library whose state did not survive fork(), would otherwise
 * hang the sweep for ever). The limit is so->stall_timeout, or 100 times the slowest pose so far
 * and at least PKM_SWEEP_STALL_MIN seconds. */
static pkm_status check_stall(const crew *cr, const pkm_sweep_opts *so, pkm_ctx *ctx)
{
    long long slowest = 0;
    for (int w = 0; w < cr->started; w++) {
        const long long s = atomic_load(&cr->sh->slot[w].slowest_ns);
        if (s > slowest) slowest = s;
    }
    const double limit =
        so->stall_timeout > 0.0 ? so->stall_timeout : fmax(PKM_SWEEP_STALL_MIN, 1e-7 * slowest);
    const long long now = pkm_sweep_now_ns();
    for (int w = 0; w < cr->started; w++) {
        if (cr->pids[w] <= 0) continue;
        const long long since = atomic_load(&cr->sh->slot[w].busy_ns);
        if (since > 0 && 1e-9 * (double)(now - since) > limit)
            return PKM_FAIL(ctx, PKM_ERR_SOLVER,
                            "map sweep: worker %d stalled: no result for %.0f s at point %lld "
                            "(limit %.0f s; slowest pose so far %.3g s)",
                            w, 1e-9 * (double)(now - since),
                            (long long)atomic_load(&cr->sh->slot[w].point), limit,
                            1e-9 * (double)slowest);
    }
    return PKM_OK;
}

/* Wait for the workers, reporting progress, taking checkpoints, reading the probe's pipe and
 * watching for stalls from this process only. On an error the workers are ours to end. */
static pkm_status supervise(pkm_map *map, pkm_sweep_ctl *ctl, crew *cr, pkm_status rc, pkm_ctx *ctx)
{
    while (cr->alive > 0) {
        for (int w = 0; w < cr->started; w++) {
            if (cr->pids[w] <= 0) continue;
            int wstatus = 0;
            const pid_t r = waitpid(cr->pids[w], &wstatus, WNOHANG);
            if (r == 0) continue;
            cr->pids[w] = -1;
            cr->alive--;
            if (r > 0 && WIFSIGNALED(wstatus) && rc == PKM_OK)
                rc = PKM_FAIL(ctx, PKM_ERR_SOLVER, "map sweep: worker %d killed by signal %d", w,
                              WTERMSIG(wstatus));
        }
        if (cr->fd >= 0 && drain_probe(cr) < 0 && rc == PKM_OK)
            rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: cannot read the probe's vectors: %s",
                          strerror(errno));
        if (ctl->so->progress != NULL)
            ctl->so->progress(atomic_load(&cr->sh->done), map->npoints, ctl->so->user);
        if (rc == PKM_OK) rc = check_stall(cr, ctl->so, ctx);
        if (ctl->so->stop != NULL && ctl->so->stop(-1, ctl->so->user))
            atomic_store(&cr->sh->stopping, 1); /* the workers stop at their next pose */
        if (cr->alive > 0 && rc == PKM_OK && ctl->so->checkpoint != NULL &&
            pkm_sweep_now_seconds() >= ctl->next)
            rc = checkpoint(map, cr, ctl, ctx);
        for (int w = 0; rc != PKM_OK && w < cr->started; w++)
            if (cr->pids[w] > 0) kill(cr->pids[w], SIGKILL);
        if (cr->alive > 0) wait_tick(cr);
    }
    if (cr->fd >= 0 && rc == PKM_OK && drain_probe(cr) < 0)
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: cannot read the probe's vectors");
    if (rc == PKM_OK && atomic_load(&cr->sh->failed))
        rc = PKM_FAIL(ctx, cr->sh->error.status, "%s", cr->sh->error.msg);
    collect(map, cr);
    return rc;
}

/* The probe's message: pose p (or -1: no OK pose) and its vectors, which this process keeps if
 * the map keeps vectors. */
static pkm_status take_probe(pkm_map *map, crew *cr, const pkm_sweep_opts *so, pkm_ctx *ctx)
{
    int64_t head[2] = {-1, 0};
    if (cr->len == 0)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER,
                        "map sweep: the probe process ended early, at point %lld, without a "
                        "result",
                        (long long)atomic_load(&cr->sh->slot[0].point));
    if (cr->len >= sizeof(head)) memcpy(head, cr->buf, sizeof(head));
    const size_t bytes = sizeof(double) * (size_t)map->nev * (size_t)(head[1] > 0 ? head[1] : 0);
    if (cr->len < sizeof(head) || head[0] < -1 || head[0] >= map->npoints ||
        cr->len != sizeof(head) + bytes)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "map sweep: the probe sent %zu bytes, not a pose",
                        cr->len);
    if (head[0] < 0) return PKM_OK;
    pkm_status rc = pkm_sweep_keep_vectors(map, head[1], so, ctx);
    if (rc == PKM_OK && map->modes != NULL)
        pkm_sweep_store_vectors(map, map->modes, head[0], (const double *)(cr->buf + sizeof(head)));
    return rc;
}

/* If the vectors' length is still unknown, a probe process computes up to the first OK pose. */
static pkm_status probe(const pkm_case *c, const void *params, pkm_map *map, pkm_sweep_ctl *ctl,
                        crew *cr, pkm_ctx *ctx)
{
    int life = -1;
    begin_life(cr, &life);
    pkm_status rc = start_worker(c, params, map, cr, 0, 1, ctx);
    end_life(life);
    if (rc == PKM_OK && fcntl(cr->fd, F_SETFL, O_NONBLOCK) != 0)
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: pipe: %s", strerror(errno));
    rc = supervise(map, ctl, cr, rc, ctx);
    if (cr->life >= 0) close(cr->life);
    cr->life = -1;
    if (rc == PKM_OK) rc = take_probe(map, cr, ctl->so, ctx);
    if (cr->fd >= 0) close(cr->fd);
    cr->fd = -1;
    return rc;
}

/* nworkers processes. None of the work is done in this process: a CHOLMOD factorisation here
 * would start libgomp's thread pool, which does not survive fork(), and the workers would hang
 * in their first parallel region (issue 8). The results (and the vectors) are written by the
 * workers in shared memory private to this executor, and gathered into the map's arrays. */
pkm_status pkm_sweep_fork_run(const pkm_case *c, const void *params, pkm_map *map,
                              pkm_sweep_ctl *ctl, int *stopped, pkm_ctx *ctx)
{
    const size_t nv = (size_t)map->npoints * (size_t)map->nev;
    const size_t bytes =
        sizeof(shared) + (3 * nv + (size_t)map->npoints) * sizeof(double) + (size_t)map->npoints;
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: cannot map %zu bytes of shared memory: %s",
                        bytes, strerror(errno));
    crew cr = {.sh = mem, .fd = -1, .life = -1, .tiles = pkm_sweep_partition(map->npoints)};
    shared *sh = cr.sh;
    atomic_init(&sh->done, 0);
    atomic_init(&sh->next_tile, 0);
    atomic_init(&sh->failed, 0);
    atomic_init(&sh->stopping, 0);
    atomic_init(&sh->fallbacks, map->solver_fallbacks);
    sh->ncoord = map->ncoord;
    pkm_sweep_out *out = &cr.out;
    *out = (pkm_sweep_out){.freq_hz = (double *)(sh + 1),
                           .ncoord = &sh->ncoord,
                           .done = &sh->done,
                           .stopping = &sh->stopping,
                           .fallbacks = &sh->fallbacks,
                           .so = ctl->so};
    out->residual = out->freq_hz + nv;
    out->accuracy = out->residual + nv;
    out->conditioning = out->accuracy + nv;
    out->status = (signed char *)(out->conditioning + map->npoints);
    memcpy(out->freq_hz, map->freq_hz, nv * sizeof(double));
    memcpy(out->residual, map->residual, nv * sizeof(double));
    memcpy(out->accuracy, map->accuracy, nv * sizeof(double));
    memcpy(out->conditioning, map->conditioning, (size_t)map->npoints * sizeof(double));
    memcpy(out->status, map->status, (size_t)map->npoints);
    for (int64_t p = 0; p < map->npoints; p++)
        if (map->status[p] != PKM_POSE_PENDING) atomic_fetch_add(&sh->done, 1);

    pkm_status rc = PKM_OK;
    if (map->modes == NULL && map->ncoord == 0) rc = probe(c, params, map, ctl, &cr, ctx);
    if (rc == PKM_OK) rc = share_vectors(map, &cr, ctx);
    const int64_t pending = map->npoints - (int64_t)atomic_load(&sh->done);
    int life = -1;
    begin_life(&cr, &life);
    for (int w = 0;
         rc == PKM_OK && pending > 0 && !atomic_load(&sh->stopping) && w < ctl->so->nworkers; w++)
        rc = start_worker(c, params, map, &cr, w, 0, ctx);
    end_life(life);
    rc = supervise(map, ctl, &cr, rc, ctx);
    if (cr.life >= 0) close(cr.life);
    *stopped = atomic_load(&sh->stopping);
    const pkm_status moved = unshare_vectors(map, &cr, ctx);
    if (rc == PKM_OK) rc = moved;
    /* A worker that exits without an error but early (a library calling exit(), as LAPACK's
     * xerbla does) leaves poses pending: the map would look complete. */
    for (int64_t p = 0; rc == PKM_OK && !*stopped && p < map->npoints; p++)
        if (map->status[p] == PKM_POSE_PENDING)
            rc = PKM_FAIL(ctx, PKM_ERR_SOLVER,
                          "map sweep: point %lld was not computed: its worker process ended early",
                          (long long)p);
    free(cr.buf);
    munmap(mem, bytes);
    return rc;
}
