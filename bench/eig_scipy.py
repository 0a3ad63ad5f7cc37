#!/usr/bin/env python3
# bench/eig_scipy.py FILE NEV: the lowest NEV eigenpairs of every pencil that map_bench wrote to
# FILE by SciPy's dense eigh (LAPACK dsygvx through subset_by_index, the system BLAS) and sparse
# eigsh (ARPACK shift-invert at sigma = 0 over SuperLU), timed around the solver calls only.
# FILE (little-endian): int64 n, nnz, count; int64 colptr[n + 1], rowind[nnz] (the upper triangle
# in CSC, one pattern for all pencils); then per pencil double k[nnz], m[nnz], freq[NEV] (map_bench's
# frequencies in Hz). Prints: count, eigh seconds, eigsh seconds, and the largest relative
# difference of each one's frequencies from map_bench's.
# SPDX-License-Identifier: LGPL-2.1-or-later
import sys
import time

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as sla


def full(vals, rowind, colptr, n):
    a = sp.csc_matrix((vals, rowind, colptr), shape=(n, n))
    return (a + a.T - sp.diags(a.diagonal())).tocsc()


def main():
    path, nev = sys.argv[1], int(sys.argv[2])
    with open(path, "rb") as fh:
        n, nnz, count = np.fromfile(fh, dtype="<i8", count=3)
        colptr = np.fromfile(fh, dtype="<i8", count=n + 1)
        rowind = np.fromfile(fh, dtype="<i8", count=nnz)
        data = np.fromfile(fh, dtype="<f8", count=count * (2 * nnz + nev)).reshape(count, -1)
    t_eigh = t_eigsh = 0.0
    d_eigh = d_eigsh = 0.0
    for row in data:
        K, M = full(row[:nnz], rowind, colptr, n), full(row[nnz:2 * nnz], rowind, colptr, n)
        ref = row[2 * nnz:]
        Kd, Md = K.toarray(), M.toarray()
        t0 = time.perf_counter()
        w = la.eigh(Kd, Md, eigvals_only=True, subset_by_index=[0, nev - 1])
        t1 = time.perf_counter()
        ws = sla.eigsh(K, k=nev, M=M, sigma=0.0, return_eigenvectors=False)
        t2 = time.perf_counter()
        t_eigh += t1 - t0
        t_eigsh += t2 - t1
        for vals, which in ((w, 0), (ws, 1)):
            f = np.sqrt(np.abs(np.sort(vals))) / (2.0 * np.pi)
            d = np.max(np.abs(f - ref) / ref)
            if which == 0:
                d_eigh = max(d_eigh, d)
            else:
                d_eigsh = max(d_eigsh, d)
    print("%d %.6f %.6f %.3e %.3e" % (count, t_eigh, t_eigsh, d_eigh, d_eigsh))


main()
