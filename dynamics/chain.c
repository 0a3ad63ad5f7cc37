/* dynamics/chain.c: the chain of 1-dof modules: creation and checks, the kinematic pass from the
 * root, world poses and energy.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/chain_impl.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int rotation_ok(const double R[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double d = pkm_vec3_dot((const double[3]){R[0][i], R[1][i], R[2][i]},
                                          (const double[3]){R[0][j], R[1][j], R[2][j]});
            if (!(fabs(d - (i == j ? 1.0 : 0.0)) <= 1e-9)) return 0;
        }
    const double det = R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) -
                       R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
                       R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
    return det > 0.0;
}

static int pose_ok(const pkm_chain_pose *p)
{
    return rotation_ok(p->R) && isfinite(p->r[0]) && isfinite(p->r[1]) && isfinite(p->r[2]);
}

static pkm_status check_body(const pkm_chain_module *m, int k, pkm_ctx *ctx)
{
    const pkm_chain_body *b = &m->body[k];
    int ok = isfinite(b->mass) && b->mass >= 0.0;
    for (int i = 0; i < 3 && ok; i++) {
        ok = isfinite(b->com[i]);
        for (int j = 0; j < 3 && ok; j++)
            ok = isfinite(b->inertia[i][j]) &&
                 fabs(b->inertia[i][j] - b->inertia[j][i]) <=
                     1e-12 * (fabs(b->inertia[i][j]) + fabs(b->inertia[j][i]));
    }
    if (!ok)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "module %s, body %d: mass must be >= 0, inertia finite and symmetric",
                        m->name, k);
    return PKM_OK;
}

static pkm_status check_module(const pkm_chain_module *m, int i, pkm_ctx *ctx)
{
    if (m->type != PKM_CHAIN_REVOLUTE && m->type != PKM_CHAIN_PRISMATIC &&
        m->type != PKM_CHAIN_LOOP)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "module %d: unknown type %d", i, (int)m->type);
    if (memchr(m->name, 0, sizeof(m->name)) == NULL || m->name[0] == 0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "module %d: empty or unterminated name", i);
    if (!(m->qmin < m->qmax))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "module %s: range needs qmin < qmax", m->name);
    if (!pose_ok(&m->joint) || !pose_ok(&m->end))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "module %s: joint or end pose is not a rotation with a finite origin",
                        m->name);
    if (m->type == PKM_CHAIN_LOOP) {
        const int signs = abs(m->sign[0]) == 1 && abs(m->sign[1]) == 1 && abs(m->sign[2]) == 1;
        if (!(m->La > 0.0 && m->Lb > 0.0 && m->x0 > 0.0 && isfinite(m->La + m->Lb + m->x0) &&
              isfinite(m->lc) && signs))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "module %s: loop needs La, Lb, x0 > 0, a finite lc and branch "
                            "signs +-1",
                            m->name);
    }
    const int nbody = m->type == PKM_CHAIN_LOOP ? PKM_CHAIN_NBODY : PKM_CHAIN_END + 1;
    for (int k = 0; k < PKM_CHAIN_NBODY; k++) {
        if (k >= nbody && m->body[k].mass != 0.0)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "module %s: a serial joint has no body %d",
                            m->name, k);
        const pkm_status st = check_body(m, k, ctx);
        if (st != PKM_OK) return st;
    }
    return PKM_OK;
}

pkm_status pkm_chain_create(int n, const pkm_chain_module *mods, const pkm_chain_pose *root,
                            const double gravity[3], pkm_chain **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (n < 1 || mods == NULL || root == NULL || gravity == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "a chain needs at least one module and a root");
    if (!pose_ok(root) || !(isfinite(gravity[0]) && isfinite(gravity[1]) && isfinite(gravity[2])))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "root pose or gravity not valid");
    for (int i = 0; i < n; i++) {
        const pkm_status st = check_module(&mods[i], i, ctx);
        if (st != PKM_OK) return st;
    }
    pkm_chain *c = calloc(1, sizeof(*c));
    if (c == NULL) goto fail;
    c->m = calloc((size_t)n, sizeof(*c->m));
    if (c->m == NULL) goto fail;
    c->n = n;
    c->root = *root;
    memcpy(c->g, gravity, sizeof(c->g));
    c->eps = PKM_CHAIN_SINGULAR;
    for (int i = 0; i < n; i++) {
        chain_mod *m = &c->m[i];
        m->d = mods[i];
        m->nbody = m->d.type == PKM_CHAIN_LOOP ? PKM_CHAIN_NBODY : PKM_CHAIN_END + 1;
        for (int k = 0; k < PKM_CHAIN_NBODY; k++) {
            const pkm_chain_body *b = &m->d.body[k];
            pkm_spatial_inertia(b->mass, b->com, b->inertia, m->I[k]);
        }
    }
    *out = c;
    return PKM_OK;
fail:
    pkm_chain_destroy(&c);
    return PKM_FAIL(ctx, PKM_ERR_NOMEM, "out of memory for a chain of %d modules", n);
}

void pkm_chain_destroy(pkm_chain **c)
{
    if (c == NULL || *c == NULL) return;
    free((*c)->m);
    free(*c);
    *c = NULL;
}

int pkm_chain_dof(const pkm_chain *c)
{
    return c->n;
}

const pkm_chain_module *pkm_chain_module_get(const pkm_chain *c, int i)
{
    return i >= 0 && i < c->n ? &c->m[i].d : NULL;
}

double pkm_chain_mass(const pkm_chain *c)
{
    double s = 0.0;
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < PKM_CHAIN_NBODY; k++)
            s += c->m[i].d.body[k].mass;
    return s;
}

pkm_status pkm_chain_set_singular(pkm_chain *c, double eps, pkm_ctx *ctx)
{
    if (!(eps > 0.0 && eps < 1.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "singularity margin %g not in (0, 1)", eps);
    c->eps = eps;
    return PKM_OK;
}

void chain_root_acc(const pkm_chain *c, int gravity, double A0[6])
{
    double g[3] = {0.0, 0.0, 0.0};
    if (gravity) pkm_mat3_apply_t(PKM_CONST33(c->root.R), c->g, g);
    for (int k = 0; k < 3; k++)
        A0[k] = -g[k], A0[k + 3] = 0.0;
}

pkm_status chain_kinematics(pkm_chain *c, const double *q, const double *qd, pkm_ctx *ctx)
{
    double V0[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < c->n; i++) {
        chain_mod *m = &c->m[i];
        if (!(q[i] >= m->d.qmin && q[i] <= m->d.qmax))
            return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE, "module %s: coordinate %.9g outside [%g, %g]",
                            m->d.name, q[i], m->d.qmin, m->d.qmax);
        const pkm_status st =
            chain_mod_kinematics(m, q[i], qd != NULL ? qd[i] : 0.0, V0, c->eps, ctx);
        if (st != PKM_OK) return st;
        memcpy(V0, m->V[PKM_CHAIN_END], sizeof(V0));
    }
    return PKM_OK;
}

/* World pose of every body: the base of module i + 1 is the end body's frame of module i. */
static void world_poses(const pkm_chain *c, pkm_chain_pose *poses)
{
    pkm_chain_pose base = c->root;
    for (int i = 0; i < c->n; i++) {
        const chain_mod *m = &c->m[i];
        for (int k = 0; k < PKM_CHAIN_NBODY; k++) {
            pkm_chain_pose *p = &poses[PKM_CHAIN_NBODY * i + k];
            if (k >= m->nbody) {
                *p = base;
                continue;
            }
            pkm_mat3_apply(PKM_CONST33(base.R), m->r[k], p->r);
            pkm_vec3_axpy(1.0, base.r, p->r);
            pkm_mat3_mul(PKM_CONST33(base.R), PKM_CONST33(m->R[k]), p->R);
        }
        base = poses[PKM_CHAIN_NBODY * i + PKM_CHAIN_END];
    }
}

pkm_status pkm_chain_poses(pkm_chain *c, const double *q, pkm_chain_pose *poses, pkm_ctx *ctx)
{
    const pkm_status st = chain_kinematics(c, q, NULL, ctx);
    if (st != PKM_OK) return st;
    world_poses(c, poses);
    return PKM_OK;
}

pkm_status pkm_chain_energy(pkm_chain *c, const double *q, const double *qd, double *T, double *V,
                            pkm_ctx *ctx)
{
    pkm_chain_pose *poses = malloc(sizeof(*poses) * (size_t)c->n * PKM_CHAIN_NBODY);
    if (poses == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "out of memory for the poses");
    const pkm_status st = chain_kinematics(c, q, qd, ctx);
    if (st != PKM_OK) {
        free(poses);
        return st;
    }
    world_poses(c, poses);
    double kin = 0.0, pot = 0.0;
    for (int i = 0; i < c->n; i++) {
        const chain_mod *m = &c->m[i];
        for (int k = 0; k < m->nbody; k++) {
            double h[6], x[3];
            chain_mul66(CHAIN_C66(m->I[k]), m->V[k], h);
            kin += 0.5 * chain_dot6(m->V[k], h);
            const pkm_chain_pose *p = &poses[PKM_CHAIN_NBODY * i + k];
            pkm_mat3_apply(PKM_CONST33(p->R), m->d.body[k].com, x);
            pkm_vec3_axpy(1.0, p->r, x);
            pot -= m->d.body[k].mass * pkm_vec3_dot(c->g, x);
        }
    }
    free(poses);
    *T = kin;
    *V = pot;
    return PKM_OK;
}
