/* assembly/congruence.c: the element congruence E^T A E of the assembly (pkm_trip_add_congruence)
 * over the nonzeros of E and the live rows of A, and the cleaning of E's rounding residues.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* B = E_k^T A E_k (nk x nk, row-major, upper triangle) over the kept columns, AE (nrow x nk)
 * scratch. Zero entries of E are skipped, and so are the rows and columns of A that hold only
 * zeros (live[r] = 0: the floating frame's rows of an element stiffness, Germain et al. 2015 eq.
 * 27): their terms are exact zeros. The remaining terms are summed in the same ascending order as
 * a dense product, so the values are those of the dense congruence. */
static void congruence(const pkm_ecols *e, const double *A, const unsigned char *live, double *AE,
                       double *B)
{
    const int nrow = e->nrow, nk = e->nk;
    int lr[PKM_TRIP_MAX_ROWS], nl = 0;
    for (int i = 0; i < nrow; i++)
        if (live[i]) lr[nl++] = i;
    /* AE's column c four live rows at a time: four independent sums sharing E's entries, where
     * one row at a time waited on its own additions; each sum in the same order. */
    for (int c = 0; c < nk; c++) {
        const int *restrict r = e->rows + (size_t)c * (size_t)nrow;
        const double *restrict v = e->vals + (size_t)c * (size_t)nrow;
        const int cnt = e->cnt[c];
        int k = 0;
        for (; k + 4 <= nl; k += 4) {
            const double *a0 = A + lr[k] * nrow, *a1 = A + lr[k + 1] * nrow,
                         *a2 = A + lr[k + 2] * nrow, *a3 = A + lr[k + 3] * nrow;
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            for (int q = 0; q < cnt; q++) {
                s0 += a0[r[q]] * v[q];
                s1 += a1[r[q]] * v[q];
                s2 += a2[r[q]] * v[q];
                s3 += a3[r[q]] * v[q];
            }
            AE[lr[k] * nk + c] = s0;
            AE[lr[k + 1] * nk + c] = s1;
            AE[lr[k + 2] * nk + c] = s2;
            AE[lr[k + 3] * nk + c] = s3;
        }
        for (; k < nl; k++) {
            const double *a0 = A + lr[k] * nrow;
            double s0 = 0.0;
            for (int q = 0; q < cnt; q++)
                s0 += a0[r[q]] * v[q];
            AE[lr[k] * nk + c] = s0;
        }
    }
    /* Row a of B as a sum of rows of AE, each term added in the same order as the dot products
     * of a column at a time, so the same values; the loop over b is contiguous and vectorises. */
    for (int a = 0; a < nk; a++) {
        const int *r = e->rows + (size_t)a * (size_t)nrow;
        const double *v = e->vals + (size_t)a * (size_t)nrow;
        double *restrict ba = B + (size_t)a * (size_t)nk;
        for (int b = a; b < nk; b++)
            ba[b] = 0.0;
        for (int q = 0; q < e->cnt[a]; q++) {
            const double vq = v[q];
            const double *restrict ae = AE + (size_t)r[q] * (size_t)nk;
            for (int b = a; b < nk; b++)
                ba[b] += vq * ae[b];
        }
    }
}

/* The rows r of the nrow x nrow A with a nonzero in row or column r (live[r] = 1); their count. */
static int live_rows(int nrow, const double *A, unsigned char *live)
{
    int count = 0;
    for (int r = 0; r < nrow; r++) {
        /* A row of an element matrix is live at its diagonal or soon after; a dead row is read
         * through. */
        int c = 0;
        while (c < nrow && A[r * nrow + c] == 0.0 && A[c * nrow + r] == 0.0)
            c++;
        live[r] = c < nrow;
        count += live[r];
    }
    return count;
}

/* ec restricted to the live rows (out, with its own cnt, rows and vals arrays). */
static pkm_ecols restrict_rows(const pkm_ecols *ec, const unsigned char *live, int *cnt, int *rows,
                               double *vals)
{
    const int nrow = ec->nrow;
    for (int c = 0; c < ec->nk; c++) {
        const int *r = ec->rows + (size_t)c * (size_t)nrow;
        const double *v = ec->vals + (size_t)c * (size_t)nrow;
        cnt[c] = 0;
        for (int q = 0; q < ec->cnt[c]; q++)
            if (live[r[q]]) {
                rows[c * nrow + cnt[c]] = r[q];
                vals[c * nrow + cnt[c]] = v[q];
                cnt[c]++;
            }
    }
    const pkm_ecols out = {nrow, ec->nk, ec->keep, cnt, rows, vals};
    return out;
}

/* B = E_k^T A E_k (congruence), through the live rows of A only when some are not: live[r],
 * whether row or column r of A holds a nonzero, found here unless known (they follow from A's
 * zeros, so the assembly cache keeps them with a recorded call). */
void pkm_congruence_project(const pkm_ecols *ec, const double *A, unsigned char *live, int known,
                            double *AE, double *B, int *cnt, int *rows, double *vals)
{
    int count = 0;
    if (!known)
        count = live_rows(ec->nrow, A, live);
    else
        for (int r = 0; r < ec->nrow; r++)
            count += live[r];
    if (count == ec->nrow) {
        congruence(ec, A, live, AE, B);
        return;
    }
    const pkm_ecols er = restrict_rows(ec, live, cnt, rows, vals);
    congruence(&er, A, live, AE, B);
}

/* Ec = E without the rounding residues of exact zeros: entries within PKM_E_RESIDUE of their
 * column's largest magnitude are set to zero. Such entries come from products that vanish
 * mathematically (R Tw of the tree formulation's element projections, before its legs were
 * assembled by composite bodies; its lumped masses and joint terms still come through here, as
 * the nodal formulation's elements do: Germain et al. 2015 eqs. 28-32, left 1e-17 ..
 * 3e-16 where the exact value is 0 at one element per link, up to 2e-15 at four, more along
 * longer chains) and are 0.0 at one pose and not at the next, so they would change the pattern
 * (75 patterns over 124 NaVARo poses at 8 eps; at 8 eps still 47 of 64 poses of a map at 4
 * elements per link and 15 of 16 at 16 missed the recorded pattern, each then assembled twice,
 * sorted and analysed again). An entry of E is a twist component, a length or a unit rotation:
 * one 1e-13 of its column's largest is below any lever arm of a machine, and zeroing it moves
 * the frequencies by less than their own accuracy estimate (4 elements per link: 2.6e-11;
 * 16: 1.3e-9 against an estimate of 8.8e-9; 1: nothing). */
#define PKM_E_RESIDUE 1e-13
PKM_TARGET_CLONES void pkm_congruence_clean(int nrow, int ncol, const double *E, double *Ec,
                                            double *big)
{
    for (int c = 0; c < ncol; c++)
        big[c] = 0.0;
    for (int r = 0; r < nrow; r++)
        for (int c = 0; c < ncol; c++) {
            const double a = fabs(E[r * ncol + c]);
            big[c] = a > big[c] ? a : big[c];
        }
    for (int c = 0; c < ncol; c++)
        big[c] *= PKM_E_RESIDUE;
    for (int r = 0; r < nrow; r++)
        for (int c = 0; c < ncol; c++) {
            const double v = E[r * ncol + c];
            Ec[r * ncol + c] = fabs(v) <= big[c] ? 0.0 : v;
        }
}

/* Whether entry (a, b) of E_k^T A E_k is structurally nonzero: some nonzero E(r, a) A(r, s)
 * E(s, b) with A = Ka or Ma. Decided on the zeros of the inputs, not on the value, which may
 * cancel at one pose and not at the next. */
int pkm_congruence_structural(const pkm_ecols *e, const double *Ka, const double *Ma, int a, int b)
{
    const int nrow = e->nrow;
    const int *ra = e->rows + (size_t)a * (size_t)nrow, *rb = e->rows + (size_t)b * (size_t)nrow;
    for (int p = 0; p < e->cnt[a]; p++)
        for (int q = 0; q < e->cnt[b]; q++) {
            const int64_t rs = (int64_t)ra[p] * nrow + rb[q];
            if ((Ka != NULL && Ka[rs] != 0.0) || (Ma != NULL && Ma[rs] != 0.0)) return 1;
        }
    return 0;
}
