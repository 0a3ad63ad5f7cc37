#!/usr/bin/env bash
# tests/cli/dynamics.sh PKMFLEX ROOT: dynamics: tree5, loop3, pss5upu, friction, CSV trajectories,
# --forward, -o.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# dynamics: the rigid-body inverse dynamics along a trajectory (Guo et al. 2024's tree5 and loop3,
# against the reference values derived from their Tables 2 and 3).
expect 0 dynamics --help
expect 0 dynamics tree5 --time 0:5:6
expect 0 dynamics loop3 --time 0:14:8
expect 0 dynamics navaro --time 0:1.5:4
dcsv=$("$bin" dynamics tree5 --time 0:5:6 --format csv)
check "dynamics csv header is exact" \
    test "$(head -n 1 <<<"$dcsv")" = "t,joint,type,q,qd,qdd,drive,ideal,friction,f_axial,f_radial,m_bending"
# Issue 28's contract: the same first line for every case and engine of the registry and a
# robot file, character for character.
check "dynamics csv header is the same for the eight cases" sh -c '
    for c in tree5 loop3 navaro pss5upu crane4 boom1 masticatory "$2/examples/3rrr.yaml"; do
        test "$("$1" dynamics "$c" --format csv | head -n 1)" = \
            "t,joint,type,q,qd,qdd,drive,ideal,friction,f_axial,f_radial,m_bending" || exit 1
    done' _ "$bin" "$root"
check "dynamics csv: one row per time and joint" test "$(tail -n +2 <<<"$dcsv" | grep -c '')" -eq 30
# tree5 from rest, every joint at 0.2 rad/s^2: joint 1's drive 1.965952 N m, radial force
# 2.043916 N, bending moment 27.439889 N m, axial force 9.8 x 11 kg at t = 0; drive 6.029607 N m
# at 5 s.
row=$(grep '^0,1,revolute,' <<<"$dcsv")
check "dynamics tree5 joint 1 drive at 0 s" near "$(field "$row" 7)" 1.965952 1e-6
check "dynamics tree5 joint 1 axial force" near "$(field "$row" 10)" 107.8 1e-12
check "dynamics tree5 joint 1 radial force" near "$(field "$row" 11)" 2.043916 1e-6
check "dynamics tree5 joint 1 bending moment" near "$(field "$row" 12)" 27.439889 1e-6
row=$(grep '^5,1,revolute,' <<<"$dcsv")
check "dynamics tree5 joint 1 drive at 5 s" near "$(field "$row" 7)" 6.029607 1e-6
check "dynamics tree5 joint 1 angle at 5 s" near "$(field "$row" 4)" 2.5 1e-15
# Friction from the command line: joint 1's drive at 1 s with Coulomb-viscous friction (Table 2
# data, arms 1 m) is 2.988086 N m.
row=$("$bin" dynamics tree5 --time 0:1:3 --friction coulomb-viscous --format csv | grep '^1,1,')
check "dynamics --friction coulomb-viscous" near "$(field "$row" 7)" 2.988086 1e-6
# loop3: the cut joints are rows too; the crank stops before the dead point near 1.578 rad
# (t = 15.8 s), exit 3 naming the time.
lcsv=$("$bin" dynamics loop3 --time 0:1:2 --format csv)
check "dynamics loop3 lists its cuts" test "$(grep -c -e '^0,C[123],revolute-cut,' <<<"$lcsv")" -eq 3
expect 3 dynamics loop3 --time 0:16:17
# A grid starting late: the closure is followed from the trajectory's start, so loop3 at 14 s is
# on its branch (q1 = 0.25923 rad) and not on the singular one Newton finds from q = 0.
row=$("$bin" dynamics loop3 --time 14:15:2 --format csv | grep '^14,1,')
check "dynamics keeps the assembly branch to a late start" near "$(field "$row" 4)" 0.25923 2e-5
lerr=$("$bin" dynamics loop3 --time 0:16:17 2>&1 >/dev/null)
check "dynamics names the singular time" grep -q '^pkmflex: error: t = 1[56] s: ' <<<"$lerr"
check "dynamics bad input prints nothing on stdout" \
    test -z "$("$bin" dynamics tree5 --time 0:1:1 2>/dev/null)"
serr=$("$bin" dynamics tree5 --friction stribeck --set friction.ks=0.001 2>&1 >/dev/null)
check "dynamics names the joint of bad friction data" grep -q "joint 1: .*ks" <<<"$serr"
printf 't,1,2,3,4,6\n0,0,0,0,0,0\n1,0,0,0,0,0\n2,0,0,0,0,0\n3,0,0,0,0,0\n' >"$tmp/badjoint.csv"
printf 't,1,2,3,4,5\n0,0,0,0,0,0\n1,0,0,0,0,0\n2,0,0,0,0,0\n' >"$tmp/few.csv"
printf 't,1,2,3,4,5\n0,0,0,0,0,0\n2,0,0,0,0,0\n1,0,0,0,0,0\n3,0,0,0,0,0\n' >"$tmp/unsorted.csv"
expect 2 dynamics tree5 --trajectory "$tmp/badjoint.csv"
expect 2 dynamics tree5 --trajectory "$tmp/few.csv"
expect 2 dynamics tree5 --trajectory "$tmp/unsorted.csv"
expect 2 dynamics tree5 --trajectory "$tmp/nonexistent.csv"
# A CSV trajectory: a cubic in time, sampled at uneven times, is followed exactly (the not-a-knot
# spline reproduces it, derivatives included): q = 0.1 t^3 at t = 1.
{
    echo "t,1,2,3,4,5"
    for t in 0 0.5 1.5 2 3; do
        awk -v t="$t" 'BEGIN { q = 0.1 * t * t * t; printf "%s,%.17g,%.17g,%.17g,%.17g,%.17g\n", t, q, q, q, q, q }'
    done
} >"$tmp/cubic.csv"
row=$("$bin" dynamics tree5 --trajectory "$tmp/cubic.csv" --time 0:3:4 --format csv | grep '^1,3,')
check "dynamics follows a CSV trajectory: q" near "$(field "$row" 4)" 0.1 1e-12
check "dynamics follows a CSV trajectory: qd" near "$(field "$row" 5)" 0.3 1e-12
check "dynamics follows a CSV trajectory: qdd" near "$(field "$row" 6)" 0.6 1e-12
printf 't,x,y,theta\n0,0,0,0\n1,0.1,0,0\n2,0.2,0,0\n3,0.3,0,0\n' >"$tmp/away.csv"
expect 2 dynamics navaro --trajectory "$tmp/away.csv" --time 0:3:31
aerr=$("$bin" dynamics navaro --trajectory "$tmp/away.csv" --time 0:3:31 2>&1 >/dev/null)
check "dynamics names the time and the leg out of reach" \
    grep -q "^pkmflex: error: t = .* s: navaro: leg [123] cannot reach" <<<"$aerr"
# dynamics --forward: RK4 under the drives of the inverse dynamics, evaluated at the stage
# times, follows the trajectory to the integrator's error (tree5 over 1 s, loop3 over 2 s, steps
# of 1 ms) and its energy balance closes (its per-time table, --per-time; the joint table holds
# the drives applied); -o writes both tables; a friction loop that cannot settle (Table 3's
# friction with unit arms on loop3's 0.1 m links) is exit 3.
fcsv=$(timeout 120 "$bin" dynamics tree5 --forward --time 0:1:1001 --format csv --per-time)
check "dynamics --forward csv header" test "$(head -n 1 <<<"$fcsv")" = "t,deviation,balance,friction_work"
check "dynamics --forward: a row per step" test "$(tail -n +2 <<<"$fcsv" | grep -c '')" -eq 1001
check "dynamics --forward tree5 follows the trajectory" below "$(colmax 2 <<<"$fcsv")" 1e-9
check "dynamics --forward tree5 energy balance" below "$(colmax 3 <<<"$fcsv")" 1e-9
fcsv=$(timeout 120 "$bin" dynamics loop3 --forward --time 0:2:2001 --format csv --per-time)
check "dynamics --forward loop3 follows the trajectory" below "$(colmax 2 <<<"$fcsv")" 1e-9
check "dynamics --forward loop3 energy balance" below "$(colmax 3 <<<"$fcsv")" 1e-9
expect 0 dynamics tree5 --forward --time 0:0.1:11 -o "$tmp/forward.h5"
check "dynamics --forward -o: both tables, complete" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
assert f.attrs["complete"] == 1 and f["t"].shape == (11,) and f["drive"].shape == (11, 5)
assert sorted(f["per_time"].keys()) == ["balance", "deviation", "friction_work"]
assert np.all(np.abs(f["per_time/deviation"][...]) < 1e-9)
' "$tmp/forward.h5"
check "dynamics navaro per-time csv header: pose, residual and conditioning" test \
    "$("$bin" dynamics navaro --time 0:1.5:4 --format csv --per-time | head -1)" = "t,x,y,theta,residual,conditioning"
expect 3 dynamics loop3 --forward --friction stribeck --time 0:1:11
# pss5upu: its default trajectory eq40-off (eq. 40 about x = 20 mm, alpha = 0.2 rad, where the
# rigid model is built) runs at the default singularity threshold; eq40 itself starts at the
# centre of the layout, a singular pose of the S-S legs: exit 3 at t = 0 saying so; a CSV pose
# that a leg cannot reach: exit 2 naming the time and the leg.
expect 0 dynamics pss5upu
check "cases lists pss5upu's default trajectory and where its rigid model is built" \
    grep -q "eq40-off (default) eq40" <<<"$("$bin" cases)"
check "cases: the pose of pss5upu's rigid model" \
    grep -q "rigid-body model at: x = 0.02 y = 0 z = 0 alpha = 0.2 beta = 0" <<<"$("$bin" cases)"
row=$("$bin" dynamics pss5upu --format csv | grep -c ',rail [1-5],prismatic,')
check "dynamics pss5upu drives its five rails at every time" test "$row" -eq 505
expect 3 dynamics pss5upu --trajectory eq40
perr=$("$bin" dynamics pss5upu --trajectory eq40 2>&1 >/dev/null)
check "dynamics pss5upu: eq40's singular centre named with its time" \
    grep -q "^pkmflex: error: t = 0 s: singular .*S-S legs.*the legs cannot hold the platform" \
    <<<"$perr"
printf 't,x,y,z,alpha,beta\n0,0.02,0,0,0.2,0\n1,0.1,0,0,0.2,0\n2,0.2,0,0,0.2,0\n3,0.3,0,0,0.2,0\n' \
    >"$tmp/pss_away.csv"
expect 2 dynamics pss5upu --trajectory "$tmp/pss_away.csv" --time 0:3:31
perr=$("$bin" dynamics pss5upu --trajectory "$tmp/pss_away.csv" --time 0:3:31 2>&1 >/dev/null)
check "dynamics pss5upu names the time and the leg out of reach" \
    grep -q "^pkmflex: error: t = 2.9 s: pss5upu: leg [1-5] cannot reach" <<<"$perr"
# dynamics -o: the same rows as time series in HDF5, with the full reaction wrenches, read back
# with h5py against the CSV; a name that cannot be written is refused before any computation.
expect 0 dynamics loop3 --time 0:2:5 -o "$tmp/loop3.h5"
"$bin" dynamics loop3 --time 0:2:5 --format csv >"$tmp/loop3.csv"
check "dynamics -o: the file holds the csv rows and the wrenches" "$py" -c '
import sys, csv, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
rows = list(csv.DictReader(open(sys.argv[2])))
joints = f.attrs["joints"].decode().split(",")
assert f.attrs["format"] == b"pkmflex-dynamics" and f.attrs["case"] == b"loop3"
assert f.attrs["trajectory"] == b"crank" and f.attrs["friction"] == b"none"
assert f["t"].shape == (5,) and f["drive"].shape == (5, 10) and f["wrench"].shape == (5, 10, 6)
assert len(rows) == 50 and joints == [r["joint"] for r in rows[:10]]
for i, r in enumerate(rows):
    k, j = divmod(i, 10)
    assert abs(f["t"][k] - float(r["t"])) <= 1e-12
    for name in ("q", "qd", "qdd", "drive", "ideal", "friction", "f_axial", "f_radial", "m_bending"):
        assert abs(f[name][k, j] - float(r[name])) <= 1e-9 * (1 + abs(float(r[name]))), (name, k, j)
# the components are those of the wrench: a revolute joint about z carries f_radial = |(Fx, Fy)|
w = f["wrench"][...]
assert np.allclose(np.hypot(w[:, :, 0], w[:, :, 1]), f["f_radial"][...], rtol=1e-12, atol=1e-9)
assert abs(f["drive"][0, joints.index("1\x27\x27")] - 0.88059) < 1e-5
' "$tmp/loop3.h5" "$tmp/loop3.csv"
expect 2 dynamics tree5 -o /nonexistent/dir/dyn.h5
expect 2 dynamics tree5 -o "$tmp"
# --wrench: a load on the platform (pkm_dynamics_opts.wrench). A constant wrench and the same as
# a CSV series give the same rows; the wrench changes the drives; refused: out of range, with
# --forward, on a case without a platform (tree5), each exit 2 with one line.
wdyn=(dynamics navaro --time 0:1.5:7 --format csv)
printf 't,fx,fy,fz,mx,my,mz\n0,20,-10,0,0,0,1.5\n0.5,20,-10,0,0,0,1.5\n1,20,-10,0,0,0,1.5\n1.5,20,-10,0,0,0,1.5\n' >"$tmp/w.csv"
"$bin" "${wdyn[@]}" --wrench 20,-10,0,0,0,1.5 >"$tmp/wc.csv"
"$bin" "${wdyn[@]}" --wrench "$tmp/w.csv" >"$tmp/wf.csv"
"$bin" "${wdyn[@]}" >"$tmp/w0.csv"
check "dynamics --wrench: a constant series equals the constant, and moves the drives" "$py" -c '
import sys, numpy as np
a, b, z = (np.genfromtxt(f, delimiter=",", names=True, dtype=None, encoding=None) for f in sys.argv[1:4])
d = a["drive"].astype(float)
assert np.abs(d - b["drive"].astype(float)).max() <= 1e-9 * np.abs(d).max()
assert np.abs(d - z["drive"].astype(float)).max() > 1e-2 * np.abs(d).max()
' "$tmp/wc.csv" "$tmp/wf.csv" "$tmp/w0.csv"
wr=$("$bin" dynamics navaro --wrench 1e308,0,0,0,0,0 2>&1 >/dev/null) && st=0 || st=$?
check "dynamics --wrench out of range: exit 2, one line" sh -c \
    '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | grep -c "")" -eq 1 ] && printf "%s" "$2" | grep -q "outside"' _ "$st" "$wr"
expect 2 dynamics navaro --wrench 1,0,0,0,0,0 --forward
expect 2 dynamics tree5 --wrench 1,0,0,0,0,0
expect 2 dynamics navaro --wrench 1,2,3
# A series beyond 1e10 late in the run is refused before the first time is computed (exit 2,
# nothing printed), as transient does.
printf 't,fx,fy,fz,mx,my,mz\n0,0,0,0,0,0,0\n0.5,0,0,0,0,0,0\n1,0,0,0,0,0,0\n1.5,2e10,0,0,0,0,0\n' >"$tmp/wbig.csv"
wout=$("$bin" dynamics navaro --time 0:1.5:7 --format csv --wrench "$tmp/wbig.csv" 2>/dev/null) && st=0 || st=$?
check "dynamics --wrench series out of range late: exit 2 before any row" \
    sh -c '[ "$1" -eq 2 ] && [ -z "$2" ]' _ "$st" "$wout"
# The case's own load (load.force, load.point in its dynamics block, --set) on the platform's
# reference point equals the same --wrench; the forward run and transient refuse a case load.
"$bin" "${wdyn[@]}" --set load.force.x=20 --set load.force.y=-10 >"$tmp/wl.csv"
"$bin" "${wdyn[@]}" --wrench 20,-10,0,0,0,0 >"$tmp/ww.csv"
check "dynamics: the case's load equals the same --wrench" "$py" -c '
import sys, numpy as np
a, b = (np.genfromtxt(f, delimiter=",", names=True, dtype=None, encoding=None) for f in sys.argv[1:3])
d = a["drive"].astype(float)
assert np.abs(d).max() > 1 and np.abs(d - b["drive"].astype(float)).max() <= 1e-12 * np.abs(d).max()
' "$tmp/wl.csv" "$tmp/ww.csv"
expect 2 dynamics navaro --set load.force.x=20 --forward
expect 2 transient navaro --set load.force.x=20 --duration 0.002
expect 2 dynamics navaro --set load.force.x=1e11
# A robot file's load block (docs/robot-files.md) is the same load; a bad key names its line.
sed 's/^trajectories:/load: {force: [20 N, -10 N, 0], point: [0, 0, 0]}\ntrajectories:/' \
    "$root/examples/3rrr.yaml" >"$tmp/3rrr_load.yaml"
"$bin" dynamics "$tmp/3rrr_load.yaml" --time 0:0.5:5 --format csv >"$tmp/rl.csv"
"$bin" dynamics "$root/examples/3rrr.yaml" --time 0:0.5:5 --format csv --wrench 20,-10,0,0,0,0 >"$tmp/rw.csv"
check "dynamics: a robot file's load block equals the same --wrench" "$py" -c '
import sys, numpy as np
a, b = (np.genfromtxt(f, delimiter=",", names=True, dtype=None, encoding=None) for f in sys.argv[1:3])
d = a["drive"].astype(float)
assert np.abs(d).max() > 1 and np.abs(d - b["drive"].astype(float)).max() <= 1e-12 * np.abs(d).max()
' "$tmp/rl.csv" "$tmp/rw.csv"
sed 's/^trajectories:/load: {force: [20 N, -10 N, 0], pont: [0, 0, 0]}\ntrajectories:/' \
    "$root/examples/3rrr.yaml" >"$tmp/3rrr_badload.yaml"
lerr=$("$bin" dynamics "$tmp/3rrr_badload.yaml" 2>&1 >/dev/null) && st=0 || st=$?
check "dynamics: a robot file's bad load key: exit 2 naming the file and line" sh -c \
    '[ "$1" -eq 2 ] && printf "%s" "$2" | grep -q "3rrr_badload.yaml:[0-9]*:[0-9]*: .*pont"' _ "$st" "$lerr"
# --forward --forces on a closed chain with a platform: NaVARo's drives from an inverse run every
# 5 ms, fed back, reproduce its p2p motion (2.4e-5 over 1.5 s, the spline's accuracy) with the
# energy balance closed; the drives printed are the file's.
"$bin" dynamics navaro --time 0:1.5:301 --format csv | awk -F, '
    NR == 1 { print "t,A11,A12,A13"; next }
    $2 !~ /^A1[123]$/ { next }
    { if (!seen[$1]++) { if (line != "") print line; line = $1 } line = line "," $7 }
    END { print line }' >"$tmp/navaro_forces.csv"
nfwd=$("$bin" dynamics navaro --forward --forces "$tmp/navaro_forces.csv" --time 0:1.5:16 --step 1e-3 --format csv --per-time)
check "dynamics navaro --forward --forces follows the motion, energy balanced" "$py" -c '
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
assert len(rows) == 16
assert max(float(r["deviation"]) for r in rows) < 1e-4
assert max(abs(float(r["balance"])) for r in rows) < 1e-9
' "$nfwd"
nrow=$("$bin" dynamics navaro --forward --forces "$tmp/navaro_forces.csv" --time 0:1.5:16 --step 1e-3 --format csv | grep '^0.5,A12,')
check "dynamics navaro --forward --forces: the drives are the file's" near "$(field "$nrow" 7)" \
    "$(grep '^0.5,' "$tmp/navaro_forces.csv" | cut -d, -f3)" 1e-12
cli_done
