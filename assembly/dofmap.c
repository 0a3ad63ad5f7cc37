/* assembly/dofmap.c: the dof map (pkm/dofmap.h), filled by the formulations as they assemble.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"
#include "pkm/dofmap.h"

#include <stdlib.h>
#include <string.h>

pkm_status pkm_dofmap_alloc(pkm_dofmap **out, pkm_ctx *ctx)
{
    *out = calloc(1, sizeof(**out));
    if (*out == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a dof map");
    return PKM_OK;
}

pkm_status pkm_trip_dofmap(pkm_trip *t, pkm_dofmap **own, pkm_dofmap **P, pkm_ctx *ctx)
{
    pkm_dofmap **keep = t->scratch != NULL ? t->scratch : own;
    *P = t->dofmap;
    if (*P != NULL) return PKM_OK;
    if (*keep == NULL) {
        pkm_status rc = pkm_dofmap_alloc(keep, ctx);
        if (rc != PKM_OK) return rc;
    }
    *P = *keep;
    return PKM_OK;
}

void pkm_dofmap_destroy(pkm_dofmap **map)
{
    if (map == NULL || *map == NULL) return;
    free((*map)->node_ptr);
    free((*map)->col);
    free((*map)->twist);
    free((*map)->joint_first);
    free((*map)->joint_nfree);
    free((*map)->curv);
    free(*map);
    *map = NULL;
}

pkm_status pkm_dofmap_begin(pkm_dofmap *map, int nnodes, int njoints, pkm_ctx *ctx)
{
    /* A map is refilled at every pose: its arrays are kept while the model's sizes stay. */
    if (map->node_ptr == NULL || map->nnodes != nnodes || map->njoints != njoints) {
        free(map->node_ptr);
        free(map->joint_first);
        free(map->joint_nfree);
        map->node_ptr = calloc((size_t)nnodes + 1, sizeof(*map->node_ptr));
        map->joint_first = calloc((size_t)njoints + 1, sizeof(*map->joint_first));
        map->joint_nfree = calloc((size_t)njoints + 1, sizeof(*map->joint_nfree));
        if (map->node_ptr == NULL || map->joint_first == NULL || map->joint_nfree == NULL) {
            map->nnodes = map->njoints = -1;
            return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a dof map");
        }
    }
    map->n = 0;
    map->nnodes = nnodes;
    map->njoints = njoints;
    map->len = 0;
    map->ncurv_elem = 0;
    map->node_ptr[0] = 0;
    for (int j = 0; j < njoints; j++) {
        map->joint_first[j] = -1;
        map->joint_nfree[j] = 0;
    }
    return PKM_OK;
}

pkm_status pkm_dofmap_curvatures(pkm_dofmap *map, int nelem, pkm_ctx *ctx)
{
    int64_t *c = realloc(map->curv, sizeof(*c) * (size_t)(2 * nelem + 1));
    if (c == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the curvature map");
    map->curv = c;
    map->ncurv_elem = nelem;
    for (int k = 0; k < 2 * nelem; k++)
        c[k] = -1;
    return PKM_OK;
}

int64_t pkm_dofmap_element_curvature(const pkm_dofmap *map, int elem, int side)
{
    if (elem < 0 || elem >= map->ncurv_elem || side < 0 || side > 1) return -1;
    return map->curv[2 * elem + side];
}

pkm_status pkm_dofmap_add_term(pkm_dofmap *map, int64_t col, const double twist[6], pkm_ctx *ctx)
{
    if (map->len == map->cap) {
        const int64_t cap = map->cap > 0 ? 2 * map->cap : 64;
        int64_t *c = realloc(map->col, sizeof(*c) * (size_t)cap);
        if (c != NULL) map->col = c;
        double(*t)[6] = realloc(map->twist, sizeof(*t) * (size_t)cap);
        if (t != NULL) map->twist = t;
        if (c == NULL || t == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot grow a dof map");
        map->cap = cap;
    }
    map->col[map->len] = col;
    memcpy(map->twist[map->len], twist, sizeof(map->twist[0]));
    map->len++;
    return PKM_OK;
}

int64_t pkm_dofmap_reduced_count(const pkm_dofmap *map)
{
    return map->n;
}

int pkm_dofmap_node_count(const pkm_dofmap *map)
{
    return map->nnodes;
}

void pkm_dofmap_prolong(const pkm_dofmap *map, const double *x, double *u)
{
    for (int i = 0; i < map->nnodes; i++) {
        double *ui = u + 6 * (size_t)i;
        memset(ui, 0, sizeof(double) * 6);
        for (int64_t t = map->node_ptr[i]; t < map->node_ptr[i + 1]; t++)
            for (int k = 0; k < 6; k++)
                ui[k] += map->twist[t][k] * x[map->col[t]];
    }
}

void pkm_dofmap_restrict(const pkm_dofmap *map, const double *f, double *f_red)
{
    for (int i = 0; i < map->nnodes; i++) {
        const double *fi = f + 6 * (size_t)i;
        for (int64_t t = map->node_ptr[i]; t < map->node_ptr[i + 1]; t++) {
            double s = 0.0;
            for (int k = 0; k < 6; k++)
                s += map->twist[t][k] * fi[k];
            f_red[map->col[t]] += s;
        }
    }
}

void pkm_dofmap_node(const pkm_dofmap *map, int node, int *ncol, const int64_t **col,
                     const double (**twist)[6])
{
    const int64_t a = map->node_ptr[node];
    *ncol = (int)(map->node_ptr[node + 1] - a);
    *col = map->col + a;
    *twist = (const double(*)[6])(map->twist + a);
}

int64_t pkm_dofmap_joint_coordinate(const pkm_dofmap *map, int j, int *nfree)
{
    const int ok = j >= 0 && j < map->njoints && map->joint_first[j] >= 0;
    if (nfree != NULL) *nfree = ok ? map->joint_nfree[j] : 0;
    return ok ? map->joint_first[j] : -1;
}
