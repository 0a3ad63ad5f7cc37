#!/usr/bin/env bash
# tests/cli_engine_test.sh PKMFLEX: pkmflex dynamics --engine NAME (docs/dynamics.md, "Engines"):
# the crane's machines under every engine of the table that takes the run print the same rows
# as under the default one (the inverse dynamics: chain, the fastest; the forward run: the
# general system, mbs, against its dense path), to 1e-9 of each column's largest value; an
# unknown engine or one that does not accept the case or the run is one error line and exit 2.
set -u
bin=$1
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# agree A.csv B.csv: the same rows, every numeric column within 1e-9 of the largest |value| of
# its group: the energies (kinetic, potential, work and their balance, a residual), a wrench's
# components (fx .. mz, of any module M.fx ..; f_axial, f_radial, m_bending), the coordinates
# (q_ref and the deviation from it), else the column alone. Empty cells (a quantity the case
# lacks) must be empty in both; the residual of the equations and the closure's conditioning,
# which the engine chain does not have (it solves its loops in closed form: empty cells), are
# left out.
agree() {
    awk -F, 'function group(name) {
              sub(/^.*[.]/, "", name)
              if (name ~ /^(kinetic|potential|work|balance)$/) return "energy"
              if (name ~ /^(q_ref|deviation)$/) return "coordinate" # the deviation: rounding
              if (name ~ /^([fm][xyz]|f_axial|f_radial|m_bending)$/) return "wrench"
              return name }
        NR == FNR { for (i = 1; i <= NF; i++) a[FNR, i] = $i; n = FNR; next }
        FNR == 1 { for (i = 1; i <= NF; i++) { g[i] = group($i); if ($i != a[1, i]) bad = 1 } }
        FNR > 1 { for (i = 1; i <= NF; i++) {
              if (g[i] == "residual" || g[i] == "conditioning") continue
              if ($i !~ /^[-+0-9.eE]+$/) { if ($i != a[FNR, i]) bad = 1; continue }
              d = $i - a[FNR, i]; if (d < 0) d = -d; if (d > dm[i]) dm[i] = d
              v = $i < 0 ? -$i : $i; if (v > vm[g[i]]) vm[g[i]] = v } }
        { m = FNR }
        END { if (m != n || m < 3) { print "rows: " m " against " n; exit 1 }
              for (i in dm) if (dm[i] > 1e-9 * vm[g[i]]) {
                  print "column " i ": " dm[i] " of " vm[g[i]]; bad = 1 }
              exit bad }' "$1" "$2"
}

for machine in boom1 crane4; do
    for mode in inverse forward; do
        for table in joint per-time; do # the joint table and the per-time table (base wrenches)
            extra=()
            [ "$mode" = forward ] && extra=(--forward --time 0:1:11)
            [ "$table" = per-time ] && extra+=(--per-time)
            "$bin" dynamics "$machine" --format csv "${extra[@]}" >"$tmp/own.csv" || echo "FAIL: $machine $mode"
            engines="chain mbs mbs-dense"
            [ "$mode" = forward ] && engines="mbs mbs-dense"
            for engine in $engines; do
                if "$bin" dynamics "$machine" --format csv "${extra[@]}" --engine "$engine" >"$tmp/$engine.csv" &&
                    agree "$tmp/own.csv" "$tmp/$engine.csv"; then
                    pass=$((pass + 1))
                else
                    echo "FAIL: pkmflex dynamics $machine ${extra[*]} --engine $engine differs from the default engine's"
                    fails=$((fails + 1))
                fi
            done
        done
    done
done

# refused() EXPECTED-TEXT ARGS...: exit 2 and one stderr line holding the text.
refused() {
    local want=$1 err got
    shift
    err=$("$bin" "$@" 2>&1 >/dev/null)
    got=$?
    if [ "$got" -eq 2 ] && [ "$(printf '%s\n' "$err" | grep -c '')" -eq 1 ] && grep -q -- "$want" <<<"$err"; then
        pass=$((pass + 1))
    else
        echo "FAIL: pkmflex $* -> exit $got (want 2, one line with '$want'), stderr: $err"
        fails=$((fails + 1))
    fi
}
refused "expected chain, mbs or mbs-dense" dynamics crane4 --engine fast
refused "expected chain, mbs or mbs-dense" dynamics tree5 --engine fast
refused "navaro: body leg 1 link 1: a module chain has rigid bodies only" dynamics navaro --engine chain
refused "tree5: joint" dynamics tree5 --engine chain
refused "the forward run integrates the general system" dynamics crane4 --forward --engine chain
refused "engine chain: it has no external loads" dynamics crane4 --engine chain --wrench 1,0,0,0,0,0

# The general system's two paths on a closed chain agree through the command line too.
"$bin" dynamics loop3 --format csv --time 0:1:11 >"$tmp/sparse.csv" &&
    "$bin" dynamics loop3 --format csv --time 0:1:11 --engine mbs-dense >"$tmp/dense.csv" &&
    agree "$tmp/sparse.csv" "$tmp/dense.csv" && pass=$((pass + 1)) ||
    { echo "FAIL: loop3 --engine mbs-dense differs from mbs"; fails=$((fails + 1)); }

echo "cli_engine: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
