/* core/status.c: status strings and the error context.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *pkm_status_str(pkm_status status)
{
    switch (status) {
#define PKM_STATUS_CASE_(name, value, text)                                                        \
    case name:                                                                                     \
        return text;
        PKM_STATUS_LIST(PKM_STATUS_CASE_)
#undef PKM_STATUS_CASE_
    }
    return "unknown status";
}

void pkm_ctx_clear(pkm_ctx *ctx)
{
    if (ctx == NULL) return;
    memset(ctx, 0, sizeof(*ctx));
}

pkm_status pkm_ctx_fail(pkm_ctx *ctx, pkm_status status, const char *file, int line,
                        const char *fmt, ...)
{
    /* Keep the first cause: later failures are usually consequences of it. */
    if (ctx == NULL || ctx->status != PKM_OK) return status;
    ctx->status = status;
    ctx->file = file;
    ctx->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->msg, sizeof(ctx->msg), fmt, ap);
    va_end(ap);
    return status;
}

const char *pkm_at_time(double t, char buf[PKM_AT_TIME_LEN])
{
    buf[0] = '\0';
    if (t == t) snprintf(buf, PKM_AT_TIME_LEN, " at t = %g", t); /* t != t: NaN */
    return buf;
}
