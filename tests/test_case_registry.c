/* tests/test_case_registry.c: the built-in cases by name (io/case_registry.c): pkm_case_names
 * lists the compiled cases of pkm_case_list() and the robot files embedded in the library (tree5,
 * loop3: Guo, Ju, Wang 2024, Tables 2 and 3), each once; pkm_case_open opens every one, takes a
 * robot file's --set into its document, leaves the rest to the parameter table, and refuses an
 * unknown name naming the known ones.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include <string.h>

/* The index of name in the NULL-terminated list names, or -1. */
static int index_of(const char *const *names, const char *name)
{
    for (int k = 0; names[k] != NULL; k++)
        if (strcmp(names[k], name) == 0) return k;
    return -1;
}

/* The names: every compiled case, tree5 and loop3, nothing else, none twice; each opens as the
 * case of its name with its embedded text. */
static void test_names(void **state)
{
    (void)state;
    const char *const *names = pkm_case_names();
    int n = 0, compiled = 0;
    for (; names[n] != NULL; n++)
        assert_int_equal(index_of(names, names[n]), n);
    for (const pkm_case *const *c = pkm_case_list(); *c != NULL; c++, compiled++)
        assert_true(index_of(names, (*c)->name) >= 0);
    assert_true(index_of(names, "tree5") >= 0 && index_of(names, "loop3") >= 0);
    assert_null(pkm_case_find("tree5"));
    assert_null(pkm_case_find("loop3"));
    assert_int_equal(n, compiled + 2);
    for (int k = 0; k < n; k++) {
        const pkm_case *c = NULL;
        void *params = NULL;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_pkm_ok(pkm_case_open(names[k], NULL, 0, NULL, &c, &params, &ctx), &ctx);
        assert_string_equal(c->name, names[k]);
        const char *text = pkm_case_text(names[k]);
        assert_non_null(text);
        if (pkm_case_find(names[k]) != NULL) {
            assert_ptr_equal(c, pkm_case_find(names[k]));
            assert_ptr_equal(text, c->yaml);
        } else {
            char want[64];
            snprintf(want, sizeof want, "\nrobot: %s\n", names[k]);
            assert_non_null(strstr(text, want));
            snprintf(want, sizeof want, "cases/%s.yaml", names[k]);
            assert_string_equal(c->yaml_name, want);
            assert_int_equal(c->analyses, PKM_CASE_DYNAMICS); /* rigid bodies only */
        }
        pkm_case_params_destroy(&params);
        assert_null(params);
    }
    assert_null(pkm_case_text("nosuch"));
    assert_null(pkm_case_text(NULL));
}

/* An unknown name: PKM_ERR_INVALID naming it and the known ones, nothing returned. */
static void test_unknown(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("navaro");
    void *params = &c;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    int applied[1] = {7};
    const char *sets[1] = {"gravity.z=-1"};
    assert_int_equal(pkm_case_open("tree6", sets, 1, applied, &c, &params, &ctx), PKM_ERR_INVALID);
    assert_null(c);
    assert_null(params);
    assert_int_equal(applied[0], 0);
    assert_non_null(strstr(ctx.msg, "'tree6'"));
    for (const char *const *k = pkm_case_names(); *k != NULL; k++)
        assert_non_null(strstr(ctx.msg, *k));
}

/* --set on tree5: values of its document by their dotted paths taken as the file's own (the mass
 * of link 1, Table 2's 1 kg, doubled; the friction law of its dynamics block); a bad value is a
 * fault at its place in cases/tree5.yaml; a key that names nothing is refused. A compiled case
 * leaves every set to its parameter table. */
static void test_sets(void **state)
{
    (void)state;
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const char *sets[2] = {"bodies.link 1.rigid.mass=2 kg", "friction.model=stribeck"};
    int applied[2] = {0, 0};
    assert_pkm_ok(pkm_case_open("tree5", sets, 2, applied, &c, &params, &ctx), &ctx);
    assert_int_equal(applied[0], 1);
    assert_int_equal(applied[1], 1);
    assert_int_equal(pkm_case_dynamics_of(c, params)->friction_model, PKM_FRICTION_STRIBECK);
    pkm_model *m = NULL;
    assert_pkm_ok(c->build_rigid(params, pkm_case_rigid_pose(c), &m, &ctx), &ctx);
    double total = 0.0;
    for (int b = 0; b < pkm_model_body_count(m); b++)
        total += pkm_model_body(m, b)->mass;
    assert_close(total, 2.0 + 3.0 + 3.0 + 2.0 + 2.0, 1e-15, 0.0);
    pkm_model_destroy(&m);
    pkm_case_params_destroy(&params);

    const char *bad[1] = {"bodies.link 1.rigid.mass=heavy"};
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_case_open("tree5", bad, 1, applied, &c, &params, &ctx), PKM_ERR_PARSE);
    assert_null(params);
    assert_true(strncmp(ctx.msg, "cases/tree5.yaml:", 17) == 0);
    const char *none[1] = {"bodies.link 9.rigid.mass=1 kg"};
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_case_open("loop3", none, 1, applied, &c, &params, &ctx), PKM_ERR_INVALID);
    assert_null(params);
    assert_non_null(strstr(ctx.msg, "cases/loop3.yaml"));
    assert_non_null(strstr(ctx.msg, "link 9"));

    /* A compiled case takes none into a document: every set left to its table. */
    const char *nav[1] = {"link_length=0.2"};
    applied[0] = 1;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_case_open("navaro", nav, 1, applied, &c, &params, &ctx), &ctx);
    assert_int_equal(applied[0], 0);
    assert_ptr_equal(c, pkm_case_find("navaro"));
    pkm_case_params_destroy(&params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
