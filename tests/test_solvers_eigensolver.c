/* tests/test_solvers_eigensolver.c: one battery over every entry of the eigensolver type table.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L /* unlink */

#include "map_fixture.h"
#include "navaro_defaults.h"

#include "pkm/analysis.h"
#include "pkm/cases.h"
#include "pkm/eigensolver.h"
#include "solvers/solvers_impl.h"

#include <hdf5.h>

#include <math.h>
#include <string.h>
#include <unistd.h>

/* NaVARo (defaults, tree formulation) at pose 1 of Table 3 (cases/navaro/table3_cast3m.csv). */
static pkm_pencil *navaro_pose1(void)
{
    const pkm_navaro_params par = navaro_defaults();
    const double pose[3] = {0.0, 0.0, 0.0};
    return case_pencil("navaro", &par, pose, PKM_FORM_TREE, NULL);
}

/* Names are unique and lead back to their entry, whose id is its index. */
static void test_table_names(void **state)
{
    (void)state;
    for (int k = 0; k < PKM_EIGENSOLVER_COUNT; k++) {
        const pkm_eigensolver_type *t = &pkm_eigensolver_types[k];
        assert_int_equal(t->id, k);
        assert_ptr_equal(pkm_eigensolver_type_of(t->id), t);
        assert_ptr_equal(pkm_eigensolver_type_find(t->name), t);
        assert_non_null(t->description);
        assert_non_null(t->check_size);
        assert_non_null(t->create);
        assert_non_null(t->solve);
        assert_non_null(t->destroy);
    }
    assert_null(pkm_eigensolver_type_of((pkm_eigensolver)PKM_EIGENSOLVER_COUNT));
    assert_null(pkm_eigensolver_type_find("lanczos"));
    assert_null(pkm_eigensolver_type_find(NULL));
}

/* Every entry: the frequencies of the dense reference at pose 1, a spectrum that the Sylvester
 * count finds complete, and through pkm_analysis the same values again. */
static void test_every_solver_pose1(void **state)
{
    (void)state;
    const int nev = 8;
    pkm_pencil *p = navaro_pose1();
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    pkm_modes *ref = NULL, *md = NULL;
    assert_pkm_ok(pkm_modes_create(p->n, nev, &ref, &ctx), &ctx);
    assert_pkm_ok(pkm_modes_create(p->n, nev, &md, &ctx), &ctx);
    assert_pkm_ok(pkm_modal_solve_dense(p, &o, ref, &ctx), &ctx);
    pkm_linsolve *ldlt = NULL;
    assert_pkm_ok(pkm_linsolve_create(p, PKM_LINSOLVE_LDLT, &ldlt, &ctx), &ctx);
    for (int k = 0; k < PKM_EIGENSOLVER_COUNT; k++) {
        const pkm_eigensolver_type *t = &pkm_eigensolver_types[k];
        void *solver = NULL;
        assert_pkm_ok(t->check_size(p->n, &o, &ctx), &ctx);
        assert_pkm_ok(t->create(p, &solver, &ctx), &ctx);
        assert_non_null(solver);
        assert_pkm_ok(t->solve(solver, p, &o, md, &ctx), &ctx);
        for (int j = 0; j < nev; j++)
            assert_close(md->freq_hz[j], ref->freq_hz[j], 1e-9, 0.0);
        int missing = -1;
        assert_pkm_ok(
            pkm_modal_check_complete(ldlt, p, md->omega2, NULL, nev, nev, &missing, NULL, &ctx),
            &ctx);
        assert_int_equal(missing, 0);
        t->destroy(&solver);
        assert_null(solver);
        t->destroy(&solver);

        pkm_analysis *an = NULL;
        const pkm_modes *am = NULL;
        assert_pkm_ok(pkm_analysis_create(PKM_FORM_TREE, t->id, &o, &an, &ctx), &ctx);
        pkm_navaro_params par = navaro_defaults();
        pkm_model *m = NULL;
        const double pose[3] = {0.0, 0.0, 0.0};
        assert_pkm_ok(pkm_navaro_build(&par, pose, &m, &ctx), &ctx);
        assert_pkm_ok(pkm_analysis_solve(an, m, &am, NULL, &ctx), &ctx);
        for (int j = 0; j < nev; j++)
            assert_true(am->freq_hz[j] == md->freq_hz[j]);
        pkm_model_destroy(&m);
        pkm_analysis_destroy(&an);
    }
    pkm_linsolve_destroy(&ldlt);
    pkm_modes_destroy(&md);
    pkm_modes_destroy(&ref);
    pkm_pencil_destroy(&p);
}

/* Every entry refuses a pencil with a non-finite stiffness entry, and a pattern that is not
 * upper-triangular, with PKM_ERR_INVALID. */
static void test_every_solver_refuses_bad_pencil(void **state)
{
    (void)state;
    pkm_pencil *p = navaro_pose1();
    pkm_ctx ctx;
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = 4;
    pkm_modes *md = NULL;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_modes_create(p->n, o.nev, &md, &ctx), &ctx);
    for (int k = 0; k < PKM_EIGENSOLVER_COUNT; k++) {
        const pkm_eigensolver_type *t = &pkm_eigensolver_types[k];
        void *solver = NULL;
        pkm_ctx_clear(&ctx);
        assert_pkm_ok(t->create(p, &solver, &ctx), &ctx);
        const double k0 = p->k[3];
        p->k[3] = NAN;
        assert_int_equal(t->solve(solver, p, &o, md, &ctx), PKM_ERR_INVALID);
        assert_non_null(strstr(ctx.msg, "finite"));
        p->k[3] = k0;
        t->destroy(&solver);

        /* Column 1's entries moved below the diagonal: row 2 > column 1. */
        const int64_t q = p->colptr[1];
        const int64_t r0 = p->rowind[q];
        p->rowind[q] = 2;
        pkm_ctx_clear(&ctx);
        assert_int_equal(t->create(p, &solver, &ctx), PKM_ERR_INVALID);
        assert_null(solver);
        p->rowind[q] = r0;
    }
    pkm_modes_destroy(&md);
    pkm_pencil_destroy(&p);
}

/* Replace the string attribute `name` of the root of path by `value`. */
static void set_root_str(const char *path, const char *name, const char *value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_true(H5Adelete(f, name) >= 0);
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR);
    assert_true(t >= 0 && s >= 0 && H5Tset_size(t, strlen(value) + 1) >= 0);
    hid_t a = H5Acreate2(f, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0 && H5Awrite(a, t, value) >= 0);
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    assert_true(H5Fclose(f) >= 0);
}

/* The map file's `eigensolver` attribute: every entry's name is written and read back to its
 * entry; a name not in the table is refused with the table's names; the writer refuses a value
 * that is no entry. */
static void test_every_solver_in_map_file(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_eigensolvers.h5");
    pkm_map m, r;
    make_map(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int k = 0; k < PKM_EIGENSOLVER_COUNT; k++) {
        m.eigensolver = pkm_eigensolver_types[k].id;
        assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
        assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
        assert_int_equal(r.eigensolver, pkm_eigensolver_types[k].id);
        pkm_map_free(&r);
    }
    set_root_str(path, "eigensolver", "lanczos");
    assert_int_equal(pkm_map_read_h5(path, &r, &ctx), PKM_ERR_PARSE);
    for (int k = 0; k < PKM_EIGENSOLVER_COUNT; k++) {
        char quoted[64];
        snprintf(quoted, sizeof(quoted), "'%s'", pkm_eigensolver_types[k].name);
        assert_non_null(strstr(ctx.msg, quoted));
    }
    pkm_ctx_clear(&ctx);
    m.eigensolver = (pkm_eigensolver)PKM_EIGENSOLVER_COUNT;
    assert_int_equal(pkm_map_write_h5(&m, path, &ctx), PKM_ERR_INVALID);
    pkm_map_free(&m);
    assert_int_equal(unlink(path), 0);
    assert_no_open_objects();
}

/* The block solver along a line of 11 poses of a case (pose k = k step, k = 1 .. 11: off the
 * symmetric centre, whose exact zeros give another pattern), warm-started from pose
 * to pose, against ARPACK at every pose: frequencies within 1e-9 relative, the spectrum
 * complete, and no pose handed to ARPACK (pkm_modes.fallback): a pair that converged but would
 * fail the backward-error acceptance is iterated further instead. */
static int warm_line(const char *name, const void *par, int npose, const double *step,
                     pkm_formulation form, int steps)
{
    const int nev = 8;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    o.block_steps = steps;
    double pose[8] = {0};
    for (int a = 0; a < npose; a++)
        pose[a] = step[a];
    pkm_pencil *p = case_pencil(name, par, pose, form, NULL);
    const pkm_eigensolver_type *t = pkm_eigensolver_type_of(PKM_EIG_BLOCK);
    void *block = NULL;
    pkm_modal *arpack = NULL;
    pkm_modes *ref = NULL, *md = NULL;
    assert_pkm_ok(t->create(p, &block, &ctx), &ctx);
    assert_pkm_ok(pkm_modal_create(p, &arpack, &ctx), &ctx);
    assert_pkm_ok(pkm_modes_create(p->n, nev, &ref, &ctx), &ctx);
    assert_pkm_ok(pkm_modes_create(p->n, nev, &md, &ctx), &ctx);
    pkm_pencil_destroy(&p);
    int warm_steps = 0, projections = 0;
    for (int k = 0; k <= 10; k++) {
        for (int a = 0; a < npose; a++)
            pose[a] = (k + 1) * step[a];
        p = case_pencil(name, par, pose, form, NULL);
        assert_pkm_ok(pkm_modal_solve(arpack, p, &o, ref, &ctx), &ctx);
        assert_pkm_ok(t->solve(block, p, &o, md, &ctx), &ctx);
        assert_int_equal(md->fallback, 0);
        for (int j = 0; j < nev; j++)
            assert_close(md->freq_hz[j], ref->freq_hz[j], 1e-9, 0.0);
        if (k > 0) warm_steps += md->op_count;
        if (k > 0) projections += md->iterations;
        pkm_pencil_destroy(&p);
    }
    /* Warm starts converge in a few projections of 4 steps (12 columns): far below the 8 rounds
     * after which a pose goes to ARPACK. */
    assert_true(warm_steps <= 10 * 4 * 4 * 12);
    t->destroy(&block);
    pkm_modal_destroy(&arpack);
    pkm_modes_destroy(&md);
    pkm_modes_destroy(&ref);
    print_message("%s, block_steps %d: %d projections over 10 warm solves\n", name, steps,
                  projections);
    return projections;
}

/* NaVARo (x = 0.005 .. 0.055 m, y = 0.004 .. 0.044 m, tree formulation) and the 5-PSS/UPU (x =
 * 0.001 .. 0.011 m, nodal; before the backward-error test of the convergence check, 14 % of
 * the poses of a 30 x 30 map of its went to ARPACK, their backward error just above 1e-10 at a
 * relative residual of 1.3e-7). */
static void test_block_warm_line(void **state)
{
    (void)state;
    const pkm_navaro_params par = navaro_defaults();
    const double navaro_step[2] = {0.005, 0.004}, pss_step[2] = {0.001, 0.0};
    /* By default the steps before the next projection are those the slowest pair needs: fewer
     * projections than one step each (block_steps = 1: 50 against 23 here for NaVARo's 6 mm
     * steps, 37 against 20 for the 5-PSS/UPU, whose double frequencies converge slowly). */
    const int nav = warm_line("navaro", &par, 2, navaro_step, PKM_FORM_TREE, 0);
    assert_true(nav < warm_line("navaro", &par, 2, navaro_step, PKM_FORM_TREE, 1));
    const pkm_case *c = pkm_case_find("pss5upu");
    void *pss = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_case_params_create(c, &pss, &ctx), &ctx);
    const int adaptive = warm_line("pss5upu", pss, 2, pss_step, PKM_FORM_NODAL, 0);
    assert_true(adaptive < warm_line("pss5upu", pss, 2, pss_step, PKM_FORM_NODAL, 1));
    pkm_case_params_destroy(&pss);
}

/* A tolerance the block cannot reach: every solve goes to ARPACK, counted, with ARPACK's result
 * bit for bit. */
static void test_block_fallback(void **state)
{
    (void)state;
    const int nev = 6;
    pkm_pencil *p = navaro_pose1();
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    o.block_tol = 1e-300;
    const pkm_eigensolver_type *t = pkm_eigensolver_type_of(PKM_EIG_BLOCK);
    void *block = NULL;
    pkm_modes *ref = NULL, *md = NULL;
    assert_pkm_ok(t->create(p, &block, &ctx), &ctx);
    assert_pkm_ok(pkm_modes_create(p->n, nev, &ref, &ctx), &ctx);
    assert_pkm_ok(pkm_modes_create(p->n, nev, &md, &ctx), &ctx);
    assert_pkm_ok(pkm_modal_solve_dense(p, &o, ref, &ctx), &ctx);
    for (int k = 0; k < 2; k++) {
        assert_pkm_ok(t->solve(block, p, &o, md, &ctx), &ctx);
        assert_int_equal(md->fallback, 1);
        assert_true(md->iterations >= 1);
        for (int j = 0; j < nev; j++)
            assert_close(md->freq_hz[j], ref->freq_hz[j], 1e-9, 0.0);
    }
    o.block_tol = 0.0;
    o.block_steps = -1;
    assert_int_equal(t->solve(block, p, &o, md, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "block_steps"));
    t->destroy(&block);
    pkm_modes_destroy(&md);
    pkm_modes_destroy(&ref);
    pkm_pencil_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_names),
        cmocka_unit_test(test_every_solver_pose1),
        cmocka_unit_test(test_every_solver_refuses_bad_pencil),
        cmocka_unit_test(test_every_solver_in_map_file),
        cmocka_unit_test(test_block_warm_line),
        cmocka_unit_test(test_block_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
