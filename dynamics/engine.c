/* dynamics/engine.c: the engine table (pkm/dynengine.h) and its general entries, pkm_mbs on its
 * sparse and on its dense path, with pkm_fwd for the forward dynamics.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/engine_impl.h"

#include "core/core_impl.h"
#include "pkm/forward.h"

#include <stdlib.h>
#include <string.h>

typedef struct mbs_engine {
    pkm_mbs *s;
    pkm_fwd *f;
    int na, nq;
    int *act;          /* per actuated joint (joint order): its coordinate, the driven ones */
    double *zero, *q;  /* na zeros; q, qd, qdd of every coordinate */
    const double *tau; /* the drives of the forward call under way */
} mbs_engine;

int pkm_dyn_engine_actuated(const pkm_model *m)
{
    int n = 0;
    for (int j = 0; j < pkm_model_joint_count(m); j++)
        n += pkm_model_joint(m, j)->actuated != 0;
    return n;
}

static pkm_status mbs_accepts(const pkm_model *m, pkm_ctx *ctx)
{
    (void)m;
    (void)ctx;
    return PKM_OK;
}

static pkm_status mbs_drive(double t, const double *q, const double *qd, double *tau, void *user,
                            pkm_ctx *ctx)
{
    (void)t, (void)q, (void)qd, (void)ctx;
    const mbs_engine *e = user;
    memcpy(tau, e->tau, sizeof(double) * (size_t)e->na);
    return PKM_OK;
}

static void mbs_destroy(void **engine)
{
    mbs_engine *e = *engine;
    if (e == NULL) return;
    pkm_fwd_destroy(&e->f);
    pkm_mbs_destroy(&e->s);
    free(e->act);
    free(e->zero);
    free(e);
    *engine = NULL;
}

static pkm_status mbs_create_on(const pkm_model *m, const double gravity[3], pkm_dyn_solver sv,
                                void **engine, pkm_ctx *ctx)
{
    *engine = NULL;
    mbs_engine *e = calloc(1, sizeof(*e));
    pkm_status st = PKM_ERR_NOMEM;
    if (e == NULL) goto fail;
    st = pkm_mbs_create(m, gravity, &e->s, ctx);
    if (st == PKM_OK) st = pkm_mbs_set_solver(e->s, sv, ctx);
    if (st == PKM_OK) st = pkm_fwd_create(e->s, mbs_drive, e, NULL, PKM_FWD_EPS, &e->f, ctx);
    if (st != PKM_OK) goto fail;
    e->na = pkm_dyn_engine_actuated(m), e->nq = pkm_mbs_coord_count(e->s);
    e->act = malloc(sizeof(int) * ((size_t)e->na + 1));
    e->zero = calloc((size_t)e->na + 3 * (size_t)e->nq + 1, sizeof(double));
    st = PKM_ERR_NOMEM;
    if (e->act == NULL || e->zero == NULL) goto fail;
    e->q = e->zero + e->na;
    for (int j = 0, a = 0; j < pkm_model_joint_count(m); j++)
        if (pkm_model_joint(m, j)->actuated) pkm_mbs_joint_coords(e->s, j, &e->act[a++]);
    st = pkm_mbs_set_driven(e->s, e->na, e->act, ctx);
    if (st != PKM_OK) goto fail;
    *engine = e;
    return PKM_OK;
fail:;
    void *v = e;
    mbs_destroy(&v);
    return st == PKM_ERR_NOMEM ? PKM_FAIL(ctx, PKM_ERR_NOMEM, "out of memory for the engine") : st;
}

static pkm_status mbs_create(const pkm_model *m, const double gravity[3], void **engine,
                             pkm_ctx *ctx)
{
    return mbs_create_on(m, gravity, PKM_DYN_SPARSE, engine, ctx);
}

static pkm_status dense_create(const pkm_model *m, const double gravity[3], void **engine,
                               pkm_ctx *ctx)
{
    return mbs_create_on(m, gravity, PKM_DYN_DENSE, engine, ctx);
}

static pkm_status mbs_inverse(void *engine, double t, const double *qa, const double *qda,
                              const double *qdda, pkm_joint_result *res, pkm_ctx *ctx)
{
    mbs_engine *e = engine;
    const pkm_status st = pkm_mbs_kinematics(e->s, t, qa, qda, qdda, ctx);
    return st == PKM_OK ? pkm_mbs_inverse(e->s, NULL, res, ctx) : st;
}

/* The closure solved for the passive coordinates and rates, then the constrained equations of
 * motion of every coordinate (pkm_fwd_accel: the null-space method). */
static pkm_status mbs_forward(void *engine, double t, const double *qa, const double *qda,
                              const double *tau, double *qdda, pkm_ctx *ctx)
{
    mbs_engine *e = engine;
    const size_t nq = (size_t)e->nq;
    double *q = e->q, *qd = q + nq, *qdd = qd + nq;
    pkm_status st = pkm_mbs_kinematics(e->s, t, qa, qda, e->zero, ctx);
    if (st != PKM_OK) return st;
    memcpy(q, pkm_mbs_q(e->s), sizeof(double) * nq);
    memcpy(qd, pkm_mbs_qd(e->s), sizeof(double) * nq);
    e->tau = tau;
    st = pkm_fwd_accel(e->f, t, q, qd, qdd, NULL, NULL, ctx);
    for (int a = 0; a < e->na && st == PKM_OK; a++)
        qdda[a] = qdd[e->act[a]];
    return st;
}

/* Ordered by bench/engine_bench.c: the chain's O(n) passes well ahead of the general system. */
const pkm_dyn_engine pkm_dyn_engines[PKM_DYN_ENGINE_COUNT] = {
    [PKM_DYN_ENGINE_CHAIN] = {PKM_DYN_ENGINE_CHAIN, "chain",
                              "O(n) chain of revolute, prismatic and cylinder-loop modules (Paz "
                              "Anaya and Mattila 2024), recognised from the model",
                              0u, pkm_dyn_chain_accepts, pkm_dyn_chain_create,
                              pkm_dyn_chain_destroy, pkm_dyn_chain_inverse, pkm_dyn_chain_forward},
    [PKM_DYN_ENGINE_MBS] = {PKM_DYN_ENGINE_MBS, "mbs",
                            "general multibody system, closed loops by cut joints, sparse "
                            "(CHOLMOD) closure and reactions",
                            PKM_DYN_EXTRA_WEIGHTS | PKM_DYN_EXTRA_PRELOAD | PKM_DYN_EXTRA_FRICTION |
                                PKM_DYN_EXTRA_CLOSURE,
                            mbs_accepts, mbs_create, mbs_destroy, mbs_inverse, mbs_forward},
    [PKM_DYN_ENGINE_DENSE] = {PKM_DYN_ENGINE_DENSE, "mbs-dense",
                              "the general multibody system on its dense LAPACK path (the "
                              "reference)",
                              PKM_DYN_EXTRA_WEIGHTS | PKM_DYN_EXTRA_PRELOAD |
                                  PKM_DYN_EXTRA_FRICTION | PKM_DYN_EXTRA_CLOSURE,
                              mbs_accepts, dense_create, mbs_destroy, mbs_inverse, mbs_forward},
};

const pkm_dyn_engine *pkm_dyn_engine_find(const char *name)
{
    for (int k = 0; k < PKM_DYN_ENGINE_COUNT; k++)
        if (name != NULL && strcmp(name, pkm_dyn_engines[k].name) == 0) return &pkm_dyn_engines[k];
    return NULL;
}

const pkm_dyn_engine *pkm_dyn_engine_choose(const pkm_model *m)
{
    for (int k = 0; k < PKM_DYN_ENGINE_COUNT; k++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        if (pkm_dyn_engines[k].accepts(m, &ctx) == PKM_OK) return &pkm_dyn_engines[k];
    }
    return &pkm_dyn_engines[PKM_DYN_ENGINE_MBS];
}
