# Time a probe's undo: SIGTERM mid-run of the swap-file stage at the lowest
# fit (most pages on the swap file), until the probe exits. Root; run it
# under the probe tests' lock:
#   flock /tmp/memplan-probe-tests.lock python3 bench/probe-undo.py 1536MiB 4 ./memplan
# (data size, seconds into the fit-0.5 run, memplan binary). Figures in
# bench/results/fleet-undo-2026-12-01.md.
import subprocess, tempfile, time, signal, sys, re
size = sys.argv[1]
out = tempfile.mkdtemp() + "/undo.json"
p = subprocess.Popen([sys.argv[3] if len(sys.argv) > 3 else "memplan", "probe", "--quick", "--backends", "file", "--data-size", size, "--fit", "0.9,0.5", "--reps", "2",
    "--device-profile=false", "--swap-dir", "/var/tmp", "--out", out, "--force"],
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
sent = None
for line in p.stderr:
    if sent is None and re.search(r"file fit 0.9 \[1/", line):
        # the next run is fit 0.5: wait until its child has pushed pages out
        time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 3)
        swaps = open("/proc/swaps").read()
        print(swaps.strip())
        p.send_signal(signal.SIGTERM); sent = time.time()
    if sent is not None:
        print("  ", line.rstrip())
p.wait()
print("data %s: SIGTERM to exit %.2fs, exit code %d" % (size, time.time() - sent, p.returncode))
