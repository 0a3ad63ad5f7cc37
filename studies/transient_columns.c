/* studies/transient_columns.c: the columns of a transient run's rows (pkm/transient.h), one
 * description for every printer of them.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/transient.h"

#include "core/core_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const error_names[6] = {"ex", "ey", "ez", "rx", "ry", "rz"};
static const char *const energy_names[4] = {"kinetic", "strain", "dissipated", "work"};

/* Column k: name printed from prefix and suffix, unit. */
static void put(pkm_transient_columns *c, const char *prefix, const char *suffix, const char *unit)
{
    snprintf(c->name[c->n], PKM_TRANSIENT_COL_LEN, "%s%s", prefix, suffix);
    c->col[c->n].name = c->name[c->n];
    c->col[c->n].unit = unit;
    c->n++;
}

pkm_status pkm_transient_columns_create(const pkm_case *c, const void *params, int elastic,
                                        int nfreq, pkm_transient_columns **out, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_model *m = NULL;
    pkm_status st = c->build_rigid(params, c->home, &m, ctx);
    if (st != PKM_OK) return st;
    int ndrive = 0;
    for (int j = 0; j < pkm_model_joint_count(m); j++)
        ndrive += pkm_model_joint(m, j)->actuated != 0;
    nfreq = nfreq > 0 ? nfreq : 0;
    const size_t n = 6 + (size_t)ndrive * (elastic ? 2 : 1) + (size_t)nfreq + 6 + 4 + 2;
    pkm_transient_columns *cols = calloc(1, sizeof(*cols));
    if (cols != NULL) {
        cols->col = calloc(n, sizeof(*cols->col));
        cols->name = calloc(n, sizeof(*cols->name));
    }
    if (cols == NULL || cols->col == NULL || cols->name == NULL) {
        pkm_transient_columns_destroy(&cols);
        pkm_model_destroy(&m);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate %zu transient columns", n);
    }
    cols->ndrive = ndrive, cols->elastic = elastic != 0, cols->nfreq = nfreq;
    for (int k = 0; k < 6; k++)
        put(cols, error_names[k], "", k < 3 ? "m" : "rad");
    for (int pass = 0; pass < (elastic ? 2 : 1); pass++)
        for (int j = 0; j < pkm_model_joint_count(m); j++) {
            const pkm_joint *jt = pkm_model_joint(m, j);
            const int linear = jt->type == PKM_JOINT_PRISMATIC;
            if (!jt->actuated) continue;
            if (pass == 0)
                put(cols, PKM_TRANSIENT_DRIVE_PREFIX, jt->name, linear ? "N" : "N m");
            else
                put(cols, "defl_", jt->name, linear ? "m" : "rad");
        }
    for (int k = 0; k < nfreq; k++) {
        char f[16];
        snprintf(f, sizeof f, "f%d", k + 1);
        put(cols, f, "", "Hz");
    }
    for (int k = 0; k < 6; k++)
        put(cols, "qs_", error_names[k], k < 3 ? "m" : "rad");
    for (int k = 0; k < 4; k++)
        put(cols, energy_names[k], "", "J");
    put(cols, "updated", "", "1");
    put(cols, "conditioning", "", "1");
    pkm_model_destroy(&m);
    *out = cols;
    return PKM_OK;
}

void pkm_transient_columns_destroy(pkm_transient_columns **cols)
{
    if (cols == NULL || *cols == NULL) return;
    free((*cols)->col);
    free((*cols)->name);
    free(*cols);
    *cols = NULL;
}

void pkm_transient_row_values(const pkm_transient_columns *cols, const pkm_transient_row *r,
                              double *v)
{
    int k = 0;
    for (int i = 0; i < 6; i++)
        v[k++] = r->error[i];
    for (int i = 0; i < cols->ndrive; i++)
        v[k++] = i >= r->ndrive ? NAN : isnan(r->reaction[i]) ? r->drive[i] : r->reaction[i];
    for (int i = 0; cols->elastic && i < cols->ndrive; i++)
        v[k++] = r->deflection != NULL && i < r->ndrive ? r->deflection[i] : NAN;
    for (int i = 0; i < cols->nfreq; i++)
        v[k++] = i < r->nfreq ? r->freq[i] : NAN;
    for (int i = 0; i < 6; i++)
        v[k++] = r->quasi_static[i];
    v[k++] = r->energy.kinetic;
    v[k++] = r->energy.strain;
    v[k++] = r->energy.dissipated;
    v[k++] = r->energy.work;
    v[k++] = r->updated;
    v[k] = r->conditioning;
}
