/* include/pkm/fit.h: computed natural frequencies against reference ones: their pairing, and
 * model updating (the case parameters that fit a table best).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pairing (pkm_freq_match). A reference row lists frequencies in ascending columns, some left
 * empty (NAN); the computed ones are ascending too. When the row's given values are distinct,
 * computed frequencies within doublet_rtol of each other (the double eigenvalues of a symmetric
 * pose) are one value, as a measurement sees one resonance there; when the row itself lists a
 * value twice (Germain et al. 2015, Table 3) every computed mode counts. Then:
 * - order: the k-th reference column goes with the k-th computed value (an empty column leaves
 *   its value unpaired);
 * - nearest: an alignment of the two ascending sequences by dynamic programming, the edit
 *   distance of sequence alignment: D(i, j), the least cost of pairing the first i given
 *   reference values with the first j computed ones, is the least of D(i-1, j-1) + |c_j - r_i| /
 *   r_i (a pair, allowed below gap), D(i-1, j) + gap (r_i unpaired) and D(i, j-1) (c_j unpaired,
 *   free: a model has modes a measurement misses). The pairs keep both orders and are one to
 *   one, a pair never costs more than leaving its reference unpaired, and among alignments of
 *   equal cost the backtrack prefers pairs. O(nref ncomp). */
#ifndef PKM_FIT_H
#define PKM_FIT_H

#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pkm_match_mode { PKM_MATCH_ORDER = 0, PKM_MATCH_NEAREST = 1 } pkm_match_mode;

typedef struct pkm_match_opts {
    pkm_match_mode mode;
    double gap;          /* nearest: the relative distance above which a value stays unpaired */
    double doublet_rtol; /* computed values this close (relative) are one doublet */
} pkm_match_opts;

/* order, gap 0.25, doublet_rtol 1e-6. */
pkm_match_opts pkm_match_opts_default(void);

/* Pair reference row ref (nref columns, NAN where empty) with the computed frequencies comp
 * (ncomp, ascending, same unit): pair[k] is the index in comp of the computed value paired with
 * column k (the first of a doublet), or -1; mult[k] the number of computed modes it stands for
 * (2 for a doublet counted once, 0 when unpaired). *npairs (may be NULL) counts the pairs.
 * PKM_ERR_INVALID for a bad option, PKM_ERR_NOMEM. */
pkm_status pkm_freq_match(const double *ref, int nref, const double *comp, int ncomp,
                          const pkm_match_opts *o, int *pair, int *mult, int *npairs, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
