/* assembly/joints.c: what joints add to the pencil beside their kinematics: springs and rotor
 * inertias on their free coordinates, lumped masses at their nodes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Both formulations hold every joint's free motions d (u_b = u_a + S d) as reduced coordinates
 * of the same meaning (the tree: its virtually actuated joint coordinates, Germain et al. 2015,
 * sec. 3, never eliminated; the nodal forest: the relative motion of its joint edges), and the
 * dof map says where (pkm_dofmap_joint_coordinate). A joint's spring energy d^T K_j d / 2 and a
 * rotor's kinetic energy d'^T J_j d' / 2 are then the same congruence in both, with E the
 * identity on those coordinates; a lumped mass's kinetic energy is that of a rigid body at its
 * node, u' = P x', projected through the node's block of P like the rigid bodies. So the two
 * pencils stay equal up to their change of coordinates. */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <stdlib.h>
#include <string.h>

/* Joint j's springs and rotor inertias on its coordinates (nothing if it has neither). */
static pkm_status add_joint(const pkm_joint *jt, const pkm_dofmap *P, int j, pkm_trip *trip,
                            pkm_ctx *ctx)
{
    enum { N = PKM_JOINT_MAX_FREE };
    int nf = 0, stiff = 0, inert = 0;
    const int64_t c0 = pkm_dofmap_joint_coordinate(P, j, &nf);
    double K[N * N] = {0}, M[N * N] = {0}, E[N * N] = {0};
    int64_t idx[N];
    for (int f = 0; f < nf; f++) {
        idx[f] = c0 + f;
        E[f * nf + f] = 1.0;
        M[f * nf + f] = jt->rotor_inertia[f];
        inert |= jt->rotor_inertia[f] != 0.0;
        for (int g = 0; g < nf; g++)
            stiff |= (K[f * nf + g] = jt->stiffness[f][g]) != 0.0;
    }
    if (!stiff && !inert) return PKM_OK;
    return pkm_trip_add_congruence(trip, nf, nf, idx, E, stiff ? K : NULL, inert ? M : NULL, ctx);
}

int pkm_asm_has_joint_terms(const pkm_model *m)
{
    if (pkm_model_mass_count(m) > 0) return 1;
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        const pkm_joint *jt = pkm_model_joint(m, j);
        for (int f = 0; f < PKM_JOINT_MAX_FREE; f++) {
            if (jt->rotor_inertia[f] != 0.0) return 1;
            for (int g = 0; g < PKM_JOINT_MAX_FREE; g++)
                if (jt->stiffness[f][g] != 0.0) return 1;
        }
    }
    return 0;
}

pkm_status pkm_asm_add_joint_terms(const pkm_model *m, const pkm_dofmap *P, pkm_trip *trip,
                                   pkm_ctx *ctx)
{
    pkm_status rc = PKM_OK;
    for (int j = 0; j < pkm_model_joint_count(m) && rc == PKM_OK; j++)
        rc = add_joint(pkm_model_joint(m, j), P, j, trip, ctx);
    int maxn = 1;
    for (int i = 0; i < pkm_model_mass_count(m); i++) {
        int n;
        const int64_t *col;
        const double(*tw)[6];
        pkm_dofmap_node(P, pkm_model_mass(m, i)->node, &n, &col, &tw);
        maxn = n > maxn ? n : maxn;
    }
    double *E = malloc(sizeof(double) * 6 * (size_t)maxn);
    if (E == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate lumped-mass maps");
    for (int i = 0; i < pkm_model_mass_count(m) && rc == PKM_OK; i++) {
        const pkm_lumped_mass *l = pkm_model_mass(m, i);
        const double c[3] = {0.0, 0.0, 0.0};
        double Ml[6][6];
        int n;
        const int64_t *col;
        const double(*tw)[6];
        pkm_dofmap_node(P, l->node, &n, &col, &tw);
        if (n == 0) continue; /* a node held fixed */
        pkm_spatial_inertia(l->mass, c, l->inertia, Ml);
        for (int r = 0; r < 6; r++)
            for (int k = 0; k < n; k++)
                E[r * n + k] = tw[k][r];
        rc = pkm_trip_add_congruence(trip, 6, n, col, E, NULL, &Ml[0][0], ctx);
    }
    free(E);
    return rc;
}
