"""pkmflex: natural frequencies of parallel robots, from Python.

A thin layer over libpkmflex (the C library of the ``pkmflex`` command): every number is
computed by the library, called as the command line calls it, so that ``Case('navaro').modes(
(0, 0, 0), nev=4).freq_hz`` holds the very doubles that ``pkmflex modes navaro --pose 0,0,0
--nev 4`` prints. Results are NumPy arrays in SI units (Hz for frequencies). See docs/python.md.

    >>> import pkmflex
    >>> case = pkmflex.Case('navaro', **{'material.E': 70e9})
    >>> m = case.modes((0, 0, 0), nev=4)
    >>> m.freq_hz                       # Hz
    >>> fmap = case.map({'x': (-0.2, 0.2, 21), 'y': (-0.2, 0.2, 21)}, pose=(0, 0, -1.0472))
    >>> fmap.freq_hz.shape              # (21, 21, 8)

Failures of the library raise :class:`pkmflex.Error` with the library's message and status.
"""
from __future__ import annotations

import math
import os
import numbers

import numpy as np

from . import _core
from ._core import Error

__all__ = ["Case", "Modes", "Map", "Fit", "Error", "read_map", "cases", "quantity",
           "library_version", "STATUS"]
__version__ = "0.1.0"

#: The library's status codes by name (pkm/status.h): ``STATUS['PKM_ERR_INVALID'] == -2``.
STATUS = {name: getattr(_core, name) for name in dir(_core) if name.startswith("PKM_")}

#: Map pose status codes (pkm/map.h, the map file's /status).
POSE_PENDING, POSE_OK, POSE_UNREACHABLE, POSE_SINGULAR, POSE_FAILED = -1, 0, 1, 2, 3

_FORMULATIONS = _core.names("formulation")
_SOLVERS = _core.names("eigensolver")


def library_version():
    """(version, commit) of the libpkmflex this package runs on (what a map file records)."""
    return _core.library_version()


def quantity(text, unit):
    """A quantity in the SI unit ``unit``: a number, or text with a unit of the same dimension
    (``quantity('210 mm', 'm') == 0.21``), parsed by the library (pkm_quantity_parse)."""
    if isinstance(text, numbers.Real) and not isinstance(text, bool):
        return float(text)
    if isinstance(text, str):
        return _core.quantity(text, unit)
    raise TypeError(f"{text!r}: expected a number or a quantity text in {unit or 'no unit'}")


def cases():
    """The built-in cases: a list of dicts with name, description, pose_names, and whether
    each has a finite-element model (modal) and a rigid-body model (dynamics)."""
    return [dict(name=n, description=d, pose_names=p, modal=mo, dynamics=dy)
            for n, d, p, mo, dy in _core.cases()]


def _index(names, value, what):
    if value is None:
        return -1
    if isinstance(value, str) and value in names:
        return names.index(value)
    raise Error(f"{what} '{value}': expected one of {', '.join(names)}")


def _param_text(value):
    """A parameter value as the text of --set: floats exactly (repr round-trips), ints,
    choice names and quantities with units as given."""
    if isinstance(value, bool):
        raise TypeError("a case parameter is a number, a quantity text or a choice name, "
                        "not a bool")
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if not math.isfinite(value):
            return repr(value)
        return repr(value)
    if isinstance(value, str):
        return value
    raise TypeError(f"case parameter value {value!r}: expected a number or a string")


class Case:
    """A robot: a built-in case (``'navaro'``, ``'pss5upu'``, ...) or a case file (a name with
    a '/' or ending in .yaml), with parameters set by their dotted keys, the keys of the
    command line's ``--set`` (``pkmflex cases --show NAME`` lists them)::

        Case('navaro', **{'material.E': 70e9, 'link_length': '210 mm'})
        Case('my_navaro.yaml', params={'elements_per_link': 4})

    Values are SI numbers, or text with a unit (``'74 GPa'``), or an enumerated parameter's
    choice name; ``params`` is applied first, then the keywords, each in order, after the
    case file (as ``--set`` after the file). An unknown key or a value out of its range raises
    :class:`Error` (status PKM_ERR_INVALID) naming it.

    Attributes: ``name``, ``description``, ``pose_names`` (e.g. ``['x', 'y', 'theta']``),
    ``pose_units`` (SI: ``['m', 'm', 'rad']``), ``home`` (the default pose, SI),
    ``formulation`` (the case's own: 'tree' or 'nodal'), ``parameters`` (``{key: value}``,
    SI, as resolved).
    """

    def __init__(self, name_or_file, params=None, **kw_params):
        sets = []
        for source in (params or {}), kw_params:
            for key, value in dict(source).items():
                sets.append((str(key), _param_text(value)))
        self._sets = sets
        self._source = str(name_or_file)
        self._h = _core.CaseHandle(str(name_or_file), sets)
        info = self._h.info()
        self._info = info
        self.name = info["name"]
        self.description = info["description"]
        self.file = info["file"]
        self.pose_names = list(info["pose_names"])
        self.pose_units = list(info["pose_units"])
        self.home = info["home"]
        self.formulation = info["formulation"]

    @property
    def parameters(self):
        """Every parameter of the case's table as resolved: ``{key: value}`` (SI float, int or
        choice name)."""
        return {k: v[0] for k, v in self._h.info()["parameters"].items()}

    def parameter_info(self):
        """``{key: (value, SI unit, help)}`` of every parameter of the case's table."""
        return dict(self._h.info()["parameters"])

    def __repr__(self):
        sets = ", ".join(f"{k}={v}" for k, v in self._sets)
        return f"pkmflex.Case({self.file or self.name!r}{', ' + sets if sets else ''})"

    # -- poses -------------------------------------------------------------------------------
    def _pose(self, pose):
        """A pose as npose SI floats: a sequence of numbers or quantity texts ('10 mm', '5
        deg'), or a dict {coordinate: value} over the home pose; None: home."""
        if pose is None:
            return None
        if isinstance(pose, dict):
            values = list(self.home)
            for key, value in pose.items():
                if key not in self.pose_names:
                    raise Error(f"pose: '{key}' is not a pose coordinate of {self.name} "
                                f"({', '.join(self.pose_names)})")
                k = self.pose_names.index(key)
                values[k] = quantity(value, self.pose_units[k])
            return values
        if isinstance(pose, str):
            pose = pose.split(",")
        values = list(np.asarray(pose, dtype=object).ravel())
        if len(values) != len(self.pose_names):
            raise Error(f"pose: expected {len(self.pose_names)} values "
                        + ", ".join(f"{n} [{u}]" for n, u in zip(self.pose_names, self.pose_units))
                        + f", got {len(values)}")
        return [quantity(v, u) for v, u in zip(values, self.pose_units)]

    # -- analyses ----------------------------------------------------------------------------
    def modes(self, pose=None, nev=8, *, formulation=None, solver="arpack", max_accuracy=None,
              vectors=False, shapes=True, describe=True):
        """The lowest ``nev`` natural frequencies at one pose, as ``pkmflex modes CASE --pose
        P --nev N`` computes them (the same library calls, the same doubles).

        pose: the pose coordinates (``pose_names``, SI: m, rad), a sequence of numbers or of
        texts with units, or a dict over ``home``; None: ``home``. formulation: 'tree' or
        'nodal' (default: the case's own); solver: 'arpack' (as ``modes``), 'dense' or
        'block'; max_accuracy: the largest accepted accuracy estimate (default 1e-3).
        vectors: also keep the M-orthonormal mode vectors of the reduced coordinates;
        shapes: the nodal displacements of every mode; describe: the platform's twist,
        effective masses and strain energies (``modes --describe``).

        Returns :class:`Modes`. Raises :class:`Error` (the library's message and status:
        PKM_ERR_UNREACHABLE for a pose out of the workspace, PKM_ERR_SINGULAR for a
        mechanism mode, PKM_ERR_ACCURACY above max_accuracy, ...).
        """
        r = self._h.modes(self._pose(pose), int(nev),
                          _index(_FORMULATIONS, formulation, "formulation"),
                          max(_index(_SOLVERS, solver, "solver"), 0),
                          float(max_accuracy or 0.0), bool(vectors), bool(shapes),
                          bool(describe))
        return Modes(r)

    def map(self, grid, nev=8, threads=1, *, pose=None, formulation=None, solver="block",
            keep_modes=False, mac_threshold=0.8, cluster_tol=1e-5, output=None):
        """Natural frequencies over a regular grid of poses, as ``pkmflex map CASE --grid G
        --pose P --nev N --threads T -o OUTPUT`` computes them (the same sweep: the warm-started
        block eigensolver by default, mode tracking by MAC).

        grid: ``{'x': (start, stop, count), 'y': (...)}`` (ordered; start and stop in SI or
        texts with units) or the command line's text ``'x=-0.2:0.2:41,y=-0.2:0.2:41'``.
        pose: the coordinates not swept (default ``home``). threads: worker processes
        (forked; see docs/python.md). keep_modes: also return the mode vectors (``--modes``).
        output: also write the map file there (HDF5, docs/hdf5-layout.md).

        Returns :class:`Map`. A pose that cannot be computed is data (``status``), not an
        exception. Ctrl-C (KeyboardInterrupt) stops the sweep as it stops ``pkmflex map``:
        the exception's ``partial`` attribute holds the :class:`Map` of the poses done
        (status POSE_PENDING elsewhere), also written to OUTPUT.partial when output is given.
        """
        axes = self._grid(grid)
        sets = ";".join(f"{k}={v}" for k, v in self._sets)
        try:
            r = self._h.map(axes, self._pose(pose), int(nev),
                            _index(_FORMULATIONS, formulation, "formulation"),
                            max(_index(_SOLVERS, solver, "solver"), 0), int(threads),
                            float(mac_threshold), float(cluster_tol), bool(keep_modes), sets,
                            None if output is None else str(output))
        except KeyboardInterrupt as e:
            if isinstance(getattr(e, "partial", None), dict):
                e.partial = Map(e.partial)
            raise
        return Map(r)

    def transient(self, trajectory=None, dt=1e-3, *, duration=None, start=None, damping=None,
                  rayleigh=None, gravity=False, initial=None, drives="locked", wrench=None,
                  frequencies=0, update_every=1, singular=None, formulation=None):
        """Elastodynamics along a trajectory (the KED method, Newmark's average acceleration),
        as ``pkmflex transient CASE`` computes it (pkm_transient_run, the same options).

        trajectory: None (the case's default), a named trajectory of the case, a CSV file of
        samples (a name with a '/' or ending in .csv; header t,<pose coordinates>),
        ``'harmonic:COORD,AMPLITUDE,FREQUENCY'``, or samples ``(t, q)``: times [m] (s) and
        poses [m, npose] (SI), interpolated by a not-a-knot spline. dt: time step (s);
        duration, start (s): default the trajectory's span. damping: Rayleigh damping from two
        ratios, ``'0.02@40,0.02@150'`` (at frequencies in Hz) or ``'0.02@mode1,0.02@mode3'``
        (at modes of the start pose), or ``((0.02, 40.0), (0.02, 150.0))``; rayleigh: ``(l1,
        l2)`` for C = l1 M + l2 K (1/s, s). gravity: load with the case's gravity; initial:
        'zero' or 'static' (default: static with gravity); drives: 'locked' or 'elastic';
        wrench: six numbers (N, N m) on the platform, or a CSV file (t,fx,fy,fz,mx,my,mz);
        frequencies: the lowest K natural frequencies at every update; update_every: steps
        between reassemblies (0: fixed at the start pose); singular: the rigid closure's
        conditioning threshold.

        Returns a structured NumPy array, one row per step, with the command's csv columns
        (one description, pkm_transient_columns): t (s), ex, ey, ez (m), rx, ry, rz (rad) the
        platform's elastic error, ``drive_<joint>`` per actuated joint (N or N m),
        ``defl_<joint>`` (elastic drives; rad or m), f1..fK (Hz), qs_ex .. qs_rz (the
        quasi-static error K^-1 F), kinetic, strain, dissipated, work (J), updated (1.0 where
        M, K were reassembled) and conditioning (the locked closure's). Ctrl-C stops the run:
        the KeyboardInterrupt's ``partial`` holds the rows so far.
        """
        kind, name, coord, amp, freq, t, q = _trajectory_spec(self, trajectory)
        l1 = l2 = z1 = z2 = 0.0
        m1 = m2 = 0
        if damping is not None and rayleigh is not None:
            raise Error("damping and rayleigh: give one of them")
        if rayleigh is not None:
            l1, l2 = (float(v) for v in rayleigh)
            if not (math.isfinite(l1) and l1 >= 0 and math.isfinite(l2) and l2 >= 0):
                raise Error(f"rayleigh {rayleigh}: expected L1,L2, both >= 0")
        if damping is not None:
            pairs = damping
            if isinstance(damping, str):
                pairs = [p.split("@") for p in damping.split(",")]
                if len(pairs) != 2 or any(len(p) != 2 for p in pairs):
                    raise Error(f"damping '{damping}': expected ZETA1@F1,ZETA2@F2 (F in Hz) or "
                                "ZETA1@modeN1,ZETA2@modeN2")
            (z1, at1), (z2, at2) = pairs
            z1, z2 = float(z1), float(z2)
            if isinstance(at1, str) and at1.startswith("mode"):
                m1, m2 = int(at1[4:]), int(str(at2)[4:])
                if m1 < 1 or m2 < 1 or m1 == m2:
                    raise Error(f"damping '{damping}': two different mode numbers from 1")
                if not (z1 >= 0 and z2 >= 0):
                    raise Error(f"damping '{damping}': damping ratios must be >= 0")
            else:
                l1, l2 = _core.rayleigh(z1, float(at1), z2, float(at2))
        if drives not in ("locked", "elastic"):
            raise Error(f"drives '{drives}': expected locked or elastic")
        if initial not in (None, "zero", "static"):
            raise Error(f"initial '{initial}': expected zero or static")
        wrench_file = None
        if isinstance(wrench, str):
            wrench_file, wrench = wrench, None
        r = self._h.transient(
            kind, name, coord, amp, freq, t, q, float(dt),
            math.nan if duration is None else float(duration),
            math.nan if start is None else float(start), l1, l2, m1, m2, z1, z2, bool(gravity),
            -1 if initial is None else int(initial == "static"), drives == "elastic",
            wrench, wrench_file, int(frequencies), int(update_every),
            0.0 if singular is None else float(singular),
            _index(_FORMULATIONS, formulation, "formulation"))
        return _transient_rows(r)

    def dynamics(self, trajectory=None, times=None, *, friction=None, singular=None,
                 wrench=None, per_time=False, inertia=False, engine=None, forward=False,
                 forces=None, step=None):
        """Rigid-body inverse dynamics along a trajectory, as ``pkmflex dynamics CASE``
        computes it (pkm_dynamics_run: the closure followed by continuation, every joint's
        drive and reaction, the case's gravity and friction).

        trajectory: as for :meth:`transient`. times: ``(t0, t1, n)``, n >= 2 times from t0 to
        t1 (s); default 101 over the trajectory's span. friction: 'none', 'coulomb-viscous' or
        'stribeck' instead of the case's friction.model (its data: the case's friction.*
        parameters); singular: the closure's conditioning threshold; wrench: an external load
        on the platform at its reference point, six numbers (N, N m, global axes) or a CSV
        file (t,fx,fy,fz,mx,my,mz), as ``--wrench``.

        Returns a structured NumPy array, one row per time and joint (joint order), the
        command's csv columns: t (s), joint, type (str), q, qd, qdd (rad or m and their rates;
        the first coordinate of a joint, relative to the build configuration), drive, ideal,
        friction (N m or N), f_axial, f_radial (N), m_bending (N m). per_time: the per-time
        table instead, as ``--per-time`` (one row per time: t, the pose, the contact forces,
        residual, conditioning, then the case's own columns); inertia: with them the case's
        inertia quantities, as ``--inertia`` (masticatory: M_A and MCI, Cheng et al. 2024). The
        columns' units: ``units`` in the array's dtype metadata. engine: 'chain', 'mbs' or
        'mbs-dense', as ``--engine``; default the fastest that takes the run (chain for the
        module chains boom1 and crane4, mbs else); the one that ran: ``engine`` in the dtype
        metadata. forward: the forward run instead, as ``--forward`` (RK4 from the trajectory's
        state at t0 under the drives of its inverse dynamics, or of ``forces``, a CSV file of
        the actuated joints' drives, header t and their names; ``step`` the largest RK4 step, s,
        default the grid's spacing): the joint table holds the drives applied, the per-time
        table ``deviation``, ``balance``, ``friction_work``. Ctrl-C stops the run: the
        KeyboardInterrupt's ``partial`` holds the rows so far (as a dict).
        """
        case = self
        if friction is not None:
            if friction not in ("none", "coulomb-viscous", "stribeck"):
                raise Error(f"friction '{friction}': expected none, coulomb-viscous or stribeck")
            case = Case(self._source, params=dict(self._sets + [("friction.model", friction)]))
        kind, name, coord, amp, freq, t, q = _trajectory_spec(self, trajectory)
        t0, t1, n = (math.nan, math.nan, 0) if times is None else times
        wrench_file = None
        if isinstance(wrench, str):
            wrench_file, wrench = wrench, None
        r = case._h.dynamics(kind, name, coord, amp, freq, t, q, float(t0), float(t1), int(n),
                             0.0 if singular is None else float(singular), wrench, wrench_file,
                             bool(inertia), engine, bool(forward),
                             None if forces is None else os.fspath(forces),
                             0.0 if step is None else float(step))
        return _dynamics_per_time(r) if per_time else _dynamics_rows(r)

    def fit(self, table, params, *, kind=None, weights=None, match="order", gap=0.25,
            max_iter=100, jacobian="sensitivity", multistart=True, formulation=None,
            solver="arpack"):
        """Model updating, as ``pkmflex fit CASE --table TABLE --param ...`` (pkm_fit_run, the
        same options): the case parameters that fit the table's frequencies best (weighted
        relative errors, least squares, GSL's bounded solver; include/pkm/fit.h).

        table: a CSV table of reference frequencies (the command's --table: id, pose in SI,
        frequencies in Hz) or ``(pose [rows, npose], freq_hz [rows, columns])`` (NaN: an empty
        cell). params: the parameters to fit, each the command's text ``'KEY[=START][:MIN:MAX]'``
        (values in the parameter's unit or with one) or a tuple ``(key, start, lo, hi)`` (SI;
        None for the case's value or no bounds). kind: only the table's rows of that kind;
        weights: one per frequency column; match: 'order' or 'nearest' (with gap, relative);
        jacobian: 'sensitivity' or 'fd'.

        Returns :class:`Fit`. The case itself is left unchanged (``Fit.case`` is a new Case
        with the fitted values). Raises :class:`Error`; when the solver stops without meeting
        its test, an Error with status PKM_ERR_NOCONV whose ``result`` is the last state.
        """
        info = self._h.info()["parameters"]
        keys, start, lo, hi = [], [], [], []
        for spec in params:
            if isinstance(spec, str):
                head, _, bounds = spec.partition(":")
                key, eq, st = head.partition("=")
                if key not in info:
                    raise Error(f"fit: '{key}' is not a parameter of case {self.name}")
                unit = info[key][1]
                a = quantity(st, unit) if eq else None
                b = c = None
                if bounds:
                    parts = bounds.split(":")
                    if len(parts) != 2:
                        raise Error(f"fit: '{spec}': bounds are :MIN:MAX")
                    b, c = quantity(parts[0], unit), quantity(parts[1], unit)
                spec = (key, a, b, c)
            key, a, b, c = (tuple(spec) + (None, None, None))[:4]
            if (b is None) != (c is None):
                raise Error(f"fit: '{key}': give both bounds or none")
            keys.append(str(key))
            start.append(math.nan if a is None else float(a))
            lo.append(math.nan if b is None else float(b))
            hi.append(math.nan if c is None else float(c))
        if isinstance(table, (str, bytes)) or hasattr(table, "__fspath__"):
            _, pose, freq, kinds = _core.read_table(str(table), len(self.pose_names))
            if kind is not None:
                if kinds is None:
                    raise Error(f"kind {kind}: {table} has no kind column")
                rows = [i for i, k in enumerate(kinds) if k == kind]
                if not rows:
                    raise Error(f"kind {kind}: {table} has no row of that kind")
                pose, freq = pose[rows], freq[rows]
        else:
            pose, freq = table
        pose = np.ascontiguousarray(pose, dtype=float).reshape(len(freq), -1)
        freq = np.ascontiguousarray(freq, dtype=float)
        if freq.ndim == 1:
            freq = freq.reshape(1, -1)
        w = None if weights is None else np.ascontiguousarray(weights, dtype=float)
        if match not in ("order", "nearest"):
            raise Error(f"match '{match}': expected order or nearest")
        if jacobian not in ("sensitivity", "fd"):
            raise Error(f"jacobian '{jacobian}': expected sensitivity or fd")
        r = self._h.fit(pose, freq, w, keys, start, lo, hi, match == "nearest", float(gap),
                        int(max_iter), jacobian == "fd", bool(multistart),
                        _index(_FORMULATIONS, formulation, "formulation"),
                        max(_index(_SOLVERS, solver, "solver"), 0))
        message = r.pop("message")
        result = Fit(keys, r, self)
        if message:
            e = Error(message)
            e.status, e.status_name = STATUS["PKM_ERR_NOCONV"], "PKM_ERR_NOCONV"
            e.result = result
            raise e
        return result

    def _grid(self, grid):
        if isinstance(grid, str):
            items = []
            for part in grid.split(","):
                if "=" not in part:
                    raise Error(f"grid '{grid}': expected AXIS=START:STOP:COUNT[,...]")
                name, spec = part.split("=", 1)
                fields = spec.split(":")
                if len(fields) != 3:
                    raise Error(f"grid '{grid}': expected AXIS=START:STOP:COUNT for '{name}'")
                items.append((name.strip(), (fields[0], fields[1], fields[2])))
        else:
            items = list(dict(grid).items())
        axes = []
        for name, spec in items:
            if name not in self.pose_names:
                raise Error(f"grid: '{name}' is not a pose coordinate of {self.name}")
            unit = self.pose_units[self.pose_names.index(name)]
            start, stop, count = spec
            try:
                count = int(count)
            except (TypeError, ValueError):
                raise Error(f"grid: COUNT of axis '{name}' must be an integer >= 1") from None
            axes.append((name, quantity(start, unit), quantity(stop, unit), count))
        return axes


def _trajectory_spec(case, trajectory):
    """A trajectory argument as the extension takes it: (kind, name, coord, amp, freq, t, q)."""
    kind, name, coord, amp, freq, t, q = 0, None, 0, 0.0, 0.0, None, None
    if isinstance(trajectory, str):
        n = len(trajectory)
        if trajectory.startswith("harmonic:"):
            fields = trajectory[9:].split(",")
            if len(fields) != 3 or fields[0] not in case.pose_names:
                raise Error(f"trajectory '{trajectory}': expected harmonic:COORD,AMPLITUDE,"
                            f"FREQUENCY with COORD a pose coordinate of {case.name}")
            kind, coord = 1, case.pose_names.index(fields[0])
            try:
                amp, freq = float(fields[1]), float(fields[2])
            except ValueError:
                raise Error(f"trajectory '{trajectory}': AMPLITUDE and FREQUENCY must be "
                            "numbers") from None
        elif "/" in trajectory or (n > 4 and trajectory.endswith(".csv")):
            kind, name = 2, trajectory
        else:
            name = trajectory
    elif trajectory is not None:
        kind = 3
        t, q = trajectory
        t = np.ascontiguousarray(t, dtype=float)
        q = np.ascontiguousarray(q, dtype=float).reshape(len(t), -1)
    return kind, name, coord, amp, freq, t, q


def _transient_rows(r):
    names = r["columns"]   # pkm_transient_columns: the command's csv columns
    data = r["data"]
    if data.shape[1] != len(names):   # no row (cannot happen: step 0 is a row)
        data = np.zeros((0, len(names)))
    dtype = np.dtype([(n, np.float64) for n in names])
    return np.ascontiguousarray(data).view(dtype).reshape(-1)


_JOINT_TYPES = ("clamped", "revolute", "prismatic", "spherical", "universal", "helical")


def _dynamics_per_time(r):
    names = ["t"] + list(r["columns"])
    units = dict(zip(r["columns"], r["units"]), t="s")
    out = np.zeros(len(r["per_time"]), dtype=np.dtype([(n, np.float64) for n in names],
                                                      metadata={"units": units,
                                                                "engine": r["engine"]}))
    for k, n in enumerate(names):
        out[n] = r["per_time"][:, k]
    return out


def _dynamics_rows(r):
    names = ["t", "joint", "type", "q", "qd", "qdd", "drive", "ideal", "friction", "f_axial",
             "f_radial", "m_bending"]
    data = r["data"].reshape(-1, 11)
    joints = list(r["joints"])
    types = [_JOINT_TYPES[k % 16] + ("-cut" if k >= 16 else "") for k in r["types"]]
    width = max([len(j) for j in joints] + [1])
    dtype = [("t", np.float64), ("joint", f"U{width}"), ("type", "U16")]
    dtype += [(n, np.float64) for n in names[3:]]
    out = np.zeros(len(data), dtype=np.dtype(dtype, metadata={"engine": r["engine"]}))
    out["t"] = data[:, 0]
    idx = data[:, 1].astype(int)
    out["joint"] = np.array(joints, dtype=f"U{width}")[idx] if len(data) else []
    out["type"] = np.array(types, dtype="U16")[idx] if len(data) else []
    for k, n in enumerate(names[3:]):
        out[n] = data[:, 2 + k]
    return out


class Fit:
    """The result of :meth:`Case.fit` (SI units).

    keys: the fitted parameters; start, value, std_err [nparam]: their start, fitted value and
    standard error; corr [nparam, nparam]: correlations; parameters: {key: fitted value};
    rms_start, rms: the root mean square weighted relative error at the start and the end;
    nres: paired values; iterations, passes, converged; ref_hz [rows, columns]: the table;
    freq_hz [rows, columns]: the computed frequency paired with each value (NaN: unpaired);
    pair, mult [rows, columns]: the pairing (the mode index from 0, -1 unpaired; the modes it
    stands for); case: a new :class:`Case` with the fitted values.
    """

    def __init__(self, keys, d, case):
        self.keys = list(keys)
        self.__dict__.update(d)
        self.converged = bool(self.converged)
        self.parameters = dict(zip(self.keys, (float(v) for v in self.value)))
        sets = dict(case._sets)
        sets.update(self.parameters)
        self.case = Case(case.file or case.name, params=sets)

    def __repr__(self):
        vals = ", ".join(f"{k}={v:.6g}" for k, v in self.parameters.items())
        return f"pkmflex.Fit({vals}, rms {100 * self.rms:.4f} %)"


class Modes:
    """The result of :meth:`Case.modes` (units SI; arrays indexed by mode, lowest first).

    freq_hz: natural frequencies, Hz. omega2: eigenvalues w^2, rad^2/s^2. residual: relative
    residuals ||K x - w^2 M x|| / ||K x||. backward_error: normwise backward errors.
    accuracy: estimates of the relative error of freq_hz from rounding (``modes`` flags them
    above 1e-6). orth_error: max |X^T M X - I|. zero_modes: leading zero-energy modes.
    n_reduced, n_total: independent coordinates, coordinates before loop closure.
    vectors (with ``vectors=True``): [nev, n_reduced] M-orthonormal mode vectors.
    shapes: [nev, nodes, 6] nodal displacements of the M-normalised modes (m, rad; global
    axes), node_xyz [nodes, 3] (m), node_body [nodes] (body index, see body_names).
    Describe quantities (``modes --describe``): twist [nev, 6] the platform's twist (m, rad per
    unit modal amplitude), eff_mass [nev, 6] effective masses (kg, kg m^2; inf where the mode
    does not move that direction), energy [nev] strain energy (J, = w^2/2), leg_energy [nev,
    legs], joint_energy [nev, joints], body_energy [nev, bodies] (J), with body_names and
    joint_names.
    """

    def __init__(self, d):
        self.__dict__.update(d)

    def __len__(self):
        return len(self.freq_hz)

    def __repr__(self):
        return f"pkmflex.Modes(freq_hz={np.array2string(self.freq_hz, precision=6)})"


class Map:
    """A frequency map (:meth:`Case.map` or :func:`read_map`). Arrays are shaped by the grid:
    ``shape`` = the axis counts, in the order of ``axes``.

    axis_names, axis_units, axis_values (one array per axis, SI), base_pose (the coordinates
    not swept), status [shape] (int8: POSE_OK 0, POSE_UNREACHABLE 1, POSE_SINGULAR 2,
    POSE_FAILED 3, POSE_PENDING -1), freq_hz [shape + (nev,)] (Hz, NaN where status != 0),
    residual, accuracy [shape + (nev,)], tracked_mode [shape + (nev,)] (the physical mode id
    at each rank, -1 where not OK), tracking_mac [shape + (nev,)] (MAC of the link that gave
    the id), tracking_parent [shape] (row-major index of the point the ids came from, -1),
    closure_conditioning [shape] (the locked closure's conditioning, below 1e-3 near-singular;
    NaN where the model was not built),
    tracking ('mac' or 'rank'), tracking_note, modes [shape + (nev, ncoord)] when kept;
    case, parameters (as resolved), formulation, solver, nev, version, commit.
    """

    def __init__(self, d):
        axes = d.pop("axes")
        self.__dict__.update(d)
        self.axis_names = [a[0] for a in axes]
        self.axis_units = [a[1] for a in axes]
        self.axis_values = [a[6] for a in axes]
        self.shape = tuple(a[5] for a in axes)

    def by_mode(self):
        """freq_hz reordered by tracked mode id: [shape + (nev,)], column j the mode with id
        j (NaN where not OK); the ranks where tracking == 'rank'."""
        out = np.full_like(self.freq_hz, np.nan)
        ok = self.tracked_mode >= 0
        idx = np.where(ok, self.tracked_mode, 0)
        np.put_along_axis(out, idx, np.where(ok, self.freq_hz, np.nan), axis=-1)
        out[~ok.all(axis=-1)] = np.nan
        return out

    def counts(self):
        """Points per status: {'ok', 'unreachable', 'singular', 'failed', 'pending'}."""
        s = self.status
        return {"ok": int((s == 0).sum()), "unreachable": int((s == 1).sum()),
                "singular": int((s == 2).sum()), "failed": int((s == 3).sum()),
                "pending": int((s == -1).sum())}

    def __repr__(self):
        grid = ", ".join(f"{n}: {len(v)}" for n, v in zip(self.axis_names, self.axis_values))
        return f"pkmflex.Map({self.case}, {{{grid}}}, nev={self.nev}, {self.counts()})"


def read_map(path):
    """The map file at path (written by ``pkmflex map`` or ``Case.map(output=...)``) as a
    :class:`Map`; mode vectors included if the file has them. Raises :class:`Error`
    (PKM_ERR_IO, PKM_ERR_PARSE) naming the file."""
    return Map(_core.read_map(str(path)))
