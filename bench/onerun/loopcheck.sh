#!/usr/bin/env bash
# Two memplan binaries' one runs of the same command, interleaved, REPS
# times each, and what their slicing did: cycles, slices per fit, payback
# slices, the extra wall time, and the curve. For a change to how the one
# run is driven that should not change what it does.
#
#   sudo [REPS=2] [BACKEND=zram] bench/onerun/loopcheck.sh OUTDIR OLD NEW FITS [ONE-RUN OPTION...] -- COMMAND [ARG...]
set -euo pipefail
out=$1 old=$2 new=$3 fits=$4; shift 4
opts=()
while [ "$1" != "--" ]; do opts+=("$1"); shift; done
shift
reps=${REPS:-2}
backend=${BACKEND:-zram}
mkdir -p "$out"
common=(--one-run --fits "$fits" --backend "$backend" --stdout /dev/null --force "${opts[@]}")
[ "$backend" = file ] && common+=(--swap-dir "${SWAP_DIR:-/var/tmp}")
for rep in $(seq 1 "$reps"); do
	for which in old new; do
		bin=$old
		[ "$which" = new ] && bin=$new
		echo "== rep $rep: $which ($bin)" >&2
		"$bin" profile "${common[@]}" --out "$out/$which.$rep.json" -- "$@" >"$out/$which.$rep.txt" 2>&1
	done
done
python3 - "$out" "$reps" <<'PY'
import json, sys, collections
out, reps = sys.argv[1], int(sys.argv[2])
print("| run | cycles | slices (ref/payback/fits) | slices per fit | extra | curve |")
print("|---|---|---|---|---|---|")
for rep in range(1, reps + 1):
    for which in ("old", "new"):
        d = json.load(open(f"{out}/{which}.{rep}.json"))
        o = d["extra"]["one_run"]
        sl = o["slices"]
        refs = sum(1 for s in sl if s["fit"] == 0 and not s.get("payback"))
        pay = sum(1 for s in sl if s.get("payback"))
        per = collections.Counter(s["fit"] for s in sl if s["fit"] > 0)
        curve = d["curves"][0]["points"]
        print(f"| {which} {rep} | {o['cycles']} | {len(sl)} ({refs}/{pay}/{len(sl)-refs-pay}) | "
              + " ".join(f"{f:g}:{n}" for f, n in sorted(per.items(), reverse=True))
              + f" | {100*o['extra_share']:+.0f}% | "
              + " ".join(f"{p['fit']:g}:{p['slowdown']:.2f}" for p in curve) + " |")
PY
