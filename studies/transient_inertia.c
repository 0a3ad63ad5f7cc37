/* studies/transient_inertia.c: the inertial loads of the KED method (Li et al. 2020, eq. 37: F - M
 * U''_r), the inertia of the rigid motion and the weight, as nodal wrenches restricted through the
 * dof map, and the element matrices the drives' reactions read. SPDX-License-Identifier:
 * LGPL-2.1-or-later */
#include "pkm/dofmap.h"
#include "pkm/fem.h"
#include "pkm/spatial.h"
#include "pkm/transient.h"
#include "core/core_impl.h"
#include "studies/studies_impl.h"

#include <stdlib.h>
#include <string.h>

void pkm_tr_node_accel(const double V[6], const double A[6], const double g[3], const double x[3],
                       double out[6])
{
    double vx[3], wx[3], ax[3], wv[3];
    pkm_vec3_cross(V + 3, x, wx);
    for (int k = 0; k < 3; k++)
        vx[k] = V[k] + wx[k];
    pkm_vec3_cross(A + 3, x, ax);
    pkm_vec3_cross(V + 3, vx, wv);
    for (int k = 0; k < 3; k++) {
        out[k] = A[k] + ax[k] + wv[k] - (g != NULL ? g[k] : 0.0);
        out[3 + k] = A[3 + k];
    }
}

pkm_status pkm_tr_element_matrices(const pkm_model *m, const pkm_body *b, const pkm_elem *e,
                                   double M[12][12], double K[12][12], pkm_ctx *ctx)
{
    const pkm_beam_type *type = &pkm_beam_types[b->element];
    const int dpn = type->dofs_per_node, nd = 2 * dpn;
    const double *x1 = pkm_model_node(m, e->n1)->x, *x2 = pkm_model_node(m, e->n2)->x;
    double R[3][3], l = 0.0;
    pkm_status st = pkm_fem_beam3d_frame(x1, x2, b->zref, R, &l, ctx);
    if (st != PKM_OK) return st;
    double full[2 * PKM_BEAM_MAX_NODE_DOFS * 2 * PKM_BEAM_MAX_NODE_DOFS];
    for (int w = 0; w < (K != NULL ? 2 : 1); w++) {
        double(*A)[12] = w == 0 ? M : K;
        if (w == 0)
            type->mass(&b->section, &b->material, l, b->mass_flags, full);
        else
            type->stiffness(&b->section, &b->material, l, full);
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 12; j++)
                A[i][j] = full[(i / 6 * dpn + i % 6) * nd + j / 6 * dpn + j % 6];
        pkm_fem_rotate12(R, A, A);
    }
    return PKM_OK;
}

/* s = M_e ua for an element of dpn coordinates per node, G its mass in local axes (overwritten)
 * and R its rotation. A 12 x 12 mass is applied as D^T (M_local (D ua)), D the block diagonal of
 * R (the D of pkm_fem_rotate12's D^T M_local D): the acceleration turned into the element's axes
 * and back, not the matrix turned into global ones at every step (a quarter of the transient
 * driver's time at 16 elements per link); the quintic's curvature rows stay local
 * (pkm_fem_quintic_rotate). */
static void element_mass_times(double R[3][3], int dpn, double *G, const double *ua, double *s)
{
    const int nd = 2 * dpn;
    double loc[12], y[2 * PKM_BEAM_MAX_NODE_DOFS];
    const double *in = ua;
    if (dpn == 6) {
        for (int a = 0; a < 4; a++)
            pkm_mat3_apply(PKM_CONST33(R), ua + 3 * a, loc + 3 * a);
        in = loc;
    } else {
        pkm_fem_quintic_rotate(R, (double(*)[18])G, (double(*)[18])G);
    }
    for (int i = 0; i < nd; i++) {
        double t = 0.0;
        for (int j = 0; j < nd; j++)
            t += G[i * nd + j] * in[j];
        y[i] = t;
    }
    if (dpn == 6)
        for (int a = 0; a < 4; a++)
            pkm_mat3_apply_t(PKM_CONST33(R), y + 3 * a, s + 3 * a);
    else
        memcpy(s, y, sizeof(double) * (size_t)nd);
}

/* The rotational accelerations of an element's nodes as the slopes of the rigid acceleration
 * field a(x) = a_o + (alpha^ + w^ w^) x along its axis e (Li et al. 2020, sec. 2.5: the nodal
 * translations and slopes of the rigid field), so that the cubic field the element interpolates
 * is the rigid one: the tangent accelerates by (alpha^ + w^ w^) e, whose part normal to e is
 * alpha x e + (w . e) (w - (w . e) e), i.e. the rotation alpha + (w . e) e x w. The centripetal
 * share vanishes in a planar motion (w normal to e); about e itself the rotation stays alpha. */
static void field_slopes(const double w[3], const double e[3], double *ua, int dpn)
{
    double exw[3];
    pkm_vec3_cross(e, w, exw);
    const double we = pkm_vec3_dot(w, e);
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 3; k++)
            ua[side * dpn + 3 + k] += we * exw[k];
}

/* What the slopes leave of the rigid sections' angular momentum rate. The element's sections
 * carry J = rho l (Ip e e^T + Iy y y^T + Iz z z^T) (the normals' terms with the rotary inertia
 * only; e, y, z its axes), whose rate is J alpha + w x J w; M_e applied to the slopes gives J
 * alpha - (w . e) J (w x e). The rest, w x J w + (w . e) J (w x e), half at each node: the spin
 * about the axis turning with w ((w . e) rho Ip l w x e when the normals carry nothing), and the
 * gyroscopic moment of unequal Iy, Iz. */
static void section_gyro(const pkm_body *b, const double R[3][3], double l, const double w[3],
                         double d[3])
{
    const double rl = b->material.rho * l;
    const int rotary = (b->mass_flags & PKM_FEM_ROTARY_INERTIA) != 0;
    const double I[3] = {rl * b->section.Ip, rotary ? rl * b->section.Iy : 0.0,
                         rotary ? rl * b->section.Iz : 0.0};
    double J[3][3] = {{0}}, Jw[3], wxJw[3], wxe[3], Jwxe[3];
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                J[i][k] += I[a] * R[a][i] * R[a][k];
    pkm_mat3_apply(PKM_CONST33(J), w, Jw);
    pkm_vec3_cross(w, Jw, wxJw);
    pkm_vec3_cross(w, R[0], wxe);
    pkm_mat3_apply(PKM_CONST33(J), wxe, Jwxe);
    const double we = pkm_vec3_dot(w, R[0]);
    for (int k = 0; k < 3; k++)
        d[k] = 0.5 * (wxJw[k] + we * Jwxe[k]);
}

pkm_status pkm_tr_element_rigid(const pkm_model *m, const pkm_body *b, const pkm_elem *e,
                                const double VA[12], const double g[3], double ua[12],
                                double gyro[3], pkm_ctx *ctx)
{
    double R[3][3], l = 0.0;
    const double *x1 = pkm_model_node(m, e->n1)->x, *x2 = pkm_model_node(m, e->n2)->x;
    pkm_status st = pkm_fem_beam3d_frame(x1, x2, b->zref, R, &l, ctx);
    if (st != PKM_OK) return st;
    pkm_tr_node_accel(VA, VA + 6, g, x1, ua);
    pkm_tr_node_accel(VA, VA + 6, g, x2, ua + 6);
    field_slopes(VA + 3, R[0], ua, 6);
    section_gyro(b, PKM_CONST33(R), l, VA + 3, gyro);
    return PKM_OK;
}

/* Beam element e's load -M_e (U''_r,e - g) over all of its coordinates (Li et al. 2020, eq. 37,
 * element by element), M_e its consistent mass with the twists in global axes: the twist rows
 * on its two nodes (fn), the quintic's curvature rows (pkm_fem_quintic_rotate keeps them in
 * local axes) directly on the element's curvature coordinates of the dof map (f). A rigid motion
 * has no curvature, so U''_r,e is zero there; but M_e couples the curvatures to the nodes'
 * translations, and that share of the load is what a uniformly accelerated quintic link needs
 * to bend as the exact (quartic) deflection. A held-zero curvature (an end with
 * end_curvature_zero) takes no load. */
static pkm_status element_load(const pkm_model *m, const pkm_dofmap *map, const pkm_body *b, int ei,
                               const double VA[12], const double g[3], double *fn, double *f,
                               pkm_ctx *ctx)
{
    enum { MAXN = 2 * PKM_BEAM_MAX_NODE_DOFS };
    const pkm_elem *e = pkm_model_elem(m, ei);
    const pkm_beam_type *type = &pkm_beam_types[b->element];
    const int dpn = type->dofs_per_node, nd = 2 * dpn;
    if (dpn != 6 && dpn != 9)
        return PKM_FAIL(ctx, PKM_ERR_MODEL, "body '%s': element '%s' has no spatial loads", b->name,
                        type->name);
    double R[3][3], l = 0.0, G[MAXN * MAXN], ua[MAXN] = {0.0}, u6[12], gyro[3];
    const double *x1 = pkm_model_node(m, e->n1)->x, *x2 = pkm_model_node(m, e->n2)->x;
    pkm_status st = pkm_fem_beam3d_frame(x1, x2, b->zref, R, &l, ctx);
    if (st == PKM_OK) st = pkm_tr_element_rigid(m, b, e, VA, g, u6, gyro, ctx);
    if (st != PKM_OK) return st;
    type->mass(&b->section, &b->material, l, b->mass_flags, G);
    memcpy(ua, u6, 6 * sizeof(double));
    memcpy(ua + dpn, u6 + 6, 6 * sizeof(double));
    double s[MAXN];
    element_mass_times(R, dpn, G, ua, s);
    for (int i = 0; i < nd; i++) {
        const int side = i / dpn, k = i % dpn;
        if (k < 6) {
            fn[6 * (side == 0 ? e->n1 : e->n2) + k] -= s[i];
            continue;
        }
        const int64_t c = pkm_dofmap_element_curvature(map, ei, side);
        if (c >= 0) f[c + k - 6] -= s[i];
    }
    for (int k = 0; k < 3; k++) {
        fn[6 * e->n1 + 3 + k] -= gyro[k];
        fn[6 * e->n2 + 3 + k] -= gyro[k];
    }
    return PKM_OK;
}

/* Rigid body b's inertial wrench and weight at its origin node: -(m (a_c - g), J_c alpha + w x
 * J_c w) at the centre of mass c, moved to the origin o (moment + (c - o) x force). */
static void rigid_load(const pkm_model *m, const pkm_body *b, const double VA[12],
                       const double g[3], double *fn)
{
    const double *o = pkm_model_node(m, b->first_node)->x;
    double ac[6], Jw[3], Ja[3], wJw[3], F[3], M[3], co[3], m2[3];
    pkm_tr_node_accel(VA, VA + 6, g, b->com, ac);
    pkm_mat3_apply(PKM_CONST33(b->inertia), VA + 3, Jw);
    pkm_mat3_apply(PKM_CONST33(b->inertia), ac + 3, Ja);
    pkm_vec3_cross(VA + 3, Jw, wJw);
    for (int k = 0; k < 3; k++) {
        F[k] = -b->mass * ac[k];
        M[k] = -(Ja[k] + wJw[k]);
    }
    pkm_vec3_sub(b->com, o, co);
    pkm_vec3_cross(co, F, m2);
    for (int k = 0; k < 3; k++) {
        fn[6 * b->first_node + k] += F[k];
        fn[6 * b->first_node + 3 + k] += M[k] + m2[k];
    }
}

/* Lumped mass l's inertial wrench and weight at its node, carried by the node's body: -(m (a -
 * g), J alpha + w x J w), J about the node (the mass's point). */
static void mass_load(const pkm_model *m, const pkm_lumped_mass *l, const double (*motion)[12],
                      const double g[3], double *fn)
{
    const pkm_node *n = pkm_model_node(m, l->node);
    const double *VA = motion[n->body];
    double a[6], Jw[3], Ja[3], wJw[3];
    pkm_tr_node_accel(VA, VA + 6, g, n->x, a);
    pkm_mat3_apply(PKM_CONST33(l->inertia), VA + 3, Jw);
    pkm_mat3_apply(PKM_CONST33(l->inertia), a + 3, Ja);
    pkm_vec3_cross(VA + 3, Jw, wJw);
    for (int k = 0; k < 3; k++) {
        fn[6 * l->node + k] -= l->mass * a[k];
        fn[6 * l->node + 3 + k] -= Ja[k] + wJw[k];
    }
}

pkm_status pkm_transient_loads(const pkm_model *m, const pkm_dofmap *map,
                               const double (*motion)[12], const double g[3], double *fn, double *f,
                               pkm_ctx *ctx)
{
    if (pkm_dofmap_node_count(map) != pkm_model_node_count(m))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "loads: a dof map of %d nodes, a model of %d",
                        pkm_dofmap_node_count(map), pkm_model_node_count(m));
    memset(fn, 0, 6 * (size_t)pkm_model_node_count(m) * sizeof(double));
    memset(f, 0, (size_t)pkm_dofmap_reduced_count(map) * sizeof(double));
    for (int bi = 0; bi < pkm_model_body_count(m); bi++) {
        const pkm_body *b = pkm_model_body(m, bi);
        if (b->kind == PKM_BODY_RIGID) {
            rigid_load(m, b, motion[bi], g, fn);
            continue;
        }
        for (int e = b->first_elem; e < b->first_elem + b->nelem; e++) {
            pkm_status st = element_load(m, map, b, e, motion[bi], g, fn, f, ctx);
            if (st != PKM_OK) return st;
        }
    }
    for (int i = 0; i < pkm_model_mass_count(m); i++)
        mass_load(m, pkm_model_mass(m, i), motion, g, fn);
    pkm_dofmap_restrict(map, fn, f);
    return PKM_OK;
}
