package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/memplan/memplan/measure/probe"
	"github.com/memplan/memplan/units"
	"github.com/spf13/pflag"
)

// The source experiments' flags and tables (swapdemo, page-cache remedies,
// copy workloads); see docs/probe.md.

func addExperimentFlags(f *pflag.FlagSet, o *probe.Options) {
	f.TextVar(&o.Limit, "limit", units.Bytes(0), "memory limit L of the swapdemo experiment: data L*14/16, code L*3/16 (default: RAM/8 between 512MiB and 4GiB; --quick 256MiB)")
	f.DurationVar(&o.Budget, "budget", 0, "time budget per swapdemo run; a run stops after 11 iterations or this (default 2m as the experiment; --quick 20s)")
	f.Float64Var(&o.CodePasses, "code-passes", 0, "how often a swapdemo iteration reads its code through, at random pages (default 8)")
	f.StringSliceVar(&o.PageCacheRemedies, "pagecache-remedies", nil, "remedies the page-cache scenario runs side by side: none, swappiness-30, swappiness-10, swappiness-0, writer-cgroup, odirect, dontneed, mlock, copy, or all (default none)")
	f.Float64Var(&o.PageCacheFit, "pagecache-fit", 0, "memory limit of the page-cache scenario over the workload's footprint (default 1: the application fills its memory)")
	f.IntVar(&o.CopyRuns, "copy-runs", 0, "runs of each copy workload; the best and the worst are dropped (default 8, as the benchmark)")
}

func hasRemedies(r *probe.Report) bool {
	for _, c := range r.PageCache {
		if c.Remedy != "" && c.Remedy != probe.RemedyNone {
			return true
		}
	}
	return false
}

// writePageCacheRemedies prints the page-cache scenario per remedy and file
// size, with the source's finding beside each remedy.
func writePageCacheRemedies(w io.Writer, r *probe.Report) {
	o := r.Plan.Options
	fmt.Fprintf(w, "\npage-cache scenario (memory limit %g x footprint; a writer writes one file while the workload runs; remedies side by side):\n", o.PageCacheFit)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "remedy\twriter file\tx limit\tvisits/s\tthroughput loss\tswap-outs\tmajor faults\twritten\tpublished\t")
	for _, c := range r.PageCache {
		size := c.FileSize.String()
		if c.FileSize == 0 {
			size = "none"
		}
		if c.Rate.N == 0 {
			fmt.Fprintf(tw, "%s\t%s\t%g\tfailed\t\t\t\t\t%s\t\n", c.Remedy, size, c.Multiple, c.Published)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%g\t%.0f\t%.1f%%\t%.0f\t%.0f\t%.0fMiB\t%s\t\n", c.Remedy, size, c.Multiple, c.Rate.Mean, 100*c.Loss, c.SwapOuts, c.MajFlt, c.Written, c.Published)
	}
	tw.Flush()
}

// writeSwapdemoTable prints the swapdemo experiment with the published
// result beside each setting.
func writeSwapdemoTable(w io.Writer, r *probe.Report) {
	sd := r.Swapdemo
	if sd == nil {
		return
	}
	p := sd.Plan
	fmt.Fprintf(w, "\nswapdemo experiment (limit %s: data %s fits, with the %s code file it exceeds the limit by %s; an iteration reads %d random code pages (%g passes) and sweeps one %s chunk; up to %d iterations or %s per run; took %s):\n",
		p.Limit, p.Data, p.Code, p.Data+p.Code-p.Limit, p.CodeReads, p.CodePasses, p.Chunk, p.Iterations, units.Duration(p.Budget),
		units.Duration(time.Duration(sd.Wall*float64(time.Second))))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "setting\tswap\tdata\truns\titerations\ts/iteration\tvs swappiness 60\tcode re-reads\tswap-ins\tmajor faults\tOOM kills\tpublished\t")
	for _, s := range sd.Runs {
		if !s.Applied {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\tcannot be applied: %s\t\t\t\t\t\t\t%s\t\n", s.Setting, s.Swap, s.Content, s.Why, s.Reference)
			continue
		}
		if len(s.Runs) > 0 && s.Iterations == 0 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t0\t\t\t\t\t\t%d\t%s\t\n", s.Setting, s.Swap, s.Content, len(s.Runs), s.OOMKilled, s.Reference)
			continue
		}
		vs := fmt.Sprintf("%.1fx", s.VsSwappiness60)
		if s.AtLeast > 0 {
			vs = fmt.Sprintf("> %.0fx (est. %.0fx)", s.AtLeast, s.VsSwappiness60)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.2f of %d\t%.3f\t%s\t%.0f\t%.0f\t%.0f\t%d\t%s\t\n",
			s.Setting, s.Swap, s.Content, len(s.Runs), s.Iterations, p.Iterations, s.SecPerIter, vs, s.CodeRereads, s.SwapInPages, s.MajFlt, s.OOMKilled, s.Reference)
	}
	tw.Flush()
	fmt.Fprintln(w, "  code re-reads: page-cache pages the run's cgroup read back after evicting them (beyond the first read); swap-ins: anonymous pages read back from swap (memory.stat workingset_refault_*, per run)")
}

// writeCopyTable prints the copy workloads.
func writeCopyTable(w io.Writer, r *probe.Report) {
	c := r.Copy
	if c == nil {
		return
	}
	fmt.Fprintf(w, "\ncopy workloads (copied between two directories in %s, timed with the final sync, %d runs, trimmed mean without the best and the worst; took %s):\n",
		strings.TrimSuffix(c.Plan.Dir, "/"), c.Plan.Runs, units.Duration(time.Duration(c.Wall*float64(time.Second))))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tfiles\tsize\ttrimmed s\tmin s\tmax s\tMB/s\tfiles/s\tpublished workload\t")
	for _, x := range c.Workloads {
		if x.Seconds.N == 0 {
			fmt.Fprintf(tw, "%s\t%d\t%s\tfailed\t\t\t\t\t%s\t\n", x.Name, x.Files, x.Bytes, x.Published)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.3f\t%.3f\t%.3f\t%.0f\t%.0f\t%s\t\n", x.Name, x.Files, x.Bytes, x.Seconds.Trimmed, x.Seconds.Min, x.Seconds.Max, x.MBps, x.FilesPerSec, x.Published)
	}
	tw.Flush()
}
