#!/bin/bash
# How long undoing a full swap file takes: swapoff of a swap file that holds
# SIZES MiB of a live process's pages (the worst case of a probe's undo: swap is
# host-wide, so other processes' pages may sit on the probe's swap file).
# Root, cgroup v1. Run it under the probe tests' lock:
#   flock /tmp/memplan-probe-tests.lock bench/swapoff-time.sh
# Figures in bench/results/fleet-undo-2026-12-01.md.
set -u
F=/var/tmp/memplan-bench-swapoff
CG=/sys/fs/cgroup/memory/memplan-bench-swapoff
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	swapoff "$F" 2>/dev/null
	rm -f "$F" "$F.out"
	[ -d "$CG" ] && rmdir "$CG"
}
trap cleanup EXIT
swapon --show
for size in ${SIZES:-512 1536}; do
	dd if=/dev/zero of="$F" bs=1M count=$((size + 64)) status=none
	chmod 600 "$F"; mkswap -q "$F"; swapon -p 32766 "$F"
	mkdir -p "$CG"; echo 128M > "$CG/memory.limit_in_bytes"
	sh -c "echo \$\$ > $CG/cgroup.procs; exec python3 -c '
import os, time
b = bytearray(os.urandom(1<<20)) * $size
print(\"ready\", flush=True)
time.sleep(600)'" > "$F.out" &
	PID=$!
	for i in $(seq 1 120); do
		sw=$(awk '/VmSwap/ {print $2}' /proc/$PID/status 2>/dev/null || echo 0)
		grep -q ready "$F.out" && [ "${sw:-0}" -gt $((size * 1024 * 85 / 100)) ] && break
		sleep 1
	done
	echo "size ${size}MiB: VmSwap ${sw} kB"
	echo -1 > "$CG/memory.limit_in_bytes"
	s=$(date +%s.%N); swapoff "$F"; e=$(date +%s.%N)
	echo "swapoff of ${sw} kB on the file: $(echo "$e - $s" | bc) s"
	kill "$PID"; wait "$PID" 2>/dev/null; PID=
	rm -f "$F"; rmdir "$CG"
done
