/* tests/fuzz/fuzz_model_solve.c: a built-in case with fuzzed parameters and pose, built,
 * assembled and solved for a few modes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Input: byte 0 picks the case, the formulation and the eigensolver; byte 1 the number of modes
 * (1 to 6); then one byte per pose coordinate (a step of 1/256 of +-0.2 m or rad from home);
 * then groups of 3 bytes, each setting one parameter: the entry (byte 0 mod the table size) and
 * a value (bytes 1-2) spread over the entry's range on a log scale, or, for the top 1/16 of
 * values, outside it, which the setter must refuse. Mesh sizes are kept at 1-4 elements so that
 * one execution stays in milliseconds. The contract: no crash, no exit, and a success returns
 * nev finite, ascending, non-negative frequencies. */
#include "fuzz_util.h"

#include "pkm/analysis.h"
#include "pkm/casefile.h"

#include <math.h>

/* The value of entry d for the 16-bit code u: inside the range for u < 0xF000, else beyond it. */
static void value_text(const pkm_param_desc *d, unsigned u, char *buf, size_t cap)
{
    const pkm_param_range *r = d->range;
    if (d->kind == PKM_PARAM_INT) {
        snprintf(buf, cap, "%u", 1u + u % 4u);
        return;
    }
    if (u >= 0xF000u) {
        const double out[4] = {r->max * 10.0, r->min - 1.0, 1e300, -1e300};
        snprintf(buf, cap, "%.17g", out[u % 4u]);
        return;
    }
    const double t = (double)u / 0xF000;
    double v;
    if (r->min > 0.0)
        v = r->min * pow(r->max / r->min, t);
    else
        v = r->min + t * (r->max - r->min);
    snprintf(buf, cap, "%.17g", fmin(fmax(v, r->min), r->max));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The cases with a finite-element model (the others, dynamics only, have no build). */
    const pkm_case *list[16];
    int ncases = 0;
    for (const pkm_case *const *k = pkm_case_list(); *k != NULL && ncases < 16; k++)
        if ((*k)->analyses & PKM_CASE_MODAL) list[ncases++] = *k;
    if (size < 2 || ncases == 0) return 0;
    const pkm_case *c = list[data[0] % ncases];
    const pkm_formulation form = (data[0] / 4) % 2 ? PKM_FORM_NODAL : PKM_FORM_TREE;
    const pkm_eigensolver eig = pkm_eigensolver_types[(data[0] / 8) % PKM_EIGENSOLVER_COUNT].id;
    pkm_modal_opts mo = pkm_modal_opts_default();
    mo.nev = 1 + data[1] % 6;
    size_t at = 2;
    double pose[PKM_POSE_MAX];
    for (int k = 0; k < c->npose; k++)
        pose[k] = c->home[k] + (at < size ? 0.2 * ((double)data[at++] - 128.0) / 128.0 : 0.0);
    void *params = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (pkm_case_params_create(c, &params, &ctx) != PKM_OK) abort();
    for (; at + 3 <= size; at += 3) {
        const pkm_param_desc *d = &c->params[data[at] % c->nparams];
        char text[64];
        if (d->kind == PKM_PARAM_ENUM) {
            int n = 0;
            while (d->choices[n].name != NULL)
                n++;
            snprintf(text, sizeof(text), "%s", d->choices[data[at + 1] % n].name);
        } else {
            value_text(d, (unsigned)data[at + 1] << 8 | data[at + 2], text, sizeof(text));
        }
        pkm_ctx_clear(&ctx);
        (void)pkm_case_param_set(c, params, d->key, text, &ctx);
    }
    pkm_model *m = NULL;
    pkm_analysis *an = NULL;
    const pkm_modes *md = NULL;
    pkm_ctx_clear(&ctx);
    pkm_status st = c->build(params, pose, &m, &ctx);
    if (st == PKM_OK) st = pkm_analysis_create(form, eig, &mo, &an, &ctx);
    if (st == PKM_OK) st = pkm_analysis_solve(an, m, &md, NULL, &ctx);
    if (st == PKM_OK) {
        if (md == NULL || md->nev != mo.nev) abort();
        for (int k = 0; k < md->nev; k++)
            if (!isfinite(md->freq_hz[k]) || md->freq_hz[k] < 0.0 ||
                (k > 0 && md->freq_hz[k] < md->freq_hz[k - 1]))
                abort();
    } else if (ctx.msg[0] == '\0') {
        abort();
    }
    pkm_analysis_destroy(&an);
    pkm_model_destroy(&m);
    pkm_case_params_destroy(&params);
    return 0;
}
