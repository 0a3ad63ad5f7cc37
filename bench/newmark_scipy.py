#!/usr/bin/env python3
# bench/newmark_scipy.py FILE STEPS UPDATE [REPEATS]: the Newmark loop of solvers/newmark.c (average
# acceleration, Rayleigh damping) in NumPy/SciPy on the pencil that bench/transient_bench wrote
# to FILE (little-endian: int64 n, nnz; int64 colptr[n + 1], rowind[nnz]; double k[nnz], m[nnz],
# f[n], l1, l2, dt; the upper triangle in CSC), the effective stiffness refactorised (SuperLU,
# scipy.sparse.linalg.splu) every UPDATE steps as the C loop does. Prints microseconds per step,
# the best of REPEATS runs from rest (default 1), as the C side measures.
# SPDX-License-Identifier: LGPL-2.1-or-later
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla


def full(vals, rowind, colptr, n):
    a = sp.csc_matrix((vals, rowind, colptr), shape=(n, n))
    return (a + a.T - sp.diags(a.diagonal())).tocsc()


def main():
    path, steps, update = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    with open(path, "rb") as fh:
        n, nnz = np.fromfile(fh, dtype="<i8", count=2)
        colptr = np.fromfile(fh, dtype="<i8", count=n + 1)
        rowind = np.fromfile(fh, dtype="<i8", count=nnz)
        kv = np.fromfile(fh, dtype="<f8", count=nnz)
        mv = np.fromfile(fh, dtype="<f8", count=nnz)
        f = np.fromfile(fh, dtype="<f8", count=n)
        l1, l2, dt = np.fromfile(fh, dtype="<f8", count=3)
    print("%.3f" % min(run(kv, mv, rowind, colptr, n, f, l1, l2, dt, steps, update)
                       for _ in range(repeats)))


def run(kv, mv, rowind, colptr, n, f, l1, l2, dt, steps, update):
    """One run of the loop from rest; microseconds per step."""
    beta, gamma = 0.25, 0.5
    a0, a1 = 1.0 / (beta * dt * dt), gamma / (beta * dt)
    a2, a3 = 1.0 / (beta * dt), 0.5 / beta - 1.0
    a4, a5 = gamma / beta - 1.0, dt * (0.5 * gamma / beta - 1.0)
    cK, cM = 1.0 + a1 * l2, a0 + a1 * l1
    u, v, a = np.zeros(n), np.zeros(n), np.zeros(n)
    start = time.perf_counter()
    lu = None
    for s in range(steps):
        if s % update == 0:
            # the reassembled pencil: the same values, the matrices formed and factorised again
            K, M = full(kv, rowind, colptr, n), full(mv, rowind, colptr, n)
            lu = sla.splu(cK * K + cM * M)
        w1 = a2 * v + a3 * a
        w2 = a4 * v + a5 * a
        # K z through K_eff = cK K + cM M, as solvers/newmark.c: one product with M
        z = l2 * w2 - u
        du = lu.solve(f * np.sin(0.01 * s) + M @ (w1 + l1 * w2 - (cM / cK) * z)) + z / cK
        a_new = a0 * du - a2 * v - a3 * a
        v = a1 * du - a4 * v - a5 * a
        a = a_new
        u = u + du
    return 1e6 * (time.perf_counter() - start) / steps


main()
