/* solvers/rayleigh_modes.c: Rayleigh damping from two damping ratios at two mode numbers.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/modal.h"
#include "pkm/newmark.h"
#include "core/core_impl.h"

pkm_status pkm_rayleigh_from_modes(const pkm_pencil *p, double zeta1, int mode1, double zeta2,
                                   int mode2, double *l1, double *l2, double f[2], pkm_ctx *ctx)
{
    if (p == NULL || p->n < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "damping by modes needs a pencil of order >= 1");
    if (mode1 < 1 || mode2 < 1 || mode1 > p->n || mode2 > p->n)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "damping modes %d and %d: mode numbers run from 1 to %lld", mode1, mode2,
                        (long long)p->n);
    if (mode1 == mode2)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "damping modes are equal (mode %d)", mode1);
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = mode1 > mode2 ? mode1 : mode2;
    pkm_modal *solver = NULL;
    pkm_modes *modes = NULL;
    pkm_status st = pkm_modal_create(p, &solver, ctx);
    if (st == PKM_OK) st = pkm_modes_create(p->n, o.nev, &modes, ctx);
    if (st == PKM_OK) st = pkm_modal_solve(solver, p, &o, modes, ctx);
    if (st == PKM_OK) {
        const double fa = modes->freq_hz[mode1 - 1], fb = modes->freq_hz[mode2 - 1];
        st = pkm_rayleigh_from_ratios(zeta1, fa, zeta2, fb, l1, l2, ctx);
        if (st == PKM_OK && f != NULL) f[0] = fa, f[1] = fb;
    }
    pkm_modes_destroy(&modes);
    pkm_modal_destroy(&solver);
    return st;
}
