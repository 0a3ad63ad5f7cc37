"""Case.transient against `pkmflex transient` for the same input: every column of the command's
HDF5 file (-o) bit for bit, the csv/json columns to their printed digits (%.10g)."""
import h5py
import numpy as np
import pytest

import pkmflex


def cli_h5(cli, tmp_path, *args):
    path = tmp_path / "tr.h5"
    cli("transient", *args, "-o", path)
    with h5py.File(path, "r") as f:
        return {k: f[k][()] for k in f}


CASES = [
    ("navaro", {}, dict(duration=0.02, damping="0.02@40,0.02@150"),
     ["--duration", "0.02", "--damping", "0.02@40,0.02@150"]),
    ("navaro", {"clutch.locked": "drive"}, dict(duration=0.01, gravity=True, frequencies=3),
     ["--duration", "0.01", "--gravity", "--frequencies", "3", "--set", "clutch.locked=drive"]),
    ("navaro", {}, dict(trajectory="harmonic:x,1e-4,44.1", duration=0.01, update_every=0,
                        damping="0.02@mode1,0.02@mode3"),
     ["--trajectory", "harmonic:x,1e-4,44.1", "--duration", "0.01", "--update-every", "0",
      "--damping", "0.02@mode1,0.02@mode3"]),
    ("pss5upu", {"motor.k": 1e4}, dict(duration=0.004, drives="elastic",
                                       wrench=(0, 0, -50, 0, 0, 0)),
     ["--duration", "0.004", "--drives", "elastic", "--set", "motor.k=1e4",
      "--wrench", "0,0,-50,0,0,0"]),
]


@pytest.mark.parametrize("case,sets,kw,args", CASES)
def test_transient_exact_against_cli(cli, cli_json, tmp_path, case, sets, kw, args):
    rows = pkmflex.Case(case, **sets).transient(**kw)
    ref = cli_h5(cli, tmp_path, case, *args)
    assert np.array_equal(rows["t"], ref["t"])
    err = np.stack([rows[n] for n in ("ex", "ey", "ez", "rx", "ry", "rz")], axis=1)
    assert np.array_equal(err, ref["error"])
    qs = np.stack([rows[n] for n in ("qs_ex", "qs_ey", "qs_ez", "qs_rx", "qs_ry", "qs_rz")],
                  axis=1)
    assert np.array_equal(qs, ref["quasi_static"])
    en = np.stack([rows[n] for n in ("kinetic", "strain", "dissipated", "work")], axis=1)
    assert np.array_equal(en, ref["energy"])
    drives = [n for n in rows.dtype.names if n.startswith("drive_")]
    d = np.stack([rows[n] for n in drives], axis=1)
    assert np.array_equal(d, np.where(np.isnan(ref["reaction"]), ref["drive"], ref["reaction"]))
    if "frequencies" in ref:
        f = np.stack([rows[f"f{k + 1}"] for k in range(ref["frequencies"].shape[1])], axis=1)
        assert np.array_equal(f, ref["frequencies"])
    if "deflection" in ref:
        defl = np.stack([rows[n] for n in rows.dtype.names if n.startswith("defl_")], axis=1)
        assert np.array_equal(defl, ref["deflection"])
    # the csv columns, in the command's order
    table = cli_json("transient", case, *args)[0]
    assert list(table[0].keys()) == list(rows.dtype.names[:len(table[0])])
    assert len(table) == len(rows)
    for name in table[0]:
        col = np.array([row[name] for row in table], dtype=float)
        scale = np.abs(rows[name]).max() or 1.0
        np.testing.assert_allclose(rows[name], col, rtol=1e-9, atol=1e-9 * scale)


def test_transient_samples_and_csv(cli, tmp_path):
    c = pkmflex.Case("navaro")
    t = np.linspace(0.0, 0.05, 6)
    q = np.stack([0.01 * t, 0.0 * t, 0.1 * t], axis=1)
    csv = tmp_path / "traj.csv"
    csv.write_text("t,x,y,theta\n" + "".join(f"{a!r},{b!r},{c_!r},{d!r}\n"
                                             for a, (b, c_, d) in zip(t, q)))
    a = c.transient((t, q), dt=1e-3)
    b = c.transient(str(csv), dt=1e-3)
    ref = cli_h5(cli, tmp_path, "navaro", "--trajectory", csv, "--dt", "1e-3")
    assert np.array_equal(a["ex"], ref["error"][:, 0]) and np.array_equal(b["ex"], a["ex"])


def test_transient_errors():
    c = pkmflex.Case("navaro")
    with pytest.raises(pkmflex.Error) as e:
        c.transient("nosuch")
    assert e.value.status == -2 and "p2p" in str(e.value)
    for kw in [dict(dt=0), dict(duration=1e-5), dict(damping="0.02@40"),
               dict(damping="0.02@40,0.02@40"), dict(drives="soft"), dict(start=100.0),
               dict(trajectory="harmonic:q,1,1")]:
        with pytest.raises(pkmflex.Error) as e:
            c.transient(**kw)
        assert e.value.status == -2, kw
    with pytest.raises(pkmflex.Error):
        pkmflex.Case("tree5").transient()
    with pytest.raises(pkmflex.Error) as e:
        c.transient("harmonic:x,0.5,10", duration=0.05)
    assert e.value.status == pkmflex.STATUS["PKM_ERR_UNREACHABLE"]
