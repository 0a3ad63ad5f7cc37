/* cli/caseargs.c: a command's case (built-in or robot file) loaded with its --set values, what
 * the case supports, the time grid T0:T1:N, and the trajectory of a time-domain run (a named
 * one, harmonic:..., or a CSV file).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_is_case_file(const char *arg)
{
    const size_t n = strlen(arg);
    return strchr(arg, '/') != NULL || (n > 5 && strcmp(arg + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(arg + n - 4, ".yml") == 0);
}

/* The built-in case of that name (pkm_case_open with the --set of a), or a one-line error
 * listing the built-ins. */
static int cli_find_case(const cli_case_args *a, int *applied, const pkm_case **c, void **params,
                         pkm_ctx *ctx)
{
    const char *const *known = pkm_case_names();
    int n = 0;
    while (known[n] != NULL)
        n++;
    for (int k = 0; k < n; k++)
        if (strcmp(known[k], a->case_name) == 0) {
            const pkm_status st =
                pkm_case_open(a->case_name, a->sets, a->nsets, applied, c, params, ctx);
            return st == PKM_OK ? 0 : cli_report(st, ctx);
        }
    char hint[96];
    fprintf(stderr, "%s: error: unknown case '%s'%s; built-in cases:", CLI_PROG, a->case_name,
            cli_did_you_mean(a->case_name, known, n, hint, sizeof hint));
    for (int k = 0; k < n; k++)
        fprintf(stderr, " %s", known[k]);
    fprintf(stderr, " (or a case file: a path with '/' or ending in .yaml)\n");
    return EXIT_INPUT;
}

const pkm_case *cli_builtin(const char *name, void **params)
{
    const pkm_case *c = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    return pkm_case_open(name, NULL, 0, NULL, &c, params, &ctx) == PKM_OK ? c : NULL;
}

/* --set KEY=...: KEY is not a parameter of c: one line, with the closest key. */
static int cli_unknown_key(const pkm_case *c, const char *key)
{
    const char *names[256];
    int n = 0;
    for (int k = 0; k < c->nparams && n < 256; k++)
        names[n++] = c->params[k].key;
    char hint[128];
    return cli_usage_error("--set: %s has no parameter '%s'%s", c->name, key,
                           cli_did_you_mean(key, names, n, hint, sizeof hint));
}

/* Each KEY=VALUE of sets applied to params of case c (pkm_case_param_set); 0 or an exit status
 * after its one-line message. */
static int cli_apply_sets(const pkm_case *c, void *params, const char *const *sets, int nsets)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int i = 0; i < nsets; i++) {
        char key[128];
        const char *eq = strchr(sets[i], '=');
        const size_t len = eq != NULL ? (size_t)(eq - sets[i]) : 0;
        if (len == 0 || len >= sizeof(key)) return cli_usage_error("--set '%s': bad key", sets[i]);
        memcpy(key, sets[i], len);
        key[len] = '\0';
        if (pkm_case_param_find(c, key) == NULL) return cli_unknown_key(c, key);
        const pkm_status st = pkm_case_param_set(c, params, key, eq + 1, &ctx);
        if (st != PKM_OK) return cli_report(st, &ctx);
    }
    return 0;
}

int cli_load_case(cli_case_args *a, const pkm_case **c, void **params)
{
    *params = NULL;
    if (a->case_name == NULL) return cli_usage_error("no CASE given");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    /* A robot file (a path, or a built-in such as tree5) takes the --set that name its own values
     * into its document; the rest go to the case's parameter table. */
    int applied[CLI_MAX_SETS] = {0};
    if (cli_is_case_file(a->case_name)) {
        const pkm_status st =
            pkm_case_file_load_set(a->case_name, a->sets, a->nsets, applied, c, params, &ctx);
        if (st != PKM_OK) return cli_report(st, &ctx);
    } else {
        const int rc = cli_find_case(a, applied, c, params, &ctx);
        if (rc != 0) return rc;
    }
    if (!a->form_given) a->form = (*c)->formulation;
    const char *rest[CLI_MAX_SETS];
    int nrest = 0;
    for (int i = 0; i < a->nsets; i++)
        if (!applied[i]) rest[nrest++] = a->sets[i];
    return cli_apply_sets(*c, *params, rest, nrest);
}

int cli_parse_times(const char *text, int max, double *t0, double *t1, int *n)
{
    char *end = NULL;
    *t0 = strtod(text, &end);
    if (end == text || *end != ':') return 0;
    const char *p = end + 1;
    *t1 = strtod(p, &end);
    if (end == p || *end != ':') return 0;
    return cli_parse_int(end + 1, 2, max, n) && isfinite(*t0) && isfinite(*t1) && *t1 > *t0;
}

int cli_case_supports(const pkm_case *c, unsigned analysis)
{
    if ((c->analyses & analysis) != 0) return 0;
    if (analysis == PKM_CASE_MODAL)
        return cli_usage_error("case '%s' is a rigid-body case: use `pkmflex dynamics`", c->name);
    return cli_usage_error("case '%s' has no rigid-body model with actuated joints", c->name);
}

/* The trajectory: a named one of the case (its span stretched to the requested end time: the
 * analytic laws hold for any t >= 0) or a CSV file. */
/* --trajectory harmonic:COORD,AMPLITUDE,FREQUENCY (pkm_case_harmonic). */
static int cli_harmonic(const pkm_case *c, const char *spec, double t_end, pkm_trajectory **tr)
{
    char name[64];
    double amp = 0.0, f = 0.0;
    const char *comma = strchr(spec, ',');
    const size_t len = comma != NULL ? (size_t)(comma - spec) : 0;
    int k = -1;
    for (int i = 0; i < c->npose && len > 0; i++)
        if (strncmp(c->pose_names[i], spec, len) == 0 && c->pose_names[i][len] == '\0') k = i;
    if (k < 0)
        return cli_usage_error("--trajectory harmonic:%s: expected harmonic:COORD,AMPLITUDE,"
                               "FREQUENCY with COORD a pose coordinate of case '%s'",
                               spec, c->name);
    const char *rest = comma + 1, *comma2 = strchr(rest, ',');
    if (comma2 == NULL || (size_t)(comma2 - rest) >= sizeof(name))
        return cli_usage_error("--trajectory harmonic:%s: expected AMPLITUDE,FREQUENCY after %s",
                               spec, c->pose_names[k]);
    memcpy(name, rest, (size_t)(comma2 - rest));
    name[comma2 - rest] = '\0';
    if (!cli_parse_real(name, -1e3, 1e3, &amp) || amp == 0.0)
        return cli_usage_error("--trajectory harmonic:%s: amplitude '%s' must be a nonzero "
                               "number",
                               spec, name);
    if (!cli_parse_real(comma2 + 1, 1e-6, 1e6, &f))
        return cli_usage_error("--trajectory harmonic:%s: frequency '%s' must be in [1e-6, "
                               "1e6] Hz",
                               spec, comma2 + 1);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_case_harmonic(c, k, amp, f, t_end, tr, &ctx);
    return st == PKM_OK ? 0 : cli_report(st, &ctx);
}

int cli_trajectory(const pkm_case *c, const char *traj, double t_end, pkm_trajectory **tr)
{
    if (traj != NULL && strncmp(traj, "harmonic:", 9) == 0)
        return cli_harmonic(c, traj + 9, isnan(t_end) ? 0.0 : t_end, tr);
    if (traj == NULL && c->ntraj == 0)
        return cli_usage_error("case '%s' has no named trajectory: give --trajectory FILE.csv or "
                               "harmonic:COORD,A,F, or add a 'trajectories' block to its file",
                               c->name);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const size_t n = traj != NULL ? strlen(traj) : 0;
    const int file =
        traj != NULL && (strchr(traj, '/') != NULL || (n > 4 && strcmp(traj + n - 4, ".csv") == 0));
    if (file && pkm_case_traj_find(c, traj) == NULL) {
        const pkm_status st = pkm_trajectory_read_csv(traj, c->pose_names, c->npose, tr, &ctx);
        return st == PKM_OK ? 0 : cli_report(st, &ctx);
    }
    const pkm_status st = pkm_case_trajectory(c, traj, t_end, tr, &ctx);
    if (st == PKM_ERR_INVALID && pkm_case_traj_find(c, traj) == NULL)
        return cli_usage_error("--trajectory '%s': %s, and a file needs a '/' or .csv", traj,
                               ctx.msg);
    return st == PKM_OK ? 0 : cli_report(st, &ctx);
}
