/* solvers/modal.c: lowest modes of K x = w^2 M x by ARPACK shift-invert Lanczos over CHOLMOD.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Not thread-safe: one pkm_modal object must not be used by two threads at once (it owns the
 * CHOLMOD common, the factor and the Lanczos workspace), and ARPACK keeps Fortran SAVE state
 * between the reverse-communication calls, so no two ARPACK solves may run at the same time in
 * one process. The caller serialises; the library holds no lock and no global state. */
#include "solvers/solvers_impl.h"
#include "core/core_impl.h"

#include <arpack.h>
#include <cholmod.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The analysed pattern is copied into CHOLMOD's own 64-bit index arrays. */
_Static_assert(sizeof(SuiteSparse_long) == sizeof(int64_t), "CHOLMOD long index is not 64-bit");
/* pkm_solvers_to_int serves ARPACK and LAPACK alike only while a_int is a plain int (ARPACK-ng
 * built without INTERFACE64). */
_Static_assert(sizeof(a_int) == sizeof(int), "ARPACK a_int is not int");

/* Automatic shift and rigid-mode scale, relative to max diag K / max diag M. */
#define PKM_MODAL_ZERO_SCALE 1e-6
/* Zero-energy threshold, relative to d = max_i K_ii / M_ii (the Rayleigh quotient of a unit
 * coordinate, so a lower bound of the largest eigenvalue, and independent of the units of the
 * coordinates). Rounding makes a computed zero eigenvalue ~ eps lambda_max (the assembled K is
 * exact only to eps ||K||), and d <= lambda_max; an elastic lowest mode sits well above 1e-13 d
 * (~450 eps d) up to spreads lambda_max / lambda_1 ~ 1e12, the limit of double precision for
 * these models (docs/performance.md: NaVARo with 1024 elements per link has d / lambda_1 =
 * 2.6e11 and lambda_1 38x the threshold). */
#define PKM_MODAL_ZERO_REL 1e-13
/* Extra Ritz values computed beyond nev so that a repeated eigenvalue at the end of the wanted
 * set is complete before the set is cut. */
#define PKM_MODAL_NEV_MARGIN 2
#define PKM_MODAL_MAXITER    300
#define PKM_MODAL_MAX_ORTH   1e-6
/* Default acceptance: normwise backward error. A backward-stable dense solver reaches ~n eps;
 * shift-invert Lanczos with Ritz tolerance tol guarantees only ~tol (the residual of OP's Ritz
 * pair mapped back through K - sigma M), but its last restart overshoots tol by several digits:
 * with the default tol = 1e-10 the largest backward error over the NaVARo map is 4e-15 and
 * over the size study up to 110,574 coordinates 1.5e-15 (docs/performance.md). 1e-10 still
 * refuses a mode that is not an eigenpair of any pencil within 1e-10 of (K, M). */
#define PKM_MODAL_MAX_BACKWARD 1e-10
/* Default ARPACK tolerance: the Ritz values of OP are converged to 1e-10 relative. Their error
 * is then ~(1e-10)^2 / gap (Rayleigh-Ritz, symmetric), far below 1e-9 in w^2: over the 3,494
 * poses of the NaVARo map the frequencies stay within 2e-15 of those at 1e-12. With ncv = 2 nev
 * + 3 it saves ~7 % of the solve time against 1e-12 (25.1 operator applications and 2 restarts
 * per 8-mode solve instead of 26.9 and 3.2); machine precision (tol = 0) costs ~1.7x more
 * Lanczos steps for no digit that the pencil itself holds (docs/performance.md). */
#define PKM_MODAL_TOL 1e-10

struct pkm_modal {
    cholmod_common c;
    int started;       /* cholmod_l_start done, so cholmod_l_finish is due */
    int64_t n, nnz;    /* analysed order and entry count */
    cholmod_sparse *A; /* K - sigma M on the analysed pattern: upper, sorted, packed */
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E; /* cholmod_l_solve2 right-hand side, result and workspace */
    /* ARPACK workspace: n-sized arrays allocated once, ncv-sized ones grown on demand. */
    double *resid, *workd, *tmp, *work2; /* work2: 2 n for the residual checks */
    double *dinv; /* n reciprocals of the diagonal of a simplicial LL' factor */
    int ncv_cap, nev_cap;
    double *v, *workl, *d, *z;
    a_int *select;
    int *order;
};

pkm_modal_opts pkm_modal_opts_default(void)
{
    pkm_modal_opts o;
    o.nev = 10;
    o.ncv = 0;
    o.sigma = NAN;
    o.tol = 0.0;
    o.maxiter = 0;
    o.max_backward_error = 0.0;
    o.max_residual = 0.0;
    o.allow_zero_modes = 0;
    return o;
}

pkm_status pkm_modes_create(int64_t n, int nev, pkm_modes **out, pkm_ctx *ctx)
{
    *out = NULL;
    if (n < 1 || nev < 1 || (uint64_t)n > SIZE_MAX / sizeof(double) / (uint64_t)nev)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "cannot hold %d modes of order %lld", nev,
                        (long long)n);
    pkm_modes *m = calloc(1, sizeof(*m));
    if (m == NULL) goto fail;
    m->n = n;
    m->nev = nev;
    m->omega2 = calloc((size_t)nev, sizeof(double));
    m->freq_hz = calloc((size_t)nev, sizeof(double));
    m->residual = calloc((size_t)nev, sizeof(double));
    m->backward_error = calloc((size_t)nev, sizeof(double));
    m->accuracy = calloc((size_t)nev, sizeof(double));
    m->vectors = calloc((size_t)n * (size_t)nev, sizeof(double));
    if (m->omega2 == NULL || m->freq_hz == NULL || m->residual == NULL ||
        m->backward_error == NULL || m->accuracy == NULL || m->vectors == NULL)
        goto fail;
    *out = m;
    return PKM_OK;
fail:
    pkm_modes_destroy(&m);
    return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate %d modes of order %lld", nev,
                    (long long)n);
}

void pkm_modes_destroy(pkm_modes **modes)
{
    if (modes == NULL || *modes == NULL) return;
    free((*modes)->omega2);
    free((*modes)->freq_hz);
    free((*modes)->residual);
    free((*modes)->backward_error);
    free((*modes)->accuracy);
    free((*modes)->vectors);
    free(*modes);
    *modes = NULL;
}

pkm_status pkm_solvers_to_int(int64_t value, const char *what, int *out, pkm_ctx *ctx)
{
    if (value < 0 || value > INT_MAX)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s = %lld does not fit the solver's int", what,
                        (long long)value);
    *out = (int)value;
    return PKM_OK;
}

pkm_status pkm_modal_check_args(const pkm_pencil *p, const pkm_modal_opts *opts,
                                const pkm_modes *out, pkm_ctx *ctx)
{
    if (p == NULL || opts == NULL || out == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "modal solve: NULL pencil, options or result");
    if (opts->nev < 1 || (int64_t)opts->nev >= p->n)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "nev = %d must be in [1, n - 1] for n = %lld",
                        opts->nev, (long long)p->n);
    if (out->n != p->n || out->nev < opts->nev)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "result holds %d modes of order %lld, solve wants %d of order %lld",
                        out->nev, (long long)out->n, opts->nev, (long long)p->n);
    if (opts->ncv < 0 || opts->maxiter < 0 || !(opts->tol >= 0.0) || !(opts->max_residual >= 0.0) ||
        !(opts->max_backward_error >= 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "ncv = %d, maxiter = %d, tol = %g, max_residual = %g, "
                        "max_backward_error = %g must be >= 0",
                        opts->ncv, opts->maxiter, opts->tol, opts->max_residual,
                        opts->max_backward_error);
    return PKM_OK;
}

/* Scales of the pencil's diagonal: max diag K, max diag M and max_i K_ii / M_ii over M_ii > 0. */
typedef struct diag_scales {
    double dk, dm, ratio;
} diag_scales;

static diag_scales diag_scales_of(const pkm_pencil *p)
{
    diag_scales d = {0.0, 0.0, 0.0};
    for (int64_t j = 0; j < p->n; j++) {
        int64_t q = p->colptr[j + 1] - 1; /* rows sorted, row <= column: diagonal is last */
        if (q >= p->colptr[j] && p->rowind[q] == j) {
            d.dk = fmax(d.dk, p->k[q]);
            d.dm = fmax(d.dm, p->m[q]);
            if (p->m[q] > 0.0) d.ratio = fmax(d.ratio, p->k[q] / p->m[q]);
        }
    }
    return d;
}

/* 1e-6 of max diag K / max diag M, in rad^2/s^2: the automatic shift for a singular K and the
 * scale of a rigid mode's residual; 0 if M has no positive diagonal. */
static double zero_scale(const diag_scales *d)
{
    return d->dm > 0.0 ? PKM_MODAL_ZERO_SCALE * d->dk / d->dm : 0.0;
}

static double norm2(int64_t n, const double *x)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

/* Largest column 2-norm of the symmetric matrix with upper values a (sq: n scratch): a lower
 * bound of its 2-norm, within a factor sqrt(n). */
static double max_column_norm(const pkm_pencil *p, const double *a, double *sq)
{
    memset(sq, 0, sizeof(double) * (size_t)p->n);
    for (int64_t j = 0; j < p->n; j++)
        for (int64_t q = p->colptr[j]; q < p->colptr[j + 1]; q++) {
            const int64_t i = p->rowind[q];
            sq[j] += a[q] * a[q];
            if (i != j) sq[i] += a[q] * a[q];
        }
    double m = 0.0;
    for (int64_t j = 0; j < p->n; j++)
        m = fmax(m, sq[j]);
    return sqrt(m);
}

/* The zero-energy mode j of out is refused: its value, the threshold and its three largest
 * coordinates go into the message, the mode itself stays in out. */
static pkm_status refuse_zero_mode(const pkm_modes *out, int j, double threshold, pkm_ctx *ctx)
{
    const int64_t n = out->n;
    const double *x = out->vectors + (size_t)j * (size_t)n;
    int64_t top[3] = {-1, -1, -1};
    for (int64_t i = 0; i < n; i++) {
        for (int t = 0; t < 3; t++) {
            if (top[t] < 0 || fabs(x[i]) > fabs(x[top[t]])) {
                for (int u = 2; u > t; u--)
                    top[u] = top[u - 1];
                top[t] = i;
                break;
            }
        }
    }
    char coords[160] = "";
    size_t len = 0;
    for (int t = 0; t < 3 && top[t] >= 0 && len < sizeof(coords); t++) {
        int w = snprintf(coords + len, sizeof(coords) - len, "%s%lld (%.3g)", t ? ", " : "",
                         (long long)top[t], x[top[t]]);
        if (w < 0) break;
        len += (size_t)w;
    }
    return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                    "mode %d is a zero-energy (mechanism) mode: omega^2 = %.3g rad^2/s^2 is below "
                    "%.3g (1e-13 max K_ii/M_ii), %d such mode(s); its largest coordinates "
                    "(index, value): %s",
                    j, out->omega2[j], threshold, out->zero_modes, coords);
}

pkm_status pkm_modes_finish(const pkm_pencil *p, const pkm_modal_opts *opts, const double *w2,
                            const double *vecs, const int *order, double *work, pkm_modes *out,
                            pkm_ctx *ctx)
{
    const int64_t n = p->n;
    const int nev = opts->nev;
    const double max_be =
        opts->max_backward_error > 0.0 ? opts->max_backward_error : PKM_MODAL_MAX_BACKWARD;
    pkm_status rc = PKM_OK;
    double *own = NULL;
    if (work == NULL) {
        own = malloc(sizeof(double) * 2 * (size_t)n);
        if (own == NULL)
            return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate residual work for order %lld",
                            (long long)n);
        work = own;
    }
    double *kx = work, *mx = work + n;
    out->nev = nev;
    for (int j = 0; j < nev; j++) {
        int src = order != NULL ? order[j] : j;
        out->omega2[j] = w2[src];
        out->freq_hz[j] = sqrt(fmax(w2[src], 0.0)) / (2.0 * PKM_PI);
        memcpy(out->vectors + (size_t)j * (size_t)n, vecs + (size_t)src * (size_t)n,
               sizeof(double) * (size_t)n);
    }
    const diag_scales ds = diag_scales_of(p);
    const double s = zero_scale(&ds);
    const double norm_k = max_column_norm(p, p->k, kx), norm_m = max_column_norm(p, p->m, kx);
    double orth = 0.0;
    int orth_i = 0, orth_j = 0;
    for (int j = 0; j < nev; j++) {
        const double *x = out->vectors + (size_t)j * (size_t)n;
        pkm_pencil_matvec(p, 'K', x, kx);
        pkm_pencil_matvec(p, 'M', x, mx);
        const double lam = out->omega2[j];
        /* Relative residual against max(||K x||, max(|w^2|, s) ||M x||): for an elastic mode
         * both terms equal ||K x||; for a rigid mode ||K x|| is rounding noise, so the scale s
         * below which w^2 is zero to working accuracy stands in for |w^2|. */
        const double den = fmax(norm2(n, kx), fmax(fabs(lam), s) * norm2(n, mx));
        for (int64_t i = 0; i < n; i++)
            kx[i] -= lam * mx[i];
        const double r = norm2(n, kx);
        out->residual[j] = den > 0.0 ? r / den : INFINITY;
        const double be_den = (norm_k + fabs(lam) * norm_m) * norm2(n, x);
        out->backward_error[j] = be_den > 0.0 ? r / be_den : INFINITY;
        for (int i = 0; i <= j; i++) {
            const double *y = out->vectors + (size_t)i * (size_t)n;
            double g = 0.0;
            for (int64_t q = 0; q < n; q++)
                g += y[q] * mx[q];
            double e = fabs(g - (i == j ? 1.0 : 0.0));
            if (!(e <= orth)) {
                orth = e;
                orth_i = i;
                orth_j = j;
            }
        }
    }
    out->orth_error = orth;
    const double zero = PKM_MODAL_ZERO_REL * ds.ratio;
    out->zero_modes = 0;
    while (out->zero_modes < nev && out->omega2[out->zero_modes] < zero)
        out->zero_modes++;
    if (out->zero_modes > 0 && !opts->allow_zero_modes) {
        rc = refuse_zero_mode(out, 0, zero, ctx);
        goto done;
    }
    for (int j = 0; j < nev; j++) {
        if (!(out->backward_error[j] <= max_be)) {
            rc = PKM_FAIL(ctx, PKM_ERR_ACCURACY,
                          "mode %d (omega^2 = %.6g): backward error %.3e exceeds %.1e (relative "
                          "residual %.3e)",
                          j, out->omega2[j], out->backward_error[j], max_be, out->residual[j]);
            goto done;
        }
        if (opts->max_residual > 0.0 && !(out->residual[j] <= opts->max_residual)) {
            rc = PKM_FAIL(ctx, PKM_ERR_ACCURACY,
                          "mode %d (omega^2 = %.6g): relative residual %.3e exceeds %.1e", j,
                          out->omega2[j], out->residual[j], opts->max_residual);
            goto done;
        }
    }
    if (!(orth <= PKM_MODAL_MAX_ORTH))
        rc = PKM_FAIL(ctx, PKM_ERR_ACCURACY,
                      "modes %d and %d: |X^T M X - I| = %.3e exceeds %.1e (not M-orthonormal)",
                      orth_i, orth_j, orth, PKM_MODAL_MAX_ORTH);
done:
    free(own);
    return rc;
}

pkm_status pkm_modal_create(const pkm_pencil *pattern, pkm_modal **out, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_status rc = PKM_OK;
    if (pattern == NULL || pattern->n < 2)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "modal solver needs a pencil of order >= 2");
    const int64_t n = pattern->n, nnz = pattern->nnz;
    int ni = 0;
    /* ARPACK indexes workd (3 n) with a_int. */
    rc = pkm_solvers_to_int(3 * n, "3 x pencil order", &ni, ctx);
    if (rc != PKM_OK) return rc;
    if (pattern->colptr[0] != 0 || pattern->colptr[n] != nnz)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "pencil column pointers do not span %lld entries",
                        (long long)nnz);
    for (int64_t j = 0; j < n; j++) {
        for (int64_t q = pattern->colptr[j]; q < pattern->colptr[j + 1]; q++) {
            int64_t i = pattern->rowind[q];
            if (i < 0 || i > j || (q > pattern->colptr[j] && i <= pattern->rowind[q - 1]))
                return PKM_FAIL(ctx, PKM_ERR_INVALID,
                                "pencil column %lld is not upper-triangular with sorted rows",
                                (long long)j);
        }
    }

    pkm_modal *s = calloc(1, sizeof(*s));
    if (s == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the modal solver");
    s->n = n;
    s->nnz = nnz;
    if (!cholmod_l_start(&s->c)) {
        rc = PKM_FAIL(ctx, PKM_ERR_SOLVER, "cholmod_l_start failed (status %d)", s->c.status);
        goto fail;
    }
    s->started = 1;
    /* The library never prints; failures are read from return values and c.status instead of
     * the error_handler (which has no user pointer). final_ll makes a simplicial factorisation
     * LL^T, so an indefinite K - sigma M is reported as CHOLMOD_NOT_POSDEF rather than silently
     * factorised as LDL^T (CHOLMOD user guide, cholmod_factorize). */
    s->c.print = 0;
    s->c.final_ll = 1;
    s->A =
        cholmod_l_allocate_sparse((size_t)n, (size_t)n, (size_t)nnz, 1, 1, 1, CHOLMOD_REAL, &s->c);
    if (s->A == NULL) goto cholmod_fail;
    SuiteSparse_long *ap = s->A->p, *ai = s->A->i;
    for (int64_t j = 0; j <= n; j++)
        ap[j] = (SuiteSparse_long)pattern->colptr[j];
    for (int64_t q = 0; q < nnz; q++)
        ai[q] = (SuiteSparse_long)pattern->rowind[q];
    s->L = cholmod_l_analyze(s->A, &s->c);
    if (s->L == NULL || s->c.status != CHOLMOD_OK) goto cholmod_fail;
    s->B = cholmod_l_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &s->c);
    if (s->B == NULL) goto cholmod_fail;
    s->resid = calloc((size_t)n, sizeof(double));
    s->workd = calloc(3 * (size_t)n, sizeof(double));
    s->tmp = calloc((size_t)n, sizeof(double));
    s->work2 = calloc(2 * (size_t)n, sizeof(double));
    s->dinv = calloc((size_t)n, sizeof(double));
    if (s->resid == NULL || s->workd == NULL || s->tmp == NULL || s->work2 == NULL ||
        s->dinv == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate Lanczos vectors of order %lld",
                      (long long)n);
        goto fail;
    }
    *out = s;
    return PKM_OK;
cholmod_fail:
    rc = PKM_FAIL(ctx, s->c.status == CHOLMOD_OUT_OF_MEMORY ? PKM_ERR_NOMEM : PKM_ERR_SOLVER,
                  "CHOLMOD symbolic analysis of order %lld, %lld entries failed (status %d)",
                  (long long)n, (long long)nnz, s->c.status);
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
    if (s->started) {
        cholmod_l_free_sparse(&s->A, &s->c);
        cholmod_l_free_factor(&s->L, &s->c);
        cholmod_l_free_dense(&s->B, &s->c);
        cholmod_l_free_dense(&s->X, &s->c);
        cholmod_l_free_dense(&s->Y, &s->c);
        cholmod_l_free_dense(&s->E, &s->c);
        cholmod_l_finish(&s->c);
    }
    free(s->resid);
    free(s->workd);
    free(s->tmp);
    free(s->work2);
    free(s->dinv);
    free_lanczos(s);
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

/* Factorise K - sigma M. *minor is -1 if it is positive definite, else the column where
 * Cholesky broke down (and nothing is recorded in ctx: the caller decides). */
static pkm_status factor_shift(pkm_modal *s, const pkm_pencil *p, double sigma, int64_t *minor,
                               pkm_ctx *ctx)
{
    double *ax = s->A->x;
    for (int64_t q = 0; q < s->nnz; q++)
        ax[q] = p->k[q] - sigma * p->m[q];
    int ok = cholmod_l_factorize(s->A, s->L, &s->c);
    *minor = -1;
    if (s->c.status == CHOLMOD_NOT_POSDEF) {
        *minor = (int64_t)s->L->minor;
        return PKM_OK;
    }
    if (!ok || s->c.status != CHOLMOD_OK)
        return PKM_FAIL(ctx, s->c.status == CHOLMOD_OUT_OF_MEMORY ? PKM_ERR_NOMEM : PKM_ERR_SOLVER,
                        "cholmod_l_factorize of K - sigma M (sigma = %g) failed (status %d)", sigma,
                        s->c.status);
    const cholmod_factor *L = s->L;
    if (!L->is_super && L->is_ll) {
        const SuiteSparse_long *lp = L->p;
        const double *lx = L->x;
        for (int64_t j = 0; j < s->n; j++)
            s->dinv[j] = 1.0 / lx[lp[j]];
    }
    return PKM_OK;
}

/* y = (K - sigma M)^-1 x with the current factor. A simplicial LL' factor (CHOLMOD's choice
 * for small or very sparse pencils, e.g. every NaVARo map pose) is applied here directly:
 * A(p, p) = L L^T, so x = P^T L^-T L^-1 P b with (P b)_k = b_Perm[k], each column of L holding
 * its diagonal first, then Lnz[j] - 1 entries below it (CHOLMOD user guide, cholmod_factor).
 * This spares cholmod_l_solve2's per-call checks and copies, which cost more than the
 * substitutions themselves at n ~ 100, and multiplies by the reciprocal diagonal (dinv, set
 * once per factorisation) instead of dividing twice per column and solve. Supernodal factors
 * go through cholmod_l_solve2. */
static pkm_status shifted_solve(pkm_modal *s, const double *x, double *y, pkm_ctx *ctx)
{
    const cholmod_factor *L = s->L;
    if (!L->is_super && L->is_ll) {
        const int64_t n = s->n;
        const SuiteSparse_long *lp = L->p, *li = L->i, *lnz = L->nz, *perm = L->Perm;
        const double *lx = L->x, *dinv = s->dinv;
        double *w = s->B->x;
        for (int64_t k = 0; k < n; k++)
            w[k] = x[perm != NULL ? perm[k] : k];
        for (int64_t j = 0; j < n; j++) {
            const int64_t q0 = lp[j], q1 = lp[j] + lnz[j];
            const double wj = w[j] * dinv[j];
            w[j] = wj;
            for (int64_t q = q0 + 1; q < q1; q++)
                w[li[q]] -= lx[q] * wj;
        }
        for (int64_t j = n - 1; j >= 0; j--) {
            const int64_t q0 = lp[j], q1 = lp[j] + lnz[j];
            double t = w[j];
            for (int64_t q = q0 + 1; q < q1; q++)
                t -= lx[q] * w[li[q]];
            w[j] = t * dinv[j];
        }
        for (int64_t k = 0; k < n; k++)
            y[perm != NULL ? perm[k] : k] = w[k];
        return PKM_OK;
    }
    memcpy(s->B->x, x, sizeof(double) * (size_t)s->n);
    if (!cholmod_l_solve2(CHOLMOD_A, s->L, s->B, NULL, &s->X, NULL, &s->Y, &s->E, &s->c) ||
        s->X == NULL)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "cholmod_l_solve2 failed (status %d)", s->c.status);
    memcpy(y, s->X->x, sizeof(double) * (size_t)s->n);
    return PKM_OK;
}

/* ARPACK's ipntr entries are 1-based Fortran offsets into workd. */
static double *arpack_vec(double *workd, a_int ipntr_entry)
{
    return workd + (ipntr_entry - 1);
}

/* Factorise K - sigma M with the requested or automatic shift; sets *sigma to the one used. */
static pkm_status choose_shift(pkm_modal *s, const pkm_pencil *p, double *sigma, pkm_ctx *ctx)
{
    int64_t minor = -1;
    pkm_status rc;
    if (!isnan(*sigma)) {
        rc = factor_shift(s, p, *sigma, &minor, ctx);
        if (rc != PKM_OK || minor < 0) return rc;
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "K - sigma M is not positive definite for sigma = %g (column %lld): "
                        "sigma must lie below the lowest eigenvalue",
                        *sigma, (long long)minor);
    }
    *sigma = 0.0;
    rc = factor_shift(s, p, *sigma, &minor, ctx);
    if (rc != PKM_OK || minor < 0) return rc;
    /* K is singular or indefinite (rigid-body or mechanism modes): shift slightly below zero, on
     * the scale of the pencil's diagonal, so that K - sigma M is positive definite while the
     * elastic modes stay well separated from sigma. */
    const int64_t k_minor = minor;
    const diag_scales ds = diag_scales_of(p);
    const double s0 = zero_scale(&ds);
    if (!(s0 > 0.0))
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "K is not positive definite (column %lld) and M has no positive "
                        "diagonal to shift with",
                        (long long)k_minor);
    *sigma = -s0;
    rc = factor_shift(s, p, *sigma, &minor, ctx);
    if (rc != PKM_OK || minor < 0) return rc;
    return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                    "K is not positive definite (column %lld) and neither is K - sigma M for "
                    "sigma = %g (column %lld): K is indefinite or M is singular",
                    (long long)k_minor, *sigma, (long long)minor);
}

pkm_status pkm_modal_solve(pkm_modal *solver, const pkm_pencil *p, const pkm_modal_opts *opts,
                           pkm_modes *out, pkm_ctx *ctx)
{
    pkm_modal *s = solver;
    if (s == NULL) return PKM_FAIL(ctx, PKM_ERR_INVALID, "modal solve: NULL solver");
    pkm_status rc = pkm_modal_check_args(p, opts, out, ctx);
    if (rc != PKM_OK) return rc;
    out->zero_modes = 0;
    if (p->n != s->n || p->nnz != s->nnz)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "pencil of order %lld with %lld entries, solver analysed order %lld "
                        "with %lld",
                        (long long)p->n, (long long)p->nnz, (long long)s->n, (long long)s->nnz);
    const SuiteSparse_long *ap = s->A->p, *ai = s->A->i;
    for (int64_t j = 0; j <= s->n; j++)
        if (p->colptr[j] != ap[j])
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "pencil pattern differs at column %lld",
                            (long long)j);
    for (int64_t q = 0; q < s->nnz; q++)
        if (p->rowind[q] != ai[q])
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "pencil pattern differs at entry %lld",
                            (long long)q);

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
        /* ncv >= 2 nev is ARPACK's recommendation (Users' Guide, dsaupd remark 4). 2 nev + 3
         * (nev_int + nev + 1, at least nev + 2 + 1 for the internal margin, and 12 so that small
         * requests have room for clusters) minimises the work on the NaVARo map: every Lanczos
         * step costs O(n ncv) reorthogonalisation and every restart O(n ncv^2), and at n ~ 100
         * these, not the solves, dominate. With the default tol, 8 modes take 25.1 operator
         * applications and 2.0 restarts at ncv = 19 against 26.8 and 3.0 at 18, 26.0 and 2.0 at
         * 20; smaller bases restart more (12 restarts at 13 with tol 1e-12) (docs/performance.md).
         */
        ncv = 2 * nev + 3;
        if (ncv < nev_int + 1) ncv = nev_int + 1;
        if (ncv < 12) ncv = 12;
        if (ncv > n) ncv = n;
    }
    rc = ensure_lanczos(s, ncv, nev_int, ctx);
    if (rc != PKM_OK) return rc;

    double sigma = opts->sigma;
    rc = choose_shift(s, p, &sigma, ctx);
    if (rc != PKM_OK) return rc;

    /* Deterministic pseudo-random start (Knuth's MMIX LCG): a constant vector can be
     * M-orthogonal to whole families of modes of a symmetric structure. */
    uint64_t state = 0x9E3779B97F4A7C15u;
    for (a_int i = 0; i < n; i++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        s->resid[i] = (double)(state >> 11) * 0x1p-53 * 2.0 - 1.0;
    }
    /* Mode 3, shift-invert, B = M: the Ritz values of OP = (K - sigma M)^-1 M largest in
     * magnitude are the eigenvalues nearest sigma (Lehoucq et al., ARPACK Users' Guide, sec.
     * 3.2 and dsaupd). Since K - sigma M is positive definite, they are the lowest. */
    const double tol = opts->tol > 0.0 ? opts->tol : PKM_MODAL_TOL;
    a_int ido = 0, info = 1, iparam[11] = {0}, ipntr[11] = {0};
    const a_int lworkl = ncv * (ncv + 8);
    iparam[0] = 1; /* exact shifts */
    iparam[2] = opts->maxiter > 0 ? opts->maxiter : PKM_MODAL_MAXITER;
    iparam[3] = 1;
    iparam[6] = 3;
    for (;;) {
        dsaupd_c(&ido, "G", n, "LM", nev_int, tol, s->resid, ncv, s->v, n, iparam, ipntr, s->workd,
                 s->workl, lworkl, &info);
        if (info < 0 || ido == 99) break;
        double *x = arpack_vec(s->workd, ipntr[0]), *y = arpack_vec(s->workd, ipntr[1]);
        switch (ido) {
        case -1: /* y = (K - sigma M)^-1 M x */
            pkm_pencil_matvec(p, 'M', x, s->tmp);
            rc = shifted_solve(s, s->tmp, y, ctx);
            break;
        case 1: /* M x is already in workd(ipntr(3)) (dsaupd, mode 3) */
            rc = shifted_solve(s, arpack_vec(s->workd, ipntr[2]), y, ctx);
            break;
        case 2:
            pkm_pencil_matvec(p, 'M', x, y);
            break;
        default:
            return PKM_FAIL(ctx, PKM_ERR_SOLVER, "dsaupd requested unexpected ido = %d", (int)ido);
        }
        if (rc != PKM_OK) return rc;
    }
    if (info < 0)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "dsaupd failed with info = %d (n %d, nev %d, ncv %d)",
                        (int)info, (int)n, (int)nev_int, (int)ncv);
    if (info != 0 || iparam[4] < nev_int)
        return PKM_FAIL(ctx, PKM_ERR_NOCONV,
                        "dsaupd info = %d: %d of %d Ritz values converged after %d restarts, "
                        "%d solves (ncv %d)",
                        (int)info, (int)iparam[4], (int)nev_int, (int)iparam[2], (int)iparam[8],
                        (int)ncv);
    dseupd_c(1, "A", s->select, s->d, s->z, n, sigma, "G", n, "LM", nev_int, tol, s->resid, ncv,
             s->v, n, iparam, ipntr, s->workd, s->workl, lworkl, &info);
    if (info != 0)
        return PKM_FAIL(ctx, PKM_ERR_SOLVER, "dseupd failed with info = %d (%d converged)",
                        (int)info, (int)iparam[4]);
    /* dseupd returns the values ascending; an insertion sort of the indices keeps that order
     * and guarantees it otherwise. */
    for (int j = 0; j < nev_int; j++) {
        int i = j;
        for (; i > 0 && s->d[s->order[i - 1]] > s->d[j]; i--)
            s->order[i] = s->order[i - 1];
        s->order[i] = j;
    }
    rc = pkm_modes_finish(p, opts, s->d, s->z, s->order, s->work2, out, ctx);
    out->sigma = sigma;
    out->iterations = (int)iparam[2];
    out->op_count = (int)iparam[8];
    return rc;
}
