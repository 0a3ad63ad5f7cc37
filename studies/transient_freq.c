/* studies/transient_freq.c: the natural frequencies along a transient run, at every
 * configuration update, from the pencil (M(q), K(q)) that the Newmark step uses.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "studies/studies_impl.h"
#include "core/core_impl.h"

pkm_status pkm_tr_freq_update(pkm_tr_freq *f, const pkm_pencil *p, int64_t version, int nev,
                              double t, pkm_ctx *ctx)
{
    pkm_status st = PKM_OK;
    if (f->solver == NULL || f->version != version) {
        pkm_modal_destroy(&f->solver);
        if ((st = pkm_modal_create(p, &f->solver, ctx)) != PKM_OK) return st;
        f->version = version;
    }
    if (f->modes == NULL && (st = pkm_modes_create(p->n, nev, &f->modes, ctx)) != PKM_OK) return st;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    pkm_ctx in;
    pkm_ctx_clear(&in);
    st = pkm_modal_solve(f->solver, p, &o, f->modes, &in);
    return st == PKM_OK ? PKM_OK : PKM_FAIL(ctx, st, "t = %.6g s: frequencies: %s", t, in.msg);
}

void pkm_tr_freq_free(pkm_tr_freq *f)
{
    pkm_modal_destroy(&f->solver);
    pkm_modes_destroy(&f->modes);
}
