/* cases/cases_impl.h: what the case files share with the registry.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_CASES_IMPL_H
#define PKM_CASES_IMPL_H

#include "pkm/cases.h"

/* The built-in cases, listed by cases/registry.c. */
extern const pkm_case pkm_navaro_case;
extern const pkm_case pkm_pss5upu_case;

/* cases/navaro.yaml, embedded at build time (cmake/PkmEmbed.cmake), NUL-terminated. */
extern const unsigned char pkm_navaro_yaml[];

/* cases/pss5upu.yaml, likewise. */
extern const unsigned char pkm_pss5upu_yaml[];

#endif
