/* studies/modeinfo.c: a mode's platform twist, effective masses at the platform and strain
 * energy per body, joint and leg (pkm/modeinfo.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "pkm/modeinfo.h"
#include "pkm/topology.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Strain energy of beam element ei under the nodal displacements u (6 per node, global axes) and
 * the reduced coordinates x: 1/2 u_l^T K u_l with K the element's local stiffness from the beam
 * type table (Germain et al. 2015, eq. 23 for the cubic beam; Li et al. 2020, eqs. 1-7 for the
 * quintic) and u_l its coordinates in the element's axes: per node the twist (rows of R), then
 * the quintic's curvatures, which are local already (pkm/fem.h) and are read from x where the
 * dof map names them (zero where held, pkm_dofmap_element_curvature). */
static pkm_status element_energy(const pkm_model *m, const pkm_dofmap *map, int ei, const double *x,
                                 const double *u, double *e, pkm_ctx *ctx)
{
    enum { MAXN = 2 * PKM_BEAM_MAX_NODE_DOFS };
    const pkm_elem *el = pkm_model_elem(m, ei);
    const pkm_body *b = pkm_model_body(m, el->body);
    const pkm_beam_type *type = &pkm_beam_types[b->element];
    const int dpn = type->dofs_per_node, nd = 2 * dpn;
    if (!pkm_beam_type_spatial(type))
        return PKM_FAIL(ctx, PKM_ERR_MODEL, "body '%s': element '%s' has no spatial energy",
                        b->name, type->name);
    double R[3][3], l, K[MAXN * MAXN], ul[MAXN] = {0.0};
    pkm_status rc = pkm_fem_beam3d_frame(pkm_model_node(m, el->n1)->x, pkm_model_node(m, el->n2)->x,
                                         b->zref, R, &l, ctx);
    if (rc != PKM_OK) return rc;
    type->stiffness(&b->section, &b->material, l, K);
    for (int side = 0; side < 2; side++) {
        double *us = ul + side * dpn;
        for (int t = 0; t < 2; t++) {
            const double *g = u + 6 * (side == 0 ? el->n1 : el->n2) + 3 * t;
            for (int i = 0; i < 3; i++)
                us[3 * t + i] = R[i][0] * g[0] + R[i][1] * g[1] + R[i][2] * g[2];
        }
        const int64_t c = pkm_dofmap_element_curvature(map, ei, side);
        for (int k = 6; k < dpn && c >= 0; k++)
            us[k] = x[c + k - 6];
    }
    double s = 0.0;
    for (int i = 0; i < nd; i++)
        for (int j = 0; j < nd; j++)
            s += ul[i] * K[nd * i + j] * ul[j];
    *e = 0.5 * s;
    return PKM_OK;
}

/* Joint j's spring energy 1/2 d^T K_j d, d its free motions among the reduced coordinates. */
static double joint_energy_of(const pkm_joint *jt, const pkm_dofmap *map, int j, const double *x)
{
    int nfree = 0;
    const int64_t c = pkm_dofmap_joint_coordinate(map, j, &nfree);
    double s = 0.0;
    for (int a = 0; a < nfree; a++)
        for (int b = 0; b < nfree; b++)
            s += x[c + a] * jt->stiffness[a][b] * x[c + b];
    return 0.5 * s;
}

/* Per body and per joint energies into be, je (both filled), their total into info->energy. */
static pkm_status energies(const pkm_model *m, const pkm_dofmap *map, const double *x,
                           const double *u, pkm_mode_info *info, double *be, double *je,
                           pkm_ctx *ctx)
{
    info->energy = 0.0;
    for (int bi = 0; bi < pkm_model_body_count(m); bi++) {
        const pkm_body *b = pkm_model_body(m, bi);
        be[bi] = 0.0;
        for (int e = 0; b->kind == PKM_BODY_BEAM && e < b->nelem; e++) {
            double ee;
            pkm_status rc = element_energy(m, map, b->first_elem + e, x, u, &ee, ctx);
            if (rc != PKM_OK) return rc;
            be[bi] += ee;
        }
        info->energy += be[bi];
    }
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        je[j] = joint_energy_of(pkm_model_joint(m, j), map, j, x);
        info->energy += je[j];
    }
    return PKM_OK;
}

/* Sums of the bodies' and joints' energies per leg. */
static pkm_status leg_energies(const pkm_model *m, const double *be, const double *je, double *le,
                               pkm_ctx *ctx)
{
    pkm_topology *t = NULL;
    pkm_status rc = pkm_topology_create(m, &t, ctx);
    if (rc != PKM_OK) return rc;
    memset(le, 0, sizeof(*le) * (size_t)pkm_topology_leg_count(t));
    for (int b = 0; b < pkm_model_body_count(m); b++)
        if (pkm_topology_body_leg(t, b) >= 0) le[pkm_topology_body_leg(t, b)] += be[b];
    for (int j = 0; j < pkm_model_joint_count(m); j++)
        if (pkm_topology_joint_leg(t, j) >= 0) le[pkm_topology_joint_leg(t, j)] += je[j];
    pkm_topology_destroy(&t);
    return PKM_OK;
}

pkm_status pkm_mode_describe(const pkm_model *m, const pkm_dofmap *map, const double *x,
                             pkm_mode_info *info, double *body_energy, double *joint_energy,
                             double *leg_energy, pkm_ctx *ctx)
{
    if (m == NULL || map == NULL || x == NULL || info == NULL || pkm_model_platform(m) < 0 ||
        pkm_dofmap_node_count(map) != pkm_model_node_count(m))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "mode description: no model with a platform, or a dof map of another");
    const size_t nn = (size_t)pkm_model_node_count(m), nb = (size_t)pkm_model_body_count(m),
                 nj = (size_t)pkm_model_joint_count(m);
    double *u = malloc(6 * nn * sizeof *u), *be = malloc((nb + 1) * sizeof *be),
           *je = malloc((nj + 1) * sizeof *je);
    pkm_status rc = PKM_OK;
    if (u == NULL || be == NULL || je == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "mode description: %zu nodes", nn);
        goto fail;
    }
    pkm_dofmap_prolong(map, x, u);
    const double *tw = u + 6 * pkm_model_body(m, pkm_model_platform(m))->first_node;
    for (int d = 0; d < 6; d++) {
        info->twist[d] = tw[d];
        info->eff_mass[d] = tw[d] != 0.0 ? 1.0 / (tw[d] * tw[d]) : INFINITY;
    }
    rc = energies(m, map, x, u, info, be, je, ctx);
    if (rc == PKM_OK && leg_energy != NULL) rc = leg_energies(m, be, je, leg_energy, ctx);
    if (rc == PKM_OK && body_energy != NULL) memcpy(body_energy, be, nb * sizeof *be);
    if (rc == PKM_OK && joint_energy != NULL) memcpy(joint_energy, je, nj * sizeof *je);
fail:
    free(u);
    free(be);
    free(je);
    return rc;
}

pkm_status pkm_mode_joint_motion(const pkm_model *m, const pkm_dofmap *map, const double *x,
                                 double *motion, pkm_ctx *ctx)
{
    const int nn = pkm_model_node_count(m);
    if (pkm_dofmap_node_count(map) != nn)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint motion: a dof map of another model");
    double *u = malloc(6 * (size_t)nn * sizeof *u);
    if (u == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "joint motion: %d nodes", nn);
    pkm_dofmap_prolong(map, x, u);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < nn; i++)
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], pkm_model_node(m, i)->x[d]);
            hi[d] = fmax(hi[d], pkm_model_node(m, i)->x[d]);
        }
    double size = 0.0;
    for (int d = 0; d < 3 && nn > 0; d++)
        size += (hi[d] - lo[d]) * (hi[d] - lo[d]);
    size = size > 0.0 ? sqrt(size) : 1.0;
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        const pkm_joint *jt = pkm_model_joint(m, j);
        double rel[6];
        for (int d = 0; d < 6; d++) {
            const double a = jt->node[0] >= 0 ? u[6 * jt->node[0] + d] : 0.0;
            const double b = jt->node[1] >= 0 ? u[6 * jt->node[1] + d] : 0.0;
            rel[d] = b - a;
        }
        motion[j] =
            hypot(rel[3], hypot(rel[4], rel[5])) + hypot(rel[0], hypot(rel[1], rel[2])) / size;
    }
    free(u);
    return PKM_OK;
}
