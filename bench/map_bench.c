/* bench/map_bench.c: NaVARo map throughput and cost against model size, measured side by side.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Part 1: poses per second of the map pipeline (inverse kinematics, assembly, 8 modes) over a
 * grid of poses for tree and nodal formulations, each with ARPACK and with the dense LAPACK
 * baseline (dsygvx, the same 8 modes of the same matrices), 1 and 2 worker processes, with
 * their ratios and the time split of one pose. Part 2: one pose, elements_per_link k = 1 ... 1024:
 * coordinates, assembly and solve times, peak memory, the first 10 frequencies and their
 * convergence. Every measurement runs in a forked child (own peak memory, a time limit, no state
 * shared between measurements); the parent only schedules and prints. Ratios, never assertions. */
#define _POSIX_C_SOURCE 200809L

#include "assembly/assembly_impl.h"
#include "pkm/analysis.h"
#include "pkm/assembly.h"
#include "pkm/cases.h"
#include "pkm/casefile.h"
#include "pkm/map.h"
#include "pkm/modal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAP_NEV        8    /* modes per pose in part 1 */
#define MAP_HALF_WIDTH 0.06 /* x, y in [-w, w] m, theta = 0 */
#define SIZE_NEV       10   /* modes in part 2 */
#define SIZE_LIMIT_S   60   /* time limit of one part-2 measurement */
#define MAP_LIMIT_S    240  /* time limit of part 1 */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return ru.ru_maxrss;
}

static void print_failure(const char *what, pkm_status st, const pkm_ctx *ctx)
{
    printf("  FAILED %s: %s (%d): %s\n", what, pkm_status_str(st), (int)st, ctx->msg);
}

static const char *form_name(pkm_formulation f)
{
    return pkm_formulation_types[f].name;
}

/* The built-in NaVARo parameters (cases/navaro.yaml); PKM_OK or the failure in ctx. */
static pkm_status navaro_defaults(pkm_navaro_params *par, pkm_ctx *ctx)
{
    void *p = NULL;
    pkm_status st = pkm_case_params_create(pkm_case_find("navaro"), &p, ctx);
    if (st == PKM_OK) *par = *(const pkm_navaro_params *)p;
    pkm_case_params_destroy(&p);
    return st;
}

/* ---- forked measurements ---------------------------------------------------------------- */

typedef struct child_outcome {
    int ok;          /* the child exited 0 and sent its whole result */
    int timed_out;   /* killed by its time limit */
    int exit_code;   /* if it exited */
    int signal_no;   /* if it was killed */
    double wall_s;   /* as seen by the parent */
    size_t received; /* result bytes received */
} child_outcome;

typedef int (*child_fn)(const void *arg, void *res);

/* Run fn(arg, res) in a child with a time limit; its result (res_size bytes) comes back through
 * a pipe. The child may print; the parent flushes stdout first so nothing is printed twice. */
static int run_child(child_fn fn, const void *arg, void *res, size_t res_size, unsigned limit_s,
                     child_outcome *out)
{
    memset(out, 0, sizeof(*out));
    int fd[2];
    if (pipe(fd) != 0) {
        printf("  cannot create a pipe: %s\n", strerror(errno));
        return -1;
    }
    fflush(stdout);
    const double t0 = now_s();
    const pid_t pid = fork();
    if (pid < 0) {
        printf("  cannot fork: %s\n", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        alarm(limit_s);
        const int rc = fn(arg, res);
        fflush(stdout);
        const char *b = res;
        size_t left = res_size;
        while (left > 0) {
            const ssize_t w = write(fd[1], b, left);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) _exit(3);
            b += w;
            left -= (size_t)w;
        }
        close(fd[1]);
        _exit(rc == 0 ? 0 : 1);
    }
    close(fd[1]);
    char *b = res;
    while (out->received < res_size) {
        const ssize_t r = read(fd[0], b + out->received, res_size - out->received);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        out->received += (size_t)r;
    }
    close(fd[0]);
    int wst = 0;
    while (waitpid(pid, &wst, 0) < 0) {
        if (errno != EINTR) {
            printf("  waitpid: %s\n", strerror(errno));
            return -1;
        }
    }
    out->wall_s = now_s() - t0;
    if (WIFEXITED(wst)) {
        out->exit_code = WEXITSTATUS(wst);
        out->ok = out->exit_code == 0 && out->received == res_size;
    } else if (WIFSIGNALED(wst)) {
        out->signal_no = WTERMSIG(wst);
        out->timed_out = out->signal_no == SIGALRM;
    }
    return 0;
}

static void print_child_failure(const char *what, const child_outcome *o)
{
    if (o->timed_out)
        printf("  FAILED %s: time limit exceeded after %.1f s (killed)\n", what, o->wall_s);
    else if (o->signal_no != 0)
        printf("  FAILED %s: killed by signal %d after %.1f s\n", what, o->signal_no, o->wall_s);
    else if (o->exit_code != 0)
        printf("  FAILED %s: child exited with %d after %.1f s\n", what, o->exit_code, o->wall_s);
    else
        printf("  FAILED %s: incomplete result (%zu bytes)\n", what, o->received);
}

/* ---- part 1: map throughput ------------------------------------------------------------- */

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
        map->base_pose[i] = c->home[i];
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
        printf("\nTime split of one pose, %s + ARPACK, averaged over %lld poses (%lld sparsity "
               "pattern(s), %.1f operator applications per solve):\n",
               form_name(f), (long long)done, (long long)patterns, (double)ops / (double)done);
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
    enum { NCFG = 6 };
    static const struct {
        const char *label;
        pkm_formulation f;
        pkm_eigensolver e;
        int workers;
    } cfg[NCFG] = {{"(a) tree  + ARPACK", PKM_FORM_TREE, PKM_EIG_ARPACK, 1},
                   {"(b) nodal + ARPACK", PKM_FORM_NODAL, PKM_EIG_ARPACK, 1},
                   {"(c) tree  + dense dsygvx", PKM_FORM_TREE, PKM_EIG_DENSE, 1},
                   {"(d) nodal + dense dsygvx", PKM_FORM_NODAL, PKM_EIG_DENSE, 1},
                   {"(a2) (a), 2 worker procs", PKM_FORM_TREE, PKM_EIG_ARPACK, 2},
                   {"(b2) (b), 2 worker procs", PKM_FORM_NODAL, PKM_EIG_ARPACK, 2}};
    pkm_map map[NCFG];
    double rate[NCFG] = {0.0};
    int ok[NCFG] = {0};
    memset(map, 0, sizeof(map));
    printf("%-26s %8s %6s %6s %6s %10s %12s\n", "configuration", "n", "ok", "unreach", "failed",
           "time s", "ok poses/s");
    for (int i = 0; i < NCFG; i++) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        pkm_status st = map_setup(c, job->grid, cfg[i].f, cfg[i].e, &map[i], &ctx);
        if (st != PKM_OK) {
            print_failure(cfg[i].label, st, &ctx);
            continue;
        }
        const double t0 = now_s();
        pkm_sweep_opts so = pkm_sweep_opts_default();
        so.nworkers = cfg[i].workers;
        st = pkm_map_sweep(c, &par, &map[i], &so, &ctx);
        const double t = now_s() - t0;
        if (st != PKM_OK) {
            print_failure(cfg[i].label, st, &ctx);
            continue;
        }
        ok[i] = 1;
        /* Computed poses per second; the few unreachable points cost only the IK. */
        rate[i] = (double)map_count(&map[i], PKM_POSE_OK) / t;
        printf("%-26s %8lld %6lld %6lld %6lld %10.3f %12.1f\n", cfg[i].label,
               (long long)map[i].ncoord, (long long)map_count(&map[i], PKM_POSE_OK),
               (long long)map_count(&map[i], PKM_POSE_UNREACHABLE),
               (long long)(map_count(&map[i], PKM_POSE_SINGULAR) +
                           map_count(&map[i], PKM_POSE_FAILED)),
               t, rate[i]);
        fflush(stdout); /* a child killed by its time limit keeps what it printed */
    }
    static const struct {
        int num, den;
        const char *label;
    } ratio[] = {{0, 2, "(a)/(c) tree ARPACK / tree dense (same matrices)"},
                 {1, 3, "(b)/(d) nodal ARPACK / nodal dense (same matrices)"},
                 {1, 2, "(b)/(c) nodal ARPACK / tree dense"},
                 {0, 1, "(a)/(b) tree / nodal (ARPACK)"},
                 {4, 0, "(a2)/(a) 2 workers / 1 process, tree"},
                 {5, 1, "(b2)/(b) 2 workers / 1 process, nodal"}};
    for (size_t r = 0; r < sizeof(ratio) / sizeof(ratio[0]); r++)
        if (ok[ratio[r].num] && ok[ratio[r].den])
            printf("ratio %-52s %8.2f\n", ratio[r].label, rate[ratio[r].num] / rate[ratio[r].den]);
    static const int diff[][2] = {{0, 2}, {1, 3}, {0, 1}, {0, 4}, {1, 5}};
    for (size_t d = 0; d < sizeof(diff) / sizeof(diff[0]); d++)
        if (ok[diff[d][0]] && ok[diff[d][1]])
            printf("max relative frequency difference %.4s vs %.4s: %.2e\n", cfg[diff[d][0]].label,
                   cfg[diff[d][1]].label, map_max_rel_diff(&map[diff[d][0]], &map[diff[d][1]]));
    int rc = 0;
    if (ok[0]) rc |= map_split(&par, &map[0], PKM_FORM_TREE);
    if (ok[1]) rc |= map_split(&par, &map[1], PKM_FORM_NODAL);
    for (int i = 0; i < NCFG; i++)
        pkm_map_free(&map[i]);
    out->maxrss_kb = maxrss_kb();
    return rc;
}

/* ---- part 2: cost against model size ---------------------------------------------------- */

typedef struct size_job {
    pkm_formulation form;
    int k; /* elements per link */
} size_job;

typedef struct size_result {
    int status; /* pkm_status of the first failure, PKM_OK if none */
    char msg[512];
    char stage[32];
    int64_t n_total, n_reduced, nnz;
    double t_build, t_asm, t_sym, t_solve;
    long maxrss_kb;
    double lam_max_est; /* max_i K_ii / M_ii: a lower bound of the largest eigenvalue */
    double omega2[SIZE_NEV], freq[SIZE_NEV];
    double max_residual, max_backward; /* over the modes: relative residual, backward error */
    int iterations, op_count;
} size_result;

/* max_i K_ii / M_ii over the stored diagonal (the last entry of each upper CSC column): the
 * Rayleigh quotient of a unit vector, so a lower bound of the largest eigenvalue, and the same in
 * any scaling of the coordinates (unlike max K_ii / min M_ii, which mixes units). */
static double diag_ratio_max(const pkm_pencil *p)
{
    double r = 0.0;
    for (int64_t j = 0; j < p->n; j++) {
        const int64_t e = p->colptr[j + 1] - 1;
        if (e < p->colptr[j] || p->rowind[e] != j || !(p->m[e] > 0.0)) continue;
        const double q = p->k[e] / p->m[e];
        if (q > r) r = q;
    }
    return r;
}

/* Spread of the spectrum: max_i(K_ii / M_ii) / omega_1^2, a lower bound of lambda_max /
 * lambda_1. */
static double spread_of(const size_result *r)
{
    return r->lam_max_est / fmax(r->omega2[0], DBL_MIN);
}

/* Rounding error measured: at pose (0, 0, 0) the robot has a 3-fold symmetry, so its modes come
 * in exactly degenerate pairs besides single ones; the largest relative split of a pair (two
 * neighbours closer than PAIR_GAP) is the rounding error of the computed frequencies. */
#define PAIR_GAP 1e-3
static double pair_split(const size_result *r)
{
    double worst = 0.0;
    for (int i = 0; i + 1 < SIZE_NEV; i++) {
        const double d = fabs(r->freq[i + 1] - r->freq[i]) / fabs(r->freq[i]);
        if (d < PAIR_GAP && d > worst) worst = d;
    }
    return worst;
}

static int size_fail(size_result *r, const char *stage, pkm_status st, const pkm_ctx *ctx)
{
    r->status = (int)st;
    snprintf(r->stage, sizeof(r->stage), "%s", stage);
    snprintf(r->msg, sizeof(r->msg), "%s", ctx->msg);
    return 1;
}

static int size_bench(const void *arg, void *res)
{
    const size_job *job = arg;
    size_result *r = res;
    memset(r, 0, sizeof(*r));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_navaro_params par;
    if (navaro_defaults(&par, &ctx) != PKM_OK) return size_fail(r, "parameters", ctx.status, &ctx);
    par.elements_per_link = job->k;
    const double pose[3] = {0.0, 0.0, 0.0};
    pkm_model *m = NULL;
    pkm_pencil *pen = NULL;
    pkm_modal *solver = NULL;
    pkm_modes *modes = NULL;
    pkm_assembly_info info;
    memset(&info, 0, sizeof(info));
    int rc = 0;
    double t0 = now_s();
    pkm_status st = pkm_navaro_build(&par, pose, &m, &ctx);
    r->t_build = now_s() - t0;
    if (st != PKM_OK) {
        rc = size_fail(r, "build", st, &ctx);
        goto done;
    }
    t0 = now_s();
    st = pkm_assemble(m, job->form, &pen, &info, &ctx);
    r->t_asm = now_s() - t0;
    if (st != PKM_OK) {
        rc = size_fail(r, "assemble", st, &ctx);
        goto done;
    }
    r->n_total = info.n_total;
    r->n_reduced = pen->n;
    r->nnz = pen->nnz;
    r->lam_max_est = diag_ratio_max(pen);
    if (pen->n <= SIZE_NEV) {
        pkm_ctx_clear(&ctx);
        rc = size_fail(r, "size", PKM_ERR_INVALID, &ctx);
        snprintf(r->msg, sizeof(r->msg), "%lld coordinates for %d modes", (long long)pen->n,
                 SIZE_NEV);
        goto done;
    }
    t0 = now_s();
    st = pkm_modal_create(pen, &solver, &ctx);
    if (st == PKM_OK) st = pkm_modes_create(pen->n, SIZE_NEV, &modes, &ctx);
    r->t_sym = now_s() - t0;
    if (st != PKM_OK) {
        rc = size_fail(r, "symbolic analysis", st, &ctx);
        goto done;
    }
    pkm_modal_opts opts = pkm_modal_opts_default();
    opts.nev = SIZE_NEV;
    /* A speed study: k = 1024 is past the accuracy limit of double precision (f1 estimate 4e-2,
     * refused by default) but still measures the cost of the size. */
    opts.max_accuracy = 1.0;
    t0 = now_s();
    st = pkm_modal_solve(solver, pen, &opts, modes, &ctx);
    r->t_solve = now_s() - t0;
    if (st != PKM_OK) {
        rc = size_fail(r, "solve", st, &ctx);
        goto done;
    }
    for (int i = 0; i < SIZE_NEV; i++) {
        r->omega2[i] = modes->omega2[i];
        r->freq[i] = modes->freq_hz[i];
        if (modes->residual[i] > r->max_residual) r->max_residual = modes->residual[i];
        if (modes->backward_error[i] > r->max_backward) r->max_backward = modes->backward_error[i];
    }
    r->iterations = modes->iterations;
    r->op_count = modes->op_count;
done:
    pkm_modes_destroy(&modes);
    pkm_modal_destroy(&solver);
    pkm_pencil_destroy(&pen);
    pkm_model_destroy(&m);
    r->maxrss_kb = maxrss_kb();
    return rc;
}

typedef struct size_row {
    size_job job;
    size_result res;
    child_outcome out;
    int ok;
} size_row;

static void print_size_row(const size_row *row)
{
    const size_result *r = &row->res;
    char what[64];
    snprintf(what, sizeof(what), "%s k = %d", form_name(row->job.form), row->job.k);
    if (!row->ok) {
        if (row->out.received == sizeof(*r) && r->status != PKM_OK) {
            /* The work done before the failure is still timed. */
            printf("%-6s %5d %9lld %10lld %10.4f %10.4f %10.4f %10.4f %10ld %9s %10s %10s %4s %9s "
                   "%9s\n",
                   form_name(row->job.form), row->job.k, (long long)r->n_reduced, (long long)r->nnz,
                   r->t_asm, r->t_sym, r->t_solve, r->t_sym + r->t_solve, r->maxrss_kb, "-", "-",
                   "-", "-", "-", "-");
            printf("  FAILED %s at %s: %s (%d): %s\n", what, r->stage,
                   pkm_status_str((pkm_status)r->status), r->status, r->msg);
        } else {
            print_child_failure(what, &row->out);
        }
        return;
    }
    printf("%-6s %5d %9lld %10lld %10.4f %10.4f %10.4f %10.4f %10ld %9.2e %10.2e %10.2e %4d %9.2e "
           "%9.2e\n",
           form_name(row->job.form), row->job.k, (long long)r->n_reduced, (long long)r->nnz,
           r->t_asm, r->t_sym, r->t_solve, r->t_sym + r->t_solve, r->maxrss_kb, spread_of(r),
           DBL_EPSILON * spread_of(r), pair_split(r), r->op_count, r->max_residual,
           r->max_backward);
}

static void print_size_tables(const size_row *rows, int nrows)
{
    printf("\nFirst %d frequencies, Hz:\n%-6s %5s", SIZE_NEV, "form", "k");
    for (int i = 0; i < SIZE_NEV; i++)
        printf(" %13s%-2d", "f", i + 1);
    printf("\n");
    for (int j = 0; j < nrows; j++) {
        if (!rows[j].ok) continue;
        printf("%-6s %5d", form_name(rows[j].job.form), rows[j].job.k);
        for (int i = 0; i < SIZE_NEV; i++)
            printf(" %15.10g", rows[j].res.freq[i]);
        printf("\n");
    }
    printf("\nRelative change |f_i(k) - f_i(k_prev)| / f_i(k) from the previous k of the same "
           "formulation.\nThe error is O(h^4): each 4x refinement should cut it ~256x (drop) until "
           "rounding takes over\n(measured by the pair split; eps*spread is the textbook "
           "estimate).\n%-6s %5s",
           "form", "k");
    for (int i = 0; i < SIZE_NEV; i++)
        printf("  %7s%-2d", "df", i + 1);
    printf(" %9s %9s %10s\n", "max", "drop", "pair split");
    double prev_worst = 0.0;
    for (int j = 1; j < nrows; j++) {
        const size_row *a = &rows[j - 1], *b = &rows[j];
        if (!a->ok || !b->ok || a->job.form != b->job.form) continue;
        printf("%-6s %5d", form_name(b->job.form), b->job.k);
        double worst = 0.0;
        for (int i = 0; i < SIZE_NEV; i++) {
            const double d = fabs(b->res.freq[i] - a->res.freq[i]) / fabs(b->res.freq[i]);
            if (d > worst) worst = d;
            printf("  %9.2e", d);
        }
        const int first = j < 2 || !rows[j - 2].ok || rows[j - 2].job.form != b->job.form;
        printf(" %9.2e", worst);
        if (first)
            printf(" %9s", "-");
        else
            printf(" %9.3g", prev_worst / worst);
        printf(" %10.2e\n", pair_split(&b->res));
        prev_worst = worst;
    }
}

/* ---- driver ----------------------------------------------------------------------------- */

static void usage(FILE *f, const char *argv0)
{
    fprintf(f,
            "usage: %s [--quick] [--map-only | --size-only]\n"
            "  NaVARo map throughput (tree/nodal + ARPACK vs tree + dense LAPACK) and cost\n"
            "  against model size (elements_per_link k = 1 ... 1024).\n"
            "  --quick      10x10 grid and k <= 64 (smoke run)\n"
            "  --map-only   part 1 only (map throughput; e.g. under perf record)\n"
            "  --size-only  part 2 only (cost against model size)\n",
            argv0);
}

/* Part 1 in a child; 0 if it ran. */
static int run_map_part(int quick)
{
    const map_job mj = {.grid = quick ? 10 : 60};
    printf("\n== 1. Map pipeline: %dx%d grid, x, y in [%g, %g] m, theta = 0, %d modes per pose, "
           "one process, one thread of ours ==\n",
           mj.grid, mj.grid, -MAP_HALF_WIDTH, MAP_HALF_WIDTH, MAP_NEV);
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

/* Part 2, one child per model; 0 unless a child could not be run (a failed model is data). */
static int run_size_part(int quick)
{
    static const int ks[] = {1, 4, 16, 64, 256, 1024};
    enum { NK = (int)(sizeof(ks) / sizeof(ks[0])), TREE_KMAX = 16, QUICK_KMAX = 64 };
    size_row rows[2 * NK];
    int nrows = 0, status = 0;
    for (int f = 0; f < 2; f++) {
        const pkm_formulation form = f == 0 ? PKM_FORM_NODAL : PKM_FORM_TREE;
        for (int i = 0; i < NK; i++) {
            if (quick && ks[i] > QUICK_KMAX) continue;
            if (form == PKM_FORM_TREE && ks[i] > TREE_KMAX) continue;
            memset(&rows[nrows], 0, sizeof(rows[nrows]));
            rows[nrows].job.form = form;
            rows[nrows].job.k = ks[i];
            nrows++;
        }
    }
    printf("\n== 2. Cost against model size: pose (0, 0, 0), elements_per_link k (link 4 gets 2k), "
           "%d modes, ARPACK ==\n",
           SIZE_NEV);
    printf(
        "Each row runs in its own forked child (time limit %d s); peak RSS is that child's "
        "ru_maxrss\n(getrusage RUSAGE_SELF at its end; it includes the few MB inherited from the "
        "parent).\nspread = max_i(K_ii/M_ii) / omega_1^2, a lower bound of lambda_max / "
        "lambda_1 (the pencil's condition);\neps*spread is the textbook rounding estimate. "
        "pair split = largest relative split |f_i+1 - f_i| / f_i\nof a mode pair that the 3-fold "
        "symmetry of pose (0, 0, 0) makes exactly degenerate: the rounding\nerror actually "
        "measured. Times of a failed row are those spent until the failure. relres, bwd err:\n"
        "largest relative residual ||Kx - w^2 Mx|| / ||Kx|| and normwise backward error\n"
        "||Kx - w^2 Mx|| / ((||K|| + w^2 ||M||) ||x||) over the 10 modes (the acceptance test: "
        "<= 1e-10).\n",
        SIZE_LIMIT_S);
    printf("%-6s %5s %9s %10s %10s %10s %10s %10s %10s %9s %10s %10s %4s %9s %9s\n", "form", "k",
           "n", "nnz(K)", "assemble s", "symbolic s", "solve s", "sym+solve", "peak kB", "spread",
           "eps*spread", "pair split", "ops", "relres", "bwd err");
    for (int j = 0; j < nrows; j++) {
        size_row *row = &rows[j];
        if (run_child(size_bench, &row->job, &row->res, sizeof(row->res), SIZE_LIMIT_S,
                      &row->out) != 0)
            status = 1;
        row->ok = row->out.ok && row->res.status == PKM_OK;
        print_size_row(row);
    }
    print_size_tables(rows, nrows);
    return status;
}

int main(int argc, char **argv)
{
    int quick = 0, map_part = 1, size_part = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--map-only") == 0) {
            size_part = 0;
        } else if (strcmp(argv[i], "--size-only") == 0) {
            map_part = 0;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout, argv[0]);
            return 0;
        } else {
            usage(stderr, argv[0]);
            return 2;
        }
    }
    if (!map_part && !size_part) {
        usage(stderr, argv[0]);
        return 2;
    }
    printf("map_bench%s: NaVARo, parent peak RSS before any measurement %ld kB\n",
           quick ? " --quick" : "", maxrss_kb());
    int status = 0;
    if (map_part && run_map_part(quick) != 0) status = 1;
    if (size_part && run_size_part(quick) != 0) status = 1;
    return status;
}
