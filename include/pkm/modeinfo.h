/* include/pkm/modeinfo.h: what a mode does: how it moves the platform, how much mass it carries
 * there, and where it stores its strain energy (pkmflex modes --describe).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_MODEINFO_H
#define PKM_MODEINFO_H

#include "pkm/dofmap.h"
#include "pkm/model.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_mode_info {
    /* The platform's small displacement twist in the M-normalised mode (x^T M x = 1): the
     * translation of its reference point (m), then its rotation (rad), global axes, per unit
     * modal amplitude. */
    double twist[6];
    /* The mode's effective mass at the platform in each of those six directions, 1 / twist[d]^2
     * (kg, then kg m^2; INFINITY where the mode does not move that direction): the mass of the
     * one-degree-of-freedom oscillator that the mode is for a force (moment) on the platform
     * along d. Summed over all the modes, 1 / eff_mass[d] is the platform's mobility
     * (T M^-1 T^T)_dd, T the platform's rows of the dof map (the modal expansion of M^-1). */
    double eff_mass[6];
    /* Strain energy of the M-normalised mode (J): the beams' elements plus the joints' springs;
     * equal to w^2 / 2 (x^T K x = w^2). A quintic element's curvature coordinates are read
     * where the dof map names them (pkm_dofmap_element_curvature). */
    double energy;
} pkm_mode_info;

/* Mode x (the n = pkm_dofmap_reduced_count(map) reduced coordinates of model m's pose, as
 * pkm_modes.vectors holds it) described: info, and if not NULL the strain energy of each body
 * (body_energy[pkm_model_body_count(m)]: its beam elements, 0 for a rigid body), of each joint
 * (joint_energy[pkm_model_joint_count(m)]: its springs on its free motions) and of each leg
 * (leg_energy[leg count of pkm_topology]: its bodies and joints). The elements' energies are
 * 1/2 u^T K_e u of their nodes' displacements u = P x in the element's axes with the element's
 * own stiffness (a rigid motion of the element stores none), a joint's is 1/2 d^T K_j d of its
 * free motions d. PKM_ERR_MODEL for a beam whose element is not spatial; PKM_ERR_INVALID without a
 * platform or for a map of another model; PKM_ERR_MODEL (a topology without legs), PKM_ERR_NOMEM.
 */
pkm_status pkm_mode_describe(const pkm_model *m, const pkm_dofmap *map, const double *x,
                             pkm_mode_info *info, double *body_energy, double *joint_energy,
                             double *leg_energy, pkm_ctx *ctx);

/* How much mode x moves each joint of model m: the relative motion of the joint's two nodes
 * (u = P x; the ground's node at rest), |rotation| (rad) + |translation| / L with L the diagonal
 * of the nodes' bounding box, into motion[pkm_model_joint_count(m)]: the joints a mechanism
 * (zero-energy) mode turns or slides. PKM_ERR_INVALID for a dof map of another model,
 * PKM_ERR_NOMEM. */
pkm_status pkm_mode_joint_motion(const pkm_model *m, const pkm_dofmap *map, const double *x,
                                 double *motion, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
