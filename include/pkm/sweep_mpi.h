/* include/pkm/sweep_mpi.h: frequency maps swept by the ranks of an MPI communicator (a build
 * with PKM_MPI=ON; the library is then linked with MPI).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library keeps no MPI state: the program initialises and finalises MPI and passes the
 * communicator. */
#ifndef PKM_SWEEP_MPI_H
#define PKM_SWEEP_MPI_H

#include <mpi.h>

#include "pkm/map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one rank did during a sweep. */
typedef struct pkm_sweep_rank_stats {
    int64_t poses;  /* points this rank computed (any status) */
    int64_t tiles;  /* tiles it was given */
    double busy_s;  /* wall time computing poses */
    double wait_s;  /* wall time waiting for a message (idle) */
    double cpu_s;   /* CPU time of its process over the sweep */
    double total_s; /* wall time of its sweep, from the start to its last message */
} pkm_sweep_rank_stats;

/* pkm_map_sweep over the ranks of comm, called by every rank of comm with a map of the same
 * settings (axes, nev, base pose, formulation, eigensolver, options, keep_modes, track_bytes)
 * and arrays from pkm_map_alloc, and the same case and parameters.
 *
 * Rank 0 owns the map: its points (a resumed checkpoint's, in any state), its checkpoints
 * (so->checkpoint and so->progress are called on rank 0 only), the tracking, the result. It
 * cuts the grid into the tiles of pkm_map_sweep with as many workers as ranks and hands them out
 * in order, keeping two with each other rank (the one it computes and the next) as the ranks
 * return their results; it computes tiles itself between the messages it serves (after every
 * pose). The results, and
 * the mode vectors (float32 on the wire when the map keeps them for tracking only, which rounds
 * them so), are gathered into rank 0's map as they come: a checkpoint holds every pose returned
 * so far, and the map, its tracking included, is the one pkm_map_sweep gives bit for bit with an
 * eigensolver whose result at a pose does not depend on the poses solved before it (ARPACK,
 * dense; a warm-started solver's maps differ in the last digits, as with nworkers > 1). so->stop,
 * asked on the rank computing the pose, stops every rank after its current pose. An error on any
 * rank stops the others and is returned on rank 0 (on the other ranks PKM_OK, unless it was their
 * own). A rank that dies ends the job (MPI_ERRORS_ARE_FATAL): the last checkpoint continues it, on
 * any number of ranks or in one process.
 *
 * On the other ranks map is scratch: it holds the settings, and the results of that rank's
 * poses only. so->nworkers must be 1 (the ranks are the workers). stats: comm's size entries,
 * filled on rank 0 (may be NULL; not read on the other ranks). */
pkm_status pkm_map_sweep_mpi(const pkm_case *c, const void *params, pkm_map *map,
                             const pkm_sweep_opts *so, MPI_Comm comm, pkm_sweep_rank_stats *stats,
                             pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
