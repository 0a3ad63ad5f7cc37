#!/usr/bin/env bash
# tests/cli_robot_time_test.sh PKMFLEX ROOT: the time domain of robot files and of trajectories
# that start far from home (issue "The time domain for any robot"): headers, exit codes, the
# one-line FILE:LINE:COLUMN errors of the time-domain blocks.
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0
ok() { pass=$((pass + 1)); }
bad() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
# first_line WANT ARGS...: exit 0 and the first stdout line WANT.
first_line() {
    local want=$1
    shift
    local out st
    out=$("$bin" "$@" 2>"$tmp/err" | head -1) && st=0 || st=$?
    [ "$st" -eq 0 ] && [ "$out" = "$want" ] && [ ! -s "$tmp/err" ] && ok ||
        bad "pkmflex $* -> first line '$out' (want '$want'), stderr $(cat "$tmp/err")"
}
# runs ARGS...: exit 0, every csv row finite (no nan or inf cell).
runs() {
    local st
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err" && st=0 || st=$?
    if [ "$st" -ne 0 ] || grep -qiE '(^|,)-?(nan|inf)' "$tmp/out"; then
        bad "pkmflex $* -> exit $st, $(cat "$tmp/err")"
    else
        ok
    fi
}
# refused STATUS PATTERN ARGS...: that exit status and one stderr line matching PATTERN.
refused() {
    local want=$1 pat=$2
    shift 2
    local st
    "$bin" "$@" >/dev/null 2>"$tmp/err" && st=0 || st=$?
    if [ "$st" -eq "$want" ] && [ "$(grep -c '' "$tmp/err")" -eq 1 ] && grep -qE "$pat" "$tmp/err"; then
        ok
    else
        bad "pkmflex $* -> exit $st (want $want, /$pat/): $(cat "$tmp/err")"
    fi
}
ex=$root/examples
dyn_header="t,joint,type,q,qd,qdd,drive,ideal,friction,f_axial,f_radial,m_bending"
first_line "$dyn_header" dynamics "$ex/3rrr.yaml" --format csv
first_line "$dyn_header" dynamics "$ex/delta.yaml" --format csv
first_line "$dyn_header" dynamics "$ex/navaro.yaml" --format csv
first_line "t,ex,ey,ez,rx,ry,rz,drive_A1,drive_A2,drive_A3,qs_ex,qs_ey,qs_ez,qs_rx,qs_ry,qs_rz,kinetic,strain,dissipated,work,updated,conditioning" transient "$ex/delta.yaml" --format csv
first_line "t,ex,ey,ez,rx,ry,rz,drive_A1,drive_A2,drive_A3,qs_ex,qs_ey,qs_ez,qs_rx,qs_ry,qs_rz,kinetic,strain,dissipated,work,updated,conditioning" transient "$ex/3rrr.yaml" --format csv
runs transient "$ex/3rrr.yaml" --trajectory shake --duration 0.05 --format csv
runs dynamics "$ex/fivebar.yaml" --format csv
runs transient "$ex/fivebar.yaml" --trajectory circle --duration 0.2 --format csv
runs dynamics "$ex/3rrr.yaml" --set gravity.z=0 --format csv
runs transient "$ex/3rrr.yaml" --trajectory harmonic:x,1e-4,30 --duration 0.05 --format csv
# NaVARo at theta = -60 deg (Table 3's orientation): held still, and a motion starting far from
# home; both stopped at t = 0 before (the closure's forward threshold, a jump from home).
printf 't,x,y,theta\n0,0,0,-1.0471975511965976\n0.1,0,0,-1.0471975511965976\n0.2,0,0,-1.0471975511965976\n0.3,0,0,-1.0471975511965976\n' >"$tmp/still.csv"
python3 - "$tmp/far.csv" <<'PY'
import math, sys
with open(sys.argv[1], "w") as f:
    f.write("t,x,y,theta\n")
    for i in range(11):
        t = 0.05 * i; s = t / 0.5; b = s * s * (3 - 2 * s)
        f.write("%g,%.17g,%.17g,%.17g\n" % (t, -0.05 + 0.09 * b, -0.03 + 0.05 * b, -math.pi / 3))
PY
for cmd in transient dynamics; do
    runs "$cmd" navaro --trajectory "$tmp/still.csv" --format csv
    runs "$cmd" navaro --trajectory "$tmp/far.csv" --format csv
    runs "$cmd" "$ex/navaro.yaml" --trajectory "$tmp/far.csv" --format csv
done
# A robot file without trajectories: one line naming the way out.
# (the file up to its time-domain blocks, which start at their comment)
sed '/^# The time domain/,$d' "$ex/3rrr.yaml" >"$tmp/plain.yaml"
refused 2 "no named trajectory: give --trajectory" dynamics "$tmp/plain.yaml"
refused 2 "no named trajectory" transient "$tmp/plain.yaml"
# --set on a robot file: any value by its dotted path, checked as the file's own.
refused 2 "no entry 'material'" dynamics "$ex/3rrr.yaml" --set material.E=1
refused 2 "no entry 'nosuch' in 'bodies'" modes "$ex/3rrr.yaml" --set "bodies.nosuch.beam.elements=8"
refused 2 "names a mapping, not one value" modes "$ex/3rrr.yaml" --set "sections.link=3"
refused 2 "3rrr.yaml:[0-9]+:[0-9]+: '3 kg': unit 'kg'" modes "$ex/3rrr.yaml" --set "sections.link.A=3 kg"
f_set() { "$bin" modes "$ex/3rrr.yaml" --nev 1 --format csv "$@" | awk -F, 'NR == 2 {print $2}'; }
fa=$(f_set)
fb=$(f_set --set "sections.link.A=300 mm^2")
fc=$(f_set --set "materials.steel.E=70 GPa" --set "materials.steel.G=26.923333333333333 GPa")
fd=$(f_set --set "materials.steel.E=70 GPa" --set "materials.steel.G=26.923333333333333 GPa" \
    --set "gravity.z=0")
# E and G / 3: f1 / sqrt(3); a larger area, more mass for the same bending stiffness: lower.
awk -v a="$fa" -v b="$fb" -v c="$fc" -v d="$fd" 'BEGIN { r = a / c;
    exit !(b < a && r > 1.7319 && r < 1.7322 && c == d) }' && ok ||
    bad "--set on the 3-RRR: f1 $fa, A 300 mm^2 $fb, E 70 GPa $fc (E, G / 3: ratio sqrt 3?), with gravity.z $fd"
first_line "$dyn_header" dynamics "$ex/3rrr.yaml" --set "trajectories.p2p.motion.x.quintic.1=10 mm" \
    --format csv
# Faults of the time-domain blocks, each at FILE:LINE:COLUMN, exit 2.
cp "$tmp/plain.yaml" "$tmp/base.yaml"
fault_on_base() {
    local name=$1 pat=$2
    cat "$tmp/base.yaml" - >"$tmp/$name.yaml"
    refused 2 "$tmp/$name.yaml:[0-9]+:[0-9]+: .*$pat" dynamics "$tmp/$name.yaml"
}
fault_on_base gravity2 "expected 3|3 values|sequence of 3" <<'Y'
gravity: [0, -9.81]
Y
fault_on_base gravunit "unit|m/s\^2" <<'Y'
gravity: [0, 0, -9.81 kg]
Y
fault_on_base fricmodel "friction model" <<'Y'
friction: {model: sticky}
Y
fault_on_base frickey "unknown key 'mu'" <<'Y'
friction: {model: coulomb-viscous, mu: 0.1}
Y
fault_on_base massjoint "no joint 'Z9'" <<'Y'
masses:
  - {name: m1, joint: Z9, body: distal 1, mass: 0.3 kg}
Y
fault_on_base massbody "not a body of joint 'B1'" <<'Y'
masses:
  - {name: m1, joint: B1, body: platform, mass: 0.3 kg}
Y
fault_on_base trajcoord "unknown key 'z'" <<'Y'
trajectories:
  - {name: up, duration: 1 s, motion: {z: {quintic: [0, 1 mm, 1 s]}}}
Y
fault_on_base trajkind "expected quintic" <<'Y'
trajectories:
  - {name: up, duration: 1 s, motion: {x: {cubic: [0, 1 mm, 1 s]}}}
Y
fault_on_base trajcount "expected 3 values" <<'Y'
trajectories:
  - {name: up, duration: 1 s, motion: {x: {quintic: [0, 1 mm]}}}
Y
fault_on_base trajtwice "given twice" <<'Y'
trajectories:
  - {name: up, duration: 1 s, motion: {x: {quintic: [0, 1 mm, 1 s]}}}
  - {name: up, duration: 1 s, motion: {x: {quintic: [0, 2 mm, 1 s]}}}
Y
fault_on_base trajdur "duration must be > 0" <<'Y'
trajectories:
  - {name: up, duration: 0 s, motion: {x: {quintic: [0, 1 mm, 1 s]}}}
Y
fault_on_base springjoint "spring: no joint 'Q1'" <<'Y'
springs:
  - {joint: Q1, axis: [0, 0, 1], k: 200 N m/rad}
Y
fault_on_base springkind "spring kind" <<'Y'
springs:
  - {joint: B1, axis: [0, 0, 1], k: 200 N m/rad, kind: coil}
Y
fault_on_base contactbody "contact: no body 'table'" <<'Y'
contacts:
  - {name: c1, body: table, point: [0, 0, 0], normal: [0, 0, 1]}
Y
# A spring about z at the elbow B1 and the platform held in its plane: the out-of-plane mode at
# 36.1 Hz goes, the in-plane pair at 52.8 Hz splits (the spring stiffens one of them).
cat "$tmp/base.yaml" - >"$tmp/extra.yaml" <<'Y'
springs:
  - {joint: B1, axis: [0, 0, 1], k: 200 N m/rad}
contacts:
  - {name: c1, body: platform, point: [0, 0, 0], normal: [0, 0, 1]}
Y
f1=$("$bin" modes "$tmp/base.yaml" --nev 2 --format csv | awk -F, 'NR == 2 {print $2}')
f2=$("$bin" modes "$tmp/extra.yaml" --nev 2 --format csv | awk -F, 'NR == 3 {print $2}')
awk -v a="$f1" -v b="$f2" 'BEGIN { exit !(a > 36 && a < 36.3 && b > 53 && b < 54) }' && ok ||
    bad "springs and contacts: f1 $f1 Hz of the plain file, f2 $f2 Hz with them (want 36.1, 53.4)"
runs dynamics "$tmp/extra.yaml" --trajectory harmonic:x,1e-3,5 --time 0:0.1:11 --format csv
runs transient "$tmp/extra.yaml" --trajectory harmonic:x,1e-4,5 --duration 0.02 --format csv
# Input by range, rows finite: a wrench of 1e308 N gave -nan rows and exit 0.
refused 2 "wrench component 1 = 1e\+308 is outside" transient navaro --wrench 1e308,0,0,0,0,0 \
    --duration 0.003 --format csv
printf 't,fx,fy,fz,mx,my,mz\n0,0,0,0,0,0,0\n0.001,0,0,0,0,0,0\n0.002,1e300,0,0,0,0,0\n0.003,0,0,0,0,0,0\n' \
    >"$tmp/w.csv"
refused 2 "t = 0.002 s: wrench component 1" transient navaro --wrench "$tmp/w.csv" --duration 0.003 \
    --format csv
# Near-singular poses named (the five-bar's distal links aligned near y = 0.1727 m): f1 = 0.23 Hz
# was printed as any other pose; now the locked closure's conditioning and a warning.
"$bin" modes "$ex/fivebar.yaml" --pose 0,0.173 --nev 2 >"$tmp/ns.out" 2>"$tmp/ns.err" && st=0 || st=$?
[ "$st" -eq 0 ] && grep -q 'closure conditioning with the drives locked 2.2[0-9]e-04: near-singular' "$tmp/ns.out" &&
    grep -q 'warning: near-singular pose x = 0 m, y = 0.173 m: .*conditioning 2.2[0-9]e-04' "$tmp/ns.err" &&
    [ "$(grep -c '' "$tmp/ns.err")" -eq 1 ] && ok || bad "five-bar near its singularity: $(cat "$tmp/ns.out" "$tmp/ns.err")"
"$bin" modes "$ex/fivebar.yaml" --nev 2 >"$tmp/ok.out" 2>"$tmp/ok.err"
grep -q 'closure conditioning with the drives locked 1.1[0-9]e-01: ok' "$tmp/ok.out" && [ ! -s "$tmp/ok.err" ] &&
    ok || bad "five-bar at home: $(cat "$tmp/ok.out" "$tmp/ok.err")"
echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
