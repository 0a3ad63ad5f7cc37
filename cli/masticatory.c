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

enum { MA_INERTIA = CLI_OPT_OWN, MA_ROUTE };

typedef struct mast_args {
    int got_case, inertia, nsets;
    cli_run_args run; /* --time, --format, --per-time, -o */
    const char *weights, *preload, *route;
    const char *sets[CLI_MAX_SETS];
} mast_args;

static const cli_option mast_options[] = {
    CLI_OPTION_SET,
    CLI_OPTION_TIME,
    {"--inertia", NULL, 0, MA_INERTIA, NULL,
     "also M_A's diagonal and MCI along the motion in the per-time\n"
     "table, the target's and its 6-RSS twin's, with their time\n"
     "means and ratio (docs/dynamics.md)",
     NULL},
    CLI_OPTION_WEIGHTS,
    CLI_OPTION_PRELOAD,
    {"--route", NULL, 1, MA_ROUTE, "NAME",
     "how the torques are formed, all equal to rounding (docs/dynamics.md):\n"
     "virtual-power (default), hessian (the paper's Lagrange-D'Alembert form\n"
     "with Hessians), liang (partial derivatives), first-kind (Lagrange's\n"
     "equations of the first kind)",
     NULL},
    CLI_OPTION_OUTPUT,
    CLI_OPTION_FORMAT,
    CLI_OPTION_PER_TIME,
};

static const cli_command mast_command = {
    "dynamics",
    "usage: pkmflex dynamics masticatory [--set KEY=VALUE]... [--time T0:T1:N] [--inertia]\n"
    "                        [--weights W1,...,W6] [--preload T1,...,T6] [--route NAME]\n"
    "                        [-o FILE.h5] [--format table|csv|json] [--per-time]\n\n"
    "The chewing robot's surrogate (Cheng et al. 2024): six R-S-S chains drive a mandible\n"
    "whose condyles slide on a plane, along the default motion of its free coordinates\n"
    "X, Y, alpha, beta (Z and gamma follow from the contacts). The joint table of every case\n"
    "(docs/dynamics.md, \"Output columns\"): per time the cranks theta1..theta6 (revolute) with\n"
    "their angle, rate and acceleration and their minimum-norm torques under the bite load\n"
    "(drive = ideal, N m; no friction or reaction components: empty). --per-time: the pose\n"
    "X..gamma, the contact normal forces (N) and the Newton-Euler residual per time. With\n"
    "higher_pairs=off, the 6-RSS twin replays the target's pose. --inertia: M_A's diagonal and\n"
    "MCI in the per-time table too, and their means. With --engine mbs or mbs-dense: the\n"
    "general path instead (pkmflex dynamics --help), the same torques and contact forces.\n\n",
    mast_options, (int)(sizeof(mast_options) / sizeof(mast_options[0])), 0};

static int mast_set(void *user, int id, const char *v)
{
    mast_args *o = user;
    int rc = 0;
    if (cli_run_option(&o->run, id, v, &rc)) return rc;
    switch (id) {
    case CLI_ARG:
        if (o->got_case) return cli_usage_error("unexpected argument '%s'", v);
        o->got_case = 1;
        return 0;
    case CLI_OPT_SET:
        if (o->nsets >= CLI_MAX_SETS) return cli_usage_error("--set: more than %d", CLI_MAX_SETS);
        o->sets[o->nsets++] = v;
        return 0;
    case MA_INERTIA:
        o->inertia = 1;
        return 0;
    case CLI_OPT_WEIGHTS:
        o->weights = v;
        return 0;
    case CLI_OPT_PRELOAD:
        o->preload = v;
        return 0;
    case MA_ROUTE:
        o->route = v;
        return 0;
    default:
        return EXIT_INPUT;
    }
}

int cli_mast_is_case(const char *name)
{
    return strcmp(name, pkm_masticatory_case()->name) == 0;
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

/* The per-time columns: the pose, the contact forces (with contacts), the residual; --inertia:
 * MCI(a) of the target and of the twin, MCI(b) and M_A's diagonal of the target. */
#define MAST_MAX_COLUMNS (6 + 2 + 1 + 24)
static const char *const mast_joints[6] = {"theta1", "theta2", "theta3",
                                           "theta4", "theta5", "theta6"};
static const char *const mast_types[6] = {"revolute", "revolute", "revolute",
                                          "revolute", "revolute", "revolute"};

typedef struct mast_out {
    cli_rows rows;
    pkm_column cols[MAST_MAX_COLUMNS];
    char names[24][12];
    double mean[12]; /* --inertia: the time means of MCI(a), the target's and the twin's */
    int n;
    const char *route;
} mast_out;

static void mast_columns(mast_out *u, const mast_args *o, int contacts)
{
    static const pkm_column pose[6] = {{"X", "m"},       {"Y", "m"},      {"Z", "m"},
                                       {"alpha", "rad"}, {"beta", "rad"}, {"gamma", "rad"}};
    static const char *const group[4] = {"mci", "twin_mci", "mcib", "MA"};
    int nc = 0;
    for (int k = 0; k < 6; k++)
        u->cols[nc++] = pose[k];
    if (contacts) {
        u->cols[nc++] = (pkm_column){"contact_L", "N"};
        u->cols[nc++] = (pkm_column){"contact_R", "N"};
    }
    u->cols[nc++] = (pkm_column){"residual", "1"};
    for (int g = 0; g < 4 && o->inertia; g++)
        for (int i = 0; i < 6; i++) {
            char *name = u->names[6 * g + i];
            if (g == 3)
                snprintf(name, sizeof u->names[0], "MA%d%d", i + 1, i + 1);
            else
                snprintf(name, sizeof u->names[0], "%s%d", group[g], i + 1);
            u->cols[nc++] = (pkm_column){name, g == 3 ? "kg m^2" : "1"};
        }
    u->rows = (cli_rows){.csv = cli_format_is_rows(o->run.format),
                         .per_time = o->run.per_time,
                         .njoint = 6,
                         .joints = mast_joints,
                         .types = mast_types,
                         .ncol = nc,
                         .cols = u->cols};
}

/* One time: the cranks' rows (angle, rate, acceleration, torque; no friction or reaction
 * components) and the per-time values; the table's heading with the mobility before the first. */
static int mast_sink(void *user, const pkm_mast_row *w)
{
    mast_out *u = user;
    const pkm_mast *m = w->m;
    if (w->step == 0 && !u->rows.csv && u->rows.t == NULL)
        printf("# %s: mobility %d (Gruebler-Kutzbach), %d cranks; route %s\n",
               m->ncontact > 0 ? "6 R-S-S chains and 2 higher pairs" : "6-RSS twin",
               pkm_mast_mobility(m), m->nchain, u->route);
    double v[6 * PKM_DYN_SERIES_COLUMNS], pt[MAST_MAX_COLUMNS];
    for (int i = 0; i < 6; i++) {
        const double tau = w->forces->tau[i];
        const double row[PKM_DYN_SERIES_COLUMNS] = {
            w->s->th[i], w->s->thd[i], w->s->thdd[i], tau, tau, NAN, NAN, NAN, NAN};
        memcpy(v + PKM_DYN_SERIES_COLUMNS * i, row, sizeof(row));
    }
    int j = 0;
    for (int a = 0; a < 6; a++)
        pt[j++] = w->s->X[a];
    for (int c = 0; c < m->ncontact; c++)
        pt[j++] = w->forces->contact[c];
    pt[j++] = w->forces->residual;
    for (int i = 0; i < 6 && w->mci != NULL; i++) {
        pt[j + i] = w->mci[i], pt[j + 6 + i] = w->twin_mci[i], pt[j + 12 + i] = w->mcib[i];
        pt[j + 18 + i] = w->MA[7 * i];
        u->mean[i] += w->mci[i] / u->n, u->mean[6 + i] += w->twin_mci[i] / u->n;
    }
    cli_rows_put(&u->rows, w->step, w->t, v, NULL, pt);
    return cli_output_failed();
}

/* --inertia: the time means of MCI(a), the target's and the twin's, and the first over the
 * second in %. */
static void mast_means(const mast_out *u)
{
    printf("# mean MCI(a) over the %d times, target:", u->n);
    for (int i = 0; i < 6; i++)
        printf(" %.8g", u->mean[i]);
    printf("\n# mean MCI(a), 6-RSS twin:");
    for (int i = 0; i < 6; i++)
        printf(" %.8g", u->mean[6 + i]);
    printf("\n# target / twin, %%:");
    for (int i = 0; i < 6; i++)
        printf(" %.5g", 100.0 * u->mean[i] / u->mean[6 + i]);
    printf("\n");
}

/* The run (pkm_mast_run), printed or kept for -o; 0 or an exit status. */
static int mast_compute(const mast_args *o, const pkm_masticatory_params *p,
                        const pkm_mast_run_opts *ro)
{
    mast_out u = {.n = ro->n, .route = pkm_mast_route_name(ro->inv.route)};
    mast_columns(&u, o, p->higher_pairs != 0);
    int rc = o->run.output != NULL ? cli_rows_keep(&u.rows, ro->n, 0) : 0;
    const double start = cli_now();
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = rc == 0 ? pkm_mast_run(p, ro, mast_sink, &u, &ctx) : PKM_OK;
    if (rc != 0 || st != PKM_OK || cli_output_failed()) {
        if (rc == 0) rc = st != PKM_OK ? cli_report_late(st, &ctx) : EXIT_COMPUTE;
        cli_rows_free(&u.rows);
        return rc;
    }
    if (o->inertia) mast_means(&u);
    if (!u.rows.csv && o->run.output == NULL)
        printf("# %.1f us per time sample (kinematics and inverse dynamics, output included)\n",
               1e6 * (cli_now() - start) / ro->n);
    const cli_rows_source src = {pkm_masticatory_case()->name, "chewing", "none"};
    if (o->run.output != NULL) rc = cli_rows_write(&u.rows, o->run.output, &src, 0);
    cli_rows_free(&u.rows);
    return rc;
}

int cli_mast_dynamics(int argc, char **argv)
{
    mast_args o = {.run = {.format = "table"}};
    int rc = cli_parse(argc, argv, &mast_command, mast_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    pkm_mast_run_opts ro = {.t0 = 0.0, .t1 = 1.0, .n = 101, .inertia = o.inertia};
    if (o.run.time != NULL && !cli_parse_times(o.run.time, MAST_MAX_TIMES, &ro.t0, &ro.t1, &ro.n))
        return cli_usage_error("--time '%s': expected T0:T1:N with T1 > T0 and N from 2 to %d",
                               o.run.time, MAST_MAX_TIMES);
    double w[6], pre[6];
    pkm_mast_inverse_opts *io = &ro.inv;
    if (o.weights != NULL) {
        const int wrc = cli_parse_weights(o.weights, 6, w);
        if (wrc != 0) return wrc;
        io->weight = w;
    }
    if (o.preload != NULL) {
        const int prc = cli_parse_preload(o.preload, 6, pre);
        if (prc != 0) return prc;
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
    if ((rc = mast_params(&o, &params)) == 0 && !cli_check_only() &&
        (o.run.output == NULL || (rc = cli_check_output_name(o.run.output)) == 0))
        rc = mast_compute(&o, params, &ro);
    pkm_case_params_destroy(&params);
    return rc;
}
