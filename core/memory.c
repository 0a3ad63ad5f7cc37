/* core/memory.c: up-front memory checks against the machine's RAM.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A computation whose estimate exceeds the physical memory is refused before it allocates: past
 * that point it would swap for hours or be killed by the kernel (issue 8: the tree formulation
 * at 128 elements per link), losing the work with no message. */
#define _POSIX_C_SOURCE 200809L
#include "core_impl.h"

#include <unistd.h>

double pkm_memory_bytes(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    /* Unknown: no limit rather than a refusal of everything. */
    if (pages <= 0 || size <= 0) return 1e300;
    return (double)pages * (double)size;
}

pkm_status pkm_memory_check(double need, const char *what, const char *advice, pkm_ctx *ctx)
{
    const double ram = pkm_memory_bytes();
    if (!(need > ram)) return PKM_OK;
    return PKM_FAIL(ctx, PKM_ERR_INVALID,
                    "%s needs about %.3g GB, more than the %.3g GB of RAM; %s", what, need / 1e9,
                    ram / 1e9, advice);
}
