/* bench/map_bench.c: NaVARo map throughput and cost against model size, measured side by side.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Part 1: poses per second of the map pipeline (inverse kinematics, assembly, 8 modes) over a
 * grid of poses for tree and nodal formulations, each with ARPACK, with the warm-started block
 * solver and with the dense LAPACK baseline (dsygvx, the same 8 modes of the same matrices), 1
 * and 2 worker processes, with
 * their ratios and the time split of one pose. Part 2: one pose, elements_per_link k = 1 ... 1024:
 * coordinates, assembly and solve times, peak memory, the first 10 frequencies and their
 * convergence. Every measurement runs in a forked child (own peak memory, a time limit, no state
 * shared between measurements); the parent only schedules and prints. Ratios, never assertions. */
#define _POSIX_C_SOURCE 200809L

#include "bench/bench.h"

#include <stdio.h>
#include <string.h>

/* Part 3 needs the MPI build (bench/CMakeLists.txt). */
#ifndef PKM_BENCH_MPI
#define PKM_BENCH_MPI 0
#endif

static void usage(FILE *f, const char *argv0)
{
    fprintf(f,
            "usage: %s [--quick] [--map-only | --size-only | --mpi-only]\n"
            "  NaVARo map throughput (tree/nodal + ARPACK, block, dense LAPACK) and cost\n"
            "  against model size (elements_per_link k = 1 ... 1024).\n"
            "  --quick      10x10 grid and k <= 64 (smoke run)\n"
            "  --map-only   part 1 only (map throughput; e.g. under perf record)\n"
            "  --size-only  part 2 only (cost against model size)\n"
            "  --mpi-only   part 3 only (pkmflex map on 1, 2, 3 MPI ranks; a PKM_MPI build)\n",
            argv0);
}

int main(int argc, char **argv)
{
    int quick = 0, map_part = 1, size_part = 1, mpi_part = PKM_BENCH_MPI;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--map-only") == 0) {
            size_part = mpi_part = 0;
        } else if (strcmp(argv[i], "--size-only") == 0) {
            map_part = mpi_part = 0;
        } else if (strcmp(argv[i], "--mpi-only") == 0 && PKM_BENCH_MPI) {
            map_part = size_part = 0;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout, argv[0]);
            return 0;
        } else {
            usage(stderr, argv[0]);
            return 2;
        }
    }
    if (!map_part && !size_part && !mpi_part) {
        usage(stderr, argv[0]);
        return 2;
    }
    printf("map_bench%s: NaVARo, parent peak RSS before any measurement %ld kB\n",
           quick ? " --quick" : "", maxrss_kb());
    int status = 0;
    if (map_part && run_map_part(quick) != 0) status = 1;
    if (size_part && run_size_part(quick) != 0) status = 1;
#if PKM_BENCH_MPI
    if (mpi_part && run_mpi_part() != 0) status = 1;
#endif
    return status;
}
