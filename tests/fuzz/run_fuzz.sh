#!/usr/bin/env bash
# tests/fuzz/run_fuzz.sh FUZZER SECONDS SEEDS WORK [FLAGS...]: fuzz for SECONDS from the seed
# corpus SEEDS (read only: new inputs go to WORK, emptied first) and print the executions done.
set -u
fuzzer=$1 seconds=$2 seeds=$3 work=$4
shift 4
rm -rf "$work" && mkdir -p "$work" || exit 1
log="$work.log"
"$fuzzer" "$@" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/" \
    "$work" "$seeds" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
echo "$(basename "$fuzzer"): ${runs:-?} executions in $seconds s, exit $rc"
[ "$rc" -eq 0 ] || { tail -n 60 "$log"; ls "$work"/crash-* "$work"/leak-* "$work"/oom-* \
    "$work"/timeout-* 2>/dev/null; }
exit "$rc"
