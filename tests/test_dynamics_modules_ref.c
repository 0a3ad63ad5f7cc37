/* tests/test_dynamics_modules_ref.c: the module chain against references: its forward dynamics
 * against the dense KKT solve and the closure-reduced equations of the same machine as a
 * generic pkm_model (the crane, random spatial chains of loops), the actuator-space mass matrix
 * (symmetric, positive definite, the inverse of the forward dynamics' columns), the gravity
 * stiffness, energy conservation under RK4, the crane's power balance under working drives.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "chain_util.h"
#include "dyn_util.h"

#include "pkm/ode.h"
#include "pkm/spatial.h"

#include <stdlib.h>

/* The constrained equations reduced to the actuated coordinates through the closure (the
 * second reference, without the KKT system's conditioning): qdd = J x'' + qdd0, J the rates of
 * every coordinate for unit actuated rates, qdd0 the accelerations at zero actuated
 * acceleration, J^T M J x'' = J^T (tau - h - M qdd0). x in the order of pkm_mbs_driven; the
 * system's state is left at the actuated rates qda. */
static void reduced(pkm_mbs *s, const double *qa, const double *qda, const double *tq, double *x)
{
    const int *idx = NULL, n = pkm_mbs_driven(s, &idx), nq = pkm_mbs_coord_count(s);
    double *w = calloc((size_t)(nq * n + nq * nq + 3 * nq + n * n + 3 * n), sizeof(double));
    assert_non_null(w);
    double *J = w, *M = J + nq * n, *h = M + nq * nq, *qdd0 = h + nq, *r = qdd0 + nq;
    double *A = r + nq, *b = A + n * n, *e = b + n, *zero = e + n;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int k = 0; k < n; k++) {
        e[k] = 1.0;
        assert_pkm_ok(pkm_mbs_kinematics(s, 0.0, qa, e, zero, &ctx), &ctx);
        for (int i = 0; i < nq; i++)
            J[i * n + k] = pkm_mbs_qd(s)[i];
        e[k] = 0.0;
    }
    assert_pkm_ok(pkm_mbs_kinematics(s, 0.0, qa, qda, zero, &ctx), &ctx);
    memcpy(qdd0, pkm_mbs_qdd(s), sizeof(double) * (size_t)nq);
    pkm_mbs_mass_matrix(s, M, h);
    for (int i = 0; i < nq; i++) {
        r[i] = tq[i] - h[i];
        for (int j = 0; j < nq; j++)
            r[i] -= M[i * nq + j] * qdd0[j];
    }
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < nq; i++)
            b[k] += J[i * n + k] * r[i];
        for (int l = 0; l < n; l++)
            for (int i = 0; i < nq; i++)
                for (int j = 0; j < nq; j++)
                    A[k * n + l] += J[i * n + k] * M[i * nq + j] * J[j * n + l];
    }
    dyn_lstsq(n, n, A, b, x);
    free(w);
}

/* Forward dynamics of the chain against two references on the same machine as a pkm_model at q
 * (an open tree with the rod pins cut) in the generic pkm_mbs, its passive rates from the
 * closure: the dense KKT solve M qdd - C^T lambda = tau - h, C qdd = -gamma (worst[0]) and the
 * reduced equations above (worst[1]). The drives are those of the accelerations qdd0, so that
 * the answers are of order 1. Relative differences. */
static void kkt_check(pkm_chain *c, const double g[3], const double *q, const double *qd,
                      const double *qdd0, double worst[2])
{
    const int n = pkm_chain_dof(c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *md = NULL;
    pkm_mbs *s = NULL;
    int *coord = malloc(sizeof(int) * (size_t)(4 * n)), *first = coord + 3 * n;
    double *tau = malloc(sizeof(double) * (size_t)(2 * n));
    assert_non_null(coord);
    assert_non_null(tau);
    double *a = tau + n;
    assert_pkm_ok(pkm_chain_inverse(c, q, qd, qdd0, tau, NULL, &ctx), &ctx);
    assert_pkm_ok(pkm_chain_forward(c, q, qd, tau, a, &ctx), &ctx);
    assert_pkm_ok(pkm_chain_model(c, q, &md, coord, &ctx), &ctx);
    assert_pkm_ok(pkm_mbs_create(md, g, &s, &ctx), &ctx);
    const int nq = pkm_mbs_coord_count(s);
    const int *idx = NULL;
    assert_int_equal(pkm_mbs_driven(s, &idx), n);
    double *w = calloc((size_t)(3 * nq + 4 * n), sizeof(double));
    assert_non_null(w);
    double *qa = w, *qda = w + n, *zero = w + 2 * n, *x = w + 3 * n, *tq = x + n, *qdd = tq + nq;
    for (int i = 0; i < n; i++) {
        const pkm_chain_module *m = pkm_chain_module_get(c, i);
        const int j = coord[3 * i + (m->type == PKM_CHAIN_LOOP ? 2 : 0)];
        assert_int_equal(pkm_mbs_joint_coords(s, j, &first[i]), 1);
        for (int k = 0; k < n; k++)
            if (idx[k] == first[i]) qda[k] = qd[i];
        tq[first[i]] = tau[i];
    }
    assert_pkm_ok(pkm_mbs_set_singular(s, 1e-6, &ctx), &ctx);
    assert_pkm_ok(pkm_mbs_kinematics(s, 0.0, qa, qda, zero, &ctx), &ctx);
    dyn_kkt(s, tq, qdd);
    reduced(s, qa, qda, tq, x);
    for (int i = 0; i < n; i++) {
        worst[0] = fmax(worst[0], fabs(a[i] - qdd[first[i]]) / fmax(fabs(qdd[first[i]]), 1e-3));
        for (int k = 0; k < n; k++)
            if (idx[k] == first[i])
                worst[1] = fmax(worst[1], fabs(a[i] - x[k]) / fmax(fabs(x[k]), 1e-3));
    }
    free(w);
    free(tau);
    free(coord);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&md);
}

static void test_kkt_hiab(void **state)
{
    (void)state;
    static const char *names[2] = {"boom1", "crane4"};
    for (int m = 0; m < 2; m++) {
        pkm_chain_module mods[4];
        pkm_chain_pose root;
        double g[3], q[4], qd[4], qdd[4], worst[2] = {0.0, 0.0};
        int n;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_pkm_ok(pkm_hiab_modules(names[m], mods, &n, &root, g, &ctx), &ctx);
        pkm_chain *c = machine(names[m]);
        for (int k = 0; k < 10; k++) {
            motion(names[m], 1.1 * k, q, qd, qdd);
            for (int i = 0; i < n; i++)
                qdd[i] += 0.5;
            kkt_check(c, g, q, qd, qdd, worst);
        }
        printf("%s: forward dynamics against the KKT reference, worst %.3g relative; against "
               "the reduced equations %.3g\n",
               names[m], worst[0], worst[1]);
        assert_true(worst[0] <= 1e-9);
        assert_true(worst[1] <= 1e-9);
        pkm_chain_destroy(&c);
    }
}

static double uniform(unsigned *seed, double lo, double hi)
{
    *seed = *seed * 1103515245u + 12345u;
    return lo + (hi - lo) * (double)((*seed >> 8) & 0xffffff) / (double)0xffffff;
}

/* A random body: mass, centre of mass, an inertia about it that is positive definite and full. */
static pkm_chain_body random_body(unsigned *seed)
{
    pkm_chain_body b = {.mass = uniform(seed, 1.0, 30.0)};
    for (int i = 0; i < 3; i++) {
        b.com[i] = uniform(seed, -0.3, 0.5);
        b.inertia[i][i] = uniform(seed, 0.5, 2.0);
    }
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            b.inertia[i][j] = b.inertia[j][i] = uniform(seed, -0.2, 0.2);
    return b;
}

/* Random spatial chains of loops: random lengths, branch, bodies, and an end frame turned about a
 * random axis, so that the next loop's plane is not this one's; a revolute and a prismatic joint
 * between them. */
static void test_kkt_random(void **state)
{
    (void)state;
    unsigned seed = 14u;
    double worst[2] = {0.0, 0.0};
    for (int trial = 0; trial < 5; trial++) {
        pkm_chain_module mods[5];
        double q[5], qd[5], qdd[5];
        memset(mods, 0, sizeof(mods));
        for (int i = 0; i < 5; i++) {
            pkm_chain_module *m = &mods[i];
            snprintf(m->name, sizeof(m->name), "m%d", i);
            m->type = i == 2 ? PKM_CHAIN_REVOLUTE : i == 4 ? PKM_CHAIN_PRISMATIC : PKM_CHAIN_LOOP;
            double ax[3] = {uniform(&seed, -1, 1), uniform(&seed, -1, 1), uniform(&seed, -1, 1)};
            const double nx = pkm_vec3_norm(ax);
            for (int k = 0; k < 3; k++)
                ax[k] /= nx;
            pkm_rot_rodrigues(ax, uniform(&seed, -1.5, 1.5), m->end.R);
            pkm_rot_rodrigues(ax, uniform(&seed, -1.0, 1.0), m->joint.R);
            for (int k = 0; k < 3; k++) {
                m->end.r[k] = uniform(&seed, -0.3, 0.3);
                m->joint.r[k] = uniform(&seed, -0.3, 0.3);
            }
            m->qmin = -2.0, m->qmax = 2.0;
            m->body[PKM_CHAIN_MOVING] = random_body(&seed);
            m->body[PKM_CHAIN_END] = random_body(&seed);
            q[i] = uniform(&seed, -1.0, 1.0);
            qd[i] = uniform(&seed, -1.0, 1.0);
            qdd[i] = uniform(&seed, -1.0, 1.0);
            if (m->type != PKM_CHAIN_LOOP) continue;
            m->La = uniform(&seed, 0.6, 1.4);
            m->Lb = uniform(&seed, 0.2, 0.5);
            m->x0 = m->La - m->Lb + 0.05;
            m->lc = uniform(&seed, 0.2, 0.5);
            m->qmin = 0.0, m->qmax = 2.0 * m->Lb - 0.15;
            m->sign[0] = m->sign[1] = m->sign[2] = uniform(&seed, -1, 1) < 0 ? -1 : 1;
            m->body[PKM_CHAIN_BARREL] = random_body(&seed);
            m->body[PKM_CHAIN_ROD] = random_body(&seed);
            q[i] = uniform(&seed, 0.1, 0.9) * m->qmax;
        }
        const pkm_chain_pose root = {{{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, {0.1, 0.2, 0.3}};
        const double g[3] = {0.0, -9.81, 0.0};
        pkm_chain *c = NULL;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_pkm_ok(pkm_chain_create(5, mods, &root, g, &c, &ctx), &ctx);
        kkt_check(c, g, q, qd, qdd, worst);
        pkm_chain_destroy(&c);
    }
    printf("random spatial chains (3 loops, R, P): KKT reference worst %.3g relative, reduced "
           "equations %.3g\n",
           worst[0], worst[1]);
    assert_true(worst[0] <= 1e-9);
    assert_true(worst[1] <= 1e-9);
}

/* M_a symmetric positive definite; the forward dynamics' columns (unit drives on the static ones,
 * at rest) are the columns of its inverse. */
static void test_mass_matrix(void **state)
{
    (void)state;
    pkm_chain *c = machine("crane4");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double q[4] = {0.3, 0.25, 0.4, 0.6}, zero[4] = {0, 0, 0, 0};
    double M[16], fs[4], Minv[16], f[4], a[4], scale = 0.0;
    assert_pkm_ok(pkm_chain_mass_matrix(c, q, M, &ctx), &ctx);
    assert_pkm_ok(pkm_chain_gravity(c, q, fs, NULL, &ctx), &ctx);
    for (int k = 0; k < 16; k++)
        scale = fmax(scale, fabs(M[k]));
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 4; i++)
            f[i] = fs[i] + (i == j ? 1.0 : 0.0);
        assert_pkm_ok(pkm_chain_forward(c, q, zero, f, a, &ctx), &ctx);
        for (int i = 0; i < 4; i++)
            Minv[i * 4 + j] = a[i];
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            assert_close(M[i * 4 + j], M[j * 4 + i], 0, 1e-12 * scale);
            double p = 0.0;
            for (int k = 0; k < 4; k++)
                p += M[i * 4 + k] * Minv[k * 4 + j];
            assert_close(p, i == j ? 1.0 : 0.0, 0, 1e-10);
        }
    /* positive definite: Cholesky pivots */
    double L[16];
    memcpy(L, M, sizeof(L));
    for (int k = 0; k < 4; k++) {
        for (int p = 0; p < k; p++)
            L[k * 4 + k] -= L[k * 4 + p] * L[k * 4 + p];
        assert_true(L[k * 4 + k] > 0.0);
        L[k * 4 + k] = sqrt(L[k * 4 + k]);
        for (int i = k + 1; i < 4; i++) {
            for (int p = 0; p < k; p++)
                L[i * 4 + k] -= L[i * 4 + p] * L[k * 4 + p];
            L[i * 4 + k] /= L[k * 4 + k];
        }
    }
    /* statics: the static drives hold the crane at rest */
    assert_pkm_ok(pkm_chain_forward(c, q, zero, fs, a, &ctx), &ctx);
    for (int i = 0; i < 4; i++)
        assert_close(a[i], 0.0, 0, 1e-12);
    /* the gravity stiffness of the lift stroke against a wider difference */
    double dfs[16], fp[4], fm[4], qp[4], qm[4];
    assert_pkm_ok(pkm_chain_gravity(c, q, fs, dfs, &ctx), &ctx);
    memcpy(qp, q, sizeof(qp));
    memcpy(qm, q, sizeof(qm));
    qp[1] += 1e-4, qm[1] -= 1e-4;
    assert_pkm_ok(pkm_chain_gravity(c, qp, fp, NULL, &ctx), &ctx);
    assert_pkm_ok(pkm_chain_gravity(c, qm, fm, NULL, &ctx), &ctx);
    for (int i = 0; i < 4; i++)
        assert_close(dfs[i * 4 + 1], (fp[i] - fm[i]) / 2e-4, 1e-5, 1e-3);
    pkm_chain_destroy(&c);
}

/* Loop 1 under the conservative drive f = f0 - k (x - xe) (a spring on the stroke): the energy
 * T + V + k (x - xe)^2 / 2 - f0 x is constant; RK4 over 10 s. */
typedef struct spring {
    pkm_chain *c;
    double k, xe, f0, H0, dH;
} spring;

static pkm_status spring_rhs(double t, const double *y, double *dy, void *user, pkm_ctx *ctx)
{
    (void)t;
    spring *s = user;
    const double f = s->f0 - s->k * (y[0] - s->xe);
    dy[0] = y[1];
    return pkm_chain_forward(s->c, &y[0], &y[1], &f, &dy[1], ctx);
}

static pkm_status spring_monitor(int step, double t, const double *y, void *user, pkm_ctx *ctx)
{
    (void)t;
    spring *s = user;
    double T, V;
    const pkm_status st = pkm_chain_energy(s->c, &y[0], &y[1], &T, &V, ctx);
    const double H = T + V + 0.5 * s->k * (y[0] - s->xe) * (y[0] - s->xe) - s->f0 * y[0];
    if (step == 0) s->H0 = H;
    s->dH = fmax(s->dH, fabs(H - s->H0));
    return st;
}

static double spring_run(double h)
{
    spring s = {.c = machine("boom1"), .k = 2e5, .xe = 0.3};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const double xe = s.xe, zero = 0.0;
    assert_pkm_ok(pkm_chain_inverse(s.c, &xe, &zero, &zero, &s.f0, NULL, &ctx), &ctx);
    pkm_ode ode = {.n = 2, .rhs = spring_rhs, .monitor = spring_monitor, .user = &s};
    double y[2] = {0.25, 0.0}, work[PKM_ODE_RK4_WORK(2)];
    assert_pkm_ok(pkm_ode_rk4_run(&ode, 0.0, h, (int)lround(10.0 / h), y, work, &ctx), &ctx);
    pkm_chain_destroy(&s.c);
    return s.dH / fabs(s.H0);
}

static void test_energy(void **state)
{
    (void)state;
    const double e1 = spring_run(1e-3), e2 = spring_run(5e-4);
    printf("energy drift |dH|/|H| over 10 s: %.3g (dt 1e-3), %.3g (dt 5e-4), ratio %.1f\n", e1, e2,
           e1 / e2);
    assert_true(e1 <= 1e-8);
    assert_true(e2 <= 1e-9);
    assert_true(e1 / e2 >= 16.0);
}

/* The crane under the drives of its sinusoids, a torque of 500 sin(0.7 t) N m on the slew that
 * makes it leave them, and a spring and damper per coordinate towards them (open loop, the
 * cylinders are unstable: their static forces fall as they extend); y = (q, qd, W) with
 * W' = sum f qd, the power of all the drives. */
typedef struct powered {
    pkm_chain *c;
    pkm_trajectory *tr;
    double f[4];
} powered;

static pkm_status powered_rhs(double t, const double *y, double *dy, void *user, pkm_ctx *ctx)
{
    powered *p = user;
    static const double K[4] = {1e4, 1e6, 1e6, 1e5}, C[4] = {2e3, 1e4, 1e4, 2e3};
    double q[4], qd[4], qdd[4];
    pkm_status st = pkm_trajectory_eval(p->tr, t, q, qd, qdd, ctx);
    if (st == PKM_OK) st = pkm_chain_inverse(p->c, q, qd, qdd, p->f, NULL, ctx);
    p->f[0] += 500.0 * sin(0.7 * t);
    for (int i = 0; i < 4; i++)
        p->f[i] += K[i] * (q[i] - y[i]) + C[i] * (qd[i] - y[4 + i]);
    if (st == PKM_OK) st = pkm_chain_forward(p->c, y, y + 4, p->f, dy + 4, ctx);
    memcpy(dy, y + 4, sizeof(double) * 4);
    dy[8] = 0.0;
    for (int i = 0; i < 4; i++)
        dy[8] += p->f[i] * y[4 + i];
    return st;
}

/* Power balance: T + V - W stays at its start within the integration error (RK4, dt 1e-3,
 * 10 s), relative to the energies' scale. */
static void test_power_balance(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("crane4");
    const pkm_traj_desc *d = &c->traj[0];
    const int n = c->npose;
    powered p = {.c = machine("crane4")};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_create_analytic(d, n, &p.tr, &ctx), &ctx);
    double y[9] = {0}, work[PKM_ODE_RK4_WORK(9)], T, V, T0, V0;
    assert_pkm_ok(pkm_trajectory_eval(p.tr, 0.0, y, y + 4, NULL, &ctx), &ctx);
    assert_pkm_ok(pkm_chain_energy(p.c, y, y + 4, &T0, &V0, &ctx), &ctx);
    const pkm_ode ode = {.n = 9, .rhs = powered_rhs, .user = &p};
    assert_pkm_ok(pkm_ode_rk4_run(&ode, 0.0, 1e-3, 10000, y, work, &ctx), &ctx);
    assert_pkm_ok(pkm_chain_energy(p.c, y, y + 4, &T, &V, &ctx), &ctx);
    const double err = fabs(T + V - y[8] - (T0 + V0)), scale = fabs(y[8]) + fabs(V0) + T0;
    printf("crane4 power balance over 10 s: |T + V - W - H0| = %.3g J, %.3g of the energies "
           "(work of the drives %.6g J)\n",
           err, err / scale, y[8]);
    assert_true(err <= 1e-8 * scale);
    double q[4];
    assert_pkm_ok(pkm_trajectory_eval(p.tr, 10.0, q, NULL, NULL, &ctx), &ctx);
    printf("  the slew left its trajectory by %.3g rad\n", y[0] - q[0]);
    assert_true(fabs(y[0] - q[0]) > 0.01);
    pkm_trajectory_destroy(&p.tr);
    pkm_chain_destroy(&p.c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kkt_hiab),      cmocka_unit_test(test_kkt_random),
        cmocka_unit_test(test_mass_matrix),   cmocka_unit_test(test_energy),
        cmocka_unit_test(test_power_balance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
