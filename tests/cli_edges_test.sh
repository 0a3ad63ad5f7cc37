#!/usr/bin/env bash
# tests/cli_edges_test.sh PKMFLEX ROOT: the edges a user meets (issue 30): a full device, Ctrl-C
# during the long commands, a run too large, errors that name the file and the cause, help
# that fits a screen, and the outputs' empty cells.
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/cli/common.sh"

# A full device: every command that prints exits 3 with one line on stderr naming the cause
# (before: exit 0, the output lost).
"$bin" map navaro --grid x=-0.05:0.05:3 --nev 2 -o "$tmp/small.h5" --quiet >/dev/null
full() {
    local err got
    err=$(timeout 120 "$bin" "$@" 2>&1 >/dev/full)
    got=$?
    if [ "$got" -eq 3 ] && [ "$(printf '%s\n' "$err" | grep -c '')" -eq 1 ] &&
        grep -q 'cannot write the output' <<<"$err"; then
        pass=$((pass + 1))
    else
        echo "FAIL: pkmflex $* >/dev/full -> exit $got (want 3, one line), stderr: $err"
        fails=$((fails + 1))
    fi
}
full --help
full --version
full modes --help
full modes navaro --pose 0,0,0 --nev 4
full modes navaro --pose 0,0,0 --nev 4 --format json
full modes navaro --pose 0,0,0 --nev 4 --describe --format csv
full compare navaro --table "$table"
full compare "$tmp/small.h5" --against "$tmp/small.h5"
full map navaro --grid x=-0.05:0.05:3 --nev 2 -o "$tmp/full.h5" --quiet
full cases
full cases --show navaro
full dynamics tree5 --time 0:1:3
full dynamics tree5 --time 0:1:3 --forward --format csv
full dynamics crane4 --time 0:10:11
full transient navaro --duration 0.01 --format csv
full fit "$refined" --table "$t4" --kind calc --match nearest --param clutch.k1=2000:100:20000 \
    --multistart off
full export "$tmp/small.h5" --vtk "$tmp/small.vtkhdf"

# Ctrl-C during transient: exit 130, whole csv rows on stdout (each with the header's columns),
# -o holds the rows printed, marked partial (root attribute complete = 0), readable by h5dump.
# The run is long (15000 steps, several seconds); SIGINT goes once rows have appeared.
interrupt() { # interrupt PID FILE: SIGINT to PID once FILE is not empty; the exit status
    for _ in $(seq 300); do [ -s "$2" ] && break; sleep 0.1; done
    sleep 0.3
    kill -INT "$1"
    wait "$1"
}
"$bin" transient navaro --dt 1e-4 --format csv -o "$tmp/tr.h5" >"$tmp/tr.csv" 2>"$tmp/tr.err" &
interrupt $! "$tmp/tr.csv"
check "transient after SIGINT: exit 130" test $? -eq 130
check "transient after SIGINT: whole rows only" awk -F, 'NR == 1 { n = NF } NF != n { exit 1 }
    END { exit NR < 3 }' "$tmp/tr.csv"
check "transient after SIGINT: the message counts the steps and names the file" \
    grep -q "interrupted: .* steps done, saved in $tmp/tr.h5" "$tmp/tr.err"
check "transient after SIGINT: the HDF5 file readable (h5dump), marked partial" \
    bash -c 'h5dump -a /complete "$1" | grep -q "(0): 0"' _ "$tmp/tr.h5"
check "transient after SIGINT: the file holds the rows printed" "$py" -c '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
rows = sum(1 for _ in open(sys.argv[2])) - 1
assert f.attrs["complete"] == 0 and f["t"].shape[0] == rows, (f["t"].shape, rows)
' "$tmp/tr.h5" "$tmp/tr.csv"
"$bin" transient navaro --duration 0.01 -o "$tmp/trfull.h5" >/dev/null
check "transient run to its end: complete = 1" "$py" -c '
import sys, h5py
assert h5py.File(sys.argv[1], "r").attrs["complete"] == 1' "$tmp/trfull.h5"

# Ctrl-C during dynamics: whole time samples (21 joint rows each for NaVARo), exit 130; with -o
# the times done, marked partial.
"$bin" dynamics navaro --time 0:1.5:400000 --format csv >"$tmp/dyn.csv" 2>"$tmp/dyn.err" &
interrupt $! "$tmp/dyn.csv"
check "dynamics after SIGINT: exit 130" test $? -eq 130
check "dynamics after SIGINT: whole time samples, whole rows" awk -F, 'NF != 12 { exit 1 }
    END { exit !((NR - 1) % 21 == 0 && NR > 1) }' "$tmp/dyn.csv"
"$bin" dynamics navaro --time 0:1.5:400000 -o "$tmp/dyn.h5" >/dev/null 2>"$tmp/dyn.err" &
dpid=$!
sleep 2 # the times checked, then some computed (about 4000 a second)
kill -INT "$dpid"
wait "$dpid"
check "dynamics -o after SIGINT: exit 130" test $? -eq 130
check "dynamics -o after SIGINT: the file marked partial" "$py" -c '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
assert f.attrs["complete"] == 0 and 0 < f["t"].shape[0] < 400000 and f["drive"].shape[1] == 21
' "$tmp/dyn.h5"

# Ctrl-C during dynamics --forward (tree5, 5 joints; about 100 us a step): exit 130, whole time
# samples of the joint table, the message counting them; with -o both tables of the steps done
# in the file, marked partial, the per-time table as long as the times (issue 30).
"$bin" dynamics tree5 --forward --time 0:5:200001 --format csv >"$tmp/fwd.csv" 2>"$tmp/fwd.err" &
interrupt $! "$tmp/fwd.csv"
check "dynamics --forward after SIGINT: exit 130" test $? -eq 130
check "dynamics --forward after SIGINT: whole time samples, whole rows" awk -F, \
    'NF != 12 { exit 1 } END { exit !((NR - 1) % 5 == 0 && NR > 1) }' "$tmp/fwd.csv"
check "dynamics --forward after SIGINT: the message counts the times" bash -c '
    n=$(sed -n "s/^pkmflex: interrupted: \([0-9]*\) of 200001 times done$/\1/p" "$1")
    test -n "$n" && test $(( ($(wc -l <"$2") - 1) / 5 )) -eq "$n"' _ "$tmp/fwd.err" "$tmp/fwd.csv"
"$bin" dynamics tree5 --forward --time 0:5:200001 -o "$tmp/fwd.h5" >/dev/null 2>"$tmp/fwd.err" &
fpid=$!
sleep 2
kill -INT "$fpid"
wait "$fpid"
check "dynamics --forward -o after SIGINT: exit 130" test $? -eq 130
check "dynamics --forward -o after SIGINT: both tables of the steps done, marked partial" "$py" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
n = f["t"].shape[0]
assert f.attrs["complete"] == 0 and 0 < n < 200001 and f["drive"].shape == (n, 5)
assert f["per_time/deviation"].shape == (n,) and np.all(np.abs(f["per_time/deviation"][...]) < 1e-9)
assert "saved in %s (marked partial" % sys.argv[1] in open(sys.argv[2]).read()
' "$tmp/fwd.h5" "$tmp/fwd.err"
# dynamics estimates its size and time from its first steps: a run of NaVARo of about 4 minutes
# is announced (times, rows x columns, GB, seconds) before it goes on; Ctrl-C then.
# interrupt_estimated ERR ARGS...: pkmflex ARGS in the background, stderr to ERR, Ctrl-C once it
# has announced its estimate (or after 30 s).
interrupt_estimated() {
    local err=$1 pid
    shift
    "$bin" "$@" >/dev/null 2>"$err" &
    pid=$!
    for _ in $(seq 300); do grep -q "estimated" "$err" && break; sleep 0.1; done
    kill -INT "$pid"
    wait "$pid"
}
interrupt_estimated "$tmp/est.err" dynamics navaro --time 0:1.5:450000 --format csv
check "dynamics warns of a long run with its size and time estimate" grep -q \
    "^pkmflex: warning: dynamics navaro: 450000 times: 9.45e+06 rows x 12 columns (about 1.23 GB of csv), estimated [0-9]* s more from the first [0-9]* steps" \
    "$tmp/est.err"
check "dynamics does not warn of a short run" test -z "$("$bin" dynamics navaro 2>&1 >/dev/null)"
# transient likewise: 100 s of NaVARo at 0.1 ms, a million steps of some 0.3 ms (22 columns of
# csv: the time, the error, three drives, the quasi-static error, energies, updated, conditioning).
interrupt_estimated "$tmp/trest.err" transient navaro --duration 100 --dt 1e-4 --format csv
check "transient warns of a long run with its size and time estimate" grep -q \
    "^pkmflex: warning: transient navaro: 1000001 steps: 1e+06 rows x 22 columns (about 0.374 GB of csv), estimated [0-9]* s more from the first [0-9]* steps" \
    "$tmp/trest.err"
check "transient does not warn of a short run" \
    test -z "$("$bin" transient navaro --duration 0.02 --dt 1e-3 2>&1 >/dev/null)"

# Ctrl-C during fit (the multistart of six parameters: many seconds): exit 130, the best
# evaluation so far printed and written to -o with a note saying so; that file reads back.
"$bin" fit "$refined" --table "$t4" --kind calc --match nearest \
    --param clutch.k1=2000:100:20000 --param clutch.k2=2000:100:20000 \
    --param "joint_mass.B=300 g:1 g:3 kg" --param "joint_mass.C=300 g:1 g:3 kg" \
    --param "joint_mass.D=300 g:1 g:3 kg" --param "joint_mass.E=300 g:1 g:3 kg" \
    -o "$tmp/fit.yaml" >"$tmp/fit.txt" 2>"$tmp/fit.err" &
fpid=$!
sleep 2
kill -INT "$fpid"
wait "$fpid"
check "fit after SIGINT: exit 130" test $? -eq 130
check "fit after SIGINT: the best so far printed" \
    bash -c 'grep -q "^# INTERRUPTED" "$1" && grep -q "^clutch.k1 " "$1" &&
             grep -q "interrupted: the fit stopped after" "$2"' _ "$tmp/fit.txt" "$tmp/fit.err"
check "fit after SIGINT: -o written, saying so, and it reads back" \
    bash -c 'grep -q "INTERRUPTED" "$1" && "$2" modes "$1" --pose 0,0,0 --nev 2 >/dev/null' \
    _ "$tmp/fit.yaml" "$bin"

# A run too large is refused before it starts: exit 2, one line naming rows x columns, the
# size and the option (before: tens of minutes with no word).
err=$(timeout 20 "$bin" dynamics navaro --time 0:1.5:10000000 2>&1 >/dev/null)
rc=$?
check "dynamics of 2.1e8 rows refused (exit 2, one line)" \
    test "$rc" -eq 2 -a "$(printf '%s\n' "$err" | grep -c '')" -eq 1
check "the refusal names rows x columns, the size and --time" \
    grep -q -- '--time .* rows x 12 columns, about .* GB.*--time' <<<"$err"
# transient -o keeps every step in memory: a billion steps (248 GB) refused before any step,
# naming the size and the options (before: a failed allocation or the machine's swap).
err=$(timeout 20 "$bin" transient navaro --duration 1e5 --dt 1e-4 -o "$tmp/huge.h5" 2>&1 >/dev/null)
rc=$?
check "transient -o of 1e9 steps refused (exit 2, one line naming the size and the options)" \
    bash -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | grep -c "")" -eq 1 ] &&
             grep -q -- "-o: 1000000001 steps need .* GB, more than half the free memory .*--duration, --dt" <<<"$2"' \
    _ "$rc" "$err"

# A missing map file: one line naming the file and the cause, no HDF5 internals.
for cmd in "export $tmp/nosuch.h5 --vtk $tmp/x.vtkhdf" "compare $tmp/nosuch.h5 --against $tmp/small.h5" \
    "plot $tmp/nosuch.h5 -o $tmp/x.png"; do
    # shellcheck disable=SC2086
    err=$("$bin" $cmd 2>&1 >/dev/null)
    rc=$?
    check "$cmd: exit 2, one line naming the file, no HDF5 internals" \
        test "$rc" -eq 2 -a "$err" = "pkmflex: error: $tmp/nosuch.h5: cannot open: No such file or directory"
done

# plot: an x-y map drawn with equal axes, the fixed coordinates in the title.
"$bin" map navaro --grid x=-0.1:0.1:5,y=-0.05:0.05:3 --pose 0,0,-0.5 --nev 2 -o "$tmp/xy.h5" \
    --quiet >/dev/null
check "plot: x-y with equal axes, theta in the title" env MPLBACKEND=Agg "$py" -c '
import sys
sys.path.insert(0, sys.argv[2])
import pkmflex_plot as p
import matplotlib.pyplot as plt
m = p.load(sys.argv[1])
fig, ax = plt.subplots()
p.plot_2d(ax, fig, m, 1)
assert ax.get_aspect() == 1.0, ax.get_aspect()
assert ax.get_title().endswith(" at theta = -0.5"), ax.get_title()
' "$tmp/xy.h5" "$root/tools"

# A dotted key in a case file (--set's spelling): FILE:LINE:COL at the key, the nested form to
# write (before: "1:1: Invalid key (libcyaml ...)").
printf 'case: navaro\nparameters:\n  material.E: 70 GPa\n' >"$tmp/dotted.yaml"
err=$("$bin" modes "$tmp/dotted.yaml" --pose 0,0,0 2>&1 >/dev/null)
rc=$?
check "a dotted key: exit 2, one line at its line and column, the nested form" \
    test "$rc" -eq 2 -a "$(printf '%s\n' "$err" | grep -c '')" -eq 1
check "a dotted key: the message" grep -q "$tmp/dotted.yaml:3:3: dotted key 'material.E'.*material: {E: VALUE}" <<<"$err"

# --set on a robot file: a key that names no value of the file is one line naming the file and
# what it lacks (a robot file takes --set by the dotted path of its values, docs/robot-files.md).
err=$("$bin" modes "$root/examples/3rrr.yaml" --pose 0,0,0 --set leg.A=1e-4 2>&1 >/dev/null)
rc=$?
check "--set on a robot file: exit 2, the file and the missing entry" \
    bash -c '[ "$1" -eq 2 ] && grep -q "3rrr.yaml: --set .leg.A.: the file has no entry .leg." <<<"$2"' \
    _ "$rc" "$err"

# Help: modes --help fits a screen (the parameter tables are cases --params'), map --help
# states the --nev default, the top-level help presents the time domain and the calibration.
check "modes --help: at most 60 lines" test "$("$bin" modes --help | wc -l)" -le 60
check "map --help: the --nev default" grep -q -- "--nev N .*map 8" <<<"$("$bin" map --help | tr '\n' ' ')"
check "cases --params navaro: keys, units, ranges" grep -q '^leg.A \[m^2\] .* to ' \
    <<<"$("$bin" cases --params navaro)"
check "the top-level help: dynamics, transient and fit under their headings" "$py" -c '
import sys
h = sys.stdin.read()
for w in ("time domain", "  dynamics CASE", "  transient CASE", "calibration", "  fit CASE", "robot file"):
    assert w in h, w
' <<<"$("$bin" --help)"

# modes --describe: where the table prints '-', csv has an empty cell and JSON null, not 1e+30.
"$bin" modes navaro --pose 0,0,0 --nev 3 --describe --format csv >"$tmp/desc.csv"
"$bin" modes navaro --pose 0,0,0 --nev 3 --describe --format json >"$tmp/desc.json"
check "modes --describe csv/json: empty cells and nulls, no 1e+30" "$py" -c '
import csv, json, sys
lines = open(sys.argv[1]).read().split("\n")
i = [k for k, l in enumerate(lines) if l.startswith("mode,freq_hz,ux")][0]
rows = list(csv.DictReader(lines[i:i + 4]))
cells = [r[k] for r in rows for k in ("m_x", "m_y", "m_z", "J_x", "J_y", "J_z")]
assert "" in cells and all(c == "" or float(c) < 1e20 for c in cells), cells
d = json.load(open(sys.argv[2]))[1]
assert d[0]["m_z"] is None and isinstance(d[0]["m_x"], float), d[0]
' "$tmp/desc.csv" "$tmp/desc.json"

# The files the README's commands leave in the working directory are ignored by git.
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    for f in map.h5 map.h5.partial map.h5.lock map.vtkhdf modes.vtkhdf f2.png my_navaro.yaml \
        fitted.yaml; do
        check "git ignores $f" git -C "$root" check-ignore -q "$f"
    done
fi

cli_done
