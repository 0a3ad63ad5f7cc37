"""The extension uses the library's public API only: every pkm_ symbol it imports is declared
in include/pkm/*.h (libpkmflex.so is to export those alone), and none of the library's
private *_impl.h headers is included."""
import glob
import os
import re
import subprocess

import pkmflex._core as core

SRC = os.environ.get("PKMFLEX_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def test_imports_only_public_functions():
    out = subprocess.run(["nm", "-D", "--undefined-only", core.__file__], check=True,
                         capture_output=True, text=True).stdout
    used = sorted({line.split()[-1] for line in out.splitlines()
                   if line.split()[-1].startswith("pkm_")})
    headers = "".join(open(h).read() for h in glob.glob(os.path.join(SRC, "include", "pkm",
                                                                      "*.h")))
    missing = [s for s in used if not re.search(r"\b%s\s*\(" % re.escape(s), headers)]
    assert len(used) > 40 and not missing, missing
    src = open(os.path.join(SRC, "python", "src", "_core.c")).read()
    assert "_impl.h" not in re.sub(r"/\*.*?\*/", "", src, flags=re.S)
