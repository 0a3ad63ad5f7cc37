/* bench/timing.h: what every bench program shares: the monotonic clock and the exit on a failed
 * library call (bench/timing.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_BENCH_TIMING_H
#define PKM_BENCH_TIMING_H

#include "pkm/status.h"

double now_s(void); /* monotonic clock, s */

/* Print "prog: what: the context's message" to stderr and exit with status 3 (a computation
 * failed, as the CLI's). */
void bench_die(const char *prog, const char *what, const pkm_ctx *ctx);

#endif
