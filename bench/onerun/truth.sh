#!/usr/bin/env bash
# The one run's progress clock against a job that logs its own progress:
# builds truth.c, runs it under `memplan profile --one-run` REPS times and
# prints, per run, truth.py's table (true slowdown per slice and per fit
# against each reading of the clock). Needs root (memplan profile does).
#
#   sudo bench/onerun/truth.sh OUTDIR [MIB STEPS WORK HOT]
#
# Defaults: 512 MiB, 12M steps of 3000 multiply-adds, 95% of the steps in
# the first eighth (about 60 s in RAM on the development VM, slowdowns
# 1.0-1.4 at fits 0.9-0.45 on zram). BACKEND=file SWAP_DIR=DIR for a swap
# file; MEMPLAN names the binary.
set -euo pipefail
out=$1
mib=${2:-512} steps=${3:-12000000} work=${4:-3000} hot=${5:-95}
reps=${REPS:-1}
backend=${BACKEND:-zram}
memplan=${MEMPLAN:-memplan}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cc -O2 -o "$out/truth" "$here/truth.c"
args=(--fits "${FITS:-0.9,0.75,0.6,0.45}" --backend "$backend" --stdout /dev/null --force)
[ "$backend" = file ] && args+=(--swap-dir "${SWAP_DIR:-/var/tmp}")
for rep in $(seq 1 "$reps"); do
	log="$out/truth.$rep.log"
	rm -f "$log".*
	"$memplan" profile "${args[@]}" --one-run --out "$out/truth.$rep.json" -- \
		"$out/truth" "$mib" "$steps" "$work" "$log" "$hot" >"$out/truth.$rep.txt" 2>&1
	echo "== rep $rep"
	python3 "$here/truth.py" "$out/truth.$rep.json" "$log".* "${LEAKS:-0,0.3,0.4,0.47,0.55}"
done
