/* solvers/analysis.c: assemble and solve one pose, keeping the symbolic analysis across poses.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "pkm/analysis.h"

#include <stdlib.h>
#include <string.h>

struct pkm_analysis {
    pkm_formulation form;
    pkm_eigensolver eig;
    pkm_modal_opts opts;
    pkm_modal *solver;   /* bound to the pattern below */
    int64_t n, nnz;      /* pattern of the analysed pencil */
    int64_t *colptr, *rowind;
    pkm_modes *modes;
};

pkm_status pkm_analysis_create(pkm_formulation form, pkm_eigensolver eig,
                               const pkm_modal_opts *opts, pkm_analysis **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (eig != PKM_EIG_ARPACK && eig != PKM_EIG_DENSE)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "analysis: unknown eigensolver %d", (int)eig);
    if (opts->nev < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "analysis: nev = %d must be >= 1", opts->nev);
    pkm_analysis *a = calloc(1, sizeof(*a));
    if (a == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate an analysis");
    a->form = form;
    a->eig = eig;
    a->opts = *opts;
    *out = a;
    return PKM_OK;
}

static void forget_pattern(pkm_analysis *a)
{
    pkm_modal_destroy(&a->solver);
    free(a->colptr);
    free(a->rowind);
    a->colptr = a->rowind = NULL;
    a->n = a->nnz = 0;
}

void pkm_analysis_destroy(pkm_analysis **a)
{
    if (a == NULL || *a == NULL) return;
    forget_pattern(*a);
    pkm_modes_destroy(&(*a)->modes);
    free(*a);
    *a = NULL;
}

static int same_pattern(const pkm_analysis *a, const pkm_pencil *p)
{
    return a->solver != NULL && a->n == p->n && a->nnz == p->nnz &&
           memcmp(a->colptr, p->colptr, sizeof(int64_t) * (size_t)(p->n + 1)) == 0 &&
           memcmp(a->rowind, p->rowind, sizeof(int64_t) * (size_t)p->nnz) == 0;
}

/* Analyse the pattern of p once; a new pattern (another mechanism) replaces the old one. */
static pkm_status bind_pattern(pkm_analysis *a, const pkm_pencil *p, pkm_ctx *ctx)
{
    if (same_pattern(a, p)) return PKM_OK;
    forget_pattern(a);
    a->colptr = malloc(sizeof(int64_t) * (size_t)(p->n + 1));
    a->rowind = malloc(sizeof(int64_t) * (size_t)(p->nnz > 0 ? p->nnz : 1));
    if (a->colptr == NULL || a->rowind == NULL) {
        forget_pattern(a);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the analysed pattern");
    }
    memcpy(a->colptr, p->colptr, sizeof(int64_t) * (size_t)(p->n + 1));
    memcpy(a->rowind, p->rowind, sizeof(int64_t) * (size_t)p->nnz);
    a->n = p->n;
    a->nnz = p->nnz;
    pkm_status rc = pkm_modal_create(p, &a->solver, ctx);
    if (rc != PKM_OK) forget_pattern(a);
    return rc;
}

pkm_status pkm_analysis_solve(pkm_analysis *a, const pkm_model *m, const pkm_modes **modes,
                              pkm_assembly_info *info, pkm_ctx *ctx)
{
    *modes = NULL;
    pkm_pencil *p = NULL;
    pkm_status rc = pkm_assemble(m, a->form, &p, info, ctx);
    if (rc != PKM_OK) return rc;
    if (a->opts.nev >= p->n) {
        rc = PKM_FAIL(ctx, PKM_ERR_INVALID, "nev = %d modes asked of a model with %lld coordinates",
                      a->opts.nev, (long long)p->n);
        goto done;
    }
    if (a->modes == NULL || a->modes->n != p->n) {
        pkm_modes_destroy(&a->modes);
        rc = pkm_modes_create(p->n, a->opts.nev, &a->modes, ctx);
        if (rc != PKM_OK) goto done;
    }
    if (a->eig == PKM_EIG_DENSE) {
        rc = pkm_modal_solve_dense(p, &a->opts, a->modes, ctx);
    } else {
        rc = bind_pattern(a, p, ctx);
        if (rc == PKM_OK) rc = pkm_modal_solve(a->solver, p, &a->opts, a->modes, ctx);
    }
    if (rc == PKM_OK) *modes = a->modes;
done:
    pkm_pencil_destroy(&p);
    return rc;
}
