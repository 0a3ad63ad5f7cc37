#!/usr/bin/env bash
# tests/cli/robot_rigid.sh PKMFLEX ROOT: robot files of rigid bodies whose pose names joints
# (the built-in cases tree5 and loop3, cases/tree5.yaml and cases/loop3.yaml embedded in
# pkmflex: Guo et al. 2024's mechanisms, docs/robot-files.md): `dynamics` runs them, the modal
# commands refuse them in one line, `cases` lists them as cases with their analyses, and the pose
# block's faults are one line at FILE:LINE:COLUMN.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
src=$root/cases
for c in tree5 loop3; do
    for law in none stribeck; do
        "$bin" dynamics "$c" --friction "$law" --format csv >"$tmp/rows.csv" 2>"$tmp/err"
        check "dynamics $c --friction $law: rows of every joint" \
            test "$(grep -c '^0,' "$tmp/rows.csv")" -ge 5
        check "dynamics $c: stderr empty" test ! -s "$tmp/err"
    done
    for cmd in modes map compare; do
        expect 2 "$cmd" "$c"
    done
    check "modes $c: a rigid-body case" sh -c \
        '"$1" modes "$2" 2>&1 >/dev/null | grep -q "rigid-body case: use \`pkmflex dynamics\`"' \
        sh "$bin" "$c"
    check "cases lists $c as a case with the analyses dynamics" sh -c \
        '"$1" cases --format csv | grep -q "^$2,case,[^,]*,[^,]*,dynamics,"' sh "$bin" "$c"
    check "cases lists no example file $c.yaml (it moved to cases/)" sh -c \
        '! "$1" cases --format csv | grep -q "^$2.yaml,"' sh "$bin" "$c"
done
# Issue 28: one table lists every case of the registry and the example robot files.
check "cases --format csv: the seven cases and the example files in one table" sh -c '
    test "$("$1" cases --format csv | cut -d, -f1,2 | tr "\n" " ")" = \
        "name,kind navaro,case pss5upu,case tree5,case loop3,case masticatory,case boom1,case crane4,case 3rrr.yaml,robot file delta.yaml,robot file fivebar.yaml,robot file navaro.yaml,robot file "' \
    _ "$bin"
check "cases --show tree5 prints its robot file" sh -c \
    '"$1" cases --show tree5 | grep -q "^robot: tree5$"' sh "$bin"
check "cases --show cases/loop3.yaml: analyses dynamics, trajectory crank (14 s)" sh -c \
    '"$1" cases --show "$2" | grep -q "analyses dynamics; trajectories crank (14 s)"' sh "$bin" \
    "$src/loop3.yaml"
# fault NAME PATTERN: the robot file on stdin refused by `dynamics` with exit 2 and one line
# "$tmp/NAME.yaml:LINE:COLUMN: ... PATTERN".
fault() {
    cat >"$tmp/$1.yaml"
    local err st
    err=$("$bin" dynamics "$tmp/$1.yaml" 2>&1 >/dev/null) && st=0 || st=$?
    if [ "$st" -eq 2 ] && [ "$(printf '%s\n' "$err" | grep -c '')" -eq 1 ] &&
        printf '%s' "$err" | grep -qE "$tmp/$1.yaml:[0-9]+:[0-9]+: .*$2"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $1: exit $st (want 2, /$2/): $err"
        fails=$((fails + 1))
    fi
}
# Two links on revolute joints about z, both driven (an open chain, no platform).
arm='robot: arm
bodies:
  - {name: a, rigid: {origin: [0, 0, 0], mass: 1 kg, com: [0.5, 0, 0], inertia: [0.01, 0.1, 0.1]}}
  - {name: b, rigid: {origin: [1, 0, 0], mass: 1 kg, com: [1.5, 0, 0], inertia: [0.01, 0.1, 0.1]}}
joints:
  - {name: J1, type: R, bodies: [ground, a], point: [0, 0, 0], axis: [0, 0, 1], actuated: true}
  - {name: J2, type: R, bodies: [a, b], point: [1, 0, 0], axis: [0, 0, 1], actuated: true}
'
traj='trajectories:
  - {name: swing, duration: 1 s, motion: {q1: {poly2: [0 rad, 0.1 rad/s, 0.2 rad/s^2]}}}
'
printf '%spose:\n  - {name: q1, joint: J1}\n  - {name: q2, joint: J2, home: 10 deg}\n%s' \
    "$arm" "$traj" >"$tmp/arm.yaml"
expect 0 dynamics "$tmp/arm.yaml" --format csv
expect 2 modes "$tmp/arm.yaml"
# At t = 1 s: q1 = 0.1 + 0.1 = 0.2 rad, qd1 = 0.3 rad/s, qdd1 = 0.2 rad/s^2; q2 held at 10 deg.
# (the csv prints every double exactly: qd1 reads 0.30000000000000004, 0.1 + 0.2 t at t = 1)
check "arm: poly2 and home as the rows say" sh -c '"$1" dynamics "$2" --format csv | awk -F, "
    function off(a, b) { d = a - b; return (d < 0 ? -d : d) > 1e-12 }
    \$1 == 1 && \$2 == \"J1\" { j1 = \$3 == \"revolute\" && !off(\$4, 0.2) && !off(\$5, 0.3) && !off(\$6, 0.2) }
    \$1 == 1 && \$2 == \"J2\" { j2 = \$3 == \"revolute\" && !off(\$4, 0.17453292519943295) && \$5 == 0 && \$6 == 0 }
    END { exit !(j1 && j2) }"' sh "$bin" "$tmp/arm.yaml"
fault mixed "either platform coordinates or joints, not both" <<Y
${arm}pose:
  - {name: q1, joint: J1}
  - {name: x, platform: x}
Y
fault noplatform "names the platform's x: give 'platform'" <<Y
${arm}pose:
  - {name: x, platform: x}
Y
fault both "give either 'platform' or 'joint'" <<Y
${arm}pose:
  - {name: q1, joint: J1, platform: x}
Y
fault nojoint "pose: no joint 'J9'" <<Y
${arm}pose:
  - {name: q1, joint: J9}
Y
fault twice "joint 'J1' set twice" <<Y
${arm}pose:
  - {name: q1, joint: J1}
  - {name: q2, joint: J1}
Y
fault homeunit "unit" <<Y
${arm}pose:
  - {name: q1, joint: J1, home: 3 m}
Y
fault poly2unit "unit" <<Y
${arm}pose:
  - {name: q1, joint: J1}
  - {name: q2, joint: J2}
trajectories:
  - {name: s, duration: 1 s, motion: {q1: {poly2: [0 rad, 1 m/s, 0 rad/s^2]}}}
Y
# A passive joint's coordinate is not a pose coordinate; a cut has none (a driven cut is refused).
sed "s/joint: \"1''\", home/joint: \"2\", home/" "$src/loop3.yaml" |
    fault passive "joint '2' is not an actuated R or P joint"
sed "s/cut: true}/cut: true, actuated: true}/; s/joint: \"1''\", home/joint: C1, home/" \
    "$src/loop3.yaml" | fault cut "joint 'C1' is actuated but closes a loop"
cli_done
