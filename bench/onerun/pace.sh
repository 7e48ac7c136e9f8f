#!/usr/bin/env bash
# The pace of whole runs of a command under a fixed memory limit, sampled
# through the run: where in the run a limit costs, and whether a phase's
# cost under a limit is steady or changes within the phase (which tells
# whether the one run's slices, a second or two each, can see it).
#
#   sudo bench/onerun/pace.sh OUT PEAK SPEC... -- COMMAND ARGS...
#
# PEAK is the command's footprint in GiB (resident plus swapped, as
# --peak). Each SPEC is one run of COMMAND in a memory cgroup (v1), with
# a 4 GiB swap file in SWAP_DIR (default /var/tmp):
#   F      the limit at F x PEAK from the start (0: no limit, in RAM);
#   F@T    no limit until the cgroup holds T GiB, then F x PEAK, written
#          with the command's processes stopped, as the one run lowers it.
# The command is pinned to CPU ${CPU:-0}; run the script itself on another
# CPU (taskset -c 1) so the sampler does not take the command's CPU.
# Every 0.2 s the sampler logs to OUT/runN.SPEC.tsv: the time, the user and
# system ticks of all processes in the cgroup with their reaped children
# (utime+cutime, stime+cstime), the cgroup's usage, its swap, and its major
# faults (memory.stat); OUT's earlier runs are removed first.
# bench/onerun/pace.py prints the pace window by window. Needs root and
# cgroup v1. Undone on exit, Ctrl-C and SIGTERM (a child that outlives the
# command included), and after kill -9 by the next run or
# bench/onerun/recover.sh (hostguard.sh).
set -euo pipefail
out=$1 peak=$2
shift 2
specs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	specs+=("$1")
	shift
done
[ "${1:-}" = -- ] || { echo "usage: pace.sh OUT PEAK SPEC... -- COMMAND ARGS..." >&2; exit 2; }
shift
[ -d /sys/fs/cgroup/memory ] || { echo "pace.sh: needs the cgroup v1 memory controller" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
. "$here/hostguard.sh"
swapfile=${SWAP_DIR:-/var/tmp}/memplan-pace.swap
job=
guard_job_begin
mkdir -p "$out"
rm -f "$out"/run*.tsv "$out"/run*.tsv.limit "$out/summary" # an earlier run's would mix in
guard_note swapfile "$swapfile"
fallocate -l 4G "$swapfile"
chmod 600 "$swapfile"
mkswap "$swapfile" >/dev/null
swapon "$swapfile"
bytes() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d\n", a * b * 1073741824 }'; }
n=0
for spec in "${specs[@]}"; do
	n=$((n + 1))
	fit=${spec%@*} at=
	[ "$spec" != "$fit" ] && at=${spec#*@}
	lim=$(bytes "$fit" "$peak")
	from=0
	[ -n "$at" ] && from=$(bytes "$at" 1)
	cg=/sys/fs/cgroup/memory/memplan-pace-$$-$n
	guard_note cgroup "$cg"
	mkdir "$cg"
	[ "$fit" != 0 ] && [ -z "$at" ] && echo "$lim" >"$cg/memory.limit_in_bytes"
	sync
	echo 1 >/proc/sys/vm/drop_caches
	log=$out/run$n.$spec.tsv
	: >"$log"
	(echo $BASHPID >"$cg/cgroup.procs" && exec taskset -c "${CPU:-0}" "$@") &
	job=$!
	guard_note pid "$job"
	t0=$(date +%s.%N)
	lowered=
	while kill -0 "$job" 2>/dev/null; do
		procs=$(cat "$cg/cgroup.procs")
		ticks=$(for p in $procs; do
			s=$(cat "/proc/$p/stat" 2>/dev/null) || continue
			s=${s##*) }
			set -- $s
			echo "${12} ${14} ${13} ${15}"
		done | awk '{u += $1 + $2; s += $3 + $4} END {print u + 0, s + 0}')
		use=$(cat "$cg/memory.usage_in_bytes")
		read -r swap majflt < <(awk '$1 == "total_swap" {s = $2} $1 == "total_pgmajfault" {m = $2} END {print s + 0, m + 0}' "$cg/memory.stat")
		echo "$(date +%s.%N) $ticks $use $swap $majflt" >>"$log"
		if [ -n "$at" ] && [ -z "$lowered" ] && [ $((use + swap)) -ge "$from" ]; then
			for p in $procs; do kill -STOP "$p"; done
			echo "$lim" >"$cg/memory.limit_in_bytes"
			for p in $procs; do kill -CONT "$p"; done
			lowered=1
			echo "limit $(date +%s.%N)" >"$log.limit"
		fi
		guard_sleep 0.2
	done
	wait "$job" || true
	job=
	echo "$spec wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" | tee -a "$out/summary"
	rmdir "$cg"
	swapoff "$swapfile"
	swapon "$swapfile"
done
