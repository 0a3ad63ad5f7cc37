"""Case.fit against `pkmflex fit` for the same input: the fitted values, standard errors,
correlations (printed %.17g: exact) and the final pairing."""
import os

import numpy as np
import pytest

import pkmflex

SRC = os.environ.get("PKMFLEX_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
TABLE3 = os.path.join(SRC, "cases", "navaro", "table3_cast3m.csv")
TABLE4 = os.path.join(SRC, "cases", "navaro", "table4_measured.csv")
REFINED = os.path.join(SRC, "cases", "navaro_refined.yaml")


def cli_fit(cli, *args):
    out = cli("fit", *args, "--format", "csv").stdout
    params, pairs = out.strip().split("\n\n")
    lines = params.splitlines()
    rows = [line.split(",") for line in lines[1:]]
    keys = [r[0] for r in rows]
    vals = np.array([[float(x) for x in r[1:4]] for r in rows])
    corr = np.array([[float(x) for x in r[5:]] for r in rows])
    prs = [line.split(",") for line in pairs.splitlines()[1:]]
    return keys, vals, corr, prs


@pytest.mark.parametrize("case,kw,args", [
    ("navaro", dict(table=TABLE3, params=["material.E", "material.rho"], multistart=False),
     ["navaro", "--table", TABLE3, "--param", "material.E", "--param", "material.rho",
      "--multistart", "off"]),
    ("navaro", dict(table=TABLE3, params=["material.E=70 GPa:50 GPa:90 GPa",
                                          ("material.rho", None, None, None)]),
     ["navaro", "--table", TABLE3, "--param", "material.E=70 GPa:50 GPa:90 GPa",
      "--param", "material.rho"]),
    (REFINED, dict(table=TABLE4, kind="calc", match="nearest",
                   params=["clutch.k1=2000:100:20000", "clutch.k2=2000:100:20000",
                           "joint_mass.B=300 g:1 g:3 kg"], max_iter=30),
     [REFINED, "--table", TABLE4, "--kind", "calc", "--match", "nearest",
      "--param", "clutch.k1=2000:100:20000", "--param", "clutch.k2=2000:100:20000",
      "--param", "joint_mass.B=300 g:1 g:3 kg", "--max-iter", "30"]),
])
def test_fit_exact_against_cli(cli, case, kw, args):
    c = pkmflex.Case(case)
    before = c.parameters
    r = c.fit(**kw)
    keys, vals, corr, pairs = cli_fit(cli, *args)
    assert r.keys == keys
    assert np.array_equal(r.start, vals[:, 0])
    assert np.array_equal(r.value, vals[:, 1])
    assert np.array_equal(r.std_err, vals[:, 2])
    assert np.array_equal(r.corr, corr)
    paired = [p for p in pairs if p[6] == "ok"]
    assert len(paired) == np.isfinite(r.freq_hz).sum()
    for p in paired:
        row, col = int(p[0]) - 1, int(p[1]) - 1
        assert float(p[4]) == r.freq_hz[row, col]
        assert int(p[3].split("-")[0]) - 1 == r.pair[row, col]
    assert c.parameters == before          # the case is left as it was
    for k, v in r.parameters.items():
        assert r.case.parameters[k] == v


def test_fit_arrays_and_errors():
    c = pkmflex.Case("navaro")
    _, pose, freq, _ = pkmflex._core.read_table(TABLE3, 3)
    a = c.fit((pose, freq), ["material.E"], multistart=False)
    b = c.fit(TABLE3, ["material.E"], multistart=False)
    assert np.array_equal(a.value, b.value)
    with pytest.raises(pkmflex.Error) as e:
        c.fit(TABLE3, ["elements_per_link"])
    assert e.value.status == -2
    with pytest.raises(pkmflex.Error) as e:
        c.fit(TABLE3, ["material.E=80 GPa:50 GPa:70 GPa"])
    assert e.value.status == -2
    with pytest.raises(pkmflex.Error) as e:
        c.fit(os.path.join(SRC, "nosuch.csv"), ["material.E"])
    assert e.value.status == pkmflex.STATUS["PKM_ERR_IO"]
