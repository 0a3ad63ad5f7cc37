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

enum { CH_TRAJECTORY = CLI_OPT_OWN, CH_TIME, CH_FORMAT, CH_FORWARD, CH_FORCES, CH_STEP, CH_OUTPUT };

typedef struct chain_args {
    const char *machine;
    const char *traj;   /* a CSV file, or NULL: the machine's sinusoids */
    const char *time;   /* T0:T1:N, or NULL: 101 times over the trajectory */
    const char *forces; /* --forward: a CSV file of the drives, or NULL: the trajectory's */
    const char *output; /* -o FILE.h5, or NULL */
    int csv, forward;
    double step; /* RK4 step, s */
} chain_args;

static const cli_option chain_options[] = {
    {"--trajectory", NULL, 1, CH_TRAJECTORY, "FILE.csv",
     "samples of the actuated coordinates (header t,x for boom1;\n"
     "t,slew,x1,x2,xt for crane4), interpolated by a not-a-knot\n"
     "spline (default: the sinusoids of docs/chain.md, 10 s)",
     NULL},
    {"--time", NULL, 1, CH_TIME, "T0:T1:N",
     "N >= 2 equally spaced output times from T0 to T1 > T0, s\n"
     "(default: 101 over the trajectory's span)",
     NULL},
    {"--forward", NULL, 0, CH_FORWARD, NULL,
     "forward dynamics: integrate (RK4) under the drives of the\n"
     "trajectory from its state at T0, with the energy balance",
     NULL},
    {"--forces", NULL, 1, CH_FORCES, "FILE.csv",
     "--forward: the drives (N, N m) as samples, header t and the\n"
     "actuated joints (t,cyl1 for boom1; t,slew,cyl1,cyl2,ext for\n"
     "crane4), interpolated by a not-a-knot spline (default: the\n"
     "inverse dynamics of the trajectory)",
     NULL},
    {"--step", NULL, 1, CH_STEP, "H", "--forward: the largest RK4 step, s (default 1e-3)", NULL},
    {"--format", NULL, 1, CH_FORMAT, "table|csv|json", "output format (columns: docs/chain.md)",
     NULL},
    {"--output", "-o", 1, CH_OUTPUT, "FILE.h5",
     "write the rows to an HDF5 file instead of printing them\n"
     "(layout: docs/hdf5-layout.md, module-chain files)",
     NULL},
};

static const cli_command chain_command = {
    "dynamics",
    "usage: pkmflex dynamics boom1|crane4 [--trajectory FILE.csv] [--time T0:T1:N]\n"
    "                        [--forward [--forces FILE.csv] [--step H]]\n"
    "                        [--format table|csv|json | -o FILE.h5]\n\n"
    "The one-loop boom and the 4-dof crane of Petrovic and Mattila 2022 as chains of modules\n"
    "(Paz Anaya and Mattila 2024): per time and module, the coordinate, its rate and\n"
    "acceleration, the drive (N or N m) and the wrench the module takes from its base.\n"
    "Default: O(n) inverse dynamics along the trajectory; --forward: the O(n) forward\n"
    "dynamics integrated from the trajectory's state at T0 under its drives or under the\n"
    "drives of --forces, with the trajectory's coordinate beside and the energy balance\n"
    "T + V - work of the drives (J).\n\n",
    chain_options, (int)(sizeof(chain_options) / sizeof(chain_options[0])), 0};

static int chain_set(void *user, int id, const char *v)
{
    chain_args *o = user;
    switch (id) {
    case CLI_ARG:
        if (o->machine != NULL) return cli_usage_error("unexpected argument '%s'", v);
        o->machine = v;
        return 0;
    case CH_TRAJECTORY:
        o->traj = v;
        return 0;
    case CH_TIME:
        o->time = v;
        return 0;
    case CH_FORWARD:
        o->forward = 1;
        return 0;
    case CH_FORCES:
        o->forces = v;
        return 0;
    case CH_OUTPUT:
        o->output = v;
        return 0;
    case CH_STEP:
        if (!cli_parse_real(v, 1e-7, 1.0, &o->step))
            return cli_usage_error("--step '%s': expected a number from 1e-7 to 1 s", v);
        return 0;
    case CH_FORMAT:
        if (cli_check_format(v) != 0) return EXIT_INPUT;
        o->csv = cli_format_is_rows(v);
        return 0;
    default:
        return EXIT_INPUT;
    }
}

int cli_chain_is_machine(const char *name)
{
    const char *const *names;
    int n;
    return pkm_hiab_motion(name, &names, &n) != NULL;
}

void cli_chain_list(int csv)
{
    static const char *const machines[2][2] = {
        {"boom1", "the lift loop of the crane of Petrovic and Mattila 2022 on its pillar"},
        {"crane4", "that crane: slewing joint, lift and tilt loops, extension"}};
    for (int m = 0; m < 2; m++) {
        pkm_chain_module mods[4];
        pkm_chain_pose root;
        double g[3];
        const char *const *names;
        int n;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        const pkm_traj_desc *d = pkm_hiab_motion(machines[m][0], &names, &n);
        if (pkm_hiab_modules(machines[m][0], mods, &n, &root, g, &ctx) != PKM_OK) continue;
        if (csv) {
            char pose[256] = "", act[256] = "", *p = pose, *a = act;
            for (int k = 0; k < n; k++) {
                const int rev = mods[k].type == PKM_CHAIN_REVOLUTE;
                p += snprintf(p, sizeof pose - (size_t)(p - pose), "%s%s [%s]", k ? " " : "",
                              names[k], rev ? "rad" : "m");
                a += snprintf(a, sizeof act - (size_t)(a - act), "%s%s [%s]", k ? " " : "",
                              mods[k].name, rev ? "N m" : "N");
            }
            cli_cases_row((const char *const[8]){machines[m][0], "chain", pose, act, "dynamics",
                                                 d->name, machines[m][1], ""});
            continue;
        }
        printf("%s: %s (a module chain, docs/chain.md)\n  pose:", machines[m][0], machines[m][1]);
        for (int k = 0; k < n; k++)
            printf(" %s [%s]", names[k], mods[k].type == PKM_CHAIN_REVOLUTE ? "rad" : "m");
        printf("\n  actuated joints:");
        for (int k = 0; k < n; k++)
            printf(" %s [%s]", mods[k].name, mods[k].type == PKM_CHAIN_REVOLUTE ? "N m" : "N");
        printf("\n  analyses: dynamics (inverse, --forward)\n  trajectories: %s (default)\n",
               d->name);
    }
}

/* What a run holds. */
typedef struct chain_run {
    pkm_chain *c;
    pkm_trajectory *tr;
    pkm_trajectory *forces; /* the drives as a spline through samples, or NULL */
    int n, nt, csv;
    double t0, t1;
    /* -o: every row kept for the file (NULL otherwise): times, the columns of
     * pkm_chain_series_columns, the energies, the base wrenches */
    double *kt, *kv[PKM_CHAIN_SERIES_COLUMNS], *ke[PKM_CHAIN_SERIES_ENERGIES], *kbase;
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

static int chain_setup(const chain_args *o, chain_run *r)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const char *const *names;
    const pkm_traj_desc *d = pkm_hiab_motion(o->machine, &names, &r->n);
    pkm_status st = pkm_hiab_chain(o->machine, &r->c, &ctx);
    if (st == PKM_OK)
        st = o->traj != NULL ? pkm_trajectory_read_csv(o->traj, names, r->n, &r->tr, &ctx)
                             : pkm_trajectory_create_analytic(d, r->n, &r->tr, &ctx);
    if (st != PKM_OK) return cli_report(st, &ctx);
    double s0, s1;
    pkm_trajectory_span(r->tr, &s0, &s1);
    if (o->time == NULL) r->t0 = s0, r->t1 = s1, r->nt = 101;
    /* the sinusoids hold beyond their default span; samples do not */
    if (o->traj != NULL && (r->t0 < s0 || r->t1 > s1))
        return cli_usage_error("--time %g:%g: outside the trajectory's span %g:%g s", r->t0, r->t1,
                               s0, s1);
    return o->forces != NULL ? chain_read_forces(o->forces, r) : 0;
}

static void chain_header(int forward, int csv)
{
    if (csv)
        printf("t,joint,q,qd,qdd,drive,fx,fy,fz,mx,my,mz%s\n",
               forward ? ",q_ref,kinetic,potential,work,balance" : ",drive_check");
    else
        printf("%-8s %-6s %13s %13s %13s %14s %12s %12s%s\n", "t", "joint", "q", "qd", "qdd",
               "drive", "base_fx", "base_fy", forward ? "        q_ref      balance" : "");
}

/* The rows of an output time kept for -o. */
static void chain_keep_rows(chain_run *r, const pkm_chain_row *w)
{
    const int64_t k = w->step;
    r->kt[k] = w->t;
    for (int i = 0; i < r->n; i++) {
        const size_t at = (size_t)k * (size_t)r->n + (size_t)i;
        const double v[PKM_CHAIN_SERIES_COLUMNS] = {w->q[i],
                                                    w->qd[i],
                                                    w->qdd[i],
                                                    w->drive[i],
                                                    w->loads[i].tau_closed,
                                                    w->q_ref != NULL ? w->q_ref[i] : 0.0};
        for (int c = 0; c < PKM_CHAIN_SERIES_COLUMNS; c++)
            if (r->kv[c] != NULL) r->kv[c][at] = v[c];
        memcpy(r->kbase + 6 * at, w->loads[i].base, sizeof(w->loads[i].base));
    }
    for (int c = 0; c < PKM_CHAIN_SERIES_ENERGIES && w->energy != NULL; c++)
        r->ke[c][k] = w->energy[c];
}

/* One row per module of an output time, printed or kept for -o; the inverse dynamics' rows end
 * with the drive's check, the forward run's with the trajectory's coordinate and the energies. */
static int chain_sink(void *user, const pkm_chain_row *w)
{
    chain_run *r = user;
    if (r->kt != NULL) {
        chain_keep_rows(r, w);
        return 0;
    }
    if (w->step == 0) chain_header(w->energy != NULL, r->csv);
    const double *e = w->energy;
    for (int i = 0; i < r->n; i++) {
        const pkm_chain_loads *L = &w->loads[i];
        const char *name = pkm_chain_module_get(r->c, i)->name;
        if (r->csv) {
            printf("%.10g,%s,%.17g,%.17g,%.17g,%.17g", w->t, name, w->q[i], w->qd[i], w->qdd[i],
                   w->drive[i]);
            for (int c = 0; c < 6; c++)
                printf(",%.17g", L->base[c]);
            if (e == NULL)
                printf(",%.17g\n", L->tau_closed);
            else
                printf(",%.17g,%.17g,%.17g,%.17g,%.17g\n", w->q_ref[i], e[0], e[1], e[2], e[3]);
        } else {
            printf("%-8.4f %-6s %13.6g %13.6g %13.6g %14.8g %12.6g %12.6g", w->t, name, w->q[i],
                   w->qd[i], w->qdd[i], w->drive[i], L->base[0], L->base[1]);
            if (e != NULL) printf(" %12.6g %12.4g", w->q_ref[i], e[3]);
            printf("\n");
        }
    }
    return cli_output_failed();
}

/* The run (pkm_chain_run), printed or kept; 0 or an exit status. */
static int chain_compute(chain_run *r, const chain_args *o)
{
    const pkm_chain_run_opts ro = {.t0 = r->t0,
                                   .t1 = r->t1,
                                   .n = r->nt,
                                   .forward = o->forward,
                                   .step = o->step,
                                   .forces = r->forces};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_chain_run(r->c, r->tr, &ro, chain_sink, r, &ctx);
    if (st != PKM_OK) return cli_report(st, &ctx);
    return cli_output_failed() ? EXIT_COMPUTE : 0;
}

/* -o: room for every row (the memory check of a long run first: exit 2 naming the size). */
static int chain_keep(chain_run *r, int forward)
{
    const size_t rows = (size_t)r->nt * (size_t)r->n;
    const double bytes = 8.0 * ((double)r->nt * (1.0 + PKM_CHAIN_SERIES_ENERGIES) + 11.0 * rows);
    const int rc = cli_check_output_memory(bytes, r->nt);
    if (rc != 0) return rc;
    r->kt = malloc(sizeof(double) * (size_t)r->nt);
    r->kbase = malloc(sizeof(double) * 6 * rows);
    int ok = r->kt != NULL && r->kbase != NULL;
    for (int c = 0; c < PKM_CHAIN_SERIES_COLUMNS; c++)
        if (c != (forward ? 4 : 5)) /* drive_check: inverse only; q_ref: forward only */
            ok = (r->kv[c] = malloc(sizeof(double) * rows)) != NULL && ok;
    for (int c = 0; c < PKM_CHAIN_SERIES_ENERGIES && forward; c++)
        ok = (r->ke[c] = malloc(sizeof(double) * (size_t)r->nt)) != NULL && ok;
    return ok ? 0 : cli_usage_error("-o: cannot allocate %.3g GB for %d times", bytes / 1e9, r->nt);
}

/* The kept rows written to o->output; 0 or an exit status (a failed write is exit 3). */
static int chain_write(const chain_run *r, const chain_args *o)
{
    const char **names = chain_module_names(r);
    if (names == NULL) return cli_usage_error("-o: out of memory");
    const char *const *coords;
    int n;
    pkm_chain_series s = {
        .machine = o->machine,
        .trajectory = o->traj != NULL ? o->traj : pkm_hiab_motion(o->machine, &coords, &n)->name,
        .drives = !o->forward         ? "inverse dynamics"
                  : o->forces != NULL ? o->forces
                                      : "trajectory",
        .ntime = r->nt,
        .nmodule = r->n,
        .modules = names,
        .t = r->kt,
        .base = r->kbase};
    memcpy(s.value, r->kv, sizeof(s.value));
    memcpy(s.energy, r->ke, sizeof(s.energy));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_chain_series_write_h5(o->output, &s, &ctx);
    free(names);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    printf("# wrote %s: %d times x %d modules (%s)\n", o->output, r->nt, r->n, o->machine);
    return 0;
}

static void chain_free(chain_run *r)
{
    pkm_chain_destroy(&r->c);
    pkm_trajectory_destroy(&r->tr);
    pkm_trajectory_destroy(&r->forces);
    free(r->kt);
    free(r->kbase);
    for (int c = 0; c < PKM_CHAIN_SERIES_COLUMNS; c++)
        free(r->kv[c]);
    for (int c = 0; c < PKM_CHAIN_SERIES_ENERGIES; c++)
        free(r->ke[c]);
}

int cli_chain_dynamics(int argc, char **argv)
{
    chain_args o = {.step = 1e-3};
    chain_run r = {.nt = 101};
    int rc = cli_parse(argc, argv, &chain_command, chain_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    if (o.machine == NULL || !cli_chain_is_machine(o.machine))
        rc = cli_usage_error("expected boom1 or crane4");
    else if (o.time != NULL && !cli_parse_times(o.time, CHAIN_MAX_TIMES, &r.t0, &r.t1, &r.nt))
        rc = cli_usage_error("--time '%s': expected T0:T1:N, T1 > T0 and 2 <= N <= %d", o.time,
                             CHAIN_MAX_TIMES);
    else if (o.forces != NULL && !o.forward)
        rc = cli_usage_error("--forces: only with --forward");
    if (rc == 0 && cli_check_only()) return 0;
    if (rc == 0 && o.output != NULL) rc = cli_check_output_path(o.output);
    if (rc == 0) rc = chain_setup(&o, &r);
    if (rc == 0 && o.output != NULL) rc = chain_keep(&r, o.forward);
    r.csv = o.csv;
    if (rc == 0) rc = chain_compute(&r, &o);
    if (rc == 0 && o.output != NULL) rc = chain_write(&r, &o);
    chain_free(&r);
    return rc;
}
