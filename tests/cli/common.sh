# shellcheck shell=bash
# tests/cli/common.sh: sourced by the command-line tests of tests/cli/ (each SECTION.sh PKMFLEX
# ROOT is one ctest entry cli_SECTION, contract.sh runs the tables contract_*.txt): the counters,
# expect and check, the helpers several sections share, a temporary directory and python3 with
# h5py. A section ends with cli_done, which prints the counts and fails if one check failed.
set -u
bin=$1
root=$2
fails=0
pass=0
# expect STATUS ARGS...: the exit status, and for status 2 exactly one line on stderr; a run
# longer than 5 minutes counts as a hang (status 124).
expect() {
    local want=$1
    shift
    local err
    err=$(timeout 300 "$bin" "$@" 2>&1 >/dev/null)
    local got=$?
    local lines
    lines=$(printf '%s' "$err" | grep -c '')
    if [ "$got" -ne "$want" ] || { [ "$want" -eq 2 ] && [ "$lines" -ne 1 ]; }; then
        echo "FAIL: pkmflex $* -> exit $got (want $want), stderr: $err"
        fails=$((fails + 1))
    else
        pass=$((pass + 1))
    fi
}
# The tables and the refined model the sections name.
# shellcheck disable=SC2034
table="$root/cases/navaro/table3_cast3m.csv"
# shellcheck disable=SC2034
t4="$root/cases/navaro/table4_measured.csv"
# shellcheck disable=SC2034
refined="$root/cases/navaro_refined.yaml"
# check NAME COMMAND...: a shell condition counted as one test.
check() {
    local name=$1
    shift
    if "$@"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $name"
        fails=$((fails + 1))
    fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=""
for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
    if [ -n "$cand" ] && "$cand" -c 'import h5py' 2>/dev/null; then
        py=$cand
        break
    fi
done
[ -n "$py" ] || { echo "FAIL: no python3 with h5py (Debian python3-h5py)"; fails=$((fails + 1)); }
# kill_at_checkpoint PID PARTIAL: SIGKILL the sweep PID as soon as its first checkpoint PARTIAL
# exists (written after a computed pose, renamed into place whole), not after a guessed time; a
# sweep that ends first, or writes none within 60 s, fails the checks that follow. Stopping at a
# chosen pose is tested in the library (tests/test_studies_sweep.c, pkm_sweep_opts.stop).
kill_at_checkpoint() {
    for _ in $(seq 6000); do
        [ -e "$2" ] && break
        kill -0 "$1" 2>/dev/null || break
        sleep 0.01
    done
    kill -9 "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}
# near A B R: |A - B| <= R |B|; field ROW K: the K-th comma-separated field of ROW.
near() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= r * m) }'; }
field() { cut -d, -f"$2" <<<"$1"; }
# colmax K: the largest |value| of column K of a csv on stdin; below A B: A < B.
colmax() { tail -n +2 | cut -d, -f"$1" | awk '{ v = $1 < 0 ? -$1 : $1; if (v > m) m = v } END { print m + 0 }'; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
cli_done() {
    echo "$pass passed, $fails failed"
    [ "$fails" -eq 0 ]
    exit
}
