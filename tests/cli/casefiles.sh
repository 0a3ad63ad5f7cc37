#!/usr/bin/env bash
# tests/cli/casefiles.sh PKMFLEX ROOT: case files, malformed files at FILE:LINE:COLUMN, robot files.
# Part of the command-line suite (tests/cli/common.sh).
# shellcheck source=tests/cli/common.sh
. "$(dirname "$0")/common.sh"
# Case files. cases/navaro.yaml (the source of the built-in) gives the built-in's Table 3
# numbers; `cases --show` prints it.
expect 0 cases
expect 0 cases --show navaro
expect 2 cases --show nosuch
expect 2 cases navaro
check "cases --show prints cases/navaro.yaml" \
    sh -c '"$1" cases --show navaro | cmp -s - "$2"' sh "$bin" "$root/cases/navaro.yaml"
(cd "$root" && "$bin" compare ./cases/navaro.yaml --table cases/navaro/table3_cast3m.csv) \
    >"$tmp/file_t3.txt"
check "compare ./cases/navaro.yaml passes" test $? -eq 0
"$bin" compare navaro --table "$table" >"$tmp/builtin_t3.txt"
check "case file and built-in give the same Table 3 numbers" \
    cmp -s <(grep -v '^#' "$tmp/file_t3.txt") <(grep -v '^#' "$tmp/builtin_t3.txt")
# An edited copy changes the frequencies exactly as --set does, and --set applies after it.
sed 's/^  link_length: 210 mm/  link_length: 200 mm/' "$root/cases/navaro.yaml" >"$tmp/short.yaml"
differ() { ! cmp -s "$1" "$2"; }
check "edited copy differs from cases/navaro.yaml" differ "$tmp/short.yaml" "$root/cases/navaro.yaml"
p2="0.02,0.01,-0.2"
"$bin" modes "$tmp/short.yaml" --pose "$p2" --nev 6 --format csv >"$tmp/short_file.csv"
"$bin" modes navaro --pose "$p2" --nev 6 --format csv --set link_length=0.2 >"$tmp/short_set.csv"
"$bin" modes navaro --pose "$p2" --nev 6 --format csv >"$tmp/default.csv"
"$bin" modes "$tmp/short.yaml" --pose "$p2" --nev 6 --format csv --set link_length=210mm \
    >"$tmp/back.csv"
check "edited file = --set" cmp -s "$tmp/short_file.csv" "$tmp/short_set.csv"
check "edited file changes the frequencies" differ "$tmp/short_file.csv" "$tmp/default.csv"
check "--set after the file" cmp -s "$tmp/back.csv" "$tmp/default.csv"
expect 0 map "$tmp/short.yaml" --grid x=0:0.01:2 --nev 3 -o "$tmp/short.h5" --quiet
# cases/pss5upu.yaml: `cases --show` prints it, a copy gives the built-in's numbers, and an
# edited copy equals --set.
check "cases --show prints cases/pss5upu.yaml" \
    sh -c '"$1" cases --show pss5upu | cmp -s - "$2"' sh "$bin" "$root/cases/pss5upu.yaml"
cp "$root/cases/pss5upu.yaml" "$tmp/my.yaml"
"$bin" modes "$tmp/my.yaml" --nev 6 --format csv >"$tmp/my.csv"
"$bin" modes pss5upu --nev 6 --format csv >"$tmp/pss.csv"
check "pss5upu case file copy = built-in" cmp -s "$tmp/my.csv" "$tmp/pss.csv"
sed 's/^  variant: paper/  variant: spherical/' "$root/cases/pss5upu.yaml" >"$tmp/sph.yaml"
p5="0.05,0,0,0,0"
"$bin" modes "$tmp/sph.yaml" --pose "$p5" --nev 6 --format csv >"$tmp/sph_file.csv"
"$bin" modes pss5upu --pose "$p5" --nev 6 --format csv --set variant=spherical >"$tmp/sph_set.csv"
check "pss5upu edited file = --set" cmp -s "$tmp/sph_file.csv" "$tmp/sph_set.csv"
"$bin" modes pss5upu --pose "$p5" --nev 6 --format csv >"$tmp/pss5.csv"
check "pss5upu edited file changes the frequencies" differ "$tmp/sph_file.csv" "$tmp/pss5.csv"
# Malformed files: exit 2, one line, FILE:LINE:COLUMN of the offending node.
# expect_at TEXT WHERE: the file holding TEXT fails at WHERE (line:column).
expect_at() {
    printf '%s' "$1" >"$tmp/bad.yaml"
    expect 2 modes "$tmp/bad.yaml"
    local err
    err=$("$bin" modes "$tmp/bad.yaml" 2>&1 >/dev/null)
    case "$err" in
    *"$tmp/bad.yaml:$2: "*) pass=$((pass + 1)) ;;
    *)
        echo "FAIL: want $2 for:"
        printf '%s\n' "$1"
        echo "got: $err"
        fails=$((fails + 1))
        ;;
    esac
}
expect_at $'case: navaro\nparameters: {link_length: 1\n' 3:1
expect_at $'case: navaro\nparameters:\n  leg:\n    A: 2.4e-4\n    Ixx: 1e-8\n' 5:5
expect_at $'case: navaro\nparameters:\n  material: {E: high, rho: 2800}\n' 3:17
expect_at $'# wrong unit\ncase: navaro\nparameters:\n  link_length: 3 kg\n' 4:16
expect_at $'parameters:\n  link_length: 0.2\n' 1:1
expect_at $'case: navaro\nparameters:\n  mass: heavy\n' 3:9
expect 2 modes "$tmp/nonexistent.yaml"
expect 2 modes navaro --set link_length=3kg
# Robot files (docs/robot-files.md): the examples run modes and map; a pose out of reach is exit
# 2 naming the joint left open; faults of the mechanism at their FILE:LINE:COLUMN, exit 2.
expect 0 modes "$root/examples/3rrr.yaml" --pose 0.02,-0.01,0.05
expect 0 map "$root/examples/3rrr.yaml" --grid x=-0.05:0.05:3,y=-0.05:0.05:3 --nev 4 \
    -o "$tmp/3rrr.h5" --quiet
expect 0 modes "$root/examples/delta.yaml" --pose 0.03,0,-0.4
expect 0 map "$root/examples/delta.yaml" --grid x=-0.05:0.05:3,z=-0.45:-0.38:3 --nev 4 \
    -o "$tmp/delta.h5" --quiet
expect 2 modes "$root/examples/3rrr.yaml" --pose 0.4,0,0
expect 0 modes "$root/examples/navaro.yaml" --pose 0.05,0,0
# NaVARo as a robot file: Table 3 within the built-in's tolerance, and its map equals the
# built-in's to 1e-8 % (test_robot measures 8.7e-12 relative on the eigenvalues).
expect 0 compare "$root/examples/navaro.yaml" --table "$table"
expect 0 map "$root/examples/navaro.yaml" --grid x=-0.04:0.04:3,y=-0.04:0.04:3 --nev 6 \
    -o "$tmp/navaro_topo.h5" --quiet
expect 0 map navaro --grid x=-0.04:0.04:3,y=-0.04:0.04:3 --nev 6 -o "$tmp/navaro_builtin.h5" --quiet
expect 0 compare "$tmp/navaro_topo.h5" --against "$tmp/navaro_builtin.h5" --tol 1e-8
leg_head=$'robot: one-leg\nmaterials: {steel: {E: 210 GPa, G: 80 GPa, rho: 7850}}\n'
leg_head+=$'sections: {bar: {A: 1e-4, Iy: 1e-9, Iz: 1e-9, I0: 2e-9, Ip: 2e-9}}\nbodies:\n'
leg_head+=$'  - {name: link, beam: {points: [[0, 0, 0], [0.5, 0, 0]], section: bar, material: steel, zref: [0, 0, 1]}}\n'
leg_head+=$'  - {name: platform, rigid: {origin: [0.5, 0, 0], mass: 1}}\n'
leg_a=$'  - {name: A, type: R, bodies: [ground, link], point: [0, 0, 0], axis: [0, 0, 1], actuated: true}\n'
leg_c=$'  - {name: C, type: R, bodies: [link, platform], point: [0.5, 0, 0], axis: [0, 0, 1], locked: true}\n'
leg_pose=$'pose:\n  - {name: y, platform: y}\n  - {name: theta, platform: rz}\n'
expect_at "${leg_head}platform: platform"$'\njoints:\n'"${leg_a/link\]/lnk]}$leg_c$leg_pose" 9:41
expect_at "${leg_head}"$'  - {name: spare, rigid: {origin: [0, 1, 0]}}\nplatform: platform\njoints:\n'"$leg_a$leg_c$leg_pose" 7:5
expect_at "${leg_head}platform: platform"$'\njoints:\n'"$leg_a$leg_c${leg_pose/y\}/y, home: 0.6 m\}}" 10:5
# The README's robot file, as written there.
awk '/^robot: one-link/ {on = 1} on && /^```$/ {exit} on' "$root/README.md" >"$tmp/one-link.yaml"
expect 0 modes "$tmp/one-link.yaml" --pose 0.2,0.3

cli_done
