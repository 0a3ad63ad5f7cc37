#!/usr/bin/env bash
# tests/cli/modes_output.sh PKMFLEX ROOT: modes --vtk and --describe, --opt=value, typos, units.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# modes --vtk: a VTKHDF 1.0 UnstructuredGrid (the structure of the VTKHDF specification: Version,
# Type, one partition's counts, Offsets/Connectivity/Types of lines), its frequencies those
# printed, and the modes' nodal translations zero exactly at the base pivots A_i (revolute joints
# to the ground, on NaVARo's base circle) and nowhere else; an unwritable file is exit 3.
expect 0 modes navaro --pose 0,0,0 --nev 4 --vtk "$tmp/m.vtkhdf"
vcsv=$("$bin" modes navaro --pose 0,0,0 --nev 4 --format csv)
check "modes --vtk: VTKHDF structure, frequencies, fixed pivots" "$py" -c '
import sys, h5py, numpy as np
g = h5py.File(sys.argv[1], "r")["VTKHDF"]
assert list(g.attrs["Version"]) == [1, 0], g.attrs["Version"]
t = g.attrs["Type"]
assert (t.decode() if isinstance(t, bytes) else t) == "UnstructuredGrid", t
P, off, con, ty = g["Points"][...], g["Offsets"][...], g["Connectivity"][...], g["Types"][...]
npt, ncell = int(g["NumberOfPoints"][0]), int(g["NumberOfCells"][0])
assert P.shape == (npt, 3) and ty.shape == (ncell,) and off.shape == (ncell + 1,)
assert off[0] == 0 and (np.diff(off) == 2).all() and (ty == 3).all()
assert off[-1] == g["NumberOfConnectivityIds"][0] == con.size
assert (con >= 0).all() and (con < npt).all() and g["CellData/body"].shape == (ncell,)
seg = np.linalg.norm(P[con[1::2]] - P[con[0::2]], axis=1)
assert (seg > 1e-6).all(), seg
rows = [l.split(",") for l in sys.argv[2].splitlines()[1:]]
f = g["FieldData/frequency_hz"][...]
assert np.allclose(f, [float(r[1]) for r in rows], rtol=1e-9, atol=0), f
assert sorted(g["PointData"].keys()) == sorted(
    ["mode_%d%s" % (k, s) for k in range(1, 5) for s in ("", "_rotation")])
U = np.stack([g["PointData/mode_%d" % k][...] for k in range(1, 5)])
n = np.linalg.norm(U, axis=2).max(axis=0)
fixed = n < 1e-9 * n.max()
r = np.linalg.norm(P[fixed, :2], axis=1)
assert fixed.sum() >= 3 and np.allclose(r, 0.7 / np.sqrt(3), rtol=1e-12), (fixed.sum(), r)
assert len(np.unique(np.round(P[fixed], 9), axis=0)) == 3 and (n[~fixed] > 1e-3 * n.max()).all()
' "$tmp/m.vtkhdf" "$vcsv"
expect 3 modes navaro --pose 0,0,0 --nev 2 --vtk "$tmp/no/such/dir/m.vtkhdf"
# modes --describe (csv): per mode the strain energy from the elements and joint springs is
# w^2 / 2 of the printed frequency (x^T K x = w^2 for the M-normalised mode: a second path), in
# both formulations and with clutch springs; the leg shares sum to 1, as do the bodies' and the
# springs'; 1/twist^2 is the effective mass; at the symmetric pose (0, 0, 0) the single mode 3
# and the z mode 4 share their energy equally between the three legs.
for args in "--pose 0.03,-0.02,0.1" "--pose 0.03,-0.02,0.1 --formulation nodal" \
    "--pose 0.03,-0.02,0.1 --set clutch.k1=2e4 --set clutch.k2=3e4" "--pose 0,0,0"; do
    # shellcheck disable=SC2086
    desc=$("$bin" modes navaro $args --nev 6 --describe --format csv)
    check "modes --describe ($args): energy, shares, effective masses" "$py" -c '
import math, sys
lines = sys.argv[1].splitlines()
i = [k for k, l in enumerate(lines) if l.startswith("mode,freq_hz,ux")][0]
head = lines[i].split(",")
rows = [dict(zip(head, (float(v) if v else math.nan for v in l.split(",")))) for l in lines[i + 1:]]
assert len(rows) == 6, len(rows)
legs = [h for h in head if h.startswith("leg")]
bodies = [h for h in head if h.startswith("body:")]
assert len(legs) == 3 and len(bodies) == 16, (legs, bodies)
for r in rows:
    w = 2 * math.pi * r["freq_hz"]
    assert abs(r["energy_j"] / (0.5 * w * w) - 1) < 1e-8, (r["mode"], r["energy_j"], w)
    assert abs(sum(r[h] for h in legs) - 1) < 1e-5
    assert abs(sum(r[h] for h in bodies) + r["springs"] - 1) < 2e-5
    for t, m in zip(("ux", "uy", "rz"), ("m_x", "m_y", "J_z")):  # empty: the twist does not move
        assert math.isnan(r[m]) or abs(r[m] * r[t] ** 2 - 1) < 1e-5, (r[m], r[t])
springs = [r["springs"] for r in rows]
assert (max(springs) > 0.05) == ("clutch" in sys.argv[2]), springs
if sys.argv[2] == "--pose 0,0,0":
    for r in rows[2:4]:
        assert max(abs(r[h] - 1 / 3) for h in legs) < 2e-6, [r[h] for h in legs]
' "$desc" "$args"
done
expect 0 modes navaro --pose 0,0,0 --nev 3 --describe
# Quintic links (pss5upu): the elements' energy reads the curvature coordinates, no NaN.
pdesc=$(timeout 60 "$bin" modes pss5upu --pose 0,0,0,0,0 --nev 4 --describe)
check "modes pss5upu --describe: no NaN" test -n "$pdesc" -a "$(grep -ci nan <<<"$pdesc")" = 0
# Command-line habits: --opt=value gives what --opt value gives (a flag given a value is bad
# input); a mistyped command, option, case or parameter key is refused with the closest name;
# --pose and --grid take quantities with units as case files do (10 mm, 5 deg).
check "--format=csv --nev=3 as --format csv --nev 3" test \
    "$("$bin" modes navaro --pose=0,0,0 --format=csv --nev=3)" = \
    "$("$bin" modes navaro --pose 0,0,0 --format csv --nev 3)"
expect 2 modes navaro --describe=yes
for typo in "mdoes:'modes'" "modes --pos 0,0,0:'--pose'" "modes navaor:'navaro'" \
    "modes navaro --set material.e=1:'material.E'" "map navaro --gird x -o x.h5:'--grid'"; do
    # shellcheck disable=SC2086
    terr=$("$bin" ${typo%%:*} 2>&1 >/dev/null)
    check "did you mean ${typo#*:} for: ${typo%%:*}" grep -qF "did you mean ${typo#*:}?" <<<"$terr"
done
uc=$("$bin" modes navaro --pose "10 mm,-20 mm,5 deg" --nev 4 --format csv)
si=$("$bin" modes navaro --pose 0.01,-0.02,0.08726646259971647 --nev 4 --format csv)
check "--pose with units = the same pose in SI" awk -F, 'NR == FNR { f[FNR] = $2; next }
    FNR > 1 { d = $2 / f[FNR] - 1; if (d < 0) d = -d; if (d > 1e-9) bad = 1 } END { exit bad }' \
    <(printf '%s\n' "$si") <(printf '%s\n' "$uc")
expect 2 modes navaro --pose "10 kg,0,0"
expect 0 map navaro --grid "theta=-30 deg:30 deg:3,x=-10 mm:10 mm:2" --nev 2 -o "$tmp/units.h5" --quiet
check "--grid with units: the grid in SI" "$py" -c '
import sys, h5py, numpy as np
g = h5py.File(sys.argv[1], "r")["grid"]
assert np.allclose(g["theta"][...], [-np.pi / 6, 0, np.pi / 6], rtol=1e-15, atol=1e-16)
assert np.allclose(g["x"][...], [-0.01, 0.01], rtol=1e-15, atol=0)
' "$tmp/units.h5"
cli_done
