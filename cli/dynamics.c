/* cli/dynamics.c: pkmflex dynamics: the rigid-body inverse dynamics of a case along a trajectory,
 * every joint's drive, friction and reaction components.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"
#include "pkm/dynrun.h"
#include "pkm/dynamics.h"
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

enum {
    DYN_TRAJECTORY = CLI_OPT_OWN,
    DYN_TIME,
    DYN_FRICTION,
    DYN_FORMAT,
    DYN_SINGULAR,
    DYN_OUTPUT,
    DYN_FORWARD
};

typedef struct dyn_args {
    cli_case_args c;
    const char *traj;     /* a trajectory name of the case or a CSV file; NULL: the default */
    const char *time;     /* T0:T1:N, or NULL */
    const char *friction; /* a friction law overriding the case's, or NULL */
    const char *format;
    double singular;    /* the closure's conditioning threshold */
    const char *output; /* -o FILE.h5, or NULL */
    int forward;        /* --forward */
} dyn_args;

static const cli_option dyn_options[] = {
    {"--trajectory", NULL, 1, DYN_TRAJECTORY, "NAME|FILE.csv",
     "a named trajectory of the case (pkmflex cases lists them;\n"
     "default: the first), or a CSV file of samples: header\n"
     "t,<pose coordinates>, interpolated by a not-a-knot spline;\n"
     "or harmonic:COORD,AMPLITUDE,FREQUENCY: one pose coordinate\n"
     "as home + A sin(2 pi f t), the others at home (20 periods)",
     NULL},
    {"--time", NULL, 1, DYN_TIME, "T0:T1:N",
     "N >= 2 equally spaced times from T0 to T1 > T0, s (default:\n"
     "101 over the trajectory's span)",
     NULL},
    {"--friction", NULL, 1, DYN_FRICTION, "LAW",
     "none, coulomb-viscous or stribeck: the joints' friction law,\n"
     "instead of the case's friction.model (its data: --set\n"
     "friction.kc=... and so on)",
     NULL},
    {"--format", NULL, 1, DYN_FORMAT, "table|csv|json",
     "output format (csv header: t,joint,type,q,qd,qdd,drive,ideal,\n"
     "friction,f_axial,f_radial,m_bending)",
     NULL},
    {"--output", "-o", 1, DYN_OUTPUT, "FILE.h5",
     "write the rows as time series to an HDF5 file instead of\n"
     "printing them, with the full reaction wrenches\n"
     "(docs/hdf5-layout.md)",
     NULL},
    {"--singular", NULL, 1, DYN_SINGULAR, "R",
     "dimensionless conditioning of the rigid loop closure below\n"
     "which a pose is singular (1e-12 to 0.5; default 1e-7 where\n"
     "the pose places the platform, as the finite-element model's\n"
     "inverse kinematics; else 5e-3)",
     NULL},
    {"--forward", NULL, 0, DYN_FORWARD, NULL,
     "forward dynamics instead: RK4 over the --time grid (its\n"
     "spacing the step) under the drives of the inverse dynamics;\n"
     "per time the largest deviation of q from the trajectory and\n"
     "the energy balance (docs/dynamics.md)",
     NULL},
    {"--set", NULL, 1, CLI_OPT_SET, "KEY=VALUE",
     "override a case parameter, after the case file: an SI\n"
     "number or a number and a unit (gravity.z=-9.81), repeatable",
     NULL},
};

static const cli_command dyn_command = {
    "dynamics",
    "usage: pkmflex dynamics CASE [--trajectory NAME|FILE.csv] [--time T0:T1:N]\n"
    "                        [--friction none|coulomb-viscous|stribeck] [--format table|csv|json]\n"
    "                        [-o FILE.h5 | --forward] [--singular R] [--set KEY=VALUE ...]\n\n"
    "Rigid-body inverse dynamics of CASE along a trajectory of its pose coordinates: at each\n"
    "time, one row per joint of the model (cut joints included, named as in the case) with its\n"
    "coordinate (q, qd, qdd: the first coordinate of a joint that has several, 0 for cuts and\n"
    "clamped joints; relative to the configuration the model is built in), its drive (actuated\n"
    "joints: ideal + friction; passive ones 0), the ideal (frictionless) component of its\n"
    "reaction along its free direction, its friction, and its reaction's axial force, radial\n"
    "force and bending moment (Guo et al. 2024, eqs. 39-46). SI units: rad, m, s, N, N m.\n"
    "Everything is checked before the first time is computed: bad input is one line, exit 2;\n"
    "a singular closure on the way (the mechanism at a dead point) stops with exit 3.\n"
    "At most 10 million rows (times x joints) per run: a larger --time is refused before it\n"
    "starts, naming its size. Ctrl-C stops the run after a whole time sample: the rows done\n"
    "are printed (or in -o, marked partial), exit 130.\n"
    "CASE boom1 or crane4: the module chains of the hydraulic crane, forward dynamics\n"
    "included (pkmflex dynamics boom1 --help).\n"
    "CASE masticatory: the chewing robot with condyle contacts and redundant drives\n"
    "(pkmflex dynamics masticatory --help).\n\n",
    dyn_options, (int)(sizeof(dyn_options) / sizeof(dyn_options[0])), 0};

static int dyn_set(void *user, int id, const char *v)
{
    dyn_args *o = user;
    switch (id) {
    case DYN_TRAJECTORY:
        o->traj = v;
        return 0;
    case DYN_TIME:
        o->time = v;
        return 0;
    case DYN_FRICTION:
        o->friction = v;
        return 0;
    case DYN_FORMAT:
        if (cli_check_format(v) != 0) return EXIT_INPUT;
        o->format = v;
        return 0;
    case DYN_OUTPUT:
        o->output = v;
        return 0;
    case DYN_FORWARD:
        o->forward = 1;
        return 0;
    case DYN_SINGULAR:
        return cli_parse_singular(v, &o->singular);
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

/* What a run holds. */
typedef struct dyn_run {
    const pkm_case *c;
    const void *params;
    pkm_trajectory *tr;
    pkm_motion *motion;
    const pkm_model *m; /* its rigid-body model */
    double t0, t1;
    int n;
    int done;        /* times handed over by the run */
    int csv, show;   /* the rows' format; the progress bar on a terminal */
    int stopped;     /* Ctrl-C, or the output failed */
    double dev, bal; /* --forward: the largest deviation and |energy balance| */
    cli_progress bar;
    /* -o: every row kept for the file (NULL otherwise) */
    double *t, *value[PKM_DYN_SERIES_COLUMNS], *wrench;
} dyn_run;

/* The case's rigid motion with its friction (pkm_dynamics_motion_create). */
static int dyn_setup(dyn_run *r, double singular)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_dynamics_motion_create(r->c, r->params, singular, &r->motion, &ctx);
    if (st != PKM_OK) return cli_report(st, &ctx);
    r->m = pkm_motion_model(r->motion);
    return 0;
}

static const char *dyn_type(const pkm_joint *j)
{
    static const char *const name[2][6] = {
        {"clamped", "revolute", "prismatic", "spherical", "universal", "helical"},
        {"clamped-cut", "revolute-cut", "prismatic-cut", "spherical-cut", "universal-cut",
         "helical-cut"}};
    return (unsigned)j->type < 6 ? name[j->cut != 0][j->type] : "unknown";
}

/* Joint j's row at time sample k: printed, or kept for the file. */
static void dyn_row(dyn_run *r, int k, double t, int j, const pkm_joint_result *x)
{
    const pkm_joint *jt = pkm_model_joint(r->m, j);
    const int has = x->ncoord > 0;
    const double v[PKM_DYN_SERIES_COLUMNS] = {
        has ? x->q[0] : 0.0, has ? x->qd[0] : 0.0, has ? x->qdd[0] : 0.0, x->drive,    x->ideal,
        x->friction,         x->f_axial,           x->f_radial,           x->m_bending};
    if (r->t != NULL) {
        const size_t at = (size_t)k * (size_t)pkm_model_joint_count(r->m) + (size_t)j;
        r->t[k] = t;
        for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
            r->value[c][at] = v[c];
        memcpy(r->wrench + 6 * at, x->wrench, sizeof(x->wrench));
        return;
    }
    if (r->csv) {
        printf("%.10g,%s,%s", t, jt->name, dyn_type(jt));
        for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
            printf(",%.10g", v[c]);
    } else {
        printf("%10.4f  %-10s %-13s", t, jt->name, dyn_type(jt));
        for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
            printf(" %13.6g", v[c]);
    }
    printf("\n");
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

/* -o: room for every row, checked against the free memory first (exit 2 naming the size). */
static int dyn_keep(dyn_run *r)
{
    const size_t rows = (size_t)r->n * (size_t)pkm_model_joint_count(r->m);
    const double bytes = 8.0 * ((double)r->n + (PKM_DYN_SERIES_COLUMNS + 6.0) * (double)rows);
    const int rc = cli_check_output_memory(bytes, r->n);
    if (rc != 0) return rc;
    r->t = malloc(sizeof(double) * (size_t)r->n);
    r->wrench = malloc(sizeof(double) * 6 * rows);
    int ok = r->t != NULL && r->wrench != NULL;
    for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
        ok = (r->value[c] = malloc(sizeof(double) * rows)) != NULL && ok;
    return ok ? 0 : cli_usage_error("-o: cannot allocate %.3g GB for %d times", bytes / 1e9, r->n);
}

static void dyn_free(dyn_run *r)
{
    free(r->t);
    free(r->wrench);
    for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
        free(r->value[c]);
}

/* The first ntime times' rows written to o->output (partial: the run was interrupted, the file
 * says so); 0 or an exit status (a failed write is exit 3). */
static int dyn_write(const dyn_run *r, const dyn_args *o, int ntime, int partial)
{
    const int nj = pkm_model_joint_count(r->m);
    const char **names = malloc(sizeof(char *) * 2 * (size_t)nj);
    if (names == NULL) return cli_usage_error("-o: out of memory");
    for (int j = 0; j < nj; j++) {
        names[j] = pkm_model_joint(r->m, j)->name;
        names[nj + j] = dyn_type(pkm_model_joint(r->m, j));
    }
    pkm_dyn_series s = {.case_name = r->c->name,
                        .trajectory = o->traj != NULL ? o->traj : r->c->traj[0].name,
                        .friction = dyn_law_name(r),
                        .ntime = ntime,
                        .njoint = nj,
                        .partial = partial,
                        .joints = names,
                        .types = names + nj,
                        .t = r->t,
                        .wrench = r->wrench};
    for (int c = 0; c < PKM_DYN_SERIES_COLUMNS; c++)
        s.value[c] = r->value[c];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_dyn_series_write_h5(o->output, &s, &ctx);
    free(names);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    printf("# wrote %s: %d times x %d joints (%s)\n", o->output, ntime, nj, r->c->name);
    return 0;
}

/* The error line of a failed run, with the case's reading of a singular closure. */
static void dyn_solve_error(const dyn_run *r, pkm_status st, const pkm_ctx *ctx)
{
    const char *note = st == PKM_ERR_SINGULAR ? r->c->singular_note : NULL;
    fflush(stdout);
    fprintf(stderr, "%s: error: %s%s%s\n", CLI_PROG, ctx->msg, note != NULL ? "; " : "",
            note != NULL ? note : "");
}

/* The column names (csv) or the table's heading. */
static void dyn_header(const dyn_run *r, int csv)
{
    if (csv) {
        printf("t,joint,type,q,qd,qdd,drive,ideal,friction,f_axial,f_radial,m_bending\n");
        return;
    }
    printf("# %s, %d times from %g to %g s, friction %s\n", r->c->name, r->n, r->t0, r->t1,
           dyn_law_name(r));
    printf("# %8s  %-10s %-13s %13s %13s %13s %13s %13s %13s %13s %13s %13s\n", "t [s]", "joint",
           "type", "q", "qd", "qdd", "drive", "ideal", "friction", "f_axial", "f_radial",
           "m_bending");
}

/* The rows of the run (times x joints) within DYN_MAX_ROWS: exit 2 naming the size otherwise. */
static int dyn_check_size(const dyn_run *r, const dyn_args *o)
{
    const double rows = (double)r->n * pkm_model_joint_count(r->m);
    if (rows <= DYN_MAX_ROWS) return 0;
    return cli_usage_error("--time %s: %d times x %d joints = %.3g rows x %d columns, about %.3g "
                           "GB, above the limit of %d rows of a run: fewer times (--time "
                           "T0:T1:N), or several runs",
                           o->time != NULL ? o->time : "", r->n, pkm_model_joint_count(r->m), rows,
                           3 + PKM_DYN_SERIES_COLUMNS, rows * DYN_BYTES_PER_ROW / 1e9,
                           DYN_MAX_ROWS);
}

/* Ctrl-C after k whole time samples: -o gets them marked partial; exit 130. */
static int dyn_interrupted(const dyn_run *r, const dyn_args *o, int k)
{
    int rc = 0;
    if (r->t != NULL && k > 0 && (rc = dyn_write(r, o, k, 1)) != 0) return rc;
    fprintf(stderr, "%s: interrupted: %d of %d times done%s%s%s\n", CLI_PROG, k, r->n,
            r->t != NULL && k > 0 ? ", saved in " : "", r->t != NULL && k > 0 ? o->output : "",
            r->t != NULL && k > 0 ? " (marked partial: root attribute complete = 0)" : "");
    return EXIT_INTERRUPT;
}

/* A time of the run: its joints' rows, printed (the header before the first) or kept; stops on
 * Ctrl-C and on a failed output. */
static int dyn_sink(void *user, const pkm_dynamics_row *row)
{
    dyn_run *r = user;
    if (cli_interrupted() || cli_output_failed()) return r->stopped = 1;
    if (r->show) cli_progress_show(&r->bar, (int)row->step, r->n, "times");
    if (row->step == 0 && r->t == NULL) dyn_header(r, r->csv);
    for (int j = 0; j < pkm_model_joint_count(r->m); j++)
        dyn_row(r, (int)row->step, row->t, j, &row->joint[j]);
    r->done = (int)row->step + 1;
    return 0;
}

/* The inverse dynamics at every time (pkm_dynamics_run_on), printed or kept; 0, exit 2 for a
 * grid out of reach before any time is computed, 3 naming the time of a failed one, 130 after
 * Ctrl-C. */
static int dyn_compute(dyn_run *r, const dyn_args *o)
{
    r->csv = cli_format_is_rows(o->format);
    const double start = cli_now();
    r->bar = (cli_progress){start, 0.0};
    r->show = isatty(STDERR_FILENO) && (r->t != NULL || !isatty(STDOUT_FILENO));
    const pkm_dynamics_opts opts = {.t0 = r->t0, .t1 = r->t1, .n = r->n, .singular = o->singular};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_dynamics_run_on(r->motion, r->tr, &opts, dyn_sink, r, &ctx);
    if (st != PKM_OK) {
        dyn_solve_error(r, st, &ctx);
        return r->done > 0 ? EXIT_COMPUTE : cli_exit_status_of(st);
    }
    if (r->stopped) return cli_output_failed() ? EXIT_COMPUTE : dyn_interrupted(r, o, r->done);
    if (r->show) cli_progress_show(&r->bar, r->n, r->n, "times");
    if (r->t != NULL) return dyn_write(r, o, r->n, 0);
    if (!r->csv)
        printf("# %.1f us per time sample (kinematics and inverse dynamics, output included)\n",
               1e6 * (cli_now() - start) / r->n);
    return 0;
}

/* One time of --forward: the deviation from the trajectory and the energy balance (the header
 * before the first). */
static int dyn_forward_sink(void *user, const pkm_dynamics_fwd_row *row)
{
    dyn_run *r = user;
    if (cli_interrupted() || cli_output_failed()) return r->stopped = 1;
    if (row->step == 0) {
        if (r->csv)
            printf("t,deviation,balance,friction_work\n");
        else
            printf("# forward dynamics under the inverse drives, RK4 step %g s\n# %8s %16s %16s "
                   "%16s\n",
                   (r->t1 - r->t0) / (r->n - 1), "t [s]", "max|q - q_traj|", "energy balance",
                   "friction work");
    }
    if (r->csv)
        printf("%.9g,%.6e,%.6e,%.6e\n", row->t, row->deviation, row->balance, row->friction_work);
    else
        printf("  %8.4f %16.6e %16.6e %16.6e\n", row->t, row->deviation, row->balance,
               row->friction_work);
    r->dev = fmax(r->dev, row->deviation);
    r->bal = fmax(r->bal, fabs(row->balance));
    r->done = (int)row->step + 1;
    return 0;
}

/* --forward: the forward dynamics under the drives of the inverse dynamics
 * (pkm_dynamics_forward_run_on), a row per time. */
static int dyn_forward(dyn_run *r, const dyn_args *o)
{
    r->csv = cli_format_is_rows(o->format);
    const pkm_dynamics_opts opts = {.t0 = r->t0, .t1 = r->t1, .n = r->n, .singular = o->singular};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double start = cli_now();
    const pkm_status st = pkm_dynamics_forward_run_on(r->motion, r->c, r->params, r->tr, &opts,
                                                      dyn_forward_sink, r, &ctx);
    if (st != PKM_OK) {
        dyn_solve_error(r, st, &ctx);
        return r->done > 0 ? EXIT_COMPUTE : cli_exit_status_of(st);
    }
    if (r->stopped) return cli_output_failed() ? EXIT_COMPUTE : EXIT_INTERRUPT;
    if (!r->csv)
        printf("# largest deviation %.3e (rad or m), largest |balance| %.3e J; %.1f us per step\n",
               r->dev, r->bal, 1e6 * (cli_now() - start) / (r->n - 1));
    return 0;
}

int cli_dynamics(int argc, char **argv)
{
    dyn_args o = {.format = "table"};
    if (argc > 2 && cli_chain_is_machine(argv[2])) return cli_chain_dynamics(argc, argv);
    if (argc > 2 && cli_mast_is_case(argv[2])) return cli_mast_dynamics(argc, argv);
    int rc = cli_parse(argc, argv, &dyn_command, dyn_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    void *params = NULL;
    dyn_run r = {.n = DYN_DEFAULT_TIMES};
    if ((rc = cli_load_case(&o.c, &r.c, &params)) != 0 ||
        (rc = cli_case_supports(r.c, PKM_CASE_DYNAMICS)) != 0 ||
        (rc = dyn_friction_law(&o, r.c, params)) != 0)
        goto done;
    r.params = params;
    if (o.forward && o.output != NULL) {
        rc = cli_usage_error("--forward prints its deviations: -o is for the inverse dynamics");
        goto done;
    }
    if (o.time != NULL && !cli_parse_times(o.time, DYN_MAX_TIMES, &r.t0, &r.t1, &r.n)) {
        rc = cli_usage_error("--time '%s': expected T0:T1:N, T1 > T0 and 2 <= N <= %d", o.time,
                             DYN_MAX_TIMES);
        goto done;
    }
    if (cli_check_only() ||
        (rc = cli_trajectory(r.c, o.traj, o.time != NULL ? r.t1 : 0.0, &r.tr)) != 0)
        goto done;
    if (o.time == NULL) pkm_trajectory_span(r.tr, &r.t0, &r.t1);
    if ((rc = dyn_setup(&r, o.singular)) != 0) goto done;
    if (o.forward) {
        rc = dyn_forward(&r, &o);
        goto done;
    }
    if ((rc = dyn_check_size(&r, &o)) != 0 ||
        (o.output != NULL &&
         ((rc = cli_check_output_path(o.output)) != 0 || (rc = dyn_keep(&r)) != 0)))
        goto done;
    cli_interrupt_begin();
    rc = dyn_compute(&r, &o);
    cli_interrupt_end();
done:
    dyn_free(&r);
    pkm_motion_destroy(&r.motion);
    pkm_trajectory_destroy(&r.tr);
    pkm_case_params_destroy(&params);
    return rc;
}
