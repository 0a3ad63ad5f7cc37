#!/usr/bin/env bash
# tests/mpi_test.sh MPIEXEC PKMFLEX NRANKS: `mpirun -n NRANKS pkmflex map` (a PKM_MPI build)
# against the same map computed in one process: every dataset of the file equal bit for bit
# (frequencies, status, tracking), with and without --modes; the ranks' pose counts add up to
# the grid; a rank killed mid-way leaves a checkpoint that NRANKS - 1 ranks and one process
# both complete into the same file; bad input refused once, exit 2, on every rank.
set -u
mpiexec=$1
bin=$2
n=$3
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=""
for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
    if [ -n "$cand" ] && "$cand" -c 'import h5py' 2>/dev/null; then
        py=$cand
        break
    fi
done
[ -n "$py" ] || { echo "FAIL: no python3 with h5py (Debian python3-h5py)"; exit 1; }
# Open MPI refuses root unless told (CI runs as root); more ranks than cores is allowed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { timeout 300 "$mpiexec" --oversubscribe -n "$@"; }
check() {
    local what=$1
    shift
    if "$@"; then pass=$((pass + 1)); else
        echo "FAIL: $what"
        fails=$((fails + 1))
    fi
}
# same A B: every dataset of map file A equals B's byte for byte (NaN where not computed too).
same() {
    "$py" - "$1" "$2" <<'EOF'
import sys, h5py
a, b = (h5py.File(f, "r") for f in sys.argv[1:3])
names = []
a.visititems(lambda k, o: names.append(k) if isinstance(o, h5py.Dataset) else None)
bad = [k for k in names if k not in b or a[k][()].tobytes() != b[k][()].tobytes()]
for k in ("freq_hz", "status", "tracked_mode"):
    if k not in names:
        bad.append(k + " missing")
if bad:
    print("differ:", bad)
sys.exit(1 if bad else 0)
EOF
}
grid="x=-0.22:0.22:26,y=-0.22:0.22:24"
args=(navaro --grid "$grid" --pose 0,0,-1.0471975511965976 --nev 8)
"$bin" map "${args[@]}" -o "$tmp/one.h5" --quiet >/dev/null || { echo "FAIL: one process"; exit 1; }
"$bin" map "${args[@]}" --modes -o "$tmp/one_modes.h5" --quiet >/dev/null ||
    { echo "FAIL: one process --modes"; exit 1; }

out=$(run "$n" "$bin" map "${args[@]}" -o "$tmp/ranks.h5" --quiet)
check "$n ranks: exit 0" test $? -eq 0
check "$n ranks = one process, every dataset bit for bit" same "$tmp/one.h5" "$tmp/ranks.h5"
lines=$(printf '%s\n' "$out" | grep -c '^# rank ')
check "$n ranks: one line per rank ($lines)" test "$lines" -eq "$n"
sum=$(printf '%s\n' "$out" | awk '/^# rank / { s += $4 } END { print s }')
check "$n ranks: the ranks' poses add up to the grid ($sum of 624)" test "$sum" -eq 624
check "$n ranks: the summary printed once" test "$(printf '%s\n' "$out" | grep -c '^# navaro map')" -eq 1
run "$n" "$bin" map "${args[@]}" --modes -o "$tmp/ranks_modes.h5" --quiet >/dev/null
check "$n ranks --modes = one process --modes (double vectors)" \
    same "$tmp/one_modes.h5" "$tmp/ranks_modes.h5"

# Killed: rank 1 dies (SIGKILL) once a checkpoint exists; mpirun ends the job. The checkpoint
# continues on n - 1 ranks (one process if n = 2) and, copied, in one process.
big="x=-0.22:0.22:60,y=-0.22:0.22:60"
bargs=(navaro --grid "$big" --pose 0,0,-1.0471975511965976 --nev 8)
"$mpiexec" --oversubscribe -n "$n" "$bin" map "${bargs[@]}" --checkpoint 0.05 \
    -o "$tmp/k.h5" --quiet >/dev/null 2>"$tmp/k.err" &
mp=$!
for _ in $(seq 1 3000); do
    [ -e "$tmp/k.h5.partial" ] && break
    sleep 0.01
done
killed=0
for pid in $(pgrep -P "$mp"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then
        kill -KILL "$pid" && killed=1
    fi
done
wait "$mp"
st=$?
check "killed: rank 1 found and killed (checkpoint seen)" test "$killed" -eq 1
check "killed: mpirun fails ($st)" test "$st" -ne 0
check "killed: no final file" test ! -e "$tmp/k.h5"
pending=$("$py" -c 'import sys, h5py; print(int((h5py.File(sys.argv[1])["status"][()] == -1).sum()))' \
    "$tmp/k.h5.partial" 2>/dev/null || echo 0)
check "killed: the checkpoint holds a sweep in progress ($pending of 3600 pending)" \
    test "$pending" -gt 0 -a "$pending" -lt 3600
cp "$tmp/k.h5.partial" "$tmp/k1.h5.partial"
"$bin" map "${bargs[@]}" -o "$tmp/big.h5" --quiet >/dev/null
m=$((n - 1))
run "$m" "$bin" map "${bargs[@]}" --resume -o "$tmp/k.h5" --quiet >/dev/null
check "killed: resumed on $m ranks, exit 0" test $? -eq 0
check "killed: resumed on $m ranks = one process" same "$tmp/big.h5" "$tmp/k.h5"
"$bin" map "${bargs[@]}" --resume -o "$tmp/k1.h5" --quiet >/dev/null
check "killed: resumed in one process = one process" same "$tmp/big.h5" "$tmp/k1.h5"

# Bad input: every rank stops, rank 0 says why, once.
err=$(run "$n" "$bin" map "${args[@]}" --threads 2 -o "$tmp/t.h5" 2>&1 >/dev/null)
check "--threads under mpirun: exit 2" test $? -eq 2
check "--threads under mpirun: said once" test "$(printf '%s\n' "$err" | grep -c 'pkmflex: error')" -eq 1
touch "$tmp/p.h5.partial"
err=$(run "$n" "$bin" map "${args[@]}" -o "$tmp/p.h5" 2>&1 >/dev/null)
check "a checkpoint without --resume: exit 2 on every rank" test $? -eq 2
check "a checkpoint without --resume: said once" \
    test "$(printf '%s\n' "$err" | grep -c 'pkmflex: error')" -eq 1

echo "mpi_test ($n ranks): $pass passed, $fails failed"
[ "$fails" -eq 0 ]
