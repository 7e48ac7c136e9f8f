#!/usr/bin/env bash
# One run against whole runs: for one command, REPS times (interleaved):
#   1. a multi-run profile with one run per fit (the whole-run truth, with
#      its own in-RAM runs);
#   2. the one run (memplan profile --one-run).
# WHOLE=0 skips step 1 when OUTDIR already has it for this NAME and rep;
# ONE_ARGS adds options to the one run only (e.g. ONE_ARGS="--peak 3GiB").
# Then analyse.py prints the table. Needs root (memplan profile does).
#
#   sudo bench/onerun/compare.sh OUTDIR NAME [FITS] -- COMMAND [ARG...]
set -euo pipefail
out=$1 name=$2; shift 2
fits=0.9,0.75,0.6,0.45
if [ "$1" != "--" ]; then fits=$1; shift; fi
[ "$1" = "--" ] && shift
reps=${REPS:-2}
backend=${BACKEND:-zram}
swapdir=${SWAP_DIR:-/var/tmp}
memplan=${MEMPLAN:-memplan}
mkdir -p "$out"
common=(--fits "$fits" --backend "$backend" --stdout /dev/null --force)
[ "$backend" = file ] && common+=(--swap-dir "$swapdir")
for rep in $(seq 1 "$reps"); do
	if [ "${WHOLE:-1}" != 0 ] || [ ! -s "$out/$name.multi.$rep.json" ]; then
		echo "== $name rep $rep: whole runs" >&2
		"$memplan" profile "${common[@]}" --runs 1 --readahead=false --device-profile=false \
			--out "$out/$name.multi.$rep.json" -- "$@" >"$out/$name.multi.$rep.txt" 2>&1
	fi
	echo "== $name rep $rep: one run" >&2
	# shellcheck disable=SC2086 # ONE_ARGS is a list of options
	"$memplan" profile "${common[@]}" --one-run ${ONE_ARGS:-} --out "$out/$name.one.$rep.json" -- "$@" >"$out/$name.one.$rep.txt" 2>&1
done
python3 "$(dirname "$0")/analyse.py" "$out" "$name"
