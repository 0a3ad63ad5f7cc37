/* tests/reference/mastrun.c: the chewing robot along its default motion by the reference routes
 * (mastrun.h; docs/dynamics.md, "The chewing robot").
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/mastrun.h"

#include "core/core_impl.h"

#include <math.h>
#include <string.h>

/* The three mechanisms: the one analysed (m: p's), the target whose contacts give the pose
 * (tg) and its 6-RSS twin (tw). */
typedef struct mast_set {
    pkm_mast m, tg, tw;
    int contacts; /* p->higher_pairs: m is tg */
} mast_set;

static pkm_status mast_build(const pkm_masticatory_params *p, mast_set *ms, pkm_ctx *ctx)
{
    pkm_masticatory_params q = *p;
    ms->contacts = p->higher_pairs != 0;
    q.higher_pairs = 1; /* the target gives the pose the twin replays */
    pkm_status st = pkm_masticatory_mechanism(&q, &ms->tg, ctx);
    q.higher_pairs = 0;
    if (st == PKM_OK) st = pkm_masticatory_mechanism(&q, &ms->tw, ctx);
    if (st == PKM_OK) ms->m = ms->contacts ? ms->tg : ms->tw;
    return st;
}

/* The target's state at time t on the default motion, and the twin's at the same pose (its
 * crank angles started from the target's on the first time: the same pose, the same angles). */
static pkm_status mast_states(const mast_set *ms, double t, int64_t k, pkm_mast_state *s,
                              pkm_mast_state *sw, pkm_ctx *ctx)
{
    double q[4], qd[4], qdd[4];
    pkm_masticatory_motion(t, q, qd, qdd);
    pkm_status st = pkm_mast_kinematics(&ms->tg, t, q, qd, qdd, s, ctx);
    if (st != PKM_OK || sw == NULL) return st;
    if (k == 0) memcpy(sw->th, s->th, sizeof(sw->th));
    return pkm_mast_kinematics(&ms->tw, t, s->X, s->Xd, s->Xdd, sw, ctx);
}

pkm_status pkm_mast_run(const pkm_masticatory_params *p, const pkm_mast_run_opts *o,
                        pkm_mast_sink sink, void *user, pkm_ctx *ctx)
{
    if (!(o->n >= 2) || !(o->t1 > o->t0) || !isfinite(o->t0) || !isfinite(o->t1))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "time grid %g:%g:%d: expected t1 > t0 and n >= 2",
                        o->t0, o->t1, o->n);
    /* The reference routes (mastref.h) have no joint friction: a law set in the case's dynamics
     * block would be ignored, so it is refused (the general path has it). */
    if (p->dynamics.friction_model != PKM_FRICTION_NONE)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "masticatory: the reference routes have no joint friction (friction.model "
                        "must be none; the general engine has it)");
    mast_set ms;
    pkm_status st = mast_build(p, &ms, ctx);
    if (st != PKM_OK) return st;
    pkm_mast_load load;
    memcpy(load.force, p->dynamics.load_force, sizeof(load.force));
    memcpy(load.point, p->dynamics.load_point, sizeof(load.point));
    const int twin = o->inertia || !ms.contacts; /* the twin's state is needed */
    pkm_mast_state s = {0}, sw = {0};
    for (int64_t k = 0; k < o->n && st == PKM_OK; k++) {
        const double t = k == o->n - 1 ? o->t1 : o->t0 + (o->t1 - o->t0) * (double)k / (o->n - 1);
        double MA[36], MAw[36], mci[6], twin_mci[6], mcib[6];
        pkm_mast_forces f;
        st = mast_states(&ms, t, k, &s, twin ? &sw : NULL, ctx);
        pkm_mast_row row = {.t = t, .step = k, .m = &ms.m, .s = ms.contacts ? &s : &sw};
        if (st == PKM_OK) st = pkm_mast_inverse(&ms.m, row.s, &load, &o->inv, &f, ctx);
        row.forces = &f;
        if (st == PKM_OK && o->inertia) {
            st = pkm_mast_joint_inertia(&ms.tg, &s, MA, mci, mcib, ctx);
            if (st == PKM_OK) st = pkm_mast_joint_inertia(&ms.tw, &sw, MAw, twin_mci, NULL, ctx);
            row.MA = MA, row.mci = mci, row.twin_mci = twin_mci, row.mcib = mcib;
        }
        if (st == PKM_OK && sink != NULL && sink(user, &row) != 0) break;
    }
    return st;
}
