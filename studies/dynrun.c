/* studies/dynrun.c: the rigid-body inverse dynamics of a case along a trajectory
 * (include/pkm/dynrun.h), on the rigid motion shared with the elastodynamics (pkm/motion.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/dynrun.h"

#include "pkm/forward.h"

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
    /* The case's own load on the platform (slot 0; a run's wrench takes slot 1). */
    if (st == PKM_OK && pkm_case_loaded(dyn)) {
        const int p = pkm_model_platform(m);
        const double zero[3] = {0.0, 0.0, 0.0};
        st = p < 0 ? PKM_FAIL(ctx, PKM_ERR_INVALID,
                              "case '%s': a load on the platform, but its rigid model has none",
                              c->name)
                   : pkm_mbs_set_load(pkm_motion_mbs(*out), 0, p, dyn->load_force, zero,
                                      dyn->load_point, ctx);
    }
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

/* Whether o loads the platform. */
static int loaded(const pkm_dynamics_opts *o)
{
    int any = o->wrench_series != NULL;
    for (int k = 0; k < 6; k++)
        any = any || o->wrench[k] != 0.0;
    return any;
}

/* The grid inside tr's span, every time reachable, the closure followed to its start. */
static pkm_status prepare(pkm_motion *m, const pkm_trajectory *tr, const pkm_dynamics_opts *o,
                          pkm_ctx *ctx)
{
    pkm_status st = check_grid(tr, o, ctx);
    const double dt = (o->t1 - o->t0) / (o->n - 1);
    if (st == PKM_OK) st = pkm_motion_check(m, tr, o->t0, dt, o->n, ctx);
    if (st == PKM_OK) st = pkm_motion_approach(m, tr, o->t0, dt, ctx);
    return st;
}

/* The inverse run's engine: NULL for the motion's own system (mbs, mbs-dense: its path set),
 * else one created on the motion's model, map[a] the place of actuated joint a (joint order)
 * among the motion's driven coordinates. */
typedef struct run_engine {
    const pkm_dyn_engine *e;
    void *eng;
    int na, map[PKM_POSE_MAX];
} run_engine;

/* What engine e lacks for the run o of case c (NULL: nothing). */
static const char *engine_lacks(const pkm_dyn_engine *e, const pkm_case *c, const void *params,
                                const pkm_dynamics_opts *o)
{
    if (loaded(o) || pkm_case_loaded(pkm_case_dynamics_of(c, params))) return "external loads";
    if (o->weights != NULL && !(e->extras & PKM_DYN_EXTRA_WEIGHTS)) return "weights";
    if (o->preload != NULL && !(e->extras & PKM_DYN_EXTRA_PRELOAD)) return "preload";
    if (pkm_case_dynamics_of(c, params)->friction_model != PKM_FRICTION_NONE &&
        !(e->extras & PKM_DYN_EXTRA_FRICTION))
        return "joint friction";
    return NULL;
}

/* The actuated joints' places among the driven coordinates: all of them, and nothing else. */
static int engine_map(pkm_motion *m, run_engine *re)
{
    const pkm_model *model = pkm_motion_model(m);
    const int *idx = NULL;
    const int nd = pkm_mbs_driven(pkm_motion_mbs(m), &idx);
    re->na = pkm_dyn_engine_actuated(model);
    if (re->na != nd || nd > PKM_POSE_MAX) return 0;
    for (int j = 0, a = 0; j < pkm_model_joint_count(model); j++) {
        const pkm_joint *jt = pkm_model_joint(model, j);
        if (!jt->actuated) continue;
        re->map[a] = -1;
        for (int k = 0; k < nd; k++)
            if (strcmp(pkm_mbs_coord_name(pkm_motion_mbs(m), idx[k]), jt->name) == 0)
                re->map[a] = k;
        if (re->map[a++] < 0) return 0;
    }
    return 1;
}

const pkm_dyn_engine *pkm_dynamics_engine_choose(pkm_motion *m, const pkm_dynamics_opts *o)
{
    for (int i = 0; i < PKM_DYN_ENGINE_COUNT; i++) {
        const pkm_dyn_engine *e = &pkm_dyn_engines[i];
        if (e->id == PKM_DYN_ENGINE_MBS || e->id == PKM_DYN_ENGINE_DENSE) return e;
        pkm_ctx quiet;
        pkm_ctx_clear(&quiet);
        pkm_dynamics_opts oe = *o;
        oe.engine = e;
        if (pkm_dynamics_engine_check(m, &oe, &quiet) == PKM_OK) return e;
    }
    return &pkm_dyn_engines[PKM_DYN_ENGINE_MBS];
}

/* pkm_dynamics_engine_check, re receiving the actuated joints' places. */
static pkm_status engine_check(pkm_motion *m, const pkm_dynamics_opts *o, run_engine *re,
                               pkm_ctx *ctx)
{
    const pkm_dyn_engine *e = o->engine;
    *re = (run_engine){0};
    if (e == NULL || e->id == PKM_DYN_ENGINE_MBS || e->id == PKM_DYN_ENGINE_DENSE) return PKM_OK;
    const void *params = NULL;
    const pkm_case *c = pkm_motion_case(m, &params);
    pkm_status st = e->accepts(pkm_motion_model(m), ctx);
    if (st != PKM_OK) return st;
    const char *lack = engine_lacks(e, c, params, o);
    if (lack != NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "engine %s: it has no %s (engine mbs has)", e->name,
                        lack);
    if (!engine_map(m, re))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "engine %s: case '%s' does not drive its actuated joints (its pose is "
                        "not their coordinates): engine mbs",
                        e->name, c->name);
    return PKM_OK;
}

pkm_status pkm_dynamics_engine_check(pkm_motion *m, const pkm_dynamics_opts *o, pkm_ctx *ctx)
{
    run_engine re;
    return engine_check(m, o, &re, ctx);
}

static pkm_status engine_open(pkm_motion *m, const pkm_dynamics_opts *o, run_engine *re,
                              pkm_ctx *ctx)
{
    const pkm_dyn_engine *e = o->engine;
    pkm_status st = engine_check(m, o, re, ctx);
    if (st != PKM_OK || e == NULL) return st;
    if (e->id == PKM_DYN_ENGINE_MBS || e->id == PKM_DYN_ENGINE_DENSE)
        return pkm_mbs_set_solver(
            pkm_motion_mbs(m), e->id == PKM_DYN_ENGINE_DENSE ? PKM_DYN_DENSE : PKM_DYN_SPARSE, ctx);
    const void *params = NULL;
    const pkm_case *c = pkm_motion_case(m, &params);
    st = e->create(pkm_motion_model(m), pkm_case_dynamics_of(c, params)->gravity, &re->eng, ctx);
    if (st == PKM_OK) re->e = e;
    return st;
}

/* The engine's inverse dynamics at the pose: the actuated coordinates from the driven ones. */
static pkm_status engine_inverse(const pkm_motion *m, const run_engine *re, double t,
                                 const double *p, const double *pd, const double *pdd,
                                 pkm_joint_result *res, pkm_ctx *ctx)
{
    double q[PKM_POSE_MAX], qd[PKM_POSE_MAX], qdd[PKM_POSE_MAX];
    double qa[PKM_POSE_MAX], qda[PKM_POSE_MAX], qdda[PKM_POSE_MAX];
    pkm_status st = pkm_motion_driven(m, p, pd, pdd, q, qd, qdd, ctx);
    if (st != PKM_OK) return st;
    for (int a = 0; a < re->na; a++)
        qa[a] = q[re->map[a]], qda[a] = qd[re->map[a]], qdda[a] = qdd[re->map[a]];
    return re->e->inverse(re->eng, t, qa, qda, qdda, res, ctx);
}

pkm_status pkm_dynamics_run_on(pkm_motion *m, const pkm_trajectory *tr, const pkm_dynamics_opts *o,
                               pkm_dynamics_sink sink, void *user, pkm_ctx *ctx)
{
    const void *params = NULL;
    const pkm_case *c = pkm_motion_case(m, &params);
    pkm_status st = o->inertia && c->nextra[1] <= c->nextra[0]
                        ? PKM_FAIL(ctx, PKM_ERR_INVALID,
                                   "case '%s': no inertia quantities of its own (the chewing "
                                   "robot masticatory has M_A and MCI)",
                                   c->name)
                        : prepare(m, tr, o, ctx);
    run_engine re = {0};
    if (st == PKM_OK) st = engine_open(m, o, &re, ctx);
    const pkm_model *model = pkm_motion_model(m);
    pkm_joint_result *res = calloc((size_t)pkm_model_joint_count(model) + 1, sizeof(*res));
    const int nplane = pkm_model_plane_count(model);
    const int nextra = c->extra != NULL ? c->nextra[o->inertia != 0] : 0;
    /* per time the planes' normal forces, then the case's own values */
    double *force = calloc((size_t)(nplane + nextra) + 1, sizeof(double));
    if (st == PKM_OK && (res == NULL || force == NULL))
        st = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the joints' results");
    if (st == PKM_OK && o->wrench_series != NULL && pkm_trajectory_ncoord(o->wrench_series) != 6)
        st = PKM_FAIL(ctx, PKM_ERR_INVALID, "wrench series of %d components, not 6",
                      pkm_trajectory_ncoord(o->wrench_series));
    const int load = loaded(o);
    double w[6];
    if (st == PKM_OK && o->preload != NULL)
        st = pkm_mbs_set_preload(pkm_motion_mbs(m), o->preload, ctx);
    /* The wrench checked before the first time: its range at every time, the platform. */
    if (st == PKM_OK && load)
        st = pkm_wrench_check(o->wrench, o->wrench_series, o->t0, (o->t1 - o->t0) / (o->n - 1),
                              o->n, ctx);
    if (st == PKM_OK && load) st = pkm_motion_set_wrench(m, o->wrench, ctx);
    for (int64_t k = 0; k < o->n && st == PKM_OK; k++) {
        const double t = grid_time(o, k);
        double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
        if (load && ((st = pkm_wrench_at(o->wrench, o->wrench_series, t, w, ctx)) != PKM_OK ||
                     (st = pkm_motion_set_wrench(m, w, ctx)) != PKM_OK))
            break;
        pkm_ctx in;
        pkm_ctx_clear(&in);
        st = pkm_trajectory_eval(tr, t, p, pd, pdd, &in);
        /* Another engine than the motion's own system solves its own kinematics from the
         * actuated coordinates: no closure of the general system, no conditioning (NaN). */
        double cond = NAN;
        if (st == PKM_OK && re.e != NULL)
            st = engine_inverse(m, &re, t, p, pd, pdd, res, &in);
        else if (st == PKM_OK && (st = pkm_motion_at(m, t, p, pd, pdd, &in)) == PKM_OK &&
                 (st = pkm_mbs_inverse(pkm_motion_mbs(m), o->weights, res, &in)) == PKM_OK)
            st = pkm_motion_locked_conditioning(m, &cond, &in);
        if (st == PKM_OK && nextra > 0)
            st = c->extra(params, t, p, pd, pdd, o->inertia, force + nplane, &in);
        if (st != PKM_OK) st = PKM_FAIL(ctx, st, "t = %.9g s: %s", t, in.msg);
        for (int i = 0; i < nplane; i++)
            force[i] = pkm_mbs_plane_force(pkm_motion_mbs(m), i);
        const pkm_dynamics_row row = {.t = t,
                                      .step = k,
                                      .model = model,
                                      .joint = res,
                                      .npose = c->npose,
                                      .pose = p,
                                      .conditioning = cond,
                                      .nplane = nplane,
                                      .plane_force = force,
                                      .residual =
                                          re.e != NULL ? NAN : pkm_mbs_residual(pkm_motion_mbs(m)),
                                      .nextra = nextra,
                                      .extra = force + nplane};
        if (st == PKM_OK && sink != NULL && sink(user, &row) != 0) break;
    }
    if (load) (void)pkm_mbs_set_load(pkm_motion_mbs(m), 1, -1, NULL, NULL, NULL, NULL);
    if (o->preload != NULL) (void)pkm_mbs_set_preload(pkm_motion_mbs(m), NULL, NULL);
    if (re.e != NULL) re.e->destroy(&re.eng);
    free(force);
    free(res);
    return st;
}

int pkm_dynamics_columns(const pkm_motion *m, int inertia, pkm_column *cols)
{
    const pkm_case *c = pkm_motion_case(m, NULL);
    const pkm_model *model = pkm_motion_model(m);
    const int nplane = pkm_model_plane_count(model);
    const int nextra = c->extra != NULL ? c->nextra[inertia != 0] : 0;
    if (cols == NULL) return c->npose + nplane + 2 + nextra;
    int n = 0;
    for (int k = 0; k < c->npose; k++)
        cols[n++] = (pkm_column){c->pose_names[k], c->pose_units[k]};
    for (int i = 0; i < nplane; i++) /* a contact's normal force, named as its plane */
        cols[n++] = (pkm_column){pkm_model_plane(model, i)->name, "N"};
    cols[n++] = (pkm_column){"residual", "N or N m"};
    cols[n++] = (pkm_column){"conditioning", "1"};
    for (int i = 0; i < nextra; i++)
        cols[n++] = c->extra_columns[i];
    return n;
}

void pkm_dynamics_row_values(const pkm_dynamics_row *row, double *out)
{
    memcpy(out, row->pose, sizeof(double) * (size_t)row->npose);
    out += row->npose;
    memcpy(out, row->plane_force, sizeof(double) * (size_t)row->nplane);
    out += row->nplane;
    *out++ = row->residual;
    *out++ = row->conditioning;
    memcpy(out, row->extra, sizeof(double) * (size_t)row->nextra);
}

int pkm_dynamics_fwd_columns(pkm_column *cols)
{
    static const pkm_column fwd[3] = {
        {"deviation", "rad or m"}, {"balance", "J"}, {"friction_work", "J"}};
    if (cols != NULL) memcpy(cols, fwd, sizeof(fwd));
    return 3;
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

/* The forward run: the reference motion following the trajectory, the joints' results there. */
typedef struct fwd_run {
    pkm_motion *motion;
    const pkm_trajectory *tr;
    pkm_joint_result *res;
    const pkm_trajectory *forces; /* the drives, or NULL: the trajectory's inverse dynamics */
    int nsub;                     /* RK4 steps per output time */
    pkm_dynamics_fwd_sink sink;
    void *user;
    int stopped; /* the sink asked to stop */
} fwd_run;

/* The reference system at time t of the trajectory (closure from its previous solution). */
static pkm_status fwd_follow(const fwd_run *f, double t, pkm_ctx *ctx)
{
    double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
    pkm_status st = pkm_trajectory_eval(f->tr, t, p, pd, pdd, ctx);
    return st == PKM_OK ? pkm_motion_at(f->motion, t, p, pd, pdd, ctx) : st;
}

/* The given drives at t (one per actuated joint of m), each finite and within PKM_WRENCH_MAX
 * (1e308 made the solve's SVD fail): PKM_ERR_INVALID naming the joint and t otherwise. */
static pkm_status forces_at(const pkm_model *m, const pkm_trajectory *forces, double t, double *tau,
                            pkm_ctx *ctx)
{
    pkm_status st = pkm_trajectory_eval(forces, t, tau, NULL, NULL, ctx);
    for (int j = 0, a = 0; st == PKM_OK && j < pkm_model_joint_count(m); j++) {
        if (!pkm_model_joint(m, j)->actuated) continue;
        if (!(fabs(tau[a]) <= PKM_WRENCH_MAX))
            st = PKM_FAIL(ctx, PKM_ERR_INVALID, "drive of joint %s at t = %g: %g, beyond %g",
                          pkm_model_joint(m, j)->name, t, tau[a], PKM_WRENCH_MAX);
        a++;
    }
    return st;
}

/* The drives of the actuated joints: the file's at the stage time t, or the inverse dynamics of
 * the trajectory there (the case's friction law included), whatever the forward state. */
static pkm_status fwd_drives(double t, const double *q, const double *qd, double *tau, void *user,
                             pkm_ctx *ctx)
{
    (void)q, (void)qd;
    fwd_run *f = user;
    if (f->forces != NULL) return forces_at(pkm_motion_model(f->motion), f->forces, t, tau, ctx);
    pkm_status st = fwd_follow(f, t, ctx);
    if (st == PKM_OK) st = pkm_mbs_inverse(pkm_motion_mbs(f->motion), NULL, f->res, ctx);
    const pkm_model *m = pkm_motion_model(f->motion);
    int a = 0;
    for (int j = 0; st == PKM_OK && j < pkm_model_joint_count(m); j++)
        if (pkm_model_joint(m, j)->actuated) tau[a++] = f->res[j].drive;
    return st;
}

/* The file's drives at t as the actuated joints' drives of the row (what was applied). */
static pkm_status fwd_applied(fwd_run *f, double t, pkm_ctx *ctx)
{
    double tau[PKM_POSE_MAX];
    const pkm_model *m = pkm_motion_model(f->motion);
    pkm_status st = forces_at(m, f->forces, t, tau, ctx);
    for (int j = 0, a = 0; st == PKM_OK && j < pkm_model_joint_count(m); j++)
        if (pkm_model_joint(m, j)->actuated) f->res[j].drive = tau[a++];
    return st;
}

/* The forward run's own checks: the engine, the drives' columns and span, the step. */
static pkm_status fwd_check(const pkm_motion *m, const pkm_dynamics_opts *o, int *nsub,
                            pkm_ctx *ctx)
{
    const double h = (o->t1 - o->t0) / (o->n - 1);
    if (o->engine != NULL && o->engine->id != PKM_DYN_ENGINE_MBS &&
        o->engine->id != PKM_DYN_ENGINE_DENSE)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "engine %s: the forward run integrates the general system (engine mbs)",
                        o->engine->name);
    if (!(o->step >= 0.0) || !isfinite(o->step) || (o->step > 0.0 && h / o->step > 1e7))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "RK4 step %g s: expected 0 (the grid's spacing) or at least 1e-7 of it",
                        o->step);
    *nsub = o->step > 0.0 ? (int)ceil(h / o->step - 1e-9) : 1;
    if (*nsub < 1) *nsub = 1;
    if ((double)(o->n - 1) * *nsub > 1e9)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "RK4 step %g s over %g:%g s: %.3g steps, above 1e9 (a larger step)",
                        o->step, o->t0, o->t1, (double)(o->n - 1) * *nsub);
    if (o->forces == NULL) return PKM_OK;
    const int na = pkm_dyn_engine_actuated(pkm_motion_model(m));
    double a, b;
    pkm_trajectory_span(o->forces, &a, &b);
    if (pkm_trajectory_ncoord(o->forces) != na || na > PKM_POSE_MAX)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "drives of %d columns for %d actuated joints",
                        pkm_trajectory_ncoord(o->forces), na);
    if (o->t0 < a || o->t1 > b)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "drives over %g:%g s do not cover the times %g:%g s",
                        a, b, o->t0, o->t1);
    /* every output time checked before the first step (the stages are, as they come) */
    pkm_status st = PKM_OK;
    for (int64_t k = 0; k < o->n && st == PKM_OK; k++) {
        double tau[PKM_POSE_MAX];
        st = forces_at(pkm_motion_model(m), o->forces, grid_time(o, k), tau, ctx);
    }
    return st;
}

/* After each step: the largest deviation of q from the trajectory and the energy balance. A
 * sink's stop ends pkm_fwd_run through a failure that the run then drops. */
static pkm_status fwd_row(const pkm_fwd_record *r, void *user, pkm_ctx *ctx)
{
    fwd_run *f = user;
    if (r->step % f->nsub != 0) return PKM_OK; /* between two output times */
    pkm_status st = fwd_follow(f, r->t, ctx);
    if (st != PKM_OK) return st;
    pkm_mbs *s = pkm_motion_mbs(f->motion);
    double dev = 0.0;
    for (int k = 0; k < pkm_mbs_coord_count(s); k++)
        dev = fmax(dev, fabs(r->y[k] - pkm_mbs_q(s)[k]));
    st = pkm_mbs_inverse(s, NULL, f->res, ctx);
    if (st == PKM_OK && f->forces != NULL) st = fwd_applied(f, r->t, ctx);
    if (st != PKM_OK) return st;
    const pkm_dynamics_fwd_row row = {r->t, r->step / f->nsub, dev, r->balance, r->w_fric, f->res};
    if (f->sink != NULL && f->sink(f->user, &row) != 0) {
        f->stopped = 1;
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "stopped");
    }
    return PKM_OK;
}

pkm_status pkm_dynamics_forward_run_on(pkm_motion *m, const pkm_case *c, const void *params,
                                       const pkm_trajectory *tr, const pkm_dynamics_opts *o,
                                       pkm_dynamics_fwd_sink sink, void *user, pkm_ctx *ctx)
{
    const pkm_model *model = pkm_motion_model(m);
    const int nq = pkm_mbs_coord_count(pkm_motion_mbs(m));
    fwd_run f = {.motion = m, .tr = tr, .forces = o->forces, .nsub = 1, .sink = sink, .user = user};
    f.res = calloc((size_t)pkm_model_joint_count(model) + 1, sizeof(*f.res));
    pkm_friction *fr = calloc((size_t)pkm_model_joint_count(model) + 1, sizeof(*fr));
    double *y = calloc((size_t)PKM_FWD_STATES(nq), sizeof(double));
    pkm_mbs *s = NULL;
    pkm_fwd *fw = NULL;
    pkm_status st = f.res == NULL || fr == NULL || y == NULL
                        ? PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the forward run")
                    : loaded(o) || pkm_case_loaded(pkm_case_dynamics_of(c, params))
                        ? PKM_FAIL(ctx, PKM_ERR_INVALID,
                                   "the forward run takes no external wrench or load (its energy "
                                   "balance has no work of external loads)")
                        : prepare(m, tr, o, ctx);
    if (st == PKM_OK) st = fwd_check(m, o, &f.nsub, ctx);
    if (st == PKM_OK) st = pkm_dynamics_friction(c, params, model, fr, ctx);
    if (st == PKM_OK) st = pkm_mbs_create(model, pkm_case_dynamics_of(c, params)->gravity, &s, ctx);
    if (st == PKM_OK) st = pkm_fwd_create(s, fwd_drives, &f, fr, PKM_FWD_EPS, &fw, ctx);
    if (st == PKM_OK) st = fwd_follow(&f, o->t0, ctx);
    if (st != PKM_OK) goto fail;
    memcpy(y, pkm_mbs_q(pkm_motion_mbs(m)), (size_t)nq * sizeof(double));
    memcpy(y + nq, pkm_mbs_qd(pkm_motion_mbs(m)), (size_t)nq * sizeof(double));
    pkm_ctx in;
    pkm_ctx_clear(&in);
    const double h = (o->t1 - o->t0) / (o->n - 1) / f.nsub;
    st = pkm_fwd_run(fw, o->t0, h, (o->n - 1) * f.nsub, y, fwd_row, &f, &in);
    if (f.stopped)
        st = PKM_OK;
    else if (st != PKM_OK)
        st = PKM_FAIL(ctx, st, "%s", in.msg);
fail:
    pkm_fwd_destroy(&fw);
    pkm_mbs_destroy(&s);
    free(f.res);
    free(fr);
    free(y);
    return st;
}
