/* tests/test_io_h5map_checks.c: what a map file guards against: a checkpoint resumed by another
 * computation (pkm_map_same_setup compares the resolved parameters by value) and raw-data
 * corruption (Fletcher32 checksums on every dataset), crafted sizes and string types.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L

#include "map_fixture.h"
#include "pkm/eigensolver.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Values compared by value and by key, the first difference named with a's value first. */
static void test_same_setup_by_value(void **state)
{
    (void)state;
    pkm_map a, b;
    make_map(&a);
    make_map(&b);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_same_setup(&a, &b, &ctx), &ctx);
    /* the --set text is a record of the command, not compared */
    snprintf(b.case_params, sizeof(b.case_params), "material.E=74GPa");
    /* order does not matter */
    const pkm_map_param t = b.params[0];
    b.params[0] = b.params[2];
    b.params[2] = t;
    assert_pkm_ok(pkm_map_same_setup(&a, &b, &ctx), &ctx);
    b.params[2].value = 7e10;
    assert_int_equal(pkm_map_same_setup(&a, &b, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "material.E = 74000000000 against 70000000000"));
    b.params[2].value = 7.4e10;
    snprintf(b.params[0].choice, sizeof(b.params[0].choice), "lumped");
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_same_setup(&a, &b, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "mass = rotary against lumped"));
    snprintf(b.params[0].choice, sizeof(b.params[0].choice), "rotary");
    b.nparams = 2;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_same_setup(&a, &b, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "material.E present against missing"));
    b.nparams = 3;
    snprintf(b.commit, sizeof(b.commit), "other");
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_same_setup(&a, &b, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "commit v1-2-gabc) against 9.8.7 (commit other)"));
    pkm_map_free(&a);
    pkm_map_free(&b);
}

/* A one-value axis uses its start only: a file stores the value (start = stop on reading), the
 * command line may give another stop; both are the same grid. */
static void test_single_value_axis(void **state)
{
    (void)state;
    pkm_map a, b;
    make_map(&a);
    make_map(&b);
    a.axes[0].count = b.axes[0].count = 1;
    a.axes[0].stop = a.axes[0].start;
    b.axes[0].stop = 0.5;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_same_grid(&a, &b, &ctx), &ctx);
    b.axes[0].start = 0.25;
    assert_int_equal(pkm_map_same_grid(&a, &b, &ctx), PKM_ERR_INVALID);
    pkm_map_free(&a);
    pkm_map_free(&b);
}

/* Flip the exponent byte of the first value of dataset name in the file at path. */
static void corrupt_first_value(const char *path, const char *name)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    assert_true(d >= 0);
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    unsigned mask = 0;
    hsize_t offset[PKM_MAP_MAX_AXES + 2];
    hid_t space = H5Dget_space(d);
    assert_true(H5Dget_chunk_info(d, space, 0, offset, &mask, &addr, &size) >= 0);
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    /* little-endian float64: byte 7 holds the sign and the high exponent bits */
    assert_int_equal(fseek(fp, (long)addr + 7, SEEK_SET), 0);
    const int c = fgetc(fp);
    assert_true(c != EOF);
    assert_int_equal(fseek(fp, (long)addr + 7, SEEK_SET), 0);
    fputc(c ^ 0x10, fp);
    assert_int_equal(fclose(fp), 0);
}

/* Raw data damaged after writing (a checkpoint on a failing disk) is an error naming the
 * dataset, not a map with a wrong number in it. */
static void test_checksum_detects_corruption(void **state)
{
    (void)state;
    const char *names[] = {"/freq_hz", "/status", "/modes", "/grid/x"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[512];
        out_path(path, sizeof(path), "map_corrupt.h5");
        pkm_map m, r;
        make_map_with_modes(&m);
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
        assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx); /* intact: reads */
        pkm_map_free(&r);
        corrupt_first_value(path, names[i]);
        assert_int_not_equal(pkm_map_read_h5(path, &r, &ctx), PKM_OK);
        assert_non_null(strstr(ctx.msg, names[i]));
        assert_non_null(strstr(ctx.msg, "checksum"));
        assert_no_open_objects();
        pkm_map_free(&m);
        unlink(path);
    }
}

/* Replace dataset name of the open file f by an unwritten chunked one of n doubles (a few bytes
 * in the file for any n), with the attributes a grid axis has. */
static void declare_huge(hid_t f, const char *name, hsize_t n)
{
    assert_true(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
    hid_t space = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    const hsize_t chunk = n < 1024 ? n : 1024;
    assert_true(H5Pset_chunk(dcpl, 1, &chunk) >= 0);
    hid_t d = H5Dcreate2(f, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t as = H5Screate(H5S_SCALAR), st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, 2);
    hid_t a = H5Acreate2(d, "units", st, as, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, st, "m");
    H5Aclose(a);
    const int zero = 0;
    a = H5Acreate2(d, "pose_index", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT, &zero);
    H5Aclose(a);
    H5Tclose(st);
    H5Sclose(as);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
}

/* A small file declaring a huge grid is refused before anything is allocated for it (a 36 KB
 * file made compare allocate 3 GB). */
static void test_crafted_sizes(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_crafted.h5");
    pkm_map m;
    make_map(&m);
    pkm_ctx ctx;
    hid_t f = map_write_open(&m, path);
    declare_huge(f, "/grid/x", (hsize_t)400000000); /* 3.2 GB of axis values */
    map_assert_refused(f, path, "/grid/x needs 3200000000 bytes", &ctx);
    /* an axis that fits, but a grid whose results the file does not hold */
    f = map_write_open(&m, path);
    declare_huge(f, "/grid/x", 1000);
    map_assert_refused(f, path, "/grid/x", &ctx);
    pkm_map_free(&m);
    unlink(path);
}

/* Replace (or add) attribute name of object obj in the file at path by a scalar string of type
 * size `size` (H5T_VARIABLE: variable-length) and padding pad holding value. */
static void replace_str_attr(const char *path, const char *obj, const char *name, size_t size,
                             H5T_str_t pad, const char *value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t o = H5Oopen(f, obj, H5P_DEFAULT);
    assert_true(f >= 0 && o >= 0);
    if (H5Aexists(o, name) > 0) assert_true(H5Adelete(o, name) >= 0);
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
    assert_true(H5Tset_size(t, size) >= 0 && H5Tset_strpad(t, pad) >= 0);
    hid_t a = H5Acreate2(o, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    char *buf = calloc(size == H5T_VARIABLE ? 1 : size, 1);
    assert_non_null(buf);
    if (size != H5T_VARIABLE) memcpy(buf, value, strlen(value) < size ? strlen(value) : size);
    assert_true(H5Awrite(a, t, size == H5T_VARIABLE ? (const void *)&value : buf) >= 0);
    free(buf);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    H5Oclose(o);
    assert_true(H5Fclose(f) >= 0);
}

/* Reading a variable-length string goes through the file's global heap, where libhdf5 1.10.8
 * overflows (H5HG_read, SIGSEGV) or hangs (H5HG__protect) on crafted files: such an attribute is
 * refused, naming it, before it is read; fixed-length ones are read in any padding. */
static void test_string_attr_types(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_strings.h5");
    pkm_map m, r;
    make_map(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    /* null-padded to its exact length, as numpy's bytes_ are stored */
    replace_str_attr(path, "/grid/x", "units", 1, H5T_STR_NULLPAD, "m");
    replace_str_attr(path, "/parameters", "mass", 6, H5T_STR_NULLPAD, "rotary");
    assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
    assert_maps_equal(&m, &r);
    pkm_map_free(&r);
    /* padded far beyond its text */
    replace_str_attr(path, "/", "case", 4000, H5T_STR_NULLTERM, "synthetic");
    assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
    assert_string_equal(r.case_name, "synthetic");
    pkm_map_free(&r);
    /* the parameters are the attributes that parameter_keys names, each opened by its name */
    replace_str_attr(path, "/", "parameter_keys", 20, H5T_STR_NULLPAD, "mass,nosuch");
    assert_int_equal(pkm_map_read_h5(path, &r, &ctx), PKM_ERR_PARSE);
    assert_non_null(strstr(ctx.msg, "attribute 'nosuch' of /parameters is missing"));
    replace_str_attr(path, "/", "parameter_keys", 16, H5T_STR_NULLTERM, "mass,,material.E");
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_read_h5(path, &r, &ctx), PKM_ERR_PARSE);
    assert_non_null(strstr(ctx.msg, "attribute 'parameter_keys': expected at most 128"));
    replace_str_attr(path, "/", "parameter_keys", 16, H5T_STR_NULLTERM, "material.E,mass");
    assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
    assert_int_equal(r.nparams, 2);
    assert_string_equal(r.params[1].choice, "rotary");
    pkm_map_free(&r);
    replace_str_attr(path, "/parameters", "mass", H5T_VARIABLE, H5T_STR_NULLTERM, "rotary");
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_read_h5(path, &r, &ctx), PKM_ERR_PARSE);
    assert_non_null(strstr(ctx.msg, "attribute 'mass' of /parameters: variable-length strings "
                                    "are not read from map files"));
    assert_null(strchr(ctx.msg, '\n'));
    assert_no_open_objects();
    /* longer than any string of a map: a group in the newest format keeps it in dense storage */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    assert_true(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) >= 0);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
    assert_true(f >= 0 && H5Ldelete(f, "/parameters", H5P_DEFAULT) >= 0);
    hid_t g = H5Gcreate2(f, "/parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(g >= 0);
    H5Gclose(g);
    H5Pclose(fapl);
    assert_true(H5Fclose(f) >= 0);
    replace_str_attr(path, "/parameters", "mass", 70000, H5T_STR_NULLTERM, "rotary");
    replace_str_attr(path, "/", "parameter_keys", 5, H5T_STR_NULLTERM, "mass");
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_read_h5(path, &r, &ctx), PKM_ERR_PARSE);
    assert_non_null(strstr(ctx.msg, "attribute 'mass' of /parameters: string of 70000 bytes"));
    assert_no_open_objects();
    /* a choice not in its table: refused, naming every entry of the table */
    assert_true(H5Fclose(map_write_open(&m, path)) >= 0);
    replace_str_attr(path, "/", "eigensolver", 8, H5T_STR_NULLTERM, "lanczos");
    map_assert_refused(-1, path, "'eigensolver' = 'lanczos', expected ", &ctx);
    for (int e = 0; e < PKM_EIGENSOLVER_COUNT; e++) {
        char quoted[32];
        snprintf(quoted, sizeof(quoted), "'%s'", pkm_eigensolver_types[e].name);
        assert_non_null(strstr(ctx.msg, quoted));
    }
    pkm_map_free(&m);
    unlink(path);
}

/* A stored chunk that is not a whole chunk (here written raw, Fletcher32 skipped) is refused
 * before H5Dread, which would read the missing bytes past its buffer. */
static void test_partial_chunk(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_chunk.h5");
    pkm_map m;
    make_map(&m);
    pkm_ctx ctx;
    hid_t f = map_write_open(&m, path);
    assert_true(H5Ldelete(f, "/status", H5P_DEFAULT) >= 0);
    const hsize_t dims[2] = {NX, NTH}, start[2] = {0, 0};
    hid_t space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    assert_true(H5Pset_chunk(dcpl, 2, dims) >= 0 && H5Pset_fletcher32(dcpl) >= 0);
    hid_t d = H5Dcreate2(f, "/status", H5T_STD_I8LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    assert_true(d >= 0);
    assert_true(H5Dwrite_chunk(d, H5P_DEFAULT, 1, start, 2, m.status) >= 0);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    map_assert_refused(f, path, "dataset /status: a chunk stores 2 bytes, a whole one 16", &ctx);
    pkm_map_free(&m);
    unlink(path);
}

/* Inputs with which fuzzing the reader crashed or hung it inside libhdf5 1.10.8, and that the
 * reader now refuses before HDF5 goes wrong: variable-length strings (the global heap: H5HG_read
 * overflow, SIGSEGV; H5HG__protect hang), a chunk larger than its dataset (H5Dread overread,
 * SIGSEGV) and /status declared of 6-byte integers over its 1-byte ones (H5Dread overflow). */
static void test_known_fuzz_inputs(void **state)
{
    (void)state;
    const struct {
        const char *name, *msg;
    } cases[] = {
        {"global_heap_overflow", "variable-length strings are not read from map files"},
        {"global_heap_hang", "variable-length strings are not read from map files"},
        {"chunk_overread", "dataset /accuracy: chunk dimension 2 is 16386, its shape's 2"},
        {"elsize_overread", "dataset /status is not of 1-byte integer type"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/tests/fuzz/known/map_reader_hdf5_%s.h5", PKM_SOURCE_DIR,
                 cases[i].name);
        pkm_map r;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_int_equal(pkm_map_read_h5(path, &r, &ctx), PKM_ERR_PARSE);
        assert_non_null(strstr(ctx.msg, path));
        assert_non_null(strstr(ctx.msg, cases[i].msg));
        assert_null(r.freq_hz);
        assert_no_open_objects();
    }
}

/* Vectors kept for tracking only are written in single precision (half the checkpoint) and read
 * back as the same rounded values. */
static void test_single_precision_modes(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_single.h5");
    pkm_map m, r;
    make_map_with_modes(&m);
    m.modes_single = 1;
    for (int64_t i = 0; i < m.npoints * m.nev * m.ncoord; i++)
        m.modes[i] = (double)(float)m.modes[i];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
    assert_int_equal(r.modes_single, 1);
    assert_maps_equal(&m, &r);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "/modes", H5P_DEFAULT);
    hid_t t = H5Dget_type(d);
    assert_int_equal(H5Tget_size(t), 4);
    H5Tclose(t);
    H5Dclose(d);
    H5Fclose(f);
    pkm_map_free(&r);
    pkm_map_free(&m);
    unlink(path);
}

/* A checkpoint's links (/tracking_links, /tracking_links_mac) are read back as written, and its
 * /modes holds only the vectors further links need: here points 0 and 4 (not linked to each
 * other) and 10 (next to the pending point 11). A link naming no mode is refused, and so are
 * the MACs without the links. */
static void test_checkpoint_links(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_links.h5");
    pkm_map m, r;
    make_map_with_modes(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_alloc_links(&m, &ctx), &ctx);
    const int64_t stride[2] = {NTH, 1};
    for (int64_t p = 0; p < NPTS; p++)
        for (int a = 0; a < 2; a++) {
            const int64_t q = p + stride[a];
            const int last = a == 0 ? p / NTH == NX - 1 : p % NTH == NTH - 1;
            if (last || m.status[p] != PKM_POSE_OK || m.status[q] != PKM_POSE_OK ||
                (p == 0 && q == 4))
                continue;
            for (int i = 0; i < NEV; i++) {
                m.link_match[(p * 2 + a) * NEV + i] = NEV - 1 - i;
                m.link_mac[(p * 2 + a) * NEV + i] = 0.5 + 0.01 * i + (double)p;
            }
        }
    assert_int_equal(pkm_map_vectors_needed(&m), 3);
    for (int64_t p = 0; p < NPTS; p++)
        if (p != 0 && p != 4 && p != 10)
            for (int i = 0; i < NEV * NC; i++)
                m.modes[p * NEV * NC + i] = NAN;
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
    assert_maps_equal(&m, &r);
    assert_memory_equal(r.link_match, m.link_match, sizeof(int) * NPTS * 2 * NEV);
    for (int i = 0; i < NPTS * 2 * NEV; i++)
        assert_same(r.link_mac[i], m.link_mac[i]);
    assert_int_equal(pkm_map_vectors_needed(&r), 3);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "/modes", H5P_DEFAULT);
    assert_int_equal(H5Dget_storage_size(d), 3 * (NEV * NC * sizeof(double) + 4)); /* Fletcher32 */
    H5Dclose(d);
    H5Fclose(f);
    pkm_map_free(&r);
    m.link_match[(2 * 2 + 1) * NEV] = NEV;
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    assert_int_equal(pkm_map_read_h5(path, &r, &ctx), PKM_ERR_PARSE);
    assert_non_null(strstr(ctx.msg, "/tracking_links"));
    assert_no_open_objects();
    /* The MACs without the links they belong to: nothing to read them into. */
    m.link_match[(2 * 2 + 1) * NEV] = 0;
    f = map_write_open(&m, path);
    assert_true(H5Ldelete(f, "/tracking_links", H5P_DEFAULT) >= 0);
    map_assert_refused(f, path, "/tracking_links_mac without", &ctx);
    pkm_map_free(&m);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_setup_by_value),
        cmocka_unit_test(test_single_value_axis),
        cmocka_unit_test(test_checksum_detects_corruption),
        cmocka_unit_test(test_crafted_sizes),
        cmocka_unit_test(test_single_precision_modes),
        cmocka_unit_test(test_checkpoint_links),
        cmocka_unit_test(test_string_attr_types),
        cmocka_unit_test(test_partial_chunk),
        cmocka_unit_test(test_known_fuzz_inputs),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    H5close();
    return failed;
}
