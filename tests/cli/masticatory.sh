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
expect 0 dynamics masticatory --help
mrow=$("$bin" dynamics masticatory --time 0.13:0.2:2 --format csv)
check "dynamics masticatory csv header is exact" test "$(head -1 <<<"$mrow")" = \
    "t,X,Y,Z,alpha,beta,gamma,theta1,theta2,theta3,theta4,theta5,theta6,tau1,tau2,tau3,tau4,tau5,tau6,contact_L,contact_R,residual"
mrow=$(grep '^0.13,' <<<"$mrow")
check "dynamics masticatory Z(0.13)" near "$(field "$mrow" 4)" -0.0104684765328444 1e-12
check "dynamics masticatory tau1(0.13)" near "$(field "$mrow" 14)" 0.31990664 2e-8
check "dynamics masticatory tau6(0.13)" near "$(field "$mrow" 19)" -0.071280529 2e-8
check "dynamics masticatory Newton-Euler residual" below "$(field "$mrow" 22)" 1e-12
trow=$("$bin" dynamics masticatory --set higher_pairs=off --time 0.13:0.2:2 --format csv | grep '^0.13,')
check "dynamics masticatory twin tau1(0.13)" near "$(field "$trow" 14)" 2.14946029955 1e-10
check "dynamics masticatory twin tau5(0.13)" near "$(field "$trow" 18)" 0.770120679151 1e-10
check "dynamics masticatory twin replays the pose" test "$(field "$trow" 4)" = "$(field "$mrow" 4)"
minert=$("$bin" dynamics masticatory --inertia --time 0:0.95:20 --format csv)
check "dynamics masticatory --inertia: 20 rows of 24 columns" test \
    "$(grep -c '^[0-9.e-]*\(,[^,]*\)\{24\}$' <<<"$minert")" -eq 20
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
mw=$("$bin" dynamics masticatory --time 0:0.5:6 --format csv --weights 1,2,3,4,5,6)
mp=$("$bin" dynamics masticatory --time 0:0.5:6 --format csv --preload 1,-1,1,-1,1,-1)
m0=$("$bin" dynamics masticatory --time 0:0.5:6 --format csv)
check "dynamics masticatory --weights, --preload: same motion, least (weighted) norms" "$py" -c '
import csv, io, sys
rows = [list(csv.DictReader(io.StringIO(a))) for a in sys.argv[1:4]]
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
        "$bin" dynamics masticatory --time 0:1:11 --format csv --route "$r" $twin; echo "#"; done)
    check "dynamics masticatory --route: four routes agree ${twin:-(target)}" "$py" -c '
import csv, io, sys
sets = [list(csv.DictReader(io.StringIO(a.strip()))) for a in sys.argv[1].split("#") if a.strip()]
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
    mcsv=$("$bin" dynamics masticatory --time 0:0.5:6 --format csv $extra -o "$tmp/mast.h5")
    check "dynamics masticatory $extra -o: one dataset per csv column, equal, with units" "$py" -c '
import csv, io, sys, h5py, numpy as np
rows = [r for r in csv.reader(io.StringIO(sys.argv[1])) if not r[0].startswith("#")]
f = h5py.File(sys.argv[2], "r")
assert f.attrs["format"] == b"pkmflex-masticatory" and sorted(f.keys()) == sorted(rows[0])
for k, name in enumerate(rows[0]):
    assert np.array_equal(f[name][...], [float(r[k]) for r in rows[1:]]), name
    assert f[name].attrs["units"] in (b"s", b"m", b"rad", b"N m", b"N", b"1", b"kg m^2")
' "$mcsv" "$tmp/mast.h5"
done
expect 2 dynamics masticatory --weights 1,2,0,1,1,1
expect 2 dynamics masticatory --weights 1,2,3
expect 2 dynamics masticatory --preload 1,x,1,1,1,1
expect 2 dynamics masticatory --inertia --weights 1,1,1,1,1,1
check "cases lists masticatory" grep -q '^masticatory: ' <<<"$("$bin" cases)"
check "cases --show masticatory prints its case file" grep -q '^case: masticatory$' \
    <<<"$("$bin" cases --show masticatory)"

cli_done
