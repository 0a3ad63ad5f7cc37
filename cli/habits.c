/* cli/habits.c: what users of command-line tools expect of them: "did you mean" for a mistyped
 * command, option, case or parameter key, and quantities with units ("30 deg", "10 mm") in the
 * lists of --pose and --grid, as case files and --set take them; a long computation that Ctrl-C
 * stops cleanly, saying what was saved and how to go on.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strnlen, sigaction */
#endif

#include "cli/cli.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define NAME_MAX_LEN 64

/* Levenshtein distance of a and b, case-insensitive (names are short: at most NAME_MAX_LEN
 * characters are compared). */
static int edit_distance(const char *a, const char *b)
{
    int row[NAME_MAX_LEN + 1];
    const int la = (int)strnlen(a, NAME_MAX_LEN), lb = (int)strnlen(b, NAME_MAX_LEN);
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            const int up = row[j],
                      same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int best = diag + !same;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *cli_suggest(const char *word, const char *const *names, int n)
{
    const size_t len = strlen(word);
    const char *best = NULL;
    /* Two edits (a swap of neighbours: "mdoes") from a word of 4 letters or more. */
    int best_d = len < 4 ? 1 : (int)(len / 3) > 2 ? (int)(len / 3) : 2;
    for (int k = 0; k < n; k++) {
        if (names[k] == NULL) continue;
        /* A name the word begins (--desc for --describe) is as good as one typo away. */
        const int d =
            len >= 3 && strncmp(names[k], word, len) == 0 ? 1 : edit_distance(word, names[k]);
        if (d <= best_d && (best == NULL || d < best_d)) best = names[k], best_d = d;
    }
    return best;
}

const char *cli_did_you_mean(const char *word, const char *const *names, int n, char *buf,
                             size_t cap)
{
    const char *s = cli_suggest(word, names, n);
    if (s == NULL) return "";
    snprintf(buf, cap, " (did you mean '%s'?)", s);
    return buf;
}

int cli_parse_quantity_span(const char *s, size_t len, const char *unit, double *v)
{
    char buf[NAME_MAX_LEN];
    while (len > 0 && isspace((unsigned char)*s))
        s++, len--;
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    return pkm_quantity_parse(buf, unit, v, &ctx) == PKM_OK;
}

int cli_parse_pose(const char *text, int n, const char *const *units, double *pose)
{
    const char *p = text;
    for (int k = 0; k < n; k++) {
        const char *end = k + 1 < n ? strchr(p, ',') : p + strlen(p);
        if (end == NULL || !cli_parse_quantity_span(p, (size_t)(end - p), units[k], &pose[k]))
            return 0;
        p = end + (k + 1 < n);
    }
    return 1;
}

/* Ctrl-C during a long computation: the first SIGINT sets the flag that the computation polls
 * (pkm_sweep_opts.stop), a second one ends the process as usual (SA_RESETHAND). */
static volatile sig_atomic_t interrupted;
static struct sigaction saved_sigint;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

void cli_interrupt_begin(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &saved_sigint);
}

int cli_interrupted(void)
{
    return interrupted != 0;
}

void cli_interrupt_end(void)
{
    sigaction(SIGINT, &saved_sigint, NULL);
}

void cli_print_resume(int argc, char **argv, const char *saved, int64_t done, int64_t total)
{
    fprintf(stderr, "%s: interrupted: %lld of %lld poses computed, saved in %s; resume with:\n  %s",
            CLI_PROG, (long long)done, (long long)total, saved, CLI_PROG);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--resume") == 0) continue;
        /* Quoted where the shell would split or expand it. */
        const int quote = argv[i][strcspn(argv[i], " \t'\"$*?[]{}()<>|&;\\`~#")] != '\0';
        fprintf(stderr, quote ? " '%s'" : " %s", argv[i]);
    }
    fprintf(stderr, " --resume\n");
}
