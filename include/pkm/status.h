/* include/pkm/status.h: the one list of status codes and the caller-owned error context.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every fallible call returns a pkm_status; PKM_OK is 0 and errors are negative. The details of
 * the first failure (message, source file and line) go into a pkm_ctx owned by the caller. The
 * library never prints: the command line decides what to show. */
#ifndef PKM_STATUS_H
#define PKM_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* X-macro list: name, value, short description. */
#define PKM_STATUS_LIST(X)                                                                         \
    X(PKM_OK, 0, "success")                                                                        \
    X(PKM_ERR_NOMEM, -1, "out of memory")                                                          \
    X(PKM_ERR_INVALID, -2, "invalid argument or parameter")                                        \
    X(PKM_ERR_MODEL, -3, "ill-formed mechanism model")                                             \
    X(PKM_ERR_UNREACHABLE, -4, "pose out of the workspace")                                        \
    X(PKM_ERR_SINGULAR, -5, "singular or ill-conditioned pencil")                                  \
    X(PKM_ERR_SOLVER, -6, "eigensolver or factorisation failure")                                  \
    X(PKM_ERR_NOCONV, -7, "eigensolver did not converge")                                          \
    X(PKM_ERR_IO, -8, "file input/output error")                                                   \
    X(PKM_ERR_PARSE, -9, "malformed input")                                                        \
    X(PKM_ERR_ACCURACY, -10, "eigen-solution failed its residual, orthogonality or accuracy check")

typedef enum pkm_status {
#define PKM_STATUS_ENUM_(name, value, text) name = value,
    PKM_STATUS_LIST(PKM_STATUS_ENUM_)
#undef PKM_STATUS_ENUM_
} pkm_status;

/* Caller-owned error context. Plain struct: declare one on the stack and zero it with
 * pkm_ctx_clear(). Only the first failure is kept until the next clear. */
typedef struct pkm_ctx {
    pkm_status status; /* first error recorded, PKM_OK if none */
    const char *file;  /* library source file that recorded it */
    int line;          /* line in that file */
    char msg[512];     /* human-readable cause, no trailing newline */
} pkm_ctx;

/* Short description of a status code ("success", "out of memory", ...). Never NULL. */
const char *pkm_status_str(pkm_status status);

/* Reset ctx to "no error". NULL-safe. */
void pkm_ctx_clear(pkm_ctx *ctx);

/* Record a failure in ctx (if none is recorded yet) and return status. NULL ctx is allowed.
 * Library code calls it through PKM_FAIL in core_impl.h. */
pkm_status pkm_ctx_fail(pkm_ctx *ctx, pkm_status status, const char *file, int line,
                        const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
