/* fem/rigid.c: mass matrix of a rigid body on the twist of a reference point.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/fem.h"

void pkm_fem_rigid_mass(double m, const double c[3], double Jc[3][3], double M[6][6])
{
    /* Kinetic energy 1/2 m |v + w x c|^2 + 1/2 w^T Jc w with w x c = -[c]x w, so the blocks are
     * m I, -m [c]x, m [c]x and Jc - m [c]x [c]x (the parallel-axis theorem). */
    const double cx[3][3] = {{0.0, -c[2], c[1]}, {c[2], 0.0, -c[0]}, {-c[1], c[0], 0.0}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double cc = 0.0;
            for (int k = 0; k < 3; ++k)
                cc += cx[i][k] * cx[k][j];
            M[i][j] = (i == j) ? m : 0.0;
            M[i][j + 3] = -m * cx[i][j];
            M[i + 3][j] = m * cx[i][j];
            M[i + 3][j + 3] = Jc[i][j] - m * cc;
        }
}
