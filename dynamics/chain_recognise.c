/* dynamics/chain_recognise.c: a pkm_model read as a chain of modules (pkm/chain.h), the inverse
 * of chain_model.c, so that the O(n) engine runs the models the general one runs.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/dynengine.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Parallel axes and in-plane points: 1e-9 relative, as the model's own geometric checks. */
#define REC_TOL 1e-9

/* What the walk from the ground has met. */
typedef struct rec {
    const pkm_model *m;
    char *used, *seen; /* per joint; per body */
    pkm_chain_module *mods;
    int *joint; /* 4 per module */
    int n, nmax;
    pkm_chain_pose attach; /* the world frame the next module's base frame is given in */
    pkm_chain_pose root;
} rec;

static int other(const pkm_joint *j, int b)
{
    return j->body[0] == b ? j->body[1] : j->body[0];
}

/* The unused joints at body b (up to 3 of them, their number returned). */
static int joints_at(const rec *r, int b, int *out)
{
    int n = 0;
    for (int j = 0; j < pkm_model_joint_count(r->m); j++) {
        const pkm_joint *jt = pkm_model_joint(r->m, j);
        if (!r->used[j] && (jt->body[0] == b || jt->body[1] == b)) {
            if (n < 3) out[n] = j;
            n++;
        }
    }
    return n;
}

/* A frame at o whose column `col` (0: x, 2: z) is the unit vector e. */
static void frame_along(const double o[3], const double e[3], int col, pkm_chain_pose *p)
{
    const double *t = fabs(e[0]) < 0.9 ? (const double[3]){1, 0, 0} : (const double[3]){0, 1, 0};
    double a[3], b[3];
    pkm_vec3_cross(e, t, a);
    const double na = pkm_vec3_norm(a);
    for (int k = 0; k < 3; k++)
        a[k] /= na;
    pkm_vec3_cross(e, a, b);
    /* columns (x, y, z) right-handed: z = e, x = a, y = e x a; or x = e, y = a, z = e x a */
    for (int k = 0; k < 3; k++) {
        p->R[k][0] = col == 2 ? a[k] : e[k];
        p->R[k][1] = col == 2 ? b[k] : a[k];
        p->R[k][2] = col == 2 ? e[k] : b[k];
        p->r[k] = o[k];
    }
}

/* A frame at o with x along x (unit) and z along z (unit, normal to x). */
static void frame_xz(const double o[3], const double x[3], const double z[3], pkm_chain_pose *p)
{
    double y[3];
    pkm_vec3_cross(z, x, y);
    for (int k = 0; k < 3; k++)
        p->R[k][0] = x[k], p->R[k][1] = y[k], p->R[k][2] = z[k], p->r[k] = o[k];
}

/* b in the frame of a: a^-1 b. */
static pkm_chain_pose relative(const pkm_chain_pose *a, const pkm_chain_pose *b)
{
    pkm_chain_pose p;
    double d[3];
    pkm_vec3_sub(b->r, a->r, d);
    pkm_mat3_apply_t(PKM_CONST33(a->R), d, p.r);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            p.R[i][j] = a->R[0][i] * b->R[0][j] + a->R[1][i] * b->R[1][j] + a->R[2][i] * b->R[2][j];
    return p;
}

/* Model body b's mass properties in frame p. */
static void body_in(const pkm_model *m, int b, const pkm_chain_pose *p, pkm_chain_body *out)
{
    const pkm_body *bd = pkm_model_body(m, b);
    double d[3], t[3][3];
    out->mass = bd->mass;
    pkm_vec3_sub(bd->com, p->r, d);
    pkm_mat3_apply_t(PKM_CONST33(p->R), d, out->com);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[i][j] = bd->inertia[i][0] * p->R[0][j] + bd->inertia[i][1] * p->R[1][j] +
                      bd->inertia[i][2] * p->R[2][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out->inertia[i][j] = p->R[0][i] * t[0][j] + p->R[1][i] * t[1][j] + p->R[2][i] * t[2][j];
    /* symmetric to the last bit, as pkm_chain_create checks it */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            out->inertia[i][j] = out->inertia[j][i] =
                0.5 * (out->inertia[i][j] + out->inertia[j][i]);
}

/* The next module, its base frame given in the world: the previous module's end frame (or the
 * root) placed there. */
static pkm_chain_module *next_module(rec *r, const pkm_chain_pose *base, const pkm_joint *named,
                                     pkm_ctx *ctx)
{
    if (r->n >= r->nmax) {
        PKM_FAIL(ctx, PKM_ERR_MODEL, "joint %s: more modules than actuated joints", named->name);
        return NULL;
    }
    pkm_chain_module *md = &r->mods[r->n];
    memset(md, 0, sizeof(*md));
    for (int k = 0; k < 3; k++)
        md->joint.R[k][k] = md->end.R[k][k] = 1.0;
    for (int k = 0; k < PKM_CHAIN_NAME - 1 && named->name[k] != 0; k++)
        md->name[k] = named->name[k];
    md->qmin = -INFINITY, md->qmax = INFINITY;
    if (r->n == 0)
        r->root = *base;
    else
        r->mods[r->n - 1].end = relative(&r->attach, base);
    for (int k = 0; k < 4; k++)
        r->joint[4 * r->n + k] = -1;
    return md;
}

/* A serial module: joint j from link `link` to the next link; that link in *next. */
static pkm_status serial(rec *r, int j, int link, int *next, pkm_ctx *ctx)
{
    const pkm_joint *jt = pkm_model_joint(r->m, j);
    if (!(jt->type == PKM_JOINT_REVOLUTE || jt->type == PKM_JOINT_PRISMATIC) || !jt->actuated ||
        jt->cut)
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "joint %s: a serial module is one actuated revolute or prismatic tree "
                        "joint",
                        jt->name);
    const int rev = jt->type == PKM_JOINT_REVOLUTE;
    *next = other(jt, link);
    if (*next == PKM_GROUND || r->seen[*next])
        return PKM_FAIL(ctx, PKM_ERR_MODEL, "joint %s: the chain closes on a link it has met",
                        jt->name);
    pkm_chain_pose J;
    frame_along(jt->point, jt->axis, rev ? 2 : 0, &J);
    pkm_chain_pose base = r->attach; /* the module's base frame: the previous attachment */
    pkm_chain_module *md = next_module(r, &base, jt, ctx);
    if (md == NULL) return PKM_ERR_MODEL;
    md->type = rev ? PKM_CHAIN_REVOLUTE : PKM_CHAIN_PRISMATIC;
    md->joint = relative(&base, &J);
    body_in(r->m, *next, &J, &md->body[PKM_CHAIN_MOVING]);
    r->joint[4 * r->n] = j;
    r->used[j] = 1;
    r->attach = J;
    r->n++;
    return PKM_OK;
}

/* The loop's bodies and joints from the two revolute joints at `link`: q1 to the upper link,
 * q11 to the barrel, the barrel's prismatic joint to the rod, the rod's cut to the upper link
 * (jl[0 .. 3]); the upper link in *upper. PKM_ERR_MODEL naming what does not fit. */
static pkm_status loop_joints(rec *r, const int ja[2], int link, int jl[4], int *upper,
                              pkm_ctx *ctx)
{
    for (int s = 0; s < 2; s++) {
        const int barrel = other(pkm_model_joint(r->m, ja[s]), link);
        const int up = other(pkm_model_joint(r->m, ja[1 - s]), link);
        int at[3], rod = -1;
        r->used[ja[s]] = 1;
        const int nb = barrel == PKM_GROUND ? 0 : joints_at(r, barrel, at);
        r->used[ja[s]] = 0;
        const pkm_joint *k = nb == 1 ? pkm_model_joint(r->m, at[0]) : NULL;
        if (k == NULL || k->type != PKM_JOINT_PRISMATIC) continue;
        rod = other(k, barrel);
        int ar[3];
        r->used[at[0]] = 1;
        const int nr = rod == PKM_GROUND ? 0 : joints_at(r, rod, ar);
        r->used[at[0]] = 0;
        const pkm_joint *c = nr == 1 ? pkm_model_joint(r->m, ar[0]) : NULL;
        if (c == NULL || other(c, rod) != up || up == PKM_GROUND)
            return PKM_FAIL(ctx, PKM_ERR_MODEL,
                            "joint %s: the cylinder's rod must have one more joint, to the link "
                            "of joint %s",
                            k->name, pkm_model_joint(r->m, ja[1 - s])->name);
        if (!k->actuated || k->cut || c->type != PKM_JOINT_REVOLUTE || !c->cut || c->actuated)
            return PKM_FAIL(ctx, PKM_ERR_MODEL,
                            "joints %s, %s: a loop's cylinder is an actuated tree joint, its rod "
                            "pin a passive cut revolute joint",
                            k->name, c->name);
        jl[0] = ja[1 - s], jl[1] = ja[s], jl[2] = at[0], jl[3] = ar[0];
        *upper = up;
        return PKM_OK;
    }
    return PKM_FAIL(ctx, PKM_ERR_MODEL,
                    "joints %s, %s: neither leads to a cylinder (a prismatic joint to a rod)",
                    pkm_model_joint(r->m, ja[0])->name, pkm_model_joint(r->m, ja[1])->name);
}

/* The loop's geometry checked: parallel axes, the pins in the plane normal to them, the cylinder
 * along the pin-to-pin line from its pivot towards the rod pin, the triangle not flat. */
static pkm_status loop_geometry(const rec *r, const int jl[4], const double z[3], pkm_ctx *ctx)
{
    const pkm_joint *q1 = pkm_model_joint(r->m, jl[0]), *q11 = pkm_model_joint(r->m, jl[1]);
    const pkm_joint *cyl = pkm_model_joint(r->m, jl[2]), *pin = pkm_model_joint(r->m, jl[3]);
    double oa[3], ot[3], at[3], x[3];
    pkm_vec3_sub(q1->point, q11->point, oa);
    pkm_vec3_sub(pin->point, q11->point, ot);
    pkm_vec3_sub(pin->point, q1->point, at);
    const double size = pkm_vec3_norm(oa) + pkm_vec3_norm(ot) + pkm_vec3_norm(at);
    double c1[3], c2[3], c3[3];
    pkm_vec3_cross(q11->axis, z, c1);
    pkm_vec3_cross(pin->axis, z, c2);
    pkm_vec3_cross(cyl->axis, ot, c3);
    if (!(pkm_vec3_norm(c1) <= REC_TOL && pkm_vec3_norm(c2) <= REC_TOL))
        return PKM_FAIL(ctx, PKM_ERR_MODEL, "joints %s, %s, %s: a loop's pin axes must be parallel",
                        q1->name, q11->name, pin->name);
    if (!(fabs(pkm_vec3_dot(oa, z)) <= REC_TOL * size &&
          fabs(pkm_vec3_dot(ot, z)) <= REC_TOL * size))
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "joints %s, %s, %s: a loop's pins must lie in a plane normal to their axes",
                        q1->name, q11->name, pin->name);
    if (!(pkm_vec3_norm(c3) <= REC_TOL * size && pkm_vec3_dot(cyl->axis, ot) > 0.0))
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "joint %s: a loop's cylinder must point from its pivot %s to the rod "
                        "pin %s",
                        cyl->name, q11->name, pin->name);
    pkm_vec3_cross(oa, at, x);
    if (!(fabs(pkm_vec3_dot(x, z)) > REC_TOL * size * size))
        return PKM_FAIL(ctx, PKM_ERR_MODEL, "joints %s, %s, %s: a loop's pins are in line",
                        q1->name, q11->name, pin->name);
    return PKM_OK;
}

static int sign_of(const double a[3], const double b[3], const double z[3])
{
    double c[3];
    pkm_vec3_cross(a, b, c);
    return pkm_vec3_dot(c, z) > 0.0 ? 1 : -1;
}

/* A loop module (Paz Anaya and Mattila 2024, sec. 2; frames as pkm/chain.h describes them) from
 * the two revolute joints ja at `link`; the upper link in *next. */
static pkm_status loop(rec *r, const int ja[2], int link, int *next, pkm_ctx *ctx)
{
    int jl[4] = {-1, -1, -1, -1};
    pkm_status st = loop_joints(r, ja, link, jl, next, ctx);
    if (st != PKM_OK) return st;
    const pkm_joint *q1 = pkm_model_joint(r->m, jl[0]), *q11 = pkm_model_joint(r->m, jl[1]);
    if ((q1->actuated || q11->actuated || q1->cut || q11->cut || q1->type != PKM_JOINT_REVOLUTE ||
         q11->type != PKM_JOINT_REVOLUTE))
        st = PKM_FAIL(ctx, PKM_ERR_MODEL,
                      "joints %s, %s: a loop's pivots are passive revolute tree joints", q1->name,
                      q11->name);
    const double *z = q1->axis;
    if (st == PKM_OK) st = loop_geometry(r, jl, z, ctx);
    if (st != PKM_OK) return st;
    const pkm_joint *cyl = pkm_model_joint(r->m, jl[2]), *pin = pkm_model_joint(r->m, jl[3]);
    const double *O = q11->point, *A = q1->point, *T = pin->point;
    double oa[3], ot[3], at[3];
    pkm_vec3_sub(A, O, oa);
    pkm_vec3_sub(T, O, ot);
    pkm_vec3_sub(T, A, at);
    const double La = pkm_vec3_norm(oa), c = pkm_vec3_norm(ot), Lb = pkm_vec3_norm(at);
    pkm_chain_pose Bc, B1, B3, B4, Tc;
    for (int k = 0; k < 3; k++)
        oa[k] /= La, ot[k] /= c, at[k] /= Lb;
    frame_xz(O, oa, z, &Bc);
    frame_xz(A, at, z, &B1);
    frame_xz(O, ot, z, &B3);
    frame_xz(T, ot, z, &B4); /* lc = 0: the rod's frame at its pin */
    frame_xz(T, at, z, &Tc);
    pkm_chain_module *md = next_module(r, &Bc, cyl, ctx);
    if (md == NULL) return PKM_ERR_MODEL;
    md->type = PKM_CHAIN_LOOP;
    md->La = La, md->Lb = Lb, md->x0 = c, md->lc = 0.0;
    md->sign[0] = sign_of(oa, at, z);
    md->sign[1] = sign_of(oa, ot, z);
    md->sign[2] = sign_of(ot, at, z);
    body_in(r->m, *next, &B1, &md->body[PKM_CHAIN_MOVING]);
    body_in(r->m, other(q11, link), &B3, &md->body[PKM_CHAIN_BARREL]);
    body_in(r->m, other(cyl, other(q11, link)), &B4, &md->body[PKM_CHAIN_ROD]);
    for (int k = 0; k < 4; k++) {
        r->joint[4 * r->n + k] = jl[k];
        r->used[jl[k]] = 1;
    }
    r->seen[other(q11, link)] = r->seen[other(cyl, other(q11, link))] = 1;
    r->attach = Tc;
    r->n++;
    return PKM_OK;
}

/* What no module holds: beams, a platform, lumped masses, planes, springs, rotor inertias. */
static pkm_status check_parts(const pkm_model *m, pkm_ctx *ctx)
{
    for (int b = 0; b < pkm_model_body_count(m); b++)
        if (pkm_model_body(m, b)->kind != PKM_BODY_RIGID)
            return PKM_FAIL(ctx, PKM_ERR_MODEL, "body %s: a module chain has rigid bodies only",
                            pkm_model_body(m, b)->name);
    if (pkm_model_platform(m) >= 0 || pkm_model_mass_count(m) > 0 || pkm_model_plane_count(m) > 0)
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "a module chain has no platform, lumped masses or point-on-plane "
                        "constraints");
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        const pkm_joint *jt = pkm_model_joint(m, j);
        for (int k = 0; k < PKM_JOINT_MAX_FREE; k++)
            if (jt->rotor_inertia[k] != 0.0 || jt->stiffness[k][k] != 0.0)
                return PKM_FAIL(ctx, PKM_ERR_MODEL,
                                "joint %s: a module chain has no joint springs or rotor inertias",
                                jt->name);
    }
    return PKM_OK;
}

/* The walk from the ground, one module per step, until no joint is left at the last link. */
static pkm_status walk(rec *r, pkm_ctx *ctx)
{
    pkm_status st = check_parts(r->m, ctx);
    int link = PKM_GROUND;
    while (st == PKM_OK) {
        int at[3];
        const int n = joints_at(r, link, at);
        if (n == 0) break;
        if (n > 2)
            return PKM_FAIL(ctx, PKM_ERR_MODEL,
                            "joint %s: %d joints leave one link; a module chain has 1 or 2",
                            pkm_model_joint(r->m, at[0])->name, n);
        st = n == 1 ? serial(r, at[0], link, &link, ctx) : loop(r, at, link, &link, ctx);
        if (st == PKM_OK && r->seen[link])
            return PKM_FAIL(ctx, PKM_ERR_MODEL, "joint %s: the chain closes on a link it has met",
                            pkm_model_joint(r->m, at[0])->name);
        if (st == PKM_OK) r->seen[link] = 1;
    }
    for (int j = 0; j < pkm_model_joint_count(r->m) && st == PKM_OK; j++)
        if (!r->used[j])
            st = PKM_FAIL(ctx, PKM_ERR_MODEL, "joint %s: not on the chain from the ground",
                          pkm_model_joint(r->m, j)->name);
    for (int b = 0; b < pkm_model_body_count(r->m) && st == PKM_OK; b++)
        if (!r->seen[b])
            st = PKM_FAIL(ctx, PKM_ERR_MODEL, "body %s: not on the chain from the ground",
                          pkm_model_body(r->m, b)->name);
    if (st == PKM_OK && r->n == 0)
        st = PKM_FAIL(ctx, PKM_ERR_MODEL, "a module chain needs at least one module");
    return st;
}

pkm_status pkm_chain_recognise(const pkm_model *m, pkm_chain_module *mods, pkm_chain_pose *root,
                               int *joint, pkm_ctx *ctx)
{
    const int na = pkm_dyn_engine_actuated(m), nj = pkm_model_joint_count(m);
    rec r = {.m = m, .nmax = na};
    for (int k = 0; k < 3; k++)
        r.attach.R[k][k] = 1.0;
    r.used = calloc((size_t)(nj + pkm_model_body_count(m)) + 1, 1);
    r.mods = calloc((size_t)na + 1, sizeof(*r.mods));
    r.joint = malloc(sizeof(int) * (4 * (size_t)na + 1));
    pkm_status st = PKM_OK;
    if (r.used == NULL || r.mods == NULL || r.joint == NULL)
        st = PKM_FAIL(ctx, PKM_ERR_NOMEM, "out of memory for the chain's recognition");
    r.seen = r.used + nj;
    if (st == PKM_OK) st = walk(&r, ctx);
    if (st == PKM_OK && mods != NULL) memcpy(mods, r.mods, sizeof(*mods) * (size_t)r.n);
    if (st == PKM_OK && joint != NULL) memcpy(joint, r.joint, sizeof(int) * 4 * (size_t)r.n);
    if (st == PKM_OK && root != NULL) *root = r.root;
    free(r.used);
    free(r.mods);
    free(r.joint);
    return st;
}
