/* tests/fuzz/fuzz_options.c: the command line's option parsing (cli/main.c) from arbitrary
 * arguments: the input, split at NUL bytes, is argv[2..] of a subcommand.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs what a command does before it computes: the options, the case with its --set values,
 * the pose, and for map the grid and the map's setup; never a solve or a file write. The CLI's
 * own static functions are reached by including its source with its main renamed. Its messages
 * go to stdout and stderr: run with -close_fd_mask=3. */
#define main pkm_cli_main
int pkm_cli_main(int argc, char **argv);
#include "cli/main.c"
#undef main

#include "fuzz_util.h"

#define FUZZ_MAX_ARGS 24

static void no_help(void) {}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fuzz_cstring(data, size);
    if (buf == NULL) return 0;
    char *argv[FUZZ_MAX_ARGS + 1] = {"pkmflex", "map"};
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
    const pkm_track_opts tdef = pkm_track_opts_default();
    options o = {.nev = 8,
                 .format = "table",
                 .threads = 1,
                 .checkpoint_s = 5.0,
                 .mac_threshold = tdef.mac_threshold,
                 .cluster_tol = tdef.cluster_tol};
    const pkm_case *c = NULL;
    void *params = NULL;
    if (parse_options(argc, argv, &o, no_help) == 0 && load_case(&o, &c, &params) == 0) {
        double pose[16];
        if (o.pose_text != NULL) (void)parse_pose(o.pose_text, c->npose, pose);
        if (o.grid != NULL) {
            pkm_map map;
            (void)map_setup(&o, c, params, &map);
            pkm_map_free(&map);
        }
    }
    pkm_case_params_destroy(&params);
    free(buf);
    return 0;
}
