/* cli/dynamics.c: pkmflex dynamics: the rigid-body inverse dynamics of a case along a trajectory,
 * every joint's drive, friction and reaction components.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"
#include "pkm/dynrun.h"
#include "pkm/dynamics.h"
#include "pkm/dynengine.h"
#include "pkm/io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Times of the default grid over a trajectory's span (--time not given). */
#define DYN_DEFAULT_TIMES 101

/* Most time samples: beyond, the output of a 10-joint case passes a gigabyte. */
#define DYN_MAX_TIMES 10000000
/* Most rows (times x joints) of one run, printed or to -o: about 1.3 GB of csv, a minute or more;
 * a larger run is refused before it starts, naming its size (the first --time asked of NaVARo,
 * 0:1.5:10000000, is 210 million rows, 27 GB and most of an hour). */
#define DYN_MAX_ROWS      10000000
#define DYN_BYTES_PER_ROW 130.0 /* a csv row; a table row is longer, an HDF5 one 120 bytes */

enum { DYN_FRICTION = CLI_OPT_OWN, DYN_ENGINE, DYN_INERTIA, DYN_FORCES, DYN_STEP };

typedef struct dyn_args {
    cli_case_args c;
    cli_run_args run; /* --trajectory, --time, --format, -o, --singular, --forward, --per-time */
    const char *friction; /* a friction law overriding the case's, or NULL */
    const char *engine;   /* --engine NAME, or NULL */
    const char *wrench;   /* --wrench, or NULL */
    const char *weights;  /* --weights, or NULL */
    const char *preload;  /* --preload, or NULL */
    int inertia;          /* --inertia */
    const char *forces;   /* --forward --forces FILE.csv, or NULL */
    double step;          /* --forward --step H, or 0 */
} dyn_args;

static const cli_option dyn_options[] = {
    CLI_OPTION_TRAJECTORY,
    CLI_OPTION_TIME,
    {"--friction", NULL, 1, DYN_FRICTION, "LAW",
     "none, coulomb-viscous or stribeck: the joints' friction law,\n"
     "instead of the case's friction.model (its data: --set\n"
     "friction.kc=... and so on)",
     NULL},
    CLI_OPTION_FORMAT,
    CLI_OPTION_PER_TIME,
    CLI_OPTION_OUTPUT,
    CLI_OPTION_SINGULAR,
    CLI_OPTION_FORWARD,
    {"--engine", NULL, 1, DYN_ENGINE, "NAME",
     "the inverse dynamics' engine (docs/dynamics.md): chain (O(n)\n"
     "module chains, as boom1 and crane4), mbs (the general system),\n"
     "mbs-dense (its dense reference path); default the fastest that\n"
     "takes the case",
     NULL},
    {"--forces", NULL, 1, DYN_FORCES, "FILE.csv",
     "--forward: the drives (N, N m) as samples, header t and the\n"
     "actuated joints (t,cyl1 for boom1), interpolated by a\n"
     "not-a-knot spline (default: the inverse dynamics of the\n"
     "trajectory)",
     NULL},
    {"--step", NULL, 1, DYN_STEP, "H",
     "--forward: the largest RK4 step, s (default the --time\n"
     "grid's spacing)",
     NULL},
    CLI_OPTION_SET,
    CLI_OPTION_WRENCH,
    CLI_OPTION_WEIGHTS,
    CLI_OPTION_PRELOAD,
    {"--inertia", NULL, 0, DYN_INERTIA, NULL,
     "also the case's own inertia quantities in the per-time table\n"
     "(masticatory: M_A and MCI of the target and its 6-RSS twin,\n"
     "Cheng et al. 2024; docs/dynamics.md)",
     NULL},
};

static const cli_command dyn_command = {
    "dynamics",
    "usage: pkmflex dynamics CASE [--trajectory NAME|FILE.csv] [--time T0:T1:N]\n"
    "                        [--friction none|coulomb-viscous|stribeck] [--format table|csv|json]\n"
    "                        [--per-time] [-o FILE.h5] [--forward [--forces FILE.csv] [--step H]]\n"
    "                        [--singular R] [--engine NAME] [--set KEY=VALUE ...]\n"
    "                        [--wrench FX,FY,FZ,MX,MY,MZ|FILE.csv] [--weights W1,...]\n"
    "                        [--preload T1,...] [--inertia]\n\n"
    "Rigid-body inverse dynamics of CASE along a trajectory of its pose coordinates. Every case\n"
    "prints the same joint table (docs/dynamics.md, \"Output columns\"): at each time, one row\n"
    "per joint of the model (cut joints included, named as in the case) with its coordinate (q,\n"
    "qd, qdd: the first coordinate of a joint that has several, 0 for cuts and clamped joints;\n"
    "relative to the configuration the model is built in), its drive (actuated joints: ideal +\n"
    "friction; passive ones 0), the ideal (frictionless) component of its reaction along its\n"
    "free direction, its friction, and its reaction's axial force, radial force and bending\n"
    "moment (Guo et al. 2024, eqs. 39-46); a quantity a case does not have is an empty cell.\n"
    "--per-time: the per-time table instead (the pose, contact forces, the equations' residual,\n"
    "the closure's conditioning with the drives held, the case's own columns; a warning names\n"
    "the time where the conditioning falls below 1e-3, near-singular).\n"
    "--wrench: an external load on the platform (a process force, a payload's push) that the\n"
    "drives and joints carry; not with --forward.\n"
    "The engine (the heading names it): the fastest of the table that takes the run, chain for\n"
    "the module chains boom1 and crane4, mbs else. --forward integrates the general system.\n"
    "SI units: rad, m, s, N, N m. Everything is checked before the first time is computed: bad\n"
    "input is one line, exit 2; a singular closure on the way (the mechanism at a dead point)\n"
    "stops with exit 3. At most 10 million rows (times x joints) per run: a larger --time is\n"
    "refused before it starts, naming its size. Ctrl-C stops the run after a whole time sample:\n"
    "the rows done are printed (or in -o, marked partial), exit 130.\n\n",
    dyn_options, (int)(sizeof(dyn_options) / sizeof(dyn_options[0])), 0};

static int dyn_set(void *user, int id, const char *v)
{
    dyn_args *o = user;
    int rc = 0;
    if (cli_run_option(&o->run, id, v, &rc)) return rc;
    switch (id) {
    case DYN_FRICTION:
        o->friction = v;
        return 0;
    case DYN_ENGINE:
        o->engine = v;
        return 0;
    case CLI_OPT_WRENCH:
        o->wrench = v;
        return 0;
    case CLI_OPT_WEIGHTS:
        o->weights = v;
        return 0;
    case CLI_OPT_PRELOAD:
        o->preload = v;
        return 0;
    case DYN_INERTIA:
        o->inertia = 1;
        return 0;
    case DYN_FORCES:
        o->forces = v;
        return 0;
    case DYN_STEP:
        if (!cli_parse_real(v, 1e-7, 1.0, &o->step))
            return cli_usage_error("--step '%s': expected a number from 1e-7 to 1 s", v);
        return 0;
    default:
        return cli_case_set(&o->c, id, v);
    }
}

/* The case's friction law replaced by --friction LAW (one of friction.model's choices). */
static int dyn_friction_law(const dyn_args *o, const pkm_case *c, void *params)
{
    if (o->friction == NULL) return 0;
    const pkm_param_desc *d = pkm_case_param_find(c, "friction.model");
    for (const pkm_param_choice *ch = d->choices; ch->name != NULL; ch++)
        if (strcmp(ch->name, o->friction) == 0) {
            pkm_case_dynamics *dyn =
                (pkm_case_dynamics *)(void *)((char *)params + c->dynamics_offset);
            dyn->friction_model = ch->value;
            return 0;
        }
    return cli_usage_error("--friction '%s': expected none, coulomb-viscous or stribeck",
                           o->friction);
}

/* --inertia: the inverse run of a case that has inertia quantities of its own. */
static int dyn_inertia(const dyn_args *o, const pkm_case *c)
{
    if (!o->inertia) return 0;
    if (o->run.forward)
        return cli_usage_error("--inertia: the inverse run only, not with --forward");
    if (c->extra == NULL || c->nextra[1] <= c->nextra[0])
        return cli_usage_error("--inertia: case '%s' has no inertia quantities of its own "
                               "(masticatory has M_A and MCI)",
                               c->name);
    return 0;
}

/* What a run holds. */
typedef struct dyn_run {
    const pkm_case *c;
    const void *params;
    pkm_trajectory *tr;
    pkm_motion *motion;
    const pkm_model *m; /* its rigid-body model */
    double t0, t1;
    int n;
    int show;                /* the progress bar on a terminal */
    int stopped;             /* Ctrl-C, or the output failed */
    double dev, bal;         /* --forward: the largest deviation and |energy balance| */
    double cond_min, cond_t; /* the closure's lowest conditioning and its time */
    cli_estimate est;        /* announced when long (cli_estimate_tick) */
    cli_progress bar;
    const dyn_args *o;
    cli_rows rows;          /* the output (cli/rows.c) */
    const char **names;     /* the joints' names, then their types */
    pkm_column *cols;       /* the per-time columns */
    double load[6];         /* --wrench: the constant wrench */
    double *shape;          /* the storage of: */
    double *weights;        /* --weights, one per actuated joint, or NULL */
    double *preload;        /* --preload, likewise */
    pkm_trajectory *wrench; /* --wrench FILE.csv, or NULL */
    pkm_trajectory *forces; /* --forces FILE.csv, or NULL */
    const pkm_dyn_engine *engine;
    double *v, *w, *pt; /* a time's joint values, wrenches and per-time values */
} dyn_run;

/* The case's rigid motion with its friction (pkm_dynamics_motion_create). */
static int dyn_motion(dyn_run *r, double singular)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_dynamics_motion_create(r->c, r->params, singular, &r->motion, &ctx);
    if (st != PKM_OK) return cli_report(st, &ctx);
    r->m = pkm_motion_model(r->motion);
    return 0;
}

/* --weights, --preload: one per actuated joint of the rigid model, for the inverse run. */
static int dyn_drive_shape(dyn_run *r, const dyn_args *o)
{
    const int na = pkm_dyn_engine_actuated(r->m);
    if (o->run.forward)
        return cli_usage_error("--weights, --preload: the inverse run's drives only, not with "
                               "--forward");
    r->shape = malloc(sizeof(double) * (size_t)(2 * na + 1));
    if (r->shape == NULL) return cli_usage_error("out of memory");
    int rc = 0;
    if (o->weights != NULL && (rc = cli_parse_weights(o->weights, na, r->shape)) == 0)
        r->weights = r->shape;
    if (rc == 0 && o->preload != NULL &&
        (rc = cli_parse_preload(o->preload, na, r->shape + na)) == 0)
        r->preload = r->shape + na;
    return rc;
}

/* The library's options of the run. */
static pkm_dynamics_opts dyn_opts(const dyn_run *r, const dyn_args *o)
{
    pkm_dynamics_opts opts = {.t0 = r->t0,
                              .t1 = r->t1,
                              .n = r->n,
                              .singular = o->run.singular,
                              .wrench_series = r->wrench,
                              .weights = r->weights,
                              .preload = r->preload,
                              .inertia = o->inertia,
                              .engine = r->engine,
                              .forces = r->forces,
                              .step = o->step};
    memcpy(opts.wrench, r->load, sizeof(opts.wrench));
    return opts;
}

/* The engine: --engine NAME (it must take the case's model), else the fastest that takes the
 * run (pkm_dynamics_engine_choose; the forward run integrates the general system). */
static int dyn_engine(dyn_run *r, const dyn_args *o)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (o->engine == NULL) {
        const pkm_dynamics_opts opts = dyn_opts(r, o);
        r->engine = o->run.forward ? &pkm_dyn_engines[PKM_DYN_ENGINE_MBS]
                                   : pkm_dynamics_engine_choose(r->motion, &opts);
        return 0;
    }
    r->engine = pkm_dyn_engine_find(o->engine);
    if (r->engine == NULL)
        return cli_usage_error("--engine '%s': expected chain, mbs or mbs-dense", o->engine);
    if (r->engine->accepts(r->m, &ctx) != PKM_OK)
        return cli_usage_error("--engine %s: %s: %s", o->engine, r->c->name, ctx.msg);
    if (o->run.forward && r->engine->id == PKM_DYN_ENGINE_CHAIN)
        return cli_usage_error("--engine chain: the forward run integrates the general system "
                               "(mbs)");
    const pkm_dynamics_opts opts = dyn_opts(r, o);
    if (!o->run.forward && pkm_dynamics_engine_check(r->motion, &opts, &ctx) != PKM_OK)
        return cli_usage_error("--%s", ctx.msg);
    return 0;
}

/* --forward --forces FILE.csv: the drives as a spline, one column per actuated joint named as
 * the joint (the library checks that it covers the times). */
static int dyn_forces(dyn_run *r, const dyn_args *o)
{
    if (o->forces == NULL && o->step == 0.0) return 0;
    if (!o->run.forward) return cli_usage_error("--forces, --step: only with --forward");
    if (o->forces == NULL) return 0;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_forces_read_csv(r->m, o->forces, &r->forces, &ctx);
    return st == PKM_OK ? 0 : cli_report(st, &ctx);
}

static const char *dyn_type(const pkm_joint *j)
{
    static const char *const name[2][6] = {
        {"clamped", "revolute", "prismatic", "spherical", "universal", "helical"},
        {"clamped-cut", "revolute-cut", "prismatic-cut", "spherical-cut", "universal-cut",
         "helical-cut"}};
    return (unsigned)j->type < 6 ? name[j->cut != 0][j->type] : "unknown";
}

/* The output's columns: the joints of the model; per time the pose coordinates and the
 * closure's conditioning (inverse dynamics), or the deviation, energy balance and friction work
 * (--forward). */
static int dyn_rows_init(dyn_run *r, const dyn_args *o)
{
    const int nj = pkm_model_joint_count(r->m);
    r->names = malloc(sizeof(char *) * 2 * (size_t)nj);
    const size_t ncol = 3 + (size_t)pkm_dynamics_columns(r->motion, o->inertia, NULL);
    r->v = malloc(sizeof(double) * ((PKM_DYN_SERIES_COLUMNS + 6) * (size_t)nj + ncol));
    if (r->names == NULL || r->v == NULL) return cli_usage_error("out of memory");
    r->w = r->v + PKM_DYN_SERIES_COLUMNS * (size_t)nj;
    r->pt = r->w + 6 * (size_t)nj;
    for (int j = 0; j < nj; j++) {
        r->names[j] = pkm_model_joint(r->m, j)->name;
        r->names[nj + j] = dyn_type(pkm_model_joint(r->m, j));
    }
    r->cols = malloc(sizeof(pkm_column) * ncol);
    if (r->cols == NULL) return cli_usage_error("out of memory");
    int nc = 0;
    nc = o->run.forward ? pkm_dynamics_fwd_columns(r->cols)
                        : pkm_dynamics_columns(r->motion, o->inertia, r->cols);
    r->rows = (cli_rows){.csv = cli_format_is_rows(o->run.format),
                         .per_time = o->run.per_time,
                         .njoint = nj,
                         .joints = r->names,
                         .types = r->names + nj,
                         .ncol = nc,
                         .cols = r->cols};
    r->cond_min = INFINITY;
    return 0;
}

/* The joints' results of a time as the joint table's values (and wrenches). */
static void dyn_values(dyn_run *r, const pkm_joint_result *x)
{
    for (int j = 0; j < r->rows.njoint; j++, x++) {
        const int has = x->ncoord > 0;
        const double v[PKM_DYN_SERIES_COLUMNS] = {
            has ? x->q[0] : 0.0, has ? x->qd[0] : 0.0, has ? x->qdd[0] : 0.0, x->drive,    x->ideal,
            x->friction,         x->f_axial,           x->f_radial,           x->m_bending};
        memcpy(r->v + (size_t)j * PKM_DYN_SERIES_COLUMNS, v, sizeof(v));
        memcpy(r->w + 6 * (size_t)j, x->wrench, sizeof(x->wrench));
    }
}

/* The name of the friction law in force (a choice of friction.model). */
static const char *dyn_law_name(const dyn_run *r)
{
    const unsigned law = pkm_case_dynamics_of(r->c, r->params)->friction_model;
    for (const pkm_param_choice *ch = pkm_case_param_find(r->c, "friction.model")->choices;
         ch->name != NULL; ch++)
        if (ch->value == law) return ch->name;
    return "unknown";
}

/* The kept times written to o->run.output (partial: the run was interrupted, the file says so). */
static int dyn_write(const dyn_run *r, const dyn_args *o, int partial)
{
    const cli_rows_source src = {r->c->name, o->run.traj != NULL ? o->run.traj : r->c->traj[0].name,
                                 dyn_law_name(r)};
    return cli_rows_write(&r->rows, o->run.output, &src, partial);
}

/* The error line of a failed run, with the case's reading of a singular closure. */
static void dyn_solve_error(const dyn_run *r, pkm_status st, const pkm_ctx *ctx)
{
    const char *note = st == PKM_ERR_SINGULAR ? r->c->singular_note : NULL;
    fflush(stdout);
    fprintf(stderr, "%s: error: %s%s%s\n", CLI_PROG, ctx->msg, note != NULL ? "; " : "",
            note != NULL ? note : "");
}

/* The table's heading (its column names follow from cli/rows.c). */
static void dyn_heading(const dyn_run *r, const dyn_args *o)
{
    if (r->rows.csv || o->run.output != NULL) return;
    if (o->run.forward) {
        const double h = (r->t1 - r->t0) / (r->n - 1);
        const double steps = o->step > 0.0 ? ceil(h / o->step - 1e-9) : 1.0;
        printf("# %s: forward dynamics under %s, RK4 step %g s\n", r->c->name,
               o->forces != NULL ? o->forces : "the inverse drives", h / fmax(steps, 1.0));
    } else {
        /* the rigid model's mobility at its build configuration (coordinates less the rank of
         * its constraints), omitted if that fails */
        int mob = -1;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        if (pkm_mbs_mobility(pkm_motion_mbs(r->motion), &mob, &ctx) != PKM_OK) mob = -1;
        printf("# %s, %d times from %g to %g s, friction %s, engine %s", r->c->name, r->n, r->t0,
               r->t1, dyn_law_name(r), r->engine->name);
        printf(mob >= 0 ? ", mobility %d\n" : "\n", mob);
    }
}

/* The rows of the run (times x joints) within DYN_MAX_ROWS: exit 2 naming the size otherwise. */
static int dyn_check_size(const dyn_run *r, const dyn_args *o)
{
    const double rows = (double)r->n * pkm_model_joint_count(r->m);
    if (rows <= DYN_MAX_ROWS) return 0;
    return cli_usage_error("--time %s: %d times x %d joints = %.3g rows x %d columns, about %.3g "
                           "GB, above the limit of %d rows of a run: fewer times (--time "
                           "T0:T1:N), or several runs",
                           o->run.time != NULL ? o->run.time : "", r->n,
                           pkm_model_joint_count(r->m), rows, 3 + PKM_DYN_SERIES_COLUMNS,
                           rows * DYN_BYTES_PER_ROW / 1e9, DYN_MAX_ROWS);
}

/* Ctrl-C after k whole time samples: -o gets them marked partial; exit 130. */
static int dyn_interrupted(const dyn_run *r, const dyn_args *o)
{
    const int64_t k = r->rows.done;
    const int saved = r->rows.t != NULL && k > 0;
    int rc = 0;
    if (saved && (rc = dyn_write(r, o, 1)) != 0) return rc;
    fprintf(stderr, "%s: interrupted: %lld of %d times done%s%s%s\n", CLI_PROG, (long long)k, r->n,
            saved ? ", saved in " : "", saved ? o->run.output : "",
            saved ? " (marked partial: root attribute complete = 0)" : "");
    return EXIT_INTERRUPT;
}

/* Every time of a run: 1 to stop it (Ctrl-C, a failed output), else the progress bar on a
 * terminal and the estimate. */
static int dyn_tick(dyn_run *r, int64_t step, const char *unit)
{
    if (cli_interrupted() || cli_output_failed()) return r->stopped = 1;
    if (r->show) cli_progress_show(&r->bar, step, r->n, unit);
    cli_estimate_tick(&r->est, step, r->n);
    return 0;
}

/* A time of the run: its rows printed or kept; stops on Ctrl-C and on a failed output. */
static int dyn_sink(void *user, const pkm_dynamics_row *row)
{
    dyn_run *r = user;
    if (dyn_tick(r, row->step, "times")) return 1;
    pkm_dynamics_row_values(row, r->pt);
    if (row->conditioning < r->cond_min) r->cond_min = row->conditioning, r->cond_t = row->t;
    dyn_values(r, row->joint);
    cli_rows_put(&r->rows, row->step, row->t, r->v, r->w, r->pt);
    return 0;
}

/* One time of --forward: the drives applied (the trajectory's inverse dynamics) per joint, the
 * deviation from the trajectory and the energy balance per time. */
static int dyn_forward_sink(void *user, const pkm_dynamics_fwd_row *row)
{
    dyn_run *r = user;
    if (dyn_tick(r, row->step, "steps")) return 1;
    const double pt[3] = {row->deviation, row->balance, row->friction_work};
    r->dev = fmax(r->dev, row->deviation);
    r->bal = fmax(r->bal, fabs(row->balance));
    dyn_values(r, row->joint);
    cli_rows_put(&r->rows, row->step, row->t, r->v, r->w, pt);
    return 0;
}

/* The run (pkm_dynamics_run_on, or pkm_dynamics_forward_run_on for --forward), printed or kept;
 * 0, exit 2 for a grid out of reach before any time is computed, 3 naming the time of a failed
 * one, 130 after Ctrl-C. */
static int dyn_compute(dyn_run *r, const dyn_args *o)
{
    const double start = cli_now();
    r->o = o;
    r->bar = (cli_progress){start, 0.0};
    r->show = isatty(STDERR_FILENO) && (o->run.output != NULL || !isatty(STDOUT_FILENO));
    char what[PKM_NAME_LEN + 16];
    snprintf(what, sizeof(what), "dynamics %s", r->c->name);
    r->est =
        (cli_estimate){.what = what,
                       .unit = "times",
                       .rows = (double)r->n * (r->rows.per_time ? 1 : r->rows.njoint),
                       .cols = r->rows.per_time ? 1 + r->rows.ncol : 3 + PKM_DYN_SERIES_COLUMNS,
                       .bytes_per_row = DYN_BYTES_PER_ROW,
                       .output = o->run.output};
    const pkm_dynamics_opts opts = dyn_opts(r, o);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    dyn_heading(r, o);
    const pkm_status st = o->run.forward
                              ? pkm_dynamics_forward_run_on(r->motion, r->c, r->params, r->tr,
                                                            &opts, dyn_forward_sink, r, &ctx)
                              : pkm_dynamics_run_on(r->motion, r->tr, &opts, dyn_sink, r, &ctx);
    if (st != PKM_OK) {
        dyn_solve_error(r, st, &ctx);
        return r->rows.done > 0 ? EXIT_COMPUTE : cli_exit_status_of(st);
    }
    if (r->stopped) return cli_output_failed() ? EXIT_COMPUTE : dyn_interrupted(r, o);
    if (r->show) cli_progress_show(&r->bar, r->n, r->n, "times");
    if (!o->run.forward)
        cli_warn_near_singular(r->cond_min, r->cond_t, "held",
                               "the drives barely hold the platform there; --per-time lists it "
                               "per time");
    if (o->run.output != NULL) return dyn_write(r, o, 0);
    if (r->rows.csv) return 0;
    if (o->run.forward)
        printf("# largest deviation %.3e (rad or m), largest |balance| %.3e J; %.1f us per output "
               "step\n",
               r->dev, r->bal, 1e6 * (cli_now() - start) / (r->n - 1));
    else
        printf("# %.1f us per time sample (kinematics and inverse dynamics, output included)\n",
               1e6 * (cli_now() - start) / r->n);
    return 0;
}

int cli_dynamics(int argc, char **argv)
{
    dyn_args o = {.run = {.format = "table"}};
    int rc = cli_parse(argc, argv, &dyn_command, dyn_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    void *params = NULL;
    dyn_run r = {.n = DYN_DEFAULT_TIMES};
    if ((rc = cli_load_case(&o.c, &r.c, &params)) != 0 ||
        (rc = cli_case_supports(r.c, PKM_CASE_DYNAMICS)) != 0 ||
        (rc = dyn_friction_law(&o, r.c, params)) != 0 || (rc = dyn_inertia(&o, r.c)) != 0)
        goto done;
    r.params = params;
    if (o.run.time != NULL && !cli_parse_times(o.run.time, DYN_MAX_TIMES, &r.t0, &r.t1, &r.n)) {
        rc = cli_usage_error("--time '%s': expected T0:T1:N, T1 > T0 and 2 <= N <= %d", o.run.time,
                             DYN_MAX_TIMES);
        goto done;
    }
    if (cli_check_only() ||
        (rc = cli_trajectory(r.c, o.run.traj, o.run.time != NULL ? r.t1 : 0.0, &r.tr)) != 0 ||
        (o.wrench != NULL && (rc = cli_parse_wrench(o.wrench, r.load, &r.wrench)) != 0))
        goto done;
    if (o.run.time == NULL) pkm_trajectory_span(r.tr, &r.t0, &r.t1);
    if ((rc = dyn_motion(&r, o.run.singular)) != 0 ||
        ((o.weights != NULL || o.preload != NULL) && (rc = dyn_drive_shape(&r, &o)) != 0) ||
        (rc = dyn_engine(&r, &o)) != 0 || (rc = dyn_forces(&r, &o)) != 0 ||
        (rc = dyn_rows_init(&r, &o)) != 0 || (rc = dyn_check_size(&r, &o)) != 0 ||
        (o.run.output != NULL && ((rc = cli_check_output_path(o.run.output)) != 0 ||
                                  (rc = cli_rows_keep(&r.rows, r.n, 1)) != 0)))
        goto done;
    cli_interrupt_begin();
    rc = dyn_compute(&r, &o);
    cli_interrupt_end();
done:
    cli_rows_free(&r.rows);
    free(r.names);
    free(r.cols);
    free(r.shape);
    free(r.v);
    pkm_motion_destroy(&r.motion);
    pkm_trajectory_destroy(&r.tr);
    pkm_trajectory_destroy(&r.wrench);
    pkm_trajectory_destroy(&r.forces);
    pkm_case_params_destroy(&params);
    return rc;
}
