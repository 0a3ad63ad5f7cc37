/* solvers/sweep.c: frequency maps: one modal analysis per grid point, failures kept as data.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "pkm/map.h"

#include <math.h>
#include <string.h>

/* How a failed pose is recorded; 0 if the failure must stop the sweep instead. */
static int pose_status_of(pkm_status st)
{
    switch (st) {
    case PKM_ERR_UNREACHABLE:
        return PKM_POSE_UNREACHABLE;
    case PKM_ERR_SINGULAR:
        return PKM_POSE_SINGULAR;
    case PKM_ERR_SOLVER:
    case PKM_ERR_NOCONV:
    case PKM_ERR_ACCURACY:
        return PKM_POSE_FAILED;
    default:
        return 0;
    }
}

pkm_status pkm_map_sweep(const pkm_case *c, const void *params, pkm_map *map,
                         pkm_progress_fn progress, void *user, pkm_ctx *ctx)
{
    if (map->status == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map sweep: map arrays not allocated");
    if (map->npose != c->npose)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map sweep: map has %d pose coordinates, case '%s' %d",
                        map->npose, c->name, c->npose);
    pkm_modal_opts opts = map->opts;
    opts.nev = map->nev;
    pkm_analysis *an = NULL;
    pkm_status rc = pkm_analysis_create(map->formulation, map->eigensolver, &opts, &an, ctx);
    if (rc != PKM_OK) return rc;
    int64_t done = 0;
    for (int64_t p = 0; p < map->npoints && rc == PKM_OK; p++) {
        if (map->status[p] != PKM_POSE_PENDING) {
            done++;
            continue;
        }
        double pose[16];
        pkm_map_pose(map, p, pose);
        pkm_model *m = NULL;
        const pkm_modes *md = NULL;
        pkm_assembly_info info;
        /* Per-pose failures go to a scratch context: they are data, not the sweep's error. */
        pkm_ctx pctx;
        pkm_ctx_clear(&pctx);
        pkm_status st = c->build(params, pose, &m, &pctx);
        if (st == PKM_OK) st = pkm_analysis_solve(an, m, &md, &info, &pctx);
        pkm_model_destroy(&m);
        if (st == PKM_OK) {
            map->status[p] = PKM_POSE_OK;
            map->ncoord = info.n_reduced;
            for (int k = 0; k < map->nev; k++) {
                map->freq_hz[p * map->nev + k] = md->freq_hz[k];
                map->residual[p * map->nev + k] = md->residual[k];
                map->tracked[p * map->nev + k] = k;
            }
        } else if (pose_status_of(st) != 0) {
            map->status[p] = (signed char)pose_status_of(st);
        } else {
            rc = PKM_FAIL(ctx, st, "map sweep stopped at point %lld: %s", (long long)p,
                          pctx.msg);
        }
        done++;
        if (progress != NULL) progress(done, map->npoints, user);
    }
    pkm_analysis_destroy(&an);
    return rc;
}
