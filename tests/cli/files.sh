#!/usr/bin/env bash
# tests/cli/files.sh PKMFLEX ROOT: symlinks and devices refused, huge grids, crafted and fuzzer-
# found files.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# The map the files are compared against (tests/cli/compare_maps.sh checks it).
cgrid="x=-0.1:0.1:5,y=-0.1:0.1:5"
"$bin" map navaro --grid "$cgrid" --nev 5 --solver arpack -o "$tmp/ref.h5" --quiet
# -o onto a symbolic link or a device node is refused, the link and its target untouched.
echo keep >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.h5"
expect 2 map navaro --grid x=0:0.01:2 --nev 3 -o "$tmp/link.h5" --quiet
check "symlink and target kept" test -L "$tmp/link.h5" -a "$(cat "$tmp/target")" = keep
expect 2 map navaro --grid x=0:0.01:2 --nev 3 -o /dev/null --quiet
check "device kept" test -c /dev/null
# Resources are checked before any pose: a grid whose arrays exceed the free memory is refused
# at once, naming the size and the options (it allocated 23 GB first).
err=$(timeout 20 "$bin" map navaro --grid x=-0.2:0.2:10000,y=-0.2:0.2:10000 -o "$tmp/huge.h5" 2>&1)
check "huge grid refused naming memory and --grid" grep -q "GiB of memory.*--grid" <<<"$err"
expect 2 map navaro --grid x=-0.2:0.2:10000,y=-0.2:0.2:10000 -o "$tmp/huge.h5"
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

cli_done
