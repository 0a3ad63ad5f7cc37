/* tests/test_case_battery.c: one battery over every built-in case (pkm_case_names: the compiled
 * ones and the embedded robot files), so that a new robot is checked like the others: it opens
 * by name (a compiled case's embedded case file sets every parameter).
 * A case with a finite-element model: its home pose is reachable, its lowest frequencies are
 * finite, positive, ascending and accurate, the sparse solve equals the dense one (a complete
 * spectrum, found by two independent eigensolvers), every formulation that assembles it agrees,
 * and the frequencies move continuously with the pose; a case that declares a symmetry of its
 * poses has the same frequencies at a pose and at its image. A case with a rigid-body model: it
 * builds with positive masses and actuated joints, its friction data pass the check, and its
 * trajectories stay in the workspace. The robot files of examples/ pass the same checks.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "pkm/analysis.h"
#include "pkm/friction.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#define BATTERY_NEV 10
#define PI          3.14159265358979323846

/* The lowest BATTERY_NEV frequencies of c at pose by (form, eig) into f; the status. */
static pkm_status case_freqs(const pkm_case *c, const void *params, const double *pose,
                             pkm_formulation form, pkm_eigensolver eig, double *f, pkm_ctx *ctx)
{
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = BATTERY_NEV;
    pkm_model *m = NULL;
    pkm_analysis *a = NULL;
    const pkm_modes *md = NULL;
    pkm_status rc = c->build(params, pose, &m, ctx);
    if (rc == PKM_OK) rc = pkm_analysis_create(form, eig, &o, &a, ctx);
    if (rc == PKM_OK) rc = pkm_analysis_solve(a, m, &md, NULL, ctx);
    if (rc == PKM_OK) {
        for (int k = 0; k < BATTERY_NEV; k++) {
            f[k] = md->freq_hz[k];
            /* Accurate to the sixth digit at the default mesh, and a true eigenpair. */
            assert_true(md->accuracy[k] <= 1e-6);
            assert_true(md->backward_error[k] <= 1e-10);
        }
    }
    pkm_analysis_destroy(&a);
    pkm_model_destroy(&m);
    return rc;
}

/* Coordinate k of trajectory d at time t, from the formulas of include/pkm/trajectory.h. */
static double traj_value(const pkm_traj_coord *k, double t)
{
    switch (k->kind) {
    case PKM_TRAJ_POLY2:
        return k->c[0] + k->c[1] * t + 0.5 * k->c[2] * t * t;
    case PKM_TRAJ_SINE:
        return k->c[0] + k->c[1] * sin(2.0 * PI * k->c[2] * t + k->c[3]);
    case PKM_TRAJ_QUINTIC: {
        const double s = t >= k->c[2] ? 1.0 : t / k->c[2];
        return k->c[0] + (k->c[1] - k->c[0]) * s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
    }
    }
    fail_msg("unknown trajectory kind %d", (int)k->kind);
    return 0.0;
}

/* The rigid-body side of a case: its model builds with positive masses and actuated joints
 * that can be driven, its dynamics data pass the friction check under every law, and each of
 * its trajectories stays inside the workspace (the builder solves the inverse kinematics, so a
 * pose out of reach fails there). */
static void check_rigid(const pkm_case *c, const void *params)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(c->build_rigid(params, pkm_case_rigid_pose(c), &m, &ctx), &ctx);
    double total = 0.0;
    for (int ib = 0; ib < pkm_model_body_count(m); ib++) {
        const pkm_body *body = pkm_model_body(m, ib);
        /* A case without flexible bodies has nothing massless (NaVARo's platform node is). */
        if (body->kind == PKM_BODY_RIGID) {
            assert_true(body->mass >= 0.0);
            /* Without an elastic model nothing is massless: a body has a mass or, a crank on
             * its shaft (masticatory), an inertia. */
            const double J = body->inertia[0][0] + body->inertia[1][1] + body->inertia[2][2];
            if (!(c->analyses & PKM_CASE_MODAL)) assert_true(body->mass > 0.0 || J > 0.0);
            total += body->mass;
        } else {
            for (int e = body->first_elem; e < body->first_elem + body->nelem; e++) {
                const pkm_elem *el = pkm_model_elem(m, e);
                const double *a = pkm_model_node(m, el->n1)->x, *b = pkm_model_node(m, el->n2)->x;
                const double h =
                    sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) +
                         (b[2] - a[2]) * (b[2] - a[2]));
                assert_true(h > 0.0);
                total += body->material.rho * body->section.A * h;
            }
        }
    }
    assert_true(total > 0.0);
    int nact = 0;
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        const pkm_joint *jt = pkm_model_joint(m, j);
        if (!jt->actuated) continue;
        nact++;
        assert_false(jt->cut);
    }
    assert_true(nact >= 1);
    pkm_model_destroy(&m);
    /* Gravity given, and friction data the laws accept whichever the command line picks. */
    const pkm_case_dynamics *dyn = pkm_case_dynamics_of(c, params);
    assert_true(isfinite(dyn->gravity[0]) && isfinite(dyn->gravity[1]) &&
                isfinite(dyn->gravity[2]));
    assert_true(fabs(dyn->gravity[0]) + fabs(dyn->gravity[1]) + fabs(dyn->gravity[2]) > 0.0);
    pkm_friction fr = pkm_case_friction(dyn);
    for (int law = PKM_FRICTION_NONE; law <= PKM_FRICTION_STRIBECK; law++) {
        fr.model = (pkm_friction_model)law;
        assert_pkm_ok(pkm_friction_check(&fr, c->name, &ctx), &ctx);
    }
    /* What a pose prescribes: the pose coordinates themselves, or at most PKM_POSE_MAX named
     * coordinates of the model. */
    if (c->drive != NULL) assert_in_range(c->ndriven, 1, PKM_POSE_MAX);
    assert_true(c->ntraj >= 1);
    double pose[PKM_POSE_MAX];
    for (int k = 0; k < c->ntraj; k++) {
        const pkm_traj_desc *d = &c->traj[k];
        assert_ptr_equal(pkm_case_traj_find(c, d->name), d);
        assert_true(d->duration > 0.0);
        /* The default trajectory starts where the rigid model is built (home, or the case's
         * reference pose off a singular home), the others there or at home; a sinusoid (the
         * chewing robot's have phases) oscillates about it. */
        const double *start = pkm_case_rigid_pose(c);
        if (k > 0 && traj_value(&d->coord[0], 0.0) == c->home[0]) start = c->home;
        for (int i = 0; i < c->npose; i++)
            assert_close(d->coord[i].kind == PKM_TRAJ_SINE ? d->coord[i].c[0]
                                                           : traj_value(&d->coord[i], 0.0),
                         start[i], 0.0, 1e-15);
        for (int s = 0; s <= 100; s++) {
            for (int i = 0; i < c->npose; i++)
                pose[i] = traj_value(&d->coord[i], d->duration * s / 100.0);
            assert_pkm_ok(c->build_rigid(params, pose, &m, &ctx), &ctx);
            pkm_model_destroy(&m);
        }
    }
    assert_null(pkm_case_traj_find(c, "no such trajectory"));
    print_message("%s: rigid model of %.4g kg, %d actuated joints, %d trajectories\n", c->name,
                  total, nact, c->ntraj);
}

/* Case c with its params (ended here). */
static void check_case(const pkm_case *c, void *params)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_non_null(c->home);
    assert_in_range(c->npose, 1, PKM_POSE_MAX);
    assert_true(c->analyses != 0);
    if (c->analyses & PKM_CASE_DYNAMICS) check_rigid(c, params);
    if (!(c->analyses & PKM_CASE_MODAL)) {
        /* Asked for a finite-element model, a rigid-body case says it has none. */
        pkm_model *none = NULL;
        assert_non_null(c->build);
        const pkm_status st = c->build(params, c->home, &none, &ctx);
        if (st == PKM_OK) /* a robot file of rigid bodies builds them; nothing to bend */
            pkm_model_destroy(&none);
        else
            assert_true(ctx.msg[0] != '\0');
        assert_null(none);
        pkm_case_params_destroy(&params);
        return;
    }
    double ref[BATTERY_NEV], f[BATTERY_NEV];
    /* The case's own formulation with ARPACK: finite, positive, ascending. */
    assert_pkm_ok(case_freqs(c, params, c->home, c->formulation, PKM_EIG_ARPACK, ref, &ctx), &ctx);
    for (int k = 0; k < BATTERY_NEV; k++) {
        assert_true(isfinite(ref[k]) && ref[k] > 0.0);
        if (k > 0) assert_true(ref[k] >= ref[k - 1]);
    }
    /* The dense solver on the same pencil: the same spectrum, none missing. */
    assert_pkm_ok(case_freqs(c, params, c->home, c->formulation, PKM_EIG_DENSE, f, &ctx), &ctx);
    for (int k = 0; k < BATTERY_NEV; k++)
        assert_close(f[k], ref[k], 1e-8, 0.0);
    /* Every other formulation models the same structure; one that cannot assemble the case says
     * so with PKM_ERR_MODEL (the tree does not close the 5-PSS/UPU's loop of rigid bodies). */
    int agreeing = 0;
    for (int t = 0; t < PKM_FORMULATION_COUNT; t++) {
        if (pkm_formulation_types[t].id == c->formulation) continue;
        pkm_ctx_clear(&ctx);
        const pkm_status st =
            case_freqs(c, params, c->home, pkm_formulation_types[t].id, PKM_EIG_ARPACK, f, &ctx);
        if (st == PKM_ERR_MODEL) continue;
        assert_pkm_ok(st, &ctx);
        for (int k = 0; k < BATTERY_NEV; k++)
            assert_close(f[k], ref[k], 1e-8, 0.0);
        agreeing++;
    }
    /* Continuity: a step of 1e-4 (m or rad) in each pose coordinate moves no frequency by more
     * than 2 % (the lowest NaVARo and 5-PSS/UPU modes change by well under 1 % per millimetre). */
    double *pose = malloc(sizeof(double) * (size_t)c->npose);
    assert_non_null(pose);
    for (int i = 0; i < c->npose; i++) {
        memcpy(pose, c->home, sizeof(double) * (size_t)c->npose);
        pose[i] += 1e-4;
        pkm_ctx_clear(&ctx);
        assert_pkm_ok(case_freqs(c, params, pose, c->formulation, PKM_EIG_ARPACK, f, &ctx), &ctx);
        for (int k = 0; k < BATTERY_NEV; k++)
            assert_close(f[k], ref[k], 2e-2, 0.0);
    }
    print_message("%s: f1 %.4f Hz, f%d %.4f Hz at home; %d other formulation(s) agree\n", c->name,
                  ref[0], BATTERY_NEV, ref[BATTERY_NEV - 1], agreeing);
    free(pose);
    pkm_case_params_destroy(&params);
}

static void test_every_case(void **state)
{
    (void)state;
    int n = 0;
    for (const char *const *name = pkm_case_names(); *name != NULL; name++, n++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        const pkm_case *c = NULL;
        void *params = NULL;
        assert_pkm_ok(pkm_case_open(*name, NULL, 0, NULL, &c, &params, &ctx), &ctx);
        check_case(c, params);
    }
    assert_true(n >= 7);
}

/* The robot files of examples/ go through the same battery: what a user copies first is
 * checked like a built-in. */
static void test_every_example(void **state)
{
    (void)state;
    DIR *d = opendir(PKM_SOURCE_DIR "/examples");
    assert_non_null(d);
    int n = 0;
    for (const struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        const size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/%s", PKM_SOURCE_DIR, e->d_name);
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        const pkm_case *c = NULL;
        void *params = NULL;
        assert_pkm_ok(pkm_case_file_load(path, &c, &params, &ctx), &ctx);
        print_message("examples/%s:\n", e->d_name);
        check_case(c, params);
        n++;
    }
    closedir(d);
    assert_true(n >= 4); /* 3rrr, delta, fivebar, navaro */
}

/* A case's symmetry (pkm_case.symmetry): at a pose off home in every coordinate (1 to 2 cm or
 * 10 to 20 mrad), which the symmetry moves, and at its image, the same lowest frequencies to
 * 1e-9 (measured: 4.5e-12 NaVARo, 5.8e-15 5-PSS/UPU), where the pose's own step from home
 * moves them by far more. */
static void check_symmetry(const pkm_case *c)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *params = NULL;
    assert_pkm_ok(pkm_case_params_create(c, &params, &ctx), &ctx);
    double pose[PKM_POSE_MAX], image[PKM_POSE_MAX], f[BATTERY_NEV], g[BATTERY_NEV], h[BATTERY_NEV];
    double moved = 0.0, changed = 0.0, worst = 0.0;
    for (int i = 0; i < c->npose; i++)
        pose[i] = c->home[i] + 0.01 * (1.0 + 0.3 * i);
    c->symmetry(pose, image);
    for (int i = 0; i < c->npose; i++)
        moved = fmax(moved, fabs(image[i] - pose[i]));
    assert_true(moved > 1e-3); /* a pose the symmetry leaves in place would prove nothing */
    assert_pkm_ok(case_freqs(c, params, c->home, c->formulation, PKM_EIG_ARPACK, h, &ctx), &ctx);
    assert_pkm_ok(case_freqs(c, params, pose, c->formulation, PKM_EIG_ARPACK, f, &ctx), &ctx);
    assert_pkm_ok(case_freqs(c, params, image, c->formulation, PKM_EIG_ARPACK, g, &ctx), &ctx);
    for (int k = 0; k < BATTERY_NEV; k++) {
        assert_close(g[k], f[k], 1e-9, 0.0);
        worst = fmax(worst, fabs(g[k] - f[k]) / f[k]);
        changed = fmax(changed, fabs(f[k] - h[k]) / h[k]);
    }
    assert_true(changed > 1e-6);
    print_message("%s: pose and its symmetric image agree to %.1e (the pose moved them by %.1e "
                  "from home)\n",
                  c->name, worst, changed);
    pkm_case_params_destroy(&params);
}

static void test_every_symmetry(void **state)
{
    (void)state;
    int n = 0;
    for (const pkm_case *const *c = pkm_case_list(); *c != NULL; c++)
        if ((*c)->symmetry != NULL) {
            check_symmetry(*c);
            n++;
        }
    assert_true(n >= 2); /* navaro and pss5upu declare theirs */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_case),
                                       cmocka_unit_test(test_every_example),
                                       cmocka_unit_test(test_every_symmetry)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
