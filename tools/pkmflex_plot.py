#!/usr/bin/env python3
"""tools/pkmflex_plot.py: a picture of a frequency map written by `pkmflex map`, without ParaView.

    pkmflex plot F.h5 -o f1.png [--mode K] [--size WxH]      (the command runs this script)
    python3 tools/pkmflex_plot.py F.h5 -o f1.png [--mode K] [--size WxH]

A map sweeping two axes is drawn as a colour map of f_K (the K-th lowest frequency at each pose,
K from 1, default 1) over the grid, with the poses that were not computed marked: unreachable
(grey x), singular (red o), solver failure (black square), pending (blue dot, a checkpoint).
A map sweeping one axis is drawn as curves: every tracked mode (the map's /tracked_mode, which
follows one physical mode through crossings; the rank where the map has no tracking), or with
--mode K the mode that has rank K at the first computed pose; the poses not computed are marked
on the axis. The picture is WxH pixels (default 900x600), PNG.

Needs Debian's python3-h5py and python3-matplotlib (the Agg backend: no display). Exit status
as pkmflex's: 0 written, 2 bad input (one line on stderr), 3 the picture could not be written.
The file layout is docs/hdf5-layout.md's."""
import argparse
import sys

MARKS = {1: ("unreachable", "x", "0.45"), 2: ("singular", "o", "red"),
         3: ("solver failure", "s", "black"), -1: ("pending", ".", "blue")}


def fail(msg, status=2):
    sys.stderr.write("pkmflex: error: %s\n" % msg)
    sys.exit(status)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="pkmflex plot", description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("map", metavar="F.h5")
    p.add_argument("-o", "--output", required=True, metavar="FILE.png")
    p.add_argument("--mode", type=int, default=None, metavar="K")
    p.add_argument("--size", default="900x600", metavar="WxH")
    a = p.parse_args(argv)
    try:
        w, h = (int(v) for v in a.size.lower().split("x"))
    except ValueError:
        fail("--size '%s': expected WIDTHxHEIGHT in pixels, e.g. 900x600" % a.size)
    if not (100 <= w <= 10000 and 100 <= h <= 10000):
        fail("--size '%s': width and height from 100 to 10000 pixels" % a.size)
    a.width, a.height = w, h
    return a


def load(path):
    try:
        import h5py
        import numpy as np
    except ImportError as e:
        fail("plot needs Debian's python3-h5py (%s)" % e, 3)
    import os
    if not os.path.isfile(path):
        fail("%s: cannot open: %s" % (path, "No such file or directory" if not os.path.exists(path)
                                      else "not a regular file"))
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        fail("%s: not an HDF5 file, or a damaged one (%s)" % (path, e))
    with f:
        if "freq_hz" not in f or "status" not in f or "axes" not in f.attrs:
            fail("%s: not a map file written by pkmflex map (no /freq_hz, /status or axes)" % path)
        axes = f.attrs["axes"]
        axes = (axes.decode() if isinstance(axes, bytes) else str(axes)).split(",")
        grid = [f["grid"][a][...] for a in axes]
        units = []
        for a in axes:
            u = f["grid"][a].attrs.get("units", b"")
            units.append(u.decode() if isinstance(u, bytes) else str(u))
        m = {"axes": axes, "grid": grid, "units": units, "freq": f["freq_hz"][...],
             "status": f["status"][...],
             "tracked": f["tracked_mode"][...] if "tracked_mode" in f else None,
             "case": f.attrs.get("case", b""),
             "pose_names": text_attr(f, "pose_names").split(","),
             "base_pose": f.attrs.get("base_pose", None)}
    m["case"] = m["case"].decode() if isinstance(m["case"], bytes) else str(m["case"])
    m["swept"] = [k for k, g in enumerate(grid) if len(g) > 1]
    m["nev"] = m["freq"].shape[-1]
    m["np"] = np
    return m


def text_attr(f, name):
    v = f.attrs.get(name, b"")
    return v.decode() if isinstance(v, bytes) else str(v)


def fixed_text(m):
    """The pose coordinates the map holds fixed, "theta = -1.047 rad, ...": the one-point axes
    and the base pose's coordinates no axis sweeps (a picture without them is of no pose)."""
    parts = []
    for k, name in enumerate(m["pose_names"]):
        if name in m["axes"]:
            a = m["axes"].index(name)
            if a in m["swept"]:
                continue
            v, unit = float(m["grid"][a][0]), m["units"][a]
        elif m["base_pose"] is not None and k < len(m["base_pose"]):
            v, unit = float(m["base_pose"][k]), ""
        else:
            continue
        parts.append("%s = %.4g%s" % (name, v, " " + unit if unit else ""))
    return ", ".join(parts)


def label(m, k):
    return "%s [%s]" % (m["axes"][k], m["units"][k]) if m["units"][k] else m["axes"][k]


def squeeze(m, arr):
    """arr over the grid with the axes of one point removed."""
    fixed = tuple(k for k in range(len(m["grid"])) if k not in m["swept"])
    return arr.reshape(tuple(s for k, s in enumerate(arr.shape) if k not in fixed)) \
        if fixed else arr


def mark(ax, m, status, coords):
    for s, (name, marker, colour) in MARKS.items():
        sel = status == s
        if sel.any():
            ax.scatter(*(c[sel] for c in coords), marker=marker, color=colour, s=28,
                       label="%s (%d)" % (name, int(sel.sum())), zorder=3)


def plot_2d(ax, fig, m, mode):
    np = m["np"]
    i, j = m["swept"]
    f = squeeze(m, m["freq"][..., mode - 1])
    st = squeeze(m, m["status"])
    X, Y = np.meshgrid(m["grid"][i], m["grid"][j], indexing="ij")
    pc = ax.pcolormesh(X, Y, np.ma.masked_invalid(f), shading="nearest", cmap="viridis")
    fig.colorbar(pc, ax=ax, label="f%d [Hz]" % mode)
    mark(ax, m, st, (X, Y))
    ax.set_xlabel(label(m, i))
    ax.set_ylabel(label(m, j))
    if m["units"][i] and m["units"][i] == m["units"][j]:
        ax.set_aspect("equal")  # x-y in metres: the workspace's true shape
    fixed = fixed_text(m)
    ax.set_title("%s: f%d over %s, %s%s" % (m["case"], mode, m["axes"][i], m["axes"][j],
                                           " at " + fixed if fixed else ""))


def plot_1d(ax, m, mode):
    np = m["np"]
    (i,) = m["swept"]
    x = m["grid"][i]
    f = squeeze(m, m["freq"])
    st = squeeze(m, m["status"])
    ids = squeeze(m, m["tracked"]) if m["tracked"] is not None else None
    if ids is None or (ids[st == 0] < 0).any():
        ids = np.where(st[:, None] == 0, np.arange(m["nev"])[None, :], -1)
    ok = np.flatnonzero(st == 0)
    wanted = range(m["nev"]) if mode is None else [ids[ok[0], mode - 1]]
    for t in wanted:
        y = np.full(len(x), np.nan)
        rows, ranks = np.nonzero(ids == t)
        y[rows] = f[rows, ranks]
        ax.plot(x, y, marker=".", label="mode %d" % (t + 1))
    lo = np.nanmin(f) if np.isfinite(f).any() else 0.0
    mark(ax, m, st, (x, np.full(len(x), lo)))
    ax.set_xlabel(label(m, i))
    ax.set_ylabel("frequency [Hz]")
    what = "tracked modes" if mode is None else "the mode of rank %d at %s = %g" % (
        mode, m["axes"][i], x[ok[0]])
    fixed = fixed_text(m)
    ax.set_title("%s: %s%s" % (m["case"], what, " at " + fixed if fixed else ""))


def main(argv):
    a = parse_args(argv)
    m = load(a.map)
    if a.mode is not None and not 1 <= a.mode <= m["nev"]:
        fail("--mode %d: the map has modes 1 to %d" % (a.mode, m["nev"]))
    if len(m["swept"]) not in (1, 2):
        fail("%s sweeps %d axes: plot draws 1 (curves) or 2 (a colour map); "
             "pkmflex export --vtk for ParaView" % (a.map, len(m["swept"])))
    if not (m["status"] == 0).any():
        fail("%s: no pose was computed" % a.map)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        fail("plot needs Debian's python3-matplotlib (%s)" % e, 3)
    dpi = 100
    fig, ax = plt.subplots(figsize=(a.width / dpi, a.height / dpi), dpi=dpi)
    if len(m["swept"]) == 2:
        plot_2d(ax, fig, m, a.mode or 1)
    else:
        plot_1d(ax, m, a.mode)
    if ax.get_legend_handles_labels()[0]:  # marks or curves to name
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=4, fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(a.output, dpi=dpi, format="png")
    except OSError as e:
        fail("%s: cannot write (%s)" % (a.output, e), 3)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
