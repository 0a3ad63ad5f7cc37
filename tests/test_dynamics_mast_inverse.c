/* tests/test_dynamics_mast_inverse.c: the reference inverse dynamics of the chewing robot's
 * surrogate (tests/mast_fixture.h, reference/mastref.h) and of its 6-RSS twin: the torques at
 * t = 0.13 s against the 40-digit references; against Lagrange's equations of the first kind
 * built here from the library's mass matrix and the reference's potential by central differences
 * (time and coordinates); the power balance against an 8th-order time derivative of the energy;
 * the minimum-norm solution (Moore-Penrose conditions, normal equations, weights, preload); the
 * contact forces against the twin's equations with the contacts' multipliers; rank-deficient
 * actuation and an unreachable surface reported. The routes' agreement and the Newton-Euler
 * residual along the period: test_dynamics_mast_routes.c.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "mast_fixture.h"

enum { NQ = MAST_NCHAIN + MAST_NF };

/* The states of target and twin at t (tests/mast_fixture.h). */
static void states_at(double t, pkm_mast_state *s, pkm_mast_state *sw)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_mast_state w;
    assert_pkm_ok(mast_states_at(t, s, sw ? sw : &w, &ctx), &ctx);
}

/* The torques at t = 0.13 s of the target (8-digit references) and of the twin (12-digit
 * references: it replays the target's pose, Z and gamma included), in N m. */
static void test_golden_torques(void **state)
{
    (void)state;
    static const double ref[2][MAST_NCHAIN] = {
        {0.31990664, -0.06216404, 0.25763482, -0.14900497, 0.062543973, -0.071280529},
        {2.14946029955, -1.7046540838, -1.73837380895, 1.56801350526, 0.770120679151,
         -0.610568900519}};
    pkm_mast tg, tw;
    mast_mechanism(1, &tg), mast_mechanism(0, &tw);
    pkm_mast_state s, sw;
    states_at(0.13, &s, &sw);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double worst[2] = {0};
    for (int twin = 0; twin < 2; twin++) {
        pkm_mast_forces f;
        assert_pkm_ok(
            pkm_mast_inverse(twin ? &tw : &tg, twin ? &sw : &s, &mast_bite, NULL, &f, &ctx), &ctx);
        for (int i = 0; i < MAST_NCHAIN; i++) {
            const double tau = f.tau[i] * 1e-9; /* g mm^2 / s^2 = 1e-9 N m */
            worst[twin] = fmax(worst[twin], fabs(tau / ref[twin][i] - 1.0));
            /* the references' last digit: 5e-9 (target), 5e-12 (twin) absolute */
            assert_close(tau, ref[twin][i], 0.0, twin ? 5e-12 : 5e-9);
        }
    }
    print_message("torques at 0.13 s: worst relative error %.2e (target, 8 digits), %.2e (twin, "
                  "12 digits)\n",
                  worst[0], worst[1]);
}

/* A state at the free coordinates and crank angles of q, not closed (q independent, as the
 * first-kind equations take it), with its mass matrix and potential. */
static double energy_parts(const pkm_mast *m, const pkm_mast_state *s0, const double q[NQ],
                           double *M)
{
    pkm_mast_state s = *s0;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double zero[MAST_NF] = {0};
    assert_pkm_ok(pkm_mast_kinematics(m, s.t, q + MAST_NCHAIN, zero, zero, &s, &ctx), &ctx);
    memcpy(s.th, q, sizeof(double) * MAST_NCHAIN);
    pkm_mast_mass_matrix(m, &s, M);
    return pkm_mast_potential(m, &s);
}

/* q = (theta, free) and qd of a state. */
static void coords(const pkm_mast_state *s, double q[NQ], double qd[NQ])
{
    for (int i = 0; i < MAST_NCHAIN; i++)
        q[i] = s->th[i], qd[i] = s->thd[i];
    for (int j = 0; j < MAST_NF; j++)
        q[MAST_NCHAIN + j] = s->X[s->free[j]], qd[MAST_NCHAIN + j] = s->Xd[s->free[j]];
}

/* Lagrange's equations of the first kind (Cheng et al. 2024, eqs. 55-57, rebuilt):
 * Q = d/dt(M qd) - dT/dq + dV/dq by central differences in time and in the coordinates, then
 * the reduced right-hand side J3^T Q - F_EE, against the library's (virtual power) at 10 times
 * of the period, and the torques. */
static void test_first_kind(void **state)
{
    (void)state;
    pkm_mast m;
    mast_mechanism(1, &m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double worst = 0.0, worst_tau = 0.0;
    for (int k = 0; k < 10; k++) {
        const double t = 0.013 + 0.1 * k, h = 1e-5, hq = 1e-6;
        pkm_mast_state s;
        states_at(t, &s, NULL);
        double q[NQ], qd[NQ], Q[NQ] = {0}, M[NQ * NQ];
        coords(&s, q, qd);
        for (int sg = -1; sg <= 1; sg += 2) { /* d/dt (M qd) */
            pkm_mast_state ss = s;
            double qs[NQ], qds[NQ];
            assert_pkm_ok(mast_state_at(&m, t + sg * h, &ss, &ctx), &ctx);
            coords(&ss, qs, qds);
            energy_parts(&m, &ss, qs, M);
            for (int a = 0; a < NQ; a++)
                for (int b = 0; b < NQ; b++)
                    Q[a] += sg * M[a * NQ + b] * qds[b] / (2.0 * h);
        }
        for (int a = 0; a < NQ; a++) /* -dT/dq + dV/dq at qd held */
            for (int sg = -1; sg <= 1; sg += 2) {
                double qs[NQ], T = 0.0;
                memcpy(qs, q, sizeof(q));
                qs[a] += sg * hq;
                const double V = energy_parts(&m, &s, qs, M);
                for (int b = 0; b < NQ; b++)
                    for (int c = 0; c < NQ; c++)
                        T += 0.5 * qd[b] * M[b * NQ + c] * qd[c];
                Q[a] += sg * (V - T) / (2.0 * hq);
            }
        pkm_mast_forces f;
        assert_pkm_ok(pkm_mast_inverse(&m, &s, &mast_bite, NULL, &f, &ctx), &ctx);
        double Jb[3][PKM_POSE_DOF], scale = 0.0, err = 0.0;
        pkm_pose_point_jacobian(s.X, mast_bite.point, Jb);
        for (int j = 0; j < MAST_NF; j++) {
            double rhs = Q[MAST_NCHAIN + j];
            for (int i = 0; i < MAST_NCHAIN; i++)
                rhs += s.J1[i * MAST_NF + j] * Q[i];
            for (int d = 0; d < 3; d++)
                for (int c = 0; c < PKM_POSE_DOF; c++)
                    rhs -= mast_bite.force[d] * Jb[d][c] * s.mj[c * MAST_NF + j];
            scale = fmax(scale, fabs(rhs));
            err = fmax(err, fabs(rhs - f.generalised[j]));
        }
        worst = fmax(worst, err / scale);
        double tmax = 0.0;
        for (int i = 0; i < MAST_NCHAIN; i++)
            tmax = fmax(tmax, fabs(f.tau[i]));
        worst_tau = fmax(worst_tau, tmax);
    }
    /* central differences of steps 1e-5 s and 1e-6: measured 1.2e-11 */
    print_message("first kind (finite differences) vs virtual power: %.2e relative\n", worst);
    assert_true(worst <= 1e-9);
    assert_true(worst_tau > 0.0);
}

/* The contact normal forces against the twin's equations: at the target's motion the twin's
 * generalised force less the target's torques through the twin's J1 is the contacts' load
 * dPhi^T mu, mu = contact force / |grad sigma| (the multipliers of Lagrange's first kind). */
static void test_contact_forces(void **state)
{
    (void)state;
    pkm_mast tg, tw;
    mast_mechanism(1, &tg), mast_mechanism(0, &tw);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int k = 0; k < 5; k++) {
        pkm_mast_state s, sw;
        states_at(0.07 + 0.2 * k, &s, &sw);
        pkm_mast_forces f, fw;
        assert_pkm_ok(pkm_mast_inverse(&tg, &s, &mast_bite, NULL, &f, &ctx), &ctx);
        assert_pkm_ok(pkm_mast_inverse(&tw, &sw, &mast_bite, NULL, &fw, &ctx), &ctx);
        double Phi[MAST_NC], dPhi[MAST_NC * PKM_POSE_DOF], mu[MAST_NC], scale = 0.0;
        pkm_contact_residual(MAST_NC, tg.contact, s.X, Phi, dPhi, NULL);
        for (int c = 0; c < MAST_NC; c++) {
            double x[3], g[3], P[3][PKM_POSE_DOF];
            pkm_pose_point_jacobian(s.X, tg.contact[c].point, P);
            double R[3][3], w[3];
            pkm_pose_rotation(s.X, R);
            pkm_mat3_apply(PKM_CONST33(R), tg.contact[c].point, w);
            for (int d = 0; d < 3; d++)
                x[d] = s.X[d] + w[d];
            pkm_surface_eval(&tg.contact[c].surface, x, NULL, g, NULL);
            mu[c] = f.contact[c] / pkm_vec3_norm(g);
            assert_true(fabs(f.contact[c]) > 1e5); /* g mm / s^2: above 0.1 N */
        }
        double r[PKM_POSE_DOF];
        for (int a = 0; a < PKM_POSE_DOF; a++) {
            r[a] = fw.generalised[a];
            for (int i = 0; i < MAST_NCHAIN; i++)
                r[a] -= sw.J1[i * PKM_POSE_DOF + a] * f.tau[i];
            scale = fmax(scale, fabs(fw.generalised[a]));
        }
        for (int a = 0; a < PKM_POSE_DOF; a++) {
            double load = 0.0;
            for (int c = 0; c < MAST_NC; c++)
                load += dPhi[c * PKM_POSE_DOF + a] * mu[c];
            assert_close(r[a], load, 0.0, 1e-11 * scale);
        }
    }
}

/* T = qd^T M qd / 2 + V at state s. */
static double energy(const pkm_mast *m, const pkm_mast_state *s)
{
    double qd[PKM_MAST_MAX_Q], M[PKM_MAST_MAX_Q * PKM_MAST_MAX_Q], T = 0.0;
    const int n = m->nchain + s->nfree;
    for (int i = 0; i < m->nchain; i++)
        qd[i] = s->thd[i];
    for (int j = 0; j < s->nfree; j++)
        qd[m->nchain + j] = s->Xd[s->free[j]];
    pkm_mast_mass_matrix(m, s, M);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            T += 0.5 * qd[a] * M[a * n + b] * qd[b];
    return T + pkm_mast_potential(m, s);
}

/* tau . theta' + f_b . v_b = d(T + V)/dt at 20 times of the period (target and twin), the
 * derivative by 8th-order central differences of step 2 ms (truncation about 1e-14). */
static void test_power(void **state)
{
    (void)state;
    static const double c8[4] = {4.0 / 5.0, -1.0 / 5.0, 4.0 / 105.0, -1.0 / 280.0};
    pkm_mast tg, tw;
    mast_mechanism(1, &tg), mast_mechanism(0, &tw);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double h = 2e-3;
    double worst = 0.0;
    for (int k = 0; k < 20; k++) {
        pkm_mast_state s, sw;
        states_at(0.05 * k + 0.011, &s, &sw);
        for (int twin = 0; twin < 2; twin++) {
            const pkm_mast *m = twin ? &tw : &tg;
            const pkm_mast_state *st = twin ? &sw : &s;
            pkm_mast_forces f;
            assert_pkm_ok(pkm_mast_inverse(m, st, &mast_bite, NULL, &f, &ctx), &ctx);
            double P = 0.0, scale = 0.0, dE = 0.0, R[3][3], w[3], vb[3];
            for (int i = 0; i < MAST_NCHAIN; i++) {
                P += f.tau[i] * st->thd[i];
                scale = fmax(scale, fabs(f.tau[i] * st->thd[i]));
            }
            pkm_pose_rotation(st->X, R);
            pkm_mat3_apply(PKM_CONST33(R), mast_bite.point, w);
            double E[3][3], om[3];
            pkm_pose_angular_jacobian(st->X, E);
            pkm_mat3_apply(PKM_CONST33(E), st->Xd + 3, om);
            pkm_vec3_cross(om, w, vb);
            for (int d = 0; d < 3; d++)
                P += mast_bite.force[d] * (st->Xd[d] + vb[d]);
            for (int j = 1; j <= 4; j++)
                for (int sg = -1; sg <= 1; sg += 2) {
                    pkm_mast_state a = s, aw;
                    assert_pkm_ok(mast_state_at(&tg, s.t + sg * j * h, &a, &ctx), &ctx);
                    if (twin) assert_pkm_ok(mast_twin_at(&tw, &a, &aw, &ctx), &ctx);
                    dE += sg * c8[j - 1] * energy(m, twin ? &aw : &a) / h;
                }
            worst = fmax(worst, fabs(P - dE) / scale);
        }
    }
    print_message("power balance: %.2e of the largest actuator power\n", worst);
    assert_true(worst <= 1e-10);
}

/* The minimum-norm torques at 0.13 s: J1^T tau = the generalised force; the four Moore-Penrose
 * conditions of A = J1^T with A^+ the map rhs -> tau (its columns: unit right-hand sides); the
 * normal-equation form J1 (J1^T J1)^-1 rhs; a preload adds only a null-space part (same
 * J1^T tau, larger norm); weights give W tau in the range of J1 (the optimality condition). */
static void test_min_norm(void **state)
{
    (void)state;
    enum { N = MAST_NCHAIN, F = MAST_NF };
    pkm_mast m;
    mast_mechanism(1, &m);
    pkm_mast_state s;
    states_at(0.13, &s, NULL);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_mast_forces f;
    assert_pkm_ok(pkm_mast_inverse(&m, &s, &mast_bite, NULL, &f, &ctx), &ctx);
    double tmax = 0.0, J1[N * F], P[N * F]; /* P = A^+, column j = tau for rhs e_j */
    memcpy(J1, s.J1, sizeof(J1));
    for (int i = 0; i < N; i++)
        tmax = fmax(tmax, fabs(f.tau[i]));
    for (int j = 0; j < F; j++) {
        double r = 0.0;
        for (int i = 0; i < N; i++)
            r += J1[i * F + j] * f.tau[i];
        assert_close(r, f.generalised[j], 0.0, 1e-12 * tmax * 100.0);
    }
    /* A^+ = J1 (J1^T J1)^-1 by the normal equations (the paper's form), against the QR torques */
    double G[F * F] = {0}, Gi[F * F];
    for (int a = 0; a < F; a++)
        for (int b = 0; b < F; b++)
            for (int i = 0; i < N; i++)
                G[a * F + b] += J1[i * F + a] * J1[i * F + b];
    for (int c = 0; c < F; c++) { /* Gi = G^-1 by Gauss-Jordan on a copy */
        double A[F * F], e[F] = {0};
        memcpy(A, G, sizeof(A));
        e[c] = 1.0;
        for (int p = 0; p < F; p++)
            for (int r = 0; r < F; r++) {
                if (r == p) continue;
                const double l = A[r * F + p] / A[p * F + p];
                for (int k = 0; k < F; k++)
                    A[r * F + k] -= l * A[p * F + k];
                e[r] -= l * e[p];
            }
        for (int r = 0; r < F; r++)
            Gi[r * F + c] = e[r] / A[r * F + r];
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < F; j++) {
            P[i * F + j] = 0.0;
            for (int k = 0; k < F; k++)
                P[i * F + j] += J1[i * F + k] * Gi[k * F + j];
        }
    double err = 0.0;
    for (int i = 0; i < N; i++) { /* the QR torques = the normal-equation ones */
        double t = 0.0;
        for (int j = 0; j < F; j++)
            t += P[i * F + j] * f.generalised[j];
        err = fmax(err, fabs(t - f.tau[i]) / tmax);
    }
    /* Moore-Penrose with A = J1^T (F x N), A^+ = P (N x F): A P A = A, P A P = P, A P and P A
     * symmetric */
    double AP[F * F] = {0}, PA[N * N] = {0};
    for (int a = 0; a < F; a++)
        for (int b = 0; b < F; b++)
            for (int i = 0; i < N; i++)
                AP[a * F + b] += J1[i * F + a] * P[i * F + b];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < N; k++)
            for (int a = 0; a < F; a++)
                PA[i * N + k] += P[i * F + a] * J1[k * F + a];
    for (int a = 0; a < F; a++)
        for (int i = 0; i < N; i++) {
            double apa = 0.0, pap = 0.0;
            for (int b = 0; b < F; b++)
                apa += AP[a * F + b] * J1[i * F + b];
            for (int k = 0; k < N; k++)
                pap += PA[i * N + k] * P[k * F + a];
            err = fmax(err, fmax(fabs(apa - J1[i * F + a]), fabs(pap - P[i * F + a])));
        }
    for (int a = 0; a < F; a++)
        for (int b = 0; b < F; b++)
            err = fmax(err, fabs(AP[a * F + b] - AP[b * F + a]));
    for (int i = 0; i < N; i++)
        for (int k = 0; k < N; k++)
            err = fmax(err, fabs(PA[i * N + k] - PA[k * N + i]));
    print_message("QR = normal equations, Moore-Penrose conditions: %.2e\n", err);
    assert_true(err <= 1e-12);
    /* preload: same drive of the free coordinates, a larger norm */
    const double pre[N] = {1e8, -2e8, 3e8, 0.0, 5e7, -1e8};
    pkm_mast_inverse_opts o = {.preload = pre};
    pkm_mast_forces fp;
    assert_pkm_ok(pkm_mast_inverse(&m, &s, &mast_bite, &o, &fp, &ctx), &ctx);
    double n0 = 0.0, n1 = 0.0, moved = 0.0;
    for (int i = 0; i < N; i++)
        n0 += f.tau[i] * f.tau[i], n1 += fp.tau[i] * fp.tau[i],
            moved = fmax(moved, fabs(fp.tau[i] - f.tau[i]));
    assert_true(n1 > n0 && moved > 1e7);
    assert_true(fp.residual <= 1e-12); /* every body still balanced */
    for (int j = 0; j < F; j++) {
        double r = 0.0;
        for (int i = 0; i < N; i++)
            r += J1[i * F + j] * fp.tau[i];
        assert_close(r, f.generalised[j], 0.0, 1e-11 * tmax);
    }
    /* weights: W tau = J1 c for some c, i.e. W tau orthogonal to null(J1^T) = ker(P A) */
    const double w[N] = {1.0, 4.0, 0.5, 2.0, 9.0, 1.5};
    pkm_mast_inverse_opts ow = {.weight = w};
    pkm_mast_forces fw;
    assert_pkm_ok(pkm_mast_inverse(&m, &s, &mast_bite, &ow, &fw, &ctx), &ctx);
    double Wt[N], wmax = 0.0;
    for (int i = 0; i < N; i++)
        Wt[i] = w[i] * fw.tau[i], wmax = fmax(wmax, fabs(Wt[i]));
    for (int i = 0; i < N; i++) { /* (I - P A) W tau = 0 */
        double r = Wt[i];
        for (int k = 0; k < N; k++)
            r -= PA[i * N + k] * Wt[k];
        assert_true(fabs(r) <= 1e-12 * wmax);
    }
    assert_true(fabs(fw.tau[4] - f.tau[4]) > 1e-3 * tmax); /* the weights do change it */
    const double bad[N] = {1.0, 1.0, 0.0, 1.0, 1.0, 1.0};
    ow.weight = bad;
    assert_int_equal(pkm_mast_inverse(&m, &s, &mast_bite, &ow, &fw, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "chain theta3"));
}

/* Six copies of chain 1 cannot drive four free coordinates (J1 of rank 1): reported, not
 * solved; two chains are fewer than the free coordinates. A pose whose condyles cannot reach
 * their plane (a surface pushed out of reach) stops Newton naming the contact and the time. */
static void test_bad_input(void **state)
{
    (void)state;
    pkm_mast m;
    mast_mechanism(1, &m);
    for (int i = 1; i < MAST_NCHAIN; i++) {
        m.chain[i] = m.chain[0];
        m.crank_inertia[i] = m.crank_inertia[0], m.coupler_mass[i] = m.coupler_mass[0];
    }
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_mast_state s = {0};
    assert_pkm_ok(mast_state_at(&m, 0.13, &s, &ctx), &ctx);
    pkm_mast_forces f;
    assert_int_equal(pkm_mast_inverse(&m, &s, &mast_bite, NULL, &f, &ctx), PKM_ERR_SINGULAR);
    assert_non_null(strstr(ctx.msg, "rank-deficient at t = 0.13"));
    m.nchain = 2;
    assert_int_equal(pkm_mast_inverse(&m, &s, &mast_bite, NULL, &f, &ctx), PKM_ERR_SINGULAR);
    /* a quadric the right condyle cannot touch: x^2 + y^2 + z^2 + 1 = 0 */
    mast_mechanism(1, &m);
    memset(&m.contact[1].surface, 0, sizeof(pkm_surface));
    m.contact[1].surface.kind = PKM_SURFACE_QUADRIC;
    for (int k = 0; k < 3; k++)
        m.contact[1].surface.a[k][k] = 1.0;
    m.contact[1].surface.c = 1.0;
    memset(&s, 0, sizeof(s));
    pkm_ctx_clear(&ctx);
    const pkm_status rc = mast_state_at(&m, 0.25, &s, &ctx);
    assert_true(rc == PKM_ERR_UNREACHABLE || rc == PKM_ERR_SINGULAR);
    assert_non_null(strstr(ctx.msg, "t = 0.25"));
    if (rc == PKM_ERR_UNREACHABLE) assert_non_null(strstr(ctx.msg, "condyle_R"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_torques), cmocka_unit_test(test_first_kind),
        cmocka_unit_test(test_contact_forces), cmocka_unit_test(test_power),
        cmocka_unit_test(test_min_norm),       cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
