/* tests/fuzz/fuzz_options.c: the command line's option parsing (cli/) from arbitrary arguments:
 * the input, split at NUL bytes, is argv[2..] of each command in turn, parsed against that
 * command's option table.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs what a command does before it computes: the options, the case with its --set values,
 * the pose, for map the grid and the map's setup, for dynamics the friction law and the time
 * grid (for its module chains the options and the time grid; for masticatory the options, the
 * --set values and the time grid); never a solve or a file write. The
 * commands' static functions are reached by including their sources (cli/main.c, the
 * dispatcher, is not needed). Their messages go to stdout and stderr: run with
 * -close_fd_mask=3. */
#define _DEFAULT_SOURCE /* before any system header: cli/map.c needs flock */
#include "cli/cases.c"
#include "cli/chain.c"
#include "cli/common.c"
#include "cli/compare.c"
#include "cli/describe.c"
#include "cli/dynamics.c"
#include "cli/dynamics_forward.c"
#define PKM_EXAMPLES_SOURCE "examples" /* cli/CMakeLists.txt sets these for pkmflex */
#define PKM_DATADIR         "share"
#include "cli/examples.c"
#include "cli/habits.c"
#include "cli/json.c"
#include "cli/map.c"
#include "cli/masticatory.c"
#include "cli/modes.c"
#include "cli/ranks.c"

#include "fuzz_util.h"

#define FUZZ_MAX_ARGS 24

/* The case named by a, and its pose if --pose was given (a parse, not a solve). */
static void fuzz_case(cli_case_args *a, const pkm_case **c, void **params)
{
    if (cli_load_case(a, c, params) != 0) return;
    double pose[PKM_POSE_MAX];
    if (a->pose_text != NULL)
        (void)cli_parse_pose(a->pose_text, (*c)->npose, (*c)->pose_units, pose);
}

static void fuzz_commands(int argc, char **argv)
{
    const pkm_case *c = NULL;
    void *params = NULL;
    modes_args mo = {.c = {.nev = 10}, .format = "table"};
    if (cli_parse(argc, argv, &modes_command, modes_set, &mo) == 0) fuzz_case(&mo.c, &c, &params);
    pkm_case_params_destroy(&params);
    compare_args co = {.tol_pct = 0.05};
    if (cli_parse(argc, argv, &compare_command, compare_set, &co) == 0)
        fuzz_case(&co.c, &c, &params);
    pkm_case_params_destroy(&params);
    cases_args cas = {0};
    (void)cli_parse(argc, argv, &cases_command, cases_set, &cas);
    const pkm_track_opts tdef = pkm_track_opts_default();
    map_args o = {.c = {.nev = 8},
                  .threads = 1,
                  .checkpoint_s = 5.0,
                  .mac_threshold = tdef.mac_threshold,
                  .cluster_tol = tdef.cluster_tol};
    if (cli_parse(argc, argv, &map_command, map_set, &o) == 0 &&
        cli_load_case(&o.c, &c, &params) == 0 && o.grid != NULL) {
        pkm_map map;
        (void)map_setup(&o, c, params, &map);
        pkm_map_free(&map);
    }
    pkm_case_params_destroy(&params);
    /* dynamics: its options, the case, the friction law and the time grid (no trajectory file,
     * model or solve). */
    dyn_args d = {.format = "table", .singular = PKM_DYN_SINGULAR};
    double t0, t1;
    int n;
    if (cli_parse(argc, argv, &dyn_command, dyn_set, &d) == 0 &&
        cli_load_case(&d.c, &c, &params) == 0 && dyn_friction_law(&d, c, params) == 0 &&
        d.time != NULL)
        (void)cli_parse_times(d.time, DYN_MAX_TIMES, &t0, &t1, &n);
    pkm_case_params_destroy(&params);
    chain_args ca = {.step = 1e-3};
    chain_run cr = {.nt = 101};
    if (cli_parse(argc, argv, &chain_command, chain_set, &ca) == 0 && ca.time != NULL)
        (void)cli_parse_times(ca.time, CHAIN_MAX_TIMES, &cr.t0, &cr.t1, &cr.nt);
    mast_args ma = {0};
    if (cli_parse(argc, argv, &mast_command, mast_set, &ma) == 0) {
        void *mp = NULL;
        if (mast_params(&ma, &mp) == 0) pkm_case_params_destroy(&mp);
        if (ma.time != NULL) (void)cli_parse_times(ma.time, MAST_MAX_TIMES, &t0, &t1, &n);
    }
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
