/* tests/reference/chainrun.c: a module chain along a trajectory, inverse or forward dynamics
 * (tests/reference/chainrun.h; docs/chain.md).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/chainrun.h"

#include "core/core_impl.h"
#include "pkm/ode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct chain_state {
    pkm_chain *c;
    const pkm_trajectory *tr;
    const pkm_chain_run_opts *o;
    int n;
    double *q, *qd, *qdd, *f, *qr, *y, *work; /* n each; y 2 n + 1; work RK4's */
    pkm_chain_loads *loads;
    double E0; /* forward: T + V at t0 */
    /* o->engine: bound to the chain as a model built at the trajectory's t0 state q0 (its
     * coordinates measured from there), the model's joints per module, its results */
    void *engine;
    pkm_model *model;
    int coord[3 * PKM_CHAIN_RUN_MAX_MODULES];
    double q0[PKM_CHAIN_RUN_MAX_MODULES], qa[PKM_CHAIN_RUN_MAX_MODULES];
    pkm_joint_result *res;
} chain_state;

/* The drives f and the modules' loads (NULL: the drives only) at t, by the chain's own passes or
 * by the engine on its model. */
static pkm_status chain_inv(chain_state *s, double t, const double *q, const double *qd,
                            const double *qdd, double *f, pkm_chain_loads *loads, pkm_ctx *ctx)
{
    if (s->engine == NULL) return pkm_chain_inverse(s->c, q, qd, qdd, f, loads, ctx);
    for (int i = 0; i < s->n; i++)
        s->qa[i] = q[i] - s->q0[i];
    const pkm_status st = s->o->engine->inverse(s->engine, t, s->qa, qd, qdd, s->res, ctx);
    if (st != PKM_OK) return st;
    return pkm_chain_loads_of(s->c, q, s->res, s->coord, f, loads != NULL ? loads : s->loads, ctx);
}

/* The accelerations qdd under the drives f, likewise. */
static pkm_status chain_fwd(chain_state *s, double t, const double *q, const double *qd,
                            const double *f, double *qdd, pkm_ctx *ctx)
{
    if (s->engine == NULL) return pkm_chain_forward(s->c, q, qd, f, qdd, ctx);
    for (int i = 0; i < s->n; i++)
        s->qa[i] = q[i] - s->q0[i];
    return s->o->engine->forward(s->engine, t, s->qa, qd, f, qdd, ctx);
}

/* o->engine on the chain as a model at the trajectory's state at t0. */
static pkm_status engine_setup(chain_state *s, pkm_ctx *ctx)
{
    const pkm_dyn_engine *e = s->o->engine;
    if (s->n > PKM_CHAIN_RUN_MAX_MODULES)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "engine %s: more than %d modules", e->name,
                        PKM_CHAIN_RUN_MAX_MODULES);
    pkm_status st = pkm_trajectory_eval(s->tr, s->o->t0, s->q0, NULL, NULL, ctx);
    if (st == PKM_OK) st = pkm_chain_model(s->c, s->q0, &s->model, s->coord, ctx);
    if (st != PKM_OK) return st;
    pkm_ctx why;
    pkm_ctx_clear(&why);
    if (e->accepts(s->model, &why) != PKM_OK)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "engine %s: %s", e->name, why.msg);
    s->res = calloc((size_t)pkm_model_joint_count(s->model), sizeof(*s->res));
    if (s->res == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the joints' results");
    return e->create(s->model, s->o->gravity, &s->engine, ctx);
}

static double grid_time(const pkm_chain_run_opts *o, int64_t k)
{
    return k == o->n - 1 ? o->t1 : o->t0 + (o->t1 - o->t0) * (double)k / (o->n - 1);
}

/* The grid and the RK4 steps per output interval (all intervals are equal). The spans are the
 * caller's to check: an analytic law holds beyond its default span. */
static pkm_status check_opts(const chain_state *s, int *substeps, pkm_ctx *ctx)
{
    const pkm_chain_run_opts *o = s->o;
    if (!(o->n >= 2) || !(o->t1 > o->t0) || !isfinite(o->t0) || !isfinite(o->t1))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "time grid %g:%g:%d: expected t1 > t0 and n >= 2",
                        o->t0, o->t1, o->n);
    if (!o->forward) return PKM_OK;
    if (!(o->step > 0.0) || !isfinite(o->step))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "RK4 step %g: expected a step > 0", o->step);
    const double m = ceil((o->t1 - o->t0) / (o->n - 1) / o->step * (1.0 - 1e-12));
    if (!(m <= PKM_CHAIN_RUN_MAX_STEPS))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "RK4 step %g: more than %d steps between outputs",
                        o->step, PKM_CHAIN_RUN_MAX_STEPS);
    *substeps = m < 1.0 ? 1 : (int)m;
    return PKM_OK;
}

/* The drives at t into s->f: those of o->forces, or the trajectory's (its inverse dynamics);
 * the trajectory's coordinates into s->qr. */
static pkm_status chain_drives(chain_state *s, double t, pkm_ctx *ctx)
{
    pkm_status st = pkm_trajectory_eval(s->tr, t, s->qr, s->qd, s->qdd, ctx);
    if (st != PKM_OK) return st;
    if (s->o->forces != NULL) return pkm_trajectory_eval(s->o->forces, t, s->f, NULL, NULL, ctx);
    return chain_inv(s, t, s->qr, s->qd, s->qdd, s->f, NULL, ctx);
}

/* y = (q, qd, W): q' = qd, qd' = forward dynamics under the drives, W' = sum f qd (the power). */
static pkm_status chain_rhs(double t, const double *y, double *dy, void *user, pkm_ctx *ctx)
{
    chain_state *s = user;
    const int n = s->n;
    pkm_status st = chain_drives(s, t, ctx);
    if (st == PKM_OK) st = chain_fwd(s, t, y, y + n, s->f, dy + n, ctx);
    if (st != PKM_OK) return st;
    memcpy(dy, y + n, sizeof(double) * (size_t)n);
    dy[2 * n] = 0.0;
    for (int i = 0; i < n; i++)
        dy[2 * n] += s->f[i] * y[n + i];
    return PKM_OK;
}

/* Output time k of the forward run at state y: accelerations, drives, loads, energy balance. */
static pkm_status forward_row(chain_state *s, double t, int64_t k, double e[4], pkm_ctx *ctx)
{
    const int n = s->n;
    e[0] = e[1] = e[3] = 0.0, e[2] = s->y[2 * n]; /* T, V, W, balance */
    pkm_status st = chain_drives(s, t, ctx);
    memcpy(s->q, s->y, sizeof(double) * (size_t)n);
    memcpy(s->qd, s->y + n, sizeof(double) * (size_t)n);
    if (st == PKM_OK) st = chain_fwd(s, t, s->q, s->qd, s->f, s->qdd, ctx);
    if (st == PKM_OK) st = chain_inv(s, t, s->q, s->qd, s->qdd, s->f, s->loads, ctx);
    if (st == PKM_OK) st = pkm_chain_energy(s->c, s->q, s->qd, &e[0], &e[1], ctx);
    if (st != PKM_OK) return st;
    if (k == 0) s->E0 = e[0] + e[1];
    e[3] = e[0] + e[1] - e[2] - s->E0;
    return PKM_OK;
}

/* Every output time: the inverse dynamics there, or RK4 steps from the previous one. */
static pkm_status chain_loop(chain_state *s, int substeps, pkm_chain_sink sink, void *user,
                             pkm_ctx *ctx)
{
    const pkm_chain_run_opts *o = s->o;
    const int n = s->n;
    const pkm_ode ode = {.n = 2 * n + 1, .rhs = chain_rhs, .user = s};
    pkm_status st = PKM_OK;
    if (o->forward) st = pkm_trajectory_eval(s->tr, o->t0, s->y, s->y + n, NULL, ctx);
    s->y[2 * n] = 0.0;
    for (int64_t k = 0; k < o->n && st == PKM_OK; k++) {
        const double t = grid_time(o, k);
        double e[4];
        pkm_ctx in;
        pkm_ctx_clear(&in);
        if (!o->forward) {
            st = pkm_trajectory_eval(s->tr, t, s->q, s->qd, s->qdd, &in);
            if (st == PKM_OK) st = chain_inv(s, t, s->q, s->qd, s->qdd, s->f, s->loads, &in);
        } else {
            if (k > 0) {
                const double tp = grid_time(o, k - 1);
                st = pkm_ode_rk4_run(&ode, tp, (t - tp) / substeps, substeps, s->y, s->work, &in);
            }
            if (st == PKM_OK) st = forward_row(s, t, k, e, &in);
        }
        if (st != PKM_OK) return PKM_FAIL(ctx, st, "t = %.9g s: %s", t, in.msg);
        const pkm_chain_row row = {t,
                                   k,
                                   s->q,
                                   s->qd,
                                   s->qdd,
                                   s->f,
                                   o->forward ? s->qr : NULL,
                                   s->loads,
                                   o->forward ? e : NULL};
        if (sink != NULL && sink(user, &row) != 0) break;
    }
    return st;
}

pkm_status pkm_chain_run(pkm_chain *c, const pkm_trajectory *tr, const pkm_chain_run_opts *o,
                         pkm_chain_sink sink, void *user, pkm_ctx *ctx)
{
    chain_state s = {.c = c, .tr = tr, .o = o, .n = pkm_chain_dof(c)};
    int substeps = 1;
    pkm_status st = check_opts(&s, &substeps, ctx);
    if (st != PKM_OK) return st;
    const size_t n = (size_t)s.n;
    s.q = calloc(7 * n + 1 + PKM_ODE_RK4_WORK(2 * n + 1), sizeof(double));
    s.loads = calloc(n, sizeof(*s.loads));
    if (s.q == NULL || s.loads == NULL) {
        st = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the chain's state");
        goto fail;
    }
    s.qd = s.q + n, s.qdd = s.qd + n, s.f = s.qdd + n, s.qr = s.f + n;
    s.y = s.qr + n, s.work = s.y + 2 * n + 1;
    if (o->engine != NULL) st = engine_setup(&s, ctx);
    if (st == PKM_OK) st = chain_loop(&s, substeps, sink, user, ctx);
fail:
    if (o->engine != NULL) o->engine->destroy(&s.engine);
    pkm_model_destroy(&s.model);
    free(s.res);
    free(s.q);
    free(s.loads);
    return st;
}
