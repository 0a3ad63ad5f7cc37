/* tests/reference/chainrun.h: a module chain (pkm/chain.h: the crane of Petrovic and Mattila
 * 2022 as modules, Paz Anaya and Mattila 2024) along a trajectory of its coordinates: the O(n)
 * inverse dynamics at each time of a grid, or the O(n) forward dynamics integrated by RK4 from
 * the trajectory's state with the energy balance; every time handed to a sink. The tests'
 * reference for the general run on the chains' models (`pkmflex dynamics boom1|crane4` runs
 * those with the engine chain).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_CHAINRUN_H
#define PKM_CHAINRUN_H

#include <stdint.h>

#include "pkm/chain.h"
#include "pkm/dynengine.h"
#include "pkm/trajectory.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most RK4 steps between two output times. */
#define PKM_CHAIN_RUN_MAX_STEPS 10000000
/* Most modules of a chain run on an engine. */
#define PKM_CHAIN_RUN_MAX_MODULES 16

typedef struct pkm_chain_run_opts {
    double t0, t1; /* the output grid: n >= 2 times from t0 to t1 > t0 */
    int n;
    int forward; /* 0: inverse dynamics along the trajectory; 1: forward dynamics (RK4) */
    double step; /* forward: the largest RK4 step, s (> 0) */
    /* forward: the drives as a function of time (one column per module), or NULL: the
     * inverse dynamics of the trajectory at every stage time */
    const pkm_trajectory *forces;
    /* the engine of pkm/dynengine.h that computes the drives, loads and accelerations on the
     * chain as a model (pkm_chain_model at the trajectory's state at t0, under gravity; its
     * answers read back as the chain's by pkm_chain_loads_of), or NULL: the chain's own passes */
    const pkm_dyn_engine *engine;
    double gravity[3]; /* the engine's, m/s^2 */
} pkm_chain_run_opts;

/* One output time: per module (pkm_chain_dof of them) the coordinate, rate, acceleration, drive
 * and load set; forward: the trajectory's coordinate q_ref and energy = {T, V, W, T + V - W -
 * E(t0)} (J; W the drives' work since t0); inverse: q_ref and energy NULL. */
typedef struct pkm_chain_row {
    double t;
    int64_t step; /* 0 .. n - 1 */
    const double *q, *qd, *qdd, *drive, *q_ref;
    const pkm_chain_loads *loads;
    const double *energy;
} pkm_chain_row;

/* Nonzero stops the run (PKM_OK returned: what was handed over stands). */
typedef int (*pkm_chain_sink)(void *user, const pkm_chain_row *row);

/* The run of o on chain c along tr (its coordinates, the modules' order). PKM_ERR_INVALID for a
 * bad grid or step or more than PKM_CHAIN_RUN_MAX_STEPS steps between outputs, before any time
 * is computed; PKM_ERR_INVALID naming the engine that does not accept the chain's model; then
 * the errors of pkm_trajectory_eval (a time outside a spline's span), pkm_chain_inverse and
 * pkm_chain_forward (or the engine's) naming the time. */
pkm_status pkm_chain_run(pkm_chain *c, const pkm_trajectory *tr, const pkm_chain_run_opts *o,
                         pkm_chain_sink sink, void *user, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
