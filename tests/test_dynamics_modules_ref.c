/* tests/test_dynamics_modules_ref.c: the module chain against references: its forward dynamics
 * against the dense KKT solve of the same machine as a generic pkm_model (the crane, random
 * spatial chains of loops), the actuator-space mass matrix (symmetric, positive definite, the
 * inverse of the forward dynamics' columns), the gravity stiffness, energy conservation under
 * RK4.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "chain_util.h"
#include "dyn_util.h"

#include "pkm/ode.h"
#include "pkm/spatial.h"

#include <stdlib.h>

/* Forward dynamics of the chain against the KKT reference: the same machine as a pkm_model at q
 * (an open tree with the rod pins cut) in the generic pkm_mbs, its passive rates from the
 * closure, M qdd - C^T lambda = tau - h, C qdd = -gamma solved densely. The drives are those of
 * the accelerations qdd0 (so the answers are of order 1). Returns the worst relative
 * difference. */
static double kkt_check(pkm_chain *c, const double g[3], const double *q, const double *qd,
                        const double *qdd0)
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
    double *w = calloc((size_t)(3 * nq + 3 * n), sizeof(double));
    assert_non_null(w);
    double *qa = w, *qda = w + n, *zero = w + 2 * n, *tq = w + 3 * n, *qdd = tq + nq;
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
    double worst = 0.0;
    for (int i = 0; i < n; i++)
        worst = fmax(worst, fabs(a[i] - qdd[first[i]]) / fmax(fabs(qdd[first[i]]), 1e-3));
    free(w);
    free(tau);
    free(coord);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&md);
    return worst;
}

static void test_kkt_hiab(void **state)
{
    (void)state;
    static const char *names[2] = {"boom1", "crane4"};
    for (int m = 0; m < 2; m++) {
        pkm_chain_module mods[4];
        pkm_chain_pose root;
        double g[3], q[4], qd[4], qdd[4], worst = 0.0;
        int n;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_pkm_ok(pkm_hiab_modules(names[m], mods, &n, &root, g, &ctx), &ctx);
        pkm_chain *c = machine(names[m]);
        for (int k = 0; k < 10; k++) {
            motion(names[m], 1.1 * k, q, qd, qdd);
            for (int i = 0; i < n; i++)
                qdd[i] += 0.5;
            worst = fmax(worst, kkt_check(c, g, q, qd, qdd));
        }
        printf("%s: forward dynamics against the KKT reference, worst %.3g relative\n", names[m],
               worst);
        assert_true(worst <= 1e-9);
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
    double worst = 0.0;
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
        worst = fmax(worst, kkt_check(c, g, q, qd, qdd));
        pkm_chain_destroy(&c);
    }
    printf("random spatial chains (3 loops, R, P): KKT reference worst %.3g relative\n", worst);
    assert_true(worst <= 1e-9);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kkt_hiab),
        cmocka_unit_test(test_kkt_random),
        cmocka_unit_test(test_mass_matrix),
        cmocka_unit_test(test_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
