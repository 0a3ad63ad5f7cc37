/* cli/describe.c: pkmflex modes --describe: beside each frequency, the platform's twist, the
 * mode's effective mass at the platform per direction and its strain energy per leg, joint
 * springs and body (computed by pkm_mode_describe, printed here).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"

#include "pkm/modeinfo.h"
#include "pkm/topology.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const twist_names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
static const char *const mass_names[6] = {"m_x", "m_y", "m_z", "J_x", "J_y", "J_z"};

typedef struct describe_rows {
    int nbody, njoint, nleg;
    double *body, *joint, *leg; /* per mode: nbody, njoint, nleg energies */
    pkm_mode_info *info;
} describe_rows;

static void print_header(const pkm_model *m, const describe_rows *r, int csv)
{
    if (csv) {
        printf("mode,freq_hz");
        for (int d = 0; d < 6; d++)
            printf(",%s", twist_names[d]);
        for (int d = 0; d < 6; d++)
            printf(",%s", mass_names[d]);
        printf(",energy_j");
        for (int l = 0; l < r->nleg; l++)
            printf(",leg%d", l + 1);
        printf(",springs");
        for (int b = 0; b < r->nbody; b++)
            printf(",body:%s", pkm_model_body(m, b)->name);
        printf("\n");
        return;
    }
    printf("# per mode (M-normalised, per unit modal amplitude): the platform's twist (m, rad);\n"
           "# the effective mass at the platform, 1/twist^2 (kg, kg m^2; '-' where the twist is "
           "below\n# 1e-6 of its largest); the strain energy's share per leg and in the joint "
           "springs (%%), and "
           "the body\n# that stores most of it\n");
    printf("%4s  %10s", "mode", "freq [Hz]");
    for (int d = 0; d < 6; d++)
        printf("  %9s", twist_names[d]);
    for (int d = 0; d < 6; d++)
        printf("  %8s", mass_names[d]);
    for (int l = 0; l < r->nleg; l++)
        printf("  leg%d %%", l + 1);
    printf("  springs %%  largest body\n");
}

/* The effective mass in direction d is shown where the twist moves: a component below 1e-6 of
 * the largest (m and rad alike: platforms are some 0.1 m to 1 m across) is rounding noise of a
 * direction the mode does not move, and its 1/twist^2 (up to 1e30) means nothing: '-' in the
 * table, an empty cell in csv (null in JSON). */
static int mass_shown(const pkm_mode_info *in, int d)
{
    double tmax = 0.0;
    for (int e = 0; e < 6; e++)
        tmax = fmax(tmax, fabs(in->twist[e]));
    return fabs(in->twist[d]) > 1e-6 * tmax;
}

static void print_row(const pkm_model *m, const describe_rows *r, int k, double f, int csv)
{
    const pkm_mode_info *in = &r->info[k];
    const double *be = r->body + (size_t)k * (size_t)r->nbody,
                 *je = r->joint + (size_t)k * (size_t)r->njoint,
                 *le = r->leg + (size_t)k * (size_t)r->nleg;
    double springs = 0.0;
    int big = 0;
    for (int j = 0; j < r->njoint; j++)
        springs += je[j];
    for (int b = 1; b < r->nbody; b++)
        if (be[b] > be[big]) big = b;
    const double E = in->energy;
    if (csv) {
        printf("%d,%.10g", k + 1, f);
        for (int d = 0; d < 6; d++)
            printf(",%.6e", in->twist[d]);
        for (int d = 0; d < 6; d++)
            mass_shown(in, d) ? printf(",%.6e", in->eff_mass[d]) : printf(",");
        printf(",%.10e", E);
        for (int l = 0; l < r->nleg; l++)
            printf(",%.6f", le[l] / E);
        printf(",%.6f", springs / E);
        for (int b = 0; b < r->nbody; b++)
            printf(",%.6f", be[b] / E);
        printf("\n");
        return;
    }
    printf("%4d  %10.4f", k + 1, f);
    for (int d = 0; d < 6; d++)
        printf("  %9.2e", in->twist[d]);
    for (int d = 0; d < 6; d++)
        if (mass_shown(in, d))
            printf("  %8.3g", in->eff_mass[d]);
        else
            printf("  %8s", "-");
    for (int l = 0; l < r->nleg; l++)
        printf("  %6.1f", 100.0 * le[l] / E);
    printf("  %9.1f  %s (%.0f %%)\n", 100.0 * springs / E, pkm_model_body(m, big)->name,
           100.0 * be[big] / E);
}

int cli_modes_describe(const pkm_model *m, const pkm_analysis *an, const pkm_modes *md, int csv)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_topology *t = NULL;
    pkm_status st = pkm_topology_create(m, &t, &ctx);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    describe_rows r = {.nbody = pkm_model_body_count(m),
                       .njoint = pkm_model_joint_count(m),
                       .nleg = pkm_topology_leg_count(t)};
    pkm_topology_destroy(&t);
    const size_t nev = (size_t)md->nev;
    r.body = calloc(nev * (size_t)(r.nbody + 1), sizeof *r.body);
    r.joint = calloc(nev * (size_t)(r.njoint + 1), sizeof *r.joint);
    r.leg = calloc(nev * (size_t)(r.nleg + 1), sizeof *r.leg);
    r.info = calloc(nev, sizeof *r.info);
    if (!r.body || !r.joint || !r.leg || !r.info) {
        st = PKM_ERR_NOMEM;
        snprintf(ctx.msg, sizeof ctx.msg, "out of memory");
    }
    for (size_t k = 0; k < nev && st == PKM_OK; k++)
        st = pkm_mode_describe(m, pkm_analysis_dofmap(an), md->vectors + k * (size_t)md->n,
                               &r.info[k], r.body + k * (size_t)r.nbody,
                               r.joint + k * (size_t)r.njoint, r.leg + k * (size_t)r.nleg, &ctx);
    int rc = st == PKM_OK ? 0 : cli_report_late(st, &ctx);
    if (rc == 0) {
        if (!csv) printf("\n");
        print_header(m, &r, csv);
        for (int k = 0; k < md->nev; k++)
            print_row(m, &r, k, md->freq_hz[k], csv);
    }
    free(r.body);
    free(r.joint);
    free(r.leg);
    free(r.info);
    return rc;
}
