/* cases/pss5upu_traj.c: the 5-PSS/UPU's built-in trajectories (Li et al. 2020, eq. 40, and the
 * same motion about an off-centre point), the pose its rigid-body model is built at and the
 * names of its driven coordinates.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cases/cases_impl.h"
#include "core/core_impl.h"

/* Li et al. 2020, eq. 40: x = y = 10 sin(0.4 pi t) mm, z = 0, alpha = beta = 7.5 sin(0.4 pi t)
 * deg, i.e. 0.2 Hz sines of 0.010 m on x and y and 7.5 deg = 0.130899693899575 rad on alpha and
 * beta, z held at the home height; two periods. */
#define PSS_EQ40_F   0.2
#define PSS_EQ40_ROT (7.5 * PKM_PI / 180.0)
static const pkm_traj_coord pss_eq40[5] = {{PKM_TRAJ_SINE, {0.0, 0.010, PSS_EQ40_F, 0.0}},
                                           {PKM_TRAJ_SINE, {0.0, 0.010, PSS_EQ40_F, 0.0}},
                                           {PKM_TRAJ_POLY2, {0.0, 0.0, 0.0, 0.0}},
                                           {PKM_TRAJ_SINE, {0.0, PSS_EQ40_ROT, PSS_EQ40_F, 0.0}},
                                           {PKM_TRAJ_SINE, {0.0, PSS_EQ40_ROT, PSS_EQ40_F, 0.0}}};
/* Eq. 40 about an off-centre point (x0, alpha0) = (20 mm, 0.2 rad), the rigid model's default:
 * eq. 40 itself crosses the centre of the regular layout (a singular pose of the S-S legs, 7e-17
 * there: the passive Jacobian's conditioning, as the dynamics measures it) at t = 0, 2.5, 5, 7.5
 * and 10 s. The whole axis x = y = 0 untilted is singular, and the conditioning grows slowly with
 * x (1.9e-3 at 20 mm, 4.5e-3 at 50 mm) and faster with a tilt (1.3e-2 at 0.1 rad); along this
 * path it stays between 1.8e-2 and 4.5e-2 (201 samples of a period), above PKM_DYN_SINGULAR.
 * The rigid model is built at the path's first pose. */
#define PSS_OFF_X0     0.020
#define PSS_OFF_ALPHA0 0.2
static const pkm_traj_coord pss_eq40_off[5] = {
    {PKM_TRAJ_SINE, {PSS_OFF_X0, 0.010, PSS_EQ40_F, 0.0}},
    {PKM_TRAJ_SINE, {0.0, 0.010, PSS_EQ40_F, 0.0}},
    {PKM_TRAJ_POLY2, {0.0, 0.0, 0.0, 0.0}},
    {PKM_TRAJ_SINE, {PSS_OFF_ALPHA0, PSS_EQ40_ROT, PSS_EQ40_F, 0.0}},
    {PKM_TRAJ_SINE, {0.0, PSS_EQ40_ROT, PSS_EQ40_F, 0.0}}};
const double pkm_pss5upu_rigid_pose[5] = {PSS_OFF_X0, 0.0, 0.0, PSS_OFF_ALPHA0, 0.0};
const char *const pkm_pss5upu_driven[PKM_PSS5UPU_LEGS] = {"rail 1", "rail 2", "rail 3", "rail 4",
                                                          "rail 5"};
const pkm_traj_desc pkm_pss5upu_traj[PKM_PSS5UPU_NTRAJ] = {
    {"eq40-off", "eq. 40 about x = 20 mm, alpha = 0.2 rad (eq40 crosses the singular centre)", 10.0,
     pss_eq40_off},
    {"eq40",
     "Li et al. 2020, eq. 40: x = y = 10 sin(0.4 pi t) mm, alpha = beta = 7.5 sin(0.4 pi t) "
     "deg, z = 0",
     10.0, pss_eq40}};
