/* cases/registry.c: the list of compiled cases and the one setter of their parameter tables.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cases/cases_impl.h"
#include "core/core_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

static const pkm_case *const case_list[] = {&pkm_navaro_case,          &pkm_pss5upu_case,
                                            &pkm_masticatory_case_def, &pkm_boom1_case,
                                            &pkm_crane4_case,          NULL};

const pkm_param_choice pkm_case_friction_models[] = {
    {"none", PKM_FRICTION_NONE},
    {"coulomb-viscous", PKM_FRICTION_COULOMB_VISCOUS},
    {"stribeck", PKM_FRICTION_STRIBECK},
    {NULL, 0}};
const pkm_param_choice pkm_case_friction_joint_choices[] = {
    {"all", PKM_CASE_FRICTION_ALL}, {"actuated", PKM_CASE_FRICTION_ACTUATED}, {NULL, 0}};

const pkm_case *const *pkm_case_list(void)
{
    return case_list;
}

const pkm_case *pkm_case_find(const char *name)
{
    for (int i = 0; name != NULL && case_list[i] != NULL; i++)
        if (strcmp(case_list[i]->name, name) == 0) return case_list[i];
    return NULL;
}

pkm_status pkm_case_build_none(const char *name, pkm_model **out, pkm_ctx *ctx)
{
    *out = NULL;
    return PKM_FAIL(ctx, PKM_ERR_INVALID,
                    "case '%s' is a rigid-body case: it has no finite-element model", name);
}

const pkm_case_dynamics *pkm_case_dynamics_of(const pkm_case *c, const void *params)
{
    return (const pkm_case_dynamics *)(const void *)((const char *)params + c->dynamics_offset);
}

int pkm_case_loaded(const pkm_case_dynamics *d)
{
    return d->load_force[0] != 0.0 || d->load_force[1] != 0.0 || d->load_force[2] != 0.0;
}

pkm_friction pkm_case_friction(const pkm_case_dynamics *d)
{
    const pkm_friction f = {.model = (pkm_friction_model)d->friction_model,
                            .kc = d->kc,
                            .kv = d->kv,
                            .ks = d->ks,
                            .vs = d->vs,
                            .delta = d->delta,
                            .rp = d->rp,
                            .rn = d->rn,
                            .rb = d->rb};
    return f;
}

int pkm_case_joint_has_friction(const pkm_case_dynamics *d, const pkm_joint *j)
{
    if (j->type != PKM_JOINT_REVOLUTE && j->type != PKM_JOINT_PRISMATIC &&
        j->type != PKM_JOINT_HELICAL)
        return 0;
    return d->friction_joints == PKM_CASE_FRICTION_ALL || j->actuated;
}

const double *pkm_case_rigid_pose(const pkm_case *c)
{
    return c->rigid_pose != NULL ? c->rigid_pose : c->home;
}

const pkm_traj_desc *pkm_case_traj_find(const pkm_case *c, const char *name)
{
    for (int i = 0; name != NULL && i < c->ntraj; i++)
        if (strcmp(c->traj[i].name, name) == 0) return &c->traj[i];
    return NULL;
}

pkm_status pkm_case_trajectory(const pkm_case *c, const char *name, double t_end,
                               pkm_trajectory **tr, pkm_ctx *ctx)
{
    *tr = NULL;
    const pkm_traj_desc *d =
        name == NULL && c->ntraj > 0 ? &c->traj[0] : pkm_case_traj_find(c, name);
    if (d == NULL) {
        char names[256] = "";
        size_t len = 0;
        for (int k = 0; k < c->ntraj && len < sizeof names; k++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "",
                                    c->traj[k].name);
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "case '%s' has no such trajectory%s%s%s (%s)",
                        c->name, name != NULL ? " '" : "", name != NULL ? name : "",
                        name != NULL ? "'" : "", c->ntraj > 0 ? names : "it names none");
    }
    pkm_traj_desc stretched = *d;
    if (t_end > stretched.duration) stretched.duration = t_end;
    return pkm_trajectory_create_analytic(&stretched, c->npose, tr, ctx);
}

pkm_status pkm_case_harmonic(const pkm_case *c, int k, double amp, double f, double t_end,
                             pkm_trajectory **tr, pkm_ctx *ctx)
{
    *tr = NULL;
    if (k < 0 || k >= c->npose || !(amp != 0.0 && fabs(amp) <= 1e3) || !(f >= 1e-6 && f <= 1e6))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "case '%s': a harmonic motion needs a pose coordinate, a nonzero amplitude "
                        "up to 1e3 and a frequency in [1e-6, 1e6] Hz",
                        c->name);
    pkm_traj_coord coord[PKM_POSE_MAX];
    for (int i = 0; i < c->npose; i++)
        coord[i] = (pkm_traj_coord){PKM_TRAJ_POLY2, {c->home[i], 0.0, 0.0, 0.0}};
    coord[k] = (pkm_traj_coord){PKM_TRAJ_SINE, {c->home[k], amp, f, 0.0}};
    const pkm_traj_desc d = {"harmonic", "harmonic motion of one pose coordinate",
                             fmax(isnan(t_end) ? 0.0 : t_end, PKM_CASE_HARMONIC_PERIODS / f),
                             coord};
    return pkm_trajectory_create_analytic(&d, c->npose, tr, ctx);
}

const pkm_param_desc *pkm_case_param_find(const pkm_case *c, const char *key)
{
    for (int i = 0; key != NULL && i < c->nparams; i++)
        if (strcmp(c->params[i].key, key) == 0) return &c->params[i];
    return NULL;
}

/* "a, b, c": the choice names of an ENUM entry. */
static void choice_names(const pkm_param_desc *d, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (const pkm_param_choice *ch = d->choices; ch->name != NULL; ch++) {
        const int w = snprintf(buf + n, size - n, "%s%s", n > 0 ? ", " : "", ch->name);
        if (w < 0 || (size_t)w >= size - n) break;
        n += (size_t)w;
    }
}

/* PKM_ERR_INVALID if v, the value of entry d (an integer if integer), lies outside d's range.
 * The value is printed only for a refusal: the check runs on every map pose. */
static pkm_status check_range(const pkm_case *c, const pkm_param_desc *d, double v, int integer,
                              pkm_ctx *ctx)
{
    const pkm_param_range *r = d->range;
    if (v >= r->min && v <= r->max) return PKM_OK;
    char text[40];
    snprintf(text, sizeof(text), integer ? "%.0f" : "%g", v);
    const char *sp = d->unit[0] ? " " : "";
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: parameter %s = %s%s%s is outside [%g, %g]%s%s (%s)",
                    c->name, d->key, text, sp, d->unit, r->min, r->max, sp, d->unit, r->why);
}

/* Entry d of params against its range or choices. */
static pkm_status check_entry(const pkm_case *c, const pkm_param_desc *d, const void *params,
                              pkm_ctx *ctx)
{
    const char *field = (const char *)params + d->offset;
    switch (d->kind) {
    case PKM_PARAM_DOUBLE:
        return check_range(c, d, *(const double *)(const void *)field, 0, ctx);
    case PKM_PARAM_INT:
        return check_range(c, d, (double)*(const int *)(const void *)field, 1, ctx);
    case PKM_PARAM_ENUM: {
        const unsigned v = *(const unsigned *)(const void *)field;
        for (const pkm_param_choice *ch = d->choices; ch->name != NULL; ch++)
            if (ch->value == v) return PKM_OK;
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: parameter %s = %u is not one of its choices",
                        c->name, d->key, v);
    }
    }
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: parameter %s has an unknown kind", c->name, d->key);
}

pkm_status pkm_case_params_check(const pkm_case *c, const void *params, pkm_ctx *ctx)
{
    for (int i = 0; i < c->nparams; i++) {
        const pkm_status rc = check_entry(c, &c->params[i], params, ctx);
        if (rc != PKM_OK) return rc;
    }
    return PKM_OK;
}

pkm_status pkm_case_param_set(const pkm_case *c, void *params, const char *key, const char *value,
                              pkm_ctx *ctx)
{
    const pkm_param_desc *d = pkm_case_param_find(c, key);
    if (d == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "%s: unknown parameter '%s' (pkmflex cases --show %s lists them)", c->name,
                        key, c->name);
    char *field = (char *)params + d->offset;
    switch (d->kind) {
    case PKM_PARAM_DOUBLE: {
        pkm_ctx local;
        pkm_ctx_clear(&local);
        double v = 0.0;
        if (pkm_quantity_parse(value, d->unit, &v, &local) != PKM_OK)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: parameter %s: %s", c->name, key, local.msg);
        const pkm_status rc = check_range(c, d, v, 0, ctx);
        if (rc == PKM_OK) *(double *)(void *)field = v;
        return rc;
    }
    case PKM_PARAM_INT: {
        char *end = NULL;
        errno = 0;
        const long v = strtol(value, &end, 10);
        if (end == value || *end != '\0' || errno != 0 || v < INT_MIN || v > INT_MAX)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: parameter %s: '%s' is not an integer",
                            c->name, key, value);
        const pkm_status rc = check_range(c, d, (double)v, 1, ctx);
        if (rc == PKM_OK) *(int *)(void *)field = (int)v;
        return rc;
    }
    case PKM_PARAM_ENUM: {
        for (const pkm_param_choice *ch = d->choices; ch->name != NULL; ch++)
            if (strcmp(ch->name, value) == 0) {
                *(unsigned *)(void *)field = ch->value;
                return PKM_OK;
            }
        char names[160];
        choice_names(d, names, sizeof(names));
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: parameter %s: '%s' is not one of %s", c->name,
                        key, value, names);
    }
    }
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: parameter %s has an unknown kind", c->name, key);
}
