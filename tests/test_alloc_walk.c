/* tests/test_alloc_walk.c: every allocation of the library made to fail in turn.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each stage (model building, assembly, one solve, the per-pose analysis of studies/ at two
 * poses, the analytic, spline and CSV trajectories) is run with its k-th allocation failing, for
 * k = 0, 1, ... until a run completes without reaching the failure; every failing run must return
 * PKM_ERR_NOMEM with a message and no other status, and free what it allocated (LeakSanitizer
 * checks that in the ASan build, where this test runs too).
 *
 * The countdown is here, not in core/: this executable is linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (tests/CMakeLists.txt), so the linker sends the
 * calls of the objects linked statically (the pkmflex archive's, this file's) to __wrap_malloc ...
 * below, while CHOLMOD, ARPACK, LAPACK and HDF5, shared libraries, keep their own malloc. The
 * library keeps no global state (docs/architecture.md) and needs no test hook. Failures of those
 * external libraries are mapped to PKM_ERR_NOMEM by the status checks of their callers. */
#include "navaro_defaults.h"

#include "pkm/analysis.h"
#include "pkm/assembly.h"
#include "pkm/cases.h"
#include "pkm/io.h"
#include "pkm/modal.h"
#include "pkm/model.h"
#include "pkm/pencil.h"
#include "pkm/trajectory.h"

#include <stdlib.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *ptr, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *ptr, size_t size);

/* Allocations left before the failing one; negative: none fails. */
static long alloc_countdown = -1;
/* Whether the armed failure was reached. */
static int alloc_failed;

static int alloc_fails_now(void)
{
    if (alloc_countdown < 0 || alloc_countdown-- > 0) return 0;
    alloc_failed = 1;
    return 1;
}

void *__wrap_malloc(size_t size)
{
    return alloc_fails_now() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size)
{
    return alloc_fails_now() ? NULL : __real_calloc(count, size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
    return alloc_fails_now() ? NULL : __real_realloc(ptr, size);
}

/* One stage: runs with allocations possibly failing, frees everything it made. */
typedef pkm_status (*stage_fn)(const void *arg, pkm_ctx *ctx);

/* Run stage with its k-th allocation failing for k = 0, 1, ...; returns the number of failure
 * points visited (allocations of a complete run). */
static long walk(const char *name, stage_fn stage, const void *arg)
{
    for (long k = 0;; k++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        alloc_failed = 0;
        alloc_countdown = k;
        const pkm_status st = stage(arg, &ctx);
        alloc_countdown = -1;
        if (!alloc_failed) {
            assert_pkm_ok(st, &ctx);
            print_message("%s: %ld allocation failure points, all PKM_ERR_NOMEM\n", name, k);
            /* The wrapper sees the library's allocations (else the walk tests nothing). */
            assert_true(k > 0);
            return k;
        }
        if (st != PKM_ERR_NOMEM || ctx.status != PKM_ERR_NOMEM || ctx.msg[0] == '\0') {
            print_error("%s, allocation %ld failing: returned %d (%s), ctx %d at %s:%d: %s\n", name,
                        k, (int)st, pkm_status_str(st), (int)ctx.status, ctx.file ? ctx.file : "-",
                        ctx.line, ctx.msg);
            fail();
        }
    }
}

/* Models and pencils built with every allocation succeeding, the inputs of the later stages. */
typedef struct fixture {
    pkm_navaro_params navaro;
    pkm_pss5upu_params pss5upu;
    pkm_model *model;   /* NaVARo at pose 1 of Table 3 */
    pkm_model *model2;  /* NaVARo at another pose */
    pkm_pencil *pencil; /* its tree-formulation pencil */
} fixture;

static const double navaro_pose[3] = {0.0, 0.0, 0.0};
static const double navaro_pose2[3] = {0.05, -0.1, -1.0471975511965976};
/* A pose off every symmetry of the 5-PSS/UPU, so no branch of the build is skipped. */
static const double pss5upu_pose[5] = {0.01, 0.02, 0.0, 0.05, -0.03};

static pkm_status build_navaro(const void *arg, pkm_ctx *ctx)
{
    const fixture *f = arg;
    pkm_model *m = NULL;
    const pkm_status st = pkm_navaro_build(&f->navaro, navaro_pose, &m, ctx);
    pkm_model_destroy(&m);
    return st;
}

static pkm_status build_pss5upu(const void *arg, pkm_ctx *ctx)
{
    const fixture *f = arg;
    pkm_model *m = NULL;
    const pkm_status st = pkm_pss5upu_build(&f->pss5upu, pss5upu_pose, &m, ctx);
    pkm_model_destroy(&m);
    return st;
}

static pkm_status assemble(const pkm_model *m, pkm_formulation form, pkm_ctx *ctx)
{
    pkm_pencil *p = NULL;
    const pkm_status st = pkm_assemble(m, form, &p, NULL, ctx);
    pkm_pencil_destroy(&p);
    return st;
}

static pkm_status assemble_tree(const void *arg, pkm_ctx *ctx)
{
    return assemble(((const fixture *)arg)->model, PKM_FORM_TREE, ctx);
}

static pkm_status assemble_nodal(const void *arg, pkm_ctx *ctx)
{
    return assemble(((const fixture *)arg)->model, PKM_FORM_NODAL, ctx);
}

/* The 5-PSS/UPU's quintic links and lead screws, nodal formulation (its default). */
static pkm_status assemble_pss5upu(const void *arg, pkm_ctx *ctx)
{
    const fixture *f = arg;
    pkm_model *m = NULL;
    pkm_status st = pkm_pss5upu_build(&f->pss5upu, pss5upu_pose, &m, ctx);
    if (st == PKM_OK) st = assemble(m, PKM_FORM_NODAL, ctx);
    pkm_model_destroy(&m);
    return st;
}

/* Through the assembly cache, twice: the recording pass, then the scatter into its pencil. */
static pkm_status assemble_cached(const void *arg, pkm_ctx *ctx)
{
    const fixture *f = arg;
    pkm_asm_cache *c = NULL;
    pkm_status st = pkm_asm_cache_create(&c, ctx);
    for (int pass = 0; pass < 2 && st == PKM_OK; pass++) {
        const pkm_pencil *p = NULL;
        int64_t version = 0;
        st = pkm_assemble_cached(f->model, PKM_FORM_TREE, c, &p, &version, NULL, ctx);
    }
    pkm_asm_cache_destroy(&c);
    return st;
}

static const int nev = 6;

static pkm_status solve_arpack(const void *arg, pkm_ctx *ctx)
{
    const pkm_pencil *p = ((const fixture *)arg)->pencil;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    pkm_modal *sv = NULL;
    pkm_modes *md = NULL;
    pkm_status st = pkm_modal_create(p, &sv, ctx);
    if (st == PKM_OK) st = pkm_modes_create(p->n, nev, &md, ctx);
    if (st == PKM_OK) st = pkm_modal_solve(sv, p, &o, md, ctx);
    pkm_modes_destroy(&md);
    pkm_modal_destroy(&sv);
    return st;
}

static pkm_status solve_dense(const void *arg, pkm_ctx *ctx)
{
    const pkm_pencil *p = ((const fixture *)arg)->pencil;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    pkm_modes *md = NULL;
    pkm_status st = pkm_modes_create(p->n, nev, &md, ctx);
    if (st == PKM_OK) st = pkm_modal_solve_dense(p, &o, md, ctx);
    pkm_modes_destroy(&md);
    return st;
}

typedef struct analysis_arg {
    const fixture *f;
    pkm_eigensolver eig;
} analysis_arg;

/* The per-pose analysis of studies/ (assembly cache, kept symbolic analysis) at two poses, with
 * the eigensolver a->eig. */
static pkm_status analyse_two_poses(const void *arg, pkm_ctx *ctx)
{
    const analysis_arg *a = arg;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    pkm_analysis *an = NULL;
    pkm_status st = pkm_analysis_create(PKM_FORM_TREE, a->eig, &o, &an, ctx);
    const pkm_model *models[2] = {a->f->model, a->f->model2};
    for (int k = 0; k < 2 && st == PKM_OK; k++) {
        const pkm_modes *md = NULL;
        st = pkm_analysis_solve(an, models[k], &md, NULL, ctx);
    }
    pkm_analysis_destroy(&an);
    return st;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->navaro = navaro_defaults();
    /* an elastic clutch and joint masses: their allocations are walked too (issue 12) */
    f->navaro.clutch_k[0] = 2000.0;
    f->navaro.joint_mass[1] = f->navaro.joint_mass[4] = 0.3;
    case_defaults("pss5upu", &f->pss5upu, sizeof(f->pss5upu));
    f->pss5upu.motor_k = 2000.0;
    f->pss5upu.motor_inertia = 1e-4;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_navaro_build(&f->navaro, navaro_pose, &f->model, &ctx), &ctx);
    assert_pkm_ok(pkm_navaro_build(&f->navaro, navaro_pose2, &f->model2, &ctx), &ctx);
    assert_pkm_ok(pkm_assemble(f->model, PKM_FORM_TREE, &f->pencil, NULL, &ctx), &ctx);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pkm_pencil_destroy(&f->pencil);
    pkm_model_destroy(&f->model);
    pkm_model_destroy(&f->model2);
    free(f);
    return 0;
}

static void test_build(void **state)
{
    walk("navaro build", build_navaro, *state);
    walk("pss5upu build", build_pss5upu, *state);
}

static void test_assembly(void **state)
{
    walk("navaro tree assembly", assemble_tree, *state);
    walk("navaro nodal assembly", assemble_nodal, *state);
    walk("pss5upu build + nodal assembly", assemble_pss5upu, *state);
    walk("navaro tree assembly, cached twice", assemble_cached, *state);
}

static void test_solve(void **state)
{
    walk("navaro ARPACK solve", solve_arpack, *state);
    walk("navaro dense solve", solve_dense, *state);
    for (int k = 0; k < PKM_EIGENSOLVER_COUNT; k++) {
        const analysis_arg arg = {*state, pkm_eigensolver_types[k].id};
        char name[96];
        snprintf(name, sizeof(name), "navaro analysis at two poses, %s",
                 pkm_eigensolver_types[k].name);
        walk(name, analyse_two_poses, &arg);
    }
}

static pkm_status trajectory_analytic(const void *arg, pkm_ctx *ctx)
{
    (void)arg;
    const pkm_traj_coord coord[2] = {{PKM_TRAJ_POLY2, {0.0, 0.0, 0.2, 0.0}},
                                     {PKM_TRAJ_QUINTIC, {0.0, 1.0, 2.0, 0.0}}};
    const pkm_traj_desc d = {"walk", NULL, 2.0, coord};
    pkm_trajectory *tr = NULL;
    const pkm_status st = pkm_trajectory_create_analytic(&d, 2, &tr, ctx);
    pkm_trajectory_destroy(&tr);
    return st;
}

static pkm_status trajectory_spline(const void *arg, pkm_ctx *ctx)
{
    (void)arg;
    const double t[5] = {0.0, 0.1, 0.3, 0.4, 1.0}, q[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    pkm_trajectory *tr = NULL;
    const pkm_status st = pkm_trajectory_create_spline(2, 5, t, q, &tr, ctx);
    pkm_trajectory_destroy(&tr);
    return st;
}

/* The CSV reader on a file of 100 samples (its arrays grow past their first 64). */
static pkm_status trajectory_csv(const void *arg, pkm_ctx *ctx)
{
    static const char *const names[2] = {"x", "theta"};
    pkm_trajectory *tr = NULL;
    const pkm_status st = pkm_trajectory_read_csv(arg, names, 2, &tr, ctx);
    pkm_trajectory_destroy(&tr);
    return st;
}

static void test_trajectory(void **state)
{
    (void)state;
    walk("analytic trajectory", trajectory_analytic, NULL);
    walk("spline trajectory", trajectory_spline, NULL);
    const char *path = PKM_TEST_OUT "/alloc_walk_trajectory.csv";
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "t,theta,x\n");
    for (int i = 0; i < 100; i++)
        fprintf(f, "%g,%g,%g\n", 0.01 * i, sin(0.01 * i), 0.5 * i);
    assert_int_equal(fclose(f), 0);
    walk("trajectory CSV file", trajectory_csv, path);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_assembly),
        cmocka_unit_test(test_solve),
        cmocka_unit_test(test_trajectory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
