#!/usr/bin/env bash
# tests/cli_test.sh PKMFLEX ROOT: the command line's exit codes and one-line errors, and the
# map command's file (read back with h5py).
set -u
bin=$1
root=$2
fails=0
pass=0
# expect STATUS ARGS...: the exit status, and for status 2 exactly one line on stderr.
expect() {
    local want=$1
    shift
    local err
    err=$("$bin" "$@" 2>&1 >/dev/null)
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
# pss5upu: five pose coordinates; the spherical variant needs the UPU (nodal formulation).
expect 0 modes pss5upu --pose 0.05,0,0,0,0 --nev 6
expect 0 modes pss5upu --pose 0.05,0,0,0,0 --nev 6 --formulation nodal --set variant=spherical \
    --set upu=rigid
expect 2 modes pss5upu --pose 0,0,0
expect 2 modes pss5upu --pose 0,0,0.5,0,0
expect 2 modes pss5upu --set variant=bogus
expect 2 modes pss5upu --set link.nelem=0
expect 2 map navaro --grid q=0:1:3 -o /tmp/never.h5
expect 2 map navaro --grid x=0:1:0 -o /tmp/never.h5
expect 2 map navaro --grid x=0:1 -o /tmp/never.h5
expect 2 map navaro --grid x=0:0.01:2
expect 2 map navaro --grid x=0:0.01:2 -o /nonexistent/dir/map.h5 --quiet
# csv header is exact and the mode count follows --nev
hdr=$("$bin" modes navaro --pose 0,0,0 --nev 3 --format csv | head -n 1)
rows=$("$bin" modes navaro --pose 0,0,0 --nev 3 --format csv | tail -n +2 | grep -c '')
if [ "$hdr" = "mode,freq_hz,residual" ] && [ "$rows" -eq 3 ]; then
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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
assert (a["status"][...] == b["status"][...]).all()
assert np.allclose(a["freq_hz"][...], b["freq_hz"][...], rtol=1e-12, atol=0, equal_nan=True)
assert (a["status"][...] == 0).sum() > 10 and (a["status"][...] == 1).sum() > 0
' "$tmp/w1.h5" "$tmp/w2.h5"
expect 2 map navaro --grid x=0:0.01:2 -o "$tmp/bad.h5" --threads 0

# Killing a sweep half-way leaves no file at the output path (it is written at the end, under a
# temporary name, then renamed).
"$bin" map navaro --grid x=-0.06:0.06:200,y=-0.06:0.06:200 -o "$tmp/killed.h5" --quiet \
    >/dev/null 2>&1 &
sleep 1
kill -9 $! 2>/dev/null
wait $! 2>/dev/null
check "killed sweep leaves no file" test ! -e "$tmp/killed.h5"

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
