/* tests/fuzz/fuzz_map_reader_isolated.c: the map reader behind its process boundary
 * (pkm_map_read_h5_isolated, io/h5map_isolate.c), as the command line reads user-given files.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Whatever libhdf5 does in the child on arbitrary bytes (crash, loop, leak: see
 * tests/fuzz/CMakeLists.txt), this process must get an error or a map with the sizes its arrays
 * are indexed by, and leak nothing; the clean copy the child writes is read here through HDF5
 * too. The child's reports go to /dev/null: its memory errors inside libhdf5 are the known ones
 * this boundary contains, and the in-process reader keeps its own target. The time limit, 5 s,
 * is below libFuzzer's -timeout (10 s): a looping child is this reader's error, not a hang. */
#define FUZZ_READ_MAP(path, map, ctx) pkm_map_read_h5_isolated(path, 5.0, map, ctx)
#include "fuzz_map_reader.c"
