#!/usr/bin/env bash
# tests/cli/fine_mesh.sh PKMFLEX ROOT: fine meshes (128, 512, 1024 elements per link): flagged,
# refused and accurate frequencies.
# Part of the command-line suite (tests/cli/common.sh); ctest label slow.
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
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

cli_done
