/* solvers/xerbla.c: LAPACK's error handler, replaced so that an illegal argument becomes a
 * PKM_ERR_SOLVER instead of the end of the process.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reference LAPACK (and the BLAS, ARPACK and CHOLMOD calls into it) report an illegal argument by
 * CALL XERBLA(name, i), whose default prints "On entry to NAME parameter number i had an illegal
 * value" on stdout and STOPs with status 0 (issue 8: `modes navaro --set leg.A=1e300` ended that
 * way inside dsaupd, and a map then wrote no file). LAPACK's documentation invites applications
 * to supply their own XERBLA; the dynamic linker binds the libraries' calls to the executable's
 * definition, which comes from this object: modal.c and modal_dense.c call pkm_lapack_check, so
 * it is linked into every program that can reach LAPACK through the library. (Checked with nm:
 * libarpack.so.2 imports dlascl_ and dsteqr_; liblapack.so.3, built without -Bsymbolic, defines
 * and calls xerbla_ and xerbla_array_; the pkmflex executable exports our xerbla_ in its
 * dynamic symbol table, which tests/cli/checks.sh checks.)
 *
 * The one piece of global state of the library, and why: XERBLA has no user pointer, so the
 * report can only go through a variable, and the caller that checks it may be any thread; a
 * thread-local variable is read and cleared by the same thread's pkm_lapack_check right after
 * the call that set it, so no report leaks into another solve. */
#include "solvers/solvers_impl.h"
#include "core/core_impl.h"

#include <stddef.h>
#include <string.h>

typedef struct lapack_report {
    int set;
    int arg;          /* 1-based position of the illegal argument */
    char routine[16]; /* the routine's name, as LAPACK passes it (blank-padded, not terminated) */
} lapack_report;

static _Thread_local lapack_report pending;

static void record(const char *name, size_t len, int arg)
{
    if (pending.set) return; /* the first report names the cause */
    while (len > 0 && name[len - 1] == ' ')
        len--;
    if (len >= sizeof(pending.routine)) len = sizeof(pending.routine) - 1;
    memcpy(pending.routine, name, len);
    pending.routine[len] = '\0';
    pending.arg = arg;
    pending.set = 1;
}

/* SUBROUTINE XERBLA(SRNAME, INFO): CHARACTER*(*) SRNAME, INTEGER INFO; the trailing size_t is
 * the hidden length of SRNAME (GNU Fortran argument passing). Returns instead of STOP: the
 * routine that called it then returns with its INFO < 0 and no work done. */
void xerbla_(const char *srname, const int *info, size_t srname_len);
void xerbla_(const char *srname, const int *info, size_t srname_len)
{
    record(srname, srname_len, info != NULL ? *info : 0);
}

/* SUBROUTINE XERBLA_ARRAY(SRNAME_ARRAY, SRNAME_LEN, INFO): the C-callable variant (LAPACK 3.2). */
void xerbla_array_(const char *srname_array, const int *srname_len, const int *info, size_t len);
void xerbla_array_(const char *srname_array, const int *srname_len, const int *info, size_t len)
{
    (void)len;
    record(srname_array, srname_len != NULL && *srname_len > 0 ? (size_t)*srname_len : 0,
           info != NULL ? *info : 0);
}

pkm_status pkm_lapack_check(const char *site, pkm_ctx *ctx)
{
    if (!pending.set) return PKM_OK;
    const lapack_report r = pending;
    pending.set = 0;
    return PKM_FAIL(ctx, PKM_ERR_SOLVER,
                    "%s: LAPACK routine %s rejected its argument %d (non-finite or out-of-range "
                    "values reached the eigensolver)",
                    site, r.routine[0] != '\0' ? r.routine : "?", r.arg);
}

void pkm_lapack_clear(void)
{
    pending.set = 0;
}
