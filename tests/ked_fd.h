/* tests/ked_fd.h: what the KED checks need besides the library, written from the definitions
 * and not from studies/transient_inertia.c: an element's consistent mass in global axes (the
 * fem kernel turned by its frame), finite differences of the finite-element models the case
 * builds at nearby poses.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TESTS_KED_FD_H
#define PKM_TESTS_KED_FD_H

#include "test_util.h"

#include "core/core_impl.h"

#include "pkm/fem.h"
#include "pkm/trajectory.h"

/* Element e of model m: its 12 x 12 mass in global axes (M = T^T G T, T = diag(R, R, R, R)),
 * from the element type's kernel with the body's mass options (flags_mask applied to them). */
static inline void ked_element_mass(const pkm_model *m, int e, unsigned flags_mask,
                                    double M[12][12])
{
    const pkm_elem *el = pkm_model_elem(m, e);
    const pkm_body *b = pkm_model_body(m, el->body);
    const pkm_beam_type *type = &pkm_beam_types[b->element];
    assert_int_equal(type->dofs_per_node, 6);
    double R[3][3], l = 0.0, G[12][12];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_fem_beam3d_frame(pkm_model_node(m, el->n1)->x, pkm_model_node(m, el->n2)->x,
                                       b->zref, R, &l, &ctx),
                  &ctx);
    type->mass(&b->section, &b->material, l, b->mass_flags & flags_mask, &G[0][0]);
    double TG[12][12] = {{0}};
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            for (int k = 0; k < 3; k++) /* (T^T G)[i][j] = sum_k R[k][i % 3] G[3 (i / 3) + k][j] */
                TG[i][j] += R[k][i % 3] * G[3 * (i / 3) + k][j];
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            M[i][j] = 0.0;
            for (int k = 0; k < 3; k++)
                M[i][j] += TG[i][3 * (j / 3) + k] * R[k][j % 3];
        }
}

/* The finite-element model of case c at the trajectory's pose at time t. */
static inline pkm_model *ked_model_at(const pkm_case *c, const void *params,
                                      const pkm_trajectory *tr, double t)
{
    double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_eval(tr, t, p, pd, pdd, &ctx), &ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(c->build(params, p, &m, &ctx), &ctx);
    return m;
}

/* A case file of the source tree (rel: "examples/delta.yaml") and its parameters. */
static inline const pkm_case *ked_load_file(const char *rel, void **params)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", PKM_SOURCE_DIR, rel);
    const pkm_case *c = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_case_file_load(path, &c, params, &ctx), &ctx);
    return c;
}

/* The angle about z of the segment a -> b (a planar body's turn). */
static inline double ked_angle(const double a[3], const double b[3])
{
    return atan2(b[1] - a[1], b[0] - a[0]);
}

/* The second central difference of angles, unwrapped. */
static inline double ked_angle_dd(double am, double a0, double ap, double h)
{
    const double d1 = remainder(a0 - am, 2.0 * PKM_PI), d2 = remainder(ap - a0, 2.0 * PKM_PI);
    return (d2 - d1) / (h * h);
}

#endif
