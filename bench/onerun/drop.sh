#!/usr/bin/env bash
# How long a cgroup v1 memory limit takes to drop, with the job running
# and with it stopped: builds truth.c, runs it (512 MiB, pinned to CPU 0)
# in a memory cgroup with zram as swap, and three times lowers the limit
# to 45% of its footprint from a shell on CPU 1 (after 3 s without a
# limit), then lifts it again 4 s later. Prints each drop's write time;
# the job's own log (OUT/job.MODE.log.PID: wall, steps, user, system time
# every 0.1 s) shows its pace through the drop. Needs root; zram0 must be
# free; everything is undone on exit, and after kill -9 by the next run
# or bench/onerun/recover.sh (hostguard.sh).
#
#   sudo bench/onerun/drop.sh OUT [running|stopped]...
set -euo pipefail
out=$1
shift
modes=("${@:-running stopped}")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/hostguard.sh"
cg=/sys/fs/cgroup/memory/memplan-drop-$$
job=
guard_job_begin
mkdir -p "$out"
cc -O2 -o "$out/truth" "$here/truth.c"
modprobe zram num_devices=1 2>/dev/null || true
grep -q zram0 /proc/swaps && { echo "zram0 is in use as swap" >&2; exit 1; }
for mode in ${modes[@]}; do
	guard_note zram0
	echo 1 >/sys/block/zram0/reset
	echo 2G >/sys/block/zram0/disksize
	mkswap /dev/zram0 >/dev/null
	swapon -p 100 /dev/zram0
	guard_note cgroup "$cg"
	mkdir -p "$cg"
	sh -c "echo \$\$ > $cg/cgroup.procs; exec taskset -c 0 $out/truth 512 ${STEPS:-5000000} 3000 $out/job.$mode.log 95" >/dev/null &
	job=$!
	guard_note pid "$job"
	for i in 1 2 3; do
		guard_sleep 3
		t0=$(date +%s.%N)
		[ "$mode" = stopped ] && kill -STOP "$job"
		taskset -c 1 sh -c "echo $((230 << 20)) > $cg/memory.limit_in_bytes"
		[ "$mode" = stopped ] && kill -CONT "$job"
		echo "$mode: drop $i took $(echo "$(date +%s.%N) - $t0" | bc) s"
		guard_sleep 4
		echo -1 >"$cg/memory.limit_in_bytes"
	done
	wait "$job" || true
	job=
	rmdir "$cg"
	swapoff /dev/zram0
done
