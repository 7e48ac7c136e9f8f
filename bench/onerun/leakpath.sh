#!/usr/bin/env bash
# The accounting leak (the share of kernel time a tick-accounting kernel
# reports as user time) timed on the path a job's swap faults take: a
# process touching random pages of 64 MiB under a 32 MiB memory cgroup
# limit (leakloop.c), REPS times, on BACKEND (zram, or a swap file in
# SWAP_DIR). memplan's own leak loop (measure/host TimeSwapLoop) pushes
# pages out with MADV_PAGEOUT in its own process instead. Needs root, a
# cgroup v1 memory hierarchy and no other swap in use; undone on exit, and
# after kill -9 by the next run or bench/onerun/recover.sh.
#
#   sudo [BACKEND=file] [SWAP_DIR=/var/tmp] [REPS=3] bench/onerun/leakpath.sh OUT
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/hostguard.sh"
backend=${BACKEND:-zram}
swapfile=${SWAP_DIR:-/var/tmp}/memplan-leakpath.swap
cg=/sys/fs/cgroup/memory/memplan-leakpath-$$
cleanup() { guard_undo; }
guard_begin
trap cleanup EXIT
trap "exit 130" INT
trap "exit 143" TERM
[ -z "$(tail -n +2 /proc/swaps)" ] || { echo "swap is in use: $(tail -n +2 /proc/swaps)" >&2; exit 1; }
mkdir -p "$out"
cc -O2 -o "$out/leakloop" "$here/leakloop.c"
if [ "$backend" = file ]; then
	guard_note swapfile "$swapfile"
	dd if=/dev/zero of="$swapfile" bs=1M count=256 status=none
	chmod 600 "$swapfile"
	mkswap "$swapfile" >/dev/null
	swapon "$swapfile"
else
	modprobe zram num_devices=1 2>/dev/null || true
	guard_note zram0
	echo 1 >/sys/block/zram0/reset
	echo lz4 >/sys/block/zram0/comp_algorithm
	echo 512M >/sys/block/zram0/disksize
	mkswap /dev/zram0 >/dev/null
	swapon /dev/zram0
fi
guard_note cgroup "$cg"
mkdir "$cg"
echo $((32 << 20)) >"$cg/memory.limit_in_bytes"
for i in $(seq "${REPS:-3}"); do
	sh -c "echo \$\$ > $cg/cgroup.procs; exec taskset -c 0 $out/leakloop 64 2" | sed "s/^/$backend $i: /"
done
