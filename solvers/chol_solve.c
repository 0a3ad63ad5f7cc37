/* solvers/chol_solve.c: the substitutions of chol.c's factors, one vector or a block of them, and
 * the product by a symmetric matrix on the factor's pattern, panel by panel (chol_impl.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "solvers/chol_impl.h"
#include "core/core_impl.h"

#include <stdint.h>
#include <string.h>

/* Panel pn's part of L y = b and of D z = y: its unknowns y (the triangle inside it), z = D^-1 y
 * stored, y taken from the rows below it. */
PKM_KERNEL void panel_forward(const pkm_chol_panel *pn, const int w, const int32_t *restrict rows,
                              const double *restrict a, const double *restrict dinv,
                              double *restrict x)
{
    double y[PKM_CHOL_PANEL];
#pragma GCC unroll 3
    for (int i = 0; i < w; i++) {
        double yi = x[pn->col[i]];
#pragma GCC unroll 3
        for (int k = 0; k < i; k++)
            yi -= a[i * (i - 1) / 2 + k] * y[k];
        y[i] = yi;
        x[pn->col[i]] = yi * dinv[pn->col[i]];
    }
    a += w * (w - 1) / 2;
    for (int32_t t = 0; t < pn->nr; t++, a += w) {
        double sum = a[0] * y[0];
#pragma GCC unroll 3
        for (int k = 1; k < w; k++)
            sum += a[k] * y[k];
        x[rows[t]] -= sum;
    }
}

/* Panel pn's part of L^T x = z: the rows below it taken, then the triangle inside it. */
PKM_KERNEL void panel_backward(const pkm_chol_panel *pn, const int w, const int32_t *restrict rows,
                               const double *restrict a, double *restrict x)
{
    const double *restrict tri = a;
    double z[PKM_CHOL_PANEL];
    a += w * (w - 1) / 2;
#pragma GCC unroll 3
    for (int k = 0; k < w; k++)
        z[k] = x[pn->col[k]];
    for (int32_t t = 0; t < pn->nr; t++, a += w) {
        const double xr = x[rows[t]];
#pragma GCC unroll 3
        for (int k = 0; k < w; k++)
            z[k] -= a[k] * xr;
    }
#pragma GCC unroll 3
    for (int i = w - 1; i >= 0; i--) {
#pragma GCC unroll 3
        for (int m = i + 1; m < w; m++)
            z[i] -= tri[m * (m - 1) / 2 + i] * z[m];
        x[pn->col[i]] = z[i];
    }
}

/* The substitutions L y = b, D z = y, L^T x = z, panel by panel in the orders of panels(). The
 * one-vector form is kept apart from the block one: through pkm_chol_solve_block with nc = 1 a
 * Newmark step of NaVARo at 4 elements per link took 14.5 instead of 10.9 us. */
void pkm_chol_solve(const pkm_chol *c, double *w)
{
    const int32_t *restrict rows = c->prow;
    const double *restrict vx = c->vx, *restrict dinv = c->dinv;
    double *restrict x = w;
    for (int64_t p = 0; p < c->np; p++) {
        const pkm_chol_panel *pn = &c->fp[p];
        PKM_CHOL_WIDTHS(panel_forward, pn, rows + pn->r0, vx + pn->v0, dinv, x);
    }
    for (int64_t p = 0; p < c->np; p++) {
        const pkm_chol_panel *pn = &c->bp[p];
        PKM_CHOL_WIDTHS(panel_backward, pn, rows + pn->r0, vx + pn->v0, x);
    }
}

/* y += B x for a symmetric B on the pattern of L (pkm_chol_symv_add), panel pn's part: its
 * triangle and diagonal, then the rows below it, each giving to y_r and taking from x_r. */
PKM_KERNEL void panel_symv(const pkm_chol_panel *pn, const int w, const int32_t *restrict rows,
                           const double *restrict a, const double *restrict diag,
                           const double *restrict x, double *restrict y)
{
    double xs[PKM_CHOL_PANEL], ys[PKM_CHOL_PANEL];
#pragma GCC unroll 3
    for (int k = 0; k < w; k++) {
        xs[k] = x[pn->col[k]];
        ys[k] = diag[pn->col[k]] * xs[k];
    }
#pragma GCC unroll 3
    for (int i = 1; i < w; i++) {
#pragma GCC unroll 3
        for (int k = 0; k < i; k++) {
            const double l = a[i * (i - 1) / 2 + k];
            ys[i] += l * xs[k];
            ys[k] += l * xs[i];
        }
    }
    a += w * (w - 1) / 2;
    for (int32_t t = 0; t < pn->nr; t++, a += w) {
        const double xr = x[rows[t]];
        double sum = a[0] * xs[0];
        ys[0] += a[0] * xr;
#pragma GCC unroll 3
        for (int k = 1; k < w; k++) {
            sum += a[k] * xs[k];
            ys[k] += a[k] * xr;
        }
        y[rows[t]] += sum;
    }
#pragma GCC unroll 3
    for (int k = 0; k < w; k++)
        y[pn->col[k]] += ys[k];
}

/* Panels read x and y once for their 3 columns (NaVARo at 16 elements per link: 7.2 us for the
 * pencil's column by column product, 4.8 us by panels). */
void pkm_chol_symv_add(const pkm_chol *c, const double *vals, const double *x, double *y)
{
    const int32_t *restrict rows = c->prow;
    const double *diag = vals + c->below;
    for (int64_t p = 0; p < c->np; p++) {
        const pkm_chol_panel *pn = &c->fp[p];
        PKM_CHOL_WIDTHS(panel_symv, pn, rows + pn->r0, vals + pn->v0, diag, x, y);
    }
}

/* Panel pn's part of L Y = B and D Z = Y for nc interleaved columns: the triangle inside it, the
 * rows below it, then D^-1 on its own rows. */
PKM_KERNEL void block_forward(const pkm_chol_panel *pn, const int w, const int32_t *restrict rows,
                              const double *restrict a, const double *restrict dinv, size_t nc,
                              double *restrict y)
{
    double *c[PKM_CHOL_PANEL];
#pragma GCC unroll 3
    for (int i = 0; i < w; i++)
        c[i] = y + (size_t)pn->col[i] * nc;
#pragma GCC unroll 3
    for (int i = 1; i < w; i++)
#pragma GCC unroll 3
        for (int k = 0; k < i; k++) {
            const double l = a[i * (i - 1) / 2 + k];
            double *restrict ci = c[i];
            const double *restrict ck = c[k];
            for (size_t j = 0; j < nc; j++)
                ci[j] -= l * ck[j];
        }
    a += w * (w - 1) / 2;
    for (int32_t t = 0; t < pn->nr; t++, a += w)
#pragma GCC unroll 3
        for (int k = 0; k < w; k++) {
            double *restrict r = y + (size_t)rows[t] * nc;
            const double *restrict ck = c[k];
            const double l = a[k];
            for (size_t j = 0; j < nc; j++)
                r[j] -= l * ck[j];
        }
#pragma GCC unroll 3
    for (int i = 0; i < w; i++) {
        double *restrict ci = c[i];
        const double d = dinv[pn->col[i]];
        for (size_t j = 0; j < nc; j++)
            ci[j] *= d;
    }
}

/* Panel pn's part of L^T X = Z for nc interleaved columns. */
PKM_KERNEL void block_backward(const pkm_chol_panel *pn, const int w, const int32_t *restrict rows,
                               const double *restrict a, size_t nc, double *restrict x)
{
    double *c[PKM_CHOL_PANEL];
#pragma GCC unroll 3
    for (int i = 0; i < w; i++)
        c[i] = x + (size_t)pn->col[i] * nc;
    const double *restrict tri = a;
    a += w * (w - 1) / 2;
    for (int32_t t = 0; t < pn->nr; t++, a += w)
#pragma GCC unroll 3
        for (int k = 0; k < w; k++) {
            const double *restrict r = x + (size_t)rows[t] * nc;
            double *restrict ck = c[k];
            const double l = a[k];
            for (size_t j = 0; j < nc; j++)
                ck[j] -= l * r[j];
        }
#pragma GCC unroll 3
    for (int i = w - 1; i >= 0; i--)
#pragma GCC unroll 3
        for (int m = i + 1; m < w; m++) {
            const double l = tri[m * (m - 1) / 2 + i];
            double *restrict ci = c[i];
            const double *restrict cm = c[m];
            for (size_t j = 0; j < nc; j++)
                ci[j] -= l * cm[j];
        }
}

/* The block form takes the panels in column order: a panel's nc values of a row are read once
 * for all its entries there, where the level order pays for them again at every panel, and with
 * nc = 12 (a map's block) the independence of a level's panels buys nothing that this does not
 * (maps 1-3 % faster in column order, A/B). Taking a panel's entries of a row together for all
 * columns gained nothing either: the loops over the columns are the vectorised work. */
PKM_KERNEL void solve_block(const pkm_chol *c, size_t nc, double *w)
{
    const int32_t *restrict rows = c->prow;
    const double *restrict vx = c->vx;
    for (int64_t p = 0; p < c->np; p++) {
        const pkm_chol_panel *pn = &c->panel[p];
        PKM_CHOL_WIDTHS(block_forward, pn, rows + pn->r0, vx + pn->v0, c->dinv, nc, w);
    }
    for (int64_t p = c->np - 1; p >= 0; p--) {
        const pkm_chol_panel *pn = &c->panel[p];
        PKM_CHOL_WIDTHS(block_backward, pn, rows + pn->r0, vx + pn->v0, nc, w);
    }
}

/* The block sizes of the maps' solver (8 or 12 wanted and guard vectors) inlined with their
 * count as a constant: the loops over the columns become a few vector operations each. */
PKM_TARGET_CLONES void pkm_chol_solve_block(const pkm_chol *c, size_t nc, double *w)
{
    if (nc == 12)
        solve_block(c, 12, w);
    else if (nc == 8)
        solve_block(c, 8, w);
    else
        solve_block(c, nc, w);
}
