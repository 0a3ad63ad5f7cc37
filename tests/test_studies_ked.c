/* tests/test_studies_ked.c: the KED loads (pkm_transient_loads) and the transient's platform error
 * checked against routes that share none of their code: each body's load against the time
 * derivative of its momentum by central differences (beam elements, rigid bodies, lumped masses,
 * in a spatial motion), and the whole transient against a second driver written here, the nodal
 * formulation loaded by the finite-element nodes' accelerations from finite differences of the
 * models the case builds, with no dynamics/ code (Li et al. 2020, eq. 37).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ked_fd.h"
#include "navaro_defaults.h"

#include "core/core_impl.h"
#include "pkm/dofmap.h"
#include "pkm/motion.h"
#include "pkm/newmark.h"
#include "pkm/robot.h"
#include "pkm/spatial.h"
#include "pkm/transient.h"

#include <stdlib.h>
#include <string.h>

/* Body b's momentum about the origin (P, L) in model m moving with the twists V (pkm_mbs
 * convention: the velocity of the point at the origin, then w): its elements' M_e U' (U' the
 * nodes' velocities and w; M_e translational with flags_mask 0), its rigid mass (m v_c, c x m v_c
 * + J_c w), its lumped masses (m v, x x m v + J w). */
static void body_momentum(const pkm_model *m, int b, const double (*V)[6], unsigned flags_mask,
                          double H[6])
{
    const pkm_body *bd = pkm_model_body(m, b);
    const double *w = V[b] + 3;
    memset(H, 0, 6 * sizeof(double));
    double v[3], p[3], xp[3];
    for (int e = bd->first_elem; e < bd->first_elem + bd->nelem && bd->kind == PKM_BODY_BEAM; e++) {
        double M[12][12], u[12], mu[12] = {0};
        ked_element_mass(m, e, flags_mask, M);
        const int n[2] = {pkm_model_elem(m, e)->n1, pkm_model_elem(m, e)->n2};
        for (int s = 0; s < 2; s++) {
            pkm_vec3_cross(w, pkm_model_node(m, n[s])->x, v);
            for (int k = 0; k < 3; k++) {
                u[6 * s + k] = V[b][k] + v[k];
                u[6 * s + 3 + k] = w[k];
            }
        }
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 12; j++)
                mu[i] += M[i][j] * u[j];
        for (int s = 0; s < 2; s++) {
            pkm_vec3_cross(pkm_model_node(m, n[s])->x, mu + 6 * s, xp);
            for (int k = 0; k < 3; k++) {
                H[k] += mu[6 * s + k];
                H[3 + k] += xp[k] + mu[6 * s + 3 + k];
            }
        }
    }
    double Jw[3];
    if (bd->kind == PKM_BODY_RIGID) {
        pkm_vec3_cross(w, bd->com, v);
        pkm_mat3_apply(PKM_CONST33(bd->inertia), w, Jw);
        for (int k = 0; k < 3; k++)
            p[k] = bd->mass * (V[b][k] + v[k]);
        pkm_vec3_cross(bd->com, p, xp);
        for (int k = 0; k < 3; k++) {
            H[k] += p[k];
            H[3 + k] += xp[k] + Jw[k];
        }
    }
    for (int i = 0; i < pkm_model_mass_count(m); i++) {
        const pkm_lumped_mass *l = pkm_model_mass(m, i);
        const double *x = pkm_model_node(m, l->node)->x;
        if (pkm_model_node(m, l->node)->body != b) continue;
        pkm_vec3_cross(w, x, v);
        pkm_mat3_apply(PKM_CONST33(l->inertia), w, Jw);
        for (int k = 0; k < 3; k++)
            p[k] = l->mass * (V[b][k] + v[k]);
        pkm_vec3_cross(x, p, xp);
        for (int k = 0; k < 3; k++) {
            H[k] += p[k];
            H[3 + k] += xp[k] + Jw[k];
        }
    }
}

/* The resultant about the origin of the nodal wrenches fn on the nodes of body b. */
static void body_resultant(const pkm_model *m, int b, const double *fn, double W[6])
{
    memset(W, 0, 6 * sizeof(double));
    for (int n = 0; n < pkm_model_node_count(m); n++) {
        if (pkm_model_node(m, n)->body != b) continue;
        double xf[3];
        pkm_vec3_cross(pkm_model_node(m, n)->x, fn + 6 * n, xf);
        for (int k = 0; k < 3; k++) {
            W[k] += fn[6 * n + k];
            W[3 + k] += xf[k] + fn[6 * n + 3 + k];
        }
    }
}

/* Every body's twist and spatial acceleration at t, the motion followed there. */
static void motion_at(pkm_motion *mo, const pkm_trajectory *tr, double t, double (*VA)[12])
{
    double p[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_eval(tr, t, p, pd, pdd, &ctx), &ctx);
    assert_pkm_ok(pkm_motion_at(mo, t, p, pd, pdd, &ctx), &ctx);
    for (int b = 0; b < pkm_model_body_count(pkm_motion_model(mo)); b++)
        pkm_mbs_body_motion(pkm_motion_mbs(mo), b, VA[b], VA[b] + 6);
}

/* At time t of the case's first trajectory: every body's load resultant (pkm_transient_loads,
 * gravity g) against -dH/dt by central differences of step h (the models built at t -+ h, the
 * bodies' twists there); the largest difference over the largest |dH/dt|. */
static double momentum_check(const pkm_case *c, const void *params, const pkm_trajectory *tr,
                             double t, double h, const double g[3], unsigned flags_mask)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_motion *mo = NULL;
    assert_pkm_ok(pkm_motion_create(c, params, NULL, &mo, &ctx), &ctx);
    const int nb = pkm_model_body_count(pkm_motion_model(mo));
    double(*VA)[3][12] = calloc((size_t)nb, sizeof(*VA));
    double(*V)[6] = calloc((size_t)nb, sizeof(*V));
    assert_non_null(VA);
    assert_non_null(V);
    pkm_model *fe[3];
    for (int s = 0; s < 3; s++) {
        double(*row)[12] = malloc((size_t)nb * sizeof(*row));
        motion_at(mo, tr, t + (s - 1) * h, row);
        for (int b = 0; b < nb; b++)
            memcpy(VA[b][s], row[b], sizeof(row[b]));
        free(row);
        fe[s] = ked_model_at(c, params, tr, t + (s - 1) * h);
        assert_int_equal(pkm_model_body_count(fe[s]), nb);
    }
    pkm_dofmap *map = NULL;
    assert_pkm_ok(pkm_dofmap_create(fe[1], PKM_FORM_NODAL, &map, &ctx), &ctx);
    const int nn = pkm_model_node_count(fe[1]);
    double *fn = calloc(6 * (size_t)nn, sizeof(double));
    double *f = calloc((size_t)pkm_dofmap_reduced_count(map) + 1, sizeof(double));
    double(*now)[12] = malloc((size_t)nb * sizeof(*now));
    for (int b = 0; b < nb; b++)
        memcpy(now[b], VA[b][1], sizeof(now[b]));
    assert_pkm_ok(pkm_transient_loads(fe[1], map, (const double(*)[12])now, g, fn, f, &ctx), &ctx);
    double worst = 0.0, scale = 0.0;
    for (int b = 0; b < nb; b++) {
        double H[2][6], W[6];
        for (int s = 0; s < 2; s++) {
            for (int i = 0; i < nb; i++)
                memcpy(V[i], VA[i][2 * s], sizeof(V[i]));
            body_momentum(fe[2 * s], b, (const double(*)[6])V, flags_mask, H[s]);
        }
        body_resultant(fe[1], b, fn, W);
        /* The weight's share: +m g on the force, c x m g on the moment (c the mass centre),
         * i.e. the momentum of a velocity g held for a unit time, by the same function. */
        double Hg[6];
        for (int i = 0; i < nb; i++)
            for (int k = 0; k < 6; k++)
                V[i][k] = k < 3 ? g[k] : 0.0;
        body_momentum(fe[1], b, (const double(*)[6])V, flags_mask, Hg);
        for (int k = 0; k < 6; k++) {
            const double dH = (H[1][k] - H[0][k]) / (2.0 * h);
            worst = fmax(worst, fabs(W[k] + dH - Hg[k]));
            scale = fmax(scale, fabs(dH));
        }
    }
    for (int s = 0; s < 3; s++)
        pkm_model_destroy(&fe[s]);
    pkm_dofmap_destroy(&map);
    pkm_motion_destroy(&mo);
    free(fn);
    free(f);
    free(now);
    free(VA);
    free(V);
    return worst / scale;
}

static pkm_trajectory *first_traj(const pkm_case *c)
{
    pkm_trajectory *tr = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_trajectory_create_analytic(&c->traj[0], c->npose, &tr, &ctx), &ctx);
    return tr;
}

/* The Delta (a spatial motion) with its beams' rotary inertia, a lumped mass with inertia on an
 * elbow bar and its platform's mass: every body's load is -dH/dt + m g to 1e-7 of the largest
 * dH/dt (the differences fall as h^2: 4.1e-5, 4.1e-7, 4.1e-9 at h = 1e-3, 1e-4, 1e-5 s), at three
 * times of its p2p. Without the lumped mass's load: 0.85; without the centripetal share of the
 * elements' slopes 1.9e-7 (its links hardly turn about their own axes; the spinning beam below
 * isolates that term). */
static void test_momentum_delta(void **state)
{
    (void)state;
    void *params = NULL;
    const pkm_case *c = ked_load_file("examples/delta.yaml", &params);
    pkm_robot *r = params; /* a robot case's parameters begin with its description */
    r->nmass = 1;
    r->mass[0] = (pkm_robot_mass){.name = "m1",
                                  .joint = 1,
                                  .side = 1,
                                  .mass = 0.4,
                                  .inertia = {{2e-4, 0, 0}, {0, 3e-4, 0}, {0, 0, 1e-4}}};
    pkm_trajectory *tr = first_traj(c);
    const double g[3] = {0.0, 0.0, -9.81}, zero[3] = {0.0, 0.0, 0.0};
    const double times[3] = {0.07, 0.2, 0.33};
    for (int i = 0; i < 3; i++) {
        const double e0 = momentum_check(c, params, tr, times[i], 1e-5, zero, ~0u);
        const double eg = momentum_check(c, params, tr, times[i], 1e-5, g, ~0u);
        print_message("delta t = %.2f s: load + dH/dt - m g over |dH/dt|: %.2e, with gravity "
                      "%.2e\n",
                      times[i], e0, eg);
        assert_true(e0 < 1e-7);
        assert_true(eg < 1e-7);
    }
    pkm_trajectory_destroy(&tr);
    pkm_case_params_destroy(&params);
}

/* NaVARo with joint masses (B, C, D, E and P, lumped at the joints): the same, planar. */
static void test_momentum_navaro_masses(void **state)
{
    (void)state;
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 2;
    for (int k = 0; k < 5; k++)
        par.joint_mass[k] = 0.3;
    const pkm_case *c = pkm_case_find("navaro");
    pkm_trajectory *tr = first_traj(c);
    const double zero[3] = {0.0, 0.0, 0.0};
    const double e = momentum_check(c, &par, tr, 0.3, 1e-5, zero, ~0u);
    print_message("navaro with joint masses, t = 0.3 s: %.2e\n", e);
    assert_true(e < 1e-7);
    pkm_trajectory_destroy(&tr);
}

/* One beam on an axis oblique to it (from (0.1, 0, 0) to (0.4, 0, 0.3)), turning about z at
 * w = 20 rad/s: its load is the centripetal field's, whose gradient along the beam has a part
 * normal to it ((w . e) (w - (w . e) e)), which the nodal rotations must carry as slopes. The
 * models at -+ h are the beam turned by -+ w h. */
static void spinning_beam(unsigned flags)
{
    const double w = 20.0, h = 1e-5;
    pkm_model *m[3];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    for (int s = 0; s < 3; s++) {
        const double a = (s - 1) * w * h, ca = cos(a), sa = sin(a);
        const double pts[2][3] = {{0.1 * ca, 0.1 * sa, 0.0}, {0.4 * ca, 0.4 * sa, 0.3}};
        const int ne = 4;
        pkm_beam_desc d = {
            .name = "arm",
            .npoints = 2,
            .points = pts,
            .nelem = &ne,
            .zref = {-sa, ca, 0.0},
            .section = {.A = 2e-4, .Iy = 1.7e-9, .Iz = 6.7e-9, .I0 = 4.6e-9, .Ip = 8.3e-9},
            .material = {.E = 210e9, .G = 81e9, .rho = 7850.0},
            .mass_flags = flags};
        pkm_joint_desc j = {.name = "A",
                            .type = PKM_JOINT_REVOLUTE,
                            .body_a = PKM_GROUND,
                            .body_b = 0,
                            .point = {0.1 * ca, 0.1 * sa, 0.0},
                            .axis = {0, 0, 1}};
        assert_pkm_ok(pkm_model_create(&m[s], &ctx), &ctx);
        assert_pkm_ok(pkm_model_add_beam(m[s], &d, NULL, &ctx), &ctx);
        assert_pkm_ok(pkm_model_add_joint(m[s], &j, NULL, &ctx), &ctx);
    }
    /* A turn about z through the origin: V = (0, w), A = 0 (the spatial acceleration). */
    const double VA[1][12] = {{0, 0, 0, 0, 0, w, 0, 0, 0, 0, 0, 0}};
    const double V[1][6] = {{0, 0, 0, 0, 0, w}}, zero[3] = {0, 0, 0};
    pkm_dofmap *map = NULL;
    assert_pkm_ok(pkm_dofmap_create(m[1], PKM_FORM_NODAL, &map, &ctx), &ctx);
    const int nn = pkm_model_node_count(m[1]);
    double *fn = calloc(6 * (size_t)nn, sizeof(double));
    double *f = calloc((size_t)pkm_dofmap_reduced_count(map) + 1, sizeof(double));
    assert_pkm_ok(pkm_transient_loads(m[1], map, VA, zero, fn, f, &ctx), &ctx);
    double H[2][6], W[6], worst = 0.0, scale = 0.0;
    body_momentum(m[0], 0, V, ~0u, H[0]);
    body_momentum(m[2], 0, V, ~0u, H[1]);
    body_resultant(m[1], 0, fn, W);
    for (int k = 0; k < 6; k++) {
        const double dH = (H[1][k] - H[0][k]) / (2.0 * h);
        worst = fmax(worst, fabs(W[k] + dH));
        scale = fmax(scale, fabs(dH));
    }
    print_message("spinning oblique beam (mass flags %u): load + dH/dt over |dH/dt| %.2e\n", flags,
                  worst / scale);
    assert_true(worst / scale < 1e-7);
    for (int s = 0; s < 3; s++)
        pkm_model_destroy(&m[s]);
    pkm_dofmap_destroy(&map);
    free(fn);
    free(f);
}

static void test_momentum_spinning_beam(void **state)
{
    (void)state;
    spinning_beam(0);
    spinning_beam(PKM_FEM_ROTARY_INERTIA);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_momentum_delta),
        cmocka_unit_test(test_momentum_navaro_masses),
        cmocka_unit_test(test_momentum_spinning_beam),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
