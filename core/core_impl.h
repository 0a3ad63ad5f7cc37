/* core/core_impl.h: private helpers shared by every module (error recording, small dense maths).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_CORE_IMPL_H
#define PKM_CORE_IMPL_H

#include "pkm/status.h"

#include <stddef.h>
#include <stdint.h>

/* Record the first failure in ctx with this source position and return the status. */
#define PKM_FAIL(ctx, status, ...) pkm_ctx_fail((ctx), (status), __FILE__, __LINE__, __VA_ARGS__)

/* " at t = T" for a message naming the time t of a failure, or "" when t is NaN (a caller that
 * does not know it: a case's drive, whose run names the time itself); buf holds the text
 * (core/status.c). */
#define PKM_AT_TIME_LEN 40
const char *pkm_at_time(double t, char buf[PKM_AT_TIME_LEN]);

/* Physical memory of the machine, bytes (core/memory.c). */
double pkm_memory_bytes(void);
/* Memory not in use now, bytes; 0 if unknown (core/memory.c). */
double pkm_memory_free_bytes(void);

/* PKM_ERR_INVALID if need bytes exceed the physical memory: "WHAT needs about X GB, more than
 * the Y GB of RAM; ADVICE" (advice names what to change). */
pkm_status pkm_memory_check(double need, const char *what, const char *advice, pkm_ctx *ctx);

/* A kernel whose loops run over run-time counts (a block's ~12 columns, an element's rows)
 * compiled twice by GCC on x86-64, for AVX2 and for the baseline, the copy chosen once by the
 * processor at load time (an ifunc): Debian's build targets the baseline (SSE2), where these
 * loops take two doubles at a time. The same bits either way: -std=c11 contracts no a * b + c
 * into a fused multiply-add, and the vectorised loops keep each sum's order. Other compilers
 * (the sanitizer build's clang) compile the baseline only. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PKM_TARGET_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PKM_TARGET_CLONES
#endif

/* A kernel meant to be inlined where its sizes are constants (a panel's width, a block of four
 * columns): each call site then compiles to a kernel of its own, its short loops unrolled and
 * its sums in registers. */
#if defined(__GNUC__)
#define PKM_KERNEL static inline __attribute__((always_inline))
#else
#define PKM_KERNEL static inline
#endif

/* kernel(c0, w, ...) over the columns 0 .. n - 1: four at a time (w = 4), then the 1 to 3 left,
 * each call with w a constant. */
#define PKM_BY_FOURS(n, kernel, ...)                                                               \
    do {                                                                                           \
        const size_t pkm_n_ = (n);                                                                 \
        size_t pkm_c0_ = 0;                                                                        \
        for (; pkm_c0_ + 4 <= pkm_n_; pkm_c0_ += 4)                                                \
            kernel(pkm_c0_, 4, __VA_ARGS__);                                                       \
        if (pkm_n_ - pkm_c0_ == 3)                                                                 \
            kernel(pkm_c0_, 3, __VA_ARGS__);                                                       \
        else if (pkm_n_ - pkm_c0_ == 2)                                                            \
            kernel(pkm_c0_, 2, __VA_ARGS__);                                                       \
        else if (pkm_n_ - pkm_c0_ == 1)                                                            \
            kernel(pkm_c0_, 1, __VA_ARGS__);                                                       \
    } while (0)

/* -std=c11 hides M_PI. */
#define PKM_PI 3.14159265358979323846

/* Two directions are parallel when the sine of their angle is below this (dimensionless): the
 * unit vector normal to both, |a x b| normalised, then carries a relative rounding error of about
 * DBL_EPSILON / sin = 2e-8 or more, so a frame built from them would be noise. The model refuses
 * a universal joint's two axes closer than this (mesh/model.c), a beam element its reference z
 * axis (fem/beam3d.c). */
#define PKM_PARALLEL_SIN 1e-8

/* out[j] = a^T q_j, j < m <= 4, for the vectors q_j = q + j ldq of n entries, in one pass; the
 * same bits as one plain loop each (core/dots.c). out[m ..] are not meaningful. */
void pkm_dots4(int64_t n, const double *a, const double *q, size_t ldq, int m, double out[4]);

/* pkm_dots4 for two vectors a0 and a1 at once (out0, out1), the same bits. */
void pkm_dots4x2(int64_t n, const double *a0, const double *a1, const double *q, size_t ldq, int m,
                 double out0[4], double out1[4]);

/* SHA-256 of len bytes (FIPS 180-4): 32 bytes, or 64 lower-case hex digits and a NUL. */
void pkm_sha256(const void *data, size_t len, unsigned char out[32]);
void pkm_sha256_hex(const void *data, size_t len, char out[65]);

#endif
