"""examples/python/navaro_section.py runs and writes its PNG (a coarse grid)."""
import os
import subprocess
import sys


def test_navaro_section_example(tmp_path):
    src = os.environ.get("PKMFLEX_SOURCE_DIR",
                         os.path.join(os.path.dirname(__file__), "..", ".."))
    png = tmp_path / "section.png"
    p = subprocess.run([sys.executable, os.path.join(src, "examples", "python",
                                                     "navaro_section.py"),
                        "-o", str(png), "--points", "7"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "h =  24.0 mm" in p.stdout
