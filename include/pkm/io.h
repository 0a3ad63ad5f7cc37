/* include/pkm/io.h: reference tables and result files (the io layer; the maps they store are
 * the studies layer's, include/pkm/map.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_IO_H
#define PKM_IO_H

#include "pkm/map.h"
#include "pkm/model.h"
#include "pkm/status.h"
#include "pkm/trajectory.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A table of reference natural frequencies per pose (e.g. Cast3M results), read from CSV:
 *   # comment lines anywhere
 *   pose,<pose coordinate columns...>,<frequency columns...>    (header, names free)
 *   1,0.0,0.0,0.0,44.10,44.10,...                                (id, pose in SI, Hz)
 * The number of pose columns is given by the caller (the case's pose dimension); every data
 * row has as many fields as the header. A header whose second field is `kind` announces a word
 * after each row's id (meas, calc, ...: rows of several kinds at one pose, as Table 4 of Germain
 * et al. 2015). A frequency cell may be empty: a value the source leaves unpaired (Table 4's
 * '-'), read as NAN; each row has at least one frequency. */
#define PKM_TABLE_KIND_LEN 16

typedef struct pkm_table {
    int nrows;
    int npose;                        /* pose coordinates per row */
    int nfreq;                        /* frequency columns per row */
    int *id;                          /* nrows pose labels (first column) */
    double *pose;                     /* nrows x npose, row-major, SI */
    double *freq;                     /* nrows x nfreq, row-major, Hz; NAN for an empty cell */
    char (*kind)[PKM_TABLE_KIND_LEN]; /* nrows row kinds, or NULL without a `kind` column */
} pkm_table;

/* Errors name the file and line (and the field): PKM_ERR_IO if it cannot be read,
 * PKM_ERR_PARSE for malformed content. */
pkm_status pkm_table_read(const char *path, int npose, pkm_table **out, pkm_ctx *ctx);
void pkm_table_destroy(pkm_table **t);

/* A trajectory from a CSV file of samples (io/trajectory_csv.c), interpolated by the not-a-knot
 * cubic spline of pkm_trajectory_create_spline:
 *   # comment lines (and blank lines) anywhere
 *   t,<name>,<name>,...          (header: 't' first, then each of the n names exactly once, in
 *                                 any order; blanks around a name are ignored)
 *   0.0,0.1,0.2,...              (time in s, then the coordinates in SI, as the header orders them)
 * Numbers are read as by pkm_table_read. The times must be strictly increasing, and there must be
 * at least 4 samples. PKM_ERR_IO if the file cannot be read; PKM_ERR_PARSE "file:line: ..." for
 * a missing, unknown or repeated column, a row of the wrong length, a field that is not a finite
 * number, a time not after the previous one, fewer than 4 samples. */
pkm_status pkm_trajectory_read_csv(const char *path, const char *const *names, int n,
                                   pkm_trajectory **out, pkm_ctx *ctx);

/* The drives of a forward run (pkm_dynamics_opts.forces) from a CSV file of samples: header t
 * and the actuated joints of m by name (any order), read as pkm_trajectory_read_csv reads a
 * trajectory (its errors name the file and line). */
pkm_status pkm_forces_read_csv(const pkm_model *m, const char *path, pkm_trajectory **out,
                               pkm_ctx *ctx);

/* A platform wrench as a time series (pkm_wrench_at's series): pkm_trajectory_read_csv of the
 * six columns fx, fy, fz (N), mx, my, mz (N m). */
pkm_status pkm_wrench_read_csv(const char *path, pkm_trajectory **out, pkm_ctx *ctx);

/* The rows of `pkmflex dynamics` (every case: docs/dynamics.md, "Output columns"), printed or
 * as time series (io/h5dyn.c; layout in docs/hdf5-layout.md, "Dynamics files"): the joint table,
 * per time and joint the columns pkm_dyn_series_columns ([ntime][njoint] arrays; NAN: a quantity
 * the case does not have, an empty csv cell), and the per-time table, the case's own columns
 * described by pkm_column (one value per time: pose coordinates, contact forces, residuals,
 * M_A, MCI, the closure's conditioning, energies). */
#define PKM_DYN_SERIES_COLUMNS 9
/* "q", "qd", "qdd", "drive", "ideal", "friction", "f_axial", "f_radial", "m_bending" */
extern const char *const pkm_dyn_series_columns[PKM_DYN_SERIES_COLUMNS];

typedef struct pkm_dyn_series {
    const char *case_name;  /* root attribute `case` */
    const char *trajectory; /* its name, or the CSV file it was read from */
    const char *friction;   /* the friction law */
    int ntime, njoint;
    const char *const *joints; /* njoint joint names, without commas */
    const char *const *types;  /* njoint joint types ("revolute", "revolute-cut", ...) */
    const double *t;           /* ntime times, s */
    const double *value[PKM_DYN_SERIES_COLUMNS]; /* [ntime][njoint] each */
    const double *wrench; /* [ntime][njoint][6]: force, moment about the joint point, global
                             axes; NULL: not written (a case without reaction wrenches) */
    int ncol;             /* the per-time table: ncol columns (0: none) */
    const pkm_column *cols;
    const double *per_time; /* [ntime][ncol] */
    int partial; /* 1: the run was stopped (Ctrl-C), the times done so far; root attribute
                    complete = 0 (1 otherwise) */
} pkm_dyn_series;

/* Write s to path (built in memory, written to PATH.tmp, renamed). PKM_ERR_INVALID for an empty
 * series, a joint name with a comma or a per-time column without a usable name; PKM_ERR_IO if
 * the file cannot be written. */
pkm_status pkm_dyn_series_write_h5(const char *path, const pkm_dyn_series *s, pkm_ctx *ctx);

/* The rows of `pkmflex transient` as time series (io/h5dyn.c; layout in docs/hdf5-layout.md,
 * "Transient files"). */
typedef struct pkm_transient_series {
    const char *case_name;  /* root attribute `case` */
    const char *trajectory; /* its name, or the CSV file it was read from */
    int ntime, ndrive;
    const char *const *drives;  /* ndrive actuated joint names, without commas */
    const double *t;            /* ntime times, s */
    const double *error;        /* [ntime][6] the platform's elastic error: m, rad */
    const double *quasi_static; /* [ntime][6] the same of K^-1 F */
    const double *energy;       /* [ntime][4] kinetic, strain, dissipated, work of the loads, J */
    const double *drive;        /* [ntime][ndrive] the rigid-body drives, N m or N */
    const double *reaction;     /* [ntime][ndrive] the reactions at the locked drives (NAN: none) */
    const double *deflection;   /* [ntime][ndrive] elastic drives' deflections, or NULL (locked) */
    int nfreq;                  /* frequencies per time (0: no /frequencies dataset) */
    const double *freq;         /* [ntime][nfreq] the lowest natural frequencies, Hz */
    const double *conditioning; /* [ntime] the locked closure's conditioning, or NULL */
    int partial; /* 1: the run was stopped (Ctrl-C), the steps done so far; root attribute
                    complete = 0 (1 otherwise) */
} pkm_transient_series;

/* Write s to path (built in memory, written to PATH.tmp, renamed). PKM_ERR_INVALID for an empty
 * series or a joint name with a comma; PKM_ERR_IO if the file cannot be written. */
pkm_status pkm_transient_series_write_h5(const char *path, const pkm_transient_series *s,
                                         pkm_ctx *ctx);

/* Mode shapes for ParaView (io/vtkhdf.c): m's nodes and its beam elements and rigid bodies as
 * lines, with nmode modes' nodal displacements u ([nmode][nodes of m][6]: translation then
 * rotation, global axes, as pkm_analysis_mode_displacements gives them) and their frequencies,
 * as a VTKHDF 1.0 UnstructuredGrid (layout in docs/hdf5-layout.md), written to PATH.tmp then
 * renamed. kappa: NULL, or [nmode][elements of m][2][3] the curvature coordinates of each
 * element's ends (pkm_analysis_mode_curvatures): then every quintic element is drawn as 8 lines
 * through 7 interior points (after the nodes) whose displacements its shape functions give.
 * PKM_ERR_INVALID without a path, model or mode; PKM_ERR_IO if it cannot be written. */
pkm_status pkm_modes_write_vtkhdf(const char *path, const pkm_model *m, int nmode,
                                  const double *freq_hz, const double *u, const double *kappa,
                                  pkm_ctx *ctx);

/* Frequency maps (io/h5map.c, io/h5map_read.c). */
/* HDF5 file (layout in docs/hdf5-layout.md), written to PATH.tmp then renamed, so a crash
 * never leaves a partial file at PATH. /modes is written if map->modes is not NULL. */
pkm_status pkm_map_write_h5(const pkm_map *map, const char *path, pkm_ctx *ctx);

/* Read a file written by pkm_map_write_h5 (map is filled, with /modes if the file has it;
 * release with pkm_map_free). */
pkm_status pkm_map_read_h5(const char *path, pkm_map *map, pkm_ctx *ctx);

/* A map for ParaView (io/vtkhdf_map.c): its grid as a VTKHDF 1.0 UnstructuredGrid (layout in
 * docs/hdf5-layout.md) whose points are the poses (x, y, z = the values of the first, second,
 * third axis with more than one point) with the point fields f_1 .. f_nev (Hz, NaN where not
 * computed) and status (pkm_pose_status), and whose cells join neighbouring poses (lines, pixels
 * or voxels; a single pose is one vertex) with the cell field status (0 if all its poses are 0,
 * else its worst pose's). Written to PATH.tmp then renamed. PKM_ERR_INVALID without a path or
 * results, or for a map sweeping more than 3 axes; PKM_ERR_IO if it cannot be written. */
pkm_status pkm_map_write_vtkhdf(const pkm_map *map, const char *path, pkm_ctx *ctx);

/* pkm_map_read_h5 of a file that may be damaged or crafted (one a user names), in a child process
 * (io/h5map_isolate.c): libhdf5 1.10.8 can crash, exhaust memory or loop decoding a crafted
 * file's metadata, and only a process boundary contains that. The child reads the file and
 * writes what it read with pkm_map_write_h5 to a temporary directory ($TMPDIR or /tmp), which
 * this process reads and removes: the disk and time of a second copy. A child that crashes,
 * ends without a result or takes more than limit_s seconds (<= 0: 60 s plus 1 s per 10 MB of
 * the file) is PKM_ERR_PARSE naming the file and what happened; the reader's own errors are
 * returned as they are. POSIX fork: call it from a single-threaded process, or one whose other
 * threads hold no lock the child needs (the child only reads and writes the files). */
pkm_status pkm_map_read_h5_isolated(const char *path, double limit_s, pkm_map *map, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
