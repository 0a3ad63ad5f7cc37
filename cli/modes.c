/* cli/modes.c: pkmflex modes: the natural frequencies of a case at one pose.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"
#include "pkm/motion.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `modes` flags a frequency whose accuracy estimate (pkm_modes.accuracy) exceeds this: six
 * significant digits, the ones the table prints for a ~100 Hz mode. */
#define MODES_FLAG_ACCURACY 1e-6

enum { MODES_FORMAT = CLI_OPT_OWN, MODES_MAX_ACCURACY, MODES_VTK, MODES_DESCRIBE };

typedef struct modes_args {
    cli_case_args c;
    const char *format;
    double max_accuracy; /* 0: the library's default */
    const char *vtk;     /* --vtk FILE, or NULL */
    int describe;        /* --describe */
} modes_args;

/* "pose coordinates in SI units; navaro: x,y,theta (m, m, rad);\n..." from the case list. */
static void modes_pose_help(char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "pose coordinates in SI units");
    for (const char *const *name = pkm_case_names(); *name != NULL && len < cap; name++) {
        void *params = NULL;
        const pkm_case *c = cli_builtin(*name, &params);
        if (c == NULL) continue;
        len += (size_t)snprintf(buf + len, cap - len,
                                "%s%s: ", name == pkm_case_names() ? "; " : ";\n", c->name);
        for (int k = 0; k < c->npose && len < cap; k++)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? "," : "", c->pose_names[k]);
        for (int k = 0; k < c->npose && len < cap; k++)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s%s", k ? ", " : " (",
                                    c->pose_units[k], k + 1 == c->npose ? ")" : "");
        pkm_case_params_destroy(&params);
    }
}

static const cli_option modes_options[] = {
    {"--pose", NULL, 1, CLI_OPT_POSE, "P1,P2,...", NULL, modes_pose_help},
    {"--format", NULL, 1, MODES_FORMAT, "table|csv|json",
     "output format (csv header: mode,freq_hz,residual,accuracy)", NULL},
    {"--max-accuracy", NULL, 1, MODES_MAX_ACCURACY, "R",
     "largest accepted accuracy estimate, relative (default 1e-3)", NULL},
    {"--vtk", NULL, 1, MODES_VTK, "FILE.vtkhdf",
     "also write the geometry and every mode's nodal displacements for ParaView (VTKHDF)", NULL},
    {"--describe", NULL, 0, MODES_DESCRIBE, NULL,
     "then per mode: the platform's twist, the effective mass at the\n"
     "platform per direction, the strain energy's share per leg, in the\n"
     "joint springs and per body (csv: every body)",
     NULL},
};

static const cli_command modes_command = {
    "modes",
    "usage: pkmflex modes CASE --pose P1,P2,... [options]\n\n"
    "Natural frequencies (Hz) of CASE at one pose, lowest first, with the relative\n"
    "residual ||K x - w^2 M x|| / ||K x|| of each mode and its accuracy: an estimate\n"
    "(an upper bound in every case measured) of the relative error of the frequency\n"
    "that the rounding of the assembled matrices can cause. Frequencies whose accuracy\n"
    "exceeds 1e-6 are flagged '!'; above 1e-3 (--max-accuracy) the command fails (exit 3):\n"
    "the mesh is too fine for double precision (docs/performance.md).\n\n",
    modes_options, (int)(sizeof(modes_options) / sizeof(modes_options[0])), 1};

static int modes_set(void *user, int id, const char *v)
{
    modes_args *o = user;
    switch (id) {
    case MODES_FORMAT:
        if (cli_check_format(v) != 0) return EXIT_INPUT;
        o->format = v;
        return 0;
    case MODES_MAX_ACCURACY:
        if (!cli_parse_real(v, 1e-16, 1.0, &o->max_accuracy))
            return cli_usage_error("--max-accuracy '%s': expected a number from 1e-16 to 1", v);
        return 0;
    case MODES_VTK:
        o->vtk = v;
        return 0;
    case MODES_DESCRIBE:
        o->describe = 1;
        return 0;
    default:
        return cli_case_set(&o->c, id, v);
    }
}

/* The pose from --pose, or the case's home; 0 or an exit status. */
static int modes_pose(const modes_args *o, const pkm_case *c, double *pose)
{
    if (o->c.pose_text == NULL) {
        memcpy(pose, c->home, sizeof(double) * (size_t)c->npose);
        return 0;
    }
    if (cli_parse_pose(o->c.pose_text, c->npose, c->pose_units, pose)) return 0;
    fprintf(stderr, "%s: error: --pose '%s': expected %d comma-separated numbers", CLI_PROG,
            o->c.pose_text, c->npose);
    for (int k = 0; k < c->npose; k++)
        fprintf(stderr, "%s%s [%s]", k ? ", " : " ", c->pose_names[k], c->pose_units[k]);
    fprintf(stderr, "\n");
    return EXIT_INPUT;
}

static void modes_print(const modes_args *o, const pkm_case *c, const double *pose,
                        const pkm_modes *md, const pkm_assembly_info *info, double ms, double cond)
{
    const int near = cond < PKM_NEAR_SINGULAR;
    /* A frequency whose rounding-error estimate exceeds MODES_FLAG_ACCURACY holds fewer digits
     * than printed: flagged in the table, its estimate in both formats. */
    int flagged = 0;
    for (int k = md->zero_modes; k < md->nev; k++)
        flagged += md->accuracy[k] > MODES_FLAG_ACCURACY;
    if (cli_format_is_rows(o->format)) {
        printf("mode,freq_hz,residual,accuracy\n");
        for (int k = 0; k < md->nev; k++)
            printf("%d,%.10g,%.3e,%.2e\n", k + 1, md->freq_hz[k], md->residual[k], md->accuracy[k]);
        return;
    }
    printf("# %s at", o->c.case_name);
    for (int k = 0; k < c->npose; k++)
        printf(" %s = %g %s", c->pose_names[k], pose[k], c->pose_units[k]);
    printf("\n# %lld independent coordinates (%lld before loop closure), %s formulation, %s,"
           " %.3f ms\n",
           (long long)info->n_reduced, (long long)info->n_total, cli_formulation_name(o->c.form),
           o->c.eig == PKM_EIG_ARPACK ? "ARPACK shift-invert" : "LAPACK dense", ms);
    printf("# M-orthonormality error %.1e\n", md->orth_error);
    if (!isnan(cond))
        printf("# closure conditioning with the drives locked %.2e: %s\n", cond,
               near ? "near-singular" : "ok");
    printf("%4s  %14s  %10s  %9s\n", "mode", "freq [Hz]", "residual", "accuracy");
    for (int k = 0; k < md->nev; k++)
        printf("%4d  %14.6f  %10.2e  %9.1e%s\n", k + 1, md->freq_hz[k], md->residual[k],
               md->accuracy[k],
               k >= md->zero_modes && md->accuracy[k] > MODES_FLAG_ACCURACY ? "  !" : "");
    if (flagged > 0)
        printf("# ! %d frequenc%s whose relative rounding error may exceed %.0e (the "
               "accuracy column): %s\n",
               flagged, flagged == 1 ? "y" : "ies", MODES_FLAG_ACCURACY,
               near ? "the pose is near a singularity of the closure"
                    : "the mesh is too fine for double precision");
}

/* --vtk: every mode as nodal displacements through the pose's dof map, the curvatures of
 * quintic elements with them, with the geometry; 0 or an exit status (a file that cannot be
 * written: 3, as for -o of map). */
static int modes_write_vtk(const char *path, const pkm_model *m, const pkm_analysis *an,
                           const pkm_modes *md)
{
    const size_t per = 6 * (size_t)pkm_model_node_count(m),
                 perk = 6 * (size_t)pkm_model_element_count(m) + 1;
    double *u = calloc((size_t)md->nev * per, sizeof *u),
           *kappa = calloc((size_t)md->nev * perk, sizeof *kappa);
    if (u == NULL || kappa == NULL) {
        free(u);
        free(kappa);
        fprintf(stderr, "%s: error: out of memory\n", CLI_PROG);
        return EXIT_COMPUTE;
    }
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_status st = PKM_OK;
    for (int k = 0; k < md->nev && st == PKM_OK; k++) {
        st = pkm_analysis_mode_displacements(an, k, u + (size_t)k * per, &ctx);
        if (st == PKM_OK)
            st = pkm_analysis_mode_curvatures(an, m, k, kappa + (size_t)k * (perk - 1), &ctx);
    }
    if (st == PKM_OK) st = pkm_modes_write_vtkhdf(path, m, md->nev, md->freq_hz, u, kappa, &ctx);
    free(u);
    free(kappa);
    return st == PKM_OK ? 0 : cli_report_late(st, &ctx);
}

int cli_modes(int argc, char **argv)
{
    modes_args o = {.c = {.nev = 10, .form = PKM_FORM_TREE, .eig = PKM_EIG_ARPACK},
                    .format = "table"};
    int rc = cli_parse(argc, argv, &modes_command, modes_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_model *m = NULL;
    pkm_analysis *an = NULL;
    double pose[PKM_POSE_MAX];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if ((rc = cli_load_case(&o.c, &c, &params)) != 0 ||
        (rc = cli_case_supports(c, PKM_CASE_MODAL)) != 0 || (rc = modes_pose(&o, c, pose)) != 0 ||
        cli_check_only())
        goto done;
    pkm_modal_opts mo = pkm_modal_opts_default();
    mo.nev = o.c.nev;
    mo.max_accuracy = o.max_accuracy;
    const pkm_modes *md = NULL;
    pkm_assembly_info info;
    const double t0 = cli_now();
    pkm_status st = c->build(params, pose, &m, &ctx);
    if (st == PKM_OK) st = pkm_analysis_create(o.c.form, o.c.eig, &mo, &an, &ctx);
    if (st == PKM_OK && (o.vtk != NULL || o.describe)) st = pkm_analysis_keep_dofmap(an, &ctx);
    if (st == PKM_OK) st = pkm_analysis_solve(an, m, &md, &info, &ctx);
    const double t1 = cli_now();
    if (st != PKM_OK) {
        rc = cli_report(st, &ctx);
        goto done;
    }
    /* The locked closure's conditioning: near a singularity the lowest modes are the
     * mechanism's near-free motion, which the frequencies alone do not say. */
    double cond = NAN;
    pkm_ctx cctx;
    pkm_ctx_clear(&cctx);
    if (pkm_pose_conditioning(c, m, &cond, &cctx) != PKM_OK) cond = NAN;
    if (cond < PKM_NEAR_SINGULAR) {
        fprintf(stderr, "%s: warning: near-singular pose", CLI_PROG);
        for (int k = 0; k < c->npose; k++)
            fprintf(stderr, "%s %s = %g %s", k ? "," : "", c->pose_names[k], pose[k],
                    c->pose_units[k]);
        fprintf(stderr,
                ": the closure with the drives locked has conditioning %.2e (below %.0e), the "
                "lowest modes are the mechanism's near-free motion (f1 falls to 0 with it)\n",
                cond, PKM_NEAR_SINGULAR);
    }
    modes_print(&o, c, pose, md, &info, 1e3 * (t1 - t0), cond);
    if (o.describe) rc = cli_modes_describe(m, an, md, cli_format_is_rows(o.format));
    if (rc == 0 && o.vtk != NULL) rc = modes_write_vtk(o.vtk, m, an, md);
done:
    pkm_analysis_destroy(&an);
    pkm_model_destroy(&m);
    pkm_case_params_destroy(&params);
    return rc;
}
