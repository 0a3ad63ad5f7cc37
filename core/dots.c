/* core/dots.c: several dot products with one or two vectors in one pass (pkm_dots4, pkm_dots4x2).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"

/* Four sums per vector in registers, independent of each other: one dot product at a time waits
 * on its own additions (4 cycles each), four or eight together do not. Each sum runs over i in
 * ascending order, as the plain loop's, so the values are its bits. With rows = 1 (a constant
 * where it is inlined) a1's sums are dead and go. */
PKM_KERNEL void dots(int64_t n, const double *a0, const double *a1, const double *q, size_t ldq,
                     int m, int rows, double out0[4], double out1[4])
{
    const double *q0 = q, *q1 = m > 1 ? q + ldq : q, *q2 = m > 2 ? q + 2 * ldq : q,
                 *q3 = m > 3 ? q + 3 * ldq : q;
    double c0 = 0.0, c1 = 0.0, c2 = 0.0, c3 = 0.0, d0 = 0.0, d1 = 0.0, d2 = 0.0, d3 = 0.0;
    for (int64_t i = 0; i < n; i++) {
        c0 += a0[i] * q0[i];
        c1 += a0[i] * q1[i];
        c2 += a0[i] * q2[i];
        c3 += a0[i] * q3[i];
        if (rows > 1) {
            d0 += a1[i] * q0[i];
            d1 += a1[i] * q1[i];
            d2 += a1[i] * q2[i];
            d3 += a1[i] * q3[i];
        }
    }
    const double c[2][4] = {{c0, c1, c2, c3}, {d0, d1, d2, d3}};
    for (int k = 0; k < 4; k++) {
        out0[k] = c[0][k];
        if (rows > 1) out1[k] = c[1][k];
    }
}

void pkm_dots4(int64_t n, const double *a, const double *q, size_t ldq, int m, double out[4])
{
    dots(n, a, a, q, ldq, m, 1, out, out);
}

/* A link of the mode tracking pairs every mode of one pose with every mode of the next: two of
 * them against the same columns of q read each column once for both. */
void pkm_dots4x2(int64_t n, const double *a0, const double *a1, const double *q, size_t ldq, int m,
                 double out0[4], double out1[4])
{
    dots(n, a0, a1, q, ldq, m, 2, out0, out1);
}
