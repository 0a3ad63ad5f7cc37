/* studies/transient_loads.c: the KED driver's loads beyond the rigid motion's inertia: the
 * external wrench on the platform and the elastic drives' feed-forward.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "studies/transient_impl.h"
#include "pkm/spatial.h"
#include "core/core_impl.h"

#include <math.h>

pkm_status pkm_transient_wrench_at(const pkm_transient_opts *o, double t, double w[6], pkm_ctx *ctx)
{
    for (int k = 0; k < 6; k++)
        w[k] = o->wrench[k];
    if (o->wrench_series == NULL) return PKM_OK;
    double a = 0.0, b = 0.0, s[6];
    pkm_trajectory_span(o->wrench_series, &a, &b);
    const pkm_status st =
        pkm_trajectory_eval(o->wrench_series, fmin(fmax(t, a), b), s, NULL, NULL, ctx);
    for (int k = 0; k < 6 && st == PKM_OK; k++)
        w[k] += s[k];
    for (int k = 0; k < 6 && st == PKM_OK; k++)
        if (!(fabs(w[k]) <= PKM_TRANSIENT_WRENCH_MAX))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "t = %.6g s: wrench component %d = %g is outside [-%g, %g] (N, N m)", t,
                            k + 1, w[k], PKM_TRANSIENT_WRENCH_MAX, PKM_TRANSIENT_WRENCH_MAX);
    return st;
}

pkm_status pkm_transient_drive_spring(const pkm_model *m, int j, const char *name, double *k,
                                      pkm_ctx *ctx)
{
    const pkm_joint *jt = pkm_model_joint(m, j);
    *k = jt->stiffness[0][0];
    if ((jt->type != PKM_JOINT_REVOLUTE && jt->type != PKM_JOINT_PRISMATIC) || !(*k > 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "elastic drive '%s': its joint '%s' in the finite-element model has no "
                        "drive stiffness (set the case's drive spring, e.g. motor.k or clutch.k1)",
                        name, jt->name);
    return PKM_OK;
}

double pkm_transient_joint_coord(const pkm_joint *jt, const double ua[6], const double ub[6])
{
    const int off = jt->type == PKM_JOINT_PRISMATIC ? 0 : 3;
    double d[3];
    pkm_vec3_sub(ub + off, ua + off, d);
    return pkm_vec3_dot(jt->axis, d);
}

void pkm_transient_joint_load(const pkm_joint *jt, double tau, double *fn)
{
    const int off = jt->type == PKM_JOINT_PRISMATIC ? 0 : 3;
    for (int s = 0; s < 2; s++) {
        if (jt->node[s] < 0) continue;
        for (int k = 0; k < 3; k++)
            fn[6 * jt->node[s] + off + k] += (s == 0 ? -tau : tau) * jt->axis[k];
    }
}
