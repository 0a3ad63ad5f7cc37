#!/usr/bin/env bash
# tests/cli/masticatory.sh PKMFLEX ROOT: --version; dynamics masticatory.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# --version: the version and the commit, which every map records.
expect 0 --version
ver=$("$bin" --version)
check "--version prints version and commit" grep -qx "pkmflex [0-9][0-9.]* (commit [^ ]*)" <<<"$ver"

# dynamics masticatory: the chewing robot's surrogate (docs/dynamics.md, "The chewing robot").
# At t = 0.13 s the parasitic Z and the torques of the target and of its 6-RSS twin equal the
# references computed at 40 digits (8 significant digits for the target's torques, 12 for the
# twin's); --inertia gives the 20-sample means of MCI and their ratio; a plane its condyles
# cannot follow stops naming the contact and the time; an unknown parameter is one line.
# The joint table is every case's (docs/dynamics.md, "Output columns"): a row per crank
# theta1..theta6, its torque in field 7 (drive); the per-time table (--per-time) holds the pose
# (Z in field 4), the contact forces and the Newton-Euler residual (field 10; the twin: 8).
expect 0 dynamics masticatory --help
mcsv=$("$bin" dynamics masticatory --time 0.13:0.2:2 --format csv)
check "dynamics masticatory csv header is exact" test "$(head -1 <<<"$mcsv")" = \
    "t,joint,type,q,qd,qdd,drive,ideal,friction,f_axial,f_radial,m_bending"
mrow=$("$bin" dynamics masticatory --time 0.13:0.2:2 --format csv --per-time)
check "dynamics masticatory per-time csv header is exact" test "$(head -1 <<<"$mrow")" = \
    "t,X,Y,Z,alpha,beta,gamma,contact_L,contact_R,residual"
mrow=$(grep '^0.13,' <<<"$mrow")
check "dynamics masticatory Z(0.13)" near "$(field "$mrow" 4)" -0.0104684765328444 1e-12
check "dynamics masticatory tau1(0.13)" near "$(field "$(grep '^0.13,theta1,' <<<"$mcsv")" 7)" 0.31990664 2e-8
check "dynamics masticatory tau6(0.13)" near "$(field "$(grep '^0.13,theta6,' <<<"$mcsv")" 7)" -0.071280529 2e-8
check "dynamics masticatory Newton-Euler residual" below "$(field "$mrow" 10)" 1e-12
tcsv=$("$bin" dynamics masticatory --set higher_pairs=off --time 0.13:0.2:2 --format csv)
trow=$("$bin" dynamics masticatory --set higher_pairs=off --time 0.13:0.2:2 --format csv --per-time | grep '^0.13,')
check "dynamics masticatory twin tau1(0.13)" near "$(field "$(grep '^0.13,theta1,' <<<"$tcsv")" 7)" 2.14946029955 1e-10
check "dynamics masticatory twin tau5(0.13)" near "$(field "$(grep '^0.13,theta5,' <<<"$tcsv")" 7)" 0.770120679151 1e-10
check "dynamics masticatory twin replays the pose" test "$(field "$trow" 4)" = "$(field "$mrow" 4)"
minert=$("$bin" dynamics masticatory --inertia --time 0:0.95:20 --format csv --per-time)
check "dynamics masticatory --inertia: 20 rows of 34 columns, MCI and M_A named" bash -c '
    test "$(grep -c "^[0-9.e-]*\(,[^,]*\)\{33\}$" <<<"$1")" -eq 20 &&
    head -1 <<<"$1" | grep -q ",residual,mci1,.*,mci6,twin_mci1,.*,twin_mci6,mcib1,.*,mcib6,MA11,.*,MA66$"' _ "$minert"
mmean=$(sed -n 's/^# mean MCI(a) over the 20 times, target: //p' <<<"$minert")
check "dynamics masticatory mean MCI1" near "$(cut -d' ' -f1 <<<"$mmean")" 0.72412537 1e-8
check "dynamics masticatory ratio to the twin" \
    grep -qx '# target / twin, %: 100.79 99.887 105.38 99.825 79.198 79.594' <<<"$minert"
expect 2 dynamics masticatory --set foo=1
expect 2 dynamics masticatory --set surface.slope=0 --time 0:1:3
check "dynamics masticatory unreachable surface names contact and time" \
    grep -q "contact condyle_[LR]: .* t = 0 " <<<"$("$bin" dynamics masticatory --set surface.slope=0 2>&1 >/dev/null)"
# Mobility (Gruebler-Kutzbach) in the table's header; --weights and --preload choose another of
# the torque sets that drive the same motion: the Newton-Euler residual stays at rounding, the
# weighted set has the least weighted norm, the plain one the least norm, and the preloaded
# set differs from it (a null-space part: the cranks pull against each other).
check "dynamics masticatory: mobility 4, the twin 6" sh -c \
    "\"\$1\" dynamics masticatory --time 0:1:2 | grep -q 'mobility 4 ' &&
     \"\$1\" dynamics masticatory --time 0:1:2 --set higher_pairs=off | grep -q 'mobility 6 '" _ "$bin"
# mast_rows ARGS...: per time (the per-time table's row) a dict of its columns with tau1..tau6
# read from the joint table's drives (one json object per line).
mast_rows() {
    "$py" -c '
import csv, io, json, sys
joint = list(csv.DictReader(io.StringIO(sys.argv[1])))
for k, r in enumerate(csv.DictReader(io.StringIO(sys.argv[2]))):
    for i in range(6):
        j = joint[6 * k + i]
        assert j["t"] == r["t"] and j["joint"] == "theta%d" % (i + 1)
        r["tau%d" % (i + 1)] = j["drive"]
    print(json.dumps(r))
' "$("$bin" dynamics masticatory --format csv "$@")" "$("$bin" dynamics masticatory --format csv --per-time "$@")"
}
mw=$(mast_rows --time 0:0.5:6 --weights 1,2,3,4,5,6)
mp=$(mast_rows --time 0:0.5:6 --preload 1,-1,1,-1,1,-1)
m0=$(mast_rows --time 0:0.5:6)
check "dynamics masticatory --weights, --preload: same motion, least (weighted) norms" "$py" -c '
import json, sys
rows = [[json.loads(l) for l in a.splitlines()] for a in sys.argv[1:4]]
assert all(len(r) == 6 for r in rows)
w = [1, 2, 3, 4, 5, 6]
tau = lambda r: [float(r["tau%d" % (i + 1)]) for i in range(6)]
for r0, rw, rp in zip(*rows):
    t0, tw, tp = tau(r0), tau(rw), tau(rp)
    assert max(abs(float(r["residual"])) for r in (r0, rw, rp)) < 1e-9
    assert sum(wi * x * x for wi, x in zip(w, tw)) <= sum(wi * x * x for wi, x in zip(w, t0)) * (1 + 1e-12)
    assert sum(x * x for x in t0) <= sum(x * x for x in tp) * (1 + 1e-12)
    assert max(abs(a - b) for a, b in zip(t0, tw)) > 1e-3 and max(abs(a - b) for a, b in zip(t0, tp)) > 1e-3
' "$m0" "$mw" "$mp"
# --route: the four inverse-dynamics routes give the same torques and contact forces to rounding
# (the twin as well); an unknown route and --route with --inertia are usage errors.
for twin in "" "--set higher_pairs=off"; do
    # shellcheck disable=SC2086
    routes=$(for r in virtual-power hessian liang first-kind; do
        mast_rows --time 0:1:11 --route "$r" $twin; echo "#"; done)
    check "dynamics masticatory --route: four routes agree ${twin:-(target)}" "$py" -c '
import json, sys
sets = [[json.loads(l) for l in a.strip().splitlines()] for a in sys.argv[1].split("#") if a.strip()]
assert len(sets) == 4 and all(len(s) == 11 for s in sets)
cols = [k for k in sets[0][0] if k.startswith("tau") or k.startswith("contact")]
big = max(abs(float(r[k])) for r in sets[0] for k in cols)
for s in sets[1:]:
    for a, b in zip(sets[0], s):
        assert max(abs(float(a[k]) - float(b[k])) for k in cols) <= 1e-9 * big
' "$routes"
done
expect 2 dynamics masticatory --route newton
expect 2 dynamics masticatory --route hessian --inertia
check "dynamics masticatory --route names the route" sh -c \
    "\"\$1\" dynamics masticatory --time 0:1:2 --route first-kind | grep -q 'route first-kind'" _ "$bin"
for extra in "" "--inertia"; do
    # shellcheck disable=SC2086
    mcsv=$("$bin" dynamics masticatory --time 0:0.5:6 --format csv --per-time $extra)
    # shellcheck disable=SC2086
    jcsv=$("$bin" dynamics masticatory --time 0:0.5:6 --format csv $extra)
    # shellcheck disable=SC2086
    "$bin" dynamics masticatory --time 0:0.5:6 --format csv $extra -o "$tmp/mast.h5" >/dev/null
    check "dynamics masticatory $extra -o: one dataset per csv column, equal, with units" "$py" -c '
import csv, io, math, sys, h5py, numpy as np
rows = [r for r in csv.reader(io.StringIO(sys.argv[1])) if not r[0].startswith("#")]
joint = list(csv.DictReader(l for l in io.StringIO(sys.argv[3]) if not l.startswith("#")))
f = h5py.File(sys.argv[2], "r")
assert f.attrs["format"] == b"pkmflex-dynamics" and f.attrs["case"] == b"masticatory"
assert sorted(f["per_time"].keys()) == sorted(rows[0][1:])
assert np.array_equal(f["t"][...], [float(r[0]) for r in rows[1:]])
for k, name in enumerate(rows[0][1:], 1):
    assert np.array_equal(f["per_time"][name][...], [float(r[k]) for r in rows[1:]]), name
    assert f["per_time"][name].attrs["units"] in (b"m", b"rad", b"N", b"1", b"kg m^2")
for i, r in enumerate(joint):
    k, j = divmod(i, 6)
    for c in ("q", "qd", "qdd", "drive", "ideal", "friction"):
        a = f[c][k, j]
        assert a == float(r[c]) if r[c] != "" else math.isnan(a), (c, k, j)
' "$mcsv" "$tmp/mast.h5" "$jcsv"
done
expect 2 dynamics masticatory --weights 1,2,0,1,1,1
expect 2 dynamics masticatory --weights 1,2,3
expect 2 dynamics masticatory --preload 1,x,1,1,1,1
expect 2 dynamics masticatory --inertia --weights 1,1,1,1,1,1
check "cases lists masticatory" grep -q '^masticatory: ' <<<"$("$bin" cases)"
check "cases --show masticatory prints its case file" grep -q '^case: masticatory$' \
    <<<"$("$bin" cases --show masticatory)"

# --engine: the chewing robot on the general path (pkm_dynamics_run over its pkm_model, the bite
# the case's load): the cranks' torques and the condyles' normal forces equal its own engine's
# (1e-9 of the largest) for both engines of the table that take it; chain refuses (exit 2); the
# general path has the joints' friction the own engine has not.
"$bin" dynamics masticatory --format csv >"$tmp/m_own.csv"
"$bin" dynamics masticatory --format csv --per-time >"$tmp/m_own_pt.csv"
for e in mbs mbs-dense; do
    "$bin" dynamics masticatory --engine "$e" --format csv >"$tmp/m_gen.csv"
    "$bin" dynamics masticatory --engine "$e" --format csv --per-time >"$tmp/m_gen_pt.csv"
    check "dynamics masticatory --engine $e: torques and contact forces equal its own engine's" "$py" -c '
import sys, numpy as np
own, gen, opt, gpt = (np.genfromtxt(f, delimiter=",", names=True, dtype=None, encoding=None)
                      for f in sys.argv[1:5])
g = gen[np.char.startswith(gen["joint"].astype(str), "theta")]
assert len(g) == len(own) == 6 * 101
d = own["drive"].astype(float)
assert np.abs(d - g["drive"].astype(float)).max() <= 1e-9 * np.abs(d).max()
for a, b in (("contact_L", "condyle_L"), ("contact_R", "condyle_R")):
    c = opt[a].astype(float)
    assert np.abs(c - gpt[b].astype(float)).max() <= 1e-9 * np.abs(c).max(), a
' "$tmp/m_own.csv" "$tmp/m_gen.csv" "$tmp/m_own_pt.csv" "$tmp/m_gen_pt.csv"
done
expect 2 dynamics masticatory --engine chain
# same_torques WHAT OWN GEN OTHER: the cranks' torques of GEN (the general path) equal OWN's (its
# own engine) to 1e-9 of the largest, and differ from OTHER's by more than 1e-2 (WHAT acts).
same_torques() {
    check "dynamics masticatory $1: the general path's torques equal its own engine's" "$py" -c '
import sys, numpy as np
own, gen, other = (np.genfromtxt(f, delimiter=",", names=True, dtype=None, encoding=None)
                   for f in sys.argv[1:4])
g = gen[np.char.startswith(gen["joint"].astype(str), "theta")]
d = own["drive"].astype(float)
assert np.abs(d - g["drive"].astype(float)).max() <= 1e-9 * np.abs(d).max()
assert np.abs(d - other["drive"].astype(float)).max() > 1e-2 * np.abs(d).max()
' "$2" "$3" "$4"
}
# Weighted minimum-norm torques (--weights, one per crank), then a preload (its null-space part
# added) with the weights: the same on both paths.
"$bin" dynamics masticatory --weights 1,2,3,4,5,6 --format csv >"$tmp/m_own_w.csv"
"$bin" dynamics masticatory --engine mbs --weights 1,2,3,4,5,6 --format csv >"$tmp/m_gen_w.csv"
same_torques --weights "$tmp/m_own_w.csv" "$tmp/m_gen_w.csv" "$tmp/m_own.csv"
"$bin" dynamics masticatory --weights 1,2,3,4,5,6 --preload 1,0,0,0,0,-1 --format csv >"$tmp/m_own_p.csv"
"$bin" dynamics masticatory --engine mbs --weights 1,2,3,4,5,6 --preload 1,0,0,0,0,-1 \
    --format csv >"$tmp/m_gen_p.csv"
same_torques --preload "$tmp/m_own_p.csv" "$tmp/m_gen_p.csv" "$tmp/m_own_w.csv"
# A mechanism actuated without redundancy has no internal load: NaVARo's drives unchanged.
"$bin" dynamics navaro --preload 1,2,3 --time 0:1.5:31 --format csv >"$tmp/n_p.csv"
"$bin" dynamics navaro --time 0:1.5:31 --format csv >"$tmp/n_0.csv"
check "dynamics navaro --preload: no null space, the drives unchanged" "$py" -c '
import sys, numpy as np
a, b = (np.genfromtxt(f, delimiter=",", names=True, dtype=None, encoding=None) for f in sys.argv[1:3])
d = b["drive"].astype(float)
assert np.abs(a["drive"].astype(float) - d).max() <= 1e-12 * np.abs(d).max()
' "$tmp/n_p.csv" "$tmp/n_0.csv"
expect 2 dynamics navaro --preload 1,2
expect 2 dynamics masticatory --engine mbs --weights 1,2,3
expect 2 dynamics navaro --weights 1,1,0
expect 2 dynamics navaro --weights 1,1,1 --forward
expect 0 dynamics masticatory --engine mbs --friction coulomb-viscous --set "friction.kv=0.001 N m s/rad" --time 0:1:5
expect 0 dynamics masticatory --engine mbs --friction coulomb-viscous --set friction.kc=0.01 --time 0:1:5
# Coulomb friction of 0.05 on the redundant drives: the normal loads' fixed point does not
# settle at t = 0 (exit 3, naming the time), a limit of the iteration, not a wrong number.
expect 3 dynamics masticatory --engine mbs --friction coulomb-viscous --set friction.kc=0.05 --time 0:1:5
cli_done
