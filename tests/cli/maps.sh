#!/usr/bin/env bash
# tests/cli/maps.sh PKMFLEX ROOT: small maps read back with h5py (boundary, pss5upu, map = modes),
# Table 4 compare.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"

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

# A table pose out of the workspace: one error line naming the pose, exit 2.
printf 'pose,x_m,y_m,theta_rad,f1_Hz\n1,0.5,0,0,40\n' >"$tmp/far.csv"
expect 2 compare navaro --table "$tmp/far.csv"

cli_done
