// Package measure owns memplan's probe: everything that measures how much
// slower work gets when part of its memory lives on swap.
//
// It owns
//   - Host, the one interface through which the probe reads and changes the
//     machine (/proc and /sys files, cgroups, swapon/swapoff, swap files,
//     zram, zswap, sysctls), with OSHost as the real implementation rooted
//     at a directory so the logic runs against fixture trees in tests;
//   - parsers for the kernel files it reads (/proc/swaps, meminfo, vmstat,
//     PSI, memory.stat, zram mm_stat), kept apart from the reading;
//   - the journal: every change to the host is recorded before it is made and
//     undone in reverse order when the probe ends, fails or is interrupted,
//     and by `memplan probe cleanup` after a kill -9;
//   - the swap backends (swap file, zram, zswap, none, IOPS-throttled
//     emulations of catalog drives) and cgroup v1/v2 confinement;
//   - the workload: memplan re-executed as a child (WorkloadMain) that maps
//     a "code" file and sweeps an anonymous data segment, and the concurrent
//     page-cache writer;
//   - the runs, their statistics and the factor file (model.FactorFile) the
//     probe writes;
//   - the workload profiler (profile*.go): a real command run in the same
//     confined, journaled way at several fit ratios, its profile (a factor
//     file a workload's `profile:` points at), and the transfer of its curve
//     to other devices with the validation of that transfer.
//
// The device profile (device*.go: 4 KiB latency and IOPS with O_DIRECT) and
// the fio comparison (fio*) live here too but belong to their own authors.
//
// Nothing here prints: progress and notes go through the Progress interface
// the command implements.
package measure
