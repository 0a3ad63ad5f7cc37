/* cli/dynamics_forward.c: pkmflex dynamics --forward: the forward dynamics under the drives of
 * the trajectory's inverse dynamics, against the trajectory.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"
#include "pkm/forward.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fwd_cli {
    const cli_fwd_input *in;
    pkm_joint_result *res;
    double dev, bal;
} fwd_cli;

/* The reference system at time t of the trajectory (closure from its previous solution). */
static pkm_status fwd_follow(const cli_fwd_input *in, double t, pkm_ctx *ctx)
{
    double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
    pkm_status st = pkm_trajectory_eval(in->tr, t, p, pd, pdd, ctx);
    return st == PKM_OK ? pkm_motion_at(in->motion, t, p, pd, pdd, ctx) : st;
}

/* The drives of the actuated joints: the inverse dynamics of the trajectory at the stage time t
 * (the case's friction law included), whatever the forward state. */
static pkm_status fwd_drives(double t, const double *q, const double *qd, double *tau, void *user,
                             pkm_ctx *ctx)
{
    (void)q, (void)qd;
    fwd_cli *f = user;
    pkm_status st = fwd_follow(f->in, t, ctx);
    if (st == PKM_OK) st = pkm_mbs_inverse(f->in->ref, NULL, f->res, ctx);
    int a = 0;
    for (int j = 0; st == PKM_OK && j < pkm_model_joint_count(f->in->m); j++)
        if (pkm_model_joint(f->in->m, j)->actuated) tau[a++] = f->res[j].drive;
    return st;
}

/* One row per step: the largest deviation of q from the trajectory and the energy balance. */
static pkm_status fwd_row(const pkm_fwd_record *r, void *user, pkm_ctx *ctx)
{
    fwd_cli *f = user;
    pkm_status st = fwd_follow(f->in, r->t, ctx);
    if (st != PKM_OK) return st;
    double dev = 0.0;
    for (int k = 0; k < pkm_mbs_coord_count(f->in->ref); k++)
        dev = fmax(dev, fabs(r->y[k] - pkm_mbs_q(f->in->ref)[k]));
    f->dev = fmax(f->dev, dev);
    f->bal = fmax(f->bal, fabs(r->balance));
    if (f->in->csv)
        printf("%.9g,%.6e,%.6e,%.6e\n", r->t, dev, r->balance, r->w_fric);
    else
        printf("  %8.4f %16.6e %16.6e %16.6e\n", r->t, dev, r->balance, r->w_fric);
    return PKM_OK;
}

int cli_dynamics_forward(const cli_fwd_input *in)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    fwd_cli f = {.in = in,
                 .res = calloc((size_t)pkm_model_joint_count(in->m) + 1, sizeof(pkm_joint_result))};
    pkm_mbs *s = NULL;
    pkm_fwd *fw = NULL;
    const int nq = pkm_mbs_coord_count(in->ref);
    double *y = calloc((size_t)PKM_FWD_STATES(nq), sizeof(double));
    int rc = 0;
    if (f.res == NULL || y == NULL) {
        fprintf(stderr, "%s: error: out of memory\n", CLI_PROG);
        rc = EXIT_COMPUTE;
        goto done;
    }
    pkm_status st = pkm_mbs_create(in->m, in->gravity, &s, &ctx);
    if (st == PKM_OK) st = pkm_fwd_create(s, fwd_drives, &f, in->fr, PKM_FWD_EPS, &fw, &ctx);
    if (st == PKM_OK) st = fwd_follow(in, in->t0, &ctx);
    if (st != PKM_OK) {
        rc = cli_report(st, &ctx);
        goto done;
    }
    memcpy(y, pkm_mbs_q(in->ref), (size_t)nq * sizeof(double));
    memcpy(y + nq, pkm_mbs_qd(in->ref), (size_t)nq * sizeof(double));
    if (in->csv)
        printf("t,deviation,balance,friction_work\n");
    else
        printf("# forward dynamics under the inverse drives, RK4 step %g s\n# %8s %16s %16s "
               "%16s\n",
               (in->t1 - in->t0) / (in->n - 1), "t [s]", "max|q - q_traj|", "energy balance",
               "friction work");
    const double start = cli_now();
    st = pkm_fwd_run(fw, in->t0, (in->t1 - in->t0) / (in->n - 1), in->n - 1, y, fwd_row, &f, &ctx);
    if (st != PKM_OK) {
        fflush(stdout);
        fprintf(stderr, "%s: error: %s\n", CLI_PROG, ctx.msg);
        rc = EXIT_COMPUTE;
        goto done;
    }
    if (!in->csv)
        printf("# largest deviation %.3e (rad or m), largest |balance| %.3e J; %.1f us per step\n",
               f.dev, f.bal, 1e6 * (cli_now() - start) / (in->n - 1));
done:
    pkm_fwd_destroy(&fw);
    pkm_mbs_destroy(&s);
    free(f.res);
    free(y);
    return rc;
}
