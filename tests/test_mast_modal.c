/* tests/test_mast_modal.c: the rigid-link modal limit of the chewing robot's surrogate (Cheng et
 * al. 2024; the surrogate's test list, T19): its finite-element model with links 1e6 times
 * stiffer than steel and torsional springs k on the crank shafts has, as lowest frequencies,
 * those of the rigid mechanism on its springs, eig(k J1^T J1, M_r) with J1 = d theta / d q_free
 * and M_r = J3^T M J3 the reduced mass matrix of pkm/mast.h. The condyle contacts are the
 * finite-element model's point-on-plane constraints (pkm_model_add_plane) with the surfaces'
 * normals at the pose; the 6-RSS twin has none.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_lapack.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/assembly.h"
#include "pkm/casefile.h"
#include "pkm/mast.h"
#include "pkm/masticatory.h"
#include "pkm/model.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K_SHAFT 50.0 /* N m/rad */

/* The mechanism (SI) of the built-in case, target or twin. */
static void mechanism(int higher_pairs, pkm_mast *m)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *params = NULL;
    assert_pkm_ok(pkm_case_params_create(pkm_masticatory_case(), &params, &ctx), &ctx);
    pkm_masticatory_params *p = params;
    p->higher_pairs = (unsigned)higher_pairs;
    assert_pkm_ok(pkm_masticatory_mechanism(p, m, &ctx), &ctx);
    pkm_case_params_destroy(&params);
}

/* Unit vector of b - a, and a unit vector normal to it. */
static void axis_and_normal(const double a[3], const double b[3], double e[3], double n[3])
{
    for (int k = 0; k < 3; k++)
        e[k] = b[k] - a[k];
    const double l = pkm_vec3_norm(e);
    for (int k = 0; k < 3; k++)
        e[k] /= l;
    const double h[3] = {fabs(e[0]) < 0.9 ? 1.0 : 0.0, fabs(e[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    pkm_vec3_cross(e, h, n);
    const double ln = pkm_vec3_norm(n);
    for (int k = 0; k < 3; k++)
        n[k] /= ln;
}

/* The finite-element model at state s: each crank a rigid body on a revolute shaft with spring
 * K_SHAFT (its inertia about the shaft), each coupler a stiff beam (rho A L = its mass, no
 * rotary inertia: the line mass of the rigid model) joined to its crank by a universal joint
 * (which holds only the coupler's idle spin) and to the moving body by a spherical one, the
 * moving body rigid, the contacts point-on-plane constraints. */
static pkm_model *fe_model(const pkm_mast *m, const pkm_mast_state *s)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *fe = NULL;
    assert_pkm_ok(pkm_model_create(&fe, &ctx), &ctx);
    double R[3][3], p[3] = {s->X[0], s->X[1], s->X[2]};
    pkm_pose_rotation(s->X, R);
    pkm_rigid_desc body = {.name = "mandible", .mass = m->mass};
    memcpy(body.origin, p, sizeof(p));
    memcpy(body.com, p, sizeof(p));
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    body.inertia[a][b] += R[a][i] * m->inertia[i][j] * R[b][j];
    int mand = -1;
    assert_pkm_ok(pkm_model_add_rigid(fe, &body, &mand, &ctx), &ctx);
    for (int i = 0; i < m->nchain; i++) {
        const pkm_rss *c = &m->chain[i];
        double S[3], M[3], e[3], n[3], a[3];
        pkm_rss_tip(c, s->th[i], S);
        for (int k = 0; k < 3; k++)
            M[k] = p[k] + R[k][0] * c->M[0] + R[k][1] * c->M[1] + R[k][2] * c->M[2];
        for (int k = 0; k < 3; k++)
            a[k] = c->R0[k][2];
        pkm_rigid_desc crank = {.name = "crank"};
        memcpy(crank.origin, c->G, sizeof(crank.origin));
        memcpy(crank.com, c->G, sizeof(crank.com));
        for (int u = 0; u < 3; u++)
            for (int v = 0; v < 3; v++)
                crank.inertia[u][v] = m->crank_inertia[i] * a[u] * a[v];
        int cb = -1, lb = -1;
        assert_pkm_ok(pkm_model_add_rigid(fe, &crank, &cb, &ctx), &ctx);
        const double pts[2][3] = {{S[0], S[1], S[2]}, {M[0], M[1], M[2]}};
        const pkm_section sec = {.A = 1e-5, .Iy = 1e-11, .Iz = 1e-11, .I0 = 2e-11, .Ip = 2e-11};
        const pkm_material mat = {
            .E = 210e9 * 1e6, .G = 81e9 * 1e6, .rho = m->coupler_mass[i] / (sec.A * c->L)};
        axis_and_normal(S, M, e, n);
        pkm_beam_desc link = {
            .name = "coupler", .npoints = 2, .points = pts, .section = sec, .material = mat};
        memcpy(link.zref, n, sizeof(n));
        assert_pkm_ok(pkm_model_add_beam(fe, &link, &lb, &ctx), &ctx);
        pkm_joint_desc shaft = {.name = "shaft",
                                .type = PKM_JOINT_REVOLUTE,
                                .body_a = PKM_GROUND,
                                .body_b = cb,
                                .stiffness = {K_SHAFT}};
        memcpy(shaft.point, c->G, sizeof(shaft.point));
        memcpy(shaft.axis, a, sizeof(a));
        assert_pkm_ok(pkm_model_add_joint(fe, &shaft, NULL, &ctx), &ctx);
        pkm_joint_desc u = {.name = "S", .type = PKM_JOINT_UNIVERSAL, .body_a = cb, .body_b = lb};
        memcpy(u.point, S, sizeof(S));
        memcpy(u.axis, n, sizeof(n));
        pkm_vec3_cross(e, n, u.axis2);
        assert_pkm_ok(pkm_model_add_joint(fe, &u, NULL, &ctx), &ctx);
        pkm_joint_desc sph = {
            .name = "M", .type = PKM_JOINT_SPHERICAL, .body_a = lb, .body_b = mand};
        memcpy(sph.point, M, sizeof(M));
        assert_pkm_ok(pkm_model_add_joint(fe, &sph, NULL, &ctx), &ctx);
    }
    for (int c = 0; c < m->ncontact; c++) {
        pkm_plane_desc pl = {.name = m->contact[c].name, .body = mand};
        const double *r = m->contact[c].point;
        for (int k = 0; k < 3; k++)
            pl.point[k] = p[k] + R[k][0] * r[0] + R[k][1] * r[1] + R[k][2] * r[2];
        double f;
        pkm_surface_eval(&m->contact[c].surface, pl.point, &f, pl.normal, NULL);
        assert_pkm_ok(pkm_model_add_plane(fe, &pl, NULL, &ctx), &ctx);
    }
    return fe;
}

/* The rigid mechanism's eigenvalues eig(K_SHAFT J1^T J1, J3^T M J3), ascending, nfree of them. */
static void rigid_lowest(const pkm_mast *m, const pkm_mast_state *s, double *w)
{
    const int nc = m->nchain, nf = s->nfree, n = nc + nf;
    double M[PKM_MAST_MAX_Q * PKM_MAST_MAX_Q], J3[PKM_MAST_MAX_Q * PKM_POSE_DOF] = {0};
    double Mr[PKM_POSE_DOF * PKM_POSE_DOF] = {0}, Kr[PKM_POSE_DOF * PKM_POSE_DOF] = {0};
    pkm_mast_mass_matrix(m, s, M);
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < nf; j++)
            J3[i * nf + j] = s->J1[i * nf + j];
    for (int j = 0; j < nf; j++)
        J3[(nc + j) * nf + j] = 1.0;
    for (int a = 0; a < nf; a++)
        for (int b = 0; b < nf; b++) {
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    Mr[a * nf + b] += J3[i * nf + a] * M[i * n + j] * J3[j * nf + b];
            for (int i = 0; i < nc; i++)
                Kr[a * nf + b] += K_SHAFT * s->J1[i * nf + a] * s->J1[i * nf + b];
        }
    dense_pencil_eigs(nf, Kr, Mr, w);
}

/* At t = 0.13 s of the default motion (followed from home, branch tracking), the target and
 * its twin replaying the target's pose. */
static void test_rigid_link_limit(void **state)
{
    (void)state;
    pkm_mast tg, tw;
    mechanism(1, &tg);
    mechanism(0, &tw);
    pkm_mast_state st = {0}, sw = {0};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int k = 0; k <= 13; k++) {
        double q[4], qd[4], qdd[4];
        pkm_masticatory_motion(0.01 * k, q, qd, qdd);
        assert_pkm_ok(pkm_mast_kinematics(&tg, 0.01 * k, q, qd, qdd, &st, &ctx), &ctx);
        if (k == 0) memcpy(sw.th, st.th, sizeof(sw.th)); /* the same pose: the same angles */
        assert_pkm_ok(pkm_mast_kinematics(&tw, 0.01 * k, st.X, st.Xd, st.Xdd, &sw, &ctx), &ctx);
    }
    double worst[2] = {0.0, 0.0};
    for (int on = 1; on >= 0; on--) {
        const pkm_mast *m = on ? &tg : &tw;
        const pkm_mast_state *s = on ? &st : &sw;
        double w[PKM_POSE_DOF], f[PKM_POSE_DOF];
        rigid_lowest(m, s, w);
        pkm_model *fe = fe_model(m, s);
        model_lowest(fe, PKM_FORM_NODAL, s->nfree, f, NULL);
        pkm_model_destroy(&fe);
        for (int k = 0; k < s->nfree; k++) {
            print_message("%s mode %d: FE %.10g, rigid %.10g rad^2/s^2\n", on ? "target" : "twin",
                          k + 1, f[k], w[k]);
            worst[on] = fmax(worst[on], fabs(f[k] - w[k]) / w[k]);
        }
    }
    print_message("rigid-link limit: target %.2e, 6-RSS twin %.2e\n", worst[1], worst[0]);
    assert_true(worst[1] < 1e-4);
    assert_true(worst[0] < 1e-4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rigid_link_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
