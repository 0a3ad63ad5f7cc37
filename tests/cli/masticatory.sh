#!/usr/bin/env bash
# tests/cli/masticatory.sh PKMFLEX ROOT: --version; dynamics masticatory.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# --version: the version and the commit, which every map records.
expect 0 --version
ver=$("$bin" --version)
check "--version prints version and commit" grep -qx "pkmflex [0-9][0-9.]* (commit [^ ]*)" <<<"$ver"

# dynamics masticatory: the chewing robot's surrogate on the general path (docs/dynamics.md, "The
# chewing robot"). At t = 0.13 s its parasitic Z and gamma, the cranks' torques and MCI(a) of the
# target and of its 6-RSS twin equal the references computed at 40 digits (seed-000 notes; 8
# significant digits for the torques, 12 for MCI); at home its M_A diagonal and MCI(a); --inertia
# over 20 samples gives the means of MCI and their ratio to the twin's; a plane its condyles
# cannot follow stops naming the contact and the time; an unknown parameter is one line.
# The joint table is every case's (docs/dynamics.md, "Output columns"); the per-time table
# (--per-time) holds the pose, the condyles' normal forces, the equations' residual, the
# conditioning, then the case's own columns: Z, gamma, and with --inertia MCI and M_A.
expect 0 dynamics masticatory --help
mcsv=$("$bin" dynamics masticatory --time 0.13:0.2:2 --format csv)
check "dynamics masticatory csv header is exact" test "$(head -1 <<<"$mcsv")" = \
    "t,joint,type,q,qd,qdd,drive,ideal,friction,f_axial,f_radial,m_bending"
mrow=$("$bin" dynamics masticatory --time 0.13:0.2:2 --format csv --per-time)
check "dynamics masticatory per-time csv header is exact" test "$(head -1 <<<"$mrow")" = \
    "t,X,Y,alpha,beta,condyle_L,condyle_R,residual,conditioning,Z,gamma"
mrow=$(grep '^0.13,' <<<"$mrow")
check "dynamics masticatory Z(0.13)" near "$(field "$mrow" 10)" -0.0104684765328444 1e-12
check "dynamics masticatory gamma(0.13)" near "$(field "$mrow" 11)" 0.0613828317030968 1e-12
check "dynamics masticatory tau1(0.13)" near "$(field "$(grep '^0.13,theta1,' <<<"$mcsv")" 7)" 0.31990664 2e-8
check "dynamics masticatory tau6(0.13)" near "$(field "$(grep '^0.13,theta6,' <<<"$mcsv")" 7)" -0.071280529 2e-8
check "dynamics masticatory equations' residual" below "$(field "$mrow" 8)" 1e-12
# The 6-RSS twin (higher_pairs=off) is driven through the target's pose, Z and gamma included
# (the case's drive): its torques at 0.13 s equal the 12-digit references, its pose the target's.
tcsv=$("$bin" dynamics masticatory --set higher_pairs=off --time 0.13:0.2:2 --format csv)
trow=$("$bin" dynamics masticatory --set higher_pairs=off --time 0.13:0.2:2 --format csv --per-time | grep '^0.13,')
check "dynamics masticatory twin tau1(0.13)" near "$(field "$(grep '^0.13,theta1,' <<<"$tcsv")" 7)" 2.14946029955 1e-10
check "dynamics masticatory twin tau5(0.13)" near "$(field "$(grep '^0.13,theta5,' <<<"$tcsv")" 7)" 0.770120679151 1e-10
check "dynamics masticatory twin replays the pose" test "$(cut -d, -f8,9 <<<"$trow")" = "$(cut -d, -f10,11 <<<"$mrow")"
# mci_at FILE T: the per-time row at time T of a --inertia csv as a json object.
mci_at() {
    "$py" -c '
import csv, json, sys
print(json.dumps(next(r for r in csv.DictReader(open(sys.argv[1])) if float(r["t"]) == float(sys.argv[2]))))
' "$1" "$2"
}
"$bin" dynamics masticatory --inertia --time 0:0.95:20 --format csv --per-time >"$tmp/m_in.csv"
"$bin" dynamics masticatory --inertia --time 0.13:0.2:2 --format csv --per-time >"$tmp/m_in13.csv"
check "dynamics masticatory --inertia: 20 rows of 65 columns, MCI and M_A named" bash -c '
    test "$(grep -c "^[0-9.e-]*\(,[^,]*\)\{64\}$" "$1")" -eq 20 &&
    head -1 "$1" | grep -q ",Z,gamma,mci1,.*,mci6,twin_mci1,.*,twin_mci6,mcib1,.*,mcib6,MA11,.*,MA66$"' _ "$tmp/m_in.csv"
check "dynamics masticatory MCI(a)(0.13), target and twin" "$py" -c '
import json, sys
r = json.loads(sys.argv[1])
tg = [0.707823049263, 0.756363813701, 0.800040175763, 0.75096374421, 0.669730700733, 0.659511117659]
tw = [0.690772040064, 0.746148313236, 0.726928576332, 0.778679127729, 0.84419388165, 0.846389761897]
for i in range(6):
    assert abs(float(r["mci%d" % (i + 1)]) - tg[i]) <= 1e-11, i
    assert abs(float(r["twin_mci%d" % (i + 1)]) - tw[i]) <= 1e-11, i
' "$(mci_at "$tmp/m_in13.csv" 0.13)"
# 20-sample means over t = k/20 and the paper's R6 ratio (target / twin, %).
check "dynamics masticatory mean MCI(a) and the ratio to the twin" "$py" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 20
mean = lambda k: sum(float(r[k]) for r in rows) / len(rows)
tg = [mean("mci%d" % (i + 1)) for i in range(6)]
tw = [mean("twin_mci%d" % (i + 1)) for i in range(6)]
ref_tg = [0.72412537, 0.73798918, 0.80307722, 0.77801524, 0.69379174, 0.69408898]
ref_tw = [0.71844993, 0.73882125, 0.76204697, 0.77938111, 0.87601932, 0.87204099]
assert all(abs(a - b) <= 1e-8 for a, b in zip(tg + tw, ref_tg + ref_tw)), (tg, tw)
assert " ".join("%.5g" % (100 * a / b) for a, b in zip(tg, tw)) == "100.79 99.887 105.38 99.825 79.198 79.594"
' "$tmp/m_in.csv"
# M_A = J5^T M J5 is symmetric with a positive diagonal at every time; MCI(a) lies in [0, 1) and
# MCI(b) = off-diagonal / diagonal is at least MCI(a) = off-diagonal / row (eq. 60's readings).
check "dynamics masticatory --inertia: M_A symmetric, MCI(a) in [0, 1), MCI(b) >= MCI(a)" "$py" -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    MA = [[float(r["MA%d%d" % (i, j)]) for j in range(1, 7)] for i in range(1, 7)]
    big = max(abs(v) for row in MA for v in row)
    for i in range(6):
        assert MA[i][i] > 0
        for j in range(6):
            assert abs(MA[i][j] - MA[j][i]) <= 1e-12 * big
        a, b = float(r["mci%d" % (i + 1)]), float(r["mcib%d" % (i + 1)])
        assert 0 <= a < 1 and b >= a * (1 - 1e-12)
' "$tmp/m_in.csv"
# The torques at 0.13 s by the dense path of the general system too.
dcsv=$("$bin" dynamics masticatory --engine mbs-dense --time 0.13:0.2:2 --format csv)
check "dynamics masticatory --engine mbs-dense tau1(0.13)" near "$(field "$(grep '^0.13,theta1,' <<<"$dcsv")" 7)" 0.31990664 2e-8
check "dynamics masticatory --engine mbs-dense tau6(0.13)" near "$(field "$(grep '^0.13,theta6,' <<<"$dcsv")" 7)" -0.071280529 2e-8
# At home (a trajectory resting there): M_A's diagonal (g mm^2 in the notes, kg m^2 here) and
# MCI(a) of the target, MCI(a) of the twin.
printf 't,X,Y,alpha,beta\n0,0,0,0,0\n1,0,0,0,0\n2,0,0,0,0\n3,0,0,0,0\n' >"$tmp/m_home.csv"
"$bin" dynamics masticatory --inertia --trajectory "$tmp/m_home.csv" --time 0:1:2 --format csv \
    --per-time >"$tmp/m_home_in.csv"
check "dynamics masticatory at home: M_A diagonal and MCI(a), target and twin" "$py" -c '
import json, sys
r = json.loads(sys.argv[1])
ma = [156325.323488, 34919.657176, 140177.654129]
mci = [0.720933999151, 0.806808352439, 0.715405600615]
twin = [0.741584613227, 0.777313676517, 0.901537013547]
for i in range(6):
    k = i // 2
    assert abs(float(r["MA%d%d" % (i + 1, i + 1)]) * 1e9 - ma[k]) <= 1e-9 * ma[k], i
    assert abs(float(r["mci%d" % (i + 1)]) - mci[k]) <= 1e-11, i
    assert abs(float(r["twin_mci%d" % (i + 1)]) - twin[k]) <= 1e-11, i
' "$(mci_at "$tmp/m_home_in.csv" 0)"
expect 2 dynamics masticatory --set foo=1
expect 2 dynamics masticatory --set surface.slope=0 --time 0:1:3
check "dynamics masticatory unreachable surface names contact and time" \
    grep -q "contact condyle_[LR]: .* t = 0 " <<<"$("$bin" dynamics masticatory --set surface.slope=0 2>&1 >/dev/null)"
# Mobility (the rigid model's coordinates less its constraints' rank) in the table's header: the
# target 4, the twin 6; --weights and --preload choose another of
# the torque sets that drive the same motion: the Newton-Euler residual stays at rounding, the
# weighted set has the least weighted norm, the plain one the least norm, and the preloaded
# set differs from it (a null-space part: the cranks pull against each other).
check "dynamics masticatory: mobility 4, the twin 6, NaVARo 3" sh -c \
    "\"\$1\" dynamics masticatory --time 0:1:2 | grep -q ', mobility 4$' &&
     \"\$1\" dynamics masticatory --time 0:1:2 --set higher_pairs=off | grep -q ', mobility 6$' &&
     \"\$1\" dynamics navaro --time 0:1:2 | grep -q ', mobility 3$'" _ "$bin"
# mast_rows ARGS...: per time (the per-time table's row) a dict of its columns with tau1..tau6
# read from the joint table's drives (one json object per line).
mast_rows() {
    "$py" -c '
import csv, io, json, sys
joint = [j for j in csv.DictReader(io.StringIO(sys.argv[1])) if j["joint"].startswith("theta")]
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
# The engines of the table that take the chewing robot (mbs, its sparse-or-dense general path,
# and mbs-dense) give the same torques and contact forces to rounding, plain, weighted and
# preloaded (its own engine's routes are the tests' reference: test_case_routes).
for shape in "" "--weights 1,2,3,4,5,6" "--weights 1,2,3,4,5,6 --preload 1,0,0,0,0,-1"; do
    # shellcheck disable=SC2086
    engines=$(for e in mbs mbs-dense; do mast_rows --time 0:1:11 --engine "$e" $shape; echo "#"; done)
    check "dynamics masticatory: mbs and mbs-dense agree ${shape:-(plain)}" "$py" -c '
import json, sys
sets = [[json.loads(l) for l in a.strip().splitlines()] for a in sys.argv[1].split("#") if a.strip()]
assert len(sets) == 2 and all(len(s) == 11 for s in sets)
cols = [k for k in sets[0][0] if k.startswith("tau") or k.startswith("condyle")]
assert len(cols) == 8
big = max(abs(float(r[k])) for r in sets[0] for k in cols)
for a, b in zip(*sets):
    assert max(abs(float(a[k]) - float(b[k])) for k in cols) <= 1e-9 * big
' "$engines"
done
expect 2 dynamics masticatory --inertia --forward
expect 2 dynamics navaro --inertia
check "dynamics navaro --inertia names the case" grep -q "case 'navaro' has no inertia" \
    <<<"$("$bin" dynamics navaro --inertia 2>&1 >/dev/null)"
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
    assert f["per_time"][name].attrs["units"] in (b"m", b"rad", b"N", b"1", b"kg m^2", b"N or N m")
nj = f["q"].shape[1]
assert nj == 18 and len(joint) == 6 * nj  # per chain the crank, its S and its M joints
for i, r in enumerate(joint):
    k, j = divmod(i, nj)
    for c in ("q", "qd", "qdd", "drive", "ideal", "friction"):
        a = f[c][k, j]
        assert a == float(r[c]) if r[c] != "" else math.isnan(a), (c, k, j)
' "$mcsv" "$tmp/mast.h5" "$jcsv"
done
expect 2 dynamics masticatory --weights 1,2,0,1,1,1
expect 2 dynamics masticatory --weights 1,2,3
expect 2 dynamics masticatory --preload 1,x,1,1,1,1
expect 0 dynamics masticatory --inertia --weights 1,1,1,1,1,1 --time 0:1:3
check "cases lists masticatory" grep -q '^masticatory: ' <<<"$("$bin" cases)"
check "cases --show masticatory prints its case file" grep -q '^case: masticatory$' \
    <<<"$("$bin" cases --show masticatory)"

# --engine chain does not take the chewing robot (exit 2).
expect 2 dynamics masticatory --engine chain
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
