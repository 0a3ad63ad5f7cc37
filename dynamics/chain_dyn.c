/* dynamics/chain_dyn.c: inverse and forward dynamics of the module chain in O(n), the
 * actuator-space mass matrix and the static gravity drives (Paz Anaya and Mattila 2024, secs.
 * 3-4, Algorithm 1; the paper's displayed equations are lost from its text, so each step below
 * was rebuilt from its prose, its ref. [19] and Featherstone's articulated-body algorithm).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/chain_impl.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The loop's pin wrenches from the same solve (the paper's App. A, eqs. 54-61 rebuilt): zero
 * moment about z at the three passive pins, an in-plane force G at the rod pin (Tc axes, what
 * the rod applies to the upper link), the actuator force along the rod's x. */
static void loop_pins(const chain_mod *m, pkm_chain_loads *L)
{
    static const double I3[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const double Lb = m->d.Lb, c = m->ls.c, s12 = sin(m->ls.q[2]), c12 = cos(m->ls.q[2]);
    const double pin[3] = {Lb, 0.0, 0.0}, rod[3] = {c - m->d.lc, 0.0, 0.0};
    const double tip[3] = {m->d.lc, 0.0, 0.0};
    const double R12[3][3] = {{c12, -s12, 0.0}, {s12, c12, 0.0}, {0.0, 0.0, 1.0}};
    double rE[3], FU[6], UG[6];
    /* the upper chain's total at the q1 pin: B1 and the end body (E at Tc + r_E in B1), the
     * next module included (eq. 13 rebuilt) */
    for (int k = 0; k < 3; k++)
        rE[k] = pin[k] + m->d.end.r[k];
    chain_wrench_out(m->d.end.R, rE, m->F[PKM_CHAIN_END], FU);
    for (int k = 0; k < 6; k++)
        FU[k] += m->F[PKM_CHAIN_MOVING][k];
    /* rows 1-2 of the 3 x 3 system of eq. 57-60: moments about the q1 and q11 pins */
    const double nU = FU[5];
    const double K =
        m->F[PKM_CHAIN_BARREL][5] + m->F[PKM_CHAIN_ROD][5] + (c - m->d.lc) * m->F[PKM_CHAIN_ROD][1];
    const double Gy = nU / Lb, Gx = (-K / c - Gy * c12) / s12;
    const double G[6] = {Gx, Gy, 0.0, 0.0, 0.0, 0.0};
    memcpy(L->pin_rod, G, sizeof(G));
    /* row 3 by Cramer's rule: the closed form of eq. 61 */
    L->tau_closed = m->F[PKM_CHAIN_ROD][0] - K * c12 / (c * s12) - nU / (Lb * s12);
    /* q1 pin: F_U less the rod pin's force at Tc */
    chain_wrench_out(I3, pin, G, UG);
    for (int k = 0; k < 6; k++)
        L->pin_upper[k] = FU[k] - UG[k];
    /* barrel -> rod: the rod's wrench plus the reaction of G at T2 (Tc's axes are T2's rotated
     * by q12 from the rod's) */
    chain_wrench_out(R12, tip, G, UG);
    for (int k = 0; k < 6; k++)
        L->slide[k] = m->F[PKM_CHAIN_ROD][k] + UG[k];
    /* q11 pin: the barrel's wrench plus what it passes to the rod */
    chain_wrench_out(I3, rod, L->slide, UG);
    for (int k = 0; k < 6; k++)
        L->pin_barrel[k] = m->F[PKM_CHAIN_BARREL][k] + UG[k];
}

/* Body accelerations from the base acceleration: V_k' = X_k V_0' + S_k q'' + c_k. */
static void mod_accelerations(chain_mod *m, const double A0[6], double qdd)
{
    for (int k = 0; k < m->nbody; k++) {
        chain_twist_in(CHAIN_C33(m->R[k]), m->r[k], A0, m->A[k]);
        for (int i = 0; i < 6; i++)
            m->A[k][i] += m->S[k][i] * qdd + m->c[k][i];
    }
}

/* One module backward (the paper's eqs. 11-16, 38-40 rebuilt): body wrenches F_k = I_k A_k + p_k
 * with the next module's base wrench on the end body, the drive by virtual power
 * tau = sum S_k^T F_k (equal to the Cramer solution of App. A for ideal joints), and the wrench
 * from the base F_0 = sum U_k F_k. */
static double mod_backward(chain_mod *m, const double *next)
{
    double tau = 0.0;
    memset(m->base, 0, sizeof(m->base));
    for (int k = 0; k < m->nbody; k++) {
        chain_mul66(CHAIN_C66(m->I[k]), m->A[k], m->F[k]);
        for (int i = 0; i < 6; i++)
            m->F[k][i] += m->p[k][i] + (k == PKM_CHAIN_END && next != NULL ? next[i] : 0.0);
        tau += chain_dot6(m->S[k], m->F[k]);
        double Fb[6];
        chain_wrench_out(CHAIN_C33(m->R[k]), m->r[k], m->F[k], Fb);
        for (int i = 0; i < 6; i++)
            m->base[i] += Fb[i];
    }
    return tau;
}

static void mod_loads(const chain_mod *m, double tau, pkm_chain_loads *L)
{
    memset(L, 0, sizeof(*L));
    memcpy(L->V, m->V, sizeof(L->V));
    memcpy(L->A, m->A, sizeof(L->A));
    memcpy(L->F, m->F, sizeof(L->F));
    memcpy(L->base, m->base, sizeof(L->base));
    L->tau_closed = tau;
    if (m->d.type == PKM_CHAIN_LOOP) loop_pins(m, L);
}

static pkm_status chain_id(pkm_chain *c, const double *q, const double *qd, const double *qdd,
                           int gravity, double *tau, pkm_chain_loads *loads, pkm_ctx *ctx)
{
    const pkm_status st = chain_kinematics(c, q, qd, ctx);
    if (st != PKM_OK) return st;
    double A0[6];
    chain_root_acc(c, gravity, A0);
    for (int i = 0; i < c->n; i++) {
        mod_accelerations(&c->m[i], A0, qdd[i]);
        memcpy(A0, c->m[i].A[PKM_CHAIN_END], sizeof(A0));
    }
    for (int i = c->n - 1; i >= 0; i--) {
        tau[i] = mod_backward(&c->m[i], i + 1 < c->n ? c->m[i + 1].base : NULL);
        if (loads != NULL) mod_loads(&c->m[i], tau[i], &loads[i]);
    }
    return PKM_OK;
}

pkm_status pkm_chain_inverse(pkm_chain *c, const double *q, const double *qd, const double *qdd,
                             double *tau, pkm_chain_loads *loads, pkm_ctx *ctx)
{
    return chain_id(c, q, qd, qdd, 1, tau, loads, ctx);
}

/* Pass 2 for one module (the paper's eqs. 22-24, 34, 41-45 and 49 rebuilt): the next module's
 * articulated inertia folded into the end body, then the actuator-space inertia d, the base
 * coupling U and the bias u, and the articulated inertia and bias at the base after the drive
 * tau is eliminated (a rank-1 update, one scalar division). */
static pkm_status mod_articulate(chain_mod *m, const chain_mod *next, double tau, pkm_ctx *ctx)
{
    double Ic[6][6], pc[6];
    memset(Ic, 0, sizeof(Ic));
    memset(pc, 0, sizeof(pc));
    m->D = 0.0;
    m->u = 0.0;
    memset(m->U, 0, sizeof(m->U));
    for (int k = 0; k < m->nbody; k++) {
        double I[6][6], p[6], IS[6], w[6], Ib[6][6];
        memcpy(I, m->I[k], sizeof(I));
        memcpy(p, m->p[k], sizeof(p));
        if (k == PKM_CHAIN_END && next != NULL)
            for (int i = 0; i < 6; i++) {
                p[i] += next->pA[i];
                for (int j = 0; j < 6; j++)
                    I[i][j] += next->IA[i][j];
            }
        chain_mul66(CHAIN_C66(I), m->S[k], IS);
        chain_mul66(CHAIN_C66(I), m->c[k], w);
        for (int i = 0; i < 6; i++)
            w[i] += p[i];
        m->D += chain_dot6(m->S[k], IS);
        m->u += chain_dot6(m->S[k], w);
        chain_wrench_out(CHAIN_C33(m->R[k]), m->r[k], IS, IS);
        chain_wrench_out(CHAIN_C33(m->R[k]), m->r[k], w, w);
        chain_inertia_out(CHAIN_C33(m->R[k]), m->r[k], CHAIN_C66(I), Ib);
        for (int i = 0; i < 6; i++) {
            m->U[i] += IS[i];
            pc[i] += w[i];
            for (int j = 0; j < 6; j++)
                Ic[i][j] += Ib[i][j];
        }
    }
    if (!(m->D > 0.0))
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR, "module %s: no inertia on its coordinate",
                        m->d.name);
    for (int i = 0; i < 6; i++) {
        m->pA[i] = pc[i] + m->U[i] * (tau - m->u) / m->D;
        for (int j = 0; j < 6; j++)
            m->IA[i][j] = Ic[i][j] - m->U[i] * m->U[j] / m->D;
    }
    return PKM_OK;
}

pkm_status pkm_chain_forward(pkm_chain *c, const double *q, const double *qd, const double *tau,
                             double *qdd, pkm_ctx *ctx)
{
    pkm_status st = chain_kinematics(c, q, qd, ctx);
    for (int i = c->n - 1; i >= 0 && st == PKM_OK; i--)
        st = mod_articulate(&c->m[i], i + 1 < c->n ? &c->m[i + 1] : NULL, tau[i], ctx);
    if (st != PKM_OK) return st;
    double A0[6];
    chain_root_acc(c, 1, A0);
    for (int i = 0; i < c->n; i++) {
        chain_mod *m = &c->m[i];
        /* the paper's eq. 36/46: one scalar division */
        qdd[i] = (tau[i] - chain_dot6(m->U, A0) - m->u) / m->D;
        double Ae[6];
        chain_twist_in(CHAIN_C33(m->R[PKM_CHAIN_END]), m->r[PKM_CHAIN_END], A0, Ae);
        for (int k = 0; k < 6; k++)
            A0[k] = Ae[k] + m->S[PKM_CHAIN_END][k] * qdd[i] + m->c[PKM_CHAIN_END][k];
    }
    return PKM_OK;
}

pkm_status pkm_chain_mass_matrix(pkm_chain *c, const double *q, double *M, pkm_ctx *ctx)
{
    const int n = c->n;
    double *w = calloc((size_t)(3 * n), sizeof(double));
    if (w == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "out of memory for the mass matrix");
    double *zero = w, *e = w + n, *col = w + 2 * n;
    pkm_status st = PKM_OK;
    for (int j = 0; j < n && st == PKM_OK; j++) {
        e[j] = 1.0;
        st = chain_id(c, q, zero, e, 0, col, NULL, ctx);
        e[j] = 0.0;
        for (int i = 0; i < n; i++)
            M[(size_t)i * n + j] = col[i];
    }
    free(w);
    return st;
}

pkm_status pkm_chain_gravity(pkm_chain *c, const double *q, double *fs, double *dfs, pkm_ctx *ctx)
{
    const int n = c->n;
    double *w = calloc((size_t)(4 * n), sizeof(double));
    if (w == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "out of memory for the gravity drives");
    double *zero = w, *qh = w + n, *fp = w + 2 * n, *fm = w + 3 * n;
    pkm_status st = chain_id(c, q, zero, zero, 1, fs, NULL, ctx);
    memcpy(qh, q, sizeof(double) * (size_t)n);
    for (int j = 0; j < n && st == PKM_OK && dfs != NULL; j++) {
        const pkm_chain_module *d = &c->m[j].d;
        const double h = 1e-6, hp = q[j] + h <= d->qmax ? h : 0.0,
                     hm = q[j] - h >= d->qmin ? h : 0.0;
        qh[j] = q[j] + hp;
        st = chain_id(c, qh, zero, zero, 1, fp, NULL, ctx);
        qh[j] = q[j] - hm;
        if (st == PKM_OK) st = chain_id(c, qh, zero, zero, 1, fm, NULL, ctx);
        qh[j] = q[j];
        for (int i = 0; i < n; i++)
            dfs[(size_t)i * n + j] = (fp[i] - fm[i]) / (hp + hm);
    }
    free(w);
    return st;
}
