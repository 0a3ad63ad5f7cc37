/* cli/transient.c: pkmflex transient: a case's elastodynamics along a trajectory (KED, Newmark),
 * the platform's elastic error over time.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L /* isatty */

#include "cli/cli.h"
#include "pkm/dynamics.h"
#include "pkm/io.h"
#include "pkm/transient.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    TR_DURATION = CLI_OPT_OWN,
    TR_DT,
    TR_DAMPING,
    TR_RAYLEIGH,
    TR_GRAVITY,
    TR_DRIVES,
    TR_UPDATE,
    TR_START,
    TR_INITIAL,
    TR_FREQUENCIES
};

typedef struct tr_args {
    cli_case_args c;
    cli_run_args run; /* --trajectory, --format, -o, --singular */
    const char *damping, *rayleigh;
    const char *wrench; /* --wrench, or NULL */
    int elastic;        /* --drives elastic */
    double duration, dt, start;
    int gravity, update_every, initial; /* initial: -1 default, 0 zero, 1 static */
    int nfreq;                          /* --frequencies K */
} tr_args;

static const cli_option tr_options[] = {
    CLI_OPTION_TRAJECTORY,
    {"--duration", NULL, 1, TR_DURATION, "T", "time integrated, s (default: the trajectory's)",
     NULL},
    {"--start", NULL, 1, TR_START, "T0",
     "time of the first step, s (default: the trajectory's start);\n"
     "the rigid closure is followed there from the start",
     NULL},
    {"--dt", NULL, 1, TR_DT, "DT", "time step, s (default 1e-3)", NULL},
    {"--damping", NULL, 1, TR_DAMPING, "Z1@F1,Z2@F2",
     "Rayleigh damping from two ratios at two frequencies (Hz),\n"
     "e.g. 0.02@100,0.02@350, or at two mode numbers of the\n"
     "start pose, e.g. 0.02@mode1,0.02@mode3",
     NULL},
    {"--rayleigh", NULL, 1, TR_RAYLEIGH, "L1,L2",
     "Rayleigh damping C = L1 M + L2 K (L1 in 1/s, L2 in s)", NULL},
    {"--gravity", NULL, 0, TR_GRAVITY, NULL,
     "load the model with the case's gravity (gravity.x/y/z)", NULL},
    {"--initial", NULL, 1, TR_INITIAL, "zero|static",
     "U(0) = 0, or the quasi-static deflection under the loads at\n"
     "the start (from rest: the weight alone); default: static\n"
     "with --gravity, zero without",
     NULL},
    {"--drives", NULL, 1, TR_DRIVES, "locked|elastic",
     "locked: ideal position servos (default): their reactions\n"
     "where the model locks the drives alone (navaro: --set\n"
     "clutch.locked=drive), else the rigid-body drives; elastic:\n"
     "the case's drive springs (--set motor.k=K, clutch.k1=K)\n"
     "loaded by the rigid-body drives: the drives' forces, then\n"
     "a defl_<joint> column per drive (rad or m)",
     NULL},
    CLI_OPTION_WRENCH,
    {"--frequencies", NULL, 1, TR_FREQUENCIES, "K",
     "the lowest K natural frequencies at every configuration\n"
     "update, from the same M(q), K(q): csv columns f1..fK (Hz)\n"
     "after the drives, HDF5 /frequencies",
     NULL},
    {"--update-every", NULL, 1, TR_UPDATE, "N",
     "reassemble M and K at the rigid configuration every N steps\n"
     "(default 1; 0: fixed at the start pose)",
     NULL},
    CLI_OPTION_FORMAT,
    CLI_OPTION_OUTPUT,
    CLI_OPTION_SINGULAR,
    CLI_OPTION_SET,
    {"--formulation", NULL, 1, CLI_OPT_FORMULATION, "F", NULL, cli_formulation_help},
};

static const cli_command tr_command = {
    "transient",
    "usage: pkmflex transient CASE [--trajectory NAME|FILE.csv] [--duration T] [--dt DT]\n"
    "                         [--damping Z1@F1,Z2@F2 | --damping Z1@modeN1,Z2@modeN2 |\n"
    "                          --rayleigh L1,L2] [--gravity] [--frequencies K]\n"
    "                         [--start T0] [--initial zero|static] [--drives locked|elastic]\n"
    "                         [--wrench FX,FY,FZ,MX,MY,MZ|FILE.csv] [--update-every N]\n"
    "                         [--format table|csv|json] [-o FILE.h5]\n"
    "                         [--singular R] [--formulation F] [--set KEY=VALUE ...]\n\n"
    "Elastodynamics of CASE along a trajectory (Li et al. 2020, eq. 37, by Newmark's average\n"
    "acceleration): the finite-element model rebuilt at the rigid configuration, loaded by the\n"
    "inertia of the rigid motion (and gravity). One row per step: the time, the platform's\n"
    "elastic error (translations m, rotations rad, global axes, at the platform's reference\n"
    "point) and the drive of each actuated joint (N or N m: the reaction at the locked drive,\n"
    "or the rigid-body drive where the model does not lock the drives alone); the table adds the\n"
    "quasi-static error K^-1 F. Bad input is one line, exit 2, before any step is computed; a\n"
    "singular rigid configuration on the way stops with exit 3 naming the time.\n\n",
    tr_options, (int)(sizeof(tr_options) / sizeof(tr_options[0])), 0};

static int tr_set(void *user, int id, const char *v)
{
    tr_args *o = user;
    int rc = 0;
    if (cli_run_option(&o->run, id, v, &rc)) return rc;
    switch (id) {
    case TR_DURATION:
        if (!cli_parse_real(v, -1e300, 1e300, &o->duration))
            return cli_usage_error("--duration '%s': expected a number of seconds", v);
        return 0;
    case TR_START:
        if (!cli_parse_real(v, -1e300, 1e300, &o->start))
            return cli_usage_error("--start '%s': expected a number of seconds", v);
        return 0;
    case TR_DT:
        if (!cli_parse_real(v, -1e300, 1e300, &o->dt))
            return cli_usage_error("--dt '%s': expected a number of seconds", v);
        return 0;
    case TR_DAMPING:
        o->damping = v;
        return 0;
    case TR_RAYLEIGH:
        o->rayleigh = v;
        return 0;
    case TR_GRAVITY:
        o->gravity = 1;
        return 0;
    case TR_INITIAL:
        if (strcmp(v, "zero") != 0 && strcmp(v, "static") != 0)
            return cli_usage_error("--initial '%s': expected zero or static", v);
        o->initial = strcmp(v, "static") == 0;
        return 0;
    case TR_DRIVES:
        if (strcmp(v, "locked") != 0 && strcmp(v, "elastic") != 0)
            return cli_usage_error("--drives '%s': expected locked or elastic", v);
        o->elastic = strcmp(v, "elastic") == 0;
        return 0;
    case CLI_OPT_WRENCH:
        o->wrench = v;
        return 0;
    case TR_UPDATE:
        if (!cli_parse_int(v, 0, 1000000000, &o->update_every))
            return cli_usage_error("--update-every '%s': expected an integer >= 0", v);
        return 0;
    case TR_FREQUENCIES:
        if (!cli_parse_int(v, 1, 1000, &o->nfreq))
            return cli_usage_error("--frequencies '%s': expected an integer from 1 to 1000", v);
        return 0;
    default:
        return cli_case_set(&o->c, id, v);
    }
}

/* --damping Z1@F1,Z2@F2 or --rayleigh L1,L2 into opts (l1, l2), or --damping
 * Z1@modeN1,Z2@modeN2 into the mode numbers the run resolves at its start pose; 0 or exit 2. */
static int tr_damping(const tr_args *a, pkm_transient_opts *opts)
{
    pkm_newmark_opts *nm = &opts->nm;
    if (a->damping != NULL && a->rayleigh != NULL)
        return cli_usage_error("--damping and --rayleigh: give one of them");
    if (a->rayleigh != NULL) {
        char tail = 0;
        if (sscanf(a->rayleigh, "%lf,%lf%c", &nm->l1, &nm->l2, &tail) != 2 ||
            !(isfinite(nm->l1) && nm->l1 >= 0.0 && isfinite(nm->l2) && nm->l2 >= 0.0))
            return cli_usage_error("--rayleigh '%s': expected L1,L2, both >= 0", a->rayleigh);
    }
    if (a->damping == NULL) return 0;
    double z1, f1, z2, f2;
    int m1, m2;
    char tail = 0;
    if (sscanf(a->damping, "%lf@mode%d,%lf@mode%d%c", &z1, &m1, &z2, &m2, &tail) == 4) {
        if (m1 < 1 || m2 < 1 || m1 == m2)
            return cli_usage_error("--damping '%s': two different mode numbers from 1", a->damping);
        if (!(isfinite(z1) && z1 >= 0.0 && isfinite(z2) && z2 >= 0.0))
            return cli_usage_error("--damping '%s': damping ratios must be >= 0", a->damping);
        opts->damping_mode[0] = m1, opts->damping_mode[1] = m2;
        opts->damping_zeta[0] = z1, opts->damping_zeta[1] = z2;
        return 0;
    }
    if (sscanf(a->damping, "%lf@%lf,%lf@%lf%c", &z1, &f1, &z2, &f2, &tail) != 4)
        return cli_usage_error(
            "--damping '%s': expected ZETA1@F1,ZETA2@F2 (F in Hz) or ZETA1@modeN1,ZETA2@modeN2",
            a->damping);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_rayleigh_from_ratios(z1, f1, z2, f2, &nm->l1, &nm->l2, &ctx);
    return st == PKM_OK ? 0 : cli_usage_error("--damping '%s': %s", a->damping, ctx.msg);
}

/* What the sink needs; with -o, every row kept (cols->ndrive drive columns per time). */
typedef struct tr_out {
    const pkm_case *c;
    const void *params;
    int csv, rc, nfreq, elastic;
    double start;
    int64_t cap, n, total; /* total: the run's rows, for the progress bar */
    int64_t done;          /* rows printed */
    double *t, *error, *qs, *energy, *drive, *reaction, *deflection, *freq, *cond;
    double cond_min, cond_t;     /* the lowest conditioning of the run and its time */
    cli_progress *bar;           /* on a terminal, else NULL */
    cli_estimate est;            /* announced when long (cli_estimate_tick) */
    pkm_transient_columns *cols; /* the rows' columns (pkm/transient.h) */
    cli_rows rows;               /* their printer */
    double *v;                   /* one row's values */
} tr_out;

/* One row, after the header at the first (so that a run refused before its first step prints
 * nothing). */
static int tr_row(void *user, const pkm_transient_row *r)
{
    tr_out *o = user;
    /* Ctrl-C or a failed write: stop before this row, so that stdout and -o hold whole rows. */
    if (cli_interrupted() || cli_output_failed()) {
        o->rc = cli_interrupted() ? EXIT_INTERRUPT : EXIT_COMPUTE;
        return 1;
    }
    cli_estimate_tick(&o->est, r->step, o->total);
    if (r->conditioning < o->cond_min) { /* NaN: not computed, never the lowest */
        o->cond_min = r->conditioning;
        o->cond_t = r->t;
    }
    if (r->step == 0 && !o->csv)
        printf("# Rayleigh damping l1 = %.6g 1/s, l2 = %.6g s\n", r->rayleigh[0], r->rayleigh[1]);
    const int nd = o->cols->ndrive;
    if (o->cap > 0 && o->n < o->cap && r->ndrive == nd) {
        const int64_t i = o->n++;
        const pkm_newmark_energy *e = &r->energy;
        const double en[4] = {e->kinetic, e->strain, e->dissipated, e->work};
        o->t[i] = r->t;
        memcpy(o->error + 6 * i, r->error, sizeof(r->error));
        memcpy(o->qs + 6 * i, r->quasi_static, sizeof(r->quasi_static));
        memcpy(o->energy + 4 * i, en, sizeof(en));
        memcpy(o->drive + nd * i, r->drive, sizeof(double) * (size_t)nd);
        memcpy(o->reaction + nd * i, r->reaction, sizeof(double) * (size_t)nd);
        if (r->deflection != NULL)
            memcpy(o->deflection + nd * i, r->deflection, sizeof(double) * (size_t)nd);
        if (o->nfreq > 0)
            memcpy(o->freq + o->nfreq * i, r->freq, sizeof(double) * (size_t)o->nfreq);
        o->cond[i] = r->conditioning;
    }
    pkm_transient_row_values(o->cols, r, o->v);
    cli_rows_put(&o->rows, r->step, r->t, NULL, NULL, o->v);
    o->done++;
    if (o->bar != NULL) cli_progress_show(o->bar, r->step + 1, o->total, "steps");
    return 0;
}

/* The rows' columns (the actuated joints of the rigid-body model at home name the drives; -o
 * keeps them by the same names) and their printer (the header printed with the first row). */
static int tr_columns(tr_out *o)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st =
        pkm_transient_columns_create(o->c, o->params, o->elastic, o->nfreq, &o->cols, &ctx);
    if (st != PKM_OK) return cli_report(st, &ctx);
    o->v = malloc(sizeof(double) * (size_t)(o->cols->n + 1));
    if (o->v == NULL) return cli_usage_error("cannot allocate a transient row");
    o->rows = (cli_rows){.csv = o->csv, .per_time = 1, .ncol = o->cols->n, .cols = o->cols->col};
    /* a csv cell is about 17 bytes, an HDF5 value 8 */
    o->est.cols = 1 + o->cols->n;
    o->est.bytes_per_row = o->est.cols * (o->est.output != NULL ? 8.0 : 17.0);
    return 0;
}

/* -o: room for the run's steps (exit 2 if there is none). */
static int tr_keep(tr_out *o, int64_t rows)
{
    int rc = 0;
    const size_t r = (size_t)rows, d = (size_t)o->cols->ndrive;
    /* t, error, quasi-static, energy, conditioning; drives, reactions, deflections; freq */
    const double per_row = 8.0 * (18.0 + 3.0 * (double)(d + 1) + (double)(o->nfreq + 1));
    if ((rc = cli_check_output_memory(per_row * (double)rows, rows, "steps",
                                      "fewer steps (--duration, --dt)")) != 0)
        return rc;
    o->t = malloc(sizeof(double) * r);
    o->error = malloc(sizeof(double) * 6 * r);
    o->qs = malloc(sizeof(double) * 6 * r);
    o->energy = malloc(sizeof(double) * 4 * r);
    o->drive = malloc(sizeof(double) * (d + 1) * r);
    o->reaction = malloc(sizeof(double) * (d + 1) * r);
    o->deflection = malloc(sizeof(double) * (d + 1) * r);
    o->freq = malloc(sizeof(double) * ((size_t)o->nfreq + 1) * r);
    o->cond = malloc(sizeof(double) * r);
    if (o->t == NULL || o->error == NULL || o->qs == NULL || o->energy == NULL ||
        o->drive == NULL || o->reaction == NULL || o->deflection == NULL || o->freq == NULL ||
        o->cond == NULL)
        return cli_usage_error("-o: cannot allocate the rows of %lld steps", (long long)rows);
    o->cap = rows;
    return 0;
}

/* -o: the kept rows written (exit 3 if the file cannot be written); partial: the run was
 * interrupted (the file says so). */
static int tr_write(const tr_out *o, const char *path, const char *traj, int partial)
{
    const int nd = o->cols->ndrive;
    const char **names = malloc(sizeof(*names) * (size_t)(nd + 1));
    if (names == NULL) return cli_usage_error("-o: cannot allocate the joint names");
    for (int k = 0; k < nd; k++) /* drive_J: J */
        names[k] = o->cols->col[6 + k].name + strlen(PKM_TRANSIENT_DRIVE_PREFIX);
    const pkm_transient_series s = {.case_name = o->c->name,
                                    .trajectory = traj != NULL ? traj : o->c->traj[0].name,
                                    .ntime = (int)o->n,
                                    .ndrive = nd,
                                    .drives = names,
                                    .t = o->t,
                                    .error = o->error,
                                    .quasi_static = o->qs,
                                    .energy = o->energy,
                                    .drive = o->drive,
                                    .reaction = o->reaction,
                                    .deflection = o->elastic ? o->deflection : NULL,
                                    .nfreq = o->nfreq,
                                    .freq = o->freq,
                                    .conditioning = o->cond,
                                    .partial = partial};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_transient_series_write_h5(path, &s, &ctx);
    free(names);
    return st == PKM_OK ? 0 : cli_report(st, &ctx);
}

/* Ctrl-C: the rows printed so far are whole; -o gets them, marked partial; exit 130. */
static int tr_interrupted(const tr_out *o, const tr_args *a)
{
    const int save = a->run.output != NULL && o->n > 0;
    if (o->bar != NULL) fprintf(stderr, "\n");
    if (save) {
        const int rc = tr_write(o, a->run.output, a->run.traj, 1);
        if (rc != 0) return rc;
    }
    fprintf(stderr, "%s: interrupted: %lld of %lld steps done%s%s%s\n", CLI_PROG,
            (long long)o->done, (long long)o->total, save ? ", saved in " : "",
            save ? a->run.output : "",
            save ? " (marked partial: root attribute complete = 0)" : "");
    return EXIT_INTERRUPT;
}

static void tr_out_free(tr_out *o)
{
    pkm_transient_columns_destroy(&o->cols);
    free(o->v);
    free(o->t);
    free(o->error);
    free(o->qs);
    free(o->energy);
    free(o->drive);
    free(o->reaction);
    free(o->deflection);
    free(o->freq);
    free(o->cond);
}

int cli_transient(int argc, char **argv)
{
    tr_args o = {.run = {.format = "table"},
                 .dt = 1e-3,
                 .update_every = 1,
                 .duration = NAN,
                 .start = NAN,
                 .initial = -1};
    int rc = cli_parse(argc, argv, &tr_command, tr_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    void *params = NULL;
    const pkm_case *c = NULL;
    pkm_trajectory *tr = NULL, *wrench = NULL;
    tr_out out = {0};
    if ((rc = cli_load_case(&o.c, &c, &params)) != 0 ||
        (rc = cli_case_supports(c, PKM_CASE_MODAL)) != 0 ||
        (rc = cli_case_supports(c, PKM_CASE_DYNAMICS)) != 0 ||
        (o.run.output != NULL && (rc = cli_check_output_path(o.run.output)) != 0) ||
        (rc = cli_trajectory(c, o.run.traj, (isnan(o.start) ? 0.0 : o.start) + o.duration, &tr)) !=
            0)
        goto done;
    double t0, t1;
    pkm_trajectory_span(tr, &t0, &t1);
    if (!isnan(o.start) && !(o.start >= t0 && o.start < t1)) {
        rc = cli_usage_error("--start %g: outside the trajectory's span [%g, %g) s", o.start, t0,
                             t1);
        goto done;
    }
    if (isnan(o.duration)) o.duration = t1 - (isnan(o.start) ? t0 : o.start);
    pkm_transient_opts opts = pkm_transient_opts_default(c, o.dt, o.duration);
    opts.form = o.c.form;
    opts.update_every = o.update_every;
    opts.gravity = o.gravity;
    opts.static_start = o.initial < 0 ? o.gravity : o.initial;
    opts.singular = o.run.singular;
    opts.start = o.start;
    opts.nfreq = o.nfreq;
    opts.elastic_drives = o.elastic;
    if ((rc = tr_damping(&o, &opts)) != 0 ||
        (o.wrench != NULL && (rc = cli_parse_wrench(o.wrench, opts.wrench, &wrench)) != 0))
        goto done;
    opts.wrench_series = wrench;
    if (!(o.dt > 0.0)) {
        rc = cli_usage_error("--dt %g: the time step must be positive", o.dt);
        goto done;
    }
    if (!(o.duration >= o.dt)) {
        rc = cli_usage_error("--duration %g: shorter than one time step (--dt %g)", o.duration,
                             o.dt);
        goto done;
    }
    const int csv = cli_format_is_rows(o.run.format);
    cli_progress bar = {cli_now(), 0.0};
    out = (tr_out){.c = c,
                   .params = params,
                   .csv = csv,
                   .nfreq = o.nfreq,
                   .elastic = o.elastic,
                   .start = bar.t0,
                   .total = pkm_transient_steps(&opts) + 1,
                   .cond_min = INFINITY,
                   .bar = isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO) ? &bar : NULL};
    char what[PKM_NAME_LEN + 16];
    snprintf(what, sizeof(what), "transient %s", c->name);
    out.est = (cli_estimate){
        .what = what, .unit = "steps", .rows = (double)out.total, .output = o.run.output};
    if ((rc = tr_columns(&out)) != 0 ||
        (o.run.output != NULL && (rc = tr_keep(&out, pkm_transient_steps(&opts) + 1)) != 0))
        goto done;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    cli_interrupt_begin();
    const pkm_status st = pkm_transient_run(c, params, tr, &opts, tr_row, &out, &ctx);
    cli_interrupt_end();
    fflush(stdout);
    if (out.rc == EXIT_INTERRUPT) {
        rc = tr_interrupted(&out, &o);
        goto done;
    }
    if (out.rc != 0) {
        rc = out.rc;
        goto done;
    }
    if (st != PKM_OK) {
        rc = cli_report(st, &ctx);
        goto done;
    }
    cli_warn_near_singular(out.cond_min, out.cond_t, "locked",
                           "the lowest modes are the mechanism's near-free motion there; -o "
                           "keeps it per step");
    if (o.run.output != NULL && (rc = tr_write(&out, o.run.output, o.run.traj, 0)) != 0) goto done;
    if (!csv)
        printf("# %.1f us per step (assembly, loads, Newmark, quasi-static and output)\n",
               1e6 * (cli_now() - out.start) / (double)(pkm_transient_steps(&opts) + 1));
done:
    tr_out_free(&out);
    pkm_trajectory_destroy(&tr);
    pkm_trajectory_destroy(&wrench);
    pkm_case_params_destroy(&params);
    return rc;
}
