/* tests/fuzz/fuzz_case_file.c: YAML case files (io/case_file.c) from arbitrary text.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Beyond the sanitizers, it checks the loader's contract: on success a case and parameters
 * inside every range (include/pkm/cases.h); on failure neither, and a FILE:LINE:COLUMN message. */
#include "fuzz_util.h"

#include "pkm/casefile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const pkm_case *c = NULL;
    void *params = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st =
        pkm_case_text_load((const char *)data, size, "fuzz.yaml", &c, &params, &ctx);
    if (st == PKM_OK) {
        pkm_ctx check;
        pkm_ctx_clear(&check);
        if (c == NULL || params == NULL || pkm_case_params_check(c, params, &check) != PKM_OK)
            abort();
    } else if (c != NULL || params != NULL || ctx.msg[0] == '\0') {
        abort();
    } else if (st == PKM_ERR_PARSE && strncmp(ctx.msg, "fuzz.yaml:", 10) != 0) {
        abort();
    }
    pkm_case_params_destroy(&params);
    return 0;
}
