#!/usr/bin/env bash
# tests/cli/transient.sh PKMFLEX ROOT: transient: csv, the rigid limit, -o, options, elastic drives,
# --wrench, --frequencies.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# transient: Newmark along a trajectory (issue 11). NaVARo with one element per link, 20 ms of
# its point-to-point motion: the csv header is exact, one row per step; bad input is one line.
tn=(transient navaro --set elements_per_link=1 --duration 0.02 --dt 1e-3)
expect 0 "${tn[@]}"
tcsv=$(timeout 60 "$bin" "${tn[@]}" --format csv)
check "transient csv header is exact" \
    test "$(head -1 <<<"$tcsv")" = "t,ex,ey,ez,rx,ry,rz,drive_A11,drive_A12,drive_A13,qs_ex,qs_ey,qs_ez,qs_rx,qs_ry,qs_rz,kinetic,strain,dissipated,work,updated,conditioning"
check "transient csv: one row per step and the start" test "$(tail -n +2 <<<"$tcsv" | grep -c '')" -eq 21
# The rigid limit: links 1e7 times stiffer, only the driven clutches locked: the reactions at
# the locked drives equal the rigid-body drives of the default model (1e-5 of the largest; the
# difference falls as 1/stiffness: 3.4e-5 at 1e6, 3.4e-6 at 1e7 over these 20 ms).
tdamp=(--damping 0.02@40,0.02@150)
tcsvd=$(timeout 60 "$bin" "${tn[@]}" "${tdamp[@]}" --format csv)
tstiff=$(timeout 60 "$bin" "${tn[@]}" "${tdamp[@]}" --format csv --initial static \
    --set clutch.locked=drive --set material.E=7.4e17 --set material.G=2.781954887e17)
check "transient: locked-drive reactions equal the rigid drives in the rigid limit" \
    awk -F, 'NR == FNR { for (k = 8; k <= 10; k++) d[FNR, k] = $k; next }
             FNR > 1 { for (k = 8; k <= 10; k++) { x = $k - d[FNR, k]; if (x < 0) x = -x
                       if (x > m) m = x; y = d[FNR, k]; if (y < 0) y = -y; if (y > a) a = y } }
             END { exit !(a > 0 && m < 1e-5 * a) }' <(printf '%s\n' "$tcsvd") <(printf '%s\n' "$tstiff")
expect 0 "${tn[@]}" --damping 0.02@40,0.02@150 --gravity --update-every 10
# -o: the file holds the csv rows (the locked drives' reactions in the csv's drive columns), the
# rigid-body drives beside them (24 % away at the links' stiffness), the energies (kinetic +
# strain + dissipated = work from rest, to 2.8e-6 of it though the pencil changes every step);
# the default model (both clutches locked) has no reactions (NaN).
expect 0 "${tn[@]}" --set clutch.locked=drive -o "$tmp/tr.h5"
"$bin" "${tn[@]}" --set clutch.locked=drive --format csv >"$tmp/tr.csv"
expect 0 "${tn[@]}" -o "$tmp/tr_both.h5"
check "transient -o: the file holds the csv rows, drives, reactions and energies" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
c = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
assert f.attrs["format"] == b"pkmflex-transient" and f.attrs["case"] == b"navaro"
assert f.attrs["trajectory"] == b"p2p" and f.attrs["drives"] == b"A11,A12,A13"
assert f["t"].shape == (21,) and f["error"].shape == (21, 6) and f["reaction"].shape == (21, 3)
assert np.allclose(f["t"][...], c[:, 0], rtol=0, atol=1e-12)
assert np.allclose(f["error"][...], c[:, 1:7], rtol=1e-9, atol=1e-18)
assert np.allclose(f["reaction"][...], c[:, 7:10], rtol=1e-9, atol=1e-15)
# the columns after the drives: quasi-static error, energies, updated, conditioning
assert np.allclose(f["quasi_static"][...], c[:, 10:16], rtol=1e-9, atol=1e-18)
assert np.allclose(f["energy"][...], c[:, 16:20], rtol=1e-9, atol=1e-18)
assert (c[:, 20] == 1).all()
assert np.allclose(f["closure_conditioning"][...], c[:, 21], rtol=1e-12, atol=0)
d = f["drive"][...]
assert np.abs(d).max() > 0 and np.abs(d - f["reaction"][...]).max() > 1e-3 * np.abs(d).max()
e = f["energy"][...]
assert e[-1, 3] > 0 and abs(e[-1, 0] + e[-1, 1] + e[-1, 2] - e[-1, 3]) < 1e-4 * e[-1, 3]
g = h5py.File(sys.argv[3], "r")
assert np.isnan(g["reaction"][...]).all() and np.isfinite(g["drive"][...]).all()
' "$tmp/tr.h5" "$tmp/tr.csv" "$tmp/tr_both.h5"
expect 2 "${tn[@]}" -o /nonexistent/dir/tr.h5
expect 2 "${tn[@]}" --trajectory harmonic:q,1e-4,10
expect 2 "${tn[@]}" --trajectory harmonic:x,0,10
expect 2 "${tn[@]}" --trajectory harmonic:x,1e-4,-1
expect 2 "${tn[@]}" --trajectory harmonic:x,1e-4
expect 0 "${tn[@]}" --rayleigh 1,1e-5 --update-every 0
expect 2 "${tn[@]}" --dt 0
expect 2 "${tn[@]}" --dt -1e-3
expect 2 "${tn[@]}" --dt 0.05
expect 2 "${tn[@]}" --damping 0.02@40,0.02@40
expect 2 "${tn[@]}" --damping 0.02@0,0.02@40
expect 2 "${tn[@]}" --damping 0.02@-5,0.02@40
expect 2 "${tn[@]}" --damping 0.02@40
expect 2 "${tn[@]}" --damping 0.02@40,0.02@150 --rayleigh 1,0
# elastic drives need the case's drive spring (navaro's clutch.k1 is 0 by default)
expect 2 "${tn[@]}" --drives elastic
eerr=$(timeout 60 "$bin" "${tn[@]}" --drives elastic 2>&1 >/dev/null)
check "transient --drives elastic names the drive without a spring" grep -q "elastic drive 'A11'" <<<"$eerr"
ecsv=$(timeout 60 "$bin" "${tn[@]}" --drives elastic --set clutch.k1=2000 --set clutch.locked=drive --format csv)
check "transient --drives elastic adds a defl_ column per drive" \
    test "$(head -1 <<<"$ecsv")" = "t,ex,ey,ez,rx,ry,rz,drive_A11,drive_A12,drive_A13,defl_A11,defl_A12,defl_A13,qs_ex,qs_ey,qs_ez,qs_rx,qs_ry,qs_rz,kinetic,strain,dissipated,work,updated,conditioning"
timeout 60 "$bin" "${tn[@]}" --drives elastic --set clutch.k1=2000 --set clutch.locked=drive \
    -o "$tmp/edrv.h5" >/dev/null
timeout 60 "$bin" "${tn[@]}" -o "$tmp/ldrv.h5" >/dev/null
check "transient -o: /deflection = the csv's defl_ columns (elastic drives only)" "$py" -c '
import csv, io, sys, h5py, numpy as np
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
d = h5py.File(sys.argv[2], "r")["deflection"][...]
want = np.array([[float(r["defl_" + j]) for j in ("A11", "A12", "A13")] for r in rows])
assert d.shape == want.shape and np.allclose(d, want, rtol=1e-9, atol=1e-9 * abs(want).max())
assert abs(want).max() > 0 and "deflection" not in h5py.File(sys.argv[3], "r")
' "$ecsv" "$tmp/edrv.h5" "$tmp/ldrv.h5"
# --formulation: at a fixed configuration the tree and nodal responses are the same model's
ft=$(timeout 60 "$bin" transient navaro --duration 0.05 --dt 1e-3 --update-every 0 --format csv)
fn=$(timeout 60 "$bin" transient navaro --duration 0.05 --dt 1e-3 --update-every 0 --format csv \
    --formulation nodal)
check "transient --formulation nodal: the tree's response at a fixed configuration" "$py" -c '
import csv, io, sys
a, b = (list(csv.DictReader(io.StringIO(t))) for t in sys.argv[1:3])
assert len(a) == len(b) == 51
for k in ("ex", "ey", "rz"):
    s = max(abs(float(r[k])) for r in a)
    assert s > 0 and all(abs(float(x[k]) - float(y[k])) <= 1e-8 * s for x, y in zip(a, b)), k
' "$ft" "$fn"
expect 2 transient navaro --formulation foo
# --wrench: six numbers or a CSV series; bad input exit 2 naming the option or the file and line
expect 2 "${tn[@]}" --wrench 1,2,3
expect 2 "${tn[@]}" --wrench 1,2,3,4,5,nan
printf 't,fx,fy,fz,mx,my,mz\n0,1,0,0,0,0,0\n0.01,1,0,0,0,0,0\n0.02,1,x,0,0,0,0\n0.03,1,0,0,0,0,0\n' >"$tmp/wbad.csv"
expect 2 "${tn[@]}" --wrench "$tmp/wbad.csv"
werr=$(timeout 60 "$bin" "${tn[@]}" --wrench "$tmp/wbad.csv" 2>&1 >/dev/null)
check "transient --wrench names the bad CSV file and line" grep -q "wbad.csv:4" <<<"$werr"
printf 't,fx,fy,fz,mx,my,mz\n0,10,0,0,0,0,0\n0.01,10,0,0,0,0,0\n0.02,10,0,0,0,0,0\n0.03,10,0,0,0,0,0\n' >"$tmp/w10.csv"
wa=$(timeout 60 "$bin" "${tn[@]}" --wrench 10,0,0,0,0,0 --format csv | tail -1)
wb=$(timeout 60 "$bin" "${tn[@]}" --wrench "$tmp/w10.csv" --format csv | tail -1)
# The series is a spline through the samples: equal to the constant to rounding, not bit for bit.
check "transient --wrench: a constant CSV series equals the constant" "$py" -c '
import sys
a, b = ([float(x) for x in r.split(",")] for r in sys.argv[1:3])
s = max(abs(x) for x in a)
assert len(a) == len(b) == 22 and s > 0
a, b = a[:10], b[:10]  # t, the error and the drives
s = max(abs(x) for x in a)
assert all(abs(x - y) <= 1e-8 * abs(x) + 1e-13 * s for x, y in zip(a, b)), (a, b)
' "$wa" "$wb"
expect 2 "${tn[@]}" --update-every -1
expect 2 "${tn[@]}" --initial maybe
# --frequencies K: the lowest K frequencies at every update, csv columns f1..fK after the
# drives and /frequencies in -o; at t = 0.25 s the harmonic motion along x (10 mm, 1 Hz) is at
# x = 10 mm, where pkmflex modes gives the same frequencies (1e-9 relative). --damping at mode
# numbers resolves at the start pose (its ratios: tests/test_studies_transient_out.c).
tfq=(transient navaro --set elements_per_link=1 --trajectory harmonic:x,0.01,1 --start 0.25
    --duration 0.002 --dt 1e-3 --frequencies 4 --damping 0.02@mode1,0.02@mode3)
tfcsv=$(timeout 60 "$bin" "${tfq[@]}" --format csv -o "$tmp/trf.h5")
check "transient --frequencies: csv columns f1..fK after the drives" \
    test "$(head -1 <<<"$tfcsv")" = "t,ex,ey,ez,rx,ry,rz,drive_A11,drive_A12,drive_A13,f1,f2,f3,f4,qs_ex,qs_ey,qs_ez,qs_rx,qs_ry,qs_rz,kinetic,strain,dissipated,work,updated,conditioning"
tfm=$(timeout 60 "$bin" modes navaro --set elements_per_link=1 --pose 0.01,0,0 --nev 4 --format csv)
check "transient --frequencies equal pkmflex modes at the same pose" \
    awk -F, 'NR == FNR { if (FNR > 1) f[FNR - 1] = $2; next }
             FNR == 2 { for (k = 1; k <= 4; k++) { d = $(10 + k) / f[k] - 1; if (d < 0) d = -d
                        if (d > m) m = d }; n++ }
             END { exit !(n == 1 && m < 1e-9) }' <(printf '%s\n' "$tfm") <(printf '%s\n' "$tfcsv")
check "transient -o: /frequencies holds the csv columns" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
c = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
assert f["frequencies"].shape == (3, 4)
assert np.allclose(f["frequencies"][...], c[:, 10:14], rtol=1e-9, atol=0)
' "$tmp/trf.h5" <(printf '%s\n' "$tfcsv")
expect 2 "${tn[@]}" --damping 0.02@mode1,0.02@mode1
expect 2 "${tn[@]}" --damping 0.02@mode0,0.02@mode3
expect 2 "${tn[@]}" --damping 0.02@mode1,0.02@mode999
expect 2 "${tn[@]}" --damping 0.02@mode1,0.02@40
expect 2 "${tn[@]}" --frequencies 0
expect 2 transient tree5
printf 't,x,y,theta\n0,0,0,0\n0.01,0.05,0,0\n0.02,0.2,0,0\n0.03,0.4,0,0\n' >"$tmp/far.csv"
expect 2 transient navaro --trajectory "$tmp/far.csv" --duration 0.03 --dt 1e-3
terr=$(timeout 60 "$bin" transient navaro --trajectory "$tmp/far.csv" --duration 0.03 --dt 1e-3 2>&1)
check "transient names the time and the leg out of reach" \
    grep -q '^pkmflex: error: t = 0.0[0-9]* s: .*leg' <<<"$terr"
expect 2 transient navaro --trajectory "$tmp/far.csv" --start 5
check "transient prints nothing before a refused trajectory" test "$(grep -vc '^pkmflex: error' <<<"$terr")" -eq 0
# the 5-PSS/UPU's spherical variant starts at its singular centre on eq. 40: exit 3 naming the time
expect 3 transient pss5upu --trajectory eq40 --set variant=spherical --duration 0.01 --dt 1e-3
serr=$(timeout 60 "$bin" transient pss5upu --trajectory eq40 --set variant=spherical --duration 0.01 --dt 1e-3 2>&1 >/dev/null)
check "transient names the singular time" grep -q '^pkmflex: error: t = 0 s: ' <<<"$serr"
cli_done
