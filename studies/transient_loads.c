/* studies/transient_loads.c: the KED driver's loads beyond the rigid motion's inertia: the
 * external wrench on the platform, the elastic drives' feed-forward, the rotors' inertia; and
 * the check of every row.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "studies/transient_impl.h"
#include "pkm/dofmap.h"
#include "pkm/spatial.h"
#include "core/core_impl.h"

#include <math.h>

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

/* The relative acceleration d'' = Y . (A_b - A_a) of a joint's first free coordinate in the
 * rigid motion (bodies b, current axis e), Y = (0, e) or (e, 0) (the rigid model's reading of a
 * rotor, dynamics/lumped.c: e turns with body_a, and e' . (V_b - V_a) vanishes). */
double pkm_tr_joint_accel(const double (*VA)[12], int prismatic, const int b[2], const double e[3])
{
    const int off = prismatic ? 6 : 9;
    double d = 0.0;
    for (int k = 0; k < 2; k++)
        if (b[k] >= 0) d += (k == 1 ? 1.0 : -1.0) * pkm_vec3_dot(e, VA[b[k]] + off);
    return d;
}

/* Rotor inertias J on the finite-element joints' coordinates: -J d'' of the rigid motion. */
void pkm_tr_rotor_loads(const pkm_model *fe, const pkm_dofmap *map, const double (*VA)[12],
                        double *f)
{
    for (int j = 0; j < pkm_model_joint_count(fe); j++) {
        const pkm_joint *jf = pkm_model_joint(fe, j);
        const int64_t c = pkm_dofmap_joint_coordinate(map, j, NULL);
        if (jf->rotor_inertia[0] != 0.0 && c >= 0)
            f[c] -= jf->rotor_inertia[0] *
                    pkm_tr_joint_accel(VA, jf->type == PKM_JOINT_PRISMATIC, jf->body, jf->axis);
    }
}

/* A row leaves only finite: its errors, quasi-static errors, energies and frequencies (a
 * response that overflowed is a failed computation naming the time, never numbers). */
pkm_status pkm_tr_row_finite(const pkm_transient_row *row, pkm_ctx *ctx)
{
    int ok = isfinite(row->energy.kinetic) && isfinite(row->energy.strain) &&
             isfinite(row->energy.dissipated) && isfinite(row->energy.work);
    for (int k = 0; k < 6; k++)
        ok = ok && isfinite(row->error[k]) && isfinite(row->quasi_static[k]);
    for (int k = 0; k < row->nfreq; k++)
        ok = ok && isfinite(row->freq[k]);
    return ok ? PKM_OK
              : PKM_FAIL(ctx, PKM_ERR_SOLVER,
                         "t = %.6g s: the response is not finite (the loads or the step "
                         "overflowed)",
                         row->t);
}
