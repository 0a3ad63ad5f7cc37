/* tests/navaro_defaults.h: the built-in NaVARo parameters for the cmocka suites.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_NAVARO_DEFAULTS_H
#define PKM_TEST_NAVARO_DEFAULTS_H

#include "test_util.h"

/* The values of cases/navaro.yaml, as the command line gets them (its embedded copy). */
static inline pkm_navaro_params navaro_defaults(void)
{
    pkm_navaro_params par;
    case_defaults("navaro", &par, sizeof(par));
    return par;
}

#endif
