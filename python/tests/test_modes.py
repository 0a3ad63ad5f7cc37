"""Case and Case.modes against `pkmflex modes` for the same input: the frequencies and mode
shapes in full precision from the command's --vtk file (HDF5 float64), the printed columns
(csv, json, --describe) to the digits printed."""
import h5py
import numpy as np
import pytest

import pkmflex
from conftest import rel_close


def cli_vtk(cli, tmp_path, *args):
    """freq_hz [nev] and the nodal displacements [nev, points, 6] of `pkmflex modes args --vtk`."""
    path = tmp_path / "modes.vtkhdf"
    cli("modes", *args, "--vtk", path)
    with h5py.File(path, "r") as f:
        g = f["VTKHDF"]
        freq = g["FieldData/frequency_hz"][()]
        u = np.stack([np.hstack([g[f"PointData/mode_{k + 1}"][()],
                                 g[f"PointData/mode_{k + 1}_rotation"][()]])
                      for k in range(len(freq))])
    return freq, u


@pytest.mark.parametrize("case,pose,nev,sets", [
    ("navaro", (0, 0, 0), 4, {}),
    ("navaro", (0.1, 0.05, -0.5), 8, {}),
    ("navaro", (0, 0, 0), 6, {"material.E": 70e9, "elements_per_link": 3}),
    ("pss5upu", (0.05, 0, 0, 0, 0), 6, {}),
])
def test_modes_exact_against_cli(cli, cli_json, tmp_path, case, pose, nev, sets):
    c = pkmflex.Case(case, **sets)
    m = c.modes(pose, nev=nev)
    args = [case, "--pose", ",".join(repr(float(p)) for p in pose), "--nev", nev]
    for k, v in sets.items():
        args += ["--set", f"{k}={v}"]
    freq, u = cli_vtk(cli, tmp_path, *args)
    assert m.freq_hz.shape == (nev,)
    rel_close(m.freq_hz, freq, 1e-12)
    # bit for bit: one library, the same calls
    assert np.array_equal(m.freq_hz, freq)
    n = m.shapes.shape[1]
    np.testing.assert_allclose(m.shapes, u[:, :n, :], rtol=0, atol=1e-12 * np.abs(u).max())
    rows = cli_json("modes", *args)[0]
    assert len(rows) == nev
    for k, row in enumerate(rows):
        assert row["mode"] == k + 1
        rel_close(m.freq_hz[k], row["freq_hz"], 1e-9)        # printed %.10g
        rel_close(m.residual[k], row["residual"], 1e-3)      # printed %.3e
        rel_close(m.accuracy[k], row["accuracy"], 1e-2)      # printed %.2e


def test_readme_line(cli):
    """The issue's check: Case('navaro').modes((0,0,0), nev=4).freq_hz against the table of
    `pkmflex modes navaro --pose 0,0,0 --nev 4` (printed %14.6f)."""
    f = pkmflex.Case("navaro").modes((0, 0, 0), nev=4).freq_hz
    out = cli("modes", "navaro", "--pose", "0,0,0", "--nev", "4").stdout
    printed = [float(line.split()[1]) for line in out.splitlines()
               if line.strip() and not line.startswith("#") and line.split()[0].isdigit()]
    assert len(printed) == 4
    np.testing.assert_allclose(f, printed, rtol=0, atol=5e-7)


def test_params_dict_units_and_keywords_agree(cli, tmp_path):
    a = pkmflex.Case("navaro", **{"material.E": 70e9}).modes(nev=4).freq_hz
    b = pkmflex.Case("navaro", params={"material.E": "70 GPa"}).modes(nev=4).freq_hz
    freq, _ = cli_vtk(cli, tmp_path, "navaro", "--nev", 4, "--set", "material.E=70 GPa")
    assert np.array_equal(a, freq) and np.array_equal(b, freq)


def test_case_attributes_and_file(cli, tmp_path):
    c = pkmflex.Case("navaro")
    assert c.pose_names == ["x", "y", "theta"]
    assert c.pose_units == ["m", "m", "rad"]
    assert c.formulation == "tree"
    assert c.parameters["material.E"] == 74e9
    path = tmp_path / "my_navaro.yaml"
    path.write_text(cli("cases", "--show", "navaro").stdout)
    f = pkmflex.Case(str(path), params={"link_length": "220 mm"})
    assert f.parameters["link_length"] == pytest.approx(0.22, rel=1e-15)
    m = f.modes((0.02, 0, 0), nev=5, formulation="nodal")
    freq, _ = cli_vtk(cli, tmp_path, path, "--pose", "0.02,0,0", "--nev", 5,
                      "--formulation", "nodal", "--set", "link_length=220 mm")
    assert np.array_equal(m.freq_hz, freq)


def test_pose_forms():
    c = pkmflex.Case("navaro")
    a = c.modes((0.01, 0, 0.1), nev=3, shapes=False, describe=False).freq_hz
    b = c.modes(("10 mm", 0, 0.1), nev=3).freq_hz
    d = c.modes({"x": 0.01, "theta": 0.1}, nev=3).freq_hz
    assert np.array_equal(a, b) and np.array_equal(a, d)
    assert np.array_equal(c.modes(nev=3).freq_hz, c.modes(c.home, nev=3).freq_hz)


def test_describe_against_cli(cli):
    m = pkmflex.Case("navaro").modes((0.05, 0, 0), nev=6)
    out = cli("modes", "navaro", "--pose", "0.05,0,0", "--nev", 6, "--describe",
              "--format", "csv").stdout
    lines = out.splitlines()
    table = lines[next(i for i, l in enumerate(lines) if l.startswith("mode,freq_hz,ux")):]
    header = table[0].split(",")
    # an empty cell where the table prints '-' (an effective mass without a platform motion)
    rows = [dict(zip(header, (float(v) if v else float("nan") for v in line.split(","))))
            for line in table[1:]]
    assert len(rows) == 6
    for k, row in enumerate(rows):
        E = m.energy[k]
        rel_close(E, row["energy_j"], 1e-9)
        rel_close(E, m.omega2[k] / 2, 1e-8)
        for d, name in enumerate(["ux", "uy", "uz", "rx", "ry", "rz"]):
            assert abs(m.twist[k, d] - row[name]) <= 1e-6 * abs(row[name]) + 1e-300
        for l in range(m.leg_energy.shape[1]):
            assert abs(m.leg_energy[k, l] / E - row[f"leg{l + 1}"]) <= 1e-6
        for b, name in enumerate(m.body_names):
            assert abs(m.body_energy[k, b] / E - row[f"body:{name}"]) <= 1e-6
        assert abs(m.joint_energy[k].sum() / E - row["springs"]) <= 1e-6


def test_vectors_orthonormal_shape():
    m = pkmflex.Case("navaro").modes(nev=4, vectors=True)
    assert m.vectors.shape == (4, m.n_reduced)
    assert m.node_xyz.shape == (m.shapes.shape[1], 3)


def test_solvers_and_formulations():
    c = pkmflex.Case("navaro")
    ref = c.modes(nev=5).freq_hz
    for solver in ("dense", "block"):
        np.testing.assert_allclose(c.modes(nev=5, solver=solver).freq_hz, ref, rtol=1e-9)
    np.testing.assert_allclose(c.modes(nev=5, formulation="nodal").freq_hz, ref, rtol=1e-6)


def test_cases_list():
    names = [c["name"] for c in pkmflex.cases()]
    assert "navaro" in names and "pss5upu" in names
    v, commit = pkmflex.library_version()
    assert v and commit
