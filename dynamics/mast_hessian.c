/* dynamics/mast_hessian.c: second-order kinematics of the chewing robot (pkm/mast.h): every
 * point's first and second derivatives in the generalised coordinates, the closures' Jacobians
 * and Hessians, J-dot by the Hessian and by the partial-derivative contractions, the mass
 * matrix's partial derivatives, the mixed block of the kinetic energy's Hessian and the Coriolis
 * matrices built from them (Cheng, Yuan, Li, Zeng 2024, eqs. 20-23 and 48-52; Liang et al. 2017,
 * eq. 61; the printed equations are lost, the forms are rebuilt: see pkm/mast.h). Everything is
 * exact: the rotation's derivatives are products of the elementary rotations' (dR_e/da = R_e
 * [e]x), the parasitic coordinates' second derivatives come from the implicit-function theorem.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/mast_impl.h"
#include "dynamics/pose_impl.h"

#include "core/core_impl.h"

#include <string.h>

/* vee(A^T B) for the skew product A^T B. */
static void vee_tn(const double A[3][3], const double B[3][3], double v[3])
{
    v[0] = v[1] = v[2] = 0.0;
    for (int r = 0; r < 3; r++) {
        v[0] += A[r][2] * B[r][1];
        v[1] += A[r][0] * B[r][2];
        v[2] += A[r][1] * B[r][0];
    }
}

/* The body-axes angular velocity map Eb (w_b = Eb angles', column a = vee(R^T dR/da)) and, if
 * dEb is not NULL, its derivatives dEb[c][.][a] = d Eb(:, a) / d angle_c =
 * vee(dR/dc^T dR/da + R^T d2R/da dc). */
static void body_rate_map(const double X[PKM_POSE_DOF], double Eb[3][3], double dEb[3][3][3])
{
    double R[3][3], R1[3][3][3], B[3][3], v[3], u[3];
    const int zero[3] = {0, 0, 0};
    pkm_pose_rotation_derivative(X, zero, R);
    for (int a = 0; a < 3; a++) {
        int d[3] = {0, 0, 0};
        d[a] = 1;
        pkm_pose_rotation_derivative(X, d, R1[a]);
    }
    for (int a = 0; a < 3; a++) {
        vee_tn(PKM_CONST33(R), PKM_CONST33(R1[a]), v);
        for (int k = 0; k < 3; k++)
            Eb[k][a] = v[k];
        for (int c = 0; c < 3 && dEb; c++) {
            int d[3] = {0, 0, 0};
            d[a]++, d[c]++;
            pkm_pose_rotation_derivative(X, d, B);
            vee_tn(PKM_CONST33(R), PKM_CONST33(B), v);
            vee_tn(PKM_CONST33(R1[c]), PKM_CONST33(R1[a]), u);
            for (int k = 0; k < 3; k++)
                dEb[c][k][a] = v[k] + u[k];
        }
    }
}

/* Through the pose map X(q_f): J = P1 mj (3 x nf) and, if H is not NULL, H(:, j, k) =
 * mj_j^T P2 mj_k + P1 mj2_jk for a map with derivatives P1 (3 x 6, P1[a][.] the derivative in
 * X_a) and P2. */
static void through_pose(const pkm_mast_state *s, double P1[PKM_POSE_DOF][3],
                         double P2[PKM_POSE_DOF][PKM_POSE_DOF][3], double J[3][PKM_POSE_DOF],
                         double H[3][PKM_POSE_DOF][PKM_POSE_DOF])
{
    const int nf = s->nfree;
    for (int d = 0; d < 3; d++)
        for (int j = 0; j < nf; j++) {
            J[d][j] = 0.0;
            for (int a = 0; a < PKM_POSE_DOF; a++)
                J[d][j] += P1[a][d] * s->mj[a * nf + j];
            for (int k = 0; k < nf && H; k++) {
                double h = 0.0;
                for (int a = 0; a < PKM_POSE_DOF; a++) {
                    const double ma = s->mj[a * nf + j];
                    h += P1[a][d] * s->mj2[(a * nf + j) * nf + k];
                    if (ma == 0.0) continue;
                    for (int b = 0; b < PKM_POSE_DOF; b++)
                        h += ma * P2[a][b][d] * s->mj[b * nf + k];
                }
                H[d][j][k] = h;
            }
        }
}

void pkm_mast_deriv_eval(const pkm_mast *m, const pkm_mast_state *s, int second, mast_deriv *D)
{
    enum { N = PKM_POSE_DOF };
    const int nch = m->nchain, nf = s->nfree;
    double P1[N][3], P2[N][N][3], Eb[3][3], dEb[3][3][3];
    double(*p2)[N][3] = second ? P2 : NULL;
    D->nch = nch, D->nf = nf, D->n = nch + nf;
    for (int i = 0; i < nch; i++) {
        D->qd[i] = s->thd[i];
        pkm_rss_tip(&m->chain[i], s->th[i], D->S[i]);
        pkm_mast_crank(&m->chain[i], s->th[i], D->dS[i], D->ddS[i]);
        pkm_pose_point_derivatives(s->X, m->chain[i].M, D->M[i], P1, p2);
        through_pose(s, P1, p2, D->JM[i], second ? D->HM[i] : NULL);
    }
    for (int j = 0; j < nf; j++)
        D->qd[nch + j] = s->Xd[s->free[j]];
    /* the origin: X's first three rows */
    memset(P1, 0, sizeof(P1));
    memset(P2, 0, sizeof(P2));
    for (int d = 0; d < 3; d++)
        P1[d][d] = 1.0;
    through_pose(s, P1, P2, D->JO, second ? D->HO : NULL);
    /* the rotation: w_b = Eb(angles) angles', a map of the last three rows */
    body_rate_map(s->X, Eb, second ? dEb : NULL);
    memset(P1, 0, sizeof(P1));
    for (int a = 0; a < 3; a++)
        for (int d = 0; d < 3; d++) {
            P1[3 + a][d] = Eb[d][a];
            for (int c = 0; c < 3 && second; c++)
                P2[3 + a][3 + c][d] = dEb[c][d][a];
        }
    through_pose(s, P1, P2, D->Jw, second ? D->Hw : NULL);
}

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
