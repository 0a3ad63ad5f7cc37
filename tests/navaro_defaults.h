/* tests/navaro_defaults.h: the built-in NaVARo parameters for the cmocka suites.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_NAVARO_DEFAULTS_H
#define PKM_TEST_NAVARO_DEFAULTS_H

#include "test_util.h"

#include "pkm/casefile.h"

/* The values of cases/navaro.yaml, as the command line gets them (its embedded copy). */
static inline pkm_navaro_params navaro_defaults(void)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *p = NULL;
    assert_pkm_ok(pkm_case_params_create(pkm_case_find("navaro"), &p, &ctx), &ctx);
    const pkm_navaro_params par = *(const pkm_navaro_params *)p;
    pkm_case_params_destroy(&p);
    return par;
}

#endif
