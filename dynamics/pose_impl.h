/* dynamics/pose_impl.h: derivatives of a rigid body's pose map that dynamics/contact.c shares with
 * the chewing robot's second-order kinematics (dynamics/mast_mass.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_POSE_IMPL_H
#define PKM_POSE_IMPL_H

#include "pkm/contact.h"

/* The derivative of R = R_x R_y R_z of orders d[0..2] in (alpha, beta, gamma). */
void pkm_pose_rotation_derivative(const double X[PKM_POSE_DOF], const int d[3], double R[3][3]);

/* The body point r in base axes, P = p + R r, and its first (P1[k], k = 0..5) and, unless P2
 * is NULL, second (P2[k][l]) derivatives in the pose coordinates. */
void pkm_pose_point_derivatives(const double X[PKM_POSE_DOF], const double r[3], double P[3],
                                double P1[PKM_POSE_DOF][3],
                                double P2[PKM_POSE_DOF][PKM_POSE_DOF][3]);

#endif
