/* studies/dynrun.c: the rigid-body inverse dynamics of a case along a trajectory
 * (include/pkm/dynrun.h), on the rigid motion shared with the elastodynamics (pkm/motion.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/dynrun.h"

#include "core/core_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* From the span's start a to the grid's start: the closure followed in steps of at most the
 * grid's and at least this many (loop3 started at 14 s from the reference configuration lands on
 * another, singular, branch), at most DYN_APPROACH_MAX. */
#define DYN_APPROACH_STEPS 20
#define DYN_APPROACH_MAX   100000

typedef struct dyn_run {
    pkm_motion *motion;
    pkm_friction *fr;
    pkm_joint_result *res;
} dyn_run;

static double grid_time(const pkm_dynamics_opts *o, int64_t k)
{
    return k == o->n - 1 ? o->t1 : o->t0 + (o->t1 - o->t0) * (double)k / (o->n - 1);
}

/* The closure at time t of tr, the error naming the time. */
static pkm_status follow(pkm_motion *m, const pkm_trajectory *tr, double t, const char *where,
                         pkm_ctx *ctx)
{
    double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
    pkm_ctx in;
    pkm_ctx_clear(&in);
    pkm_status st = pkm_trajectory_eval(tr, t, p, pd, pdd, &in);
    if (st == PKM_OK) st = pkm_motion_at(m, t, p, pd, pdd, &in);
    return st == PKM_OK ? PKM_OK : PKM_FAIL(ctx, st, "t = %.9g s%s: %s", t, where, in.msg);
}

/* The motion under the case's gravity, the case's friction law on the joints it names. */
static pkm_status setup(dyn_run *r, const pkm_case *c, const void *params, double singular,
                        pkm_ctx *ctx)
{
    const pkm_case_dynamics *dyn = pkm_case_dynamics_of(c, params);
    pkm_motion_opts mo = {.singular = singular};
    memcpy(mo.gravity, dyn->gravity, sizeof(mo.gravity));
    pkm_status st = pkm_motion_create(c, params, &mo, &r->motion, ctx);
    if (st != PKM_OK) return st;
    const pkm_model *m = pkm_motion_model(r->motion);
    const int nj = pkm_model_joint_count(m);
    r->fr = calloc((size_t)nj + 1, sizeof(*r->fr));
    r->res = calloc((size_t)nj + 1, sizeof(*r->res));
    if (r->fr == NULL || r->res == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate %d joint results", nj);
    const pkm_friction law = pkm_case_friction(dyn);
    for (int j = 0; j < nj; j++) {
        const pkm_joint *jt = pkm_model_joint(m, j);
        if (law.model == PKM_FRICTION_NONE || !pkm_case_joint_has_friction(dyn, jt)) continue;
        r->fr[j] = law;
        if ((st = pkm_friction_check(&r->fr[j], jt->name, ctx)) != PKM_OK) return st;
    }
    return pkm_mbs_set_friction(pkm_motion_mbs(r->motion), r->fr, ctx);
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
                        "time grid %g:%g: outside the trajectory's span "
                        "[%g, %g] s",
                        o->t0, o->t1, a, b);
    return PKM_OK;
}

pkm_status pkm_dynamics_run(const pkm_case *c, const void *params, const pkm_trajectory *tr,
                            const pkm_dynamics_opts *o, pkm_dynamics_sink sink, void *user,
                            pkm_ctx *ctx)
{
    dyn_run r = {0};
    pkm_status st = check_grid(tr, o, ctx);
    if (st == PKM_OK) st = setup(&r, c, params, o->singular, ctx);
    const double dt = (o->t1 - o->t0) / (o->n - 1);
    if (st == PKM_OK) st = pkm_motion_check(r.motion, tr, o->t0, dt, o->n, ctx);
    double a = 0.0;
    pkm_trajectory_span(tr, &a, NULL);
    const double m = fmin(DYN_APPROACH_MAX, fmax(DYN_APPROACH_STEPS, ceil((o->t0 - a) / dt)));
    for (int k = 1; k < (int)m && st == PKM_OK && o->t0 > a; k++)
        st =
            follow(r.motion, tr, a + (o->t0 - a) * k / m, " (on the way to the grid's start)", ctx);
    pkm_mbs *s = st == PKM_OK ? pkm_motion_mbs(r.motion) : NULL;
    for (int64_t k = 0; k < o->n && st == PKM_OK; k++) {
        const double t = grid_time(o, k);
        pkm_ctx in;
        pkm_ctx_clear(&in);
        st = follow(r.motion, tr, t, "", ctx);
        if (st == PKM_OK && (st = pkm_mbs_inverse(s, NULL, r.res, &in)) != PKM_OK)
            st = PKM_FAIL(ctx, st, "t = %.9g s: %s", t, in.msg);
        const pkm_dynamics_row row = {t, k, pkm_motion_model(r.motion), r.res};
        if (st == PKM_OK && sink != NULL && sink(user, &row) != 0) break;
    }
    pkm_motion_destroy(&r.motion);
    free(r.fr);
    free(r.res);
    return st;
}
