/* tests/test_io_h5map.c: the HDF5 frequency-map file (io/h5map.c, docs/hdf5-layout.md).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L /* mkdir, rmdir, dup, dup2, unlink */

#include "map_fixture.h"

#include <hdf5.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_roundtrip(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_roundtrip.h5");
    pkm_map m, r;
    make_map(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    assert_no_open_objects();
    char tmp[520];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    assert_false(file_exists(tmp));
    assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
    assert_no_open_objects();
    assert_maps_equal(&m, &r);
    /* Overwriting an existing map replaces it. */
    m.freq_hz[0] = 123.5;
    pkm_map_free(&r);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
    assert_same(r.freq_hz[0], 123.5);
    pkm_map_free(&r);
    pkm_map_free(&m);
    assert_int_equal(unlink(path), 0);
    assert_no_open_objects();
}

/* /modes is written when the map holds mode vectors, and read back (NaN where not OK). */
static void test_roundtrip_modes(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_modes.h5");
    pkm_map m, r;
    make_map_with_modes(&m);
    snprintf(m.tracking_note, sizeof(m.tracking_note), "a note");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
    assert_no_open_objects();
    assert_non_null(r.modes);
    assert_true(isnan(r.modes[1 * NEV * NC])); /* point 1 is unreachable */
    assert_maps_equal(&m, &r);
    pkm_map_free(&r);
    pkm_map_free(&m);
    assert_int_equal(unlink(path), 0);
}

/* A scalar fixed-length UTF-8 string attribute of obj, strlen + 1 bytes null-terminated: no
 * variable-length string, which would live in the file's global heap (io/h5map.c). */
static void assert_str_attr(hid_t obj, const char *name, const char *want)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t ft = H5Aget_type(a);
    assert_int_equal(H5Tget_class(ft), H5T_STRING);
    assert_int_equal(H5Tis_variable_str(ft), 0);
    assert_int_equal(H5Tget_strpad(ft), H5T_STR_NULLTERM);
    assert_int_equal(H5Tget_cset(ft), H5T_CSET_UTF8);
    const size_t size = H5Tget_size(ft);
    char s[2048] = "";
    assert_in_range(size, 1, sizeof(s));
    assert_true(H5Aread(a, ft, s) >= 0);
    assert_int_equal(strlen(s) + 1, size);
    if (want != NULL)
        assert_string_equal(s, want);
    else
        assert_true(strlen(s) > 0);
    /* created: ISO-8601 UTC, e.g. 2024-05-01T12:34:56Z */
    if (strcmp(name, "created") == 0) {
        assert_int_equal(strlen(s), 20);
        assert_true(s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[19] == 'Z');
    }
    H5Tclose(ft);
    H5Aclose(a);
}

static long long int_attr(hid_t obj, const char *name)
{
    long long v = -999;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t t = H5Aget_type(a);
    assert_int_equal(H5Tget_class(t), H5T_INTEGER);
    assert_true(H5Aread(a, H5T_NATIVE_LLONG, &v) >= 0);
    H5Tclose(t);
    H5Aclose(a);
    return v;
}

/* Rank, dimensions and element class of dataset d. */
static void assert_shape(hid_t d, int rank, const hsize_t *want, H5T_class_t cls, size_t size)
{
    hid_t s = H5Dget_space(d), t = H5Dget_type(d);
    assert_true(s >= 0 && t >= 0);
    assert_int_equal(H5Sget_simple_extent_ndims(s), rank);
    hsize_t dims[8];
    H5Sget_simple_extent_dims(s, dims, NULL);
    for (int k = 0; k < rank; k++)
        assert_int_equal(dims[k], want[k]);
    assert_int_equal(H5Tget_class(t), cls);
    assert_int_equal(H5Tget_size(t), size);
    H5Tclose(t);
    H5Sclose(s);
}

/* The file read with the plain HDF5 API, as another program would. */
static void test_raw_layout(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_raw.h5");
    pkm_map m;
    make_map_with_modes(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_str_attr(f, "case", "synthetic");
    assert_str_attr(f, "pose_names", "x,y,theta");
    assert_str_attr(f, "axes", "x,theta");
    assert_str_attr(f, "formulation", "nodal");
    assert_str_attr(f, "eigensolver", "dense");
    assert_str_attr(f, "created", NULL);
    assert_str_attr(f, "pkmflex_version", NULL);
    assert_int_equal(int_attr(f, "nev"), NEV);
    assert_int_equal(int_attr(f, "ncv"), 17);
    assert_int_equal(int_attr(f, "ncoord"), NC);
    assert_int_equal(int_attr(f, "format_version"), 5);
    assert_str_attr(f, "case_parameters", "E=8e10;leg.A=2e-4");
    assert_str_attr(f, "tracking", "mac");
    assert_int_equal(H5Aexists(f, "tracking_note"), 1);
    assert_int_equal(H5Aexists(f, "mac_threshold"), 1);
    assert_int_equal(H5Aexists(f, "cluster_tol"), 1);

    static double freq[NPTS * NEV];
    const hsize_t fdims[3] = {NX, NTH, NEV};
    hid_t d = H5Dopen2(f, "/freq_hz", H5P_DEFAULT);
    assert_true(d >= 0);
    assert_shape(d, 3, fdims, H5T_FLOAT, 8);
    assert_str_attr(d, "units", "Hz");
    hid_t plist = H5Dget_create_plist(d);
    assert_int_equal(H5Pget_layout(plist), H5D_CHUNKED);
    H5Pclose(plist);
    assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, freq) >= 0);
    H5Dclose(d);
    for (int p = 0; p < NPTS; p++)
        for (int k = 0; k < NEV; k++) {
            if (m.status[p] == PKM_POSE_OK)
                assert_same(freq[p * NEV + k], 10.0 * (k + 1) + 0.25 * p + 1e-3 * k * k);
            else
                assert_true(isnan(freq[p * NEV + k]));
        }

    d = H5Dopen2(f, "/residual", H5P_DEFAULT);
    assert_true(d >= 0);
    assert_shape(d, 3, fdims, H5T_FLOAT, 8);
    assert_str_attr(d, "description", NULL);
    H5Dclose(d);

    int tracked[NPTS * NEV];
    d = H5Dopen2(f, "/tracked_mode", H5P_DEFAULT);
    assert_true(d >= 0);
    assert_shape(d, 3, fdims, H5T_INTEGER, 4);
    assert_true(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tracked) >= 0);
    H5Dclose(d);
    assert_int_equal(tracked[1 * NEV + 2], -1);
    assert_int_equal(tracked[2 * NEV + 4], (4 + 2) % NEV);

    double mac[NPTS * NEV];
    d = H5Dopen2(f, "/tracking_mac", H5P_DEFAULT);
    assert_true(d >= 0);
    assert_shape(d, 3, fdims, H5T_FLOAT, 8);
    assert_str_attr(d, "description", NULL);
    assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, mac) >= 0);
    H5Dclose(d);
    assert_true(isnan(mac[0]));
    assert_same(mac[2 * NEV + 3], 1.0 - 0.01 * (3 + 2));

    long long parent[NPTS];
    d = H5Dopen2(f, "/tracking_parent", H5P_DEFAULT);
    assert_true(d >= 0);
    assert_shape(d, 2, fdims, H5T_INTEGER, 8);
    assert_true(H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, parent) >= 0);
    H5Dclose(d);
    assert_int_equal(parent[0], -1);
    assert_int_equal(parent[5], 4);
    assert_int_equal(parent[4], 0);

    /* /modes: [x, theta, nev, ncoord], one chunk per pose, NaN where the status is not OK */
    static double modes[NPTS * NEV * NC];
    const hsize_t mdims[4] = {NX, NTH, NEV, NC};
    d = H5Dopen2(f, "/modes", H5P_DEFAULT);
    assert_true(d >= 0);
    assert_shape(d, 4, mdims, H5T_FLOAT, 8);
    assert_str_attr(d, "description", NULL);
    plist = H5Dget_create_plist(d);
    hsize_t chunk[4] = {0};
    assert_int_equal(H5Pget_chunk(plist, 4, chunk), 4);
    assert_true(chunk[0] == 1 && chunk[1] == 1 && chunk[2] == NEV && chunk[3] == NC);
    H5Pclose(plist);
    assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, modes) >= 0);
    H5Dclose(d);
    assert_same(modes[(2 * NEV + 1) * NC + 3], (1000.0 * 2 + NC + 3) / 7.0);
    assert_true(isnan(modes[(6 * NEV + 1) * NC + 3])); /* point 6 is singular */

    signed char st[NPTS];
    d = H5Dopen2(f, "/status", H5P_DEFAULT);
    assert_true(d >= 0);
    assert_shape(d, 2, fdims, H5T_INTEGER, 1);
    assert_str_attr(d, "meaning", "-1 pending, 0 ok, 1 unreachable, 2 singular, 3 solver failure");
    assert_true(H5Dread(d, H5T_NATIVE_SCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, st) >= 0);
    H5Dclose(d);
    for (int p = 0; p < NPTS; p++)
        assert_int_equal(st[p], m.status[p]);
    assert_int_equal(st[1], 1);
    assert_int_equal(st[6], 2);
    assert_int_equal(st[7], 3);
    assert_int_equal(st[11], -1);

    double x[NX], th[NTH];
    d = H5Dopen2(f, "/grid/x", H5P_DEFAULT);
    assert_true(d >= 0);
    assert_shape(d, 1, fdims, H5T_FLOAT, 8);
    assert_str_attr(d, "units", "m");
    assert_int_equal(int_attr(d, "pose_index"), 0);
    assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0);
    H5Dclose(d);
    assert_same(x[0], -0.1);
    assert_close(x[1], 0.0, 0, 1e-17);
    assert_same(x[2], 0.1);
    d = H5Dopen2(f, "/grid/theta", H5P_DEFAULT);
    assert_true(d >= 0);
    assert_shape(d, 1, fdims + 1, H5T_FLOAT, 8);
    assert_str_attr(d, "units", "rad");
    assert_int_equal(int_attr(d, "pose_index"), 2);
    assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, th) >= 0);
    H5Dclose(d);
    assert_close(th[1], 0.2, 1e-15, 0);
    assert_same(th[3], 0.6);
    assert_true(H5Fclose(f) >= 0);
    assert_no_open_objects();
    pkm_map_free(&m);
    assert_int_equal(unlink(path), 0);
}

static void test_nonexistent_directory(void **state)
{
    (void)state;
    char path[512], tmp[520];
    out_path(path, sizeof(path), "h5map_no_such_dir/map.h5");
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    pkm_map m;
    make_map(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_write_h5(&m, path, &ctx), PKM_ERR_IO);
    assert_non_null(strstr(ctx.msg, path));
    assert_non_null(strstr(ctx.msg, "No such file or directory")); /* the cause was captured */
    assert_false(file_exists(path));
    assert_false(file_exists(tmp));
    assert_no_open_objects();
    pkm_map_free(&m);
}

/* A write that fails after the target exists leaves the old file as it was. */
static void test_failed_write_keeps_old_file(void **state)
{
    (void)state;
    char path[512], tmp[520];
    out_path(path, sizeof(path), "map_keep.h5");
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    pkm_map m, r;
    make_map(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    rmdir(tmp);
    assert_int_equal(mkdir(tmp, 0700), 0); /* H5Fcreate cannot truncate a directory */
    pkm_map changed;
    make_map(&changed);
    snprintf(changed.case_name, sizeof(changed.case_name), "changed");
    changed.freq_hz[0] = 999.0;
    assert_int_equal(pkm_map_write_h5(&changed, path, &ctx), PKM_ERR_IO);
    assert_non_null(strstr(ctx.msg, path));
    assert_no_open_objects();
    struct stat st;
    assert_int_equal(stat(tmp, &st), 0);
    assert_true(S_ISDIR(st.st_mode)); /* not ours: left alone */
    assert_int_equal(rmdir(tmp), 0);
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
    assert_maps_equal(&m, &r);
    pkm_map_free(&r);
    pkm_map_free(&changed);
    pkm_map_free(&m);
    assert_int_equal(unlink(path), 0);
    assert_no_open_objects();
}

/* Run read on path with stderr redirected to a file; returns the status and the byte count
 * printed on stderr. */
static pkm_status read_capturing_stderr(const char *path, pkm_map *m, pkm_ctx *ctx, long *printed)
{
    char errfile[512];
    out_path(errfile, sizeof(errfile), "h5map_stderr.txt");
    fflush(stderr);
    const int saved = dup(2);
    assert_true(saved >= 0);
    const int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_true(dup2(fd, 2) >= 0);
    close(fd);
    pkm_status st = pkm_map_read_h5(path, m, ctx);
    fflush(stderr);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    struct stat sb;
    assert_int_equal(stat(errfile, &sb), 0);
    *printed = (long)sb.st_size;
    unlink(errfile);
    return st;
}

static void test_read_not_hdf5(void **state)
{
    (void)state;
    const char *csv = PKM_SOURCE_DIR "/cases/navaro/table3_cast3m.csv";
    assert_true(file_exists(csv));
    /* HDF5's default is to print its error stack: the reader must silence it and restore it. */
    H5E_auto2_t f0 = NULL;
    void *d0 = NULL;
    assert_true(H5Eget_auto2(H5E_DEFAULT, &f0, &d0) >= 0);
    assert_non_null(f0);
    pkm_map m;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    long printed = -1;
    pkm_status st = read_capturing_stderr(csv, &m, &ctx, &printed);
    assert_true(st == PKM_ERR_PARSE || st == PKM_ERR_IO);
    assert_int_equal(ctx.status, st);
    assert_non_null(strstr(ctx.msg, csv));
    assert_int_equal(printed, 0);
    assert_null(m.status);
    H5E_auto2_t f1 = NULL;
    void *d1 = NULL;
    assert_true(H5Eget_auto2(H5E_DEFAULT, &f1, &d1) >= 0);
    assert_true(f1 == f0 && d1 == d0);

    /* A missing file is an I/O error. */
    char path[512];
    out_path(path, sizeof(path), "h5map_missing.h5");
    pkm_ctx_clear(&ctx);
    assert_int_equal(read_capturing_stderr(path, &m, &ctx, &printed), PKM_ERR_IO);
    assert_non_null(strstr(ctx.msg, path));
    assert_int_equal(printed, 0);
    assert_no_open_objects();
}

/* Damage a good file with the raw API; the reader names the dataset and the file. */
static void test_read_malformed(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_malformed.h5");
    pkm_map m, r;
    make_map(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);

    /* missing /residual */
    hid_t f = map_write_open(&m, path);
    assert_true(H5Ldelete(f, "/residual", H5P_DEFAULT) >= 0);
    map_assert_refused(f, path, "/residual", &ctx);

    /* /status of the wrong shape */
    f = map_write_open(&m, path);
    assert_true(H5Ldelete(f, "/status", H5P_DEFAULT) >= 0);
    const hsize_t n = NPTS;
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, "/status", H5T_STD_I8LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(s >= 0 && d >= 0);
    assert_true(H5Dwrite(d, H5T_NATIVE_SCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.status) >= 0);
    H5Dclose(d);
    H5Sclose(s);
    map_assert_refused(f, path, "/status", &ctx);
    assert_non_null(strstr(ctx.msg, "rank 1"));

    /* missing root attribute */
    f = map_write_open(&m, path);
    assert_true(H5Adelete(f, "nev") >= 0);
    map_assert_refused(f, path, "'nev'", &ctx);

    /* a parent that is not a point */
    m.tracking_parent[3] = NPTS;
    map_assert_refused(map_write_open(&m, path), path, "/tracking_parent", &ctx);
    m.tracking_parent[3] = 2;

    /* format version 1 (no tracking datasets, settings or case parameters) still reads */
    pkm_ctx_clear(&ctx);
    f = map_write_open(&m, path);
    const char *v2[] = {"case_parameters", "tracking", "tracking_note", "mac_threshold",
                        "cluster_tol"};
    for (size_t k = 0; k < sizeof(v2) / sizeof(v2[0]); k++)
        assert_true(H5Adelete(f, v2[k]) >= 0);
    assert_true(H5Ldelete(f, "/tracking_mac", H5P_DEFAULT) >= 0);
    assert_true(H5Ldelete(f, "/tracking_parent", H5P_DEFAULT) >= 0);
    const int one = 1;
    hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
    assert_true(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &one) >= 0);
    H5Aclose(a);
    assert_true(H5Fclose(f) >= 0);
    assert_pkm_ok(pkm_map_read_h5(path, &r, &ctx), &ctx);
    assert_int_equal(r.tracking, PKM_TRACK_RANK);
    assert_string_equal(r.case_params, "");
    assert_true(isnan(r.tracking_mac[2 * NEV]) && r.tracking_parent[2] == -1);
    assert_true(isnan(r.conditioning[0])); /* /closure_conditioning: version 5 */
    assert_same(r.freq_hz[2 * NEV], m.freq_hz[2 * NEV]);
    pkm_map_free(&r);
    assert_no_open_objects();

    pkm_map_free(&m);
    assert_int_equal(unlink(path), 0);
}

static void test_invalid_map(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_invalid.h5");
    pkm_map m;
    make_map(&m);
    snprintf(m.axes[1].name, PKM_MAP_NAME_LEN, "a/b"); /* not an HDF5 link name */
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_map_write_h5(&m, path, &ctx), PKM_ERR_INVALID);
    assert_false(file_exists(path));
    pkm_map_free(&m);
    assert_no_open_objects();
}

/* Leaves map_tools.h5 for the h5dump / h5py check (tests/h5_tools_test.sh), whose fixture
 * cleanup removes it. */
static void test_write_tools_file(void **state)
{
    (void)state;
    char path[512];
    out_path(path, sizeof(path), "map_tools.h5");
    pkm_map m;
    make_map_with_modes(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(&m, path, &ctx), &ctx);
    pkm_map_free(&m);
    assert_no_open_objects();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_roundtrip_modes),
        cmocka_unit_test(test_raw_layout),
        cmocka_unit_test(test_nonexistent_directory),
        cmocka_unit_test(test_failed_write_keeps_old_file),
        cmocka_unit_test(test_read_not_hdf5),
        cmocka_unit_test(test_read_malformed),
        cmocka_unit_test(test_invalid_map),
        cmocka_unit_test(test_write_tools_file),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    H5close(); /* release HDF5's global state so LeakSanitizer sees only real leaks */
    return failed;
}
