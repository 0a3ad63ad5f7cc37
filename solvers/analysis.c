/* solvers/analysis.c: assemble and solve one pose, keeping the symbolic analysis across poses.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "assembly/assembly_impl.h"
#include "pkm/analysis.h"

#include <stdlib.h>
#include <string.h>

struct pkm_analysis {
    pkm_formulation form;
    pkm_eigensolver eig;
    pkm_modal_opts opts;
    pkm_modal *solver; /* bound to the pattern below */
    int64_t n, nnz;    /* pattern of the analysed pencil */
    int64_t *colptr, *rowind;
    pkm_modes *modes;
    int analyses; /* symbolic analyses done so far */
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

int pkm_analysis_symbolic_count(const pkm_analysis *a)
{
    return a->analyses;
}

void pkm_analysis_destroy(pkm_analysis **a)
{
    if (a == NULL || *a == NULL) return;
    forget_pattern(*a);
    pkm_modes_destroy(&(*a)->modes);
    free(*a);
    *a = NULL;
}

/* Whether every entry of p is in the analysed pattern; if so, *out is p's values scattered
 * into that pattern (zeros elsewhere). Columns are sorted, so one merge walk per column. */
static pkm_status scatter_into_pattern(const pkm_analysis *a, const pkm_pencil *p, pkm_pencil **out,
                                       int *subset, pkm_ctx *ctx)
{
    *subset = 0;
    *out = NULL;
    if (a->solver == NULL || a->n != p->n) return PKM_OK;
    for (int64_t j = 0; j < p->n; j++) {
        int64_t q = a->colptr[j];
        for (int64_t r = p->colptr[j]; r < p->colptr[j + 1]; r++) {
            while (q < a->colptr[j + 1] && a->rowind[q] < p->rowind[r])
                q++;
            if (q == a->colptr[j + 1] || a->rowind[q] != p->rowind[r]) return PKM_OK;
        }
    }
    *subset = 1;
    pkm_status rc = pkm_pencil_alloc(a->n, a->nnz, out, ctx);
    if (rc != PKM_OK) return rc;
    pkm_pencil *u = *out;
    memcpy(u->colptr, a->colptr, sizeof(int64_t) * (size_t)(a->n + 1));
    memcpy(u->rowind, a->rowind, sizeof(int64_t) * (size_t)a->nnz);
    for (int64_t j = 0; j < p->n; j++) {
        int64_t q = a->colptr[j];
        for (int64_t r = p->colptr[j]; r < p->colptr[j + 1]; r++) {
            while (a->rowind[q] < p->rowind[r])
                q++;
            u->k[q] = p->k[r];
            u->m[q] = p->m[r];
        }
    }
    return PKM_OK;
}

/* Analyse the union of the current pattern and p's: entries that are zero at one pose (a beam
 * parallel to an axis, a symmetric pose) may not be at the next, so the pattern grows to the
 * structural one after a few poses and the symbolic analysis is then reused for good. *out is
 * p expanded to the new pattern. */
static pkm_status analyse_union(pkm_analysis *a, const pkm_pencil *p, pkm_pencil **out,
                                pkm_ctx *ctx)
{
    *out = NULL;
    const int keep = (a->solver != NULL && a->n == p->n);
    pkm_trip t;
    pkm_status rc = pkm_trip_init(&t, p->n, ctx);
    if (rc != PKM_OK) return rc;
    /* Old entries enter with zero values so that they stay in the pattern. */
    for (int64_t j = 0; keep && rc == PKM_OK && j < a->n; j++)
        for (int64_t q = a->colptr[j]; rc == PKM_OK && q < a->colptr[j + 1]; q++)
            rc = pkm_trip_add_entry(&t, a->rowind[q], j, 0.0, 0.0, ctx);
    for (int64_t j = 0; rc == PKM_OK && j < p->n; j++)
        for (int64_t q = p->colptr[j]; rc == PKM_OK && q < p->colptr[j + 1]; q++)
            rc = pkm_trip_add_entry(&t, p->rowind[q], j, p->k[q], p->m[q], ctx);
    if (rc == PKM_OK) rc = pkm_trip_to_pencil(&t, out, ctx);
    pkm_trip_free(&t);
    if (rc != PKM_OK) return rc;
    const pkm_pencil *u = *out;
    forget_pattern(a);
    a->colptr = malloc(sizeof(int64_t) * (size_t)(u->n + 1));
    a->rowind = malloc(sizeof(int64_t) * (size_t)(u->nnz > 0 ? u->nnz : 1));
    if (a->colptr == NULL || a->rowind == NULL) {
        forget_pattern(a);
        pkm_pencil_destroy(out);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the analysed pattern");
    }
    memcpy(a->colptr, u->colptr, sizeof(int64_t) * (size_t)(u->n + 1));
    memcpy(a->rowind, u->rowind, sizeof(int64_t) * (size_t)u->nnz);
    a->n = u->n;
    a->nnz = u->nnz;
    a->analyses++;
    rc = pkm_modal_create(u, &a->solver, ctx);
    if (rc != PKM_OK) {
        forget_pattern(a);
        pkm_pencil_destroy(out);
    }
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
        pkm_pencil *u = NULL;
        int subset = 0;
        rc = scatter_into_pattern(a, p, &u, &subset, ctx);
        if (rc == PKM_OK && !subset) rc = analyse_union(a, p, &u, ctx);
        if (rc == PKM_OK) rc = pkm_modal_solve(a->solver, u, &a->opts, a->modes, ctx);
        pkm_pencil_destroy(&u);
    }
    if (rc == PKM_OK) *modes = a->modes;
done:
    pkm_pencil_destroy(&p);
    return rc;
}
