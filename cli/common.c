/* cli/common.c: the option parser and help printer of the commands, messages and exit
 * statuses, the shared options' setters, output checks (case loading: cli/caseargs.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _DEFAULT_SOURCE /* lstat */
#include "cli/cli.h"
#include "pkm/io.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", CLI_PROG);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try '%s --help')\n", CLI_PROG);
    va_end(ap);
    return EXIT_INPUT;
}

/* Exit status for a library failure: bad input or a failed computation. */
int cli_exit_status_of(pkm_status st)
{
    switch (st) {
    case PKM_ERR_INVALID:
    case PKM_ERR_MODEL:
    case PKM_ERR_UNREACHABLE:
    case PKM_ERR_PARSE:
    case PKM_ERR_IO:
        return EXIT_INPUT;
    default:
        return EXIT_COMPUTE;
    }
}

int cli_report(pkm_status st, const pkm_ctx *ctx)
{
    fprintf(stderr, "%s: error: %s\n", CLI_PROG, ctx->msg[0] ? ctx->msg : pkm_status_str(st));
    return cli_exit_status_of(st);
}

int cli_report_late(pkm_status st, const pkm_ctx *ctx)
{
    const int rc = cli_report(st, ctx);
    return st == PKM_ERR_IO ? EXIT_COMPUTE : rc;
}

int cli_output_failed(void)
{
    return ferror(stdout) != 0;
}

int cli_output_error(int errnum)
{
    fprintf(stderr, "%s: error: cannot write the output to standard output%s%s\n", CLI_PROG,
            errnum != 0 ? ": " : "", errnum != 0 ? strerror(errnum) : "");
    return EXIT_COMPUTE;
}

static int check_only;

void cli_set_check_only(int on)
{
    check_only = on;
}

int cli_check_only(void)
{
    return check_only;
}

double cli_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_show(cli_progress *pg, int64_t done, int64_t total, const char *unit)
{
    const double t = cli_now();
    if (done < total && t - pg->last < 0.1) return;
    pg->last = t;
    const double rate = done / fmax(t - pg->t0, 1e-9), frac = (double)done / (double)total;
    char bar[31];
    const int fill = (int)(30 * frac);
    for (int k = 0; k < 30; k++)
        bar[k] = (k < fill) ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r[%s] %3.0f%% %lld/%lld %s, %.0f %s/s, %.1f s left ", bar, 100.0 * frac,
            (long long)done, (long long)total, unit, rate, unit, (double)(total - done) / rate);
    if (done == total) fprintf(stderr, "\n");
}

void cli_warn_near_singular(double cond, double t, const char *drives, const char *detail)
{
    if (!(cond < PKM_NEAR_SINGULAR)) return;
    fprintf(stderr,
            "%s: warning: near-singular: the closure's conditioning with the drives %s falls to "
            "%.3g at t = %.9g s (below %g: %s)\n",
            CLI_PROG, drives, cond, t, PKM_NEAR_SINGULAR, detail);
}

void cli_estimate_tick(cli_estimate *e, int64_t step, int64_t total)
{
    const double now = cli_now();
    if (step == 0) e->t_first = now;
    if (e->done || step == 0 || now - e->t_first < CLI_ESTIMATE_TIMING_S) return;
    e->done = 1;
    const double left = (now - e->t_first) / (double)step * (double)(total - 1 - step);
    if (left < CLI_ESTIMATE_WARN_S) return;
    fprintf(stderr,
            "%s: warning: %s: %lld %s: %.3g rows x %d columns (about %.3g GB%s), estimated "
            "%.0f s more from the first %lld steps (%.3g ms each); Ctrl-C stops it keeping "
            "whole rows%s\n",
            CLI_PROG, e->what, (long long)total, e->unit, e->rows, e->cols,
            e->rows * e->bytes_per_row / 1e9, e->output != NULL ? " kept for -o" : " of csv", left,
            (long long)step, 1e3 * (now - e->t_first) / (double)step,
            e->output != NULL ? " (-o: marked partial)" : "");
}

const char *cli_formulation_name(pkm_formulation f)
{
    const pkm_formulation_type *t = pkm_formulation_type_of(f);
    return t != NULL ? t->name : "unknown";
}

/* Entry k of a type table's choices: "name" or "name (description[note])", after " or ". */
static size_t cli_choice_text(char *buf, size_t len, size_t cap, int k, const char *name,
                              const char *description, const char *note)
{
    if (len < cap) len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? " or " : "", name);
    if (description != NULL && len < cap)
        len += (size_t)snprintf(buf + len, cap - len, " (%s%s)", description, note);
    return len < cap ? len : cap - 1;
}

/* "a (description) or b (description)" of the formulation table; with names_only, "a or b". */
static size_t cli_formulation_text(char *buf, size_t cap, int names_only)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < PKM_FORMULATION_COUNT; k++)
        len = cli_choice_text(buf, len, cap, k, pkm_formulation_types[k].name,
                              names_only ? NULL : pkm_formulation_types[k].description, "");
    return len;
}

/* Break the text at spaces into lines of at most width characters. */
static void cli_wrap(char *text, size_t width)
{
    char *line = text, *space = NULL;
    for (char *p = text; *p != '\0'; p++) {
        if (*p == '\n') line = p + 1, space = NULL;
        if (*p == ' ') {
            if ((size_t)(p - line) > width && space != NULL) *space = '\n', line = space + 1;
            space = p;
        }
    }
    if (strlen(line) > width && space != NULL) *space = '\n';
}

/* The width of the help column of an option (25 to 80). */
#define CLI_HELP_WIDTH 55

void cli_formulation_help(char *buf, size_t cap)
{
    size_t len = cli_formulation_text(buf, cap, 0);
    len += (size_t)snprintf(buf + len, cap - len, "; default: the case's own (");
    for (const char *const *name = pkm_case_names(); *name != NULL && len < cap; name++) {
        void *params = NULL;
        const pkm_case *c = cli_builtin(*name, &params);
        if (c != NULL)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s: %s",
                                    name == pkm_case_names() ? "" : ", ", c->name,
                                    cli_formulation_name(c->formulation));
        pkm_case_params_destroy(&params);
    }
    if (len < cap) snprintf(buf + len, cap - len, ")");
    cli_wrap(buf, CLI_HELP_WIDTH);
}

/* "a (description) or b (description)" of the eigensolver table; with names_only, "a or b". */
static void cli_solver_text(char *buf, size_t cap, int names_only)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < PKM_EIGENSOLVER_COUNT; k++)
        len = cli_choice_text(buf, len, cap, k, pkm_eigensolver_types[k].name,
                              names_only ? NULL : pkm_eigensolver_types[k].description,
                              k == PKM_EIG_ARPACK  ? ", default but for map"
                              : k == PKM_EIG_BLOCK ? ", map's default"
                                                   : "");
}

static void cli_solver_help(char *buf, size_t cap)
{
    cli_solver_text(buf, cap, 0);
    cli_wrap(buf, CLI_HELP_WIDTH);
}

const cli_option cli_case_options[] = {
    {"--nev", NULL, 1, CLI_OPT_NEV, "N",
     "number of lowest modes (default: modes 10, map 8, compare\n"
     "the table's column count)",
     NULL},
    {"--set", NULL, 1, CLI_OPT_SET, "KEY=VALUE",
     "override a case parameter, after the case file: an SI\n"
     "number or a number and a unit (leg.A=2.4cm^2), repeatable",
     NULL},
    {"--formulation", NULL, 1, CLI_OPT_FORMULATION, "F", NULL, cli_formulation_help},
    {"--solver", NULL, 1, CLI_OPT_SOLVER, "S", NULL, cli_solver_help},
};
const int cli_ncase_options = (int)(sizeof(cli_case_options) / sizeof(cli_case_options[0]));

static void cli_print_option(const cli_option *o)
{
    char left[64], text[1024];
    snprintf(left, sizeof(left), "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "",
             o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    if (o->help_fn != NULL)
        o->help_fn(text, sizeof(text));
    else
        snprintf(text, sizeof(text), "%s", o->help);
    printf("  %-22s ", left);
    for (const char *p = text; *p != '\0'; p++) {
        putchar(*p);
        if (*p == '\n') printf("%25s", "");
    }
    putchar('\n');
}

void cli_print_case_params(const pkm_case *c)
{
    printf("# %s: the parameters (--set KEY=VALUE; in a case file, leg.A is `leg: {A: VALUE}`),\n"
           "# with their units and ranges (wide but finite; cases/units.c gives the reason of "
           "each)\n",
           c->name);
    for (int k = 0; k < c->nparams; k++) {
        const pkm_param_desc *d = &c->params[k];
        char name[64];
        snprintf(name, sizeof(name), "%s%s%s%s", d->key, d->unit[0] ? " [" : "", d->unit,
                 d->unit[0] ? "]" : "");
        if (d->range != NULL)
            printf("%-24s %s, %g to %g\n", name, d->help, d->range->min, d->range->max);
        else
            printf("%-24s %s\n", name, d->help);
    }
}

void cli_print_help(const cli_command *cmd)
{
    fputs(cmd->usage, stdout);
    for (int k = 0; k < cmd->noptions; k++)
        cli_print_option(&cmd->options[k]);
    if (!cmd->case_options) return;
    for (int k = 0; k < cli_ncase_options; k++)
        cli_print_option(&cli_case_options[k]);
    /* The tables of every case would be 250 lines here: they are the cases command's. */
    printf("\nThe keys of --set, with their units and ranges: pkmflex cases --params CASE.\n");
}

static const cli_option *cli_find(const cli_option *table, int n, const char *a)
{
    for (int k = 0; k < n; k++)
        if (strcmp(a, table[k].name) == 0 || (table[k].alias && strcmp(a, table[k].alias) == 0))
            return &table[k];
    return NULL;
}

/* "--name" is not an option of cmd: one line, with the closest option name. */
static int cli_unknown_option(const cli_command *cmd, const char *a)
{
    const char *names[2 * CLI_MAX_OPTIONS];
    int n = 0;
    for (int k = 0; k < cmd->noptions && n < CLI_MAX_OPTIONS; k++)
        names[n++] = cmd->options[k].name;
    for (int k = 0; cmd->case_options && k < cli_ncase_options && n < 2 * CLI_MAX_OPTIONS; k++)
        names[n++] = cli_case_options[k].name;
    char hint[96];
    fprintf(stderr, "%s: error: %s does not take option '%s'%s (try '%s %s --help')\n", CLI_PROG,
            cmd->name, a, cli_did_you_mean(a, names, n, hint, sizeof hint), CLI_PROG, cmd->name);
    return EXIT_INPUT;
}

int cli_parse(int argc, char **argv, const cli_command *cmd, cli_set_fn set, void *user)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli_print_help(cmd);
            return -1;
        }
        int rc;
        if (a[0] != '-') {
            if ((rc = set(user, CLI_ARG, a)) != 0) return rc;
            continue;
        }
        /* --name=value, as GNU tools take it. */
        char name[64];
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (eq != NULL) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
            a = name;
        }
        const cli_option *o = cli_find(cmd->options, cmd->noptions, a);
        if (o == NULL && cmd->case_options) o = cli_find(cli_case_options, cli_ncase_options, a);
        if (o == NULL) return cli_unknown_option(cmd, a);
        if (eq != NULL && !o->takes_value)
            return cli_usage_error("option '%s' takes no value ('%s')", a, argv[i]);
        if (o->takes_value && eq == NULL && i + 1 >= argc)
            return cli_usage_error("option '%s' needs a value", a);
        const char *v = eq != NULL ? eq + 1 : o->takes_value ? argv[++i] : NULL;
        if ((rc = set(user, o->id, v)) != 0) return rc;
    }
    return 0;
}

int cli_parse_int(const char *text, int lo, int hi, int *v)
{
    char *end = NULL;
    long x = strtol(text, &end, 10);
    if (end == text || *end != '\0' || x < lo || x > hi) return 0;
    *v = (int)x;
    return 1;
}

int cli_parse_real(const char *text, double lo, double hi, double *v)
{
    char *end = NULL;
    const double x = strtod(text, &end);
    if (end == text || *end != '\0' || !(x >= lo && x <= hi)) return 0;
    *v = x;
    return 1;
}

int cli_check_format(const char *v)
{
    if (strcmp(v, "table") == 0 || cli_format_is_rows(v)) return 0;
    return cli_usage_error("--format '%s': expected table, csv or json", v);
}

int cli_run_option(cli_run_args *a, int id, const char *v, int *rc)
{
    *rc = 0;
    switch (id) {
    case CLI_OPT_FORMAT:
        if ((*rc = cli_check_format(v)) == 0) a->format = v;
        return 1;
    case CLI_OPT_OUTPUT:
        a->output = v;
        return 1;
    case CLI_OPT_TRAJECTORY:
        a->traj = v;
        return 1;
    case CLI_OPT_TIME:
        a->time = v;
        return 1;
    case CLI_OPT_SINGULAR:
        *rc = cli_parse_singular(v, &a->singular);
        return 1;
    case CLI_OPT_FORWARD:
        a->forward = 1;
        return 1;
    case CLI_OPT_PER_TIME:
        a->per_time = 1;
        return 1;
    default:
        return 0;
    }
}

int cli_parse_singular(const char *v, double *r)
{
    if (cli_parse_real(v, 1e-12, 0.5, r)) return 0;
    return cli_usage_error("--singular '%s': expected a number from 1e-12 to 0.5", v);
}

int cli_case_set(cli_case_args *a, int id, const char *v)
{
    char choices[128];
    const pkm_formulation_type *f;
    switch (id) {
    case CLI_ARG:
        if (a->case_name != NULL) return cli_usage_error("unexpected argument '%s'", v);
        a->case_name = v;
        return 0;
    case CLI_OPT_POSE:
        a->pose_text = v;
        return 0;
    case CLI_OPT_NEV:
        if (!cli_parse_int(v, 1, 100000, &a->nev))
            return cli_usage_error("--nev '%s': expected an integer >= 1", v);
        return 0;
    case CLI_OPT_SET:
        if (a->nsets == CLI_MAX_SETS)
            return cli_usage_error("too many --set options (max %d)", CLI_MAX_SETS);
        if (strchr(v, '=') == NULL) return cli_usage_error("--set '%s': expected KEY=VALUE", v);
        a->sets[a->nsets++] = v;
        return 0;
    case CLI_OPT_FORMULATION:
        if ((f = pkm_formulation_type_find(v)) == NULL) {
            cli_formulation_text(choices, sizeof(choices), 1);
            return cli_usage_error("--formulation '%s': expected %s", v, choices);
        }
        a->form = f->id;
        a->form_given = 1;
        return 0;
    case CLI_OPT_SOLVER: {
        const pkm_eigensolver_type *t = pkm_eigensolver_type_find(v);
        if (t == NULL) {
            cli_solver_text(choices, sizeof(choices), 1);
            return cli_usage_error("--solver '%s': expected %s", v, choices);
        }
        a->eig = t->id;
        return 0;
    }
    default:
        return cli_usage_error("option id %d not handled", id);
    }
}

int cli_check_output_name(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
    fprintf(stderr, "%s: error: -o: %s is a %s, not a regular file: not replaced\n", CLI_PROG, path,
            S_ISLNK(st.st_mode)   ? "symbolic link"
            : S_ISDIR(st.st_mode) ? "directory"
                                  : "device");
    return EXIT_INPUT;
}

/* -o FILE: a name that can be replaced, in a directory that can be written (exit 2 otherwise,
 * before any computation). */
int cli_check_output_path(const char *path)
{
    const int rc = cli_check_output_name(path);
    if (rc != 0) return rc;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (access(dir, W_OK | X_OK) == 0) return 0;
    fprintf(stderr, "%s: error: -o: cannot write in %s: %s\n", CLI_PROG, dir, strerror(errno));
    return EXIT_INPUT;
}

/* -o: the rows of ntime times kept for the file need bytes: more than half the free memory is
 * exit 2 naming the size (before any computation). */
int cli_check_output_memory(double bytes, int64_t n, const char *unit, const char *hint)
{
    const double avail = pkm_map_memory_free();
    if (avail > 0.0 && bytes > 0.5 * avail)
        return cli_usage_error("-o: %lld %s need %.3g GB, more than half the free memory "
                               "(%.3g GB): %s",
                               (long long)n, unit, bytes / 1e9, avail / 1e9, hint);
    return 0;
}

int cli_match_set(pkm_match_opts *o, int is_mode, const char *v)
{
    if (!is_mode) {
        double pct;
        if (!cli_parse_real(v, 1e-6, 1e6, &pct))
            return cli_usage_error("--gap '%s': expected a percentage > 0", v);
        o->gap = pct / 100.0;
        return 0;
    }
    if (strcmp(v, "order") == 0)
        o->mode = PKM_MATCH_ORDER;
    else if (strcmp(v, "nearest") == 0)
        o->mode = PKM_MATCH_NEAREST;
    else
        return cli_usage_error("--match '%s': expected order or nearest", v);
    return 0;
}

int cli_table_rows(const pkm_table *tab, const char *path, const char *kind)
{
    if (kind == NULL) return 0;
    if (tab->kind == NULL) return cli_usage_error("--kind %s: %s has no kind column", kind, path);
    for (int r = 0; r < tab->nrows; r++)
        if (strcmp(tab->kind[r], kind) == 0) return 0;
    return cli_usage_error("--kind %s: %s has no row of that kind", kind, path);
}
