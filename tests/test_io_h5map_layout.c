/* tests/test_io_h5map_layout.c: the map file's root attributes, described once in pkm_map_attrs
 * (studies/map_attrs.c) plus format and format_version (io/h5map_layout.c), and its datasets
 * over the grid, described once in pkm_h5_map_datasets (io/h5map_layout.c), held against
 * docs/hdf5-layout.md (its "Root attributes" and "Datasets" tables and its format version) and
 * against a written file; the checkers are also run on damaged copies of the document, so that
 * they can fail.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L

#include "map_fixture.h"

#include "io/h5map_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_ROWS 64

typedef struct doc_row {
    char name[64], type[64], meaning[64];
} doc_row;

/* Text of a markdown cell [s, end) trimmed into out. */
static void cell(const char *s, const char *end, char *out, size_t cap)
{
    while (s < end && *s == ' ')
        s++;
    while (end > s && end[-1] == ' ')
        end--;
    snprintf(out, cap, "%.*s", (int)(end - s), s);
}

/* The rows "| `name` | type | meaning |" of the section "## Root attributes" of doc. */
static int parse_rows(const char *doc, doc_row *rows)
{
    const char *p = strstr(doc, "\n## Root attributes\n");
    if (p == NULL) return -1;
    p++;
    const char *stop = strstr(p + 1, "\n## ");
    int n = 0;
    for (const char *line = strchr(p, '\n'); line != NULL && (stop == NULL || line < stop);
         line = strchr(line + 1, '\n')) {
        if (strncmp(line, "\n| `", 4) != 0 || n == MAX_ROWS) continue;
        const char *c1 = line + 2, *c2 = strchr(c1, '|'), *c3 = c2 ? strchr(c2 + 1, '|') : NULL;
        const char *eol = strchr(line + 1, '\n');
        if (c2 == NULL || c3 == NULL || (eol != NULL && c3 > eol)) return -1;
        char name[64];
        cell(c1, c2, name, sizeof(name));
        cell(name + 1, name + strlen(name) - 1, rows[n].name, sizeof(rows[n].name)); /* `...` */
        cell(c2 + 1, c3, rows[n].type, sizeof(rows[n].type));
        const char *c4 = strchr(c3 + 1, '|');
        cell(c3 + 1, c4 != NULL && (eol == NULL || c4 < eol) ? c4 : c3 + 1, rows[n].meaning,
             sizeof(rows[n].meaning));
        n++;
    }
    return n;
}

/* The type of root attribute name in the code, NULL if the code has none of that name. */
static const char *code_type(const char *name)
{
    for (int k = 0; k < pkm_map_attr_count; k++)
        if (strcmp(pkm_map_attrs[k].name, name) == 0)
            return pkm_h5_map_attr_type(&pkm_map_attrs[k]);
    for (int k = 0; k < PKM_H5_MAP_FILE_ATTRS; k++)
        if (strcmp(pkm_h5_map_file_attrs[k].name, name) == 0) return pkm_h5_map_file_attrs[k].type;
    return NULL;
}

static const doc_row *doc_find(const doc_row *rows, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (strcmp(rows[k].name, name) == 0) return &rows[k];
    return NULL;
}

/* Documented with the same type, or a message into why. */
static int check_documented(const doc_row *rows, int n, const char *name, char *why, size_t cap)
{
    const doc_row *r = doc_find(rows, n, name);
    if (r == NULL) return snprintf(why, cap, "'%s' is not documented", name), 1;
    if (strcmp(r->type, code_type(name)) != 0)
        return snprintf(why, cap, "'%s' is %s in the document, %s in the code", name, r->type,
                        code_type(name)),
               1;
    return 0;
}

/* Problems of doc against the code, the first one in why. */
static int check_doc(const char *doc, char *why, size_t cap)
{
    doc_row rows[MAX_ROWS];
    const int n = parse_rows(doc, rows);
    if (n <= 0) return snprintf(why, cap, "no table of root attributes"), 1;
    int bad = 0;
    for (int k = 0; k < n; k++)
        if (code_type(rows[k].name) == NULL && bad++ == 0)
            snprintf(why, cap, "'%.63s' is documented but not written", rows[k].name);
    char msg[256];
    for (int k = 0; k < pkm_map_attr_count + PKM_H5_MAP_FILE_ATTRS; k++) {
        const char *name = k < pkm_map_attr_count
                               ? pkm_map_attrs[k].name
                               : pkm_h5_map_file_attrs[k - pkm_map_attr_count].name;
        if (check_documented(rows, n, name, msg, sizeof(msg)) && bad++ == 0)
            snprintf(why, cap, "%s", msg);
    }
    /* The format version: in the introduction and in the row of format_version. */
    const char *intro = strstr(doc, "format version ");
    const doc_row *fv = doc_find(rows, n, "format_version");
    const int v_intro = intro != NULL ? atoi(intro + strlen("format version ")) : -1;
    const int v_row = fv != NULL && fv->meaning[0] == '`' ? atoi(fv->meaning + 1) : -1;
    if ((v_intro != MAP_FORMAT_VERSION || v_row != MAP_FORMAT_VERSION) && bad++ == 0)
        snprintf(why, cap, "the document says format version %d (and %d), the code writes %d",
                 v_intro, v_row, MAP_FORMAT_VERSION);
    return bad;
}

static char *read_doc(void)
{
    FILE *f = fopen(PKM_SOURCE_DIR "/docs/hdf5-layout.md", "rb");
    assert_non_null(f);
    static char buf[1 << 17];
    const size_t len = fread(buf, 1, sizeof(buf) - 1, f);
    assert_true(len > 0 && len < sizeof(buf) - 1);
    buf[len] = '\0';
    fclose(f);
    char *copy = malloc(len + 1);
    assert_non_null(copy);
    memcpy(copy, buf, len + 1);
    return copy;
}

static int check_dset_doc(const char *doc, char *why, size_t cap); /* the datasets, below */

/* Every attribute of the code is documented with its type, and only those; the document's
 * format version is MAP_FORMAT_VERSION; every dataset of the table is documented with its type,
 * shape and attribute, and only those (besides /grid and /parameters). */
static void test_doc_matches_code(void **state)
{
    (void)state;
    char *doc = read_doc();
    char why[256] = "";
    int bad = check_doc(doc, why, sizeof(why));
    if (bad == 0) bad = check_dset_doc(doc, why, sizeof(why));
    if (bad != 0) print_error("docs/hdf5-layout.md: %s\n", why);
    assert_int_equal(bad, 0);
    doc_row rows[MAX_ROWS];
    assert_int_equal(parse_rows(doc, rows), pkm_map_attr_count + PKM_H5_MAP_FILE_ATTRS);
    free(doc);
}

/* Replace the first occurrence of from in doc (in place; to is not longer). */
static void edit(char *doc, const char *from, const char *to)
{
    char *p = strstr(doc, from);
    assert_non_null(p);
    assert_true(strlen(to) <= strlen(from));
    memmove(p + strlen(to), p + strlen(from), strlen(p + strlen(from)) + 1);
    memcpy(p, to, strlen(to));
}

/* Each of the n edits {from, to} of the document makes check find a problem and say which. */
static void assert_edits_caught(const char *const (*edits)[2], size_t n,
                                int (*check)(const char *doc, char *why, size_t cap))
{
    for (size_t k = 0; k < n; k++) {
        char *doc = read_doc();
        edit(doc, edits[k][0], edits[k][1]);
        char why[256] = "";
        assert_true(check(doc, why, sizeof(why)) > 0);
        assert_true(why[0] != '\0');
        free(doc);
    }
}

/* The drift the check exists for: each of these edits of the document is caught. */
static void test_drift_is_caught(void **state)
{
    (void)state;
    static const char *const edits[][2] = {
        {"format version 5", "format version 3"}, /* the drift found in issue 9 */
        {"| `format_version` | int32 | `5`", "| `format_version` | int32 | `3`"},
        {"| `ncoord` | int64 |", "| `ncoord` | int32 |"}, /* a wrong type */
        {"| `tracking_note` |", "| `tracking_text` |"},   /* missing, and unknown */
        {"| `format` |", "| `f` |"},                      /* one that names the format */
    };
    assert_edits_caught(edits, sizeof(edits) / sizeof(edits[0]), check_doc);
}

/* The table is well formed: unique names, a label with one %s for every value compared, bounds
 * and layouts where the kind needs them. */
static void test_table_well_formed(void **state)
{
    (void)state;
    for (int k = 0; k < pkm_map_attr_count; k++) {
        const pkm_map_attr *e = &pkm_map_attrs[k];
        for (int j = 0; j < k; j++)
            assert_string_not_equal(pkm_map_attrs[j].name, e->name);
        assert_true(e->since >= 1 && e->since <= MAP_FORMAT_VERSION);
        if (e->same == PKM_MAP_SAME_VALUE) {
            assert_non_null(e->group);
            assert_non_null(e->label);
            const char *at = strstr(e->label, "%s");
            assert_non_null(at);
            assert_null(strchr(at + 2, '%'));
        }
        if (e->kind == PKM_MAP_ATTR_INT)
            assert_true((e->size == 4 || e->size == 8) && e->lo <= e->hi);
        if (e->kind == PKM_MAP_ATTR_CHOICE) assert_true(e->choice != NULL && e->choice(0) != NULL);
        if (e->kind == PKM_MAP_ATTR_LIST) assert_true(e->stride >= e->size && e->max_count >= 1);
        assert_true(e->offset + e->size <= sizeof(pkm_map));
    }
}

/* Field of entry e changed in map: another string, number or choice, another name or value. */
static void perturb(const pkm_map_attr *e, pkm_map *map)
{
    char *field = (char *)map + e->offset;
    if (e->kind == PKM_MAP_ATTR_STRING || e->kind == PKM_MAP_ATTR_LIST) {
        field[0] = field[0] == 'z' ? 'y' : 'z';
    } else if (e->kind == PKM_MAP_ATTR_INT || e->kind == PKM_MAP_ATTR_CHOICE) {
        field[0] ^= 1; /* little or big endian, int or int64_t: another value */
    } else if (e->kind == PKM_MAP_ATTR_DOUBLE || e->kind == PKM_MAP_ATTR_DOUBLES) {
        double v;
        memcpy(&v, field, sizeof(v));
        v = 2.0 * v + 1.0;
        memcpy(field, &v, sizeof(v));
    } else if (e->kind == PKM_MAP_ATTR_PARAMS) {
        map->params[0].value += 1.0;
    } /* WRITTEN: no field */
}

/* pkm_map_same_setup by the table: a change of any entry that belongs to the computation is an
 * error naming it (its label's words), a change of a record is not. */
static void test_same_setup_by_table(void **state)
{
    (void)state;
    pkm_map a, b;
    make_map(&a);
    pkm_ctx ctx;
    for (int k = 0; k < pkm_map_attr_count; k++) {
        const pkm_map_attr *e = &pkm_map_attrs[k];
        make_map(&b);
        perturb(e, &b);
        pkm_ctx_clear(&ctx);
        const pkm_status st = pkm_map_same_setup(&a, &b, &ctx);
        if (e->same == PKM_MAP_RECORD) {
            assert_pkm_ok(st, &ctx);
        } else {
            assert_int_equal(st, PKM_ERR_INVALID);
            if (e->same == PKM_MAP_SAME_VALUE) {
                assert_non_null(strstr(ctx.msg, e->group));
                assert_non_null(strstr(ctx.msg, " against "));
            }
        }
        pkm_map_free(&b);
    }
    pkm_map_free(&a);
}

typedef struct seen {
    int count, bad;
    char why[256];
} seen;

static herr_t visit(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    seen *s = data;
    s->count++;
    const char *want = code_type(name);
    const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    const hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    const H5T_class_t cls = H5Tget_class(t);
    const size_t size = H5Tget_size(t);
    const int scalar = H5Sget_simple_extent_type(sp) == H5S_SCALAR;
    char got[32];
    snprintf(got, sizeof(got), "%s",
             cls == H5T_STRING                 ? "string"
             : cls == H5T_INTEGER && size == 4 ? "int32"
             : cls == H5T_INTEGER && size == 8 ? "int64"
             : cls == H5T_FLOAT && size == 8   ? (scalar ? "float64" : "float64 array")
                                               : "other");
    H5Sclose(sp);
    H5Tclose(t);
    H5Aclose(a);
    if ((want == NULL || strcmp(want, got) != 0) && s->bad++ == 0)
        snprintf(s->why, sizeof(s->why), "root attribute '%s' is %s in the file, %s in the code",
                 name, got, want ? want : "absent");
    return 0;
}

/* A written file has exactly the attributes of the code, of the types the code says. */
static void test_file_matches_code(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_layout.h5");
    pkm_map m;
    make_map(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    seen s = {0};
    assert_true(H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, visit, &s) >= 0);
    assert_true(H5Fclose(f) >= 0);
    if (s.bad != 0) print_error("%s\n", s.why);
    assert_int_equal(s.bad, 0);
    assert_int_equal(s.count, pkm_map_attr_count + PKM_H5_MAP_FILE_ATTRS);
    pkm_map_free(&m);
    assert_int_equal(unlink(path), 0);
}

/* ---- Datasets ---- */

/* The objects of the "Datasets" table that are not over the grid (h5map.c writes them on their
 * own): a row each, and no entry of pkm_h5_map_datasets. */
static const char *const own_objects[] = {"/grid/<axis name>", "/parameters"};

typedef struct dset_row {
    char path[64], type[64], shape[96], attr[64], mark[32];
} dset_row;

/* Text between the first two backquotes of [s, end) into out; "" if none. */
static void quoted(const char *s, const char *end, char *out, size_t cap)
{
    const char *a = memchr(s, '`', (size_t)(end - s));
    const char *b = a != NULL ? memchr(a + 1, '`', (size_t)(end - a - 1)) : NULL;
    snprintf(out, cap, "%.*s", b != NULL ? (int)(b - a - 1) : 0, b != NULL ? a + 1 : "");
}

/* The rows "| `path` | type | shape | attributes | content |" of "## Datasets". */
static int parse_dset_rows(const char *doc, dset_row *rows)
{
    const char *p = strstr(doc, "\n## Datasets\n");
    if (p == NULL) return -1;
    const char *stop = strstr(p + 1, "\n## ");
    int n = 0;
    for (const char *line = strchr(p + 1, '\n'); line != NULL && (stop == NULL || line < stop);
         line = strchr(line + 1, '\n')) {
        if (strncmp(line, "\n| `", 4) != 0 || n == MAX_ROWS) continue;
        const char *c[5], *eol = strchr(line + 1, '\n');
        c[0] = line + 2;
        for (int k = 1; k < 5; k++)
            if ((c[k] = strchr(c[k - 1] + 1, '|')) == NULL || (eol != NULL && c[k] > eol))
                return -1;
        dset_row *r = &rows[n++];
        quoted(c[0], c[1], r->path, sizeof(r->path));
        /* "| `/modes` (optional) |": the mark between the path's closing backquote and c[1] */
        const char *close = memchr(c[0] + 2, '`', (size_t)(c[1] - c[0] - 2));
        const char *lp = close != NULL ? memchr(close, '(', (size_t)(c[1] - close)) : NULL;
        const char *rp = lp != NULL ? memchr(lp, ')', (size_t)(c[1] - lp)) : NULL;
        snprintf(r->mark, sizeof(r->mark), "%.*s", rp != NULL ? (int)(rp - lp - 1) : 0,
                 rp != NULL ? lp + 1 : "");
        cell(c[1] + 1, c[2], r->type, sizeof(r->type));
        r->type[strcspn(r->type, " ,")] = '\0'; /* "float64 (`H5T_IEEE_F64LE`)": its first word */
        quoted(c[2], c[3], r->shape, sizeof(r->shape));
        quoted(c[3], c[4], r->attr, sizeof(r->attr));
    }
    return n;
}

/* Problems of doc's dataset table against pkm_h5_map_datasets, the first one in why. */
static int check_dset_doc(const char *doc, char *why, size_t cap)
{
    dset_row rows[MAX_ROWS];
    const int n = parse_dset_rows(doc, rows);
    if (n <= 0) return snprintf(why, cap, "no table of datasets"), 1;
    int bad = 0, own = 0;
    for (int k = 0; k < n; k++) {
        int known = 0;
        for (size_t j = 0; j < sizeof(own_objects) / sizeof(own_objects[0]); j++)
            known |= strcmp(rows[k].path, own_objects[j]) == 0;
        own += known;
        for (int d = 0; d < pkm_h5_map_dataset_count; d++)
            known |= rows[k].path[0] == '/' &&
                     strcmp(rows[k].path + 1, pkm_h5_map_datasets[d].name) == 0;
        if (!known && bad++ == 0)
            snprintf(why, cap, "'%s' is documented but not written", rows[k].path);
    }
    if (own != (int)(sizeof(own_objects) / sizeof(own_objects[0])) && bad++ == 0)
        snprintf(why, cap, "/grid/<axis name> or /parameters is not documented");
    for (int d = 0; d < pkm_h5_map_dataset_count; d++) {
        const pkm_h5_map_dataset *e = &pkm_h5_map_datasets[d];
        const dset_row *r = NULL;
        for (int k = 0; k < n && r == NULL; k++)
            if (rows[k].path[0] == '/' && strcmp(rows[k].path + 1, e->name) == 0) r = &rows[k];
        char msg[256] = "";
        if (r == NULL)
            snprintf(msg, sizeof(msg), "/%s is not documented", e->name);
        else if (strcmp(r->type, pkm_h5_map_type_name(e->type)) != 0)
            snprintf(msg, sizeof(msg), "/%s is %s in the document, %s in the code", e->name,
                     r->type, pkm_h5_map_type_name(e->type));
        else if (strcmp(r->shape, pkm_h5_map_shape_name(e->shape)) != 0)
            snprintf(msg, sizeof(msg), "/%s has shape %s in the document, %s in the code", e->name,
                     r->shape, pkm_h5_map_shape_name(e->shape));
        else if (strcmp(r->attr, e->attr) != 0)
            snprintf(msg, sizeof(msg), "/%s has attribute '%s' in the document, '%s' in the code",
                     e->name, r->attr, e->attr);
        else if (strcmp(r->mark, pkm_h5_map_presence_mark(e->presence)) != 0)
            snprintf(msg, sizeof(msg), "/%s is marked '%s' in the document, '%s' in the code",
                     e->name, r->mark, pkm_h5_map_presence_mark(e->presence));
        if (msg[0] != '\0' && bad++ == 0) snprintf(why, cap, "%s", msg);
    }
    return bad;
}

/* The drift the dataset check exists for: each of these edits of the document is caught. */
static void test_dataset_drift_is_caught(void **state)
{
    (void)state;
    static const char *const edits[][2] = {
        {"| `/status` | int8", "| `/status` | int4"}, /* a wrong type */
        {"| `/residual` | float64 | `[count_0, ..., count_{naxes-1}, nev]`",
         "| `/residual` | float64 | `[count_0, ..., count_{naxes-1}]`"}, /* a wrong shape */
        {"| `/freq_hz` | float64 | `[count_0, ..., count_{naxes-1}, nev]` | `units`",
         "| `/freq_hz` | float64 | `[count_0, ..., count_{naxes-1}, nev]` | `unit`"},
        {"| `/tracking_mac` |", "| `/tracking_mic` |"}, /* missing, and unknown */
        {"| `/modes` (optional) |", "| `/modes` |"},
        {"| `/tracking_links` (checkpoints) |", "| `/tracking_links` (optional) |"},
        {"| `/tracking_links_mac` (checkpoints) | float64 | `[count_0, ..., count_{naxes-1}, "
         "naxes, "
         "nev]`",
         "| `/tracking_links_mac` (checkpoints) | float64 | `[count_0, ..., count_{naxes-1}, "
         "nev]`"},
        {"| `/parameters` (group) |", "| `/params` (group) |"},
    };
    assert_edits_caught(edits, sizeof(edits) / sizeof(edits[0]), check_dset_doc);
}

/* A written file (with mode vectors and, as a checkpoint, links) has exactly the table's datasets
 * at its root, besides the groups /grid and /parameters, each of the table's type, rank and
 * attribute. */
static void test_file_datasets_match_code(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_layout_dsets.h5");
    pkm_map m;
    make_map(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_alloc_modes(&m, &ctx), &ctx);
    for (int64_t k = 0; k < m.npoints * m.nev * m.ncoord; k++)
        m.modes[k] = 0.5;
    assert_pkm_ok(pkm_map_alloc_links(&m, &ctx), &ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    H5G_info_t gi;
    assert_true(H5Gget_info(f, &gi) >= 0);
    assert_int_equal((int)gi.nlinks, pkm_h5_map_dataset_count + 2); /* + /grid, /parameters */
    for (int d = 0; d < pkm_h5_map_dataset_count; d++) {
        const pkm_h5_map_dataset *e = &pkm_h5_map_datasets[d];
        const pkm_h5_elem want = pkm_h5_map_elem(e->type);
        hsize_t dims[PKM_MAP_MAX_AXES + 2], got[PKM_MAP_MAX_AXES + 2];
        const int rank = pkm_h5_map_dims(e, &m, dims);
        const hid_t ds = H5Dopen2(f, e->name, H5P_DEFAULT);
        assert_true(ds >= 0);
        const hid_t t = H5Dget_type(ds), sp = H5Dget_space(ds);
        assert_int_equal(H5Tget_class(t), want.cls);
        assert_int_equal(H5Tget_size(t), want.size);
        assert_int_equal(H5Sget_simple_extent_dims(sp, got, NULL), rank);
        for (int a = 0; a < rank; a++)
            assert_int_equal(got[a], dims[a]);
        assert_true(H5Aexists(ds, e->attr) > 0);
        H5Sclose(sp);
        H5Tclose(t);
        H5Dclose(ds);
    }
    assert_true(H5Fclose(f) >= 0);
    pkm_map_free(&m);
    assert_int_equal(unlink(path), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doc_matches_code),
        cmocka_unit_test(test_drift_is_caught),
        cmocka_unit_test(test_table_well_formed),
        cmocka_unit_test(test_file_matches_code),
        cmocka_unit_test(test_same_setup_by_table),
        cmocka_unit_test(test_dataset_drift_is_caught),
        cmocka_unit_test(test_file_datasets_match_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
