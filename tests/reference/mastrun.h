/* tests/reference/mastrun.h: the chewing robot (pkm/masticatory.h) along its default motion by the
 * reference routes (mastref.h): at each time of a grid its inverse dynamics (minimum-norm crank
 * torques, contact forces) and, if asked, its joint-space inertia and inertia coupling index
 * beside its 6-RSS twin's; every time handed to a sink.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_MASTREF_MASTRUN_H
#define PKM_MASTREF_MASTRUN_H

#include <stdint.h>

#include "reference/mastref.h"
#include "pkm/masticatory.h"

typedef struct pkm_mast_run_opts {
    double t0, t1; /* the grid: n >= 2 times from t0 to t1 > t0 */
    int n;
    int inertia;               /* 1: also M_A and MCI, the target's and the twin's */
    pkm_mast_inverse_opts inv; /* inverse dynamics: weights, preload, route */
} pkm_mast_run_opts;

/* One time. The mechanism analysed (p->higher_pairs: the target with its contacts, else the
 * 6-RSS twin replaying the target's pose), its state and its inverse dynamics' forces; inertia:
 * MA (6 x 6, row-major, kg m^2) and mci (MCI(a)) of the target, twin_mci (the twin's MCI(a)),
 * mcib (the target's MCI(b)); else those NULL. */
typedef struct pkm_mast_row {
    double t;
    int64_t step; /* 0 .. n - 1 */
    const pkm_mast *m;
    const pkm_mast_state *s;
    const pkm_mast_forces *forces;
    const double *MA, *mci, *twin_mci, *mcib;
} pkm_mast_row;

/* Nonzero stops the run (PKM_OK returned: what was handed over stands). */
typedef int (*pkm_mast_sink)(void *user, const pkm_mast_row *row);

/* The run of o for the parameters p along pkm_masticatory_motion, its bite load p's.
 * PKM_ERR_INVALID for a bad grid or a friction law in p's dynamics block (the routes have none);
 * the errors of
 * pkm_masticatory_mechanism, then of pkm_mast_kinematics (naming the contact and time),
 * pkm_mast_inverse and pkm_mast_joint_inertia. */
pkm_status pkm_mast_run(const pkm_masticatory_params *p, const pkm_mast_run_opts *o,
                        pkm_mast_sink sink, void *user, pkm_ctx *ctx);

#endif
