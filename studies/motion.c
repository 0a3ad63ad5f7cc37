/* studies/motion.c: the rigid motion of a case along a trajectory (include/pkm/motion.h): the
 * closure followed by continuation, whatever the route that turns a pose into driven coordinates.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/motion.h"

#include "core/core_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pkm_motion {
    const pkm_case *c;
    const void *params;
    pkm_motion_route route;
    pkm_model *m;
    pkm_mbs *s;
    int nd;                       /* driven coordinates */
    int closed;                   /* a configuration closed since the build (or the last reset) */
    double t_last;                /* the time of the last closed configuration */
    double *q0;                   /* every coordinate at the build configuration (all 0) */
    double *qok;                  /* and at the last closed configuration */
    double pose_ok[PKM_POSE_MAX]; /* the pose there */
};

static pkm_motion_route route_for(const pkm_case *c, pkm_motion_route asked)
{
    if (asked != PKM_MOTION_AUTO) return asked;
    if (c->platform_names != NULL) return PKM_MOTION_PLATFORM;
    return c->drive != NULL ? PKM_MOTION_DRIVE : PKM_MOTION_POSE;
}

/* The model coordinates the route drives, by name. */
static pkm_status set_driven(pkm_motion *m, pkm_ctx *ctx)
{
    const pkm_case *c = m->c;
    const char *const *names = m->route == PKM_MOTION_PLATFORM ? c->platform_names
                               : c->driven_names != NULL       ? c->driven_names
                                                               : c->pose_names;
    m->nd = m->route == PKM_MOTION_DRIVE ? c->ndriven : c->npose;
    int idx[PKM_POSE_MAX];
    for (int k = 0; k < m->nd; k++) {
        idx[k] = -1;
        for (int i = 0; i < pkm_mbs_coord_count(m->s) && idx[k] < 0; i++)
            if (strcmp(pkm_mbs_coord_name(m->s, i), names[k]) == 0) idx[k] = i;
        if (idx[k] < 0)
            return PKM_FAIL(ctx, PKM_ERR_MODEL, "case '%s': its rigid model has no coordinate '%s'",
                            c->name, names[k]);
    }
    return pkm_mbs_set_driven(m->s, m->nd, idx, ctx);
}

pkm_status pkm_motion_create(const pkm_case *c, const void *params, const pkm_motion_opts *o,
                             pkm_motion **out, pkm_ctx *ctx)
{
    *out = NULL;
    const pkm_motion_opts def = {.route = PKM_MOTION_AUTO};
    if (o == NULL) o = &def;
    const pkm_motion_route route = route_for(c, o->route);
    if (c->build_rigid == NULL || !(c->analyses & PKM_CASE_DYNAMICS))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "case '%s' has no rigid-body model with actuated "
                        "joints",
                        c->name);
    if ((route == PKM_MOTION_PLATFORM && c->platform_names == NULL) ||
        (route == PKM_MOTION_DRIVE && c->drive == NULL) || route > PKM_MOTION_POSE)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "case '%s' has no rigid-motion route %d", c->name,
                        (int)route);
    pkm_motion *m = calloc(1, sizeof(*m));
    if (m == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the rigid motion");
    m->c = c;
    m->params = params;
    m->route = route;
    pkm_status st = c->build_rigid(params, pkm_case_rigid_pose(c), &m->m, ctx);
    if (st == PKM_OK) st = pkm_mbs_create(m->m, o->gravity, &m->s, ctx);
    if (st == PKM_OK) {
        const double singular = o->singular > 0.0              ? o->singular
                                : route == PKM_MOTION_PLATFORM ? PKM_DYN_SINGULAR_IK
                                                               : PKM_DYN_SINGULAR;
        st = pkm_mbs_set_singular(m->s, singular, ctx);
    }
    if (st == PKM_OK) st = set_driven(m, ctx);
    if (st == PKM_OK) {
        const size_t nq = (size_t)pkm_mbs_coord_count(m->s);
        m->q0 = calloc(2 * nq + 1, sizeof(double));
        if (m->q0 == NULL)
            st = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the rigid motion");
        else
            m->qok = m->q0 + nq;
    }
    if (st != PKM_OK) {
        pkm_motion_destroy(&m);
        return st;
    }
    pkm_mbs_set_warm_start(m->s, o->warm_start);
    *out = m;
    return PKM_OK;
}

void pkm_motion_destroy(pkm_motion **m)
{
    if (m == NULL || *m == NULL) return;
    pkm_mbs_destroy(&(*m)->s);
    pkm_model_destroy(&(*m)->m);
    free((*m)->q0);
    free(*m);
    *m = NULL;
}

const pkm_case *pkm_motion_case(const pkm_motion *m, const void **params)
{
    if (params != NULL) *params = m->params;
    return m->c;
}

const pkm_model *pkm_motion_model(const pkm_motion *m)
{
    return m->m;
}

pkm_mbs *pkm_motion_mbs(pkm_motion *m)
{
    return m->s;
}

pkm_motion_route pkm_motion_route_of(const pkm_motion *m)
{
    return m->route;
}

pkm_status pkm_motion_driven(const pkm_motion *m, const double *pose, const double *pd,
                             const double *pdd, double *q, double *qd, double *qdd, pkm_ctx *ctx)
{
    const pkm_case *c = m->c;
    /* Both routes measure from the build pose, where the model's coordinates are 0; the case's
     * drive (a reach check where it drives the same coordinates, navaro) is asked first. */
    if (c->drive != NULL) {
        pkm_status st = c->drive(m->params, pose, pd, pdd, q, qd, qdd, ctx);
        if (st != PKM_OK || m->route == PKM_MOTION_DRIVE) return st;
    }
    const double *p0 = pkm_case_rigid_pose(c);
    for (int k = 0; k < m->nd; k++) {
        q[k] = pose[k] - p0[k];
        qd[k] = pd[k];
        qdd[k] = pdd[k];
    }
    return PKM_OK;
}

/* The closure at the driven values q (rates qd, qdd): from the last closed configuration
 * directly when q is within one continuation step of it and Newton converges there, else walked
 * to q at rest first. */
static pkm_status close_at(pkm_motion *m, double t, const double *q, const double *qd,
                           const double *qdd, pkm_ctx *ctx)
{
    if (!m->closed) pkm_mbs_set_state(m->s, m->q0, m->q0, m->q0);
    if (m->closed && pkm_mbs_walk_steps(m->s, q) == 1) {
        pkm_ctx quiet;
        pkm_ctx_clear(&quiet);
        if (pkm_mbs_kinematics(m->s, t, q, qd, qdd, &quiet) == PKM_OK) return PKM_OK;
        pkm_mbs_set_state(m->s, m->qok, m->q0, m->q0);
    }
    pkm_status st = pkm_mbs_walk(m->s, q, m->closed ? m->t_last : t, t, NULL, ctx);
    return st == PKM_OK ? pkm_mbs_kinematics(m->s, t, q, qd, qdd, ctx) : st;
}

/* A case's drive may prescribe more coordinates than its closure leaves free (the chewing robot's
 * six platform coordinates, whose Z and gamma its condyles' planes set too): off the pose's own
 * path, on the straight line of the driven coordinates, those constraints cannot close. The
 * closure is walked along the straight line of the pose instead, from the last closed one, each
 * point's driven values from the drive, at rest; then at the pose with its rates. */
static pkm_status walk_pose(pkm_motion *m, double t, const double *pose, const double *q,
                            const double *qd, const double *qdd, pkm_ctx *ctx)
{
    double p[PKM_POSE_MAX], z[PKM_POSE_MAX] = {0}, qk[PKM_POSE_MAX], r1[PKM_POSE_MAX],
                            r2[PKM_POSE_MAX];
    pkm_mbs_set_state(m->s, m->qok, m->q0, m->q0); /* the first walk left it where it failed */
    const int n = pkm_mbs_walk_steps(m->s, q);
    pkm_status st = PKM_OK;
    for (int k = 1; k < n && st == PKM_OK; k++) {
        const double f = (double)k / n, tk = m->t_last + f * (t - m->t_last);
        for (int i = 0; i < m->c->npose; i++)
            p[i] = m->pose_ok[i] + f * (pose[i] - m->pose_ok[i]);
        st = pkm_motion_driven(m, p, z, z, qk, r1, r2, ctx);
        if (st == PKM_OK) st = pkm_mbs_kinematics(m->s, tk, qk, z, z, ctx);
    }
    return st == PKM_OK ? pkm_mbs_kinematics(m->s, t, q, qd, qdd, ctx) : st;
}

pkm_status pkm_motion_at(pkm_motion *m, double t, const double *pose, const double *pd,
                         const double *pdd, pkm_ctx *ctx)
{
    double q[PKM_POSE_MAX], qd[PKM_POSE_MAX], qdd[PKM_POSE_MAX];
    pkm_status st = pkm_motion_driven(m, pose, pd, pdd, q, qd, qdd, ctx);
    if (st == PKM_OK) st = close_at(m, t, q, qd, qdd, ctx);
    if (st != PKM_OK && st != PKM_ERR_UNREACHABLE && m->route == PKM_MOTION_DRIVE && m->closed) {
        pkm_ctx again; /* the first failure stands if this one fails too */
        pkm_ctx_clear(&again);
        if (walk_pose(m, t, pose, q, qd, qdd, &again) == PKM_OK) st = PKM_OK;
    }
    if (st != PKM_OK) {
        /* The state is left where Newton stopped: the next call starts from the last closed. */
        if (m->closed)
            pkm_mbs_set_state(m->s, m->qok, m->q0, m->q0);
        else
            pkm_mbs_set_state(m->s, m->q0, m->q0, m->q0);
        return st;
    }
    memcpy(m->qok, pkm_mbs_q(m->s), sizeof(double) * (size_t)pkm_mbs_coord_count(m->s));
    memcpy(m->pose_ok, pose, sizeof(double) * (size_t)m->c->npose);
    m->closed = 1;
    m->t_last = t;
    return PKM_OK;
}

pkm_status pkm_motion_approach(pkm_motion *m, const pkm_trajectory *tr, double t0, double step,
                               pkm_ctx *ctx)
{
    double a = 0.0;
    pkm_trajectory_span(tr, &a, NULL);
    if (!(t0 > a)) return PKM_OK;
    const double n =
        fmin(PKM_MOTION_APPROACH_MAX, fmax(PKM_MOTION_APPROACH_STEPS, ceil((t0 - a) / step)));
    for (int k = 1; k < (int)n; k++) { /* at k = 0 the pose is the trajectory's first */
        const double t = a + (t0 - a) * k / n;
        double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
        pkm_ctx in;
        pkm_ctx_clear(&in);
        pkm_status st = pkm_trajectory_eval(tr, t, p, pd, pdd, &in);
        if (st == PKM_OK) st = pkm_motion_at(m, t, p, pd, pdd, &in);
        if (st != PKM_OK)
            return PKM_FAIL(ctx, st, "t = %.9g s (on the way to the grid's start): %s", t, in.msg);
    }
    return PKM_OK;
}

void pkm_motion_reset(pkm_motion *m)
{
    m->closed = 0;
    pkm_mbs_set_state(m->s, m->q0, m->q0, m->q0);
}

pkm_status pkm_motion_check(pkm_motion *m, const pkm_trajectory *tr, double t0, double dt,
                            int64_t n, pkm_ctx *ctx)
{
    double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
    double q[PKM_POSE_MAX], qd[PKM_POSE_MAX], qdd[PKM_POSE_MAX];
    /* A case's drive decides reach alone (closed-form inverse kinematics); else the closure is
     * followed over the times, from where the model was built. */
    const int by_closure = m->c->drive == NULL && m->route != PKM_MOTION_POSE;
    if (by_closure) pkm_motion_reset(m);
    pkm_ctx in;
    pkm_ctx_clear(&in);
    pkm_status st = PKM_OK;
    double t = t0;
    for (int64_t k = 0; k < n && st == PKM_OK; k++) {
        t = t0 + (double)k * dt;
        st = pkm_trajectory_eval(tr, t, p, pd, pdd, &in);
        if (st == PKM_OK && by_closure)
            st = pkm_motion_at(m, t, p, pd, pdd, &in);
        else if (st == PKM_OK)
            st = pkm_motion_driven(m, p, pd, pdd, q, qd, qdd, &in);
    }
    if (by_closure) pkm_motion_reset(m);
    if (st == PKM_OK) return PKM_OK;
    if (by_closure && (st == PKM_ERR_SINGULAR || st == PKM_ERR_INVALID))
        return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE,
                        "t = %.9g s: the pose is out of reach of the loop closure: %s", t, in.msg);
    return PKM_FAIL(ctx, st, "t = %.9g s: %s", t, in.msg);
}

pkm_status pkm_motion_locked_conditioning(pkm_motion *m, double *cond, pkm_ctx *ctx)
{
    *cond = NAN;
    if (!m->closed)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "the locked closure's conditioning needs a pose");
    const int nq = pkm_mbs_coord_count(m->s);
    int *idx = malloc(sizeof(int) * ((size_t)nq + PKM_POSE_MAX));
    double *zero = calloc((size_t)nq + 1, sizeof(double)); /* the rates at rest */
    if (idx == NULL || zero == NULL) {
        free(idx);
        free(zero);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the locked closure");
    }
    int *keep = idx + nq;
    const int *driven = NULL;
    const int nd = pkm_mbs_driven(m->s, &driven);
    memcpy(keep, driven, sizeof(int) * (size_t)nd);
    int nl = 0; /* the actuated joints held, their drives' springs aside */
    for (int j = 0; j < pkm_model_joint_count(m->m); j++) {
        int first = 0;
        if (pkm_model_joint(m->m, j)->actuated && pkm_mbs_joint_coords(m->s, j, &first) == 1)
            idx[nl++] = first;
    }
    /* The configuration is closed already: the passive Jacobian's SVD there is the whole
     * answer (no kinematics solve: a third of a dynamics sample's time went to one). */
    pkm_status st = pkm_mbs_set_driven(m->s, nl, idx, ctx);
    if (st == PKM_OK) st = pkm_mbs_passive_conditioning(m->s, cond, ctx);
    /* Back to the route's driven set, at rest at the pose. */
    if (st == PKM_OK) st = pkm_mbs_set_driven(m->s, nd, keep, ctx);
    pkm_mbs_set_state(m->s, m->qok, zero, zero);
    free(idx);
    free(zero);
    return st;
}

pkm_status pkm_pose_conditioning(const pkm_case *c, const pkm_model *fe, double *cond, pkm_ctx *ctx)
{
    static const double no_gravity[3] = {0.0, 0.0, 0.0};
    *cond = NAN;
    if (!(c->analyses & PKM_CASE_DYNAMICS) || c->build_rigid == NULL) return PKM_OK;
    pkm_mbs *s = NULL;
    pkm_status st = pkm_mbs_create(fe, no_gravity, &s, ctx);
    if (st != PKM_OK) return st;
    /* fe's clamped joints have no coordinates: they are held already. Without a clamp, the
     * actuated joints are (loop3, tree5: the model is the rigid one). A joint's coordinate with
     * a stiffness is held too: its spring (NaVARo's elastic clutches, Germain et al. 2015, sec.
     * 5.3; a drive's stiffness) stands where a locked drive's clamp would. */
    const int nj = pkm_model_joint_count(fe), nq = pkm_mbs_coord_count(s);
    int clamped = 0, n = 0;
    int *idx = malloc(sizeof(int) * ((size_t)nq + 1));
    if (idx == NULL) {
        pkm_mbs_destroy(&s);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the held coordinates");
    }
    for (int j = 0; j < nj; j++)
        clamped = clamped || pkm_model_joint(fe, j)->type == PKM_JOINT_CLAMPED;
    for (int j = 0; j < nj; j++) {
        const pkm_joint *jt = pkm_model_joint(fe, j);
        int first = 0;
        const int nc = pkm_mbs_joint_coords(s, j, &first);
        for (int k = 0; k < nc && k < PKM_JOINT_MAX_FREE; k++)
            if ((jt->actuated && !clamped && nc == 1) || jt->stiffness[k][k] > 0.0)
                idx[n++] = first + k;
    }
    st = pkm_mbs_set_driven(s, n, idx, ctx);
    free(idx);
    if (st == PKM_OK) {
        pkm_mbs_set_state(s, NULL, NULL, NULL); /* q = 0: the pose, closed */
        st = pkm_mbs_passive_conditioning(s, cond, ctx);
    }
    pkm_mbs_destroy(&s);
    return st;
}

pkm_status pkm_wrench_at(const double w0[6], const pkm_trajectory *series, double t, double w[6],
                         pkm_ctx *ctx)
{
    for (int k = 0; k < 6; k++)
        w[k] = w0[k];
    pkm_status st = PKM_OK;
    if (series != NULL) {
        double a = 0.0, b = 0.0, s[6];
        pkm_trajectory_span(series, &a, &b);
        st = pkm_trajectory_eval(series, fmin(fmax(t, a), b), s, NULL, NULL, ctx);
        for (int k = 0; k < 6 && st == PKM_OK; k++)
            w[k] += s[k];
    }
    for (int k = 0; k < 6 && st == PKM_OK; k++)
        if (!(fabs(w[k]) <= PKM_WRENCH_MAX))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "t = %.6g s: wrench component %d = %g is outside [-%g, %g] (N, N m)", t,
                            k + 1, w[k], PKM_WRENCH_MAX, PKM_WRENCH_MAX);
    return st;
}

pkm_status pkm_wrench_check(const double w0[6], const pkm_trajectory *series, double t0, double dt,
                            int64_t n, pkm_ctx *ctx)
{
    pkm_status st = PKM_OK;
    for (int64_t k = 0; k < n && st == PKM_OK; k++) {
        double w[6];
        st = pkm_wrench_at(w0, series, t0 + (double)k * dt, w, ctx);
    }
    return st;
}

pkm_status pkm_motion_set_wrench(pkm_motion *m, const double w[6], pkm_ctx *ctx)
{
    const int p = pkm_model_platform(m->m);
    if (p < 0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "case '%s': a wrench on the platform, but its rigid model has none",
                        m->c->name);
    const double *x = pkm_model_node(m->m, pkm_model_body(m->m, p)->first_node)->x;
    return pkm_mbs_set_load(m->s, 1, p, w, w + 3, x, ctx);
}
