/* include/pkm/newmark.h: implicit time integration of M U'' + C U' + K U = F on a pencil, by
 * Newmark's method (and the HHT-alpha variant), with Rayleigh damping C = l1 M + l2 K.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The kineto-elastodynamic equation of Li et al. 2020, eq. 37, is solved by Newmark's method
 * there; the scheme here is Newmark's family (Newmark 1959; Hughes, The Finite Element Method,
 * sec. 9.1) in its displacement-increment form, with the Hilber-Hughes-Taylor alpha
 * modification (Hughes, sec. 9.3) as an option:
 *     M a_{n+1} + (1+alpha) (C v_{n+1} + K u_{n+1}) - alpha (C v_n + K u_n)
 *         = (1+alpha) f_{n+1} - alpha f_n,
 *     u_{n+1} = u_n + dt v_n + dt^2 ((1/2 - beta) a_n + beta a_{n+1}),
 *     v_{n+1} = v_n + dt ((1 - gamma) a_n + gamma a_{n+1}).
 * alpha = 0 is Newmark; beta = 1/4, gamma = 1/2 the average acceleration (trapezoidal) rule,
 * unconditionally stable, second order, without numerical damping, with a period elongation of
 * (w dt)^2 / 12 relative for small w dt.
 *
 * Each step solves one linear system with the effective stiffness
 *     K_eff = (1+alpha) (1 + a1 l2) K + (a0 + (1+alpha) a1 l1) M,  a0 = 1/(beta dt^2),
 *     a1 = gamma / (beta dt),
 * factorised by pkm_linsolve on the pencil's pattern: the symbolic analysis once for the run
 * (again only when a new pencil has another pattern), the numeric factorisation whenever the
 * pencil changes (pkm_newmark_set_pencil: the configuration update of the KED method, M(q) and
 * K(q) reassembled at the rigid configuration q(t)). The state u, v, a carries over a change of
 * pencil. */
#ifndef PKM_NEWMARK_H
#define PKM_NEWMARK_H

#include <stdint.h>

#include "pkm/pencil.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_newmark_opts {
    double dt;     /* time step, s (> 0) */
    double beta;   /* Newmark beta (> 0; 1/4) */
    double gamma;  /* Newmark gamma (>= 1/2; 1/2) */
    double alpha;  /* HHT alpha in [-1/3, 0] (0: Newmark) */
    double l1, l2; /* Rayleigh damping C = l1 M + l2 K: l1 in 1/s, l2 in s (>= 0) */
    int no_energy; /* nonzero: no energy bookkeeping in the steps (4 sparse products of 6) */
} pkm_newmark_opts;

/* Average acceleration (beta 1/4, gamma 1/2, alpha 0), no damping, time step dt. */
pkm_newmark_opts pkm_newmark_opts_default(double dt);

/* HHT-alpha with its second-order, unconditionally stable parameters beta = (1 - alpha)^2 / 4,
 * gamma = 1/2 - alpha (Hughes, sec. 9.3), no damping. alpha is checked by pkm_newmark_create. */
pkm_newmark_opts pkm_newmark_opts_hht(double dt, double alpha);

/* Rayleigh coefficients from two damping ratios at two frequencies: the modal damping ratio of
 * C = l1 M + l2 K at circular frequency w is zeta(w) = l1 / (2 w) + l2 w / 2, so zeta(2 pi f1) =
 * zeta1 and zeta(2 pi f2) = zeta2 give l1 = 2 w1 w2 (zeta1 w2 - zeta2 w1) / (w2^2 - w1^2), l2 =
 * 2 (zeta2 w2 - zeta1 w1) / (w2^2 - w1^2). f1, f2 in Hz. PKM_ERR_INVALID, naming the value, for
 * a frequency that is not positive and finite, equal frequencies, a negative or non-finite
 * ratio, or ratios that give a negative coefficient (C would feed energy into some modes). */
pkm_status pkm_rayleigh_from_ratios(double zeta1, double f1, double zeta2, double f2, double *l1,
                                    double *l2, pkm_ctx *ctx);

/* Rayleigh coefficients from two damping ratios at two modes of pencil p, numbered from 1 (the
 * lowest): the pencil's lowest max(mode1, mode2) frequencies by pkm_modal_solve (ARPACK
 * shift-invert; zero-energy modes refused), then pkm_rayleigh_from_ratios at the two modes'
 * frequencies, which go to f (Hz, two values; may be NULL). The modal damping ratio of mode i,
 * M-normalised, is then x_i^T C x_i / (2 w_i) = l1 / (2 w_i) + l2 w_i / 2: the requested one at
 * both modes. PKM_ERR_INVALID for mode numbers below 1 or above the pencil's order, equal
 * modes, or the conditions of pkm_rayleigh_from_ratios; the errors of the modal solve. */
pkm_status pkm_rayleigh_from_modes(const pkm_pencil *p, double zeta1, int mode1, double zeta2,
                                   int mode2, double *l1, double *l2, double f[2], pkm_ctx *ctx);

typedef struct pkm_newmark pkm_newmark;

/* An integrator for pencils of p's pattern, p its first pencil (borrowed: it must stay valid and
 * unchanged until the next pkm_newmark_set_pencil or destroy). The state is zero until
 * pkm_newmark_start. PKM_ERR_INVALID for options out of range (naming the option) or a pencil
 * of order < 1; PKM_ERR_SINGULAR when K_eff is not positive definite; PKM_ERR_NOMEM; the
 * errors of pkm_linsolve. */
pkm_status pkm_newmark_create(const pkm_pencil *p, const pkm_newmark_opts *opts, pkm_newmark **out,
                              pkm_ctx *ctx);
void pkm_newmark_destroy(pkm_newmark **nm); /* NULL-safe, sets *nm to NULL */

/* The pencil from now on (the configuration update): same order; the numeric factorisation of
 * K_eff is redone, the symbolic analysis too if the pattern differs. Errors as create. */
pkm_status pkm_newmark_set_pencil(pkm_newmark *nm, const pkm_pencil *p, pkm_ctx *ctx);

/* Initial state u0, v0 (NULL: zero) under the load f0 (NULL: zero); the acceleration from the
 * equation of motion, M a0 = f0 - C v0 - K u0 (M factorised once for it: PKM_ERR_SINGULAR if M
 * is not positive definite). Resets the time to 0 and the energies to their initial values. */
pkm_status pkm_newmark_start(pkm_newmark *nm, const double *u0, const double *v0, const double *f0,
                             pkm_ctx *ctx);

/* One step to t + dt under the load f1 = F(t + dt) (n values, SI). The state satisfies the
 * equation of motion at t + dt to the rounding of u carried into the velocity and acceleration
 * (about eps |u| / dt and eps |u| / (beta dt^2): one product with M a step, the one with K taken
 * through the factorised K_eff). */
pkm_status pkm_newmark_step(pkm_newmark *nm, const double *f1, pkm_ctx *ctx);

/* Order, time (s), steps taken and the state (n values each, valid until the next call). */
int64_t pkm_newmark_order(const pkm_newmark *nm);
double pkm_newmark_time(const pkm_newmark *nm);
int64_t pkm_newmark_steps(const pkm_newmark *nm);
const double *pkm_newmark_u(const pkm_newmark *nm);
const double *pkm_newmark_v(const pkm_newmark *nm);
const double *pkm_newmark_a(const pkm_newmark *nm);

/* Energies (J): kinetic 1/2 v^T M v and strain 1/2 u^T K u with the current pencil; dissipated
 * and the work of the loads accumulated over the steps by the trapezoidal rule, sum dt vm^T C vm
 * and sum du^T fm (vm, fm: the means of the step's end values, du its increment). For the
 * average acceleration rule on a fixed pencil these make an exact balance, kinetic + strain +
 * dissipated - work = its initial value (up to rounding); other parameters, or a pencil that
 * changes along the run, leave a residual. With opts.no_energy the steps leave them at their
 * values of pkm_newmark_start. */
typedef struct pkm_newmark_energy {
    double kinetic, strain, dissipated, work;
} pkm_newmark_energy;

pkm_newmark_energy pkm_newmark_energies(const pkm_newmark *nm);

/* Symbolic analyses done so far (one at create, one per change of pattern). */
int pkm_newmark_symbolic_count(const pkm_newmark *nm);

#ifdef __cplusplus
}
#endif
#endif
