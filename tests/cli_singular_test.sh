#!/usr/bin/env bash
# tests/cli_singular_test.sh PKMFLEX ROOT: the rest of issue 30's first item on the command line:
# over-specified pose coordinates refused at load with the mechanism's mobility, mechanism modes
# named by joint, the closure's conditioning per pose of a map (its HDF5 dataset, its VTKHDF
# field, the summary's count of near-singular poses).
set -u
bin=$1
root=$2
py=/usr/bin/python3
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # check NAME COMMAND...: the command succeeds
    local name=$1
    shift
    if "$@"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $name"
        fails=$((fails + 1))
    fi
}
fivebar="$root/examples/fivebar.yaml"

# Three pose coordinates for the 2-dof five-bar: one line at the pose block (line 35, column 3),
# naming the mobility 2, exit 2 (before: loaded, every pose but home out of the workspace).
sed 's/^  - {name: y, platform: y, home: 0.3 m}$/&\n  - {name: turn, platform: rz}/' "$fivebar" \
    >"$tmp/fivebar3.yaml"
err=$("$bin" modes "$tmp/fivebar3.yaml" 2>&1 >/dev/null)
rc=$?
check "over-specified pose: exit 2, one line at the pose block naming the mobility" \
    bash -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | grep -c "")" -eq 1 ] &&
        grep -q "fivebar3.yaml:35:3: 3 pose coordinates, but the mechanism has mobility 2" <<<"$2"' \
    _ "$rc" "$err"

# A mechanism mode named by the joints it moves: the five-bar with neither drive actuated (so
# neither locked) has two zero-energy modes moving its five revolute joints, not the welded P1
# (before: named by coordinate indices only).
sed 's/, actuated: true}$/}/' "$fivebar" >"$tmp/fivebar_free.yaml"
err=$("$bin" modes "$tmp/fivebar_free.yaml" 2>&1 >/dev/null)
rc=$?
check "mechanism modes named by joint" "$py" -c '
import re, sys
rc, err = int(sys.argv[1]), sys.argv[2]
assert rc == 3 and err.count("\n") == 0, (rc, err)
m = re.search(r"the mechanism modes move joints ([A-Z0-9, ]+) \(joint motion", err)
assert m, err
assert sorted(m.group(1).split(", ")) == ["A1", "A2", "B1", "B2", "P2"], m.group(1)
' "$rc" "$err"

echo "cli_singular: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
