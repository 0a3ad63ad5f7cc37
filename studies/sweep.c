/* studies/sweep.c: frequency maps: one modal analysis per grid point, failures kept as data,
 * mode vectors kept for tracking, checkpoints of the results so far.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include "core/core_impl.h"
#include "pkm/map.h"
#include "studies/studies_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
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

/* CLOCK_MONOTONIC is one clock for every process of the machine: the workers' times are
 * comparable in the sweeping process. */
static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Where the results of one pose go: the map itself, or shared memory for worker processes. The
 * mode vectors always go to map->modes, which is shared (pkm_map_alloc_modes). */
/* What a worker process shows of itself, for the watchdog of the sweeping process. */
typedef struct worker_slot {
    atomic_llong busy_ns;    /* CLOCK_MONOTONIC start of the pose in progress, 0 between poses */
    atomic_llong point;      /* that pose */
    atomic_llong slowest_ns; /* longest pose so far */
} worker_slot;

typedef struct sweep_out {
    signed char *status;
    double *freq_hz, *residual, *accuracy, *modes;
    int64_t *ncoord;
    atomic_llong *done;
    pid_t parent;      /* in a worker process: the sweeping process; else 0 */
    worker_slot *slot; /* in a worker process: its slot for the watchdog; else NULL */
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

/* Keep the nev vectors of point p (n x nev column-major, n = map->ncoord) in map->modes. */
static void store_vectors(const pkm_map *map, double *modes, int64_t p, const double *vectors)
{
    const size_t count = (size_t)map->nev * (size_t)map->ncoord;
    double *dst = modes + (size_t)p * count;
    for (size_t i = 0; i < count; i++)
        dst[i] = map->modes_single ? (double)(float)vectors[i] : vectors[i];
}

/* Vectors for tracking only are single precision (pkm_map.modes_single); vectors to be written
 * (keep_modes) must be exact: a resumed checkpoint's are rounded, or dropped if too coarse (its
 * OK points are then computed again). */
static void settle_precision(pkm_map *map)
{
    if (map->modes != NULL && map->keep_modes && map->modes_single) pkm_map_free_modes(map);
    if (map->modes != NULL && !map->keep_modes && !map->modes_single) {
        const size_t count = (size_t)map->npoints * (size_t)map->nev * (size_t)map->ncoord;
        for (size_t i = 0; i < count; i++)
            map->modes[i] = (double)(float)map->modes[i];
    }
    map->modes_single = !map->keep_modes;
}

/* Solve pose p into out. Returns PKM_OK when the pose is recorded (computed or a per-pose
 * failure), else the error that stops the sweep (recorded in ctx). *modes: the modes of an OK
 * pose, owned by an. */
static pkm_status solve_pose(const pkm_case *c, const void *params, const pkm_map *map,
                             pkm_analysis *an, int64_t p, const sweep_out *out,
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
            store_vectors(map, out->modes, p, md->vectors);
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

/* Poses first, first + stride, ... that are still pending. With first_ok not NULL, stops after
 * the first OK pose, setting *first_ok (else -1), *modes and *held, the analysis that owns them
 * (the caller destroys it). ctl is NULL in a worker process.
 *
 * One analysis serves every pose of the range. Its assembly pattern is the pose's own
 * (assembly/triplets.c), so a pose's result does not depend on the poses computed before it and
 * any number of workers gives the same map bit for bit; the scatter map and the symbolic
 * analysis are reused while the pattern stays (45 x 45 NaVARo map, nodal: 4,050 poses/s against
 * 3,100 with a fresh analysis per pose). */
static pkm_status sweep_range(const pkm_case *c, const void *params, pkm_map *map, int64_t first,
                              int64_t stride, const sweep_out *out, sweep_ctl *ctl,
                              int64_t *first_ok, const pkm_modes **modes, pkm_analysis **held,
                              pkm_ctx *ctx)
{
    if (first_ok != NULL) *first_ok = -1;
    pkm_modal_opts opts = map->opts;
    opts.nev = map->nev;
    pkm_analysis *an = NULL;
    pkm_status rc = PKM_OK;
    for (int64_t p = first; rc == PKM_OK && p < map->npoints; p += stride) {
        if (out->status[p] != PKM_POSE_PENDING) continue;
        /* A worker whose sweeping process was killed stops: nobody will read its results. */
        if (out->parent != 0 && getppid() != out->parent) break;
        if (an == NULL)
            rc = pkm_analysis_create(map->formulation, map->eigensolver, &opts, &an, ctx);
        if (rc != PKM_OK) break;
        const pkm_modes *md = NULL;
        const long long t0 = out->slot != NULL ? now_ns() : 0;
        if (out->slot != NULL) {
            atomic_store(&out->slot->point, p);
            atomic_store(&out->slot->busy_ns, t0);
        }
        rc = solve_pose(c, params, map, an, p, out, &md, ctx);
        if (out->slot != NULL) {
            const long long dt = now_ns() - t0;
            if (dt > atomic_load(&out->slot->slowest_ns)) atomic_store(&out->slot->slowest_ns, dt);
            atomic_store(&out->slot->busy_ns, 0);
        }
        const long long d = atomic_fetch_add(out->done, 1) + 1;
        if (ctl != NULL && ctl->so->progress != NULL)
            ctl->so->progress(d, map->npoints, ctl->so->user);
        if (rc == PKM_OK && first_ok != NULL && md != NULL) {
            *first_ok = p;
            *modes = md;
            *held = an;
            return rc;
        }
        if (rc == PKM_OK && ctl != NULL) rc = maybe_checkpoint(map, ctl, ctx);
    }
    pkm_analysis_destroy(&an);
    return rc;
}

/* Shared memory of a parallel sweep: the done counter, the first worker error, the workers'
 * slots, then the results. */
typedef struct shared {
    atomic_llong done;
    atomic_int failed;
    int64_t ncoord;
    pkm_ctx error;
    worker_slot slot[256];
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
                map->accuracy[p * map->nev + k] = out->accuracy[p * map->nev + k];
            }
        map->status[p] = (signed char)s;
    }
    map->ncoord = *out->ncoord;
}

/* The worker processes of a parallel sweep, as the sweeping process sees them. */
typedef struct crew {
    shared *sh;
    sweep_out out;
    pid_t pids[256];
    int started, alive;
    int fd;    /* read end of the probe's pipe, or -1 */
    char *buf; /* what came through it */
    size_t len, cap;
} crew;

/* Worker w: poses first, first + stride, ... with an analysis of its own. The first worker of
 * a sweep that keeps vectors (a probe, fd >= 0) stops at its first OK pose and sends the pose,
 * the order of the pencil and the vectors through fd: the sweeping process sizes the shared
 * vectors from them without solving anything itself. Never returns. */
static void run_worker(const pkm_case *c, const void *params, pkm_map *map, crew *cr, int w,
                       int64_t stride, int fd)
{
    pkm_ctx wctx;
    pkm_ctx_clear(&wctx);
    sweep_out out = cr->out;
    out.slot = &cr->sh->slot[w];
    out.parent = getppid();
    int64_t p = -1;
    const pkm_modes *md = NULL;
    pkm_analysis *held = NULL;
    pkm_status st =
        sweep_range(c, params, map, w, stride, &out, NULL, fd >= 0 ? &p : NULL, &md, &held, &wctx);
    if (st == PKM_OK && fd >= 0) {
        const int64_t head[2] = {p, md != NULL ? md->n : 0};
        const size_t bytes = md != NULL ? sizeof(double) * (size_t)map->nev * (size_t)md->n : 0;
        const char *src[2] = {(const char *)head, md != NULL ? (const char *)md->vectors : NULL};
        const size_t len[2] = {sizeof(head), bytes};
        for (int i = 0; i < 2 && st == PKM_OK; i++)
            for (size_t off = 0; off < len[i];) {
                const ssize_t k = write(fd, src[i] + off, len[i] - off);
                if (k < 0 && errno == EINTR) continue;
                if (k <= 0) {
                    st = PKM_FAIL(&wctx, PKM_ERR_IO, "map sweep: probe cannot send its vectors: %s",
                                  strerror(errno));
                    break;
                }
                off += (size_t)k;
            }
    }
    pkm_analysis_destroy(&held);
    if (st != PKM_OK && atomic_exchange(&cr->sh->failed, 1) == 0) cr->sh->error = wctx;
    _exit(st == PKM_OK ? 0 : 1);
}

/* Start worker w of stride workers (a probe if want_probe). */
static pkm_status start_worker(const pkm_case *c, const void *params, pkm_map *map, crew *cr, int w,
                               int64_t stride, int want_probe, pkm_ctx *ctx)
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
        run_worker(c, params, map, cr, w, stride, want_probe ? fds[1] : -1);
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
    const long long now = now_ns();
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
static pkm_status supervise(pkm_map *map, sweep_ctl *ctl, crew *cr, pkm_status rc, pkm_ctx *ctx)
{
    const struct timespec tick = {0, 50 * 1000 * 1000};
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
        if (cr->alive > 0 && rc == PKM_OK && ctl->so->checkpoint != NULL &&
            now_seconds() >= ctl->next) {
            collect(map, &cr->out);
            rc = maybe_checkpoint(map, ctl, ctx);
        }
        for (int w = 0; rc != PKM_OK && w < cr->started; w++)
            if (cr->pids[w] > 0) kill(cr->pids[w], SIGKILL);
        if (cr->alive > 0) nanosleep(&tick, NULL);
    }
    if (cr->fd >= 0 && rc == PKM_OK && drain_probe(cr) < 0)
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: cannot read the probe's vectors");
    if (rc == PKM_OK && atomic_load(&cr->sh->failed))
        rc = PKM_FAIL(ctx, cr->sh->error.status, "%s", cr->sh->error.msg);
    collect(map, &cr->out);
    return rc;
}

static pkm_status keep_vectors(pkm_map *map, int64_t n, const pkm_sweep_opts *so, pkm_ctx *ctx);

/* The probe's message: pose p (or -1: no OK pose, every pose is done) and its vectors, which
 * this process keeps if the map keeps vectors. */
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
    pkm_status rc = keep_vectors(map, head[1], so, ctx);
    if (rc == PKM_OK && map->modes != NULL)
        store_vectors(map, map->modes, head[0], (const double *)(cr->buf + sizeof(head)));
    return rc;
}

/* nworkers processes. None of the work is done in this process: a CHOLMOD factorisation here
 * would start libgomp's thread pool, which does not survive fork(), and the workers would hang
 * in their first parallel region (issue 8). If the vectors' length is still unknown, a probe
 * process computes up to the first OK pose first. */
static pkm_status sweep_parallel(const pkm_case *c, const void *params, pkm_map *map,
                                 sweep_ctl *ctl, pkm_ctx *ctx)
{
    const int nworkers = ctl->so->nworkers;
    const size_t nv = (size_t)map->npoints * (size_t)map->nev;
    const size_t bytes = sizeof(shared) + 3 * nv * sizeof(double) + (size_t)map->npoints;
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: cannot map %zu bytes of shared memory: %s",
                        bytes, strerror(errno));
    crew cr = {.sh = mem, .fd = -1};
    shared *sh = cr.sh;
    atomic_init(&sh->done, 0);
    atomic_init(&sh->failed, 0);
    sh->ncoord = map->ncoord;
    sweep_out *out = &cr.out;
    *out = (sweep_out){.freq_hz = (double *)(sh + 1), .ncoord = &sh->ncoord, .done = &sh->done};
    out->residual = out->freq_hz + nv;
    out->accuracy = out->residual + nv;
    out->status = (signed char *)(out->accuracy + nv);
    out->modes = map->modes;
    memcpy(out->freq_hz, map->freq_hz, nv * sizeof(double));
    memcpy(out->residual, map->residual, nv * sizeof(double));
    memcpy(out->accuracy, map->accuracy, nv * sizeof(double));
    memcpy(out->status, map->status, (size_t)map->npoints);
    for (int64_t p = 0; p < map->npoints; p++)
        if (map->status[p] != PKM_POSE_PENDING) atomic_fetch_add(&sh->done, 1);

    pkm_status rc = PKM_OK;
    if (map->modes == NULL && map->ncoord == 0) {
        rc = start_worker(c, params, map, &cr, 0, 1, 1, ctx);
        if (rc == PKM_OK && fcntl(cr.fd, F_SETFL, O_NONBLOCK) != 0)
            rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: pipe: %s", strerror(errno));
        rc = supervise(map, ctl, &cr, rc, ctx);
        if (rc == PKM_OK) rc = take_probe(map, &cr, ctl->so, ctx);
        if (cr.fd >= 0) close(cr.fd);
        cr.fd = -1;
        out->modes = map->modes;
    }
    /* Interleaved poses balance the cost of unreachable and reachable ones. */
    const int64_t pending = map->npoints - (int64_t)atomic_load(&sh->done);
    for (int w = 0; rc == PKM_OK && pending > 0 && w < nworkers; w++)
        rc = start_worker(c, params, map, &cr, w, nworkers, 0, ctx);
    rc = supervise(map, ctl, &cr, rc, ctx);
    /* A worker that exits without an error but early (a library calling exit(), as LAPACK's
     * xerbla does) leaves poses pending: the map would look complete. */
    for (int64_t p = 0; rc == PKM_OK && p < map->npoints; p++)
        if (map->status[p] == PKM_POSE_PENDING)
            rc = PKM_FAIL(ctx, PKM_ERR_SOLVER,
                          "map sweep: point %lld was not computed: its worker process ended early",
                          (long long)p);
    free(cr.buf);
    munmap(mem, bytes);
    return rc;
}

/* Decide whether the mode vectors of n coordinates are kept, and allocate them if so. Not
 * keeping them is told through so->notice at once: tracking is lost for the whole map. */
static pkm_status keep_vectors(pkm_map *map, int64_t n, const pkm_sweep_opts *so, pkm_ctx *ctx)
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

/* One process: the first OK pose gives the vectors' length, then the rest. */
static pkm_status sweep_serial(const pkm_case *c, const void *params, pkm_map *map, sweep_ctl *ctl,
                               pkm_ctx *ctx)
{
    atomic_llong done;
    atomic_init(&done, 0);
    sweep_out out = {map->status, map->freq_hz, map->residual, map->accuracy,
                     map->modes,  &map->ncoord, &done,         0,
                     NULL};
    for (int64_t p = 0; p < map->npoints; p++)
        if (map->status[p] != PKM_POSE_PENDING) atomic_fetch_add(&done, 1);
    pkm_status rc = PKM_OK;
    if (map->modes == NULL && map->ncoord == 0) {
        int64_t p = -1;
        const pkm_modes *md = NULL;
        pkm_analysis *held = NULL;
        rc = sweep_range(c, params, map, 0, 1, &out, ctl, &p, &md, &held, ctx);
        if (rc == PKM_OK && p >= 0) rc = keep_vectors(map, md->n, ctl->so, ctx);
        if (rc == PKM_OK && map->modes != NULL) store_vectors(map, map->modes, p, md->vectors);
        pkm_analysis_destroy(&held);
        out.modes = map->modes;
    }
    if (rc == PKM_OK) rc = sweep_range(c, params, map, 0, 1, &out, ctl, NULL, NULL, NULL, ctx);
    return rc;
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
    if (so->nworkers < 1 || so->nworkers > 256 || !(so->stall_timeout >= 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "map sweep: %d workers (need 1 to 256), stall timeout %g s (need >= 0)",
                        so->nworkers, so->stall_timeout);
    sweep_ctl ctl = {so, now_seconds() + so->checkpoint_interval};
    map->tracking_note[0] = '\0'; /* a resumed checkpoint's note no longer holds */
    settle_precision(map);
    pkm_status rc = PKM_OK;
    /* A resumed map whose vectors were not kept: its OK points are computed again if vectors
     * are to be kept now, as tracking needs them. */
    if (map->modes == NULL && map->ncoord > 0) {
        rc = keep_vectors(map, map->ncoord, so, ctx);
        for (int64_t p = 0; rc == PKM_OK && map->modes != NULL && p < map->npoints; p++)
            if (map->status[p] == PKM_POSE_OK) map->status[p] = PKM_POSE_PENDING;
    }
    if (rc == PKM_OK) {
        if (so->nworkers == 1 || map->npoints < 2)
            rc = sweep_serial(c, params, map, &ctl, ctx);
        else
            rc = sweep_parallel(c, params, map, &ctl, ctx);
    }
    if (rc == PKM_OK) rc = pkm_map_track(map, ctx);
    if (rc != PKM_OK) rank_ids(map, "not tracked: the sweep stopped");
    return rc;
}
