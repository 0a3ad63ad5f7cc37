/* studies/map_attrs.c: the settings and provenance of a pkm_map, one entry per root attribute of
 * a map file (pkm/map.h, pkm_map_attrs), and the resume check that compares two maps by it.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "core/core_impl.h"
#include "pkm/eigensolver.h"
#include "pkm/map.h"
#include "studies/studies_impl.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(pkm_formulation) == sizeof(int) && sizeof(pkm_eigensolver) == sizeof(int) &&
                   sizeof(pkm_tracking) == sizeof(int),
               "a CHOICE field is read and written as an int");

static const char *formulation_choice(int v)
{
    const pkm_formulation_type *t = pkm_formulation_type_of((pkm_formulation)v);
    return t != NULL ? t->name : NULL;
}

static const char *eigensolver_choice(int v)
{
    const pkm_eigensolver_type *t = pkm_eigensolver_type_of((pkm_eigensolver)v);
    return t != NULL ? t->name : NULL;
}

static const char *tracking_choice(int v)
{
    static const char *const names[] = {[PKM_TRACK_RANK] = "rank", [PKM_TRACK_MAC] = "mac"};
    return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : NULL;
}

/* Designated initialisers of the table's entries. */
#define FIELD_AT(f) .offset = offsetof(pkm_map, f), .size = sizeof(((pkm_map *)0)->f)
#define STR(n, f, v, s)                                                                            \
    {                                                                                              \
        .name = n, .kind = PKM_MAP_ATTR_STRING, FIELD_AT(f), .since = v, .same = s                 \
    }
#define VALUE(g, l) .same = PKM_MAP_SAME_VALUE, .group = g, .label = l
#define INT(n, f, l, h)                                                                            \
    .name = n, .kind = PKM_MAP_ATTR_INT, FIELD_AT(f), .lo = l, .hi = h, .since = 1
#define DBL(n, f, v)     .name = n, .kind = PKM_MAP_ATTR_DOUBLE, FIELD_AT(f), .since = v
#define CHOICE(n, f, fn) .name = n, .kind = PKM_MAP_ATTR_CHOICE, FIELD_AT(f), .choice = fn

/* In the order of the file's root attributes, after format and format_version:
 * a reader fills pose_names (npose) before base_pose, and axes before the grid. */
const pkm_map_attr pkm_map_attrs[] = {
    {.name = "case",
     .kind = PKM_MAP_ATTR_STRING,
     FIELD_AT(case_name),
     .since = 1,
     VALUE("case ", "'%s'")},
    STR("case_parameters", case_params, 2, PKM_MAP_RECORD),
    {.name = "pose_names",
     .kind = PKM_MAP_ATTR_LIST,
     FIELD_AT(pose_names[0]),
     .stride = PKM_MAP_NAME_LEN,
     .count_offset = offsetof(pkm_map, npose),
     .max_count = PKM_POSE_MAX,
     .since = 1,
     .same = PKM_MAP_SAME_GRID},
    {.name = "base_pose",
     .kind = PKM_MAP_ATTR_DOUBLES,
     FIELD_AT(base_pose),
     .count_offset = offsetof(pkm_map, npose),
     .since = 1,
     .same = PKM_MAP_SAME_GRID},
    {.name = "axes",
     .kind = PKM_MAP_ATTR_LIST,
     FIELD_AT(axes[0].name),
     .stride = sizeof(pkm_map_axis),
     .count_offset = offsetof(pkm_map, naxes),
     .max_count = PKM_MAP_MAX_AXES,
     .since = 1,
     .same = PKM_MAP_SAME_GRID},
    {.name = "pkmflex_version",
     .kind = PKM_MAP_ATTR_STRING,
     FIELD_AT(version),
     .since = 1,
     VALUE("pkmflex ", "%s")},
    {.name = "pkmflex_commit",
     .kind = PKM_MAP_ATTR_STRING,
     FIELD_AT(commit),
     .since = 3,
     VALUE("pkmflex ", " (commit %s)")},
    STR("case_file", case_file, 3, PKM_MAP_RECORD),
    /* The case file's bytes are not compared: its parameters are, by value. */
    STR("case_file_sha256", case_sha256, 3, PKM_MAP_RECORD),
    {.name = "created", .kind = PKM_MAP_ATTR_WRITTEN, .since = 1, .same = PKM_MAP_RECORD},
    {CHOICE("formulation", formulation, formulation_choice), .since = 1,
     VALUE("formulation/eigensolver ", "%s")},
    {CHOICE("eigensolver", eigensolver, eigensolver_choice), .since = 1,
     VALUE("formulation/eigensolver ", "/%s")},
    {INT("nev", nev, 1, INT32_MAX), VALUE("nev ", "%s")},
    {INT("ncv", opts.ncv, 0, INT32_MAX), VALUE("solver settings ", "ncv %s")},
    {DBL("sigma", opts.sigma, 1), VALUE("solver settings ", ", sigma %s")},
    {DBL("tol", opts.tol, 1), VALUE("solver settings ", ", tol %s")},
    {INT("maxiter", opts.maxiter, 0, INT32_MAX), VALUE("solver settings ", ", maxiter %s")},
    {DBL("max_residual", opts.max_residual, 1), VALUE("solver settings ", ", max_residual %s")},
    {DBL("max_backward_error", opts.max_backward_error, 3),
     VALUE("solver settings ", ", max_backward_error %s")},
    {INT("ncoord", ncoord, 0, INT64_MAX), .same = PKM_MAP_RECORD},
    {CHOICE("tracking", tracking, tracking_choice), .since = 2, .same = PKM_MAP_RECORD},
    STR("tracking_note", tracking_note, 2, PKM_MAP_RECORD),
    {DBL("mac_threshold", track.mac_threshold, 2), VALUE("tracking MAC threshold ", "%s")},
    {DBL("cluster_tol", track.cluster_tol, 2),
     VALUE("tracking MAC threshold ", ", cluster tolerance %s")},
    {.name = "solver_fallbacks",
     .kind = PKM_MAP_ATTR_INT,
     FIELD_AT(solver_fallbacks),
     .lo = 0,
     .hi = INT64_MAX,
     .since = 4,
     .same = PKM_MAP_RECORD},
    {.name = "parameter_keys",
     .kind = PKM_MAP_ATTR_PARAMS,
     .since = 3,
     .same = PKM_MAP_SAME_PARAMS},
};
const int pkm_map_attr_count = (int)(sizeof(pkm_map_attrs) / sizeof(pkm_map_attrs[0]));

static int field_int(const pkm_map_attr *e, const pkm_map *map)
{
    int v;
    memcpy(&v, (const char *)map + e->offset, sizeof(v));
    return v;
}

void pkm_map_attr_text(const pkm_map_attr *e, const pkm_map *map, char *out, size_t cap)
{
    const char *field = (const char *)map + e->offset;
    out[0] = '\0';
    if (e->kind == PKM_MAP_ATTR_STRING) {
        snprintf(out, cap, "%.*s", (int)strnlen(field, e->size), field);
    } else if (e->kind == PKM_MAP_ATTR_INT) {
        int64_t v = 0;
        if (e->size == sizeof(int))
            v = field_int(e, map);
        else
            memcpy(&v, field, sizeof(v));
        snprintf(out, cap, "%lld", (long long)v);
    } else if (e->kind == PKM_MAP_ATTR_DOUBLE) {
        double v;
        memcpy(&v, field, sizeof(v));
        snprintf(out, cap, "%g", v);
    } else if (e->kind == PKM_MAP_ATTR_CHOICE) {
        const int v = field_int(e, map);
        const char *name = e->choice(v);
        if (name != NULL)
            snprintf(out, cap, "%s", name);
        else
            snprintf(out, cap, "%d", v);
    } else if (e->kind == PKM_MAP_ATTR_LIST || e->kind == PKM_MAP_ATTR_DOUBLES) {
        int n;
        memcpy(&n, (const char *)map + e->count_offset, sizeof(n));
        size_t len = 0;
        for (int k = 0; k < n && len < cap; k++) {
            const char *sep = k > 0 ? "," : "";
            if (e->kind == PKM_MAP_ATTR_LIST)
                len += (size_t)snprintf(out + len, cap - len, "%s%s", sep, field + k * e->stride);
            else
                len += (size_t)snprintf(out + len, cap - len, "%s%g", sep,
                                        ((const double *)(const void *)field)[k]);
        }
    }
}

/* Equal numbers: values that went through a file come back bit for bit; NaN (automatic sigma)
 * equals NaN. */
int pkm_map_same_value(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static int same_entry(const pkm_map_attr *e, const pkm_map *a, const pkm_map *b)
{
    const char *x = (const char *)a + e->offset, *y = (const char *)b + e->offset;
    if (e->kind == PKM_MAP_ATTR_STRING) return strncmp(x, y, e->size) == 0;
    if (e->kind == PKM_MAP_ATTR_DOUBLE) {
        double u, v;
        memcpy(&u, x, sizeof(u));
        memcpy(&v, y, sizeof(v));
        return pkm_map_same_value(u, v);
    }
    return memcmp(x, y, e->size) == 0; /* INT, CHOICE */
}

/* "group a1 a2 ... against b1 b2 ..." for the entries [first, end) of one group. */
static pkm_status report_group(int first, int end, const pkm_map *a, const pkm_map *b, pkm_ctx *ctx)
{
    char msg[1024], value[256];
    size_t len = (size_t)snprintf(msg, sizeof(msg), "%s", pkm_map_attrs[first].group);
    for (int side = 0; side < 2; side++) {
        if (side == 1 && len < sizeof(msg))
            len += (size_t)snprintf(msg + len, sizeof(msg) - len, " against ");
        for (int i = first; i < end && len < sizeof(msg); i++) {
            /* the label with its %s replaced by the value */
            const char *label = pkm_map_attrs[i].label, *at = strstr(label, "%s");
            pkm_map_attr_text(&pkm_map_attrs[i], side ? b : a, value, sizeof(value));
            len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%.*s%s%s", (int)(at - label),
                                    label, value, at + 2);
        }
    }
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s", msg);
}

pkm_status pkm_map_same_setup(const pkm_map *a, const pkm_map *b, pkm_ctx *ctx)
{
    int grid_done = 0;
    for (int i = 0; i < pkm_map_attr_count;) {
        const pkm_map_attr *e = &pkm_map_attrs[i];
        pkm_status st = PKM_OK;
        int end = i + 1;
        if (e->same == PKM_MAP_SAME_GRID && !grid_done) {
            grid_done = 1;
            st = pkm_map_same_grid(a, b, ctx);
        } else if (e->same == PKM_MAP_SAME_PARAMS) {
            st = pkm_map_same_params(a, b, ctx);
        } else if (e->same == PKM_MAP_SAME_VALUE) {
            int differ = 0;
            for (end = i;
                 end < pkm_map_attr_count && pkm_map_attrs[end].same == PKM_MAP_SAME_VALUE &&
                 strcmp(pkm_map_attrs[end].group, e->group) == 0;
                 end++)
                differ |= !same_entry(&pkm_map_attrs[end], a, b);
            if (differ) st = report_group(i, end, a, b, ctx);
        }
        if (st != PKM_OK) return st;
        i = end;
    }
    return PKM_OK;
}
