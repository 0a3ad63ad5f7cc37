/* tests/test_dynamics_mast_exact.c: the chewing robot's surrogate (tests/mast_fixture.h,
 * pkm/mast.h, reference/mastref.h) against exact references (Cheng et al. 2024, tests T1, T2 and T8
 * of the surrogate): loop closure and contacts at 1000 random poses; the closures' Jacobians and
 * the pose map dX/dq_free against complex-step derivatives of an independent complex evaluation
 * (the plane contacts' closed form, the chains' closure); the power balance with the exact
 * d(T + V)/dt from dM/dq, pointwise and integrated over more than a period.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "mast_fixture.h"

#include <complex.h>

/* T1: 1000 pseudo-random free coordinates in the box of the default motion (X within 2 mm, Y
 * within 1 mm, alpha within 0.03 rad, beta within 0.15 rad), each solved from home: every
 * closure |h_i| <= 1e-9 mm^2 and contact |Phi| <= 1e-12 mm. */
static void test_random_poses(void **state)
{
    (void)state;
    pkm_mast m;
    mast_mechanism(1, &m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    unsigned seed = 12345u;
    double hmax = 0.0, pmax = 0.0;
    for (int k = 0; k < 1000; k++) {
        static const double half[MAST_NF] = {2.0, 1.0, 0.03, 0.15};
        double q[MAST_NF], zero[MAST_NF] = {0}, Phi[MAST_NC];
        for (int j = 0; j < MAST_NF; j++) {
            seed = seed * 1103515245u + 12345u;
            q[j] = half[j] * (2.0 * ((seed >> 8) & 0xffff) / 65535.0 - 1.0);
        }
        pkm_mast_state s = {0};
        assert_pkm_ok(pkm_mast_kinematics(&m, 0.0, q, zero, zero, &s, &ctx), &ctx);
        for (int i = 0; i < MAST_NCHAIN; i++)
            hmax = fmax(hmax, fabs(pkm_rss_closure(&m.chain[i], s.X, s.th[i], NULL, NULL)));
        pkm_contact_residual(MAST_NC, m.contact, s.X, Phi, NULL, NULL);
        pmax = fmax(pmax, fmax(fabs(Phi[0]), fabs(Phi[1])));
    }
    print_message("1000 random poses: |h_i| <= %.2e mm^2, |Phi| <= %.2e mm\n", hmax, pmax);
    assert_true(hmax <= 1e-9);
    assert_true(pmax <= 1e-12);
}

/* R_x(a) R_y(b) R_z(c) in complex arithmetic. */
static void crot(double complex a, double complex b, double complex c, double complex R[3][3])
{
    const double complex ca = ccos(a), sa = csin(a), cb = ccos(b), sb = csin(b), cc = ccos(c),
                         sc = csin(c);
    const double complex T[3][3] = {{cb * cc, -cb * sc, sb},
                                    {ca * sc + sa * sb * cc, ca * cc - sa * sb * sc, -sa * cb},
                                    {sa * sc - ca * sb * cc, sa * cc + ca * sb * sc, ca * cb}};
    memcpy(R, T, sizeof(T));
}

/* The whole pose of the target from its free coordinates q = (X, Y, alpha, beta) by the plane
 * contacts' closed form (both condyles on Z = p1 X + p2): gamma = atan(-s_a / (c_a s_b + p1 c_b)),
 * Z = p1 (X + a c_b c_g + c s_b) + p2 - a (s_a s_g - c_a s_b c_g) - c c_a c_b, (a, c) the
 * condyle's body x and z. */
static void cpose(const double complex q[MAST_NF], double complex X[PKM_POSE_DOF])
{
    const double a = -70.0, c = 30.0, p1 = mast_p1, p2 = mast_p2;
    const double complex ca = ccos(q[2]), sa = csin(q[2]), cb = ccos(q[3]), sb = csin(q[3]);
    const double complex g = catan(-sa / (ca * sb + p1 * cb)), cg = ccos(g), sg = csin(g);
    X[0] = q[0], X[1] = q[1], X[3] = q[2], X[4] = q[3], X[5] = g;
    X[2] = p1 * (q[0] + a * cb * cg + c * sb) + p2 - a * (sa * sg - ca * sb * cg) - c * ca * cb;
}

/* h = |M - S|^2 - L^2 of chain c (no conjugation: analytic in every argument). */
static double complex cclosure(const pkm_rss *c, const double complex X[PKM_POSE_DOF],
                               double complex th)
{
    double complex R[3][3], h = -c->L * c->L;
    crot(X[3], X[4], X[5], R);
    for (int d = 0; d < 3; d++) {
        double complex M = X[d],
                       S = c->G[d] + c->R0[d][0] * c->r * ccos(th) + c->R0[d][1] * c->r * csin(th);
        for (int k = 0; k < 3; k++)
            M += R[d][k] * c->M[k];
        h += (M - S) * (M - S);
    }
    return h;
}

/* T2: J_theta, J_q and, for the target, dX/dq_free (its parasitic rows) against complex-step
 * derivatives (step 1e-30 i: no cancellation) at 10 times of the period: 1e-13 relative. */
static void test_complex_step(void **state)
{
    (void)state;
    const double eps = 1e-30;
    double worst[2] = {0}, wmj = 0.0;
    for (int twin = 0; twin < 2; twin++) {
        pkm_mast m;
        mast_mechanism(!twin, &m);
        for (int it = 0; it < 10; it++) {
            pkm_ctx ctx;
            pkm_ctx_clear(&ctx);
            pkm_mast_state s, sw;
            assert_pkm_ok(mast_states_at(0.03 + 0.1 * it, &s, &sw, &ctx), &ctx);
            const pkm_mast_state *st = twin ? &sw : &s;
            const int nf = st->nfree;
            double Jth[MAST_NCHAIN], Jq[MAST_NCHAIN * PKM_POSE_DOF];
            pkm_mast_closure_derivatives(&m, st, Jth, Jq, NULL);
            for (int k = -1; k < nf; k++) { /* k = -1: the crank angles */
                double complex q[PKM_POSE_DOF], X[PKM_POSE_DOF];
                for (int j = 0; j < nf; j++)
                    q[j] = st->X[st->free[j]] + (j == k ? eps * I : 0.0);
                if (twin)
                    memcpy(X, q, sizeof(X));
                else
                    cpose(q, X);
                for (int a = 0; k >= 0 && !twin && a < PKM_POSE_DOF; a++)
                    wmj = fmax(wmj, fabs(cimag(X[a]) / eps - st->mj[a * nf + k]) /
                                        fmax(1.0, fabs(st->mj[a * nf + k])));
                for (int i = 0; i < MAST_NCHAIN; i++) {
                    const double complex th = st->th[i] + (k < 0 ? eps * I : 0.0);
                    const double d = cimag(cclosure(&m.chain[i], X, th)) / eps,
                                 ref = k < 0 ? Jth[i] : Jq[i * nf + k];
                    double scale = fabs(Jth[i]); /* the row's largest entry */
                    for (int j = 0; j < nf; j++)
                        scale = fmax(scale, fabs(Jq[i * nf + j]));
                    worst[twin] = fmax(worst[twin], fabs(d - ref) / scale);
                }
            }
        }
    }
    print_message("complex step: J_H %.2e (target), %.2e (twin); dX/dq_free %.2e\n", worst[0],
                  worst[1], wmj);
    assert_true(worst[0] <= 1e-13 && worst[1] <= 1e-13);
    assert_true(wmj <= 1e-13);
}

/* The kinetic and potential energy and its exact rate: d(T + V)/dt = q'^T M q'' + q'^T M' q' / 2
 * + dV/dt, M' = sum_k dM/dq_k q_k', dV/dt from the velocities of the body's origin and of the
 * couplers' centres. */
static double energy(const pkm_mast *m, const pkm_mast_state *s, double *rate)
{
    enum { N = MAST_NCHAIN + PKM_POSE_DOF };
    static double dM[N * N * N];
    const int nch = m->nchain, nf = s->nfree, n = nch + nf;
    double M[N * N], qd[N], qdd[N], T = 0.0, r = 0.0;
    for (int i = 0; i < nch; i++)
        qd[i] = s->thd[i], qdd[i] = s->thdd[i];
    for (int j = 0; j < nf; j++)
        qd[nch + j] = s->Xd[s->free[j]], qdd[nch + j] = s->Xdd[s->free[j]];
    pkm_mast_mass_matrix(m, s, M);
    pkm_mast_mass_derivative(m, s, dM);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            double md = 0.0;
            for (int k = 0; k < n; k++)
                md += dM[(k * n + a) * n + b] * qd[k];
            T += 0.5 * qd[a] * M[a * n + b] * qd[b];
            r += qd[a] * M[a * n + b] * qdd[b] + 0.5 * qd[a] * md * qd[b];
        }
    double v[3] = {0};
    for (int d = 0; d < 3; d++)
        v[d] = m->mass * s->Xd[d];
    for (int i = 0; i < nch; i++) {
        const pkm_rss *c = &m->chain[i];
        double P[3][PKM_POSE_DOF];
        pkm_pose_point_jacobian(s->X, c->M, P);
        for (int d = 0; d < 3; d++) {
            double vm = 0.0;
            for (int a = 0; a < PKM_POSE_DOF; a++)
                vm += P[d][a] * s->Xd[a];
            const double vs =
                c->r * (-c->R0[d][0] * sin(s->th[i]) + c->R0[d][1] * cos(s->th[i])) * s->thd[i];
            v[d] += 0.5 * m->coupler_mass[i] * (vs + vm);
        }
    }
    *rate = r - pkm_vec3_dot(m->gravity, v);
    return T + pkm_mast_potential(m, s);
}

/* The power of the torques and of the bite load on the body. */
static double power(const pkm_mast_state *s, const pkm_mast_forces *f)
{
    double P[3][PKM_POSE_DOF], p = 0.0;
    pkm_pose_point_jacobian(s->X, mast_bite.point, P);
    for (int i = 0; i < MAST_NCHAIN; i++)
        p += f->tau[i] * s->thd[i];
    for (int d = 0; d < 3; d++)
        for (int a = 0; a < PKM_POSE_DOF; a++)
            p += mast_bite.force[d] * P[d][a] * s->Xd[a];
    return p;
}

/* T8: tau . theta' + f_b . v_b = d(T + V)/dt exactly (dM/dq) at every sample, and its trapezoid
 * integral over 0..1.25 s (steps 0.25 ms: error ~ dt^2 / 12 |P''| ~ 1e-8) equals the energy's
 * change, target and twin: pointwise 1e-10 of the largest power, integral 1e-6 of the integral of
 * |P|. */
static void test_power_balance(void **state)
{
    (void)state;
    static mast_walk w;
    mast_walk_init(&w);
    const int n = 5000;
    const double dt = 1.25 / n;
    double E0[2], E1[2], integ[2] = {0}, absint[2] = {0}, prev[2] = {0}, point[2] = {0},
                         pmax[2] = {0};
    for (int k = 0; k <= n; k++) {
        assert_pkm_ok(mast_walk_to(&w, k * dt), &w.ctx);
        for (int twin = 0; twin < 2; twin++) {
            const pkm_mast *m = twin ? &w.tw : &w.tg;
            const pkm_mast_state *s = twin ? &w.sw : &w.s;
            pkm_mast_forces f;
            assert_pkm_ok(pkm_mast_inverse(m, s, &mast_bite, NULL, &f, &w.ctx), &w.ctx);
            double rate;
            const double E = energy(m, s, &rate), P = power(s, &f);
            pmax[twin] = fmax(pmax[twin], fabs(P));
            point[twin] = fmax(point[twin], fabs(P - rate));
            if (k == 0) E0[twin] = E;
            if (k == n) E1[twin] = E;
            if (k > 0) {
                integ[twin] += 0.5 * dt * (prev[twin] + P);
                absint[twin] += 0.5 * dt * (fabs(prev[twin]) + fabs(P));
            }
            prev[twin] = P;
        }
    }
    for (int twin = 0; twin < 2; twin++) {
        const double pw = point[twin] / pmax[twin],
                     in = fabs(integ[twin] - (E1[twin] - E0[twin])) / absint[twin];
        print_message("%s: power = d(T + V)/dt to %.2e; integral of P over 1.25 s = dE to %.2e\n",
                      twin ? "twin" : "target", pw, in);
        assert_true(pw <= 1e-10);
        assert_true(in <= 1e-6);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_poses),
        cmocka_unit_test(test_complex_step),
        cmocka_unit_test(test_power_balance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
