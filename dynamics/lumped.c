/* dynamics/lumped.c: what a model's joints carry besides the bodies: lumped masses (added to the
 * rigid body that carries them) and rotor inertias (a torque or force J d'' between the joint's
 * two bodies), as the finite-element model has them (assembly/joints.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A rotor inertia J on a joint's free coordinate d stores the kinetic energy J d'^2 / 2 of the
 * joint's relative motion (a motor's rotor seen through its gear). For a revolute or helical joint
 * d' = e . (w_b - w_a), for a prismatic one d' = e . (v_b - v_a), e the axis turning with body_a
 * and v the bodies' velocities at the origin: d' = Y . (V_b - V_a) with the unit wrench Y = (0, e)
 * or (e, 0). Since e' . (V_b - V_a) vanishes (e' = w_a x e is normal to the relative motion),
 * d'' = Y . (A_b - A_a), and Lagrange's equations give the generalised forces of the inertial
 * wrench J d'' Y on body_b and its opposite on body_a: in the RNEA they join the bodies' inertial
 * wrenches, so the drives, the reactions, the mass matrix and the forward dynamics carry them,
 * whether the joint is in the tree or a cut. */
#include "dynamics/dynamics_impl.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <stdlib.h>
#include <string.h>

/* |d|^2 I - d d^T: the inertia of a unit point mass at d about the origin. */
static void point_inertia(const double d[3], double P[3][3])
{
    const double dd = pkm_vec3_dot(d, d);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            P[i][j] = (i == j ? dd : 0.0) - d[i] * d[j];
}

/* Body b gains mass ml at x with the inertia Jl about x (parallel-axis theorem about the new
 * centre of mass). */
static void add_mass(pkm_mbs *s, int b, double ml, const double x[3], const double Jl[3][3])
{
    const double mb = s->mass[b], mt = mb + ml;
    double c[3], db[3], dl[3], Pb[3][3], Pl[3][3];
    for (int k = 0; k < 3; k++)
        c[k] = (mt > 0.0) ? (mb * s->com0[b][k] + ml * x[k]) / mt : x[k];
    pkm_vec3_sub(s->com0[b], c, db);
    pkm_vec3_sub(x, c, dl);
    point_inertia(db, Pb);
    point_inertia(dl, Pl);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            s->J0[b][i][j] += mb * Pb[i][j] + Jl[i][j] + ml * Pl[i][j];
    s->mass[b] = mt;
    memcpy(s->com0[b], c, sizeof(c));
}

pkm_status mbs_lumped_setup(pkm_mbs *s, pkm_ctx *ctx)
{
    for (int i = 0; i < pkm_model_mass_count(s->m); i++) {
        const pkm_lumped_mass *l = pkm_model_mass(s->m, i);
        const pkm_node *n = pkm_model_node(s->m, l->node);
        add_mass(s, n->body, l->mass, n->x, PKM_CONST33(l->inertia));
    }
    s->rot = calloc((size_t)s->nj + 1, sizeof(*s->rot));
    if (s->rot == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the rotor inertias");
    s->nrot = 0;
    for (int j = 0; j < s->nj; j++) {
        const pkm_joint *jt = pkm_model_joint(s->m, j);
        const int one = jt->type == PKM_JOINT_REVOLUTE || jt->type == PKM_JOINT_PRISMATIC ||
                        jt->type == PKM_JOINT_HELICAL;
        int any = 0;
        for (int f = 0; f < PKM_JOINT_MAX_FREE; f++)
            any |= jt->rotor_inertia[f] != 0.0;
        if (!any) continue;
        if (!one)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "joint '%s': the rigid-body model takes a rotor inertia on a "
                            "revolute, prismatic or helical joint only",
                            jt->name);
        mbs_rotor *r = &s->rot[s->nrot++];
        r->J = jt->rotor_inertia[0];
        r->prismatic = jt->type == PKM_JOINT_PRISMATIC;
        memcpy(r->axis, jt->axis, sizeof(r->axis));
        for (int k = 0; k < 2; k++)
            r->frame[k] = (jt->body[k] == PKM_GROUND) ? -1 : s->body_frame[jt->body[k]];
    }
    return PKM_OK;
}

/* The rotor's unit wrench Y at the current state: the axis turned with body_a. */
static void rotor_wrench(const pkm_mbs *s, const mbs_rotor *r, double Y[6])
{
    double e[3];
    if (r->frame[0] < 0)
        memcpy(e, r->axis, sizeof(e));
    else
        pkm_mat3_apply(PKM_CONST33(s->fr[r->frame[0]].R), r->axis, e);
    memset(Y, 0, 6 * sizeof(double));
    memcpy(Y + (r->prismatic ? 0 : 3), e, sizeof(e));
}

/* Y . (X_b - X_a) for the frames' twists (acc = 0) or accelerations (acc = 1). */
static double relative(const pkm_mbs *s, const mbs_rotor *r, const double Y[6], int acc)
{
    double d = 0.0;
    for (int k = 0; k < 2; k++) {
        if (r->frame[k] < 0) continue;
        const double *X = acc ? s->fr[r->frame[k]].A : s->fr[r->frame[k]].V;
        for (int i = 0; i < 6; i++)
            d += (k == 1 ? 1.0 : -1.0) * Y[i] * X[i];
    }
    return d;
}

void mbs_rotor_wrenches(pkm_mbs *s)
{
    for (int i = 0; i < s->nrot; i++) {
        const mbs_rotor *r = &s->rot[i];
        double Y[6];
        rotor_wrench(s, r, Y);
        const double t = r->J * relative(s, r, Y, 1);
        for (int k = 0; k < 2; k++)
            if (r->frame[k] >= 0)
                for (int c = 0; c < 6; c++)
                    s->fr[r->frame[k]].f[c] += (k == 1 ? t : -t) * Y[c];
    }
}

double mbs_rotor_energy(const pkm_mbs *s)
{
    double T = 0.0;
    for (int i = 0; i < s->nrot; i++) {
        double Y[6];
        rotor_wrench(s, &s->rot[i], Y);
        const double d = relative(s, &s->rot[i], Y, 0);
        T += 0.5 * s->rot[i].J * d * d;
    }
    return T;
}
