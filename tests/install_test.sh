#!/usr/bin/env bash
# tests/install_test.sh CMAKE CC BUILD ROOT: `cmake --install` of the build BUILD into a temporary
# prefix; every installed header compiles alone; libpkmflex.so exports only the library's names;
# then the README's example program (ROOT/README.md, the C block that starts with
# "/* navaro_f1.c */") built against the installed copy only: with pkg-config (shared library,
# and --static with libpkmflex.a) and with find_package(pkmflex) (its CMake block, both targets).
# Each program must print NaVARo's pose-1 f1, equal to the installed pkmflex command's own value
# and to Table 3 of Germain et al. 2015 (Cast3M, cases/navaro/table3_cast3m.csv) within 1 %.
set -eu
cmake=$1
cc=$2
build=$3
root=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() {
    echo "FAIL: $*"
    exit 1
}

"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" || fail "cmake --install"
for f in include/pkm/analysis.h include/pkm/status.h bin/pkmflex; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
pc=$(find "$prefix" -name pkmflex.pc)
[ -n "$pc" ] || fail "pkmflex.pc not installed"
libdir=$(dirname "$(dirname "$pc")")
for f in libpkmflex.a libpkmflex.so cmake/pkmflex/pkmflexConfig.cmake; do
    [ -e "$libdir/$f" ] || fail "not installed: $libdir/$f"
done

# Every installed header compiles alone (it includes what it needs, no private header).
for h in "$prefix"/include/pkm/*.h; do
    printf '#include <pkm/%s>\n' "$(basename "$h")" |
        "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$prefix/include" -fsyntax-only -x c - ||
        fail "$h does not compile alone"
done
# The shared library exports the pkm_ names and LAPACK's error handlers only (the version
# script of cmake/PkmExports.cmake; tests/symbols_test.sh checks the names one by one).
other=$(nm -D --defined-only "$libdir/libpkmflex.so" | awk '$3 !~ /^(pkm_|xerbla_$|xerbla_array_$)/')
[ -z "$other" ] || fail "libpkmflex.so exports $other"
nm -D --defined-only "$libdir/libpkmflex.so" | grep -q ' xerbla_$' || fail "no xerbla_ exported"

# The README's blocks, as written there.
awk '/^\/\* navaro_f1.c \*\/$/ {on = 1} on && /^```$/ {exit} on' "$root/README.md" >"$tmp/navaro_f1.c"
awk '/^```cmake$/ {on = 1; next} on && /^```$/ {exit} on' "$root/README.md" >"$tmp/snippet.cmake"
grep -q 'int main' "$tmp/navaro_f1.c" || fail "README.md: no navaro_f1.c example"
grep -q 'find_package(pkmflex' "$tmp/snippet.cmake" || fail "README.md: no find_package block"

# The reference: the installed command's f1 (4 decimals, as the example prints it) and Table 3.
want=$("$prefix/bin/pkmflex" modes navaro --pose 0,0,0 --nev 5 --format csv |
    awk -F, 'NR == 2 {printf "%.4f", $2}')
cast3m=$(awk -F, '$1 == "1" {print $5}' "$root/cases/navaro/table3_cast3m.csv")
awk -v a="$want" -v b="$cast3m" 'BEGIN {d = a / b - 1; exit !(d < 0.01 && d > -0.01)}' ||
    fail "pkmflex modes f1 = '$want' Hz, Table 3 $cast3m Hz"
check() { # check NAME PROGRAM: it runs (without LD_LIBRARY_PATH) and prints f1 = want
    local out
    out=$(env -u LD_LIBRARY_PATH "$2") || fail "$1: exit $?"
    [ "$out" = "f1 = $want Hz" ] || fail "$1 printed '$out', want 'f1 = $want Hz'"
    echo "$1: $out"
}

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046 # pkg-config's words are meant to split
"$cc" -std=c11 "$tmp/navaro_f1.c" $(pkg-config --cflags --libs pkmflex) -Wl,-rpath,"$libdir" \
    -o "$tmp/f1_pc" || fail "cc with pkg-config"
check pkg-config "$tmp/f1_pc"
# The archive in place of -lpkmflex (which the linker takes as the shared library).
libs=$(pkg-config --static --libs pkmflex)
libs=${libs/-lpkmflex/$libdir/libpkmflex.a}
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 "$tmp/navaro_f1.c" $(pkg-config --cflags pkmflex) $libs -o "$tmp/f1_pc_static" ||
    fail "cc with pkg-config --static"
check "pkg-config --static" "$tmp/f1_pc_static"
if ldd "$tmp/f1_pc_static" | grep -q libpkmflex; then fail "static link uses libpkmflex.so"; fi

mkdir "$tmp/cm"
{
    echo 'cmake_minimum_required(VERSION 3.18)'
    echo 'project(navaro_f1 C)'
    cat "$tmp/snippet.cmake"
    echo 'add_executable(navaro_f1_static navaro_f1.c)'
    echo 'target_link_libraries(navaro_f1_static PRIVATE pkmflex::pkmflex_static)'
} >"$tmp/cm/CMakeLists.txt"
cp "$tmp/navaro_f1.c" "$tmp/cm/"
"$cmake" -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "find_package"; }
"$cmake" --build "$tmp/cm/build" >>"$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "cmake build"; }
check find_package "$tmp/cm/build/navaro_f1"
check "find_package static" "$tmp/cm/build/navaro_f1_static"
# The robot files are installed, listed by the installed command where they are, and run from there.
ex=$("$prefix/bin/pkmflex" cases | awk '$1 == "file:" && $2 ~ /3rrr.yaml$/ {print $2}')
[ -n "$ex" ] && [ -f "$ex" ] || fail "installed pkmflex cases lists no installed 3rrr.yaml ('$ex')"
case "$(realpath "$ex")" in "$(realpath "$prefix")"/share/pkmflex/examples/3rrr.yaml) ;;
*) fail "pkmflex cases lists $ex, not the installed copy" ;; esac
timeout 120 "$prefix/bin/pkmflex" modes "$ex" --nev 3 >"$tmp/ex.out" || fail "modes $ex: exit $?"
echo "installed example: $(sed -n 3p "$tmp/ex.out")"
echo "install: all passed"
