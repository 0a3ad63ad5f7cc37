/* dynamics/engine_impl.h: the entries of the engine table (pkm/dynengine.h) that live in their
 * own files: the module chain's (chain_engine.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_ENGINE_IMPL_H
#define PKM_ENGINE_IMPL_H

#include "pkm/dynengine.h"

pkm_status pkm_dyn_chain_accepts(const pkm_model *m, pkm_ctx *ctx);
pkm_status pkm_dyn_chain_create(const pkm_model *m, const double gravity[3], void **engine,
                                pkm_ctx *ctx);
void pkm_dyn_chain_destroy(void **engine);
pkm_status pkm_dyn_chain_inverse(void *engine, double t, const double *qa, const double *qda,
                                 const double *qdda, pkm_joint_result *res, pkm_ctx *ctx);
pkm_status pkm_dyn_chain_forward(void *engine, double t, const double *qa, const double *qda,
                                 const double *tau, double *qdda, pkm_ctx *ctx);

#endif
