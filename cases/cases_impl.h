/* cases/cases_impl.h: what the case files share with the registry.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_CASES_IMPL_H
#define PKM_CASES_IMPL_H

#include "pkm/cases.h"

/* The built-in cases, listed by cases/registry.c. */

/* The pose dimension n of a case's definition (.npose = PKM_CASE_NPOSE(3)): a case declaring more
 * than PKM_POSE_MAX coordinates does not compile ("size of array is negative"), so no case with
 * more can be registered. */
#define PKM_CASE_NPOSE(n) ((int)sizeof(char[(n) >= 1 && (n) <= PKM_POSE_MAX ? (n) : -1]))

extern const pkm_case pkm_navaro_case;
extern const pkm_case pkm_pss5upu_case;

/* cases/navaro.yaml, embedded at build time (cmake/PkmEmbed.cmake), NUL-terminated. */
extern const unsigned char pkm_navaro_yaml[];

/* cases/pss5upu.yaml, likewise. */
extern const unsigned char pkm_pss5upu_yaml[];

#endif
