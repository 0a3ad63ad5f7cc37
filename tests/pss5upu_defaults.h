/* tests/pss5upu_defaults.h: the built-in 5-PSS/UPU parameters for the cmocka suites, with the
 * changes the transient suites make.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_PSS5UPU_DEFAULTS_H
#define PKM_TEST_PSS5UPU_DEFAULTS_H

#include "test_util.h"

#include <stdlib.h>

/* The values of cases/pss5upu.yaml (allocated; free it), with the variant given, the drive
 * stiffness motor.k and the links' and screws' E and G times stiffer. */
static inline pkm_pss5upu_params *pss5upu_params(pkm_pss5upu_variant variant, double motor_k,
                                                 double stiffer)
{
    pkm_pss5upu_params *p = calloc(1, sizeof(*p));
    assert_non_null(p);
    case_defaults("pss5upu", p, sizeof(*p));
    p->variant = variant;
    p->motor_k = motor_k;
    p->link_material.E *= stiffer;
    p->link_material.G *= stiffer;
    p->screw_material.E *= stiffer;
    p->screw_material.G *= stiffer;
    return p;
}

#endif
