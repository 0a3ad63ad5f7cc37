/* include/pkm/eigensolver.h: the eigensolvers of the pencil K x = w^2 M x, as a type table.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every eigensolver is one const entry of pkm_eigensolver_types (the GSL pattern of const type
 * tables): its name (the command line's --solver, the map file's `eigensolver` attribute, the
 * bench), a description for help texts, and create / solve / destroy of a solver bound to one
 * sparsity pattern. A new eigensolver (e.g. a warm-started block method) is one more entry and
 * one more enum value; the callers iterate the table. */
#ifndef PKM_EIGENSOLVER_H
#define PKM_EIGENSOLVER_H

#include "pkm/modal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Index of an entry of pkm_eigensolver_types (stored in maps and options). */
typedef enum pkm_eigensolver {
    PKM_EIG_ARPACK = 0, /* sparse shift-invert Lanczos (ARPACK-ng + CHOLMOD) */
    PKM_EIG_DENSE = 1,  /* LAPACK dsygvx, the lowest nev eigenpairs (reference, small models) */
    PKM_EIG_BLOCK = 2   /* block subspace iteration warm-started from the previous solve */
} pkm_eigensolver;

#define PKM_EIGENSOLVER_COUNT 3

typedef struct pkm_eigensolver_type {
    pkm_eigensolver id; /* its index in the table */
    const char *name;   /* lower-case identifier: "arpack", "dense", "block" */
    const char *description;
    /* PKM_ERR_INVALID naming what to change if solving n coordinates with opts would need more
     * memory than the machine has (checked before anything is allocated). */
    pkm_status (*check_size)(int64_t n, const pkm_modal_opts *opts, pkm_ctx *ctx);
    /* A solver for pencils with the pattern of `pattern` (symbolic work done once here). */
    pkm_status (*create)(const pkm_pencil *pattern, void **solver, pkm_ctx *ctx);
    /* The lowest opts->nev modes of p (the created pattern), checked as pkm_modal_solve's. */
    pkm_status (*solve)(void *solver, const pkm_pencil *p, const pkm_modal_opts *opts,
                        pkm_modes *out, pkm_ctx *ctx);
    void (*destroy)(void **solver); /* NULL-safe, sets *solver to NULL */
    /* Forget the earlier solves, so that the next one starts as a fresh solver's would; NULL
     * for a solver whose results do not depend on its earlier solves. */
    void (*forget)(void *solver);
    /* Where the next solve's pose lies on the walk: on a straight line at equal steps with the
     * last `line` solved poses (1: only the last one is its neighbour, the walk turned); with
     * `parallelogram`, at the last pose plus the step from the second last to the third last
     * (the step after a turn of a serpentine). A solver that extrapolates from earlier poses
     * uses only those. NULL where that means nothing. */
    void (*walk)(void *solver, int line, int parallelogram);
} pkm_eigensolver_type;

/* The table, indexed by pkm_eigensolver. */
extern const pkm_eigensolver_type pkm_eigensolver_types[PKM_EIGENSOLVER_COUNT];

/* The entry of e, or NULL if e is not a table index. */
const pkm_eigensolver_type *pkm_eigensolver_type_of(pkm_eigensolver e);

/* The entry named `name`, or NULL. */
const pkm_eigensolver_type *pkm_eigensolver_type_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
