/* include/pkm/ode.h: the fixed-step classical Runge-Kutta integrator (RK4) of y' = f(t, y), used
 * by the forward dynamics (Guo et al. 2024 integrate their examples with it, too).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_ODE_H
#define PKM_ODE_H

#include "pkm/status.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dydt = f(t, y) for n states; a failure (e.g. a singular closure) is recorded in ctx and stops
 * the integration with that status. */
typedef pkm_status (*pkm_ode_rhs)(double t, const double *y, double *dydt, void *user,
                                  pkm_ctx *ctx);

/* Called with the state before the first step (step 0) and after each step (step k at time
 * t0 + k h): an energy monitor, a recorder. A status other than PKM_OK stops the integration
 * and is returned. */
typedef pkm_status (*pkm_ode_monitor)(int step, double t, const double *y, void *user,
                                      pkm_ctx *ctx);

typedef struct pkm_ode {
    int n;                   /* number of states */
    pkm_ode_rhs rhs;         /* f */
    pkm_ode_monitor monitor; /* NULL: none */
    void *user;              /* passed to both */
} pkm_ode;

/* Doubles of workspace the integrator needs for n states (the caller provides it, so that no
 * step allocates). */
#define PKM_ODE_RK4_WORK(n) (5 * (size_t)(n))

/* One classical RK4 step of size h from (t, y), y overwritten:
 *   k1 = f(t, y), k2 = f(t + h/2, y + h k1 / 2), k3 = f(t + h/2, y + h k2 / 2),
 *   k4 = f(t + h, y + h k3), y += h (k1 + 2 k2 + 2 k3 + k4) / 6.
 * work: PKM_ODE_RK4_WORK(n) doubles. On a failure of f, y is left unchanged. The monitor is not
 * called. */
pkm_status pkm_ode_rk4_step(const pkm_ode *ode, double t, double h, double *y, double *work,
                            pkm_ctx *ctx);

/* nsteps steps of size h from (t0, y), y overwritten with the state at t0 + nsteps h (the time of
 * step k is computed as t0 + k h, so rounding does not accumulate). PKM_ERR_INVALID for n < 1,
 * nsteps < 0, a non-finite or zero h, a NULL rhs. */
pkm_status pkm_ode_rk4_run(const pkm_ode *ode, double t0, double h, int nsteps, double *y,
                           double *work, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
