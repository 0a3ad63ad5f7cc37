/* tests/reference/mast_lagrange.c: the chewing robot's Lagrangian quantities beyond the mass matrix
 * (mastref.h), from the library's exact point derivatives and mass forms (dynamics/mast_impl.h):
 * the mass matrix's partial derivatives, the mixed block of the kinetic energy's Hessian, the
 * Coriolis matrices, the potential and its gradient; and the reduced right-hand sides of the
 * Hessian, Liang and first-kind routes (Cheng, Yuan, Li, Zeng 2024, eqs. 24-57, rebuilt).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/mastref_impl.h"

#include "core/core_impl.h"

#include <string.h>

enum { NQ = PKM_MAST_MAX_Q };

/* The derivatives in q_k of chain i's Jacobians JS, JM (pkm_mast_chain_jacobians). */
static void chain_partials(const mast_deriv *D, int i, int k, double *dJS, double *dJM)
{
    const int n = D->n, nch = D->nch;
    memset(dJS, 0, sizeof(double) * (size_t)(3 * n));
    memset(dJM, 0, sizeof(double) * (size_t)(3 * n));
    for (int d = 0; d < 3; d++) {
        if (k == i) dJS[d * n + i] = D->ddS[i][d];
        for (int j = 0; j < D->nf && k >= nch; j++)
            dJM[d * n + nch + j] = D->HM[i][d][j][k - nch];
    }
}

/* The same for the body's JO, Jw (pkm_mast_body_jacobians), k a free coordinate. */
static void body_partials(const mast_deriv *D, int k, double *dJO, double *dJw)
{
    const int n = D->n, nch = D->nch;
    memset(dJO, 0, sizeof(double) * (size_t)(3 * n));
    memset(dJw, 0, sizeof(double) * (size_t)(3 * n));
    for (int d = 0; d < 3; d++)
        for (int j = 0; j < D->nf; j++) {
            dJO[d * n + nch + j] = D->HO[d][j][k - nch];
            dJw[d * n + nch + j] = D->Hw[d][j][k - nch];
        }
}

/* dM/dq_k for every k (Liang et al. 2017: the partial derivatives of M, eq. 61): the product
 * rule on each body's mass form, the forms at (dJ, J) and (J, dJ). */
static void mass_derivative_eval(const pkm_mast *m, const mast_deriv *D, double *dM)
{
    const int n = D->n, nch = D->nch;
    double JA[3 * NQ], JB[3 * NQ], dJA[3 * NQ], dJB[3 * NQ];
    memset(dM, 0, sizeof(double) * (size_t)(n * n * n));
    for (int k = 0; k < n; k++) {
        double *Mk = dM + (size_t)(k * n * n);
        for (int i = 0; i < nch; i++) {
            if (k < nch && k != i) continue;
            const double mc = m->coupler_mass[i];
            pkm_mast_chain_jacobians(D, i, JA, JB);
            chain_partials(D, i, k, dJA, dJB);
            pkm_mast_coupler_form(n, mc, dJA, dJB, JA, JB, Mk);
            pkm_mast_coupler_form(n, mc, JA, JB, dJA, dJB, Mk);
        }
        if (k < nch) continue;
        pkm_mast_body_jacobians(D, JA, JB); /* JO, Jw and their derivatives */
        body_partials(D, k, dJA, dJB);
        pkm_mast_body_form(m, n, dJA, dJB, JA, JB, Mk);
        pkm_mast_body_form(m, n, JA, JB, dJA, dJB, Mk);
    }
}

void pkm_mast_mass_derivative(const pkm_mast *m, const pkm_mast_state *s, double *dM)
{
    mast_deriv D;
    pkm_mast_deriv_eval(m, s, 1, &D);
    mass_derivative_eval(m, &D, dM);
}

/* y = J x for J (3 x nf) stored as [3][PKM_POSE_DOF]. */
static void apply_free(int nf, const double J[3][PKM_POSE_DOF], const double *x, double y[3])
{
    for (int d = 0; d < 3; d++) {
        y[d] = 0.0;
        for (int j = 0; j < nf; j++)
            y[d] += J[d][j] * x[j];
    }
}

/* H(:, ., k) x: the derivative in q_free_k of the velocity J x, for H [3][nf][nf]. */
static void hessian_dir(int nf, const double H[3][PKM_POSE_DOF][PKM_POSE_DOF], int k,
                        const double *x, double y[3])
{
    for (int d = 0; d < 3; d++) {
        y[d] = 0.0;
        for (int j = 0; j < nf; j++)
            y[d] += H[d][j][k] * x[j];
    }
}

/* N = d(M q')/dq, the mixed (q', q) block of the Hessian of T (eq. 49), body by body: for a
 * term J^T A J q' of M q', its derivative dJ^T A v + J^T A dv with v = J q', dv = dJ q'. */
static void hessian_block_eval(const pkm_mast *m, const mast_deriv *D, double *N)
{
    const int n = D->n, nch = D->nch, nf = D->nf;
    const double *qf = D->qd + nch;
    memset(N, 0, sizeof(double) * (size_t)(n * n));
    for (int i = 0; i < nch; i++) {
        const double mc = m->coupler_mass[i], thd = D->qd[i];
        double vM[3], gS[3], gM[3], dv[3];
        apply_free(nf, D->JM[i], qf, vM);
        for (int d = 0; d < 3; d++) {
            gS[d] = D->dS[i][d] * thd / 3.0 + vM[d] / 6.0;
            gM[d] = D->dS[i][d] * thd / 6.0 + vM[d] / 3.0;
            dv[d] = D->ddS[i][d] * thd; /* d vS / d theta_i */
        }
        N[i * n + i] += mc * (pkm_vec3_dot(D->ddS[i], gS) + pkm_vec3_dot(D->dS[i], dv) / 3.0);
        for (int j = 0; j < nf; j++)
            N[(nch + j) * n + i] +=
                mc * (D->JM[i][0][j] * dv[0] + D->JM[i][1][j] * dv[1] + D->JM[i][2][j] * dv[2]) /
                6.0;
        for (int k = 0; k < nf; k++) {
            hessian_dir(nf, D->HM[i], k, qf, dv); /* d vM / d q_free_k */
            N[i * n + nch + k] += mc * pkm_vec3_dot(D->dS[i], dv) / 6.0;
            for (int j = 0; j < nf; j++) {
                double h = 0.0;
                for (int d = 0; d < 3; d++)
                    h += D->HM[i][d][j][k] * gM[d] + D->JM[i][d][j] * dv[d] / 3.0;
                N[(nch + j) * n + nch + k] += mc * h;
            }
        }
    }
    double vO[3], w[3], Iw[3], dvO[3], dw[3], Idw[3];
    apply_free(nf, D->JO, qf, vO);
    apply_free(nf, D->Jw, qf, w);
    pkm_mat3_apply(PKM_CONST33(m->inertia), w, Iw);
    for (int k = 0; k < nf; k++) {
        hessian_dir(nf, D->HO, k, qf, dvO);
        hessian_dir(nf, D->Hw, k, qf, dw);
        pkm_mat3_apply(PKM_CONST33(m->inertia), dw, Idw);
        for (int j = 0; j < nf; j++) {
            double h = 0.0;
            for (int d = 0; d < 3; d++)
                h += m->mass * (D->HO[d][j][k] * vO[d] + D->JO[d][j] * dvO[d]) +
                     D->Hw[d][j][k] * Iw[d] + D->Jw[d][j] * Idw[d];
            N[(nch + j) * n + nch + k] += h;
        }
    }
}

/* From dM: M' = sum_k dM_k q_k' and N(a, k) = sum_b dM_k(a, b) q_b'. */
static void rates_from_derivative(int n, const double *dM, const double *qd, double *Md, double *N)
{
    memset(Md, 0, sizeof(double) * (size_t)(n * n));
    for (int k = 0; k < n; k++) {
        const double *Mk = dM + (size_t)(k * n * n);
        for (int a = 0; a < n; a++) {
            double v = 0.0;
            for (int b = 0; b < n; b++) {
                Md[a * n + b] += Mk[a * n + b] * qd[k];
                v += Mk[a * n + b] * qd[b];
            }
            N[a * n + k] = v;
        }
    }
}

/* C of the form (mastref.h) from the state's derivatives. */
static void coriolis_eval(const pkm_mast *m, const mast_deriv *D, pkm_mast_coriolis_form form,
                          double *C)
{
    const int n = D->n;
    double N[NQ * NQ], Md[NQ * NQ];
    if (form == PKM_MAST_CORIOLIS_HESSIAN) {
        hessian_block_eval(m, D, N);
        memset(Md, 0, sizeof(Md));
    } else {
        double dM[NQ * NQ * NQ];
        mass_derivative_eval(m, D, dM);
        rates_from_derivative(n, dM, D->qd, Md, N);
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            const double nab = N[a * n + b], nba = N[b * n + a], mab = Md[a * n + b];
            C[a * n + b] = form == PKM_MAST_CORIOLIS_HESSIAN ? nab - 0.5 * nba
                           : form == PKM_MAST_CORIOLIS_LIANG ? mab - 0.5 * nba
                                                             : 0.5 * (mab + nab - nba);
        }
}

void pkm_mast_coriolis(const pkm_mast *m, const pkm_mast_state *s, pkm_mast_coriolis_form form,
                       double *C)
{
    mast_deriv D;
    pkm_mast_deriv_eval(m, s, 1, &D);
    coriolis_eval(m, &D, form, C);
}

double pkm_mast_potential(const pkm_mast *m, const pkm_mast_state *s)
{
    double R[3][3], V = -m->mass * pkm_vec3_dot(m->gravity, s->X);
    pkm_pose_rotation(s->X, R);
    for (int i = 0; i < m->nchain; i++) {
        double S[3], Mb[3], mid[3];
        pkm_rss_tip(&m->chain[i], s->th[i], S);
        pkm_mat3_apply(PKM_CONST33(R), m->chain[i].M, Mb);
        for (int k = 0; k < 3; k++)
            mid[k] = 0.5 * (S[k] + Mb[k] + s->X[k]);
        V -= m->coupler_mass[i] * pkm_vec3_dot(m->gravity, mid);
    }
    return V;
}

/* dV/dq (eqs. 32-35): the couplers' centres (S + M) / 2 and the body's origin under gravity. */
static void potential_gradient(const pkm_mast *m, const mast_deriv *D, double *g)
{
    const int nch = D->nch, nf = D->nf;
    for (int j = 0; j < nf; j++)
        g[nch + j] = -m->mass * (m->gravity[0] * D->JO[0][j] + m->gravity[1] * D->JO[1][j] +
                                 m->gravity[2] * D->JO[2][j]);
    for (int i = 0; i < nch; i++) {
        const double h = 0.5 * m->coupler_mass[i];
        g[i] = -h * pkm_vec3_dot(m->gravity, D->dS[i]);
        for (int j = 0; j < nf; j++)
            g[nch + j] -= h * (m->gravity[0] * D->JM[i][0][j] + m->gravity[1] * D->JM[i][1][j] +
                               m->gravity[2] * D->JM[i][2][j]);
    }
}

/* y = A x (A n x n). */
static void matvec(int n, const double *A, const double *x, double *y)
{
    for (int a = 0; a < n; a++) {
        y[a] = 0.0;
        for (int b = 0; b < n; b++)
            y[a] += A[a * n + b] * x[b];
    }
}

/* Lagrange's equations of the first kind (eqs. 55-57): Q = M q'' + M' q' - dT/dq + dV/dq at the
 * state's q'' (the closures differentiated twice in time), M' and dT/dq = N^T q' / 2 from
 * dM/dq. */
static void first_kind(const pkm_mast *m, const pkm_mast_state *s, const mast_deriv *D,
                       const double *M, const double *gV, double *Q)
{
    const int n = D->n, nch = D->nch;
    double dM[NQ * NQ * NQ], Md[NQ * NQ], N[NQ * NQ], qdd[NQ], a[NQ], b[NQ];
    for (int i = 0; i < nch; i++)
        qdd[i] = s->thdd[i];
    for (int j = 0; j < D->nf; j++)
        qdd[nch + j] = s->Xdd[s->free[j]];
    mass_derivative_eval(m, D, dM);
    rates_from_derivative(n, dM, D->qd, Md, N);
    matvec(n, M, qdd, Q);
    matvec(n, Md, D->qd, a);
    for (int k = 0; k < n; k++) {
        b[k] = 0.0;
        for (int c = 0; c < n; c++)
            b[k] += N[c * n + k] * D->qd[c];
        Q[k] += a[k] - 0.5 * b[k] + gV[k];
    }
}

/* The reduced model (eqs. 43-44): J2 = -J_theta^-1 (J_theta' J1 + J_q') from the route's J-dot,
 * J3 = [J1; I], J4 = [J2; 0], M_r q_f'' + C_r q_f' + G_r with M_r = J3^T M J3,
 * C_r = J3^T (M J4 + C J3), G_r = J3^T dV/dq; Q = M q'' + C q' + dV/dq for the crank rows. */
static void reduced(const pkm_mast *m, const pkm_mast_state *s, const mast_deriv *D,
                    pkm_mast_route route, const double *M, const double *gV, double *rhs, double *Q)
{
    const int n = D->n, nch = D->nch, nf = D->nf;
    double Jthd[PKM_MAST_MAX_CHAINS], Jqd[PKM_MAST_MAX_CHAINS * PKM_POSE_DOF];
    double J3[NQ * PKM_POSE_DOF] = {0}, J4[NQ * PKM_POSE_DOF] = {0}, C[NQ * NQ];
    double K[NQ * PKM_POSE_DOF] = {0}, qdd[NQ] = {0}, Cq[NQ];
    pkm_mast_rates_eval(D, route, Jthd, Jqd);
    coriolis_eval(
        m, D, route == PKM_MAST_HESSIAN ? PKM_MAST_CORIOLIS_HESSIAN : PKM_MAST_CORIOLIS_LIANG, C);
    for (int i = 0; i < nch; i++) {
        const double jth = pkm_mast_closure_jth(D, i);
        for (int j = 0; j < nf; j++) {
            J3[i * nf + j] = s->J1[i * nf + j];
            J4[i * nf + j] = -(Jthd[i] * s->J1[i * nf + j] + Jqd[i * nf + j]) / jth;
        }
    }
    for (int j = 0; j < nf; j++)
        J3[(nch + j) * nf + j] = 1.0;
    for (int a = 0; a < n; a++) /* K = M J4 + C J3 */
        for (int j = 0; j < nf; j++)
            for (int b = 0; b < n; b++)
                K[a * nf + j] += M[a * n + b] * J4[b * nf + j] + C[a * n + b] * J3[b * nf + j];
    for (int j = 0; j < nf; j++) {
        double Mr_qdd = 0.0, Cr_qd = 0.0, Gr = 0.0;
        for (int a = 0; a < n; a++) {
            double Mj3 = 0.0;
            for (int b = 0; b < n; b++)
                Mj3 += M[a * n + b] * J3[b * nf + j]; /* (M J3)(a, j) = (J3^T M)(j, a) */
            for (int k = 0; k < nf; k++) {
                Mr_qdd += Mj3 * J3[a * nf + k] * s->Xdd[s->free[k]];
                Cr_qd += J3[a * nf + j] * K[a * nf + k] * D->qd[nch + k];
            }
            Gr += J3[a * nf + j] * gV[a];
        }
        rhs[j] = Mr_qdd + Cr_qd + Gr;
    }
    for (int a = 0; a < n; a++)
        for (int k = 0; k < nf; k++)
            qdd[a] += J3[a * nf + k] * s->Xdd[s->free[k]] + J4[a * nf + k] * D->qd[nch + k];
    matvec(n, M, qdd, Q);
    matvec(n, C, D->qd, Cq);
    for (int a = 0; a < n; a++)
        Q[a] += Cq[a] + gV[a];
}

void pkm_mast_lagrange_rhs(const pkm_mast *m, const pkm_mast_state *s, pkm_mast_route route,
                           const pkm_mast_load *load, double *rhs, double *Qth)
{
    mast_deriv D;
    pkm_mast_deriv_eval(m, s, 1, &D);
    const int nch = D.nch, nf = D.nf;
    double M[NQ * NQ], gV[NQ], Q[NQ], F[PKM_POSE_DOF];
    pkm_mast_mass_matrix(m, s, M);
    potential_gradient(m, &D, gV);
    pkm_mast_load_force(s, load, F);
    if (route == PKM_MAST_FIRST_KIND) {
        first_kind(m, s, &D, M, gV, Q);
        for (int j = 0; j < nf; j++) { /* J3^T Q */
            rhs[j] = Q[nch + j];
            for (int i = 0; i < nch; i++)
                rhs[j] += s->J1[i * nf + j] * Q[i];
        }
    } else {
        reduced(m, s, &D, route, M, gV, rhs, Q);
    }
    for (int j = 0; j < nf; j++)
        rhs[j] -= F[j];
    memcpy(Qth, Q, sizeof(double) * (size_t)nch);
}
