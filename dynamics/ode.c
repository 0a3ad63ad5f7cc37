/* dynamics/ode.c: the classical fixed-step Runge-Kutta method of order 4.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/ode.h"

#include "core/core_impl.h"

#include <math.h>

pkm_status pkm_ode_rk4_step(const pkm_ode *ode, double t, double h, double *y, double *work,
                            pkm_ctx *ctx)
{
    const int n = ode->n;
    double *k1 = work, *k2 = work + n, *k3 = work + 2 * n, *k4 = work + 3 * n, *yt = work + 4 * n;
    pkm_status rc = ode->rhs(t, y, k1, ode->user, ctx);
    for (int i = 0; rc == PKM_OK && i < n; i++)
        yt[i] = y[i] + 0.5 * h * k1[i];
    if (rc == PKM_OK) rc = ode->rhs(t + 0.5 * h, yt, k2, ode->user, ctx);
    for (int i = 0; rc == PKM_OK && i < n; i++)
        yt[i] = y[i] + 0.5 * h * k2[i];
    if (rc == PKM_OK) rc = ode->rhs(t + 0.5 * h, yt, k3, ode->user, ctx);
    for (int i = 0; rc == PKM_OK && i < n; i++)
        yt[i] = y[i] + h * k3[i];
    if (rc == PKM_OK) rc = ode->rhs(t + h, yt, k4, ode->user, ctx);
    if (rc != PKM_OK) return rc;
    for (int i = 0; i < n; i++)
        y[i] += h / 6.0 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]);
    return PKM_OK;
}

pkm_status pkm_ode_rk4_run(const pkm_ode *ode, double t0, double h, int nsteps, double *y,
                           double *work, pkm_ctx *ctx)
{
    if (ode == NULL || ode->rhs == NULL || ode->n < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "rk4: no system to integrate");
    if (nsteps < 0 || !isfinite(h) || h == 0.0 || !isfinite(t0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "rk4: %d steps of %g s from t = %g s", nsteps, h, t0);
    pkm_status rc = ode->monitor ? ode->monitor(0, t0, y, ode->user, ctx) : PKM_OK;
    for (int k = 0; rc == PKM_OK && k < nsteps; k++) {
        rc = pkm_ode_rk4_step(ode, t0 + k * h, h, y, work, ctx);
        if (rc == PKM_OK && ode->monitor)
            rc = ode->monitor(k + 1, t0 + (k + 1) * h, y, ode->user, ctx);
    }
    return rc;
}
