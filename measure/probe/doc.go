//go:build linux

// Package probe is memplan probe: it measures how much slower memplan's own
// synthetic workload gets when part of its memory lives on each swap
// backend of this host, and writes the factor file (factors.File) the
// model reads.
//
// MakePlan reads the host and works out what will run; the plan is read
// only from then on (what `--plan` prints is what runs; a run keeps its own
// list of the stages it measures and its own working directory). RunPlan
// changes the host only through measure/host and its journal, and undoes
// every change before it returns, also when its context is cancelled.
//
// The workload (workload.go) is memplan re-executed as a child
// (WorkloadMain): it maps a "code" file and sweeps an anonymous data
// segment page by page, timing the first touch of each page (a point's
// fault_latency). The backends are a swap file, zram, zswap, none, and
// emulations of catalog drives: IOPS-throttled, or with their latency on
// measure/host/emulate's device (emulated.go, --emulate-latency). Each run
// records what the rest of the host did (measure.Contention). A backend's
// curve is measured in rounds of an in-RAM run and every fit ratio in a
// random order, each constrained run over the in-RAM runs next to it
// (measure.RunRounds, the profiler's loop too). The scenarios reproduce
// the source experiments: swappiness and swap off, a writer's page cache
// with its remedies, swapdemo at its proportions, and the copy workloads.
package probe
