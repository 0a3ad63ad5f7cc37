/* tests/test_io_vtkhdf_map.c: the map's VTKHDF writer (io/vtkhdf_map.c) on the synthetic map of
 * map_fixture.h: axes with one point are not VTK dimensions, the cells' status is their worst
 * corner's, a single pose is one vertex, more than 3 swept axes are refused. tests/vis_test.sh
 * reads real maps with VTK itself.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "map_fixture.h"

#include <stdio.h>
#include <unistd.h>

#define OUT PKM_TEST_OUT "/test_io_vtkhdf_map.vtkhdf"

/* Dataset /VTKHDF/name, n values read as mtype into buf. */
static void read_dataset(const char *name, hid_t mtype, void *buf)
{
    hid_t f = H5Fopen(OUT, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    assert_true(d >= 0);
    assert_true(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Dclose(d);
    H5Fclose(f);
}

/* The fixture's 3 (x) x 4 (theta) grid with a y axis of one point between them: 12 points
 * in the plane z = 0, 2 x 3 pixels; the cells' status from the fixture's statuses (unreachable
 * at point 1, singular 6, failed 7, pending 11). */
static void test_grid_and_cell_status(void **state)
{
    (void)state;
    pkm_map m;
    make_map(&m);
    m.naxes = 3;
    m.axes[2] = m.axes[1];
    m.axes[1] = (pkm_map_axis){"y", "m", 1, 1, 0.5, 0.5};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_vtkhdf(&m, OUT, &ctx), &ctx);
    int64_t n[2];
    read_dataset("/VTKHDF/NumberOfPoints", H5T_NATIVE_INT64, &n[0]);
    read_dataset("/VTKHDF/NumberOfCells", H5T_NATIVE_INT64, &n[1]);
    assert_int_equal(n[0], NPTS);
    assert_int_equal(n[1], (NX - 1) * (NTH - 1));
    double pts[NPTS][3];
    read_dataset("/VTKHDF/Points", H5T_NATIVE_DOUBLE, pts);
    for (int p = 0; p < NPTS; p++) {
        assert_close(pts[p][0], -0.1 + 0.1 * (p / NTH), 0.0, 1e-15);
        assert_close(pts[p][1], 0.2 * (p % NTH), 0.0, 1e-15);
        assert_true(pts[p][2] == 0.0);
    }
    unsigned char types[(NX - 1) * (NTH - 1)];
    signed char cst[(NX - 1) * (NTH - 1)];
    read_dataset("/VTKHDF/Types", H5T_NATIVE_UCHAR, types);
    read_dataset("/VTKHDF/CellData/status", H5T_NATIVE_SCHAR, cst);
    /* Cells by their first corner: points 0, 1, 2, 4, 5, 6 (corners p, p+4, p+1, p+5). */
    const signed char want[6] = {PKM_POSE_UNREACHABLE, PKM_POSE_SINGULAR, PKM_POSE_FAILED,
                                 PKM_POSE_OK,          PKM_POSE_SINGULAR, PKM_POSE_FAILED};
    for (int c = 0; c < 6; c++) {
        assert_int_equal(types[c], 8); /* VTK_PIXEL */
        assert_int_equal(cst[c], want[c]);
    }
    pkm_map_free(&m);
}

/* Every axis of one point: one VTK_VERTEX; four swept axes: refused, no file. */
static void test_vertex_and_too_many_axes(void **state)
{
    (void)state;
    pkm_map m;
    make_map(&m);
    m.axes[0].count = 1;
    m.axes[1].count = 1;
    m.npoints = 1;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_vtkhdf(&m, OUT, &ctx), &ctx);
    int64_t ncell = 0;
    unsigned char type = 0;
    read_dataset("/VTKHDF/NumberOfCells", H5T_NATIVE_INT64, &ncell);
    read_dataset("/VTKHDF/Types", H5T_NATIVE_UCHAR, &type);
    assert_int_equal(ncell, 1);
    assert_int_equal(type, 1); /* VTK_VERTEX */
    m.axes[0].count = NX;
    m.axes[1].count = NTH;
    m.npoints = NPTS;
    m.naxes = 4;
    for (int a = 2; a < 4; a++)
        m.axes[a] = (pkm_map_axis){"y", "m", 1, 2, 0.0, 1.0};
    unlink(OUT);
    assert_int_equal(pkm_map_write_vtkhdf(&m, OUT, &ctx), PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "more than 3 axes"));
    assert_int_equal(access(OUT, F_OK), -1);
    m.naxes = 2;
    pkm_map_free(&m);
}

/* A map tracked by MAC: PointData tracked_J is the frequency of the rank whose id is J at each
 * pose (the fixture's ids (k + p) mod 5: id J sits at rank (J - p) mod 5), NaN where the pose was
 * not computed; a map whose ids are the ranks has none. */
static void test_tracked_modes(void **state)
{
    (void)state;
    pkm_map m;
    make_map(&m);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_vtkhdf(&m, OUT, &ctx), &ctx);
    for (int id = 0; id < NEV; id++) {
        char name[48];
        snprintf(name, sizeof name, "/VTKHDF/PointData/tracked_%d", id);
        double f[NPTS];
        read_dataset(name, H5T_NATIVE_DOUBLE, f);
        for (int p = 0; p < NPTS; p++) {
            const int k = ((id - p) % NEV + NEV) % NEV;
            if (m.status[p] == PKM_POSE_OK)
                assert_true(f[p] == m.freq_hz[p * NEV + k]);
            else
                assert_true(isnan(f[p]));
        }
    }
    m.tracking = PKM_TRACK_RANK;
    assert_pkm_ok(pkm_map_write_vtkhdf(&m, OUT, &ctx), &ctx);
    hid_t file = H5Fopen(OUT, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    assert_true(H5Lexists(file, "/VTKHDF/PointData/tracked_0", H5P_DEFAULT) == 0);
    H5Fclose(file);
    pkm_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_and_cell_status),
        cmocka_unit_test(test_vertex_and_too_many_axes),
        cmocka_unit_test(test_tracked_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
