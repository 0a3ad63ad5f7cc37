/* cases/links.c: the rigid links and z-axis revolute joints of Guo, Ju, Wang 2024's planar
 * examples (cases tree5 and loop3).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cases/cases_impl.h"

#include <math.h>

pkm_status pkm_case_add_link(pkm_model *m, const char *name, const double origin[3], double angle,
                             const pkm_case_link *l, int *id, pkm_ctx *ctx)
{
    /* Tables 2 and 3 give each link's centre of mass in its own frame and its inertia in
     * principal axes parallel to the ground frame at the reference configuration; a link turned
     * by angle about z carries both: com = O + R r_I, J = R diag(J) R^T. */
    const double c = cos(angle), s = sin(angle);
    const double R[3][3] = {{c, -s, 0.0}, {s, c, 0.0}, {0.0, 0.0, 1.0}};
    pkm_rigid_desc d = {.name = name, .mass = l->mass};
    for (int i = 0; i < 3; i++) {
        d.origin[i] = origin[i];
        d.com[i] = origin[i];
        for (int k = 0; k < 3; k++)
            d.com[i] += R[i][k] * l->com[k];
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                d.inertia[i][j] += R[i][k] * l->inertia[k] * R[j][k];
    }
    return pkm_model_add_rigid(m, &d, id, ctx);
}

pkm_status pkm_case_add_revolute_z(pkm_model *m, const char *name, int a, int b,
                                   const double point[3], int cut, int actuated, pkm_ctx *ctx)
{
    const pkm_joint_desc j = {.name = name,
                              .type = PKM_JOINT_REVOLUTE,
                              .body_a = a,
                              .body_b = b,
                              .point = {point[0], point[1], point[2]},
                              .axis = {0.0, 0.0, 1.0},
                              .cut = cut,
                              .actuated = actuated};
    return pkm_model_add_joint(m, &j, NULL, ctx);
}
