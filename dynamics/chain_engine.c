/* dynamics/chain_engine.c: the module chain (pkm/chain.h) as an engine of the table
 * (pkm/dynengine.h): the model recognised as a chain once, its O(n) passes at every call, and the
 * modules' loads returned as the model joints' reactions in pkm_mbs's convention.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/chain_impl.h"
#include "dynamics/dynamics_impl.h"
#include "dynamics/engine_impl.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct chain_engine {
    const pkm_model *m;
    pkm_chain *c;
    int n;
    int *joint;       /* 4 per module (pkm_chain_recognise) */
    int *rank;        /* per module: its actuated joint's place in joint order */
    double (*ref)[2]; /* per loop: q1 and q11 at zero stroke (the model's configuration) */
    double (*off)[3]; /* per loop: the cylinder joint's point in the rod's frame */
    int (*sgn)[4];    /* per loop: its joints' axes along (+1) or against (-1) the q1 axis */
    double *q, *qd, *qdd, *tau;
    pkm_chain_loads *loads;
    pkm_chain_pose *P; /* world poses, PKM_CHAIN_NBODY per module */
} chain_engine;

pkm_status pkm_dyn_chain_accepts(const pkm_model *m, pkm_ctx *ctx)
{
    return pkm_chain_recognise(m, NULL, NULL, NULL, ctx);
}

void pkm_dyn_chain_destroy(void **engine)
{
    chain_engine *e = *engine;
    if (e == NULL) return;
    pkm_chain_destroy(&e->c);
    free(e->joint);
    free(e->ref);
    free(e->q);
    free(e->loads);
    free(e->P);
    free(e);
    *engine = NULL;
}

/* The loops' reference angles, cylinder points and axis signs, from the chain at zero. */
static pkm_status chain_reference(chain_engine *e, pkm_ctx *ctx)
{
    memset(e->q, 0, sizeof(double) * (size_t)e->n);
    pkm_status st = pkm_chain_poses(e->c, e->q, e->P, ctx);
    for (int i = 0; i < e->n && st == PKM_OK; i++) {
        const pkm_chain_module *md = pkm_chain_module_get(e->c, i);
        if (md->type != PKM_CHAIN_LOOP) continue;
        pkm_chain_loop_state ls;
        st = pkm_chain_loop_closure(md, 0.0, 0.0, PKM_CHAIN_SINGULAR, &ls, ctx);
        e->ref[i][0] = ls.q[0], e->ref[i][1] = ls.q[1];
        const pkm_chain_pose *rod = &e->P[PKM_CHAIN_NBODY * i + PKM_CHAIN_ROD];
        double d[3];
        pkm_vec3_sub(pkm_model_joint(e->m, e->joint[4 * i + 2])->point, rod->r, d);
        pkm_mat3_apply_t(PKM_CONST33(rod->R), d, e->off[i]);
        const double *z = pkm_model_joint(e->m, e->joint[4 * i])->axis;
        for (int k = 0; k < 4; k++)
            e->sgn[i][k] =
                pkm_vec3_dot(pkm_model_joint(e->m, e->joint[4 * i + k])->axis, z) > 0.0 ? 1 : -1;
    }
    return st;
}

pkm_status pkm_dyn_chain_create(const pkm_model *m, const double gravity[3], void **engine,
                                pkm_ctx *ctx)
{
    *engine = NULL;
    const int n = pkm_dyn_engine_actuated(m);
    pkm_chain_module *mods = calloc((size_t)n + 1, sizeof(*mods));
    chain_engine *e = calloc(1, sizeof(*e));
    pkm_status st = PKM_ERR_NOMEM;
    if (mods == NULL || e == NULL) goto fail;
    e->m = m, e->n = n;
    e->joint = malloc(sizeof(int) * (5 * (size_t)n + 1));
    e->ref = malloc((sizeof(*e->ref) + sizeof(*e->off) + sizeof(*e->sgn)) * ((size_t)n + 1));
    e->q = calloc(4 * (size_t)n + 1, sizeof(double));
    e->loads = calloc((size_t)n + 1, sizeof(*e->loads));
    e->P = calloc((size_t)n * PKM_CHAIN_NBODY + 1, sizeof(*e->P));
    if (e->joint == NULL || e->ref == NULL || e->q == NULL || e->loads == NULL || e->P == NULL)
        goto fail;
    e->rank = e->joint + 4 * n;
    e->off = (double(*)[3])(e->ref + n + 1);
    e->sgn = (int(*)[4])(e->off + n + 1);
    e->qd = e->q + n, e->qdd = e->qd + n, e->tau = e->qdd + n;
    pkm_chain_pose root;
    st = pkm_chain_recognise(m, mods, &root, e->joint, ctx);
    if (st == PKM_OK) st = pkm_chain_create(n, mods, &root, gravity, &e->c, ctx);
    for (int i = 0; i < n && st == PKM_OK; i++) {
        const int act = e->joint[4 * i + (mods[i].type == PKM_CHAIN_LOOP ? 2 : 0)];
        e->rank[i] = 0;
        for (int j = 0; j < act; j++)
            e->rank[i] += pkm_model_joint(m, j)->actuated != 0;
    }
    if (st == PKM_OK) st = chain_reference(e, ctx);
    if (st != PKM_OK) goto fail;
    free(mods);
    *engine = e;
    return PKM_OK;
fail:
    free(mods);
    void *v = e;
    pkm_dyn_chain_destroy(&v);
    return st == PKM_ERR_NOMEM ? PKM_FAIL(ctx, PKM_ERR_NOMEM, "out of memory for the chain engine")
                               : st;
}

/* The chain's state from the actuated coordinates (a, ad, add may be NULL: zero). */
static void chain_state(chain_engine *e, const double *a, const double *ad, const double *add)
{
    for (int i = 0; i < e->n; i++) {
        e->q[i] = a[e->rank[i]];
        e->qd[i] = ad != NULL ? ad[e->rank[i]] : 0.0;
        e->qdd[i] = add != NULL ? add[e->rank[i]] : 0.0;
    }
}

/* Joint j's result: the wrench w (frame f's axes, about its origin) on the joint's child, at the
 * joint's current point, along its current axis (column `col` of frame `ax` times sign). */
static void put(const chain_engine *e, int j, const pkm_chain_pose *f, const double w[6],
                const double point[3], const pkm_chain_pose *ax, int col, int sign,
                pkm_joint_result *r)
{
    double wo[6], rxf[3];
    pkm_mat3_apply(PKM_CONST33(f->R), w, wo);
    pkm_mat3_apply(PKM_CONST33(f->R), w + 3, wo + 3);
    pkm_vec3_cross(f->r, wo, rxf);
    pkm_vec3_axpy(1.0, rxf, wo + 3); /* about the world origin */
    memcpy(r->point, point, sizeof(r->point));
    pkm_wrench_transfer(wo, point, r->wrench);
    for (int k = 0; k < 3; k++)
        r->axis[k] = sign * ax->R[k][col];
    mbs_joint_components(pkm_model_joint(e->m, j)->type, r);
}

/* One coordinate of a 1-dof joint's result, the drive on the actuated ones. */
static void coord(pkm_joint_result *r, double q, double qd, double qdd, double tau, int actuated)
{
    r->ncoord = 1;
    r->q[0] = q, r->qd[0] = qd, r->qdd[0] = qdd;
    r->ideal = actuated ? tau : 0.0;
    r->drive = actuated ? tau : 0.0;
}

/* A loop's four joints (q1 pin, q11 pin, cylinder, rod pin) from module i's loads. */
static pkm_status loop_results(const chain_engine *e, int i, pkm_joint_result *res, pkm_ctx *ctx)
{
    const pkm_chain_pose *P = &e->P[PKM_CHAIN_NBODY * i];
    const pkm_chain_loads *L = &e->loads[i];
    const int *jl = &e->joint[4 * i], *s = e->sgn[i];
    pkm_chain_loop_state ls;
    const pkm_status st = pkm_chain_loop_closure(pkm_chain_module_get(e->c, i), e->q[i], e->qd[i],
                                                 PKM_CHAIN_SINGULAR, &ls, ctx);
    if (st != PKM_OK) return st;
    const pkm_chain_pose *B1 = &P[PKM_CHAIN_MOVING], *B3 = &P[PKM_CHAIN_BARREL];
    const pkm_chain_pose *rod = &P[PKM_CHAIN_ROD], *base = &P[PKM_CHAIN_BASE];
    for (int k = 0; k < 2; k++)
        coord(&res[jl[k]], s[k] * (ls.q[k] - e->ref[i][k]), s[k] * ls.a[k] * e->qd[i],
              s[k] * (ls.a[k] * e->qdd[i] + ls.b[k]), 0.0, 0);
    coord(&res[jl[2]], e->q[i], e->qd[i], e->qdd[i], e->tau[i], 1);
    put(e, jl[0], B1, L->pin_upper, B1->r, base, 2, s[0], &res[jl[0]]);
    put(e, jl[1], B3, L->pin_barrel, B3->r, base, 2, s[1], &res[jl[1]]);
    double pc[3];
    pkm_mat3_apply(PKM_CONST33(rod->R), e->off[i], pc);
    pkm_vec3_axpy(1.0, rod->r, pc);
    put(e, jl[2], rod, L->slide, pc, rod, 0, 1, &res[jl[2]]);
    /* the rod pin Tc: B1's axes at (Lb, 0, 0); pin_rod acts on the upper link, body_b's wrench
     * in pkm_mbs's convention for a cut */
    pkm_chain_pose Tc = *B1;
    pkm_vec3_axpy(pkm_chain_module_get(e->c, i)->Lb,
                  (const double[3]){B1->R[0][0], B1->R[1][0], B1->R[2][0]}, Tc.r);
    const pkm_joint *cut = pkm_model_joint(e->m, jl[3]), *q1 = pkm_model_joint(e->m, jl[0]);
    const int on_upper = cut->body[1] == q1->body[0] || cut->body[1] == q1->body[1];
    double w[6];
    for (int k = 0; k < 6; k++)
        w[k] = on_upper ? L->pin_rod[k] : -L->pin_rod[k];
    put(e, jl[3], &Tc, w, Tc.r, base, 2, s[3], &res[jl[3]]);
    return PKM_OK;
}

pkm_status pkm_dyn_chain_inverse(void *engine, double t, const double *qa, const double *qda,
                                 const double *qdda, pkm_joint_result *res, pkm_ctx *ctx)
{
    (void)t;
    chain_engine *e = engine;
    chain_state(e, qa, qda, qdda);
    pkm_status st = pkm_chain_poses(e->c, e->q, e->P, ctx);
    if (st == PKM_OK) st = pkm_chain_inverse(e->c, e->q, e->qd, e->qdd, e->tau, e->loads, ctx);
    if (st != PKM_OK) return st;
    memset(res, 0, sizeof(*res) * (size_t)pkm_model_joint_count(e->m));
    for (int i = 0; i < e->n && st == PKM_OK; i++) {
        const pkm_chain_pose *P = &e->P[PKM_CHAIN_NBODY * i];
        const int j = e->joint[4 * i], type = pkm_chain_module_get(e->c, i)->type;
        if (type == PKM_CHAIN_LOOP) {
            st = loop_results(e, i, res, ctx);
            continue;
        }
        /* a serial joint: the wrench the module takes from its base is the one on its link */
        coord(&res[j], e->q[i], e->qd[i], e->qdd[i], e->tau[i], 1);
        put(e, j, &P[PKM_CHAIN_BASE], e->loads[i].base, P[PKM_CHAIN_MOVING].r, &P[PKM_CHAIN_MOVING],
            type == PKM_CHAIN_REVOLUTE ? 2 : 0, 1, &res[j]);
    }
    return st;
}

pkm_status pkm_dyn_chain_forward(void *engine, double t, const double *qa, const double *qda,
                                 const double *tau, double *qdda, pkm_ctx *ctx)
{
    (void)t;
    chain_engine *e = engine;
    chain_state(e, qa, qda, NULL);
    for (int i = 0; i < e->n; i++)
        e->tau[i] = tau[e->rank[i]];
    const pkm_status st = pkm_chain_forward(e->c, e->q, e->qd, e->tau, e->qdd, ctx);
    for (int i = 0; i < e->n && st == PKM_OK; i++)
        qdda[e->rank[i]] = e->qdd[i];
    return st;
}

/* A wrench about point p in the world as one about the origin of frame f in f's axes. */
static void wrench_into(const pkm_chain_pose *f, const double w[6], const double p[3],
                        double out[6])
{
    double wo[6], rel[3];
    pkm_vec3_sub(f->r, p, rel);
    pkm_wrench_transfer(w, rel, wo); /* about f's origin */
    pkm_mat3_apply_t(PKM_CONST33(f->R), wo, out);
    pkm_mat3_apply_t(PKM_CONST33(f->R), wo + 3, out + 3);
}

pkm_status pkm_chain_loads_of(pkm_chain *c, const double *q, const pkm_joint_result *res,
                              const int *coord, double *tau, pkm_chain_loads *loads, pkm_ctx *ctx)
{
    pkm_chain_pose *P = malloc(sizeof(*P) * (size_t)c->n * PKM_CHAIN_NBODY);
    if (P == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "out of memory for the poses");
    const pkm_status st = pkm_chain_poses(c, q, P, ctx);
    for (int i = 0; i < c->n && st == PKM_OK; i++) {
        const int loop = c->m[i].d.type == PKM_CHAIN_LOOP;
        const pkm_chain_pose *base = &P[PKM_CHAIN_NBODY * i + PKM_CHAIN_BASE];
        pkm_chain_loads *L = &loads[i];
        memset(L, 0, sizeof(*L));
        for (int k = 0; k < (loop ? 2 : 1); k++) {
            double w[6];
            wrench_into(base, res[coord[3 * i + k]].wrench, res[coord[3 * i + k]].point, w);
            for (int a = 0; a < 6; a++)
                L->base[a] += w[a];
        }
        /* the base body of the first module rests on the ground: its weight (chain_dyn.c's
         * I A + p with the root's upward gravity, the body at rest) */
        if (i == 0) {
            double A0[6], F[6];
            chain_root_acc(c, 1, A0);
            chain_mul66(CHAIN_C66(c->m[0].I[PKM_CHAIN_BASE]), A0, F);
            for (int a = 0; a < 6; a++)
                L->base[a] += F[a];
        }
        tau[i] = L->tau_closed = res[coord[3 * i + (loop ? 2 : 0)]].drive;
    }
    free(P);
    return st;
}
