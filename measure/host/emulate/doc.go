//go:build linux

// Package emulate provides an emulated swap device whose reads and writes
// take a drive's latency, not only its IOPS: the Intel study's X25-E, X25-M
// and two-disk HDD RAID 0, which a test host does not have. blkio
// throttling can only cap IOPS, so it emulates the two SSDs alike and
// cannot reproduce a disk's 8 ms seek; kernels without a device-mapper
// delay target, null_blk or ublk still have FUSE and loop devices.
//
// # Design
//
//	job (memory cgroup) ──swap──▶ /dev/loopN (LO_FLAGS_DIRECT_IO, 4 KiB blocks)
//	    ──O_DIRECT──▶ <mountpoint>/disk (FUSE, FOPEN_DIRECT_IO, ASYNC_DIO)
//	    ──▶ server process: sleeps each request until the model's completion time
//
// The parts:
//
//   - The model (Device, model.go) is a drive as parallel units (flash
//     channels, disks of a RAID 0), each serving one request at a time for a
//     service time drawn from a distribution (Dist: a lognormal given by
//     median and p99, plus an optional uniform term for a disk's rotational
//     wait), behind a rate gate per direction that holds each request for
//     max(1/IOPS, bytes/bandwidth). A request continuing where a unit's last
//     one ended uses the Sequential distribution (a disk does not seek).
//     The queue (queue.go) is a real one: a request waits for its unit and
//     its gate, so IOPS and bandwidth saturate at depth as on the drive.
//     The presets' figures and their sources are in model.go.
//   - The server (Serve) runs in its own process, started by Start, which
//     re-executes /proc/self/exe with $MEMPLAN_EMULATE_SERVER holding the
//     Config; the binary's main (and a test binary's TestMain) calls
//     ServeIfChild first thing. The process is a new session (a Ctrl-C
//     meant for memplan does not reach it; SIGINT and SIGHUP are ignored,
//     SIGTERM stops it only once its file is no longer in use), stays in
//     the caller's cgroups (memplan is outside the job's), locks all its
//     memory (mlockall MCL_CURRENT|MCL_FUTURE), holds the data in an
//     anonymous mapping populated up front, and has oom_score_adj -1000.
//     The job can therefore neither page the server out nor have it
//     OOM-killed. A backing file was not used: its page cache could be
//     reclaimed by the pressure the server exists to serve, and a read
//     from it would add a second copy and its latency to every request.
//   - Each request records its arrival on CLOCK_MONOTONIC, gets its
//     completion time from the queue, copies its data, and sleeps in
//     clock_nanosleep(TIMER_ABSTIME) until then, with timer slack 1 ns,
//     nice -20 and GOMAXPROCS 256 (a Go timer would round sub-millisecond
//     waits up to a millisecond; see sleepUntil and Serve). The server
//     tracks the median of its own wake-up error and wakes that much early.
//   - Direct I/O end to end: the loop device is bound with
//     LO_FLAGS_DIRECT_IO (checked in sysfs loop/dio, an error if the kernel
//     fell back to buffered I/O) over the file opened with O_DIRECT, and
//     the file is opened FOPEN_DIRECT_IO, so no page cache answers for the
//     device; TestFloorRoot checks the server saw every read.
//
// # Seams for probe --emulate and the journal
//
//   - Start(ctx, dev, size, Options{Record: ...}) calls Record with the new
//     State after each host change and before the next one; State is JSON
//     (mount point, server PID and its start time, loop device, swap on) and
//     State.Changes lists the changes with their undo, in order.
//   - Emulator.AttachLoop, Emulator.SwapOn(prio), Emulator.Close (ordered:
//     swapoff, loop detach, unmount — lazily if busy — stop the server by
//     PID, remove the mount point; idempotent; goes on after a failure).
//     SwapOn takes 0 to MaxSwapPriority (32767): swapon(2) keeps a
//     priority's low 15 bits, so more would wrap to a low priority and
//     another swap area would take the device's pages. probe runs its
//     latency stages at 32767 with no other memplan swap area on.
//   - Cleanup(State) undoes a recorded State after kill -9 of the process
//     that made it; it kills the server only if the PID's start time is the
//     recorded one. Leftovers finds emulator mounts and their loop devices
//     without a State (by the fuse.memplan type and memplan-emulate source).
//   - MeasureFloor(ctx, at, opts) calibrates: Options.Compensation is taken
//     off every request's completion, not off the time its unit is busy
//     (see Floor for why it is measured at the device's median). Emulator.Stats reads the server's counters.
//   - RandomReads is a small O_DIRECT 4 KiB random-read benchmark of a block
//     device at a queue depth, for the checks; CheckHost says what the host
//     lacks (/dev/fuse, /dev/loop-control) and how to get it.
//
// # Accuracy
//
// What loop+FUSE add to a 4 KiB O_DIRECT read at QD1 (the floor) is tens
// to hundreds of microseconds and grows with the request's wait and the
// host's load; MeasureFloor calibrates it and Compensation takes it off.
// A disk's milliseconds come through within a few percent at QD1 and its
// queue model's IOPS at QD32; flash latencies of under about twice the
// floor do not (the X25-E and X25-M read at the floor), though their write
// side and their order do. TestFloorRoot, TestLatencyRoot and TestSwapRoot
// hold these (sudo go test -tags hosttest ./measure/host/emulate); the
// figures they gave are in bench/results/2026-12-emulate.md.
//
// # Limits
//
//   - Latencies below about twice the floor (the SSD presets) are not
//     reproduced; Compensation clips draws below it to zero, so the lower
//     tail is the floor's.
//   - Write caches, read-modify-write of flash pages, garbage collection and
//     NCQ reordering on the disks are not modelled; the SSD p99s are assumed.
//   - The server keeps one OS thread per request in service; the FUSE queue
//     allows 128 requests in flight (MaxBackground).
//   - If the server dies while swap is on, the swapped-out pages are lost:
//     their owners get I/O errors. TestKillCleanupRoot kills the server
//     with swap on but no page swapped out; with pages out, swapoff is
//     expected to succeed (the kernel poisons the unreadable entries) but
//     that is not tested.
package emulate
