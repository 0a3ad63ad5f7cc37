#!/usr/bin/env bash
# tests/cli/chain.sh PKMFLEX ROOT: dynamics boom1 and crane4: anchors, --forward, --forces, -o.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# The trajectory with an unknown joint of tests/cli/dynamics.sh.
printf 't,1,2,3,4,6\n0,0,0,0,0,0\n1,0,0,0,0,0\n2,0,0,0,0,0\n3,0,0,0,0,0\n' >"$tmp/badjoint.csv"
# dynamics boom1|crane4: the module chains of the crane (docs/chain.md). A CSV trajectory
# x = 0.30 + 0.10 t + 0.25 t^2 (the spline reproduces it) gives at t = 0 the dynamic anchor of
# loop 1, at rest the static one; --forward follows the trajectory under its own drives with
# the energy balance closed; bad input exit 2, the singular stroke exit 3 naming the module.
expect 0 dynamics boom1 --help
expect 0 dynamics crane4 --time 0:10:11
ccsv=$("$bin" dynamics boom1 --time 0:10:11 --format csv)
check "dynamics boom1 csv header is exact" \
    test "$(head -1 <<<"$ccsv")" = "t,joint,q,qd,qdd,drive,fx,fy,fz,mx,my,mz,drive_check"
check "dynamics boom1: one row per time" test "$(tail -n +2 <<<"$ccsv" | grep -c '^[0-9.]*,cyl1,')" -eq 11
{
    echo "t,x"
    for t in 0 0.5 1 1.5 2; do
        awk -v t="$t" 'BEGIN { printf "%s,%.17g\n", t, 0.30 + 0.10 * t + 0.25 * t * t }'
    done
} >"$tmp/boom_quad.csv"
row=$("$bin" dynamics boom1 --trajectory "$tmp/boom_quad.csv" --time 0:2:3 --format csv | grep '^0,')
check "dynamics boom1 dynamic anchor f(0.30, 0.10, 0.50)" near "$(field "$row" 6)" 1650.360459 1e-9
check "dynamics boom1 closed-form drive agrees" near "$(field "$row" 13)" 1650.360459 1e-9
printf 't,x\n0,0.3\n1,0.3\n2,0.3\n3,0.3\n' >"$tmp/boom_rest.csv"
row=$("$bin" dynamics boom1 --trajectory "$tmp/boom_rest.csv" --time 0:3:2 --format csv | grep '^3,')
check "dynamics boom1 static anchor f_s(0.30)" near "$(field "$row" 6)" 1343.174868 1e-9
fcsv=$("$bin" dynamics crane4 --forward --time 0:10:3 --format csv)
check "dynamics crane4 --forward: header" \
    test "$(head -1 <<<"$fcsv")" = "t,joint,q,qd,qdd,drive,fx,fy,fz,mx,my,mz,q_ref,kinetic,potential,work,balance"
check "dynamics crane4 --forward: follows the trajectory, energy balanced" awk -F, '
    NR > 1 { d = $3 - $13; if (d < 0) d = -d; b = $17; if (b < 0) b = -b
             if (d > 1e-6 || b > 1e-6) bad = 1; n++ }
    END { exit bad || n != 12 }' <<<"$fcsv"
# --forward --forces: the drives of an inverse run written as t,<joint> samples and fed back
# reproduce its motion to the spline's accuracy: the deviation falls by about 2^4 per halving of
# the sample spacing (boom1: 3.9e-5 m at 20 ms, 1.9e-6 m at 10 ms; crane4 6.0e-5 m at 10 ms, its
# open-loop cylinders amplifying the interpolation error). Bad force files exit 2 naming the
# file and line.
chain_forces() { # machine N columns: the drives of an inverse run at N times as a forces CSV
    "$bin" dynamics "$1" --time 0:10:"$2" --format csv | awk -F, -v h="t,$3" '
        NR == 1 { print h; next }
        { if (!seen[$1]++) { if (line != "") print line; line = $1 } line = line "," $6 }
        END { print line }'
}
chain_deviation() { # the largest |q - q_ref| of a --forward csv
    awk -F, 'NR > 1 { d = $3 - $13; if (d < 0) d = -d; if (d > m) m = d }
             END { if (NR < 2) m = 1e300; printf "%.6g\n", m }'
}
chain_forces boom1 501 cyl1 >"$tmp/boom_f20.csv"
chain_forces boom1 1001 cyl1 >"$tmp/boom_f10.csv"
check "dynamics boom1 forces csv header" test "$(head -1 "$tmp/boom_f10.csv")" = "t,cyl1"
dev20=$(timeout 60 "$bin" dynamics boom1 --forward --forces "$tmp/boom_f20.csv" --format csv | chain_deviation)
dev10=$(timeout 60 "$bin" dynamics boom1 --forward --forces "$tmp/boom_f10.csv" --format csv | chain_deviation)
check "dynamics boom1 --forces reproduces the motion" below "$dev10" 5e-6
check "dynamics boom1 --forces: fourth order in the sample spacing" \
    awk -v a="$dev20" -v b="$dev10" 'BEGIN { exit !(b > 0 && a / b >= 12) }'
chain_forces crane4 1001 slew,cyl1,cyl2,ext >"$tmp/crane_f10.csv"
dev=$(timeout 60 "$bin" dynamics crane4 --forward --forces "$tmp/crane_f10.csv" --format csv | chain_deviation)
check "dynamics crane4 --forces reproduces the motion" below "$dev" 2e-4
fcsv=$(timeout 60 "$bin" dynamics crane4 --forward --forces "$tmp/crane_f10.csv" --time 0:10:3 --format csv)
f0=$(sed -n 2p "$tmp/crane_f10.csv" | cut -d, -f3)
check "dynamics crane4 --forces: the drives are the file's" awk -F, -v f="$f0" '
    $1 == 0 && $2 == "cyl1" { d = $6 - f; if (d < 0) d = -d; ok = d <= 1e-9 * f }
    END { exit !ok }' <<<"$fcsv"
check "dynamics crane4 --forces: energy balanced" awk -F, '
    NR > 1 { b = $17; if (b < 0) b = -b; if (b > 1e-6) bad = 1 } END { exit bad }' <<<"$fcsv"
printf 't,x\n0,1\n1,1\n2,1\n3,1\n' >"$tmp/forces_col.csv"
printf 't,cyl1\n0,1\n1,1\n2,abc\n3,1\n' >"$tmp/forces_num.csv"
printf 't,cyl1\n0,1\n1,1\n2,1\n3,1\n' >"$tmp/forces_short.csv"
expect 2 dynamics boom1 --forward --forces "$tmp/forces_col.csv"
ferr=$("$bin" dynamics boom1 --forward --forces "$tmp/forces_col.csv" 2>&1 >/dev/null)
check "dynamics --forces names the file and line of an unknown column" \
    grep -q "forces_col.csv:1: unknown column 'x'" <<<"$ferr"
ferr=$("$bin" dynamics boom1 --forward --forces "$tmp/forces_num.csv" 2>&1 >/dev/null)
check "dynamics --forces names the file and line of a bad number" \
    grep -q "forces_num.csv:4:3: .*'abc'" <<<"$ferr"
expect 2 dynamics boom1 --forward --forces "$tmp/forces_num.csv"
expect 2 dynamics boom1 --forward --forces "$tmp/forces_short.csv"
expect 2 dynamics boom1 --forward --forces "$tmp/nonexistent.csv"
expect 2 dynamics boom1 --forces "$tmp/boom_f10.csv"
# -o: the rows in an HDF5 file (docs/hdf5-layout.md, module-chain files), equal to the printed
# csv rows (%.17g: bit for bit), inverse and forward (with --forces).
for run in "crane4 --time 0:10:11" "crane4 --forward --time 0:10:11" \
    "boom1 --forward --forces $tmp/boom_f10.csv --time 0:10:11"; do
    # shellcheck disable=SC2086 # the run's words
    "$bin" dynamics $run --format csv >"$tmp/chain_rows.csv"
    # shellcheck disable=SC2086
    expect 0 dynamics $run -o "$tmp/chain.h5"
    check "dynamics $run -o: the file holds the printed rows" "$py" - "$tmp/chain.h5" "$tmp/chain_rows.csv" <<'PY'
import sys, csv, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
rows = list(csv.DictReader(open(sys.argv[2])))
mods = f.attrs["modules"].decode().split(",")
assert f.attrs["format"] == b"pkmflex-chain" and len(rows) == len(f["t"]) * len(mods)
fwd = "q_ref" in rows[0]
cols = ["q", "qd", "qdd", "drive"] + (["q_ref"] if fwd else ["drive_check"])
assert ("q_ref" in f) == fwd and ("drive_check" in f) != fwd and ("balance" in f) == fwd
for r in rows:
    k, i = int(np.argmin(abs(f["t"][:] - float(r["t"])))), mods.index(r["joint"])
    assert abs(f["t"][k] - float(r["t"])) < 1e-9
    for c in cols:
        assert f[c][k, i] == float(r[c]), (c, k, i)
    assert list(f["base"][k, i]) == [float(r[c]) for c in ["fx", "fy", "fz", "mx", "my", "mz"]]
    for c in ["kinetic", "potential", "work", "balance"] if fwd else []:
        assert f[c][k] == float(r[c]), (c, k)
PY
done
expect 2 dynamics boom1 -o "$tmp/nonexistent/chain.h5"
expect 2 dynamics boom1 -o "$tmp"
expect 2 dynamics boom1 --time 0:1:1
expect 2 dynamics crane4 --format xml
expect 2 dynamics boom1 --forward --step 0
expect 2 dynamics boom1 --friction none
expect 2 dynamics boom1 --trajectory "$tmp/badjoint.csv"
expect 2 dynamics boom1 --trajectory "$tmp/boom_rest.csv" --time 0:5:3
printf 't,x\n0,0.5\n1,0.52\n2,0.54\n3,0.55322\n' >"$tmp/boom_singular.csv"
expect 3 dynamics boom1 --trajectory "$tmp/boom_singular.csv" --time 0:3:31
serr=$("$bin" dynamics boom1 --trajectory "$tmp/boom_singular.csv" --time 0:3:31 2>&1 >/dev/null)
check "dynamics boom1 names the singular module" grep -q "cyl1.*singularity margin" <<<"$serr"
cli_done
