#!/usr/bin/env python3
"""The one run's progress clock read with other leaks, against whole runs.

    reread.py LEAKS DIR...

For every NAME.one.K.json in each DIR (bench/onerun/compare.sh's files)
with whole runs beside it (NAME.multi.*.json, their mean per fit is the
truth), re-estimates the one run with each leak in LEAKS (comma-separated;
"m" is the leak the run measured) through measure/profile's TestReread
(built with -tags reread; REREAD_TEST names a prebuilt test binary) and
prints per run and leak the mean and largest |error| over the fits both
measured, then the same over all runs per backend and per backend and
program, for each leak.
"""
import glob, json, os, statistics, subprocess, sys

leaks = sys.argv[1]
dirs = sys.argv[2:]
here = os.path.dirname(os.path.abspath(__file__))
test = os.environ.get("REREAD_TEST")


def reread(files):
    args = ["-test.run", "TestReread", "-test.v", "-test.count", "1"]
    env = dict(os.environ, REREAD_LEAKS=leaks)
    if test:
        cmd = [test] + args + files
    else:
        cmd = ["go", "test", "-tags", "reread", "-run", "TestReread", "-v", "-count=1",
               "./measure/profile", "-args"] + files
    out = subprocess.run(cmd, env=env, capture_output=True, text=True,
                         cwd=os.path.join(here, "..", ".."), check=True).stdout
    res = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0].endswith(".json"):
            res[(f[0], f[1])] = (float(f[2]), [float(x) for x in f[3:]])
    return res


rows = []
for d in dirs:
    for one in sorted(glob.glob(f"{d}/*.one.*.json")):
        name = os.path.basename(one).split(".one.")[0]
        multi = sorted(glob.glob(f"{d}/{name}.multi.*.json"))
        if not multi:
            continue
        truth = {}
        for m in multi:
            for p in json.load(open(m))["extra"]["phases"][0]["points"]:
                if p["slowdown"]["n"]:
                    truth.setdefault(p["fit"], []).append(p["slowdown"]["mean"])
        doc = json.load(open(one))
        ph = doc["extra"]["phases"][0]
        fits = [p["fit"] for p in ph["points"]]
        rows.append((one, name, ph.get("backend", "?"), fits, {f: statistics.mean(v) for f, v in truth.items()}))

res = reread([r[0] for r in rows])
per = {}
print("| run | backend | leak | " + " | ".join(["mean/max |err|"]) + " |")
print("|---|---|---|---|")
for one, name, backend, fits, truth in rows:
    for l in leaks.split(","):
        if (one, l) not in res:
            continue
        leak, vals = res[(one, l)]
        errs = [abs(v / truth[f] - 1) for f, v in zip(fits, vals) if v > 0 and f in truth]
        if not errs:
            continue
        per.setdefault((backend, l), []).append(errs)
        per.setdefault((backend + " " + name, l), []).append(errs)
        print(f"| {one} | {backend} | {l} ({leak:.2f}) | {100*statistics.mean(errs):.0f}% / {100*max(errs):.0f}% |")
print()
print("| backend | leak | runs | mean of the runs' mean |err| | runs over 10% mean | largest |err| |")
print("|---|---|---|---|---|---|")
for (backend, l), es in sorted(per.items()):
    means = [statistics.mean(e) for e in es]
    print(f"| {backend} | {l} | {len(es)} | {100*statistics.mean(means):.1f}% | {sum(m > 0.10 for m in means)} | {100*max(max(e) for e in es):.0f}% |")
