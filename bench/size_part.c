/* bench/size_part.c: map_bench part 2, one pose, elements_per_link k = 1 ... 1024: coordinates,
 * assembly and solve times, peak memory, the first 10 frequencies and their convergence.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L

#include "bench/bench.h"
#include "assembly/assembly_impl.h"
#include "pkm/eigensolver.h"
#include "pkm/modal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SIZE_NEV     10 /* modes in part 2 */
#define SIZE_LIMIT_S 60 /* time limit of one part-2 measurement */

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

/* Part 2, one child per model; 0 unless a child could not be run (a failed model is data). */
int run_size_part(int quick)
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
           "%d modes, %s ==\n",
           SIZE_NEV, pkm_eigensolver_types[PKM_EIG_ARPACK].name);
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
