/* dynamics/mast.c: kinematics and joint-space inertia of a body driven by R-S-S chains and
 * held by point-on-surface contacts (Cheng, Yuan, Li, Zeng 2024; their equations are
 * lost, the forms here are rebuilt: see pkm/mast.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/mast_impl.h"

#include "core/core_impl.h"

#include <math.h>
#include <string.h>

extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info,
                    size_t uplo_len);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info, size_t uplo_len);

/* A crank whose tip moves within this angle of normal to its coupler (relative |d . dS/dtheta|
 * over |d| |dS/dtheta|) is at a dead centre: its rate would be amplified 1e10-fold. */
#define PKM_MAST_DEAD_CENTRE 1e-10

static int finite_nonneg(double v)
{
    return isfinite(v) && v >= 0.0;
}

int pkm_mast_mobility(const pkm_mast *m)
{
    const int bodies = 1 + 2 * m->nchain,
              held = m->nchain * (6 - 1) + 2 * m->nchain * (6 - 3) + m->ncontact * (6 - 5);
    return 6 * bodies - held - m->nchain;
}

pkm_status pkm_mast_check(const pkm_mast *m, pkm_ctx *ctx)
{
    if (m == NULL) return PKM_FAIL(ctx, PKM_ERR_INVALID, "mechanism: NULL");
    if (m->nchain < 1 || m->nchain > PKM_MAST_MAX_CHAINS)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "mechanism: %d chains (1 to %d allowed)", m->nchain,
                        PKM_MAST_MAX_CHAINS);
    if (m->ncontact < 0 || m->ncontact > PKM_MAST_MAX_CONTACTS)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "mechanism: %d contacts (0 to %d allowed)",
                        m->ncontact, PKM_MAST_MAX_CONTACTS);
    for (int i = 0; i < m->nchain; i++) {
        const pkm_rss *c = &m->chain[i];
        const char *who = c->name ? c->name : "?";
        if (!(c->r > 0.0) || !(c->L > 0.0) || !isfinite(c->r) || !isfinite(c->L))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "chain %s: crank and coupler lengths %g, %g", who,
                            c->r, c->L);
        if (!finite_nonneg(m->crank_inertia[i]) || !finite_nonneg(m->coupler_mass[i]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "chain %s: crank inertia %g, coupler mass %g",
                            who, m->crank_inertia[i], m->coupler_mass[i]);
    }
    double sum = m->gravity[0] + m->gravity[1] + m->gravity[2];
    for (int k = 0; k < 9; k++)
        sum += m->inertia[k / 3][k % 3];
    if (!finite_nonneg(m->mass) || !isfinite(sum))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "mechanism: body mass, inertia or gravity invalid");
    int used = 0;
    for (int k = 0; k < m->ncontact; k++) {
        const pkm_status rc = pkm_surface_check(&m->contact[k].surface, m->contact[k].name, ctx);
        if (rc != PKM_OK) return rc;
        const int p = m->par[k];
        if (p < 0 || p >= PKM_POSE_DOF || (used & (1 << p)))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "contact %s: parasitic coordinate %d repeated or not in 0..5",
                            m->contact[k].name ? m->contact[k].name : "?", p);
        used |= 1 << p;
    }
    return PKM_OK;
}

/* dE/dt a' for E of pkm_pose_angular_jacobian at the angle rates a' = Xd[3..5]: the columns
 * R_x(alpha) e_y and R_x(alpha) R_y(beta) e_z differentiated along the motion. */
static void angular_jacobian_rate(const double X[PKM_POSE_DOF], const double Xd[PKM_POSE_DOF],
                                  double out[3])
{
    const double ca = cos(X[3]), sa = sin(X[3]), cb = cos(X[4]), sb = sin(X[4]);
    const double ad = Xd[3], bd = Xd[4], gd = Xd[5];
    const double c2[3] = {0.0, -sa * ad, ca * ad};
    const double c3[3] = {cb * bd, -ca * cb * ad + sa * sb * bd, -sa * cb * ad - ca * sb * bd};
    for (int k = 0; k < 3; k++)
        out[k] = c2[k] * bd + c3[k] * gd;
}

void pkm_mast_body_motion(const pkm_mast *m, const pkm_mast_state *s, mast_body *b)
{
    double E[3][3], Ed[3], Ib[3][3];
    pkm_pose_rotation(s->X, b->R);
    pkm_mat3_mul(PKM_CONST33(b->R), m->inertia, Ib);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            b->Iw[i][j] = pkm_vec3_dot(Ib[i], b->R[j]);
    pkm_pose_angular_jacobian(s->X, E);
    angular_jacobian_rate(s->X, s->Xd, Ed);
    pkm_mat3_apply(PKM_CONST33(E), s->Xd + 3, b->w);
    pkm_mat3_apply(PKM_CONST33(E), s->Xdd + 3, b->wd);
    for (int k = 0; k < 3; k++)
        b->wd[k] += Ed[k];
    memcpy(b->E, E, sizeof(E));
}

void pkm_mast_point_motion(const pkm_mast_state *s, const mast_body *b, const double r[3],
                           double x[3], double v[3], double a[3])
{
    double w[3], wxr[3], wdxr[3], wwxr[3];
    pkm_mat3_apply(PKM_CONST33(b->R), r, w);
    pkm_vec3_cross(b->w, w, wxr);
    pkm_vec3_cross(b->wd, w, wdxr);
    pkm_vec3_cross(b->w, wxr, wwxr);
    for (int k = 0; k < 3; k++) {
        x[k] = s->X[k] + w[k];
        v[k] = s->Xd[k] + wxr[k];
        a[k] = s->Xdd[k] + wdxr[k] + wwxr[k];
    }
}

void pkm_mast_crank(const pkm_rss *c, double th, double dS[3], double ddS[3])
{
    const double l1[3] = {-c->r * sin(th), c->r * cos(th), 0.0};
    const double l2[3] = {-c->r * cos(th), -c->r * sin(th), 0.0};
    pkm_mat3_apply(c->R0, l1, dS);
    pkm_mat3_apply(c->R0, l2, ddS);
}

/* The pose, its map mj = dX/dq_free and rates at t: free coordinates set, parasitic ones by
 * Newton with their first and second derivatives (implicit-function theorem). */
static pkm_status pose_at(const pkm_mast *m, double t, const double *qf, const double *qfd,
                          const double *qfdd, pkm_mast_state *s, pkm_ctx *ctx)
{
    const int nc = m->ncontact, nf = PKM_POSE_DOF - nc;
    int is_par[PKM_POSE_DOF] = {0};
    for (int a = 0; a < nc; a++)
        is_par[m->par[a]] = 1;
    s->nfree = 0;
    for (int k = 0; k < PKM_POSE_DOF; k++)
        if (!is_par[k]) s->free[s->nfree++] = k;
    for (int j = 0; j < nf; j++)
        s->X[s->free[j]] = qf[j];
    double dz[PKM_MAST_MAX_CONTACTS * PKM_POSE_DOF],
        d2z[PKM_MAST_MAX_CONTACTS * PKM_POSE_DOF * PKM_POSE_DOF];
    if (nc > 0) {
        const pkm_status rc = pkm_contact_parasitic(nc, m->contact, m->par, t, s->X, dz, d2z, ctx);
        if (rc != PKM_OK) return rc;
    }
    memset(s->mj, 0, sizeof(s->mj));
    memset(s->mj2, 0, sizeof(s->mj2));
    for (int j = 0; j < nf; j++) {
        s->mj[s->free[j] * nf + j] = 1.0;
        s->Xd[s->free[j]] = qfd[j], s->Xdd[s->free[j]] = qfdd[j];
    }
    for (int a = 0; a < nc; a++) {
        double v = 0.0, acc = 0.0;
        for (int j = 0; j < nf; j++) {
            s->mj[m->par[a] * nf + j] = dz[a * nf + j];
            v += dz[a * nf + j] * qfd[j];
            acc += dz[a * nf + j] * qfdd[j];
            for (int k = 0; k < nf; k++) {
                s->mj2[(m->par[a] * nf + j) * nf + k] = d2z[(a * nf + j) * nf + k];
                acc += d2z[(a * nf + j) * nf + k] * qfd[j] * qfd[k];
            }
        }
        s->Xd[m->par[a]] = v, s->Xdd[m->par[a]] = acc;
    }
    return PKM_OK;
}

pkm_status pkm_mast_kinematics(const pkm_mast *m, double t, const double *qf, const double *qfd,
                               const double *qfdd, pkm_mast_state *s, pkm_ctx *ctx)
{
    pkm_status rc = pkm_mast_check(m, ctx);
    if (rc != PKM_OK) return rc;
    s->t = t;
    if ((rc = pose_at(m, t, qf, qfd, qfdd, s, ctx)) != PKM_OK) return rc;
    const int nf = s->nfree;
    mast_body b;
    pkm_mast_body_motion(m, s, &b);
    for (int i = 0; i < m->nchain; i++) {
        const pkm_rss *c = &m->chain[i];
        if ((rc = pkm_rss_ik(c, s->X, t, &s->th[i], ctx)) != PKM_OK) return rc;
        double jth, jx[PKM_POSE_DOF], M[3], Mv[3], Ma[3], S[3], dS[3], ddS[3], d[3];
        pkm_rss_closure(c, s->X, s->th[i], &jth, jx);
        pkm_mast_point_motion(s, &b, c->M, M, Mv, Ma);
        pkm_rss_tip(c, s->th[i], S);
        pkm_mast_crank(c, s->th[i], dS, ddS);
        pkm_vec3_sub(M, S, d);
        const double ds = pkm_vec3_dot(d, dS);
        if (!(fabs(ds) > PKM_MAST_DEAD_CENTRE * pkm_vec3_norm(d) * c->r))
            return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                            "chain %s: dead centre%s (the crank tip moves normal to its "
                            "coupler)",
                            c->name ? c->name : "?", pkm_at_time(t, (char[PKM_AT_TIME_LEN]){0}));
        s->thd[i] = 0.0;
        for (int j = 0; j < nf; j++) {
            double jq = 0.0;
            for (int k = 0; k < PKM_POSE_DOF; k++)
                jq += jx[k] * s->mj[k * nf + j];
            s->J1[i * nf + j] = -jq / jth;
            s->thd[i] += s->J1[i * nf + j] * qfd[j];
        }
        /* (|M - S|^2)'' = 0: 2 |M' - S'|^2 + 2 d . (M'' - S''), S'' = ddS th'^2 + dS th'' */
        double rel[3];
        for (int k = 0; k < 3; k++)
            rel[k] = Mv[k] - dS[k] * s->thd[i];
        double num = pkm_vec3_dot(rel, rel);
        for (int k = 0; k < 3; k++)
            num += d[k] * (Ma[k] - ddS[k] * s->thd[i] * s->thd[i]);
        s->thdd[i] = num / ds;
    }
    return PKM_OK;
}

/* B = J1^+ = (J1^T J1)^-1 J1^T (nf x nch; B[i nf + p] its entry (p, i)) by Cholesky. */
static pkm_status pseudo_inverse(int nch, int nf, const double *J1, double t, double *B,
                                 pkm_ctx *ctx)
{
    double G[PKM_POSE_DOF * PKM_POSE_DOF] = {0};
    for (int p = 0; p < nf; p++) {
        for (int q = 0; q < nf; q++)
            for (int i = 0; i < nch; i++)
                G[p * nf + q] += J1[i * nf + p] * J1[i * nf + q];
        for (int i = 0; i < nch; i++)
            B[i * nf + p] = J1[i * nf + p];
    }
    int info = 0;
    dpotrf_("L", &nf, G, &nf, &info, 1);
    if (info != 0)
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "the chains do not determine the free coordinates%s (J1 has rank below "
                        "%d)",
                        pkm_at_time(t, (char[PKM_AT_TIME_LEN]){0}), nf);
    dpotrs_("L", &nf, &nch, G, &nf, B, &nf, &info, 1);
    return PKM_OK;
}

pkm_status pkm_mast_joint_inertia(const pkm_mast *m, const pkm_mast_state *s, double *MA,
                                  double *mci_a, double *mci_b, pkm_ctx *ctx)
{
    const int nch = m->nchain, nf = s->nfree, n = nch + nf;
    double M[PKM_MAST_MAX_Q * PKM_MAST_MAX_Q], B[PKM_POSE_DOF * PKM_MAST_MAX_CHAINS];
    double J5[PKM_MAST_MAX_Q * PKM_MAST_MAX_CHAINS] = {0};
    pkm_status rc = pseudo_inverse(nch, nf, s->J1, s->t, B, ctx);
    if (rc != PKM_OK) return rc;
    pkm_mast_mass_matrix(m, s, M);
    for (int i = 0; i < nch; i++) {
        J5[i * nch + i] = 1.0;
        for (int p = 0; p < nf; p++)
            J5[(nch + p) * nch + i] = B[i * nf + p];
    }
    for (int a = 0; a < nch; a++) {
        double off = 0.0, all = 0.0;
        for (int b = 0; b < nch; b++) {
            double v = 0.0;
            for (int p = 0; p < n; p++)
                for (int q = 0; q < n; q++)
                    v += J5[p * nch + a] * M[p * n + q] * J5[q * nch + b];
            MA[a * nch + b] = v;
            all += fabs(v);
            off += a == b ? 0.0 : fabs(v);
        }
        if (mci_a) mci_a[a] = off / all;
        if (mci_b) mci_b[a] = off / fabs(MA[a * nch + a]);
    }
    return PKM_OK;
}
