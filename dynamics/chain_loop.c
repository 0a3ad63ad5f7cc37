/* dynamics/chain_loop.c: closed-form kinematics of the linearly actuated loop and the body
 * kinematics of every module in its base frame (Paz Anaya and Mattila 2024, sec. 2).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/chain_impl.h"

#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <string.h>

/* The parent of each body slot inside its module (-1: the base frame), in an order where
 * parents come first. */
static const int slot_parent[PKM_CHAIN_NBODY] = {-1, -1, PKM_CHAIN_MOVING, -1, PKM_CHAIN_BARREL};

static const double eye[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
static const double zero3[3] = {0, 0, 0}, zero6[6] = {0, 0, 0, 0, 0, 0};

/* Child twist from the parent's: v' = R^T (v + w x r), w' = R^T w (the transpose of the wrench
 * transform U = [R 0; [r]x R R]). */
void chain_twist_in(const double R[3][3], const double r[3], const double V[6], double out[6])
{
    double t[6];
    pkm_twist_transfer(V, r, t);
    pkm_mat3_apply_t(R, t, out);
    pkm_mat3_apply_t(R, t + 3, out + 3);
}

/* Parent wrench from the child's: F = R F', M = R M' + r x R F'. */
void chain_wrench_out(const double R[3][3], const double r[3], const double F[6], double out[6])
{
    double t[6], rxf[3];
    pkm_mat3_apply(R, F, t);
    pkm_mat3_apply(R, F + 3, t + 3);
    pkm_vec3_cross(r, t, rxf);
    for (int k = 0; k < 3; k++)
        out[k] = t[k], out[k + 3] = t[k + 3] + rxf[k];
}

/* U I U^T: the inertia seen from the parent (the columns of U I, then the rows). */
void chain_inertia_out(const double R[3][3], const double r[3], const double I[6][6],
                       double out[6][6])
{
    double col[6], ui[6][6], t[6][6];
    for (int j = 0; j < 6; j++) {
        for (int i = 0; i < 6; i++)
            col[i] = I[i][j];
        chain_wrench_out(R, r, col, col);
        for (int i = 0; i < 6; i++)
            ui[i][j] = col[i];
    }
    for (int j = 0; j < 6; j++) {
        chain_wrench_out(R, r, ui[j], col);
        for (int i = 0; i < 6; i++)
            t[i][j] = col[i];
    }
    memcpy(out, t, sizeof(t));
}

void chain_mul66(const double I[6][6], const double v[6], double out[6])
{
    double t[6];
    for (int i = 0; i < 6; i++)
        t[i] = chain_dot6(I[i], v);
    memcpy(out, t, sizeof(t));
}

double chain_dot6(const double a[6], const double b[6])
{
    double s = 0.0;
    for (int k = 0; k < 6; k++)
        s += a[k] * b[k];
    return s;
}

/* ad_V s = [w x s_v + v x s_w; w x s_w] (the motion cross product). */
static void motion_cross(const double V[6], const double s[6], double out[6])
{
    double a[3], b[3], w[3];
    pkm_vec3_cross(V + 3, s, a);
    pkm_vec3_cross(V, s + 3, b);
    pkm_vec3_cross(V + 3, s + 3, w);
    for (int k = 0; k < 3; k++)
        out[k] = a[k] + b[k], out[k + 3] = w[k];
}

/* p = -ad_V^T I V = [w x h_f; v x h_f + w x h_n], h = I V (the Euler-Poincare bias, the paper's
 * eqs. 11-12). */
static void bias_wrench(const double V[6], const double I[6][6], double p[6])
{
    double h[6], a[3], b[3], c[3];
    chain_mul66(I, V, h);
    pkm_vec3_cross(V + 3, h, a);
    pkm_vec3_cross(V, h, b);
    pkm_vec3_cross(V + 3, h + 3, c);
    for (int k = 0; k < 3; k++)
        p[k] = a[k], p[k + 3] = b[k] + c[k];
}

static void rot_z(double q, double R[3][3])
{
    const double c = cos(q), s = sin(q);
    const double T[3][3] = {{c, -s, 0.0}, {s, c, 0.0}, {0.0, 0.0, 1.0}};
    memcpy(R, T, sizeof(T));
}

static double clamp1(double v)
{
    return fmax(-1.0, fmin(1.0, v));
}

/* The paper's eqs. 2, 5 and 28 rebuilt: the law of cosines of the triangle (cylinder pivot, upper
 * pivot, rod pin), its time derivatives by implicit differentiation. */
pkm_status pkm_chain_loop_closure(const pkm_chain_module *m, double x, double xd, double eps,
                                  pkm_chain_loop_state *st, pkm_ctx *ctx)
{
    if (m->type != PKM_CHAIN_LOOP)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "module %s is not a loop", m->name);
    const double La = m->La, Lb = m->Lb, c = x + m->x0;
    if (!(isfinite(x) && isfinite(xd)))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "module %s: non-finite stroke or rate", m->name);
    if (!(c > fabs(La - Lb) && c < La + Lb))
        return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE,
                        "module %s: stroke %.9g m gives a cylinder length %.9g m outside "
                        "(%.9g, %.9g)",
                        m->name, x, c, fabs(La - Lb), La + Lb);
    const double q1 = m->sign[0] * acos(clamp1((c * c - La * La - Lb * Lb) / (2.0 * La * Lb)));
    const double q11 = m->sign[1] * acos(clamp1((La * La + c * c - Lb * Lb) / (2.0 * La * c)));
    const double q12 = m->sign[2] * acos(clamp1((Lb * Lb + c * c - La * La) / (2.0 * Lb * c)));
    /* sin q1 = 0 makes sin q11 and sin q12 vanish with it (collinear triangle). */
    const double s1 = sin(q1), s11 = sin(q11), s12 = sin(q12);
    if (!(fabs(s1) >= eps))
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "module %s: stroke %.9g m is within the singularity margin (|sin q1| = "
                        "%.3g < %.3g)",
                        m->name, x, fabs(s1), eps);
    const double a1 = -c / (La * Lb * s1);
    const double a11 = -(c - La * cos(q11)) / (c * La * s11);
    const double a12 = -(c - Lb * cos(q12)) / (c * Lb * s12);
    const double x2 = xd * xd, c3 = c * c * c;
    st->c = c;
    st->q[0] = q1, st->q[1] = q11, st->q[2] = q12;
    st->a[0] = a1, st->a[1] = a11, st->a[2] = a12;
    st->b[0] = (a1 / c - a1 * a1 * cos(q1) / s1) * x2;
    st->b[1] = -(a11 * a11 * cos(q11) + (La * La - Lb * Lb) / (La * c3)) * x2 / s11;
    st->b[2] = -(a12 * a12 * cos(q12) + (Lb * Lb - La * La) / (Lb * c3)) * x2 / s12;
    return PKM_OK;
}

/* The pose of every slot in its parent, the joint screw (0 none, 'z' revolute, 'x' prismatic),
 * the rate coefficient alpha and the acceleration bias beta of its joint (q_joint' = alpha q',
 * q_joint'' = alpha q'' + beta). */
typedef struct slot_joint {
    double R[PKM_CHAIN_NBODY][3][3], r[PKM_CHAIN_NBODY][3];
    char screw[PKM_CHAIN_NBODY];
    double alpha[PKM_CHAIN_NBODY], beta[PKM_CHAIN_NBODY];
} slot_joint;

static void pose_mul(const double Ra[3][3], const double ra[3], const double Rb[3][3],
                     const double rb[3], double R[3][3], double r[3])
{
    double t[3];
    pkm_mat3_apply(Ra, rb, t);
    pkm_vec3_axpy(1.0, ra, t);
    pkm_mat3_mul(Ra, Rb, R);
    memcpy(r, t, sizeof(t));
}

static void local_loop(const pkm_chain_module *d, const pkm_chain_loop_state *ls, slot_joint *j)
{
    const double pin[3] = {d->Lb, 0.0, 0.0};
    rot_z(ls->q[0], j->R[PKM_CHAIN_MOVING]);
    j->r[PKM_CHAIN_MOVING][0] = d->La;
    j->screw[PKM_CHAIN_MOVING] = 'z';
    j->alpha[PKM_CHAIN_MOVING] = ls->a[0], j->beta[PKM_CHAIN_MOVING] = ls->b[0];
    memcpy(j->R[PKM_CHAIN_END], d->end.R, sizeof(d->end.R));
    for (int k = 0; k < 3; k++)
        j->r[PKM_CHAIN_END][k] = pin[k] + d->end.r[k];
    rot_z(ls->q[1], j->R[PKM_CHAIN_BARREL]);
    j->screw[PKM_CHAIN_BARREL] = 'z';
    j->alpha[PKM_CHAIN_BARREL] = ls->a[1], j->beta[PKM_CHAIN_BARREL] = ls->b[1];
    j->r[PKM_CHAIN_ROD][0] = ls->c - d->lc;
    j->screw[PKM_CHAIN_ROD] = 'x';
    j->alpha[PKM_CHAIN_ROD] = 1.0;
}

static void local_serial(const pkm_chain_module *d, double q, slot_joint *j)
{
    double Rq[3][3], rq[3] = {0.0, 0.0, 0.0};
    rot_z(d->type == PKM_CHAIN_REVOLUTE ? q : 0.0, Rq); /* the identity for a prismatic joint */
    if (d->type == PKM_CHAIN_PRISMATIC) rq[0] = q;
    pose_mul(d->joint.R, d->joint.r, PKM_CONST33(Rq), rq, j->R[PKM_CHAIN_MOVING],
             j->r[PKM_CHAIN_MOVING]);
    j->screw[PKM_CHAIN_MOVING] = d->type == PKM_CHAIN_REVOLUTE ? 'z' : 'x';
    j->alpha[PKM_CHAIN_MOVING] = 1.0;
    memcpy(j->R[PKM_CHAIN_END], d->end.R, sizeof(d->end.R));
    memcpy(j->r[PKM_CHAIN_END], d->end.r, sizeof(d->end.r));
}

/* Pass 1 of Algorithm 1 for one module (the paper's eqs. 6, 9, 29-30 rebuilt as the compact form
 * of chain_impl.h): each body from its parent, S_k = X S_p + s alpha, V_k = X V_p + s alpha q',
 * c_k = X c_p + s beta + ad(V_k) s alpha q' (X = U^T of the body's pose in its parent). */
pkm_status chain_mod_kinematics(chain_mod *m, double q, double qd, const double V0[6], double eps,
                                pkm_ctx *ctx)
{
    slot_joint j;
    memset(&j, 0, sizeof(j));
    for (int k = 0; k < PKM_CHAIN_NBODY; k++)
        memcpy(j.R[k], eye, sizeof(eye));
    if (m->d.type == PKM_CHAIN_LOOP) {
        const pkm_status st = pkm_chain_loop_closure(&m->d, q, qd, eps, &m->ls, ctx);
        if (st != PKM_OK) return st;
        local_loop(&m->d, &m->ls, &j);
    } else
        local_serial(&m->d, q, &j);
    for (int k = 0; k < m->nbody; k++) {
        const int pa = slot_parent[k];
        const double(*Rl)[3] = PKM_CONST33(j.R[k]);
        pose_mul(pa < 0 ? eye : PKM_CONST33(m->R[pa]), pa < 0 ? zero3 : m->r[pa], Rl, j.r[k],
                 m->R[k], m->r[k]);
        chain_twist_in(Rl, j.r[k], pa < 0 ? zero6 : m->S[pa], m->S[k]);
        chain_twist_in(Rl, j.r[k], pa < 0 ? V0 : m->V[pa], m->V[k]);
        chain_twist_in(Rl, j.r[k], pa < 0 ? zero6 : m->c[pa], m->c[k]);
        if (j.screw[k] != 0) {
            double s[6] = {0, 0, 0, 0, 0, 0}, ad[6];
            s[j.screw[k] == 'z' ? 5 : 0] = 1.0;
            for (int i = 0; i < 6; i++) {
                m->S[k][i] += s[i] * j.alpha[k];
                m->V[k][i] += s[i] * j.alpha[k] * qd;
                m->c[k][i] += s[i] * j.beta[k];
            }
            motion_cross(m->V[k], s, ad);
            for (int i = 0; i < 6; i++)
                m->c[k][i] += ad[i] * j.alpha[k] * qd;
        }
        bias_wrench(m->V[k], CHAIN_C66(m->I[k]), m->p[k]);
    }
    return PKM_OK;
}
