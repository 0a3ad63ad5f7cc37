/* tests/fuzz/fuzz_table.c: reference tables (io/table.c, CSV) from arbitrary bytes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The first byte picks the pose size the table must have (1 to 6); the rest is the file. */
#include "fuzz_util.h"

#include "pkm/io.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const int npose = 1 + data[0] % 6;
    char path[256];
    if (!fuzz_tempfile(data + 1, size - 1, path, sizeof(path))) return 0;
    pkm_table *tab = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (pkm_table_read(path, npose, &tab, &ctx) == PKM_OK) {
        /* What compare relies on: rows of finite poses and positive, finite frequencies or
         * NAN (an empty cell), at least one given per row. */
        if (tab == NULL || tab->nrows < 1 || tab->nfreq < 1) abort();
        for (int64_t k = 0; k < (int64_t)tab->nrows * npose; k++)
            if (!isfinite(tab->pose[k])) abort();
        for (int r = 0; r < tab->nrows; r++) {
            int given = 0;
            for (int k = 0; k < tab->nfreq; k++) {
                const double f = tab->freq[(int64_t)r * tab->nfreq + k];
                if (isnan(f)) continue;
                if (!(f > 0.0) || !isfinite(f)) abort();
                given++;
            }
            if (given == 0) abort();
        }
    } else if (tab != NULL || ctx.msg[0] == '\0') {
        abort();
    }
    pkm_table_destroy(&tab);
    unlink(path);
    return 0;
}
