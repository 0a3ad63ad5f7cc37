#!/usr/bin/env bash
# tests/cli/basics.sh PKMFLEX ROOT: csv header, rigid-body cases refused, the cases listing,
# mistyped options, range and size refusals.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# csv header is exact and the mode count follows --nev
hdr=$("$bin" modes navaro --pose 0,0,0 --nev 3 --format csv | head -n 1)
rows=$("$bin" modes navaro --pose 0,0,0 --nev 3 --format csv | tail -n +2 | grep -c '')
if [ "$hdr" = "mode,freq_hz,residual,accuracy" ] && [ "$rows" -eq 3 ]; then
    pass=$((pass + 1))
else
    echo "FAIL: csv header '$hdr', $rows rows"
    fails=$((fails + 1))
fi
# The rigid-body cases of Guo et al. 2024 have no finite-element model: the modal commands refuse
# them in one line naming the command to use.
for rigid in tree5 loop3; do
    expect 2 modes $rigid
    expect 2 compare $rigid --table "$table"
    expect 2 map $rigid --grid "1''=0:1:3" -o /tmp/never.h5
    msg=$("$bin" modes $rigid 2>&1 >/dev/null)
    named=0
    case "$msg" in *"case '$rigid' is a rigid-body case: use \`pkmflex dynamics\`"*) named=1 ;; esac
    check "modes $rigid names dynamics" test "$named" -eq 1
done
listing=$("$bin" cases)
check "cases lists the analyses and trajectories" sh -c \
    "printf '%s' \"\$1\" | grep -A4 '^tree5:' | grep -q 'analyses: dynamics' &&
     printf '%s' \"\$1\" | grep -A5 '^loop3:' | grep -q 'trajectories: crank (default)' &&
     printf '%s' \"\$1\" | grep -A4 '^navaro:' | grep -q 'analyses: modes map compare dynamics'" \
    _ "$listing"
check "cases lists the module chains with their actuated joints" sh -c \
    "printf '%s' \"\$1\" | grep -A2 '^boom1:' | grep -q 'actuated joints: cyl1 \[N\]' &&
     printf '%s' \"\$1\" | grep -A2 '^crane4:' | grep -q 'joints: slew \[N m\] cyl1 \[N\] cyl2 \[N\] ext \[N\]'" \
    _ "$listing"
check "cases lists the robot files of examples/ and how to run them" sh -c \
    "printf '%s' \"\$1\" | grep -A2 '^3rrr.yaml: planar 3-RRR' | grep -q 'run: pkmflex modes $root/examples/3rrr.yaml' &&
     printf '%s' \"\$1\" | grep -A5 '^3rrr.yaml:' | grep -q 'analyses: modes map compare dynamics transient' &&
     printf '%s' \"\$1\" | grep -q '^delta.yaml:' && printf '%s' \"\$1\" | grep -q '^navaro.yaml:'" \
    _ "$listing"
msg=$("$bin" --versio 2>&1 >/dev/null) && st=0 || st=$?
check "a mistyped top-level option: status 2, 'did you mean --version'" sh -c \
    "[ $st -eq 2 ] && printf '%s' \"\$1\" | grep -q \"unknown option '--versio' (did you mean '--version'?)\"" _ "$msg"
msg=$("$bin" --hepl 2>&1 >/dev/null) && st=0 || st=$?
check "a mistyped --help: status 2, 'did you mean --help'" sh -c \
    "[ $st -eq 2 ] && printf '%s' \"\$1\" | grep -q \"(did you mean '--help'?)\"" _ "$msg"
check "no argument: nothing on stdout" test -z "$("$bin" 2>/dev/null)"
expect 2 map navaro --grid x=-0.01:0.01:2 -o "$tmp/range.h5" --quiet --set leg.A=1e300
expect 2 map pss5upu --grid x=-0.01:0.01:2 -o "$tmp/range.h5" --quiet --set slider.mass=1e300
check "range error names the bound" grep -q "leg.A = 1e+300 m^2 is outside \[1e-12, 100\] m^2" \
    <<<"$("$bin" modes navaro --set leg.A=1e300 2>&1)"
check "range error: no map file" test ! -e "$tmp/range.h5" -a ! -e "$tmp/range.h5.partial"
expect 2 map navaro --set elements_per_link=1024 --grid x=0:0.01:2 -o "$tmp/big.h5" --quiet
check "too large: no map file" test ! -e "$tmp/big.h5" -a ! -e "$tmp/big.h5.partial"
check "too large: names the option" grep -q "formulation nodal" \
    <<<"$("$bin" modes navaro --set elements_per_link=1024 2>&1)"
cli_done
