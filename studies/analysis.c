/* studies/analysis.c: assemble and solve one pose, keeping the assembly's scatter map and the
 * symbolic analysis across poses.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "pkm/analysis.h"
#include "pkm/fem.h"

#include <stdlib.h>

struct pkm_analysis {
    pkm_formulation form;
    const pkm_eigensolver_type *eig;
    pkm_modal_opts opts;
    pkm_asm_cache *cache; /* scatter map and pencil of the current topology */
    void *solver;         /* the eigensolver bound to the cache's pattern ... */
    int64_t version;      /* ... of this version */
    pkm_modes *modes;
    int analyses; /* symbolic analyses done so far */
};

pkm_status pkm_analysis_create(pkm_formulation form, pkm_eigensolver eig,
                               const pkm_modal_opts *opts, pkm_analysis **out, pkm_ctx *ctx)
{
    *out = NULL;
    const pkm_eigensolver_type *type = pkm_eigensolver_type_of(eig);
    if (type == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "analysis: unknown eigensolver %d", (int)eig);
    if (opts->nev < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "analysis: nev = %d must be >= 1", opts->nev);
    pkm_analysis *a = calloc(1, sizeof(*a));
    if (a == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate an analysis");
    a->form = form;
    a->eig = type;
    a->opts = *opts;
    pkm_status rc = pkm_asm_cache_create(&a->cache, ctx);
    if (rc != PKM_OK) {
        free(a);
        return rc;
    }
    *out = a;
    return PKM_OK;
}

pkm_status pkm_analysis_keep_dofmap(pkm_analysis *a, pkm_ctx *ctx)
{
    return pkm_asm_cache_keep_dofmap(a->cache, ctx);
}

const pkm_dofmap *pkm_analysis_dofmap(const pkm_analysis *a)
{
    return pkm_asm_cache_dofmap(a->cache);
}

/* The dof map and mode k's reduced coordinates, or PKM_ERR_INVALID. */
static pkm_status mode_vector(const pkm_analysis *a, int k, const pkm_dofmap **map,
                              const double **x, pkm_ctx *ctx)
{
    *map = pkm_asm_cache_dofmap(a->cache);
    if (*map == NULL || a->modes == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "mode displacements: no dof map kept (pkm_analysis_keep_dofmap) or no "
                        "solve done");
    if (k < 0 || k >= a->modes->nev || pkm_dofmap_reduced_count(*map) != a->modes->n)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "mode displacements: no mode %d of %d", k,
                        a->modes->nev);
    *x = a->modes->vectors + (size_t)k * (size_t)a->modes->n;
    return PKM_OK;
}

pkm_status pkm_analysis_mode_displacements(const pkm_analysis *a, int k, double *u, pkm_ctx *ctx)
{
    const pkm_dofmap *map = NULL;
    const double *x = NULL;
    const pkm_status rc = mode_vector(a, k, &map, &x, ctx);
    if (rc == PKM_OK) pkm_dofmap_prolong(map, x, u);
    return rc;
}

pkm_status pkm_analysis_mode_curvatures(const pkm_analysis *a, const pkm_model *m, int k,
                                        double *kappa, pkm_ctx *ctx)
{
    const pkm_dofmap *map = NULL;
    const double *x = NULL;
    const pkm_status rc = mode_vector(a, k, &map, &x, ctx);
    if (rc != PKM_OK) return rc;
    for (int e = 0; e < pkm_model_element_count(m); e++) {
        const pkm_body *b = pkm_model_body(m, pkm_model_elem(m, e)->body);
        const int ncurv = pkm_beam_types[b->element].dofs_per_node - 6;
        for (int side = 0; side < 2; side++) {
            const int64_t c = pkm_dofmap_element_curvature(map, e, side);
            for (int i = 0; i < 3; i++)
                kappa[6 * e + 3 * side + i] = c >= 0 && i < ncurv ? x[c + i] : 0.0;
        }
    }
    return PKM_OK;
}

int pkm_analysis_symbolic_count(const pkm_analysis *a)
{
    return a->analyses;
}

void pkm_analysis_destroy(pkm_analysis **a)
{
    if (a == NULL || *a == NULL) return;
    (*a)->eig->destroy(&(*a)->solver);
    pkm_asm_cache_destroy(&(*a)->cache);
    pkm_modes_destroy(&(*a)->modes);
    free(*a);
    *a = NULL;
}

void pkm_analysis_forget(pkm_analysis *a)
{
    if (a != NULL && a->solver != NULL && a->eig->forget != NULL) a->eig->forget(a->solver);
}

void pkm_analysis_walk(pkm_analysis *a, int line, int parallelogram)
{
    if (a != NULL && a->solver != NULL && a->eig->walk != NULL)
        a->eig->walk(a->solver, line, parallelogram);
}

pkm_status pkm_analysis_solve(pkm_analysis *a, const pkm_model *m, const pkm_modes **modes,
                              pkm_assembly_info *info, pkm_ctx *ctx)
{
    *modes = NULL;
    const pkm_pencil *p = NULL;
    int64_t version = 0;
    /* The pattern of the cache's pencil is the pose's own (assembly/triplets.c): it changes with
     * the topology or at a pose with exact zeros, and only then is the symbolic analysis redone. */
    pkm_status rc = pkm_assemble_cached(m, a->form, a->cache, &p, &version, info, ctx);
    if (rc != PKM_OK) return rc;
    if (a->opts.nev >= p->n)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "nev = %d modes asked of a model with %lld coordinates", a->opts.nev,
                        (long long)p->n);
    /* The solver's memory depends on the pattern's order only: checked when it changes. */
    const int fresh = a->solver == NULL || version != a->version;
    if (fresh && (rc = a->eig->check_size(p->n, &a->opts, ctx)) != PKM_OK) return rc;
    if (a->modes == NULL || a->modes->n != p->n) {
        pkm_modes_destroy(&a->modes);
        rc = pkm_modes_create(p->n, a->opts.nev, &a->modes, ctx);
        if (rc != PKM_OK) return rc;
    }
    if (fresh) {
        a->eig->destroy(&a->solver);
        rc = a->eig->create(p, &a->solver, ctx);
        if (rc != PKM_OK) return rc;
        a->version = version;
        a->analyses++;
    }
    rc = a->eig->solve(a->solver, p, &a->opts, a->modes, ctx);
    /* A zero-energy mode is reported with the mode itself (pkm_modes.zero_modes). */
    if (rc == PKM_OK || (rc == PKM_ERR_SINGULAR && a->modes->zero_modes > 0)) *modes = a->modes;
    return rc;
}
