/* studies/fit_impl.h: the seam between the fit's driver (fit.c: residuals, passes, multistart)
 * and its sensitivity Jacobian (fit_jacobian.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_FIT_IMPL_H
#define PKM_FIT_IMPL_H

#include "pkm/fit.h"

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

/* What the residual function sees. */
typedef struct pkm_fit_state {
    const pkm_case *c;
    void *params;
    const pkm_fit_data *d;
    const pkm_fit_param *p;
    const pkm_param_desc *desc[PKM_FIT_MAX_PARAMS];
    int np;
    pkm_analysis *an;
    const pkm_match_opts *match;
    int *pair, *mult; /* the pairing held during a pass */
    double *freq;     /* the paired values of the last evaluation */
    double *shape;    /* per row, the nev mode shapes when the pairing was taken */
    int64_t n;        /* their length, the pencil's order */
    int nev;
    char *used; /* nev flags */
    pkm_formulation form;
    pkm_ctx *ctx;
    pkm_status st; /* the first failure of a residual evaluation */
    /* opts.stop and opts.progress: the local fit running, the evaluations, the best so far */
    const pkm_fit_opts *o;
    int start, nstarts, evals, stopped;
    double best_rms;
    double best_value[PKM_FIT_MAX_PARAMS];
    int best_nres;
    int *best_pair;    /* 2 x cells: the pairing and multiplicities of the best evaluation */
    double *best_freq; /* cells: its paired values */
} pkm_fit_state;

/* p of u (the change of variable of pkm/fit.h) and dp/du. */
double pkm_fit_param_of(const pkm_fit_param *p, const pkm_param_desc *d, double u, double *dpdu);

/* The case's parameters at u. */
void pkm_fit_set_params(pkm_fit_state *s, const double *u);

/* Before an evaluation: opts.stop asked for the end (then every later evaluation fails at once,
 * which ends GSL's driver, and the passes and starts stop). */
int pkm_fit_stop_asked(pkm_fit_state *s);

/* The Jacobian of the residuals in u (GSL's df): the eigenvalue sensitivities of every table
 * row's paired modes times dp/du (fit_jacobian.c). */
int pkm_fit_sensitivities(const gsl_vector *u, void *user, gsl_matrix *J);

#endif
