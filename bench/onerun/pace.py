#!/usr/bin/env python3
"""Prints bench/onerun/pace.sh's runs window by window.

    python3 bench/onerun/pace.py OUT [WINDOW_S] [MIN_GIB]

For each run (OUT/runN.SPEC.tsv): its wall, user and system time and
major faults, then one line per WINDOW_S seconds of wall time (default 2)
in which the cgroup held at least MIN_GIB (default 0: every window): the
user time made, the pace (wall per second of user time), the footprint
(usage plus swap), the swap, and the major faults. A pace of 1.0 is a
single-threaded command computing all the time; under a limit the pace
rises by the time lost to paging (the user time itself includes what this
host charges of kernel time to user time: see the one run's leak).
"""
import glob
import os
import sys

GIB = 2 ** 30


def load(path):
    rows = []
    for line in open(path):
        f = line.split()
        if len(f) == 6:
            rows.append([float(x) for x in f])
    if not rows:
        return [], None
    t0 = rows[0][0]
    lowered = None
    if os.path.exists(path + ".limit"):
        lowered = float(open(path + ".limit").read().split()[1]) - t0
    # wall s, user s, system s, footprint GiB, swap GiB, major faults
    return [(r[0] - t0, r[1] / 100, r[2] / 100, (r[3] + r[4]) / GIB, r[4] / GIB, r[5]) for r in rows], lowered


def main():
    out = sys.argv[1]
    window = float(sys.argv[2]) if len(sys.argv) > 2 else 2
    least = float(sys.argv[3]) if len(sys.argv) > 3 else 0
    runs = sorted(glob.glob(os.path.join(out, "run*.tsv")),
                  key=lambda p: int(os.path.basename(p)[3:].split(".")[0]))
    for path in runs:
        rows, lowered = load(path)
        if not rows:
            continue
        last = rows[-1]
        print("== %s: wall %.1f s, user %.1f s, system %.1f s, major faults %d%s" % (
            os.path.basename(path), last[0], last[1], last[2], last[5],
            ", limit lowered at %.1f s" % lowered if lowered is not None else ""))
        start = rows[0]
        for r in rows[1:]:
            if r[0] - start[0] < window and r is not last:
                continue
            if max(start[3], r[3]) >= least:
                du = r[1] - start[1]
                pace = (r[0] - start[0]) / du if du > 0 else float("inf")
                print("  %6.1f-%6.1f s  user %5.2f s  pace %5.2f  footprint %.2f GiB  swap %.2f GiB  faults %7d" % (
                    start[0], r[0], du, pace, r[3], r[4], r[5] - start[5]))
            start = r


if __name__ == "__main__":
    main()
