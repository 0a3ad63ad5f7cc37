#!/usr/bin/env bash
# tests/cli/checks.sh PKMFLEX ROOT: triple eigenvalue, out-of-range parameters, xerbla_, provenance.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# Issue 8. A lost copy of a triple eigenvalue: mode 10 of pss5upu at home is 861.75 Hz (was
# 1075.90 from ARPACK), as from the dense solver.
"$bin" modes pss5upu --pose 0,0,0,0,0 --format csv >"$tmp/pss_arpack.csv"
"$bin" modes pss5upu --pose 0,0,0,0,0 --format csv --solver dense >"$tmp/pss_dense.csv"
check "pss5upu home: ARPACK = dense, mode 10 = 861.75 Hz" "$py" -c '
import sys, numpy as np
a = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
d = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
assert np.allclose(a[:, 1], d[:, 1], rtol=1e-8, atol=0), (a[:, 1], d[:, 1])
assert abs(a[9, 1] - 861.749808) < 1e-5, a[9, 1]
' "$tmp/pss_arpack.csv" "$tmp/pss_dense.csv"
# Out-of-range parameters: one line, exit 2, no LAPACK message on stdout.
for p in leg.A=1e300 material.rho=1e300 leg.Iz=1e300 leg.Ip=1e300 platform.A=1e300; do
    expect 2 modes navaro --set "$p"
    check "modes navaro --set $p prints nothing on stdout" \
        test -z "$("$bin" modes navaro --set "$p" 2>/dev/null)"
done
expect 2 modes pss5upu --set slider.mass=1e300
# LAPACK's XERBLA is pkmflex's own (solvers/xerbla.c), exported so that liblapack's calls bind
# to it: an illegal argument becomes an error, not "On entry to ..." and exit 0.
if command -v nm >/dev/null; then
    check "pkmflex defines and exports xerbla_" sh -c 'nm -D "$1" | grep -q " T xerbla_$"' sh "$bin"
fi
# The map records its provenance: every resolved parameter in SI, the case file and its SHA-256,
# version and commit; every dataset carries a Fletcher32 checksum.
printf 'case: navaro\nparameters:\n  material: {E: 70 GPa}\n' >"$tmp/prov.yaml"
expect 0 map "$tmp/prov.yaml" --grid x=0:0.01:2 --nev 3 -o "$tmp/prov.h5" --quiet
sum=$(sha256sum "$tmp/prov.yaml" | cut -d' ' -f1)
check "map provenance" "$py" -c '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
# string attributes are fixed-length, which h5py reads as bytes (docs/hdf5-layout.md)
s = lambda obj, name: obj.attrs[name].decode()
assert s(f, "case_file_sha256") == sys.argv[2] and s(f, "case_file") == sys.argv[3]
assert f["parameters"].attrs["material.E"] == 70e9 and s(f["parameters"], "mass") == "rotary"
assert f["parameters"].attrs["elements_per_link"] == 1 and s(f, "pkmflex_commit") != ""
assert f.attrs["format_version"] == 5 and f["accuracy"].shape == f["freq_hz"].shape
for k in ("freq_hz", "residual", "accuracy", "status", "tracked_mode", "tracking_mac",
          "tracking_parent", "grid/x"):
    assert f[k].fletcher32, k
' "$tmp/prov.h5" "$sum" "$tmp/prov.yaml"

cli_done
