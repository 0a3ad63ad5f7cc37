/* tests/test_studies_transient_out.c: the outputs of pkm_transient_run beside the error: the
 * natural frequencies along the trajectory and the damping given at mode numbers, both against
 * a dense solve (LAPACK) of the pencil rebuilt independently at the same pose, the energy
 * balance of the run, and the loads of a rigid motion on quintic elements against beam theory.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "navaro_defaults.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/dofmap.h"
#include "pkm/linsolve.h"
#include "pkm/modal.h"
#include "pkm/spatial.h"
#include "pkm/transient.h"

#include <stdlib.h>
#include <string.h>

#define NFREQ 4

/* What a run keeps: the first and last rows' frequencies and times, the Rayleigh coefficients,
 * and the largest energy-balance residual and energy. */
typedef struct kept {
    double t[2], freq[2][NFREQ], rayleigh[2];
    double e0, residual, scale;
    int64_t rows;
} kept;

static int keep(void *user, const pkm_transient_row *row)
{
    kept *k = user;
    const pkm_newmark_energy *e = &row->energy;
    const double held = e->kinetic + e->strain + e->dissipated - e->work;
    if (row->step == 0) k->e0 = held;
    k->residual = fmax(k->residual, fabs(held - k->e0));
    k->scale = fmax(k->scale, fmax(fabs(e->work), e->kinetic + e->strain + e->dissipated));
    const int s = row->step == 0 ? 0 : 1;
    k->t[s] = row->t;
    for (int i = 0; i < row->nfreq && i < NFREQ; i++)
        k->freq[s][i] = row->freq[i];
    memcpy(k->rayleigh, row->rayleigh, sizeof(k->rayleigh));
    k->rows++;
    return 0;
}

/* NaVARo (1 element per link) along its p2p motion from 0.3 s, steps of 2 ms; with elastic
 * drives the clutch of the driven link is a 2000 N m/rad spring and the other turns freely. */
static kept run_navaro(const pkm_transient_opts *o, pkm_trajectory **tr)
{
    const pkm_case *c = pkm_case_find("navaro");
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 1;
    if (o->elastic_drives) {
        par.clutch_k[0] = 2000.0;
        par.clutch_locked = PKM_NAVARO_LOCKED_DRIVE;
    }
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_traj_desc d = *pkm_case_traj_find(c, "p2p");
    assert_pkm_ok(pkm_trajectory_create_analytic(&d, c->npose, tr, &ctx), &ctx);
    kept k;
    memset(&k, 0, sizeof(k));
    assert_pkm_ok(pkm_transient_run(c, &par, *tr, o, keep, &k, &ctx), &ctx);
    return k;
}

static pkm_transient_opts navaro_opts(double duration)
{
    pkm_transient_opts o = pkm_transient_opts_default(pkm_case_find("navaro"), 2e-3, duration);
    o.start = 0.3;
    return o;
}

/* The pencil of NaVARo at the trajectory's pose at t, built and assembled here, and its lowest
 * NFREQ modes by the dense solver. */
static pkm_modes *dense_modes_at(const pkm_trajectory *tr, double t, pkm_pencil **p)
{
    const pkm_case *c = pkm_case_find("navaro");
    pkm_navaro_params par = navaro_defaults();
    par.elements_per_link = 1;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double pose[PKM_POSE_MAX], pd[PKM_POSE_MAX], pdd[PKM_POSE_MAX];
    assert_pkm_ok(pkm_trajectory_eval(tr, t, pose, pd, pdd, &ctx), &ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(c->build(&par, pose, &m, &ctx), &ctx);
    assert_pkm_ok(pkm_assemble(m, c->formulation, p, NULL, &ctx), &ctx);
    pkm_model_destroy(&m);
    pkm_modes *modes = NULL;
    pkm_modal_opts mo = pkm_modal_opts_default();
    mo.nev = NFREQ;
    assert_pkm_ok(pkm_modes_create((*p)->n, NFREQ, &modes, &ctx), &ctx);
    assert_pkm_ok(pkm_modal_solve_dense(*p, &mo, modes, &ctx), &ctx);
    return modes;
}

/* The frequencies of the first and last update equal the dense solver's at the same poses (the
 * pencil rebuilt from the case here, 1e-9); the damping requested as 2 % at modes 1 and 3 of
 * the start pose gives those modes (the dense solver's M-normalised vectors x) the damping
 * ratios x^T C x / (2 w) = 0.02 with C = l1 M + l2 K, to 1e-12. */
static void test_frequencies_and_modal_damping(void **state)
{
    (void)state;
    pkm_transient_opts o = navaro_opts(0.02);
    o.nfreq = NFREQ;
    o.damping_mode[0] = 1, o.damping_mode[1] = 3;
    o.damping_zeta[0] = o.damping_zeta[1] = 0.02;
    pkm_trajectory *tr = NULL;
    const kept k = run_navaro(&o, &tr);
    assert_int_equal(k.rows, 11);
    double worst_f = 0.0, worst_z = 0.0;
    for (int s = 0; s < 2; s++) {
        pkm_pencil *p = NULL;
        pkm_modes *modes = dense_modes_at(tr, k.t[s], &p);
        for (int i = 0; i < NFREQ; i++)
            worst_f = fmax(worst_f, fabs(k.freq[s][i] / modes->freq_hz[i] - 1.0));
        double *y = malloc(sizeof(double) * (size_t)p->n),
               *z = malloc(sizeof(double) * (size_t)p->n);
        assert_true(y != NULL && z != NULL);
        for (int i = 0; i < 3 && s == 0; i += 2) {
            const double *x = modes->vectors + (size_t)i * (size_t)p->n;
            pkm_pencil_matvec(p, 'M', x, y);
            pkm_pencil_matvec(p, 'K', x, z);
            double c = 0.0;
            for (int64_t j = 0; j < p->n; j++)
                c += x[j] * (k.rayleigh[0] * y[j] + k.rayleigh[1] * z[j]);
            const double zeta = c / (2.0 * sqrt(modes->omega2[i]));
            print_message("mode %d: %.6f Hz, damping ratio %.15f (0.02 asked)\n", i + 1,
                          modes->freq_hz[i], zeta);
            worst_z = fmax(worst_z, fabs(zeta - 0.02));
        }
        free(y);
        free(z);
        pkm_modes_destroy(&modes);
        pkm_pencil_destroy(&p);
    }
    print_message("frequencies along the run (t = %.3f, %.3f s) against dense: %.2e relative; "
                  "modal damping ratios: %.2e; l1 = %.6g 1/s, l2 = %.6g s\n",
                  k.t[0], k.t[1], worst_f, worst_z, k.rayleigh[0], k.rayleigh[1]);
    assert_true(k.freq[0][0] != k.freq[1][0]); /* the pose moved, the frequencies with it */
    assert_true(worst_f < 1e-9);
    assert_true(worst_z < 1e-12);
    pkm_trajectory_destroy(&tr);
}

/* The energies of the run: with the matrices fixed (update_every 0), kinetic + strain +
 * dissipated - work of the loads stays at its initial value to rounding (the average
 * acceleration rule's exact balance, pkm/newmark.h), under gravity from the static start,
 * damped, with locked and with elastic drives; the reassembly every step breaks it (printed,
 * not asserted). */
static void test_energy_balance(void **state)
{
    (void)state;
    pkm_transient_opts o = navaro_opts(0.4);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_rayleigh_from_ratios(0.02, 40.0, 0.02, 150.0, &o.nm.l1, &o.nm.l2, &ctx),
                  &ctx);
    o.gravity = o.static_start = 1;
    o.update_every = 0;
    pkm_trajectory *tr = NULL;
    const kept fixed = run_navaro(&o, &tr);
    pkm_trajectory_destroy(&tr);
    o.update_every = 1;
    const kept moving = run_navaro(&o, &tr);
    pkm_trajectory_destroy(&tr);
    print_message("energy balance over %lld steps: fixed matrices %.2e of %.3e J; reassembled "
                  "every step %.2e of %.3e J\n",
                  (long long)fixed.rows - 1, fixed.residual / fixed.scale, fixed.scale,
                  moving.residual / moving.scale, moving.scale);
    assert_true(fixed.scale > 0.0);
    assert_true(fixed.residual < 1e-10 * fixed.scale);
    /* Elastic drives: the drive springs' strain energy and the drives' work (the rigid-body
     * torques as loads) are in the same balance. */
    o.update_every = 0;
    o.elastic_drives = 1;
    const kept elastic = run_navaro(&o, &tr);
    pkm_trajectory_destroy(&tr);
    print_message("elastic drives, fixed matrices: %.2e of %.3e J\n",
                  elastic.residual / elastic.scale, elastic.scale);
    assert_true(elastic.scale > 0.0 && elastic.scale != fixed.scale);
    assert_true(elastic.residual < 1e-10 * elastic.scale);
}

/* The static response K^-1 F of a clamped-free link (along the unit vector e, solid circle of
 * 60 mm, steel, L = 0.52 m: the Li et al. 2020 link) to the loads of a uniform acceleration a,
 * nel elements of the given kind (curvatures free at both ends): the tip's and the middle
 * node's translations and the tip's rotations. */
static void accelerated_link(pkm_beam_element kind, int nel, const double e[3], const double a[3],
                             double tip[6], double mid[6])
{
    const double L = 0.52, r = 0.03, I = PKM_PI * r * r * r * r / 4.0;
    const double pts[2][3] = {{0, 0, 0}, {L * e[0], L * e[1], L * e[2]}};
    pkm_beam_desc d = {.name = "link",
                       .npoints = 2,
                       .points = pts,
                       .nelem = &nel,
                       .zref = {0, 0, 1},
                       .section = {PKM_PI * r * r, I, I, 2.0 * I, 2.0 * I},
                       .material = {2.06e11, 7.94e10, 7900.0},
                       .element = kind};
    pkm_joint_desc j = {.name = "root", .type = PKM_JOINT_CLAMPED, .body_a = PKM_GROUND};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    pkm_pencil *p = NULL;
    pkm_dofmap *map = NULL;
    pkm_linsolve *ls = NULL;
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    assert_pkm_ok(pkm_model_add_beam(m, &d, &j.body_b, &ctx), &ctx);
    assert_pkm_ok(pkm_model_add_joint(m, &j, NULL, &ctx), &ctx);
    assert_pkm_ok(pkm_assemble(m, PKM_FORM_NODAL, &p, NULL, &ctx), &ctx);
    assert_pkm_ok(pkm_dofmap_create(m, PKM_FORM_NODAL, &map, &ctx), &ctx);
    const int nn = pkm_model_node_count(m);
    double motion[1][12] = {{0, 0, 0, 0, 0, 0, a[0], a[1], a[2], 0, 0, 0}};
    double *fn = malloc(sizeof(double) * 6 * (size_t)nn),
           *u = malloc(sizeof(double) * 6 * (size_t)nn);
    double *f = malloc(sizeof(double) * (size_t)p->n), *x = malloc(sizeof(double) * (size_t)p->n);
    assert_true(fn != NULL && u != NULL && f != NULL && x != NULL);
    assert_pkm_ok(pkm_transient_loads(m, map, (const double(*)[12])motion, NULL, fn, f, &ctx),
                  &ctx);
    int64_t minor = -1;
    assert_pkm_ok(pkm_linsolve_create(p, PKM_LINSOLVE_AUTO, &ls, &ctx), &ctx);
    assert_pkm_ok(pkm_linsolve_factor(ls, p, 1.0, 0.0, &minor, &ctx), &ctx);
    assert_int_equal(minor, -1);
    assert_pkm_ok(pkm_linsolve_solve(ls, f, x, &ctx), &ctx);
    pkm_dofmap_prolong(map, x, u);
    memcpy(tip, u + 6 * (nn - 1), 6 * sizeof(double));
    memcpy(mid, u + 6 * (nn / 2), 6 * sizeof(double));
    pkm_linsolve_destroy(&ls);
    pkm_dofmap_destroy(&map);
    pkm_pencil_destroy(&p);
    pkm_model_destroy(&m);
    free(fn);
    free(u);
    free(f);
    free(x);
}

/* A uniformly accelerated cantilever under the inertial loads -M_e U''_r (Li et al. 2020, eq.
 * 37) bends as under the distributed load q = -rho A a: Euler-Bernoulli beam theory gives the
 * deflection q x^2 (6 L^2 - 4 L x + x^2) / (24 E I), quartic, which the quintic element holds
 * exactly: tip q L^4 / (8 E I), slope q L^3 / (6 E I), middle 17 q L^4 / (384 E I), axial tip
 * -rho a_x L^2 / (2 E), to 1e-10 with one and two elements; cubic elements give the same nodal
 * values (their consistent loads are exact at the nodes). The link lies along a skew axis, so
 * that the element frame's rotation is part of the check. Without the load on the curvature
 * coordinates, the quintic element's coupling of the curvatures to the translations (through
 * M_e) is lost and the response is wrong. */
static void test_quintic_uniform_acceleration(void **state)
{
    (void)state;
    const double a[3] = {3.0, -7.0, 5.0}, e[3] = {1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0}, L = 0.52;
    const double r = 0.03, E = 2.06e11, rho = 7900.0;
    const double A = PKM_PI * r * r, I = PKM_PI * r * r * r * r / 4.0;
    /* The acceleration along the link (axial: tip -rho a_e L^2 / (2 E), middle 3/8 of it) and
     * across it (the load q = -rho A a_n bends the round section in its own direction). */
    const double ae = pkm_vec3_dot(a, e);
    double an[3], q[3], slope[3], ex_tip[6], ex_mid[3];
    for (int k = 0; k < 3; k++) {
        an[k] = a[k] - ae * e[k];
        q[k] = -rho * A * an[k];
        slope[k] = q[k] * pow(L, 3) / (6.0 * E * I);
        ex_tip[k] = q[k] * pow(L, 4) / (8.0 * E * I) - rho * ae * L * L / (2.0 * E) * e[k];
        ex_mid[k] =
            17.0 * q[k] * pow(L, 4) / (384.0 * E * I) - rho * ae * 3.0 * L * L / (8.0 * E) * e[k];
    }
    pkm_vec3_cross(e, slope, ex_tip + 3); /* the tip turns by e x (its slope) */
    double worst = 0.0;
    for (int kind = 0; kind < 2; kind++)
        for (int nel = 2; nel <= 4; nel += 2) {
            double tip[6], mid[6], err = 0.0, scale[2] = {0.0, 0.0};
            accelerated_link(kind == 0 ? PKM_BEAM_QUINTIC : PKM_BEAM_CUBIC, nel, e, a, tip, mid);
            for (int k = 0; k < 6; k++)
                scale[k / 3] = fmax(scale[k / 3], fabs(ex_tip[k]));
            for (int k = 0; k < 6; k++)
                err = fmax(err, fabs(tip[k] - ex_tip[k]) / scale[k / 3]);
            for (int k = 0; k < 3; k++)
                err = fmax(err, fabs(mid[k] - ex_mid[k]) / scale[0]);
            print_message("%s, %d elements: tip %.6e %.6e %.6e m (theory %.6e %.6e %.6e), "
                          "largest relative error %.2e\n",
                          kind == 0 ? "quintic" : "cubic", nel, tip[0], tip[1], tip[2], ex_tip[0],
                          ex_tip[1], ex_tip[2], err);
            worst = fmax(worst, err);
        }
    assert_true(worst < 1e-10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frequencies_and_modal_damping),
        cmocka_unit_test(test_energy_balance),
        cmocka_unit_test(test_quintic_uniform_acceleration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
