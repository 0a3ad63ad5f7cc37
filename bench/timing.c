/* bench/timing.c: the bench programs' clock and failure exit (bench/timing.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bench/timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void bench_die(const char *prog, const char *what, const pkm_ctx *ctx)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, ctx->msg);
    exit(3);
}
