#!/usr/bin/env bash
# The 5-PSS/UPU against an independent model (cases/pss5upu/reference_modes.csv: 11 poses of each
# variant, first 8 frequencies, with the --set values that model the same structure): every
# frequency within 1e-6 relative, both eigensolvers. One exception, measured and explained: the
# spherical variant 1 mm off its singular centre, whose two near-mechanism modes (0.375 Hz, the
# elastic ones at 444 Hz) scale with the offset itself: d f1 / f1 = d x / x (f1 moves by 1.0e-6
# per 1 nm of x, measured), so the 2.6e-6 found there is what a 2.6 nm difference between the two
# models' geometries gives, while our sparse and dense solvers agree on it to 1.3e-7 (their
# accuracy estimates: 1e-7); 1e-5 there.
# usage: pss5upu_reference_test.sh PKMFLEX SOURCE_DIR
set -u
bin=$1
root=$2
exec python3 - "$bin" "$root/cases/pss5upu/reference_modes.csv" <<'PY'
import csv, subprocess, sys
binary, path = sys.argv[1], sys.argv[2]
rows = list(csv.reader(l for l in open(path) if not l.startswith("#")))
head, fails, worst, count = rows[0], 0, 0.0, 0
for row in rows[1:]:
    d = dict(zip(head, row))
    pose = ",".join(d[k] for k in ("x", "y", "z", "alpha", "beta"))
    for solver in ("arpack", "dense"):
        args = [binary, "modes", "pss5upu", "--pose", pose, "--nev", "8", "--format", "csv",
                "--solver", solver]
        for s in d["settings"].split(";"):
            args += ["--set", s]
        p = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            print(f"FAIL {d['model']} {d['label']} {solver}: exit {p.returncode}: {p.stderr.strip()}")
            fails += 1
            continue
        freq = [float(line.split(",")[1]) for line in p.stdout.strip().split("\n")[1:]]
        for k in range(8):
            ref = float(d[f"f{k + 1}"])
            err = abs(freq[k] / ref - 1.0)
            tol = 1e-5 if (d["model"], d["label"], k) in (
                ("spherical", "centre+x1mm", 0), ("spherical", "centre+x1mm", 1)) else 1e-6
            count += 1
            if tol == 1e-6:
                worst = max(worst, err)
            if not err <= tol:
                print(f"FAIL {d['model']} {d['label']} {solver} f{k + 1}: {freq[k]} against "
                      f"{ref} ({err:.2e} > {tol:g})")
                fails += 1
print(f"{count} frequencies of {len(rows) - 1} poses x 2 solvers; largest relative difference "
      f"outside the near-singular pose {worst:.2e}; {fails} failed")
sys.exit(1 if fails else 0)
PY
