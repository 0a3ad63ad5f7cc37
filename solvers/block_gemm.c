/* solvers/block_gemm.c: the two dense products of the block eigensolver (block.c), the Gram
 * product of two blocks and the rotation of a block by a small matrix.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Both are thin: a block is n x bs with bs = nev + guards ~ 12, so a product is bs^2 n ~ 13 kflop
 * on NaVARo's 90 coordinates. Debian's OpenBLAS 0.3.21 does not know these machines' processors
 * and falls back to its SSE3 (Prescott) kernels, packing both operands at every call: 11 % of a
 * NaVARo map's time and 22 % of a 5-PSS/UPU map's went to dgemm (perf, 60 x 60 maps). Where the
 * processor has AVX2 and FMA (checked at each call, __builtin_cpu_supports), the products run
 * here with 4-wide fused multiply-adds on registers; elsewhere through dgemm as before. Either
 * way each entry is a sum over the rows in ascending order of one fused or two rounded
 * operations per term: the two paths agree to rounding. */
#include "solvers/solvers_impl.h"

#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PKM_BLOCK_AVX2 1
#else
#define PKM_BLOCK_AVX2 0
#endif

extern void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc, size_t transa_len,
                   size_t transb_len);

#if PKM_BLOCK_AVX2
/* Lanes 0 .. r - 1 of a 4-lane mask (r in 0 .. 4; 0: none, so that a load or store of an empty
 * chunk touches no memory). */
__attribute__((target("avx2"))) static __m256i lanes(size_t r)
{
    return _mm256_set_epi64x(r > 3 ? -1 : 0, r > 2 ? -1 : 0, r > 1 ? -1 : 0, r > 0 ? -1 : 0);
}

__attribute__((target("avx2"))) static __m256d load(const double *p, size_t r, __m256i mask)
{
    return r == 4 ? _mm256_loadu_pd(p) : _mm256_maskload_pd(p, mask);
}

__attribute__((target("avx2"))) static void store(double *p, size_t r, __m256i mask, __m256d v)
{
    if (r == 4)
        _mm256_storeu_pd(p, v);
    else
        _mm256_maskstore_pd(p, mask, v);
}

/* C(j0 .. j0 + r1 + r2, k0 .. k0 + kw) of the Gram product: two row chunks of r1 and r2 <= 4
 * rows, kw = 4 columns (eight independent accumulators, so that the fused multiply-adds are not
 * waiting on each other) or kw = 1 (the last columns of a width that is not a multiple of 4). */
__attribute__((target("avx2,fma"))) static void gram_tile(size_t m, int64_t n, const double *a,
                                                          const double *b, double *c, size_t j0,
                                                          size_t r1, size_t r2, size_t k0,
                                                          size_t kw)
{
    const __m256i m1 = lanes(r1), m2 = lanes(r2);
    __m256d c0 = _mm256_setzero_pd(), c1 = _mm256_setzero_pd(), c2 = _mm256_setzero_pd(),
            c3 = _mm256_setzero_pd(), d0 = _mm256_setzero_pd(), d1 = _mm256_setzero_pd(),
            d2 = _mm256_setzero_pd(), d3 = _mm256_setzero_pd();
    for (int64_t i = 0; i < n; i++) {
        const double *ai = a + (size_t)i * m + j0, *bi = b + (size_t)i * m + k0;
        const __m256d av = load(ai, r1, m1), aw = load(ai + 4, r2, m2);
        __m256d bt = _mm256_broadcast_sd(bi);
        c0 = _mm256_fmadd_pd(av, bt, c0);
        d0 = _mm256_fmadd_pd(aw, bt, d0);
        if (kw == 1) continue;
        bt = _mm256_broadcast_sd(bi + 1);
        c1 = _mm256_fmadd_pd(av, bt, c1);
        d1 = _mm256_fmadd_pd(aw, bt, d1);
        bt = _mm256_broadcast_sd(bi + 2);
        c2 = _mm256_fmadd_pd(av, bt, c2);
        d2 = _mm256_fmadd_pd(aw, bt, d2);
        bt = _mm256_broadcast_sd(bi + 3);
        c3 = _mm256_fmadd_pd(av, bt, c3);
        d3 = _mm256_fmadd_pd(aw, bt, d3);
    }
    const __m256d lo[4] = {c0, c1, c2, c3}, hi[4] = {d0, d1, d2, d3};
    for (size_t t = 0; t < kw; t++) {
        double *ct = c + (k0 + t) * m + j0;
        store(ct, r1, m1, lo[t]);
        store(ct + 4, r2, m2, hi[t]);
    }
}

__attribute__((target("avx2,fma"))) static void gram_avx2(size_t m, int64_t n, const double *a,
                                                          const double *b, double *c)
{
    for (size_t j0 = 0; j0 < m; j0 += 8) {
        const size_t rest = m - j0, r1 = rest < 4 ? rest : 4,
                     r2 = rest > 4 ? (rest - 4 < 4 ? rest - 4 : 4) : 0;
        size_t k0 = 0;
        for (; k0 + 4 <= m; k0 += 4)
            gram_tile(m, n, a, b, c, j0, r1, r2, k0, 4);
        for (; k0 < m; k0++)
            gram_tile(m, n, a, b, c, j0, r1, r2, k0, 1);
    }
}

/* out = Y V from vt = V^T stored with ld columns (a multiple of 16, zero beyond m), 16 columns
 * of out at a time: rows i and i + 1, all four column chunks at once, eight independent
 * accumulators per pass over k. */
__attribute__((target("avx2,fma"))) static void
rotate_avx2(size_t m, size_t ld, int64_t n, const double *y, const double *vt, double *out)
{
    for (size_t j0 = 0; j0 < m; j0 += 16)
        for (int64_t i = 0; i < n; i += 2) {
            const double *y0 = y + (size_t)i * m, *y1 = i + 1 < n ? y0 + m : y0;
            __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd(), s2 = _mm256_setzero_pd(),
                    s3 = _mm256_setzero_pd(), t0 = _mm256_setzero_pd(), t1 = _mm256_setzero_pd(),
                    t2 = _mm256_setzero_pd(), t3 = _mm256_setzero_pd();
            for (size_t k = 0; k < m; k++) {
                const __m256d b0 = _mm256_broadcast_sd(y0 + k), b1 = _mm256_broadcast_sd(y1 + k);
                const double *vk = vt + k * ld + j0;
                const __m256d v0 = _mm256_loadu_pd(vk), v1 = _mm256_loadu_pd(vk + 4),
                              v2 = _mm256_loadu_pd(vk + 8), v3 = _mm256_loadu_pd(vk + 12);
                s0 = _mm256_fmadd_pd(b0, v0, s0);
                t0 = _mm256_fmadd_pd(b1, v0, t0);
                s1 = _mm256_fmadd_pd(b0, v1, s1);
                t1 = _mm256_fmadd_pd(b1, v1, t1);
                s2 = _mm256_fmadd_pd(b0, v2, s2);
                t2 = _mm256_fmadd_pd(b1, v2, t2);
                s3 = _mm256_fmadd_pd(b0, v3, s3);
                t3 = _mm256_fmadd_pd(b1, v3, t3);
            }
            const __m256d s[4] = {s0, s1, s2, s3}, t[4] = {t0, t1, t2, t3};
            double *o0 = out + (size_t)i * m, *o1 = o0 + m;
            for (size_t ch = 0; ch < 4 && j0 + 4 * ch < m; ch++) {
                const size_t r = m - j0 - 4 * ch < 4 ? m - j0 - 4 * ch : 4;
                const __m256i mask = lanes(r);
                store(o0 + j0 + 4 * ch, r, mask, s[ch]);
                if (i + 1 < n) store(o1 + j0 + 4 * ch, r, mask, t[ch]);
            }
        }
}

static int simd(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

void pkm_block_gram(int bs, int64_t n, const double *a, const double *b, double *c)
{
#if PKM_BLOCK_AVX2
    if (simd()) {
        gram_avx2((size_t)bs, n, a, b, c);
        return;
    }
#endif
    const double one = 1.0, zero = 0.0;
    const int nn = (int)n;
    dgemm_("N", "T", &bs, &bs, &nn, &one, a, &bs, b, &bs, &zero, c, &bs, 1, 1);
}

void pkm_block_rotate(int bs, int64_t n, const double *v, const double *y, double *vt, double *out)
{
#if PKM_BLOCK_AVX2
    if (simd()) {
        const size_t m = (size_t)bs, ld = (m + 15) / 16 * 16;
        for (size_t k = 0; k < m; k++)
            for (size_t j = 0; j < ld; j++)
                vt[k * ld + j] = j < m ? v[j * m + k] : 0.0;
        rotate_avx2(m, ld, n, y, vt, out);
        return;
    }
#endif
    (void)vt;
    const double one = 1.0, zero = 0.0;
    const int nn = (int)n;
    dgemm_("T", "N", &bs, &nn, &bs, &one, v, &bs, y, &bs, &zero, out, &bs, 1, 1);
}
