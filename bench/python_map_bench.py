#!/usr/bin/env python3
"""Case.map against `pkmflex map` on the same grid (issue 31: within 5 %).

Both run the library's sweep (pkm_map_sweep, the block eigensolver, MAC tracking) in one
process; the command's time is the sweep's as it reports it (--format csv: seconds), Case.map's
the call's (the sweep, then the arrays copied into NumPy). Each is run `--repeat` times,
alternating, and the best and median times are compared. A process of each also runs the whole
map with its file written, timed from outside.

    PYTHONPATH=build/python python3 bench/python_map_bench.py [--cli build/pkmflex] [--n 60]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import pkmflex


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--cli", default=os.path.join(here, "..", "build", "pkmflex"))
    ap.add_argument("--n", type=int, default=60, help="grid points per axis")
    ap.add_argument("--nev", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    grid = f"x=-0.22:0.22:{args.n},y=-0.22:0.22:{args.n}"
    pose = "0,0,-1.0471975511965976"
    case = pkmflex.Case("navaro")
    tmp = tempfile.mkdtemp(prefix="pkm_pybench_")
    out = os.path.join(tmp, "cli.h5")
    cli_s, py_s = [], []
    for r in range(args.repeat):
        p = subprocess.run([args.cli, "map", "navaro", "--grid", grid, "--pose", pose,
                            "--nev", str(args.nev), "-o", out, "--quiet", "--format", "json"],
                           check=True, capture_output=True, text=True)
        cli_s.append(float(json.loads(p.stdout)[0][0]["seconds"]))
        os.unlink(out)
        t0 = time.perf_counter()
        m = case.map(grid, nev=args.nev, pose=pose)
        py_s.append(time.perf_counter() - t0)
    npts = args.n * args.n
    print(f"NaVARo map {args.n} x {args.n} = {npts} poses, nev {args.nev}, 1 worker, "
          f"{args.repeat} runs each ({m.counts()['ok']} poses ok)")
    for name, s in (("pkmflex map (sweep)", cli_s), ("Case.map (call)", py_s)):
        print(f"  {name:20s} best {min(s):.4f} s ({npts / min(s):7.0f} poses/s), "
              f"median {statistics.median(s):.4f} s")
    ratio_best = min(py_s) / min(cli_s)
    ratio_med = statistics.median(py_s) / statistics.median(cli_s)
    print(f"  ratio Case.map / pkmflex map: best {ratio_best:.3f}, median {ratio_med:.3f}")
    # whole processes, the file written by both
    py_out = os.path.join(tmp, "py.h5")
    code = ("import pkmflex; pkmflex.Case('navaro').map(%r, nev=%d, pose=%r, output=%r)"
            % (grid, args.nev, pose, py_out))
    t0 = time.perf_counter()
    subprocess.run([args.cli, "map", "navaro", "--grid", grid, "--pose", pose, "--nev",
                    str(args.nev), "-o", out, "--quiet"], check=True, capture_output=True)
    t_cli = time.perf_counter() - t0
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    t_py = time.perf_counter() - t0
    print(f"  whole process with the file: pkmflex {t_cli:.3f} s, python3 {t_py:.3f} s "
          f"(ratio {t_py / t_cli:.3f}; python3 and numpy start-up included)")
    for f in (out, py_out):
        os.unlink(f)
    os.rmdir(tmp)
    return 0 if math.isfinite(ratio_best) else 1


if __name__ == "__main__":
    sys.exit(main())
