#!/usr/bin/env bash
# How a job's pace under a memory limit evolves after the limit drops,
# against a whole run under the same limit: runs the step-counting job
# (truth.c, 512 MiB, 95% of its steps in the first eighth, pinned to
# CPU 0) in a memory cgroup with zram as swap, once per MODE:
#   whole:F  the limit at F x 513 MiB from the start;
#   hold:F   no limit for 8 s, then F x 513 MiB (written with the job
#            stopped) for HOLD seconds (default 30), then none again.
# The job logs its wall time, steps, user and system time every 0.1 s
# (OUT/job.MODE.log.PID); a sampler logs the cgroup's major faults every
# 0.5 s (OUT/flt.MODE). Needs root; zram0 must be free; undone on exit,
# and after kill -9 by the next run or bench/onerun/recover.sh.
#
#   sudo bench/onerun/hold.sh OUT whole:0.75 hold:0.75 ...
set -euo pipefail
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/hostguard.sh"
cg=/sys/fs/cgroup/memory/memplan-hold-$$
job=
smp=
cleanup() {
	[ -n "$smp" ] && kill "$smp" 2>/dev/null
	[ -n "$job" ] && kill -CONT "$job" 2>/dev/null && kill "$job" 2>/dev/null
	sleep 0.3
	guard_undo
}
guard_begin
trap cleanup EXIT
trap "exit 130" INT
trap "exit 143" TERM
mkdir -p "$out"
cc -O2 -o "$out/truth" "$here/truth.c"
modprobe zram num_devices=1 2>/dev/null || true
grep -q zram0 /proc/swaps && { echo "zram0 is in use as swap" >&2; exit 1; }
hold=${HOLD:-30}
for m in "$@"; do
	mode=${m%%:*}
	fit=${m#*:}
	lim=$(python3 -c "print(int($fit * 513 * 2**20))")
	guard_note zram0
	echo 1 >/sys/block/zram0/reset
	echo lz4 >/sys/block/zram0/comp_algorithm
	echo 2G >/sys/block/zram0/disksize
	mkswap /dev/zram0 >/dev/null
	swapon -p 100 /dev/zram0
	guard_note cgroup "$cg"
	mkdir -p "$cg"
	[ "$mode" = whole ] && echo "$lim" >"$cg/memory.limit_in_bytes"
	tag=$mode.$fit.$(date +%H%M%S)
	(t0=$(date +%s.%N); while :; do
		echo "$(echo "$(date +%s.%N) - $t0" | bc) $(awk '/^total_pgmajfault/{print $2}' "$cg/memory.stat")"
		sleep 0.5
	done) >"$out/flt.$tag" 2>/dev/null &
	smp=$!
	guard_note pid "$smp"
	sh -c "echo \$\$ > $cg/cgroup.procs; exec taskset -c 0 $out/truth 512 ${STEPS:-13000000} 3000 $out/job.$tag.log 95" >/dev/null &
	job=$!
	guard_note pid "$job"
	if [ "$mode" = hold ]; then
		guard_sleep 8
		kill -STOP "$job"
		taskset -c 1 sh -c "echo $lim > $cg/memory.limit_in_bytes"
		kill -CONT "$job"
		echo "$tag: dropped at $(date +%T)"
		guard_sleep "$hold"
		echo -1 >"$cg/memory.limit_in_bytes"
	fi
	wait "$job" || true
	job=
	kill "$smp"; smp=
	rmdir "$cg"
	swapoff /dev/zram0
	echo "$tag: done $(tail -1 $out/job.$tag.log.*)"
done
