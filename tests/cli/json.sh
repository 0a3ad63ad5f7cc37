#!/usr/bin/env bash
# tests/cli/json.sh PKMFLEX ROOT: --format json = --format csv, map and cases --format csv.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# The maps of tests/cli/compare_maps.sh, compared here as json and csv.
cgrid="x=-0.1:0.1:5,y=-0.1:0.1:5"
"$bin" map navaro --grid "$cgrid" --nev 5 --solver arpack -o "$tmp/ref.h5" --quiet
G121=$("$py" -c 'print(repr(74.0e9 / 2.66 * 1.21))')
"$bin" map navaro --grid "$cgrid" --nev 5 -o "$tmp/stiff.h5" --quiet --set material.E=8.954e10 \
    --set material.G="$G121"
# --format json for the commands that print csv: valid JSON, a list of tables of row objects
# whose keys are the csv header and whose values are the csv's (numbers as numbers); a failed
# command prints no JSON.
for args in "modes navaro --pose 0.03,0.01,0.1 --nev 4 --describe" "dynamics tree5 --time 0:5:6" \
    "compare $root/cases/navaro_refined.yaml --table $root/cases/navaro/table4_measured.csv --match nearest" \
    "transient navaro --dt 1e-3 --duration 0.01" "dynamics crane4 --forward --time 0:1:5" \
    "compare $tmp/stiff.h5 --against $tmp/ref.h5 --tol 20" \
    "fit $refined --table $t4 --kind calc --match nearest --param clutch.k1=2000:100:20000 --param clutch.k2=2000:100:20000 --multistart off" \
    "cases" "map navaro --grid x=-0.1:0.1:3,y=0:0.05:2 --nev 3 -o $tmp/fmt.h5" \
    "dynamics masticatory --time 0:1:3 --weights 1,2,1,2,1,2"; do
    # shellcheck disable=SC2086
    j=$("$bin" $args --format json)
    # shellcheck disable=SC2086
    c=$("$bin" $args --format csv)
    check "--format json = --format csv: $args" "$py" -c '
import csv, io, json, math, sys
tables = json.loads(sys.argv[1])
blocks, cur = [], None
for row in csv.reader(io.StringIO(sys.argv[2])):
    if not row:  # a blank line ends a table
        cur = None
        continue
    if cur is None or len(row) != len(cur[0]):
        cur = [row]
        blocks.append(cur)
    else:
        cur.append(row)
assert len(tables) == len(blocks) >= 1, (len(tables), len(blocks))
for t, b in zip(tables, blocks):
    assert len(t) == len(b) - 1 and len(t) > 0
    for obj, row in zip(t, b[1:]):
        assert list(obj) == b[0], (list(obj), b[0])
        for key, v, s in zip(b[0], obj.values(), row):
            if key == "seconds":  # the run time of a map: two runs
                continue
            if s == "":
                assert v is None, (v, s)
                continue
            try:
                x = float(s)
            except ValueError:
                assert v == s, (v, s)
                continue
            assert (v is None and not math.isfinite(x)) or v == x, (v, s)
' "$j" "$c"
done
"$bin" map navaro --grid x=-0.1:0.1:3,y=0:0.05:2 --nev 3 -o "$tmp/fmt.h5" --format csv >"$tmp/fmt.csv"
check "map --format csv: counts and each mode's range = the file's" "$py" -c '
import csv, sys, h5py, numpy as np
rows = [r for r in csv.reader(open(sys.argv[1]))]
head, first, modes = rows[0], dict(zip(rows[0], rows[1])), rows[4:]
f = h5py.File(sys.argv[2], "r")
st, fr = f["status"][...].ravel(), f["freq_hz"][...].reshape(-1, 3)
assert int(first["poses"]) == st.size and int(first["ok"]) == (st == 0).sum(), first
assert int(first["unreachable"]) + int(first["ok"]) + int(first["singular"]) + int(first["failed"]) == st.size
assert int(first["solver_fallbacks"]) == f.attrs["solver_fallbacks"] == 0
assert rows[2] == [] and rows[3] == ["mode", "f_min_hz", "f_max_hz"] and len(modes) == 3
for k, (m, lo, hi) in enumerate(modes):
    ok = fr[st == 0, k]
    assert int(m) == k + 1 and abs(float(lo) / ok.min() - 1) < 1e-12 and abs(float(hi) / ok.max() - 1) < 1e-12
' "$tmp/fmt.csv" "$tmp/fmt.h5"
check "cases --format csv: one row per entry of the list" test \
    "$("$bin" cases --format csv | tail -n +2 | wc -l)" -eq \
    "$("$bin" cases | grep -c '^[^ ].*: ' | awk '{ print $1 - 0 }')"
check "--format json of a failed command: no output" test -z "$("$bin" modes navaro --pose 9,9,9 --format json 2>/dev/null)"
check "compare --against --format csv: one row per mode, the worst pose per axis" sh -c \
    "\"\$1\" compare \"\$2\" --against \"\$3\" --tol 20 --format csv | head -1 | grep -q '^mode,max_pct,mean_pct,worst_'" \
    _ "$bin" "$tmp/stiff.h5" "$tmp/ref.h5"
check "compare --format json: out of tolerance (exit 1), rows still printed" test "$("$bin" compare \
    "$root/cases/navaro_refined.yaml" --table "$root/cases/navaro/table4_measured.csv" \
    --kind meas --match nearest --format json | head -c 3)" = "[[{"
cli_done
