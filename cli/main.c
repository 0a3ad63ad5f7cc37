/* cli/main.c: the pkmflex command line: dispatch to the commands (one file each in cli/).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exit status: 0 success; 1 `compare` found a frequency outside the tolerance; 2 bad input
 * (usage, unknown case or option, malformed pose or table, unreachable pose, invalid parameter);
 * 3 the computation failed (singular pencil, eigensolver failure, failed accuracy check), or its
 * output could not be written (a full disk); 130 interrupted by Ctrl-C (what was done kept). */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef PKM_VERSION_STRING
#define PKM_VERSION_STRING "unknown"
#endif
#ifndef PKM_COMMIT
#define PKM_COMMIT "unknown"
#endif

static void print_main_help(void)
{
    printf("pkmflex %s: elastodynamics of parallel robots (beam finite elements, loop\n"
           "closure by leg-variable Jacobian elimination, ARPACK + CHOLMOD, Newmark): natural\n"
           "frequencies and maps of them over the workspace, rigid-body and elastic dynamics\n"
           "along a trajectory, and the calibration of a model against measured frequencies.\n\n"
           "usage: pkmflex <command> [options]\n\n"
           "frequencies:\n"
           "  modes CASE --pose ...      natural frequencies at one pose\n"
           "  map CASE --grid ... -o F   frequency map over a grid of poses, to HDF5\n"
           "  compare CASE --table FILE  compare with a reference table (e.g. Cast3M)\n"
           "  compare F --against R      compare two map files (HDF5) mode by mode\n"
           "time domain (along a trajectory):\n"
           "  dynamics CASE [...]        rigid-body inverse dynamics: drives, friction and joint\n"
           "                             reactions (--forward: forward dynamics)\n"
           "  transient CASE [...]       elastodynamics (Newmark): the platform's elastic error\n"
           "                             and the drives over time\n"
           "calibration:\n"
           "  fit CASE --table FILE --param KEY ...\n"
           "                             fit case parameters to a table of frequencies\n"
           "cases and files:\n"
           "  cases [--show NAME]        list the built-in robots, or print the case file of one\n"
           "  cases --params CASE        the parameters of a case (--set), units and ranges\n"
           "  export F --vtk FILE        a map file for ParaView (VTKHDF)\n"
           "  plot F -o FILE.png         a picture of a map file (colour map or curves)\n\n"
           "CASE is a built-in name (",
           PKM_VERSION_STRING);
    for (const char *const *name = pkm_case_names(); *name != NULL; name++)
        printf("%s%s", name == pkm_case_names() ? "" : ", ", *name);
    printf(
        "),\na case file (a path containing '/' or ending in .yaml or .yml) whose `case:` names\n"
        "a built-in topology and whose `parameters:` set its numbers ('pkmflex cases --show\n"
        "navaro' prints a complete one to copy), or a robot file whose `robot:` describes a\n"
        "mechanism of its own (examples/*.yaml, docs/robot-files.md).\n"
        "Units: input is SI (m, rad, Pa, kg/m^3), or a number and a unit in case files,\n"
        "--set, --pose and --grid (210 mm, 74 GPa, \"30 deg\"); frequencies are printed in Hz.\n"
        "Options take a value as the next argument or after '=' (--nev=6).\n"
        "Run 'pkmflex <command> --help' for the options of a command.\n"
        "Exit status: 0 ok, 1 compare out of tolerance, 2 bad input, 3 computation failed\n"
        "or output not written, 130 interrupted (Ctrl-C: what was done is kept).\n");
}

/* The command's output, checked once for all of them: stdout is buffered, so a full disk or a
 * closed file shows only when the buffer is written, possibly at exit, where the C library would
 * drop the error. A failed write is exit 3 and one line, not exit 0 with the output cut. */
static int finish_output(int rc)
{
    errno = 0;
    const int flushed = fflush(stdout) == 0;
    const int err = errno;
    if (flushed && !ferror(stdout) && fclose(stdout) == 0) return rc;
    cli_output_error(flushed ? errno : err);
    return rc == 0 || rc == EXIT_TOL ? EXIT_COMPUTE : rc;
}

static int run(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } commands[] = {{"modes", cli_modes}, {"compare", cli_compare},   {"map", cli_map},
                    {"cases", cli_cases}, {"dynamics", cli_dynamics}, {"transient", cli_transient},
                    {"fit", cli_fit},     {"export", cli_export},     {"plot", cli_plot}};
    if (argc < 2) return cli_usage_error("no command given; usage: pkmflex <command> [options]");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        print_main_help();
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("pkmflex %s (commit %s)\n", PKM_VERSION_STRING, PKM_COMMIT);
        return 0;
    }
    for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
        if (strcmp(cmd, commands[k].name) != 0) continue;
        /* --format json: the command's csv, converted (cli/json.c). */
        const int json = cli_wants_json(argc, argv);
        int rc = json ? cli_json_begin() : 0;
        if (rc == 0) rc = commands[k].run(argc, argv);
        /* compare's rows out of tolerance too, and the whole rows of an interrupted run */
        if (json) cli_json_end(rc == 0 || rc == EXIT_TOL || rc == EXIT_INTERRUPT);
        return rc;
    }
    char hint[64];
    if (cmd[0] == '-') { /* an option before any command: one of the top-level ones */
        static const char *const options[] = {"--help", "--version"};
        return cli_usage_error("unknown option '%s'%s", cmd,
                               cli_did_you_mean(cmd, options, 2, hint, sizeof hint));
    }
    const char *names[sizeof(commands) / sizeof(commands[0])];
    for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
        names[k] = commands[k].name;
    return cli_usage_error(
        "unknown command '%s'%s", cmd,
        cli_did_you_mean(cmd, names, (int)(sizeof(names) / sizeof(names[0])), hint, sizeof hint));
}

int main(int argc, char **argv)
{
    return finish_output(run(argc, argv));
}
