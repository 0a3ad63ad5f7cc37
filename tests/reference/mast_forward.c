/* tests/reference/mast_forward.c: forward dynamics of the chewing robot (mastref.h): the free
 * coordinates' accelerations under given crank torques.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/mastref.h"

#include "core/core_impl.h"

#include <string.h>

extern void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
                   double *b, const int *ldb, int *info, size_t uplo_len);

/* The reduced right-hand side J3^T Q - F_EE at the free accelerations qfdd. */
static pkm_status reduced_at(const pkm_mast *m, double t, const double *qf, const double *qfd,
                             const double *qfdd, const pkm_mast_load *load, pkm_mast_state *s,
                             double *rhs, pkm_ctx *ctx)
{
    pkm_mast_forces f;
    pkm_status rc = pkm_mast_kinematics(m, t, qf, qfd, qfdd, s, ctx);
    if (rc == PKM_OK) rc = pkm_mast_inverse(m, s, load, NULL, &f, ctx);
    if (rc == PKM_OK) memcpy(rhs, f.generalised, sizeof(double) * (size_t)s->nfree);
    return rc;
}

pkm_status pkm_mast_forward(const pkm_mast *m, double t, const double *qf, const double *qfd,
                            const double *tau, const pkm_mast_load *load, pkm_mast_state *s,
                            double *qfdd, pkm_ctx *ctx)
{
    pkm_status rc = pkm_mast_check(m, ctx);
    if (rc != PKM_OK) return rc;
    const int nf = PKM_POSE_DOF - m->ncontact;
    double acc[PKM_POSE_DOF] = {0}, b[PKM_POSE_DOF], col[PKM_POSE_DOF];
    double Mr[PKM_POSE_DOF * PKM_POSE_DOF];
    rc = reduced_at(m, t, qf, qfd, acc, load, s, b, ctx);
    for (int j = 0; rc == PKM_OK && j < nf; j++) { /* the reduced equations are affine in q'' */
        acc[j] = 1.0;
        rc = reduced_at(m, t, qf, qfd, acc, load, s, col, ctx);
        acc[j] = 0.0;
        for (int i = 0; i < nf; i++)
            Mr[j * nf + i] = col[i] - b[i];
    }
    if (rc != PKM_OK) return rc;
    for (int j = 0; j < nf; j++) { /* M_r q'' = J1^T tau - (C_r q' + G_r - F_EE) */
        qfdd[j] = -b[j];
        for (int i = 0; i < m->nchain; i++)
            qfdd[j] += s->J1[i * nf + j] * tau[i];
    }
    int info = 0, one = 1;
    dposv_("L", &nf, &one, Mr, &nf, qfdd, &nf, &info, 1);
    if (info != 0)
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "the reduced mass matrix is not positive definite at t = %g", t);
    return pkm_mast_kinematics(m, t, qf, qfd, qfdd, s, ctx);
}
