#!/usr/bin/env bash
# tests/cli/sigint.sh PKMFLEX ROOT: Ctrl-C during a map and the printed resume command.
# Part of the command-line suite (tests/cli/common.sh); ctest label slow.
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
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
cli_done
