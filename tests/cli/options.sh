#!/usr/bin/env bash
# tests/cli/options.sh PKMFLEX ROOT: each command takes its own options; --help lists them.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# Each command takes its own options only (issue 9): an option of another command is refused
# in one line naming the option and the command, before any computation; its --help lists its
# own options, each of which its parser takes.
expect 2 modes navaro --grid x=0:1:2
expect 2 modes navaro -o "$tmp/never.h5"
expect 2 modes navaro --resume
expect 2 modes navaro --table "$table"
expect 2 compare navaro --table "$table" --grid x=0:1:2
expect 2 compare navaro --table "$table" --max-accuracy 1e-3
expect 2 map navaro --grid x=0:0.01:2 -o "$tmp/own.h5" --format xml
expect 2 map navaro --grid x=0:0.01:2 -o "$tmp/own.h5" --table "$table"
expect 2 cases --nev 3
expect 2 cases --show navaro --set leg.A=1
check "refusal names the option and the command" grep -q "modes does not take option '--grid'" \
    <<<"$("$bin" modes navaro --grid x=0:1:2 2>&1)"
check "refusal names --resume" grep -q "modes does not take option '--resume'" \
    <<<"$("$bin" modes navaro --resume 2>&1)"
check "refusal names -o" grep -q "modes does not take option '-o'" \
    <<<"$("$bin" modes navaro -o "$tmp/never.h5" 2>&1)"
check "cases refuses --nev" grep -q "cases does not take option '--nev'" \
    <<<"$("$bin" cases --nev 3 2>&1)"
check "no file from a refused option" test ! -e "$tmp/never.h5" -a ! -e "$tmp/own.h5"
# help_options CMD: the options a command's --help lists (its table, one per line).
help_options() {
    "$bin" "$1" --help | sed -n 's/^  \(-[a-z-]*, \)\{0,1\}\(--[a-z-]*\).*/\2/p' | sort -u
}
for cmd in modes compare map cases dynamics transient; do
    opts=$(help_options "$cmd")
    check "$cmd --help lists options" test -n "$opts"
    for o in $opts; do
        # taken: the run fails on the missing value or the unknown case, not on the option
        err=$(timeout 60 "$bin" "$cmd" nosuchcase "$o" 2>&1 >/dev/null)
        check "$cmd takes $o, which its --help lists" test -z "$(grep 'does not take' <<<"$err")"
    done
done
check "modes --help lists no map or compare option" \
    test -z "$(help_options modes | grep -x -e --grid -e --output -e --resume -e --table -e --against)"
check "map --help lists no modes or compare option" \
    test -z "$(help_options map | grep -x -e --describe -e --max-accuracy -e --table -e --tol)"
check "compare --help lists no map or modes option" \
    test -z "$(help_options compare | grep -x -e --grid -e --pose -e --max-accuracy -e --resume)"
check "cases --help lists --show, --params and --format only" \
    test "$(help_options cases | tr "\n" " ")" = "--format --params --show "
check "dynamics --help lists no modal option" \
    test -z "$(help_options dynamics | grep -x -e --nev -e --pose -e --formulation -e --solver)"
check "--formulation help lists the formulations" grep -q "tree (.*nodal (" \
    <<<"$("$bin" modes --help | tr '\n' ' ')"
check "--solver help lists the eigensolvers" grep -q "arpack (.*dense (" \
    <<<"$("$bin" map --help | tr '\n' ' ')"
check "--help lists the built-in cases" grep -q "(navaro, pss5upu, tree5, loop3, masticatory, boom1, crane4)" <<<"$("$bin" --help)"
cli_done
