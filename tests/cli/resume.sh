#!/usr/bin/env bash
# tests/cli/resume.sh PKMFLEX ROOT: resume of a killed sweep, by value; a complete map as
# checkpoint.
# Part of the command-line suite (tests/cli/common.sh); ctest label slow.
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
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

# A one-value axis whose STOP differs from START: the identical command resumes its checkpoint
# (the file stores only the value; its stop was compared and refused). A complete map is a valid
# checkpoint with nothing left to compute.
one="x=0.01:0.05:1,y=-0.02:0.02:3"
expect 0 map navaro --grid "$one" --nev 3 -o "$tmp/one1.h5" --quiet
mv "$tmp/one1.h5" "$tmp/one1.h5.partial"
expect 0 map navaro --grid "$one" --nev 3 -o "$tmp/one1.h5" --quiet --resume

cli_done
