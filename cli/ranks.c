/* cli/ranks.c: the ranks of `pkmflex map` under mpirun. MPI is started and ended here, not in
 * the library (which is handed MPI_COMM_WORLD), and only when the program was launched by
 * mpirun (its environment says so): `pkmflex map` alone stays one process, whose --threads are
 * forked workers. Without PKM_MPI every run is one rank of one.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef _DEFAULT_SOURCE /* tests/fuzz/fuzz_options.c defines it before including this file */
#define _DEFAULT_SOURCE /* nanosleep */
#endif

#include "cli/cli.h"

#include "pkm/map.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef PKM_MPI
#include "pkm/sweep_mpi.h"

#include <time.h>

/* Launched by mpirun: Open MPI's variable, or the PMI / PMIx ones other launchers set. */
static int under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL ||
           getenv("PMIX_RANK") != NULL;
}

int cli_ranks_start(cli_ranks *r)
{
    *r = (cli_ranks){.rank = 0, .size = 1};
    if (!under_mpirun()) return 0;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "%s: error: mpirun: MPI cannot start\n", CLI_PROG);
        return EXIT_COMPUTE;
    }
    r->mpi = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    if (r->rank > 0) {
        /* Not checked: a rank that cannot be silenced prints what rank 0 prints. */
        const FILE *out = freopen("/dev/null", "w", stdout),
                   *err = freopen("/dev/null", "w", stderr);
        (void)out;
        (void)err;
    }
    return 0;
}

/* The other ranks wait for rank 0 (reading a checkpoint, taking the lock) asleep, not spinning
 * in MPI_Bcast, so that an oversubscribed rank 0 keeps its core. */
int cli_ranks_agree(const cli_ranks *r, int rc)
{
    if (!r->mpi) return rc;
    MPI_Request req;
    MPI_Ibcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    for (int done = 0;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) return rc;
        const struct timespec nap = {0, 1000000L};
        nanosleep(&nap, NULL);
    }
}

pkm_status cli_ranks_sweep(cli_ranks *r, const pkm_case *c, const void *params, pkm_map *map,
                           const pkm_sweep_opts *so, pkm_ctx *ctx)
{
    if (!r->mpi) return pkm_map_sweep(c, params, map, so, ctx);
    if (r->rank == 0) r->stats = calloc((size_t)r->size, sizeof(pkm_sweep_rank_stats));
    return pkm_map_sweep_mpi(c, params, map, so, MPI_COMM_WORLD, r->stats, ctx);
}

void cli_ranks_print(const cli_ranks *r)
{
    const pkm_sweep_rank_stats *st = r->stats;
    for (int k = 0; st != NULL && k < r->size; k++)
        printf("# rank %d: %lld poses in %lld tiles, %.3f s computing, %.3f s waiting, %.3f s "
               "CPU of %.3f s\n",
               k, (long long)st[k].poses, (long long)st[k].tiles, st[k].busy_s, st[k].wait_s,
               st[k].cpu_s, st[k].total_s);
}

void cli_ranks_end(cli_ranks *r)
{
    free(r->stats);
    r->stats = NULL;
    if (r->mpi) MPI_Finalize();
    r->mpi = 0;
}

#else

int cli_ranks_start(cli_ranks *r)
{
    *r = (cli_ranks){.rank = 0, .size = 1};
    return 0;
}

int cli_ranks_agree(const cli_ranks *r, int rc)
{
    (void)r;
    return rc;
}

pkm_status cli_ranks_sweep(cli_ranks *r, const pkm_case *c, const void *params, pkm_map *map,
                           const pkm_sweep_opts *so, pkm_ctx *ctx)
{
    (void)r;
    return pkm_map_sweep(c, params, map, so, ctx);
}

void cli_ranks_print(const cli_ranks *r)
{
    (void)r;
}

void cli_ranks_end(cli_ranks *r)
{
    (void)r;
}

#endif
