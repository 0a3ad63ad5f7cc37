/* solvers/eigensolver.c: the eigensolver type table (pkm/eigensolver.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/eigensolver.h"
#include "solvers/solvers_impl.h"
#include "core/core_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ARPACK's memory for n coordinates: the Lanczos basis (ncv vectors, 2 nev + 3 by default) and
 * the nev modes. CHOLMOD's factor is left out: for these beam meshes it is of the order of the
 * pencil, and CHOLMOD reports its own lack of memory. */
static pkm_status arpack_check_size(int64_t n, const pkm_modal_opts *opts, pkm_ctx *ctx)
{
    const double nev = opts->nev, dn = (double)n;
    const double ncv = opts->ncv > 0 ? opts->ncv : fmax(2.0 * nev + 3.0, 12.0);
    char what[160];
    snprintf(what, sizeof(what), "ARPACK for %lld coordinates and %d modes", (long long)n,
             opts->nev);
    return pkm_memory_check(8.0 * dn * (fmin(ncv, dn) + nev + 8.0), what,
                            "ask for fewer modes (--nev)", ctx);
}

static pkm_status arpack_create(const pkm_pencil *pattern, void **solver, pkm_ctx *ctx)
{
    pkm_modal *s = NULL;
    const pkm_status rc = pkm_modal_create(pattern, &s, ctx);
    *solver = s;
    return rc;
}

static pkm_status arpack_solve(void *solver, const pkm_pencil *p, const pkm_modal_opts *opts,
                               pkm_modes *out, pkm_ctx *ctx)
{
    return pkm_modal_solve(solver, p, opts, out, ctx);
}

static void arpack_destroy(void **solver)
{
    pkm_modal *s = *solver;
    pkm_modal_destroy(&s);
    *solver = NULL;
}

/* Dense: K and M as full n x n matrices (LAPACK dsygvx), about 2 n^2 doubles. */
static pkm_status dense_check_size(int64_t n, const pkm_modal_opts *opts, pkm_ctx *ctx)
{
    const double dn = (double)n;
    char what[160];
    snprintf(what, sizeof(what), "the dense eigensolver for %lld coordinates", (long long)n);
    return pkm_memory_check(8.0 * dn * (2.0 * dn + opts->nev + 12.0), what,
                            "use the sparse solver (--solver arpack)", ctx);
}

/* The dense solver's state is the eigenvalue counter of its completeness check (LDL^T). */
static pkm_status dense_create(const pkm_pencil *pattern, void **solver, pkm_ctx *ctx)
{
    pkm_linsolve *ldlt = NULL;
    const pkm_status rc = pkm_linsolve_create(pattern, PKM_LINSOLVE_LDLT, &ldlt, ctx);
    *solver = ldlt;
    return rc;
}

static pkm_status dense_solve(void *solver, const pkm_pencil *p, const pkm_modal_opts *opts,
                              pkm_modes *out, pkm_ctx *ctx)
{
    return pkm_modal_solve_dense_counted(p, opts, solver, out, ctx);
}

static void dense_destroy(void **solver)
{
    pkm_linsolve *ldlt = *solver;
    pkm_linsolve_destroy(&ldlt);
    *solver = NULL;
}

/* Block: ARPACK's memory (cold starts, fallbacks) plus five n x (nev + guards) blocks. */
static pkm_status block_check_size(int64_t n, const pkm_modal_opts *opts, pkm_ctx *ctx)
{
    const double bs = opts->nev + (opts->block_guards > 0 ? opts->block_guards : 4);
    char what[160];
    snprintf(what, sizeof(what), "the block eigensolver for %lld coordinates and %d modes",
             (long long)n, opts->nev);
    pkm_status rc = arpack_check_size(n, opts, ctx);
    if (rc == PKM_OK)
        rc = pkm_memory_check(8.0 * (double)n * 5.0 * bs, what, "ask for fewer modes (--nev)", ctx);
    return rc;
}

const pkm_eigensolver_type pkm_eigensolver_types[PKM_EIGENSOLVER_COUNT] = {
    [PKM_EIG_ARPACK] = {PKM_EIG_ARPACK, "arpack",
                        "sparse shift-invert Lanczos (ARPACK-ng + CHOLMOD)", arpack_check_size,
                        arpack_create, arpack_solve, arpack_destroy, NULL, NULL},
    [PKM_EIG_DENSE] = {PKM_EIG_DENSE, "dense", "LAPACK dsygvx (reference, small models)",
                       dense_check_size, dense_create, dense_solve, dense_destroy, NULL, NULL},
    [PKM_EIG_BLOCK] = {PKM_EIG_BLOCK, "block",
                       "block subspace iteration warm-started from the previous pose, "
                       "ARPACK as fallback",
                       block_check_size, pkm_block_create, pkm_block_solve, pkm_block_destroy,
                       pkm_block_forget, pkm_block_walk},
};

const pkm_eigensolver_type *pkm_eigensolver_type_of(pkm_eigensolver e)
{
    return (unsigned)e < PKM_EIGENSOLVER_COUNT ? &pkm_eigensolver_types[e] : NULL;
}

const pkm_eigensolver_type *pkm_eigensolver_type_find(const char *name)
{
    for (int k = 0; k < PKM_EIGENSOLVER_COUNT; k++)
        if (name != NULL && strcmp(name, pkm_eigensolver_types[k].name) == 0)
            return &pkm_eigensolver_types[k];
    return NULL;
}
