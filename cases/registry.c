/* cases/registry.c: the list of built-in cases the command line looks up by name.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cases/cases_impl.h"

#include <stddef.h>
#include <string.h>

static const pkm_case *const case_list[] = {&pkm_navaro_case, &pkm_pss5upu_case, NULL};

const pkm_case *const *pkm_case_list(void)
{
    return case_list;
}

const pkm_case *pkm_case_find(const char *name)
{
    for (int i = 0; name != NULL && case_list[i] != NULL; i++)
        if (strcmp(case_list[i]->name, name) == 0) return case_list[i];
    return NULL;
}
