/* studies/transient.c: the KED driver: a case's finite-element model along a trajectory, loaded by
 * the rigid motion of its rigid-body model, integrated by Newmark's method.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/transient.h"
#include "studies/transient_impl.h"
#include "pkm/dofmap.h"
#include "pkm/dynamics.h"
#include "pkm/motion.h"
#include "pkm/fem.h"
#include "pkm/linsolve.h"
#include "pkm/spatial.h"
#include "core/core_impl.h"
#include "studies/studies_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tr_run {
    const pkm_case *c;
    const void *params;
    const pkm_trajectory *tr;
    pkm_transient_opts o;
    double g[3];            /* gravity, m/s^2 (zero without --gravity) */
    pkm_motion *motion;     /* the rigid motion (pkm/motion.h): */
    const pkm_model *rigid; /* its rigid-body model, */
    pkm_mbs *mbs;           /* and its multibody system, driven by the trajectory */
    pkm_model *fe;          /* the finite-element model at the last update */
    pkm_asm_cache *cache;
    const pkm_pencil *p;   /* the cache's pencil of the last update */
    const pkm_dofmap *map; /* and its dof map */
    pkm_newmark *nm;
    pkm_linsolve *ks; /* K alone, for the quasi-static solution */
    int nnodes, plat_node;
    int64_t n;             /* order of the pencil */
    double *fn;            /* 6 nnodes nodal wrenches */
    double *f, *x;         /* reduced load, quasi-static solution */
    pkm_joint_result *res; /* per joint of the rigid model: its inverse dynamics */
    double *drive;         /* the actuated joints' drives, in joint order */
    double *reaction;      /* the locked drives' reactions, in the same order */
    int ndrive;
    int *act;      /* per actuated joint: its index in the rigid model */
    int *lock;     /* and the clamped joint of the same name in the finite-element model, or -1 */
    double *ratio; /* per actuated joint: drive = ratio x the lock's reaction (drive_lock) */
    int *spring;   /* elastic drives: per actuated joint its finite-element joint */
    double *kd, *defl; /* and that joint's stiffness and deflection */
    double t;          /* the time of the rigid state */
    int nbody;
    double (*VA)[12]; /* per body: its rigid twist and spatial acceleration at the current time */
    /* The rigid closure solved at the current time (else the drives are NAN), why not, and
     * whether the run may go on without it (find_locks). */
    int closure_ok, through;
    pkm_ctx closure_err;
    pkm_tr_freq freq;    /* opts.nfreq frequencies at the last update */
    double conditioning; /* the locked closure's, at the last update */
} tr_run;

pkm_transient_opts pkm_transient_opts_default(const pkm_case *c, double dt, double duration)
{
    return (pkm_transient_opts){.nm = pkm_newmark_opts_default(dt),
                                .duration = duration,
                                .update_every = 1,
                                .form = c->formulation,
                                .start = NAN};
}

int64_t pkm_transient_steps(const pkm_transient_opts *o)
{
    return (int64_t)llround(o->duration / o->nm.dt);
}

/* A failure at time t: the inner cause with the time in front. */
static pkm_status fail_at(pkm_ctx *ctx, pkm_status st, double t, const pkm_ctx *inner)
{
    return PKM_FAIL(ctx, st, "t = %.6g s: %s", t, inner->msg);
}

/* The case's rigid motion (pkm/motion.h) under the run's gravity, its model's actuated joints
 * and room for their results. */
static pkm_status setup_rigid(tr_run *r, pkm_ctx *ctx)
{
    pkm_motion_opts mo = {.singular = r->o.singular, .warm_start = 1};
    memcpy(mo.gravity, r->g, sizeof(mo.gravity));
    pkm_status st = pkm_motion_create(r->c, r->params, &mo, &r->motion, ctx);
    if (st != PKM_OK) return st;
    r->rigid = pkm_motion_model(r->motion);
    r->mbs = pkm_motion_mbs(r->motion);
    const int nj = pkm_model_joint_count(r->rigid);
    r->res = calloc((size_t)nj, sizeof(*r->res));
    r->drive = calloc((size_t)nj, sizeof(double));
    r->reaction = calloc((size_t)nj, sizeof(double));
    r->act = calloc((size_t)nj, sizeof(int));
    r->lock = calloc((size_t)nj, sizeof(int));
    r->ratio = calloc((size_t)nj, sizeof(double));
    r->spring = calloc((size_t)nj, sizeof(int));
    r->kd = calloc((size_t)nj, sizeof(double));
    r->defl = calloc((size_t)nj, sizeof(double));
    r->nbody = pkm_model_body_count(r->rigid);
    r->VA = calloc((size_t)r->nbody, sizeof(*r->VA));
    if (r->res == NULL || r->drive == NULL || r->reaction == NULL || r->act == NULL ||
        r->lock == NULL || r->ratio == NULL || r->VA == NULL || r->spring == NULL ||
        r->kd == NULL || r->defl == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate %d joint results", nj);
    for (int j = 0; j < nj; j++)
        if (pkm_model_joint(r->rigid, j)->actuated) r->act[r->ndrive++] = j;
    return PKM_OK;
}

/* Every body's rigid twist and acceleration at t: from the case's inverse kinematics where it
 * gives them (the motion of the bodies as the case's builder places them at pose(t), with no
 * loop closure to solve), else from the closure. */
static pkm_status rigid_motion(tr_run *r, double t, const double *pose, const double *pd,
                               const double *pdd, pkm_ctx *ctx)
{
    if (r->c->body_motion == NULL) {
        for (int b = 0; b < r->nbody; b++)
            pkm_mbs_body_motion(r->mbs, b, r->VA[b], r->VA[b] + 6);
        return PKM_OK;
    }
    double(*V)[6] = malloc((size_t)r->nbody * sizeof(*V));
    double(*A)[6] = malloc((size_t)r->nbody * sizeof(*A));
    pkm_ctx in;
    pkm_ctx_clear(&in);
    pkm_status st = V == NULL || A == NULL
                        ? PKM_FAIL(&in, PKM_ERR_NOMEM, "cannot allocate the bodies' motion")
                        : r->c->body_motion(r->params, pose, pd, pdd, r->nbody, V, A, &in);
    for (int b = 0; b < r->nbody && st == PKM_OK; b++)
        for (int k = 0; k < 6; k++) {
            r->VA[b][k] = V[b][k];
            r->VA[b][6 + k] = A[b][k];
        }
    free(V);
    free(A);
    return st == PKM_OK ? PKM_OK : fail_at(ctx, st, t, &in);
}

/* The rigid motion at t: the pose of the trajectory, the closure followed to it; pose receives
 * the pose coordinates. */
static pkm_status drive_at(tr_run *r, double t, double *pose, pkm_ctx *ctx)
{
    double pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
    pkm_ctx in;
    pkm_ctx_clear(&in);
    pkm_ctx_clear(&r->closure_err);
    r->t = t;
    pkm_status st = pkm_trajectory_eval(r->tr, t, pose, pd, pdd, &in);
    if (st != PKM_OK) return fail_at(ctx, st, t, &in);
    st = pkm_motion_at(r->motion, t, pose, pd, pdd, &in);
    /* A closure that does not fix the mechanism (a singular pose) stops the run: a computation
     * that failed at t, not bad input; unless the case gives the bodies' motion without it
     * (closure_through decides once the finite-element model is known). */
    if (st == PKM_ERR_INVALID) st = PKM_ERR_SINGULAR;
    r->closure_ok = st == PKM_OK;
    if (st != PKM_OK && (r->c->body_motion == NULL || st != PKM_ERR_SINGULAR))
        return fail_at(ctx, st, t, &in);
    if (st != PKM_OK) fail_at(&r->closure_err, st, t, &in);
    return rigid_motion(r, t, pose, pd, pdd, ctx);
}

/* K factorised alone for K^-1 F, on its own symbolic analysis while the pattern stays. */
static pkm_status factor_stiffness(tr_run *r, double t, pkm_ctx *ctx)
{
    if (r->ks == NULL || pkm_linsolve_check_pattern(r->ks, r->p, NULL) != PKM_OK) {
        pkm_linsolve_destroy(&r->ks);
        pkm_status st = pkm_linsolve_create(r->p, PKM_LINSOLVE_AUTO, &r->ks, ctx);
        if (st != PKM_OK) return st;
    }
    int64_t minor = -1;
    pkm_status st = pkm_linsolve_factor(r->ks, r->p, 1.0, 0.0, &minor, ctx);
    if (st == PKM_OK && minor >= 0)
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "t = %.6g s: the stiffness matrix is singular (column %lld): the "
                        "structure has a mechanism at this pose",
                        t, (long long)minor);
    return st;
}

/* The finite-element model's joint of that name (its index in *index), or NULL. */
static const pkm_joint *fe_joint_named(const tr_run *r, const char *name, int *index)
{
    for (int i = 0; i < pkm_model_joint_count(r->fe); i++)
        if (strcmp(pkm_model_joint(r->fe, i)->name, name) == 0) {
            *index = i;
            return pkm_model_joint(r->fe, i);
        }
    return NULL;
}

/* Whether finite-element joint i locks one of the drives. */
static int is_lock(const tr_run *r, int i)
{
    for (int k = 0; k < r->ndrive; k++)
        if (r->lock[k] == i) return 1;
    return 0;
}

/* The locked drives' joints of the finite-element model: for each actuated joint of the rigid
 * model, the clamp that locks it (its namesake, or the joint pkm_case.drive_lock names, with
 * the ratio of the drive to the clamp's reaction) when its body_b is a beam of twist-only nodes,
 * else -1: no reaction where the drive is not locked or its body's elements carry internal
 * coordinates the dof map does not reach. The joints the finite-element model clamps besides
 * and the rigid model leaves free: to the ground, they share the drives' load (NaVARo's second
 * clutch: none of the clamps is then the motor's, and no drive has a reaction); inside the
 * mechanism (the 5-PSS/UPU paper variant's links welded to the platform), the finite-element
 * mechanism is not the rigid model's, so where the rigid closure is singular its stiffness need
 * not be, and the run goes on through such poses (through; the drives NAN there). */
static pkm_status find_locks(tr_run *r, pkm_ctx *ctx)
{
    int i = -1, ground = 0;
    for (int k = 0; k < r->ndrive; k++) {
        const pkm_joint *jf = NULL;
        r->ratio[k] = 1.0;
        r->lock[k] = -1;
        if (r->c->drive_lock != NULL) {
            char name[PKM_NAME_LEN];
            r->c->drive_lock(r->params, k, name, &r->ratio[k]);
            jf = fe_joint_named(r, name, &i);
        } else {
            jf = fe_joint_named(r, pkm_model_joint(r->rigid, r->act[k])->name, &i);
        }
        const char *name = pkm_model_joint(r->rigid, r->act[k])->name;
        if (r->o.elastic_drives && jf == NULL)
            return PKM_FAIL(ctx, PKM_ERR_MODEL,
                            "drive '%s' has no joint in the finite-element model", name);
        r->spring[k] = i;
        if (r->o.elastic_drives) {
            pkm_status st = pkm_transient_drive_spring(r->fe, i, name, &r->kd[k], ctx);
            if (st != PKM_OK) return st;
        }
        if (jf == NULL || jf->type != PKM_JOINT_CLAMPED || jf->body[1] < 0) continue;
        const pkm_body *b = pkm_model_body(r->fe, jf->body[1]);
        if (b->kind == PKM_BODY_BEAM && pkm_beam_types[b->element].dofs_per_node == 6)
            r->lock[k] = i;
    }
    r->through = 0;
    for (int j = 0; j < pkm_model_joint_count(r->rigid); j++) {
        const pkm_joint *jr = pkm_model_joint(r->rigid, j);
        const pkm_joint *jf = fe_joint_named(r, jr->name, &i);
        if (jr->actuated || jf == NULL || jf->type != PKM_JOINT_CLAMPED ||
            jr->type == PKM_JOINT_CLAMPED || is_lock(r, i))
            continue;
        if (jf->body[0] == PKM_GROUND)
            ground = 1;
        else
            r->through = 1;
    }
    for (int k = 0; k < r->ndrive && ground; k++)
        r->lock[k] = -1;
    return PKM_OK;
}

/* The finite-element model at pose (time t), reassembled: pencil, dof map, platform node, the
 * factorisations of K_eff (when the integrator exists) and K. */
/* The finite-element model at pose: from the rigid bodies' placements where the case can build
 * it so and the closure holds at pose (the platform route), else by the case's builder. */
static pkm_status build_fe(tr_run *r, const double *pose, pkm_ctx *ctx)
{
    if (r->c->build_placed == NULL || !r->closure_ok ||
        pkm_motion_route_of(r->motion) != PKM_MOTION_PLATFORM)
        return r->c->build(r->params, pose, &r->fe, ctx);
    double(*R)[3][3] = malloc(sizeof(*R) * (size_t)r->nbody);
    double(*p)[3] = malloc(sizeof(*p) * (size_t)r->nbody);
    pkm_status st = R == NULL || p == NULL
                        ? PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the bodies' placements")
                        : PKM_OK;
    for (int b = 0; b < r->nbody && st == PKM_OK; b++)
        pkm_mbs_body_displacement(r->mbs, b, R[b], p[b]);
    if (st == PKM_OK)
        st = r->c->build_placed(r->params, (const double(*)[3][3])R, (const double(*)[3])p, &r->fe,
                                ctx);
    free(R);
    free(p);
    return st;
}

static pkm_status update_model(tr_run *r, double t, const double *pose, pkm_ctx *ctx)
{
    pkm_model_destroy(&r->fe);
    pkm_ctx in;
    pkm_ctx_clear(&in);
    pkm_status st = build_fe(r, pose, &in);
    if (st != PKM_OK) return fail_at(ctx, st, t, &in);
    if (pkm_model_body_count(r->fe) != pkm_model_body_count(r->rigid))
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "case '%s': the finite-element model has %d bodies, the rigid model %d",
                        r->c->name, pkm_model_body_count(r->fe), pkm_model_body_count(r->rigid));
    const int plat = pkm_model_platform(r->fe);
    if (plat < 0) return PKM_FAIL(ctx, PKM_ERR_MODEL, "case '%s' has no platform", r->c->name);
    r->plat_node = pkm_model_body(r->fe, plat)->first_node;
    int64_t version = 0;
    pkm_ctx_clear(&in);
    if (pkm_pose_conditioning(r->c, r->fe, &r->conditioning, &in) != PKM_OK)
        r->conditioning = NAN; /* a conditioning that cannot be had is not the run's failure */
    st = pkm_assemble_cached(r->fe, r->o.form, r->cache, &r->p, &version, NULL, ctx);
    if (st == PKM_OK && r->o.nfreq > 0)
        st = pkm_tr_freq_update(&r->freq, r->p, version, r->o.nfreq, t, ctx);
    if (st != PKM_OK) return st;
    r->map = pkm_asm_cache_dofmap(r->cache);
    if (r->fn == NULL) {
        r->nnodes = pkm_model_node_count(r->fe);
        r->n = r->p->n;
        r->fn = calloc(6 * (size_t)r->nnodes, sizeof(double));
        r->f = calloc((size_t)r->p->n, sizeof(double));
        r->x = calloc((size_t)r->p->n, sizeof(double));
        if (r->fn == NULL || r->f == NULL || r->x == NULL)
            return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the load vectors");
    }
    if (pkm_model_node_count(r->fe) != r->nnodes || r->p->n != r->n)
        return PKM_FAIL(ctx, PKM_ERR_MODEL, "t = %.6g s: the model's size changed", t);
    if (r->nm != NULL && (st = pkm_newmark_set_pencil(r->nm, r->p, ctx)) != PKM_OK) return st;
    if ((st = find_locks(r, ctx)) != PKM_OK) return st;
    return factor_stiffness(r, t, ctx);
}

/* The reduced load f at the current rigid state: every body's inertia and weight
 * (pkm_transient_loads), then the platform's wrench and the elastic drives' feed-forward. */
static pkm_status loads(tr_run *r, pkm_ctx *ctx)
{
    pkm_status st =
        pkm_transient_loads(r->fe, r->map, (const double(*)[12])r->VA, r->g, r->fn, r->f, ctx);
    if (st != PKM_OK) return st;
    double w[6];
    if ((st = pkm_wrench_at(r->o.wrench, r->o.wrench_series, r->t, w, ctx)) != PKM_OK) return st;
    memset(r->fn, 0, 6 * (size_t)r->nnodes * sizeof(double));
    for (int k = 0; k < 6; k++)
        r->fn[6 * r->plat_node + k] = w[k];
    for (int k = 0; k < r->ndrive && r->o.elastic_drives; k++) {
        if (isnan(r->drive[k]))
            return PKM_FAIL(ctx, PKM_ERR_SINGULAR, "elastic drives need the rigid-body drives: %s",
                            r->closure_err.msg);
        pkm_transient_joint_load(pkm_model_joint(r->fe, r->spring[k]), r->drive[k] / r->ratio[k],
                                 r->fn);
    }
    pkm_dofmap_restrict(r->map, r->fn, r->f); /* adds to the inertial loads */
    pkm_tr_rotor_loads(r->fe, r->map, (const double(*)[12])r->VA, r->f);
    return PKM_OK;
}

/* Node i's twist of the reduced vector x (u = P x at that node). */
static void node_twist(const tr_run *r, int node, const double *x, double u[6])
{
    int ncol = 0;
    const int64_t *col = NULL;
    const double(*tw)[6] = NULL;
    pkm_dofmap_node(r->map, node, &ncol, &col, &tw);
    for (int k = 0; k < 6; k++)
        u[k] = 0.0;
    for (int c = 0; c < ncol; c++)
        for (int k = 0; k < 6; k++)
            u[k] += tw[c][k] * x[col[c]];
}

/* The reaction at locked drive k: the wrench body_a exerts on body_b at the joint's node, what
 * the equations of motion of body_b's elements there need, eq. 37 of Li et al. 2020 written
 * element by element: [K_e (u + l2 u') + M_e (u'' + l1 u' + U''_r - g)] at the node (Rayleigh
 * C_e = l1 M_e + l2 K_e); its component on the rigid joint's axis (the moment about it, the
 * node being at the joint point; the force along it for a prismatic drive). The HHT alpha
 * shift of the equation is not applied. NAN where the drive is not locked (find_locks). */
static pkm_status lock_reaction(tr_run *r, int k, double *out, pkm_ctx *ctx)
{
    *out = NAN;
    if (r->lock[k] < 0) return PKM_OK;
    const pkm_joint *jr = pkm_model_joint(r->rigid, r->act[k]);
    const pkm_joint *jf = pkm_model_joint(r->fe, r->lock[k]);
    const int bi = jf->body[1], node = jf->node[1];
    const pkm_body *b = pkm_model_body(r->fe, bi);
    const double *x[3] = {pkm_newmark_u(r->nm), pkm_newmark_v(r->nm), pkm_newmark_a(r->nm)};
    const double *VA = r->VA[bi];
    double w[6] = {0.0};
    for (int e = b->first_elem; e < b->first_elem + b->nelem; e++) {
        const pkm_elem *el = pkm_model_elem(r->fe, e);
        if (el->n1 != node && el->n2 != node) continue;
        double M[12][12], K[12][12], uk[12], um[12], ar[12], gyro[3];
        pkm_status st = pkm_tr_element_matrices(r->fe, b, el, M, K, ctx);
        if (st == PKM_OK) st = pkm_tr_element_rigid(r->fe, b, el, VA, r->g, ar, gyro, ctx);
        if (st != PKM_OK) return st;
        for (int h = 0; h < 2; h++) {
            const int n = h == 0 ? el->n1 : el->n2;
            double t[3][6];
            for (int d = 0; d < 3; d++)
                node_twist(r, n, x[d], t[d]);
            for (int i = 0; i < 6; i++) {
                uk[6 * h + i] = t[0][i] + r->o.nm.l2 * t[1][i];
                um[6 * h + i] = t[2][i] + r->o.nm.l1 * t[1][i] + ar[6 * h + i];
            }
        }
        const int row0 = el->n1 == node ? 0 : 6;
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 12; j++)
                w[i] += K[row0 + i][j] * uk[j] + M[row0 + i][j] * um[j];
        for (int q = 0; q < 3; q++)
            w[3 + q] += gyro[q];
    }
    /* A lock the case names (drive_lock) is a motor's: the moment about the axis of the
     * rigid model's joint of that name (a clamp has no axis). */
    const pkm_joint *ja = jr;
    for (int j = 0; j < pkm_model_joint_count(r->rigid) && r->c->drive_lock != NULL; j++)
        if (strcmp(pkm_model_joint(r->rigid, j)->name, jf->name) == 0)
            ja = pkm_model_joint(r->rigid, j);
    const int off = ja->type == PKM_JOINT_PRISMATIC ? 0 : 3;
    *out = r->ratio[k] * pkm_vec3_dot(ja->axis, w + off);
    /* A rotor on the rigid model's drive, which the clamp does not carry: the motor turns it too
     * (the rigid model's drive includes J d''), about the drive's current axis. */
    if (ja == jr && jr->rotor_inertia[0] != 0.0 && r->closure_ok)
        *out += jr->rotor_inertia[0] * pkm_tr_joint_accel((const double(*)[12])r->VA,
                                                          jr->type == PKM_JOINT_PRISMATIC, jr->body,
                                                          r->res[r->act[k]].axis);
    return PKM_OK;
}

static pkm_status check_opts(const pkm_case *c, const pkm_trajectory *tr,
                             const pkm_transient_opts *o, pkm_ctx *ctx)
{
    if (!(isfinite(o->nm.dt) && o->nm.dt > 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "time step dt = %g s must be positive", o->nm.dt);
    if (!(isfinite(o->duration) && o->duration >= o->nm.dt))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "duration %g s is shorter than one time step (%g s)",
                        o->duration, o->nm.dt);
    if (pkm_transient_steps(o) > 100000000)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "%g s in steps of %g s: more than 1e8 steps",
                        o->duration, o->nm.dt);
    if (o->update_every < 0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "update_every = %d must be >= 0", o->update_every);
    if (o->nfreq < 0) return PKM_FAIL(ctx, PKM_ERR_INVALID, "nfreq = %d must be >= 0", o->nfreq);
    if (!(c->analyses & PKM_CASE_MODAL) || !(c->analyses & PKM_CASE_DYNAMICS))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "case '%s' needs a finite-element and a rigid-body model", c->name);
    for (int k = 0; k < 6; k++)
        if (!(fabs(o->wrench[k]) <= PKM_WRENCH_MAX))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "wrench component %d = %g is outside [-%g, %g] (N, N m)", k + 1,
                            o->wrench[k], PKM_WRENCH_MAX, PKM_WRENCH_MAX);
    if (o->wrench_series != NULL && pkm_trajectory_ncoord(o->wrench_series) != 6)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "wrench series of %d components, not 6",
                        pkm_trajectory_ncoord(o->wrench_series));
    if (pkm_trajectory_ncoord(tr) != c->npose)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "trajectory of %d coordinates, case '%s' has %d pose coordinates",
                        pkm_trajectory_ncoord(tr), c->name, c->npose);
    return PKM_OK;
}

/* From the span's start a, where the rigid model is built, to the run's start t0 > a: the closure
 * followed in steps of at most dt, and at least TR_APPROACH_STEPS of them. */
#define TR_APPROACH_STEPS 20
static pkm_status approach(tr_run *r, double a, double t0, pkm_ctx *ctx)
{
    if (!(t0 > a)) return PKM_OK;
    const double m = fmax(TR_APPROACH_STEPS, ceil((t0 - a) / r->o.nm.dt));
    double pose[PKM_POSE_MAX];
    for (int k = 1; k < (int)m; k++) {
        pkm_status st = drive_at(r, a + (t0 - a) * k / m, pose, ctx);
        if (st != PKM_OK) return st;
    }
    return PKM_OK;
}

static void run_free(tr_run *r)
{
    pkm_newmark_destroy(&r->nm);
    pkm_tr_freq_free(&r->freq);
    pkm_linsolve_destroy(&r->ks);
    pkm_asm_cache_destroy(&r->cache);
    pkm_model_destroy(&r->fe);
    pkm_motion_destroy(&r->motion);
    free(r->fn);
    free(r->f);
    free(r->x);
    free(r->res);
    free(r->drive);
    free(r->reaction);
    free(r->act);
    free(r->lock);
    free(r->ratio);
    free(r->spring);
    free(r->kd);
    free(r->defl);
    free(r->VA);
}

/* The actuated joints' drives of the rigid-body inverse dynamics at the current state (gravity
 * as the run's) and the locked drives' reactions, in joint order. */
static pkm_status rigid_drives(tr_run *r, double t, pkm_ctx *ctx)
{
    pkm_ctx in;
    pkm_ctx_clear(&in);
    pkm_status st = r->closure_ok ? pkm_mbs_inverse(r->mbs, NULL, r->res, &in) : PKM_OK;
    if (st != PKM_OK) return fail_at(ctx, st, t, &in);
    for (int k = 0; k < r->ndrive; k++)
        r->drive[k] = r->closure_ok ? r->res[r->act[k]].drive : NAN;
    return PKM_OK;
}

/* After the step: the locked drives' reactions, or the elastic drives' deflections and forces
 * (the feed-forward less the spring's force, in the drive's units); the run stops where
 * the closure is singular unless the case carries it through. */
static pkm_status drives(tr_run *r, pkm_transient_row *row, pkm_ctx *ctx)
{
    if (!r->closure_ok && !r->through)
        return PKM_FAIL(ctx, r->closure_err.status, "%s", r->closure_err.msg);
    for (int k = 0; k < r->ndrive; k++) {
        if (r->o.elastic_drives) {
            const pkm_joint *jt = pkm_model_joint(r->fe, r->spring[k]);
            /* The spring's force with its Rayleigh share, k (d + l2 d'). */
            double u[2][2][6] = {{{0.0}}}, rate;
            for (int s = 0; s < 2; s++)
                if (jt->node[s] >= 0) {
                    node_twist(r, jt->node[s], pkm_newmark_u(r->nm), u[0][s]);
                    node_twist(r, jt->node[s], pkm_newmark_v(r->nm), u[1][s]);
                }
            r->defl[k] = pkm_transient_joint_coord(jt, u[0][0], u[0][1]);
            rate = pkm_transient_joint_coord(jt, u[1][0], u[1][1]);
            r->reaction[k] =
                r->drive[k] - r->ratio[k] * r->kd[k] * (r->defl[k] + r->o.nm.l2 * rate);
            continue;
        }
        pkm_status st = lock_reaction(r, k, &r->reaction[k], ctx);
        if (st != PKM_OK) return st;
    }
    row->ndrive = r->ndrive;
    row->drive = r->drive;
    row->reaction = r->reaction;
    row->deflection = r->o.elastic_drives ? r->defl : NULL;
    return PKM_OK;
}

/* Step 0: the model at the start, the integrator, U(0) (0, or the quasi-static deflection K^-1
 * F(0): under the weight alone when the motion starts from rest), U''(0) from the equation of
 * motion under F(0). */
static pkm_status start(tr_run *r, double t, const double *pose, pkm_ctx *ctx)
{
    pkm_status st = update_model(r, t, pose, ctx);
    const pkm_transient_opts *o = &r->o;
    if (st == PKM_OK && o->damping_mode[0] > 0)
        st = pkm_rayleigh_from_modes(r->p, o->damping_zeta[0], o->damping_mode[0],
                                     o->damping_zeta[1], o->damping_mode[1], &r->o.nm.l1,
                                     &r->o.nm.l2, NULL, ctx);
    if (st == PKM_OK) st = pkm_newmark_create(r->p, &r->o.nm, &r->nm, ctx);
    if (st == PKM_OK) st = loads(r, ctx);
    if (st == PKM_OK && r->o.static_start) st = pkm_linsolve_solve(r->ks, r->f, r->x, ctx);
    if (st != PKM_OK) return st;
    return pkm_newmark_start(r->nm, r->o.static_start ? r->x : NULL, NULL, r->f, ctx);
}

pkm_status pkm_transient_run(const pkm_case *c, const void *params, const pkm_trajectory *tr,
                             const pkm_transient_opts *opts, pkm_transient_sink sink, void *user,
                             pkm_ctx *ctx)
{
    pkm_status st = check_opts(c, tr, opts, ctx);
    if (st != PKM_OK) return st;
    if (pkm_case_loaded(pkm_case_dynamics_of(c, params)))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "case '%s': its load (load.force) is the rigid-body dynamics'; the "
                        "elastodynamics takes a platform wrench (--wrench)",
                        c->name);
    tr_run r = {.c = c, .params = params, .tr = tr, .o = *opts};
    if (opts->gravity) memcpy(r.g, pkm_case_dynamics_of(c, params)->gravity, sizeof(r.g));
    const int64_t nsteps = pkm_transient_steps(opts);
    double a = 0.0, t0 = opts->start, pose[PKM_POSE_MAX];
    pkm_trajectory_span(tr, &a, NULL);
    if (isnan(t0)) t0 = a;
    /* Every step's pose reachable before the first step: one error naming the time, and
     * nothing computed. */
    /* A wrench series within range at every step, before anything is computed. */
    if (opts->wrench_series != NULL)
        st = pkm_wrench_check(opts->wrench, opts->wrench_series, t0, opts->nm.dt, nsteps + 1, ctx);
    if (st != PKM_OK || (st = setup_rigid(&r, ctx)) != PKM_OK ||
        (st = pkm_motion_check(r.motion, tr, t0, opts->nm.dt, nsteps + 1, ctx)) != PKM_OK ||
        (st = approach(&r, a, t0, ctx)) != PKM_OK ||
        (st = pkm_asm_cache_create(&r.cache, ctx)) != PKM_OK ||
        (st = pkm_asm_cache_keep_dofmap(r.cache, ctx)) != PKM_OK)
        goto done;
    for (int64_t k = 0; k <= nsteps; k++) {
        const double t = t0 + (double)k * opts->nm.dt;
        pkm_transient_row row = {.t = t, .step = k};
        if ((st = drive_at(&r, t, pose, ctx)) != PKM_OK ||
            (st = rigid_drives(&r, t, ctx)) != PKM_OK)
            goto done;
        if (k == 0) {
            row.updated = 1;
            st = start(&r, t, pose, ctx);
        } else {
            row.updated = opts->update_every > 0 && k % opts->update_every == 0;
            if (row.updated) st = update_model(&r, t, pose, ctx);
            if (st == PKM_OK) st = loads(&r, ctx);
            if (st == PKM_OK) st = pkm_newmark_step(r.nm, r.f, ctx);
        }
        if (st == PKM_OK) st = pkm_linsolve_solve(r.ks, r.f, r.x, ctx);
        if (st == PKM_OK) st = drives(&r, &row, ctx);
        if (st != PKM_OK) goto done;
        node_twist(&r, r.plat_node, pkm_newmark_u(r.nm), row.error);
        node_twist(&r, r.plat_node, r.x, row.quasi_static);
        row.energy = pkm_newmark_energies(r.nm);
        row.nfreq = opts->nfreq;
        row.freq = opts->nfreq > 0 ? r.freq.modes->freq_hz : NULL;
        row.rayleigh[0] = r.o.nm.l1;
        row.rayleigh[1] = r.o.nm.l2;
        row.conditioning = r.conditioning;
        if ((st = pkm_tr_row_finite(&row, ctx)) != PKM_OK) goto done;
        if (sink != NULL && sink(user, &row) != 0) break;
    }
done:
    run_free(&r);
    return st;
}
