/* bench/transient_bench.c: time per step of the elastodynamics along a trajectory (issue 11):
 * NaVARo with k = 1, 4, 16 elements per link and the 5-PSS/UPU, M and K reassembled every step
 * and every 10 steps. Per model: (a) the whole driver (pkm_transient_run: model rebuilt at the
 * pose, assembly, loads of the rigid motion, Newmark, quasi-static solve); (b) the Newmark loop
 * alone on the start pose's pencil, K_eff refactorised every 1 or 10 steps; (c) the same loop in
 * NumPy/SciPy (bench/newmark_scipy.py, SuperLU) on the same matrices, exported by this program,
 * measured in the same run. Prints microseconds per step and the ratio (c) / (b).
 * Both in the nodal formulation (the tree's per-leg Jacobians are dense: the formulation for
 * coarse meshes). Each time is the best of REPEATS runs (both sides alike), which on a shared,
 * loaded machine measures the code rather than its neighbours. Usage: transient_bench [STEPS
 * [REPEATS]] (default 400, 3).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L /* popen */

#include "bench/timing.h"
#include "pkm/casefile.h"
#include "pkm/transient.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* One model of the bench: a case, its parameters, the start of the run. */
typedef struct bench_model {
    const char *name;
    const pkm_case *c;
    void *params;
    const char *traj;
    double start;
} bench_model;

static int count_step(void *user, const pkm_transient_row *row)
{
    (void)row;
    ++*(int64_t *)user;
    return 0;
}

static int repeats = 3;

/* (a): microseconds per step of the whole driver, the best of `repeats` runs. */
static double driver_us(const bench_model *b, int steps, int update)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_traj_desc d = *pkm_case_traj_find(b->c, b->traj);
    pkm_transient_opts o = pkm_transient_opts_default(b->c, 1e-3, steps * 1e-3);
    o.start = b->start;
    o.update_every = update;
    o.singular = 1e-7;
    o.form = PKM_FORM_NODAL;
    if (d.duration < b->start + o.duration) d.duration = b->start + o.duration;
    pkm_trajectory *tr = NULL;
    if (pkm_trajectory_create_analytic(&d, b->c->npose, &tr, &ctx) != PKM_OK)
        bench_die("transient_bench", b->name, &ctx);
    double us = INFINITY;
    for (int r = 0; r < repeats; r++) {
        int64_t rows = 0;
        const double t0 = now_s();
        if (pkm_transient_run(b->c, b->params, tr, &o, count_step, &rows, &ctx) != PKM_OK)
            bench_die("transient_bench", b->name, &ctx);
        us = fmin(us, 1e6 * (now_s() - t0) / (double)rows);
    }
    pkm_trajectory_destroy(&tr);
    return us;
}

/* The start pose's pencil, and the file the SciPy loop reads (format in newmark_scipy.py). */
static pkm_pencil *start_pencil(const bench_model *b, const char *path, const double *f, int64_t n,
                                const pkm_newmark_opts *o)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    pkm_pencil *p = NULL;
    if (b->c->build(b->params, b->c->home, &m, &ctx) != PKM_OK ||
        pkm_assemble(m, PKM_FORM_NODAL, &p, NULL, &ctx) != PKM_OK)
        bench_die("transient_bench", b->name, &ctx);
    pkm_model_destroy(&m);
    if (f == NULL) return p;
    FILE *fp = fopen(path, "wb");
    const int64_t head[2] = {p->n, p->nnz};
    const double tail[3] = {o->l1, o->l2, o->dt};
    if (fp == NULL || fwrite(head, sizeof(head), 1, fp) != 1 ||
        fwrite(p->colptr, sizeof(int64_t), (size_t)p->n + 1, fp) != (size_t)p->n + 1 ||
        fwrite(p->rowind, sizeof(int64_t), (size_t)p->nnz, fp) != (size_t)p->nnz ||
        fwrite(p->k, sizeof(double), (size_t)p->nnz, fp) != (size_t)p->nnz ||
        fwrite(p->m, sizeof(double), (size_t)p->nnz, fp) != (size_t)p->nnz ||
        fwrite(f, sizeof(double), (size_t)n, fp) != (size_t)n ||
        fwrite(tail, sizeof(tail), 1, fp) != 1 || fclose(fp) != 0) {
        fprintf(stderr, "transient_bench: cannot write %s\n", path);
        exit(3);
    }
    return p;
}

/* (b): microseconds per step of the Newmark loop, K_eff refactorised every `update` steps, the
 * best of `repeats` runs from rest. */
static double kernel_us(pkm_pencil *p, const double *f, const pkm_newmark_opts *o, int steps,
                        int update)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_newmark *nm = NULL;
    double *g = malloc(sizeof(double) * (size_t)p->n), us = INFINITY;
    if (g == NULL || pkm_newmark_create(p, o, &nm, &ctx) != PKM_OK)
        bench_die("transient_bench", "newmark", &ctx);
    for (int r = 0; r < repeats; r++) {
        if (pkm_newmark_start(nm, NULL, NULL, NULL, &ctx) != PKM_OK)
            bench_die("transient_bench", "newmark", &ctx);
        const double t0 = now_s();
        for (int s = 0; s < steps; s++) {
            if (s % update == 0 && pkm_newmark_set_pencil(nm, p, &ctx) != PKM_OK)
                bench_die("transient_bench", "newmark", &ctx);
            for (int64_t i = 0; i < p->n; i++)
                g[i] = f[i] * sin(0.01 * s);
            if (pkm_newmark_step(nm, g, &ctx) != PKM_OK)
                bench_die("transient_bench", "newmark", &ctx);
        }
        us = fmin(us, 1e6 * (now_s() - t0) / steps);
    }
    pkm_newmark_destroy(&nm);
    free(g);
    return us;
}

/* (c): the SciPy loop's microseconds per step, or NAN if python3 or SciPy is missing. */
static double scipy_us(const char *path, int steps, int update)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "%s %s/bench/newmark_scipy.py %s %d %d %d 2>/dev/null", PKM_PYTHON,
             PKM_SOURCE_DIR, path, steps, update, repeats);
    FILE *pp = popen(cmd, "r");
    double us = NAN;
    if (pp == NULL) return us;
    if (fscanf(pp, "%lf", &us) != 1) us = NAN;
    pclose(pp);
    return us;
}

static void bench_one(const bench_model *b, int k, int steps)
{
    pkm_pencil *p = start_pencil(b, NULL, NULL, 0, NULL);
    const int64_t n = p->n, nnz = p->nnz;
    pkm_pencil_destroy(&p);
    double *f = malloc(sizeof(double) * (size_t)n);
    if (f == NULL) exit(3);
    srand(1);
    for (int64_t i = 0; i < n; i++)
        f[i] = rand() / (double)RAND_MAX - 0.5;
    pkm_newmark_opts o = pkm_newmark_opts_default(1e-3);
    o.l1 = 1.0;
    o.l2 = 1e-5;
    o.no_energy = 1; /* the SciPy loop keeps no energies either */
    const char *path = "transient_bench_pencil.bin";
    p = start_pencil(b, path, f, n, &o);
    for (int update = 1; update <= 10; update += 9) {
        const double a = driver_us(b, steps, update), kb = kernel_us(p, f, &o, steps, update);
        const double c = scipy_us(path, steps, update);
        printf("%-8s %4d %7lld %8lld %6d %12.1f %12.1f %12.1f %8.1f\n", b->name, k, (long long)n,
               (long long)nnz, update, a, kb, c, c / kb);
        fflush(stdout);
    }
    remove(path);
    pkm_pencil_destroy(&p);
    free(f);
}

int main(int argc, char **argv)
{
    const int steps = argc > 1 ? atoi(argv[1]) : 400;
    repeats = argc > 2 ? atoi(argv[2]) : 3;
    if (steps < 10 || repeats < 1) return 2;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    printf("# %d steps, dt 1 ms, best of %d runs; us per step: (a) the whole driver, (b) the "
           "Newmark loop, (c) NumPy/SciPy loop; ratio (c)/(b)\n",
           steps, repeats);
    printf("%-8s %4s %7s %8s %6s %12s %12s %12s %8s\n", "case", "k", "n", "nnz", "update",
           "(a) driver", "(b) newmark", "(c) scipy", "ratio");
    const int ks[3] = {1, 4, 16};
    bench_model nav = {"navaro", pkm_case_find("navaro"), NULL, "p2p", 0.3};
    if (pkm_case_params_create(nav.c, &nav.params, &ctx) != PKM_OK)
        bench_die("transient_bench", "navaro", &ctx);
    for (int i = 0; i < 3; i++) {
        if (pkm_case_param_set(nav.c, nav.params, "elements_per_link",
                               ks[i] == 1 ? "1" : (ks[i] == 4 ? "4" : "16"), &ctx) != PKM_OK)
            bench_die("transient_bench", "navaro", &ctx);
        bench_one(&nav, ks[i], steps);
    }
    pkm_case_params_destroy(&nav.params);
    bench_model pss = {"pss5upu", pkm_case_find("pss5upu"), NULL, "eq40", 1.0};
    if (pkm_case_params_create(pss.c, &pss.params, &ctx) != PKM_OK)
        bench_die("transient_bench", "pss5upu", &ctx);
    bench_one(&pss, 0, steps);
    pkm_case_params_destroy(&pss.params);
    return 0;
}
