/* cases/units.c: quantities with units for the parameter tables (--set, case files).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A small fixed list on purpose: the units in which robot data are printed (mm, MPa, GPa,
 * g/cm^3, mm^4, deg), each tied to the SI unit of its dimension. Dimensions are compared by that
 * SI unit's name, so a parameter declared in "m" accepts exactly the length units below. */
#include "core/core_impl.h"
#include "pkm/cases.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SI units a parameter table may declare and what they measure (for messages). */
static const struct {
    const char *si;
    const char *dimension;
} dimensions[] = {
    {"m", "a length"},
    {"m^2", "an area"},
    {"m^4", "a second moment of area"},
    {"Pa", "a stress"},
    {"kg", "a mass"},
    {"kg/m^3", "a density"},
    {"kg m^2", "a moment of inertia"},
    {"rad", "an angle"},
    {"N/m", "a stiffness"},
    {"N m/rad", "a rotational stiffness"},
    {"m/s^2", "an acceleration"},
    {"m/s", "a velocity"},
    {"rad/s", "an angular velocity"},
    {"rad/s^2", "an angular acceleration"},
    {"N s/m", "a viscous damping coefficient"},
    {"N m s/rad", "a rotational viscous damping coefficient"},
    {"N", "a force"},
    {"s", "a time"},
    {"Hz", "a frequency"},
    {"", "a pure number"},
};

/* value [si] = number x 10^pow10 x factor. The decimal part is applied to the number's text,
 * so "210 mm" rounds once, to the double nearest 0.21; factor is 1 except for degrees. */
static const struct {
    const char *name;
    const char *si;
    int pow10;
    double factor;
} units[] = {
    {"m", "m", 0, 1.0},
    {"cm", "m", -2, 1.0},
    {"mm", "m", -3, 1.0},
    {"m^2", "m^2", 0, 1.0},
    {"cm^2", "m^2", -4, 1.0},
    {"mm^2", "m^2", -6, 1.0},
    {"m^4", "m^4", 0, 1.0},
    {"cm^4", "m^4", -8, 1.0},
    {"mm^4", "m^4", -12, 1.0},
    {"Pa", "Pa", 0, 1.0},
    {"kPa", "Pa", 3, 1.0},
    {"MPa", "Pa", 6, 1.0},
    {"GPa", "Pa", 9, 1.0},
    {"N/mm^2", "Pa", 6, 1.0},
    {"kg", "kg", 0, 1.0},
    {"g", "kg", -3, 1.0},
    {"kg/m^3", "kg/m^3", 0, 1.0},
    {"g/cm^3", "kg/m^3", 3, 1.0},
    {"kg m^2", "kg m^2", 0, 1.0},
    {"g cm^2", "kg m^2", -7, 1.0},
    {"kg mm^2", "kg m^2", -6, 1.0},
    {"g mm^2", "kg m^2", -9, 1.0},
    {"rad", "rad", 0, 1.0},
    {"deg", "rad", 0, PKM_PI / 180.0},
    {"N/m", "N/m", 0, 1.0},
    {"N/mm", "N/m", 3, 1.0},
    {"N m/rad", "N m/rad", 0, 1.0},
    {"N m/deg", "N m/rad", 0, 180.0 / PKM_PI},
    {"N", "N", 0, 1.0},
    {"m/s^2", "m/s^2", 0, 1.0},
    {"mm/s^2", "m/s^2", -3, 1.0},
    {"m/s", "m/s", 0, 1.0},
    {"mm/s", "m/s", -3, 1.0},
    {"rad/s", "rad/s", 0, 1.0},
    {"deg/s", "rad/s", 0, PKM_PI / 180.0},
    {"rad/s^2", "rad/s^2", 0, 1.0},
    {"deg/s^2", "rad/s^2", 0, PKM_PI / 180.0},
    {"N s/m", "N s/m", 0, 1.0},
    {"N m s/rad", "N m s/rad", 0, 1.0},
    {"s", "s", 0, 1.0},
    {"ms", "s", -3, 1.0},
    {"Hz", "Hz", 0, 1.0},
};

/* The ranges of the parameter tables (include/pkm/cases.h). Each is what a robot, or a limit
 * study of one, may need; together they keep every entry of the beam matrices finite: the
 * largest, 12 E I / h^3 = 12 x 1e18 x 1e4 / (1e-6 / 4096)^3, is about 1e52, the smallest mass
 * term rho A h = 0.1 x 1e-12 x 1e-6 / 4096 about 2e-23. */
const pkm_param_range pkm_range_length = {1e-6, 1e3,
                                          "a micrometre to a kilometre: micro-robots to gantries"};
const pkm_param_range pkm_range_area = {1e-12, 1e2, "sections of 1 um to 10 m side"};
const pkm_param_range pkm_range_moment = {1e-26, 1e4, "sections of 1 um to 10 m side, s^4/12"};
const pkm_param_range pkm_range_modulus = {
    1e3, 1e18, "soft foams (kPa) to a million times steel, for near-rigid limit studies"};
const pkm_param_range pkm_range_density = {0.1, 1e5,
                                           "below aerogels to beyond osmium, 22 590 kg/m^3"};
const pkm_param_range pkm_range_mass = {0.0, 1e6, "massless to a thousand tonnes"};
const pkm_param_range pkm_range_inertia = {0.0, 1e6, "massless to a thousand tonnes at 1 m"};
/* A clutch or drive stiffness: 0 leaves the joint locked (the case's default), and 1e12 N m/rad
 * (N/m) is stiffer than any drive by six orders, the welded limit to 1e-6 or better. */
const pkm_param_range pkm_range_joint_stiffness = {
    0.0, 1e12, "0 (locked) to 1e12 N m/rad or N/m, the welded limit"};
const pkm_param_range pkm_range_angle = {-4.0 * PKM_PI, 4.0 * PKM_PI, "two turns either way"};
/* K's condition number grows like (L/h)^4 (issue 8): at 4096 elements a link's factor 2.8e14
 * leaves no correct digit of a double, and ARPACK converged nothing after 148 s. */
const pkm_param_range pkm_range_elements = {
    1, 4096, "beyond 4096 K's condition (L/h)^4 = 2.8e14 leaves no digit in double precision"};

/* The rigid-body data (Guo et al. 2024, Tables 2 and 3, and the friction laws of its eqs. 40-42
 * and 52). */
const pkm_param_range pkm_range_position = {-1e3, 1e3, "a kilometre either way"};
const pkm_param_range pkm_range_acceleration = {-1e4, 1e4, "a thousand g either way"};
const pkm_param_range pkm_range_friction = {0.0, 10.0, "frictionless to ten times the load"};
const pkm_param_range pkm_range_load = {-1e10, 1e10, "up to a million tonnes-force"};
const pkm_param_range pkm_range_viscous = {0.0, 1e6, "none to a million N m s/rad (N s/m)"};
const pkm_param_range pkm_range_velocity = {1e-9, 1e3, "a nanoradian (nm) to 1000 rad/s (m/s)"};
const pkm_param_range pkm_range_exponent = {0.1, 10.0, "Stribeck exponents of 0.1 to 10"};

#define NDIMS  (sizeof(dimensions) / sizeof(dimensions[0]))
#define NUNITS (sizeof(units) / sizeof(units[0]))

static const char *dimension_of(const char *si)
{
    for (size_t k = 0; k < NDIMS; k++)
        if (strcmp(dimensions[k].si, si) == 0) return dimensions[k].dimension;
    return NULL;
}

/* "a length in m (m, cm, mm)": what a parameter in SI unit si accepts. */
static void describe(const char *si, char *buf, size_t size)
{
    if (si[0] == '\0') {
        snprintf(buf, size, "a pure number without unit");
        return;
    }
    int n = snprintf(buf, size, "%s in %s (", dimension_of(si), si);
    const char *sep = "";
    for (size_t k = 0; k < NUNITS && n > 0 && (size_t)n < size; k++)
        if (strcmp(units[k].si, si) == 0) {
            n += snprintf(buf + n, size - (size_t)n, "%s%s", sep, units[k].name);
            sep = ", ";
        }
    if (n > 0 && (size_t)n < size) snprintf(buf + n, size - (size_t)n, ")");
}

/* Length of the decimal number at s: [+-]digits[.digits][(e|E)[+-]digits], at least one digit
 * in the mantissa; 0 if s does not start with one. *mant is the length of the mantissa part. */
static size_t scan_number(const char *s, size_t *mant)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-') i++;
    for (; isdigit((unsigned char)s[i]); i++)
        digits++;
    if (s[i] == '.')
        for (i++; isdigit((unsigned char)s[i]); i++)
            digits++;
    if (digits == 0) return 0;
    *mant = i;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-') j++;
        if (isdigit((unsigned char)s[j])) {
            while (isdigit((unsigned char)s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

pkm_status pkm_quantity_parse(const char *text, const char *unit, double *value, pkm_ctx *ctx)
{
    if (dimension_of(unit) == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "unit '%s' is not one of the SI units of a table",
                        unit);
    char want[160];
    describe(unit, want, sizeof(want));
    const char *s = text;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t mant = 0;
    const size_t len = scan_number(s, &mant);
    if (len == 0 || mant >= 64)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "'%s' is not a number: expected %s", text, want);
    long exp10 = 0;
    if (len > mant) {
        errno = 0;
        exp10 = strtol(s + mant + 1, NULL, 10);
        if (errno != 0 || exp10 > 100000 || exp10 < -100000)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "'%s' is out of range", text);
    }
    /* The unit: the rest without surrounding blanks, '*' read as the space of a product. */
    char u[32];
    size_t n = 0;
    for (const char *p = s + len; *p != '\0'; p++) {
        const char ch = (*p == '*' || *p == '\t') ? ' ' : *p;
        if (ch == ' ' && (n == 0 || u[n - 1] == ' ')) continue;
        if (n + 1 >= sizeof(u))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "'%s': unknown unit, expected %s", text, want);
        u[n++] = ch;
    }
    while (n > 0 && u[n - 1] == ' ')
        n--;
    u[n] = '\0';
    int pow10 = 0;
    double factor = 1.0;
    if (n > 0) {
        size_t k = 0;
        while (k < NUNITS && strcmp(units[k].name, u) != 0)
            k++;
        if (k == NUNITS)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "'%s': unknown unit '%s', expected %s", text, u,
                            want);
        if (strcmp(units[k].si, unit) != 0)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "'%s': unit '%s' is %s, expected %s", text, u,
                            dimension_of(units[k].si), want);
        pow10 = units[k].pow10;
        factor = units[k].factor;
    }
    char num[96];
    snprintf(num, sizeof(num), "%.*se%ld", (int)mant, s, exp10 + pow10);
    errno = 0;
    const double v = strtod(num, NULL) * factor;
    if (errno == ERANGE || !isfinite(v))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "'%s' is out of range", text);
    *value = v;
    return PKM_OK;
}
