/* bench/bench.h: what the parts of map_bench share: clocks, peak memory, messages, the NaVARo
 * defaults, and running one measurement in a forked child (bench_child.c); the two parts
 * (map_part.c, size_part.c), run by main (map_bench.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_BENCH_H
#define PKM_BENCH_H

#include "bench/timing.h"
#include "pkm/assembly.h"
#include "pkm/cases.h"
#include "pkm/map.h"
#include "pkm/status.h"

#include <stddef.h>

long maxrss_kb(void); /* this process's peak RSS, kB; -1 if unknown */
void print_failure(const char *what, pkm_status st, const pkm_ctx *ctx);
const char *form_name(pkm_formulation f); /* its entry's name in pkm_formulation_types */

/* The built-in NaVARo parameters (cases/navaro.yaml); PKM_OK or the failure in ctx. */
pkm_status navaro_defaults(pkm_navaro_params *par, pkm_ctx *ctx);

typedef struct child_outcome {
    int ok;          /* the child exited 0 and sent its whole result */
    int timed_out;   /* killed by its time limit */
    int exit_code;   /* if it exited */
    int signal_no;   /* if it was killed */
    double wall_s;   /* as seen by the parent */
    size_t received; /* result bytes received */
} child_outcome;

typedef int (*child_fn)(const void *arg, void *res);

/* Run fn(arg, res) in a child with a time limit; its result (res_size bytes) comes back through
 * a pipe. The child may print; the parent flushes stdout first so nothing is printed twice.
 * 0 if the child could be run (its outcome in *out), -1 otherwise. */
int run_child(child_fn fn, const void *arg, void *res, size_t res_size, unsigned limit_s,
              child_outcome *out);
void print_child_failure(const char *what, const child_outcome *o);

/* Part 1 (map throughput, one child) and part 2 (cost against model size, one child per model);
 * 0 if they ran. quick: the smoke run's smaller grid and sizes. */
int run_map_part(int quick);
int run_size_part(int quick);
/* Part 3 (a PKM_MPI build): pkmflex map in one process and on 1, 2, 3 MPI ranks; 0 if it ran and
 * every map equals the one process's. */
int run_mpi_part(void);

/* SciPy on the pencils of the OK poses of map in formulation f (scipy_part.c): poses per second of
 * its dense eigh and sparse eigsh, timed around the solver calls only, and the largest relative
 * difference of their frequencies from the map's. 0 if it ran. */
typedef struct scipy_rates {
    double eigh, eigsh, diff_eigh, diff_eigsh;
} scipy_rates;

int map_scipy(const pkm_navaro_params *par, const pkm_map *map, pkm_formulation f,
              scipy_rates *out);

#endif
