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

#include "pkm/analysis.h"
#include "pkm/cases.h"
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

/* Modes to compute for a row of nfreq columns: nfreq (order), or room for doublets and modes a
 * measurement misses, 2 nfreq + 4 (nearest). */
int pkm_match_nev(const pkm_match_opts *o, int nfreq);

/* Model updating: the case parameters that minimise the weighted relative frequency errors
 * sum_k (w_k (f_k - f_ref,k) / f_ref,k)^2 over the paired values of a table, by GSL's bounded
 * nonlinear least squares (gsl_multifit_nlinear, trust region with Levenberg-Marquardt steps).
 * - Bounds by a change of variable: p = lo + (hi - lo) (1 + sin u) / 2, so every step stays
 *   inside [lo, hi] and the start must lie strictly inside; a parameter without bounds is
 *   scaled, p = |start| u, and clamped to its parameter table's range.
 * - The Jacobian by the eigenvalue sensitivity d lambda = x^T (dK - lambda dM) x of each paired
 *   M-normalised mode (Fox and Kapoor 1968), dK and dM by central differences of the assembled
 *   matrices (exact for parameters K or M depend on linearly: stiffnesses, masses), or
 *   (PKM_FIT_JAC_FD) by central differences of the frequencies in u (relative step 1e-5; the
 *   eigenvalues' own accuracy, about 1e-12, makes its error about 1e-7).
 * - The pairing is that of pkm_freq_match at the start, held fixed while the solver runs (the
 *   residuals are then smooth), and taken again at its end: a new pairing starts another pass
 *   (at most PKM_FIT_MAX_PASSES). A doublet paired once stands for the mean of its modes.
 * - Multistart (opts.multistart, on by default): the problem has local minima (two clutch
 *   stiffnesses of the NaVARo swap roles when the start orders them the wrong way round, the
 *   masses following), so local fits also start from corners of the box [start / F, start F],
 *   F = PKM_FIT_START_BOX, clamped halfway to a bound they cross; the corners are the rows of a
 *   binary covering array of strength 2 (Kleitman and Spencer 1973: any two parameters see all
 *   four low/high combinations), 6 rows for up to 10 parameters, 7 up to 15, 8 for 16. The lowest
 *   rms among the fits that converge is kept and refined once more (its standard errors are
 *   those of that minimum); iterations counts all fits. A truth within a factor F of the start
 *   lies inside the box; a start 50 % off is within 2.
 * - Standard errors and correlations from the covariance s^2 (J^T J)^-1 at the solution,
 *   s^2 = sum r^2 / (m - n) with m residuals and n parameters, carried to p by dp/du (a
 *   parameter on a bound has a standard error of 0 there). */
#define PKM_FIT_MAX_PARAMS 16
#define PKM_FIT_MAX_PASSES 4
#define PKM_FIT_START_BOX  2.0

typedef struct pkm_fit_param {
    const char *key; /* a DOUBLE entry of the case's parameter table */
    double start;    /* SI */
    double lo, hi;   /* bounds, SI, lo < start < hi; both NAN: none */
} pkm_fit_param;

/* The reference rows: nrows poses of npose coordinates, nfreq columns of frequencies (Hz, NAN
 * where empty), column weights (NULL: 1). */
typedef struct pkm_fit_data {
    int nrows, npose, nfreq;
    const double *pose; /* nrows x npose */
    const double *freq; /* nrows x nfreq */
    const double *weight;
} pkm_fit_data;

typedef enum pkm_fit_jacobian {
    PKM_FIT_JAC_SENSITIVITY = 0, /* eigenvalue sensitivity (the default) */
    PKM_FIT_JAC_FD = 1           /* finite differences of the frequencies */
} pkm_fit_jacobian;

/* A fit's progress (pkm_fit_opts.progress), after each evaluation of the residuals. */
typedef struct pkm_fit_progress {
    int start, nstarts; /* the local fit running (0: from the start) and their number */
    int evaluations;    /* evaluations of the residuals so far, all starts */
    double rms;         /* this evaluation's rms relative error */
    double best_rms;    /* the lowest so far */
} pkm_fit_progress;

typedef struct pkm_fit_opts {
    pkm_formulation form;
    pkm_fit_jacobian jacobian;
    pkm_eigensolver eig;
    pkm_match_opts match;
    int max_iter;   /* solver iterations per pass */
    int multistart; /* 1: the multistart above; 0: one local fit from the start */
    double xtol;    /* relative step size at which it stops */
    /* Both optional (NULL), called with user: progress after each evaluation of the residuals;
     * stop before each evaluation, a nonzero return ending the fit there (Ctrl-C): pkm_fit_run
     * then returns PKM_OK with res->stopped set and res holding the best evaluation so far. */
    void (*progress)(const pkm_fit_progress *p, void *user);
    int (*stop)(void *user);
    void *user;
} pkm_fit_opts;

/* tree formulation, ARPACK, sensitivity Jacobian, pkm_match_opts_default, 100 iterations,
 * multistart, xtol 1e-8. */
pkm_fit_opts pkm_fit_opts_default(void);

typedef struct pkm_fit_result {
    int nparam;
    double value[PKM_FIT_MAX_PARAMS];                     /* fitted, SI */
    double std_err[PKM_FIT_MAX_PARAMS];                   /* standard errors, SI */
    double corr[PKM_FIT_MAX_PARAMS * PKM_FIT_MAX_PARAMS]; /* correlations, row-major */
    int nres;                                             /* paired values (residuals) */
    double rms_start, rms;  /* sqrt(mean r^2): weighted relative errors, start and end */
    int iterations, passes; /* solver iterations (all passes), passes */
    int converged;          /* 1: the solver's test was met in the last pass */
    int stopped; /* 1: opts.stop ended the fit: value, rms, pair and freq are those of the lowest
                    rms evaluated (the start's if none finished), std_err and corr NAN */
    int *pair, *mult; /* nrows x nfreq, the final pairing (pkm_freq_match) */
    double *freq;     /* nrows x nfreq: the computed value paired, Hz, or NAN */
} pkm_fit_result;

/* Fit p[0..np-1] of case c, params (updated in place to the last state), to data. On
 * PKM_ERR_NOCONV (the solver stopped without meeting its test) res holds the last state.
 * PKM_ERR_INVALID: an unknown or non-DOUBLE key, a start outside its bounds or its table range,
 * fewer paired values than parameters, more than PKM_FIT_MAX_PARAMS. A pose that cannot be
 * built or solved fails with its status. pkm_fit_result_free releases res. */
pkm_status pkm_fit_run(const pkm_case *c, void *params, const pkm_fit_data *data,
                       const pkm_fit_param *p, int np, const pkm_fit_opts *o, pkm_fit_result *res,
                       pkm_ctx *ctx);
void pkm_fit_result_free(pkm_fit_result *res);

#ifdef __cplusplus
}
#endif
#endif
