#!/usr/bin/env python3
"""How the progress clock reads in the one run's settling parts.

    settle.py ONE_RUN.json LOG.PID

ONE_RUN.json is `memplan profile --one-run --out` of `truth` (truth.c), LOG.PID
the log that run wrote (wall, steps, user, sys every 0.1 s). For the settling
part and the counted part of each kind of slice (reference; constrained with
the command's footprint under its limit throughout, "unbound"; constrained
with it at or over its limit, "bound") it prints the user CPU seconds the job
spent per million steps, over the reference slices' counted parts: above 1,
the clock reads more progress than the job made there.
"""
import bisect
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth import one_run  # noqa: E402 (the one run's report in a profile)


def size(x):
    if isinstance(x, (int, float)):
        return x
    m = re.match(r"([\d.]+)\s*(\w+)", x)
    return float(m.group(1)) * {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[m.group(2)]


def main():
    rep = one_run(json.load(open(sys.argv[1])))
    log = [list(map(float, l.split())) for l in open(sys.argv[2]) if not l.startswith("END")]
    ts = [l[0] for l in log]

    def at(t, k):
        i = min(max(bisect.bisect_left(ts, t), 1), len(log) - 1)
        a, b = log[i - 1], log[i]
        w = 0 if b[0] == a[0] else (t - a[0]) / (b[0] - a[0])
        return a[k] + w * (b[k] - a[k])

    sums = {}
    for s in rep["slices"]:
        if s.get("ramp") or s.get("cut"):
            continue
        kind = "reference"
        if s["fit"] > 0:
            lim = size(s.get("limit_bytes", 0))
            kind = "unbound" if lim > 0 and size(s["footprint_bytes"]) < lim else "bound"
        t0 = s["start_s"]
        t1 = t0 + s["settle_wall_s"]
        t2 = t1 + s["wall_s"]
        for part, a, b in (("settling", t0, t1), ("counted", t1, t2)):
            steps = at(b, 1) - at(a, 1)
            user = at(b, 2) - at(a, 2)
            k = (kind, part)
            n, st, us, wall = sums.get(k, (0, 0, 0, 0))
            sums[k] = (n + 1, st + steps, us + user, wall + b - a)
    n, st, us, _ = sums[("reference", "counted")]
    ref = us / st
    print("| slices | part | n | wall s | user s per step, over the references' counted parts |")
    print("|---|---|---|---|---|")
    for (kind, part), (n, st, us, wall) in sorted(sums.items()):
        print(f"| {kind} | {part} | {n} | {wall:.1f} | {us / st / ref:.3f} |")


main()
