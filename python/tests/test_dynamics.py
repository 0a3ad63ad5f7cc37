"""Case.dynamics against `pkmflex dynamics` for the same input: every quantity of the command's
HDF5 file (-o) to 1e-12 of its largest (the same pkm_dynamics_run), the joint names and types as
the csv prints them."""
import csv
import io
import os

import h5py
import numpy as np
import pytest

import pkmflex

SRC = os.environ.get("PKMFLEX_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FIVEBAR = os.path.join(SRC, "examples", "fivebar.yaml")
DELTA = os.path.join(SRC, "examples", "delta.yaml")

COLUMNS = ("q", "qd", "qdd", "drive", "ideal", "friction", "f_axial", "f_radial", "m_bending")

CASES = [
    ("navaro", {}, dict(times=(0.0, 1.5, 16)), ["--time", "0:1.5:16"]),
    (FIVEBAR, {}, dict(trajectory="circle", times=(0.0, 0.5, 11)),
     ["--trajectory", "circle", "--time", "0:0.5:11"]),
    ("loop3", {}, dict(friction="coulomb-viscous", times=(0.0, 5.0, 11)),
     ["--friction", "coulomb-viscous", "--time", "0:5:11"]),
    ("tree5", {}, dict(trajectory="harmonic:1,0.1,0.5", times=(0.0, 2.0, 9)),
     ["--trajectory", "harmonic:1,0.1,0.5", "--time", "0:2:9"]),
    # A value of tree5's robot file by its dotted path (cases/tree5.yaml), as --set takes it.
    ("tree5", {"params": {"bodies.link 1.rigid.mass": "2 kg"}}, dict(times=(0.0, 1.0, 5)),
     ["--set", "bodies.link 1.rigid.mass=2 kg", "--time", "0:1:5"]),
    # A module chain: the engine chain by default, in Python as on the command line.
    ("crane4", {}, dict(times=(0.0, 10.0, 11)), ["--time", "0:10:11"]),
    # A wrench on the platform, as --wrench takes it.
    ("navaro", {}, dict(times=(0.0, 1.5, 7), wrench=(20, -10, 5, 0.3, -0.2, 1.5)),
     ["--time", "0:1.5:7", "--wrench", "20,-10,5,0.3,-0.2,1.5"]),
]


@pytest.mark.parametrize("case,sets,kw,args", CASES)
def test_dynamics_exact_against_cli(cli, tmp_path, case, sets, kw, args):
    path = tmp_path / "dyn.h5"
    cli("dynamics", case, *args, "-o", path)
    with h5py.File(path, "r") as f:
        ref = {k: f[k][()] for k in f if isinstance(f[k], h5py.Dataset)}  # per_time: a group
    rows = pkmflex.Case(case, **sets).dynamics(**kw)
    nt, nj = ref["q"].shape
    assert len(rows) == nt * nj
    assert np.array_equal(np.unique(rows["t"]), ref["t"])
    for k in COLUMNS:
        got = rows[k].reshape(nt, nj)
        assert np.allclose(got, ref[k], rtol=0, atol=1e-12 * max(1.0, np.abs(ref[k]).max())), k
    out = cli("dynamics", case, *args, "--format", "csv")
    text = out if isinstance(out, str) else out.stdout
    table = list(csv.DictReader(io.StringIO(text)))
    assert [r["joint"] for r in table] == list(rows["joint"])
    assert [r["type"] for r in table] == list(rows["type"])


def test_dynamics_errors():
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case("navaro").dynamics(times=(-1.0, 1.0, 5))
    assert "outside the trajectory's span" in str(e.value)
    with pytest.raises(pkmflex.Error):
        pkmflex.Case("navaro").dynamics(friction="sticky")
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case(DELTA).dynamics(trajectory="nosuch")
    assert "no such trajectory" in str(e.value)


@pytest.mark.parametrize("case,args,kw", [
    ("navaro", ["--time", "0:1.5:7"], dict(times=(0.0, 1.5, 7))),
    ("masticatory", ["--time", "0:0.95:20", "--inertia"], dict(times=(0.0, 0.95, 20), inertia=True)),
])
def test_dynamics_per_time_against_cli(cli, case, args, kw):
    """The per-time table (per_time=True) equals the command's --per-time csv: the same columns
    in the same order, the same numbers to 1e-12 of each column's largest."""
    out = cli("dynamics", case, *args, "--per-time", "--format", "csv")
    text = out if isinstance(out, str) else out.stdout
    ref = list(csv.DictReader(io.StringIO(text)))
    rows = pkmflex.Case(case).dynamics(per_time=True, **kw)
    assert list(rows.dtype.names) == list(ref[0].keys())
    assert len(rows) == len(ref)
    for name in rows.dtype.names:
        col = np.array([float(r[name]) for r in ref])
        assert np.allclose(rows[name], col, rtol=0, atol=1e-12 * max(1.0, np.abs(col).max())), name
    units = rows.dtype.metadata["units"]
    assert units["t"] == "s" and units["conditioning"] == "1"
    if kw.get("inertia"):
        # the chewing robot's MCI(a) of the target, mean over t = k/20 (Cheng et al. 2024's
        # surrogate; the reference computed at 40 digits)
        assert abs(rows["mci1"].mean() - 0.72412537) <= 1e-8
        assert units["MA11"] == "kg m^2"


def test_dynamics_inertia_refused():
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case("navaro").dynamics(per_time=True, inertia=True)
    assert "no inertia quantities" in str(e.value)


def test_dynamics_engines_agree():
    """crane4 by the engine chain (the default, the fastest that takes it) and by the general
    system: the same drives and reactions to 1e-9 of each column's largest."""
    chain = pkmflex.Case("crane4").dynamics(times=(0.0, 10.0, 21))
    mbs = pkmflex.Case("crane4").dynamics(times=(0.0, 10.0, 21), engine="mbs")
    assert chain.dtype.metadata["engine"] == "chain" and mbs.dtype.metadata["engine"] == "mbs"
    for k in ("drive", "f_axial", "f_radial", "m_bending"):
        assert np.abs(chain[k] - mbs[k]).max() <= 1e-9 * np.abs(mbs[k]).max(), k
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case("navaro").dynamics(engine="chain")
    assert "module chain" in str(e.value)
    with pytest.raises(pkmflex.Error):
        pkmflex.Case("crane4").dynamics(engine="fast")


@pytest.mark.parametrize("forces", [False, True])
def test_dynamics_forward_against_cli(cli, tmp_path, forces):
    """forward=True (with forces=, step=) equals the command's --forward csv: both tables, the
    same numbers to 1e-12 of each column's largest."""
    args, kw = ["--time", "0:1.5:7", "--step", "1e-2"], dict(times=(0.0, 1.5, 7), step=1e-2)
    if forces:
        inv = pkmflex.Case("navaro").dynamics(times=(0.0, 1.5, 31))
        path = tmp_path / "forces.csv"
        with open(path, "w") as f:
            f.write("t,A11,A12,A13\n")
            for t in np.unique(inv["t"]):
                d = [inv["drive"][(inv["t"] == t) & (inv["joint"] == j)][0] for j in ("A11", "A12", "A13")]
                f.write("%r,%r,%r,%r\n" % (float(t), *map(float, d)))
        args, kw = args + ["--forces", str(path)], dict(kw, forces=path)
    for per_time in (False, True):
        out = cli("dynamics", "navaro", "--forward", *args, "--format", "csv",
                  *(["--per-time"] if per_time else []))
        ref = list(csv.DictReader(io.StringIO(out if isinstance(out, str) else out.stdout)))
        rows = pkmflex.Case("navaro").dynamics(forward=True, per_time=per_time, **kw)
        assert len(rows) == len(ref)
        names = [n for n in rows.dtype.names if n not in ("joint", "type")]
        for name in names:
            col = np.array([float(r[name]) if r[name] != "" else np.nan for r in ref])
            got = np.asarray(rows[name], dtype=float)
            ok = np.isclose(got, col, rtol=0, atol=1e-12 * max(1.0, np.nanmax(np.abs(col))),
                            equal_nan=True)
            assert ok.all(), name
        if per_time:
            assert list(rows.dtype.names) == ["t", "deviation", "balance", "friction_work"]
            assert np.abs(rows["balance"]).max() < 1e-9
    with pytest.raises(pkmflex.Error):
        pkmflex.Case("navaro").dynamics(step=1e-3)
