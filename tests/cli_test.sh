#!/usr/bin/env bash
# tests/cli_test.sh PKMFLEX ROOT: the command line's exit codes and one-line errors, and the
# map command's file (read back with h5py).
set -u
bin=$1
root=$2
fails=0
pass=0
# expect STATUS ARGS...: the exit status, and for status 2 exactly one line on stderr; a run
# longer than 5 minutes counts as a hang (status 124).
expect() {
    local want=$1
    shift
    local err
    err=$(timeout 300 "$bin" "$@" 2>&1 >/dev/null)
    local got=$?
    local lines
    lines=$(printf '%s' "$err" | grep -c '')
    if [ "$got" -ne "$want" ] || { [ "$want" -eq 2 ] && [ "$lines" -ne 1 ]; }; then
        echo "FAIL: pkmflex $* -> exit $got (want $want), stderr: $err"
        fails=$((fails + 1))
    else
        pass=$((pass + 1))
    fi
}
table="$root/cases/navaro/table3_cast3m.csv"
expect 0 --help
expect 0 modes --help
expect 0 compare --help
expect 0 modes navaro --pose 0,0,0 --nev 5
expect 0 compare navaro --table "$table"
expect 1 compare navaro --table "$table" --tol 0.001
expect 2 modes navaro --pose 0.5,0,0
expect 2 modes navaro --pose 0,0
expect 2 modes navaro --pose 0,0,0,0
expect 2 modes navaro --pose x,0,0
expect 2 modes navaro --pose 0,0,nan
expect 2 modes nosuch --pose 0,0,0
expect 2 modes navaro --set leg.A=0
expect 2 modes navaro --set platform.Iz=-1e-8
expect 2 modes navaro --set leg.Iy=abc
expect 2 modes navaro --set nosuch=1
expect 2 modes navaro --nev 0
expect 2 modes navaro --format xml
expect 2 modes navaro --bogus
expect 2 compare navaro
expect 2 compare navaro --table /nonexistent/table.csv
expect 2 nosuchcommand
# pss5upu: five pose coordinates, the nodal formulation by default (quintic links and the UPU);
# the tree formulation rejects quintic elements in one line.
expect 0 modes pss5upu
expect 0 modes pss5upu --pose 0.05,0,0,0,0
expect 0 modes pss5upu --pose 0.05,0,0,0,0 --nev 6 --set variant=spherical
expect 0 modes pss5upu --nev 3 --formulation tree --set link.element=cubic --set upu=none
expect 2 modes pss5upu --formulation tree
expect 2 modes pss5upu --pose 0,0,0
expect 2 modes pss5upu --pose 0,0,0.5,0,0
expect 2 modes pss5upu --set variant=bogus
expect 2 modes pss5upu --set link.paper.nelem=0
expect 2 map navaro --grid q=0:1:3 -o /tmp/never.h5
expect 2 map navaro --grid x=0:1:0 -o /tmp/never.h5
expect 2 map navaro --grid x=0:1 -o /tmp/never.h5
expect 2 map navaro --grid x=0:0.01:2
expect 2 map navaro --grid x=0:0.01:2 -o /nonexistent/dir/map.h5 --quiet
# csv header is exact and the mode count follows --nev
hdr=$("$bin" modes navaro --pose 0,0,0 --nev 3 --format csv | head -n 1)
rows=$("$bin" modes navaro --pose 0,0,0 --nev 3 --format csv | tail -n +2 | grep -c '')
if [ "$hdr" = "mode,freq_hz,residual,accuracy" ] && [ "$rows" -eq 3 ]; then
    pass=$((pass + 1))
else
    echo "FAIL: csv header '$hdr', $rows rows"
    fails=$((fails + 1))
fi
# check NAME COMMAND...: a shell condition counted as one test.
check() {
    local name=$1
    shift
    if "$@"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $name"
        fails=$((fails + 1))
    fi
}
# The rigid-body cases of Guo et al. 2024 have no finite-element model: the modal commands refuse
# them in one line naming the command to use.
for rigid in tree5 loop3; do
    expect 2 modes $rigid
    expect 2 compare $rigid --table "$table"
    expect 2 map $rigid --grid "1''=0:1:3" -o /tmp/never.h5
    msg=$("$bin" modes $rigid 2>&1 >/dev/null)
    named=0
    case "$msg" in *"case '$rigid' is a rigid-body case: use \`pkmflex dynamics\`"*) named=1 ;; esac
    check "modes $rigid names dynamics" test "$named" -eq 1
done
listing=$("$bin" cases)
check "cases lists the analyses and trajectories" sh -c \
    "printf '%s' \"\$1\" | grep -A3 '^tree5:' | grep -q 'analyses: dynamics' &&
     printf '%s' \"\$1\" | grep -A3 '^loop3:' | grep -q 'trajectories: crank (default)' &&
     printf '%s' \"\$1\" | grep -A3 '^navaro:' | grep -q 'analyses: modes map compare dynamics'" \
    _ "$listing"
check "cases lists the module chains with their actuated joints" sh -c \
    "printf '%s' \"\$1\" | grep -A2 '^boom1:' | grep -q 'actuated joints: cyl1 \[N\]' &&
     printf '%s' \"\$1\" | grep -A2 '^crane4:' | grep -q 'joints: slew \[N m\] cyl1 \[N\] cyl2 \[N\] ext \[N\]'" \
    _ "$listing"
check "cases lists the robot files of examples/ and how to run them" sh -c \
    "printf '%s' \"\$1\" | grep -A2 '^3rrr.yaml: planar 3-RRR' | grep -q 'run: pkmflex modes $root/examples/3rrr.yaml' &&
     printf '%s' \"\$1\" | grep -A4 '^3rrr.yaml:' | grep -q 'analyses: modes map compare dynamics transient' &&
     printf '%s' \"\$1\" | grep -q '^delta.yaml:' && printf '%s' \"\$1\" | grep -q '^navaro.yaml:'" \
    _ "$listing"
msg=$("$bin" --versio 2>&1 >/dev/null) && st=0 || st=$?
check "a mistyped top-level option: status 2, 'did you mean --version'" sh -c \
    "[ $st -eq 2 ] && printf '%s' \"\$1\" | grep -q \"unknown option '--versio' (did you mean '--version'?)\"" _ "$msg"
msg=$("$bin" --hepl 2>&1 >/dev/null) && st=0 || st=$?
check "a mistyped --help: status 2, 'did you mean --help'" sh -c \
    "[ $st -eq 2 ] && printf '%s' \"\$1\" | grep -q \"(did you mean '--help'?)\"" _ "$msg"
expect 0 cases --show tree5
expect 0 cases --show loop3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# No argument: a one-line usage on stderr, nothing on stdout, status 2 (issue 8).
expect 2
check "no argument: nothing on stdout" test -z "$("$bin" 2>/dev/null)"
# Values outside a parameter's range: one line naming it, status 2, before any computation
# (issue 8: LAPACK's xerbla ended these with status 0 and no output); map writes no file.
for s in leg.A=1e300 material.rho=1e300 leg.Iz=1e300 leg.Ip=1e300 platform.A=1e300 \
    elements_per_link=1000000; do
    expect 2 modes navaro --set "$s"
done
expect 2 modes pss5upu --set slider.mass=1e300
expect 2 map navaro --grid x=-0.01:0.01:2 -o "$tmp/range.h5" --quiet --set leg.A=1e300
expect 2 map pss5upu --grid x=-0.01:0.01:2 -o "$tmp/range.h5" --quiet --set slider.mass=1e300
check "range error names the bound" grep -q "leg.A = 1e+300 m^2 is outside \[1e-12, 100\] m^2" \
    <<<"$("$bin" modes navaro --set leg.A=1e300 2>&1)"
check "range error: no map file" test ! -e "$tmp/range.h5" -a ! -e "$tmp/range.h5.partial"
# Sizes beyond the machine: refused up front with the estimate and the option to change, in
# well under a second (issue 8: the tree formulation took 18.8 GB at 64 elements per link and was
# killed by the kernel at 128; issue 15: by composite bodies it takes 0.8 GB at 64, 2.7 GB at
# 128). These need more than 50 GB of RAM; 1024 elements per link with the nodal formulation
# and ARPACK (110 574 coordinates) still runs.
expect 2 modes navaro --set elements_per_link=512
expect 2 modes navaro --set elements_per_link=1024
expect 2 modes navaro --formulation nodal --set elements_per_link=1024 --solver dense
expect 2 modes navaro --formulation nodal --set elements_per_link=1024 --nev 100000
expect 2 map navaro --set elements_per_link=1024 --grid x=0:0.01:2 -o "$tmp/big.h5" --quiet
check "too large: no map file" test ! -e "$tmp/big.h5" -a ! -e "$tmp/big.h5.partial"
check "too large: names the option" grep -q "formulation nodal" \
    <<<"$("$bin" modes navaro --set elements_per_link=1024 2>&1)"
# Its frequencies are refused by default (the rounding can move them by 4.6e-2, above the
# 1e-3 accepted); with a looser --max-accuracy they come out flagged, and within their stated
# accuracy of the 64-element values (issue 8: every unflagged frequency within tolerance).
expect 3 modes navaro --formulation nodal --set elements_per_link=1024 --nev 3
expect 2 map navaro --grid x=0:0.01:2 --max-accuracy 0.1 -o "$tmp/acc.h5"
fine=$(timeout 300 "$bin" modes navaro --formulation nodal --set elements_per_link=1024 --nev 3 \
    --max-accuracy 0.1 --format csv)
check "1024 elements with --max-accuracy 0.1: exit 0" test $? -eq 0
ref=$("$bin" modes navaro --formulation nodal --set elements_per_link=64 --nev 3 --format csv)
check "1024 elements: each frequency within its accuracy of the 64-element value" \
    awk -F, 'NR == FNR { if (FNR > 1) f[$1] = $2; next }
             FNR > 1 { d = $2 / f[$1] - 1; if (d < 0) d = -d; if (d > $4) bad = 1 }
             END { exit bad }' <(printf '%s\n' "$ref") <(printf '%s\n' "$fine")
py=""
for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
    if [ -n "$cand" ] && "$cand" -c 'import h5py' 2>/dev/null; then
        py=$cand
        break
    fi
done
[ -n "$py" ] || { echo "FAIL: no python3 with h5py (Debian python3-h5py)"; fails=$((fails + 1)); }

# A grid crossing the workspace boundary records unreachable poses and still writes the file.
expect 0 map navaro --grid x=-0.3:0.3:7,y=0:0:1 --nev 4 -o "$tmp/edge.h5" --quiet
check "map across the boundary" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
st, fr = f["status"][...], f["freq_hz"][...]
assert st.shape == (7, 1) and fr.shape == (7, 1, 4), (st.shape, fr.shape)
assert (st == 1).any() and (st == 0).any(), st.ravel()
assert np.isnan(fr[st == 1]).all() and np.isfinite(fr[st == 0]).all()
' "$tmp/edge.h5"

# A pss5upu map over a tilt axis: 5 pose coordinates in the file, the centre's f1 = f2.
expect 0 map pss5upu --grid beta=-0.1:0.1:3 --nev 3 -o "$tmp/pss.h5" --quiet
check "pss5upu map" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
st, fr = f["status"][...], f["freq_hz"][...]
assert st.shape == (3,) and (st == 0).all(), st
assert abs(fr[1, 0] - fr[1, 1]) < 1e-6 * fr[1, 0] and np.isfinite(fr).all(), fr
' "$tmp/pss.h5"
# A pss5upu position map: every pose reachable, the mirror y -> -y of the layout leaves the
# frequencies unchanged, and the centre's f1 = f2.
expect 0 map pss5upu --grid x=-0.05:0.05:5,y=-0.05:0.05:5 --nev 4 -o "$tmp/pxy.h5" --quiet
check "pss5upu position map" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
st, fr = f["status"][...], f["freq_hz"][...]
assert st.shape == (5, 5) and (st == 0).all(), st
assert np.allclose(fr, fr[:, ::-1, :], rtol=1e-8, atol=0), fr[..., 0]
assert abs(fr[2, 2, 0] - fr[2, 2, 1]) < 1e-6 * fr[2, 2, 0]
' "$tmp/pxy.h5"
# The spherical variant across its singular centre: the centre is recorded as singular (status
# 2, NaN), the poses beside it are finite, and the map is written; `modes` there is exit 3.
expect 0 map pss5upu --set variant=spherical --grid x=-0.05:0.05:3 --nev 3 -o "$tmp/psing.h5" \
    --quiet
check "pss5upu spherical centre singular in a map" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
st, fr = f["status"][...], f["freq_hz"][...]
assert list(st) == [0, 2, 0], st
assert np.isnan(fr[1]).all() and np.isfinite(fr[[0, 2]]).all() and (fr[[0, 2]] > 10).all(), fr
' "$tmp/psing.h5"
expect 3 modes pss5upu --set variant=spherical

# Every map pose equals the single-pose result (pose 4 of Table 3).
pose="0.18186533479473213,0.105,-1.0471975511965976"
expect 0 map navaro --grid x=0.18186533479473213:0.18186533479473213:1 \
    --pose "$pose" --nev 6 -o "$tmp/one.h5" --quiet
"$bin" modes navaro --pose "$pose" --nev 6 --format csv >"$tmp/one.csv"
check "map point equals modes" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
ref = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)[:, 1]
got = f["freq_hz"][0, :]
assert np.allclose(got, ref, rtol=1e-9, atol=0), (got, ref)
' "$tmp/one.h5" "$tmp/one.csv"

# Table 4 (measured and calculated rows, empty cells) against the literal refined model: the
# nearest pairing runs, shows doublets once (1-2 at the symmetric pose 1) and unpaired values,
# and is out of tolerance (exit 1); --kind selects rows; bad --match, --gap, --kind: exit 2.
t4="$root/cases/navaro/table4_measured.csv"
refined="$root/cases/navaro_refined.yaml"
expect 1 compare "$refined" --table "$t4" --match nearest
"$bin" compare "$refined" --table "$t4" --match nearest --kind meas >"$tmp/t4.txt"
check "compare --match nearest pairs a doublet once" grep -q '^   1  meas     1 .* 1-2 ' "$tmp/t4.txt"
check "compare --match nearest leaves measured values unpaired" grep -q 'UNPAIRED' "$tmp/t4.txt"
check "compare --kind meas prints no calc row" test -z "$(grep ' calc ' "$tmp/t4.txt")"
expect 1 compare "$refined" --table "$t4" --match order --kind calc
expect 2 compare "$refined" --table "$t4" --match closest
expect 2 compare "$refined" --table "$t4" --match nearest --gap 0
expect 2 compare "$refined" --table "$t4" --kind guess
expect 2 compare navaro --table "$table" --kind meas

# fit: the clutches and joint masses against Table 4's calculated rows; the written case file
# reads back (compare with it) and holds the fitted values (one local fit: the multistart, seven
# times the cost, is tested in test_fit); bad input exit 2, one line; a fit
# stopped by --max-iter says so with its last state, exit 3.
fitargs=(--table "$t4" --kind calc --match nearest --param clutch.k1=2000:100:20000
    --param clutch.k2=2000:100:20000 --param "joint_mass.B=300 g:1 g:3 kg"
    --param "joint_mass.C=300 g:1 g:3 kg" --param "joint_mass.D=300 g:1 g:3 kg"
    --param "joint_mass.E=300 g:1 g:3 kg" --multistart off)
timeout 120 "$bin" fit "$refined" "${fitargs[@]}" -o "$tmp/fitted.yaml" >"$tmp/fit.txt"
check "fit converges and writes its case file" test $? -eq 0 -a -s "$tmp/fitted.yaml"
check "fit prints standard errors and correlations" grep -q '^# correlations' "$tmp/fit.txt"
k1=$(awk '$1 == "clutch.k1" { print $3; exit }' "$tmp/fit.txt") # the parameter table's row
"$bin" fit "$refined" "${fitargs[@]}" --format csv >"$tmp/fit.csv"
check "fit --format csv: the table's fitted clutch.k1, unit correlation on the diagonal, no unpaired" \
    awk -F, -v k1="$k1" '$1 == "clutch.k1" { d = $3 / k1 - 1; ok = (d < 1e-5 && d > -1e-5 && $6 == 1) }
    $1 == "row" { h = 1 } h && $7 == "unpaired" { ok = 0 } END { exit !ok }' "$tmp/fit.csv"
check "the fitted case file holds the fitted clutch.k1" test -n "$k1" -a "$k1" != 2000
check "the fitted case file holds the fitted clutch.k1" \
    grep -q "k1: $(printf '%.5s' "$k1")" "$tmp/fitted.yaml"
expect 1 compare "$tmp/fitted.yaml" --table "$t4" --match nearest --kind calc
"$bin" compare "$tmp/fitted.yaml" --table "$t4" --match nearest --kind calc >"$tmp/fitcmp.txt"
meanof() { sed -n 's/^# max error.*, mean \([0-9.]*\) %.*/\1/p' "$1"; }
check "compare with the fitted file gives the fit's mean error" \
    test "$(meanof "$tmp/fitcmp.txt")" = "$(meanof "$tmp/fit.txt")"
expect 2 fit "$refined" --table "$t4" --param clutch.k3=10
expect 2 fit "$refined" --table "$t4" --param clutch.k1 --multistart maybe
expect 2 fit "$refined" --table "$t4" --param clutch.k1=5000:100:1000
expect 2 fit "$refined" --table "$t4" --param "clutch.k1=2 kg"
printf 'pose,x_m,y_m,theta_rad,f1\n1,0,0,0,20\n' >"$tmp/one_value.csv"
expect 2 fit "$refined" --table "$tmp/one_value.csv" --param clutch.k1 --param clutch.k2
expect 2 fit "$refined" "${fitargs[@]}" --jacobian exact
expect 3 fit "$refined" "${fitargs[@]}" --max-iter 1
err=$("$bin" fit "$refined" "${fitargs[@]}" --max-iter 1 2>&1 >/dev/null)
check "a fit stopped early says so" grep -q "no convergence" <<<"$err"

# A table pose out of the workspace: one error line naming the pose, exit 2.
printf 'pose,x_m,y_m,theta_rad,f1_Hz\n1,0.5,0,0,40\n' >"$tmp/far.csv"
expect 2 compare navaro --table "$tmp/far.csv"

# Worker processes give the same map as one process.
grid="x=-0.25:0.25:9,y=-0.2:0.2:7"
expect 0 map navaro --grid "$grid" --pose 0,0,-1.05 --nev 5 -o "$tmp/w1.h5" --quiet
expect 0 map navaro --grid "$grid" --pose 0,0,-1.05 --nev 5 -o "$tmp/w2.h5" --quiet --threads 2
check "2 workers equal 1" "$py" -c '
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for k in ("status", "freq_hz", "residual", "tracked_mode", "tracking_mac", "tracking_parent"):
    assert a[k][...].tobytes() == b[k][...].tobytes(), k  # bit for bit
assert (a["status"][...] == 0).sum() > 10 and (a["status"][...] == 1).sum() > 0
' "$tmp/w1.h5" "$tmp/w2.h5"
# Workers on CHOLMOD's supernodal path (finer meshes): the sweeping process solves nothing
# before fork(), so libgomp's pool is never inherited and the workers do not hang (they did);
# the maps equal one process's bit for bit, as every pose has an analysis of its own.
for epl in 4 6 16; do
    g="x=-0.1:0.1:3,y=-0.1:0.1:2"
    [ "$epl" -eq 16 ] && g="x=-0.1:0.1:2"
    for t in 1 2; do
        expect 0 map navaro --grid "$g" --pose 0,0,-1.0471975511965976 --set elements_per_link=$epl \
            --nev 3 --threads $t -o "$tmp/e$epl-$t.h5" --quiet
    done
    check "elements_per_link=$epl: 2 workers equal 1 bit for bit" "$py" -c '
import sys, h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert (a["status"][...] == 0).all()
for k in ("freq_hz", "residual", "tracked_mode", "tracking_mac", "tracking_parent"):
    assert a[k][...].tobytes() == b[k][...].tobytes(), k
' "$tmp/e$epl-1.h5" "$tmp/e$epl-2.h5"
done
expect 2 map navaro --grid x=0:0.01:2 -o "$tmp/bad.h5" --threads 0

# Case files. cases/navaro.yaml (the source of the built-in) gives the built-in's Table 3
# numbers; `cases --show` prints it.
expect 0 cases
expect 0 cases --show navaro
expect 2 cases --show nosuch
expect 2 cases navaro
check "cases --show prints cases/navaro.yaml" \
    sh -c '"$1" cases --show navaro | cmp -s - "$2"' sh "$bin" "$root/cases/navaro.yaml"
(cd "$root" && "$bin" compare ./cases/navaro.yaml --table cases/navaro/table3_cast3m.csv) \
    >"$tmp/file_t3.txt"
check "compare ./cases/navaro.yaml passes" test $? -eq 0
"$bin" compare navaro --table "$table" >"$tmp/builtin_t3.txt"
check "case file and built-in give the same Table 3 numbers" \
    cmp -s <(grep -v '^#' "$tmp/file_t3.txt") <(grep -v '^#' "$tmp/builtin_t3.txt")
# An edited copy changes the frequencies exactly as --set does, and --set applies after it.
sed 's/^  link_length: 210 mm/  link_length: 200 mm/' "$root/cases/navaro.yaml" >"$tmp/short.yaml"
differ() { ! cmp -s "$1" "$2"; }
check "edited copy differs from cases/navaro.yaml" differ "$tmp/short.yaml" "$root/cases/navaro.yaml"
p2="0.02,0.01,-0.2"
"$bin" modes "$tmp/short.yaml" --pose "$p2" --nev 6 --format csv >"$tmp/short_file.csv"
"$bin" modes navaro --pose "$p2" --nev 6 --format csv --set link_length=0.2 >"$tmp/short_set.csv"
"$bin" modes navaro --pose "$p2" --nev 6 --format csv >"$tmp/default.csv"
"$bin" modes "$tmp/short.yaml" --pose "$p2" --nev 6 --format csv --set link_length=210mm \
    >"$tmp/back.csv"
check "edited file = --set" cmp -s "$tmp/short_file.csv" "$tmp/short_set.csv"
check "edited file changes the frequencies" differ "$tmp/short_file.csv" "$tmp/default.csv"
check "--set after the file" cmp -s "$tmp/back.csv" "$tmp/default.csv"
expect 0 map "$tmp/short.yaml" --grid x=0:0.01:2 --nev 3 -o "$tmp/short.h5" --quiet
# cases/pss5upu.yaml: `cases --show` prints it, a copy gives the built-in's numbers, and an
# edited copy equals --set.
check "cases --show prints cases/pss5upu.yaml" \
    sh -c '"$1" cases --show pss5upu | cmp -s - "$2"' sh "$bin" "$root/cases/pss5upu.yaml"
cp "$root/cases/pss5upu.yaml" "$tmp/my.yaml"
"$bin" modes "$tmp/my.yaml" --nev 6 --format csv >"$tmp/my.csv"
"$bin" modes pss5upu --nev 6 --format csv >"$tmp/pss.csv"
check "pss5upu case file copy = built-in" cmp -s "$tmp/my.csv" "$tmp/pss.csv"
sed 's/^  variant: paper/  variant: spherical/' "$root/cases/pss5upu.yaml" >"$tmp/sph.yaml"
p5="0.05,0,0,0,0"
"$bin" modes "$tmp/sph.yaml" --pose "$p5" --nev 6 --format csv >"$tmp/sph_file.csv"
"$bin" modes pss5upu --pose "$p5" --nev 6 --format csv --set variant=spherical >"$tmp/sph_set.csv"
check "pss5upu edited file = --set" cmp -s "$tmp/sph_file.csv" "$tmp/sph_set.csv"
"$bin" modes pss5upu --pose "$p5" --nev 6 --format csv >"$tmp/pss5.csv"
check "pss5upu edited file changes the frequencies" differ "$tmp/sph_file.csv" "$tmp/pss5.csv"
# Malformed files: exit 2, one line, FILE:LINE:COLUMN of the offending node.
# expect_at TEXT WHERE: the file holding TEXT fails at WHERE (line:column).
expect_at() {
    printf '%s' "$1" >"$tmp/bad.yaml"
    expect 2 modes "$tmp/bad.yaml"
    local err
    err=$("$bin" modes "$tmp/bad.yaml" 2>&1 >/dev/null)
    case "$err" in
    *"$tmp/bad.yaml:$2: "*) pass=$((pass + 1)) ;;
    *)
        echo "FAIL: want $2 for:"
        printf '%s\n' "$1"
        echo "got: $err"
        fails=$((fails + 1))
        ;;
    esac
}
expect_at $'case: navaro\nparameters: {link_length: 1\n' 3:1
expect_at $'case: navaro\nparameters:\n  leg:\n    A: 2.4e-4\n    Ixx: 1e-8\n' 5:5
expect_at $'case: navaro\nparameters:\n  material: {E: high, rho: 2800}\n' 3:17
expect_at $'# wrong unit\ncase: navaro\nparameters:\n  link_length: 3 kg\n' 4:16
expect_at $'parameters:\n  link_length: 0.2\n' 1:1
expect_at $'case: navaro\nparameters:\n  mass: heavy\n' 3:9
expect 2 modes "$tmp/nonexistent.yaml"
expect 2 modes navaro --set link_length=3kg
# Robot files (docs/robot-files.md): the examples run modes and map; a pose out of reach is exit
# 2 naming the joint left open; faults of the mechanism at their FILE:LINE:COLUMN, exit 2.
expect 0 modes "$root/examples/3rrr.yaml" --pose 0.02,-0.01,0.05
expect 0 map "$root/examples/3rrr.yaml" --grid x=-0.05:0.05:3,y=-0.05:0.05:3 --nev 4 \
    -o "$tmp/3rrr.h5" --quiet
expect 0 modes "$root/examples/delta.yaml" --pose 0.03,0,-0.4
expect 0 map "$root/examples/delta.yaml" --grid x=-0.05:0.05:3,z=-0.45:-0.38:3 --nev 4 \
    -o "$tmp/delta.h5" --quiet
expect 2 modes "$root/examples/3rrr.yaml" --pose 0.4,0,0
expect 0 modes "$root/examples/navaro.yaml" --pose 0.05,0,0
# NaVARo as a robot file: Table 3 within the built-in's tolerance, and its map equals the
# built-in's to 1e-8 % (test_robot measures 8.7e-12 relative on the eigenvalues).
expect 0 compare "$root/examples/navaro.yaml" --table "$table"
expect 0 map "$root/examples/navaro.yaml" --grid x=-0.04:0.04:3,y=-0.04:0.04:3 --nev 6 \
    -o "$tmp/navaro_topo.h5" --quiet
expect 0 map navaro --grid x=-0.04:0.04:3,y=-0.04:0.04:3 --nev 6 -o "$tmp/navaro_builtin.h5" --quiet
expect 0 compare "$tmp/navaro_topo.h5" --against "$tmp/navaro_builtin.h5" --tol 1e-8
leg_head=$'robot: one-leg\nmaterials: {steel: {E: 210 GPa, G: 80 GPa, rho: 7850}}\n'
leg_head+=$'sections: {bar: {A: 1e-4, Iy: 1e-9, Iz: 1e-9, I0: 2e-9, Ip: 2e-9}}\nbodies:\n'
leg_head+=$'  - {name: link, beam: {points: [[0, 0, 0], [0.5, 0, 0]], section: bar, material: steel, zref: [0, 0, 1]}}\n'
leg_head+=$'  - {name: platform, rigid: {origin: [0.5, 0, 0], mass: 1}}\n'
leg_a=$'  - {name: A, type: R, bodies: [ground, link], point: [0, 0, 0], axis: [0, 0, 1], actuated: true}\n'
leg_c=$'  - {name: C, type: R, bodies: [link, platform], point: [0.5, 0, 0], axis: [0, 0, 1], locked: true}\n'
leg_pose=$'pose:\n  - {name: y, platform: y}\n  - {name: theta, platform: rz}\n'
expect_at "${leg_head}platform: platform"$'\njoints:\n'"${leg_a/link\]/lnk]}$leg_c$leg_pose" 9:41
expect_at "${leg_head}"$'  - {name: spare, rigid: {origin: [0, 1, 0]}}\nplatform: platform\njoints:\n'"$leg_a$leg_c$leg_pose" 7:5
expect_at "${leg_head}platform: platform"$'\njoints:\n'"$leg_a$leg_c${leg_pose/y\}/y, home: 0.6 m\}}" 10:5
# The README's robot file, as written there.
awk '/^robot: one-link/ {on = 1} on && /^```$/ {exit} on' "$root/README.md" >"$tmp/one-link.yaml"
expect 0 modes "$tmp/one-link.yaml" --pose 0.2,0.3

# kill_at_checkpoint PID PARTIAL: SIGKILL the sweep PID as soon as its first checkpoint PARTIAL
# exists (written after a computed pose, renamed into place whole), not after a guessed time; a
# sweep that ends first, or writes none within 60 s, fails the checks that follow. Stopping at a
# chosen pose is tested in the library (tests/test_studies_sweep.c, pkm_sweep_opts.stop).
kill_at_checkpoint() {
    for _ in $(seq 6000); do
        [ -e "$2" ] && break
        kill -0 "$1" 2>/dev/null || break
        sleep 0.01
    done
    kill -9 "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}

# Killing a sweep half-way leaves no file at the output path (it is written at the end, under a
# temporary name, then renamed).
"$bin" map navaro --grid x=-0.06:0.06:200,y=-0.06:0.06:200 -o "$tmp/killed.h5" --quiet \
    --checkpoint 0.2 >/dev/null 2>&1 &
kill_at_checkpoint $! "$tmp/killed.h5.partial"
check "killed sweep leaves no file" test ! -e "$tmp/killed.h5" -a -e "$tmp/killed.h5.partial"

# --modes stores the mode shapes; tracked ids are a permutation of 0..nev-1 at every OK pose.
expect 0 map navaro --grid x=-0.3:0.3:7,y=-0.02:0.02:3 --nev 4 --modes -o "$tmp/modes.h5" --quiet
check "map --modes and tracked ids" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
st, md, tr = f["status"][...], f["modes"][...], f["tracked_mode"][...]
n = int(f.attrs["ncoord"])
assert md.shape == (7, 3, 4, n) and f["modes"].chunks == (1, 1, 4, n), md.shape
assert np.isnan(md[st != 0]).all() and np.isfinite(md[st == 0]).all()
assert f.attrs["tracking"].decode() == "mac" and f["tracking_mac"].shape == (7, 3, 4)
for i, j in zip(*np.nonzero(st == 0)):
    assert sorted(tr[i, j]) == [0, 1, 2, 3], tr[i, j]
assert (tr[st != 0] == -1).all()
' "$tmp/modes.h5"

# compare F.h5 --against REF.h5: a map against itself differs by 0; against a map with E and G
# scaled by 1.21 (all stiffness scales, masses do not) every frequency differs by sqrt(1.21) - 1.
cgrid="x=-0.1:0.1:5,y=-0.1:0.1:5"
expect 0 map navaro --grid "$cgrid" --nev 5 --solver arpack -o "$tmp/ref.h5" --quiet
# The warm-started block solver (map's default) equals ARPACK's to 1e-9 relative (--tol is in
# percent), every pose computed, and the file names its eigensolver.
expect 0 map navaro --grid "$cgrid" --nev 5 -o "$tmp/block.h5" --quiet
expect 0 compare "$tmp/block.h5" --against "$tmp/ref.h5" --tol 1e-7
check "block map names its solver" "$py" -c '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
v = f.attrs["eigensolver"]
assert (v.decode() if isinstance(v, bytes) else v) == "block", v
' "$tmp/block.h5"
G121=$("$py" -c 'print(repr(74.0e9 / 2.66 * 1.21))')
expect 0 map navaro --grid "$cgrid" --nev 5 -o "$tmp/stiff.h5" --quiet --set material.E=8.954e10 \
    --set material.G="$G121"
expect 0 compare "$tmp/ref.h5" --against "$tmp/ref.h5" --tol 0
expect 1 compare "$tmp/stiff.h5" --against "$tmp/ref.h5" --tol 9.99
expect 0 compare "$tmp/stiff.h5" --against "$tmp/ref.h5" --tol 10.001
"$bin" compare "$tmp/stiff.h5" --against "$tmp/ref.h5" >"$tmp/cmp.txt"
check "compare: sqrt(1.21) - 1 = 10 % for every mode" awk '
    $1 ~ /^[0-9]+$/ { n++; if ($2 < 10 - 1e-6 || $2 > 10 + 1e-6 || $3 < 10 - 1e-6 || $3 > 10 + 1e-6) bad++ }
    END { exit !(n == 5 && bad == 0) }' "$tmp/cmp.txt"
"$bin" compare "$tmp/ref.h5" --against "$tmp/ref.h5" --tol 0 >"$tmp/self.txt"
check "compare: itself 0" awk '$1 ~ /^[0-9]+$/ { n++; if ($2 != 0 || $3 != 0) bad++ }
    END { exit !(n == 5 && bad == 0) }' "$tmp/self.txt"
expect 0 map navaro --grid "x=-0.1:0.1:5,y=-0.1:0.1:4" --nev 5 -o "$tmp/other.h5" --quiet
expect 2 compare "$tmp/other.h5" --against "$tmp/ref.h5"
err=$("$bin" compare "$tmp/other.h5" --against "$tmp/ref.h5" 2>&1 >/dev/null)
check "compare names the grid difference" grep -q "axis 'y'" <<<"$err"
expect 2 compare "$tmp/ref.h5" --against "$tmp/missing.h5"
expect 2 compare "$tmp/ref.h5" --against "$tmp/ref.h5" --table "$table"

# Resume: a sweep killed half-way leaves no F.h5 but a valid F.h5.partial with some poses done;
# --resume computes the rest and gives the uninterrupted result.
rgrid="x=-0.2:0.2:50,y=-0.2:0.2:50"
ropts="--pose 0,0,-1.05 --nev 6 --quiet"
expect 0 map navaro --grid "$rgrid" $ropts -o "$tmp/whole.h5" --threads 2
"$bin" map navaro --grid "$rgrid" $ropts -o "$tmp/res.h5" --checkpoint 0.2 >/dev/null 2>&1 &
kill_at_checkpoint $! "$tmp/res.h5.partial"
check "killed sweep: no F.h5" test ! -e "$tmp/res.h5"
check "killed sweep: h5dump opens F.h5.partial" h5dump -H "$tmp/res.h5.partial" >/dev/null
check "killed sweep: some but not all poses done" "$py" -c '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
st = f["status"][...]
assert (st >= 0).any() and (st == -1).any(), ((st >= 0).sum(), (st == -1).sum())
assert "modes" in f  # the vectors that tracking needs go with the checkpoint,
assert f["modes"].dtype == "float32"  # in the single precision tracking uses (half the size)
' "$tmp/res.h5.partial"
expect 2 map navaro --grid "$rgrid" $ropts -o "$tmp/res.h5"
expect 2 map navaro --grid "$rgrid" --pose 0,0,-1.05 --nev 7 --quiet -o "$tmp/res.h5" --resume
err=$("$bin" map navaro --grid "$rgrid" --pose 0,0,-1.05 --nev 7 --quiet -o "$tmp/res.h5" \
    --resume 2>&1 >/dev/null)
check "resume names the difference" grep -q "nev 6 against 7" <<<"$err"
expect 2 map navaro --grid "$rgrid" $ropts -o "$tmp/none.h5" --resume
# Resume compares every resolved parameter by value: a case file that changes E is another
# computation (it was accepted and the map mixed two robots), the default E given in GPa is not.
printf 'case: navaro\nparameters:\n  material: {E: 70 GPa}\n' >"$tmp/e70.yaml"
expect 2 map "$tmp/e70.yaml" --grid "$rgrid" $ropts -o "$tmp/res.h5" --resume
err=$("$bin" map "$tmp/e70.yaml" --grid "$rgrid" $ropts -o "$tmp/res.h5" --resume 2>&1 >/dev/null)
check "resume names the changed parameter" grep -q "material.E = 74000000000 against 70000000000" \
    <<<"$err"
expect 0 map navaro --grid "$rgrid" $ropts -o "$tmp/res.h5" --resume --threads 2 \
    --set material.E=74GPa
check "resume removes F.h5.partial" test ! -e "$tmp/res.h5.partial"
expect 0 compare "$tmp/res.h5" --against "$tmp/whole.h5" --tol 1e-7
check "resumed map equals the uninterrupted one" "$py" -c '
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert (a["status"][...] == b["status"][...]).all()
assert np.allclose(a["freq_hz"][...], b["freq_hz"][...], rtol=1e-9, atol=0, equal_nan=True)
assert (a["tracked_mode"][...] == b["tracked_mode"][...]).all()
assert a.attrs["tracking"].decode() == "mac" and "modes" not in a
' "$tmp/res.h5" "$tmp/whole.h5"

# Issue 8. A lost copy of a triple eigenvalue: mode 10 of pss5upu at home is 861.75 Hz (was
# 1075.90 from ARPACK), as from the dense solver.
"$bin" modes pss5upu --pose 0,0,0,0,0 --format csv >"$tmp/pss_arpack.csv"
"$bin" modes pss5upu --pose 0,0,0,0,0 --format csv --solver dense >"$tmp/pss_dense.csv"
check "pss5upu home: ARPACK = dense, mode 10 = 861.75 Hz" "$py" -c '
import sys, numpy as np
a = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
d = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
assert np.allclose(a[:, 1], d[:, 1], rtol=1e-8, atol=0), (a[:, 1], d[:, 1])
assert abs(a[9, 1] - 861.749808) < 1e-5, a[9, 1]
' "$tmp/pss_arpack.csv" "$tmp/pss_dense.csv"
# Out-of-range parameters: one line, exit 2, no LAPACK message on stdout.
for p in leg.A=1e300 material.rho=1e300 leg.Iz=1e300 leg.Ip=1e300 platform.A=1e300; do
    expect 2 modes navaro --set "$p"
    check "modes navaro --set $p prints nothing on stdout" \
        test -z "$("$bin" modes navaro --set "$p" 2>/dev/null)"
done
expect 2 modes pss5upu --set slider.mass=1e300
# LAPACK's XERBLA is pkmflex's own (solvers/xerbla.c), exported so that liblapack's calls bind
# to it: an illegal argument becomes an error, not "On entry to ..." and exit 0.
if command -v nm >/dev/null; then
    check "pkmflex defines and exports xerbla_" sh -c 'nm -D "$1" | grep -q " T xerbla_$"' sh "$bin"
fi
# Fine meshes: frequencies the rounding may have moved by more than 1e-6 are flagged (128
# elements per link: ~1e-5); past 1e-3 (512: 3.6e-3) the solve fails, naming the mode.
out=$(timeout 120 "$bin" modes navaro --formulation nodal --set elements_per_link=128 --nev 4)
check "fine mesh: flagged frequencies" grep -q "^# ! 4 frequencies" <<<"$out"
err=$(timeout 120 "$bin" modes navaro --formulation nodal --set elements_per_link=512 --nev 2 \
    2>&1 >/dev/null)
check "fine mesh: refused past 1e-3 (exit 3)" test $? -eq 3
check "fine mesh: the refusal names the mode" grep -q "mode 1 (.* Hz): the rounding" <<<"$err"
out=$("$bin" modes navaro --nev 4)
check "default mesh: nothing flagged" test -z "$(grep '!' <<<"$out")"

# The map records its provenance: every resolved parameter in SI, the case file and its SHA-256,
# version and commit; every dataset carries a Fletcher32 checksum.
printf 'case: navaro\nparameters:\n  material: {E: 70 GPa}\n' >"$tmp/prov.yaml"
expect 0 map "$tmp/prov.yaml" --grid x=0:0.01:2 --nev 3 -o "$tmp/prov.h5" --quiet
sum=$(sha256sum "$tmp/prov.yaml" | cut -d' ' -f1)
check "map provenance" "$py" -c '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
# string attributes are fixed-length, which h5py reads as bytes (docs/hdf5-layout.md)
s = lambda obj, name: obj.attrs[name].decode()
assert s(f, "case_file_sha256") == sys.argv[2] and s(f, "case_file") == sys.argv[3]
assert f["parameters"].attrs["material.E"] == 70e9 and s(f["parameters"], "mass") == "rotary"
assert f["parameters"].attrs["elements_per_link"] == 1 and s(f, "pkmflex_commit") != ""
assert f.attrs["format_version"] == 4 and f["accuracy"].shape == f["freq_hz"].shape
for k in ("freq_hz", "residual", "accuracy", "status", "tracked_mode", "tracking_mac",
          "tracking_parent", "grid/x"):
    assert f[k].fletcher32, k
' "$tmp/prov.h5" "$sum" "$tmp/prov.yaml"

# A one-value axis whose STOP differs from START: the identical command resumes its checkpoint
# (the file stores only the value; its stop was compared and refused). A complete map is a valid
# checkpoint with nothing left to compute.
one="x=0.01:0.05:1,y=-0.02:0.02:3"
expect 0 map navaro --grid "$one" --nev 3 -o "$tmp/one1.h5" --quiet
mv "$tmp/one1.h5" "$tmp/one1.h5.partial"
expect 0 map navaro --grid "$one" --nev 3 -o "$tmp/one1.h5" --quiet --resume

# Files. Two runs on one -o: the second is refused naming the lock and its holder, the first
# completes (one's cleanup removed the other's temporary file and both could fail).
lgrid="x=-0.2:0.2:25,y=-0.2:0.2:25"
timeout 120 "$bin" map navaro --grid "$lgrid" --pose 0,0,-1.05 --nev 6 --quiet -o "$tmp/lk.h5" \
    >/dev/null 2>&1 &
lpid=$!
for _ in $(seq 500); do [ -e "$tmp/lk.h5.lock" ] && break; sleep 0.01; done
expect 2 map navaro --grid "$lgrid" --pose 0,0,-1.05 --nev 6 --quiet -o "$tmp/lk.h5"
err=$("$bin" map navaro --grid "$lgrid" --pose 0,0,-1.05 --nev 6 --quiet -o "$tmp/lk.h5" 2>&1)
check "second run names the lock and its holder" grep -q "(pid [0-9]*).*lk.h5.lock is locked" <<<"$err"
wait $lpid
check "first run completes" test $? -eq 0 -a -e "$tmp/lk.h5" -a ! -e "$tmp/lk.h5.lock"
# -o onto a symbolic link or a device node is refused, the link and its target untouched.
echo keep >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.h5"
expect 2 map navaro --grid x=0:0.01:2 --nev 3 -o "$tmp/link.h5" --quiet
check "symlink and target kept" test -L "$tmp/link.h5" -a "$(cat "$tmp/target")" = keep
expect 2 map navaro --grid x=0:0.01:2 --nev 3 -o /dev/null --quiet
check "device kept" test -c /dev/null
# A full disk (here the file size limit, SIGXFSZ ignored): one error line, exit 3, no crash in
# HDF5's exit handler (it was SIGSEGV), and the previous checkpoint kept and resumable. With
# --modes, as its checkpoints grow with the points computed (without it they hold the vectors of
# the sweep's front only, and keep one size). At 4 elements per link (20 kB of vectors a pose)
# the first checkpoint, 0.1 s in, is well under the limit and the map's vectors well above it.
fgrid="x=-0.2:0.2:30,y=-0.2:0.2:30"
out=$( (trap '' XFSZ; ulimit -f 2500; timeout 120 "$bin" map navaro --grid "$fgrid" --pose 0,0,-1.05 \
    --set elements_per_link=4 --nev 6 --quiet --checkpoint 0.1 --modes -o "$tmp/full.h5") 2>&1 \
    >/dev/null)
rc=$?
check "full disk: exit 3 and one line" test "$rc" -eq 3 -a "$(printf '%s\n' "$out" | grep -c '')" -eq 1
check "full disk: the message says why" grep -q "File too large" <<<"$out"
check "full disk: previous checkpoint kept" h5dump -H "$tmp/full.h5.partial" >/dev/null
expect 0 map navaro --grid "$fgrid" --pose 0,0,-1.05 --set elements_per_link=4 --nev 6 --quiet \
    --checkpoint 0 --modes -o "$tmp/full.h5" --resume --threads 2
# Resources are checked before any pose: a grid whose arrays exceed the free memory is refused
# at once, naming the size and the options (it allocated 23 GB first).
err=$(timeout 20 "$bin" map navaro --grid x=-0.2:0.2:10000,y=-0.2:0.2:10000 -o "$tmp/huge.h5" 2>&1)
check "huge grid refused naming memory and --grid" grep -q "GiB of memory.*--grid" <<<"$err"
expect 2 map navaro --grid x=-0.2:0.2:10000,y=-0.2:0.2:10000 -o "$tmp/huge.h5"
# Vectors above the tracking bound (1 GiB): a warning while the sweep has barely begun
# (tracking stopped without a word), not at the end of hours of sweep. The map runs in the
# background until the warning shows (2 minutes at most, a guard, not a speed limit: a loaded
# sanitizer build took over 5 s), then it is stopped; it must not have finished by then.
"$bin" map navaro --grid x=-0.2:0.2:500,y=-0.2:0.2:500 --quiet -o "$tmp/wide.h5" 2>"$tmp/wide.err" &
wide=$!
for _ in $(seq 1200); do
    grep -q "warning: modes will not be tracked" "$tmp/wide.err" && break
    sleep 0.1
done
check "untracked map still running when it warns" kill "$wide"
wait "$wide" 2>/dev/null
check "untracked map warns at once" grep -q "warning: modes will not be tracked: .* above the limit" \
    "$tmp/wide.err"
rm -f "$tmp"/wide.h5*
# A small file declaring a huge grid: compare refuses it before allocating (it took 3 GB).
"$py" - "$tmp/ref.h5" "$tmp/crafted.h5" <<'PY'
import shutil, sys, h5py, numpy as np
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    del f["grid/x"]
    d = f["grid"].create_dataset("x", shape=(400000000,), dtype="f8", chunks=(1024,))
    d.attrs["units"], d.attrs["pose_index"] = np.bytes_("m"), 0  # fixed-length, as pkmflex
PY
expect 2 compare "$tmp/crafted.h5" --against "$tmp/ref.h5"
err=$("$bin" compare "$tmp/crafted.h5" --against "$tmp/ref.h5" 2>&1)
check "crafted grid refused naming the sizes" grep -q "/grid/x needs 3200000000 bytes" <<<"$err"
# Fuzzer-found files that crashed libhdf5 1.10.8 (SIGSEGV) or hung it are refused before HDF5
# goes wrong: variable-length strings (its global heap), a chunk larger than its dataset.
for k in global_heap_overflow:"attribute 'format' of /: variable-length strings are not read" \
    global_heap_hang:"attribute 'format' of /: variable-length strings are not read" \
    chunk_overread:"dataset /accuracy: chunk dimension 2 is 16386"; do
    out=$(timeout 20 "$bin" compare "$root/tests/fuzz/known/map_reader_hdf5_${k%%:*}.h5" \
        --against "$tmp/ref.h5" 2>&1)
    rc=$?
    check "${k%%:*} file: exit 2 and one line" \
        test "$rc" -eq 2 -a "$(printf '%s\n' "$out" | grep -c '')" -eq 1
    check "${k%%:*} file: the line says why" grep -qF "${k#*:}" <<<"$out"
done
# Every file of tests/fuzz/known/ (libhdf5 1.10.8 crashed, looped, leaked or printed 3 lines from
# its exit handler on them in-process) through compare and map --resume, both read in a child
# process (pkm_map_read_h5_isolated): exit 2, one line naming the file, within the timeout.
for f in "$root"/tests/fuzz/known/map_reader_hdf5_*.h5; do
    k=$(basename "$f" .h5)
    out=$(timeout 60 "$bin" compare "$f" --against "$tmp/ref.h5" 2>&1)
    rc=$?
    check "$k: compare exits 2 with one line naming the file" \
        test "$rc" -eq 2 -a "$(printf '%s\n' "$out" | grep -c '')" -eq 1
    check "$k: compare names the file" grep -qF "$f" <<<"$out"
    cp "$f" "$tmp/known.h5.partial"
    out=$(timeout 60 "$bin" map navaro --grid x=0:0.01:2 --nev 3 --quiet -o "$tmp/known.h5" \
        --resume 2>&1)
    rc=$?
    check "$k: map --resume exits 2 with one line naming the file" \
        test "$rc" -eq 2 -a "$(printf '%s\n' "$out" | grep -c '')" -eq 1 -a ! -e "$tmp/known.h5"
    check "$k: map --resume names the file" grep -qF "known.h5.partial" <<<"$out"
    rm -f "$tmp/known.h5.partial"
done
# HDF5 causes are one line (the sec2 driver's hold ctime's newline).
head -c 3000 "$tmp/ref.h5" >"$tmp/cut.h5"
expect 2 compare "$tmp/cut.h5" --against "$tmp/ref.h5"

# Each command takes its own options only (issue 9): an option of another command is refused
# in one line naming the option and the command, before any computation; its --help lists its
# own options, each of which its parser takes.
expect 2 modes navaro --grid x=0:1:2
expect 2 modes navaro -o "$tmp/never.h5"
expect 2 modes navaro --resume
expect 2 modes navaro --table "$table"
expect 2 compare navaro --table "$table" --grid x=0:1:2
expect 2 compare navaro --table "$table" --max-accuracy 1e-3
expect 2 map navaro --grid x=0:0.01:2 -o "$tmp/own.h5" --format xml
expect 2 map navaro --grid x=0:0.01:2 -o "$tmp/own.h5" --table "$table"
expect 2 cases --nev 3
expect 2 cases --show navaro --set leg.A=1
check "refusal names the option and the command" grep -q "modes does not take option '--grid'" \
    <<<"$("$bin" modes navaro --grid x=0:1:2 2>&1)"
check "refusal names --resume" grep -q "modes does not take option '--resume'" \
    <<<"$("$bin" modes navaro --resume 2>&1)"
check "refusal names -o" grep -q "modes does not take option '-o'" \
    <<<"$("$bin" modes navaro -o "$tmp/never.h5" 2>&1)"
check "cases refuses --nev" grep -q "cases does not take option '--nev'" \
    <<<"$("$bin" cases --nev 3 2>&1)"
check "no file from a refused option" test ! -e "$tmp/never.h5" -a ! -e "$tmp/own.h5"
# help_options CMD: the options a command's --help lists (its table, one per line).
help_options() {
    "$bin" "$1" --help | sed -n 's/^  \(-[a-z-]*, \)\{0,1\}\(--[a-z-]*\).*/\2/p' | sort -u
}
for cmd in modes compare map cases dynamics transient; do
    opts=$(help_options "$cmd")
    check "$cmd --help lists options" test -n "$opts"
    for o in $opts; do
        # taken: the run fails on the missing value or the unknown case, not on the option
        err=$(timeout 60 "$bin" "$cmd" nosuchcase "$o" 2>&1 >/dev/null)
        check "$cmd takes $o, which its --help lists" test -z "$(grep 'does not take' <<<"$err")"
    done
done
check "modes --help lists no map or compare option" \
    test -z "$(help_options modes | grep -x -e --grid -e --output -e --resume -e --table -e --against)"
check "map --help lists no modes or compare option" \
    test -z "$(help_options map | grep -x -e --describe -e --max-accuracy -e --table -e --tol)"
check "compare --help lists no map or modes option" \
    test -z "$(help_options compare | grep -x -e --grid -e --pose -e --max-accuracy -e --resume)"
check "cases --help lists --show, --params and --format only" \
    test "$(help_options cases | tr "\n" " ")" = "--format --params --show "
check "dynamics --help lists no modal option" \
    test -z "$(help_options dynamics | grep -x -e --nev -e --pose -e --formulation -e --solver)"
check "--formulation help lists the formulations" grep -q "tree (.*nodal (" \
    <<<"$("$bin" modes --help | tr '\n' ' ')"
check "--solver help lists the eigensolvers" grep -q "arpack (.*dense (" \
    <<<"$("$bin" map --help | tr '\n' ' ')"
check "--help lists the built-in cases" grep -q "(navaro, pss5upu, tree5, loop3)" <<<"$("$bin" --help)"
# dynamics: the rigid-body inverse dynamics along a trajectory (Guo et al. 2024's tree5 and loop3,
# against the reference values derived from their Tables 2 and 3).
# near A B R: |A - B| <= R |B|; field ROW K: the K-th comma-separated field of ROW.
near() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= r * m) }'; }
field() { cut -d, -f"$2" <<<"$1"; }
expect 0 dynamics --help
expect 0 dynamics tree5 --time 0:5:6
expect 0 dynamics loop3 --time 0:14:8
expect 0 dynamics navaro --time 0:1.5:4
dcsv=$("$bin" dynamics tree5 --time 0:5:6 --format csv)
check "dynamics csv header is exact" \
    test "$(head -n 1 <<<"$dcsv")" = "t,joint,type,q,qd,qdd,drive,ideal,friction,f_axial,f_radial,m_bending"
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
# Bad input, one line, exit 2, before any output: unknown trajectory, a time grid with N < 2,
# T1 <= T0 or outside the trajectory, an unknown friction law, negative friction data, Stribeck
# data with ks < kc, a CSV trajectory with an unknown joint, too few or unsorted samples, and a
# pose leaving the workspace (the time and the leg named).
expect 2 dynamics tree5 --trajectory nosuch
expect 2 dynamics tree5 --time 0:1:1
expect 2 dynamics tree5 --time 1:0:5
expect 2 dynamics tree5 --time 0:1
expect 2 dynamics tree5 --time -1:1:3
expect 2 dynamics tree5 --friction bogus
expect 2 dynamics tree5 --set friction.kc=-0.1
expect 2 dynamics tree5 --friction stribeck --set friction.ks=0.001
expect 2 dynamics tree5 --format xml
expect 2 dynamics tree5 --nev 3
expect 2 dynamics tree5 --singular 0
expect 2 dynamics nosuchcase
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
# of 1 ms) and its energy balance closes; -o is refused with it; a friction loop that cannot
# settle (Table 3's friction with unit arms on loop3's 0.1 m links) is exit 3.
colmax() { tail -n +2 | cut -d, -f"$1" | awk '{ v = $1 < 0 ? -$1 : $1; if (v > m) m = v } END { print m + 0 }'; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
fcsv=$(timeout 120 "$bin" dynamics tree5 --forward --time 0:1:1001 --format csv)
check "dynamics --forward csv header" test "$(head -n 1 <<<"$fcsv")" = "t,deviation,balance,friction_work"
check "dynamics --forward: a row per step" test "$(tail -n +2 <<<"$fcsv" | grep -c '')" -eq 1001
check "dynamics --forward tree5 follows the trajectory" below "$(colmax 2 <<<"$fcsv")" 1e-9
check "dynamics --forward tree5 energy balance" below "$(colmax 3 <<<"$fcsv")" 1e-9
fcsv=$(timeout 120 "$bin" dynamics loop3 --forward --time 0:2:2001 --format csv)
check "dynamics --forward loop3 follows the trajectory" below "$(colmax 2 <<<"$fcsv")" 1e-9
check "dynamics --forward loop3 energy balance" below "$(colmax 3 <<<"$fcsv")" 1e-9
expect 2 dynamics tree5 --forward -o "$tmp/forward.h5"
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
# transient: Newmark along a trajectory (issue 11). NaVARo with one element per link, 20 ms of
# its point-to-point motion: the csv header is exact, one row per step; bad input is one line.
tn=(transient navaro --set elements_per_link=1 --duration 0.02 --dt 1e-3)
expect 0 "${tn[@]}"
tcsv=$(timeout 60 "$bin" "${tn[@]}" --format csv)
check "transient csv header is exact" \
    test "$(head -1 <<<"$tcsv")" = "t,ex,ey,ez,rx,ry,rz,drive_A11,drive_A12,drive_A13"
check "transient csv: one row per step and the start" test "$(tail -n +2 <<<"$tcsv" | grep -c '')" -eq 21
# The rigid limit: links 1e7 times stiffer, only the driven clutches locked: the reactions at
# the locked drives equal the rigid-body drives of the default model (1e-5 of the largest; the
# difference falls as 1/stiffness: 3.4e-5 at 1e6, 3.4e-6 at 1e7 over these 20 ms).
tdamp=(--damping 0.02@40,0.02@150)
tcsvd=$(timeout 60 "$bin" "${tn[@]}" "${tdamp[@]}" --format csv)
tstiff=$(timeout 60 "$bin" "${tn[@]}" "${tdamp[@]}" --format csv --initial static \
    --set clutch.locked=drive --set material.E=7.4e17 --set material.G=2.781954887e17)
check "transient: locked-drive reactions equal the rigid drives in the rigid limit" \
    awk -F, 'NR == FNR { for (k = 8; k <= 10; k++) d[FNR, k] = $k; next }
             FNR > 1 { for (k = 8; k <= 10; k++) { x = $k - d[FNR, k]; if (x < 0) x = -x
                       if (x > m) m = x; y = d[FNR, k]; if (y < 0) y = -y; if (y > a) a = y } }
             END { exit !(a > 0 && m < 1e-5 * a) }' <(printf '%s\n' "$tcsvd") <(printf '%s\n' "$tstiff")
expect 0 "${tn[@]}" --damping 0.02@40,0.02@150 --gravity --update-every 10
# The harmonic trajectory along x at f1 = 44.104635 Hz (NaVARo, 1 element per link, its modes 1
# and 2 a pair in x and y) and at f1 / 2, zeta = 2 % at f1: once steady (0.8-1 s), the largest
# |ex| at resonance over that at f1 / 2 is the base-excited oscillator's ratio, r^2 / sqrt((1 -
# r^2)^2 + (2 zeta r)^2) at r = 1 over r = 1/2 (75.0; measured 75.10, each 8 % above A times it).
thar=(transient navaro --set elements_per_link=1 --duration 1 --dt 5e-4 --update-every 0
    --damping 0.02@44.104635,0.02@150 --format csv)
tpeak() { timeout 120 "$bin" "${thar[@]}" --trajectory "harmonic:x,1e-4,$1" |
    awk -F, 'NR > 1 && $1 > 0.8 { x = $2 < 0 ? -$2 : $2; if (x > m) m = x } END { print m }'; }
hres=$(tpeak 44.104635)
hhalf=$(tpeak 22.0523175)
check "transient harmonic: resonance over half its frequency is the oscillator's ratio" \
    awk -v a="$hres" -v b="$hhalf" 'BEGIN { r = 0.5; s = r * r / sqrt((1 - r * r)^2 + (0.04 * r)^2)
        q = (1 / 0.04) / s; exit !(b > 0 && a / b > 0.98 * q && a / b < 1.02 * q) }'
# -o: the file holds the csv rows (the locked drives' reactions in the csv's drive columns), the
# rigid-body drives beside them (24 % away at the links' stiffness), the energies (kinetic +
# strain + dissipated = work from rest, to 2.8e-6 of it though the pencil changes every step);
# the default model (both clutches locked) has no reactions (NaN).
expect 0 "${tn[@]}" --set clutch.locked=drive -o "$tmp/tr.h5"
"$bin" "${tn[@]}" --set clutch.locked=drive --format csv >"$tmp/tr.csv"
expect 0 "${tn[@]}" -o "$tmp/tr_both.h5"
check "transient -o: the file holds the csv rows, drives, reactions and energies" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
c = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
assert f.attrs["format"] == b"pkmflex-transient" and f.attrs["case"] == b"navaro"
assert f.attrs["trajectory"] == b"p2p" and f.attrs["drives"] == b"A11,A12,A13"
assert f["t"].shape == (21,) and f["error"].shape == (21, 6) and f["reaction"].shape == (21, 3)
assert np.allclose(f["t"][...], c[:, 0], rtol=0, atol=1e-12)
assert np.allclose(f["error"][...], c[:, 1:7], rtol=1e-9, atol=1e-18)
assert np.allclose(f["reaction"][...], c[:, 7:], rtol=1e-9, atol=1e-15)
d = f["drive"][...]
assert np.abs(d).max() > 0 and np.abs(d - f["reaction"][...]).max() > 1e-3 * np.abs(d).max()
e = f["energy"][...]
assert e[-1, 3] > 0 and abs(e[-1, 0] + e[-1, 1] + e[-1, 2] - e[-1, 3]) < 1e-4 * e[-1, 3]
g = h5py.File(sys.argv[3], "r")
assert np.isnan(g["reaction"][...]).all() and np.isfinite(g["drive"][...]).all()
' "$tmp/tr.h5" "$tmp/tr.csv" "$tmp/tr_both.h5"
expect 2 "${tn[@]}" -o /nonexistent/dir/tr.h5
expect 2 "${tn[@]}" --trajectory harmonic:q,1e-4,10
expect 2 "${tn[@]}" --trajectory harmonic:x,0,10
expect 2 "${tn[@]}" --trajectory harmonic:x,1e-4,-1
expect 2 "${tn[@]}" --trajectory harmonic:x,1e-4
expect 0 "${tn[@]}" --rayleigh 1,1e-5 --update-every 0
expect 2 "${tn[@]}" --dt 0
expect 2 "${tn[@]}" --dt -1e-3
expect 2 "${tn[@]}" --dt 0.05
expect 2 "${tn[@]}" --damping 0.02@40,0.02@40
expect 2 "${tn[@]}" --damping 0.02@0,0.02@40
expect 2 "${tn[@]}" --damping 0.02@-5,0.02@40
expect 2 "${tn[@]}" --damping 0.02@40
expect 2 "${tn[@]}" --damping 0.02@40,0.02@150 --rayleigh 1,0
# elastic drives need the case's drive spring (navaro's clutch.k1 is 0 by default)
expect 2 "${tn[@]}" --drives elastic
eerr=$(timeout 60 "$bin" "${tn[@]}" --drives elastic 2>&1 >/dev/null)
check "transient --drives elastic names the drive without a spring" grep -q "elastic drive 'A11'" <<<"$eerr"
ecsv=$(timeout 60 "$bin" "${tn[@]}" --drives elastic --set clutch.k1=2000 --set clutch.locked=drive --format csv)
check "transient --drives elastic adds a defl_ column per drive" \
    test "$(head -1 <<<"$ecsv")" = "t,ex,ey,ez,rx,ry,rz,drive_A11,drive_A12,drive_A13,defl_A11,defl_A12,defl_A13"
timeout 60 "$bin" "${tn[@]}" --drives elastic --set clutch.k1=2000 --set clutch.locked=drive \
    -o "$tmp/edrv.h5" >/dev/null
timeout 60 "$bin" "${tn[@]}" -o "$tmp/ldrv.h5" >/dev/null
check "transient -o: /deflection = the csv's defl_ columns (elastic drives only)" "$py" -c '
import csv, io, sys, h5py, numpy as np
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
d = h5py.File(sys.argv[2], "r")["deflection"][...]
want = np.array([[float(r["defl_" + j]) for j in ("A11", "A12", "A13")] for r in rows])
assert d.shape == want.shape and np.allclose(d, want, rtol=1e-9, atol=1e-9 * abs(want).max())
assert abs(want).max() > 0 and "deflection" not in h5py.File(sys.argv[3], "r")
' "$ecsv" "$tmp/edrv.h5" "$tmp/ldrv.h5"
# --formulation: at a fixed configuration the tree and nodal responses are the same model's
ft=$(timeout 60 "$bin" transient navaro --duration 0.05 --dt 1e-3 --update-every 0 --format csv)
fn=$(timeout 60 "$bin" transient navaro --duration 0.05 --dt 1e-3 --update-every 0 --format csv \
    --formulation nodal)
check "transient --formulation nodal: the tree's response at a fixed configuration" "$py" -c '
import csv, io, sys
a, b = (list(csv.DictReader(io.StringIO(t))) for t in sys.argv[1:3])
assert len(a) == len(b) == 51
for k in ("ex", "ey", "rz"):
    s = max(abs(float(r[k])) for r in a)
    assert s > 0 and all(abs(float(x[k]) - float(y[k])) <= 1e-8 * s for x, y in zip(a, b)), k
' "$ft" "$fn"
expect 2 transient navaro --formulation foo
# --wrench: six numbers or a CSV series; bad input exit 2 naming the option or the file and line
expect 2 "${tn[@]}" --wrench 1,2,3
expect 2 "${tn[@]}" --wrench 1,2,3,4,5,nan
printf 't,fx,fy,fz,mx,my,mz\n0,1,0,0,0,0,0\n0.01,1,0,0,0,0,0\n0.02,1,x,0,0,0,0\n0.03,1,0,0,0,0,0\n' >"$tmp/wbad.csv"
expect 2 "${tn[@]}" --wrench "$tmp/wbad.csv"
werr=$(timeout 60 "$bin" "${tn[@]}" --wrench "$tmp/wbad.csv" 2>&1 >/dev/null)
check "transient --wrench names the bad CSV file and line" grep -q "wbad.csv:4" <<<"$werr"
printf 't,fx,fy,fz,mx,my,mz\n0,10,0,0,0,0,0\n0.01,10,0,0,0,0,0\n0.02,10,0,0,0,0,0\n0.03,10,0,0,0,0,0\n' >"$tmp/w10.csv"
wa=$(timeout 60 "$bin" "${tn[@]}" --wrench 10,0,0,0,0,0 --format csv | tail -1)
wb=$(timeout 60 "$bin" "${tn[@]}" --wrench "$tmp/w10.csv" --format csv | tail -1)
# The series is a spline through the samples: equal to the constant to rounding, not bit for bit.
check "transient --wrench: a constant CSV series equals the constant" "$py" -c '
import sys
a, b = ([float(x) for x in r.split(",")] for r in sys.argv[1:3])
s = max(abs(x) for x in a)
assert len(a) == len(b) == 10 and s > 0
assert all(abs(x - y) <= 1e-8 * abs(x) + 1e-13 * s for x, y in zip(a, b)), (a, b)
' "$wa" "$wb"
expect 2 "${tn[@]}" --update-every -1
expect 2 "${tn[@]}" --initial maybe
# --frequencies K: the lowest K frequencies at every update, csv columns f1..fK after the
# drives and /frequencies in -o; at t = 0.25 s the harmonic motion along x (10 mm, 1 Hz) is at
# x = 10 mm, where pkmflex modes gives the same frequencies (1e-9 relative). --damping at mode
# numbers resolves at the start pose (its ratios: tests/test_studies_transient_out.c).
tfq=(transient navaro --set elements_per_link=1 --trajectory harmonic:x,0.01,1 --start 0.25
    --duration 0.002 --dt 1e-3 --frequencies 4 --damping 0.02@mode1,0.02@mode3)
tfcsv=$(timeout 60 "$bin" "${tfq[@]}" --format csv -o "$tmp/trf.h5")
check "transient --frequencies: csv columns f1..fK after the drives" \
    test "$(head -1 <<<"$tfcsv")" = "t,ex,ey,ez,rx,ry,rz,drive_A11,drive_A12,drive_A13,f1,f2,f3,f4"
tfm=$(timeout 60 "$bin" modes navaro --set elements_per_link=1 --pose 0.01,0,0 --nev 4 --format csv)
check "transient --frequencies equal pkmflex modes at the same pose" \
    awk -F, 'NR == FNR { if (FNR > 1) f[FNR - 1] = $2; next }
             FNR == 2 { for (k = 1; k <= 4; k++) { d = $(10 + k) / f[k] - 1; if (d < 0) d = -d
                        if (d > m) m = d }; n++ }
             END { exit !(n == 1 && m < 1e-9) }' <(printf '%s\n' "$tfm") <(printf '%s\n' "$tfcsv")
check "transient -o: /frequencies holds the csv columns" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
c = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
assert f["frequencies"].shape == (3, 4)
assert np.allclose(f["frequencies"][...], c[:, 10:14], rtol=1e-9, atol=0)
' "$tmp/trf.h5" <(printf '%s\n' "$tfcsv")
expect 2 "${tn[@]}" --damping 0.02@mode1,0.02@mode1
expect 2 "${tn[@]}" --damping 0.02@mode0,0.02@mode3
expect 2 "${tn[@]}" --damping 0.02@mode1,0.02@mode999
expect 2 "${tn[@]}" --damping 0.02@mode1,0.02@40
expect 2 "${tn[@]}" --frequencies 0
expect 2 transient tree5
printf 't,x,y,theta\n0,0,0,0\n0.01,0.05,0,0\n0.02,0.2,0,0\n0.03,0.4,0,0\n' >"$tmp/far.csv"
expect 2 transient navaro --trajectory "$tmp/far.csv" --duration 0.03 --dt 1e-3
terr=$(timeout 60 "$bin" transient navaro --trajectory "$tmp/far.csv" --duration 0.03 --dt 1e-3 2>&1)
check "transient names the time and the leg out of reach" \
    grep -q '^pkmflex: error: t = 0.0[0-9]* s: .*leg' <<<"$terr"
expect 2 transient navaro --trajectory "$tmp/far.csv" --start 5
check "transient prints nothing before a refused trajectory" test "$(grep -vc '^pkmflex: error' <<<"$terr")" -eq 0
# the 5-PSS/UPU's spherical variant starts at its singular centre on eq. 40: exit 3 naming the time
expect 3 transient pss5upu --trajectory eq40 --set variant=spherical --duration 0.01 --dt 1e-3
serr=$(timeout 60 "$bin" transient pss5upu --trajectory eq40 --set variant=spherical --duration 0.01 --dt 1e-3 2>&1 >/dev/null)
check "transient names the singular time" grep -q '^pkmflex: error: t = 0 s: ' <<<"$serr"
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
# modes --vtk: a VTKHDF 1.0 UnstructuredGrid (the structure of the VTKHDF specification: Version,
# Type, one partition's counts, Offsets/Connectivity/Types of lines), its frequencies those
# printed, and the modes' nodal translations zero exactly at the base pivots A_i (revolute joints
# to the ground, on NaVARo's base circle) and nowhere else; an unwritable file is exit 3.
expect 0 modes navaro --pose 0,0,0 --nev 4 --vtk "$tmp/m.vtkhdf"
vcsv=$("$bin" modes navaro --pose 0,0,0 --nev 4 --format csv)
check "modes --vtk: VTKHDF structure, frequencies, fixed pivots" "$py" -c '
import sys, h5py, numpy as np
g = h5py.File(sys.argv[1], "r")["VTKHDF"]
assert list(g.attrs["Version"]) == [1, 0], g.attrs["Version"]
t = g.attrs["Type"]
assert (t.decode() if isinstance(t, bytes) else t) == "UnstructuredGrid", t
P, off, con, ty = g["Points"][...], g["Offsets"][...], g["Connectivity"][...], g["Types"][...]
npt, ncell = int(g["NumberOfPoints"][0]), int(g["NumberOfCells"][0])
assert P.shape == (npt, 3) and ty.shape == (ncell,) and off.shape == (ncell + 1,)
assert off[0] == 0 and (np.diff(off) == 2).all() and (ty == 3).all()
assert off[-1] == g["NumberOfConnectivityIds"][0] == con.size
assert (con >= 0).all() and (con < npt).all() and g["CellData/body"].shape == (ncell,)
seg = np.linalg.norm(P[con[1::2]] - P[con[0::2]], axis=1)
assert (seg > 1e-6).all(), seg
rows = [l.split(",") for l in sys.argv[2].splitlines()[1:]]
f = g["FieldData/frequency_hz"][...]
assert np.allclose(f, [float(r[1]) for r in rows], rtol=1e-9, atol=0), f
assert sorted(g["PointData"].keys()) == sorted(
    ["mode_%d%s" % (k, s) for k in range(1, 5) for s in ("", "_rotation")])
U = np.stack([g["PointData/mode_%d" % k][...] for k in range(1, 5)])
n = np.linalg.norm(U, axis=2).max(axis=0)
fixed = n < 1e-9 * n.max()
r = np.linalg.norm(P[fixed, :2], axis=1)
assert fixed.sum() >= 3 and np.allclose(r, 0.7 / np.sqrt(3), rtol=1e-12), (fixed.sum(), r)
assert len(np.unique(np.round(P[fixed], 9), axis=0)) == 3 and (n[~fixed] > 1e-3 * n.max()).all()
' "$tmp/m.vtkhdf" "$vcsv"
expect 3 modes navaro --pose 0,0,0 --nev 2 --vtk "$tmp/no/such/dir/m.vtkhdf"
# modes --describe (csv): per mode the strain energy from the elements and joint springs is
# w^2 / 2 of the printed frequency (x^T K x = w^2 for the M-normalised mode: a second path), in
# both formulations and with clutch springs; the leg shares sum to 1, as do the bodies' and the
# springs'; 1/twist^2 is the effective mass; at the symmetric pose (0, 0, 0) the single mode 3
# and the z mode 4 share their energy equally between the three legs.
for args in "--pose 0.03,-0.02,0.1" "--pose 0.03,-0.02,0.1 --formulation nodal" \
    "--pose 0.03,-0.02,0.1 --set clutch.k1=2e4 --set clutch.k2=3e4" "--pose 0,0,0"; do
    # shellcheck disable=SC2086
    desc=$("$bin" modes navaro $args --nev 6 --describe --format csv)
    check "modes --describe ($args): energy, shares, effective masses" "$py" -c '
import math, sys
lines = sys.argv[1].splitlines()
i = [k for k, l in enumerate(lines) if l.startswith("mode,freq_hz,ux")][0]
head = lines[i].split(",")
rows = [dict(zip(head, (float(v) if v else math.nan for v in l.split(",")))) for l in lines[i + 1:]]
assert len(rows) == 6, len(rows)
legs = [h for h in head if h.startswith("leg")]
bodies = [h for h in head if h.startswith("body:")]
assert len(legs) == 3 and len(bodies) == 16, (legs, bodies)
for r in rows:
    w = 2 * math.pi * r["freq_hz"]
    assert abs(r["energy_j"] / (0.5 * w * w) - 1) < 1e-8, (r["mode"], r["energy_j"], w)
    assert abs(sum(r[h] for h in legs) - 1) < 1e-5
    assert abs(sum(r[h] for h in bodies) + r["springs"] - 1) < 2e-5
    for t, m in zip(("ux", "uy", "rz"), ("m_x", "m_y", "J_z")):  # empty: the twist does not move
        assert math.isnan(r[m]) or abs(r[m] * r[t] ** 2 - 1) < 1e-5, (r[m], r[t])
springs = [r["springs"] for r in rows]
assert (max(springs) > 0.05) == ("clutch" in sys.argv[2]), springs
if sys.argv[2] == "--pose 0,0,0":
    for r in rows[2:4]:
        assert max(abs(r[h] - 1 / 3) for h in legs) < 2e-6, [r[h] for h in legs]
' "$desc" "$args"
done
expect 0 modes navaro --pose 0,0,0 --nev 3 --describe
# Quintic links (pss5upu): the elements' energy reads the curvature coordinates, no NaN.
pdesc=$(timeout 60 "$bin" modes pss5upu --pose 0,0,0,0,0 --nev 4 --describe)
check "modes pss5upu --describe: no NaN" test -n "$pdesc" -a "$(grep -ci nan <<<"$pdesc")" = 0
# Command-line habits: --opt=value gives what --opt value gives (a flag given a value is bad
# input); a mistyped command, option, case or parameter key is refused with the closest name;
# --pose and --grid take quantities with units as case files do (10 mm, 5 deg).
check "--format=csv --nev=3 as --format csv --nev 3" test \
    "$("$bin" modes navaro --pose=0,0,0 --format=csv --nev=3)" = \
    "$("$bin" modes navaro --pose 0,0,0 --format csv --nev 3)"
expect 2 modes navaro --describe=yes
for typo in "mdoes:'modes'" "modes --pos 0,0,0:'--pose'" "modes navaor:'navaro'" \
    "modes navaro --set material.e=1:'material.E'" "map navaro --gird x -o x.h5:'--grid'"; do
    # shellcheck disable=SC2086
    terr=$("$bin" ${typo%%:*} 2>&1 >/dev/null)
    check "did you mean ${typo#*:} for: ${typo%%:*}" grep -qF "did you mean ${typo#*:}?" <<<"$terr"
done
uc=$("$bin" modes navaro --pose "10 mm,-20 mm,5 deg" --nev 4 --format csv)
si=$("$bin" modes navaro --pose 0.01,-0.02,0.08726646259971647 --nev 4 --format csv)
check "--pose with units = the same pose in SI" awk -F, 'NR == FNR { f[FNR] = $2; next }
    FNR > 1 { d = $2 / f[FNR] - 1; if (d < 0) d = -d; if (d > 1e-9) bad = 1 } END { exit bad }' \
    <(printf '%s\n' "$si") <(printf '%s\n' "$uc")
expect 2 modes navaro --pose "10 kg,0,0"
expect 0 map navaro --grid "theta=-30 deg:30 deg:3,x=-10 mm:10 mm:2" --nev 2 -o "$tmp/units.h5" --quiet
check "--grid with units: the grid in SI" "$py" -c '
import sys, h5py, numpy as np
g = h5py.File(sys.argv[1], "r")["grid"]
assert np.allclose(g["theta"][...], [-np.pi / 6, 0, np.pi / 6], rtol=1e-15, atol=1e-16)
assert np.allclose(g["x"][...], [-0.01, 0.01], rtol=1e-15, atol=0)
' "$tmp/units.h5"
# --format json for the commands that print csv: valid JSON, a list of tables of row objects
# whose keys are the csv header and whose values are the csv's (numbers as numbers); a failed
# command prints no JSON.
for args in "modes navaro --pose 0.03,0.01,0.1 --nev 4 --describe" "dynamics tree5 --time 0:5:6" \
    "compare $root/cases/navaro_refined.yaml --table $root/cases/navaro/table4_measured.csv --match nearest" \
    "transient navaro --dt 1e-3 --duration 0.01" "dynamics crane4 --forward --time 0:1:5" \
    "compare $tmp/stiff.h5 --against $tmp/ref.h5 --tol 20" \
    "fit $refined --table $t4 --kind calc --match nearest --param clutch.k1=2000:100:20000 --param clutch.k2=2000:100:20000 --multistart off" \
    "cases" "map navaro --grid x=-0.1:0.1:3,y=0:0.05:2 --nev 3 -o $tmp/fmt.h5" \
    "dynamics masticatory --time 0:1:3 --weights 1,2,1,2,1,2"; do
    # shellcheck disable=SC2086
    j=$("$bin" $args --format json)
    # shellcheck disable=SC2086
    c=$("$bin" $args --format csv)
    check "--format json = --format csv: $args" "$py" -c '
import csv, io, json, math, sys
tables = json.loads(sys.argv[1])
blocks, cur = [], None
for row in csv.reader(io.StringIO(sys.argv[2])):
    if not row:  # a blank line ends a table
        cur = None
        continue
    if cur is None or len(row) != len(cur[0]):
        cur = [row]
        blocks.append(cur)
    else:
        cur.append(row)
assert len(tables) == len(blocks) >= 1, (len(tables), len(blocks))
for t, b in zip(tables, blocks):
    assert len(t) == len(b) - 1 and len(t) > 0
    for obj, row in zip(t, b[1:]):
        assert list(obj) == b[0], (list(obj), b[0])
        for key, v, s in zip(b[0], obj.values(), row):
            if key == "seconds":  # the run time of a map: two runs
                continue
            if s == "":
                assert v is None, (v, s)
                continue
            try:
                x = float(s)
            except ValueError:
                assert v == s, (v, s)
                continue
            assert (v is None and not math.isfinite(x)) or v == x, (v, s)
' "$j" "$c"
done
"$bin" map navaro --grid x=-0.1:0.1:3,y=0:0.05:2 --nev 3 -o "$tmp/fmt.h5" --format csv >"$tmp/fmt.csv"
check "map --format csv: counts and each mode's range = the file's" "$py" -c '
import csv, sys, h5py, numpy as np
rows = [r for r in csv.reader(open(sys.argv[1]))]
head, first, modes = rows[0], dict(zip(rows[0], rows[1])), rows[4:]
f = h5py.File(sys.argv[2], "r")
st, fr = f["status"][...].ravel(), f["freq_hz"][...].reshape(-1, 3)
assert int(first["poses"]) == st.size and int(first["ok"]) == (st == 0).sum(), first
assert int(first["unreachable"]) + int(first["ok"]) + int(first["singular"]) + int(first["failed"]) == st.size
assert int(first["solver_fallbacks"]) == f.attrs["solver_fallbacks"] == 0
assert rows[2] == [] and rows[3] == ["mode", "f_min_hz", "f_max_hz"] and len(modes) == 3
for k, (m, lo, hi) in enumerate(modes):
    ok = fr[st == 0, k]
    assert int(m) == k + 1 and abs(float(lo) / ok.min() - 1) < 1e-12 and abs(float(hi) / ok.max() - 1) < 1e-12
' "$tmp/fmt.csv" "$tmp/fmt.h5"
check "cases --format csv: one row per entry of the list" test \
    "$("$bin" cases --format csv | tail -n +2 | wc -l)" -eq \
    "$("$bin" cases | grep -c '^[^ ].*: ' | awk '{ print $1 - 0 }')"
check "--format json of a failed command: no output" test -z "$("$bin" modes navaro --pose 9,9,9 --format json 2>/dev/null)"
check "compare --against --format csv: one row per mode, the worst pose per axis" sh -c \
    "\"\$1\" compare \"\$2\" --against \"\$3\" --tol 20 --format csv | head -1 | grep -q '^mode,max_pct,mean_pct,worst_'" \
    _ "$bin" "$tmp/stiff.h5" "$tmp/ref.h5"
check "compare --format json: out of tolerance (exit 1), rows still printed" test "$("$bin" compare \
    "$root/cases/navaro_refined.yaml" --table "$root/cases/navaro/table4_measured.csv" \
    --kind meas --match nearest --format json | head -c 3)" = "[[{"
# Ctrl-C during a map: exit 130, the poses done are in F.h5.partial and the message names how
# many and the command that resumes; that command (as printed) finishes the map, and the map is
# the uninterrupted one. With --threads 2 both ways a SIGINT arrives: at the whole process group
# (a terminal's Ctrl-C, here through job control) and at the sweeping process alone (kill -INT
# PID: it stops its workers). The map is large enough (961 poses, ~2 s) that the interrupt,
# sent once the first checkpoint exists (0.2 s), finds it unfinished.
"$bin" map navaro --grid x=-0.08:0.08:31,y=-0.08:0.08:31 --set elements_per_link=4 --nev 4 \
    -o "$tmp/intref.h5" --quiet >/dev/null
for how in "1 process" "2 process" "2 group"; do
    read -r nthr target <<<"$how"
    rm -f "$tmp/int.h5" "$tmp/int.h5.partial"
    set -m
    "$bin" map navaro --grid x=-0.08:0.08:31,y=-0.08:0.08:31 --set elements_per_link=4 --nev 4 \
        -o "$tmp/int.h5" --quiet --checkpoint 0.2 --threads "$nthr" >/dev/null 2>"$tmp/int.err" &
    ipid=$!
    set +m
    for _ in $(seq 300); do [ -e "$tmp/int.h5.partial" ] && break; sleep 0.1; done
    if [ "$target" = group ]; then kill -INT -- "-$ipid"; else kill -INT "$ipid"; fi
    wait "$ipid"
    check "map --threads $nthr after SIGINT to the $target: exit 130" test $? -eq 130 -a ! -e "$tmp/int.h5"
    check "map --threads $nthr after SIGINT to the $target: saved poses counted, resume command" "$py" -c '
import re, sys, h5py
err = open(sys.argv[1]).read()
m = re.search(r"interrupted: (\d+) of 961 poses computed, saved in (\S+); resume with:\n  (.*)\n", err)
assert m, err
st = h5py.File(m[2], "r")["status"][...]
assert int(m[1]) == (st != -1).sum() and 0 < int(m[1]) < 961, (m[1], (st != -1).sum())
assert m[3].endswith(" --resume") and m[3].startswith("pkmflex map navaro "), m[3]
open(sys.argv[2], "w").write(m[3].replace("pkmflex", "\"$1\"", 1))
' "$tmp/int.err" "$tmp/int.cmd"
    bash "$tmp/int.cmd" "$bin" >/dev/null 2>&1
    check "map --threads $nthr resumed with the printed command = the uninterrupted map" "$py" -c '
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert (a["status"][...] == b["status"][...]).all() and (a["status"][...] != -1).all()
assert np.array_equal(a["freq_hz"][...], b["freq_hz"][...], equal_nan=True)
' "$tmp/int.h5" "$tmp/intref.h5"
done
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

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
