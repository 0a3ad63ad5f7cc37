/* cli/cases.c: pkmflex cases: the built-in robots, or the case file of one.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"

#include <stdio.h>

enum { CASES_SHOW = CLI_OPT_OWN, CASES_FORMAT, CASES_PARAMS };

typedef struct cases_args {
    const char *show;
    const char *params; /* --params CASE */
    int csv;
} cases_args;

static const cli_option cases_options[] = {
    {"--show", NULL, 1, CASES_SHOW, "NAME",
     "print the case file (or robot file) of the built-in NAME instead of the list", NULL},
    {"--params", NULL, 1, CASES_PARAMS, "CASE",
     "list the parameters of CASE (a built-in or a case file): the keys\n"
     "of --set, with their units and ranges",
     NULL},
    {"--format", NULL, 1, CASES_FORMAT, "table|csv|json",
     "the list's format; csv: one row per case, chain and robot file, header\n" CLI_CASES_HEADER,
     NULL},
};

static const cli_command cases_command = {
    "cases",
    "usage: pkmflex cases [--show NAME | --params CASE] [--format table|csv|json]\n\n"
    "Lists the built-in robots (the module chains boom1 and crane4 and the chewing robot\n"
    "masticatory among them), their pose coordinates, actuated joints, the commands that\n"
    "analyse them and their named trajectories, then the robot files of examples/\n"
    "(pkmflex modes FILE.yaml); with --show, prints the case file of the built-in NAME\n"
    "(every parameter, with its source; tree5 and loop3: their robot files): a starting\n"
    "point for your own file.\n\n",
    cases_options, (int)(sizeof(cases_options) / sizeof(cases_options[0])), 0};

static int cases_set(void *user, int id, const char *v)
{
    cases_args *o = user;
    if (id == CLI_ARG) return cli_usage_error("cases: expected no argument or --show NAME");
    if (id == CASES_FORMAT) {
        if (cli_check_format(v) != 0) return EXIT_INPUT;
        o->csv = cli_format_is_rows(v);
        return 0;
    }
    if (id == CASES_PARAMS)
        o->params = v;
    else
        o->show = v;
    return 0;
}

/* --params CASE: a built-in's table, or that of the case a case file names (a robot file has
 * none: its numbers are edited in the file). */
static int cases_params(const char *name)
{
    const pkm_case *c = NULL;
    void *params = NULL;
    cli_case_args a = {.case_name = name};
    const int rc = cli_load_case(&a, &c, &params);
    if (rc != 0) return rc;
    pkm_case_params_destroy(&params);
    if (c->nparams == 0)
        return cli_usage_error("cases --params: %s is a robot file, which has no parameter "
                               "table: its numbers are edited in the file",
                               name);
    cli_print_case_params(c);
    return 0;
}

void cli_cases_row(const char *const cell[8])
{
    for (int k = 0; k < 8; k++) {
        if (k > 0) putchar(',');
        cli_csv_cell(cell[k]);
    }
    putchar('\n');
}

/* The analyses of c, space-separated. */
static const char *case_analyses(const pkm_case *c)
{
    const int modal = (c->analyses & PKM_CASE_MODAL) != 0;
    const int dyn = (c->analyses & PKM_CASE_DYNAMICS) != 0;
    return modal && dyn ? "modes map compare dynamics transient"
           : modal      ? "modes map compare"
           : dyn        ? "dynamics"
                        : "";
}

/* "A11 [N m] ..." : the actuated joints of c's rigid-body model with their drives' units, or ""
 * (no rigid-body model, or one that does not build). */
static void case_actuated(const pkm_case *c, const void *params, char *buf, size_t size)
{
    buf[0] = '\0';
    pkm_model *m = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (params == NULL || !(c->analyses & PKM_CASE_DYNAMICS) ||
        c->build_rigid(params, pkm_case_rigid_pose(c), &m, &ctx) != PKM_OK)
        return;
    size_t n = 0;
    for (int j = 0; j < pkm_model_joint_count(m) && n < size; j++) {
        const pkm_joint *jt = pkm_model_joint(m, j);
        if (!jt->actuated) continue;
        const int force = jt->type == PKM_JOINT_PRISMATIC;
        n += (size_t)snprintf(buf + n, size - n, "%s%s [%s]", n ? " " : "", jt->name,
                              force ? "N" : "N m");
    }
    pkm_model_destroy(&m);
}

void cli_case_row(const pkm_case *c, const void *params, const char *name, const char *kind,
                  const char *file)
{
    char pose[512] = "", traj[512] = "", act[512], *p = pose;
    for (int k = 0; k < c->npose; k++)
        p += snprintf(p, sizeof pose - (size_t)(p - pose), "%s%s [%s]", k ? " " : "",
                      c->pose_names[k], c->pose_units[k]);
    p = traj;
    for (int k = 0; k < c->ntraj; k++)
        p += snprintf(p, sizeof traj - (size_t)(p - traj), "%s%s", k ? " " : "", c->traj[k].name);
    case_actuated(c, params, act, sizeof act);
    cli_cases_row((const char *const[8]){name, kind, pose, act, case_analyses(c), traj,
                                         c->description, file});
}

void cli_case_print(const pkm_case *c, const void *params, const char *name, const char *file)
{
    printf("%s: %s\n", name, c->description);
    if (file != NULL && (c->analyses & PKM_CASE_MODAL) != 0)
        printf("  file: %s\n  run: pkmflex modes %s (or map, dynamics, transient)\n", file, file);
    else if (file != NULL) /* rigid bodies only */
        printf("  file: %s\n  run: pkmflex dynamics %s\n", file, file);
    printf("  pose:");
    for (int k = 0; k < c->npose; k++)
        printf(" %s [%s]", c->pose_names[k], c->pose_units[k]);
    char act[512];
    case_actuated(c, params, act, sizeof act);
    if (act[0] != '\0') printf("\n  actuated joints: %s", act);
    printf("\n  analyses: %s\n", case_analyses(c));
    if (c->ntraj > 0) {
        printf("  trajectories:");
        for (int k = 0; k < c->ntraj; k++)
            printf(" %s%s", c->traj[k].name, k == 0 ? " (default)" : "");
        printf("\n");
    }
    if (c->rigid_pose != NULL && file == NULL) {
        printf("  rigid-body model at:");
        for (int k = 0; k < c->npose; k++)
            printf(" %s = %g", c->pose_names[k], c->rigid_pose[k]);
        printf(" (home is a singular pose)\n");
    }
    printf("  parameters: pkmflex cases --show %s\n", file != NULL ? file : c->name);
}

/* --show of a robot file: the file as written, then what was read of its time domain. */
static int show_file(const char *path)
{
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_status st = pkm_case_file_load(path, &c, &params, &ctx);
    if (st != PKM_OK) return cli_report(st, &ctx);
    FILE *f = fopen(path, "r");
    char line[1024];
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        fputs(line, stdout);
    if (f != NULL) fclose(f);
    const pkm_case_dynamics *d = pkm_case_dynamics_of(c, params);
    printf("\n# as read: gravity (%g, %g, %g) m/s^2; analyses %s; trajectories", d->gravity[0],
           d->gravity[1], d->gravity[2], case_analyses(c));
    for (int k = 0; k < c->ntraj; k++)
        printf(" %s (%g s)", c->traj[k].name, c->traj[k].duration);
    printf("%s\n# --set: any value of the file by its dotted path (sections.NAME.A, "
           "bodies.NAME.beam.elements, joints.NAME.stiffness, gravity.z, ...), and these keys:",
           c->ntraj == 0 ? " none" : "");
    for (int k = 0; k < c->nparams; k++)
        printf(" %s", c->params[k].key);
    printf("\n");
    pkm_case_params_destroy(&params);
    return 0;
}

int cli_cases(int argc, char **argv)
{
    cases_args o = {0};
    const int rc = cli_parse(argc, argv, &cases_command, cases_set, &o);
    if (rc != 0 || cli_check_only()) return rc < 0 ? 0 : rc;
    const char *show = o.show;
    if (o.params != NULL) return cases_params(o.params);
    if (show != NULL) {
        if (cli_is_case_file(show)) return show_file(show);
        /* A built-in's embedded text: a compiled case's case file, or a robot file. */
        const char *text = pkm_case_text(show);
        if (text == NULL) return cli_usage_error("cases --show: unknown case '%s'", show);
        fputs(text, stdout);
        return 0;
    }
    if (o.csv) printf("%s\n", CLI_CASES_HEADER);
    for (const char *const *name = pkm_case_names(); *name != NULL; name++) {
        const pkm_case *c = NULL;
        void *params = NULL;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        if (pkm_case_open(*name, NULL, 0, NULL, &c, &params, &ctx) != PKM_OK)
            return cli_report(PKM_ERR_PARSE, &ctx);
        if (o.csv)
            cli_case_row(c, params, c->name, "case", "");
        else
            cli_case_print(c, params, c->name, NULL);
        pkm_case_params_destroy(&params);
    }
    cli_examples_list(o.csv);
    return 0;
}
