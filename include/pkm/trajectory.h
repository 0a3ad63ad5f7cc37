/* include/pkm/trajectory.h: prescribed motions of a mechanism's pose coordinates, with their
 * first two time derivatives (the input of inverse dynamics).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A trajectory has n coordinates and gives q(t), qd(t), qdd(t). It is either analytic (one law
 * per coordinate, below: the built-in motions a case names) or a C2 cubic spline through samples
 * (a CSV file, pkm_trajectory_read_csv in include/pkm/io.h). Units are the coordinates' own (SI:
 * m, rad) and s. */
#ifndef PKM_TRAJECTORY_H
#define PKM_TRAJECTORY_H

#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A column of a run's per-time output (dynamics, transient): its name (no '/', ',' or
 * whitespace) and SI unit ("1": a pure number). */
typedef struct pkm_column {
    const char *name, *unit;
} pkm_column;

/* The law of one coordinate of an analytic trajectory, from its coefficients c. */
typedef enum pkm_traj_kind {
    PKM_TRAJ_POLY2,  /* c = {q0, v0, a}: q0 + v0 t + a t^2 / 2 */
    PKM_TRAJ_SINE,   /* c = {q0, A, f, phase}: q0 + A sin(2 pi f t + phase) */
    PKM_TRAJ_QUINTIC /* c = {q0, q1, T}: rest to rest, held after T */
} pkm_traj_kind;

typedef struct pkm_traj_coord {
    pkm_traj_kind kind;
    double c[4];
} pkm_traj_coord;

/* A named built-in trajectory of a case, as plain data. */
typedef struct pkm_traj_desc {
    const char *name;
    const char *description;
    double duration;             /* s, the default end time */
    const pkm_traj_coord *coord; /* one per pose coordinate of the case */
} pkm_traj_desc;

typedef struct pkm_trajectory pkm_trajectory;

/* The analytic trajectory of d over n coordinates (d->coord has n entries; d is copied, so it
 * need not outlive the trajectory). Its span is [0, d->duration]; an analytic law can be
 * evaluated at any finite t (POLY2 and SINE extrapolate, QUINTIC holds q0 before 0 and q1 after
 * T). PKM_ERR_INVALID (naming the trajectory and the coordinate) for n < 1, a non-finite
 * coefficient, an unknown kind, a QUINTIC with T <= 0, or a duration that is not positive. */
pkm_status pkm_trajectory_create_analytic(const pkm_traj_desc *d, int n, pkm_trajectory **out,
                                          pkm_ctx *ctx);

/* The C2 cubic spline with not-a-knot end conditions through m samples (t[i], q[i*n + j]) of
 * n coordinates (row i a time): polynomials up to degree 3 are reproduced exactly, with their
 * derivatives. The times must be finite and strictly increasing and m >= 4 (the not-a-knot
 * spline is one cubic through four points); otherwise PKM_ERR_INVALID naming the count or the
 * sample. The span is [t[0], t[m-1]]. The data are copied. */
pkm_status pkm_trajectory_create_spline(int n, int m, const double *t, const double *q,
                                        pkm_trajectory **out, pkm_ctx *ctx);

/* NULL-safe; sets *tr to NULL. */
void pkm_trajectory_destroy(pkm_trajectory **tr);

/* Number of coordinates. */
int pkm_trajectory_ncoord(const pkm_trajectory *tr);

/* The time span [*t0, *t1] (either pointer may be NULL). */
void pkm_trajectory_span(const pkm_trajectory *tr, double *t0, double *t1);

/* q, qd, qdd (n values each; any may be NULL) at time t; no allocation. A spline is evaluated
 * only inside its span (a time within 1e-12 relative of an end counts as that end):
 * PKM_ERR_INVALID naming t and the span otherwise, and for a non-finite t. */
pkm_status pkm_trajectory_eval(const pkm_trajectory *tr, double t, double *q, double *qd,
                               double *qdd, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
