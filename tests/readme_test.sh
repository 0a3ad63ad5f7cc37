#!/usr/bin/env bash
# tests/readme_test.sh PKMFLEX ROOT: the command block of ROOT/README.md's "Command line" section
# run as written, top to bottom, in a fresh directory holding only what the README assumes of a
# source tree after `make`: build/pkmflex, cases/ and examples/. Every command must exit 0 (continuation
# lines joined; comment lines skipped); a failure names the line.
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/build"
ln -s "$bin" "$tmp/build/pkmflex"
ln -s "$root/cases" "$tmp/cases"
ln -s "$root/examples" "$tmp/examples"
block=$(awk '/^## Command line/ { s = 1 } s && /^```sh/ { b = 1; next } b && /^```/ { exit } b' \
    "$root/README.md")
[ -n "$block" ] || { echo "FAIL: no sh block under '## Command line' in README.md"; exit 1; }
cd "$tmp" || exit 1
fails=0
n=0
while IFS= read -r line; do
    case "$line" in '' | '#'*) continue ;; esac
    n=$((n + 1))
    timeout 300 bash -c "$line" >out.txt 2>err.txt
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: README line exits $rc: $line"
        tail -3 err.txt
        fails=$((fails + 1))
    fi
done < <(printf '%s\n' "$block" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
[ "$n" -ge 20 ] || { echo "FAIL: only $n commands found in the README block"; exit 1; }
echo "$n README commands, $fails failed"
[ "$fails" -eq 0 ]
