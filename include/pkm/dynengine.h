/* include/pkm/dynengine.h: the rigid-body dynamics engines of a pkm_model, as a type table.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every engine is one const entry of pkm_dyn_engines (as pkm/eigensolver.h's eigensolvers): its
 * name (the command line's --engine), a description, whether it accepts a model, and create /
 * inverse / forward / destroy of an engine bound to one model. All engines speak the same
 * language: the model's actuated joints (in joint order, one coordinate each) as the motion,
 * every model joint's pkm_joint_result (reaction convention of pkm/dynamics.h) as the inverse
 * dynamics' answer, and the actuated coordinates' accelerations under their drives as the forward
 * dynamics' answer; the coordinates are measured from the configuration the model was built in.
 * The table is ordered fastest first (bench/engine_bench.c measures it), so that
 * pkm_dyn_engine_choose, the first entry that accepts a model, is the fastest one that does.
 *
 * The chewing robot's description (pkm/mast.h: R-S-S chains and curved point-on-surface contacts,
 * M_A and MCI) is not an entry: it is not a pkm_model (a pkm_model's higher pairs are planes).
 * Its inverse dynamics is this table's, on its model (pkm_masticatory_model); its own routes
 * (minimum-norm torques with weights and preload) are the tests' independent reference the
 * general engine is checked against (tests/reference/; docs/dynamics.md, "Engines"). */
#ifndef PKM_DYNENGINE_H
#define PKM_DYNENGINE_H

#include "pkm/chain.h"
#include "pkm/dynamics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Index of an entry of pkm_dyn_engines. */
typedef enum pkm_dyn_engine_id {
    PKM_DYN_ENGINE_CHAIN = 0, /* O(n) module chain (pkm/chain.h), recognised from the model */
    PKM_DYN_ENGINE_MBS = 1,   /* the general multibody system, sparse path (pkm/dynamics.h) */
    PKM_DYN_ENGINE_DENSE = 2  /* the same on its dense LAPACK path (the reference) */
} pkm_dyn_engine_id;

#define PKM_DYN_ENGINE_COUNT 3

/* What an engine offers beyond drives, reactions and forward dynamics (a run that asks for more
 * than its engine offers is refused, pkm_dynamics_engine_check). */
enum {
    PKM_DYN_EXTRA_WEIGHTS = 1u,  /* weighted minimum-norm drives of a redundant actuation */
    PKM_DYN_EXTRA_PRELOAD = 2u,  /* an internal preload in the drives' null space */
    PKM_DYN_EXTRA_FRICTION = 4u, /* joint friction under the reactions' normal loads */
    PKM_DYN_EXTRA_CLOSURE = 8u   /* closed loops of any shape (cut joints, point-on-plane) */
};

typedef struct pkm_dyn_engine {
    pkm_dyn_engine_id id; /* its index in the table */
    const char *name;     /* lower-case identifier: "chain", "mbs", "mbs-dense" */
    const char *description;
    unsigned extras; /* PKM_DYN_EXTRA_* */
    /* PKM_OK if the engine can run m; else PKM_ERR_MODEL naming the body or joint that it
     * cannot take. */
    pkm_status (*accepts)(const pkm_model *m, pkm_ctx *ctx);
    /* An engine for m (which must outlive it and not change) under gravity (m/s^2, global
     * axes); the errors of accepts and of the engine's set-up. */
    pkm_status (*create)(const pkm_model *m, const double gravity[3], void **engine, pkm_ctx *ctx);
    void (*destroy)(void **engine); /* NULL-safe, sets *engine to NULL */
    /* Inverse dynamics at time t (for messages): the actuated coordinates qa, their rates and
     * accelerations (one per actuated joint, joint order) given, every model joint's result into
     * res (pkm_model_joint_count entries; drives with the minimum-norm choice of a redundant
     * actuation, weights NULL). A motion is followed by calling it at successive times (the
     * closure is solved from the last one). The engine's errors (PKM_ERR_SINGULAR, ...). */
    pkm_status (*inverse)(void *engine, double t, const double *qa, const double *qda,
                          const double *qdda, pkm_joint_result *res, pkm_ctx *ctx);
    /* Forward dynamics at time t: the actuated coordinates' accelerations qdda under the drives
     * tau (one per actuated joint, joint order) at the state (qa, qda), for a mechanism whose
     * actuated coordinates are independent (as many as its degrees of freedom). */
    pkm_status (*forward)(void *engine, double t, const double *qa, const double *qda,
                          const double *tau, double *qdda, pkm_ctx *ctx);
} pkm_dyn_engine;

/* The table, indexed by pkm_dyn_engine_id, fastest first. */
extern const pkm_dyn_engine pkm_dyn_engines[PKM_DYN_ENGINE_COUNT];

/* The entry named `name`, or NULL. */
const pkm_dyn_engine *pkm_dyn_engine_find(const char *name);

/* The fastest entry that accepts m (mbs accepts every model, so never NULL). */
const pkm_dyn_engine *pkm_dyn_engine_choose(const pkm_model *m);

/* The number of actuated joints of m (the length of qa and tau). */
int pkm_dyn_engine_actuated(const pkm_model *m);

/* The module chain (pkm/chain.h) that m is, if it is one, the inverse of pkm_chain_model: rigid
 * bodies only, no platform, masses, springs, rotor inertias or planes; from the ground a serial
 * sequence of modules, each either one actuated revolute or prismatic joint to the next link, or
 * an RRPR loop (two passive revolute joints from the link to the upper link and to a barrel, an
 * actuated prismatic joint from the barrel to a rod along the pin-to-pin line, and a cut
 * revolute joint from the rod to the upper link, all axes parallel and the loop in their
 * normal plane). The modules are described at the model's configuration (coordinates 0 there,
 * every range open); mods (n entries, n the number of actuated joints, may be NULL to test)
 * receive them, *root the first module's base frame in the world, and joint[4 i .. 4 i + 3]
 * (may be NULL) module i's model joints (serial: its joint, -1, -1, -1; loop: the q1 pin, the
 * q11 pin, the cylinder, the rod pin). PKM_ERR_MODEL naming the
 * body or joint where m is not such a chain. */
pkm_status pkm_chain_recognise(const pkm_model *m, pkm_chain_module *mods, pkm_chain_pose *root,
                               int *joint, pkm_ctx *ctx);

/* The other way: what the modules of c take from their bases at q (pkm_chain_loads.base, and
 * tau_closed = tau[i] = the module's drive; the rest 0) from the joint results res of its model
 * (pkm_chain_model at any configuration, coord its coord) under another engine, so that its
 * answer reads as the chain's; the first module's base body, which the model leaves out, adds
 * its weight. Errors of pkm_chain_poses. */
pkm_status pkm_chain_loads_of(pkm_chain *c, const double *q, const pkm_joint_result *res,
                              const int *coord, double *tau, pkm_chain_loads *loads, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
