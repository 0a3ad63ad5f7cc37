/* dynamics/friction.c: the joint friction laws of Guo, Ju, Wang 2024 (eqs. 40-42, 47, 52).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/friction.h"

#include "core/core_impl.h"

#include <math.h>

pkm_status pkm_friction_check(const pkm_friction *f, const char *joint, pkm_ctx *ctx)
{
    if (!f) return PKM_OK;
    const char *who = joint ? joint : "?";
    const struct {
        const char *name;
        double value;
    } field[] = {{"kc", f->kc},           {"kv", f->kv},        {"ks", f->ks}, {"vs", f->vs},
                 {"delta", f->delta},     {"rp", f->rp},        {"rn", f->rn}, {"rb", f->rb},
                 {"preload", f->preload}, {"normal", f->normal}};
    for (size_t i = 0; i < sizeof(field) / sizeof(field[0]); i++)
        if (!isfinite(field[i].value) || field[i].value < 0.0)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "joint %s: friction %s = %g must be finite and non-negative", who,
                            field[i].name, field[i].value);
    if (f->model != PKM_FRICTION_NONE && f->model != PKM_FRICTION_COULOMB_VISCOUS &&
        f->model != PKM_FRICTION_STRIBECK)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint %s: unknown friction model %d", who,
                        (int)f->model);
    if (f->model == PKM_FRICTION_STRIBECK) {
        if (f->ks < f->kc)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "joint %s: Stribeck static coefficient ks = %g below the Coulomb "
                            "coefficient kc = %g",
                            who, f->ks, f->kc);
        if (f->vs <= 0.0)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "joint %s: Stribeck velocity vs = %g must be positive", who, f->vs);
        if (f->delta <= 0.0)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "joint %s: Stribeck exponent delta = %g must be positive", who,
                            f->delta);
    }
    if (f->model != PKM_FRICTION_NONE && f->normal == 0.0) {
        const struct {
            const char *name;
            double value;
        } arm[] = {{"rp", f->rp}, {"rn", f->rn}, {"rb", f->rb}};
        for (size_t i = 0; i < sizeof(arm) / sizeof(arm[0]); i++)
            if (arm[i].value <= 0.0)
                return PKM_FAIL(ctx, PKM_ERR_INVALID,
                                "joint %s: friction arm %s = %g must be positive (or give a "
                                "constant normal load)",
                                who, arm[i].name, arm[i].value);
    }
    return PKM_OK;
}

double pkm_friction_normal(const pkm_friction *f, pkm_joint_type type, double f_axial,
                           double f_radial, double m_bending)
{
    if (!f || f->model == PKM_FRICTION_NONE) return 0.0;
    if (f->normal > 0.0) return f->normal;
    switch (type) {
    case PKM_JOINT_REVOLUTE:
    case PKM_JOINT_HELICAL:
        /* Guo et al. 2024, eq. 47, rebuilt so that every term is a moment: the pin of radius rp
         * carries the radial force and the bending moment spread over the arm rb; the axial
         * force acts at the thrust arm rn. */
        return f->rp * (f_radial + m_bending / f->rb) + f->rn * f_axial + f->preload;
    case PKM_JOINT_PRISMATIC:
        /* Guo et al. 2024, eq. 47 for a prismatic joint, as printed: f_axial is the twisting
         * moment about the guide (see friction.h). */
        return f_radial + m_bending / f->rb + f_axial / f->rn + f->preload;
    default:
        return 0.0;
    }
}

/* The magnitude of the velocity-dependent Coulomb part (the factor of sgn(v)): kc N, or the
 * Stribeck curve of Guo et al. 2024, eq. 52, with the exponent delta in place of 2. */
static double coulomb_level(const pkm_friction *f, double v, double normal)
{
    if (f->model != PKM_FRICTION_STRIBECK) return f->kc * normal;
    return (f->kc + (f->ks - f->kc) * exp(-pow(fabs(v) / f->vs, f->delta))) * normal;
}

double pkm_friction_force(const pkm_friction *f, double v, double normal)
{
    if (!f || f->model == PKM_FRICTION_NONE) return 0.0;
    const double sgn = v > 0.0 ? 1.0 : v < 0.0 ? -1.0 : 0.0;
    return coulomb_level(f, v, normal) * sgn + f->kv * v;
}

double pkm_friction_force_smooth(const pkm_friction *f, double v, double normal, double eps)
{
    if (!(eps > 0.0)) return pkm_friction_force(f, v, normal);
    if (!f || f->model == PKM_FRICTION_NONE) return 0.0;
    const double ramp = fmax(-1.0, fmin(1.0, v / eps));
    return coulomb_level(f, v, normal) * ramp + f->kv * v;
}
