/* dynamics/dynamics_impl.h: the rigid multibody system's private state, shared by the files of
 * dynamics/.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Kinematics in the product-of-exponentials form in global axes: frame f (one per elementary
 * screw, or a fixed frame for a clamped tree joint) has the displacement G_f = G_parent
 * exp(S0_f q_f) from the reference configuration, with S0_f its unit screw at the reference
 * configuration, so its current screw is S_f = Ad(G_parent) S0_f. Twists, accelerations and
 * wrenches are spatial vectors referred to the global origin (Featherstone 2008, ch. 2), in the
 * (v, w) / (F, M) order of pkm/spatial.h. */
#ifndef PKM_DYNAMICS_IMPL_H
#define PKM_DYNAMICS_IMPL_H

#include "pkm/dynamics.h"
#include "pkm/friction.h"
#include "pkm/topology.h"

/* One frame of the tree. */
typedef struct mbs_frame {
    int parent; /* frame index, -1 for the ground */
    int coord;  /* its coordinate, -1 for a fixed frame (clamped tree joint) */
    int prismatic;
    double axis[3], point[3], pitch; /* reference screw: unit axis, a point on it, m per rad */
    double R[3][3], p[3];            /* displacement G from the reference configuration */
    double S[6];                     /* current unit screw at the origin */
    double V[6], A[6];               /* twist, spatial acceleration without gravity */
    double f[6];                     /* RNEA wrench its joint passes to its subtree */
} mbs_frame;

/* One cut joint's constraint rows, or one point-on-plane constraint's row (a cut between the
 * ground and the point's body). */
typedef struct mbs_cut {
    int joint, row, nrow; /* model joint (-1 for a plane), first row, rows */
    int plane;            /* model plane, -1 for a joint */
    int fa, fb;           /* frames of body_a and body_b (-1 for the ground) */
    int lca; /* their lowest common ancestor (-1: the ground): above it the two paths' screws
                cancel, so the rows depend on the coordinates below it only */
} mbs_cut;

/* A rotor inertia on a joint's coordinate (lumped.c). */
typedef struct mbs_rotor {
    double J;       /* kg m^2 (revolute, helical) or kg (prismatic) */
    int prismatic;  /* the coordinate a translation */
    double axis[3]; /* the joint's unit axis at the reference configuration */
    int frame[2];   /* the frames of body_a and body_b, -1 for the ground */
} mbs_rotor;

/* The sparse solver's state (sparse.c). */
typedef struct mbs_sparse mbs_sparse;

struct pkm_mbs {
    const pkm_model *m;
    pkm_topology *topo;
    double g[3];
    int nb, nj, nf, nq, nc, ncut,
        na; /* bodies, joints, frames, coordinates, rows, cuts, actuated */
    mbs_frame *fr;
    mbs_cut *cut;
    int *body_frame;   /* per body: the frame it moves with, -1 for the ground */
    int *joint_frame;  /* per joint: first frame (tree) or -1 */
    int *joint_nframe; /* per joint: its frames */
    int *joint_cut;    /* per joint: cut index or -1 */
    int *coord_frame;  /* per coordinate: its frame */
    int *coord_joint;  /* per coordinate: its model joint, -1 for the platform's */
    char (*coord_name)[PKM_NAME_LEN + 4];
    double *mass, (*com0)[3], (*J0)[3][3]; /* per body, reference configuration */
    int *act;                              /* na actuated coordinates */
    int *driven, nd, *is_driven;           /* driven coordinates */
    double singular;                       /* conditioning threshold of the passive Jacobian */
    double size;                           /* mechanism size for the closure tolerance, m */
    int load_body[PKM_MBS_LOADS];          /* pkm_mbs_set_load's bodies, -1: none */
    double *preload;                       /* pkm_mbs_set_preload's na torques, or NULL */
    double load[PKM_MBS_LOADS][9];         /* force, moment (global) and point (reference) */
    double *q, *qd, *qdd;
    double *W;        /* nc x 6 constraint wrenches at the origin (rows) */
    double *Wd;       /* nc x 6 their time derivatives */
    double *gamma;    /* nc acceleration bias (C qdd + gamma = 0) */
    int *cptr, *cidx; /* C's pattern by rows (nc + 1, nnz): the coordinates below each cut's
                         lowest common ancestor, ascending */
    double *cval;     /* C's entries on that pattern, the only copy the sparse path keeps */
    double *csgn;     /* per entry +1 (its frame on body_b's path) or -1 (body_a's) */
    double *C;        /* nc x nq dense copy of C for the dense path (mbs_dense_c), allocated
                         with its matrices */
    pkm_dyn_solver solver;
    mbs_sparse *sp;  /* NULL until the sparse solver is first used */
    int sp_stale;    /* the driven set changed since the sparse analysis */
    double *r;       /* nc position residual */
    double residual; /* pkm_mbs_inverse's: the equations of motion's, N or N m */
    /* workspaces (n = max(nq, nc) + 1): wa, wb, wg (n x n), work belong to the LAPACK
     * wrappers below, with cp and nul (n x n) allocated on the dense path's first use
     * (mbs_dense_ready); ws and the solves' operands rhs, x, sv, gq, lam, tau, g0, fq, ce (n each)
     * and pidx (the passive coordinates) at create */
    double *wa, *wb, *ws, *work, *wg;
    double *cp, *nul, *rhs, *x, *sv, *gq, *lam, *tau, *g0, *fq, *ce;
    pkm_friction *fric; /* per joint, zero: none */
    mbs_rotor *rot;     /* the joints' rotor inertias */
    int nrot;
    int *pidx;
    int lwork, checked;
    /* pkm_mbs_kinematics' last solved time and the coordinates there (nq, allocated with pidx),
     * the start of its next Newton; kin_valid = 0 when the state was set otherwise */
    double t_kin, *q_kin;
    int kin_valid, warm_start;
};

/* sparse.c: C's pattern by rows (s->cptr, cidx, cval and each cut's lca), at create. */
pkm_status mbs_sparse_pattern(pkm_mbs *s, pkm_ctx *ctx);
void mbs_sparse_destroy(pkm_mbs *s);
/* The passive solve of closure.c on the sparse path: Cp x = s->rhs in the least-squares sense
 * into s->x (rows and columns scaled by mbs_row_scale and mbs_col_scale), when the passive
 * Jacobian has full column rank and its conditioning estimate is at least s->singular; *done = 0
 * otherwise (the caller then runs the dense solve, which names the coordinate). */
pkm_status mbs_sparse_passive(pkm_mbs *s, int *done, pkm_ctx *ctx);
/* The drives and cut wrenches of inverse.c on the sparse path (s->tau, s->lam from s->gq), with
 * the largest residual of the passive coordinates' equations in *residual; *done = 0 when the
 * sparse path does not apply (the dense solver chosen, a driven set other than the actuated one,
 * redundant actuation, a passive Jacobian that lost rank): the caller solves densely. The
 * factorisation is made when refactor is set (once per state). */
pkm_status mbs_sparse_inverse(pkm_mbs *s, int refactor, double *residual, int *done, pkm_ctx *ctx);

/* closure.c: the scales that make the passive Jacobian dimensionless (docs/dynamics.md). */
double mbs_row_scale(const pkm_mbs *s, int i);
double mbs_col_scale(const pkm_mbs *s, int k);
/* The name of cut c: its joint's or its plane's. */
const char *mbs_cut_name(const pkm_mbs *s, int c);

/* kinematics.c */
void mbs_forward(pkm_mbs *s);           /* G, S, V, A of every frame from q, qd, qdd */
void mbs_constraint_rows(pkm_mbs *s);   /* W, Wd, C, gamma, r at the current state */
void mbs_rnea(pkm_mbs *s, int gravity); /* f of every frame from the frames' V, A */
void mbs_body_inertia(const pkm_mbs *s, int b, double I[6][6]);
/* Generalised forces S_k . f_k of every coordinate after mbs_rnea. */
void mbs_generalised(const pkm_mbs *s, double *g);

/* lumped.c: the model's lumped masses into the bodies' mass properties and its rotor inertias
 * into s->rot, at create (PKM_ERR_INVALID for a rotor inertia on a universal or spherical
 * joint); the rotors' inertial wrenches added to the frames' f in the RNEA; their kinetic energy.
 */
pkm_status mbs_lumped_setup(pkm_mbs *s, pkm_ctx *ctx);
void mbs_rotor_wrenches(pkm_mbs *s);
double mbs_rotor_energy(const pkm_mbs *s);

/* inverse.c: r's axial and radial force and bending moment from its wrench and axis (Guo et al.
 * 2024, eqs. 39-46), also for the joints of the other engines (chain_engine.c). */
void mbs_joint_components(pkm_joint_type type, pkm_joint_result *r);

/* mbs.c: the dense path's matrices, allocated on its first use (PKM_ERR_NOMEM). */
pkm_status mbs_dense_ready(pkm_mbs *s, pkm_ctx *ctx);
/* closure.c: C (nc x nq row-major) from its pattern into C, zero off the pattern. */
void mbs_dense_c(const pkm_mbs *s, double *C);
/* mbs.c: minimum-norm least squares min |A x - b| through LAPACK dgelss (A m x n row-major,
 * copied; b m entries, x n); the singular values go to sv (min(m, n)) if not NULL. Returns the
 * numerical rank with the relative threshold rcond, or -1 if LAPACK fails. */
int mbs_lstsq(pkm_mbs *s, int m, int n, const double *A, const double *b, double *x, double rcond,
              double *sv);
/* The min(m, n) singular values of A (m x n row-major), descending, into sv, as the square roots
 * of the eigenvalues of A^T A (LAPACK dsyev, values only): a fifth of dgesvd's time on NaVARo's
 * 33 x 15 passive Jacobian (8 against 43 us). The Gram matrix's rounding, eps ||A||^2, leaves a
 * ratio sigma_min / sigma_max of r with a relative error of about eps / r^2: 1e-10 at 1e-3, but
 * noise below about 1e-7 (0 where the rounding goes negative). 0, or -1 if LAPACK fails. */
int mbs_singular_values(pkm_mbs *s, int m, int n, const double *A, double *sv);
/* Null space of A (m x n row-major): its nn columns into N (n x nn row-major); returns nn, or -1
 * if LAPACK fails. */
int mbs_nullspace(pkm_mbs *s, int m, int n, const double *A, double *N, double rtol);

#endif
