/* tests/map_fixture.h: a synthetic frequency map with every field set to a value other than
 * the defaults, and its comparison, for the HDF5 map tests.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_MAP_FIXTURE_H
#define PKM_TEST_MAP_FIXTURE_H

#include "test_util.h"

#include "pkm/io.h"
#include "pkm/map.h"

#include <hdf5.h>

#include <string.h>

#ifndef PKM_TEST_OUT
#define PKM_TEST_OUT "."
#endif

#define NX   3
#define NTH  4
#define NEV  5
#define NPTS (NX * NTH)
#define NC   7 /* coordinates of the synthetic mode vectors */

/* A 3 x 4 grid (x, theta) with 5 modes, a mix of statuses, frequencies from a formula. */
static inline void make_map(pkm_map *m)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->case_name, sizeof(m->case_name), "synthetic");
    m->npose = 3;
    snprintf(m->pose_names[0], PKM_MAP_NAME_LEN, "x");
    snprintf(m->pose_names[1], PKM_MAP_NAME_LEN, "y");
    snprintf(m->pose_names[2], PKM_MAP_NAME_LEN, "theta");
    m->base_pose[0] = 0.01;
    m->base_pose[1] = -0.02;
    m->base_pose[2] = 0.3;
    m->naxes = 2;
    m->axes[0] = (pkm_map_axis){"x", "m", 0, NX, -0.1, 0.1};
    m->axes[1] = (pkm_map_axis){"theta", "rad", 2, NTH, 0.0, 0.6};
    m->nev = NEV;
    /* Not the defaults, so that a reader ignoring an attribute is caught. */
    m->formulation = PKM_FORM_NODAL;
    m->eigensolver = PKM_EIG_DENSE;
    m->opts = pkm_modal_opts_default();
    m->opts.nev = NEV;
    m->opts.ncv = 17;
    m->opts.sigma = -2.5;
    m->opts.tol = 1e-11;
    m->opts.maxiter = 321;
    m->opts.max_residual = 3e-7;
    m->opts.max_backward_error = 2e-11;
    m->ncoord = 42;
    snprintf(m->case_params, sizeof(m->case_params), "E=8e10;leg.A=2e-4");
    m->nparams = 3;
    m->params[0] = (pkm_map_param){"material.E", PKM_PARAM_DOUBLE, 7.4e10, ""};
    m->params[1] = (pkm_map_param){"elements_per_link", PKM_PARAM_INT, 3.0, ""};
    m->params[2] = (pkm_map_param){"mass", PKM_PARAM_ENUM, 1.0, "rotary"};
    snprintf(m->case_file, sizeof(m->case_file), "cases/x.yaml");
    snprintf(m->case_sha256, sizeof(m->case_sha256), "%064d", 7);
    snprintf(m->version, sizeof(m->version), "9.8.7");
    snprintf(m->commit, sizeof(m->commit), "v1-2-gabc");
    m->track.mac_threshold = 0.7;
    m->track.cluster_tol = 3e-6;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_alloc(m, &ctx), &ctx);
    m->tracking = PKM_TRACK_MAC;
    for (int64_t p = 0; p < m->npoints; p++) {
        const int s = (p == 1)    ? PKM_POSE_UNREACHABLE
                      : (p == 6)  ? PKM_POSE_SINGULAR
                      : (p == 7)  ? PKM_POSE_FAILED
                      : (p == 11) ? PKM_POSE_PENDING
                                  : PKM_POSE_OK;
        m->status[p] = (signed char)s;
        /* The closure's conditioning where the model was built, some below PKM_NEAR_SINGULAR. */
        if (s != PKM_POSE_UNREACHABLE && s != PKM_POSE_PENDING)
            m->conditioning[p] = 2e-4 * (double)(p + 1);
        if (s != PKM_POSE_OK) continue; /* alloc left NaN and -1 */
        for (int k = 0; k < NEV; k++) {
            m->freq_hz[p * NEV + k] = 10.0 * (k + 1) + 0.25 * (double)p + 1e-3 * k * k;
            m->residual[p * NEV + k] = 1e-12 * (double)(1 + k + NEV * p);
            m->accuracy[p * NEV + k] = 1e-9 * (double)(2 + k + NEV * p);
            m->tracked[p * NEV + k] = (k + (int)p) % NEV;
            m->tracking_mac[p * NEV + k] = (p == 0) ? NAN : 1.0 - 0.01 * (double)(k + p);
        }
        m->tracking_parent[p] = (p == 0) ? -1 : (p % NTH == 0 ? p - NTH : p - 1);
    }
}

/* make_map with mode vectors of NC coordinates, NaN where the status is not OK. */
static inline void make_map_with_modes(pkm_map *m)
{
    make_map(m);
    m->ncoord = NC;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_alloc_modes(m, &ctx), &ctx);
    for (int64_t p = 0; p < m->npoints; p++)
        for (int i = 0; i < NEV * NC && m->status[p] == PKM_POSE_OK; i++)
            m->modes[p * NEV * NC + i] = (double)(1000 * p + i) / 7.0;
}

static inline void out_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", PKM_TEST_OUT, name);
}

/* Equal, NaN matching NaN. */
static inline void assert_same(double a, double b)
{
    if (isnan(a) || isnan(b))
        assert_true(isnan(a) && isnan(b));
    else
        assert_true(a == b);
}

static inline void assert_no_open_objects(void)
{
    assert_int_equal(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
}

/* The "write, damage, read" tests: m written to path and opened read-write for the damage. */
static inline hid_t map_write_open(const pkm_map *m, const char *path)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_write_h5(m, path, &ctx), &ctx);
    const hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    return f;
}

/* The damaged file f (at path; f < 0: already closed) closed and read: PKM_ERR_PARSE with a
 * message naming what and the file (in *ctx for further checks), no map and no HDF5 object
 * left. */
static inline void map_assert_refused(hid_t f, const char *path, const char *what, pkm_ctx *ctx)
{
    if (f >= 0) assert_true(H5Fclose(f) >= 0);
    pkm_map r;
    pkm_ctx_clear(ctx);
    assert_int_equal(pkm_map_read_h5(path, &r, ctx), PKM_ERR_PARSE);
    assert_non_null(strstr(ctx->msg, what));
    assert_non_null(strstr(ctx->msg, path));
    assert_null(r.freq_hz); /* freed on failure */
    assert_no_open_objects();
}

static inline void assert_maps_equal(const pkm_map *a, const pkm_map *b)
{
    assert_string_equal(a->case_name, b->case_name);
    assert_int_equal(a->npose, b->npose);
    for (int k = 0; k < a->npose; k++) {
        assert_string_equal(a->pose_names[k], b->pose_names[k]);
        assert_same(a->base_pose[k], b->base_pose[k]);
    }
    assert_int_equal(a->naxes, b->naxes);
    for (int i = 0; i < a->naxes; i++) {
        assert_string_equal(a->axes[i].name, b->axes[i].name);
        assert_string_equal(a->axes[i].unit, b->axes[i].unit);
        assert_int_equal(a->axes[i].pose_index, b->axes[i].pose_index);
        assert_int_equal(a->axes[i].count, b->axes[i].count);
        assert_same(a->axes[i].start, b->axes[i].start);
        assert_same(a->axes[i].stop, b->axes[i].stop);
    }
    assert_int_equal(a->npoints, b->npoints);
    assert_int_equal(a->nev, b->nev);
    assert_int_equal(a->formulation, b->formulation);
    assert_int_equal(a->eigensolver, b->eigensolver);
    assert_int_equal(a->opts.nev, b->opts.nev);
    assert_int_equal(a->opts.ncv, b->opts.ncv);
    assert_same(a->opts.sigma, b->opts.sigma);
    assert_same(a->opts.tol, b->opts.tol);
    assert_int_equal(a->opts.maxiter, b->opts.maxiter);
    assert_same(a->opts.max_residual, b->opts.max_residual);
    assert_same(a->opts.max_backward_error, b->opts.max_backward_error);
    assert_int_equal(a->ncoord, b->ncoord);
    assert_string_equal(a->case_params, b->case_params);
    assert_string_equal(a->case_file, b->case_file);
    assert_string_equal(a->case_sha256, b->case_sha256);
    assert_string_equal(a->version, b->version);
    assert_string_equal(a->commit, b->commit);
    assert_int_equal(a->nparams, b->nparams);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_same_setup(a, b, &ctx), &ctx);
    assert_same(a->track.mac_threshold, b->track.mac_threshold);
    assert_same(a->track.cluster_tol, b->track.cluster_tol);
    assert_int_equal(a->tracking, b->tracking);
    assert_string_equal(a->tracking_note, b->tracking_note);
    assert_true((a->modes == NULL) == (b->modes == NULL));
    for (int64_t i = 0; a->modes != NULL && i < a->npoints * a->nev * a->ncoord; i++)
        assert_same(a->modes[i], b->modes[i]);
    for (int64_t p = 0; p < a->npoints; p++) {
        assert_int_equal(a->status[p], b->status[p]);
        assert_int_equal(a->tracking_parent[p], b->tracking_parent[p]);
        assert_same(a->conditioning[p], b->conditioning[p]);
        for (int k = 0; k < a->nev; k++) {
            assert_same(a->freq_hz[p * a->nev + k], b->freq_hz[p * b->nev + k]);
            assert_same(a->residual[p * a->nev + k], b->residual[p * b->nev + k]);
            assert_same(a->accuracy[p * a->nev + k], b->accuracy[p * b->nev + k]);
            assert_int_equal(a->tracked[p * a->nev + k], b->tracked[p * b->nev + k]);
            assert_same(a->tracking_mac[p * a->nev + k], b->tracking_mac[p * b->nev + k]);
        }
    }
}

#endif
