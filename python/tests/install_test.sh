#!/usr/bin/env bash
# python/tests/install_test.sh CMAKE PYTHON BUILD ROOT: the documented install (docs/python.md):
# `cmake --install` of BUILD into a temporary prefix, a virtual environment of PYTHON with its
# system site packages, `pip install --no-build-isolation ROOT/python` found through pkg-config;
# then, from another directory, the issue's line
#   python3 -c "import pkmflex; print(pkmflex.Case('navaro').modes((0,0,0), nev=4).freq_hz)"
# whose frequencies must equal, to 1e-12, those the installed pkmflex writes with
# `modes navaro --pose 0,0,0 --nev 4 --vtk` (HDF5 float64), and the extension must load the
# installed libpkmflex.so.
set -eu
cmake=$1
python=$2
build=$3
root=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" || fail "cmake --install"
pc=$(dirname "$(find "$tmp/prefix" -name pkmflex.pc)")
"$python" -m venv --system-site-packages "$tmp/venv" || fail "venv"
cp -r "$root/python" "$tmp/src" # pip builds in the tree: not in the source tree
PKG_CONFIG_PATH="$pc" "$tmp/venv/bin/pip" install --no-build-isolation "$tmp/src" \
    >"$tmp/pip.log" 2>&1 || { tail -20 "$tmp/pip.log"; fail "pip install"; }
cd "$tmp"
out=$(env -u PYTHONPATH PATH="$tmp/venv/bin:$PATH" python3 -c \
    "import pkmflex; print(pkmflex.Case('navaro').modes((0,0,0), nev=4).freq_hz)") ||
    fail "import"
echo "python3: $out"
"$tmp/prefix/bin/pkmflex" modes navaro --pose 0,0,0 --nev 4 --vtk "$tmp/m.vtkhdf" >/dev/null
env -u PYTHONPATH "$tmp/venv/bin/python3" - "$tmp/m.vtkhdf" "$tmp/prefix" <<'PY' || fail "values"
import sys, h5py, numpy as np, pkmflex, pkmflex._core as core
ref = h5py.File(sys.argv[1], "r")["VTKHDF/FieldData/frequency_hz"][()]
f = pkmflex.Case("navaro").modes((0, 0, 0), nev=4).freq_hz
err = np.abs(f - ref).max() / np.abs(ref).max()
print("pkmflex modes:", ref, "max relative difference", err)
assert err <= 1e-12, err
maps = open("/proc/self/maps").read()
assert sys.argv[2] + "/lib/libpkmflex.so" in maps, "not the installed libpkmflex.so"
assert pkmflex.__file__.startswith(sys.prefix), pkmflex.__file__
PY
echo "python install: ok"
