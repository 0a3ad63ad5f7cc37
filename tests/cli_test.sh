#!/usr/bin/env bash
# tests/cli_test.sh PKMFLEX ROOT: the command line's exit codes and one-line errors.
set -u
bin=$1
root=$2
fails=0
pass=0
# expect STATUS ARGS...: the exit status, and for status 2 exactly one line on stderr.
expect() {
    local want=$1
    shift
    local err
    err=$("$bin" "$@" 2>&1 >/dev/null)
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
table="$root/cases/navaro/table3_cast3m.csv"
expect 0 --help
expect 0 modes --help
expect 0 compare --help
expect 0 modes navaro --pose 0,0,0 --nev 5
expect 0 compare navaro --table "$table"
expect 1 compare navaro --table "$table" --tol 0.001
expect 2 modes navaro --pose 0.5,0,0
expect 2 modes navaro --pose 0,0
expect 2 modes navaro --pose 0,0,0,0
expect 2 modes navaro --pose x,0,0
expect 2 modes navaro --pose 0,0,nan
expect 2 modes nosuch --pose 0,0,0
expect 2 modes navaro --set leg.A=0
expect 2 modes navaro --set platform.Iz=-1e-8
expect 2 modes navaro --set leg.Iy=abc
expect 2 modes navaro --set nosuch=1
expect 2 modes navaro --nev 0
expect 2 modes navaro --format xml
expect 2 modes navaro --bogus
expect 2 compare navaro
expect 2 compare navaro --table /nonexistent/table.csv
expect 2 nosuchcommand
# csv header is exact and the mode count follows --nev
hdr=$("$bin" modes navaro --pose 0,0,0 --nev 3 --format csv | head -n 1)
rows=$("$bin" modes navaro --pose 0,0,0 --nev 3 --format csv | tail -n +2 | grep -c '')
if [ "$hdr" = "mode,freq_hz,residual" ] && [ "$rows" -eq 3 ]; then
    pass=$((pass + 1))
else
    echo "FAIL: csv header '$hdr', $rows rows"
    fails=$((fails + 1))
fi
echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
