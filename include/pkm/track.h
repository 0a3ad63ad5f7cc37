/* include/pkm/track.h: following modes from one pose to a neighbouring pose.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Modes are ranked by frequency at each pose; across poses the rank of a physical mode changes
 * where two branches cross, and near a veering the shapes swap between ranks. The link between
 * two poses pairs each mode of one with the mode of the other whose shape is most alike, by the
 * modal assurance criterion (Allemang and Brown 1982):
 *
 *   MAC(a, b) = (a^T W b)^2 / ((a^T W a) (b^T W b)),   W = I or the mass matrix M.
 *
 * A cluster of repeated eigenvalues has no preferred basis: the eigensolver returns an arbitrary
 * rotation of it. Modes whose frequencies are within a relative gap cluster_tol therefore form
 * one subspace, and two groups G (p modes) and H (q modes) are compared by the sum of squared
 * cosines of their principal angles (Bjorck and Golub 1973), ||Qg^T W Qh||_F^2 with Qg, Qh
 * W-orthonormal bases, divided by min(p, q): 1 when the smaller subspace lies in the larger, and
 * the plain MAC for two single modes. Every mode of G is given this value against every mode of
 * H, and the pairing maximises the sum over modes (an assignment problem, Kuhn 1955 and Munkres
 * 1957), ties broken towards equal ranks, so that a cluster's modes are paired in rank order. */
#ifndef PKM_TRACK_H
#define PKM_TRACK_H

#include <stdint.h>

#include "pkm/pencil.h"
#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pkm_track_opts {
    /* A link whose MAC is below this is uncertain: the mode may have left the computed set or
     * changed too much between the two poses. Flagged, not broken. Default 0.8. */
    double mac_threshold;
    /* Neighbouring modes k, k + 1 (ascending) with f[k+1] - f[k] <= cluster_tol * f[k+1] belong
     * to one cluster (chained). Default 1e-5: repeated frequencies of a symmetric pose agree to
     * about 1e-12, the split pairs of the NaVARo 1 mm away from it differ by about 1e-3. */
    double cluster_tol;
} pkm_track_opts;

/* mac_threshold 0.8, cluster_tol 1e-5. */
pkm_track_opts pkm_track_opts_default(void);

/* Clusters of nev ascending frequencies: first[k] is the rank of the first mode of k's cluster. */
void pkm_track_clusters(int nev, const double *freq, double cluster_tol, int *first);

/* Link the nev modes of pose a to those of pose b. freq_* are ascending frequencies, vec_* the
 * n x nev column-major mode shapes (any scaling). weight: NULL for W = I, else the pencil whose M
 * weighs the MAC (order n). On return match[i] = j (mode i of a is mode j of b), a permutation of
 * 0..nev-1, and mac[i] in [0, 1] is the (cluster) MAC of that pair. PKM_ERR_INVALID if a mode
 * shape is zero or not finite; PKM_ERR_NOMEM. */
pkm_status pkm_track_link(int64_t n, int nev, const double *freq_a, const double *vec_a,
                          const double *freq_b, const double *vec_b, const pkm_pencil *weight,
                          double cluster_tol, int *match, double *mac, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
