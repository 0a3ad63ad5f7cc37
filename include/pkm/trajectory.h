/* include/pkm/trajectory.h: motions of a case's pose coordinates along time.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Named built-in trajectories are plain data: one pkm_traj_coord per pose coordinate of the case
 * (include/pkm/cases.h, pkm_case.traj). */
#ifndef PKM_TRAJECTORY_H
#define PKM_TRAJECTORY_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pkm_traj_kind {
    PKM_TRAJ_POLY2,  /* c = {q0, v0, a}: q0 + v0 t + a t^2 / 2 */
    PKM_TRAJ_SINE,   /* c = {q0, A, f, phase}: q0 + A sin(2 pi f t + phase) */
    PKM_TRAJ_QUINTIC /* c = {q0, q1, T}: rest to rest, held after T */
} pkm_traj_kind;

typedef struct pkm_traj_coord {
    pkm_traj_kind kind;
    double c[4];
} pkm_traj_coord;

typedef struct pkm_traj_desc {
    const char *name;
    const char *description;
    double duration;             /* s, the default end time */
    const pkm_traj_coord *coord; /* one per pose coordinate of the case */
} pkm_traj_desc;

#ifdef __cplusplus
}
#endif
#endif
