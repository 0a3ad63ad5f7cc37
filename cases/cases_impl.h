/* cases/cases_impl.h: the built-in cases' descriptors, gathered by the registry (registry.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_CASES_IMPL_H
#define PKM_CASES_IMPL_H

#include "pkm/cases.h"

extern const pkm_case pkm_navaro_case;
extern const pkm_case pkm_pss5upu_case;

#endif
