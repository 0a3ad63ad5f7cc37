#!/usr/bin/env bash
# tests/cli/files_slow.sh PKMFLEX ROOT: the output lock, a full disk, the tracking bound's warning.
# Part of the command-line suite (tests/cli/common.sh); ctest label slow.
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
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
cli_done
