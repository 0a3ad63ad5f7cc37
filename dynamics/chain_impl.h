/* dynamics/chain_impl.h: the module chain's private state, shared by chain.c, chain_loop.c and
 * chain_model.c.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every module is evaluated in its base frame. Body k of a module has its pose in the base frame
 * (so X_k, the twist transform from the base, is U^T of that pose) and, in its own frame, the
 * compact form of the paper's eqs. 29-30 and 47-48 (rebuilt): V_k = X_k V_0 + S_k q',
 * V_k' = X_k V_0' + S_k q'' + c_k. A serial joint is the same with one moving body and its end
 * body, so one set of module equations (the paper's eqs. 34-37, 41-49, rebuilt) serves all three
 * module types, and for a serial joint they reduce to Featherstone's articulated-body step (the
 * paper's eqs. 50-52). */
#ifndef PKM_CHAIN_IMPL_H
#define PKM_CHAIN_IMPL_H

#include "pkm/chain.h"

/* A modifiable 6x6 array as a const input (see PKM_CONST33). */
#define CHAIN_C66(A) ((const double(*)[6])(A))
#define CHAIN_C33(A) ((const double(*)[3])(A))

typedef struct chain_mod {
    pkm_chain_module d;
    int nbody;                       /* 3 (serial) or 5 (loop) */
    double I[PKM_CHAIN_NBODY][6][6]; /* spatial inertias in the body frames (constant) */
    pkm_chain_loop_state ls;         /* loop closure at the current state */
    double R[PKM_CHAIN_NBODY][3][3]; /* body poses in the base frame */
    double r[PKM_CHAIN_NBODY][3];
    double S[PKM_CHAIN_NBODY][6]; /* q' coefficient of the body twist */
    double V[PKM_CHAIN_NBODY][6]; /* body twists */
    double c[PKM_CHAIN_NBODY][6]; /* velocity-product acceleration */
    double p[PKM_CHAIN_NBODY][6]; /* bias -ad(V)^T I V */
    double D, U[6], u;            /* actuator-space inertia, base coupling, bias */
    double IA[6][6], pA[6];       /* articulated inertia and bias at the base (eq. 49) */
    double A[PKM_CHAIN_NBODY][6]; /* body accelerations (inverse dynamics) */
    double F[PKM_CHAIN_NBODY][6]; /* body wrenches (inverse dynamics) */
    double base[6];               /* wrench from the base (inverse dynamics) */
} chain_mod;

struct pkm_chain {
    int n;
    chain_mod *m;
    pkm_chain_pose root;
    double g[3];
    double eps;
};

/* chain.c: pass 1, the kinematics of every module from the root (closure, poses, S, V, c, p). */
pkm_status chain_kinematics(pkm_chain *c, const double *q, const double *qd, pkm_ctx *ctx);
/* The root's fictitious acceleration: gravity upward in root axes (or zero). */
void chain_root_acc(const pkm_chain *c, int gravity, double A0[6]);

/* chain_loop.c: one module's closure and body kinematics in its base frame for base twist V0. */
pkm_status chain_mod_kinematics(chain_mod *m, double q, double qd, const double V0[6], double eps,
                                pkm_ctx *ctx);

/* Small spatial helpers on frame-local vectors. */
void chain_twist_in(const double R[3][3], const double r[3], const double V[6], double out[6]);
void chain_wrench_out(const double R[3][3], const double r[3], const double F[6], double out[6]);
void chain_inertia_out(const double R[3][3], const double r[3], const double I[6][6],
                       double out[6][6]);
void chain_mul66(const double I[6][6], const double v[6], double out[6]);
double chain_dot6(const double a[6], const double b[6]);

#endif
