/* include/pkm/map.h: natural frequencies over a regular grid of poses (a frequency map).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A map holds, for every grid point (row-major over the axes in the order given), a status and
 * the lowest nev frequencies with their residuals. A pose that cannot be computed is data, not a
 * failure: its status says why and its frequencies are NaN. */
#ifndef PKM_MAP_H
#define PKM_MAP_H

#include <stdint.h>

#include "pkm/analysis.h"
#include "pkm/cases.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PKM_MAP_MAX_AXES 8
#define PKM_MAP_NAME_LEN 32

/* Status of one grid point (stored as int8 in files). */
typedef enum pkm_pose_status {
    PKM_POSE_PENDING = -1,    /* not computed yet */
    PKM_POSE_OK = 0,          /* frequencies valid */
    PKM_POSE_UNREACHABLE = 1, /* outside the workspace (inverse kinematics) */
    PKM_POSE_SINGULAR = 2,    /* singular or ill-conditioned pencil (mechanism mode) */
    PKM_POSE_FAILED = 3       /* eigensolver failure or failed accuracy check */
} pkm_pose_status;

typedef struct pkm_map_axis {
    char name[PKM_MAP_NAME_LEN]; /* a pose coordinate of the case, e.g. "x" */
    char unit[PKM_MAP_NAME_LEN]; /* SI unit, e.g. "m" */
    int pose_index;              /* which pose coordinate it sweeps */
    int count;                   /* >= 1 */
    double start, stop;          /* values[k] = start + k (stop - start) / (count - 1) */
} pkm_map_axis;

typedef struct pkm_map {
    char case_name[64];
    int npose;
    char pose_names[16][PKM_MAP_NAME_LEN];
    double base_pose[16]; /* values of the coordinates not swept */
    int naxes;
    pkm_map_axis axes[PKM_MAP_MAX_AXES];
    int64_t npoints; /* product of the axis counts */
    int nev;
    /* solver settings, recorded as attributes */
    pkm_formulation formulation;
    pkm_eigensolver eigensolver;
    pkm_modal_opts opts;
    int64_t ncoord; /* order of the pencil (0 if no pose succeeded) */
    /* results, npoints (x nev), row-major in the grid order */
    signed char *status; /* pkm_pose_status */
    double *freq_hz;     /* NaN where status != OK */
    double *residual;    /* NaN where status != OK */
    int *tracked;        /* tracked mode id per point and mode, -1 where status != OK */
} pkm_map;

/* Allocate the result arrays for the axes and nev already set in *map (status PENDING, NaN). */
pkm_status pkm_map_alloc(pkm_map *map, pkm_ctx *ctx);
void pkm_map_free(pkm_map *map);

/* Value of axis a at index k. */
double pkm_map_axis_value(const pkm_map_axis *a, int k);

/* Pose of grid point p (npose values): base pose with the swept coordinates replaced. */
void pkm_map_pose(const pkm_map *map, int64_t p, double *pose);

/* Called after each computed point with the number done so far and the total. */
typedef void (*pkm_progress_fn)(int64_t done, int64_t total, void *user);

/* Compute every PENDING point of map for case c with the given parameters (map->axes, nev,
 * base_pose, formulation, eigensolver and opts set, arrays from pkm_map_alloc). Unreachable,
 * singular and failed poses are recorded in map->status and the sweep goes on; only errors
 * that would repeat at every pose (invalid parameters, an ill-formed model, memory) stop it.
 *
 * nworkers > 1 computes the poses in that many worker processes (POSIX fork, results in shared
 * memory): ARPACK keeps Fortran SAVE state, so poses cannot share one process's ARPACK across
 * threads. Each worker uses one thread; progress is reported from the calling process only.
 * progress may be NULL. */
pkm_status pkm_map_sweep(const pkm_case *c, const void *params, pkm_map *map, int nworkers,
                         pkm_progress_fn progress, void *user, pkm_ctx *ctx);

/* HDF5 file (layout in docs/hdf5-layout.md), written to PATH.tmp then renamed, so a crash
 * never leaves a partial file at PATH. */
pkm_status pkm_map_write_h5(const pkm_map *map, const char *path, pkm_ctx *ctx);

/* Read a file written by pkm_map_write_h5 (map is filled; release with pkm_map_free). */
pkm_status pkm_map_read_h5(const char *path, pkm_map *map, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
