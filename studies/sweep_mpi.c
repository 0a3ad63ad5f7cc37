/* studies/sweep_mpi.c: the MPI executor of a map sweep: rank 0 hands out the tiles of
 * pkm_sweep_partition and computes tiles itself, serving the other ranks' messages after every
 * pose; their results come back to rank 0's map, which checkpoints and tracks as in one process.
 * The seam is sweep_impl.h; the entry point pkm/sweep_mpi.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L /* nanosleep, clock_gettime */

#include "pkm/sweep_mpi.h"

#include "core/core_impl.h"
#include "studies/sweep_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Messages: rank 0 sends SETUP once, then TILE (an index; -1: no more, the last message) and
 * STOP; the others send RESULT per tile and STATS last. The order between two ranks is MPI's. */
enum { TAG_SETUP = 1, TAG_TILE, TAG_STOP, TAG_RESULT, TAG_STATS };

/* Tiles a rank other than 0 holds: the one it computes and the next, so that it never waits for
 * rank 0, which reads its messages only between poses. */
#define MPI_SWEEP_AHEAD 2

/* An idle rank sleeps this long between looks for a message instead of spinning in MPI: with
 * more ranks than cores (--oversubscribe) the cores go to the ranks computing. */
#define MPI_SWEEP_NAP_NS 100000L

/* RESULT: this header, then per pose computed (in the order computed) its point (int64) and
 * status (int8, with RESULT_FALLBACK added where the warm solver handed the pose to ARPACK), and if
 * it is OK its frequencies, residuals and accuracies (nev doubles each) and its vectors (nev x
 * ncoord, float32 if the map rounds them so), then the sender's error message if status is not
 * PKM_OK. A tile is a range of the sweep's walk over the grid: the points are named, not implied.
 */
#define RESULT_FALLBACK 0x40

typedef struct result_head {
    int64_t status, stopping, msg_len, count;
} result_head;

/* SETUP: go (0: the sweep ends before it starts), the vectors' length, whether they travel,
 * their precision; then the status of every point. */
typedef struct setup_head {
    int64_t go, ncoord, keep, single;
} setup_head;

typedef struct mpi_sweep {
    MPI_Comm comm;
    int rank, size;
    pkm_map *map;
    const pkm_sweep_opts *so;
    pkm_sweep_tiles tiles;
    pkm_sweep_out out;
    atomic_llong done;
    atomic_int stopping;
    int keep, single;
    size_t per_point; /* nev x ncoord */
    pkm_sweep_rank_stats mine;
    double t0, cpu0;
    char *buf; /* a message being built or read */
    size_t cap;
    /* rank 0 */
    int setup_sent;
    int64_t next_tile;
    int *held;  /* tiles each rank holds (sent, results not back) */
    int *ended; /* its last TILE (-1) sent */
    int finished, stop_sent;
    int64_t from_others; /* points whose results came from the other ranks */
    pkm_ctx error;       /* the first error another rank reported */
    int error_rank;
    pkm_sweep_rank_stats *stats;
    /* the other ranks */
    char *sent[2]; /* RESULT buffers: one filled while the other is on its way */
    size_t sent_cap[2], sent_len;
    int64_t sent_count; /* poses in the one being filled */
    MPI_Request request[2];
    int turn;
} mpi_sweep;

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One look for a message (source, tag); if there is none, a nap counted as idle. */
static int look(mpi_sweep *s, int source, int tag, MPI_Status *st)
{
    int flag = 0;
    MPI_Iprobe(source, tag, s->comm, &flag, st);
    if (flag) return 1;
    const double t = pkm_sweep_now_seconds();
    const struct timespec nap = {0, MPI_SWEEP_NAP_NS};
    nanosleep(&nap, NULL);
    s->mine.wait_s += pkm_sweep_now_seconds() - t;
    return 0;
}

static int grow(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 1;
    char *b = realloc(*buf, need);
    if (b == NULL) return 0;
    *buf = b;
    *cap = need;
    return 1;
}

/* Receive the message st announced into s->buf; its length, or -1 without memory. */
static int64_t receive(mpi_sweep *s, const MPI_Status *st)
{
    int count = 0;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (!grow(&s->buf, &s->cap, (size_t)count + 1)) return -1;
    MPI_Recv(s->buf, count, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, s->comm, MPI_STATUS_IGNORE);
    return count;
}

/* The next tile, or -1 (none left, or a stop). A resumed map's tiles are handed out whatever
 * their points' state: a rank skips those already final. */
static int64_t take_tile(mpi_sweep *s)
{
    if (atomic_load(&s->stopping) || s->next_tile >= s->tiles.count) return -1;
    return s->next_tile++;
}

/* Bytes of the values of one computed OK point in a RESULT. */
static size_t point_bytes(const mpi_sweep *s)
{
    const size_t values = 3 * (size_t)s->map->nev * sizeof(double);
    return values + (s->keep ? s->per_point * (s->single ? sizeof(float) : sizeof(double)) : 0);
}

/* A RESULT into rank 0's map: the points still pending there, and the sender's error. */
static pkm_status take_result(mpi_sweep *s, int from, int64_t len, pkm_ctx *ctx)
{
    pkm_map *map = s->map;
    result_head h;
    /* Per pose: its point, its status byte, its conditioning (every status), then its values. */
    const size_t nev = (size_t)map->nev, entry = sizeof(int64_t) + 1 + sizeof(double);
    size_t at = sizeof(h);
    int ok = len >= (int64_t)sizeof(h);
    if (ok) memcpy(&h, s->buf, sizeof(h));
    for (int64_t i = 0; ok && i < h.count; i++) {
        int64_t p = -1;
        ok = at + entry <= (size_t)len;
        if (ok) memcpy(&p, s->buf + at, sizeof(p));
        const int byte = ok ? (signed char)s->buf[at + sizeof(p)] : PKM_POSE_PENDING,
                  fallback = byte >= 0 && (byte & RESULT_FALLBACK) != 0,
                  status = byte >= 0 ? byte & ~RESULT_FALLBACK : byte;
        const size_t values = status == PKM_POSE_OK ? point_bytes(s) : 0;
        ok = ok && p >= 0 && p < map->npoints && status >= PKM_POSE_OK &&
             status <= PKM_POSE_FAILED && at + entry + values <= (size_t)len;
        if (!ok || map->status[p] != PKM_POSE_PENDING) {
            at += entry + values;
            continue;
        }
        const char *v = s->buf + at + entry;
        memcpy(map->conditioning + p, s->buf + at + sizeof(p) + 1, sizeof(double));
        if (status == PKM_POSE_OK) {
            memcpy(map->freq_hz + (size_t)p * nev, v, nev * sizeof(double));
            memcpy(map->residual + (size_t)p * nev, v + nev * sizeof(double), nev * sizeof(double));
            memcpy(map->accuracy + (size_t)p * nev, v + 2 * nev * sizeof(double),
                   nev * sizeof(double));
            const char *w = v + 3 * nev * sizeof(double);
            double *dst = map->modes != NULL ? map->modes + (size_t)p * s->per_point : NULL;
            for (size_t j = 0; dst != NULL && j < s->per_point; j++) {
                float f;
                if (s->single) memcpy(&f, w + j * sizeof(float), sizeof(f));
                if (s->single) dst[j] = (double)f;
                if (!s->single) memcpy(dst + j, w + j * sizeof(double), sizeof(double));
            }
        }
        map->status[p] = (signed char)status;
        map->solver_fallbacks += fallback;
        atomic_fetch_add(&s->done, 1);
        s->from_others++;
        at += entry + values;
    }
    if (!ok || h.msg_len < 0 || at + (size_t)h.msg_len != (size_t)len)
        return PKM_FAIL(ctx, PKM_ERR_IO, "map sweep: rank %d sent a malformed result (%lld bytes)",
                        from, (long long)len);
    if (h.stopping) atomic_store(&s->stopping, 1);
    if (h.status != PKM_OK && s->error.status == PKM_OK) {
        s->error.status = (pkm_status)h.status;
        snprintf(s->error.msg, sizeof(s->error.msg), "%.*s", (int)h.msg_len, s->buf + at);
        s->error_rank = from;
        atomic_store(&s->stopping, 1);
    }
    return PKM_OK;
}

static void send_tile(mpi_sweep *s, int to, int64_t t)
{
    MPI_Send(&t, 1, MPI_INT64_T, to, TAG_TILE, s->comm);
    if (t >= 0) s->held[to]++;
    if (t < 0) s->ended[to] = 1;
}

/* Rank 0: read every message that has come, then keep each other rank MPI_SWEEP_AHEAD tiles
 * ahead, or end it (a stop, or no tile left, and its results all back). */
static pkm_status serve(void *arg, int64_t point, const pkm_modes *modes, pkm_ctx *ctx)
{
    (void)point;
    (void)modes;
    mpi_sweep *s = arg;
    pkm_status rc = PKM_OK;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->comm, &flag, &st);
        if (!flag) break;
        const int64_t len = receive(s, &st);
        if (len < 0) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: no memory for a message");
        const int from = st.MPI_SOURCE;
        if (st.MPI_TAG == TAG_RESULT) {
            s->held[from]--;
            if (rc == PKM_OK) rc = take_result(s, from, len, ctx);
        } else if (st.MPI_TAG == TAG_STATS && len == (int64_t)sizeof(pkm_sweep_rank_stats)) {
            if (s->stats != NULL) memcpy(&s->stats[from], s->buf, sizeof(pkm_sweep_rank_stats));
            s->finished++;
        } else if (rc == PKM_OK) {
            rc = PKM_FAIL(ctx, PKM_ERR_IO, "map sweep: rank %d sent an unknown message (tag %d)",
                          from, st.MPI_TAG);
        }
    }
    if (rc != PKM_OK) atomic_store(&s->stopping, 1);
    const int stopping = atomic_load(&s->stopping);
    for (int r = 1; r < s->size; r++) {
        if (s->ended[r]) continue;
        if (stopping && !s->stop_sent) MPI_Send(NULL, 0, MPI_BYTE, r, TAG_STOP, s->comm);
        int64_t t = 0;
        while (s->held[r] < MPI_SWEEP_AHEAD && (t = take_tile(s)) >= 0)
            send_tile(s, r, t);
        if (s->held[r] == 0) send_tile(s, r, -1);
    }
    if (stopping) s->stop_sent = 1;
    return rc;
}

/* Rank 0: the status of every point, the vectors' length and precision, to the other ranks; or
 * (go 0) the end of a sweep that does not start. */
static pkm_status send_setup(mpi_sweep *s, int go, pkm_ctx *ctx)
{
    const pkm_map *map = s->map;
    const setup_head h = {go, map->ncoord, map->modes != NULL, map->modes_single};
    const size_t len = sizeof(h) + (size_t)map->npoints;
    pkm_status rc = PKM_OK;
    if (go && !grow(&s->buf, &s->cap, len)) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: no memory for the setup message");
        go = 0;
    }
    if (go) {
        memcpy(s->buf, &h, sizeof(h));
        memcpy(s->buf + sizeof(h), map->status, (size_t)map->npoints);
    }
    const setup_head none = {0, 0, 0, 0};
    for (int r = 1; r < s->size; r++)
        MPI_Send(go ? (const void *)s->buf : &none, go ? (int)len : (int)sizeof(none), MPI_BYTE, r,
                 TAG_SETUP, s->comm);
    s->setup_sent = 1;
    return rc;
}

/* The executor of rank 0 (pkm_sweep_executor.run): the probe if the vectors' length is unknown,
 * the setup, then tiles computed here between the messages served, until every other rank has
 * sent its STATS. */
static pkm_status lead_run(const pkm_case *c, const void *params, pkm_map *map, pkm_sweep_ctl *ctl,
                           int *stopped, pkm_ctx *ctx)
{
    mpi_sweep *s = ctl->exec;
    s->out = (pkm_sweep_out){.status = map->status,
                             .freq_hz = map->freq_hz,
                             .residual = map->residual,
                             .accuracy = map->accuracy,
                             .conditioning = map->conditioning,
                             .modes = map->modes,
                             .ncoord = &map->ncoord,
                             .done = &s->done,
                             .stopping = &s->stopping,
                             .so = ctl->so};
    for (int64_t p = 0; p < map->npoints; p++)
        if (map->status[p] != PKM_POSE_PENDING) atomic_fetch_add(&s->done, 1);
    pkm_analysis *an = NULL;
    const int64_t before = atomic_load(&s->done);
    double t = pkm_sweep_now_seconds();
    pkm_status rc = pkm_sweep_probe(c, params, map, &s->out, ctl, &an, ctx);
    s->mine.busy_s += pkm_sweep_now_seconds() - t;
    const pkm_status sent = send_setup(s, rc == PKM_OK, ctx);
    if (rc == PKM_OK) rc = sent;
    s->out.modes = map->modes;
    s->out.poll = serve;
    s->out.poll_arg = s;
    s->single = map->modes_single;
    s->keep = map->modes != NULL;
    s->per_point = (size_t)map->nev * (size_t)map->ncoord;
    /* Without a setup the other ranks have returned: nothing to wait for. */
    s->finished = rc == PKM_OK ? 0 : s->size - 1;
    while (s->finished < s->size - 1 || rc == PKM_OK) {
        const pkm_status served = serve(s, -1, NULL, ctx);
        if (rc == PKM_OK) rc = served;
        const int64_t tile = rc == PKM_OK ? take_tile(s) : -1;
        if (tile >= 0) {
            int64_t begin, end;
            pkm_sweep_tile_range(&s->tiles, tile, &begin, &end);
            t = pkm_sweep_now_seconds();
            rc = pkm_sweep_run_tile(c, params, map, begin, end, &s->out, ctl, &an, NULL, NULL, ctx);
            s->mine.busy_s += pkm_sweep_now_seconds() - t;
            s->mine.tiles++;
            if (rc != PKM_OK) atomic_store(&s->stopping, 1);
            continue;
        }
        if (s->finished == s->size - 1) break;
        MPI_Status st;
        if (!look(s, MPI_ANY_SOURCE, MPI_ANY_TAG, &st) && rc == PKM_OK) {
            if (ctl->so->progress != NULL)
                ctl->so->progress(atomic_load(&s->done), map->npoints, ctl->so->user);
            rc = pkm_sweep_checkpoint(map, ctl, 0, ctx);
        }
        if (rc != PKM_OK) atomic_store(&s->stopping, 1);
    }
    pkm_analysis_destroy(&an);
    s->mine.poses = atomic_load(&s->done) - before - s->from_others;
    s->mine.cpu_s = cpu_seconds() - s->cpu0;
    s->mine.total_s = pkm_sweep_now_seconds() - s->t0;
    if (rc == PKM_OK && s->error.status != PKM_OK)
        rc = PKM_FAIL(ctx, s->error.status, "rank %d: %s", s->error_rank, s->error.msg);
    *stopped = atomic_load(&s->stopping);
    return rc;
}

/* The other ranks: a STOP from rank 0 ends the tile after the current pose. */
static void heed_stop(mpi_sweep *s)
{
    int flag = 0;
    MPI_Iprobe(0, TAG_STOP, s->comm, &flag, MPI_STATUS_IGNORE);
    if (flag) MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_STOP, s->comm, MPI_STATUS_IGNORE);
    if (flag) atomic_store(&s->stopping, 1);
}

/* The other ranks, after every pose: its results into the tile's message, then a look for a
 * STOP. */
static pkm_status pack(void *arg, int64_t p, const pkm_modes *md, pkm_ctx *ctx)
{
    mpi_sweep *s = arg;
    const pkm_map *map = s->map;
    const int status = map->status[p];
    const size_t nev = (size_t)map->nev, vals = nev * sizeof(double),
                 entry = sizeof(p) + 1 + sizeof(double);
    const size_t need = s->sent_len + entry + (status == PKM_POSE_OK ? point_bytes(s) : 0);
    /* The kept vectors have one length; a mechanism's pencil has one order. */
    if (status == PKM_POSE_OK && s->keep && md->n != map->ncoord)
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "map sweep: point %lld has %lld coordinates, earlier points %lld: cannot "
                        "keep its mode vectors",
                        (long long)p, (long long)md->n, (long long)map->ncoord);
    if (need > INT_MAX || !grow(&s->sent[s->turn], &s->sent_cap[s->turn], need))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: no memory for a tile's results");
    char *b = s->sent[s->turn] + s->sent_len;
    memcpy(b, &p, sizeof(p));
    b[sizeof(p)] = (char)(status | (md != NULL && md->fallback ? RESULT_FALLBACK : 0));
    memcpy(b + sizeof(p) + 1, map->conditioning + p, sizeof(double));
    b += entry;
    if (status == PKM_POSE_OK) {
        memcpy(b, map->freq_hz + (size_t)p * nev, vals);
        memcpy(b + vals, map->residual + (size_t)p * nev, vals);
        memcpy(b + 2 * vals, map->accuracy + (size_t)p * nev, vals);
        b += 3 * vals;
        /* float32 when the map rounds its vectors so (pkm_sweep_store_vectors): the same value */
        for (size_t i = 0; s->keep && i < s->per_point; i++) {
            const float f = (float)md->vectors[i];
            if (s->single) memcpy(b + i * sizeof(float), &f, sizeof(f));
            if (!s->single) memcpy(b + i * sizeof(double), md->vectors + i, sizeof(double));
        }
    }
    s->sent_len = need;
    s->sent_count++;
    s->mine.poses++;
    heed_stop(s);
    return PKM_OK;
}

/* The message of the next tile: its buffer free again (sent), its header's place. */
static void begin_result(mpi_sweep *s)
{
    MPI_Wait(&s->request[s->turn], MPI_STATUS_IGNORE);
    s->sent_len = sizeof(result_head);
    s->sent_count = 0;
}

/* The tile's message to rank 0, sent while the next tile is computed. */
static pkm_status send_result(mpi_sweep *s, pkm_status st, const pkm_ctx *wctx, pkm_ctx *ctx)
{
    const result_head h = {st, atomic_load(&s->stopping),
                           st != PKM_OK ? (int64_t)strlen(wctx->msg) : 0, s->sent_count};
    const int k = s->turn;
    const size_t len = s->sent_len + (size_t)h.msg_len;
    if (len > INT_MAX || !grow(&s->sent[k], &s->sent_cap[k], len))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: no memory for a tile's results");
    memcpy(s->sent[k], &h, sizeof(h));
    memcpy(s->sent[k] + s->sent_len, wctx->msg, (size_t)h.msg_len);
    MPI_Isend(s->sent[k], (int)len, MPI_BYTE, 0, TAG_RESULT, s->comm, &s->request[k]);
    s->turn ^= 1;
    return PKM_OK;
}

/* The other ranks' setup: the statuses, the vectors' length and precision; 0 if rank 0 ended
 * the sweep before it started. */
static int take_setup(mpi_sweep *s, pkm_ctx *ctx)
{
    pkm_map *map = s->map;
    MPI_Status st;
    while (!look(s, 0, TAG_SETUP, &st)) {
    }
    const int64_t len = receive(s, &st);
    setup_head h = {0, 0, 0, 0};
    if (len >= (int64_t)sizeof(h)) memcpy(&h, s->buf, sizeof(h));
    if (!h.go) return 0;
    if (len != (int64_t)sizeof(h) + map->npoints) {
        PKM_FAIL(ctx, PKM_ERR_IO, "map sweep: rank 0 sent %lld bytes, not a setup", (long long)len);
        return 0;
    }
    memcpy(map->status, s->buf + sizeof(h), (size_t)map->npoints);
    map->ncoord = h.ncoord;
    map->modes_single = (int)h.single;
    s->keep = (int)h.keep;
    s->single = (int)h.single;
    s->per_point = (size_t)map->nev * (size_t)map->ncoord;
    return 1;
}

/* A rank other than 0: tiles from rank 0 until its last (-1), each one's results sent back;
 * after a stop or an error, the tiles that still come are returned uncomputed. Then STATS. */
static pkm_status follow(mpi_sweep *s, const pkm_case *c, const void *params, pkm_ctx *ctx)
{
    pkm_map *map = s->map;
    if (!take_setup(s, ctx)) return ctx->status;
    s->out = (pkm_sweep_out){.status = map->status,
                             .freq_hz = map->freq_hz,
                             .residual = map->residual,
                             .accuracy = map->accuracy,
                             .conditioning = map->conditioning,
                             .ncoord = &map->ncoord,
                             .done = &s->done,
                             .stopping = &s->stopping,
                             .so = s->so,
                             .poll = pack,
                             .poll_arg = s};
    pkm_analysis *an = NULL;
    pkm_ctx wctx;
    pkm_ctx_clear(&wctx);
    pkm_status rc = PKM_OK;
    for (;;) {
        MPI_Status st;
        if (!look(s, 0, MPI_ANY_TAG, &st)) continue;
        if (st.MPI_TAG == TAG_STOP) {
            heed_stop(s);
            continue;
        }
        int64_t t = -1;
        MPI_Recv(&t, 1, MPI_INT64_T, 0, TAG_TILE, s->comm, MPI_STATUS_IGNORE);
        if (t < 0 || t >= s->tiles.count) break;
        int64_t begin, end;
        pkm_sweep_tile_range(&s->tiles, t, &begin, &end);
        begin_result(s);
        const double t0 = pkm_sweep_now_seconds();
        pkm_status st_tile = PKM_OK;
        if (rc == PKM_OK)
            st_tile = pkm_sweep_run_tile(c, params, map, begin, end, &s->out, NULL, &an, NULL, NULL,
                                         &wctx);
        s->mine.busy_s += pkm_sweep_now_seconds() - t0;
        s->mine.tiles++;
        if (st_tile != PKM_OK) atomic_store(&s->stopping, 1);
        const pkm_status sent = send_result(s, st_tile, &wctx, ctx);
        if (rc == PKM_OK) rc = st_tile != PKM_OK ? PKM_FAIL(ctx, st_tile, "%s", wctx.msg) : sent;
        if (sent != PKM_OK) atomic_store(&s->stopping, 1);
    }
    pkm_analysis_destroy(&an);
    MPI_Waitall(2, s->request, MPI_STATUSES_IGNORE);
    s->mine.cpu_s = cpu_seconds() - s->cpu0;
    s->mine.total_s = pkm_sweep_now_seconds() - s->t0;
    MPI_Send(&s->mine, (int)sizeof(s->mine), MPI_BYTE, 0, TAG_STATS, s->comm);
    return rc;
}

pkm_status pkm_map_sweep_mpi(const pkm_case *c, const void *params, pkm_map *map,
                             const pkm_sweep_opts *so, MPI_Comm comm, pkm_sweep_rank_stats *stats,
                             pkm_ctx *ctx)
{
    mpi_sweep s = {.comm = comm, .map = map, .so = so, .stats = stats};
    MPI_Comm_rank(comm, &s.rank);
    MPI_Comm_size(comm, &s.size);
    /* Every rank checks the same settings: they return the same error before any message. */
    if (map->status == NULL || so->nworkers != 1 || map->npoints > INT_MAX / 2)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "map sweep over MPI: %s (need a map from pkm_map_alloc, one worker per "
                        "rank and at most %d points)",
                        map->status == NULL ? "map arrays not allocated"
                        : so->nworkers != 1 ? "nworkers is not 1"
                                            : "too many points",
                        INT_MAX / 2);
    s.tiles = pkm_sweep_partition(map->npoints);
    s.t0 = pkm_sweep_now_seconds();
    s.cpu0 = cpu_seconds();
    s.request[0] = s.request[1] = MPI_REQUEST_NULL;
    atomic_init(&s.done, 0);
    atomic_init(&s.stopping, 0);
    pkm_ctx_clear(&s.error);
    pkm_status rc = PKM_OK;
    if (s.rank == 0) {
        s.held = calloc((size_t)s.size, sizeof(int));
        s.ended = calloc((size_t)s.size, sizeof(int));
        if (s.held == NULL || s.ended == NULL)
            rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "map sweep: no memory for %d ranks", s.size);
        static const pkm_sweep_executor lead = {"mpi", lead_run};
        if (rc == PKM_OK) rc = pkm_sweep_drive(c, params, map, so, &lead, &s, ctx);
        /* A sweep refused before its executor ran must still release the other ranks. */
        if (!s.setup_sent) send_setup(&s, 0, ctx);
        if (stats != NULL) stats[0] = s.mine;
    } else {
        rc = follow(&s, c, params, ctx);
    }
    free(s.held);
    free(s.ended);
    free(s.buf);
    free(s.sent[0]);
    free(s.sent[1]);
    return rc;
}
