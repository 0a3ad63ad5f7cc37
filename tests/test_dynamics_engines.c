/* tests/test_dynamics_engines.c: one battery over every entry of the dynamics engine table
 * (pkm/dynengine.h), as test_solvers_eigensolver over the eigensolvers: every engine on every
 * model it accepts (the built-in rigid cases, the crane's machines as models, the robot files of
 * examples/), each pair of engines on the same model required to give the same drives, joint
 * coordinates and reactions along a motion and the same forward trajectory (1e-9 of the largest
 * value); and the chain engine's refusals.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "chain_util.h"

#include "pkm/casefile.h"
#include "pkm/dynengine.h"
#include "pkm/ode.h"

#include <stdlib.h>

#define NMODEL_MAX 16
#define TOL        1e-9

typedef struct model_case {
    char name[64];
    pkm_model *m;
    double g[3];
    int chain; /* a module chain: the chain engine must accept it (and only it) */
} model_case;

/* The crane's machine as a model at the start of its motion. */
static void add_machine(model_case *mc, const char *name)
{
    pkm_chain_module mods[4];
    pkm_chain_pose root;
    double q[4], qd[4], qdd[4];
    int n, coord[12];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_hiab_modules(name, mods, &n, &root, mc->g, &ctx), &ctx);
    pkm_chain *c = machine(name);
    motion(name, 0.0, q, qd, qdd);
    assert_pkm_ok(pkm_chain_model(c, q, &mc->m, coord, &ctx), &ctx);
    snprintf(mc->name, sizeof(mc->name), "%s", name);
    mc->chain = 1;
    pkm_chain_destroy(&c);
}

/* A case's rigid-body model (built-in by name, or a robot file) at its rigid pose. */
static int add_case(model_case *mc, const char *name, int file)
{
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (file)
        assert_pkm_ok(pkm_case_file_load(name, &c, &params, &ctx), &ctx);
    else
        assert_pkm_ok(pkm_case_open(name, NULL, 0, NULL, &c, &params, &ctx), &ctx);
    const int ok = c->build_rigid != NULL;
    if (ok) {
        assert_pkm_ok(c->build_rigid(params, pkm_case_rigid_pose(c), &mc->m, &ctx), &ctx);
        memcpy(mc->g, pkm_case_dynamics_of(c, params)->gravity, sizeof(mc->g));
        const char *base = strrchr(name, '/');
        snprintf(mc->name, sizeof(mc->name), "%s", base != NULL ? base + 1 : name);
    }
    pkm_case_params_destroy(&params);
    return ok;
}

/* Two links on revolute joints about z from the ground, the first actuated or not. */
static pkm_model *two_links(int first_actuated)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    for (int k = 0; k < 2; k++) {
        pkm_rigid_desc b = {.name = k ? "l2" : "l1", .mass = 1.0, .com = {0.5 + k, 0.0, 0.0}};
        for (int i = 0; i < 3; i++)
            b.inertia[i][i] = 0.1;
        int id = -1;
        assert_pkm_ok(pkm_model_add_rigid(m, &b, &id, &ctx), &ctx);
        pkm_joint_desc j = {.name = k ? "j2" : "j1",
                            .type = PKM_JOINT_REVOLUTE,
                            .body_a = k ? id - 1 : PKM_GROUND,
                            .body_b = id,
                            .point = {k, 0.0, 0.0},
                            .axis = {0.0, 0.0, 1.0},
                            .actuated = k || first_actuated};
        assert_pkm_ok(pkm_model_add_joint(m, &j, NULL, &ctx), &ctx);
    }
    return m;
}

static int all_models(model_case *mc)
{
    static const char *const cases[] = {"tree5", "loop3", "navaro", "pss5upu"};
    static const char *const files[] = {"3rrr.yaml", "delta.yaml", "fivebar.yaml", "navaro.yaml"};
    int n = 0;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        n += add_case(&mc[n], cases[k], 0);
    for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/examples/%s", PKM_SOURCE_DIR, files[k]);
        n += add_case(&mc[n], path, 1);
    }
    mc[n] = (model_case){.name = "arm2", .m = two_links(1), .g = {0.0, -9.81, 0.0}, .chain = 1};
    n++;
    add_machine(&mc[n++], "boom1");
    add_machine(&mc[n++], "crane4");
    return n;
}

static void free_models(model_case *mc, int n)
{
    for (int k = 0; k < n; k++)
        pkm_model_destroy(&mc[k].m);
}

/* The motion of the actuated coordinates from the model's configuration: a_k sin(w_k t). */
static void drive_motion(int na, double t, double *q, double *qd, double *qdd)
{
    for (int k = 0; k < na; k++) {
        const double a = 0.01 * (1.0 + 0.3 * k), w = 2.0 + 0.7 * k;
        q[k] = a * sin(w * t), qd[k] = a * w * cos(w * t), qdd[k] = -a * w * w * sin(w * t);
    }
}

#define NSAMPLE 21

/* What engine e gives along the motion: per sample the drives (na), every joint's first
 * coordinate and its reaction wrench (7 per joint). */
static pkm_status inverse_run(const pkm_dyn_engine *e, const model_case *mc, double *out,
                              pkm_ctx *ctx)
{
    const int na = pkm_dyn_engine_actuated(mc->m), nj = pkm_model_joint_count(mc->m);
    void *eng = NULL;
    pkm_joint_result *res = calloc((size_t)nj, sizeof(*res));
    double q[16], qd[16], qdd[16];
    assert_non_null(res);
    assert_true(na <= 16);
    pkm_status st = e->create(mc->m, mc->g, &eng, ctx);
    for (int s = 0; s < NSAMPLE && st == PKM_OK; s++) {
        const double t = 0.05 * s;
        drive_motion(na, t, q, qd, qdd);
        st = e->inverse(eng, t, q, qd, qdd, res, ctx);
        double *o = out + (size_t)s * (na + 7 * nj);
        for (int j = 0, a = 0; j < nj && st == PKM_OK; j++) {
            if (pkm_model_joint(mc->m, j)->actuated) o[a++] = res[j].drive;
            o[na + 7 * j] = res[j].ncoord > 0 ? res[j].q[0] : 0.0;
            memcpy(o + na + 7 * j + 1, res[j].wrench, sizeof(res[j].wrench));
        }
    }
    e->destroy(&eng);
    free(res);
    return st;
}

/* The forward trajectory: RK4 at 1 ms for 0.2 s from the model's configuration at rest under the
 * drives tau0 + 0.1 |tau0| sin(5 t), tau0 the drives that hold it there (y = (qa, qda)). */
typedef struct fwd_run {
    const pkm_dyn_engine *e;
    void *eng;
    int na;
    double tau0[16], scale;
} fwd_run;

static pkm_status fwd_rhs(double t, const double *y, double *dy, void *user, pkm_ctx *ctx)
{
    fwd_run *f = user;
    double tau[16];
    for (int k = 0; k < f->na; k++)
        tau[k] = f->tau0[k] + 0.1 * f->scale * sin(5.0 * t + k);
    memcpy(dy, y + f->na, sizeof(double) * (size_t)f->na);
    return f->e->forward(f->eng, t, y, y + f->na, tau, dy + f->na, ctx);
}

#define NSTEP 200

static pkm_status forward_run(const pkm_dyn_engine *e, const model_case *mc, const double *tau0,
                              double *out, pkm_ctx *ctx)
{
    fwd_run f = {.e = e, .na = pkm_dyn_engine_actuated(mc->m)};
    memcpy(f.tau0, tau0, sizeof(double) * (size_t)f.na);
    for (int k = 0; k < f.na; k++)
        f.scale = fmax(f.scale, fabs(tau0[k]));
    f.scale = fmax(f.scale, 1.0);
    double y[32] = {0}, work[PKM_ODE_RK4_WORK(32)];
    const pkm_ode ode = {.n = 2 * f.na, .rhs = fwd_rhs, .user = &f};
    pkm_status st = e->create(mc->m, mc->g, &f.eng, ctx);
    for (int s = 0; s < 4 && st == PKM_OK; s++) {
        st = pkm_ode_rk4_run(&ode, 0.05 * s, 1e-3, NSTEP / 4, y, work, ctx);
        memcpy(out + 2 * f.na * s, y, sizeof(double) * 2 * (size_t)f.na);
    }
    e->destroy(&f.eng);
    return st;
}

/* Largest |a - b| over the largest |a| of each of the n groups of `len` values, strided. */
static double worst_diff(const double *a, const double *b, size_t len)
{
    double scale = 0.0, d = 0.0;
    for (size_t k = 0; k < len; k++) {
        scale = fmax(scale, fabs(a[k]));
        d = fmax(d, fabs(a[k] - b[k]));
    }
    return d / (scale > 0.0 ? scale : 1.0);
}

/* The differences of engines e1 and e2 on model mc: drives, coordinates and reactions relative
 * to the largest of each kind, and the forward trajectory's. */
static void compare_pair(const pkm_dyn_engine *e1, const pkm_dyn_engine *e2, const model_case *mc,
                         double d[4])
{
    const int na = pkm_dyn_engine_actuated(mc->m), nj = pkm_model_joint_count(mc->m);
    const size_t row = (size_t)(na + 7 * nj), len = NSAMPLE * row;
    double *a = calloc(2 * len, sizeof(double)), *b = a + len;
    assert_non_null(a);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(inverse_run(e1, mc, a, &ctx), &ctx);
    assert_pkm_ok(inverse_run(e2, mc, b, &ctx), &ctx);
    /* drives, then per joint its coordinate, force and moment: gathered by kind */
    double *ga = calloc(6 * len, sizeof(double));
    assert_non_null(ga);
    size_t n[3] = {0, 0, 0};
    for (size_t s = 0; s < NSAMPLE; s++)
        for (size_t k = 0; k < row; k++) {
            const size_t kind = k < (size_t)na ? 0 : ((k - na) % 7 == 0 ? 1 : 2);
            ga[kind * 2 * len + n[kind]] = a[s * row + k];
            ga[kind * 2 * len + len + n[kind]++] = b[s * row + k];
        }
    for (int kind = 0; kind < 3; kind++)
        d[kind] = worst_diff(ga + kind * 2 * len, ga + kind * 2 * len + len, n[kind]);
    double tau0[16], za[16] = {0}, y1[128], y2[128];
    void *eng = NULL;
    pkm_joint_result *res = calloc((size_t)nj, sizeof(*res));
    assert_non_null(res);
    assert_pkm_ok(e1->create(mc->m, mc->g, &eng, &ctx), &ctx);
    assert_pkm_ok(e1->inverse(eng, 0.0, za, za, za, res, &ctx), &ctx);
    for (int j = 0, k = 0; j < nj; j++)
        if (pkm_model_joint(mc->m, j)->actuated) tau0[k++] = res[j].drive;
    e1->destroy(&eng);
    assert_pkm_ok(forward_run(e1, mc, tau0, y1, &ctx), &ctx);
    assert_pkm_ok(forward_run(e2, mc, tau0, y2, &ctx), &ctx);
    d[3] = worst_diff(y1, y2, 8 * (size_t)na);
    free(res);
    free(ga);
    free(a);
}

/* Names are unique and lead back to their entry, whose id is its index; every entry complete. */
static void test_table(void **state)
{
    (void)state;
    for (int k = 0; k < PKM_DYN_ENGINE_COUNT; k++) {
        const pkm_dyn_engine *e = &pkm_dyn_engines[k];
        assert_int_equal(e->id, k);
        assert_ptr_equal(pkm_dyn_engine_find(e->name), e);
        assert_non_null(e->description);
        assert_non_null(e->accepts);
        assert_non_null(e->create);
        assert_non_null(e->destroy);
        assert_non_null(e->inverse);
        assert_non_null(e->forward);
    }
    assert_null(pkm_dyn_engine_find("mast"));
    assert_null(pkm_dyn_engine_find(NULL));
}

/* Every pair of engines on every model both accept; the general one accepts them all. */
static void test_battery(void **state)
{
    (void)state;
    model_case mc[NMODEL_MAX];
    memset(mc, 0, sizeof(mc));
    const int n = all_models(mc);
    double worst = 0.0;
    int pairs = 0;
    for (int k = 0; k < n; k++) {
        int ok[PKM_DYN_ENGINE_COUNT];
        for (int e = 0; e < PKM_DYN_ENGINE_COUNT; e++) {
            pkm_ctx ctx;
            pkm_ctx_clear(&ctx);
            ok[e] = pkm_dyn_engines[e].accepts(mc[k].m, &ctx) == PKM_OK;
        }
        assert_true(ok[PKM_DYN_ENGINE_MBS] && ok[PKM_DYN_ENGINE_DENSE]);
        assert_int_equal(ok[PKM_DYN_ENGINE_CHAIN], mc[k].chain);
        assert_ptr_equal(
            pkm_dyn_engine_choose(mc[k].m),
            &pkm_dyn_engines[ok[PKM_DYN_ENGINE_CHAIN] ? PKM_DYN_ENGINE_CHAIN : PKM_DYN_ENGINE_MBS]);
        for (int e1 = 0; e1 < PKM_DYN_ENGINE_COUNT; e1++)
            for (int e2 = e1 + 1; e2 < PKM_DYN_ENGINE_COUNT; e2++) {
                if (!ok[e1] || !ok[e2]) continue;
                double d[4];
                compare_pair(&pkm_dyn_engines[e1], &pkm_dyn_engines[e2], &mc[k], d);
                printf("%-13s %-6s vs %-9s: drives %.2e, coordinates %.2e, reactions %.2e, "
                       "forward %.2e\n",
                       mc[k].name, pkm_dyn_engines[e1].name, pkm_dyn_engines[e2].name, d[0], d[1],
                       d[2], d[3]);
                for (int i = 0; i < 4; i++) {
                    assert_true(d[i] <= TOL);
                    worst = fmax(worst, d[i]);
                }
                pairs++;
            }
    }
    printf("%d pairs, worst agreement %.2e\n", pairs, worst);
    free_models(mc, n);
}

/* The chain engine refuses, naming why: 1 if it does. */
static int refused(const pkm_model *m)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_dyn_engines[PKM_DYN_ENGINE_CHAIN].accepts(m, &ctx);
    if (st == PKM_OK) return 0;
    assert_int_equal(st, PKM_ERR_MODEL);
    assert_true(strlen(ctx.msg) > 0);
    printf("refused: %s\n", ctx.msg);
    return 1;
}

/* What the chain engine must refuse: a passive serial joint, a lumped mass, a branch off the
 * chain, a platform's robot; what it takes: the same serial chain actuated. */
static void test_chain_refusals(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = two_links(1);
    assert_false(refused(m));
    pkm_model_destroy(&m);
    m = two_links(0);
    assert_true(refused(m));
    pkm_model_destroy(&m);
    model_case mc = {0};
    add_machine(&mc, "boom1");
    const pkm_mass_desc md = {.name = "tip", .joint = 0, .side = 1, .mass = 2.0};
    assert_pkm_ok(pkm_model_add_mass(mc.m, &md, NULL, &ctx), &ctx);
    assert_true(refused(mc.m));
    pkm_model_destroy(&mc.m);
    add_machine(&mc, "crane4");
    pkm_rigid_desc extra = {.name = "extra", .mass = 1.0};
    int id = -1;
    assert_pkm_ok(pkm_model_add_rigid(mc.m, &extra, &id, &ctx), &ctx);
    const pkm_joint_desc j = {.name = "branch",
                              .type = PKM_JOINT_REVOLUTE,
                              .body_a = PKM_GROUND,
                              .body_b = id,
                              .axis = {1.0, 0.0, 0.0},
                              .actuated = 1};
    assert_pkm_ok(pkm_model_add_joint(mc.m, &j, NULL, &ctx), &ctx);
    assert_true(refused(mc.m));
    pkm_model_destroy(&mc.m);
    assert_true(add_case(&mc, "navaro", 0));
    assert_true(refused(mc.m));
    assert_ptr_equal(pkm_dyn_engine_choose(mc.m), &pkm_dyn_engines[PKM_DYN_ENGINE_MBS]);
    pkm_model_destroy(&mc.m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_chain_refusals),
        cmocka_unit_test(test_battery),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
