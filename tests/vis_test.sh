#!/usr/bin/env bash
# tests/vis_test.sh PKMFLEX ROOT: the files pkmflex writes for looking at results, read by the
# tools users look with: VTK's own vtkHDFReader (Debian python3-vtk9, the reader ParaView uses)
# for `modes --vtk`.
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0
check() {
    local what=$1
    shift
    if "$@"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $what"
        fails=$((fails + 1))
    fi
}
# Debian's python3-vtk9 and python3-h5py install for /usr/bin/python3; a python3 earlier on PATH
# (pyenv, a venv) may lack them.
py=""
for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
    if [ -n "$cand" ] && "$cand" -c 'import vtk, h5py' 2>/dev/null; then
        py=$cand
        break
    fi
done
[ -n "$py" ] || { echo "FAIL: no python3 with vtk and h5py (python3-vtk9, python3-h5py)"; exit 1; }
cd "$tmp" || exit 1

# modes --vtk read by vtkHDFReader at a general pose, with the default mesh and 4 elements per
# link. pkmflex's own numbers: the nodal formulation's coordinate count before loop closure is
# 6 per node (the points); the cells are one line per beam element (between consecutive nodes)
# plus the rigid bodies' lines, so cells - points does not depend on the mesh; the base pivots
# (revolute joints on NaVARo's base circle, radius 0.7/sqrt 3 m) are the only nodes that do not
# move; the frequencies are the printed ones; every displacement VTK reads is the one stored.
pose=0.02,0.01,0.05
for e in 1 4; do
    timeout 120 "$bin" modes navaro --pose $pose --nev 4 --set elements_per_link=$e \
        --vtk "m$e.vtkhdf" --format csv >"f$e.csv"
    check "modes --vtk (elements_per_link=$e): exit 0" test $? -eq 0
    timeout 120 "$bin" modes navaro --pose $pose --nev 1 --set elements_per_link=$e \
        --formulation nodal >"nodal$e.txt"
done
check "modes --vtk read by VTK's vtkHDFReader" "$py" - <<'PY'
import re
import h5py
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

diff = []
for e in (1, 4):
    name = "m%d.vtkhdf" % e
    r = vtk.vtkHDFReader()
    assert r.CanReadFile(name) == 1, name
    r.SetFileName(name)
    r.Update()
    g = r.GetOutput()
    assert g.IsA("vtkUnstructuredGrid"), g.GetClassName()
    ntotal = int(re.search(r"\((\d+) before loop closure\)", open("nodal%d.txt" % e).read())[1])
    assert g.GetNumberOfPoints() * 6 == ntotal, (g.GetNumberOfPoints(), ntotal)
    diff.append(g.GetNumberOfCells() - g.GetNumberOfPoints())
    assert all(g.GetCellType(c) == vtk.VTK_LINE for c in range(g.GetNumberOfCells()))
    P = vtk_to_numpy(g.GetPoints().GetData())
    rows = [l.split(",") for l in open("f%d.csv" % e).read().splitlines()[1:]]
    f = vtk_to_numpy(g.GetFieldData().GetArray("frequency_hz"))
    assert np.allclose(f, [float(x[1]) for x in rows], rtol=1e-9, atol=0), f
    stored = h5py.File(name, "r")["VTKHDF/PointData"]
    U = []
    for k in range(1, 5):
        for s in ("", "_rotation"):
            a = vtk_to_numpy(g.GetPointData().GetArray("mode_%d%s" % (k, s)))
            assert a.shape == (len(P), 3) and (a == stored["mode_%d%s" % (k, s)][...]).all()
        U.append(vtk_to_numpy(g.GetPointData().GetArray("mode_%d" % k)))
    n = np.linalg.norm(np.stack(U), axis=2).max(axis=0)
    fixed = n < 1e-9 * n.max()
    assert len(np.unique(np.round(P[fixed], 9), axis=0)) == 3, P[fixed]
    r = np.linalg.norm(P[fixed, :2], axis=1)
    assert np.allclose(r, 0.7 / np.sqrt(3), rtol=1e-12), r
    assert (n[~fixed] > 1e-3 * n.max()).all()
assert diff[0] == diff[1], diff
PY

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
