/* tests/test_case_file.c: quantities with units, the parameter-table setter and YAML case files.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Expected values come from the unit definitions (1 mm = 1e-3 m, 1 deg = pi/180 rad, ...) and
 * from the NaVARo data of Germain et al. 2015, Tables 1-2, with the readings of
 * cases/navaro/README.md; error positions are counted by hand in the texts below. */
#include "test_util.h"

#include "pkm/casefile.h"
#include "pkm/cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PI 3.14159265358979323846

static double quantity(const char *text, const char *unit)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double v = -1.0;
    assert_pkm_ok(pkm_quantity_parse(text, unit, &v, &ctx), &ctx);
    return v;
}

/* 1. Every unit of the list, against its definition. Decimal prefixes are exact: "210 mm" is
 * the double nearest 0.21, as the literal 0.21 is. */
static void test_units(void **state)
{
    (void)state;
    assert_true(quantity("210 mm", "m") == 0.21);
    assert_true(quantity("21 cm", "m") == 0.21);
    assert_true(quantity("0.21", "m") == 0.21);
    assert_true(quantity("202.7mm", "m") == 0.2027);
    assert_true(quantity("  -1.5e3  mm ", "m") == -1.5);
    assert_true(quantity("+2.5E-1 m", "m") == 0.25);
    assert_true(quantity("74 GPa", "Pa") == 74e9);
    assert_true(quantity("74000 MPa", "Pa") == 74e9);
    assert_true(quantity("74000 N/mm^2", "Pa") == 74e9);
    assert_true(quantity("7.4e7 kPa", "Pa") == 74e9);
    assert_true(quantity("7.4e10 Pa", "Pa") == 74e9);
    assert_true(quantity("2.8 g/cm^3", "kg/m^3") == 2800.0);
    assert_true(quantity("2800 kg/m^3", "kg/m^3") == 2800.0);
    assert_true(quantity("2.4 cm^2", "m^2") == 2.4e-4);
    assert_true(quantity("240 mm^2", "m^2") == 2.4e-4);
    assert_true(quantity("2.4e-4 m^2", "m^2") == 2.4e-4);
    assert_true(quantity("11520 mm^4", "m^4") == 1.152e-8);
    assert_true(quantity("1.152 cm^4", "m^4") == 1.152e-8);
    assert_true(quantity("500 g", "kg") == 0.5);
    assert_true(quantity("3 kg", "kg") == 3.0);
    assert_true(quantity("2 kg m^2", "kg m^2") == 2.0);
    assert_true(quantity("2 kg*m^2", "kg m^2") == 2.0);
    assert_true(quantity("1000 g cm^2", "kg m^2") == 1e-4);
    assert_true(quantity("5e6 kg mm^2", "kg m^2") == 5.0);
    assert_true(quantity("2 N/mm", "N/m") == 2000.0);
    assert_true(quantity("2000 N/m", "N/m") == 2000.0);
    assert_true(quantity("0.5 rad", "rad") == 0.5);
    assert_close(quantity("30 deg", "rad"), PI / 6.0, 1e-15, 0.0);
    assert_close(quantity("-120 deg", "rad"), -2.0 * PI / 3.0, 1e-15, 0.0);
    assert_true(quantity("2000 N m/rad", "N m/rad") == 2000.0);
    assert_close(quantity("1 N m/deg", "N m/rad"), 180.0 / PI, 1e-15, 0.0);
    /* The rigid-body data of the dynamics cases. */
    assert_true(quantity("-9.8 m/s^2", "m/s^2") == -9.8);
    assert_true(quantity("9800 mm/s^2", "m/s^2") == 9.8);
    assert_true(quantity("30 mm/s", "m/s") == 0.03);
    assert_true(quantity("0.03 m/s", "m/s") == 0.03);
    assert_true(quantity("0.1 rad/s", "rad/s") == 0.1);
    assert_close(quantity("180 deg/s", "rad/s"), PI, 1e-15, 0.0);
    assert_true(quantity("0.2 rad/s^2", "rad/s^2") == 0.2); /* a robot file's poly2 */
    assert_close(quantity("90 deg/s^2", "rad/s^2"), PI / 2.0, 1e-15, 0.0);
    assert_true(quantity("0.01 N m s/rad", "N m s/rad") == 0.01);
    assert_true(quantity("0.01 N*m*s/rad", "N m s/rad") == 0.01);
    assert_true(quantity("5 N s/m", "N s/m") == 5.0);
    assert_true(quantity("7", "") == 7.0);
    assert_true(quantity(".5", "") == 0.5);
}

/* The message of a failed parse, which must contain every string of want. */
static void expect_quantity_error(const char *text, const char *unit, const char *want1,
                                  const char *want2)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double v = 42.0;
    assert_int_equal(pkm_quantity_parse(text, unit, &v, &ctx), PKM_ERR_INVALID);
    assert_true(v == 42.0);
    if (strstr(ctx.msg, want1) == NULL || (want2 != NULL && strstr(ctx.msg, want2) == NULL)) {
        print_error("'%s' [%s]: message '%s' lacks '%s' / '%s'\n", text, unit, ctx.msg, want1,
                    want2 ? want2 : "");
        fail();
    }
}

/* 2. Wrong dimension, unknown unit, not a number, out of range: PKM_ERR_INVALID naming the text
 * and the expected unit. */
static void test_unit_errors(void **state)
{
    (void)state;
    expect_quantity_error("3 kg", "m", "unit 'kg' is a mass", "a length in m (m, cm, mm)");
    expect_quantity_error("74 GPa", "kg/m^3", "is a stress", "a density in kg/m^3");
    expect_quantity_error("30 deg", "m^4", "is an angle", "m^4");
    expect_quantity_error("2 mm", "", "is a length", "a pure number");
    expect_quantity_error("1 furlong", "m", "unknown unit 'furlong'", "m (m, cm, mm)");
    expect_quantity_error("2 GPA", "Pa", "unknown unit 'GPA'", "(Pa, kPa, MPa, GPa, N/mm^2)");
    expect_quantity_error("abc", "m", "'abc' is not a number", "a length");
    expect_quantity_error("", "m", "is not a number", NULL);
    expect_quantity_error("mm", "m", "is not a number", NULL);
    expect_quantity_error("inf", "m", "is not a number", NULL);
    expect_quantity_error("nan", "Pa", "is not a number", NULL);
    expect_quantity_error("-", "Pa", "is not a number", NULL);
    expect_quantity_error("0x10", "m", "unknown unit 'x10'", NULL);
    expect_quantity_error("1e400", "m", "out of range", NULL);
    expect_quantity_error("1e308 GPa", "Pa", "out of range", NULL);
    expect_quantity_error("1 m", "furlong", "unit 'furlong'", NULL);
    expect_quantity_error("0.1 m/s", "rad/s", "is a velocity", "an angular velocity in rad/s");
    expect_quantity_error("1 N s/m", "N m s/rad", "is a viscous damping coefficient",
                          "(N m s/rad)");
    expect_quantity_error("9.8 m/s", "m/s^2", "is a velocity", "an acceleration in m/s^2");
    expect_quantity_error("0.2 rad/s", "rad/s^2", "is an angular velocity",
                          "an angular acceleration in rad/s^2 (rad/s^2, deg/s^2)");
}

static const pkm_case *navaro(void)
{
    const pkm_case *c = pkm_case_find("navaro");
    assert_non_null(c);
    return c;
}

static pkm_navaro_params *defaults(void)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *p = NULL;
    assert_pkm_ok(pkm_case_params_create(navaro(), &p, &ctx), &ctx);
    return p;
}

/* 3. The built-in values are those of Germain et al. 2015 read as cases/navaro/README.md says:
 * Table 1 (d1 = 0.7 / sqrt 3, l = 0.21, l5 = 0.2027 m), sec. 5.1 (E = 74 GPa, nu = 0.33,
 * rho = 2800 kg/m^3), Table 2 with Iy(5i) = 3.333e-9 and Ip = Iy + Iz, one element per link,
 * rotary inertia. */
static void test_builtin_values(void **state)
{
    (void)state;
    pkm_navaro_params *p = defaults();
    assert_close(p->base_radius, 0.7 / sqrt(3.0), 1e-16, 0.0);
    assert_true(p->link_length == 0.21);
    assert_true(p->platform_radius == 0.2027);
    assert_true(p->material.E == 74e9);
    assert_close(p->material.G, 74e9 / (2.0 * (1.0 + 0.33)), 1e-15, 0.0);
    assert_true(p->material.rho == 2800.0);
    const double leg[5] = {2.4e-4, 1.152e-8, 2.0e-9, 5.902e-9, 1.352e-8};
    const double plat[5] = {4e-4, 3.333e-9, 5.333e-8, 1.123e-8, 3.333e-9 + 5.333e-8};
    const pkm_section *s[2] = {&p->leg_section, &p->platform_section};
    const double *want[2] = {leg, plat};
    for (int k = 0; k < 2; k++) {
        assert_true(s[k]->A == want[k][0]);
        assert_true(s[k]->Iy == want[k][1]);
        assert_true(s[k]->Iz == want[k][2]);
        assert_true(s[k]->I0 == want[k][3]);
        assert_close(s[k]->Ip, want[k][4], 1e-15, 0.0);
    }
    assert_int_equal(p->elements_per_link, 1);
    assert_int_equal(p->mass_flags, PKM_FEM_ROTARY_INERTIA);
    pkm_case_params_destroy((void **)&p);
    assert_null(p);
}

/* 4. The source file cases/navaro.yaml loads to the built-in values bit for bit (the binary
 * embeds that file), and the case it names is navaro. */
static void test_source_file_is_builtin(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = NULL;
    void *p = NULL;
    assert_pkm_ok(pkm_case_file_load(PKM_SOURCE_DIR "/cases/navaro.yaml", &c, &p, &ctx), &ctx);
    assert_ptr_equal(c, navaro());
    pkm_navaro_params *d = defaults();
    assert_memory_equal(p, d, sizeof(*d));
    assert_non_null(strstr(c->yaml, "case: navaro"));
    pkm_case_params_destroy(&p);
    pkm_case_params_destroy((void **)&d);
}

/* 5. The one setter: units, integers, choices; the same values from a file and from --set. */
static void test_setter_and_file_agree(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_navaro_params *set = defaults();
    const char *kv[][2] = {{"link_length", "0.2"},     {"material.E", "7e10"},
                           {"leg.A", "2.5e-4"},        {"platform.Iy", "3.5e-9"},
                           {"elements_per_link", "3"}, {"mass", "translational"}};
    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
        assert_pkm_ok(pkm_case_param_set(navaro(), set, kv[i][0], kv[i][1], &ctx), &ctx);
    assert_true(set->link_length == 0.2);
    assert_true(set->material.E == 7e10);
    assert_int_equal(set->elements_per_link, 3);
    assert_int_equal(set->mass_flags, 0);

    const char text[] = "# an edited NaVARo\n"
                        "case: navaro\n"
                        "parameters:\n"
                        "  link_length: 200 mm\n"
                        "  material: {E: 70 GPa}\n"
                        "  leg:\n"
                        "    A: 2.5 cm^2\n"
                        "  platform: {Iy: 3500 mm^4}\n"
                        "  elements_per_link: 3\n"
                        "  mass: translational\n";
    const pkm_case *c = NULL;
    void *file = NULL;
    assert_pkm_ok(pkm_case_text_load(text, strlen(text), "edit.yaml", &c, &file, &ctx), &ctx);
    assert_ptr_equal(c, navaro());
    assert_memory_equal(file, set, sizeof(*set));
    pkm_case_params_destroy(&file);
    pkm_case_params_destroy((void **)&set);
}

static void expect_set_error(const char *key, const char *value, const char *want)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_navaro_params *p = defaults();
    assert_int_equal(pkm_case_param_set(navaro(), p, key, value, &ctx), PKM_ERR_INVALID);
    if (strstr(ctx.msg, want) == NULL) {
        print_error("--set %s=%s: message '%s' lacks '%s'\n", key, value, ctx.msg, want);
        fail();
    }
    pkm_case_params_destroy((void **)&p);
}

/* 6. Setter errors name the case and the key. */
static void test_setter_errors(void **state)
{
    (void)state;
    expect_set_error("nosuch", "1", "navaro: unknown parameter 'nosuch'");
    expect_set_error("E", "7e10", "unknown parameter 'E'");
    expect_set_error("link_length", "3 kg", "navaro: parameter link_length: '3 kg': unit 'kg'");
    expect_set_error("leg.Iy", "abc", "parameter leg.Iy: 'abc' is not a number");
    expect_set_error("elements_per_link", "2.5", "'2.5' is not an integer");
    expect_set_error("elements_per_link", "2 mm", "is not an integer");
    expect_set_error("mass", "heavy", "'heavy' is not one of rotary, translational");
}

/* 6b. Ranges (issue 8: leg.A = 1e300 made LAPACK end the process with status 0): a value outside
 * its entry's range is refused, naming the parameter, the value and the bounds, and the field
 * keeps its value; the bounds themselves are accepted. */
static void test_setter_ranges(void **state)
{
    (void)state;
    expect_set_error("leg.A", "1e300",
                     "navaro: parameter leg.A = 1e+300 m^2 is outside [1e-12, 100] m^2");
    expect_set_error("material.rho", "1e300", "parameter material.rho = 1e+300 kg/m^3");
    expect_set_error("leg.Iz", "1e300", "parameter leg.Iz = 1e+300 m^4 is outside");
    expect_set_error("leg.Ip", "1e300 mm^4", "parameter leg.Ip = 1e+288 m^4 is outside");
    expect_set_error("platform.A", "1e300", "parameter platform.A = 1e+300");
    expect_set_error("leg.A", "0", "parameter leg.A = 0 m^2 is outside [1e-12, 100]");
    expect_set_error("material.E", "-74 GPa", "material.E = -7.4e+10 Pa is outside");
    expect_set_error("elements_per_link", "1000000",
                     "parameter elements_per_link = 1000000 is outside [1, 4096]");
    expect_set_error("elements_per_link", "0", "elements_per_link = 0 is outside");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_navaro_params *p = defaults();
    assert_int_equal(pkm_case_param_set(navaro(), p, "leg.A", "1e300", &ctx), PKM_ERR_INVALID);
    assert_true(p->leg_section.A == 2.4e-4);
    for (int i = 0; i < navaro()->nparams; i++) {
        const pkm_param_desc *d = &navaro()->params[i];
        if (d->range == NULL) continue;
        char lo[40], hi[40];
        snprintf(lo, sizeof(lo), d->kind == PKM_PARAM_INT ? "%.0f" : "%.17g", d->range->min);
        snprintf(hi, sizeof(hi), d->kind == PKM_PARAM_INT ? "%.0f" : "%.17g", d->range->max);
        assert_pkm_ok(pkm_case_param_set(navaro(), p, d->key, lo, &ctx), &ctx);
        assert_pkm_ok(pkm_case_param_set(navaro(), p, d->key, hi, &ctx), &ctx);
    }
    pkm_case_params_destroy((void **)&p);
}

/* 6c. pkm_case_params_check: every built-in's values are inside the ranges; a struct filled by
 * hand is checked by the case's build function before the model is built. */
static void test_params_check(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (const pkm_case *const *c = pkm_case_list(); *c != NULL; c++) {
        void *p = NULL;
        assert_pkm_ok(pkm_case_params_create(*c, &p, &ctx), &ctx);
        assert_pkm_ok(pkm_case_params_check(*c, p, &ctx), &ctx);
        pkm_case_params_destroy(&p);
    }
    pkm_navaro_params *p = defaults();
    p->platform_section.A = 1e300;
    pkm_model *m = NULL;
    assert_int_equal(navaro()->build(p, navaro()->home, &m, &ctx), PKM_ERR_INVALID);
    assert_null(m);
    assert_non_null(strstr(ctx.msg, "parameter platform.A = 1e+300 m^2 is outside"));
    p->platform_section.A = 4e-4;
    p->mass_flags = 7;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_case_params_check(navaro(), p, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "parameter mass = 7 is not one of its choices"));
    p->mass_flags = 0;
    p->material.G = NAN;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_case_params_check(navaro(), p, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "material.G = nan Pa is outside"));
    pkm_case_params_destroy((void **)&p);
}

/* A malformed text: PKM_ERR_PARSE, the message starts with where (FILE:LINE:COLUMN, counted by
 * hand in text) and contains what; nothing is returned. */
static void expect_parse_error(const char *text, pkm_status status, const char *where,
                               const char *what)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = navaro();
    void *p = &ctx;
    assert_int_equal(pkm_case_text_load(text, strlen(text), "t.yaml", &c, &p, &ctx), status);
    assert_null(c);
    assert_null(p);
    if (strncmp(ctx.msg, where, strlen(where)) != 0 || strstr(ctx.msg, what) == NULL) {
        print_error("text:\n%s\nmessage '%s', want '%s' ... '%s'\n", text, ctx.msg, where, what);
        fail();
    }
}

/* 7. Every kind of malformed case file, at its position. */
static void test_parse_errors(void **state)
{
    (void)state;
    const pkm_status E = PKM_ERR_PARSE;
    /* syntax: an unclosed flow mapping, a tab, a bad indentation */
    expect_parse_error("case: navaro\nparameters: {link_length: 1\n", E,
                       "t.yaml:3:1: ", "syntax error");
    expect_parse_error("case: navaro\nparameters:\n\tlink_length: 1\n", E,
                       "t.yaml:3:1: ", "syntax error");
    expect_parse_error("case: navaro\nparameters:\n  link_length: 1\n   base_radius: 2\n", E,
                       "t.yaml:4:15: ", "syntax error");
    /* unknown keys, at the key */
    expect_parse_error("case: navaro\nparameters:\n  link_lenght: 210 mm\n", E,
                       "t.yaml:3:3: ", "unknown parameter 'link_lenght' of case navaro");
    expect_parse_error("# c\ncase: navaro\nparameters:\n  leg: {A: 1, Ix: 2}\n", E,
                       "t.yaml:4:15: ", "unknown parameter 'leg.Ix'");
    expect_parse_error("case: navaro\nparams: {}\n", E, "t.yaml:2:1: ", "unknown key 'params'");
    expect_parse_error("case: navaro\nparameters:\n  mass: rotary\n  mass: rotary\n", E,
                       "t.yaml:4:3: ", "key 'mass' given twice");
    /* values of the wrong type or unit, at the value */
    expect_parse_error("case: navaro\nparameters:\n  material:\n    E: seventy\n", E,
                       "t.yaml:4:8: ", "parameter material.E: 'seventy' is not a number");
    expect_parse_error("case: navaro\nparameters:\n  link_length: 3 kg\n", E, "t.yaml:3:16: ",
                       "parameter link_length: '3 kg': unit 'kg' is a mass, expected a length "
                       "in m");
    expect_parse_error("case: navaro\nparameters:\n  elements_per_link: two\n", E,
                       "t.yaml:3:22: ", "is not an integer");
    expect_parse_error("case: navaro\nparameters:\n  link_length: [1, 2]\n", E,
                       "t.yaml:3:16: ", "'link_length' takes a single value, not a sequence");
    expect_parse_error("case: navaro\nparameters:\n  leg: 3\n", E,
                       "t.yaml:3:8: ", "'leg' is a group of parameters");
    expect_parse_error("case: navaro\nparameters: 3\n", E,
                       "t.yaml:2:13: ", "'parameters' is a group");
    /* the case */
    expect_parse_error("parameters:\n  link_length: 3\n", E, "t.yaml:1:1: ", "missing key 'case'");
    expect_parse_error("# only a comment\n", E, "t.yaml:2:1: ", "missing key 'case'");
    expect_parse_error("case: delta\n", E, "t.yaml:1:7: ", "unknown case 'delta'");
    expect_parse_error("case: {name: navaro}\n", E, "t.yaml:1:7: ", "'case' takes a single value");
    expect_parse_error("- case\n", E, "t.yaml:1:1: ", "a case file is a mapping");
    expect_parse_error("case: navaro\nparameters:\n  link_length: &l 0.2\n  base_radius: *l\n", E,
                       "t.yaml:4:16: ", "aliases are not supported");
    /* a value outside its range, at the value */
    expect_parse_error("case: navaro\nparameters:\n  leg: {A: 1e300}\n", E,
                       "t.yaml:3:12: ", "parameter leg.A = 1e+300 m^2 is outside [1e-12, 100] m^2");
    /* a second document (was silently ignored, issue 8), at its start */
    expect_parse_error("case: navaro\n---\ncase: navaro\n", E,
                       "t.yaml:2:1: ", "a second YAML document");
    expect_parse_error("case: navaro\n...\n--- {case: pss5upu}\n", E,
                       "t.yaml:3:1: ", "a second YAML document");
}

/* 7b. Nesting deeper than 16 (the document's mapping counts) is refused at the 17th level, before
 * libyaml's cost grows as the square of the depth (issue 8: 200 KB of nested flow collections took
 * 20-43 s): 100 000 levels under every key where libcyaml would read or skip them, each within a
 * second; 16 levels are only refused for what they hold. */
static void test_deep_nesting(void **state)
{
    (void)state;
    const size_t n = 100000;
    const char *heads[] = {"case: navaro\nparameters: ", "case: navaro\nextra: ", "", "case: "};
    const char *open[] = {"[", "{a: "}, *close[] = {"]", "}"};
    for (size_t h = 0; h < sizeof(heads) / sizeof(heads[0]); h++)
        for (int k = 0; k < 2; k++) {
            const size_t lo = strlen(open[k]), hl = strlen(heads[h]);
            char *text = malloc(hl + n * (lo + 1) + 2);
            assert_non_null(text);
            memcpy(text, heads[h], hl);
            for (size_t i = 0; i < n; i++)
                memcpy(text + hl + i * lo, open[k], lo);
            for (size_t i = 0; i < n; i++)
                text[hl + n * lo + i] = close[k][0];
            strcpy(text + hl + n * (lo + 1), "\n");
            pkm_ctx ctx;
            pkm_ctx_clear(&ctx);
            const pkm_case *c = NULL;
            void *p = NULL;
            const clock_t t0 = clock();
            assert_int_equal(pkm_case_text_load(text, strlen(text), "t.yaml", &c, &p, &ctx),
                             PKM_ERR_PARSE);
            const double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
            /* The 17th level: the 16th opening after a document mapping, else the 17th. */
            const char *line = strrchr(heads[h], '\n') ? strrchr(heads[h], '\n') + 1 : heads[h];
            const size_t col = strlen(line) + (hl > 0 ? 15 : 16) * lo + 1;
            char want[64];
            snprintf(want, sizeof(want), "t.yaml:%d:%zu: ", h < 2 ? 2 : 1, col);
            if (strncmp(ctx.msg, want, strlen(want)) != 0 ||
                strstr(ctx.msg, "nested deeper than 16") == NULL || secs > 1.0) {
                print_error("head '%s' open '%s': '%s' in %.2f s, want '%s'\n", heads[h], open[k],
                            ctx.msg, secs, want);
                fail();
            }
            free(text);
        }
    expect_parse_error("case: navaro\nparameters: [[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]\n", PKM_ERR_PARSE,
                       "t.yaml:2:13: ", "'parameters' is a group");
}

/* 7c. A text above 1 MiB is refused before it is parsed. */
static void test_size_limit(void **state)
{
    (void)state;
    const size_t n = (1u << 20) + 1;
    char *text = malloc(n + 1);
    assert_non_null(text);
    memset(text, '#', n);
    memcpy(text, "case: navaro\n", 13);
    text[n] = '\0';
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = NULL;
    void *p = NULL;
    assert_int_equal(pkm_case_text_load(text, n, "big.yaml", &c, &p, &ctx), PKM_ERR_PARSE);
    assert_non_null(strstr(ctx.msg, "big.yaml:1:1: the file is larger than 1048576 bytes"));
    assert_pkm_ok(pkm_case_text_load(text, n - 1, "big.yaml", &c, &p, &ctx), &ctx);
    assert_ptr_equal(c, navaro());
    pkm_case_params_destroy(&p);
    free(text);
}

/* 8. A built-in whose embedded file misses a parameter, or names another case, is refused. */
static void test_incomplete_builtin(void **state)
{
    (void)state;
    pkm_case broken = *navaro();
    broken.yaml = "case: navaro\nparameters:\n  link_length: 0.21\n";
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *p = NULL;
    assert_int_equal(pkm_case_params_create(&broken, &p, &ctx), PKM_ERR_INVALID);
    assert_null(p);
    assert_non_null(strstr(ctx.msg, "does not set its parameter 'base_radius'"));
    broken.yaml = "# x\ncase: other\n";
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_case_params_create(&broken, &p, &ctx), PKM_ERR_PARSE);
    assert_non_null(strstr(ctx.msg, "cases/navaro.yaml:2:7: the file is for case 'other'"));
}

/* 9. A file that cannot be read. */
static void test_missing_file(void **state)
{
    (void)state;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = NULL;
    void *p = NULL;
    assert_int_equal(pkm_case_file_load("/nonexistent/case.yaml", &c, &p, &ctx), PKM_ERR_IO);
    assert_non_null(strstr(ctx.msg, "/nonexistent/case.yaml"));
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_case_file_load(PKM_SOURCE_DIR "/cases", &c, &p, &ctx), PKM_ERR_IO);
    assert_null(c);
    assert_null(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_unit_errors),
        cmocka_unit_test(test_builtin_values),
        cmocka_unit_test(test_source_file_is_builtin),
        cmocka_unit_test(test_setter_and_file_agree),
        cmocka_unit_test(test_setter_errors),
        cmocka_unit_test(test_setter_ranges),
        cmocka_unit_test(test_params_check),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_incomplete_builtin),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
