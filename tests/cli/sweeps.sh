#!/usr/bin/env bash
# tests/cli/sweeps.sh PKMFLEX ROOT: a killed sweep leaves no file; --modes and tracked ids.
# Part of the command-line suite (tests/cli/common.sh); ctest label slow.
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"

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

cli_done
