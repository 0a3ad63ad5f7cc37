/* tests/sweep_fixture.h: the NaVARo map the sweep tests compute (7 x 6 points over the
 * workspace at theta = -pi/3, unreachable corners included) and their bit-for-bit comparison.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_SWEEP_FIXTURE_H
#define PKM_TEST_SWEEP_FIXTURE_H

#include "test_util.h"

#include "pkm/map.h"

#include <math.h>
#include <stdio.h>

/* The NaVARo case and its default parameters (the caller destroys them). */
static inline void *navaro_params(const pkm_case **c)
{
    *c = pkm_case_find("navaro");
    assert_non_null(*c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *par = NULL;
    assert_pkm_ok(pkm_case_params_create(*c, &par, &ctx), &ctx);
    return par;
}

/* A 7 x 6 NaVARo map over the workspace at theta = -pi/3, unreachable corners included, vectors
 * kept for tracking (single precision); with make_navaro_grid, nx x ny points and the
 * eigensolver eig. */
static inline void make_navaro_grid(const pkm_case *c, const void *par, pkm_map *m, int nx, int ny,
                                    pkm_eigensolver eig)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_map_init(m);
    assert_pkm_ok(pkm_map_set_case(m, c, par, NULL, &ctx), &ctx);
    m->npose = c->npose;
    for (int k = 0; k < c->npose; k++)
        snprintf(m->pose_names[k], PKM_MAP_NAME_LEN, "%s", c->pose_names[k]);
    m->base_pose[2] = -1.0471975511965976;
    m->naxes = 2;
    m->axes[0] = (pkm_map_axis){"x", "m", 0, nx, -0.22, 0.22};
    m->axes[1] = (pkm_map_axis){"y", "m", 1, ny, -0.22, 0.22};
    m->nev = m->opts.nev = 4;
    m->eigensolver = eig;
    assert_pkm_ok(pkm_map_alloc(m, &ctx), &ctx);
}

static inline void make_navaro_map(const pkm_case *c, const void *par, pkm_map *m)
{
    make_navaro_grid(c, par, m, 7, 6, PKM_EIG_ARPACK);
}

/* Every result array of a and b equal bit for bit (NaN where not OK included). */
static inline void assert_same_map(const pkm_map *a, const pkm_map *b)
{
    const size_t np = (size_t)a->npoints, nv = np * (size_t)a->nev;
    assert_int_equal(a->npoints, b->npoints);
    assert_int_equal(a->ncoord, b->ncoord);
    assert_int_equal(a->tracking, b->tracking);
    assert_memory_equal(a->status, b->status, np);
    assert_memory_equal(a->freq_hz, b->freq_hz, nv * sizeof(double));
    assert_memory_equal(a->residual, b->residual, nv * sizeof(double));
    assert_memory_equal(a->accuracy, b->accuracy, nv * sizeof(double));
    assert_memory_equal(a->tracked, b->tracked, nv * sizeof(int));
    assert_memory_equal(a->tracking_mac, b->tracking_mac, nv * sizeof(double));
    assert_memory_equal(a->tracking_parent, b->tracking_parent, np * sizeof(int64_t));
    /* The closure's conditioning (pkm_pose_conditioning): at every OK pose of NaVARo, the same
     * bits whoever computed it. */
    assert_memory_equal(a->conditioning, b->conditioning, np * sizeof(double));
    for (size_t p = 0; p < np; p++)
        if (b->status[p] == PKM_POSE_OK) assert_true(b->conditioning[p] > 0.0);
    /* b is uninterrupted: it holds every OK point's vectors; a resumed a only those its
     * checkpoints still needed (the others were linked and dropped). */
    assert_non_null(a->modes);
    assert_non_null(b->modes);
    const size_t per_point = (size_t)a->nev * (size_t)a->ncoord;
    for (size_t p = 0; p < np; p++) {
        if (b->status[p] != PKM_POSE_OK) continue;
        assert_false(isnan(b->modes[p * per_point]));
        if (!isnan(a->modes[p * per_point]))
            assert_memory_equal(a->modes + p * per_point, b->modes + p * per_point,
                                per_point * sizeof(double));
    }
}

#endif
