#!/usr/bin/env python3
"""Checks a one run's progress clock against a job that logs its own progress.

    truth.py ONE_RUN.json LOG.PID [LEAKS]

ONE_RUN.json is `memplan profile --one-run --out` of `truth` (truth.c), LOG.PID
the log that run wrote. For every constrained slice it prints the true slowdown
(steps per wall second in the reference slices on either side, over the
slice's) next to the clock's (wall per progress over the same references')
with the progress read as user time less LEAK/(1-LEAK) of system time, for
each LEAK in LEAKS (default: 0, the run's measured leak, and 0.5). Then the
mean and largest error per reading.
"""
import bisect
import json
import sys


def one_run(o):
    if isinstance(o, dict):
        if "slices" in o and "budget_share" in o:
            return o
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            r = one_run(v)
            if r:
                return r
    return None


def main():
    rep = one_run(json.load(open(sys.argv[1])))
    log = [list(map(float, l.split())) for l in open(sys.argv[2]) if not l.startswith("END")]
    measured = (rep.get("accounting_leak") or {}).get("user_share_of_kernel_time", 0)
    leaks = [float(x) for x in sys.argv[3].split(",")] if len(sys.argv) > 3 else [0, measured, 0.5]
    ts = [l[0] for l in log]

    def steps_at(t):
        i = min(max(bisect.bisect_left(ts, t), 1), len(log) - 1)
        a, b = log[i - 1], log[i]
        f = (t - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 0
        return a[1] + f * (b[1] - a[1])

    sl = rep["slices"]

    def steps(s):
        t = s["start_s"] + s["settle_wall_s"]
        return steps_at(t + s["wall_s"]) - steps_at(t)

    def prog(s, leak):
        p = s["progress_s"] - leak / (1 - leak) * s.get("sys_s", 0)
        return max(p, 0.05 * s["progress_s"])

    def refs(i):
        out = []
        for d in (-1, 1):
            j = i + d
            while 0 <= j < len(sl):
                if sl[j]["fit"] == 0 and sl[j]["wall_s"] > 0 and sl[j]["progress_s"] > 0:
                    out.append(sl[j])
                    break
                j += d
        return out

    print("measured leak %.3f; clocks in the file: %s" % (measured, rep.get("clocks")))
    print("fit    true " + " ".join("leak=%.2f" % l for l in leaks))
    errs = {l: [] for l in leaks}
    agg = {}  # fit -> [wall, true in-RAM seconds, {leak: in-RAM seconds by the clock}]
    for i, s in enumerate(sl):
        if s["fit"] == 0 or s["wall_s"] <= 0 or s["progress_s"] <= 0:
            continue
        rs = refs(i)
        n = steps(s)
        if not rs or n <= 0:
            continue
        true = (sum(steps(r) for r in rs) / sum(r["wall_s"] for r in rs)) / (n / s["wall_s"])
        row = []
        a = agg.setdefault(s["fit"], [0.0, 0.0, {l: 0.0 for l in leaks}])
        a[0] += s["wall_s"]
        a[1] += s["wall_s"] / true
        for l in leaks:
            ref = sum(r["wall_s"] for r in rs) / sum(prog(r, l) for r in rs)
            est = s["wall_s"] / prog(s, l) / ref
            row.append(est)
            errs[l].append(est / true - 1)
            a[2][l] += s["wall_s"] / est
        print("%.2f %7.2f " % (s["fit"], true) + " ".join("%9.2f" % x for x in row))
    # The run's cost: its wall time against its steps at the pace of the
    # reference slices (what memplan estimates with the clock).
    rw = sum(x["wall_s"] for x in sl if x["fit"] == 0 and x["wall_s"] > 0 and x["progress_s"] > 0)
    rs = sum(steps(x) for x in sl if x["fit"] == 0 and x["wall_s"] > 0 and x["progress_s"] > 0)
    end = [l for l in open(sys.argv[2]) if l.startswith("END")]
    if rw > 0 and rs > 0 and end:
        wall, total = float(end[0].split()[1]), float(end[0].split()[2])
        inram = total / (rs / rw)
        print("cost: %.1fs wall against %.1fs in RAM at the references' pace: %+.0f%% (memplan said %.1fs, %+.0f%%)"
              % (wall, inram, 100 * (wall / inram - 1), rep.get("in_ram_estimate_s", 0), 100 * rep.get("extra_share", 0)))
    print("per fit, over its slices (wall over in-RAM time):")
    print("fit    true " + " ".join("leak=%.2f" % l for l in leaks))
    ferr = {l: [] for l in leaks}
    for f in sorted(agg, reverse=True):
        w, t, by = agg[f]
        print("%.2f %7.3f " % (f, w / t) + " ".join("%9.3f" % (w / by[l]) for l in leaks))
        for l in leaks:
            ferr[l].append((w / by[l]) / (w / t) - 1)
    for l in leaks:
        e = ferr[l]
        print("leak %.2f: per fit mean |error| %.1f%%, max %.1f%%" % (l, 100 * sum(map(abs, e)) / len(e), 100 * max(map(abs, e))))
    for l in leaks:
        e = errs[l]
        if e:
            print("leak %.2f: mean error %+.0f%%, mean |error| %.0f%%, max |error| %.0f%% over %d slices"
                  % (l, 100 * sum(e) / len(e), 100 * sum(map(abs, e)) / len(e), 100 * max(map(abs, e)), len(e)))


if __name__ == "__main__":
    main()
