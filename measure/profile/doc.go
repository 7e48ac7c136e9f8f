//go:build linux

// Package profile is memplan profile: a real command run once without a
// memory limit to find its peak, then in memory cgroups at several fit
// ratios with zram or a swap file as swap, confined and journaled through
// measure/host like the probe. Its result is a profile — a factor file a
// workload's `profile:` points at — with the readahead the command saw,
// the device profile of the swap directory, and the transfer of its curve
// to other devices, validated on the second backend with --validate.
//
// Runs come in rounds (an in-RAM run and the fit ratios in a random order,
// and a closing in-RAM run) through measure.RunRounds, the probe's loop
// too; each constrained run is compared with its in-RAM neighbours, rounds
// repeat until Precision when asked, and every run records what the rest of
// the host did (measure/noise.go). The one run (--one-run) goes through
// the same loop: one run of the command, its slices the loop's runs
// (onerun.go). OnePass runs the command once and infers the curve with
// measure/onepass instead.
//
// The command is started through a launcher (LauncherMain: memplan
// re-executed, which checks it is inside its cgroup before it execs the
// command), so that the command never runs unconfined.
package profile
