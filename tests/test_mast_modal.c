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

#include "mast_fe_fixture.h"

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
    mast_si_mechanism(1, &tg);
    mast_si_mechanism(0, &tw);
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
        pkm_model *fe = mast_fe_model(m, s, K_SHAFT, 0);
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
