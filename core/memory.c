/* core/memory.c: up-front memory checks against the machine's RAM.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A computation whose estimate exceeds the physical memory is refused before it allocates: past
 * that point it would swap for hours or be killed by the kernel (issue 8: the tree formulation
 * at 128 elements per link), losing the work with no message. */
#define _DEFAULT_SOURCE /* _SC_AVPHYS_PAGES */
#include "core_impl.h"

#include <unistd.h>

/* sysconf's page count `name` in bytes, 0 if unknown. */
static double pages_bytes(int name)
{
    const long pages = sysconf(name), size = sysconf(_SC_PAGESIZE);
    return (pages > 0 && size > 0) ? (double)pages * (double)size : 0.0;
}

double pkm_memory_bytes(void)
{
    const double bytes = pages_bytes(_SC_PHYS_PAGES);
    /* Unknown: no limit rather than a refusal of everything. */
    return bytes > 0.0 ? bytes : 1e300;
}

double pkm_memory_free_bytes(void)
{
    return pages_bytes(_SC_AVPHYS_PAGES);
}

pkm_status pkm_memory_check(double need, const char *what, const char *advice, pkm_ctx *ctx)
{
    const double ram = pkm_memory_bytes();
    if (!(need > ram)) return PKM_OK;
    return PKM_FAIL(ctx, PKM_ERR_INVALID,
                    "%s needs about %.3g GB, more than the %.3g GB of RAM; %s", what, need / 1e9,
                    ram / 1e9, advice);
}
