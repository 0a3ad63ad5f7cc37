/* tests/reference/mast_hessian.c: the chewing robot's closures to second order (mastref.h): their
 * Jacobians and Hessians, J-dot by the Hessian and by the partial-derivative contractions
 * (Cheng, Yuan, Li, Zeng 2024, eqs. 20-23 and 48-49; Liang et al. 2017; the printed equations
 * are lost, the forms are rebuilt), on the exact point derivatives of pkm_mast_deriv_eval.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/mastref_impl.h"

#include "core/core_impl.h"

#include <string.h>

void pkm_mast_closure_derivatives(const pkm_mast *m, const pkm_mast_state *s, double *Jth,
                                  double *Jq, double *H)
{
    mast_deriv D;
    pkm_mast_deriv_eval(m, s, 1, &D);
    const int nch = D.nch, nf = D.nf, n = D.n;
    if (H) memset(H, 0, sizeof(double) * (size_t)(nch * n * n));
    for (int i = 0; i < nch; i++) {
        mast_closure c;
        pkm_mast_closure_eval(&D, i, &c);
        Jth[i] = c.jth;
        for (int j = 0; j < nf; j++)
            Jq[i * nf + j] = c.jq[j];
        if (!H) continue;
        double *Hi = H + (size_t)(i * n * n);
        Hi[i * n + i] = c.htt;
        for (int j = 0; j < nf; j++) {
            Hi[i * n + nch + j] = Hi[(nch + j) * n + i] = c.htq[j];
            for (int k = 0; k < nf; k++)
                Hi[(nch + j) * n + nch + k] = c.hqq[j][k];
        }
    }
}

double pkm_mast_closure_jth(const mast_deriv *D, int i)
{
    double d[3];
    pkm_vec3_sub(D->M[i], D->S[i], d);
    return -2.0 * pkm_vec3_dot(d, D->dS[i]);
}

void pkm_mast_closure_eval(const mast_deriv *D, int i, mast_closure *c)
{
    /* h_i = |d|^2 - L^2, d = M - S: dh = 2 d . (dM - dS), d2h = 2 (dM - dS)^T (dM - dS) +
     * 2 d . (d2M - d2S), with S a function of theta_i only, M of the free coordinates only */
    double d[3];
    pkm_vec3_sub(D->M[i], D->S[i], d);
    c->jth = pkm_mast_closure_jth(D, i);
    c->htt = 2.0 * pkm_vec3_dot(D->dS[i], D->dS[i]) - 2.0 * pkm_vec3_dot(d, D->ddS[i]);
    for (int j = 0; j < D->nf; j++) {
        double jm[3], hm[3];
        for (int k = 0; k < 3; k++)
            jm[k] = D->JM[i][k][j];
        c->jq[j] = 2.0 * pkm_vec3_dot(d, jm);
        c->htq[j] = -2.0 * pkm_vec3_dot(D->dS[i], jm);
        for (int l = 0; l < D->nf; l++) {
            double jl[3];
            for (int k = 0; k < 3; k++)
                jl[k] = D->JM[i][k][l], hm[k] = D->HM[i][k][j][l];
            c->hqq[j][l] = 2.0 * pkm_vec3_dot(jm, jl) + 2.0 * pkm_vec3_dot(d, hm);
        }
    }
}

/* d J_H / d q_k of chain i's closure row (Liang et al. 2017): the product rule on
 * J_theta = -2 d . dS and J_q(j) = 2 d . JM_j, d = M - S, for one coordinate k. */
static void jacobian_partial(const mast_deriv *D, int i, int k, double *djth, double *djq)
{
    double d[3];
    pkm_vec3_sub(D->M[i], D->S[i], d);
    const int nf = D->nf, theta = k == i, free = k - D->nch;
    double dd[3] = {0.0, 0.0, 0.0}; /* d d / d q_k */
    for (int c = 0; c < 3; c++)
        dd[c] = theta ? -D->dS[i][c] : free >= 0 ? D->JM[i][c][free] : 0.0;
    *djth = -2.0 * pkm_vec3_dot(dd, D->dS[i]) - (theta ? 2.0 * pkm_vec3_dot(d, D->ddS[i]) : 0.0);
    for (int j = 0; j < nf; j++) {
        double jm[3], hm[3] = {0.0, 0.0, 0.0};
        for (int c = 0; c < 3; c++) {
            jm[c] = D->JM[i][c][j];
            if (free >= 0) hm[c] = D->HM[i][c][j][free];
        }
        djq[j] = 2.0 * pkm_vec3_dot(dd, jm) + 2.0 * pkm_vec3_dot(d, hm);
    }
}

void pkm_mast_rates_eval(const mast_deriv *D, pkm_mast_route route, double *Jthd, double *Jqd)
{
    const int nch = D->nch, nf = D->nf, n = D->n;
    const double *qd = D->qd, *qf = D->qd + nch;
    for (int i = 0; i < nch; i++) {
        if (route == PKM_MAST_HESSIAN) { /* eqs. 22-23: H_i(:, a)^T q' */
            mast_closure c;
            pkm_mast_closure_eval(D, i, &c);
            Jthd[i] = c.htt * qd[i];
            for (int j = 0; j < nf; j++) {
                Jthd[i] += c.htq[j] * qf[j];
                Jqd[i * nf + j] = c.htq[j] * qd[i];
                for (int k = 0; k < nf; k++)
                    Jqd[i * nf + j] += c.hqq[j][k] * qf[k];
            }
            continue;
        }
        /* eqs. 48-49: (dJ/dq^T)(q' x I), over the coordinates that move chain i */
        Jthd[i] = 0.0;
        for (int j = 0; j < nf; j++)
            Jqd[i * nf + j] = 0.0;
        for (int k = 0; k < n; k++) {
            double djth, djq[PKM_POSE_DOF];
            if (k < nch && k != i) continue;
            jacobian_partial(D, i, k, &djth, djq);
            Jthd[i] += djth * qd[k];
            for (int j = 0; j < nf; j++)
                Jqd[i * nf + j] += djq[j] * qd[k];
        }
    }
}

void pkm_mast_jacobian_rates(const pkm_mast *m, const pkm_mast_state *s, pkm_mast_route route,
                             double *Jthd, double *Jqd)
{
    mast_deriv D;
    pkm_mast_deriv_eval(m, s, 1, &D);
    pkm_mast_rates_eval(&D, route, Jthd, Jqd);
}
