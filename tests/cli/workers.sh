#!/usr/bin/env bash
# tests/cli/workers.sh PKMFLEX ROOT: worker processes give the map of one process, on the supernodal
# path too.
# Part of the command-line suite (tests/cli/common.sh); ctest label slow.
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
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

cli_done
