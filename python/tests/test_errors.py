"""Bad input raises pkmflex.Error with the library's message and status code, the message the
command line prints after 'pkmflex: error: '."""
import numpy as np
import pytest

import pkmflex


def cli_message(cli, *args):
    p = cli(*args, check=False)
    assert p.returncode == 2, p
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith("pkmflex: error: ")
    return line[len("pkmflex: error: "):]


def test_unreachable_pose(cli):
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case("navaro").modes((0.5, 0, 0), nev=4)
    assert e.value.status == pkmflex.STATUS["PKM_ERR_UNREACHABLE"] == -4
    assert e.value.status_name == "PKM_ERR_UNREACHABLE"
    assert str(e.value) == cli_message(cli, "modes", "navaro", "--pose", "0.5,0,0")


def test_parameter_out_of_range(cli):
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case("navaro", **{"material.E": 1e30})
    assert e.value.status == pkmflex.STATUS["PKM_ERR_INVALID"]
    assert str(e.value) == cli_message(cli, "modes", "navaro", "--set", "material.E=1e30")


def test_bad_unit_and_unknown_key_and_case():
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case("navaro", params={"link_length": "210 kg"})
    assert e.value.status == -2 and "link_length" in str(e.value)
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case("navaro", **{"material.EE": 1.0})
    assert e.value.status == -2 and "material.EE" in str(e.value)
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case("navarro")
    assert e.value.status == -2 and "navaro" in str(e.value)
    with pytest.raises(TypeError):
        pkmflex.Case("navaro", **{"material.E": [1.0]})


def test_missing_and_broken_case_file(tmp_path):
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case(str(tmp_path / "none.yaml"))
    assert e.value.status == pkmflex.STATUS["PKM_ERR_IO"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("case: navaro\nparameters:\n  link_length: [1, 2]\n")
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case(str(bad))
    assert e.value.status == pkmflex.STATUS["PKM_ERR_PARSE"]
    assert str(e.value).startswith(str(bad) + ":3:")


def test_bad_arguments_of_modes_and_map():
    c = pkmflex.Case("navaro")
    for kw in [dict(pose=(0, 0)), dict(pose=(0, 0, 0, 0)), dict(nev=0),
               dict(solver="lanczos"), dict(formulation="modal"), dict(max_accuracy=2.0),
               dict(pose={"z": 0})]:
        with pytest.raises(pkmflex.Error) as e:
            c.modes(**kw)
        assert e.value.status == -2, kw
    with pytest.raises(TypeError):
        c.modes(("a", 0, 0)[0:0] + (object(), 0, 0))
    with pytest.raises(pkmflex.Error):
        c.modes(("ten mm", 0, 0))
    for grid in ["z=0:1:3", "x=0:1", "x=0:1:0", "x=0:1:2,x=0:1:2", {"x": (0, 1, "n")}]:
        with pytest.raises(pkmflex.Error) as e:
            c.map(grid)
        assert e.value.status == -2, grid
    with pytest.raises(pkmflex.Error):
        c.map("x=0:1:2", threads=0)


def test_accuracy_refused():
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.Case("navaro").modes(nev=4, max_accuracy=1e-16)
    assert e.value.status == pkmflex.STATUS["PKM_ERR_ACCURACY"]


def test_read_map_errors(tmp_path):
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.read_map(tmp_path / "none.h5")
    assert e.value.status in (pkmflex.STATUS["PKM_ERR_IO"], pkmflex.STATUS["PKM_ERR_PARSE"])
    junk = tmp_path / "junk.h5"
    junk.write_bytes(b"not an HDF5 file" * 10)
    with pytest.raises(pkmflex.Error) as e:
        pkmflex.read_map(junk)
    assert "junk.h5" in str(e.value)


def test_error_is_exception_and_case_still_usable():
    c = pkmflex.Case("navaro")
    with pytest.raises(pkmflex.Error):
        c.modes((0.5, 0, 0))
    assert isinstance(pkmflex.Error("x"), Exception)
    assert np.isfinite(c.modes(nev=2).freq_hz).all()
