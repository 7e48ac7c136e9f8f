#!/usr/bin/env bash
# onepass-overhead.sh: what the one-pass sampler (measure/onepass) costs
# GNU sort and the Python dictionary workload, and what it predicts for them
# against the multi-run profiles shipped in examples/profile (measured on
# the project's test machine; pass --compare-dir to use fresh ones).
#
# usage: sudo bench/onepass-overhead.sh [--reps 3] [--duty 0.02] [--mib 200]
#                                       [--compare-dir examples/profile] [--keep DIR]
#
# Each program runs in a cgroup of its own, bare and sampled in turn
# (bare, sampled, sampled, bare, ...) after one warm-up run; the overhead is
# sampled / bare - 1 per pair, printed with its mean and 95% Student-t
# interval. The commands are the ones examples/profile/workload.yaml was
# profiled with: sort -S 300M on 200 MiB of random lines, and
# dict.py 1000000 1500000 8.
set -euo pipefail

reps=3 duty=0.02 mib=200
root=$(cd "$(dirname "$0")/.." && pwd)
cmpdir=$root/examples/profile
keep=
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--duty) duty=$2; shift 2 ;;
	--mib) mib=$2; shift 2 ;;
	--compare-dir) cmpdir=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	*) echo "onepass-overhead.sh: unknown argument $1 (see the usage at the top of the script)" >&2; exit 2 ;;
	esac
done
if [ "$(id -u)" != 0 ]; then
	echo "onepass-overhead.sh: run as root: the programs run in a memory cgroup of their own" >&2
	exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${keep:-$work}
mkdir -p "$out"
(cd "$root" && go build -o "$work/onepass" ./bench/onepass)
"$work/onepass" -gen-lines "$work/lines.txt:$mib"

echo "== GNU sort -S 300M, $mib MiB of lines"
"$work/onepass" -reps "$reps" -duty "$duty" -out "$out/sort.onepass.json" \
	-compare "$cmpdir/sort.profile.json" -- sort -S 300M "$work/lines.txt" -o /dev/null
echo
echo "== python3 dict.py 1000000 1500000 8"
"$work/onepass" -reps "$reps" -duty "$duty" -out "$out/python-dict.onepass.json" \
	-compare "$cmpdir/python-dict.profile.json" -- python3 "$root/examples/profile/dict.py" 1000000 1500000 8
