/* tests/test_util.h: what the cmocka suites share: tolerance assertions (cmocka 1.1.5 has no
 * double assert), status checks, a case's default parameters.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_TEST_UTIL_H
#define PKM_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

#include "pkm/assembly.h"
#include "pkm/casefile.h"
#include "pkm/cases.h"
#include "pkm/modal.h"
#include "pkm/model.h"
#include "pkm/pencil.h"
#include "pkm/status.h"

#include <string.h>

/* |a - b| <= rtol * max(|a|, |b|) + atol, with both values in the failure message. */
#define assert_close(a, b, rtol, atol)                                                             \
    do {                                                                                           \
        double pkm_a_ = (a), pkm_b_ = (b);                                                         \
        double pkm_s_ = fmax(fabs(pkm_a_), fabs(pkm_b_));                                          \
        if (!(fabs(pkm_a_ - pkm_b_) <= (rtol)*pkm_s_ + (atol))) {                                  \
            print_error("%s = %.17g, %s = %.17g, rel. diff %.3e > rtol %.1e (atol %.1e)\n", #a,    \
                        pkm_a_, #b, pkm_b_, fabs(pkm_a_ - pkm_b_) / (pkm_s_ > 0 ? pkm_s_ : 1.0),   \
                        (double)(rtol), (double)(atol));                                           \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* Assert a pkm call returned PKM_OK, printing the context message otherwise. */
#define assert_pkm_ok(call, ctx)                                                                   \
    do {                                                                                           \
        pkm_status pkm_st_ = (call);                                                               \
        if (pkm_st_ != PKM_OK) {                                                                   \
            print_error("%s returned %d (%s): %s\n", #call, (int)pkm_st_, pkm_status_str(pkm_st_), \
                        (ctx)->msg);                                                               \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* build(params, pose, &model, &ctx) (a case's build function) refuses with PKM_ERR_INVALID, makes
 * no model, and its message contains what (NULL: not checked). */
#define assert_build_invalid(build, params, pose, what)                                            \
    do {                                                                                           \
        pkm_ctx pkm_c_;                                                                            \
        pkm_ctx_clear(&pkm_c_);                                                                    \
        pkm_model *pkm_m_ = NULL;                                                                  \
        const char *pkm_w_ = (what);                                                               \
        assert_int_equal(build((params), (pose), &pkm_m_, &pkm_c_), PKM_ERR_INVALID);              \
        assert_null(pkm_m_);                                                                       \
        if (pkm_w_ != NULL) assert_non_null(strstr(pkm_c_.msg, pkm_w_));                           \
    } while (0)

/* The pencil (formulation f; info may be NULL) of case name's model with params at pose: built by
 * the case's build function (which checks params first), assembled, the model destroyed; both
 * must succeed (pkm_pencil_destroy). */
static inline pkm_pencil *case_pencil(const char *name, const void *params, const double *pose,
                                      pkm_formulation f, pkm_assembly_info *info)
{
    const pkm_case *c = pkm_case_find(name);
    assert_non_null(c);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(c->build(params, pose, &m, &ctx), &ctx);
    pkm_pencil *p = NULL;
    assert_pkm_ok(pkm_assemble(m, f, &p, info, &ctx), &ctx);
    pkm_model_destroy(&m);
    return p;
}

/* The modes of p for options o (o->nev of them) by the dense solver (LAPACK) or by ARPACK
 * shift-invert, which must succeed (pkm_modes_destroy). */
static inline pkm_modes *modes_with(const pkm_pencil *p, const pkm_modal_opts *o, int dense)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_modes *md = NULL;
    assert_pkm_ok(pkm_modes_create(p->n, o->nev, &md, &ctx), &ctx);
    if (dense) {
        assert_pkm_ok(pkm_modal_solve_dense(p, o, md, &ctx), &ctx);
    } else {
        pkm_modal *s = NULL;
        assert_pkm_ok(pkm_modal_create(p, &s, &ctx), &ctx);
        assert_pkm_ok(pkm_modal_solve(s, p, o, md, &ctx), &ctx);
        pkm_modal_destroy(&s);
    }
    return md;
}

/* The lowest nev modes of p with the default options (modes_with). */
static inline pkm_modes *solved_modes(const pkm_pencil *p, int nev, int dense)
{
    pkm_modal_opts o = pkm_modal_opts_default();
    o.nev = nev;
    return modes_with(p, &o, dense);
}

/* The lowest nev eigenvalues w^2 of model m in formulation f (info may be NULL), by ARPACK
 * shift-invert (solved_modes). */
static inline void model_lowest(const pkm_model *m, pkm_formulation f, int nev, double *omega2,
                                pkm_assembly_info *info)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_pencil *p = NULL;
    assert_pkm_ok(pkm_assemble(m, f, &p, info, &ctx), &ctx);
    pkm_modes *md = solved_modes(p, nev, 0);
    memcpy(omega2, md->omega2, sizeof(double) * (size_t)nev);
    pkm_modes_destroy(&md);
    pkm_pencil_destroy(&p);
}

/* The default parameters of case name into out (size bytes, the case's parameter struct): the
 * values of its embedded YAML file, as the command line gets them. */
static inline void case_defaults(const char *name, void *out, size_t size)
{
    const pkm_case *c = pkm_case_find(name);
    assert_non_null(c);
    assert_int_equal(c->params_size, size);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *p = NULL;
    assert_pkm_ok(pkm_case_params_create(c, &p, &ctx), &ctx);
    memcpy(out, p, size);
    pkm_case_params_destroy(&p);
}

#endif
