/* tests/fuzz/fuzz_map_reader.c: the HDF5 map reader (io/h5map_read.c) on arbitrary file bytes,
 * written to a temporary file (HDF5 reads paths).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The seeds are small maps written by pkmflex, so that mutations reach past the superblock. A
 * map read must have the sizes its arrays are indexed by. HDF5's error stack goes to stderr:
 * run with -close_fd_mask=2. */
#include "fuzz_util.h"

#include "pkm/io.h"
#include "pkm/map.h"

/* The reader fuzzed: fuzz_map_reader_isolated.c defines it as the one behind a fork. */
#ifndef FUZZ_READ_MAP
#define FUZZ_READ_MAP(path, map, ctx) pkm_map_read_h5(path, map, ctx)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[256];
    if (!fuzz_tempfile(data, size, path, sizeof(path))) return 0;
    pkm_map map;
    memset(&map, 0, sizeof(map));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (FUZZ_READ_MAP(path, &map, &ctx) == PKM_OK) {
        if (map.npoints < 1 || map.nev < 1 || map.status == NULL || map.freq_hz == NULL) abort();
        int64_t n = 1;
        for (int a = 0; a < map.naxes; a++)
            n *= map.axes[a].count;
        if (n != map.npoints) abort();
    }
    pkm_map_free(&map);
    unlink(path);
    return 0;
}
