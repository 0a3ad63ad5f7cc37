/* cli/examples.c: the robot files of examples/ (docs/robot-files.md) in `pkmflex cases`.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _DEFAULT_SOURCE /* readlink, strdup */
#include "cli/cli.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The installed command finds the examples beside itself (cmake --install --prefix P puts the
 * command in P/bin and the examples in P/share/pkmflex/examples, whatever P is, so the path is
 * taken from /proc/self/exe rather than compiled in); a command run from its build tree uses the
 * source tree's. */
static int examples_dir(char *dir, size_t n)
{
    char exe[PATH_MAX];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL) *slash = '\0';
        const int w = snprintf(dir, n, "%s/../" PKM_DATADIR "/pkmflex/examples", exe);
        DIR *d = w > 0 && (size_t)w < n ? opendir(dir) : NULL;
        if (d != NULL) {
            closedir(d);
            return 0;
        }
    }
    const int w = snprintf(dir, n, "%s", PKM_EXAMPLES_SOURCE);
    return w > 0 && (size_t)w < n ? 0 : -1;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A robot file's entry, from the file read as a case (its first comment line if it does not
 * load, what it is). */
static void example_print(const char *dir, const char *name, int csv)
{
    char path[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (pkm_case_file_load(path, &c, &params, &ctx) != PKM_OK) {
        if (csv)
            cli_cases_row(
                (const char *const[8]){name, "robot file", "", "", "", "", ctx.msg, path});
        else
            printf("%s: does not load: %s\n", path, ctx.msg);
        return;
    }
    if (csv)
        cli_case_row(c, params, name, "robot file", path);
    else
        cli_case_print(c, params, name, path);
    pkm_case_params_destroy(&params);
}

void cli_examples_list(int csv)
{
    char dir[PATH_MAX];
    if (examples_dir(dir, sizeof dir) != 0) return;
    DIR *d = opendir(dir);
    if (d == NULL) return;
    char *names[64];
    int n = 0;
    for (struct dirent *e; n < 64 && (e = readdir(d)) != NULL;) {
        const size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0) {
            names[n] = strdup(e->d_name);
            if (names[n] != NULL) n++;
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], name_cmp);
    if (n > 0 && !csv) printf("robot files (docs/robot-files.md), in %s:\n", dir);
    for (int k = 0; k < n; k++) {
        example_print(dir, names[k], csv);
        free(names[k]);
    }
}
