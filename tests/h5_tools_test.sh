#!/bin/sh
# tests/h5_tools_test.sh FILE: the map file written by test_io_h5map is readable by ordinary
# tools: h5dump (hdf5-tools) and Python's h5py, with the shapes, units and attributes of
# docs/hdf5-layout.md.
set -eu
f=$1
command -v h5dump >/dev/null || { echo "FAIL: h5dump not found (Debian package hdf5-tools)"; exit 1; }
h5dump "$f" >/dev/null || { echo "FAIL: h5dump cannot read $f"; exit 1; }
hdr=$(h5dump -H "$f")
for want in 'DATASET "freq_hz"' 'DATASET "residual"' 'DATASET "status"' 'DATASET "tracked_mode"' \
    'DATASET "tracking_mac"' 'DATASET "tracking_parent"' 'DATASET "modes"' \
    'GROUP "grid"' 'DATASET "x"' 'DATASET "theta"' 'ATTRIBUTE "pkmflex_version"' \
    'ATTRIBUTE "tracking"' 'ATTRIBUTE "mac_threshold"' 'ATTRIBUTE "cluster_tol"' \
    'DATASET "accuracy"' 'GROUP "parameters"' 'ATTRIBUTE "pkmflex_commit"' \
    'ATTRIBUTE "case_file_sha256"' 'ATTRIBUTE "material.E"' 'ATTRIBUTE "parameter_keys"'; do
    printf '%s\n' "$hdr" | grep -qF "$want" || { echo "FAIL: h5dump -H: no $want"; exit 1; }
done
# String attributes are fixed-length (docs/hdf5-layout.md): no variable-length string, which
# lives in the global heap that the reader does not touch.
! printf '%s\n' "$hdr" | grep -qF 'H5T_VARIABLE' ||
    { echo "FAIL: h5dump -H: a variable-length string"; exit 1; }
h5dump -a /tracking "$f" | grep -qF 'STRSIZE 4;' ||
    { echo "FAIL: h5dump: /tracking is not a fixed-length string of 4 bytes (mac)"; exit 1; }
h5dump -H -d /freq_hz "$f" | grep -qF 'SIMPLE { ( 3, 4, 5 ) / ( 3, 4, 5 ) }' ||
    { echo "FAIL: h5dump: /freq_hz is not 3 x 4 x 5"; h5dump -H -d /freq_hz "$f"; exit 1; }
h5dump -H -p -d /freq_hz "$f" | grep -qF 'CHECKSUM FLETCHER32' ||
    { echo "FAIL: h5dump: /freq_hz has no Fletcher32 checksum"; exit 1; }
h5dump -H -d /status "$f" | grep -qF 'H5T_STD_I8LE' ||
    { echo "FAIL: h5dump: /status is not int8"; exit 1; }
# The first python3 with h5py: a python3 earlier on PATH (pyenv, a venv) may lack Debian's
# python3-h5py, which installs for /usr/bin/python3.
py=
for c in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$c" -c 'import h5py' 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "FAIL: no python3 with h5py (Debian package python3-h5py)"; exit 1; }
"$py" - "$f" <<'PY'
import math
import sys

import h5py


def s(obj, name):
    """String attribute name of obj: fixed-length, which h5py reads as bytes."""
    v = obj.attrs[name]
    assert isinstance(v, bytes), (name, type(v))
    return v.decode()


with h5py.File(sys.argv[1], "r") as f:
    axes = s(f, "axes").split(",")
    assert axes == ["x", "theta"], axes
    shape = tuple(f["grid"][a].shape[0] for a in axes)
    nev = int(f.attrs["nev"])
    assert shape == (3, 4) and nev == 5, (shape, nev)
    for name in ("freq_hz", "residual", "tracked_mode", "tracking_mac"):
        assert f[name].shape == shape + (nev,), (name, f[name].shape)
    assert f["status"].shape == shape and f["tracking_parent"].shape == shape
    assert f["status"].dtype == "int8" and f["tracked_mode"].dtype == "int32"
    assert f["tracking_parent"].dtype == "int64" and f["tracking_mac"].dtype == "float64"
    ncoord = int(f.attrs["ncoord"])
    assert f["modes"].shape == shape + (nev, ncoord) and f["modes"].chunks == (1, 1, nev, ncoord)
    assert s(f, "tracking") == "mac" and 0 < f.attrs["mac_threshold"] < 1
    assert s(f, "case_parameters") == "E=8e10;leg.A=2e-4"
    assert s(f["freq_hz"], "units") == "Hz"
    assert s(f["grid/x"], "units") == "m" and int(f["grid/x"].attrs["pose_index"]) == 0
    assert s(f, "case") == "synthetic" and s(f, "formulation") == "nodal"
    assert list(f.attrs["base_pose"]) == [0.01, -0.02, 0.3]
    st = f["status"][()]
    fr = f["freq_hz"][()]
    assert math.isnan(fr[0, 1, 0]) and st[0, 1] == 1
    assert fr[0, 0, 0] == 10.0 and st[0, 0] == 0
    modes = f["modes"][()]
    assert math.isnan(modes[0, 1, 0, 0]) and not math.isnan(modes[0, 0, 0, 0])
    assert f["accuracy"].shape == shape + (nev,) and math.isnan(f["accuracy"][0, 1, 0])
    assert f["parameters"].attrs["material.E"] == 7.4e10
    assert s(f["parameters"], "mass") == "rotary"
    keys = s(f, "parameter_keys").split(",")
    assert keys == ["material.E", "elements_per_link", "mass"], keys
    assert sorted(keys) == sorted(f["parameters"].attrs.keys())
    assert s(f, "case_file_sha256") == "0" * 63 + "7" and s(f, "pkmflex_commit") == "v1-2-gabc"
    for name in ("freq_hz", "residual", "accuracy", "status", "tracked_mode", "tracking_mac",
                 "tracking_parent", "modes", "grid/x", "grid/theta"):
        assert f[name].fletcher32, name
print("h5dump and h5py read the map")
PY
