//go:build linux

// Package host is everything memplan does to the machine, and the only
// place it does it (with measure/device, which opens its test file with
// O_DIRECT itself).
//
//   - Host is the interface: kernel attributes read and written, cgroup
//     and working directories created and removed, swap files made and
//     enabled, zram configured, loop devices bound, the journal's file
//     replaced. OSHost implements it on a root directory ("/" for the real
//     machine, a fixture tree in tests; see hosttest.Fake).
//   - Parsers of what the kernel reports (/proc/swaps, meminfo, vmstat,
//     PSI, memory.stat, zram mm_stat, mountinfo), separate from reading.
//   - The journal (Journal, Entry, the Op names) and the host lock: every
//     change is recorded before it is made and undone newest first when the
//     run ends, fails or is interrupted, and by `memplan probe cleanup`
//     after a kill -9. The state directory is given by the caller; commands
//     read it from the environment with StateDir.
//   - Confinement: the cgroups below which every run of the probe and the
//     profiler is placed, the per-run leaves, and the counters sampled at
//     the edges of a run.
//   - Swap targets (the directory, its filesystem and block device), swap
//     files, zram (setup and its own latency), and the host facts a report
//     records.
//   - sys.go: the system calls the workload child and the profile's
//     launcher make on their own memory and files; cpustat.go: the host's
//     CPU time and a thread's wait for a CPU (measure.Assess).
//
// Below it, measure/host/emulate is a swap device with a drive's latency
// (a FUSE server and a direct-I/O loop device) whose state the journal
// records as OpEmulator, and measure/host/hosttest the tests' fixture host.
package host
