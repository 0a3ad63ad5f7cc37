/* include/pkm/map.h: natural frequencies over a regular grid of poses (a frequency map).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A map holds, for every grid point (row-major over the axes in the order given), a status and
 * the lowest nev frequencies with their residuals, and the id of the physical mode found at each
 * rank (tracked across neighbouring poses, pkm/track.h). A pose that cannot be computed is data,
 * not a failure: its status says why and its frequencies are NaN. */
#ifndef PKM_MAP_H
#define PKM_MAP_H

#include <stdint.h>

#include "pkm/analysis.h"
#include "pkm/cases.h"
#include "pkm/track.h"

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

/* How /tracked_mode was made. */
typedef enum pkm_tracking {
    PKM_TRACK_RANK = 0, /* id = frequency rank (mode vectors not kept, or not tracked yet) */
    PKM_TRACK_MAC = 1   /* ids linked across neighbouring poses by pkm_map_track */
} pkm_tracking;

/* Default bound on the mode vectors kept for tracking: npoints * nev * ncoord * 8 bytes. */
#define PKM_MAP_TRACK_BYTES ((int64_t)1 << 30)

/* One resolved case parameter (pkm_param_desc of the case's table). */
#define PKM_MAP_MAX_PARAMS 128
typedef struct pkm_map_param {
    char key[48];        /* e.g. "material.E" */
    pkm_param_kind kind; /* DOUBLE: value in SI; INT: value is an integer; ENUM: choice */
    double value;
    char choice[32]; /* ENUM: the choice name */
} pkm_map_param;

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
    char pose_names[PKM_POSE_MAX][PKM_MAP_NAME_LEN];
    double base_pose[PKM_POSE_MAX]; /* values of the coordinates not swept */
    int naxes;
    pkm_map_axis axes[PKM_MAP_MAX_AXES];
    int64_t npoints; /* product of the axis counts */
    int nev;
    /* solver settings, recorded as attributes */
    pkm_formulation formulation;
    pkm_eigensolver eigensolver;
    pkm_modal_opts opts;
    /* case parameters changed from the case's defaults on the command line, as given
     * ("KEY=VALUE;..."), "" if none: a record of the command, not compared (params is) */
    char case_params[1024];
    /* Provenance. Every parameter of the case's table as resolved (built-in values, then the
     * case file, then --set), in SI: a resumed sweep compares them by value (pkm_map_set_case). */
    int nparams;
    pkm_map_param params[PKM_MAP_MAX_PARAMS];
    char case_file[256];  /* the case file as given, "" for a built-in case */
    char case_sha256[65]; /* SHA-256 of its bytes, lower-case hex, "" for a built-in */
    char version[32];     /* pkmflex version that computed the map (pkm_map_init: this one) */
    char commit[48];      /* its git commit (git describe), "unknown" outside a git tree */
    /* mode tracking settings, recorded as attributes */
    pkm_track_opts track;
    /* The mode vectors of every computed pose are kept for tracking while they take at most
     * track_bytes (0 = PKM_MAP_TRACK_BYTES); above that /tracked_mode is the frequency rank.
     * keep_modes keeps them whatever their size (pkmflex map --modes). */
    int64_t track_bytes;
    int keep_modes;
    int64_t ncoord; /* order of the pencil (0 if no pose succeeded) */
    /* Poses the warm-started eigensolver (PKM_EIG_BLOCK) handed to ARPACK because its block did
     * not pass the checks (pkm_modes.fallback), over every run of this map (a resumed map keeps
     * its count); 0 for the other eigensolvers. The file's attribute solver_fallbacks. */
    int64_t solver_fallbacks;
    /* results, npoints (x nev), row-major in the grid order */
    signed char *status; /* pkm_pose_status */
    double *freq_hz;     /* NaN where status != OK */
    double *residual;    /* NaN where status != OK */
    double *accuracy;    /* pkm_modes.accuracy of each mode, NaN where status != OK */
    /* npoints: the locked closure's dimensionless conditioning at each pose whose model was
     * built (pkm_pose_conditioning; OK, singular and failed poses), NaN where it was not
     * (unreachable, pending) and for a case without a rigid-body model. Below
     * PKM_NEAR_SINGULAR (pkm/motion.h) the pose is near-singular: its frequencies are valid
     * (status OK) but its lowest modes are the mechanism's near-free motion. */
    double *conditioning;
    int *tracked; /* tracked mode id per point and rank, -1 where status != OK */
    /* MAC of the link that gave each mode its id (from the mode of the parent pose), NaN at a
     * pose without parent and where status != OK */
    double *tracking_mac;
    int64_t *tracking_parent; /* point whose ids a point took (row-major index), -1 if none */
    pkm_tracking tracking;    /* how tracked was made */
    char tracking_note[160];  /* why tracking is PKM_TRACK_RANK, "" otherwise */
    /* npoints x nev x ncoord mode shapes (M-orthonormal), NaN where status != OK, or NULL
     * (pkm_map_alloc_modes, released by pkm_map_free_modes) */
    double *modes;
    /* 1: the values of modes are rounded to single precision and written as float32. A sweep
     * does so with vectors kept for tracking only (not keep_modes): the MAC needs no more (its
     * threshold is 0.8, clusters are told by frequency), and a checkpoint, which holds them for
     * a resumed sweep's tracking, takes half the space. Rounded at every pose, a resumed map
     * tracks exactly as an uninterrupted one. */
    int modes_single;
    /* The links made so far between neighbouring OK points (pkm/track.h), npoints x naxes x nev,
     * stored at the lower point of each pair: link_match[(p naxes + a) nev + i] = j when mode i of
     * p is mode j of p's neighbour one step up axis a, -1 while not linked; link_mac the MAC of
     * that pair. A sweep links the pairs whose two vectors are at hand at each checkpoint and at
     * the end, so that a checkpoint holds the links and only the vectors further links need
     * (pkm_map_vectors_needed); pkm_map_track labels the grid from them and frees them. NULL
     * before the first link (pkm_map_alloc_links, released by pkm_map_free_links). */
    int *link_match;
    double *link_mac;
} pkm_map;

/* The settings and provenance of a map, described once: one entry per root attribute of a map
 * file after format and format_version (every one a pkm_map field holds, and the time of
 * writing), in the order they are written. The HDF5 writer and reader
 * (io/h5map*.c) iterate it, adding only the file types (an INT is stored in its field's width, a
 * DOUBLE as float64, the others as strings), and pkm_map_same_setup compares by it; a test holds
 * it against docs/hdf5-layout.md. The table lives here, not in io/, because the resume check it
 * also drives is the studies layer's and must not know HDF5. */
typedef enum pkm_map_attr_kind {
    PKM_MAP_ATTR_STRING,  /* char[size] field */
    PKM_MAP_ATTR_INT,     /* int or int64_t field (size 4 or 8) */
    PKM_MAP_ATTR_DOUBLE,  /* double field */
    PKM_MAP_ATTR_DOUBLES, /* double[] field, as many values as the int at count_offset */
    PKM_MAP_ATTR_CHOICE,  /* enum field (int-sized), stored as the name choice(value) */
    PKM_MAP_ATTR_LIST,    /* names char[size] every stride bytes, count at count_offset, joined
                             with ',' */
    PKM_MAP_ATTR_PARAMS,  /* the resolved case parameters (nparams, params): their keys, joined
                             with ','; their values in the group /parameters */
    PKM_MAP_ATTR_WRITTEN  /* no field: the UTC time the writer writes the file, not read */
} pkm_map_attr_kind;

/* How pkm_map_same_setup compares an entry. */
typedef enum pkm_map_same {
    PKM_MAP_RECORD,     /* not compared: a record (the --set text, the case file's path) */
    PKM_MAP_SAME_VALUE, /* equal values (NaN equals NaN); group and label make the message */
    PKM_MAP_SAME_GRID,  /* through pkm_map_same_grid (pose coordinates, base pose, axes) */
    PKM_MAP_SAME_PARAMS /* every parameter, matched by key, equal by value */
} pkm_map_same;

typedef struct pkm_map_attr {
    const char *name; /* root attribute of the file */
    pkm_map_attr_kind kind;
    size_t offset;                    /* the field in pkm_map (LIST: the first name) */
    size_t size;                      /* its bytes (LIST: of one name) */
    size_t stride;                    /* LIST: bytes from one name to the next */
    size_t count_offset;              /* LIST, DOUBLES: the int field counting the values */
    int max_count;                    /* LIST: at most this many names */
    int64_t lo, hi;                   /* INT: the range a reader accepts */
    const char *(*choice)(int value); /* CHOICE: the name of a value, NULL if it has none */
    /* The map file format version that added the attribute: a map read from an older file keeps
     * pkm_map_init's value (pkmflex_commit "unknown", the default tracking options). */
    int since;
    pkm_map_same same;
    /* PKM_MAP_SAME_VALUE: consecutive entries of the same group are compared together, and a
     * difference is reported as group, then label (a printf format of one %s) filled with each
     * value of a, " against ", each value of b: "pkmflex 1.0 (commit abc) against 1.1 (commit
     * def)". */
    const char *group, *label;
} pkm_map_attr;

extern const pkm_map_attr pkm_map_attrs[];
extern const int pkm_map_attr_count;

/* The value of entry e of map as text, into out[cap], as pkm_map_same_setup reports it: "%g" for
 * numbers (as before the table), the name of a choice (its number if it has none), the names of
 * a LIST joined with ',', "" for PARAMS. */
void pkm_map_attr_text(const pkm_map_attr *e, const pkm_map *map, char *out, size_t cap);

/* A map with no axes yet: zeroed, default modal and tracking options, MAC tracking, this
 * library's version and commit. */
void pkm_map_init(pkm_map *map);

/* Record case c with its resolved parameters (map->params, in table order) and, if case_file is
 * not NULL, the file's path and the SHA-256 of its bytes. PKM_ERR_INVALID if the table does not
 * fit, PKM_ERR_IO if the file cannot be read. */
pkm_status pkm_map_set_case(pkm_map *map, const pkm_case *c, const void *params,
                            const char *case_file, pkm_ctx *ctx);

/* Allocate the result arrays for the axes and nev already set in *map (status PENDING, NaN, ids
 * and parents -1, tracking PKM_TRACK_RANK). */
pkm_status pkm_map_alloc(pkm_map *map, pkm_ctx *ctx);

/* What a sweep of map will take, in bytes, before any pose: memory for the result arrays and
 * the tracking links (and the workers' shared copy when nworkers > 1, and the file image while
 * writing), disk for the file and its checkpoint with the links (the new one is written beside
 * the old). The mode vectors are not counted: their length is known at the first OK pose
 * (npoints x nev x ncoord x 8 bytes, kept in memory for tracking up to track_bytes; in
 * checkpoints, float32 and only along the sweep's front, unless keep_modes). */
typedef struct pkm_map_needs {
    double memory;
    double disk;
} pkm_map_needs;
pkm_map_needs pkm_map_estimate(const pkm_map *map, int nworkers);

/* Physical memory free now (sysconf _SC_AVPHYS_PAGES), bytes; 0 if unknown. */
double pkm_map_memory_free(void);

/* Allocate map->modes for map->ncoord coordinates (NaN). PKM_ERR_NOMEM naming the size if they
 * would not fit in the free physical memory. */
pkm_status pkm_map_alloc_modes(pkm_map *map, pkm_ctx *ctx);
void pkm_map_free_modes(pkm_map *map);
void pkm_map_free(pkm_map *map);

/* Allocate map->link_match (-1) and link_mac (NaN) for its axes and nev; PKM_ERR_NOMEM. */
pkm_status pkm_map_alloc_links(pkm_map *map, pkm_ctx *ctx);
void pkm_map_free_links(pkm_map *map);

/* The OK points whose vectors a further link needs: a neighbour pending, or OK and not linked to
 * it (every OK point with a neighbour when no link is made). A checkpoint holds the vectors of
 * these points only, after a sweep's links (pkm_map.link_match). */
int64_t pkm_map_vectors_needed(const pkm_map *map);

/* PKM_ERR_INVALID naming the first difference if a and b do not have the same axes (names,
 * counts, start and stop values; the stop of a one-value axis is not compared), pose
 * coordinates and base pose. */
pkm_status pkm_map_same_grid(const pkm_map *a, const pkm_map *b, pkm_ctx *ctx);

/* pkm_map_same_grid, and the same case, resolved case parameters (by value, in any order:
 * "material.E=74GPa" equals the built-in 74e9), pkmflex version and commit, nev, formulation,
 * eigensolver, modal options and tracking options: b continues the computation of a. The
 * entries of pkm_map_attrs are compared in their order (PKM_MAP_RECORD ones not); the message
 * names the first difference, a's value first. */
pkm_status pkm_map_same_setup(const pkm_map *a, const pkm_map *b, pkm_ctx *ctx);

/* Mode tracking over the grid from the links of map (link_match) and map->modes for the pairs
 * not linked yet (pkm/track.h), with the Euclidean MAC of the reduced coordinates; the links are
 * freed. Neighbours are points one step apart along one axis. The OK points are
 * labelled best link first (Prim's algorithm on the links' summed MAC: a maximum spanning tree)
 * from a root, the OK point nearest the grid's centre, whose ids are its ranks; each point takes
 * its ids from the point it was linked from (tracking_parent). A point not connected to a
 * labelled set through OK neighbours starts a new set at the unlabelled OK point nearest the
 * centre, again with ids equal to the ranks: ids of different sets are not related. The ids at
 * every OK point are a permutation of 0..nev-1, so a mode that leaves the computed set hands its
 * id to the one that enters, a link flagged by a low MAC. Without map->modes, ids are the ranks
 * (PKM_TRACK_RANK, tracking_note says why), also when a pair of neighbouring OK points has neither
 * a link nor both vectors. */
pkm_status pkm_map_track(pkm_map *map, pkm_ctx *ctx);

/* Value of axis a at index k. */
double pkm_map_axis_value(const pkm_map_axis *a, int k);

/* Pose of grid point p (npose values): base pose with the swept coordinates replaced. */
void pkm_map_pose(const pkm_map *map, int64_t p, double *pose);

/* Called after each computed point with the number done so far and the total. */
typedef void (*pkm_progress_fn)(int64_t done, int64_t total, void *user);

/* Called with the results so far: every point of snap is PENDING or final, and its modes (if
 * kept) are complete for the OK points. An error stops the sweep with that error. */
typedef pkm_status (*pkm_checkpoint_fn)(const pkm_map *snap, void *user, pkm_ctx *ctx);

/* Called once with a message the user should see at once (e.g. that the modes will not be
 * tracked, and why); the library itself never prints. */
typedef void (*pkm_notice_fn)(const char *msg, void *user);

/* Called after each computed point (in the process that computed it: a worker process when
 * nworkers > 1, so it must not rely on memory the sweeping process changes) with the point's
 * row-major index, and with nworkers > 1 also by the sweeping process while it waits, with
 * point -1 (a signal that reached it alone, not its workers, stops the sweep too); nonzero asks
 * the sweep to stop: no worker starts another pose, the results so
 * far are gathered and handed to the checkpoint callback, and pkm_map_sweep returns PKM_OK with
 * the other points PENDING, untracked. E.g. a graceful interrupt, or a test stopping at a chosen
 * pose. */
typedef int (*pkm_stop_fn)(int64_t point, void *user);

/* Default stall limit of a worker on one pose, seconds (see pkm_sweep_opts.stall_timeout). */
#define PKM_SWEEP_STALL_MIN 600.0

typedef struct pkm_sweep_opts {
    int nworkers;                 /* worker processes, 1 to 256; 1 = the calling process */
    pkm_progress_fn progress;     /* may be NULL */
    pkm_checkpoint_fn checkpoint; /* may be NULL */
    pkm_notice_fn notice;         /* may be NULL */
    pkm_stop_fn stop;             /* may be NULL */
    /* A worker that has spent more than this on one pose is reported as stalled and the sweep
     * stops with PKM_ERR_SOLVER naming it; 0 = 100 times the slowest pose so far, at least
     * PKM_SWEEP_STALL_MIN. */
    double stall_timeout;
    /* seconds between checkpoints, at least; also at least 10 times the last checkpoint's
     * duration, so that checkpoints take at most about a tenth of the sweep */
    double checkpoint_interval;
    void *user; /* passed to progress, checkpoint, notice and stop */
} pkm_sweep_opts;

/* One process, no progress, checkpoint or notice, checkpoint_interval 10 s, automatic stall
 * limit. */
pkm_sweep_opts pkm_sweep_opts_default(void);

/* Compute every PENDING point of map for case c with the given parameters (map->axes, nev,
 * base_pose, formulation, eigensolver, opts, track settings set, arrays from pkm_map_alloc), then
 * track the modes (pkm_map_track). Unreachable, singular and failed poses are recorded in
 * map->status and the sweep goes on; only errors that would repeat at every pose (invalid
 * parameters, an ill-formed model, memory) stop it.
 *
 * The mode vectors are kept in map->modes if map->keep_modes or if they fit in the tracking
 * bound (else so->notice is told why, and tracking_note records it); their size is known after
 * the first OK pose, which is computed first. A map resumed from a checkpoint keeps its OK
 * points; if vectors are to be kept but map->modes is NULL, its OK points are computed again
 * (their vectors are needed).
 *
 * The grid is cut into tiles of consecutive row-major points, so that one worker computes
 * neighbouring poses; workers take the tiles in turn. Every pose is computed the same way
 * whoever computes it, so the map is the same bit for bit for any nworkers. nworkers > 1
 * computes the poses in that many worker processes (POSIX fork; their results are gathered
 * into the map's arrays for checkpoints and at the end): ARPACK keeps Fortran SAVE state, so poses
 * cannot share one process's ARPACK across threads. The calling process solves nothing (a first
 * worker, the probe, finds the vectors' length): CHOLMOD's supernodal factorisation starts
 * libgomp's thread pool, which does not survive fork(), so a process that has factorised before
 * forking has workers that hang. For the same reason the calling process must not have used OpenMP
 * before (e.g. solved a pose itself): such a hang is then reported by the watchdog
 * (so->stall_timeout). Progress, checkpoints and the watchdog run in the calling process. */
pkm_status pkm_map_sweep(const pkm_case *c, const void *params, pkm_map *map,
                         const pkm_sweep_opts *so, pkm_ctx *ctx);

/* Two maps of the same grid compared mode rank by mode rank (pkmflex compare --against): over
 * the points OK in both, the relative difference |f_a - f_b| / |f_b| of each of the first
 * min(a->nev, b->nev) ranks, its maximum, mean and the point of the maximum. */
typedef struct pkm_map_diff {
    int nev;          /* ranks compared: min(a->nev, b->nev) */
    int64_t both;     /* points OK in both maps */
    int64_t one_only; /* points OK in one map only */
    double *max_rel;  /* nev: largest relative difference over the points OK in both */
    double *mean_rel; /* nev: its mean */
    int64_t *worst;   /* nev: the point (row-major index) of max_rel */
    double max_all;   /* largest of max_rel, 0 if no point is OK in both */
    int max_rank;     /* its rank, from 1 (1 if max_all is 0) */
} pkm_map_diff;

/* Fill *d for maps a and b (release with pkm_map_diff_free). PKM_ERR_INVALID naming the first
 * difference if the grids differ (pkm_map_same_grid), PKM_ERR_NOMEM. */
pkm_status pkm_map_compare(const pkm_map *a, const pkm_map *b, pkm_map_diff *d, pkm_ctx *ctx);
void pkm_map_diff_free(pkm_map_diff *d);

/* Summary of a computed map (the end of pkmflex map): points per status, the frequency range
 * of each rank over the OK points, and the tracking links. */
typedef struct pkm_map_summary {
    int64_t count[4];      /* points per status PKM_POSE_OK .. PKM_POSE_FAILED */
    int64_t near_singular; /* OK points whose conditioning is below PKM_NEAR_SINGULAR */
    int64_t pending;       /* points not computed */
    double *freq_min;      /* nev: lowest frequency of the rank over the OK points, +inf if none */
    double *freq_max;      /* nev: highest, -inf if none */
    int64_t links;         /* PKM_TRACK_MAC: points that took their ids from a parent */
    int64_t low_links;     /* mode links among them with a MAC below map->track.mac_threshold */
    double lowest_mac;     /* lowest MAC of those links, 1 if none */
} pkm_map_summary;

/* Fill *s for map (release with pkm_map_summary_free); PKM_ERR_NOMEM. */
pkm_status pkm_map_summarize(const pkm_map *map, pkm_map_summary *s, pkm_ctx *ctx);
void pkm_map_summary_free(pkm_map_summary *s);

#ifdef __cplusplus
}
#endif
#endif
