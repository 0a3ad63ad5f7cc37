/* solvers/modal.c: lowest modes of K x = w^2 M x by ARPACK shift-invert Lanczos (pkm_linsolve).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Not thread-safe: one pkm_modal object must not be used by two threads at once (it owns the
 * factorisations and the Lanczos workspace), and ARPACK keeps Fortran SAVE state
 * between the reverse-communication calls, so no two ARPACK solves may run at the same time in
 * one process. The caller serialises; the library holds no lock and no global state. */
#include "solvers/solvers_impl.h"
#include "core/core_impl.h"

#include <arpack.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* pkm_solvers_to_int serves ARPACK and LAPACK alike only while a_int is a plain int (ARPACK-ng
 * built without INTERFACE64). */
_Static_assert(sizeof(a_int) == sizeof(int), "ARPACK a_int is not int");

/* Extra Ritz values computed beyond nev so that a repeated eigenvalue at the end of the wanted
 * set is complete before the set is cut. */
#define PKM_MODAL_NEV_MARGIN 2
/* Default ARPACK restarts: PKM_MODAL_MAXITER up to PKM_MODAL_MAXITER_N coordinates, then in
 * proportion to 1/n down to PKM_MODAL_MAXITER_MIN, so that a pencil ARPACK cannot converge
 * fails in seconds: NaVARo at 4096 elements per link (440,000 coordinates; its rounding floor is
 * above its lowest eigenvalues) ran 301 restarts, 3,324 solves, in 202 s; now 21 restarts in
 * 18 s. A converging solve takes 2-3 restarts at every size of the size study (up to 110,574
 * coordinates: 30-36 operator applications with ncv = 23). */
#define PKM_MODAL_MAXITER     300
#define PKM_MODAL_MAXITER_MIN 20
#define PKM_MODAL_MAXITER_N   20000
/* Lanczos runs per solve: the first, then deflated ones while the Sylvester count finds
 * eigenvalues missing. One deflated run recovers every case of issue 8 (pss5upu home pose, nev
 * 1..40; NaVARo with E = 1e15); the bound only stops a pathological pencil. */
#define PKM_MODAL_RUNS 4
/* Default ARPACK tolerance: the Ritz values of OP are converged to 1e-10 relative. Their error
 * is then ~(1e-10)^2 / gap (Rayleigh-Ritz, symmetric), far below 1e-9 in w^2: over the 3,494
 * poses of the NaVARo map the frequencies stay within 2e-15 of those at 1e-12. With ncv = 2 nev
 * + 3 it saves ~7 % of the solve time against 1e-12 (25.1 operator applications and 2 restarts
 * per 8-mode solve instead of 26.9 and 3.2); machine precision (tol = 0) costs ~1.7x more
 * Lanczos steps for no digit that the pencil itself holds (docs/performance.md). */
#define PKM_MODAL_TOL 1e-10

struct pkm_modal {
    int64_t n;        /* analysed order */
    pkm_linsolve *op; /* LL^T of K - sigma M, the shift-invert operator */
    /* ARPACK workspace: n-sized arrays allocated once, ncv-sized ones grown on demand. */
    double *resid, *workd, *tmp, *work2; /* work2: 2 n for the residual checks */
    int ncv_cap, nev_cap;
    double *v, *workl, *d, *z;
    a_int *select;
    int *order;
    /* Sylvester count of the eigenvalues below a shift (inertia.c): LDL^T, same pattern. */
    pkm_linsolve *ldlt;
    /* The eigenpairs converged so far in this solve, in the order found: values, rounding
     * floors, n x pool_cap vectors; pool_order lists them ascending, ws and fs are the sorted
     * values and floors. Grown on demand. */
    int pool_n, pool_cap;
    double *pool_w, *pool_f, *pool_x, *pool_ws, *pool_fs;
    int *pool_order;
};

pkm_status pkm_modal_create(const pkm_pencil *pattern, pkm_modal **out, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_status rc = PKM_OK;
    if (pattern == NULL || pattern->n < 2)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "modal solver needs a pencil of order >= 2");
    const int64_t n = pattern->n;
    int ni = 0;
    /* ARPACK indexes workd (3 n) with a_int. */
    rc = pkm_solvers_to_int(3 * n, "3 x pencil order", &ni, ctx);
    if (rc != PKM_OK) return rc;
    pkm_modal *s = calloc(1, sizeof(*s));
    if (s == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the modal solver");
    s->n = n;
    rc = pkm_linsolve_create(pattern, PKM_LINSOLVE_AUTO, &s->op, ctx);
    if (rc != PKM_OK) goto fail;
    s->resid = calloc((size_t)n, sizeof(double));
    s->workd = calloc(3 * (size_t)n, sizeof(double));
    s->tmp = calloc((size_t)n, sizeof(double));
    s->work2 = calloc(2 * (size_t)n, sizeof(double));
    if (s->resid == NULL || s->workd == NULL || s->tmp == NULL || s->work2 == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate Lanczos vectors of order %lld",
                      (long long)n);
        goto fail;
    }
    rc = pkm_linsolve_create(pattern, PKM_LINSOLVE_LDLT, &s->ldlt, ctx);
    if (rc != PKM_OK) goto fail;
    *out = s;
    return PKM_OK;
fail:
    pkm_modal_destroy(&s);
    return rc;
}

static void free_lanczos(pkm_modal *s)
{
    free(s->v);
    free(s->workl);
    free(s->d);
    free(s->z);
    free(s->select);
    free(s->order);
    s->v = s->workl = s->d = s->z = NULL;
    s->select = NULL;
    s->order = NULL;
    s->ncv_cap = s->nev_cap = 0;
}

void pkm_modal_destroy(pkm_modal **solver)
{
    if (solver == NULL || *solver == NULL) return;
    pkm_modal *s = *solver;
    pkm_linsolve_destroy(&s->op);
    free(s->resid);
    free(s->workd);
    free(s->tmp);
    free(s->work2);
    free_lanczos(s);
    pkm_linsolve_destroy(&s->ldlt);
    free(s->pool_w);
    free(s->pool_f);
    free(s->pool_x);
    free(s->pool_ws);
    free(s->pool_fs);
    free(s->pool_order);
    free(s);
    *solver = NULL;
}

/* Lanczos basis and Ritz storage for ncv vectors and nev_int values (ARPACK Users' Guide,
 * dsaupd: lworkl >= ncv (ncv + 8)). */
static pkm_status ensure_lanczos(pkm_modal *s, int ncv, int nev_int, pkm_ctx *ctx)
{
    if (ncv <= s->ncv_cap && nev_int <= s->nev_cap) return PKM_OK;
    free_lanczos(s);
    const size_t n = (size_t)s->n;
    s->v = calloc(n * (size_t)ncv, sizeof(double));
    s->workl = calloc((size_t)ncv * ((size_t)ncv + 8), sizeof(double));
    s->d = calloc((size_t)ncv, sizeof(double));
    s->z = calloc(n * (size_t)nev_int, sizeof(double));
    s->select = calloc((size_t)ncv, sizeof(a_int));
    s->order = calloc((size_t)ncv, sizeof(int));
    if (s->v == NULL || s->workl == NULL || s->d == NULL || s->z == NULL || s->select == NULL ||
        s->order == NULL) {
        free_lanczos(s);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate %d Lanczos vectors of order %lld", ncv,
                        (long long)s->n);
    }
    s->ncv_cap = ncv;
    s->nev_cap = nev_int;
    return PKM_OK;
}

/* ARPACK's ipntr entries are 1-based Fortran offsets into workd. */
static double *arpack_vec(double *workd, a_int ipntr_entry)
{
    return workd + (ipntr_entry - 1);
}

/* A factorisation that breaks down (K - sigma M not positive definite) leaves nothing in ctx, so
 * the next shift can be tried. */
pkm_status pkm_modal_choose_shift(pkm_linsolve *op, const pkm_pencil *p, double *sigma,
                                  pkm_ctx *ctx)
{
    int64_t minor = -1;
    pkm_status rc;
    if (!isnan(*sigma)) {
        rc = pkm_linsolve_factor(op, p, 1.0, -*sigma, &minor, ctx);
        if (rc != PKM_OK || minor < 0) return rc;
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "K - sigma M is not positive definite for sigma = %g (column %lld): "
                        "sigma must lie below the lowest eigenvalue",
                        *sigma, (long long)minor);
    }
    *sigma = 0.0;
    rc = pkm_linsolve_factor(op, p, 1.0, -*sigma, &minor, ctx);
    if (rc != PKM_OK || minor < 0) return rc;
    /* K is singular or indefinite (rigid-body or mechanism modes): shift slightly below zero, on
     * the scale of the pencil's diagonal, so that K - sigma M is positive definite while the
     * elastic modes stay well separated from sigma. */
    const int64_t k_minor = minor;
    const pkm_diag_scales ds = pkm_pencil_diag_scales(p);
    const double s0 = pkm_modal_zero_scale(&ds);
    if (!(s0 > 0.0))
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "K is not positive definite (column %lld) and M has no positive "
                        "diagonal to shift with",
                        (long long)k_minor);
    *sigma = -s0;
    rc = pkm_linsolve_factor(op, p, 1.0, -*sigma, &minor, ctx);
    if (rc != PKM_OK || minor < 0) return rc;
    return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                    "K is not positive definite (column %lld) and neither is K - sigma M for "
                    "sigma = %g (column %lld): K is indefinite or M is singular",
                    (long long)k_minor, *sigma, (long long)minor);
}

/* Room for `more` further pairs in the pool. */
static pkm_status pool_reserve(pkm_modal *s, int more, pkm_ctx *ctx)
{
    const int need = s->pool_n + more;
    if (need <= s->pool_cap) return PKM_OK;
    const size_t cap = (size_t)need, n = (size_t)s->n;
    double *w = realloc(s->pool_w, cap * sizeof(double));
    if (w != NULL) s->pool_w = w;
    double *f = realloc(s->pool_f, cap * sizeof(double));
    if (f != NULL) s->pool_f = f;
    double *x = realloc(s->pool_x, cap * n * sizeof(double));
    if (x != NULL) s->pool_x = x;
    double *ws = realloc(s->pool_ws, cap * sizeof(double));
    if (ws != NULL) s->pool_ws = ws;
    double *fs = realloc(s->pool_fs, cap * sizeof(double));
    if (fs != NULL) s->pool_fs = fs;
    int *o = realloc(s->pool_order, cap * sizeof(int));
    if (o != NULL) s->pool_order = o;
    if (w == NULL || f == NULL || x == NULL || ws == NULL || fs == NULL || o == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot keep %d eigenvectors of order %lld", need,
                        (long long)s->n);
    s->pool_cap = need;
    return PKM_OK;
}

/* y -= X (X^T M y) over the pool's vectors X (M-orthonormal): y becomes M-orthogonal to the
 * eigenvectors already found. my: n scratch. */
static void deflate(const pkm_modal *s, const pkm_pencil *p, double *y, double *my)
{
    const int64_t n = s->n;
    pkm_pencil_matvec(p, 'M', y, my);
    for (int k = 0; k < s->pool_n; k++) {
        const double *x = s->pool_x + (size_t)k * (size_t)n;
        double c = 0.0;
        for (int64_t i = 0; i < n; i++)
            c += x[i] * my[i];
        for (int64_t i = 0; i < n; i++)
            y[i] -= c * x[i];
    }
}

/* Deterministic pseudo-random start (Knuth's MMIX LCG) of the given seed: a constant vector can
 * be M-orthogonal to whole families of modes of a symmetric structure. */
static void start_vector(double *r, a_int n, uint64_t seed)
{
    uint64_t state = 0x9E3779B97F4A7C15u ^ seed;
    for (a_int i = 0; i < n; i++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        r[i] = (double)(state >> 11) * 0x1p-53 * 2.0 - 1.0;
    }
}

/* ARPACK's reverse-communication loop of one run (see lanczos_run); with a pool, every image of
 * OP is deflated, so the Krylov space stays M-orthogonal to the pool. */
static pkm_status arpack_iterate(pkm_modal *s, const pkm_pencil *p, const char *site, a_int nev_run,
                                 a_int ncv, double tol, a_int *iparam, a_int *ipntr, a_int *info,
                                 pkm_ctx *ctx)
{
    const a_int n = (a_int)s->n, lworkl = ncv * (ncv + 8);
    a_int ido = 0;
    for (;;) {
        dsaupd_c(&ido, "G", n, "LM", nev_run, tol, s->resid, ncv, s->v, n, iparam, ipntr, s->workd,
                 s->workl, lworkl, info);
        pkm_status rc = pkm_lapack_check(site, ctx);
        if (rc != PKM_OK) return rc;
        if (*info < 0 || ido == 99) return PKM_OK;
        double *x = arpack_vec(s->workd, ipntr[0]), *y = arpack_vec(s->workd, ipntr[1]);
        switch (ido) {
        case -1: /* y = (K - sigma M)^-1 M x */
            pkm_pencil_matvec(p, 'M', x, s->tmp);
            rc = pkm_linsolve_solve(s->op, s->tmp, y, ctx);
            break;
        case 1: /* M x is already in workd(ipntr(3)) (dsaupd, mode 3) */
            rc = pkm_linsolve_solve(s->op, arpack_vec(s->workd, ipntr[2]), y, ctx);
            break;
        case 2:
            pkm_pencil_matvec(p, 'M', x, y);
            break;
        default:
            return PKM_FAIL(ctx, PKM_ERR_SOLVER, "dsaupd requested unexpected ido = %d", (int)ido);
        }
        if (rc != PKM_OK) return rc;
        if (ido != 2 && s->pool_n > 0) deflate(s, p, y, s->tmp);
    }
}

static a_int default_maxiter(int64_t n)
{
    if (n <= PKM_MODAL_MAXITER_N) return PKM_MODAL_MAXITER;
    const int64_t m = PKM_MODAL_MAXITER * PKM_MODAL_MAXITER_N / n;
    return (a_int)(m > PKM_MODAL_MAXITER_MIN ? m : PKM_MODAL_MAXITER_MIN);
}

/* One implicitly restarted Lanczos run (ARPACK mode 3: shift-invert, B = M; Lehoucq et al.,
 * ARPACK Users' Guide, sec. 3.2 and dsaupd) for the nev_run eigenvalues nearest sigma of the
 * pencil restricted to the M-orthogonal complement of the pool. Since K - sigma M is positive
 * definite, the Ritz values of OP = (K - sigma M)^-1 M largest in magnitude are the lowest
 * eigenvalues. The converged pairs are appended to the pool. */
static pkm_status lanczos_run(pkm_modal *s, const pkm_pencil *p, const pkm_modal_opts *opts,
                              double sigma, a_int nev_run, a_int ncv, int run, pkm_modes *out,
                              pkm_ctx *ctx)
{
    const a_int n = (a_int)s->n;
    pkm_status rc = ensure_lanczos(s, ncv, nev_run, ctx);
    if (rc == PKM_OK) rc = pool_reserve(s, nev_run, ctx);
    if (rc != PKM_OK) return rc;
    start_vector(s->resid, n, (uint64_t)run);
    if (s->pool_n > 0) deflate(s, p, s->resid, s->tmp);
    const double tol = opts->tol > 0.0 ? opts->tol : PKM_MODAL_TOL;
    a_int info = 1, iparam[11] = {0}, ipntr[11] = {0};
    iparam[0] = 1; /* exact shifts */
    iparam[2] = opts->maxiter > 0 ? opts->maxiter : default_maxiter(s->n);
    iparam[3] = 1;
    iparam[6] = 3;
    rc = arpack_iterate(s, p, "dsaupd", nev_run, ncv, tol, iparam, ipntr, &info, ctx);
    if (rc != PKM_OK) return rc;
    out->iterations += (int)iparam[2];
    out->op_count += (int)iparam[8];
    if (info < 0)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "dsaupd failed with info = %d (n %d, nev %d, ncv %d)",
                        (int)info, (int)n, (int)nev_run, (int)ncv);
    if (info != 0 || iparam[4] < nev_run)
        return PKM_FAIL(ctx, PKM_ERR_NOCONV,
                        "dsaupd info = %d: %d of %d Ritz values converged after %d restarts, "
                        "%d solves (ncv %d); a pencil whose rounding floor reaches its lowest "
                        "eigenvalues (a mesh too fine for double precision) cannot converge",
                        (int)info, (int)iparam[4], (int)nev_run, (int)iparam[2], (int)iparam[8],
                        (int)ncv);
    dseupd_c(1, "A", s->select, s->d, s->z, n, sigma, "G", n, "LM", nev_run, tol, s->resid, ncv,
             s->v, n, iparam, ipntr, s->workd, s->workl, ncv * (ncv + 8), &info);
    if ((rc = pkm_lapack_check("dseupd", ctx)) != PKM_OK) return rc;
    if (info != 0)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "dseupd failed with info = %d (%d converged)",
                        (int)info, (int)iparam[4]);
    for (a_int j = 0; j < nev_run; j++) {
        const int k = s->pool_n++;
        const double *x = s->z + (size_t)j * (size_t)n;
        s->pool_w[k] = s->d[j];
        s->pool_f[k] = pkm_modal_rounding_floor(p, x, s->d[j]);
        memcpy(s->pool_x + (size_t)k * (size_t)n, x, sizeof(double) * (size_t)n);
    }
    /* Insertion sort of the pool's indices by value; ws, fs: the values and floors in order. */
    for (int j = 0; j < s->pool_n; j++) {
        int i = j;
        for (; i > 0 && s->pool_w[s->pool_order[i - 1]] > s->pool_w[j]; i--)
            s->pool_order[i] = s->pool_order[i - 1];
        s->pool_order[i] = j;
    }
    for (int j = 0; j < s->pool_n; j++) {
        s->pool_ws[j] = s->pool_w[s->pool_order[j]];
        s->pool_fs[j] = s->pool_f[s->pool_order[j]];
    }
    return PKM_OK;
}

/* Lanczos basis size for nev_run = nev + 2 wanted values in a space of dimension dim. ncv >= 2 nev
 * is ARPACK's recommendation (Users' Guide, dsaupd remark 4). 2 nev + 3 (nev_int + nev + 1, at
 * least nev + 2 + 1 for the internal margin, and 12 so that small requests have room for
 * clusters) minimises the work on the NaVARo map: every Lanczos step costs O(n ncv)
 * reorthogonalisation and every restart O(n ncv^2), and at n ~ 100 these, not the solves,
 * dominate. With the default tol, 8 modes take 25.1 operator applications and 2.0 restarts at
 * ncv = 19 against 26.8 and 3.0 at 18, 26.0 and 2.0 at 20; smaller bases restart more (12
 * restarts at 13 with tol 1e-12) (docs/performance.md). */
static a_int auto_ncv(a_int nev_run, a_int dim)
{
    a_int ncv = 2 * (nev_run - PKM_MODAL_NEV_MARGIN) + 3;
    if (ncv < nev_run + 1) ncv = nev_run + 1;
    if (ncv < 12) ncv = 12;
    return ncv > dim ? dim : ncv;
}

/* Lanczos runs until the Sylvester count below a shift above the nev-th value equals the values
 * found: the first run as ARPACK alone would do it, then, while some are missing, runs on the
 * M-orthogonal complement of every pair found so far (deflation), each for the missing count
 * plus the margin, from another start vector. */
static pkm_status solve_complete(pkm_modal *s, const pkm_pencil *p, const pkm_modal_opts *opts,
                                 double sigma, a_int nev_int, a_int ncv, pkm_modes *out,
                                 pkm_ctx *ctx)
{
    const int nev = opts->nev;
    const a_int n = (a_int)s->n;
    int missing = 0;
    double tau = 0.0;
    s->pool_n = 0;
    for (int run = 0; run < PKM_MODAL_RUNS; run++) {
        pkm_status rc = lanczos_run(s, p, opts, sigma, nev_int, ncv, run, out, ctx);
        if (rc != PKM_OK) return rc;
        rc = pkm_modal_check_complete(s->ldlt, p, s->pool_ws, s->pool_fs, nev, s->pool_n, &missing,
                                      &tau, ctx);
        if (rc != PKM_OK) return rc;
        if (missing <= 0) break;
        /* The complement has dimension n - pool_n; ARPACK needs nev < ncv <= that. */
        const a_int dim = n - s->pool_n;
        nev_int = missing + PKM_MODAL_NEV_MARGIN;
        if (nev_int > dim - 2) nev_int = dim - 2;
        if (nev_int < 1) break;
        ncv = auto_ncv(nev_int, dim);
    }
    if (missing > 0)
        return PKM_FAIL(ctx, PKM_ERR_NOCONV,
                        "incomplete spectrum: %d eigenvalue(s) below omega^2 = %.6g (the "
                        "Sylvester count of K - tau M) not found after %d Lanczos runs with "
                        "deflation",
                        missing, tau, PKM_MODAL_RUNS);
    if (missing < 0)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER,
                        "spectrum check: %d more eigenvalue(s) returned below omega^2 = %.6g than "
                        "the pencil has (Sylvester count of K - tau M)",
                        -missing, tau);
    return PKM_OK;
}

pkm_status pkm_modal_solve(pkm_modal *solver, const pkm_pencil *p, const pkm_modal_opts *opts,
                           pkm_modes *out, pkm_ctx *ctx)
{
    pkm_modal *s = solver;
    if (s == NULL) return PKM_FAIL(ctx, PKM_ERR_INVALID, "modal solve: NULL solver");
    pkm_status rc = pkm_modal_check_args(p, opts, out, ctx);
    if (rc == PKM_OK) rc = pkm_linsolve_check_pattern(s->op, p, ctx);
    if (rc != PKM_OK) return rc;
    out->zero_modes = 0;
    out->iterations = 0;
    out->op_count = 0;
    pkm_lapack_clear();

    a_int n = 0, nev = opts->nev, ncv = 0;
    rc = pkm_solvers_to_int(p->n, "pencil order", &n, ctx);
    if (rc != PKM_OK) return rc;
    const a_int nev_int = (nev + PKM_MODAL_NEV_MARGIN < n - 1) ? nev + PKM_MODAL_NEV_MARGIN : n - 1;
    if (opts->ncv > 0) {
        ncv = opts->ncv;
        if (ncv <= nev_int || ncv > n)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "ncv = %d must be in (%d, %d] (nev + %d internal modes, order)",
                            (int)ncv, (int)nev_int, (int)n, PKM_MODAL_NEV_MARGIN);
    } else {
        ncv = auto_ncv(nev_int, n);
    }
    double sigma = opts->sigma;
    rc = pkm_modal_choose_shift(s->op, p, &sigma, ctx);
    if (rc == PKM_OK) rc = solve_complete(s, p, opts, sigma, nev_int, ncv, out, ctx);
    if (rc != PKM_OK) return rc;
    rc = pkm_modes_finish(p, opts, s->pool_w, s->pool_f, NULL, s->pool_x, s->pool_order, s->work2,
                          out, ctx);
    out->sigma = sigma;
    return rc;
}
