/* studies/dynrun.c: the rigid-body inverse dynamics of a case along a trajectory
 * (include/pkm/dynrun.h), on the rigid motion shared with the elastodynamics (pkm/motion.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/dynrun.h"

#include "core/core_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double grid_time(const pkm_dynamics_opts *o, int64_t k)
{
    return k == o->n - 1 ? o->t1 : o->t0 + (o->t1 - o->t0) * (double)k / (o->n - 1);
}

pkm_status pkm_dynamics_friction(const pkm_case *c, const void *params, const pkm_model *m,
                                 pkm_friction *fr, pkm_ctx *ctx)
{
    const pkm_case_dynamics *dyn = pkm_case_dynamics_of(c, params);
    const pkm_friction law = pkm_case_friction(dyn);
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        const pkm_joint *jt = pkm_model_joint(m, j);
        fr[j] = (pkm_friction){.model = PKM_FRICTION_NONE};
        if (law.model == PKM_FRICTION_NONE || !pkm_case_joint_has_friction(dyn, jt)) continue;
        fr[j] = law;
        const pkm_status st = pkm_friction_check(&fr[j], jt->name, ctx);
        if (st != PKM_OK) return st;
    }
    return PKM_OK;
}

pkm_status pkm_dynamics_motion_create(const pkm_case *c, const void *params, double singular,
                                      pkm_motion **out, pkm_ctx *ctx)
{
    const pkm_case_dynamics *dyn = pkm_case_dynamics_of(c, params);
    pkm_motion_opts mo = {.singular = singular};
    memcpy(mo.gravity, dyn->gravity, sizeof(mo.gravity));
    pkm_status st = pkm_motion_create(c, params, &mo, out, ctx);
    if (st != PKM_OK) return st;
    const pkm_model *m = pkm_motion_model(*out);
    pkm_friction *fr = calloc((size_t)pkm_model_joint_count(m) + 1, sizeof(*fr));
    st = fr == NULL ? PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the joints' friction")
                    : pkm_dynamics_friction(c, params, m, fr, ctx);
    if (st == PKM_OK) st = pkm_mbs_set_friction(pkm_motion_mbs(*out), fr, ctx); /* copied */
    free(fr);
    if (st != PKM_OK) pkm_motion_destroy(out);
    return st;
}

static pkm_status check_grid(const pkm_trajectory *tr, const pkm_dynamics_opts *o, pkm_ctx *ctx)
{
    double a, b;
    pkm_trajectory_span(tr, &a, &b);
    if (!(o->n >= 2) || !(o->t1 > o->t0) || !isfinite(o->t0) || !isfinite(o->t1))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "time grid %g:%g:%d: expected t1 > t0 and n >= 2",
                        o->t0, o->t1, o->n);
    if (o->t0 < a || o->t1 > b)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "time grid %g:%g: outside the trajectory's span [%g, %g] s", o->t0, o->t1,
                        a, b);
    return PKM_OK;
}

pkm_status pkm_dynamics_run_on(pkm_motion *m, const pkm_trajectory *tr, const pkm_dynamics_opts *o,
                               pkm_dynamics_sink sink, void *user, pkm_ctx *ctx)
{
    pkm_status st = check_grid(tr, o, ctx);
    const double dt = (o->t1 - o->t0) / (o->n - 1);
    if (st == PKM_OK) st = pkm_motion_check(m, tr, o->t0, dt, o->n, ctx);
    if (st == PKM_OK) st = pkm_motion_approach(m, tr, o->t0, dt, ctx);
    const pkm_model *model = pkm_motion_model(m);
    pkm_joint_result *res = calloc((size_t)pkm_model_joint_count(model) + 1, sizeof(*res));
    if (st == PKM_OK && res == NULL)
        st = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the joints' results");
    for (int64_t k = 0; k < o->n && st == PKM_OK; k++) {
        const double t = grid_time(o, k);
        double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
        pkm_ctx in;
        pkm_ctx_clear(&in);
        st = pkm_trajectory_eval(tr, t, p, pd, pdd, &in);
        if (st == PKM_OK) st = pkm_motion_at(m, t, p, pd, pdd, &in);
        if (st == PKM_OK) st = pkm_mbs_inverse(pkm_motion_mbs(m), NULL, res, &in);
        if (st != PKM_OK) st = PKM_FAIL(ctx, st, "t = %.9g s: %s", t, in.msg);
        const pkm_dynamics_row row = {t, k, model, res};
        if (st == PKM_OK && sink != NULL && sink(user, &row) != 0) break;
    }
    free(res);
    return st;
}

pkm_status pkm_dynamics_run(const pkm_case *c, const void *params, const pkm_trajectory *tr,
                            const pkm_dynamics_opts *o, pkm_dynamics_sink sink, void *user,
                            pkm_ctx *ctx)
{
    pkm_motion *m = NULL;
    pkm_status st = pkm_dynamics_motion_create(c, params, o->singular, &m, ctx);
    if (st == PKM_OK) st = pkm_dynamics_run_on(m, tr, o, sink, user, ctx);
    pkm_motion_destroy(&m);
    return st;
}
