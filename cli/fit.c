/* cli/fit.c: pkmflex fit: case parameters calibrated against a table of frequencies.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"

#include "pkm/fit.h"
#include "pkm/io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    FIT_TABLE = CLI_OPT_OWN,
    FIT_PARAM,
    FIT_MATCH,
    FIT_GAP,
    FIT_KIND,
    FIT_WEIGHTS,
    FIT_MAX_ITER,
    FIT_JACOBIAN,
    FIT_MULTISTART,
    FIT_OUTPUT,
    FIT_FORMAT
};

typedef struct fit_args {
    cli_case_args c;
    const char *table, *kind, *weights, *output;
    const char *spec[PKM_FIT_MAX_PARAMS];
    int nspec;
    int csv; /* --format csv or json: two tables, the parameters then the pairs */
    pkm_fit_opts fo;
} fit_args;

static const cli_option fit_options[] = {
    {"--table", NULL, 1, FIT_TABLE, "FILE", "reference table (as for compare)", NULL},
    {"--param", NULL, 1, FIT_PARAM, "KEY[=START][:MIN:MAX]",
     "a parameter to fit (repeat for more, up to 16): its start (default: the case's\n"
     "value) and bounds, in the parameter's unit or with one (\"clutch.k1=1500:100:1e5\",\n"
     "\"joint_mass.B=200 g:10 g:2 kg\"); without bounds the start sets its scale",
     NULL},
    {"--match", NULL, 1, FIT_MATCH, "order|nearest",
     "pairing of table values and modes (as for compare; default order)", NULL},
    {"--gap", NULL, 1, FIT_GAP, "PCT", "nearest: unpaired beyond this relative distance (25)",
     NULL},
    {"--kind", NULL, 1, FIT_KIND, "KIND", "only the table's rows of this kind", NULL},
    {"--weights", NULL, 1, FIT_WEIGHTS, "W1,W2,...",
     "a weight per frequency column of the table (default 1 each)", NULL},
    {"--max-iter", NULL, 1, FIT_MAX_ITER, "N", "solver iterations per pass (default 100)", NULL},
    {"--jacobian", NULL, 1, FIT_JACOBIAN, "sensitivity|fd",
     "eigenvalue sensitivity x^T (dK - w^2 dM) x (default) or finite differences", NULL},
    {"--multistart", NULL, 1, FIT_MULTISTART, "on|off",
     "local fits also from the corners of the box [start/2, 2 start] chosen by a covering\n"
     "array, the best kept (default on); off: one local fit from the start",
     NULL},
    {"--output", "-o", 1, FIT_OUTPUT, "FILE.yaml",
     "write a case file with every parameter, the fitted ones updated", NULL},
    {"--format", NULL, 1, FIT_FORMAT, "table|csv|json",
     "output format; csv: two tables, parameter,start,fitted,std_err,unit,corr_KEY...\n"
     "(SI values, one correlation column per fitted parameter), a blank line, then\n"
     "row,col,ref_hz,mode,freq_hz,error_pct,status (status ok or unpaired)",
     NULL},
};

static const cli_command fit_command = {
    "fit",
    "usage: pkmflex fit CASE --table FILE --param KEY[=START][:MIN:MAX] ... [options]\n\n"
    "Adjusts the named case parameters so that the computed natural frequencies\n"
    "match the table's (the relative errors of the paired values, least squares, by\n"
    "GSL's bounded nonlinear solver; bounds by p = MIN + (MAX - MIN)(1 + sin u)/2;\n"
    "include/pkm/fit.h). Prints the fitted values with their standard errors and\n"
    "correlations, and the final pairing. Exit 3 when the solver does not converge\n"
    "(its last state printed). On a terminal, a progress line on stderr (the start of the\n"
    "multistart, the evaluations, the best error, the time left). Ctrl-C stops the fit: the\n"
    "best evaluation so far is printed (without standard errors) and written to -o with a\n"
    "note saying so, exit 130.\n\n",
    fit_options, (int)(sizeof(fit_options) / sizeof(fit_options[0])), 1};

static int fit_set(void *user, int id, const char *v)
{
    fit_args *o = user;
    switch (id) {
    case FIT_TABLE:
        o->table = v;
        return 0;
    case FIT_PARAM:
        if (o->nspec == PKM_FIT_MAX_PARAMS)
            return cli_usage_error("too many --param options (max %d)", PKM_FIT_MAX_PARAMS);
        o->spec[o->nspec++] = v;
        return 0;
    case FIT_MATCH:
    case FIT_GAP:
        return cli_match_set(&o->fo.match, id == FIT_MATCH, v);
    case FIT_KIND:
        o->kind = v;
        return 0;
    case FIT_WEIGHTS:
        o->weights = v;
        return 0;
    case FIT_MAX_ITER:
        if (!cli_parse_int(v, 1, 100000, &o->fo.max_iter))
            return cli_usage_error("--max-iter '%s': expected an integer >= 1", v);
        return 0;
    case FIT_JACOBIAN:
        if (strcmp(v, "sensitivity") != 0 && strcmp(v, "fd") != 0)
            return cli_usage_error("--jacobian '%s': expected sensitivity or fd", v);
        o->fo.jacobian = v[0] == 'f' ? PKM_FIT_JAC_FD : PKM_FIT_JAC_SENSITIVITY;
        return 0;
    case FIT_MULTISTART:
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
            return cli_usage_error("--multistart '%s': expected on or off", v);
        o->fo.multistart = strcmp(v, "on") == 0;
        return 0;
    case FIT_FORMAT:
        if (cli_check_format(v) != 0) return EXIT_INPUT;
        o->csv = cli_format_is_rows(v);
        return 0;
    case FIT_OUTPUT:
        o->output = v;
        return 0;
    default:
        return cli_case_set(&o->c, id, v);
    }
}

/* One quantity of a --param spec (n characters at t) in the unit of d. */
static int fit_quantity(const char *spec, const char *t, size_t n, const pkm_param_desc *d,
                        double *v)
{
    char buf[128];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (n == 0 || n >= sizeof(buf)) return cli_usage_error("--param '%s': empty value", spec);
    memcpy(buf, t, n);
    buf[n] = '\0';
    if (pkm_quantity_parse(buf, d->unit, v, &ctx) != PKM_OK)
        return cli_usage_error("--param '%s': %s", spec, ctx.msg);
    return 0;
}

/* --param KEY[=START][:MIN:MAX] into p (key into keybuf); start defaults to params' value. */
static int fit_parse_param(const pkm_case *c, const void *params, const char *spec,
                           char keybuf[128], pkm_fit_param *p)
{
    const size_t head = strcspn(spec, ":"), klen = strcspn(spec, "=:");
    if (klen == 0 || klen >= 128) return cli_usage_error("--param '%s': no KEY", spec);
    memcpy(keybuf, spec, klen);
    keybuf[klen] = '\0';
    p->key = keybuf;
    const pkm_param_desc *d = pkm_case_param_find(c, keybuf);
    if (d == NULL || d->kind != PKM_PARAM_DOUBLE)
        return cli_usage_error("--param '%s': '%s' is not a real-valued parameter of case %s", spec,
                               keybuf, c->name);
    int rc = 0;
    memcpy(&p->start, (const char *)params + d->offset, sizeof(double));
    if (klen < head) rc = fit_quantity(spec, spec + klen + 1, head - klen - 1, d, &p->start);
    p->lo = p->hi = NAN;
    if (rc != 0 || spec[head] == '\0') return rc;
    const char *b = spec + head + 1;
    const size_t n1 = strcspn(b, ":");
    if (b[n1] != ':' || strchr(b + n1 + 1, ':') != NULL)
        return cli_usage_error("--param '%s': bounds are :MIN:MAX", spec);
    rc = fit_quantity(spec, b, n1, d, &p->lo);
    if (rc == 0) rc = fit_quantity(spec, b + n1 + 1, strlen(b + n1 + 1), d, &p->hi);
    if (rc == 0 && !(p->lo < p->start && p->start < p->hi))
        return cli_usage_error("--param '%s': start %g %s is not strictly inside [%g, %g]", spec,
                               p->start, d->unit, p->lo, p->hi);
    return rc;
}

/* The rows of the table of o->kind into data (pose, freq: allocated) and the weights. */
static int fit_data(const fit_args *o, const pkm_table *tab, pkm_fit_data *data, double **pose,
                    double **freq, double **w)
{
    int rc = cli_table_rows(tab, o->table, o->kind);
    if (rc != 0) return rc;
    *pose = malloc(sizeof(double) * (size_t)(tab->nrows * tab->npose));
    *freq = malloc(sizeof(double) * (size_t)(tab->nrows * tab->nfreq));
    *w = malloc(sizeof(double) * (size_t)tab->nfreq);
    if (*pose == NULL || *freq == NULL || *w == NULL) {
        fprintf(stderr, "%s: error: out of memory\n", CLI_PROG);
        return EXIT_COMPUTE;
    }
    int n = 0;
    for (int r = 0; r < tab->nrows; r++) {
        if (o->kind != NULL && strcmp(tab->kind[r], o->kind) != 0) continue;
        memcpy(*pose + n * tab->npose, tab->pose + r * tab->npose,
               sizeof(double) * (size_t)tab->npose);
        memcpy(*freq + n * tab->nfreq, tab->freq + r * tab->nfreq,
               sizeof(double) * (size_t)tab->nfreq);
        n++;
    }
    const char *p = o->weights;
    for (int k = 0; k < tab->nfreq; k++) {
        char *end = NULL;
        (*w)[k] = p != NULL ? strtod(p, &end) : 1.0;
        if (p != NULL && (end == p || !((*w)[k] >= 0.0) || !isfinite((*w)[k]) ||
                          (*end != ',' && !(*end == '\0' && k + 1 == tab->nfreq))))
            return cli_usage_error("--weights '%s': expected %d weights >= 0, comma-separated",
                                   o->weights, tab->nfreq);
        if (p != NULL) p = end + 1;
    }
    *data = (pkm_fit_data){.nrows = n,
                           .npose = tab->npose,
                           .nfreq = tab->nfreq,
                           .pose = *pose,
                           .freq = *freq,
                           .weight = *w};
    return 0;
}

/* The final pairing, one row per table value: a table with its largest and mean error, or csv
 * rows (row,col,ref_hz,mode,freq_hz,error_pct,status). */
static void fit_print_pairs(const pkm_fit_data *d, const pkm_fit_result *res, int csv)
{
    if (csv)
        printf("row,col,ref_hz,mode,freq_hz,error_pct,status\n");
    else
        printf("%4s  %4s  %10s  %6s  %12s  %10s\n", "row", "col", "ref [Hz]", "mode", "fitted [Hz]",
               "error [%]");
    double worst = 0.0, sum = 0.0;
    for (int r = 0; r < d->nrows; r++)
        for (int k = 0; k < d->nfreq; k++) {
            const size_t i = (size_t)r * (size_t)d->nfreq + (size_t)k;
            if (isnan(d->freq[i])) continue;
            const int q = res->pair[i];
            if (q < 0) {
                if (csv)
                    printf("%d,%d,%.17g,,,,unpaired\n", r + 1, k + 1, d->freq[i]);
                else
                    printf("%4d  %4d  %10.4f  %6s  %12s  %10s  UNPAIRED\n", r + 1, k + 1,
                           d->freq[i], "-", "-", "-");
                continue;
            }
            char mode[24];
            if (res->mult[i] > 1)
                snprintf(mode, sizeof(mode), "%d-%d", q + 1, q + res->mult[i]);
            else
                snprintf(mode, sizeof(mode), "%d", q + 1);
            const double e = 100.0 * (res->freq[i] - d->freq[i]) / d->freq[i];
            printf(csv ? "%d,%d,%.17g,%s,%.17g,%.17g,ok\n"
                       : "%4d  %4d  %10.4f  %6s  %12.4f  %10.4f\n",
                   r + 1, k + 1, d->freq[i], mode, res->freq[i], e);
            worst = fmax(worst, fabs(e));
            sum += fabs(e);
        }
    if (!csv)
        printf("# max error %.4f %%, mean %.4f %% over %d pairs\n", worst,
               res->nres > 0 ? sum / res->nres : 0.0, res->nres);
}

static void fit_print(const fit_args *o, const pkm_fit_param *p, const pkm_case *c,
                      const pkm_fit_data *d, const pkm_fit_result *res)
{
    printf("# fit of %s to %s%s%s (match %s): %d rows, %d paired values, %d parameters\n",
           o->c.case_name, o->table, o->kind ? ", rows of kind " : "", o->kind ? o->kind : "",
           o->fo.match.mode == PKM_MATCH_NEAREST ? "nearest" : "order", d->nrows, res->nres,
           res->nparam);
    if (res->stopped)
        printf("# INTERRUPTED: the best evaluation so far, not a converged fit (no standard "
               "errors)\n");
    printf("%-20s  %14s  %14s  %12s  %s\n", "parameter", "start", "fitted", "std. error", "unit");
    for (int k = 0; k < res->nparam; k++)
        printf("%-20s  %14.6g  %14.6g  %12.3g  %s\n", p[k].key, p[k].start, res->value[k],
               res->std_err[k], pkm_case_param_find(c, p[k].key)->unit);
    printf("# correlations\n%-20s", "");
    for (int k = 0; k < res->nparam; k++)
        printf("  %9.9s", p[k].key + strcspn(p[k].key, ".") + (strchr(p[k].key, '.') != NULL));
    for (int a = 0; a < res->nparam; a++) {
        printf("\n%-20s", p[a].key);
        for (int b = 0; b < res->nparam; b++)
            printf("  %9.4f", res->corr[a * res->nparam + b]);
    }
    printf("\n# rms relative error: start %.4f %%, fitted %.4f %%; %d passes, %d iterations\n",
           100.0 * res->rms_start, 100.0 * res->rms, res->passes, res->iterations);
    fit_print_pairs(d, res, 0);
}

/* --format csv: the fitted parameters with their correlations, then the final pairing. */
static void fit_print_csv(const pkm_fit_param *p, const pkm_case *c, const pkm_fit_data *d,
                          const pkm_fit_result *res)
{
    printf("parameter,start,fitted,std_err,unit");
    for (int k = 0; k < res->nparam; k++)
        printf(",corr_%s", p[k].key);
    for (int a = 0; a < res->nparam; a++) {
        printf("\n%s,%.17g,%.17g,%.17g,%s", p[a].key, p[a].start, res->value[a], res->std_err[a],
               pkm_case_param_find(c, p[a].key)->unit);
        for (int b = 0; b < res->nparam; b++)
            printf(",%.17g", res->corr[a * res->nparam + b]);
    }
    printf("\n\n");
    fit_print_pairs(d, res, 1);
}

/* The progress line on a terminal, and what an interrupted fit reports. */
typedef struct fit_ui {
    double t0, last;
    int show; /* stderr is a terminal */
    int drawn, evaluations, start, nstarts;
} fit_ui;

static void fit_progress(const pkm_fit_progress *p, void *user)
{
    fit_ui *ui = user;
    ui->evaluations = p->evaluations;
    ui->start = p->start;
    ui->nstarts = p->nstarts;
    const double t = cli_now();
    if (!ui->show || t - ui->last < 0.1) return;
    ui->last = t;
    ui->drawn = 1;
    fprintf(stderr, "\rfit: start %d of %d, %d evaluations, rms %.4g %% (best %.4g %%), %.0f s",
            p->start + 1, p->nstarts, p->evaluations, 100.0 * p->rms, 100.0 * p->best_rms,
            t - ui->t0);
    if (p->start > 0) /* the starts done, at their mean time */
        fprintf(stderr, ", about %.0f s left", (t - ui->t0) / p->start * (p->nstarts - p->start));
    fprintf(stderr, " ");
}

static int fit_stop(void *user)
{
    (void)user;
    return cli_interrupted();
}

/* -o FILE.yaml: the case file with the fitted (or, interrupted, the best so far) values. */
static int fit_write(const fit_args *o, const pkm_case *c, const void *params,
                     const pkm_fit_result *res)
{
    char note[512];
    snprintf(note, sizeof(note), "pkmflex fit of %s to %s%s%s: %s %.4f %%", o->c.case_name,
             o->table, o->kind ? ", rows of kind " : "", o->kind ? o->kind : "",
             res->stopped ? "INTERRUPTED (Ctrl-C), not a converged fit: the best evaluation so "
                            "far, rms relative error"
                          : "rms relative error",
             100.0 * res->rms);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_case_file_write(o->output, c, params, note, &ctx);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    if (!o->csv) printf("# wrote %s%s\n", o->output, res->stopped ? " (interrupted fit)" : "");
    return 0;
}

int cli_fit(int argc, char **argv)
{
    fit_args o = {.c = {.form = PKM_FORM_TREE, .eig = PKM_EIG_ARPACK},
                  .fo = pkm_fit_opts_default()};
    int rc = cli_parse(argc, argv, &fit_command, fit_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_table *tab = NULL;
    double *pose = NULL, *freq = NULL, *w = NULL;
    pkm_fit_result res;
    memset(&res, 0, sizeof(res));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    char keys[PKM_FIT_MAX_PARAMS][128];
    pkm_fit_param p[PKM_FIT_MAX_PARAMS];
    pkm_fit_data data;
    if ((rc = cli_load_case(&o.c, &c, &params)) != 0 ||
        (rc = cli_case_supports(c, PKM_CASE_MODAL)) != 0)
        goto done;
    if (o.table == NULL || o.nspec == 0) {
        rc = cli_usage_error("fit: --table FILE and at least one --param are required");
        goto done;
    }
    if (o.output != NULL && (rc = cli_check_output_name(o.output)) != 0) goto done;
    for (int k = 0; k < o.nspec; k++)
        if ((rc = fit_parse_param(c, params, o.spec[k], keys[k], &p[k])) != 0) goto done;
    pkm_status st = pkm_table_read(o.table, c->npose, &tab, &ctx);
    if (st != PKM_OK) {
        rc = cli_report(st, &ctx);
        goto done;
    }
    if ((rc = fit_data(&o, tab, &data, &pose, &freq, &w)) != 0) goto done;
    o.fo.form = o.c.form;
    o.fo.eig = o.c.eig;
    fit_ui ui = {.t0 = cli_now(), .show = isatty(STDERR_FILENO)};
    o.fo.progress = fit_progress;
    o.fo.stop = fit_stop;
    o.fo.user = &ui;
    cli_interrupt_begin();
    st = pkm_fit_run(c, params, &data, p, o.nspec, &o.fo, &res, &ctx);
    cli_interrupt_end();
    if (ui.drawn) fprintf(stderr, "\n");
    if (st != PKM_OK && st != PKM_ERR_NOCONV) {
        rc = cli_report(st, &ctx);
        goto done;
    }
    if (o.csv)
        fit_print_csv(p, c, &data, &res);
    else
        fit_print(&o, p, c, &data, &res);
    if (st == PKM_ERR_NOCONV) {
        rc = cli_report(st, &ctx); /* the last state is printed above */
        goto done;
    }
    if (o.output != NULL && (rc = fit_write(&o, c, params, &res)) != 0) goto done;
    if (res.stopped) {
        fprintf(stderr,
                "%s: interrupted: the fit stopped after %d evaluations (start %d of %d); the "
                "best evaluation so far is printed%s%s\n",
                CLI_PROG, ui.evaluations, ui.start + 1, ui.nstarts,
                o.output != NULL ? " and written to " : "", o.output != NULL ? o.output : "");
        rc = EXIT_INTERRUPT;
    }
done:
    pkm_fit_result_free(&res);
    free(pose);
    free(freq);
    free(w);
    pkm_table_destroy(&tab);
    pkm_case_params_destroy(&params);
    return rc;
}
