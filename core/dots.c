/* core/dots.c: several dot products with one vector in one pass (pkm_dots4).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"

/* Four sums in registers, independent of each other: one dot product at a time waits on its own
 * additions (4 cycles each), four together do not. Each sum runs over i in ascending order, as
 * the plain loop's, so the values are its bits. */
void pkm_dots4(int64_t n, const double *a, const double *q, size_t ldq, int m, double out[4])
{
    const double *q0 = q, *q1 = m > 1 ? q + ldq : q, *q2 = m > 2 ? q + 2 * ldq : q,
                 *q3 = m > 3 ? q + 3 * ldq : q;
    double c0 = 0.0, c1 = 0.0, c2 = 0.0, c3 = 0.0;
    for (int64_t i = 0; i < n; i++) {
        c0 += a[i] * q0[i];
        c1 += a[i] * q1[i];
        c2 += a[i] * q2[i];
        c3 += a[i] * q3[i];
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}
