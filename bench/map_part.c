/* bench/map_part.c: map_bench part 1, poses per second of the map pipeline (inverse kinematics,
 * assembly, 8 modes) over a grid of poses for tree and nodal formulations, each with ARPACK and
 * with the dense LAPACK baseline (the same 8 modes of the same matrices), 1 and 2 worker
 * processes, with their ratios and the time split of one pose.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L

#include "bench/bench.h"
#include "pkm/analysis.h"
#include "pkm/eigensolver.h"
#include "pkm/map.h"
#include "pkm/modal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAP_NEV        8                     /* modes per pose in part 1 */
#define MAP_HALF_WIDTH 0.06                  /* x, y in [-w, w] m */
#define MAP_THETA      (-1.0471975511965976) /* rad: -pi/3, the orientation of the map */
#define MAP_LIMIT_S    900                   /* time limit of part 1 (SciPy included) */

typedef struct map_job {
    int grid; /* grid x grid poses */
} map_job;

typedef struct map_result {
    long maxrss_kb;
} map_result;

static pkm_status map_setup(const pkm_case *c, int grid, pkm_formulation f, pkm_eigensolver e,
                            pkm_map *map, pkm_ctx *ctx)
{
    pkm_map_init(map);
    snprintf(map->case_name, sizeof(map->case_name), "%s", c->name);
    map->npose = c->npose;
    for (int i = 0; i < c->npose; i++) {
        snprintf(map->pose_names[i], sizeof(map->pose_names[i]), "%s", c->pose_names[i]);
        map->base_pose[i] = i == 2 ? MAP_THETA : c->home[i];
    }
    map->naxes = 2;
    for (int a = 0; a < 2; a++) {
        pkm_map_axis *ax = &map->axes[a];
        snprintf(ax->name, sizeof(ax->name), "%s", c->pose_names[a]);
        snprintf(ax->unit, sizeof(ax->unit), "%s", c->pose_units[a]);
        ax->pose_index = a;
        ax->count = grid;
        ax->start = -MAP_HALF_WIDTH;
        ax->stop = MAP_HALF_WIDTH;
    }
    map->nev = MAP_NEV;
    map->formulation = f;
    map->eigensolver = e;
    map->opts = pkm_modal_opts_default();
    map->opts.nev = MAP_NEV;
    return pkm_map_alloc(map, ctx);
}

static int64_t map_count(const pkm_map *map, pkm_pose_status s)
{
    int64_t n = 0;
    for (int64_t p = 0; p < map->npoints; p++)
        n += map->status[p] == (signed char)s;
    return n;
}

/* Largest relative difference of the frequencies of two maps over the points OK in both. */
static double map_max_rel_diff(const pkm_map *a, const pkm_map *b)
{
    double worst = 0.0;
    for (int64_t p = 0; p < a->npoints; p++) {
        if (a->status[p] != PKM_POSE_OK || b->status[p] != PKM_POSE_OK) continue;
        for (int k = 0; k < a->nev; k++) {
            const double fa = a->freq_hz[p * a->nev + k], fb = b->freq_hz[p * b->nev + k];
            const double d = fabs(fa - fb) / fmax(fabs(fa), DBL_MIN);
            if (d > worst) worst = d;
        }
    }
    return worst;
}

/* Time split over the poses of map in formulation f, through the same cached assembly and
 * symbolic reuse as a sweep: build (IK + model), pkm_assemble_cached, symbolic analysis (when
 * the pattern grows), pkm_modal_solve. */
static int map_split(const pkm_navaro_params *par, const pkm_map *map, pkm_formulation f)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_modal_opts opts = pkm_modal_opts_default();
    opts.nev = MAP_NEV;
    pkm_modal *solver = NULL;
    pkm_modes *modes = NULL;
    pkm_asm_cache *cache = NULL;
    double t_build = 0.0, t_asm = 0.0, t_solve = 0.0, t_sym = 0.0;
    int64_t done = 0, patterns = 0, version = 0, ops = 0;
    int rc = pkm_asm_cache_create(&cache, &ctx) == PKM_OK ? 0 : 1;
    for (int64_t p = 0; p < map->npoints && rc == 0; p++) {
        double pose[PKM_POSE_MAX];
        pkm_map_pose(map, p, pose);
        pkm_model *m = NULL;
        const pkm_pencil *pen = NULL;
        int64_t v = 0;
        const double t0 = now_s();
        pkm_status st = pkm_navaro_build(par, pose, &m, &ctx);
        const double t1 = now_s();
        if (st == PKM_ERR_UNREACHABLE) {
            pkm_ctx_clear(&ctx);
            continue;
        }
        if (st != PKM_OK) {
            print_failure("split: build", st, &ctx);
            rc = 1;
            break;
        }
        st = pkm_assemble_cached(m, f, cache, &pen, &v, NULL, &ctx);
        const double t2 = now_s();
        pkm_model_destroy(&m);
        if (st != PKM_OK) {
            print_failure("split: assemble", st, &ctx);
            rc = 1;
            break;
        }
        if (solver == NULL || v != version) {
            pkm_modal_destroy(&solver);
            pkm_modes_destroy(&modes);
            st = pkm_modal_create(pen, &solver, &ctx);
            if (st == PKM_OK) st = pkm_modes_create(pen->n, MAP_NEV, &modes, &ctx);
            if (st != PKM_OK) {
                print_failure("split: symbolic analysis", st, &ctx);
                rc = 1;
                break;
            }
            version = v;
            patterns++;
        }
        const double t3 = now_s();
        st = pkm_modal_solve(solver, pen, &opts, modes, &ctx);
        const double t4 = now_s();
        if (st != PKM_OK) {
            /* A failed pose is data in a map; here it is reported and skipped. */
            print_failure("split: solve", st, &ctx);
            pkm_ctx_clear(&ctx);
            continue;
        }
        t_build += t1 - t0;
        t_asm += t2 - t1;
        t_sym += t3 - t2;
        t_solve += t4 - t3;
        ops += modes->op_count;
        done++;
    }
    if (rc == 0 && done > 0) {
        const double tot = t_build + t_asm + t_sym + t_solve;
        printf("\nTime split of one pose, %s + %s, averaged over %lld poses (%lld sparsity "
               "pattern(s), %.1f operator applications per solve):\n",
               form_name(f), pkm_eigensolver_types[PKM_EIG_ARPACK].name, (long long)done,
               (long long)patterns, (double)ops / (double)done);
        printf("  %-34s %10.2f us  %5.1f %%\n", "model build + IK", 1e6 * t_build / (double)done,
               100.0 * t_build / tot);
        printf("  %-34s %10.2f us  %5.1f %%\n", "assembly (cached scatter map)",
               1e6 * t_asm / (double)done, 100.0 * t_asm / tot);
        printf("  %-34s %10.2f us  %5.1f %%\n", "symbolic analysis (per pattern)",
               1e6 * t_sym / (double)done, 100.0 * t_sym / tot);
        printf("  %-34s %10.2f us  %5.1f %%\n", "solve (pkm_modal_solve, 8 modes)",
               1e6 * t_solve / (double)done, 100.0 * t_solve / tot);
        printf("  %-34s %10.2f us  -> %.0f poses/s\n", "total", 1e6 * tot / (double)done,
               (double)done / tot);
    }
    pkm_modes_destroy(&modes);
    pkm_modal_destroy(&solver);
    pkm_asm_cache_destroy(&cache);
    return rc;
}

/* One configuration of part 1: its tag, formulation, eigensolver and worker processes; its
 * label is made of the names of the type tables (pkm_formulation_types, pkm_eigensolver_types),
 * so that a new formulation or eigensolver is printed as the command line names it. */
typedef struct bench_cfg {
    const char *tag;
    pkm_formulation f;
    pkm_eigensolver e;
    int workers;
} bench_cfg;

/* "(a) tree + arpack", "(a2) tree + arpack, 2 worker procs". */
static void cfg_label(const bench_cfg *c, char *out, size_t cap)
{
    int n = snprintf(out, cap, "(%s) %s + %s", c->tag, form_name(c->f),
                     pkm_eigensolver_types[c->e].name);
    if (c->workers > 1 && n > 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, ", %d worker procs", c->workers);
}

/* "(a)/(c) tree arpack / tree dense (same matrices)", "(a2)/(a) tree arpack, 2 workers / ...". */
static void ratio_label(const bench_cfg *a, const bench_cfg *b, char *out, size_t cap)
{
    char side[2][40];
    const bench_cfg *cs[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        int n = snprintf(side[k], sizeof(side[k]), "%s %s", form_name(cs[k]->f),
                         pkm_eigensolver_types[cs[k]->e].name);
        if (cs[k]->workers > 1 && n > 0 && (size_t)n < sizeof(side[k]))
            snprintf(side[k] + n, sizeof(side[k]) - (size_t)n, ", %d workers", cs[k]->workers);
    }
    snprintf(out, cap, "(%s)/(%s) %s / %s%s", a->tag, b->tag, side[0], side[1],
             a->f == b->f && a->e != b->e ? " (same matrices)" : "");
}

/* The entries of the two type tables that the configurations name, as the command line does. */
static void print_legend(void)
{
    for (int f = 0; f < PKM_FORMULATION_COUNT; f++)
        printf("formulation %-6s %s\n", pkm_formulation_types[f].name,
               pkm_formulation_types[f].description);
    for (int e = 0; e < PKM_EIGENSOLVER_COUNT; e++)
        printf("eigensolver %-6s %s\n", pkm_eigensolver_types[e].name,
               pkm_eigensolver_types[e].description);
}

static int map_bench(const void *arg, void *res)
{
    const map_job *job = arg;
    map_result *out = res;
    const pkm_case *c = pkm_case_find("navaro");
    if (c == NULL) {
        printf("  FAILED: case 'navaro' not found\n");
        return 1;
    }
    pkm_navaro_params par;
    pkm_ctx pctx;
    pkm_ctx_clear(&pctx);
    if (navaro_defaults(&par, &pctx) != PKM_OK) {
        printf("  FAILED: %s\n", pctx.msg);
        return 1;
    }
    enum { NCFG = 8 };
    static const bench_cfg cfg[NCFG] = {
        {"a", PKM_FORM_TREE, PKM_EIG_ARPACK, 1},  {"b", PKM_FORM_NODAL, PKM_EIG_ARPACK, 1},
        {"c", PKM_FORM_TREE, PKM_EIG_DENSE, 1},   {"d", PKM_FORM_NODAL, PKM_EIG_DENSE, 1},
        {"e", PKM_FORM_TREE, PKM_EIG_BLOCK, 1},   {"f", PKM_FORM_NODAL, PKM_EIG_BLOCK, 1},
        {"a2", PKM_FORM_TREE, PKM_EIG_ARPACK, 2}, {"b2", PKM_FORM_NODAL, PKM_EIG_ARPACK, 2}};
    pkm_map map[NCFG];
    double rate[NCFG] = {0.0};
    int ok[NCFG] = {0};
    memset(map, 0, sizeof(map));
    print_legend();
    printf("%-36s %8s %6s %6s %6s %10s %12s\n", "configuration", "n", "ok", "unreach", "failed",
           "time s", "ok poses/s");
    for (int i = 0; i < NCFG; i++) {
        char label[64];
        cfg_label(&cfg[i], label, sizeof(label));
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        pkm_status st = map_setup(c, job->grid, cfg[i].f, cfg[i].e, &map[i], &ctx);
        if (st != PKM_OK) {
            print_failure(label, st, &ctx);
            continue;
        }
        const double t0 = now_s();
        pkm_sweep_opts so = pkm_sweep_opts_default();
        so.nworkers = cfg[i].workers;
        st = pkm_map_sweep(c, &par, &map[i], &so, &ctx);
        const double t = now_s() - t0;
        if (st != PKM_OK) {
            print_failure(label, st, &ctx);
            continue;
        }
        ok[i] = 1;
        /* Computed poses per second; the few unreachable points cost only the IK. */
        rate[i] = (double)map_count(&map[i], PKM_POSE_OK) / t;
        printf("%-36s %8lld %6lld %6lld %6lld %10.3f %12.1f\n", label, (long long)map[i].ncoord,
               (long long)map_count(&map[i], PKM_POSE_OK),
               (long long)map_count(&map[i], PKM_POSE_UNREACHABLE),
               (long long)(map_count(&map[i], PKM_POSE_SINGULAR) +
                           map_count(&map[i], PKM_POSE_FAILED)),
               t, rate[i]);
        fflush(stdout); /* a child killed by its time limit keeps what it printed */
    }
    /* Pairs of configurations that differ in one thing: the eigensolver on the same matrices,
     * the formulation, the number of workers. */
    static const int pair[][2] = {{0, 2}, {1, 3}, {4, 0}, {5, 1}, {1, 2}, {0, 1}, {6, 0}, {7, 1}};
    for (size_t r = 0; r < sizeof(pair) / sizeof(pair[0]); r++)
        if (ok[pair[r][0]] && ok[pair[r][1]]) {
            char label[128];
            ratio_label(&cfg[pair[r][0]], &cfg[pair[r][1]], label, sizeof(label));
            printf("ratio %-52s %8.2f\n", label, rate[pair[r][0]] / rate[pair[r][1]]);
        }
    static const int diff[][2] = {{0, 2}, {1, 3}, {4, 0}, {5, 1}, {0, 1}, {0, 6}, {1, 7}};
    for (size_t d = 0; d < sizeof(diff) / sizeof(diff[0]); d++)
        if (ok[diff[d][0]] && ok[diff[d][1]])
            printf("max relative frequency difference (%s) vs (%s): %.2e\n", cfg[diff[d][0]].tag,
                   cfg[diff[d][1]].tag, map_max_rel_diff(&map[diff[d][0]], &map[diff[d][1]]));
    int rc = 0;
    /* SciPy on the tree pencils of (a): the same matrices, the same system BLAS. */
    scipy_rates sr;
    if (ok[0] && map_scipy(&par, &map[0], PKM_FORM_TREE, &sr) == 0) {
        printf("scipy on the %lld tree pencils of (a): eigh %.1f poses/s (frequencies within "
               "%.2e of (a)), eigsh %.1f poses/s (within %.2e), solver calls only\n",
               (long long)map_count(&map[0], PKM_POSE_OK), sr.eigh, sr.diff_eigh, sr.eigsh,
               sr.diff_eigsh);
        const int whole[] = {0, 4};
        for (int w = 0; w < 2; w++)
            if (ok[whole[w]])
                printf("ratio (%s) tree %s, whole pipeline / scipy eigh %8.2f, / scipy eigsh "
                       "%8.2f\n",
                       cfg[whole[w]].tag, pkm_eigensolver_types[cfg[whole[w]].e].name,
                       rate[whole[w]] / sr.eigh, rate[whole[w]] / sr.eigsh);
    } else if (ok[0]) {
        rc = 1;
    }
    if (ok[0]) rc |= map_split(&par, &map[0], PKM_FORM_TREE);
    if (ok[1]) rc |= map_split(&par, &map[1], PKM_FORM_NODAL);
    for (int i = 0; i < NCFG; i++)
        pkm_map_free(&map[i]);
    out->maxrss_kb = maxrss_kb();
    return rc;
}

/* Part 1 in a child; 0 if it ran. */
int run_map_part(int quick)
{
    const map_job mj = {.grid = quick ? 10 : 60};
    printf("\n== 1. Map pipeline: %dx%d grid, x, y in [%g, %g] m, theta = %.4f rad, %d modes per "
           "pose, one process, one thread of ours ==\n",
           mj.grid, mj.grid, -MAP_HALF_WIDTH, MAP_HALF_WIDTH, MAP_THETA, MAP_NEV);
    map_result mr;
    memset(&mr, 0, sizeof(mr));
    child_outcome mo;
    if (run_child(map_bench, &mj, &mr, sizeof(mr), MAP_LIMIT_S, &mo) != 0 || !mo.ok) {
        print_child_failure("map pipeline", &mo);
        return 1;
    }
    printf("(part 1 child: %.1f s wall, peak RSS %ld kB)\n", mo.wall_s, mr.maxrss_kb);
    return 0;
}
