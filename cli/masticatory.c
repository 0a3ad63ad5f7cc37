/* cli/masticatory.c: pkmflex dynamics masticatory: the chewing robot's surrogate (Cheng et al.
 * 2024) along its default motion: pose, crank angles, minimum-norm torques, contact forces; or,
 * with --inertia, its joint-space inertia and inertia coupling index beside its 6-RSS twin's.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"
#include "pkm/casefile.h"
#include "pkm/io.h"
#include "pkm/masticatory.h"
#include "pkm/mastrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAST_MAX_TIMES 10000000

enum {
    MA_SET = CLI_OPT_OWN,
    MA_TIME,
    MA_FORMAT,
    MA_INERTIA,
    MA_WEIGHTS,
    MA_PRELOAD,
    MA_OUTPUT,
    MA_ROUTE
};

typedef struct mast_args {
    int got_case, csv, inertia, nsets;
    const char *time, *weights, *preload, *output, *route;
    const char *sets[CLI_MAX_SETS];
} mast_args;

/* -o: the rows kept for the file (n times x ncol columns, t first). */
typedef struct mast_keep {
    double *rows;
    int ncol, n;
} mast_keep;

static const cli_option mast_options[] = {
    {"--set", NULL, 1, MA_SET, "KEY=VALUE",
     "set a parameter of the case (pkmflex cases --show masticatory),\n"
     "e.g. higher_pairs=off for the 6-RSS twin",
     NULL},
    {"--time", NULL, 1, MA_TIME, "T0:T1:N",
     "N >= 2 equally spaced times from T0 to T1 > T0, s (default 0:1:101)", NULL},
    {"--inertia", NULL, 0, MA_INERTIA, NULL,
     "print M_A and MCI along the motion, the target's and its 6-RSS\n"
     "twin's, with their time means and ratio (docs/dynamics.md)",
     NULL},
    {"--weights", NULL, 1, MA_WEIGHTS, "W1,...,W6",
     "torques of least weighted norm sum W_i tau_i^2 (W_i > 0; default all 1)", NULL},
    {"--preload", NULL, 1, MA_PRELOAD, "T1,...,T6",
     "crank torques (N m) whose null-space part is added: an internal preload\n"
     "that moves nothing (the redundant actuation's freedom)",
     NULL},
    {"--route", NULL, 1, MA_ROUTE, "NAME",
     "how the torques are formed, all equal to rounding (docs/dynamics.md):\n"
     "virtual-power (default), hessian (the paper's Lagrange-D'Alembert form\n"
     "with Hessians), liang (partial derivatives), first-kind (Lagrange's\n"
     "equations of the first kind)",
     NULL},
    {"--output", "-o", 1, MA_OUTPUT, "FILE.h5",
     "also write the rows as HDF5, one dataset per column with its unit\n"
     "(docs/hdf5-layout.md, \"Column files\")",
     NULL},
    {"--format", NULL, 1, MA_FORMAT, "table|csv|json", "output format (columns: docs/dynamics.md)",
     NULL},
};

static const cli_command mast_command = {
    "dynamics",
    "usage: pkmflex dynamics masticatory [--set KEY=VALUE]... [--time T0:T1:N] [--inertia]\n"
    "                        [--weights W1,...,W6] [--preload T1,...,T6] [--route NAME]\n"
    "                        [-o FILE.h5] [--format table|csv|json]\n\n"
    "The chewing robot's surrogate (Cheng et al. 2024): six R-S-S chains drive a mandible\n"
    "whose condyles slide on a plane, along the default motion of its free coordinates\n"
    "X, Y, alpha, beta (Z and gamma follow from the contacts). Per time: the pose, the\n"
    "crank angles theta1..theta6, their minimum-norm torques under the bite load (N m), the\n"
    "contact normal forces (N) and the Newton-Euler residual. With higher_pairs=off, the\n"
    "6-RSS twin replays the target's pose. --inertia: M_A's diagonal and MCI instead.\n\n",
    mast_options, (int)(sizeof(mast_options) / sizeof(mast_options[0])), 0};

static int mast_set(void *user, int id, const char *v)
{
    mast_args *o = user;
    switch (id) {
    case CLI_ARG:
        if (o->got_case) return cli_usage_error("unexpected argument '%s'", v);
        o->got_case = 1;
        return 0;
    case MA_SET:
        if (o->nsets >= CLI_MAX_SETS) return cli_usage_error("--set: more than %d", CLI_MAX_SETS);
        o->sets[o->nsets++] = v;
        return 0;
    case MA_TIME:
        o->time = v;
        return 0;
    case MA_INERTIA:
        o->inertia = 1;
        return 0;
    case MA_WEIGHTS:
        o->weights = v;
        return 0;
    case MA_PRELOAD:
        o->preload = v;
        return 0;
    case MA_OUTPUT:
        o->output = v;
        return 0;
    case MA_ROUTE:
        o->route = v;
        return 0;
    case MA_FORMAT:
        if (cli_check_format(v) != 0) return EXIT_INPUT;
        o->csv = cli_format_is_rows(v);
        return 0;
    default:
        return EXIT_INPUT;
    }
}

int cli_mast_is_case(const char *name)
{
    return strcmp(name, pkm_masticatory_case()->name) == 0;
}

void cli_mast_list(int csv)
{
    const pkm_case *c = pkm_masticatory_case();
    if (csv) {
        cli_cases_row((const char *const[8]){c->name, "case", "X [m] Y [m] alpha [rad] beta [rad]",
                                             "theta1 theta2 theta3 theta4 theta5 theta6 [N m]",
                                             "dynamics", "chewing", c->description, ""});
        return;
    }
    printf("%s: %s\n  pose: X [m] Y [m] alpha [rad] beta [rad] (free; Z, gamma parasitic)\n"
           "  actuated joints: theta1 ... theta6 [N m]\n"
           "  analyses: dynamics (inverse, --inertia)\n  trajectories: chewing (default)\n"
           "  parameters: pkmflex cases --show %s\n",
           c->name, c->description, c->name);
}

/* The parameters (pkm_masticatory_params) with the --set values applied. */
static int mast_params(const mast_args *o, void **out)
{
    const pkm_case *c = pkm_masticatory_case();
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *p = NULL;
    const pkm_status st = pkm_case_params_create(c, &p, &ctx);
    if (st != PKM_OK) return cli_report(st, &ctx);
    const int rc = cli_apply_sets(c, p, o->sets, o->nsets);
    if (rc != 0) {
        pkm_case_params_destroy(&p);
        return rc;
    }
    *out = p;
    return 0;
}

/* One row of a table or csv line: a time and n values, kept for -o if k has room. */
static void mast_row(int csv, double t, const double *v, int n, mast_keep *keep)
{
    if (keep->rows != NULL) {
        double *row = keep->rows + (size_t)keep->n * (size_t)(n + 1);
        row[0] = t;
        memcpy(row + 1, v, sizeof(double) * (size_t)n);
        keep->ncol = n + 1;
        keep->n++;
    }
    printf(csv ? "%.17g" : "%8.4f", t);
    for (int k = 0; k < n; k++)
        printf(csv ? ",%.17g" : " %12.5g", v[k]);
    printf("\n");
}

/* The header: t and the names. */
static void mast_header(int csv, const char *const *names, int n)
{
    printf(csv ? "t" : "%8s", csv ? "" : "t");
    for (int k = 0; k < n; k++)
        printf(csv ? ",%s" : " %12s", names[k]);
    printf("\n");
}

/* -o: the kept rows with their names and units (t first); 0 or exit 3. */
static int mast_write(const mast_args *o, const mast_keep *k, const char *const *names,
                      const char *const *units)
{
    if (o->output == NULL) return 0;
    const char *nm[32], *un[32];
    nm[0] = "t", un[0] = "s";
    for (int c = 1; c < k->ncol && c < 32; c++)
        nm[c] = names[c - 1], un[c] = units[c - 1];
    const pkm_columns cols = {
        "pkmflex-masticatory", pkm_masticatory_case()->name, k->n, k->ncol, nm, un, k->rows};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_columns_write_h5(o->output, &cols, &ctx);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    if (!o->csv) printf("# written to %s\n", o->output);
    return 0;
}

static const char *const mast_pose_names[6] = {"X", "Y", "Z", "alpha", "beta", "gamma"};

/* What a run prints: its format and the rows kept for -o; --inertia's time means of MCI(a). */
typedef struct mast_out {
    const mast_args *o;
    const pkm_mast_run_opts *ro;
    mast_keep *keep;
    const char *const *names;
    int ncol;
    double mean[12];
} mast_out;

/* One time of the inverse dynamics: pose, crank angles, torques, contact forces, residual (the
 * table's heading, with the mechanism's mobility, before the first). */
static int mast_inverse_sink(void *user, const pkm_mast_row *w)
{
    mast_out *u = user;
    const pkm_mast *m = w->m;
    if (w->step == 0) {
        if (!u->o->csv)
            printf("# %s: mobility %d (Gruebler-Kutzbach), %d cranks; route %s\n",
                   m->ncontact > 0 ? "6 R-S-S chains and 2 higher pairs" : "6-RSS twin",
                   pkm_mast_mobility(m), m->nchain, pkm_mast_route_name(u->ro->inv.route));
        mast_header(u->o->csv, u->names, u->ncol);
    }
    double v[21];
    int j = 0;
    for (int a = 0; a < 6; a++)
        v[j++] = w->s->X[a];
    for (int i = 0; i < 6; i++)
        v[j++] = w->s->th[i];
    for (int i = 0; i < 6; i++)
        v[j++] = w->forces->tau[i];
    for (int c = 0; c < m->ncontact; c++)
        v[j++] = w->forces->contact[c];
    v[j++] = w->forces->residual;
    mast_row(u->o->csv, w->t, v, j, u->keep);
    return cli_output_failed();
}

/* One time of --inertia: MCI(a) of the target and of the twin, MCI(b) and M_A's diagonal of the
 * target; their time means kept. */
static int mast_inertia_sink(void *user, const pkm_mast_row *w)
{
    mast_out *u = user;
    if (w->step == 0) mast_header(u->o->csv, u->names, u->ncol);
    double v[24];
    for (int i = 0; i < 6; i++) {
        v[i] = w->mci[i], v[6 + i] = w->twin_mci[i], v[12 + i] = w->mcib[i];
        v[18 + i] = w->MA[7 * i];
    }
    for (int i = 0; i < 12; i++)
        u->mean[i] += v[i] / u->ro->n;
    mast_row(u->o->csv, w->t, v, 24, u->keep);
    return cli_output_failed();
}

/* The inverse-dynamics columns: pose (m, rad), theta1..6 (rad), tau1..6 (N m), the contact
 * forces (N) when there are contacts, the Newton-Euler residual. */
static int mast_inverse_rows(const mast_args *o, const pkm_masticatory_params *p,
                             const pkm_mast_run_opts *ro, mast_keep *keep)
{
    const char *names[6 + 12 + 2 + 1] = {0}, *units[6 + 12 + 2 + 1] = {0};
    char buf[12][8];
    int nc = 0;
    for (int k = 0; k < 6; k++)
        units[nc] = k < 3 ? "m" : "rad", names[nc++] = mast_pose_names[k];
    for (int i = 0; i < 6; i++)
        snprintf(buf[i], sizeof(buf[i]), "theta%d", i + 1), units[nc] = "rad", names[nc++] = buf[i];
    for (int i = 0; i < 6; i++)
        snprintf(buf[6 + i], sizeof(buf[6 + i]), "tau%d", i + 1), units[nc] = "N m",
                                                                  names[nc++] = buf[6 + i];
    if (p->higher_pairs)
        units[nc] = units[nc + 1] = "N", names[nc++] = "contact_L", names[nc++] = "contact_R";
    units[nc] = "1", names[nc++] = "residual";
    mast_out u = {.o = o, .ro = ro, .keep = keep, .names = names, .ncol = nc};
    const double start = cli_now();
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_mast_run(p, ro, mast_inverse_sink, &u, &ctx);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    if (cli_output_failed()) return EXIT_COMPUTE;
    if (!o->csv)
        printf("# %.1f us per time sample (kinematics and inverse dynamics, output included)\n",
               1e6 * (cli_now() - start) / ro->n);
    return mast_write(o, keep, names, units);
}

/* --inertia: MCI(a) of the target and of the twin, MCI(b) and M_A's diagonal (kg m^2) of the
 * target; then the time means and the target's over the twin's, in %. */
static int mast_inertia_rows(const mast_args *o, const pkm_masticatory_params *p,
                             const pkm_mast_run_opts *ro, mast_keep *keep)
{
    static const char *const units[24] = {
        "1", "1", "1", "1", "1", "1", "1",      "1",      "1",      "1",      "1",      "1",
        "1", "1", "1", "1", "1", "1", "kg m^2", "kg m^2", "kg m^2", "kg m^2", "kg m^2", "kg m^2"};
    static const char *const names[24] = {
        "mci1",      "mci2",      "mci3",      "mci4",      "mci5",      "mci6",
        "twin_mci1", "twin_mci2", "twin_mci3", "twin_mci4", "twin_mci5", "twin_mci6",
        "mcib1",     "mcib2",     "mcib3",     "mcib4",     "mcib5",     "mcib6",
        "MA11",      "MA22",      "MA33",      "MA44",      "MA55",      "MA66"};
    mast_out u = {.o = o, .ro = ro, .keep = keep, .names = names, .ncol = 24};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_mast_run(p, ro, mast_inertia_sink, &u, &ctx);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    if (cli_output_failed()) return EXIT_COMPUTE;
    printf("# mean MCI(a) over the %d times, target:", ro->n);
    for (int i = 0; i < 6; i++)
        printf(" %.8g", u.mean[i]);
    printf("\n# mean MCI(a), 6-RSS twin:");
    for (int i = 0; i < 6; i++)
        printf(" %.8g", u.mean[6 + i]);
    printf("\n# target / twin, %%:");
    for (int i = 0; i < 6; i++)
        printf(" %.5g", 100.0 * u.mean[i] / u.mean[6 + i]);
    printf("\n");
    return mast_write(o, keep, names, units);
}

int cli_mast_dynamics(int argc, char **argv)
{
    mast_args o = {0};
    int rc = cli_parse(argc, argv, &mast_command, mast_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    pkm_mast_run_opts ro = {.t0 = 0.0, .t1 = 1.0, .n = 101, .inertia = o.inertia};
    if (o.time != NULL && !cli_parse_times(o.time, MAST_MAX_TIMES, &ro.t0, &ro.t1, &ro.n))
        return cli_usage_error("--time '%s': expected T0:T1:N with T1 > T0 and N from 2 to %d",
                               o.time, MAST_MAX_TIMES);
    static const char *const one[6] = {"", "", "", "", "", ""}; /* weights; torques in N m */
    double w[6], pre[6];
    pkm_mast_inverse_opts *io = &ro.inv;
    if (o.weights != NULL) {
        int ok = cli_parse_pose(o.weights, 6, one, w);
        for (int i = 0; ok && i < 6; i++)
            ok = isfinite(w[i]) && w[i] > 0.0;
        if (!ok) return cli_usage_error("--weights '%s': expected 6 weights > 0", o.weights);
        io->weight = w;
    }
    if (o.preload != NULL) {
        int ok = cli_parse_pose(o.preload, 6, one, pre);
        for (int i = 0; ok && i < 6; i++)
            ok = isfinite(pre[i]);
        if (!ok) return cli_usage_error("--preload '%s': expected 6 torques (N m)", o.preload);
        io->preload = pre;
    }
    if (o.route != NULL) {
        int r = 0;
        while (pkm_mast_route_name((pkm_mast_route)r) != NULL &&
               strcmp(pkm_mast_route_name((pkm_mast_route)r), o.route) != 0)
            r++;
        if (pkm_mast_route_name((pkm_mast_route)r) == NULL)
            return cli_usage_error("--route '%s': expected virtual-power, hessian, liang or "
                                   "first-kind",
                                   o.route);
        io->route = (pkm_mast_route)r;
    }
    if (o.inertia && (o.weights != NULL || o.preload != NULL || o.route != NULL))
        return cli_usage_error(
            "--weights, --preload and --route shape the torques: not with --inertia");
    void *params = NULL;
    if ((rc = mast_params(&o, &params)) != 0 || cli_check_only()) goto done;
    mast_keep keep = {0};
    if (o.output != NULL && (rc = cli_check_output_name(o.output)) != 0) goto done;
    if (o.output != NULL && (keep.rows = malloc(sizeof(double) * 25 * (size_t)ro.n)) == NULL) {
        rc = cli_usage_error("-o: cannot keep %d rows", ro.n);
        goto done;
    }
    const pkm_masticatory_params *p = params;
    rc = o.inertia ? mast_inertia_rows(&o, p, &ro, &keep) : mast_inverse_rows(&o, p, &ro, &keep);
    free(keep.rows);
done:
    pkm_case_params_destroy(&params);
    return rc;
}
