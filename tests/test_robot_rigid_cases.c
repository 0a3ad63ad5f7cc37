/* tests/test_robot_rigid_cases.c: the rigid-body cases of Guo, Ju, Wang 2024 (tree5, sec. 4.1;
 * loop3, sec. 4.2) written as robot files (examples/tree5.yaml, examples/loop3.yaml: pose
 * coordinates that name joints, rigid bodies only) against the built-in cases (cases/tree5.c,
 * cases/loop3.c), which share no builder code with them: the same rigid-body model, and
 * pkm_dynamics_run along the case's trajectory giving the same drives and reactions to 1e-10
 * under each friction law. The reference values of tests/test_dynamics.c run on the files too.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dyn_util.h"

#include "pkm/dynrun.h"

#define EXAMPLES PKM_SOURCE_DIR "/examples/"

/* Every row of a run: the joints' results, row after row. */
typedef struct run_rows {
    int nj, n;
    double t[512];
    pkm_joint_result *res;
    const pkm_model *model; /* valid during the run only */
    char names[16][PKM_NAME_LEN];
    pkm_joint_type type[16];
    int actuated[16], cut[16];
} run_rows;

static int keep_row(void *user, const pkm_dynamics_row *row)
{
    run_rows *r = user;
    const int nj = pkm_model_joint_count(row->model);
    assert_true(nj <= 16 && row->step < 512);
    if (row->step == 0) {
        r->nj = nj;
        for (int j = 0; j < nj; j++) {
            const pkm_joint *jt = pkm_model_joint(row->model, j);
            snprintf(r->names[j], PKM_NAME_LEN, "%s", jt->name);
            r->type[j] = jt->type;
            r->actuated[j] = jt->actuated;
            r->cut[j] = jt->cut;
        }
    }
    r->t[row->step] = row->t;
    memcpy(r->res + row->step * nj, row->joint, sizeof(pkm_joint_result) * (size_t)nj);
    r->n = (int)row->step + 1;
    return 0;
}

/* The case named by source (dyn_load), its parameters set by the texts KEY=VALUE of sets
 * (pkm_case_param_set: the dynamics block, e.g. friction.model), along its default trajectory
 * over [0, duration] at n times. */
static void run(const char *source, const char *const *sets, int nsets, int n, run_rows *r)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = NULL;
    void *params = dyn_load(source, &c);
    assert_true(c->analyses == PKM_CASE_DYNAMICS); /* rigid bodies only: no elastic model */
    for (int i = 0; i < nsets; i++) {
        char key[64];
        const char *eq = strchr(sets[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
        assert_pkm_ok(pkm_case_param_set(c, params, key, eq + 1, &ctx), &ctx);
    }
    pkm_trajectory *tr = NULL;
    assert_pkm_ok(pkm_case_trajectory(c, NULL, c->traj[0].duration, &tr, &ctx), &ctx);
    const pkm_dynamics_opts o = {.t0 = 0.0, .t1 = c->traj[0].duration, .n = n};
    memset(r, 0, sizeof(*r));
    r->res = calloc((size_t)n * 16, sizeof(pkm_joint_result));
    assert_non_null(r->res);
    assert_pkm_ok(pkm_dynamics_run(c, params, tr, &o, keep_row, r, &ctx), &ctx);
    assert_int_equal(r->n, n);
    pkm_trajectory_destroy(&tr);
    pkm_case_params_destroy(&params);
}

/* The largest |x| of one quantity of every joint and row (the scale of its comparison). */
static double largest(const run_rows *r, double (*get)(const pkm_joint_result *, int), int k)
{
    double m = 0.0;
    for (int i = 0; i < r->n * r->nj; i++)
        m = fmax(m, fabs(get(&r->res[i], k)));
    return m;
}

static double get_wrench(const pkm_joint_result *x, int k)
{
    return x->wrench[k];
}

static double get_drive(const pkm_joint_result *x, int k)
{
    return k == 0 ? x->drive : k == 1 ? x->ideal : x->friction;
}

static double get_load(const pkm_joint_result *x, int k)
{
    return k == 0 ? x->f_axial : k == 1 ? x->f_radial : x->m_bending;
}

static double get_motion(const pkm_joint_result *x, int k)
{
    return k == 0 ? x->q[0] : k == 1 ? x->qd[0] : x->qdd[0];
}

/* The file's run against the built-in's: the same joints (names, types, flags, order), and the
 * largest difference of any quantity of any joint at any time relative to that quantity's
 * largest magnitude over the built-in's run (the drives, ideal torques and friction on one
 * scale, each reaction component and load on its own, the joint motion on its own). */
static double compare(const run_rows *file, const run_rows *builtin)
{
    assert_int_equal(file->nj, builtin->nj);
    for (int j = 0; j < file->nj; j++) {
        assert_string_equal(file->names[j], builtin->names[j]);
        assert_int_equal(file->type[j], builtin->type[j]);
        assert_int_equal(file->actuated[j], builtin->actuated[j]);
        assert_int_equal(file->cut[j], builtin->cut[j]);
    }
    static double (*const get[4])(const pkm_joint_result *, int) = {get_wrench, get_drive, get_load,
                                                                    get_motion};
    static const int count[4] = {6, 3, 3, 3};
    double worst = 0.0;
    for (int g = 0; g < 4; g++)
        for (int k = 0; k < count[g]; k++) {
            const double scale = fmax(largest(builtin, get[g], g == 1 ? 0 : k), 1e-300);
            for (int i = 0; i < file->n * file->nj; i++)
                worst = fmax(worst,
                             fabs(get[g](&file->res[i], k) - get[g](&builtin->res[i], k)) / scale);
        }
    return worst;
}

/* The file against the built-in along the case's trajectory under the three friction laws of
 * the paper's sections (the file's friction block is the built-in's). */
static void file_equals_builtin(const char *name, int n)
{
    static const char *const laws[3] = {"none", "coulomb-viscous", "stribeck"};
    char path[512];
    snprintf(path, sizeof path, EXAMPLES "%s.yaml", name);
    for (int l = 0; l < 3; l++) {
        char set[64];
        snprintf(set, sizeof set, "friction.model=%s", laws[l]);
        const char *sets[1] = {set};
        run_rows a, b;
        run(path, sets, 1, n, &a);
        run(name, sets, 1, n, &b);
        const double worst = compare(&a, &b);
        /* Not a trivial run: the drives move, and friction acts where the law says. */
        assert_true(largest(&b, get_drive, 0) > 0.1);
        assert_true((largest(&b, get_drive, 2) > 0.0) == (l > 0));
        print_message("%s, friction %s: %d times x %d joints, worst relative difference %.2e\n",
                      name, laws[l], a.n, a.nj, worst);
        assert_true(worst < 1e-10);
        free(a.res);
        free(b.res);
    }
}

/* tree5 along `accel` (5 s, every 0.05 s). */
static void test_tree5_file(void **state)
{
    (void)state;
    file_equals_builtin("tree5", 101);
}

/* loop3 along `crank` (14 s, every 0.1 s; the closure followed as `pkmflex dynamics` does). */
static void test_loop3_file(void **state)
{
    (void)state;
    file_equals_builtin("loop3", 141);
}

/* The comparison can fail: gravity moved by a part in 1e6 in the file (the loads along the
 * axes change) is seen. */
static void test_compare_sees_a_change(void **state)
{
    (void)state;
    const char *sets[1] = {"gravity.z=-9.8000098 m/s^2"};
    run_rows a, b;
    run(EXAMPLES "tree5.yaml", sets, 1, 11, &a);
    run("tree5", NULL, 0, 11, &b);
    const double worst = compare(&a, &b);
    print_message("tree5 with gravity 1e-6 stronger in the file: worst difference %.2e\n", worst);
    assert_true(worst > 5e-7);
    free(a.res);
    free(b.res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree5_file),
        cmocka_unit_test(test_loop3_file),
        cmocka_unit_test(test_compare_sees_a_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
