"""Fixtures of the pkmflex Python tests: the command line of the same build (PKMFLEX_CLI, set by
ctest; else `pkmflex` on PATH) and its runner. The tests compare the package with it."""
import json
import os
import shutil
import subprocess

import pytest


def _cli_path():
    path = os.environ.get("PKMFLEX_CLI") or shutil.which("pkmflex")
    if not path:
        raise RuntimeError("the pkmflex command is needed: set PKMFLEX_CLI (ctest does)")
    return path


@pytest.fixture(scope="session")
def cli():
    """cli(*args, check=True) -> CompletedProcess of `pkmflex args...` (text)."""
    path = _cli_path()

    def run(*args, check=True):
        p = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        if check and p.returncode != 0:
            raise AssertionError(f"pkmflex {' '.join(map(str, args))}: exit {p.returncode}: "
                                 f"{p.stderr}")
        return p

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    """cli_json(*args) -> the tables of `pkmflex args... --format json`."""
    def run(*args):
        return json.loads(cli(*args, "--format", "json").stdout)
    return run


def rel_close(a, b, rtol=1e-12):
    """Every element of a within rtol relative of b (NaN where b is NaN)."""
    import numpy as np
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    nan = np.isnan(b)
    assert np.array_equal(np.isnan(a), nan)
    scale = np.maximum(np.abs(b), np.finfo(float).tiny)
    err = np.abs(a - b)[~nan] / scale[~nan]
    assert err.size == 0 or err.max() <= rtol, err.max()
