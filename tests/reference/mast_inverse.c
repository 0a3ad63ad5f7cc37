/* tests/reference/mast_inverse.c: minimum-norm inverse dynamics of a body driven by R-S-S chains
 * and held by point-on-surface contacts, with every coupler's end forces and the contact normal
 * forces (Cheng, Yuan, Li, Zeng 2024, eqs. 43-57, rebuilt: see mastref.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reference/mastref_impl.h"

#include "core/core_impl.h"

#include <math.h>
#include <string.h>

extern void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau,
                    double *work, const int *lwork, int *info);
extern void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda,
                    const double *tau, double *work, const int *lwork, int *info);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info,
                    size_t uplo_len);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info, size_t uplo_len);

/* W^-1/2 J1 is rank-deficient when a diagonal entry of its R falls below this fraction of the
 * largest. */
#define PKM_MAST_RANK_TOL 1e-10

/* One chain's motion: crank tip and body end, their accelerations, dS/dtheta. */
typedef struct mast_link {
    double S[3], M[3], aS[3], aM[3], dS[3];
} mast_link;

/* The inertia-minus-gravity force m (w1 a_S + w2 a_M - g / 2) of a coupler's line mass, its
 * share at one end (w1, w2 = 1/3, 1/6 at S; 1/6, 1/3 at M). */
static void coupler_share(double mc, const mast_link *l, const double g[3], double w1, double w2,
                          double f[3])
{
    for (int k = 0; k < 3; k++)
        f[k] = mc * (w1 * l->aS[k] + w2 * l->aM[k] - 0.5 * g[k]);
}

/* Add A^T f (A: 3 x nf, stride nf) to rhs. */
static void add_jtf(int nf, const double *A, const double f[3], double *rhs)
{
    for (int j = 0; j < nf; j++)
        rhs[j] += A[j] * f[0] + A[nf + j] * f[1] + A[2 * nf + j] * f[2];
}

/* The 3 x nf Jacobian of the body point r in the free coordinates: P(r) mj. */
static void point_jacobian(const pkm_mast_state *s, const double r[3], double *J)
{
    const int nf = s->nfree;
    double P[3][PKM_POSE_DOF];
    pkm_pose_point_jacobian(s->X, r, P);
    for (int d = 0; d < 3; d++)
        for (int j = 0; j < nf; j++) {
            J[d * nf + j] = 0.0;
            for (int k = 0; k < PKM_POSE_DOF; k++)
                J[d * nf + j] += P[d][k] * s->mj[k * nf + j];
        }
}

void pkm_mast_load_force(const pkm_mast_state *s, const pkm_mast_load *load, double *F)
{
    const int nf = s->nfree;
    memset(F, 0, sizeof(double) * (size_t)nf);
    if (load == NULL) return;
    double Jb[3 * PKM_POSE_DOF];
    point_jacobian(s, load->point, Jb);
    add_jtf(nf, Jb, load->force, F);
}

/* Each chain's crank tip and body end with their accelerations. */
static void links_eval(const pkm_mast *m, const pkm_mast_state *s, const mast_body *b,
                       mast_link *link)
{
    for (int i = 0; i < m->nchain; i++) {
        mast_link *l = &link[i];
        double v[3], ddS[3];
        pkm_mast_point_motion(s, b, m->chain[i].M, l->M, v, l->aM);
        pkm_rss_tip(&m->chain[i], s->th[i], l->S);
        pkm_mast_crank(&m->chain[i], s->th[i], l->dS, ddS);
        for (int k = 0; k < 3; k++)
            l->aS[k] = l->dS[k] * s->thdd[i] + ddS[k] * s->thd[i] * s->thd[i];
    }
}

/* J3^T Q - F_EE by virtual power: every body's inertia and gravity forces projected on the free
 * coordinates through its velocity Jacobian, less the load's; Qth the crank rows of Q. */
static void virtual_power(const pkm_mast *m, const pkm_mast_state *s, const mast_body *b,
                          const pkm_mast_load *load, const mast_link *link, double *rhs,
                          double *Qth)
{
    const int nf = s->nfree;
    double Iwd[3], Iw_w[3], wIw[3], Jw[3 * PKM_POSE_DOF] = {0}, fv[3], mv[3];
    memset(rhs, 0, sizeof(double) * (size_t)nf);
    for (int i = 0; i < m->nchain; i++) {
        const mast_link *l = &link[i];
        double fS[3], fM[3], JM[3 * PKM_POSE_DOF];
        coupler_share(m->coupler_mass[i], l, m->gravity, 1.0 / 3.0, 1.0 / 6.0, fS);
        coupler_share(m->coupler_mass[i], l, m->gravity, 1.0 / 6.0, 1.0 / 3.0, fM);
        Qth[i] = m->crank_inertia[i] * s->thdd[i] + pkm_vec3_dot(l->dS, fS);
        for (int j = 0; j < nf; j++)
            rhs[j] += s->J1[i * nf + j] * Qth[i];
        point_jacobian(s, m->chain[i].M, JM);
        add_jtf(nf, JM, fM, rhs);
    }
    pkm_mat3_apply(PKM_CONST33(b->Iw), b->wd, Iwd);
    pkm_mat3_apply(PKM_CONST33(b->Iw), b->w, Iw_w);
    pkm_vec3_cross(b->w, Iw_w, wIw);
    for (int k = 0; k < 3; k++) {
        fv[k] = m->mass * (s->Xdd[k] - m->gravity[k]);
        mv[k] = Iwd[k] + wIw[k];
        for (int j = 0; j < nf; j++)
            for (int l = 0; l < 3; l++)
                Jw[k * nf + j] += b->E[k][l] * s->mj[(3 + l) * nf + j];
    }
    add_jtf(nf, s->mj, fv, rhs);
    add_jtf(nf, Jw, mv, rhs);
    double F[PKM_POSE_DOF];
    pkm_mast_load_force(s, load, F);
    for (int j = 0; j < nf; j++)
        rhs[j] -= F[j];
}

/* tau of least W-norm with J1^T tau = rhs, plus the preload's null-space part (mastref.h). */
static pkm_status min_norm(const pkm_mast *m, const pkm_mast_state *s,
                           const pkm_mast_inverse_opts *o, const double *rhs, double *tau,
                           pkm_ctx *ctx)
{
    const int nch = m->nchain, nf = s->nfree;
    double sw[PKM_MAST_MAX_CHAINS], A[PKM_MAST_MAX_Q * PKM_POSE_DOF], h[PKM_POSE_DOF];
    double work[64 * PKM_POSE_DOF], z[PKM_POSE_DOF], y[PKM_MAST_MAX_CHAINS];
    for (int i = 0; i < nch; i++) {
        const double w = o && o->weight ? o->weight[i] : 1.0;
        if (!(w > 0.0) || !isfinite(w))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "chain %s: weight %g is not positive",
                            m->chain[i].name ? m->chain[i].name : "?", w);
        sw[i] = sqrt(w);
        for (int j = 0; j < nf; j++) /* column-major nch x nf */
            A[j * nch + i] = s->J1[i * nf + j] / sw[i];
    }
    int info = 0, ok = nf <= nch;
    const int lwork = (int)(sizeof(work) / sizeof(work[0]));
    if (ok) dgeqrf_(&nch, &nf, A, &nch, h, work, &lwork, &info);
    double rmax = 0.0;
    for (int j = 0; ok && j < nf; j++)
        rmax = fmax(rmax, fabs(A[j * nch + j]));
    for (int j = 0; ok && j < nf; j++)
        ok = fabs(A[j * nch + j]) > PKM_MAST_RANK_TOL * rmax;
    if (!ok)
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "the actuation map is rank-deficient at t = %g (%d chains cannot "
                        "drive the %d free coordinates): not solved",
                        s->t, nch, nf);
    for (int j = 0; j < nf; j++) { /* R^T z = rhs */
        z[j] = rhs[j];
        for (int k = 0; k < j; k++)
            z[j] -= A[j * nch + k] * z[k];
        z[j] /= A[j * nch + j];
    }
    dorgqr_(&nch, &nf, &nf, A, &nch, h, work, &lwork, &info);
    for (int i = 0; i < nch; i++) {
        y[i] = 0.0;
        for (int j = 0; j < nf; j++)
            y[i] += A[j * nch + i] * z[j];
    }
    if (o && o->preload) {
        double v[PKM_MAST_MAX_CHAINS], c[PKM_POSE_DOF] = {0};
        for (int i = 0; i < nch; i++)
            v[i] = sw[i] * o->preload[i];
        for (int j = 0; j < nf; j++)
            for (int i = 0; i < nch; i++)
                c[j] += A[j * nch + i] * v[i];
        for (int i = 0; i < nch; i++) {
            y[i] += v[i];
            for (int j = 0; j < nf; j++)
                y[i] -= A[j * nch + i] * c[j];
        }
    }
    for (int i = 0; i < nch; i++)
        tau[i] = y[i] / sw[i];
    return PKM_OK;
}

/* Newton-Euler body by body under tau: the couplers' end forces, then the contact forces from
 * the moving body's six equations by least squares, and their relative residual. */
static pkm_status body_forces(const pkm_mast *m, const pkm_mast_state *s, const mast_body *b,
                              const pkm_mast_load *load, const mast_link *link, pkm_mast_forces *f,
                              pkm_ctx *ctx)
{
    const int nc = m->ncontact;
    double r[6], sf = 0.0, sm = 0.0, A[6 * PKM_MAST_MAX_CONTACTS], t3[3], Iwd[3], Iww[3], wIw[3];
    pkm_mat3_apply(PKM_CONST33(b->Iw), b->wd, Iwd);
    pkm_mat3_apply(PKM_CONST33(b->Iw), b->w, Iww);
    pkm_vec3_cross(b->w, Iww, wIw);
    for (int k = 0; k < 3; k++) { /* inertia wrench less the applied ones, about the origin */
        r[k] = m->mass * (s->Xdd[k] - m->gravity[k]);
        r[3 + k] = Iwd[k] + wIw[k];
        sf = fmax(sf, fabs(r[k])), sm = fmax(sm, fabs(r[3 + k]));
    }
    for (int i = 0; i < m->nchain; i++) {
        const mast_link *l = &link[i];
        double *FS = f->coupler[i][0], *FM = f->coupler[i][1], u[3], arm[3];
        coupler_share(m->coupler_mass[i], l, m->gravity, 1.0 / 3.0, 1.0 / 6.0, FS);
        coupler_share(m->coupler_mass[i], l, m->gravity, 1.0 / 6.0, 1.0 / 3.0, FM);
        pkm_vec3_sub(l->M, l->S, u);
        /* the crank about its shaft: I th'' = tau - dS . F_S, F_S = F_S0 - mu u */
        const double mu = (pkm_vec3_dot(l->dS, FS) - f->tau[i] + m->crank_inertia[i] * s->thdd[i]) /
                          pkm_vec3_dot(l->dS, u);
        pkm_vec3_axpy(-mu, u, FS);
        pkm_vec3_axpy(mu, u, FM);
        pkm_vec3_sub(l->M, s->X, arm);
        pkm_vec3_cross(arm, FM, t3);
        for (int k = 0; k < 3; k++)
            r[k] += FM[k], r[3 + k] += t3[k];
        sf = fmax(sf, pkm_vec3_norm(FM)), sm = fmax(sm, pkm_vec3_norm(t3));
    }
    if (load != NULL) {
        double w[3];
        pkm_mat3_apply(PKM_CONST33(b->R), load->point, w);
        pkm_vec3_cross(w, load->force, t3);
        for (int k = 0; k < 3; k++)
            r[k] -= load->force[k], r[3 + k] -= t3[k];
        sf = fmax(sf, pkm_vec3_norm(load->force)), sm = fmax(sm, pkm_vec3_norm(t3));
    }
    for (int c = 0; c < nc; c++) { /* unit normal and its moment at the contact point */
        double g[3], x[3], w[3];
        pkm_mat3_apply(PKM_CONST33(b->R), m->contact[c].point, w);
        for (int k = 0; k < 3; k++)
            x[k] = s->X[k] + w[k];
        pkm_surface_eval(&m->contact[c].surface, x, NULL, g, NULL);
        const double gn = pkm_vec3_norm(g);
        for (int k = 0; k < 3; k++)
            g[k] /= gn;
        pkm_vec3_cross(w, g, t3);
        for (int k = 0; k < 3; k++)
            A[c * 6 + k] = g[k], A[c * 6 + 3 + k] = t3[k];
    }
    if (nc > 0) { /* A lambda = r by the normal equations (nc <= 5 columns) */
        double G[PKM_MAST_MAX_CONTACTS * PKM_MAST_MAX_CONTACTS];
        int info = 0, one = 1;
        for (int a = 0; a < nc; a++) {
            f->contact[a] = 0.0;
            for (int k = 0; k < 6; k++)
                f->contact[a] += A[a * 6 + k] * r[k];
            for (int c = 0; c < nc; c++) {
                G[a * nc + c] = 0.0;
                for (int k = 0; k < 6; k++)
                    G[a * nc + c] += A[a * 6 + k] * A[c * 6 + k];
            }
        }
        dpotrf_("L", &nc, G, &nc, &info, 1);
        if (info != 0)
            return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                            "the contact normals are dependent at t = %g: their forces are not "
                            "determined",
                            s->t);
        dpotrs_("L", &nc, &one, G, &nc, f->contact, &nc, &info, 1);
        for (int c = 0; c < nc; c++)
            for (int k = 0; k < 6; k++)
                r[k] -= A[c * 6 + k] * f->contact[c];
    }
    f->residual = 0.0;
    for (int k = 0; k < 3; k++)
        f->residual = fmax(f->residual,
                           fmax(fabs(r[k]) / fmax(sf, 1e-300), fabs(r[3 + k]) / fmax(sm, 1e-300)));
    return PKM_OK;
}

/* The routes by name (mastref.h). */
static const char *const route_names[] = {"virtual-power", "hessian", "liang", "first-kind"};

const char *pkm_mast_route_name(pkm_mast_route route)
{
    const int k = (int)route;
    return k >= 0 && k < (int)(sizeof(route_names) / sizeof(route_names[0])) ? route_names[k]
                                                                             : NULL;
}

pkm_status pkm_mast_inverse(const pkm_mast *m, const pkm_mast_state *s, const pkm_mast_load *load,
                            const pkm_mast_inverse_opts *opts, pkm_mast_forces *f, pkm_ctx *ctx)
{
    pkm_status rc = pkm_mast_check(m, ctx);
    if (rc != PKM_OK) return rc;
    const pkm_mast_route route = opts ? opts->route : PKM_MAST_VIRTUAL_POWER;
    if (pkm_mast_route_name(route) == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "inverse dynamics: unknown route %d", (int)route);
    memset(f, 0, sizeof(*f));
    mast_body b;
    mast_link link[PKM_MAST_MAX_CHAINS];
    double rhs[PKM_POSE_DOF], Qth[PKM_MAST_MAX_CHAINS];
    pkm_mast_body_motion(m, s, &b);
    links_eval(m, s, &b, link);
    if (route == PKM_MAST_VIRTUAL_POWER)
        virtual_power(m, s, &b, load, link, rhs, Qth);
    else
        pkm_mast_lagrange_rhs(m, s, route, load, rhs, Qth);
    memcpy(f->generalised, rhs, sizeof(double) * (size_t)s->nfree);
    if ((rc = min_norm(m, s, opts, rhs, f->tau, ctx)) != PKM_OK) return rc;
    for (int i = 0; i < m->nchain; i++) { /* Q_theta = tau + J_theta lambda (eq. 56) */
        double d[3];
        pkm_vec3_sub(link[i].M, link[i].S, d);
        f->multiplier[i] = (Qth[i] - f->tau[i]) / (-2.0 * pkm_vec3_dot(d, link[i].dS));
    }
    return body_forces(m, s, &b, load, link, f, ctx);
}
