/* tests/fuzz/fuzz_map_reader_isolated.c: the map reader behind its process boundary
 * (pkm_map_read_h5_isolated, io/h5map_isolate.c), as the command line reads user-given files.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Whatever libhdf5 does in the child on arbitrary bytes (crash, loop, leak: see
 * fuzz_map_reader.c), this process must get an error or a map with the sizes its arrays are
 * indexed by, and leak nothing; the clean copy the child writes is read here through HDF5 too.
 * The child's reports go to /dev/null: its memory errors inside libhdf5 are the known ones this
 * boundary contains, and the in-process reader keeps its own target. */
#include "fuzz_util.h"

#include "pkm/io.h"
#include "pkm/map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[256];
    if (!fuzz_tempfile(data, size, path, sizeof(path))) return 0;
    pkm_map map;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    /* Below libFuzzer's -timeout (10 s): a looping child is this reader's error, not a hang. */
    if (pkm_map_read_h5_isolated(path, 5.0, &map, &ctx) == PKM_OK) {
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
