/* studies/analysis.c: assemble and solve one pose, keeping the assembly's scatter map and the
 * symbolic analysis across poses.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "pkm/analysis.h"
#include "pkm/fem.h"
#include "pkm/modeinfo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The joints named in a zero-energy mode's failure: at most this many, those moved at least
 * PKM_ZERO_MODE_JOINT_SHARE of the most moved one's motion (the clamped joints' relative motion
 * is rounding, some 1e-12 of it). */
#define PKM_ZERO_MODE_JOINTS      6
#define PKM_ZERO_MODE_JOINT_SHARE 1e-6

/* The solver's zero-energy failure (in) led by the joints the zero-energy modes move, summed over
 * them (each mode's motions over their largest: a mechanism of several degrees of freedom has as
 * many such modes, each some mix of its motions), most moved first: "the mechanism mode moves
 * joints A1, B1 (joint motion 1, 0.62): mode 1 is ...". The solver knows only coordinate
 * indices; the pose's dof map is built here for the message (a failure, not the hot path). */
static pkm_status zero_mode_failure(const pkm_analysis *a, const pkm_model *m, const pkm_ctx *in,
                                    pkm_ctx *ctx)
{
    const int nj = pkm_model_joint_count(m);
    pkm_dofmap *map = NULL;
    double *sum = calloc(2 * (size_t)nj + 1, sizeof *sum), *one = sum + nj; /* nj each */
    pkm_ctx quiet;
    pkm_ctx_clear(&quiet);
    pkm_status st = sum == NULL ? PKM_ERR_NOMEM : pkm_dofmap_create(m, a->form, &map, &quiet);
    for (int k = 0; k < a->modes->zero_modes && st == PKM_OK; k++) {
        st = pkm_mode_joint_motion(m, map, a->modes->vectors + (size_t)k * (size_t)a->modes->n, one,
                                   &quiet);
        double top = 0.0;
        for (int j = 0; j < nj; j++)
            top = fmax(top, one[j]);
        for (int j = 0; j < nj && top > 0.0; j++)
            sum[j] += one[j] / top;
    }
    char names[200] = "", values[120] = "";
    size_t ln = 0, lv = 0;
    double first = 0.0; /* the most moved joint's motion */
    for (int n = 0; n < PKM_ZERO_MODE_JOINTS && st == PKM_OK; n++) {
        int best = -1;
        for (int j = 0; j < nj; j++)
            if (sum[j] > 0.0 && (best < 0 || sum[j] > sum[best])) best = j;
        if (best < 0 || sum[best] < PKM_ZERO_MODE_JOINT_SHARE * first) break;
        if (n == 0) first = sum[best];
        ln += (size_t)snprintf(names + ln, ln < sizeof names ? sizeof names - ln : 0, "%s%s",
                               n ? ", " : "", pkm_model_joint(m, best)->name);
        lv += (size_t)snprintf(values + lv, lv < sizeof values ? sizeof values - lv : 0, "%s%.2g",
                               n ? ", " : "", sum[best] / first);
        sum[best] = 0.0;
    }
    pkm_dofmap_destroy(&map);
    free(sum);
    if (ln == 0) { /* no joint moves (a free body) or the map failed: the solver's words */
        if (ctx != NULL && ctx->status == PKM_OK) *ctx = *in;
        return PKM_ERR_SINGULAR;
    }
    const int nz = a->modes->zero_modes;
    return PKM_FAIL(ctx, PKM_ERR_SINGULAR, "%s move%s joint%s %s (joint motion %s): %s",
                    nz > 1 ? "the mechanism modes" : "the mechanism mode", nz > 1 ? "" : "s",
                    strchr(names, ',') != NULL ? "s" : "", names, values, in->msg);
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
    pkm_ctx in;
    pkm_ctx_clear(&in);
    rc = a->eig->solve(a->solver, p, &a->opts, a->modes, &in);
    /* A zero-energy mode is reported with the mode itself (pkm_modes.zero_modes), named by the
     * joints it moves. */
    if (rc == PKM_ERR_SINGULAR && a->modes->zero_modes > 0) {
        *modes = a->modes;
        return zero_mode_failure(a, m, &in, ctx);
    }
    if (rc == PKM_OK) *modes = a->modes;
    if (rc != PKM_OK && ctx != NULL && ctx->status == PKM_OK) *ctx = in;
    return rc;
}
