/* solvers/modes.c: the result of a modal solve (pkm_modes) and the checks every solver applies to
 * it: backward errors, M-orthonormality, the rounding-error estimate and zero-energy modes.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "solvers/solvers_impl.h"
#include "core/core_impl.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Automatic shift and rigid-mode scale, relative to max diag K / max diag M. */
#define PKM_MODAL_ZERO_SCALE 1e-6
/* Rounding floor of an eigenvalue (pkm_modal_rounding_floor): C eps (|x|^T |K| |x| + |lambda|
 * |x|^T |M| |x|) for the M-normalised x, the first-order change of lambda = x^T K x / x^T M x
 * under entrywise relative perturbations of K and M of size C eps, the size of the rounding of
 * the assembled entries. It grows like (L/h)^4 for beams (|K| does not cancel where K x does),
 * which is how fine meshes lose their digits while the backward error stays tiny. C = 1 by
 * measurement, NaVARo nodal, 10 modes, elements_per_link N: against the N = 64 values, the
 * estimate exceeds the actual error of every frequency at N = 128 ... 2048 by a factor 4.7 to
 * 1500 (median 48); at 4 <= N <= 64, where the error is below the discretisation change, it
 * exceeds the split of the exactly degenerate pairs (a direct measure of rounding) by 11x to 72x,
 * and at N = 1 it equals half that split (docs/performance.md). */
#define PKM_MODAL_FLOOR_C 1.0
/* A mode is zero-energy when its strain energy x^T K x is within PKM_MODAL_ZERO_FLOORS of its
 * rounding floor: zero to the accuracy the pencil holds, however fine the mesh (the former
 * threshold, 1e-13 max K_ii/M_ii, grew like h^-4 and called pss5upu's physical 145 Hz mode at
 * 1024 elements per link a mechanism mode; it is 735 floors above zero). The mechanism modes of
 * the pss5upu spherical variant at its centre sit at 0.13 to 0.43 floors. */
#define PKM_MODAL_ZERO_FLOORS 1.0
/* Default largest accuracy estimate accepted (pkm_modal_opts.max_accuracy): a frequency that
 * the rounding of K and M may move by more than 0.1 % is refused. The estimate being an upper
 * bound (above), every accepted frequency holds three significant digits, the precision of the
 * published comparisons (NaVARo against Cast3M, Table 3: 0.01 Hz at 40-140 Hz). NaVARo nodal is
 * accepted up to 384 elements per link (estimate 8.4e-4 for f1), refused from 512 (3.6e-3);
 * pss5upu at 1024 elements per link is accepted (6.8e-4). */
#define PKM_MODAL_MAX_ACCURACY 1e-3
#define PKM_MODAL_MAX_ORTH     1e-6
/* Default acceptance: normwise backward error. A backward-stable dense solver reaches ~n eps;
 * shift-invert Lanczos with Ritz tolerance tol guarantees only ~tol (the residual of OP's Ritz
 * pair mapped back through K - sigma M), but its last restart overshoots tol by several digits:
 * with the default tol = 1e-10 the largest backward error over the NaVARo map is 4e-15 and
 * over the size study up to 110,574 coordinates 1.5e-15 (docs/performance.md). 1e-10 still
 * refuses a mode that is not an eigenpair of any pencil within 1e-10 of (K, M). */
#define PKM_MODAL_MAX_BACKWARD 1e-10

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
    o.max_accuracy = 0.0;
    o.block_guards = 0;
    o.block_steps = 0;
    o.block_tol = 0.0;
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
    if ((uint64_t)n * (uint64_t)nev <= SIZE_MAX / sizeof(double) / 3)
        m->check_work = malloc(3 * sizeof(double) * (size_t)n * (size_t)nev);
    if (m->omega2 == NULL || m->freq_hz == NULL || m->residual == NULL ||
        m->backward_error == NULL || m->accuracy == NULL || m->vectors == NULL ||
        m->check_work == NULL)
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
    free((*modes)->check_work);
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

/* Every entry of K and M finite, and the largest of each, and their ratio, within
 * [1/PKM_MODAL_MAX_SCALE, PKM_MODAL_MAX_SCALE]: ARPACK's Lanczos recurrence and the tridiagonal
 * eigensolver behind it (dsteqr, which rescales through dlascl) square quantities of the size of
 * OP = (K - sigma M)^-1 M's eigenvalues and of M-norms; with a density or an area of 1e300 they
 * overflowed and reached LAPACK's error handler (issue 8). Entries of SI models lie within
 * 1e-20 .. 1e20 by far (NaVARo at E = 1e15: K up to 4e19). */
#define PKM_MODAL_MAX_SCALE 1e100

/* The largest of a and b where b is not NaN (fmax's value there), inline: the scans of every
 * pose below made fmax a library call per entry. */
static inline double max_of(double a, double b)
{
    return b > a ? b : a;
}

static pkm_status check_values(const pkm_pencil *p, pkm_ctx *ctx)
{
    /* One pass without branches (it runs at every pose of a map): a NaN or an infinity fails
     * |x| <= DBL_MAX. The entry is looked for only when the pass found one. */
    double kmax = 0.0, mmax = 0.0;
    int bad = 0;
    for (int64_t q = 0; q < p->nnz; q++) {
        const double ak = fabs(p->k[q]), am = fabs(p->m[q]);
        bad |= !(ak <= DBL_MAX) | !(am <= DBL_MAX);
        kmax = max_of(kmax, ak);
        mmax = max_of(mmax, am);
    }
    for (int64_t j = 0; bad && j < p->n; j++)
        for (int64_t q = p->colptr[j]; q < p->colptr[j + 1]; q++)
            if (!isfinite(p->k[q]) || !isfinite(p->m[q]))
                return PKM_FAIL(ctx, PKM_ERR_INVALID,
                                "the pencil's %s(%lld, %lld) = %g is not finite: a model "
                                "parameter is out of range",
                                isfinite(p->k[q]) ? "M" : "K", (long long)p->rowind[q],
                                (long long)j, isfinite(p->k[q]) ? p->m[q] : p->k[q]);
    const double lo = 1.0 / PKM_MODAL_MAX_SCALE, hi = PKM_MODAL_MAX_SCALE;
    if (!(kmax >= lo && kmax <= hi && mmax >= lo && mmax <= hi && kmax / mmax >= lo &&
          kmax / mmax <= hi))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "the pencil's largest entries, |K| = %g and |M| = %g, or their ratio lie "
                        "outside [%g, %g], where the eigensolvers could overflow: a model "
                        "parameter is out of range",
                        kmax, mmax, lo, hi);
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
        !(opts->max_backward_error >= 0.0) || !(opts->max_accuracy >= 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "ncv = %d, maxiter = %d, tol = %g, max_residual = %g, "
                        "max_backward_error = %g, max_accuracy = %g must be >= 0",
                        opts->ncv, opts->maxiter, opts->tol, opts->max_residual,
                        opts->max_backward_error, opts->max_accuracy);
    if (opts->block_guards < 0 || opts->block_steps < 0 || !(opts->block_tol >= 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "block_guards = %d, block_steps = %d, block_tol = %g must be >= 0",
                        opts->block_guards, opts->block_steps, opts->block_tol);
    return check_values(p, ctx);
}

pkm_diag_scales pkm_pencil_diag_scales(const pkm_pencil *p)
{
    pkm_diag_scales d = {0.0, 0.0, 0.0};
    for (int64_t j = 0; j < p->n; j++) {
        int64_t q = p->colptr[j + 1] - 1; /* rows sorted, row <= column: diagonal is last */
        if (q >= p->colptr[j] && p->rowind[q] == j) {
            d.dk = max_of(d.dk, p->k[q]);
            d.dm = max_of(d.dm, p->m[q]);
            if (p->m[q] > 0.0) d.ratio = max_of(d.ratio, p->k[q] / p->m[q]);
        }
    }
    return d;
}

double pkm_modal_zero_scale(const pkm_diag_scales *d)
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
double pkm_modal_column_norm(const pkm_pencil *p, const double *a, double *sq)
{
    memset(sq, 0, sizeof(double) * (size_t)p->n);
    /* Column j's own sum in a register, the diagonal (last, when stored) apart: no branch per
     * entry, the same additions in the same order. */
    for (int64_t j = 0; j < p->n; j++) {
        int64_t end = p->colptr[j + 1];
        const int diag = end > p->colptr[j] && p->rowind[end - 1] == j;
        end -= diag;
        double sj = sq[j];
        for (int64_t q = p->colptr[j]; q < end; q++) {
            sj += a[q] * a[q];
            sq[p->rowind[q]] += a[q] * a[q];
        }
        sq[j] = diag ? sj + a[end] * a[end] : sj;
    }
    double m = 0.0;
    for (int64_t j = 0; j < p->n; j++)
        m = max_of(m, sq[j]);
    return sqrt(m);
}

/* The zero-energy mode j of out is refused: its value, the threshold and its three largest
 * coordinates go into the message, the mode itself stays in out. */
static pkm_status refuse_zero_mode(const pkm_modes *out, int j, double xkx, double threshold,
                                   pkm_ctx *ctx)
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
                    "mode %d is a zero-energy (mechanism) mode: its strain energy x^T K x = %.3g "
                    "(omega^2 = %.3g rad^2/s^2) is within the rounding floor %.3g of K, so not "
                    "distinguishable from zero (or the mesh is too fine for double precision); "
                    "%d such mode(s); its largest coordinates (index, value): %s",
                    j + 1, xkx, out->omega2[j], threshold, out->zero_modes, coords);
}

/* Columns c0 .. c0 + w - 1 of the floors' sums (x, of leading dimension ld, and xk, xm as in
 * pkm_modal_rounding_floors); w is a constant where it is inlined (1 to 4): its loops are one
 * vector operation each, the column's sums in registers. The diagonal is the column's last
 * entry (rows sorted, row <= column). */
PKM_KERNEL void floors_columns(size_t c0, size_t w, const pkm_pencil *p, const double *restrict x,
                               size_t ld, double *restrict xk, double *restrict xm)
{
    const int64_t *restrict cp = p->colptr, *restrict ri = p->rowind;
    for (int64_t j = 0; j < p->n; j++) {
        double ck[4] = {0.0, 0.0, 0.0, 0.0}, cm[4] = {0.0, 0.0, 0.0, 0.0};
        int64_t end = cp[j + 1];
        const int diag = end > cp[j] && ri[end - 1] == j;
        end -= diag;
        const double dk = diag ? fabs(p->k[end]) : 0.0, dm = diag ? fabs(p->m[end]) : 0.0;
        for (int64_t q = cp[j]; q < end; q++) {
            const double ak = fabs(p->k[q]), am = fabs(p->m[q]);
            const double *restrict xi = x + (size_t)ri[q] * ld + c0;
            for (size_t c = 0; c < w; c++) {
                ck[c] += ak * fabs(xi[c]);
                cm[c] += am * fabs(xi[c]);
            }
        }
        const double *restrict xj = x + (size_t)j * ld + c0;
        for (size_t c = 0; c < w; c++) {
            const double axj = fabs(xj[c]);
            xk[c0 + c] += axj * (2.0 * ck[c] + dk * axj);
            xm[c0 + c] += axj * (2.0 * cm[c] + dm * axj);
        }
    }
}

PKM_TARGET_CLONES void pkm_modal_rounding_floors(const pkm_pencil *p, const double *x, int ld,
                                                 int nm, const double *lam, double *floor,
                                                 double *work)
{
    /* Column by column: the strictly upper entries count twice (symmetry), the diagonal once;
     * each entry's |K| and |M| read once for four vectors at a time, whose sums keep one
     * vector's order. */
    double *restrict xk = work, *restrict xm = work + nm;
    for (int c = 0; c < nm; c++)
        xk[c] = xm[c] = 0.0;
    PKM_BY_FOURS((size_t)nm, floors_columns, p, x, (size_t)ld, xk, xm);
    for (int c = 0; c < nm; c++)
        floor[c] = PKM_MODAL_FLOOR_C * DBL_EPSILON * (xk[c] + fabs(lam[c]) * xm[c]);
}

double pkm_modal_rounding_floor(const pkm_pencil *p, const double *x, double lam)
{
    double floor, work[4];
    pkm_modal_rounding_floors(p, x, 1, 1, &lam, &floor, work);
    return floor;
}

/* What the zero-energy test needs of a mode: its rounding floor and its strain energy x^T K x
 * (the Rayleigh quotient of the M-normalised x, computed from the pencil, not the solver's
 * eigenvalue: dsygvx's value of a mechanism mode carries the normwise error of its Cholesky
 * reduction, ~10x the floor at the pss5upu spherical centre, while x^T K x stays below it). */
typedef struct mode_energy {
    double floor, xkx;
} mode_energy;

/* Residuals, backward errors, rounding floors (unless given: en[j].floor not NaN) and energies
 * (en[0..nev)) and accuracy estimates of the modes in out, and their M-orthonormality error
 * (orth_ij: the worst pair). kx, mx: n each. */
static void measure_modes(const pkm_pencil *p, pkm_modes *out, mode_energy *en,
                          const double *colnorm, double *kx, double *mx, int orth_ij[2])
{
    const int64_t n = p->n;
    const pkm_diag_scales ds = pkm_pencil_diag_scales(p);
    const double s = pkm_modal_zero_scale(&ds);
    const double norm_k = colnorm != NULL ? colnorm[0] : pkm_modal_column_norm(p, p->k, kx),
                 norm_m = colnorm != NULL ? colnorm[1] : pkm_modal_column_norm(p, p->m, kx);
    double orth = 0.0;
    orth_ij[0] = orth_ij[1] = 0;
    /* K X and M X a block at a time (every entry of K and M read once for all the modes, where
     * a product per mode read them 2 nev times), interleaved: entry i of mode j at i nev + j. */
    const size_t nev = (size_t)out->nev;
    double *xb = out->check_work, *kxb = xb + (size_t)n * nev, *mxb = kxb + (size_t)n * nev;
    for (size_t i = 0; i < (size_t)n; i++)
        for (size_t j = 0; j < nev; j++)
            xb[i * nev + j] = out->vectors[j * (size_t)n + i];
    pkm_pencil_matvec_block(p, 'K', out->nev, xb, kxb);
    pkm_pencil_matvec_block(p, 'M', out->nev, xb, mxb);
    for (int j = 0; j < out->nev; j++) {
        const double *x = out->vectors + (size_t)j * (size_t)n;
        for (size_t i = 0; i < (size_t)n; i++) {
            kx[i] = kxb[i * nev + (size_t)j];
            mx[i] = mxb[i * nev + (size_t)j];
        }
        const double lam = out->omega2[j];
        /* Relative residual against max(||K x||, max(|w^2|, s) ||M x||): for an elastic mode
         * both terms equal ||K x||; for a rigid mode ||K x|| is rounding noise, so the scale s
         * below which w^2 is zero to working accuracy stands in for |w^2|. */
        const double den = fmax(norm2(n, kx), fmax(fabs(lam), s) * norm2(n, mx));
        en[j].xkx = 0.0;
        for (int64_t i = 0; i < n; i++)
            en[j].xkx += x[i] * kx[i];
        for (int64_t i = 0; i < n; i++)
            kx[i] -= lam * mx[i];
        const double r = norm2(n, kx);
        out->residual[j] = den > 0.0 ? r / den : INFINITY;
        const double be_den = (norm_k + fabs(lam) * norm_m) * norm2(n, x);
        out->backward_error[j] = be_den > 0.0 ? r / be_den : INFINITY;
        /* The solver's own part: the distance between its eigenvalue and the pencil's Rayleigh
         * quotient of its vector, |x^T r| (~1e-13 relative for ARPACK at tol 1e-10; the error
         * of the Rayleigh quotient itself is second order in the residual). f = sqrt(lambda) /
         * (2 pi): a relative change e of lambda moves f by e / 2. */
        if (isnan(en[j].floor)) en[j].floor = pkm_modal_rounding_floor(p, x, lam);
        double xr = 0.0;
        for (int64_t i = 0; i < n; i++)
            xr += x[i] * kx[i];
        const double dlam = en[j].floor + fabs(xr);
        out->accuracy[j] = lam != 0.0 ? dlam / (2.0 * fabs(lam)) : INFINITY;
        for (int i0 = 0; i0 <= j; i0 += 4) {
            double g[4];
            const int m = j + 1 - i0 < 4 ? j + 1 - i0 : 4;
            pkm_dots4(n, mx, out->vectors + (size_t)i0 * (size_t)n, (size_t)n, m, g);
            for (int i = i0; i < i0 + m; i++) {
                const double e = fabs(g[i - i0] - (i == j ? 1.0 : 0.0));
                if (!(e <= orth)) {
                    orth = e;
                    orth_ij[0] = i;
                    orth_ij[1] = j;
                }
            }
        }
    }
    out->orth_error = orth;
}

double pkm_modal_max_backward(const pkm_modal_opts *opts)
{
    return opts->max_backward_error > 0.0 ? opts->max_backward_error : PKM_MODAL_MAX_BACKWARD;
}

/* The acceptance tests of the measured modes: zero-energy modes, backward error, residual,
 * accuracy estimate, M-orthonormality. */
static pkm_status check_modes(const pkm_modal_opts *opts, pkm_modes *out, const mode_energy *en,
                              const int orth_ij[2], pkm_ctx *ctx)
{
    const int nev = out->nev;
    const double max_be = pkm_modal_max_backward(opts);
    const double max_acc = opts->max_accuracy > 0.0 ? opts->max_accuracy : PKM_MODAL_MAX_ACCURACY;
    out->zero_modes = 0;
    while (out->zero_modes < nev &&
           fabs(en[out->zero_modes].xkx) <= PKM_MODAL_ZERO_FLOORS * en[out->zero_modes].floor)
        out->zero_modes++;
    if (out->zero_modes > 0 && !opts->allow_zero_modes)
        return refuse_zero_mode(out, 0, en[0].xkx, PKM_MODAL_ZERO_FLOORS * en[0].floor, ctx);
    for (int j = 0; j < nev; j++) {
        if (!(out->backward_error[j] <= max_be))
            return PKM_FAIL(ctx, PKM_ERR_ACCURACY,
                            "mode %d (omega^2 = %.6g): backward error %.3e exceeds %.1e (relative "
                            "residual %.3e)",
                            j + 1, out->omega2[j], out->backward_error[j], max_be,
                            out->residual[j]);
        if (opts->max_residual > 0.0 && !(out->residual[j] <= opts->max_residual))
            return PKM_FAIL(ctx, PKM_ERR_ACCURACY,
                            "mode %d (omega^2 = %.6g): relative residual %.3e exceeds %.1e", j + 1,
                            out->omega2[j], out->residual[j], opts->max_residual);
        if (j >= out->zero_modes && !(out->accuracy[j] <= max_acc))
            return PKM_FAIL(ctx, PKM_ERR_ACCURACY,
                            "mode %d (%.6g Hz): the rounding of K and M can move it by a relative "
                            "%.2e, above the accepted %.1e (mesh too fine for double precision, "
                            "see docs/performance.md)",
                            j + 1, out->freq_hz[j], out->accuracy[j], max_acc);
    }
    if (!(out->orth_error <= PKM_MODAL_MAX_ORTH))
        return PKM_FAIL(ctx, PKM_ERR_ACCURACY,
                        "modes %d and %d: |X^T M X - I| = %.3e exceeds %.1e (not M-orthonormal)",
                        orth_ij[0] + 1, orth_ij[1] + 1, out->orth_error, PKM_MODAL_MAX_ORTH);
    return PKM_OK;
}

pkm_status pkm_modes_finish(const pkm_pencil *p, const pkm_modal_opts *opts, const double *w2,
                            const double *floor, const double *colnorm, const double *vecs,
                            const int *order, double *work, pkm_modes *out, pkm_ctx *ctx)
{
    const int64_t n = p->n;
    const int nev = opts->nev;
    double *own = NULL;
    if (work == NULL) {
        own = malloc(sizeof(double) * 2 * (size_t)n);
        if (own == NULL)
            return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate residual work for order %lld",
                            (long long)n);
        work = own;
    }
    out->nev = nev;
    mode_energy *en = malloc(sizeof(*en) * (size_t)nev);
    pkm_status rc = PKM_OK;
    if (en == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate %d rounding floors", nev);
    } else {
        for (int j = 0; j < nev; j++) {
            int src = order != NULL ? order[j] : j;
            out->omega2[j] = w2[src];
            out->freq_hz[j] = sqrt(fmax(w2[src], 0.0)) / (2.0 * PKM_PI);
            memcpy(out->vectors + (size_t)j * (size_t)n, vecs + (size_t)src * (size_t)n,
                   sizeof(double) * (size_t)n);
            en[j].floor = floor != NULL ? floor[src] : NAN;
        }
        int orth_ij[2];
        measure_modes(p, out, en, colnorm, work, work + n, orth_ij);
        rc = check_modes(opts, out, en, orth_ij, ctx);
    }
    free(en);
    free(own);
    return rc;
}
