//go:build linux

package main

import (
	"github.com/memplan/memplan/measure/probe"
	"github.com/memplan/memplan/units"
	"github.com/spf13/pflag"
)

// The source experiments' flags (swapdemo, page-cache remedies, copy
// workloads); see docs/probe.md. Their tables are in reports/measured.

func addExperimentFlags(f *pflag.FlagSet, o *probe.Options) {
	f.TextVar(&o.Limit, "limit", units.Bytes(0), "memory limit L of the swapdemo experiment: data L*14/16, code L*3/16 (default: RAM/8 between 512MiB and 4GiB; --quick 256MiB)")
	f.DurationVar(&o.Budget, "swapdemo-budget", 0, "time budget per swapdemo run; a run stops after 11 iterations or this (default 2m as the experiment; --quick 20s)")
	f.Float64Var(&o.CodePasses, "code-passes", 0, "how often a swapdemo iteration reads its code through, at random pages (default 8)")
	f.StringSliceVar(&o.PageCacheRemedies, "pagecache-remedies", nil, "remedies the page-cache scenario runs side by side: none, swappiness-30, swappiness-10, swappiness-0, writer-cgroup, odirect, dontneed, mlock, copy, or all (default none)")
	f.Float64Var(&o.PageCacheFit, "pagecache-fit", 0, "memory limit of the page-cache scenario over the workload's footprint (default 1: the application fills its memory)")
	f.IntVar(&o.CopyRuns, "copy-runs", 0, "runs of each copy workload; the best and the worst are dropped (default 8, as the benchmark)")
}
