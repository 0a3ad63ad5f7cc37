#!/usr/bin/env bash
# tests/cli/fit.sh PKMFLEX ROOT: fit: convergence, its case file, standard errors, bad input, --max-
# iter.
# Part of the command-line suite (tests/cli/common.sh); ctest label slow.
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# fit: the clutches and joint masses against Table 4's calculated rows; the written case file
# reads back (compare with it) and holds the fitted values (one local fit: the multistart, seven
# times the cost, is tested in test_fit); bad input exit 2, one line; a fit
# stopped by --max-iter says so with its last state, exit 3.
fitargs=(--table "$t4" --kind calc --match nearest --param clutch.k1=2000:100:20000
    --param clutch.k2=2000:100:20000 --param "joint_mass.B=300 g:1 g:3 kg"
    --param "joint_mass.C=300 g:1 g:3 kg" --param "joint_mass.D=300 g:1 g:3 kg"
    --param "joint_mass.E=300 g:1 g:3 kg" --multistart off)
timeout 120 "$bin" fit "$refined" "${fitargs[@]}" -o "$tmp/fitted.yaml" >"$tmp/fit.txt"
check "fit converges and writes its case file" test $? -eq 0 -a -s "$tmp/fitted.yaml"
check "fit prints standard errors and correlations" grep -q '^# correlations' "$tmp/fit.txt"
k1=$(awk '$1 == "clutch.k1" { print $3; exit }' "$tmp/fit.txt") # the parameter table's row
"$bin" fit "$refined" "${fitargs[@]}" --format csv >"$tmp/fit.csv"
check "fit --format csv: the table's fitted clutch.k1, unit correlation on the diagonal, no unpaired" \
    awk -F, -v k1="$k1" '$1 == "clutch.k1" { d = $3 / k1 - 1; ok = (d < 1e-5 && d > -1e-5 && $6 == 1) }
    $1 == "row" { h = 1 } h && $7 == "unpaired" { ok = 0 } END { exit !ok }' "$tmp/fit.csv"
check "the fitted case file holds the fitted clutch.k1" test -n "$k1" -a "$k1" != 2000
check "the fitted case file holds the fitted clutch.k1" \
    grep -q "k1: $(printf '%.5s' "$k1")" "$tmp/fitted.yaml"
expect 1 compare "$tmp/fitted.yaml" --table "$t4" --match nearest --kind calc
"$bin" compare "$tmp/fitted.yaml" --table "$t4" --match nearest --kind calc >"$tmp/fitcmp.txt"
meanof() { sed -n 's/^# max error.*, mean \([0-9.]*\) %.*/\1/p' "$1"; }
check "compare with the fitted file gives the fit's mean error" \
    test "$(meanof "$tmp/fitcmp.txt")" = "$(meanof "$tmp/fit.txt")"
expect 2 fit "$refined" --table "$t4" --param clutch.k3=10
expect 2 fit "$refined" --table "$t4" --param clutch.k1 --multistart maybe
expect 2 fit "$refined" --table "$t4" --param clutch.k1=5000:100:1000
expect 2 fit "$refined" --table "$t4" --param "clutch.k1=2 kg"
printf 'pose,x_m,y_m,theta_rad,f1\n1,0,0,0,20\n' >"$tmp/one_value.csv"
expect 2 fit "$refined" --table "$tmp/one_value.csv" --param clutch.k1 --param clutch.k2
expect 2 fit "$refined" "${fitargs[@]}" --jacobian exact
expect 3 fit "$refined" "${fitargs[@]}" --max-iter 1
err=$("$bin" fit "$refined" "${fitargs[@]}" --max-iter 1 2>&1 >/dev/null)
check "a fit stopped early says so" grep -q "no convergence" <<<"$err"

cli_done
