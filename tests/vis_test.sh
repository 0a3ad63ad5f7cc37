#!/usr/bin/env bash
# tests/vis_test.sh PKMFLEX ROOT: the files pkmflex writes for looking at results, read by the
# tools users look with: VTK's own vtkHDFReader (Debian python3-vtk9, the reader ParaView uses)
# for `modes --vtk`, `map --vtk` and `export --vtk`; the PNG pictures of `plot`.
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
export PYTHONPATH="$root/tests${PYTHONPATH:+:$PYTHONPATH}"

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
from vtk_read import read

diff = []
for e in (1, 4):
    name = "m%d.vtkhdf" % e
    g = read(name)
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

# modes --vtk of the 5-PSS/UPU, whose links are quintic elements: each is drawn as 8 lines
# through 7 interior points after the nodes, evenly spaced on the element. In the paper variant
# the curvatures are held at zero at both ends of every element, so the field inside follows
# from the nodal translations and rotations alone: Li et al. 2020, eq. 2's quintic Hermite
# shapes, evaluated here without the element's axes (axial part linear, lateral part from the
# lateral translations and the slopes theta x e). In the spherical variant the curvatures are
# free and the field inside must differ from that.
qpose=0.01,-0.02,0.005,0.05,-0.03
for v in paper spherical; do
    timeout 120 "$bin" modes pss5upu --pose $qpose --nev 4 --set variant=$v --vtk "q$v.vtkhdf" \
        >/dev/null
    check "modes pss5upu --vtk ($v): exit 0" test $? -eq 0
    timeout 120 "$bin" modes pss5upu --pose $qpose --nev 1 --set variant=$v --formulation nodal \
        >"q$v.txt"
done
check "quintic elements drawn by their shape functions" "$py" - <<'PY'
import re
import numpy as np
from vtk.util.numpy_support import vtk_to_numpy
from vtk_read import read

def shapes(e):
    return (1 - 10 * e**3 + 15 * e**4 - 6 * e**5, e - 6 * e**3 + 8 * e**4 - 3 * e**5,
            10 * e**3 - 15 * e**4 + 6 * e**5, -4 * e**3 + 7 * e**4 - 3 * e**5)

dev = {}
for v in ("paper", "spherical"):
    g = read("q%s.vtkhdf" % v)
    nnode = int(re.search(r"\((\d+) before loop closure\)", open("q%s.txt" % v).read())[1]) // 6
    P = vtk_to_numpy(g.GetPoints().GetData())
    lines = [[g.GetCell(c).GetPointId(i) for i in range(2)] for c in range(g.GetNumberOfCells())]
    chains, c = [], 0
    while c < len(lines):
        a, b = lines[c]
        if b >= nnode:
            chain = [a]
            while lines[c][1] >= nnode:
                chain.append(lines[c][1])
                c += 1
            chain.append(lines[c][1])
            chains.append(chain)
        c += 1
    assert chains and all(len(ch) == 9 for ch in chains), [len(ch) for ch in chains]
    assert len(P) == nnode + 7 * len(chains), (len(P), nnode, len(chains))
    worst = 0.0
    for k in range(1, 5):
        U = vtk_to_numpy(g.GetPointData().GetArray("mode_%d" % k))
        R = vtk_to_numpy(g.GetPointData().GetArray("mode_%d_rotation" % k))
        scale = np.abs(U).max()
        for ch in chains:
            n1, n2 = ch[0], ch[-1]
            d = P[n2] - P[n1]
            l = np.linalg.norm(d)
            e = d / l
            for s, q in enumerate(ch[1:-1], 1):
                x = s / 8
                assert np.linalg.norm(P[q] - (P[n1] + x * d)) < 1e-12 * l, (v, q)
                h0, h1, h3, h4 = shapes(x)
                perp = lambda w: w - np.dot(w, e) * e
                want = ((1 - x) * np.dot(U[n1], e) + x * np.dot(U[n2], e)) * e + h0 * perp(U[n1]) \
                    + h1 * l * np.cross(R[n1], e) + h3 * perp(U[n2]) + h4 * l * np.cross(R[n2], e)
                worst = max(worst, np.abs(U[q] - want).max() / scale)
    dev[v] = worst
assert dev["paper"] < 1e-9, dev
assert dev["spherical"] > 1e-4, dev
print("quintic interior points vs zero-curvature Hermite: %s" % dev)
PY

# map --vtk and export --vtk, read by vtkHDFReader: a 2-D map (6 x 4 poses, 10 unreachable) and
# a 1-D one (theta, its last 3 poses unreachable). The points are the grid's poses (x, y, z = the
# swept axes' values), the cells join neighbours (pixels, lines); every pose's f_k and status,
# found by its coordinates, are the map file's, and so are its tracked modes' frequencies
# tracked_J (the rank whose /tracked_mode id is J) and its closure_conditioning, with
# near_singular below 1e-3; at one pose f_k is an independent `pkmflex modes` run's; a cell's
# status is 0 exactly when its corners' are; export writes the same.
timeout 120 "$bin" map navaro --grid x=-0.12:0.08:6,y=-0.06:0.06:4 --nev 4 -o m2.h5 --quiet \
    --vtk m2.vtkhdf >/dev/null
check "map --vtk (2-D): exit 0" test $? -eq 0
timeout 120 "$bin" map navaro --grid theta=-0.5:0.5:9 --pose 0.03,0.01,0 --nev 3 -o m1.h5 \
    --quiet --vtk m1.vtkhdf >/dev/null
check "map --vtk (1-D): exit 0" test $? -eq 0
for d in 1 2; do
    timeout 60 "$bin" export m$d.h5 --vtk e$d.vtkhdf >/dev/null
    check "export m$d.h5 --vtk: exit 0" test $? -eq 0
done
timeout 60 "$bin" modes navaro --pose 0.04,0.02,0 --nev 4 --format csv >pose.csv
check "map --vtk and export --vtk read by VTK's vtkHDFReader" "$py" - <<'PY'
import h5py
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy
from vtk_read import arrays, read

for d, axes, celltype, nev in ((2, ("x", "y"), vtk.VTK_PIXEL, 4), (1, ("theta",), vtk.VTK_LINE, 3)):
    h = h5py.File("m%d.h5" % d, "r")
    st, fr = h["status"][...], h["freq_hz"][...]
    vals = [h["grid"][a][...] for a in axes]
    g = read("m%d.vtkhdf" % d)
    assert g.GetNumberOfPoints() == st.size, g.GetNumberOfPoints()
    assert g.GetNumberOfCells() == np.prod([len(v) - 1 for v in vals]), g.GetNumberOfCells()
    assert all(g.GetCellType(c) == celltype for c in range(g.GetNumberOfCells()))
    P = vtk_to_numpy(g.GetPoints().GetData())
    assert (P[:, d:] == 0).all()
    pd, cd = arrays(g.GetPointData()), arrays(g.GetCellData())
    tracked = h.attrs["tracking"].decode() == "mac"
    want = ["status", "closure_conditioning", "near_singular"] + ["f_%d" % k for k in range(1, nev + 1)]
    want += ["tracked_%d" % j for j in range(nev)] if tracked else []
    assert sorted(pd) == sorted(want), sorted(pd)
    cond, ids = h["closure_conditioning"][...], h["tracked_mode"][...]
    idx = []
    for p in range(len(P)):
        i = tuple(int(np.argmin(abs(v - P[p, a]))) for a, v in enumerate(vals))
        assert all(abs(vals[a][i[a]] - P[p, a]) < 1e-12 for a in range(d)), (p, P[p])
        idx.append(i)
        assert pd["status"][p] == st[i]
        for k in range(nev):
            a, b = pd["f_%d" % (k + 1)][p], fr[i + (k,)]
            assert (np.isnan(a) and np.isnan(b)) or a == b, (p, k, a, b)
        c = pd["closure_conditioning"][p]
        assert (np.isnan(c) and np.isnan(cond[i])) or c == cond[i], (p, c, cond[i])
        assert pd["near_singular"][p] == (-1 if np.isnan(c) else int(c < 1e-3)), p
        assert st[i] != 0 or c > 0, (p, c)
        for j in range(nev if tracked else 0):
            a = pd["tracked_%d" % j][p]
            b = fr[i + (int(np.flatnonzero(ids[i] == j)[0]),)] if st[i] == 0 else np.nan
            assert (np.isnan(a) and np.isnan(b)) or a == b, (p, j, a, b)
    assert len(set(idx)) == len(P)
    for c in range(g.GetNumberOfCells()):
        ids = [g.GetCell(c).GetPointId(q) for q in range(2 ** d)]
        corner = [pd["status"][q] for q in ids]
        assert (cd["status"][c] == 0) == all(s == 0 for s in corner), (c, corner)
        assert cd["status"][c] == 0 or cd["status"][c] in corner
        span = np.ptp(P[ids, :d], axis=0)
        assert np.allclose(span, [v[1] - v[0] for v in vals], rtol=1e-12), span
    assert (st == 0).any() and (st == 1).any()
    e = read("e%d.vtkhdf" % d)
    for name, a in arrays(e.GetPointData()).items():
        assert np.array_equal(a, pd[name], equal_nan=True), name
    assert np.array_equal(vtk_to_numpy(e.GetPoints().GetData()), P)
    if d == 2:
        p = int(np.argmin(np.linalg.norm(P[:, :2] - [0.04, 0.02], axis=1)))
        ref = [float(l.split(",")[1]) for l in open("pose.csv").read().splitlines()[1:]]
        got = [pd["f_%d" % k][p] for k in range(1, 5)]
        assert np.allclose(got, ref, rtol=1e-9, atol=0), (got, ref)
PY
# --vtk into a missing directory is refused before the sweep; a missing map file is bad input.
timeout 60 "$bin" map navaro --grid x=0:0.01:2,y=0:0.01:2,theta=0:0.1:2 --quiet -o m4.h5 \
    --vtk nodir/m.vtkhdf >/dev/null 2>&1
check "map --vtk into a missing directory: exit 2 before the sweep" test $? -eq 2 -a ! -e m4.h5
timeout 60 "$bin" export m2.h5 --vtk /proc/m.vtkhdf >/dev/null 2>&1
check "export --vtk to an unwritable place: exit 2 or 3" test $? -ge 2
timeout 60 "$bin" export nosuch.h5 --vtk x.vtkhdf >/dev/null 2>&1
check "export of a missing file: exit 2" test $? -eq 2

# plot: a PNG of the requested size (IHDR), not blank: the 2-D map's colour map covers at least
# a share of the picture in colours of viridis, the 1-D map's curves (3, or 1 with --mode) are
# drawn in matplotlib's first colours; bad --mode, a missing file, a 3-axis map, a tiny size
# are exit 2.
timeout 120 "$bin" plot m2.h5 -o p2.png --size 640x480 >/dev/null
check "plot 2-D: exit 0" test $? -eq 0
timeout 120 "$bin" plot m1.h5 -o p1.png >/dev/null
check "plot 1-D: exit 0" test $? -eq 0
timeout 120 "$bin" plot m1.h5 -o p1k.png --mode 3 >/dev/null
check "plot 1-D --mode 3: exit 0" test $? -eq 0
check "plot: PNG size, not blank" "$py" - <<'PY'
import struct
import numpy as np
from matplotlib import cm, image

def png(name, w, h):
    b = open(name, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR", name
    assert struct.unpack(">II", b[16:24]) == (w, h), (name, struct.unpack(">II", b[16:24]))
    a = image.imread(name)[..., :3]
    assert a.shape[:2] == (h, w) and a.std() > 0.05, (name, a.shape, a.std())
    return a.reshape(-1, 3)

def share_near(px, colours, tol=0.02):
    d = np.min(np.linalg.norm(px[:, None, :] - np.asarray(colours)[None, :, :3], axis=2), axis=1)
    return (d < tol).mean()

px = png("p2.png", 640, 480)
viridis = cm.get_cmap("viridis")(np.linspace(0, 1, 64))
assert len(np.unique(np.round(px, 2), axis=0)) > 50
assert share_near(px, viridis) > 0.15, share_near(px, viridis)
for name, want in (("p1.png", 3), ("p1k.png", 1)):
    px = png(name, 900, 600)
    tab = [np.array(c) for c in ([0.12, 0.47, 0.71], [1.0, 0.5, 0.05], [0.17, 0.63, 0.17])]
    # A curve covers some 1,000 pixels, its legend's sample some 30.
    drawn = [share_near(px, [c], 0.05) > 5e-4 for c in tab]
    assert sum(drawn) == want, (name, drawn)
PY
timeout 60 "$bin" map navaro --grid x=0:0.01:2,y=0:0.01:2,theta=0:0.1:2 --quiet -o m3.h5 >/dev/null
for bad in "m2.h5 -o x.png --mode 9" "nosuch.h5 -o x.png" "m3.h5 -o x.png" "m2.h5 -o x.png --size 10x10"; do
    # shellcheck disable=SC2086
    timeout 60 "$bin" plot $bad >/dev/null 2>err.txt
    check "plot $bad: exit 2, one line" test $? -eq 2 -a "$(grep -c '' err.txt)" -eq 1
done

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
