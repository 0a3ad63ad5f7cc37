#!/usr/bin/env bash
# tests/symbols_test.sh CC LIB ROOT [-IDIR...] [HEADER...]: libpkmflex.so (LIB) exports exactly
# what the public headers declare: each dynamic symbol it defines is a function or variable
# declared in include/pkm/ (or LAPACK's error handlers xerbla_, xerbla_array_: solvers/xerbla.c),
# and each function or extern variable declared there, inline ones aside, is defined. The
# declarations come from gcc (-aux-info: every function the headers declare, with its file), not
# from the parser that wrote the version script (cmake/PkmExports.cmake); the variables from
# their `extern` lines. HEADER...: the headers of this build (sweep_mpi.h only with PKM_MPI,
# whose <mpi.h> the -I directories find).
set -eu
cc=$1
lib=$2
root=$3
shift 3
incs=()
while [ $# -gt 0 ] && [ "${1#-I}" != "$1" ]; do
    incs+=("$1")
    shift
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in "$@"; do printf '#include <pkm/%s>\n' "$(basename "$h")"; done >"$tmp/all.c"
"$cc" -std=c11 -I"$root/include" "${incs[@]}" -fsyntax-only -aux-info "$tmp/aux.txt" "$tmp/all.c"
# /* ROOT/include/pkm/x.h:12:NC */ extern pkm_status pkm_x_y (const pkm_x *, ...);
grep -E '^/\* ([^ ]*/)?include/pkm/' "$tmp/aux.txt" | grep -v '\*/ static ' |
    sed 's|^/\*[^*]*\*/ ||; s| (.*||; s|.*[ *]||' >"$tmp/declared"
cat "$@" | sed -n 's/^extern .*[ *]\(pkm_[A-Za-z0-9_]*\) *\(\[[^;]*\]\)\{0,1\};.*/\1/p' \
    >>"$tmp/declared"
printf '%s\n' xerbla_ xerbla_array_ >>"$tmp/declared"
sort -u "$tmp/declared" -o "$tmp/declared"
nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | grep -v '^$' | sort -u \
    >"$tmp/exported"
leaked=$(comm -13 "$tmp/declared" "$tmp/exported")
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
echo "$(grep -c '' "$tmp/declared") declared, $(grep -c '' "$tmp/exported") exported"
fail=0
if [ -n "$leaked" ]; then
    echo "FAIL: libpkmflex.so exports names no public header declares: $(tr '\n' ' ' <<<"$leaked")"
    fail=1
fi
if [ -n "$missing" ]; then
    echo "FAIL: declared in include/pkm/ but not exported by libpkmflex.so: $(tr '\n' ' ' <<<"$missing")"
    fail=1
fi
[ "$(grep -c '' "$tmp/declared")" -gt 50 ] || { echo "FAIL: too few declarations"; fail=1; }
exit $fail
