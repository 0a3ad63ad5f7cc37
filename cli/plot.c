/* cli/plot.c: pkmflex plot: a PNG picture of a map file, drawn by tools/pkmflex_plot.py
 * (Python, h5py + matplotlib, Debian's python3-h5py and python3-matplotlib), which this command
 * runs: a colour map or curves are matplotlib's strength, and the C library and command stay
 * free of a plotting dependency.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L

#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Where the script is: the source tree's tools/ (a build tree), then the installed copy. */
#ifndef PKM_PLOT_SOURCE
#define PKM_PLOT_SOURCE "tools/pkmflex_plot.py"
#endif
#ifndef PKM_PLOT_INSTALLED
#define PKM_PLOT_INSTALLED "/usr/local/share/pkmflex/pkmflex_plot.py"
#endif

enum { PLOT_OUTPUT = CLI_OPT_OWN, PLOT_MODE, PLOT_SIZE };

typedef struct plot_args {
    const char *input, *output, *mode, *size;
} plot_args;

static const cli_option plot_options[] = {
    {"--output", "-o", 1, PLOT_OUTPUT, "FILE.png", "the picture (PNG)", NULL},
    {"--mode", NULL, 1, PLOT_MODE, "K",
     "2-D map: f_K, the K-th lowest frequency (default 1);\n"
     "1-D map: only the mode of rank K at the first pose (default all,\n"
     "tracked through crossings)",
     NULL},
    {"--size", NULL, 1, PLOT_SIZE, "WxH", "picture size in pixels (default 900x600)", NULL},
};

static const cli_command plot_command = {
    "plot",
    "usage: pkmflex plot F.h5 -o FILE.png [--mode K] [--size WxH]\n\n"
    "Draws the frequency map F.h5 (from pkmflex map): a map over two axes as a colour\n"
    "map of f_K with the unreachable, singular and failed poses marked, a map over one\n"
    "axis as curves of the tracked modes. Runs tools/pkmflex_plot.py (installed in\n"
    "share/pkmflex) with python3, which needs Debian's python3-h5py and\n"
    "python3-matplotlib; PKMFLEX_PYTHON names another interpreter.\n\n",
    plot_options, (int)(sizeof(plot_options) / sizeof(plot_options[0])), 0};

static int plot_set(void *user, int id, const char *v)
{
    plot_args *o = user;
    int k;
    switch (id) {
    case PLOT_OUTPUT:
        o->output = v;
        return 0;
    case PLOT_MODE:
        if (!cli_parse_int(v, 1, 1 << 20, &k))
            return cli_usage_error("--mode '%s': expected a mode number from 1", v);
        o->mode = v;
        return 0;
    case PLOT_SIZE:
        o->size = v;
        return 0;
    default:
        if (o->input != NULL) return cli_usage_error("unexpected argument '%s'", v);
        o->input = v;
        return 0;
    }
}

/* The script: $PKMFLEX_PLOT_SCRIPT, the source tree's, the installed one; NULL if none. */
static const char *plot_script(void)
{
    const char *env = getenv("PKMFLEX_PLOT_SCRIPT");
    if (env != NULL && env[0] != '\0') return env;
    if (access(PKM_PLOT_SOURCE, R_OK) == 0) return PKM_PLOT_SOURCE;
    if (access(PKM_PLOT_INSTALLED, R_OK) == 0) return PKM_PLOT_INSTALLED;
    return NULL;
}

/* $PKMFLEX_PYTHON, else Debian's /usr/bin/python3 (where python3-matplotlib installs: a
 * python3 earlier on PATH, pyenv or a venv, may lack it), else python3 on PATH. */
static const char *plot_python(void)
{
    const char *env = getenv("PKMFLEX_PYTHON");
    if (env != NULL && env[0] != '\0') return env;
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

int cli_plot(int argc, char **argv)
{
    plot_args o = {0};
    int rc = cli_parse(argc, argv, &plot_command, plot_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    if (o.input == NULL || o.output == NULL)
        return cli_usage_error("plot: a map file and -o FILE.png are required");
    if ((rc = cli_check_output_path(o.output)) != 0) return rc;
    const char *script = plot_script();
    if (script == NULL) {
        fprintf(stderr, "%s: error: plot: %s not found (nor %s; PKMFLEX_PLOT_SCRIPT)\n", CLI_PROG,
                PKM_PLOT_SOURCE, PKM_PLOT_INSTALLED);
        return EXIT_COMPUTE;
    }
    const char *py = plot_python();
    const char *args[12] = {py, script, o.input, "-o", o.output};
    int n = 5;
    if (o.mode != NULL) args[n++] = "--mode", args[n++] = o.mode;
    if (o.size != NULL) args[n++] = "--size", args[n++] = o.size;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(py, (char *const *)args);
        fprintf(stderr, "%s: error: plot: cannot run %s: %s\n", CLI_PROG, py, strerror(errno));
        _exit(EXIT_COMPUTE);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        fprintf(stderr, "%s: error: plot: cannot run %s: %s\n", CLI_PROG, py, strerror(errno));
        return EXIT_COMPUTE;
    }
    /* The script's own statuses are pkmflex's (0, 2, 3); anything else (a Python traceback, a
     * signal) is a failure of the computation. */
    rc = WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_COMPUTE;
    if (rc != 0 && rc != EXIT_INPUT) rc = EXIT_COMPUTE;
    if (rc == 0) printf("# %s: written to %s\n", o.input, o.output);
    return rc;
}
