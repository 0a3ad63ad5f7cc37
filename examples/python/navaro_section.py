#!/usr/bin/env python3
"""The lowest natural frequency of NaVARo over its workspace as a function of the link section.

The legs' links (cases/navaro.yaml: leg.A, leg.Iy, leg.Iz, leg.I0, leg.Ip) are a 10 mm x 24 mm
aluminium rectangle; here their height h (the 24 mm side, in the plane of the robot) runs from
8 to 40 mm at a constant 10 mm width. For each section the frequency map over the workspace
at theta = -60 deg (Case.map: the library's sweep, as `pkmflex map`) gives the lowest first
frequency over the reachable poses (the design value) and the highest. Written to a PNG
(matplotlib, Agg).

    PYTHONPATH=build/python python3 examples/python/navaro_section.py [-o navaro_section.png]
"""
import argparse
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import pkmflex  # noqa: E402

WIDTH = 0.010  # m, the section's width (out of the plane)


def rectangle(b, h):
    """Section constants of a b x h rectangle (m): A, the second moments about the section's
    axes (Iy: bending in the plane of the robot, h the height; Iz), Saint-Venant's torsion
    constant I0 (Roark's series for b <= h) and the polar moment Ip, as the keys of leg.*."""
    t, w = min(b, h), max(b, h)
    beta = (1.0 - 0.63 * t / w + 0.052 * (t / w) ** 5) / 3.0
    iy, iz = b * h ** 3 / 12.0, h * b ** 3 / 12.0
    return {"leg.A": b * h, "leg.Iy": iy, "leg.Iz": iz, "leg.I0": beta * w * t ** 3,
            "leg.Ip": iy + iz}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="navaro_section.png")
    ap.add_argument("--points", type=int, default=21, help="grid points per axis")
    args = ap.parse_args()
    heights = np.linspace(0.008, 0.040, 9)
    grid = {"x": (-0.22, 0.22, args.points), "y": (-0.22, 0.22, args.points)}
    pose = (0.0, 0.0, -math.pi / 3)
    f_min, f_max = [], []
    for h in heights:
        case = pkmflex.Case("navaro", params=rectangle(WIDTH, h))
        fmap = case.map(grid, nev=2, pose=pose)
        ok = fmap.status == pkmflex.POSE_OK
        f1 = fmap.freq_hz[..., 0][ok]
        f_min.append(f1.min())
        f_max.append(f1.max())
        print(f"h = {1e3 * h:5.1f} mm: f1 from {f1.min():8.3f} to {f1.max():8.3f} Hz over "
              f"{ok.sum()} reachable poses of {ok.size}")
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(1e3 * heights, f_min, "o-", label="lowest $f_1$ over the workspace")
    ax.plot(1e3 * heights, f_max, "s--", label="highest $f_1$ over the workspace")
    ax.axvline(24, color="grey", lw=0.8, ls=":")
    ax.text(24.5, max(f_max), "built (24 mm)", color="grey", va="top")
    ax.set_xlabel("link section height h [mm] (width 10 mm)")
    ax.set_ylabel("first natural frequency [Hz]")
    ax.set_title(r"NaVARo, $\theta$ = -60$^\circ$, x, y in [-0.22, 0.22] m")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
