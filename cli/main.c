/* cli/main.c: the pkmflex command line: subcommands, option parsing, printing, exit codes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exit status: 0 success; 1 `compare` found a frequency outside the tolerance; 2 bad input
 * (usage, unknown case, malformed pose or table, unreachable pose, invalid parameter);
 * 3 the computation failed (singular pencil, eigensolver failure, failed accuracy check). */
#define _DEFAULT_SOURCE /* flock */

#include "pkm/analysis.h"
#include "pkm/cases.h"
#include "pkm/casefile.h"
#include "pkm/io.h"
#include "pkm/map.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define EXIT_TOL     1
#define EXIT_INPUT   2
#define EXIT_COMPUTE 3
#define MAX_SETS     64

static const char *prog = "pkmflex";

static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try '%s --help')\n", prog);
    va_end(ap);
    return EXIT_INPUT;
}

/* Exit status for a library failure: bad input or a failed computation. */
static int exit_status_of(pkm_status st)
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

/* One line on stderr for a library failure; the exit status follows its kind. */
static int report(pkm_status st, const pkm_ctx *ctx)
{
    fprintf(stderr, "%s: error: %s\n", prog, ctx->msg[0] ? ctx->msg : pkm_status_str(st));
    return exit_status_of(st);
}

/* report, for a failure once the inputs were accepted: a file that cannot be written then
 * (full disk, file size limit) is a failed computation, exit 3, not bad input. */
static int report_late(pkm_status st, const pkm_ctx *ctx)
{
    const int rc = report(st, ctx);
    return st == PKM_ERR_IO ? EXIT_COMPUTE : rc;
}

static void print_main_help(void)
{
    printf(
        "pkmflex %s: natural frequencies of parallel robots (beam finite elements,\n"
        "loop closure by leg-variable Jacobian elimination, ARPACK + CHOLMOD).\n\n"
        "usage: pkmflex <command> [options]\n\n"
        "commands:\n"
        "  modes CASE --pose ...      natural frequencies at one pose\n"
        "  compare CASE --table FILE  compare with a reference table (e.g. Cast3M)\n"
        "  compare F --against R      compare two map files (HDF5) mode by mode\n"
        "  map CASE --grid ... -o F   frequency map over a grid of poses, to HDF5\n"
        "  cases [--show NAME]        list the built-in robots, or print the case file of one\n\n"
        "CASE is a built-in name (navaro, pss5upu) or a case file: a path containing '/' or ending "
        "in\n"
        ".yaml or .yml, whose `case:` names the built-in topology and whose `parameters:` set\n"
        "its numbers ('pkmflex cases --show navaro' prints a complete one to copy).\n"
        "Units: input is SI (m, rad, Pa, kg/m^3), or a number and a unit in case files and\n"
        "--set (210 mm, 74 GPa); frequencies are printed in Hz.\n"
        "Run 'pkmflex <command> --help' for the options of a command.\n"
        "Exit status: 0 ok, 1 compare out of tolerance, 2 bad input, 3 computation failed.\n",
        PKM_VERSION_STRING);
}

static void print_common_options(void)
{
    printf("  --nev N                number of lowest modes (default 10 for modes, the table's\n"
           "                         column count for compare)\n"
           "  --set KEY=VALUE        override a case parameter, after the case file: an SI\n"
           "                         number or a number and a unit (leg.A=2.4cm^2), repeatable\n"
           "  --formulation F        tree (Germain et al. 2015 virtual tree + leg-variable\n"
           "                         elimination) or nodal (direct FE assembly); default:\n"
           "                         the case's own (navaro: tree, pss5upu: nodal)\n"
           "  --solver S             arpack (sparse shift-invert, default) or dense (LAPACK)\n"
           "case parameters (--set KEY=VALUE; in a case file, leg.A is `leg: {A: VALUE}`), with\n"
           "their ranges (wide but finite; cases/units.c gives the reason of each):\n");
    for (const pkm_case *const *c = pkm_case_list(); *c != NULL; c++) {
        printf("  %s:\n", (*c)->name);
        for (int k = 0; k < (*c)->nparams; k++) {
            const pkm_param_desc *d = &(*c)->params[k];
            char name[64];
            snprintf(name, sizeof(name), "%s%s%s%s", d->key, d->unit[0] ? " [" : "", d->unit,
                     d->unit[0] ? "]" : "");
            if (d->range != NULL)
                printf("    %-24s %s, %g to %g\n", name, d->help, d->range->min, d->range->max);
            else
                printf("    %-24s %s\n", name, d->help);
        }
    }
}

static void print_modes_help(void)
{
    printf(
        "usage: pkmflex modes CASE --pose P1,P2,... [options]\n\n"
        "Natural frequencies (Hz) of CASE at one pose, lowest first, with the relative\n"
        "residual ||K x - w^2 M x|| / ||K x|| of each mode and its accuracy: an estimate\n"
        "(an upper bound in every case measured) of the relative error of the frequency\n"
        "that the rounding of the assembled matrices can cause. Frequencies whose accuracy\n"
        "exceeds 1e-6 are flagged '!'; above 1e-3 (--max-accuracy) the command fails (exit 3):\n"
        "the mesh is too fine for double precision (docs/performance.md).\n\n"
        "  --pose P1,P2,...       pose coordinates in SI units; navaro: x,y,theta (m, m, rad);\n"
        "                         pss5upu: x,y,z,alpha,beta (m, m, m, rad, rad)\n"
        "  --format table|csv     output format (csv header: mode,freq_hz,residual,accuracy)\n"
        "  --max-accuracy R       largest accepted accuracy estimate, relative (default 1e-3)\n");
    print_common_options();
}

static void print_compare_help(void)
{
    printf("usage: pkmflex compare CASE --table FILE [options]\n"
           "       pkmflex compare F.h5 --against REF.h5 [--tol PCT]\n\n"
           "For every pose of a reference table (CSV: pose id, pose coordinates in SI units,\n"
           "frequencies in Hz), computes the natural frequencies and prints reference,\n"
           "computed and relative error per mode, then the maximum error.\n\n"
           "With --against, compares two map files (pkmflex map) of the same grid instead:\n"
           "for each mode rank, the maximum and mean of |f - f_ref| / f_ref over the poses\n"
           "computed in both, and the pose of the maximum. Poses computed in one file only\n"
           "count as out of tolerance. A different grid is an error naming the difference.\n\n"
           "  --table FILE           reference table, e.g. cases/navaro/table3_cast3m.csv\n"
           "  --against REF.h5       reference map file\n"
           "  --tol PCT              tolerance on the relative error in percent (default 0.05)\n");
    print_common_options();
}

static void print_map_help(void)
{
    printf(
        "usage: pkmflex map CASE --grid AXIS=START:STOP:COUNT[,...] -o FILE.h5 [options]\n\n"
        "Natural frequencies over a regular grid of poses, written to an HDF5 file (layout in\n"
        "docs/hdf5-layout.md). Axes are pose coordinates of the case (navaro: x, y [m],\n"
        "theta [rad]); coordinates not named stay at their --pose value. Poses that are\n"
        "unreachable or singular, or where the solver fails, are recorded in /status with\n"
        "NaN frequencies and the sweep goes on. The file is written under a temporary name\n"
        "and renamed when complete.\n\n"
        "Modes are ranked by frequency at each pose and tracked across neighbouring poses by\n"
        "the modal assurance criterion (MAC), repeated frequencies as subspaces: /tracked_mode\n"
        "follows one physical mode through crossings, /tracking_mac flags uncertain links.\n"
        "Tracking keeps every pose's mode vectors (poses x nev x coordinates x 8 bytes); above\n"
        "1 GiB the ids are the ranks: a warning says so at the first pose, and the attribute\n"
        "tracking_note records it.\n\n"
        "While the sweep runs, FILE.h5.partial holds the results so far (a valid map file,\n"
        "status -1 where not computed); --resume continues it and removes it at the end.\n\n"
        "  --grid SPEC            e.g. x=-0.1:0.1:21,y=-0.1:0.1:21 (COUNT points, ends included)\n"
        "  --pose P1,P2,...       base pose for the coordinates not swept (default: home)\n"
        "  -o, --output FILE.h5   output file\n"
        "  --threads T            worker processes (default 1); a worker without a result\n"
        "                         for --stall-timeout S seconds (default: 100 times the\n"
        "                         slowest pose, at least 600 s) stops the map with exit 3\n"
        "  --modes                also store the mode shapes (/modes), whatever their size\n"
        "  --mac-threshold X      links with a MAC below X are flagged (default 0.8)\n"
        "  --cluster-tol X        relative frequency gap below which modes form one subspace\n"
        "                         (default 1e-5)\n"
        "  --checkpoint S         seconds between checkpoints to FILE.h5.partial (default 5,\n"
        "                         0 = none)\n"
        "  --resume               continue FILE.h5.partial (same case, parameters, grid, nev\n"
        "                         and solver settings, else an error naming the difference)\n"
        "  --quiet                no progress bar\n");
    print_common_options();
}

typedef struct options {
    const char *case_name;
    const char *pose_text;
    const char *table;
    const char *format;
    const char *grid;
    const char *output;
    const char *against;
    int quiet;
    int modes;
    int resume;
    double checkpoint_s;
    double stall_s;
    double mac_threshold;
    double cluster_tol;
    double max_accuracy; /* 0: the library's default */
    int threads;
    double tol_pct;
    int nev;
    pkm_formulation form;
    int form_given; /* --formulation was given; otherwise the case's own */
    pkm_eigensolver eig;
    int nsets;
    const char *sets[MAX_SETS];
} options;

/* Parse "a,b,c" into exactly n finite numbers. */
static int parse_pose(const char *text, int n, double *pose)
{
    const char *p = text;
    for (int k = 0; k < n; k++) {
        char *end = NULL;
        pose[k] = strtod(p, &end);
        if (end == p || !isfinite(pose[k])) return 0;
        p = end;
        if (k + 1 < n) {
            if (*p != ',') return 0;
            p++;
        }
    }
    return *p == '\0';
}

static int parse_int(const char *text, int lo, int hi, int *v)
{
    char *end = NULL;
    long x = strtol(text, &end, 10);
    if (end == text || *end != '\0' || x < lo || x > hi) return 0;
    *v = (int)x;
    return 1;
}

/* The options that take a value: one table serves to recognise them and to dispatch. */
typedef enum opt_id {
    OPT_POSE,
    OPT_TABLE,
    OPT_FORMAT,
    OPT_NEV,
    OPT_TOL,
    OPT_SET,
    OPT_SOLVER,
    OPT_FORMULATION,
    OPT_GRID,
    OPT_OUTPUT,
    OPT_THREADS,
    OPT_AGAINST,
    OPT_CHECKPOINT,
    OPT_MAC_THRESHOLD,
    OPT_CLUSTER_TOL,
    OPT_STALL,
    OPT_MAX_ACCURACY
} opt_id;

static const struct {
    const char *name;
    opt_id id;
} value_options[] = {
    {"--pose", OPT_POSE},
    {"--table", OPT_TABLE},
    {"--format", OPT_FORMAT},
    {"--nev", OPT_NEV},
    {"--tol", OPT_TOL},
    {"--set", OPT_SET},
    {"--solver", OPT_SOLVER},
    {"--formulation", OPT_FORMULATION},
    {"--grid", OPT_GRID},
    {"-o", OPT_OUTPUT},
    {"--output", OPT_OUTPUT},
    {"--threads", OPT_THREADS},
    {"--against", OPT_AGAINST},
    {"--checkpoint", OPT_CHECKPOINT},
    {"--mac-threshold", OPT_MAC_THRESHOLD},
    {"--cluster-tol", OPT_CLUSTER_TOL},
    {"--stall-timeout", OPT_STALL},
    {"--max-accuracy", OPT_MAX_ACCURACY},
};

/* A finite number in [lo, hi]. */
static int parse_real(const char *text, double lo, double hi, double *v)
{
    char *end = NULL;
    const double x = strtod(text, &end);
    if (end == text || *end != '\0' || !(x >= lo && x <= hi)) return 0;
    *v = x;
    return 1;
}

/* Index of a value option in value_options, or -1. */
static int find_value_option(const char *a)
{
    for (size_t k = 0; k < sizeof(value_options) / sizeof(value_options[0]); k++)
        if (strcmp(a, value_options[k].name) == 0) return (int)k;
    return -1;
}

/* Store the value v of entry k of value_options into o; 0 or an exit status. */
static int set_option(options *o, int k, const char *v)
{
    switch (value_options[k].id) {
    case OPT_POSE:
        o->pose_text = v;
        break;
    case OPT_TABLE:
        o->table = v;
        break;
    case OPT_GRID:
        o->grid = v;
        break;
    case OPT_OUTPUT:
        o->output = v;
        break;
    case OPT_AGAINST:
        o->against = v;
        break;
    case OPT_CHECKPOINT:
        if (!parse_real(v, 0.0, 1e9, &o->checkpoint_s))
            return usage_error("--checkpoint '%s': expected seconds >= 0", v);
        break;
    case OPT_STALL:
        if (!parse_real(v, 0.0, 1e9, &o->stall_s))
            return usage_error("--stall-timeout '%s': expected seconds >= 0", v);
        break;
    case OPT_MAX_ACCURACY:
        if (!parse_real(v, 1e-16, 1.0, &o->max_accuracy))
            return usage_error("--max-accuracy '%s': expected a number from 1e-16 to 1", v);
        break;
    case OPT_MAC_THRESHOLD:
        if (!parse_real(v, 0.0, 1.0, &o->mac_threshold))
            return usage_error("--mac-threshold '%s': expected a number from 0 to 1", v);
        break;
    case OPT_CLUSTER_TOL:
        if (!parse_real(v, 0.0, 1.0, &o->cluster_tol))
            return usage_error("--cluster-tol '%s': expected a number from 0 to 1", v);
        break;
    case OPT_FORMAT:
        if (strcmp(v, "table") != 0 && strcmp(v, "csv") != 0)
            return usage_error("--format '%s': expected table or csv", v);
        o->format = v;
        break;
    case OPT_NEV:
        if (!parse_int(v, 1, 100000, &o->nev))
            return usage_error("--nev '%s': expected an integer >= 1", v);
        break;
    case OPT_THREADS:
        if (!parse_int(v, 1, 256, &o->threads))
            return usage_error("--threads '%s': expected an integer from 1 to 256", v);
        break;
    case OPT_TOL: {
        char *end = NULL;
        o->tol_pct = strtod(v, &end);
        if (end == v || *end != '\0' || !(o->tol_pct >= 0.0) || !isfinite(o->tol_pct))
            return usage_error("--tol '%s': expected a percentage >= 0", v);
        break;
    }
    case OPT_SET:
        if (o->nsets == MAX_SETS) return usage_error("too many --set options (max %d)", MAX_SETS);
        if (strchr(v, '=') == NULL) return usage_error("--set '%s': expected KEY=VALUE", v);
        o->sets[o->nsets++] = v;
        break;
    case OPT_FORMULATION:
        if (strcmp(v, "tree") == 0)
            o->form = PKM_FORM_TREE;
        else if (strcmp(v, "nodal") == 0)
            o->form = PKM_FORM_NODAL;
        else
            return usage_error("--formulation '%s': expected tree or nodal", v);
        o->form_given = 1;
        break;
    case OPT_SOLVER:
        if (pkm_eigensolver_type_find(v) == NULL)
            return usage_error("--solver '%s': expected arpack or dense", v);
        o->eig = pkm_eigensolver_type_find(v)->id;
        break;
    }
    return 0;
}

/* Options shared by the subcommands; returns 0 on success, an exit status otherwise, -1 when
 * help was printed. */
static int parse_options(int argc, char **argv, options *o, void (*help)(void))
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help();
            return -1;
        }
        if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        if (strcmp(a, "--modes") == 0) {
            o->modes = 1;
            continue;
        }
        if (strcmp(a, "--resume") == 0) {
            o->resume = 1;
            continue;
        }
        if (a[0] != '-') {
            if (o->case_name != NULL) return usage_error("unexpected argument '%s'", a);
            o->case_name = a;
            continue;
        }
        const int k = find_value_option(a);
        if (k < 0) return usage_error("unknown option '%s'", a);
        if (i + 1 >= argc) return usage_error("option '%s' needs a value", a);
        const int rc = set_option(o, k, argv[++i]);
        if (rc != 0) return rc;
    }
    return 0;
}

/* A case file rather than a built-in name: a path with a '/' or a .yaml / .yml name. */
static int is_case_file(const char *arg)
{
    const size_t n = strlen(arg);
    return strchr(arg, '/') != NULL || (n > 5 && strcmp(arg + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(arg + n - 4, ".yml") == 0);
}

/* The case named on the command line (a built-in or a case file) with its --set overrides
 * applied after the file; the case's formulation unless --formulation was given. */
static int load_case(options *o, const pkm_case **c, void **params)
{
    *params = NULL;
    if (o->case_name == NULL) return usage_error("no CASE given");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_status st;
    if (is_case_file(o->case_name)) {
        st = pkm_case_file_load(o->case_name, c, params, &ctx);
    } else {
        *c = pkm_case_find(o->case_name);
        if (*c == NULL) {
            fprintf(stderr, "%s: error: unknown case '%s'; built-in cases:", prog, o->case_name);
            for (const pkm_case *const *k = pkm_case_list(); *k != NULL; k++)
                fprintf(stderr, " %s", (*k)->name);
            fprintf(stderr, " (or a case file: a path with '/' or ending in .yaml)\n");
            return EXIT_INPUT;
        }
        st = pkm_case_params_create(*c, params, &ctx);
    }
    if (st != PKM_OK) return report(st, &ctx);
    if (!o->form_given) o->form = (*c)->formulation;
    for (int i = 0; i < o->nsets; i++) {
        char key[128];
        const char *eq = strchr(o->sets[i], '=');
        size_t len = (size_t)(eq - o->sets[i]);
        if (len == 0 || len >= sizeof(key)) return usage_error("--set '%s': bad key", o->sets[i]);
        memcpy(key, o->sets[i], len);
        key[len] = '\0';
        st = pkm_case_param_set(*c, *params, key, eq + 1, &ctx);
        if (st != PKM_OK) return report(st, &ctx);
    }
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* `modes` flags a frequency whose accuracy estimate (pkm_modes.accuracy) exceeds this: six
 * significant digits, the ones the table prints for a ~100 Hz mode. */
#define MODES_FLAG_ACCURACY 1e-6

static int cmd_modes(int argc, char **argv)
{
    options o = {.format = "table", .nev = 10, .form = PKM_FORM_TREE, .eig = PKM_EIG_ARPACK};
    int rc = parse_options(argc, argv, &o, print_modes_help);
    if (rc != 0) return rc < 0 ? 0 : rc;
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_model *m = NULL;
    pkm_analysis *an = NULL;
    double pose[16];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if ((rc = load_case(&o, &c, &params)) != 0) goto done;
    if (o.pose_text == NULL) {
        memcpy(pose, c->home, sizeof(double) * (size_t)c->npose);
    } else if (!parse_pose(o.pose_text, c->npose, pose)) {
        fprintf(stderr, "%s: error: --pose '%s': expected %d comma-separated numbers", prog,
                o.pose_text, c->npose);
        for (int k = 0; k < c->npose; k++)
            fprintf(stderr, "%s%s [%s]", k ? ", " : " ", c->pose_names[k], c->pose_units[k]);
        fprintf(stderr, "\n");
        rc = EXIT_INPUT;
        goto done;
    }
    pkm_modal_opts mo = pkm_modal_opts_default();
    mo.nev = o.nev;
    mo.max_accuracy = o.max_accuracy;
    const pkm_modes *md = NULL;
    pkm_assembly_info info;
    const double t0 = now_seconds();
    pkm_status st = c->build(params, pose, &m, &ctx);
    if (st == PKM_OK) st = pkm_analysis_create(o.form, o.eig, &mo, &an, &ctx);
    if (st == PKM_OK) st = pkm_analysis_solve(an, m, &md, &info, &ctx);
    const double t1 = now_seconds();
    if (st != PKM_OK) {
        rc = report(st, &ctx);
        goto done;
    }
    /* A frequency whose rounding-error estimate exceeds MODES_FLAG_ACCURACY holds fewer digits
     * than printed: flagged in the table, its estimate in both formats. */
    int flagged = 0;
    for (int k = md->zero_modes; k < md->nev; k++)
        flagged += md->accuracy[k] > MODES_FLAG_ACCURACY;
    if (strcmp(o.format, "csv") == 0) {
        printf("mode,freq_hz,residual,accuracy\n");
        for (int k = 0; k < md->nev; k++)
            printf("%d,%.10g,%.3e,%.2e\n", k + 1, md->freq_hz[k], md->residual[k], md->accuracy[k]);
    } else {
        printf("# %s at", o.case_name);
        for (int k = 0; k < c->npose; k++)
            printf(" %s = %g %s", c->pose_names[k], pose[k], c->pose_units[k]);
        printf("\n# %lld independent coordinates (%lld before loop closure), %s formulation, %s,"
               " %.3f ms\n",
               (long long)info.n_reduced, (long long)info.n_total,
               o.form == PKM_FORM_TREE ? "tree" : "nodal",
               o.eig == PKM_EIG_ARPACK ? "ARPACK shift-invert" : "LAPACK dense", 1e3 * (t1 - t0));
        printf("# M-orthonormality error %.1e\n", md->orth_error);
        printf("%4s  %14s  %10s  %9s\n", "mode", "freq [Hz]", "residual", "accuracy");
        for (int k = 0; k < md->nev; k++)
            printf("%4d  %14.6f  %10.2e  %9.1e%s\n", k + 1, md->freq_hz[k], md->residual[k],
                   md->accuracy[k],
                   k >= md->zero_modes && md->accuracy[k] > MODES_FLAG_ACCURACY ? "  !" : "");
        if (flagged > 0)
            printf("# ! %d frequenc%s whose relative rounding error may exceed %.0e (the "
                   "accuracy column): the mesh is too fine for double precision\n",
                   flagged, flagged == 1 ? "y" : "ies", MODES_FLAG_ACCURACY);
    }
    rc = 0;
done:
    pkm_analysis_destroy(&an);
    pkm_model_destroy(&m);
    pkm_case_params_destroy(&params);
    return rc;
}

/* "x = 0.1 m, y = -0.2 m" for point p of map. */
static void point_text(const pkm_map *map, int64_t p, char *out, size_t cap)
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

/* compare F.h5 --against REF.h5: the relative difference per mode rank over the poses computed
 * in both maps. */
static int compare_maps(const options *o)
{
    if (o->case_name == NULL) return usage_error("compare --against: no map file F.h5 given");
    if (o->table != NULL) return usage_error("compare: --table and --against exclude each other");
    pkm_map a, b;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int rc = 0;
    double *sum = NULL, *worst = NULL;
    int64_t *worst_p = NULL;
    pkm_status st = pkm_map_read_h5(o->case_name, &a, &ctx);
    if (st == PKM_OK) st = pkm_map_read_h5(o->against, &b, &ctx);
    if (st != PKM_OK) {
        rc = report(st, &ctx);
        goto done;
    }
    if ((st = pkm_map_same_grid(&a, &b, &ctx)) != PKM_OK) {
        fprintf(stderr, "%s: error: %s and %s have different grids: %s\n", prog, o->case_name,
                o->against, ctx.msg);
        rc = EXIT_INPUT;
        goto done;
    }
    const int nev = a.nev < b.nev ? a.nev : b.nev;
    sum = calloc((size_t)nev, sizeof(*sum));
    worst = calloc((size_t)nev, sizeof(*worst));
    worst_p = calloc((size_t)nev, sizeof(*worst_p));
    if (sum == NULL || worst == NULL || worst_p == NULL) {
        fprintf(stderr, "%s: error: out of memory\n", prog);
        rc = EXIT_COMPUTE;
        goto done;
    }
    for (int k = 0; k < nev; k++)
        worst[k] = -1.0;
    int64_t both = 0, differ = 0;
    for (int64_t p = 0; p < a.npoints; p++) {
        const int oka = a.status[p] == PKM_POSE_OK, okb = b.status[p] == PKM_POSE_OK;
        if (oka != okb) differ++;
        if (!oka || !okb) continue;
        both++;
        for (int k = 0; k < nev; k++) {
            const double fa = a.freq_hz[p * a.nev + k], fb = b.freq_hz[p * b.nev + k];
            const double d = (fa == fb) ? 0.0 : fabs(fa - fb) / fabs(fb);
            sum[k] += d;
            if (d > worst[k]) {
                worst[k] = d;
                worst_p[k] = p;
            }
        }
    }
    printf("# %s (%s) against %s (%s): %lld poses computed in both, %lld in one only "
           "(tolerance %g %%)\n",
           o->case_name, a.case_name, o->against, b.case_name, (long long)both, (long long)differ,
           o->tol_pct);
    if (a.nev != b.nev) printf("# %d and %d modes: the first %d compared\n", a.nev, b.nev, nev);
    printf("%4s  %12s  %12s  %s\n", "mode", "max [%]", "mean [%]", "worst pose");
    double max_all = 0.0;
    int max_mode = 1;
    for (int k = 0; k < nev && both > 0; k++) {
        char where[512];
        point_text(&a, worst_p[k], where, sizeof(where));
        printf("%4d  %12.6g  %12.6g  %s\n", k + 1, 100.0 * worst[k], 100.0 * sum[k] / both, where);
        if (worst[k] > max_all) max_all = worst[k], max_mode = k + 1;
    }
    const int ok = both > 0 && differ == 0 && 100.0 * max_all <= o->tol_pct;
    if (both > 0)
        printf("# max difference %.6g %% (mode %d)%s\n", 100.0 * max_all, max_mode,
               differ > 0 ? ", and poses computed in one map only" : "");
    else
        printf("# no pose computed in both maps\n");
    printf("# %s\n", ok ? "all within tolerance" : "OUT OF TOLERANCE");
    rc = ok ? 0 : EXIT_TOL;
done:
    free(sum);
    free(worst);
    free(worst_p);
    pkm_map_free(&a);
    pkm_map_free(&b);
    return rc;
}

static int cmd_compare(int argc, char **argv)
{
    options o = {.tol_pct = 0.05, .nev = 0, .form = PKM_FORM_TREE, .eig = PKM_EIG_ARPACK};
    int rc = parse_options(argc, argv, &o, print_compare_help);
    if (rc != 0) return rc < 0 ? 0 : rc;
    if (o.against != NULL) return compare_maps(&o);
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_table *tab = NULL;
    pkm_analysis *an = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if ((rc = load_case(&o, &c, &params)) != 0) goto done;
    if (o.table == NULL) {
        rc = usage_error("compare: --table FILE is required");
        goto done;
    }
    pkm_status st = pkm_table_read(o.table, c->npose, &tab, &ctx);
    if (st != PKM_OK) {
        rc = report(st, &ctx);
        goto done;
    }
    pkm_modal_opts mo = pkm_modal_opts_default();
    mo.nev = (o.nev > tab->nfreq) ? o.nev : tab->nfreq;
    if ((st = pkm_analysis_create(o.form, o.eig, &mo, &an, &ctx)) != PKM_OK) {
        rc = report(st, &ctx);
        goto done;
    }
    printf("# %s against %s (tolerance %g %%)\n", o.case_name, o.table, o.tol_pct);
    printf("%4s  %4s  %12s  %12s  %10s  %9s\n", "pose", "mode", "ref [Hz]", "pkmflex [Hz]",
           "error [%]", "residual");
    double worst = 0.0, worst_res = 0.0, t_total = 0.0;
    int worst_pose = 0, worst_mode = 0;
    for (int r = 0; r < tab->nrows; r++) {
        const double *pose = tab->pose + (size_t)r * (size_t)c->npose;
        pkm_model *m = NULL;
        const pkm_modes *md = NULL;
        const double t0 = now_seconds();
        st = c->build(params, pose, &m, &ctx);
        if (st == PKM_OK) st = pkm_analysis_solve(an, m, &md, NULL, &ctx);
        t_total += now_seconds() - t0;
        pkm_model_destroy(&m);
        if (st != PKM_OK) {
            fprintf(stderr, "%s: error: pose %d of %s: %s\n", prog, tab->id[r], o.table, ctx.msg);
            rc = exit_status_of(st);
            goto done;
        }
        for (int k = 0; k < tab->nfreq; k++) {
            const double ref = tab->freq[(size_t)r * (size_t)tab->nfreq + (size_t)k];
            const double err = 100.0 * fabs(md->freq_hz[k] - ref) / ref;
            printf("%4d  %4d  %12.4f  %12.4f  %10.4f  %9.1e%s\n", tab->id[r], k + 1, ref,
                   md->freq_hz[k], err, md->residual[k], err > o.tol_pct ? "  OUT" : "");
            if (err > worst) worst = err, worst_pose = tab->id[r], worst_mode = k + 1;
            if (md->residual[k] > worst_res) worst_res = md->residual[k];
        }
    }
    printf("# max error %.4f %% (pose %d, mode %d), worst residual %.1e, %.3f ms per pose\n", worst,
           worst_pose, worst_mode, worst_res, 1e3 * t_total / tab->nrows);
    printf("# %s\n", worst <= o.tol_pct ? "all within tolerance" : "OUT OF TOLERANCE");
    rc = (worst <= o.tol_pct) ? 0 : EXIT_TOL;
done:
    pkm_analysis_destroy(&an);
    pkm_table_destroy(&tab);
    pkm_case_params_destroy(&params);
    return rc;
}

/* Parse "x=-0.1:0.1:21,theta=0:1:5" into the map's axes. */
static int parse_grid(const char *spec, const pkm_case *c, pkm_map *map)
{
    const char *p = spec;
    map->naxes = 0;
    while (*p != '\0') {
        if (map->naxes == PKM_MAP_MAX_AXES)
            return usage_error("--grid '%s': at most %d axes", spec, PKM_MAP_MAX_AXES);
        const char *eq = strchr(p, '=');
        if (eq == NULL) return usage_error("--grid '%s': expected AXIS=START:STOP:COUNT", spec);
        const size_t len = (size_t)(eq - p);
        int idx = -1;
        for (int k = 0; k < c->npose; k++)
            if (strlen(c->pose_names[k]) == len && strncmp(p, c->pose_names[k], len) == 0) idx = k;
        if (idx < 0)
            return usage_error("--grid: '%.*s' is not a pose coordinate of %s", (int)len, p,
                               c->name);
        for (int a = 0; a < map->naxes; a++)
            if (map->axes[a].pose_index == idx)
                return usage_error("--grid: axis '%s' given twice", c->pose_names[idx]);
        pkm_map_axis *ax = &map->axes[map->naxes];
        char *end = NULL;
        ax->start = strtod(eq + 1, &end);
        if (end == eq + 1 || *end != ':' || !isfinite(ax->start))
            return usage_error("--grid '%s': bad START for axis '%s'", spec, c->pose_names[idx]);
        const char *q = end + 1;
        ax->stop = strtod(q, &end);
        if (end == q || *end != ':' || !isfinite(ax->stop))
            return usage_error("--grid '%s': bad STOP for axis '%s'", spec, c->pose_names[idx]);
        q = end + 1;
        long n = strtol(q, &end, 10);
        if (end == q || (*end != ',' && *end != '\0') || n < 1 || n > 10000000)
            return usage_error("--grid '%s': COUNT of axis '%s' must be an integer >= 1", spec,
                               c->pose_names[idx]);
        ax->count = (int)n;
        ax->pose_index = idx;
        snprintf(ax->name, sizeof(ax->name), "%s", c->pose_names[idx]);
        snprintf(ax->unit, sizeof(ax->unit), "%s", c->pose_units[idx]);
        map->naxes++;
        p = (*end == ',') ? end + 1 : end;
    }
    if (map->naxes == 0) return usage_error("--grid '%s': no axis", spec);
    return 0;
}

typedef struct progress {
    double t0, last;
} progress;

/* A progress bar with rate and time left, redrawn at most 10 times a second. */
static void show_progress(int64_t done, int64_t total, void *user)
{
    progress *pg = user;
    const double t = now_seconds();
    if (done < total && t - pg->last < 0.1) return;
    pg->last = t;
    const double rate = done / fmax(t - pg->t0, 1e-9), frac = (double)done / (double)total;
    char bar[31];
    const int fill = (int)(30 * frac);
    for (int k = 0; k < 30; k++)
        bar[k] = (k < fill) ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r[%s] %3.0f%% %lld/%lld poses, %.0f poses/s, %.1f s left ", bar, 100.0 * frac,
            (long long)done, (long long)total, rate, (double)(total - done) / rate);
    if (done == total) fprintf(stderr, "\n");
}

/* What the sweep's callbacks need: the progress bar and the checkpoint file. */
typedef struct sweep_ui {
    progress pg;
    int bar;
    const char *partial; /* FILE.h5.partial */
} sweep_ui;

static void sweep_progress(int64_t done, int64_t total, void *user)
{
    sweep_ui *ui = user;
    if (ui->bar) show_progress(done, total, &ui->pg);
}

/* The library's notices (e.g. modes that will not be tracked) as warnings, at once. */
static void sweep_notice(const char *msg, void *user)
{
    (void)user;
    fprintf(stderr, "%s: warning: modes will not be tracked: %s\n", prog, msg);
}

static pkm_status sweep_checkpoint(const pkm_map *snap, void *user, pkm_ctx *ctx)
{
    const sweep_ui *ui = user;
    return pkm_map_write_h5(snap, ui->partial, ctx);
}

/* The map's settings from the command line: grid, base pose, case parameters, solver and
 * tracking settings; 0 or an exit status. */
static int map_setup(const options *o, const pkm_case *c, const void *params, pkm_map *map)
{
    pkm_map_init(map);
    int rc = parse_grid(o->grid, c, map);
    if (rc != 0) return rc;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st =
        pkm_map_set_case(map, c, params, is_case_file(o->case_name) ? o->case_name : NULL, &ctx);
    if (st != PKM_OK) return report(st, &ctx);
    map->npose = c->npose;
    for (int k = 0; k < c->npose; k++)
        snprintf(map->pose_names[k], sizeof(map->pose_names[k]), "%s", c->pose_names[k]);
    memcpy(map->base_pose, c->home, sizeof(double) * (size_t)c->npose);
    if (o->pose_text != NULL && !parse_pose(o->pose_text, c->npose, map->base_pose))
        return usage_error("--pose '%s': expected %d comma-separated numbers", o->pose_text,
                           c->npose);
    size_t len = 0;
    for (int i = 0; i < o->nsets; i++) {
        len += (size_t)snprintf(map->case_params + len, sizeof(map->case_params) - len, "%s%s",
                                i > 0 ? ";" : "", o->sets[i]);
        if (len >= sizeof(map->case_params))
            return usage_error("--set: the parameters take more than %zu characters",
                               sizeof(map->case_params) - 1);
    }
    map->nev = o->nev;
    map->formulation = o->form;
    map->eigensolver = o->eig;
    map->opts.nev = o->nev;
    map->track.mac_threshold = o->mac_threshold;
    map->track.cluster_tol = o->cluster_tol;
    return 0;
}

/* -o F.h5: F.h5 and F.h5.partial are replaced by rename(2), which would put a regular file in
 * place of a symbolic link or a device node: such names are refused (exit 2) instead. */
static int check_output_name(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
    fprintf(stderr, "%s: error: -o: %s is a %s, not a regular file: not replaced\n", prog, path,
            S_ISLNK(st.st_mode)   ? "symbolic link"
            : S_ISDIR(st.st_mode) ? "directory"
                                  : "device");
    return EXIT_INPUT;
}

/* An exclusive lock on F.h5.lock for the whole run, so that two runs on one -o cannot remove
 * each other's temporary files or checkpoint. The lock file holds the owner's pid; it is removed
 * by its owner at the end, and a run that locked a file just removed tries again. *fd: the
 * open lock (inherited by the workers), or -1 with an exit status returned. */
static int take_lock(const char *lock, int *fd)
{
    for (int attempt = 0; attempt < 10; attempt++) {
        *fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (*fd < 0) {
            fprintf(stderr, "%s: error: -o: cannot create the lock file %s: %s\n", prog, lock,
                    strerror(errno));
            return EXIT_INPUT;
        }
        if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
            char pid[32] = "";
            const ssize_t n = read(*fd, pid, sizeof(pid) - 1);
            pid[n > 0 ? n : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            fprintf(stderr,
                    "%s: error: -o: another pkmflex (pid %s) is writing this map: %s is locked\n",
                    prog, pid[0] ? pid : "unknown", lock);
            close(*fd);
            *fd = -1;
            return EXIT_INPUT;
        }
        struct stat a, b;
        if (fstat(*fd, &a) == 0 && stat(lock, &b) == 0 && a.st_ino == b.st_ino &&
            a.st_dev == b.st_dev) {
            char pid[32];
            const int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
            if (ftruncate(*fd, 0) != 0 || write(*fd, pid, (size_t)n) != n) {
                /* the pid is for the message of a second run only */
            }
            return 0;
        }
        close(*fd); /* the previous owner removed it between our open and flock */
    }
    fprintf(stderr, "%s: error: -o: cannot lock %s\n", prog, lock);
    *fd = -1;
    return EXIT_INPUT;
}

static void release_lock(const char *lock, int fd)
{
    if (fd < 0) return;
    unlink(lock);
    close(fd);
}

/* Refuse (exit 2) a map whose arrays cannot fit in the free memory or whose file and checkpoint
 * cannot fit on the output's file system, naming the sizes and what to change. */
static int check_resources(const pkm_map *map, const options *o)
{
    const pkm_map_needs need = pkm_map_estimate(map, o->threads);
    const double gib = 1073741824.0, mem = pkm_map_memory_free();
    double np = 1.0;
    for (int a = 0; a < map->naxes; a++)
        np *= map->axes[a].count;
    if (!o->quiet && isatty(STDERR_FILENO)) /* beside the progress bar */
        fprintf(stderr,
                "%s: map of %.0f poses x %d modes: %.3g GiB of memory, %.3g GiB of disk (and the "
                "mode vectors, known at the first pose)\n",
                prog, np, map->nev, need.memory / gib, need.disk / gib);
    if (mem > 0.0 && need.memory > mem) {
        fprintf(stderr,
                "%s: error: --grid: the map needs %.3g GiB of memory, %.3g GiB is free: fewer "
                "grid points or modes (--grid COUNT, --nev)\n",
                prog, need.memory / gib, mem / gib);
        return EXIT_INPUT;
    }
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", o->output);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else
        slash[slash == dir ? 1 : 0] = '\0';
    struct statvfs vfs;
    if (statvfs(dir, &vfs) == 0) {
        const double disk = (double)vfs.f_bavail * (double)vfs.f_frsize;
        if (need.disk > disk) {
            fprintf(stderr,
                    "%s: error: -o: the map and its checkpoint need %.3g GiB of disk, %.3g GiB "
                    "is free in %s: fewer grid points or modes (--grid COUNT, --nev), or "
                    "another -o\n",
                    prog, need.disk / gib, disk / gib, dir);
            return EXIT_INPUT;
        }
    }
    return 0;
}

/* --resume: *map becomes the checkpoint, which must continue the computation map describes. */
static int resume_from(const char *partial, pkm_map *map)
{
    pkm_map prev;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (access(partial, F_OK) != 0) {
        fprintf(stderr, "%s: error: --resume: no checkpoint %s to continue\n", prog, partial);
        return EXIT_INPUT;
    }
    pkm_status st = pkm_map_read_h5(partial, &prev, &ctx);
    if (st != PKM_OK) {
        fprintf(stderr, "%s: error: --resume: %s\n", prog, ctx.msg);
        return EXIT_INPUT;
    }
    if (pkm_map_same_setup(&prev, map, &ctx) != PKM_OK) {
        fprintf(stderr,
                "%s: error: --resume: %s is another computation: %s (checkpoint against this "
                "command)\n",
                prog, partial, ctx.msg);
        pkm_map_free(&prev);
        return EXIT_INPUT;
    }
    prev.keep_modes = map->keep_modes;
    prev.track_bytes = map->track_bytes;
    pkm_map_free(map);
    *map = prev;
    return 0;
}

/* The summary of a written map: pose counts by status, frequency ranges, tracking. */
static void print_map_summary(const pkm_map *map, const pkm_case *c, double elapsed)
{
    int64_t count[4] = {0};
    for (int64_t p = 0; p < map->npoints; p++)
        if (map->status[p] >= 0 && map->status[p] <= 3) count[map->status[p]]++;
    printf("# %s map, %lld poses in %.3f s (%.0f poses/s): %lld ok, %lld unreachable, "
           "%lld singular, %lld failed\n",
           c->name, (long long)map->npoints, elapsed, map->npoints / fmax(elapsed, 1e-9),
           (long long)count[0], (long long)count[1], (long long)count[2], (long long)count[3]);
    for (int k = 0; k < map->nev && count[0] > 0; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t p = 0; p < map->npoints; p++)
            if (map->status[p] == PKM_POSE_OK) {
                lo = fmin(lo, map->freq_hz[p * map->nev + k]);
                hi = fmax(hi, map->freq_hz[p * map->nev + k]);
            }
        printf("f%-3d %10.4f .. %10.4f Hz\n", k + 1, lo, hi);
    }
    if (map->tracking == PKM_TRACK_MAC) {
        int64_t links = 0, low = 0;
        double worst = 1.0;
        for (int64_t p = 0; p < map->npoints; p++) {
            if (map->tracking_parent[p] < 0) continue;
            links++;
            for (int k = 0; k < map->nev; k++) {
                const double m = map->tracking_mac[p * map->nev + k];
                low += m < map->track.mac_threshold;
                worst = fmin(worst, m);
            }
        }
        printf("# modes tracked by MAC over %lld links: %lld mode links below %g (lowest %.3f)\n",
               (long long)links, (long long)low, map->track.mac_threshold, worst);
    } else {
        printf("# modes ranked by frequency, not tracked: %s\n", map->tracking_note);
    }
}

static int cmd_map(int argc, char **argv)
{
    const pkm_track_opts tdef = pkm_track_opts_default();
    options o = {.nev = 8,
                 .form = PKM_FORM_TREE,
                 .eig = PKM_EIG_ARPACK,
                 .threads = 1,
                 .checkpoint_s = 5.0,
                 .mac_threshold = tdef.mac_threshold,
                 .cluster_tol = tdef.cluster_tol};
    int rc = parse_options(argc, argv, &o, print_map_help);
    if (rc != 0) return rc < 0 ? 0 : rc;
    /* Map files do not record it yet, so a resumed map could not be checked against it. */
    if (o.max_accuracy > 0.0) return usage_error("map: --max-accuracy is a modes option");
    const pkm_case *c = NULL;
    void *params = NULL;
    char *partial = NULL, *lock = NULL;
    int lock_fd = -1;
    pkm_map map;
    pkm_map_init(&map);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if ((rc = load_case(&o, &c, &params)) != 0) goto done;
    if (o.grid == NULL || o.output == NULL) {
        rc = usage_error("map: --grid and -o FILE.h5 are required");
        goto done;
    }
    if ((rc = map_setup(&o, c, params, &map)) != 0) goto done;
    map.keep_modes = o.modes;
    const size_t plen = strlen(o.output) + sizeof(".partial");
    partial = malloc(plen);
    lock = malloc(plen);
    if (partial == NULL || lock == NULL) {
        fprintf(stderr, "%s: error: out of memory\n", prog);
        rc = EXIT_COMPUTE;
        goto done;
    }
    snprintf(partial, plen, "%s.partial", o.output);
    snprintf(lock, plen, "%s.lock", o.output);
    if ((rc = check_output_name(o.output)) != 0 || (rc = check_output_name(partial)) != 0 ||
        (rc = take_lock(lock, &lock_fd)) != 0 || (rc = check_resources(&map, &o)) != 0)
        goto done;
    pkm_status st = PKM_OK;
    if (o.resume) {
        if ((rc = resume_from(partial, &map)) != 0) goto done;
    } else if (access(partial, F_OK) == 0) {
        /* A checkpoint is somebody's hours of work: never overwrite it unasked. */
        fprintf(stderr,
                "%s: error: %s exists (an interrupted sweep): continue it with --resume, or "
                "remove it\n",
                prog, partial);
        rc = EXIT_INPUT;
        goto done;
    } else if ((st = pkm_map_alloc(&map, &ctx)) != PKM_OK) {
        rc = report(st, &ctx);
        goto done;
    }
    sweep_ui ui = {{now_seconds(), 0.0}, !o.quiet && isatty(STDERR_FILENO), partial};
    pkm_sweep_opts so = pkm_sweep_opts_default();
    so.nworkers = o.threads;
    so.progress = sweep_progress;
    so.checkpoint = o.checkpoint_s > 0.0 ? sweep_checkpoint : NULL;
    so.checkpoint_interval = o.checkpoint_s;
    so.notice = sweep_notice;
    so.stall_timeout = o.stall_s;
    so.user = &ui;
    st = pkm_map_sweep(c, params, &map, &so, &ctx);
    const double elapsed = now_seconds() - ui.pg.t0;
    if (st != PKM_OK) {
        rc = report_late(st, &ctx);
        goto done;
    }
    /* The vectors were kept for tracking; they go to the file only with --modes. */
    if (!o.modes) pkm_map_free_modes(&map);
    st = pkm_map_write_h5(&map, o.output, &ctx);
    if (st != PKM_OK) {
        rc = report_late(st, &ctx);
        goto done;
    }
    if (unlink(partial) != 0 && errno != ENOENT)
        fprintf(stderr, "%s: warning: cannot remove %s: %s\n", prog, partial, strerror(errno));
    print_map_summary(&map, c, elapsed);
    printf("# written to %s\n", o.output);
    rc = 0;
done:
    release_lock(lock, lock_fd);
    pkm_map_free(&map);
    free(partial);
    free(lock);
    pkm_case_params_destroy(&params);
    return rc;
}

static void print_cases_help(void)
{
    printf("usage: pkmflex cases [--show NAME]\n\n"
           "Lists the built-in robots and their pose coordinates; with --show, prints the case\n"
           "file of the built-in NAME (every parameter, with its source): a starting point for\n"
           "your own case file.\n");
}

static int cmd_cases(int argc, char **argv)
{
    if (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
        print_cases_help();
        return 0;
    }
    if (argc == 4 && strcmp(argv[2], "--show") == 0) {
        const pkm_case *c = pkm_case_find(argv[3]);
        if (c == NULL) return usage_error("cases --show: unknown case '%s'", argv[3]);
        fputs(c->yaml, stdout);
        return 0;
    }
    if (argc != 2) return usage_error("cases: expected no argument or --show NAME");
    for (const pkm_case *const *c = pkm_case_list(); *c != NULL; c++) {
        printf("%s: %s\n  pose:", (*c)->name, (*c)->description);
        for (int k = 0; k < (*c)->npose; k++)
            printf(" %s [%s]", (*c)->pose_names[k], (*c)->pose_units[k]);
        printf("\n  parameters: pkmflex cases --show %s\n", (*c)->name);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage_error("no command given; usage: pkmflex <command> [options]");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        print_main_help();
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("pkmflex %s\n", PKM_VERSION_STRING);
        return 0;
    }
    if (strcmp(cmd, "modes") == 0) return cmd_modes(argc, argv);
    if (strcmp(cmd, "compare") == 0) return cmd_compare(argc, argv);
    if (strcmp(cmd, "map") == 0) return cmd_map(argc, argv);
    if (strcmp(cmd, "cases") == 0) return cmd_cases(argc, argv);
    return usage_error("unknown command '%s'", cmd);
}
