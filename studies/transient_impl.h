/* studies/transient_impl.h: what the KED driver (studies/transient.c) takes from
 * studies/transient_loads.c: the platform's external wrench and the elastic drives' joints.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TRANSIENT_IMPL_H
#define PKM_TRANSIENT_IMPL_H

#include "pkm/transient.h"

/* The stiffness of joint j of m as an elastic drive (name: the rigid model's drive, for the
 * message): a revolute or prismatic joint with a stiffness on its coordinate; PKM_ERR_INVALID
 * naming both joints otherwise. */
pkm_status pkm_transient_drive_spring(const pkm_model *m, int j, const char *name, double *k,
                                      pkm_ctx *ctx);

/* The coordinate of one-coordinate joint jt from its nodes' displacement twists (ua: body_a's,
 * zero for the ground; ub: body_b's): the relative rotation about (translation along) its axis. */
double pkm_transient_joint_coord(const pkm_joint *jt, const double ua[6], const double ub[6]);

/* A generalised force tau on joint jt's coordinate as nodal wrenches (6 per node) added to fn:
 * tau on its axis at body_b's node, -tau at body_a's. */
void pkm_transient_joint_load(const pkm_joint *jt, double tau, double *fn);

/* The relative acceleration d'' = Y . (A_b - A_a) of a joint's first free coordinate in the
 * rigid motion VA (per body: twist, spatial acceleration), bodies b, current axis e: the rigid
 * model's reading of a rotor (dynamics/lumped.c). */
double pkm_tr_joint_accel(const double (*VA)[12], int prismatic, const int b[2], const double e[3]);

/* Rotor inertias J on the free joints' coordinates of fe: -J d'' of the rigid motion VA, added to
 * the reduced load f (map's order). */
void pkm_tr_rotor_loads(const pkm_model *fe, const pkm_dofmap *map, const double (*VA)[12],
                        double *f);

/* PKM_OK if the row's errors, quasi-static errors, energies and frequencies are finite, else
 * PKM_ERR_SOLVER naming its time. */
pkm_status pkm_tr_row_finite(const pkm_transient_row *row, pkm_ctx *ctx);

#endif
