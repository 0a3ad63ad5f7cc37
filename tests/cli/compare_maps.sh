#!/usr/bin/env bash
# tests/cli/compare_maps.sh PKMFLEX ROOT: compare F.h5 --against REF.h5; the block solver against
# ARPACK.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
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

cli_done
