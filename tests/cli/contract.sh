#!/usr/bin/env bash
# tests/cli/contract.sh PKMFLEX ROOT TABLE: the command line's contract as a table. Each row of
# TABLE (tests/cli/contract_*.txt; '#' lines are comments) is STATUS ARGS...: pkmflex ARGS exits
# with STATUS, and with status 2 prints exactly one line on stderr (expect, tests/cli/common.sh).
# The arguments are shell words, so that a row can quote and name $root, $table or $tmp.
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
rows=0
while IFS= read -r row || [ -n "$row" ]; do
    case "$row" in '#'* | '') continue ;; esac
    eval "expect $row"
    rows=$((rows + 1))
done <"$3"
check "$3 has rows" test "$rows" -gt 0
cli_done
