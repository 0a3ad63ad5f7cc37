/* tests/test_dynamics_mast_routes.c: the chewing robot's second-order kinematics and its four
 * inverse-dynamics routes (reference/mastref.h; Cheng et al. 2024, tests T3-T7 of the surrogate,
 * tests/mast_fixture.h), on the target (two higher pairs) and its 6-RSS twin: the closures'
 * Hessians against central differences of their Jacobians; J-dot by the Hessian and by the
 * partial-derivative contractions against each other and against time differences of J; theta''
 * from J2; dM/dq against differences of M; the three Coriolis matrices on q' and the skew
 * symmetry of M' - 2 C; the routes' torques and multipliers along the whole trajectory.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "mast_fixture.h"

enum { NQT = MAST_NCHAIN + PKM_POSE_DOF }; /* the twin's q, the larger */

/* The state of the target (twin = 0) or of the twin (1) at t (tests/mast_fixture.h). */
static void state_at(int twin, double t, pkm_mast_state *s)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_mast_state st;
    assert_pkm_ok(mast_states_at(t, &st, s, &ctx), &ctx);
    if (!twin) *s = st;
}

/* The state s moved to the free coordinates qf (rates zero), its crank angles kept: q taken
 * independent, as the partial derivatives take it. */
static void moved(const pkm_mast *m, const pkm_mast_state *s, const double *qf, pkm_mast_state *out)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double zero[PKM_POSE_DOF] = {0};
    *out = *s;
    assert_pkm_ok(pkm_mast_kinematics(m, s->t, qf, zero, zero, out, &ctx), &ctx);
    memcpy(out->th, s->th, sizeof(s->th));
}

/* q_k perturbed by h (k < nch: a crank angle; else a free coordinate). */
static void perturbed(const pkm_mast *m, const pkm_mast_state *s, int k, double h,
                      pkm_mast_state *out)
{
    double qf[PKM_POSE_DOF];
    for (int j = 0; j < s->nfree; j++)
        qf[j] = s->X[s->free[j]];
    if (k >= m->nchain) qf[k - m->nchain] += h;
    moved(m, s, qf, out);
    if (k < m->nchain) out->th[k] += h;
}

/* Worst errors of one check at one state, folded into w[0..nw). */
typedef void mast_check(const pkm_mast *m, const pkm_mast_state *s, double *w);

/* The check at four times (t0, t0 + dt, ...) on the target and on the twin. */
static void each_state(double t0, double dt, mast_check *check, double *w)
{
    for (int twin = 0; twin < 2; twin++) {
        pkm_mast m;
        mast_mechanism(!twin, &m);
        for (int it = 0; it < 4; it++) {
            pkm_mast_state s;
            state_at(twin, t0 + dt * it, &s);
            check(&m, &s, w);
        }
    }
}

/* The step of the central differences in q_k: 1e-6 rad or 1e-4 mm (times `scale`). */
static double step(const pkm_mast *m, const pkm_mast_state *s, int k, double scale)
{
    return scale * (k < m->nchain || s->free[k - m->nchain] >= 3 ? 1e-6 : 1e-4);
}

/* w[0]: H_i against central differences of J_H, w[1]: H_i's asymmetry (relative to |H_i|). */
static void hessian_errors(const pkm_mast *m, const pkm_mast_state *s, double *w)
{
    const int nch = m->nchain, nf = s->nfree, n = nch + nf;
    double Jth[2][MAST_NCHAIN], Jq[2][MAST_NCHAIN * PKM_POSE_DOF], J0[MAST_NCHAIN];
    double Jq0[MAST_NCHAIN * PKM_POSE_DOF], H[MAST_NCHAIN * NQT * NQT];
    pkm_mast_closure_derivatives(m, s, J0, Jq0, H);
    for (int k = 0; k < n; k++) {
        const double h = step(m, s, k, 1.0);
        pkm_mast_state sp, sm;
        perturbed(m, s, k, h, &sp);
        perturbed(m, s, k, -h, &sm);
        pkm_mast_closure_derivatives(m, &sp, Jth[0], Jq[0], NULL);
        pkm_mast_closure_derivatives(m, &sm, Jth[1], Jq[1], NULL);
        for (int i = 0; i < nch; i++) {
            const double *Hi = H + i * n * n;
            double scale = 0.0;
            for (int a = 0; a < n * n; a++)
                scale = fmax(scale, fabs(Hi[a]));
            for (int a = 0; a < n; a++) { /* column a of row i of J_H, in q_k */
                const double fd =
                    a < nch ? (a == i ? (Jth[0][i] - Jth[1][i]) / (2.0 * h) : 0.0)
                            : (Jq[0][i * nf + a - nch] - Jq[1][i * nf + a - nch]) / (2.0 * h);
                w[0] = fmax(w[0], fabs(fd - Hi[a * n + k]) / scale);
                w[1] = fmax(w[1], fabs(Hi[a * n + k] - Hi[k * n + a]) / scale);
            }
        }
    }
}

/* T3: each H_i against central differences of the analytic J_H = [J_theta, J_q] (steps 1e-6 rad,
 * 1e-4 mm), symmetric; at four times, target and twin. */
static void test_closure_hessians(void **state)
{
    (void)state;
    double w[2] = {0};
    each_state(0.07, 0.23, hessian_errors, w);
    print_message("closure Hessians vs differences of the Jacobians: %.2e, asymmetry %.2e\n", w[0],
                  w[1]);
    assert_true(w[0] <= 1e-6);
    assert_true(w[1] <= 1e-14);
}

/* T4, T5: J-dot by the two contractions (1e-12) and against central time differences of J along
 * the trajectory (1e-5 s, 1e-7); theta'' = J1 q_f'' + J2 q_f' with J2 = -J_theta^-1 (J_theta' J1 +
 * J_q') equals the state's (the closures differentiated twice in time) to 1e-10. */
static void test_jacobian_rates(void **state)
{
    (void)state;
    double between = 0.0, vs_fd = 0.0, acc = 0.0;
    for (int twin = 0; twin < 2; twin++) {
        pkm_mast m;
        mast_mechanism(!twin, &m);
        pkm_mast_state s;
        state_at(twin, 0.0, &s);
        for (int it = 0; it <= 20; it++) {
            const double t = 0.05 * it, h = 1e-5;
            pkm_mast_state sd[2];
            state_at(twin, t, &s);
            for (int sg = 0; sg < 2; sg++) {
                pkm_ctx ctx;
                pkm_ctx_clear(&ctx);
                pkm_mast_state st = s;
                if (!twin) assert_pkm_ok(mast_state_at(&m, t + (sg ? -h : h), &st, &ctx), &ctx);
                if (twin) {
                    pkm_mast tg;
                    mast_mechanism(1, &tg);
                    pkm_mast_state sx;
                    state_at(0, t, &sx);
                    assert_pkm_ok(mast_state_at(&tg, t + (sg ? -h : h), &sx, &ctx), &ctx);
                    assert_pkm_ok(mast_twin_at(&m, &sx, &st, &ctx), &ctx);
                }
                sd[sg] = st;
            }
            const int nch = m.nchain, nf = s.nfree;
            double Jth[3][MAST_NCHAIN], Jq[3][MAST_NCHAIN * PKM_POSE_DOF];
            double Hth[MAST_NCHAIN], Hq[MAST_NCHAIN * PKM_POSE_DOF], Lth[MAST_NCHAIN],
                Lq[MAST_NCHAIN * PKM_POSE_DOF];
            pkm_mast_jacobian_rates(&m, &s, PKM_MAST_HESSIAN, Hth, Hq);
            pkm_mast_jacobian_rates(&m, &s, PKM_MAST_LIANG, Lth, Lq);
            pkm_mast_closure_derivatives(&m, &s, Jth[2], Jq[2], NULL);
            for (int sg = 0; sg < 2; sg++)
                pkm_mast_closure_derivatives(&m, &sd[sg], Jth[sg], Jq[sg], NULL);
            double scale = 0.0, d1 = 0.0, d2 = 0.0;
            for (int i = 0; i < nch; i++) {
                const double fd = (Jth[0][i] - Jth[1][i]) / (2.0 * h);
                scale = fmax(scale, fabs(Hth[i]));
                d1 = fmax(d1, fabs(Hth[i] - Lth[i]));
                d2 = fmax(d2, fabs(Hth[i] - fd));
                double thdd = 0.0;
                for (int j = 0; j < nf; j++) {
                    const double fq = (Jq[0][i * nf + j] - Jq[1][i * nf + j]) / (2.0 * h),
                                 J2 = -(Hth[i] * s.J1[i * nf + j] + Hq[i * nf + j]) / Jth[2][i];
                    scale = fmax(scale, fabs(Hq[i * nf + j]));
                    d1 = fmax(d1, fabs(Hq[i * nf + j] - Lq[i * nf + j]));
                    d2 = fmax(d2, fabs(Hq[i * nf + j] - fq));
                    thdd += s.J1[i * nf + j] * s.Xdd[s.free[j]] + J2 * s.Xd[s.free[j]];
                }
                acc = fmax(acc, fabs(thdd - s.thdd[i]) / fmax(fabs(s.thdd[i]), 1.0));
            }
            between = fmax(between, d1 / scale), vs_fd = fmax(vs_fd, d2 / scale);
        }
    }
    print_message("J-dot: Hessian vs partial-derivative contraction %.2e, vs time differences "
                  "%.2e; theta'' through J2 vs the state's %.2e\n",
                  between, vs_fd, acc);
    assert_true(between <= 1e-12);
    assert_true(vs_fd <= 1e-7);
    assert_true(acc <= 1e-10);
}

/* w[0]: dM/dq_k against central differences of M (steps 1e-5 rad, 1e-3 mm: the rounding of M
 * dominates), relative to max |dM/dq_k|; M' and N(a, k) = sum_b dM_k(a, b) q_b' from dM. */
static void mass_derivative_errors(const pkm_mast *m, const pkm_mast_state *s, const double *qd,
                                   double *Md, double *N, double *w)
{
    const int n = m->nchain + s->nfree;
    static double dM[NQT * NQT * NQT];
    double Mp[NQT * NQT], Mm[NQT * NQT];
    pkm_mast_mass_derivative(m, s, dM);
    memset(Md, 0, sizeof(double) * (size_t)(n * n));
    memset(N, 0, sizeof(double) * (size_t)(n * n));
    for (int k = 0; k < n; k++) {
        const double h = step(m, s, k, 10.0);
        double err = 0.0, big = 0.0;
        pkm_mast_state sp, sm;
        perturbed(m, s, k, h, &sp);
        perturbed(m, s, k, -h, &sm);
        pkm_mast_mass_matrix(m, &sp, Mp);
        pkm_mast_mass_matrix(m, &sm, Mm);
        for (int a = 0; a < n * n; a++) {
            big = fmax(big, fabs(dM[k * n * n + a]));
            err = fmax(err, fabs((Mp[a] - Mm[a]) / (2.0 * h) - dM[k * n * n + a]));
            Md[a] += dM[k * n * n + a] * qd[k];
            N[(a / n) * n + k] += dM[k * n * n + a] * qd[a % n];
        }
        if (big > 0.0) w[0] = fmax(w[0], err / big);
    }
}

/* w[0]: dM/dq; w[1]: C q' of the three forms apart (of |M' q'|); w[2]: M' - 2 C_chr's symmetric
 * part, w[3]: N from C_H (4/3 (C + C^T / 2)) against N from dM (of |M'|); w[4]: the least
 * symmetric part of M' - 2 C_H over the states. */
static void coriolis_errors(const pkm_mast *m, const pkm_mast_state *s, double *w)
{
    const int nch = m->nchain, nf = s->nfree, n = nch + nf;
    double C[3][NQT * NQT], qd[NQT], Md[NQT * NQT], N[NQT * NQT];
    for (int i = 0; i < nch; i++)
        qd[i] = s->thd[i];
    for (int j = 0; j < nf; j++)
        qd[nch + j] = s->Xd[s->free[j]];
    mass_derivative_errors(m, s, qd, Md, N, w);
    for (int f = 0; f < 3; f++)
        pkm_mast_coriolis(m, s, (pkm_mast_coriolis_form)f, C[f]);
    double v[3][NQT] = {{0}}, mq[NQT] = {0}, scale = 0.0, sk = 0.0, hs = 0.0, dn = 0.0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            const int ab = a * n + b, ba = b * n + a;
            mq[a] += Md[ab] * qd[b];
            for (int f = 0; f < 3; f++)
                v[f][a] += C[f][ab] * qd[b];
            scale = fmax(scale, fabs(Md[ab]));
            sk = fmax(sk, fabs(Md[ab] - 2.0 * C[2][ab] + Md[ba] - 2.0 * C[2][ba]));
            hs = fmax(hs, fabs(Md[ab] - 2.0 * C[0][ab] + Md[ba] - 2.0 * C[0][ba]));
            dn = fmax(dn, fabs(4.0 / 3.0 * (C[0][ab] + 0.5 * C[0][ba]) - N[ab]));
        }
    double vs = 0.0, dv = 0.0;
    for (int a = 0; a < n; a++) {
        vs = fmax(vs, fabs(mq[a]));
        dv = fmax(dv, fmax(fabs(v[0][a] - v[1][a]), fabs(v[0][a] - v[2][a])));
    }
    w[1] = fmax(w[1], dv / vs);
    w[2] = fmax(w[2], sk / scale), w[3] = fmax(w[3], dn / scale);
    w[4] = w[4] == 0.0 ? hs / scale : fmin(w[4], hs / scale);
}

/* dM/dq_k against central differences of M (q independent), and T6: C q' the same for the three
 * forms (1e-12 of |M' q'|), M' - 2 C skew for the Christoffel form only, the Hessian block N
 * recovered from C_H equal to the one from dM/dq; target and twin at four times. */
static void test_coriolis(void **state)
{
    (void)state;
    double w[5] = {0};
    each_state(0.11, 0.21, coriolis_errors, w);
    print_message("dM/dq vs differences %.2e; C q': forms differ by %.2e; M' - 2 C skew: "
                  "Christoffel %.2e (Hessian form %.2f, not expected); N from C_H vs dM %.2e\n",
                  w[0], w[1], w[2], w[4], w[3]);
    assert_true(w[0] <= 1e-7);
    assert_true(w[1] <= 1e-12);
    assert_true(w[2] <= 1e-12);
    assert_true(w[3] <= 1e-12);
    assert_true(w[4] > 1e-3); /* C_H is a different matrix: the check can tell */
}

/* T7: the four routes' torques and multipliers along the whole trajectory (one period at 5 ms),
 * target and twin, under the bite load: max |d tau| / max |tau| <= 1e-9; every route's
 * Newton-Euler residual to rounding. */
static void test_routes_agree(void **state)
{
    (void)state;
    static mast_walk w;
    mast_walk_init(&w);
    double tmax[2] = {0}, lmax[2] = {0}, dtau[2] = {0}, dlam[2] = {0}, res = 0.0;
    for (int k = 0; k <= 200; k++) {
        assert_pkm_ok(mast_walk_to(&w, 0.005 * k), &w.ctx);
        for (int twin = 0; twin < 2; twin++) {
            pkm_mast_forces f[4];
            for (int r = 0; r < 4; r++) {
                pkm_mast_inverse_opts o = {.route = (pkm_mast_route)r};
                assert_pkm_ok(pkm_mast_inverse(twin ? &w.tw : &w.tg, twin ? &w.sw : &w.s,
                                               &mast_bite, &o, &f[r], &w.ctx),
                              &w.ctx);
                res = fmax(res, f[r].residual);
            }
            for (int i = 0; i < MAST_NCHAIN; i++) {
                tmax[twin] = fmax(tmax[twin], fabs(f[0].tau[i]));
                lmax[twin] = fmax(lmax[twin], fabs(f[0].multiplier[i]));
                for (int r = 1; r < 4; r++) {
                    dtau[twin] = fmax(dtau[twin], fabs(f[r].tau[i] - f[0].tau[i]));
                    dlam[twin] = fmax(dlam[twin], fabs(f[r].multiplier[i] - f[0].multiplier[i]));
                }
            }
        }
    }
    for (int twin = 0; twin < 2; twin++) {
        print_message("%s: routes agree to %.2e (torques), %.2e (multipliers), relative\n",
                      twin ? "6-RSS twin" : "target", dtau[twin] / tmax[twin],
                      dlam[twin] / lmax[twin]);
        assert_true(dtau[twin] <= 1e-9 * tmax[twin]);
        assert_true(dlam[twin] <= 1e-9 * lmax[twin]);
    }
    print_message("Newton-Euler residual, every route: %.2e\n", res);
    assert_true(res <= 1e-12);
    assert_string_equal(pkm_mast_route_name(PKM_MAST_FIRST_KIND), "first-kind");
    assert_null(pkm_mast_route_name((pkm_mast_route)4));
    pkm_mast_forces f;
    pkm_mast_inverse_opts bad = {.route = (pkm_mast_route)7};
    assert_int_equal(pkm_mast_inverse(&w.tg, &w.s, NULL, &bad, &f, &w.ctx), PKM_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closure_hessians),
        cmocka_unit_test(test_jacobian_rates),
        cmocka_unit_test(test_coriolis),
        cmocka_unit_test(test_routes_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
