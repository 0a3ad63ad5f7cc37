/* dynamics/contact.c: point-on-surface constraints and their parasitic coordinates (Cheng, Yuan,
 * Li, Zeng 2024, eqs. 1-5, rebuilt in generic form: the printed equations are lost).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/pose_impl.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <float.h>
#include <math.h>
#include <string.h>

extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
                   const int *ldb, int *info);

/* Newton stops when every step is below this relative to the coordinate (the next error is then
 * of the order of its square); it gives up after PKM_CONTACT_ITER steps. */
#define PKM_CONTACT_STEP 1e-12
#define PKM_CONTACT_ITER 50

static int pkm_surface_finite(const pkm_surface *s)
{
    double sum = s->c;
    for (int i = 0; i < 3; i++) {
        sum += s->b[i];
        for (int j = 0; j < 3; j++)
            sum += s->a[i][j];
    }
    for (int k = 0; k < PKM_SURFACE_MAX_TERMS; k++)
        sum += s->coef[k];
    return isfinite(sum);
}

pkm_status pkm_surface_check(const pkm_surface *s, const char *name, pkm_ctx *ctx)
{
    const char *who = name ? name : "?";
    if (!s) return PKM_FAIL(ctx, PKM_ERR_INVALID, "contact %s: no surface", who);
    if (!pkm_surface_finite(s))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "contact %s: surface coefficient not finite", who);
    switch (s->kind) {
    case PKM_SURFACE_PLANE:
        if (pkm_vec3_norm(s->b) == 0.0)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "contact %s: plane normal b is zero", who);
        return PKM_OK;
    case PKM_SURFACE_QUADRIC:
        return PKM_OK;
    case PKM_SURFACE_POLYNOMIAL:
        if (s->nterm < 1 || s->nterm > PKM_SURFACE_MAX_TERMS)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "contact %s: polynomial with %d terms (1 to %d allowed)", who, s->nterm,
                            PKM_SURFACE_MAX_TERMS);
        for (int k = 0; k < s->nterm; k++)
            for (int d = 0; d < 3; d++)
                if (s->pow[k][d] < 0 || s->pow[k][d] > 16)
                    return PKM_FAIL(ctx, PKM_ERR_INVALID,
                                    "contact %s: polynomial term %d has exponent %d (0 to 16)", who,
                                    k + 1, s->pow[k][d]);
        return PKM_OK;
    }
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "contact %s: unknown surface kind %d", who, (int)s->kind);
}

/* d-th derivative of x^p (integer p >= 0, d = 0, 1, 2). */
static double pkm_monomial(double x, int p, int d)
{
    if (d > p) return 0.0;
    double v = d == 0 ? 1.0 : d == 1 ? p : (double)p * (p - 1);
    for (int i = 0; i < p - d; i++)
        v *= x;
    return v;
}

static void pkm_polynomial_eval(const pkm_surface *s, const double x[3], double *f, double g[3],
                                double H[3][3])
{
    for (int k = 0; k < s->nterm; k++) {
        double m[3][3]; /* m[axis][derivative order] */
        for (int a = 0; a < 3; a++)
            for (int d = 0; d < 3; d++)
                m[a][d] = pkm_monomial(x[a], s->pow[k][a], d);
        *f += s->coef[k] * m[0][0] * m[1][0] * m[2][0];
        for (int a = 0; a < 3; a++) {
            const int o[3] = {a == 0, a == 1, a == 2};
            g[a] += s->coef[k] * m[0][o[0]] * m[1][o[1]] * m[2][o[2]];
            for (int b = 0; b < 3; b++) {
                int o2[3] = {o[0], o[1], o[2]};
                o2[b]++;
                H[a][b] += s->coef[k] * m[0][o2[0]] * m[1][o2[1]] * m[2][o2[2]];
            }
        }
    }
}

void pkm_surface_eval(const pkm_surface *s, const double x[3], double *f, double g[3],
                      double H[3][3])
{
    double fv = 0.0, gv[3] = {0.0, 0.0, 0.0}, Hv[3][3];
    memset(Hv, 0, sizeof(Hv));
    if (s->kind == PKM_SURFACE_POLYNOMIAL) {
        pkm_polynomial_eval(s, x, &fv, gv, Hv);
    } else {
        /* The quadric's A symmetrised from its upper part; a plane has A = 0. */
        int quad = s->kind == PKM_SURFACE_QUADRIC;
        fv = pkm_vec3_dot(s->b, x) + s->c;
        for (int i = 0; i < 3; i++) {
            gv[i] = s->b[i];
            for (int j = 0; j < 3; j++) {
                double aij = quad ? (i <= j ? s->a[i][j] : s->a[j][i]) : 0.0;
                Hv[i][j] = 2.0 * aij;
                gv[i] += 2.0 * aij * x[j];
                fv += aij * x[i] * x[j];
            }
        }
    }
    if (f) *f = fv;
    if (g) memcpy(g, gv, sizeof(gv));
    if (H) memcpy(H, Hv, sizeof(Hv));
}

/* The d-th derivative (d = 0, 1, 2) of the rotation by angle about base axis `axis`:
 * R_e(angle) [e]x^d, since dR_e/dangle = R_e [e]x. */
static void pkm_elementary(int axis, double angle, int d, double out[3][3])
{
    double e[3] = {0.0, 0.0, 0.0}, S[3][3];
    e[axis] = 1.0;
    pkm_rot_rodrigues(e, angle, out);
    pkm_vec3_skew(e, S);
    for (int i = 0; i < d; i++)
        pkm_mat3_mul(PKM_CONST33(out), PKM_CONST33(S), out);
}

void pkm_pose_rotation_derivative(const double X[PKM_POSE_DOF], const int d[3], double R[3][3])
{
    double F[3][3];
    pkm_elementary(0, X[3], d[0], R);
    for (int a = 1; a < 3; a++) {
        pkm_elementary(a, X[3 + a], d[a], F);
        pkm_mat3_mul(PKM_CONST33(R), PKM_CONST33(F), R);
    }
}

void pkm_pose_rotation(const double X[PKM_POSE_DOF], double R[3][3])
{
    const int d[3] = {0, 0, 0};
    pkm_pose_rotation_derivative(X, d, R);
}

void pkm_pose_point_derivatives(const double X[PKM_POSE_DOF], const double r[3], double P[3],
                                double P1[PKM_POSE_DOF][3],
                                double P2[PKM_POSE_DOF][PKM_POSE_DOF][3])
{
    double R[3][3];
    pkm_pose_rotation(X, R);
    pkm_mat3_apply(PKM_CONST33(R), r, P);
    memset(P1, 0, sizeof(double) * PKM_POSE_DOF * 3);
    if (P2) memset(P2, 0, sizeof(double) * PKM_POSE_DOF * PKM_POSE_DOF * 3);
    for (int k = 0; k < 3; k++) {
        P[k] += X[k];
        P1[k][k] = 1.0;
    }
    for (int a = 0; a < 3; a++) {
        int d[3] = {0, 0, 0};
        d[a] = 1;
        pkm_pose_rotation_derivative(X, d, R);
        pkm_mat3_apply(PKM_CONST33(R), r, P1[3 + a]);
        for (int b = 0; b < 3 && P2; b++) {
            int e[3] = {0, 0, 0};
            e[a]++;
            e[b]++;
            pkm_pose_rotation_derivative(X, e, R);
            pkm_mat3_apply(PKM_CONST33(R), r, P2[3 + a][3 + b]);
        }
    }
}

void pkm_pose_point_jacobian(const double X[PKM_POSE_DOF], const double r[3],
                             double J[3][PKM_POSE_DOF])
{
    double P[3], P1[PKM_POSE_DOF][3];
    pkm_pose_point_derivatives(X, r, P, P1, NULL);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < PKM_POSE_DOF; k++)
            J[i][k] = P1[k][i];
}

void pkm_pose_angular_jacobian(const double X[PKM_POSE_DOF], double E[3][3])
{
    double Rx[3][3], Rxy[3][3], Ry[3][3];
    pkm_elementary(0, X[3], 0, Rx);
    pkm_elementary(1, X[4], 0, Ry);
    pkm_mat3_mul(PKM_CONST33(Rx), PKM_CONST33(Ry), Rxy);
    for (int i = 0; i < 3; i++)
        E[i][0] = i == 0, E[i][1] = Rx[i][1], E[i][2] = Rxy[i][2];
}

void pkm_contact_residual(int nc, const pkm_contact *c, const double X[PKM_POSE_DOF], double *Phi,
                          double *dPhi, double *d2Phi)
{
    enum { N = PKM_POSE_DOF };
    for (int i = 0; i < nc; i++) {
        double P[3], P1[N][3], P2[N][N][3], g[3], H[3][3], HP[N][3];
        pkm_pose_point_derivatives(X, c[i].point, P, P1, d2Phi ? P2 : NULL);
        pkm_surface_eval(&c[i].surface, P, &Phi[i], g, H);
        for (int k = 0; k < N; k++) {
            pkm_mat3_apply(PKM_CONST33(H), P1[k], HP[k]);
            if (dPhi) dPhi[i * N + k] = pkm_vec3_dot(g, P1[k]);
        }
        if (!d2Phi) continue;
        /* Chain rule: Phi_kl = P_k^T Hess(sigma) P_l + grad(sigma) . P_kl. */
        for (int k = 0; k < N; k++)
            for (int l = 0; l < N; l++)
                d2Phi[(i * N + k) * N + l] = pkm_vec3_dot(P1[k], HP[l]) + pkm_vec3_dot(g, P2[k][l]);
    }
}

static pkm_status pkm_contact_args(int nc, const pkm_contact *c, const int *par, int fr[],
                                   pkm_ctx *ctx)
{
    if (nc < 1 || nc >= PKM_POSE_DOF || !c || !par)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "contacts: %d parasitic coordinates (1 to %d, one per contact)", nc,
                        PKM_POSE_DOF - 1);
    int used[PKM_POSE_DOF] = {0};
    for (int a = 0; a < nc; a++) {
        pkm_status st = pkm_surface_check(&c[a].surface, c[a].name, ctx);
        if (st != PKM_OK) return st;
        if (par[a] < 0 || par[a] >= PKM_POSE_DOF || used[par[a]]++)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "contact %s: parasitic coordinate index %d not a distinct pose index "
                            "0..5",
                            c[a].name ? c[a].name : "?", par[a]);
    }
    for (int k = 0, j = 0; k < PKM_POSE_DOF; k++)
        if (!used[k]) fr[j++] = k;
    return PKM_OK;
}

/* Factorise Phi_z (nc x nc, column-major in a) and solve for nrhs right-hand sides in b. 0 when
 * singular: a pivot below DBL_EPSILON times the largest entry. */
static int pkm_contact_solve(int nc, double *a, int nrhs, double *b)
{
    double amax = 0.0;
    for (int i = 0; i < nc * nc; i++)
        amax = fmax(amax, fabs(a[i]));
    int ipiv[PKM_POSE_DOF], info = 0;
    dgesv_(&nc, &nrhs, a, &nc, ipiv, b, &nc, &info);
    if (info != 0 || amax == 0.0) return 0;
    for (int i = 0; i < nc; i++)
        if (!(fabs(a[i * nc + i]) > DBL_EPSILON * amax)) return 0;
    return 1;
}

/* The implicit-function derivatives at a converged X (see the header). */
static pkm_status pkm_contact_derivatives(int nc, const pkm_contact *c, const int *par,
                                          const int *fr, double t, const double *X, double *dz,
                                          double *d2z, pkm_ctx *ctx)
{
    enum { N = PKM_POSE_DOF };
    const int nf = N - nc;
    double Phi[N], dPhi[N * N], d2Phi[N * N * N], a[N * N], b[N * N * N], D[N][N];
    pkm_contact_residual(nc, c, X, Phi, dPhi, d2Phi);
    for (int i = 0; i < nc; i++) {
        for (int s = 0; s < nc; s++)
            a[s * nc + i] = dPhi[i * N + par[s]];
        for (int j = 0; j < nf; j++)
            b[j * nc + i] = -dPhi[i * N + fr[j]];
    }
    double lu[N * N];
    memcpy(lu, a, sizeof(double) * (size_t)(nc * nc));
    if (!pkm_contact_solve(nc, lu, nf, b))
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "contact %s: the parasitic coordinates are not determined%s (their "
                        "constraint Jacobian is singular)",
                        c[0].name ? c[0].name : "?", pkm_at_time(t, (char[PKM_AT_TIME_LEN]){0}));
    memset(D, 0, sizeof(D));
    for (int j = 0; j < nf; j++) {
        D[fr[j]][j] = 1.0;
        for (int s = 0; s < nc; s++)
            D[par[s]][j] = b[j * nc + s];
    }
    if (dz)
        for (int s = 0; s < nc; s++)
            for (int j = 0; j < nf; j++)
                dz[s * nf + j] = D[par[s]][j];
    if (!d2z) return PKM_OK;
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < nf; j++)
            for (int k = 0; k < nf; k++) {
                double v = 0.0;
                for (int p = 0; p < N; p++)
                    for (int q = 0; q < N; q++)
                        v += D[p][j] * d2Phi[(i * N + p) * N + q] * D[q][k];
                b[(j * nf + k) * nc + i] = -v;
            }
    memcpy(lu, a, sizeof(double) * (size_t)(nc * nc));
    pkm_contact_solve(nc, lu, nf * nf, b);
    for (int s = 0; s < nc; s++)
        for (int jk = 0; jk < nf * nf; jk++)
            d2z[s * nf * nf + jk] = b[jk * nc + s];
    return PKM_OK;
}

pkm_status pkm_contact_parasitic(int nc, const pkm_contact *c, const int *par, double t,
                                 double X[PKM_POSE_DOF], double *dz, double *d2z, pkm_ctx *ctx)
{
    enum { N = PKM_POSE_DOF };
    int fr[N];
    pkm_status st = pkm_contact_args(nc, c, par, fr, ctx);
    if (st != PKM_OK) return st;
    double Phi[N], dPhi[N * N], a[N * N];
    for (int it = 0; it < PKM_CONTACT_ITER; it++) {
        pkm_contact_residual(nc, c, X, Phi, dPhi, NULL);
        for (int i = 0; i < nc; i++)
            for (int s = 0; s < nc; s++)
                a[s * nc + i] = dPhi[i * N + par[s]];
        if (!pkm_contact_solve(nc, a, 1, Phi)) break;
        int done = 1;
        for (int s = 0; s < nc; s++) {
            X[par[s]] -= Phi[s];
            done &= fabs(Phi[s]) <= PKM_CONTACT_STEP * (1.0 + fabs(X[par[s]]));
        }
        for (int s = 0; s < nc; s++)
            done &= isfinite(X[par[s]]) != 0;
        if (done) return pkm_contact_derivatives(nc, c, par, fr, t, X, dz, d2z, ctx);
    }
    pkm_contact_residual(nc, c, X, Phi, NULL, NULL);
    int worst = 0;
    for (int i = 1; i < nc; i++)
        if (!(fabs(Phi[i]) <= fabs(Phi[worst]))) worst = i;
    return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE,
                    "contact %s: the point does not reach its surface%s (Newton stopped with "
                    "residual %g)",
                    c[worst].name ? c[worst].name : "?", pkm_at_time(t, (char[PKM_AT_TIME_LEN]){0}),
                    Phi[worst]);
}
