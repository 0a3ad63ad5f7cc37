/* assembly/assembly_impl.h: private interface of the assembly layer.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_ASSEMBLY_IMPL_H
#define PKM_ASSEMBLY_IMPL_H

#include "pkm/pencil.h"

/* Pencil with room for nnz entries, all zero (colptr, rowind to be filled by the caller). */
pkm_status pkm_pencil_alloc(int64_t n, int64_t nnz, pkm_pencil **out, pkm_ctx *ctx);

/* Upper-triangle triplets of K and M accumulated from element congruences E^T A E. */
typedef struct pkm_trip {
    int64_t n;          /* order of the pencil */
    int64_t len, cap;   /* entries held, room */
    int64_t *row, *col; /* row <= col */
    double *k, *m;
    double *work; /* scratch for congruences */
    int64_t work_cap;
} pkm_trip;

pkm_status pkm_trip_init(pkm_trip *t, int64_t n, pkm_ctx *ctx);
void pkm_trip_free(pkm_trip *t);

/* Add E^T Ka E to K and E^T Ma E to M, where E is nrow x ncol (row-major) mapping the reduced
 * coordinates idx[0..ncol-1] (distinct) to the element's nrow coordinates; Ka, Ma are nrow x nrow
 * row-major, either may be NULL (no contribution). */
pkm_status pkm_trip_add_congruence(pkm_trip *t, int nrow, int ncol, const int64_t *idx,
                                   const double *E, const double *Ka, const double *Ma,
                                   pkm_ctx *ctx);

/* Add one upper-triangle entry (row <= col is enforced by swapping). */
pkm_status pkm_trip_add_entry(pkm_trip *t, int64_t row, int64_t col, double k, double m,
                              pkm_ctx *ctx);

/* Compress to a pencil: sorted upper CSC, duplicates summed, every diagonal entry present. */
pkm_status pkm_trip_to_pencil(const pkm_trip *t, pkm_pencil **out, pkm_ctx *ctx);

/* The two formulations (assembly/nodal.c, assembly/tree.c). */
struct pkm_model;
struct pkm_assembly_info;
pkm_status pkm_assemble_nodal(const struct pkm_model *m, pkm_pencil **out,
                              struct pkm_assembly_info *info, pkm_ctx *ctx);
pkm_status pkm_assemble_tree(const struct pkm_model *m, pkm_pencil **out,
                             struct pkm_assembly_info *info, pkm_ctx *ctx);

/* Small dense helpers on 3-vectors and 6-twists (v, w). */
void pkm_cross3(const double a[3], const double b[3], double c[3]);

#endif
