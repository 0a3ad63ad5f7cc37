#!/usr/bin/env bash
# tests/cli/chain.sh PKMFLEX ROOT: dynamics boom1 and crane4: anchors, --forward, --forces, -o.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# The trajectory with an unknown joint of tests/cli/dynamics.sh.
printf 't,1,2,3,4,6\n0,0,0,0,0,0\n1,0,0,0,0,0\n2,0,0,0,0,0\n3,0,0,0,0,0\n' >"$tmp/badjoint.csv"
# dynamics boom1|crane4: the module chains of the crane (docs/chain.md) on the general command,
# the engine chain by default (the fastest that takes them; docs/dynamics.md, "Engines"). A CSV
# trajectory x = 0.30 + 0.10 t + 0.25 t^2 (the spline reproduces it) gives at t = 0 the dynamic
# anchor of loop 1 (Paz Anaya and Mattila 2024), at rest the static one, by either engine;
# --forward follows the trajectory under its own drives with the energy balance closed; bad
# input exit 2, the singular stroke exit 3 naming the module (the engine mbs: its pin). The joint table is every
# case's (docs/dynamics.md, "Output columns": the cylinder cyl1's drive in field 7).
expect 0 dynamics boom1 --help
expect 0 dynamics crane4 --time 0:10:11
check "dynamics crane4 takes the engine chain by default" grep -q ", engine chain, mobility 4$" \
    <<<"$("$bin" dynamics crane4 --time 0:10:3 | head -1)"
ccsv=$("$bin" dynamics boom1 --time 0:10:11 --format csv)
check "dynamics boom1 csv header is exact" \
    test "$(head -1 <<<"$ccsv")" = "t,joint,type,q,qd,qdd,drive,ideal,friction,f_axial,f_radial,m_bending"
check "dynamics boom1: one cylinder row per time" test "$(tail -n +2 <<<"$ccsv" | grep -c '^[0-9.]*,cyl1,prismatic,')" -eq 11
check "dynamics boom1 per-time csv header is exact" \
    test "$("$bin" dynamics boom1 --time 0:10:11 --format csv --per-time | head -1)" = \
    "t,x,residual,conditioning"
{
    echo "t,x"
    for t in 0 0.5 1 1.5 2; do
        awk -v t="$t" 'BEGIN { printf "%s,%.17g\n", t, 0.30 + 0.10 * t + 0.25 * t * t }'
    done
} >"$tmp/boom_quad.csv"
row=$("$bin" dynamics boom1 --trajectory "$tmp/boom_quad.csv" --time 0:0.5:2 --format csv | grep '^0,cyl1,')
check "dynamics boom1 dynamic anchor f(0.30, 0.10, 0.50)" near "$(field "$row" 7)" 1650.360459 1e-9
row=$("$bin" dynamics boom1 --engine mbs --trajectory "$tmp/boom_quad.csv" --time 0:0.5:2 --format csv | grep '^0,cyl1,')
check "dynamics boom1 --engine mbs: the same anchor" near "$(field "$row" 7)" 1650.360459 1e-9
printf 't,x\n0,0.3\n1,0.3\n2,0.3\n3,0.3\n' >"$tmp/boom_rest.csv"
row=$("$bin" dynamics boom1 --trajectory "$tmp/boom_rest.csv" --time 0:3:2 --format csv | grep '^3,cyl1,')
check "dynamics boom1 static anchor f_s(0.30)" near "$(field "$row" 7)" 1343.174868 1e-9
# The machines are cases: --set reaches their dynamics block. At rest the drive holds the weight
# alone, so twice the gravity doubles it. The engine chain has no friction: a friction law
# takes the engine mbs by default, and is refused with --engine chain (exit 2, naming it).
row=$("$bin" dynamics boom1 --trajectory "$tmp/boom_rest.csv" --time 0:3:2 --format csv \
    --set gravity.y=-19.6132 | grep '^3,cyl1,')
check "dynamics boom1 --set gravity.y: the static anchor doubles" near "$(field "$row" 7)" 2686.349736 1e-9
check "dynamics boom1 with friction takes the engine mbs" grep -q ", friction stribeck, engine mbs," \
    <<<"$("$bin" dynamics boom1 --set friction.model=stribeck --time 0:1:3 | head -1)"
expect 2 dynamics boom1 --engine chain --set friction.model=stribeck
check "dynamics boom1 --engine chain names what it lacks" grep -q "engine chain: it has no joint friction" \
    <<<"$("$bin" dynamics boom1 --engine chain --friction stribeck 2>&1 >/dev/null)"
expect 2 dynamics crane4 --set no.such.key=1
# The chewing robot runs on the general path, which has the joints' friction.
expect 0 dynamics masticatory --set friction.model=coulomb-viscous --time 0:0.5:3
# colof NAME: the largest |value| of the column NAME of a csv on stdin (its rows counted in n).
colof() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
                             { v = $k; if (v < 0) v = -v; if (v > m) m = v; n++ }
                             END { if (!k || !n) m = 1e300; printf "%.6g\n", m }'; }
# --forward integrates the general system (RK4, --step 1 ms between the output times).
fcsv=$("$bin" dynamics crane4 --forward --time 0:10:3 --step 1e-3 --format csv)
check "dynamics crane4 --forward: header" \
    test "$(head -1 <<<"$fcsv")" = "t,joint,type,q,qd,qdd,drive,ideal,friction,f_axial,f_radial,m_bending"
check "dynamics crane4 --forward: a row per time and joint" test "$(tail -n +2 <<<"$fcsv" | grep -c '')" -eq 30
expect 2 dynamics crane4 --forward --engine chain
pcsv=$("$bin" dynamics crane4 --forward --time 0:10:3 --step 1e-3 --format csv --per-time)
check "dynamics crane4 --forward: follows the trajectory, energy balanced" bash -c '
    test "$(tail -n +2 <<<"$1" | grep -c "")" -eq 3 &&
    awk -v d="$2" -v b="$3" "BEGIN { exit !(d <= 1e-6 && b <= 1e-6) }"' _ \
    "$pcsv" "$(colof deviation <<<"$pcsv")" "$(colof balance <<<"$pcsv")"
# --forward --forces: the drives of an inverse run written as t,<joint> samples and fed back
# reproduce its motion to the spline's accuracy: the deviation falls by about 2^4 per halving of
# the sample spacing. Bad force files exit 2 naming the file and line.
chain_forces() { # machine N columns: the actuated joints' drives of an inverse run at N times
    "$bin" dynamics "$1" --time 0:10:"$2" --format csv | awk -F, -v h="t,$3" '
        BEGIN { n = split(h, c, ","); for (i = 2; i <= n; i++) want[c[i]] = 1 }
        NR == 1 { print h; next }
        !($2 in want) { next }
        { if (!seen[$1]++) { if (line != "") print line; line = $1 } line = line "," $7 }
        END { print line }'
}
chain_deviation() { colof deviation; } # the largest |q - q_ref| of a --forward --per-time csv
chain_forces boom1 501 cyl1 >"$tmp/boom_f20.csv"
chain_forces boom1 1001 cyl1 >"$tmp/boom_f10.csv"
check "dynamics boom1 forces csv header" test "$(head -1 "$tmp/boom_f10.csv")" = "t,cyl1"
dev20=$(timeout 60 "$bin" dynamics boom1 --forward --step 1e-3 --forces "$tmp/boom_f20.csv" --format csv --per-time | chain_deviation)
dev10=$(timeout 60 "$bin" dynamics boom1 --forward --step 1e-3 --forces "$tmp/boom_f10.csv" --format csv --per-time | chain_deviation)
check "dynamics boom1 --forces reproduces the motion" below "$dev10" 1e-5
check "dynamics boom1 --forces: fourth order in the sample spacing" \
    awk -v a="$dev20" -v b="$dev10" 'BEGIN { exit !(b > 0 && a / b >= 12) }'
chain_forces crane4 1001 slew,cyl1,cyl2,ext >"$tmp/crane_f10.csv"
dev=$(timeout 60 "$bin" dynamics crane4 --forward --step 1e-3 --forces "$tmp/crane_f10.csv" --format csv --per-time | chain_deviation)
check "dynamics crane4 --forces reproduces the motion" below "$dev" 2e-4
fcsv=$(timeout 60 "$bin" dynamics crane4 --forward --step 1e-3 --forces "$tmp/crane_f10.csv" --time 0:10:3 --format csv)
f0=$(sed -n 2p "$tmp/crane_f10.csv" | cut -d, -f3)
check "dynamics crane4 --forces: the drives are the file's" awk -F, -v f="$f0" '
    $1 == 0 && $2 == "cyl1" { d = $7 - f; if (d < 0) d = -d; ok = d <= 1e-9 * f }
    END { exit !ok }' <<<"$fcsv"
pcsv=$(timeout 60 "$bin" dynamics crane4 --forward --step 1e-3 --forces "$tmp/crane_f10.csv" --time 0:10:3 --format csv --per-time)
check "dynamics crane4 --forces: energy balanced" below "$(colof balance <<<"$pcsv")" 1e-6
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
# A drive beyond 1e10 N (1e308 made the solve's SVD fail) is refused before the first step.
printf 't,cyl1\n0,1e308\n1,1e308\n2,1e308\n3,1e308\n' >"$tmp/forces_huge.csv"
expect 2 dynamics boom1 --forward --forces "$tmp/forces_huge.csv" --time 0:3:4
check "dynamics --forces names the joint and the time of a drive out of range" grep -q \
    "drive of joint cyl1 at t = 0: 1e+308, beyond 1e+10" \
    <<<"$("$bin" dynamics boom1 --forward --forces "$tmp/forces_huge.csv" --time 0:3:4 2>&1 >/dev/null)"
expect 2 dynamics boom1 --forces "$tmp/boom_f10.csv"
# -o: the rows in an HDF5 file (docs/hdf5-layout.md, "Dynamics files": every case's layout),
# equal to the printed csv rows of both tables (%.17g: bit for bit), inverse and forward (with
# --forces); the quantities a chain lacks are NaN there, empty cells in the csv.
for run in "crane4 --time 0:10:11" "crane4 --forward --step 1e-3 --time 0:10:11" \
    "boom1 --forward --step 1e-3 --forces $tmp/boom_f10.csv --time 0:10:11"; do
    # shellcheck disable=SC2086 # the run's words
    "$bin" dynamics $run --format csv >"$tmp/chain_rows.csv"
    # shellcheck disable=SC2086
    "$bin" dynamics $run --format csv --per-time >"$tmp/chain_time.csv"
    # shellcheck disable=SC2086
    expect 0 dynamics $run -o "$tmp/chain.h5"
    check "dynamics $run -o: the file holds the printed rows" "$py" - "$tmp/chain.h5" "$tmp/chain_rows.csv" "$tmp/chain_time.csv" "$run" <<'PY'
import sys, csv, math, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
rows = list(csv.DictReader(open(sys.argv[2])))
per = list(csv.DictReader(open(sys.argv[3])))
mods = f.attrs["joints"].decode().split(",")
assert f.attrs["format"] == b"pkmflex-dynamics" and f.attrs["complete"] == 1
assert len(rows) == len(f["t"]) * len(mods) and len(per) == len(f["t"])
assert ("deviation" in per[0]) == ("--forward" in sys.argv[4])
cell = lambda s: float(s) if s != "" else math.nan
for r in rows:
    k, i = int(np.argmin(abs(f["t"][:] - float(r["t"])))), mods.index(r["joint"])
    assert abs(f["t"][k] - float(r["t"])) < 1e-9
    for c in ["q", "qd", "qdd", "drive", "ideal", "friction", "f_axial", "f_radial", "m_bending"]:
        a, b = f[c][k, i], cell(r[c])
        assert a == b or (math.isnan(a) and math.isnan(b)), (c, k, i)
for k, r in enumerate(per):
    for c in r:
        if c != "t":  # the engine chain has no residual or conditioning: NaN, an empty cell
            a, b = f["per_time"][c][k], cell(r[c])
            assert a == b or (math.isnan(a) and math.isnan(b) and c in ("residual", "conditioning")), (c, k)
PY
done
expect 2 dynamics boom1 -o "$tmp/nonexistent/chain.h5"
expect 2 dynamics boom1 -o "$tmp"
expect 2 dynamics boom1 --time 0:1:1
expect 2 dynamics crane4 --format xml
expect 2 dynamics boom1 --forward --step 0
expect 2 dynamics boom1 --step 1e-3
expect 2 dynamics boom1 --engine chain --wrench 1,0,0,0,0,0
expect 2 dynamics boom1 --trajectory "$tmp/badjoint.csv"
expect 2 dynamics boom1 --trajectory "$tmp/boom_rest.csv" --time 0:5:3
printf 't,x\n0,0.5\n1,0.52\n2,0.54\n3,0.55322\n' >"$tmp/boom_singular.csv"
expect 3 dynamics boom1 --trajectory "$tmp/boom_singular.csv" --time 0:3:31
serr=$("$bin" dynamics boom1 --trajectory "$tmp/boom_singular.csv" --time 0:3:31 2>&1 >/dev/null)
check "dynamics boom1 names the singular module" grep -q "module cyl1: .*singularity margin" <<<"$serr"
serr=$("$bin" dynamics boom1 --engine mbs --trajectory "$tmp/boom_singular.csv" --time 0:3:31 2>&1 >/dev/null)
check "dynamics boom1 --engine mbs names the loop's undetermined pin" grep -q "dead point.*'cyl1.q1'" <<<"$serr"
cli_done
