/* tests/fuzz/fuzz_units.c: quantities with units (cases/units.c) from arbitrary text.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The first byte picks the SI unit the text must have (every unit a table may declare, and one
 * that is not); the rest is the text. A parsed value is finite; a failure leaves it alone. */
#include "fuzz_util.h"

#include "pkm/cases.h"

#include <math.h>

static const char *const si_units[] = {"m",      "m^2", "m^4", "Pa",      "kg", "kg/m^3",
                                       "kg m^2", "rad", "N/m", "N m/rad", "",   "furlong"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const char *unit = si_units[data[0] % (sizeof(si_units) / sizeof(si_units[0]))];
    char *text = fuzz_cstring(data + 1, size - 1);
    if (text == NULL) return 0;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double v = 42.0;
    if (pkm_quantity_parse(text, unit, &v, &ctx) == PKM_OK) {
        if (!isfinite(v)) abort();
    } else if (v != 42.0 || ctx.msg[0] == '\0') {
        abort();
    }
    free(text);
    return 0;
}
