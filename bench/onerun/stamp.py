#!/usr/bin/env python3
"""Times a program's own progress lines, for truth.py.

    stamp.py LOG -- COMMAND [ARG...]

Runs COMMAND, reads its standard output and, for every line "STEP n",
records the seconds since stamp.py started and n; other lines pass through.
At the end it writes LOG.PID in truth.c's format (user and system time
columns 0: truth.py reads the steps) and exits with the command's status.
"""
import os
import subprocess
import sys
import time


def main():
    log, cmd = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
    t0 = time.monotonic()
    rec = []
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
    n = 0
    for line in p.stdout:
        if line.startswith("STEP "):
            n = int(line.split()[1])
            rec.append((time.monotonic() - t0, n))
        else:
            sys.stdout.write(line)
    rc = p.wait()
    with open("%s.%d" % (log, os.getpid()), "w") as f:
        for t, k in rec:
            f.write("%.3f %d 0 0\n" % (t, k))
        f.write("END %.3f %d 0 0 0\n" % (time.monotonic() - t0, n))
    sys.exit(rc)


if __name__ == "__main__":
    main()
