/* dynamics/walk.c: the loop closure followed along a straight path of the driven coordinates, so
 * that a configuration far from the last closed one is reached on the same branch.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/dynamics_impl.h"

#include "core/core_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pkm_mbs_walk_steps(const pkm_mbs *s, const double *qa)
{
    double n = 1.0;
    for (int k = 0; k < s->nd; k++) {
        const double from = s->q[s->driven[k]];
        const double bound = s->fr[s->coord_frame[s->driven[k]]].prismatic
                                 ? PKM_DYN_WALK_STEP * s->size
                                 : PKM_DYN_WALK_ANGLE;
        n = fmax(n, ceil(fabs(qa[k] - from) / bound));
    }
    return (int)fmin(n, 1e4);
}

pkm_status pkm_mbs_walk(pkm_mbs *s, const double *qa, double t_from, double t_to, double *reached,
                        pkm_ctx *ctx)
{
    if (reached != NULL) *reached = 0.0;
    const size_t nq = (size_t)s->nq, nd = (size_t)s->nd;
    double *buf = calloc(2 * nq + 3 * nd + 1, sizeof(double));
    if (buf == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the closure's walk");
    double *qok = buf, *zero = buf + nq, *from = zero + nq, *cur = from + nd, *zd = cur + nd;
    memcpy(qok, s->q, nq * sizeof(double));
    for (size_t k = 0; k < nd; k++)
        from[k] = s->q[s->driven[k]];
    /* At rest: the walk is a path, not a motion (no Taylor step from the last rates). */
    pkm_mbs_set_state(s, NULL, zero, zero);
    double t = 0.0, dt = 1.0 / pkm_mbs_walk_steps(s, qa);
    int halvings = 0;
    pkm_status rc = PKM_OK;
    pkm_ctx local;
    while (t < 1.0 && rc == PKM_OK) {
        const double t1 = fmin(1.0, t + dt);
        for (size_t k = 0; k < nd; k++)
            cur[k] = t1 < 1.0 ? from[k] + t1 * (qa[k] - from[k]) : qa[k];
        pkm_ctx_clear(&local);
        const pkm_status st =
            pkm_mbs_kinematics(s, t_from + t1 * (t_to - t_from), cur, zd, zd, &local);
        if (st == PKM_OK) {
            memcpy(qok, s->q, nq * sizeof(double));
            t = t1;
        } else if (st == PKM_ERR_SINGULAR && halvings < PKM_DYN_WALK_HALVINGS) {
            pkm_mbs_set_state(s, qok, zero, zero);
            dt *= 0.5;
            halvings++;
        } else {
            rc = PKM_FAIL(ctx, st, "%s", local.msg);
        }
    }
    if (reached != NULL) *reached = t;
    free(buf);
    return rc;
}
