/* studies/match.c: pairing computed natural frequencies with a reference row (pkm/fit.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "pkm/fit.h"

#include <math.h>
#include <stdlib.h>

pkm_match_opts pkm_match_opts_default(void)
{
    const pkm_match_opts o = {.mode = PKM_MATCH_ORDER, .gap = 0.25, .doublet_rtol = 1e-6};
    return o;
}

static int close_rel(double a, double b, double rtol)
{
    return fabs(a - b) <= rtol * fmax(fabs(a), fabs(b));
}

/* The row lists a value twice (within rtol): then every computed mode counts on its own. */
static int row_has_doublets(const double *ref, int nref, double rtol)
{
    for (int i = 0; i < nref; i++)
        for (int j = i + 1; j < nref; j++)
            if (!isnan(ref[i]) && !isnan(ref[j]) && close_rel(ref[i], ref[j], rtol)) return 1;
    return 0;
}

/* nearest: the alignment of the header (pkm/fit.h) of the given references (their columns col,
 * values r, n of them) with the groups' values g (ng, first computed index first[], size size[]).
 * D is (n + 1) x (ng + 1). */
static void align(const int *col, const double *r, int n, const double *g, const int *first,
                  const int *size, int ng, double gap, double *D, int *pair, int *mult)
{
    const int w = ng + 1;
    for (int j = 0; j <= ng; j++)
        D[j] = 0.0;
    for (int i = 1; i <= n; i++) {
        D[i * w] = D[(i - 1) * w] + gap;
        for (int j = 1; j <= ng; j++) {
            const double e = fabs(g[j - 1] - r[i - 1]) / r[i - 1];
            double best = fmin(D[(i - 1) * w + j] + gap, D[i * w + j - 1]);
            if (e < gap) best = fmin(best, D[(i - 1) * w + j - 1] + e);
            D[i * w + j] = best;
        }
    }
    for (int i = n, j = ng; i > 0;) {
        const double e = j > 0 ? fabs(g[j - 1] - r[i - 1]) / r[i - 1] : INFINITY;
        if (j > 0 && e < gap && D[i * w + j] == D[(i - 1) * w + j - 1] + e) {
            pair[col[i - 1]] = first[j - 1];
            mult[col[i - 1]] = size[j - 1];
            i--, j--;
        } else if (j > 0 && D[i * w + j] == D[i * w + j - 1]) {
            j--;
        } else {
            i--;
        }
    }
}

pkm_status pkm_freq_match(const double *ref, int nref, const double *comp, int ncomp,
                          const pkm_match_opts *o, int *pair, int *mult, int *npairs, pkm_ctx *ctx)
{
    if ((o->mode != PKM_MATCH_ORDER && o->mode != PKM_MATCH_NEAREST) || !(o->gap > 0.0) ||
        !(o->doublet_rtol >= 0.0) || nref < 0 || ncomp < 0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "frequency match: mode %d, gap %g, doublet tolerance %g, %d and %d values",
                        (int)o->mode, o->gap, o->doublet_rtol, nref, ncomp);
    int *first = malloc(sizeof(int) * (size_t)(2 * ncomp + nref + 1));
    double *buf = malloc(sizeof(double) *
                         ((size_t)(ncomp + nref + 1) + (size_t)(nref + 1) * (size_t)(ncomp + 1)));
    if (first == NULL || buf == NULL) {
        free(first);
        free(buf);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "frequency match: cannot allocate");
    }
    int *size = first + ncomp, *col = size + ncomp;
    double *g = buf, *r = g + ncomp, *D = r + nref;
    /* the computed values as groups: doublets once unless the row lists doublets itself */
    const int merge = !row_has_doublets(ref, nref, o->doublet_rtol);
    int ng = 0;
    for (int k = 0; k < ncomp; k++) {
        if (merge && ng > 0 && close_rel(comp[k], g[ng - 1], o->doublet_rtol)) {
            size[ng - 1]++;
            continue;
        }
        first[ng] = k, size[ng] = 1, g[ng++] = comp[k];
    }
    int n = 0;
    for (int k = 0; k < nref; k++) {
        pair[k] = -1, mult[k] = 0;
        if (!isnan(ref[k])) col[n] = k, r[n++] = ref[k];
    }
    if (o->mode == PKM_MATCH_NEAREST) {
        align(col, r, n, g, first, size, ng, o->gap, D, pair, mult);
    } else {
        for (int k = 0; k < nref && k < ng; k++)
            if (!isnan(ref[k])) pair[k] = first[k], mult[k] = size[k];
    }
    if (npairs != NULL) {
        *npairs = 0;
        for (int k = 0; k < nref; k++)
            *npairs += pair[k] >= 0;
    }
    free(first);
    free(buf);
    return PKM_OK;
}

int pkm_match_nev(const pkm_match_opts *o, int nfreq)
{
    return o->mode == PKM_MATCH_NEAREST ? 2 * nfreq + 4 : nfreq;
}
