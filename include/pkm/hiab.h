/* include/pkm/hiab.h: the hydraulic crane of Petrovic and Mattila 2022 (Mech. Mach. Theory 170,
 * 104680) as chains of modules (pkm/chain.h): the one-loop boom and the 4-dof crane that Paz
 * Anaya and Mattila 2024 simulate (their 415 kg and 1,063 kg systems).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Data copied verbatim from the MATLAB files of github.com/petrovicrgoran/HydraulicManipulatorVDC
 * (commit e4133834, BSD-3-Clause, (c) 2021 Goran Petrovic; CAD by J. Koivumaki), see
 * cases/hiab/LICENSE.txt and docs/chain.md. World y is up: gravity 9.8066 m/s^2 along -y. */
#ifndef PKM_HIAB_H
#define PKM_HIAB_H

#include "pkm/cases.h"
#include "pkm/chain.h"
#include "pkm/trajectory.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PKM_HIAB_GRAVITY 9.8066

/* The modules of a machine, its root pose and its gravity (world axes):
 *  - "boom1": the lift loop on the fixed pillar (1 dof, coordinate cyl1 = the lift cylinder's
 *    stroke, m; the pillar is the loop's base body);
 *  - "crane4": a slewing joint about world y through the world origin carrying the pillar
 *    (slew, rad; the data set has no slewing joint, this one is the paper's), the lift loop
 *    (cyl1), the tilt loop (cyl2), the extension (ext, m) with the end mass.
 * mods must hold 4 entries; *n receives the number of modules. PKM_ERR_INVALID for another
 * name. */
pkm_status pkm_hiab_modules(const char *name, pkm_chain_module *mods, int *n, pkm_chain_pose *root,
                            double gravity[3], pkm_ctx *ctx);

/* The chain of that machine. Errors of pkm_hiab_modules and pkm_chain_create. */
pkm_status pkm_hiab_chain(const char *name, pkm_chain **out, pkm_ctx *ctx);

/* The parameters of the cases boom1 and crane4 (pkm_case_list(); cases/boom1.yaml and
 * cases/crane4.yaml): the dynamics block of every case. Their rigid-body models are
 * pkm_chain_model of the chains at the pose (the modules' coordinates: x for boom1; slew, x1,
 * x2, xt for crane4, the header of a trajectory CSV file), the actuated joints named after the
 * modules (cyl1; slew, cyl1, cyl2, ext). Their trajectory "sine" (the paper does not give its
 * inputs): sinusoids q_i(t) = B_i + A_i sin(w_i t) over 10 s inside the data set's stroke
 * ranges, the lift and tilt strokes around those of its commanded angles (Theta1 = 20 + 5 sin t
 * deg, Theta2 = -50 + 15 sin 2t deg), with a slew of 0.5 sin(t / 2) rad. */
typedef struct pkm_hiab_params {
    pkm_case_dynamics dynamics;
} pkm_hiab_params;

#ifdef __cplusplus
}
#endif
#endif
