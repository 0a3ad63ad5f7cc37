/* dynamics/kinematics.c: frames' motion, loop-closure rows and the closure solve.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/dynamics_impl.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* out = V x Y for twists (v, w): (w x vy + v x wy, w x wy) (Featherstone 2008, eq. 2.31, in the
 * (v, w) order). */
static void twist_cross(const double V[6], const double Y[6], double out[6])
{
    double a[3], b[3], c[3];
    pkm_vec3_cross(V + 3, Y, a);
    pkm_vec3_cross(V, Y + 3, b);
    pkm_vec3_cross(V + 3, Y + 3, c);
    for (int k = 0; k < 3; k++) {
        out[k] = a[k] + b[k];
        out[k + 3] = c[k];
    }
}

/* out = V x* F for a wrench (F, M): (w x F, w x M + v x F), the dual of twist_cross. */
static void wrench_cross(const double V[6], const double F[6], double out[6])
{
    double a[3], b[3], c[3];
    pkm_vec3_cross(V + 3, F, a);
    pkm_vec3_cross(V + 3, F + 3, b);
    pkm_vec3_cross(V, F, c);
    for (int k = 0; k < 3; k++) {
        out[k] = a[k];
        out[k + 3] = b[k] + c[k];
    }
}

static double dot6(const double a[6], const double b[6])
{
    return pkm_vec3_dot(a, b) + pkm_vec3_dot(a + 3, b + 3);
}

static const double identity[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
static const double zero6[6] = {0, 0, 0, 0, 0, 0};

/* The displacement of frame f (identity for the ground). */
static void frame_pose(const pkm_mbs *s, int f, const double (**R)[3], const double **p)
{
    static const double origin[3] = {0, 0, 0};
    *R = (f < 0) ? identity : PKM_CONST33(s->fr[f].R);
    *p = (f < 0) ? origin : s->fr[f].p;
}

void mbs_forward(pkm_mbs *s)
{
    for (int i = 0; i < s->nf; i++) {
        mbs_frame *f = &s->fr[i];
        const double(*Rp)[3], *pp;
        frame_pose(s, f->parent, &Rp, &pp);
        const double *Vp = (f->parent < 0) ? zero6 : s->fr[f->parent].V;
        const double *Ap = (f->parent < 0) ? zero6 : s->fr[f->parent].A;
        double Re[3][3], pe[3] = {0, 0, 0}, S0[6] = {0, 0, 0, 0, 0, 0};
        const double q = (f->coord >= 0) ? s->q[f->coord] : 0.0;
        const double qd = (f->coord >= 0) ? s->qd[f->coord] : 0.0;
        const double qdd = (f->coord >= 0) ? s->qdd[f->coord] : 0.0;
        memcpy(Re, identity, sizeof(Re));
        if (f->coord >= 0 && f->prismatic) {
            memcpy(S0, f->axis, sizeof(f->axis));
            pkm_vec3_axpy(q, f->axis, pe);
        } else if (f->coord >= 0) {
            /* Rotation about the line through point: x -> Re (x - point) + point, plus the
             * helical advance pitch q along the axis. */
            pkm_vec3_cross(f->point, f->axis, S0);
            pkm_vec3_axpy(f->pitch, f->axis, S0);
            memcpy(S0 + 3, f->axis, sizeof(f->axis));
            pkm_rot_rodrigues(f->axis, q, Re);
            double Rx[3];
            pkm_mat3_apply(PKM_CONST33(Re), f->point, Rx);
            pkm_vec3_sub(f->point, Rx, pe);
            pkm_vec3_axpy(f->pitch * q, f->axis, pe);
        }
        /* S = Ad(G_parent) S0: w' = Rp w, v' = Rp v + pp x w'. */
        double t[3];
        pkm_mat3_apply(Rp, S0 + 3, f->S + 3);
        pkm_mat3_apply(Rp, S0, f->S);
        pkm_vec3_cross(pp, f->S + 3, t);
        pkm_vec3_axpy(1.0, t, f->S);
        /* G = G_parent exp(S0 q). */
        pkm_mat3_mul(Rp, PKM_CONST33(Re), f->R);
        pkm_mat3_apply(Rp, pe, f->p);
        pkm_vec3_axpy(1.0, pp, f->p);
        double vs[6];
        for (int k = 0; k < 6; k++)
            f->V[k] = Vp[k] + f->S[k] * qd;
        twist_cross(f->V, f->S, vs);
        for (int k = 0; k < 6; k++)
            f->A[k] = Ap[k] + f->S[k] * qdd + vs[k] * qd;
    }
}

/* A unit vector normal to a (deterministic: from the axis least aligned with a). */
static void normal_pair(const double a[3], double u1[3], double u2[3])
{
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (fabs(a[i]) < fabs(a[k])) k = i;
    pkm_vec3_cross(a, identity[k], u1);
    const double n = pkm_vec3_norm(u1);
    for (int i = 0; i < 3; i++)
        u1[i] /= n;
    pkm_vec3_cross(a, u1, u2);
}

/* Rotation vector of a rotation (angle below pi): theta / (2 sin theta) vee(R - R^T). */
static void rotation_vector(const double R[3][3], double phi[3])
{
    const double v[3] = {R[2][1] - R[1][2], R[0][2] - R[2][0], R[1][0] - R[0][1]};
    const double c = fmax(-1.0, fmin(1.0, 0.5 * (R[0][0] + R[1][1] + R[2][2] - 1.0)));
    const double th = acos(c), sn = sin(th);
    const double k = (th < 1e-8) ? 0.5 : 0.5 * th / sn;
    for (int i = 0; i < 3; i++)
        phi[i] = k * v[i];
}

/* The reference wrench directions (F, M) at the joint point that a cut of this type blocks,
 * before rotation by body_a's displacement; returns their number. A universal joint's fourth row
 * (the moment normal to both axes) depends on both bodies and is built by the caller. */
static int cut_directions(const pkm_joint *jt, double D[6][6])
{
    double u1[3], u2[3];
    normal_pair(jt->axis, u1, u2);
    memset(D, 0, 36 * sizeof(double));
    int n = 0;
    const int force3 = jt->type != PKM_JOINT_PRISMATIC && jt->type != PKM_JOINT_HELICAL;
    const int moment3 = jt->type == PKM_JOINT_PRISMATIC || jt->type == PKM_JOINT_CLAMPED;
    for (int k = 0; k < 3 && force3; k++)
        D[n++][k] = 1.0;
    if (!force3) {
        memcpy(D[n++], u1, sizeof(u1));
        memcpy(D[n++], u2, sizeof(u2));
    }
    for (int k = 0; k < 3 && moment3; k++)
        D[n++][3 + k] = 1.0;
    if (jt->type == PKM_JOINT_REVOLUTE || jt->type == PKM_JOINT_HELICAL) {
        memcpy(D[n++] + 3, u1, sizeof(u1));
        memcpy(D[n++] + 3, u2, sizeof(u2));
    }
    if (jt->type == PKM_JOINT_HELICAL) {
        /* Force along the axis with the moment -h along it: reciprocal to the screw (h a, a). */
        const double h = jt->pitch / (2.0 * PKM_PI), nrm = sqrt(1.0 + h * h);
        for (int k = 0; k < 3; k++) {
            D[n][k] = jt->axis[k] / nrm;
            D[n][3 + k] = -h * jt->axis[k] / nrm;
        }
        n++;
    }
    return n;
}

/* The row of a point-on-plane constraint (a higher pair, Cheng et al. 2024): the point P of the
 * node's body keeps n . (P - P0) = 0 with the plane fixed in the ground through the node's
 * reference position P0; its wrench is the force n at P, W = (n, P x n) at the origin, and
 * dW/dt = (0, v_P x n). */
static void plane_row_eval(pkm_mbs *s, const mbs_cut *cu)
{
    const pkm_plane *pl = pkm_model_plane(s->m, cu->plane);
    const double *x0 = pkm_model_node(s->m, pl->node)->x, *V = s->fr[cu->fb].V;
    const double(*R)[3], *p;
    frame_pose(s, cu->fb, &R, &p);
    double P[3], d[3], v[3], *W = s->W + 6 * cu->row, *Wd = s->Wd + 6 * cu->row;
    pkm_mat3_apply(R, x0, P);
    pkm_vec3_axpy(1.0, p, P);
    pkm_vec3_sub(P, x0, d);
    s->r[cu->row] = pkm_vec3_dot(pl->normal, d);
    memcpy(W, pl->normal, 3 * sizeof(double));
    pkm_vec3_cross(P, pl->normal, W + 3);
    pkm_vec3_cross(V + 3, P, v); /* v_P = v + w x P */
    pkm_vec3_axpy(1.0, V, v);
    memset(Wd, 0, 3 * sizeof(double));
    pkm_vec3_cross(v, pl->normal, Wd + 3);
}

/* Constraint rows of one cut: W (origin), Wd, residual, with the wrench at the point in wp. */
static void cut_rows_eval(pkm_mbs *s, const mbs_cut *cu)
{
    if (cu->plane >= 0) {
        plane_row_eval(s, cu);
        return;
    }
    const pkm_joint *jt = pkm_model_joint(s->m, cu->joint);
    const double(*Ra)[3], *pa, (*Rb)[3], *pb;
    frame_pose(s, cu->fa, &Ra, &pa);
    frame_pose(s, cu->fb, &Rb, &pb);
    const double *Va = (cu->fa < 0) ? zero6 : s->fr[cu->fa].V;
    const double *Vb = (cu->fb < 0) ? zero6 : s->fr[cu->fb].V;
    double Pa[3], Pb[3], d[3], Rab[3][3], Rat[3][3], phi[3];
    pkm_mat3_apply(Ra, jt->point, Pa);
    pkm_vec3_axpy(1.0, pa, Pa);
    pkm_mat3_apply(Rb, jt->point, Pb);
    pkm_vec3_axpy(1.0, pb, Pb);
    pkm_vec3_sub(Pb, Pa, d);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Rat[i][j] = Ra[j][i];
    pkm_mat3_mul(Rb, PKM_CONST33(Rat), Rab);
    rotation_vector(PKM_CONST33(Rab), phi);
    double D[6][6];
    const int n = cut_directions(jt, D);
    for (int i = 0; i < n; i++) {
        double *W = s->W + 6 * (cu->row + i), *Wd = s->Wd + 6 * (cu->row + i), t[3];
        pkm_mat3_apply(Ra, D[i], W);
        pkm_mat3_apply(Ra, D[i] + 3, W + 3);
        s->r[cu->row + i] = pkm_vec3_dot(W, d) + pkm_vec3_dot(W + 3, phi);
        pkm_vec3_cross(Pa, W, t); /* moment about the origin: M + Pa x F */
        pkm_vec3_axpy(1.0, t, W + 3);
        wrench_cross(Va, W, Wd); /* fixed in body_a */
    }
    if (jt->type == PKM_JOINT_UNIVERSAL) {
        /* d/dt (a . b) = (w_b - w_a) . (b x a): the moment b x a is blocked. */
        double a[3], b[3], wa_[3], wb_[3], t1[3], t2[3], t3[3];
        double *W = s->W + 6 * (cu->row + n), *Wd = s->Wd + 6 * (cu->row + n);
        pkm_mat3_apply(Ra, jt->axis, a);
        pkm_mat3_apply(Rb, jt->axis2, b);
        memset(W, 0, 6 * sizeof(double));
        memset(Wd, 0, 6 * sizeof(double));
        pkm_vec3_cross(b, a, W + 3);
        s->r[cu->row + n] = pkm_vec3_dot(a, b) - pkm_vec3_dot(jt->axis, jt->axis2);
        pkm_vec3_cross(Vb + 3, b, wb_);
        pkm_vec3_cross(Va + 3, a, wa_);
        pkm_vec3_cross(wb_, a, t1);
        pkm_vec3_cross(b, wa_, t2);
        for (int k = 0; k < 3; k++)
            t3[k] = t1[k] + t2[k];
        memcpy(Wd + 3, t3, sizeof(t3));
    }
}

void mbs_constraint_rows(pkm_mbs *s)
{
    for (int c = 0; c < s->ncut; c++) {
        const mbs_cut *cu = &s->cut[c];
        cut_rows_eval(s, cu);
        const double *Aa = (cu->fa < 0) ? zero6 : s->fr[cu->fa].A;
        const double *Ab = (cu->fb < 0) ? zero6 : s->fr[cu->fb].A;
        const double *Va = (cu->fa < 0) ? zero6 : s->fr[cu->fa].V;
        const double *Vb = (cu->fb < 0) ? zero6 : s->fr[cu->fb].V;
        for (int i = cu->row; i < cu->row + cu->nrow; i++) {
            const double *W = s->W + 6 * i;
            /* gamma = d/dt(W) . (Vb - Va) + W . (Ab - Aa) at qdd = 0. */
            double g = 0.0;
            for (int k = 0; k < 6; k++)
                g += s->Wd[6 * i + k] * (Vb[k] - Va[k]) + W[k] * (Ab[k] - Aa[k]);
            /* Only the pattern's entries: the screws above the lowest common ancestor enter both
             * paths and cancel; each coordinate below it is on one path (its sign). */
            for (int p = s->cptr[i]; p < s->cptr[i + 1]; p++) {
                const int k = s->cidx[p];
                s->cval[p] = s->csgn[p] * dot6(W, s->fr[s->coord_frame[k]].S);
                g -= s->cval[p] * s->qdd[k];
            }
            s->gamma[i] = g;
        }
    }
}

void mbs_body_inertia(const pkm_mbs *s, int b, double I[6][6])
{
    const int f = s->body_frame[b];
    const double(*R)[3], *p;
    frame_pose(s, f, &R, &p);
    double c[3], J[3][3], RJ[3][3], Rt[3][3];
    pkm_mat3_apply(R, s->com0[b], c);
    pkm_vec3_axpy(1.0, p, c);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Rt[i][j] = R[j][i];
    pkm_mat3_mul(R, PKM_CONST33(s->J0[b]), RJ);
    pkm_mat3_mul(PKM_CONST33(RJ), PKM_CONST33(Rt), J);
    pkm_spatial_inertia(s->mass[b], c, PKM_CONST33(J), I);
}

pkm_status pkm_mbs_set_load(pkm_mbs *s, int slot, int b, const double f[3], const double n[3],
                            const double x[3], pkm_ctx *ctx)
{
    if (slot < 0 || slot >= PKM_MBS_LOADS)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "load slot %d: expected 0 to %d", slot,
                        PKM_MBS_LOADS - 1);
    if (b < 0) {
        s->load_body[slot] = -1;
        return PKM_OK;
    }
    if (b >= s->nb || s->body_frame[b] < 0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "load on body %d: not a moving body of the model", b);
    for (int k = 0; k < 3; k++)
        if (!isfinite(f[k]) || !isfinite(n[k]) || !isfinite(x[k]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "load on body '%s': a component is not finite",
                            pkm_model_body(s->m, b)->name);
    s->load_body[slot] = b;
    memcpy(s->load[slot], f, 3 * sizeof(double));
    memcpy(s->load[slot] + 3, n, 3 * sizeof(double));
    memcpy(s->load[slot] + 6, x, 3 * sizeof(double));
    return PKM_OK;
}

pkm_status pkm_mbs_set_preload(pkm_mbs *s, const double *p, pkm_ctx *ctx)
{
    if (p == NULL) {
        free(s->preload);
        s->preload = NULL;
        return PKM_OK;
    }
    for (int a = 0; a < s->na; a++)
        if (!isfinite(p[a]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "preload %d: %g is not finite", a + 1, p[a]);
    if (s->preload == NULL) s->preload = malloc(sizeof(double) * ((size_t)s->na + 1));
    if (s->preload == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the preload");
    memcpy(s->preload, p, sizeof(double) * (size_t)s->na);
    return PKM_OK;
}

/* The loads of pkm_mbs_set_load taken from the wrenches the bodies need: carried as gravity is,
 * each force at its point moving with the body, its moment about the global origin. */
static void subtract_loads(pkm_mbs *s)
{
    for (int k = 0; k < PKM_MBS_LOADS; k++) {
        if (s->load_body[k] < 0) continue;
        const int f = s->body_frame[s->load_body[k]];
        const double *F = s->load[k], *N = s->load[k] + 3;
        double x[3], xf[3];
        pkm_mat3_apply(PKM_CONST33(s->fr[f].R), s->load[k] + 6, x);
        pkm_vec3_axpy(1.0, s->fr[f].p, x);
        pkm_vec3_cross(x, F, xf);
        for (int i = 0; i < 3; i++) {
            s->fr[f].f[i] -= F[i];
            s->fr[f].f[3 + i] -= N[i] + xf[i];
        }
    }
}

void mbs_rnea(pkm_mbs *s, int gravity)
{
    for (int i = 0; i < s->nf; i++)
        memset(s->fr[i].f, 0, sizeof(s->fr[i].f));
    for (int b = 0; b < s->nb; b++) {
        const int f = s->body_frame[b];
        if (f < 0) continue;
        double I[6][6], a[6], h[6], IV[6], vx[6];
        mbs_body_inertia(s, b, I);
        memcpy(a, s->fr[f].A, sizeof(a));
        /* Gravity as the base's acceleration -g (Featherstone 2008, sec. 5.3). */
        for (int k = 0; k < 3 && gravity; k++)
            a[k] -= s->g[k];
        for (int i = 0; i < 6; i++) {
            h[i] = IV[i] = 0.0;
            for (int j = 0; j < 6; j++) {
                h[i] += I[i][j] * a[j];
                IV[i] += I[i][j] * s->fr[f].V[j];
            }
        }
        wrench_cross(s->fr[f].V, IV, vx);
        for (int k = 0; k < 6; k++)
            s->fr[f].f[k] += h[k] + vx[k];
    }
    if (gravity) subtract_loads(s);
    mbs_rotor_wrenches(s);
    for (int i = s->nf - 1; i >= 0; i--)
        if (s->fr[i].parent >= 0)
            for (int k = 0; k < 6; k++)
                s->fr[s->fr[i].parent].f[k] += s->fr[i].f[k];
}

void pkm_mbs_energy(const pkm_mbs *s, double *T, double *V)
{
    *T = *V = 0.0;
    for (int b = 0; b < s->nb; b++) {
        const int f = s->body_frame[b];
        if (f < 0) continue;
        double I[6][6], c[3];
        mbs_body_inertia(s, b, I);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++)
                *T += 0.5 * s->fr[f].V[i] * I[i][j] * s->fr[f].V[j];
        pkm_mat3_apply(PKM_CONST33(s->fr[f].R), s->com0[b], c);
        pkm_vec3_axpy(1.0, s->fr[f].p, c);
        *V -= s->mass[b] * pkm_vec3_dot(s->g, c);
    }
    *T += mbs_rotor_energy(s);
}

void mbs_generalised(const pkm_mbs *s, double *g)
{
    for (int k = 0; k < s->nq; k++) {
        const mbs_frame *f = &s->fr[s->coord_frame[k]];
        g[k] = dot6(f->S, f->f);
    }
}
