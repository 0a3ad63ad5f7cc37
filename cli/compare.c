/* cli/compare.c: pkmflex compare: a case against a reference table, or two map files.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"

#include "pkm/fit.h"
#include "pkm/io.h"
#include "pkm/map.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    COMPARE_TABLE = CLI_OPT_OWN,
    COMPARE_AGAINST,
    COMPARE_TOL,
    COMPARE_MATCH,
    COMPARE_GAP,
    COMPARE_KIND,
    COMPARE_FORMAT
};

typedef struct compare_args {
    cli_case_args c; /* c.case_name: the case, or with --against the map file F.h5 */
    const char *table;
    const char *against;
    double tol_pct;
    pkm_match_opts match;
    const char *kind; /* only the table's rows of this kind, or NULL */
    int csv;          /* --format csv or json: the pairs as rows, no comment lines */
} compare_args;

static const cli_option compare_options[] = {
    {"--table", NULL, 1, COMPARE_TABLE, "FILE",
     "reference table, e.g. cases/navaro/table3_cast3m.csv", NULL},
    {"--against", NULL, 1, COMPARE_AGAINST, "REF.h5", "reference map file", NULL},
    {"--tol", NULL, 1, COMPARE_TOL, "PCT",
     "tolerance on the relative error in percent (default 0.05)", NULL},
    {"--match", NULL, 1, COMPARE_MATCH, "order|nearest",
     "pairing of table columns and computed modes: order (column k with mode k,\n"
     "the default) or nearest (one to one, both orders kept, unpaired beyond --gap)",
     NULL},
    {"--gap", NULL, 1, COMPARE_GAP, "PCT",
     "nearest: relative distance in percent beyond which a value stays unpaired\n"
     "(default 25)",
     NULL},
    {"--kind", NULL, 1, COMPARE_KIND, "KIND",
     "only the rows of this kind of a table with a kind column (e.g. meas, calc)", NULL},
    {"--format", NULL, 1, COMPARE_FORMAT, "table|csv|json",
     "--table: output format (csv header: pose,kind,col,ref_hz,mode,freq_hz,\n"
     "error_pct,residual,status with status ok, out, unpaired or no_reference;\n"
     "--against: mode,max_pct,mean_pct,worst_AXIS... with the worst pose in SI)",
     NULL},
};

static const cli_command compare_command = {
    "compare",
    "usage: pkmflex compare CASE --table FILE [options]\n"
    "       pkmflex compare F.h5 --against REF.h5 [--tol PCT]\n\n"
    "For every pose of a reference table (CSV: pose id, pose coordinates in SI units,\n"
    "frequencies in Hz; optionally a `kind` column after the id, and empty cells for\n"
    "unpaired values), computes the natural frequencies and prints each reference\n"
    "value with the computed mode it is paired with (a doublet, two modes counted once\n"
    "when the row lists distinct values, shows as 1-2) and the relative error, then the\n"
    "maximum and mean errors. Out of tolerance: an error above --tol, or a reference\n"
    "value left unpaired.\n\n"
    "With --against, compares two map files (pkmflex map) of the same grid instead:\n"
    "for each mode rank, the maximum and mean of |f - f_ref| / f_ref over the poses\n"
    "computed in both, and the pose of the maximum. Poses computed in one file only\n"
    "count as out of tolerance. A different grid is an error naming the difference.\n\n",
    compare_options, (int)(sizeof(compare_options) / sizeof(compare_options[0])), 1};

static int compare_set(void *user, int id, const char *v)
{
    compare_args *o = user;
    switch (id) {
    case COMPARE_TABLE:
        o->table = v;
        return 0;
    case COMPARE_FORMAT:
        if (cli_check_format(v) != 0) return EXIT_INPUT;
        o->csv = cli_format_is_rows(v);
        return 0;
    case COMPARE_AGAINST:
        o->against = v;
        return 0;
    case COMPARE_TOL:
        if (!cli_parse_real(v, 0.0, DBL_MAX, &o->tol_pct))
            return cli_usage_error("--tol '%s': expected a percentage >= 0", v);
        return 0;
    case COMPARE_MATCH:
    case COMPARE_GAP:
        return cli_match_set(&o->match, id == COMPARE_MATCH, v);
    case COMPARE_KIND:
        o->kind = v;
        return 0;
    default:
        return cli_case_set(&o->c, id, v);
    }
}

/* "x = 0.1 m, y = -0.2 m" for point p of map. */
static void compare_point_text(const pkm_map *map, int64_t p, char *out, size_t cap)
{
    int idx[PKM_MAP_MAX_AXES];
    for (int a = map->naxes - 1; a >= 0; a--) {
        idx[a] = (int)(p % map->axes[a].count);
        p /= map->axes[a].count;
    }
    size_t len = 0;
    out[0] = '\0';
    for (int a = 0; a < map->naxes && len < cap; a++) {
        const pkm_map_axis *ax = &map->axes[a];
        len += (size_t)snprintf(out + len, cap - len, "%s%s = %g %s", a > 0 ? ", " : "", ax->name,
                                pkm_map_axis_value(ax, idx[a]), ax->unit);
    }
}

static void compare_print_maps(const compare_args *o, const pkm_map *a, const pkm_map *b,
                               const pkm_map_diff *d)
{
    printf("# %s (%s) against %s (%s): %lld poses computed in both, %lld in one only "
           "(tolerance %g %%)\n",
           o->c.case_name, a->case_name, o->against, b->case_name, (long long)d->both,
           (long long)d->one_only, o->tol_pct);
    if (a->nev != b->nev)
        printf("# %d and %d modes: the first %d compared\n", a->nev, b->nev, d->nev);
    printf("%4s  %12s  %12s  %s\n", "mode", "max [%]", "mean [%]", "worst pose");
    for (int k = 0; k < d->nev && d->both > 0; k++) {
        char where[512];
        compare_point_text(a, d->worst[k], where, sizeof(where));
        printf("%4d  %12.6g  %12.6g  %s\n", k + 1, 100.0 * d->max_rel[k], 100.0 * d->mean_rel[k],
               where);
    }
    if (d->both > 0)
        printf("# max difference %.6g %% (mode %d)%s\n", 100.0 * d->max_all, d->max_rank,
               d->one_only > 0 ? ", and poses computed in one map only" : "");
    else
        printf("# no pose computed in both maps\n");
}

/* --format csv: one row per mode rank, the worst pose as one column per grid axis (SI). */
static void compare_print_maps_csv(const pkm_map *a, const pkm_map_diff *d)
{
    printf("mode,max_pct,mean_pct");
    for (int x = 0; x < a->naxes; x++)
        printf(",worst_%s", a->axes[x].name);
    printf("\n");
    for (int k = 0; k < d->nev && d->both > 0; k++) {
        printf("%d,%.17g,%.17g", k + 1, 100.0 * d->max_rel[k], 100.0 * d->mean_rel[k]);
        int idx[PKM_MAP_MAX_AXES];
        int64_t p = d->worst[k];
        for (int x = a->naxes - 1; x >= 0; x--) {
            idx[x] = (int)(p % a->axes[x].count);
            p /= a->axes[x].count;
        }
        for (int x = 0; x < a->naxes; x++)
            printf(",%.17g", pkm_map_axis_value(&a->axes[x], idx[x]));
        printf("\n");
    }
}

/* compare F.h5 --against REF.h5: the relative difference per mode rank over the poses computed
 * in both maps (pkm_map_compare). */
static int compare_maps(const compare_args *o)
{
    if (o->c.case_name == NULL) return cli_usage_error("compare --against: no map file F.h5 given");
    if (o->table != NULL)
        return cli_usage_error("compare: --table and --against exclude each other");
    pkm_map a, b;
    pkm_map_diff d;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    memset(&d, 0, sizeof(d));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int rc = 0;
    /* Files a user names may be damaged or crafted: read in a child process (pkm/io.h). */
    pkm_status st = pkm_map_read_h5_isolated(o->c.case_name, 0.0, &a, &ctx);
    if (st == PKM_OK) st = pkm_map_read_h5_isolated(o->against, 0.0, &b, &ctx);
    if (st != PKM_OK) {
        rc = cli_report(st, &ctx);
        goto done;
    }
    if ((st = pkm_map_compare(&a, &b, &d, &ctx)) != PKM_OK) {
        if (st == PKM_ERR_INVALID)
            fprintf(stderr, "%s: error: %s and %s have different grids: %s\n", CLI_PROG,
                    o->c.case_name, o->against, ctx.msg);
        rc = st == PKM_ERR_INVALID ? EXIT_INPUT : cli_report(st, &ctx);
        goto done;
    }
    const int ok = d.both > 0 && d.one_only == 0 && 100.0 * d.max_all <= o->tol_pct;
    if (o->csv) {
        compare_print_maps_csv(&a, &d);
    } else {
        compare_print_maps(o, &a, &b, &d);
        printf("# %s\n", ok ? "all within tolerance" : "OUT OF TOLERANCE");
    }
    rc = ok ? 0 : EXIT_TOL;
done:
    pkm_map_diff_free(&d);
    pkm_map_free(&a);
    pkm_map_free(&b);
    return rc;
}

/* Row r's pairing (pair, mult: pkm_freq_match) printed with the computed modes md: each given
 * reference value, then (nearest) the computed values up to the row's largest reference that
 * stay unpaired. The largest |error| into *worst (its column *wk), their sum and count into
 * *sum, *npair, unpaired references into *nunp. */
static void compare_print_row(const compare_args *o, const pkm_table *tab, int r,
                              const pkm_modes *md, const int *pair, const int *mult, double *worst,
                              int *wk, double *sum, int *npair, int *nunp)
{
    const double *ref = tab->freq + (size_t)r * (size_t)tab->nfreq;
    const char *kind = tab->kind != NULL ? tab->kind[r] : "-";
    double top = 0.0;
    for (int k = 0; k < tab->nfreq; k++) {
        if (isnan(ref[k])) continue;
        top = fmax(top, ref[k]);
        if (pair[k] < 0) {
            printf(o->csv ? "%d,%s,%d,%.10g,%s,%s,%s,%s,unpaired\n"
                          : "%4d  %-5s %4d  %10.4f  %6s  %12s  %10s  %9s  UNPAIRED\n",
                   tab->id[r], kind, k + 1, ref[k], "", "", "", "");
            ++*nunp;
            continue;
        }
        char mode[24];
        const int q = pair[k];
        if (mult[k] > 1)
            snprintf(mode, sizeof(mode), "%d-%d", q + 1, q + mult[k]);
        else
            snprintf(mode, sizeof(mode), "%d", q + 1);
        const double err = 100.0 * (md->freq_hz[q] - ref[k]) / ref[k];
        if (o->csv)
            printf("%d,%s,%d,%.10g,%s,%.10g,%.6g,%.3e,%s\n", tab->id[r], kind, k + 1, ref[k], mode,
                   md->freq_hz[q], err, md->residual[q], fabs(err) > o->tol_pct ? "out" : "ok");
        else
            printf("%4d  %-5s %4d  %10.4f  %6s  %12.4f  %10.4f  %9.1e%s\n", tab->id[r], kind, k + 1,
                   ref[k], mode, md->freq_hz[q], err, md->residual[q],
                   fabs(err) > o->tol_pct ? "  OUT" : "");
        if (fabs(err) > *worst) *worst = fabs(err), *wk = k + 1;
        *sum += fabs(err);
        ++*npair;
    }
    if (o->match.mode != PKM_MATCH_NEAREST) return;
    for (int q = 0; q < md->nev && md->freq_hz[q] <= top; q++) {
        int used = 0;
        for (int k = 0; k < tab->nfreq && !used; k++)
            used = pair[k] >= 0 && q >= pair[k] && q < pair[k] + mult[k];
        if (!used && o->csv)
            printf("%d,%s,,,%d,%.10g,,%.3e,no_reference\n", tab->id[r], kind, q + 1, md->freq_hz[q],
                   md->residual[q]);
        else if (!used)
            printf("%4d  %-5s %4s  %10s  %6d  %12.4f  %10s  %9.1e  (no reference)\n", tab->id[r],
                   kind, "-", "-", q + 1, md->freq_hz[q], "-", md->residual[q]);
    }
}

/* The rows of the table (of o->kind), each solved, paired and printed; 0, EXIT_TOL or an
 * error's exit status. */
static int compare_table(const compare_args *o, const pkm_case *c, const void *params,
                         const pkm_table *tab, pkm_analysis *an, int *pair)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int *mult = pair + tab->nfreq;
    if (o->csv) {
        printf("pose,kind,col,ref_hz,mode,freq_hz,error_pct,residual,status\n");
    } else {
        printf("# %s against %s (match %s", o->c.case_name, o->table,
               o->match.mode == PKM_MATCH_NEAREST ? "nearest" : "order");
        if (o->match.mode == PKM_MATCH_NEAREST) printf(", gap %g %%", 100.0 * o->match.gap);
        printf(", tolerance %g %%)\n", o->tol_pct);
        printf("%4s  %-5s %4s  %10s  %6s  %12s  %10s  %9s\n", "pose", "kind", "col", "ref [Hz]",
               "mode", "pkmflex [Hz]", "error [%]", "residual");
    }
    double worst = 0.0, sum = 0.0, t_total = 0.0;
    int worst_pose = 0, worst_col = 0, npair = 0, nunp = 0, nrows = 0;
    for (int r = 0; r < tab->nrows; r++) {
        if (o->kind != NULL && strcmp(o->kind, tab->kind[r]) != 0) continue;
        const double *pose = tab->pose + (size_t)r * (size_t)c->npose;
        pkm_model *m = NULL;
        const pkm_modes *md = NULL;
        const double t0 = cli_now();
        pkm_status st = c->build(params, pose, &m, &ctx);
        if (st == PKM_OK) st = pkm_analysis_solve(an, m, &md, NULL, &ctx);
        t_total += cli_now() - t0;
        pkm_model_destroy(&m);
        if (st == PKM_OK)
            st = pkm_freq_match(tab->freq + (size_t)r * (size_t)tab->nfreq, tab->nfreq, md->freq_hz,
                                md->nev, &o->match, pair, mult, NULL, &ctx);
        if (st != PKM_OK) {
            fprintf(stderr, "%s: error: pose %d of %s: %s\n", CLI_PROG, tab->id[r], o->table,
                    ctx.msg);
            return cli_exit_status_of(st);
        }
        const double before = worst;
        int wk = 0;
        compare_print_row(o, tab, r, md, pair, mult, &worst, &wk, &sum, &npair, &nunp);
        if (worst > before) worst_pose = tab->id[r], worst_col = wk;
        nrows++;
    }
    const int ok = worst <= o->tol_pct && nunp == 0;
    if (o->csv) return ok ? 0 : EXIT_TOL;
    printf("# max error %.4f %% (pose %d, column %d), mean %.4f %% over %d pairs, %d reference "
           "values unpaired, %.3f ms per pose\n",
           worst, worst_pose, worst_col, npair > 0 ? sum / npair : 0.0, npair, nunp,
           1e3 * t_total / (nrows > 0 ? nrows : 1));
    printf("# %s\n", ok ? "all within tolerance" : "OUT OF TOLERANCE");
    return ok ? 0 : EXIT_TOL;
}

int cli_compare(int argc, char **argv)
{
    compare_args o = {.c = {.nev = 0, .form = PKM_FORM_TREE, .eig = PKM_EIG_ARPACK},
                      .tol_pct = 0.05,
                      .match = pkm_match_opts_default()};
    int rc = cli_parse(argc, argv, &compare_command, compare_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    if (o.against != NULL && !cli_check_only()) return compare_maps(&o);
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_table *tab = NULL;
    pkm_analysis *an = NULL;
    int *pair = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if ((rc = cli_load_case(&o.c, &c, &params)) != 0 ||
        (rc = cli_case_supports(c, PKM_CASE_MODAL)) != 0 || cli_check_only())
        goto done;
    if (o.table == NULL) {
        rc = cli_usage_error("compare: --table FILE is required");
        goto done;
    }
    pkm_status st = pkm_table_read(o.table, c->npose, &tab, &ctx);
    if (st != PKM_OK) {
        rc = cli_report(st, &ctx);
        goto done;
    }
    if ((rc = cli_table_rows(tab, o.table, o.kind)) != 0) goto done;
    pkm_modal_opts mo = pkm_modal_opts_default();
    const int need = pkm_match_nev(&o.match, tab->nfreq);
    mo.nev = o.c.nev > need ? o.c.nev : need;
    pair = malloc(sizeof(int) * 2 * (size_t)tab->nfreq);
    if (pair == NULL) {
        fprintf(stderr, "%s: error: out of memory\n", CLI_PROG);
        rc = EXIT_COMPUTE;
        goto done;
    }
    if ((st = pkm_analysis_create(o.c.form, o.c.eig, &mo, &an, &ctx)) != PKM_OK) {
        rc = cli_report(st, &ctx);
        goto done;
    }
    rc = compare_table(&o, c, params, tab, an, pair);
done:
    free(pair);
    pkm_analysis_destroy(&an);
    pkm_table_destroy(&tab);
    pkm_case_params_destroy(&params);
    return rc;
}
