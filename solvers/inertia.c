/* solvers/inertia.c: spectrum completeness by Sylvester's law of inertia.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For a symmetric pencil with M positive semidefinite and K - sigma M positive definite for some
 * sigma, the number of eigenvalues of K x = lambda M x below tau equals the number of negative
 * eigenvalues of K - tau M (Sylvester's law of inertia; Parlett, The Symmetric Eigenvalue
 * Problem, sec. 3.3), and P (K - tau M) P^T = L D L^T with L unit lower triangular has as many
 * as D has negative pivots. A Lanczos run can miss a copy of a repeated eigenvalue (in exact
 * arithmetic it finds one vector per eigenspace; issue 8: pss5upu at its home pose returned two
 * of a triple eigenvalue, exit 0), so every solver's result is counted this way (Grimes, Lewis
 * and Simon 1994 use the same check in their shifted block Lanczos).
 *
 * CHOLMOD factorises an indefinite matrix as simplicial LDL^T without pivoting (no 2x2 blocks):
 * the factorisation exists whenever no pivot vanishes, and a tiny pivot, whose sign rounding
 * decides, means that tau sits on an eigenvalue; tau is then moved and the count redone. */
#include "solvers/solvers_impl.h"
#include "core/core_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* A pivot is tiny when |D_jj| <= PKM_INERTIA_TINY (|K_ii| + |tau| M_ii) at the permuted
 * position i: its sign is then not determined by the pencil (the rounding of one elimination
 * step is ~eps times the entries it combines). 1e-13 = ~450 eps leaves room for the growth of
 * the elimination. Measured: in the middle of an ordinary gap the smallest ratio is 7e-8
 * (pss5upu, 1024 elements per link); inside a pair split by 3e-9 (NaVARo with E = 1e15, dense
 * solver) the ratios are 6e-15 to 7e-14 and the negative count flips from shift to shift. */
#define PKM_INERTIA_TINY 1e-13
/* Two computed eigenvalues closer than this (relative) plus their rounding floors are one
 * cluster: the shift goes above the whole cluster, never inside it. The solvers' values of one
 * repeated eigenvalue agree to ~1e-12 (pss5upu home pose: 861.749808 Hz three times). */
#define PKM_INERTIA_CLUSTER 1e-9
/* A gap narrower than this many cluster fuzzes (fuzz_of) is not trusted when its count
 * disagrees: the values at its ends may be one eigenvalue computed apart. */
#define PKM_INERTIA_NARROW 10.0
/* Shifts tried, as fractions of the gap between two known eigenvalues, until no pivot is tiny. */
static const double gap_fractions[] = {0.5, 0.3, 0.7, 0.15, 0.85};
#define PKM_INERTIA_TRIES ((int)(sizeof(gap_fractions) / sizeof(gap_fractions[0])))

/* Number of eigenvalues of p below tau: the negative pivots of the LDL^T factorisation of
 * K - tau M; *tiny is set if a pivot vanished or is too small for its sign to mean anything. */
pkm_status pkm_inertia_count(pkm_linsolve *ldlt, const pkm_pencil *p, double tau, int64_t *count,
                             int *tiny, pkm_ctx *ctx)
{
    int64_t minor = -1, ntiny = 0;
    *count = 0;
    *tiny = 0;
    pkm_status rc = pkm_linsolve_factor(ldlt, p, 1.0, -tau, &minor, ctx);
    if (rc != PKM_OK) return rc;
    if (minor >= 0) {
        *tiny = 1; /* a zero pivot: CHOLMOD stops there */
        return PKM_OK;
    }
    rc = pkm_linsolve_inertia(ldlt, p, PKM_INERTIA_TINY, count, &ntiny, ctx);
    *tiny = ntiny > 0;
    return rc;
}

/* Same cluster: closer than PKM_INERTIA_CLUSTER (relative) plus twice their floors. */
/* How far apart two computed values of one eigenvalue can be: PKM_INERTIA_CLUSTER relative, the
 * count's resolution and twice their rounding floors. */
static double fuzz_of(const double *w, const double *floor, double resolution, int i, int j)
{
    return PKM_INERTIA_CLUSTER * fmax(fabs(w[i]), fabs(w[j])) + resolution +
           2.0 * (floor != NULL ? floor[i] + floor[j] : 0.0);
}

static int same_cluster(const double *w, const double *floor, double resolution, int i, int j)
{
    return fabs(w[j] - w[i]) <= fuzz_of(w, floor, resolution, i, j);
}

pkm_status pkm_modal_check_complete(pkm_linsolve *in, const pkm_pencil *p, const double *w,
                                    const double *floor, int nret, int nknown, int *missing,
                                    double *tau_used, pkm_ctx *ctx)
{
    *missing = 0;
    if (nret < 1 || nknown < nret)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "completeness check of %d of %d known values", nret,
                        nknown);
    /* The shift goes into a gap between two known values, as far from both as the count allows:
     * the first gap above the cluster that ends the answer, if a value beyond it is known (all
     * known values below it must be counted, and nothing else), else the gap below that cluster
     * (the answer's values below it, and nothing else: the cluster itself may have more copies
     * than were computed, which changes no returned value). Inside a gap a missed eigenvalue,
     * even a copy of a returned one, changes the count. */
    /* The count is exact for a pencil within the factorisation's backward error, ~eps ||K||
     * normwise, which can move an eigenvalue by ~eps max_i K_ii / M_ii: two values closer than
     * that cannot be told apart by any shift (NaVARo tree with E = 1e15: a pair split by 3e-9
     * relative counted wrong between its values with no pivot below 1e-13). */
    const pkm_diag_scales ds = pkm_pencil_diag_scales(p);
    const double resolution = DBL_EPSILON * ds.ratio;
    int hi = nret - 1; /* last known value of the final cluster */
    while (hi + 1 < nknown && same_cluster(w, floor, resolution, hi, hi + 1))
        hi++;
    int lo = nret - 1; /* first value of the final cluster */
    while (lo > 0 && same_cluster(w, floor, resolution, lo - 1, lo))
        lo--;
    /* A gap in which every shift meets a tiny pivot is narrower than the count can resolve
     * (NaVARo with E = 1e15: a pair split by 3e-9 relative, K - tau M's pivots at 1e-14 of its
     * diagonal), and so is a gap less than PKM_INERTIA_NARROW fuzzes wide whose count disagrees
     * (the same pair in the tree formulation: dsygvx's second value 4e-9 above the first, the
     * count jumping by two at the first): its two values are one cluster, and the next gap is
     * tried. A value missed below a wide gap still changes that gap's count. */
    double a = 0.0, b = 0.0, tau = 0.0;
    int64_t count = 0;
    int tiny = 1;
    while (tiny) {
        int64_t expected;
        double narrow = 0.0; /* gaps up to this wide cannot be trusted against the count */
        if (hi + 1 < nknown) {
            a = w[hi];
            b = w[hi + 1];
            expected = hi + 1;
            narrow = PKM_INERTIA_NARROW * fuzz_of(w, floor, resolution, hi, hi + 1);
        } else {
            b = w[lo];
            /* Below the lowest value: a gap as wide as the value, or its rounding floor. */
            a = lo > 0 ? w[lo - 1]
                       : w[0] - fmax(fabs(w[0]), 4.0 * (floor != NULL ? floor[0] : 0.0));
            expected = lo;
            if (lo > 0) narrow = PKM_INERTIA_NARROW * fuzz_of(w, floor, resolution, lo - 1, lo);
        }
        for (int t = 0; t < PKM_INERTIA_TRIES && tiny && b > a; t++) {
            tau = a + gap_fractions[t] * (b - a);
            pkm_status rc = pkm_inertia_count(in, p, tau, &count, &tiny, ctx);
            if (rc != PKM_OK) return rc;
        }
        if (!tiny && count != expected && b - a <= narrow) tiny = 1;
        if (!tiny) {
            *missing = (int)(count - expected);
        } else if (hi + 1 < nknown) {
            hi++;
        } else if (lo > 0) {
            lo--;
        } else {
            break;
        }
    }
    if (tau_used != NULL) *tau_used = tau;
    if (tiny)
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "spectrum check: no gap down to omega^2 = %.6g where K - tau M's "
                        "eigenvalue count can be decided (vanishing pivots, values closer than "
                        "the count resolves)",
                        a);
    return PKM_OK;
}
