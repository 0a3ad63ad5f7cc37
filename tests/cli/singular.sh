#!/usr/bin/env bash
# tests/cli/singular.sh PKMFLEX ROOT: the rest of issue 30's first item on the command line:
# over-specified pose coordinates refused at load with the mechanism's mobility, mechanism modes
# named by joint, the closure's conditioning per pose of a map (its HDF5 dataset, its VTKHDF
# fields, the summary's count of near-singular poses).
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
fivebar="$root/examples/fivebar.yaml"

# Three pose coordinates for the 2-dof five-bar: one line at the pose block (line 35, column 3),
# naming the mobility 2, exit 2 (before: loaded, every pose but home out of the workspace).
sed 's/^  - {name: y, platform: y, home: 0.3 m}$/&\n  - {name: turn, platform: rz}/' "$fivebar" \
    >"$tmp/fivebar3.yaml"
expect 2 modes "$tmp/fivebar3.yaml"
err=$("$bin" modes "$tmp/fivebar3.yaml" 2>&1 >/dev/null)
check "over-specified pose: at the pose block, naming the mobility" \
    grep -q "fivebar3.yaml:35:3: 3 pose coordinates, but the mechanism has mobility 2" <<<"$err"

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

# The map's conditioning: the five-bar across its parallel singularity (y = 0.1727 m), with one
# worker and with two. /closure_conditioning: the same bits for both, f1 = 1000 Hz x the
# conditioning within 3 % where it is below 1e-2 (the modes' own frequencies against the closure's
# kinematics: test_studies_motion's relation), the value modes prints at one pose, the summary's
# count of near-singular poses, and the VTKHDF's fields (before: no such dataset or field).
grid="x=-0.02:0.02:5,y=0.165:0.18:16"
"$bin" map "$fivebar" --grid "$grid" --nev 2 -o "$tmp/fb1.h5" --threads 1 >"$tmp/fb1.out" 2>&1
"$bin" map "$fivebar" --grid "$grid" --nev 2 -o "$tmp/fb2.h5" --threads 2 --quiet \
    --vtk "$tmp/fb2.vtkhdf" >/dev/null 2>&1
"$bin" modes "$fivebar" --pose 0.01,0.173 --nev 1 >"$tmp/pose.out" 2>/dev/null
check "map: /closure_conditioning, near-singular poses, VTKHDF fields" "$py" -c '
import re, sys
import h5py, numpy as np
a, b, v = (h5py.File(p, "r") for p in sys.argv[1:4])
summary, pose = open(sys.argv[4]).read(), open(sys.argv[5]).read()
assert a.attrs["format_version"] == 5
c, st, f1 = a["closure_conditioning"][()], a["status"][()], a["freq_hz"][()][..., 0]
assert c.shape == (5, 16) and (st == 0).all(), (c.shape, st)
assert np.array_equal(c, b["closure_conditioning"][()]), "1 and 2 workers differ"
near = c < 1e-2
ratio = f1[near] / c[near]
assert near.sum() >= 20 and np.all(np.abs(ratio / 1000 - 1) < 0.03), ratio
printed = float(re.search(r"drives locked ([0-9.e+-]+):", pose).group(1))
assert abs(c[3, 8] / printed - 1) < 0.01, (c[3, 8], printed)
n = int(((c < 1e-3) & (st == 0)).sum())
assert n > 0 and re.search(r"# %d ok poses near-singular" % n, summary), (n, summary)
pd = v["VTKHDF/PointData"]
assert np.array_equal(pd["closure_conditioning"][()], c.ravel())
assert np.array_equal(pd["near_singular"][()], (c.ravel() < 1e-3).astype(np.int8))
' "$tmp/fb1.h5" "$tmp/fb2.h5" "$tmp/fb2.vtkhdf" "$tmp/fb1.out" "$tmp/pose.out"

# The conditioning along a transient: the five-bar moved down to y = 0.1735 m (harmonic, turning
# there at t = 0.25 s) and back. The warning names the lowest conditioning and its time, and it
# is the value modes prints at that pose (the model modes builds by the inverse kinematics, the
# transient's placed from its followed closure); -o keeps it per step (before: none of these).
"$bin" transient "$fivebar" --trajectory harmonic:y,-0.1265,1 --duration 0.3 --dt 1e-3 \
    --format csv -o "$tmp/fbt.h5" >/dev/null 2>"$tmp/fbt.err"
"$bin" modes "$fivebar" --pose 0,0.1735 --nev 1 >"$tmp/fbt_pose.out" 2>/dev/null
check "transient: the lowest conditioning warned, modes' value, per step in -o" "$py" -c '
import re, sys
import h5py, numpy as np
err, pose, f = open(sys.argv[1]).read(), open(sys.argv[2]).read(), h5py.File(sys.argv[3], "r")
m = re.search(r"^pkmflex: warning: near-singular: .* falls to ([0-9.e+-]+) at t = ([0-9.]+) s", err, re.M)
assert m, err
printed = float(re.search(r"drives locked ([0-9.e+-]+):", pose).group(1))
c, t = f["closure_conditioning"][()], f["t"][()]
assert c.shape == t.shape and np.all(np.isfinite(c)), c
k = int(np.argmin(c))
assert abs(t[k] - 0.25) < 1e-9 and float(m.group(2)) == t[k], (t[k], m.group(2))
assert abs(c[k] / printed - 1) < 0.01 and abs(float(m.group(1)) / c[k] - 1) < 2e-3, (c[k], printed)  # 3 digits printed
assert c[0] > 1e-2, c[0]
' "$tmp/fbt.err" "$tmp/fbt_pose.out" "$tmp/fbt.h5"

# NaVARo's refined model (elastic clutches, no clamp at A_i): the springs hold the joints, so
# the home pose is not near-singular (before: conditioning 0 and a warning at every pose).
rerr=$("$bin" modes "$root/cases/navaro_refined.yaml" --pose 0,0,0 --nev 3 2>&1 >"$tmp/refined.out")
check "modes of the elastic-clutch model: no near-singular warning" test -z "$rerr"
check "modes of the elastic-clutch model: the home pose's conditioning" \
    grep -q "^# closure conditioning with the drives locked 2.10e-02: ok" "$tmp/refined.out"

cli_done
