/* assembly/assembly_impl.h: private interface of the assembly layer.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_ASSEMBLY_IMPL_H
#define PKM_ASSEMBLY_IMPL_H

#include "pkm/assembly.h"
#include "pkm/dofmap.h"
#include "pkm/pencil.h"

/* Two elements' rotation matrices (unit-vector entries, dimensionless, absolute) describe the same
 * straight segment when every entry agrees to this: frames built from the same two polyline
 * points by pkm_fem_beam3d_frame differ by a few roundings (1e-16), frames across a kink by
 * its angle; 1e-9 rad is far below any kink a mesh is meant to have. Quintic beams share their
 * curvature coordinates along such a segment (assembly/nodal.c). */
#define PKM_ASM_SAME_FRAME_TOL 1e-9

/* Pencil with room for nnz entries, all zero (colptr, rowind to be filled by the caller). */
pkm_status pkm_pencil_alloc(int64_t n, int64_t nnz, pkm_pencil **out, pkm_ctx *ctx);

/* The dof map (pkm/dofmap.h): P in compressed rows, a row block of 6 per node. */
struct pkm_dofmap {
    int64_t n;            /* reduced coordinates */
    int nnodes, njoints;  /* -1 after a failed allocation */
    int64_t *node_ptr;    /* nnodes + 1: node i's terms are node_ptr[i] .. node_ptr[i + 1] - 1 */
    int64_t *col;         /* per term: its reduced coordinate */
    double (*twist)[6];   /* per term: the node's twist per unit coordinate, global axes */
    int64_t len, cap;     /* terms held, room */
    int64_t *joint_first; /* per joint: reduced index of its first free motion, -1 */
    int *joint_nfree;     /* per joint: its free motions */
    /* per element e and side s (node s + 1): the first of its curvature coordinates at
     * curv[2 e + s], or -1; ncurv_elem elements (0: none, e.g. the tree formulation) */
    int64_t *curv;
    int ncurv_elem;
};

pkm_status pkm_dofmap_alloc(pkm_dofmap **out, pkm_ctx *ctx);

/* A formulation fills a map node by node: begin, then for node 0, 1, ... its terms
 * (pkm_dofmap_add_term) and node_ptr[i + 1] = len; joint_first, joint_nfree and n directly. */
pkm_status pkm_dofmap_begin(pkm_dofmap *map, int nnodes, int njoints, pkm_ctx *ctx);
pkm_status pkm_dofmap_add_term(pkm_dofmap *map, int64_t col, const double twist[6], pkm_ctx *ctx);
/* Room for the curvature coordinates of nelem elements (map->curv, 2 nelem entries, all -1). */
pkm_status pkm_dofmap_curvatures(pkm_dofmap *map, int nelem, pkm_ctx *ctx);

/* One congruence call as recorded by a cached assembly: its coordinates, the zero structure of
 * its E, Ka and Ma (which decides the kept columns of E, those with a nonzero entry, and the
 * pattern) and where the entries of its upper triangle go in the pencil. A block call
 * (pkm_trip_add_block) has nrow 0, nk = ncol, and as its mask the nonzero flags of its upper
 * triangle. */
typedef struct pkm_trip_call {
    int nrow, ncol;
    int64_t idx_off;  /* its ncol coordinates in the record's idx */
    int64_t mask_off; /* nrow (ncol + 2 nrow) nonzero flags of E, Ka, Ma in the record's mask */
    int64_t pos_off;  /* nk (nk + 1) / 2 entry positions in the record's pos (nk kept columns) */
    int nk;           /* kept columns of E (those with a nonzero) */
    /* In the record's st: the kept columns (nk), their nonzero counts (nk) and rows (nrow per
     * column), then the live rows of Ka and of Ma (nrow flags each): what the zeros of E, Ka and
     * Ma give, so a pose whose zeros are the record's takes them from here. */
    int64_t st_off;
} pkm_trip_call;

/* The record of one topology: the congruence calls in the order a formulation makes them. */
typedef struct pkm_trip_record {
    pkm_trip_call *calls;
    int64_t ncalls, calls_cap;
    int64_t *idx;
    int64_t idx_len, idx_cap;
    unsigned char *mask;
    int64_t mask_len, mask_cap;
    /* Per entry (a, b), a <= b, of each call's kept block, row by row: its index in the
     * pencil's values, or -1 for an entry structurally zero (not in the pattern). While
     * recording: the triplet number instead. */
    int64_t *pos;
    int64_t pos_len, pos_cap;
    int *st;
    int64_t st_len, st_cap;
} pkm_trip_record;

/* Per-topology assembly cache (cached scatter map): the pencil of the last pose and, for every
 * congruence call of the formulation, the positions of its entries in that pencil. At the next
 * pose of the same mechanism the values are accumulated straight into the pencil, without
 * triplets or sorting; a call that does not match its record (another topology, or an exact
 * zero of E, Ka or Ma at one pose and not at the other, e.g. entering or leaving a symmetric
 * pose) makes the assembly record again. The pattern is always the pose's own, never a union
 * over the poses seen: the fill-reducing ordering, hence the last digits of every result, then
 * depend on the pose only, so a map is the same bit for bit whichever worker computed which pose
 * after which (issue 8: with a growing union, --threads 1 and 2 differed by 8e-10). It is the
 * structure of E^T A E given the zeros of E and A (an entry cancelling exactly stays in it):
 * values that cancel at some poses would otherwise change the tree formulation's pattern at most
 * poses (75 patterns over 124 NaVARo poses), each costing a recording and a symbolic analysis. */
struct pkm_asm_cache {
    pkm_formulation form; /* formulation recorded (meaningful once pencil != NULL) */
    pkm_trip_record rec;  /* calls of the recorded topology */
    pkm_pencil *pencil;   /* pattern of the record; values of the last assembly */
    int64_t version;      /* incremented whenever the pattern changes */
    int64_t records;      /* recording passes done (first pose, new entries, new topology) */
    pkm_dofmap *dofmap;   /* NULL, or the dof map of the last pose (pkm_asm_cache_keep_dofmap) */
    pkm_dofmap *scratch;  /* a formulation's own map when none is kept (pkm_trip.scratch) */
    int dofmap_ok;        /* the last assembly succeeded and filled dofmap */
    /* The congruences' scratch, lent to each pose's trip: allocated and freed at every pose, it
     * made the C library return the top of its heap to the system and fault it in again (brk
     * and page faults: 6 % of a NaVARo tree map). */
    double *work;
    int *iwork;
    int64_t work_cap, iwork_cap;
    double *fwork; /* the formulation's own scratch (pkm_trip_scratch), lent alike */
    int64_t fwork_cap;
    /* Kept from pose to pose for the formulation (pkm_trip_memo): values that depend on inputs
     * which rarely change with the pose, stored with those inputs. */
    double *memo;
    int64_t memo_cap;
    /* The largest memory estimate already found to fit in RAM (pkm_trip_ram_fits): the
     * machine's RAM does not change, and asking for it is a system call. */
    double ram_ok;
};

/* Upper-triangle triplets of K and M accumulated from element congruences E^T A E; or, with a
 * cache in scatter mode, the same values added into the cached pencil. */
struct pkm_trip {
    int64_t n;          /* order of the pencil */
    int64_t len, cap;   /* entries held, room */
    int64_t *row, *col; /* row <= col */
    double *k, *m;
    double *work; /* scratch for congruences */
    int64_t work_cap;
    int *iwork; /* integer scratch for congruences */
    int64_t iwork_cap;
    double *fwork; /* pkm_trip_scratch */
    int64_t fwork_cap;
    pkm_asm_cache *cache; /* NULL: plain triplets */
    int scatter;          /* 1: add into cache->pencil through cache->rec.pos */
    int miss;             /* scatter mode met a call that does not match the record */
    int64_t call;         /* congruence calls made so far */
    pkm_trip_record rec;  /* record mode with a cache: the calls being recorded */
    pkm_dofmap *dofmap;   /* NULL, or filled by the formulation for this pose */
    /* NULL, or where a formulation keeps the dof map it projects through when dofmap is NULL,
     * across calls: the cache's, so a pose allocates nothing new. */
    pkm_dofmap **scratch;
};
typedef struct pkm_trip pkm_trip;

/* The dof map a formulation fills and projects every element through (*P): the caller's
 * (t->dofmap), else the one kept in t->scratch, else *own (made here; the formulation destroys
 * it when done). */
pkm_status pkm_trip_dofmap(pkm_trip *t, pkm_dofmap **own, pkm_dofmap **P, pkm_ctx *ctx);

/* Release a trip's arrays (the caller zeroes a trip before use; pkm_trip_begin allocates). */
void pkm_trip_free(pkm_trip *t);

/* Scratch of at least n doubles for the formulation itself, kept across the poses of a cached
 * assembly (a per-pose malloc of it made the C library return the top of its heap to the
 * system and fault it in again); NULL if out of memory. Valid until the next call. */
double *pkm_trip_scratch(pkm_trip *t, int64_t n);

/* *out: n doubles kept across the poses assembled with t's cache, NaN where new; NULL without a
 * cache. A formulation stores there values with the inputs they were computed from and reuses
 * them while the inputs are the same. */
pkm_status pkm_trip_memo(pkm_trip *t, int64_t n, double **out, pkm_ctx *ctx);

/* Whether need bytes fit in the RAM (pkm_memory_bytes), asked once per size with t's cache: a
 * need no larger than one that fitted before fits. */
int pkm_trip_ram_fits(pkm_trip *t, double need);

/* Called by a formulation once it knows the order n, before its first congruence; t was set up
 * by the caller (pkm_assemble, plain or cached). */
pkm_status pkm_trip_begin(pkm_trip *t, int64_t n, pkm_ctx *ctx);

/* The most element coordinates of a congruence (a quintic beam has 2 x 18). */
#define PKM_TRIP_MAX_ROWS 64

/* The kept columns of E in compressed form: for kept column c, its cnt[c] nonzero entries
 * (rows[c nrow + t], vals[c nrow + t]) in ascending row order. */
typedef struct pkm_ecols {
    int nrow, nk;
    const int *keep, *cnt, *rows;
    const double *vals;
} pkm_ecols;

/* congruence.c: B = E_k^T A E_k (nk x nk, row-major, upper triangle) through the live rows of A
 * (live: nrow flags, found unless known), AE, cnt, rows, vals scratch (nrow nk each). */
void pkm_congruence_project(const pkm_ecols *ec, const double *A, unsigned char *live, int known,
                            double *AE, double *B, int *cnt, int *rows, double *vals);

/* Ec = E (nrow x ncol) without the rounding residues of its exact zeros; big: ncol scratch. */
void pkm_congruence_clean(int nrow, int ncol, const double *E, double *Ec, double *big);

/* Whether entry (a, b) of E_k^T A E_k is structurally nonzero (A = Ka or Ma, NULL: none). */
int pkm_congruence_structural(const pkm_ecols *e, const double *Ka, const double *Ma, int a, int b);

/* Add E^T Ka E to K and E^T Ma E to M, where E is nrow x ncol (row-major) mapping the reduced
 * coordinates idx[0..ncol-1] (distinct) to the element's nrow coordinates; Ka, Ma are nrow x nrow
 * row-major, either may be NULL (no contribution); nrow <= PKM_TRIP_MAX_ROWS. Zero columns of E are
 * skipped; entries of E^T A E that are structurally zero in both K and M (no product of nonzero
 * entries of E, A and E reaches them) are not stored. */
pkm_status pkm_trip_add_congruence(pkm_trip *t, int nrow, int ncol, const int64_t *idx,
                                   const double *E, const double *Ka, const double *Ma,
                                   pkm_ctx *ctx);

/* Add the upper triangle of the symmetric K to K and of M to M (ncol x ncol, row-major; either
 * may be NULL) on the reduced coordinates idx[0..ncol-1] (distinct): a block already projected
 * by the formulation. Its entries where both are zero are not stored. */
pkm_status pkm_trip_add_block(pkm_trip *t, int ncol, const int64_t *idx, const double *K,
                              const double *M, pkm_ctx *ctx);

/* Compress to a pencil: sorted upper CSC, duplicates summed, every diagonal entry present. pos
 * (may be NULL): for every triplet, the index of its entry in the pencil. */
pkm_status pkm_trip_to_pencil(const pkm_trip *t, int64_t *pos, pkm_pencil **out, pkm_ctx *ctx);

/* Run formulation f into t (plain, or set up by pkm_assemble_cached). */
pkm_status pkm_assemble_formulation(const pkm_model *m, pkm_formulation f, pkm_trip *t,
                                    pkm_assembly_info *info, pkm_ctx *ctx);

/* Joint springs, rotor inertias and lumped masses (assembly/joints.c), through the dof map P:
 * each formulation calls it once P is filled, after its elements. */
pkm_status pkm_asm_add_joint_terms(const pkm_model *m, const pkm_dofmap *P, pkm_trip *trip,
                                   pkm_ctx *ctx);

/* The spatial inertia of rigid body b about its first node (its reference point), global axes:
 * what both formulations attach to that node's twist. */
void pkm_asm_rigid_inertia(const pkm_model *m, const pkm_body *b, double Mr[6][6]);

/* Whether the model has any of those (a spring, a rotor inertia, a lumped mass). */
int pkm_asm_has_joint_terms(const pkm_model *m);

/* The two formulations (assembly/nodal.c, assembly/tree.c): they call pkm_trip_begin with the
 * order, then pkm_trip_add_congruence per element, into a trip set up by the caller. */
pkm_status pkm_assemble_nodal(const pkm_model *m, pkm_trip *trip, pkm_assembly_info *info,
                              pkm_ctx *ctx);
pkm_status pkm_assemble_tree(const pkm_model *m, pkm_trip *trip, pkm_assembly_info *info,
                             pkm_ctx *ctx);

#endif
