"""Case.map and read_map against `pkmflex map` on the same grid: every dataset of the command's
file bit for bit (frequencies, residuals, accuracies, status, tracked modes, MAC, parents, the
closure's conditioning)."""
import h5py
import numpy as np
import pytest

import pkmflex

DATASETS = {"freq_hz": "freq_hz", "residual": "residual", "accuracy": "accuracy",
            "status": "status", "tracked_mode": "tracked_mode",
            "tracking_mac": "tracking_mac", "tracking_parent": "tracking_parent",
            "closure_conditioning": "closure_conditioning"}


def read_h5(path):
    with h5py.File(path, "r") as f:
        return {k: f[k][()] for k in DATASETS.values()}


def same(a, b):
    return np.array_equal(a, b, equal_nan=np.issubdtype(np.asarray(b).dtype, np.floating))


@pytest.mark.parametrize("case,grid,pose,nev,extra", [
    ("navaro", "x=-0.22:0.22:9,y=-0.22:0.22:9", "0,0,-1.0471975511965976", 8, []),
    ("navaro", "x=-0.1:0.1:7,theta=-30 deg:30 deg:5", "0,0.02,0", 6, ["--solver", "arpack"]),
    ("pss5upu", "x=-0.02:0.02:4", None, 6, []),
])
def test_map_exact_against_cli(cli, tmp_path, case, grid, pose, nev, extra):
    out = tmp_path / "cli.h5"
    args = ["map", case, "--grid", grid, "--nev", nev, "-o", out, "--quiet", *extra]
    if pose:
        args += ["--pose", pose]
    cli(*args)
    ref = read_h5(out)
    c = pkmflex.Case(case)
    solver = extra[1] if extra else "block"
    py_out = tmp_path / "py.h5"
    m = c.map(grid, nev=nev, pose=pose, solver=solver, output=py_out)
    assert m.shape == ref["status"].shape
    for attr, key in DATASETS.items():
        assert same(getattr(m, attr), ref[key]), attr
    # the map Case.map wrote, and the command's file read by read_map
    for path in (py_out, out):
        r = pkmflex.read_map(path)
        for attr in DATASETS:
            assert same(getattr(r, attr), getattr(m, attr)), (path, attr)
        assert r.case == case and r.nev == nev and r.solver == solver
        assert r.axis_names == m.axis_names
        for a, b in zip(r.axis_values, m.axis_values):
            assert np.array_equal(a, b)


def test_map_dict_grid_and_units():
    c = pkmflex.Case("navaro")
    a = c.map({"x": (-0.05, 0.05, 3), "y": ("-50 mm", "50 mm", 3)}, nev=4,
              pose=(0, 0, "-60 deg"))
    b = c.map("x=-0.05:0.05:3,y=-50 mm:50 mm:3", nev=4, pose="0,0,-60 deg")
    assert same(a.freq_hz, b.freq_hz) and a.freq_hz.shape == (3, 3, 4)
    assert a.counts()["ok"] == 9 and a.tracking == "mac"
    assert a.parameters["material.E"] == 74e9


def test_map_threads_same_map():
    c = pkmflex.Case("navaro")
    one = c.map("x=-0.2:0.2:8,y=-0.2:0.2:8", nev=6, pose=(0, 0, -1.0471975511965976))
    two = c.map("x=-0.2:0.2:8,y=-0.2:0.2:8", nev=6, pose=(0, 0, -1.0471975511965976),
                threads=2)
    for attr in DATASETS:
        assert same(getattr(one, attr), getattr(two, attr)), attr


def test_map_unreachable_is_data_and_modes_kept():
    c = pkmflex.Case("navaro")
    m = c.map({"x": (-0.3, 0.3, 3)}, nev=4, keep_modes=True)
    assert list(m.status) == [pkmflex.POSE_UNREACHABLE, pkmflex.POSE_OK,
                              pkmflex.POSE_UNREACHABLE]
    assert np.isnan(m.freq_hz[0]).all() and not np.isnan(m.freq_hz[1]).any()
    assert m.modes.shape == (3, 4, m.ncoord)
    assert np.isnan(m.modes[0]).all()
    bm = m.by_mode()
    assert np.array_equal(bm[1], m.freq_hz[1])
