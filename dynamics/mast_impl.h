/* dynamics/mast_impl.h: what dynamics/mast.c shares with mast_inverse.c.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_MAST_IMPL_H
#define PKM_MAST_IMPL_H

#include "pkm/mast.h"
#include "pkm/spatial.h"

/* The moving body's rotation, angular-rate map E, inertia R I R^T, angular velocity and
 * acceleration (base axes) at a state. */
typedef struct mast_body {
    double R[3][3], E[3][3], Iw[3][3], w[3], wd[3];
} mast_body;

void pkm_mast_body_motion(const pkm_mast *m, const pkm_mast_state *s, mast_body *b);

/* Position, velocity and acceleration of the body point r (body axes). */
void pkm_mast_point_motion(const pkm_mast_state *s, const mast_body *b, const double r[3],
                           double x[3], double v[3], double a[3]);

/* dS/dtheta and d2S/dtheta2 of chain c's crank tip at theta. */
void pkm_mast_crank(const pkm_rss *c, double th, double dS[3], double ddS[3]);

#endif
