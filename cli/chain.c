/* cli/chain.c: pkmflex dynamics boom1|crane4: the module chains of Paz Anaya and Mattila 2024 on
 * the crane of Petrovic and Mattila 2022: inverse dynamics along a trajectory of the actuated
 * coordinates, or forward dynamics (RK4) under the drives of that trajectory or under actuator
 * forces read from a CSV file, with the energy balance.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"
#include "pkm/chain.h"
#include "pkm/chainrun.h"
#include "pkm/hiab.h"
#include "pkm/io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most output times. */
#define CHAIN_MAX_TIMES 10000000

enum { CH_FORCES = CLI_OPT_OWN, CH_STEP, CH_ENGINE };

typedef struct chain_args {
    cli_case_args c;    /* the machine (a case: boom1, crane4) and its --set */
    cli_run_args run;   /* --trajectory (a CSV file, or NULL: the machine's sinusoids), --time,
                           --format, -o, --forward, --per-time */
    const char *forces; /* --forward: a CSV file of the drives, or NULL: the trajectory's */
    const char *engine; /* --engine NAME, or NULL: the chain's own passes */
    double step;        /* RK4 step, s */
} chain_args;

static const cli_option chain_options[] = {
    CLI_OPTION_TRAJECTORY,
    CLI_OPTION_TIME,
    CLI_OPTION_FORWARD,
    {"--forces", NULL, 1, CH_FORCES, "FILE.csv",
     "--forward: the drives (N, N m) as samples, header t and the\n"
     "actuated joints (t,cyl1 for boom1; t,slew,cyl1,cyl2,ext for\n"
     "crane4), interpolated by a not-a-knot spline (default: the\n"
     "inverse dynamics of the trajectory)",
     NULL},
    {"--step", NULL, 1, CH_STEP, "H", "--forward: the largest RK4 step, s (default 1e-3)", NULL},
    CLI_OPTION_FORMAT,
    CLI_OPTION_PER_TIME,
    CLI_OPTION_OUTPUT,
    CLI_OPTION_SET,
    {"--engine", NULL, 1, CH_ENGINE, "NAME",
     "the engine of the table (docs/dynamics.md): chain (the\n"
     "default), mbs or mbs-dense on the machine as a model",
     NULL},
};

static const cli_command chain_command = {
    "dynamics",
    "usage: pkmflex dynamics boom1|crane4 [--trajectory FILE.csv] [--time T0:T1:N]\n"
    "                        [--forward [--forces FILE.csv] [--step H]]\n"
    "                        [--format table|csv|json] [--per-time] [-o FILE.h5]\n"
    "                        [--engine NAME] [--set KEY=VALUE ...]\n\n"
    "The one-loop boom and the 4-dof crane of Petrovic and Mattila 2022 as chains of modules\n"
    "(Paz Anaya and Mattila 2024). The joint table of every case (docs/dynamics.md, \"Output\n"
    "columns\"): per time and module (type revolute, prismatic or loop) its coordinate, rate,\n"
    "acceleration and drive (N or N m); ideal = drive (no friction); the friction and the\n"
    "reaction components are empty. --per-time: per module the wrench it takes from its base\n"
    "(M.fx ... M.mz, base frame) and the drive again by the closed form (M.drive_check), or,\n"
    "--forward, the trajectory's coordinate (M.q_ref), then the deviation and the energies.\n"
    "Default: O(n) inverse dynamics along the trajectory (--trajectory: samples of the actuated\n"
    "coordinates, header t,x for boom1; t,slew,x1,x2,xt for crane4; default the sinusoids of\n"
    "docs/chain.md, 10 s); --forward: the O(n) forward dynamics integrated from the\n"
    "trajectory's state at T0 under its drives or under the drives of --forces, with the\n"
    "energy balance T + V - work of the drives (J).\n\n",
    chain_options, (int)(sizeof(chain_options) / sizeof(chain_options[0])), 0};

static int chain_set(void *user, int id, const char *v)
{
    chain_args *o = user;
    int rc = 0;
    if (cli_run_option(&o->run, id, v, &rc)) return rc;
    switch (id) {
    case CLI_ARG:
    case CLI_OPT_SET:
        return cli_case_set(&o->c, id, v);
    case CH_FORCES:
        o->forces = v;
        return 0;
    case CH_ENGINE:
        o->engine = v;
        return 0;
    case CH_STEP:
        if (!cli_parse_real(v, 1e-7, 1.0, &o->step))
            return cli_usage_error("--step '%s': expected a number from 1e-7 to 1 s", v);
        return 0;
    default:
        return EXIT_INPUT;
    }
}

int cli_chain_is_machine(const char *name)
{
    pkm_chain_module mods[4];
    pkm_chain_pose root;
    double g[3];
    int n;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    return pkm_hiab_modules(name, mods, &n, &root, g, &ctx) == PKM_OK;
}

/* Per-time columns per module: the base wrench, then drive_check (inverse) or q_ref (forward). */
#define CHAIN_MODULE_COLUMNS 7
#define CHAIN_NAME_LEN       (PKM_CHAIN_NAME + 16)

/* What a run holds. */
typedef struct chain_run {
    const pkm_case *cs; /* the machine's case and its parameters (gravity) */
    void *params;
    pkm_chain *c;
    pkm_trajectory *tr;
    pkm_trajectory *forces; /* the drives as a spline through samples, or NULL */
    int n, nt;
    double t0, t1;
    cli_rows rows;      /* the output (cli/rows.c) */
    const char **names; /* the modules' names, then their types */
    pkm_column *cols;   /* the per-time columns */
    char (*colname)[CHAIN_NAME_LEN];
    double *v, *pt; /* a time's joint values and per-time values */
} chain_run;

/* The modules' names (the actuated joints), a new array; NULL on no memory. */
static const char **chain_module_names(const chain_run *r)
{
    const char **names = calloc((size_t)r->n, sizeof(*names));
    for (int i = 0; i < r->n && names != NULL; i++)
        names[i] = pkm_chain_module_get(r->c, i)->name;
    return names;
}

/* The drives of --forces: a spline through the file's samples, one column per module named as
 * the module (the actuated joint), checked to cover the output times. */
static int chain_read_forces(const char *path, chain_run *r)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const char **names = chain_module_names(r);
    if (names == NULL) {
        fprintf(stderr, "%s: error: out of memory\n", CLI_PROG);
        return EXIT_COMPUTE;
    }
    pkm_status st = pkm_trajectory_read_csv(path, names, r->n, &r->forces, &ctx);
    free(names);
    if (st != PKM_OK) return cli_report(st, &ctx);
    double s0, s1;
    pkm_trajectory_span(r->forces, &s0, &s1);
    if (r->t0 < s0 || r->t1 > s1)
        return cli_usage_error("--forces %s: its span %g:%g s does not cover the times %g:%g", path,
                               s0, s1, r->t0, r->t1);
    return 0;
}

/* The machine's case (its --set applied), its chain under the case's gravity, the trajectory
 * (the case's sinusoids, or --trajectory) and --forces. */
static int chain_setup(chain_args *o, chain_run *r)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int rc = cli_load_case(&o->c, &r->cs, &r->params);
    if (rc != 0) return rc;
    const pkm_case_dynamics *dyn = pkm_case_dynamics_of(r->cs, r->params);
    if (dyn->friction_model != PKM_FRICTION_NONE)
        return cli_usage_error("%s: the module chains have no joint friction (friction.model "
                               "must be none)",
                               r->cs->name);
    pkm_chain_module mods[4];
    pkm_chain_pose root;
    double g[3];
    pkm_status st = pkm_hiab_modules(r->cs->name, mods, &r->n, &root, g, &ctx);
    if (st == PKM_OK) st = pkm_chain_create(r->n, mods, &root, dyn->gravity, &r->c, &ctx);
    if (st != PKM_OK) return cli_report(st, &ctx);
    if ((rc = cli_trajectory(r->cs, o->run.traj, o->run.time != NULL ? r->t1 : 0.0, &r->tr)) != 0)
        return rc;
    double s0, s1;
    pkm_trajectory_span(r->tr, &s0, &s1);
    if (o->run.time == NULL) r->t0 = s0, r->t1 = s1, r->nt = 101;
    if (r->t0 < s0 || r->t1 > s1)
        return cli_usage_error("--time %g:%g: outside the trajectory's span %g:%g s", r->t0, r->t1,
                               s0, s1);
    return o->forces != NULL ? chain_read_forces(o->forces, r) : 0;
}

/* The output's columns (cli/rows.c): the modules as joints; per time CHAIN_MODULE_COLUMNS per
 * module, then (forward) the deviation and the energies. */
static int chain_rows_init(chain_run *r, const chain_args *o)
{
    static const char *const types[3] = {"revolute", "prismatic", "loop"};
    static const char *const wrench[6][2] = {{"fx", "N"},   {"fy", "N"},   {"fz", "N"},
                                             {"mx", "N m"}, {"my", "N m"}, {"mz", "N m"}};
    static const pkm_column energies[5] = {{"deviation", "rad or m"},
                                           {"kinetic", "J"},
                                           {"potential", "J"},
                                           {"work", "J"},
                                           {"balance", "J"}};
    const int n = r->n, nc = CHAIN_MODULE_COLUMNS * n + (o->run.forward ? 5 : 0);
    r->names = malloc(sizeof(char *) * 2 * (size_t)n);
    r->cols = malloc(sizeof(pkm_column) * (size_t)nc);
    r->colname = malloc(sizeof(*r->colname) * (size_t)CHAIN_MODULE_COLUMNS * (size_t)n);
    r->v = malloc(sizeof(double) * ((size_t)PKM_DYN_SERIES_COLUMNS * (size_t)n + (size_t)nc));
    if (r->names == NULL || r->cols == NULL || r->colname == NULL || r->v == NULL)
        return cli_usage_error("out of memory");
    r->pt = r->v + PKM_DYN_SERIES_COLUMNS * (size_t)n;
    for (int i = 0; i < n; i++) {
        const pkm_chain_module *m = pkm_chain_module_get(r->c, i);
        r->names[i] = m->name;
        r->names[n + i] = types[m->type];
        const int rev = m->type == PKM_CHAIN_REVOLUTE;
        for (int k = 0; k < CHAIN_MODULE_COLUMNS; k++) {
            char *name = r->colname[CHAIN_MODULE_COLUMNS * i + k];
            const char *what = k < 6 ? wrench[k][0] : o->run.forward ? "q_ref" : "drive_check";
            snprintf(name, CHAIN_NAME_LEN, "%s.%s", m->name, what);
            const char *unit = k < 6            ? wrench[k][1]
                               : o->run.forward ? (rev ? "rad" : "m")
                                                : (rev ? "N m" : "N");
            r->cols[CHAIN_MODULE_COLUMNS * i + k] = (pkm_column){name, unit};
        }
    }
    for (int k = 0; k < 5 && o->run.forward; k++)
        r->cols[CHAIN_MODULE_COLUMNS * n + k] = energies[k];
    r->rows = (cli_rows){.csv = cli_format_is_rows(o->run.format),
                         .per_time = o->run.per_time,
                         .njoint = n,
                         .joints = r->names,
                         .types = r->names + n,
                         .ncol = nc,
                         .cols = r->cols};
    return 0;
}

/* An output time: the modules' rows of the joint table (q, qd, qdd, drive, ideal = drive; no
 * friction or reaction components) and the per-time values; printed or kept. */
static int chain_sink(void *user, const pkm_chain_row *w)
{
    chain_run *r = user;
    const int n = r->n;
    double dev = 0.0;
    for (int i = 0; i < n; i++) {
        double *v = r->v + (size_t)i * PKM_DYN_SERIES_COLUMNS,
               *pt = r->pt + CHAIN_MODULE_COLUMNS * i;
        const double row[PKM_DYN_SERIES_COLUMNS] = {
            w->q[i], w->qd[i], w->qdd[i], w->drive[i], w->drive[i], NAN, NAN, NAN, NAN};
        memcpy(v, row, sizeof(row));
        memcpy(pt, w->loads[i].base, sizeof(w->loads[i].base));
        pt[6] = w->q_ref != NULL ? w->q_ref[i] : w->loads[i].tau_closed;
        if (w->q_ref != NULL) dev = fmax(dev, fabs(w->q[i] - w->q_ref[i]));
    }
    if (w->energy != NULL) {
        double *e = r->pt + CHAIN_MODULE_COLUMNS * n;
        e[0] = dev;
        memcpy(e + 1, w->energy, 4 * sizeof(double));
    }
    cli_rows_put(&r->rows, w->step, w->t, r->v, NULL, r->pt);
    return cli_output_failed();
}

/* The run (pkm_chain_run), printed or kept; 0 or an exit status. */
static int chain_compute(chain_run *r, const chain_args *o)
{
    pkm_chain_run_opts ro = {.t0 = r->t0,
                             .t1 = r->t1,
                             .n = r->nt,
                             .forward = o->run.forward,
                             .step = o->step,
                             .forces = r->forces};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (o->engine != NULL) { /* the table's engine on the machine as a model, its gravity */
        ro.engine = pkm_dyn_engine_find(o->engine);
        if (ro.engine == NULL)
            return cli_usage_error("--engine '%s': expected chain, mbs or mbs-dense", o->engine);
        memcpy(ro.gravity, pkm_case_dynamics_of(r->cs, r->params)->gravity, sizeof(ro.gravity));
    }
    const pkm_status st = pkm_chain_run(r->c, r->tr, &ro, chain_sink, r, &ctx);
    if (st != PKM_OK) return cli_report(st, &ctx);
    if (cli_output_failed()) return EXIT_COMPUTE;
    if (o->run.output == NULL) return 0;
    const cli_rows_source src = {r->cs->name,
                                 o->run.traj != NULL ? o->run.traj : r->cs->traj[0].name, "none"};
    return cli_rows_write(&r->rows, o->run.output, &src, 0);
}

static void chain_free(chain_run *r)
{
    pkm_case_params_destroy(&r->params);
    pkm_chain_destroy(&r->c);
    pkm_trajectory_destroy(&r->tr);
    pkm_trajectory_destroy(&r->forces);
    cli_rows_free(&r->rows);
    free(r->names);
    free(r->cols);
    free(r->colname);
    free(r->v);
}

int cli_chain_dynamics(int argc, char **argv)
{
    chain_args o = {.run = {.format = "table"}, .step = 1e-3};
    chain_run r = {.nt = 101};
    int rc = cli_parse(argc, argv, &chain_command, chain_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    if (o.c.case_name == NULL || !cli_chain_is_machine(o.c.case_name))
        rc = cli_usage_error("expected boom1 or crane4");
    else if (o.run.time != NULL &&
             !cli_parse_times(o.run.time, CHAIN_MAX_TIMES, &r.t0, &r.t1, &r.nt))
        rc = cli_usage_error("--time '%s': expected T0:T1:N, T1 > T0 and 2 <= N <= %d", o.run.time,
                             CHAIN_MAX_TIMES);
    else if (o.forces != NULL && !o.run.forward)
        rc = cli_usage_error("--forces: only with --forward");
    if (rc == 0 && cli_check_only()) return 0;
    if (rc == 0 && o.run.output != NULL) rc = cli_check_output_path(o.run.output);
    if (rc == 0) rc = chain_setup(&o, &r);
    if (rc == 0) rc = chain_rows_init(&r, &o);
    if (rc == 0 && o.run.output != NULL) rc = cli_rows_keep(&r.rows, r.nt, 0);
    if (rc == 0) rc = chain_compute(&r, &o);
    chain_free(&r);
    return rc;
}
