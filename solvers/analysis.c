/* solvers/analysis.c: assemble and solve one pose, keeping the assembly's scatter map and the
 * symbolic analysis across poses.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "assembly/assembly_impl.h"
#include "pkm/analysis.h"
#include "solvers/solvers_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pkm_analysis {
    pkm_formulation form;
    pkm_eigensolver eig;
    pkm_modal_opts opts;
    pkm_asm_cache *cache; /* scatter map and pencil of the current topology */
    pkm_modal *solver;    /* symbolic analysis of the cache's pattern (ARPACK) ... */
    pkm_linsolve *ldlt;   /* ... or of its eigenvalue counter (dense) ... */
    int64_t version;      /* ... of this version */
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
    pkm_status rc = pkm_asm_cache_create(&a->cache, ctx);
    if (rc != PKM_OK) {
        free(a);
        return rc;
    }
    *out = a;
    return PKM_OK;
}

int pkm_analysis_symbolic_count(const pkm_analysis *a)
{
    return a->analyses;
}

void pkm_analysis_destroy(pkm_analysis **a)
{
    if (a == NULL || *a == NULL) return;
    pkm_modal_destroy(&(*a)->solver);
    pkm_linsolve_destroy(&(*a)->ldlt);
    pkm_asm_cache_destroy(&(*a)->cache);
    pkm_modes_destroy(&(*a)->modes);
    free(*a);
    *a = NULL;
}

/* The eigensolver's memory for n coordinates against RAM, before it allocates: dense, K and M
 * as full n x n matrices (LAPACK dsygvx), about 2 n^2 doubles; ARPACK, the Lanczos basis (ncv
 * vectors, 2 nev + 3 by default) and the nev modes. CHOLMOD's factor is left out: for these beam
 * meshes it is of the order of the pencil, and CHOLMOD reports its own lack of memory. */
static pkm_status check_solver_size(const pkm_analysis *a, int64_t n, pkm_ctx *ctx)
{
    const double nev = a->opts.nev, dn = (double)n;
    char what[160];
    if (a->eig == PKM_EIG_DENSE) {
        snprintf(what, sizeof(what), "the dense eigensolver for %lld coordinates", (long long)n);
        return pkm_memory_check(8.0 * dn * (2.0 * dn + nev + 12.0), what,
                                "use the sparse solver (--solver arpack)", ctx);
    }
    const double ncv = a->opts.ncv > 0 ? a->opts.ncv : fmax(2.0 * nev + 3.0, 12.0);
    snprintf(what, sizeof(what), "ARPACK for %lld coordinates and %d modes", (long long)n,
             a->opts.nev);
    return pkm_memory_check(8.0 * dn * (fmin(ncv, dn) + nev + 8.0), what,
                            "ask for fewer modes (--nev)", ctx);
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
    if ((rc = check_solver_size(a, p->n, ctx)) != PKM_OK) return rc;
    if (a->modes == NULL || a->modes->n != p->n) {
        pkm_modes_destroy(&a->modes);
        rc = pkm_modes_create(p->n, a->opts.nev, &a->modes, ctx);
        if (rc != PKM_OK) return rc;
    }
    if (a->eig == PKM_EIG_DENSE) {
        if (a->ldlt == NULL || version != a->version) {
            pkm_linsolve_destroy(&a->ldlt);
            rc = pkm_linsolve_create(p, PKM_LINSOLVE_LDLT, &a->ldlt, ctx);
            if (rc != PKM_OK) return rc;
            a->version = version;
            a->analyses++;
        }
        rc = pkm_modal_solve_dense_counted(p, &a->opts, a->ldlt, a->modes, ctx);
    } else {
        if (a->solver == NULL || version != a->version) {
            pkm_modal_destroy(&a->solver);
            rc = pkm_modal_create(p, &a->solver, ctx);
            if (rc != PKM_OK) return rc;
            a->version = version;
            a->analyses++;
        }
        rc = pkm_modal_solve(a->solver, p, &a->opts, a->modes, ctx);
    }
    /* A zero-energy mode is reported with the mode itself (pkm_modes.zero_modes). */
    if (rc == PKM_OK || (rc == PKM_ERR_SINGULAR && a->modes->zero_modes > 0)) *modes = a->modes;
    return rc;
}
