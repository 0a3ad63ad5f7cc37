/* tests/chain_util.h: what the module-chain suites share: the crane's machines and their
 * default motion.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_CHAIN_UTIL_H
#define PKM_TEST_CHAIN_UTIL_H

#include "test_util.h"

#include "pkm/chain.h"
#include "pkm/hiab.h"
#include "pkm/trajectory.h"

static inline pkm_chain *machine(const char *name)
{
    pkm_chain *c = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_hiab_chain(name, &c, &ctx), &ctx);
    return c;
}

/* The machine's default motion (its sinusoids over 10 s) at t. */
static inline void motion(const char *name, double t, double *q, double *qd, double *qdd)
{
    const pkm_case *c = pkm_case_find(name); /* the cases boom1, crane4 */
    assert_non_null(c);
    const pkm_traj_desc *d = &c->traj[0];
    const int n = c->npose;
    pkm_trajectory *tr = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_create_analytic(d, n, &tr, &ctx), &ctx);
    assert_pkm_ok(pkm_trajectory_eval(tr, t, q, qd, qdd, &ctx), &ctx);
    pkm_trajectory_destroy(&tr);
}

#endif
