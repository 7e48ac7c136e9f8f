#!/usr/bin/env python3
"""Tabulate bench/onerun/compare.sh's files: per fit the whole-run
slowdown, the one run's, each progress clock's, and their errors."""
import glob, json, statistics, sys

out, name = sys.argv[1], sys.argv[2]

def load(kind):
    return [json.load(open(f)) for f in sorted(glob.glob(f"{out}/{name}.{kind}.*.json"))]

multi, one, anch = load("multi"), load("one"), []
fits = [p["fit"] for p in multi[0]["extra"]["phases"][0]["points"]]
truth = {f: [] for f in fits}
ram_wall = []
for m in multi:
    ph = m["extra"]["phases"][0]
    ram_wall += [r["wall_s"] for r in ph["in_ram_runs"] if not r.get("failed")]
    for p in ph["points"]:
        if p["slowdown"]["n"]:
            truth[p["fit"]].append(p["slowdown"]["mean"])
base = statistics.mean(ram_wall)
print(f"{name}: in RAM {base:.2f}s (mean of {len(ram_wall)} runs, sd {statistics.pstdev(ram_wall):.2f})")

def point(d, f):
    for p in d["extra"]["phases"][0]["points"]:
        if abs(p["fit"] - f) < 1e-9:
            return p
    return None

rows = []
CLOCKS = ("user time", "less the leak", "less more than the leak")
print("fit   whole runs        one run (band)           err    anchored (band)          err    clocks: " + " / ".join(CLOCKS))
for f in fits:
    t = statistics.mean(truth[f]) if truth[f] else float("nan")
    tr = "/".join(f"{x:.2f}" for x in truth[f])
    cells = []
    for runs in (one, anch):
        vals = []
        for d in runs:
            p = point(d, f)
            s = p["slowdown"] if p else None
            if s and s["n"]:
                vals.append(f"{s['mean']:.2f} ({s['ci95_low']:.2f}-{s['ci95_high']:.2f})")
                rows.append((runs is anch, f, s["mean"] / t - 1, s["ci95_low"] <= t <= s["ci95_high"], (s["ci95_high"] - s["ci95_low"]) / 2 / s["mean"]))
            else:
                vals.append("not measured")
        errs = [r[2] for r in rows if r[0] == (runs is anch) and r[1] == f]
        cells.append(("; ".join(vals), "/".join(f"{100*e:+.0f}%" for e in errs)))
    clocks = []
    for d in one:
        c = d["extra"]["one_run"].get("clocks", {})
        i = fits.index(f)
        clocks.append("/".join(f"{c[k][i]:.2f}" for k in CLOCKS if k in c))
    print(f"{f:<5} {tr:<17} {cells[0][0]:<24} {cells[0][1]:<6} {cells[1][0]:<24} {cells[1][1]:<6} {'; '.join(clocks)}")
for anchored in (False, True):
    r = [x for x in rows if x[0] == anchored]
    if not r:
        continue
    e = [abs(x[2]) for x in r]
    print(f"{'anchored' if anchored else 'one run '}: mean |error| {100*statistics.mean(e):.0f}%, max {100*max(e):.0f}%; whole-run value inside the band at {sum(x[3] for x in r)} of {len(r)}; widest half-band {100*max(x[4] for x in r):.0f}%")
# The mean of the one runs at each fit against the mean of the whole runs:
# what repeating both buys.
me = []
for f in fits:
    t = statistics.mean(truth[f]) if truth[f] else None
    v = [point(d, f)["slowdown"]["mean"] for d in one if point(d, f) and point(d, f)["slowdown"]["n"]]
    if t and v:
        me.append(statistics.mean(v) / t - 1)
if len(one) > 1 and me:
    print(f"one run, mean of {len(one)} against the mean of the whole runs: mean |error| {100*statistics.mean(map(abs, me)):.0f}%, max {100*max(map(abs, me)):.0f}% ({'/'.join(f'{100*e:+.0f}%' for e in me)})")
for label, runs in (("one run", one), ("anchored", anch)):
    if not runs:
        continue
    ex = [d["extra"]["one_run"]["wall_s"] / base - 1 for d in runs]
    said = [d["extra"]["one_run"].get("extra_share_most", d["extra"]["one_run"]["extra_share"]) for d in runs]
    print(f"{label}: extra wall time over the in-RAM runs {'/'.join(f'{100*x:+.0f}%' for x in ex)}; memplan's account (at most) {'/'.join(f'{100*x:+.0f}%' for x in said)}")
