/* cases/cases_impl.h: what the case files share with the registry.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_CASES_IMPL_H
#define PKM_CASES_IMPL_H

#include "pkm/cases.h"
#include "pkm/mast.h"

/* A NaVARo leg A-D-E of side l reaches |AE| = s only inside (REACH_RTOL 2l, (1 - REACH_RTOL) 2l)
 * (relative to the leg's span 2l): at the ends the elbow angle acos(s / 2l) has an infinite
 * slope (a serial singularity). 1 - 1e-9 is 4.5e6 DBL_EPSILON below 1, so the elbow angle,
 * sqrt(2e-9) = 4.5e-5 rad there, is still computed to about 1e-7 relative. */
#define PKM_NAVARO_REACH_RTOL 1e-9

/* The 5-PSS/UPU's slider rate is e.(a') / e.d with e the link and d its rail: a link within
 * asin(1e-6) of normal to its rail amplifies the platform's rates a million-fold, reported as a
 * singular pose rather than returned. */
#define PKM_PSS5UPU_RAIL_COS_MIN 1e-6

/* The drive functions of navaro and pss5upu (pkm_case.drive). */
pkm_status pkm_navaro_case_drive(const void *params, const double *pose, const double *dpose,
                                 const double *ddpose, double *q, double *qd, double *qdd,
                                 pkm_ctx *ctx);
pkm_status pkm_pss5upu_case_drive(const void *params, const double *pose, const double *dpose,
                                  const double *ddpose, double *q, double *qd, double *qdd,
                                  pkm_ctx *ctx);

/* The 5-PSS/UPU's trajectory tables (cases/pss5upu_traj.c): eq. 40 and its off-centre twin,
 * the rigid model's build pose off the singular centre, the rails' coordinate names. */
#define PKM_PSS5UPU_NTRAJ 2
extern const pkm_traj_desc pkm_pss5upu_traj[PKM_PSS5UPU_NTRAJ];
extern const double pkm_pss5upu_rigid_pose[5];
extern const char *const pkm_pss5upu_driven[PKM_PSS5UPU_LEGS];

/* The 5-PSS/UPU's pkm_case.body_motion and drive_lock (cases/pss5upu_drive.c). */
pkm_status pkm_pss5upu_case_body_motion(const void *params, const double *pose, const double *dpose,
                                        const double *ddpose, int nbody, double (*V)[6],
                                        double (*A)[6], pkm_ctx *ctx);

void pkm_pss5upu_case_drive_lock(const void *params, int k, char name[PKM_NAME_LEN], double *ratio);

/* The built-in cases, listed by cases/registry.c. */

/* The pose dimension n of a case's definition (.npose = PKM_CASE_NPOSE(3)): a case declaring more
 * than PKM_POSE_MAX coordinates does not compile ("size of array is negative"), so no case with
 * more can be registered. */
#define PKM_CASE_NPOSE(n) ((int)sizeof(char[(n) >= 1 && (n) <= PKM_POSE_MAX ? (n) : -1]))

extern const pkm_case pkm_navaro_case;
extern const pkm_case pkm_pss5upu_case;
extern const pkm_case pkm_boom1_case;
extern const pkm_case pkm_crane4_case;
extern const pkm_case pkm_masticatory_case_def;
/* The build of a case with a rigid-body model only: PKM_ERR_INVALID naming it (a library user
 * that asks its natural frequencies gets a message, not a NULL build). */
pkm_status pkm_case_build_none(const char *name, pkm_model **out, pkm_ctx *ctx);
/* cases/masticatory_model.c: the states of the chewing robot at time t (for messages) of a pose
 * (X, Y, alpha, beta) moving at dpose, ddpose: the target's (tg, s: its contacts set Z and gamma)
 * and, tw not NULL, its 6-RSS twin's at the same pose (its crank angles started from the
 * target's). The errors of pkm_masticatory_mechanism and pkm_mast_kinematics. */
pkm_status pkm_masticatory_states(const void *params, double t, const double *pose,
                                  const double *dpose, const double *ddpose, pkm_mast *tg,
                                  pkm_mast_state *s, pkm_mast *tw, pkm_mast_state *sw,
                                  pkm_ctx *ctx);
/* cases/masticatory_model.c: the rigid-body model of the case masticatory at a pose. */
pkm_status pkm_masticatory_build_rigid(const void *params, const double *pose, pkm_model **out,
                                       pkm_ctx *ctx);

/* Table entries shared by the cases (include/pkm/cases.h). A vector: three entries key.x,
 * key.y, key.z. */
#define PKM_CASE_VEC3(type, key, field, unit, range, help)                                         \
    PKM_PARAM_DOUBLE(type, key ".x", field[0], unit, range, help ", x"),                           \
        PKM_PARAM_DOUBLE(type, key ".y", field[1], unit, range, help ", y"),                       \
        PKM_PARAM_DOUBLE(type, key ".z", field[2], unit, range, help ", z")

/* The case's pkm_case_dynamics, field `dynamics`: gravity.{x,y,z} and friction.*; kv_unit and
 * v_unit are those of the case's actuated joints (revolute: "N m s/rad", "rad/s"; prismatic:
 * "N s/m", "m/s"). */
#define PKM_CASE_DYNAMICS(type, kv_unit, v_unit)                                                   \
    PKM_CASE_VEC3(type, "gravity", dynamics.gravity, "m/s^2", pkm_range_acceleration, "gravity"),  \
        PKM_PARAM_ENUM(type, "friction.model", dynamics.friction_model, pkm_case_friction_models,  \
                       "joint friction: none, coulomb-viscous or stribeck"),                       \
        PKM_PARAM_DOUBLE(type, "friction.kc", dynamics.kc, "", pkm_range_friction,                 \
                         "Coulomb coefficient"),                                                   \
        PKM_PARAM_DOUBLE(type, "friction.kv", dynamics.kv, kv_unit, pkm_range_viscous,             \
                         "viscous coefficient"),                                                   \
        PKM_PARAM_DOUBLE(type, "friction.ks", dynamics.ks, "", pkm_range_friction,                 \
                         "static coefficient (Stribeck)"),                                         \
        PKM_PARAM_DOUBLE(type, "friction.vs", dynamics.vs, v_unit, pkm_range_velocity,             \
                         "Stribeck velocity"),                                                     \
        PKM_PARAM_DOUBLE(type, "friction.delta", dynamics.delta, "", pkm_range_exponent,           \
                         "Stribeck exponent"),                                                     \
        PKM_PARAM_DOUBLE(type, "friction.rp", dynamics.rp, "m", pkm_range_length, "pin radius"),   \
        PKM_PARAM_DOUBLE(type, "friction.rn", dynamics.rn, "m", pkm_range_length,                  \
                         "axial friction arm"),                                                    \
        PKM_PARAM_DOUBLE(type, "friction.rb", dynamics.rb, "m", pkm_range_length, "bending arm"),  \
        PKM_PARAM_ENUM(type, "friction.joints", dynamics.friction_joints,                          \
                       pkm_case_friction_joint_choices, "joints with friction: all or actuated")

/* The case's pkm_case_dynamics load, field `dynamics`: key.force.{x,y,z}, key.point.{x,y,z}. */
#define PKM_CASE_LOAD(type, key, help)                                                             \
    PKM_CASE_VEC3(type, key ".force", dynamics.load_force, "N", pkm_range_load,                    \
                  help ": force on the platform"),                                                 \
        PKM_CASE_VEC3(type, key ".point", dynamics.load_point, "m", pkm_range_position,            \
                      help ": its point, at the build configuration")

/* The choices of friction.model and friction.joints (cases/registry.c). */
extern const pkm_param_choice pkm_case_friction_models[];
extern const pkm_param_choice pkm_case_friction_joint_choices[];

/* cases/navaro.yaml, embedded at build time (cmake/PkmEmbed.cmake), NUL-terminated. */
extern const unsigned char pkm_navaro_yaml[];

/* cases/pss5upu.yaml, masticatory.yaml, boom1.yaml, crane4.yaml, likewise. */
extern const unsigned char pkm_pss5upu_yaml[];
extern const unsigned char pkm_masticatory_yaml[];
extern const unsigned char pkm_boom1_yaml[];
extern const unsigned char pkm_crane4_yaml[];

#endif
