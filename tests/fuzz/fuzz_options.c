/* tests/fuzz/fuzz_options.c: the command line's option parsing (cli/) from arbitrary arguments:
 * the input, split at NUL bytes, is argv[2..] of each command in turn.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs what a command does before it computes: the options, the case with its --set values,
 * the pose, for map the grid and the map's setup, for dynamics the friction law and the time
 * grid; never a solve or a file write. The
 * harness links the command line's library (pkm_cli, cli/CMakeLists.txt) and runs modes, compare,
 * cases, map and dynamics in its check-only mode (cli_set_check_only: each stops once its input
 * is checked). Messages go to stdout and stderr: run with -close_fd_mask=3. */
#include "fuzz_util.h" /* first: it sets _POSIX_C_SOURCE (mkstemp) */

#include "cli/cli.h"

#include <string.h>

#define FUZZ_MAX_ARGS 24

static void fuzz_commands(int argc, char **argv)
{
    cli_set_check_only(1);
    (void)cli_modes(argc, argv);
    (void)cli_compare(argc, argv);
    (void)cli_cases(argc, argv);
    (void)cli_map(argc, argv);
    /* dynamics CASE: every case, every engine */
    (void)cli_dynamics(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fuzz_cstring(data, size);
    if (buf == NULL) return 0;
    char *argv[FUZZ_MAX_ARGS + 1] = {"pkmflex", "command"};
    int argc = 2;
    for (size_t k = 0; k <= size && argc < FUZZ_MAX_ARGS; k += strlen(buf + k) + 1) {
        /* Case files are read: nothing outside the working directory (no /dev/stdin). */
        if (buf[k] == '/' || strstr(buf + k, "..") != NULL) {
            free(buf);
            return 0;
        }
        argv[argc++] = buf + k;
    }
    argv[argc] = NULL;
    fuzz_commands(argc, argv);
    free(buf);
    return 0;
}
