/* studies/sweep_impl.h: the seam between the map sweep (sweep.c) and its executors (the serial
 * one in sweep.c, the fork one in sweep_fork.c, the MPI one in sweep_mpi.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An executor computes the PENDING points of a map and owns four things: the partition (contiguous
 * tiles of the serpentine walk over the grid, pkm_sweep_tiles and pkm_sweep_walk_point, so that a
 * worker walks neighbouring poses, as the warm-started eigensolver needs), running a tile
 * (pkm_sweep_run_tile, the same code for every executor, so a pose is computed the same way whoever
 * computes it), the gather of the results into the map's plain arrays, and the checkpoints
 * (pkm_sweep_checkpoint, with the map gathered so far). */
#ifndef PKM_SWEEP_IMPL_H
#define PKM_SWEEP_IMPL_H

#include "pkm/map.h"

#include <stdatomic.h>
#include <sys/types.h>

/* Worker processes of the fork executor, at most (its watchdog slots). */
#define PKM_SWEEP_MAX_WORKERS 256

/* What a worker process shows of itself, for the watchdog of the sweeping process. */
typedef struct pkm_sweep_slot {
    atomic_llong busy_ns;    /* CLOCK_MONOTONIC start of the pose in progress, 0 between poses */
    atomic_llong point;      /* that pose */
    atomic_llong slowest_ns; /* longest pose so far */
} pkm_sweep_slot;

/* Where the results of one pose go: the map itself, or an executor's buffers. */
typedef struct pkm_sweep_out {
    signed char *status;
    double *freq_hz, *residual, *accuracy;
    double *conditioning; /* per point */
    double *modes;        /* npoints x nev x ncoord, or NULL: vectors not kept (yet) */
    int64_t
        modes_first; /* the point whose vectors modes begins with (an MPI rank keeps a tile's) */
    int64_t *ncoord;
    atomic_llong *done;
    atomic_int *stopping; /* set when so->stop asked the sweep to stop */
    /* The warm solver's fallbacks to ARPACK are counted here (shared by worker processes), or,
     * if NULL, in the map run_tile is given (the serial executor's and MPI rank 0's map is the
     * output; another rank's tells rank 0 with each pose, sweep_mpi.c). */
    atomic_llong *fallbacks;
    const pkm_sweep_opts *so;
    pid_t parent;         /* in a worker process: the sweeping process; else 0 */
    pkm_sweep_slot *slot; /* in a worker process: its slot for the watchdog; else NULL */
    /* Called after every pose if not NULL, with its point and, if it is OK, its modes (owned by
     * the analysis): an MPI rank serves its messages there, or packs the pose's results; an
     * error stops the tile with it. */
    pkm_status (*poll)(void *arg, int64_t point, const pkm_modes *modes, pkm_ctx *ctx);
    void *poll_arg;
} pkm_sweep_out;

/* Progress and checkpoints of the sweeping process. */
typedef struct pkm_sweep_ctl {
    const pkm_sweep_opts *so;
    double next; /* time of the next checkpoint */
    void *exec;  /* the executor's own argument (the MPI executor's communicator), or NULL */
} pkm_sweep_ctl;

/* The partition: count tiles of size consecutive steps of the walk (the last one shorter), the
 * same for any number of workers or ranks. */
typedef struct pkm_sweep_tiles {
    int64_t npoints, size, count;
} pkm_sweep_tiles;

pkm_sweep_tiles pkm_sweep_partition(int64_t npoints);
/* The row-major grid point of step k of the sweep's serpentine walk (tiles are ranges of k). */
int64_t pkm_sweep_walk_point(const pkm_map *map, int64_t k);
/* How many of the walk's points before step k, from step `begin` (the tile's first) on, were
 * solved (status: per grid point, PKM_POSE_OK for a solved one; NULL: all) and lie on the
 * straight line through steps k - 1 and k at equal steps, consecutively (pkm_analysis_walk): 0
 * at begin or after an unsolved step, 1 at a turn of the serpentine and at the step after it,
 * counted up to 8. */
int pkm_sweep_walk_line(const pkm_map *map, const signed char *status, int64_t begin, int64_t k);
/* Whether step k (a turn: pkm_sweep_walk_line 1) moves as step k - 2 did, from the point of step
 * k - 3 to that of step k - 2, all three solved within the tile from `begin`: the point of step
 * k completes the parallelogram of the last three (the step after a turn of the serpentine). */
int pkm_sweep_walk_parallelogram(const pkm_map *map, const signed char *status, int64_t begin,
                                 int64_t k);
void pkm_sweep_tile_range(const pkm_sweep_tiles *t, int64_t tile, int64_t *begin, int64_t *end);

/* The pending points of [begin, end) with the analysis *an (created at the first pose, kept for
 * the next tiles; the caller destroys it); with a warm-started eigensolver, the whole tile if a
 * point of it is pending, from a cold start (sweep.c). With first_ok not NULL, stops after the
 * first OK pose, setting *first_ok (else -1) and *modes, owned by *an. ctl is NULL in a worker
 * process (no checkpoints there). PKM_OK when every point is recorded or a stop was asked, else the
 * error that stops the sweep. */
pkm_status pkm_sweep_run_tile(const pkm_case *c, const void *params, pkm_map *map, int64_t begin,
                              int64_t end, const pkm_sweep_out *out, pkm_sweep_ctl *ctl,
                              pkm_analysis **an, int64_t *first_ok, const pkm_modes **modes,
                              pkm_ctx *ctx);

/* Hand map to the checkpoint callback if one is due (force: now, whatever the interval). */
pkm_status pkm_sweep_checkpoint(pkm_map *map, pkm_sweep_ctl *ctl, int force, pkm_ctx *ctx);

/* Decide whether the mode vectors of n coordinates are kept, and allocate them if so. */
pkm_status pkm_sweep_keep_vectors(pkm_map *map, int64_t n, const pkm_sweep_opts *so, pkm_ctx *ctx);

/* Keep the nev vectors of point p (n x nev column-major, n = map->ncoord) in modes. */
void pkm_sweep_store_vectors(const pkm_map *map, double *modes, int64_t p, const double *vectors);

/* Monotonic clocks, one for every process of the machine. */
long long pkm_sweep_now_ns(void);
double pkm_sweep_now_seconds(void);

/* The executors. run: compute the pending points of map (gathered into it when it returns),
 * taking checkpoints through ctl; a stop asked by so->stop leaves points PENDING and sets
 * *stopped. */
typedef struct pkm_sweep_executor {
    const char *name;
    pkm_status (*run)(const pkm_case *c, const void *params, pkm_map *map, pkm_sweep_ctl *ctl,
                      int *stopped, pkm_ctx *ctx);
} pkm_sweep_executor;

pkm_status pkm_sweep_fork_run(const pkm_case *c, const void *params, pkm_map *map,
                              pkm_sweep_ctl *ctl, int *stopped, pkm_ctx *ctx);

/* The serial executor's way to the vectors' length: the pending points from the first, in the
 * calling process, up to the first OK one, whose vectors are then kept (if they are to be). */
pkm_status pkm_sweep_probe(const pkm_case *c, const void *params, pkm_map *map,
                           const pkm_sweep_out *out, pkm_sweep_ctl *ctl, pkm_analysis **an,
                           pkm_ctx *ctx);

/* pkm_map_sweep with the executor ex (exec: its argument, ctl->exec): the checks, the vectors'
 * precision, the executor, then the stop's checkpoint or the tracking. */
pkm_status pkm_sweep_drive(const pkm_case *c, const void *params, pkm_map *map,
                           const pkm_sweep_opts *so, const pkm_sweep_executor *ex, void *exec,
                           pkm_ctx *ctx);

#endif
