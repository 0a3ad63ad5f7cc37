/* cases/cases_impl.h: what the case files share with the registry.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_CASES_IMPL_H
#define PKM_CASES_IMPL_H

#include "pkm/cases.h"

/* A NaVARo leg A-D-E of side l reaches |AE| = s only inside (REACH_RTOL 2l, (1 - REACH_RTOL) 2l)
 * (relative to the leg's span 2l): at the ends the elbow angle acos(s / 2l) has an infinite
 * slope (a serial singularity). 1 - 1e-9 is 4.5e6 DBL_EPSILON below 1, so the elbow angle,
 * sqrt(2e-9) = 4.5e-5 rad there, is still computed to about 1e-7 relative. */
#define PKM_NAVARO_REACH_RTOL 1e-9

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
