/* tests/layers/case_npose_probe.c: a case definition's pose dimension PKM_PROBE_NPOSE through
 * PKM_CASE_NPOSE (the case_npose_* tests of tests/CMakeLists.txt).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cases/cases_impl.h"

static const pkm_case probe_case = {.name = "probe", .npose = PKM_CASE_NPOSE(PKM_PROBE_NPOSE)};

int pkm_case_npose_probe(void);
int pkm_case_npose_probe(void)
{
    return probe_case.npose;
}
