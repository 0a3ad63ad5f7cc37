/* dynamics/mast_mass.c: the chewing robot's exact point derivatives and mass matrix (pkm/mast.h):
 * every point's first and second derivatives in the generalised coordinates, the Jacobians of
 * the cranks, couplers and body, and M as the sum of their bilinear mass forms (Cheng, Yuan, Li,
 * Zeng 2024, eqs. 24-38; the printed equations are lost, the forms are rebuilt). Everything is
 * exact: the rotation's derivatives are products of the elementary rotations' (dR_e/da = R_e
 * [e]x), the parasitic coordinates' second derivatives come from the implicit-function theorem.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/mast_impl.h"
#include "dynamics/pose_impl.h"

#include "core/core_impl.h"

#include <string.h>

enum { NQ = PKM_MAST_MAX_Q };

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

void pkm_mast_chain_jacobians(const mast_deriv *D, int i, double *JS, double *JM)
{
    const int n = D->n, nch = D->nch;
    memset(JS, 0, sizeof(double) * (size_t)(3 * n));
    memset(JM, 0, sizeof(double) * (size_t)(3 * n));
    for (int d = 0; d < 3; d++) {
        JS[d * n + i] = D->dS[i][d];
        for (int j = 0; j < D->nf; j++)
            JM[d * n + nch + j] = D->JM[i][d][j];
    }
}

void pkm_mast_body_jacobians(const mast_deriv *D, double *JO, double *Jw)
{
    const int n = D->n, nch = D->nch;
    memset(JO, 0, sizeof(double) * (size_t)(3 * n));
    memset(Jw, 0, sizeof(double) * (size_t)(3 * n));
    for (int d = 0; d < 3; d++)
        for (int j = 0; j < D->nf; j++)
            JO[d * n + nch + j] = D->JO[d][j], Jw[d * n + nch + j] = D->Jw[d][j];
}

/* Add w A^T B (A, B: 3 x n rows of stride n) to the n x n matrix M. */
static void add_atb(int n, double w, const double *A, const double *B, double *M)
{
    for (int p = 0; p < n; p++)
        for (int q = 0; q < n; q++)
            for (int k = 0; k < 3; k++)
                M[p * n + q] += w * A[k * n + p] * B[k * n + q];
}

/* B = w1 A1 + w2 A2 over 3 x n. */
static void lin2(int n, double w1, const double *A1, double w2, const double *A2, double *B)
{
    for (int k = 0; k < 3 * n; k++)
        B[k] = w1 * A1[k] + w2 * A2[k];
}

void pkm_mast_coupler_form(int n, double mc, const double *XS, const double *XM, const double *YS,
                           const double *YM, double *A)
{
    double P[3 * NQ] = {0}; /* lin2 fills it; zeroed for gcc's -Wmaybe-uninitialized */
    lin2(n, 1.0 / 3.0, YS, 1.0 / 6.0, YM, P);
    add_atb(n, mc, XS, P, A);
    lin2(n, 1.0 / 6.0, YS, 1.0 / 3.0, YM, P);
    add_atb(n, mc, XM, P, A);
}

void pkm_mast_body_form(const pkm_mast *m, int n, const double *XO, const double *Xw,
                        const double *YO, const double *Yw, double *A)
{
    double P[3 * NQ];
    add_atb(n, m->mass, XO, YO, A);
    for (int d = 0; d < 3; d++) /* P = I Yw */
        for (int p = 0; p < n; p++)
            P[d * n + p] = m->inertia[d][0] * Yw[p] + m->inertia[d][1] * Yw[n + p] +
                           m->inertia[d][2] * Yw[2 * n + p];
    add_atb(n, 1.0, Xw, P, A);
}

/* M (eq. 31): cranks, couplers m (JS^T (JS/3 + JM/6) + JM^T (JS/6 + JM/3)) (eq. 27), the body
 * m JO^T JO + Jw^T I Jw with the body-axes angular map (eq. 30 in body axes). */
void pkm_mast_mass_matrix(const pkm_mast *m, const pkm_mast_state *s, double *M)
{
    mast_deriv D;
    pkm_mast_deriv_eval(m, s, 0, &D);
    const int n = D.n;
    double JA[3 * NQ], JB[3 * NQ];
    memset(M, 0, sizeof(double) * (size_t)(n * n));
    for (int i = 0; i < D.nch; i++) {
        pkm_mast_chain_jacobians(&D, i, JA, JB);
        pkm_mast_coupler_form(n, m->coupler_mass[i], JA, JB, JA, JB, M);
        M[i * n + i] += m->crank_inertia[i];
    }
    pkm_mast_body_jacobians(&D, JA, JB); /* JO, Jw */
    pkm_mast_body_form(m, n, JA, JB, JA, JB, M);
}
