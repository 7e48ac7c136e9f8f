// Package measure is the vocabulary memplan's measuring packages share; it
// measures nothing itself. The work lives below it:
//
//   - measure/host: Host, the one interface through which memplan reads and
//     changes the machine (/proc and /sys files, cgroups, swapon/swapoff,
//     swap files, zram, loop devices, the files it works in), with OSHost
//     as the real implementation rooted at a directory so the logic runs
//     against fixture trees in tests; the parsers for the kernel files it
//     reads, kept apart from the reading; the journal and the lock, which
//     record every change before it is made and undo them in reverse order;
//     the confinement (cgroups and counters) the probe and the profiler
//     share; and the few system calls the workload child makes.
//   - measure/device: the device benchmark (4 KiB latency and IOPS, 1 MiB
//     bandwidth, with O_DIRECT) and the classification of what it measured.
//   - measure/probe: memplan probe — the synthetic workload re-executed as a
//     child, the swap backends and emulations, the scenarios (swappiness,
//     page cache, swapdemo, copy), the runs' statistics and the factor file.
//   - measure/profile: memplan profile — a real command run in the same
//     confined, journaled way at several fit ratios, its profile, and the
//     transfer of its curve to other devices with the validation of that
//     transfer.
//
// What is here: Progress (the command renders it), RunResult (one run or
// one slice, as the probe and the profiler report it), Summary (repeated
// measurements with their Student-t interval), the measurement design on a
// noisy host (noise.go: Contention, PairedBase, Verdict; rounds.go: the
// order of a session's runs and when --precision has had rounds enough),
// the measuring loop all three call (loop.go: RunRounds, through a Runner
// that does one RunSpec and hears the progress; the probe's stages and
// the profile's phases as rounds of whole runs, the one run's stepped
// limit as cycles of slices of one running command, ordered highest fit
// first, gated by its budget and knee, until the command exits),
// the swap backend names,
// OptionError (a mistake in how a measurement was asked for, returned
// before the host is touched), the data contents the workload and the zram
// latency test write, and rounding helpers for the files written.
//
// Nothing here or below prints: progress and notes go through Progress.
package measure
