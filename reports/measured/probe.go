//go:build linux

package measured

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/probe"
	"github.com/memplan/memplan/units"
)

// WritePlan prints what the probe would do on this host (memplan probe
// --plan), step by step, before it changes anything.
func WritePlan(w io.Writer, p *probe.Plan) {
	o := p.Options
	fmt.Fprintf(w, "memplan probe plan (nothing has been changed)\n\n")
	fmt.Fprintf(w, "host: %s RAM, %s available; cgroup %s; root: %v\n", p.MemTotal, p.MemAvail, cgroupName(p.Cgroups), p.Root)
	fmt.Fprintf(w, "swap directory: %s (%s), device class %s\n", o.SwapDir, p.Swap.FS, p.DeviceClass)
	fmt.Fprintf(w, "workload: %s data + %s code file, %s access, %s data, %.0f%% writes, %d passes; footprint ~%s\n",
		p.Workload.DataSize, p.Workload.CodeSize, p.Workload.Pattern, p.Workload.Content, 100*p.Workload.WriteMix, p.Workload.Passes, p.Footprint)
	fmt.Fprintf(w, "fit ratios %s, %d repetition(s); scenarios %s\n\n", floats(o.Fits), o.Reps, strings.Join(p.Scenarios, ", "))
	fmt.Fprintln(w, "steps, in order:")
	for i, c := range p.Changes {
		fmt.Fprintf(w, "  %2d. %s\n", i+1, c)
	}
	if len(p.Skipped) > 0 {
		fmt.Fprintln(w, "\nnot measured:")
		for _, s := range p.Skipped {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
	if len(p.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, s := range p.Notes {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
	fmt.Fprintf(w, "\n%d runs in all\n", p.Runs)
	if p.Wall.High > 0 {
		// A plan recorded before the estimate existed has none.
		fmt.Fprintf(w, "estimated wall time: %s\n", wallText(p))
	}
}

// wallText words the plan's wall time estimate: the range, what its ends
// assume and what it leaves out.
func wallText(p *probe.Plan) string {
	wt := p.Wall
	d := func(x time.Duration) string { return units.Duration(x.Round(time.Second)).String() }
	s := fmt.Sprintf("%s to %s (from every run as fast as in RAM at %v a page visit, to %v a page visit with every run that swaps stopped at --max-slowdown %g",
		d(wt.Low), d(wt.High), units.Duration(probe.FastVisit), units.Duration(probe.SlowVisit), p.Options.MaxSlowdown)
	if p.Swapdemo != nil {
		s += " and every swapdemo run at its budget"
	}
	s += ")"
	if len(wt.LeftOut) > 0 {
		s += "; not counting " + strings.Join(wt.LeftOut, ", ")
	}
	return s
}

func cgroupName(l *host.CgroupLayout) string {
	if l == nil {
		return "not checked (needs root)"
	}
	return l.String()
}

func floats(v []float64) string {
	var s []string
	for _, f := range v {
		s = append(s, fmt.Sprintf("%g", f))
	}
	return strings.Join(s, ", ")
}

// WriteProbe prints the table of measured slowdowns and the
// scenarios, with the notes that qualify them.
func WriteProbe(w io.Writer, r *probe.Report, ff *factors.File) {
	p := r.Plan
	h := r.Host
	fmt.Fprintf(w, "memplan probe on %s: %s, %s RAM, kernel %s, cgroup %s\n", h.Hostname, h.CPU, h.RAM, h.Kernel, h.Cgroup)
	fmt.Fprintf(w, "swap device: %s, %s\n", h.Device, h.FS)
	fmt.Fprintf(w, "workload: %s data + %s code, %s access, %s data, %.0f%% writes; footprint %s\n",
		p.Workload.DataSize, p.Workload.CodeSize, p.Workload.Pattern, p.Workload.Content, 100*p.Workload.WriteMix, r.Footprint)
	if r.Baseline.N > 0 {
		fmt.Fprintf(w, "in RAM: %.3fs per run (trimmed mean of %d runs; mean %.3fs, sd %.3fs), %.0f ns per page visit\n", r.Baseline.Trimmed, r.Baseline.N, r.Baseline.Mean, r.Baseline.SD, r.NsPerVisit)
	}
	if d := r.Device; d != nil {
		fmt.Fprintf(w, "device profile: 4 KiB read %.0fus mean (p99 %.0fus), write %.0fus; QD32 %.0f read / %.0f write IOPS\n",
			d.RandReadQD1.Latency.MeanUs, d.RandReadQD1.Latency.P99Us, d.RandWriteQD1.Latency.MeanUs, d.RandReadQD32.IOPS, d.RandWriteQD32.IOPS)
	}
	if z := r.ZramLatency; z != nil {
		fmt.Fprintf(w, "zram %s raw 4 KiB: read %.1fus, write %.1fus (mean, %s pages)\n", z.Algorithm, z.ReadMean, z.WriteMean, z.Content)
	}
	fmt.Fprintf(w, "elapsed %s\n", units.Duration(time.Duration(r.Elapsed*float64(time.Second))))

	if len(r.Points) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "backend\tclass\tfit\tlimit\tslowdown\t95% CI\ttrimmed\truns\tmajor faults\tswap-ins\tswap-outs\tPSI some\tzram ratio\t")
		for _, pt := range r.Points {
			class := pt.Class
			if class == "" {
				class = "-"
			}
			if pt.Provenance == factors.Emulated {
				class += " (emulated)"
			}
			runs := fmt.Sprintf("%d", pt.Slowdown.N)
			if pt.Failed > 0 || pt.Censored > 0 {
				runs = fmt.Sprintf("%d/%d", pt.Slowdown.N, len(pt.Runs))
				if pt.Censored > 0 {
					runs += fmt.Sprintf(" (%d capped)", pt.Censored)
				}
			}
			if pt.Slowdown.N == 0 {
				what := "failed"
				if pt.OOMKilled > 0 {
					what = "OOM-killed"
				}
				fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%s\t\t\t0/%d\t\t\t\t\t\t\n", pt.Stage, class, pt.Fit, pt.Limit, what, len(pt.Runs))
				continue
			}
			ratio := ""
			if pt.ZramRatio > 0 {
				ratio = fmt.Sprintf("%.2f", pt.ZramRatio)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%.2f\t%s\t%.2f\t%s\t%.0f\t%.0f\t%.0f\t%.2fs\t%s\t\n",
				pt.Stage, class, pt.Fit, pt.Limit, pt.Slowdown.Mean, ci(pt.Slowdown), pt.Slowdown.Trimmed, runs,
				pt.MajFlt, pt.SwapIns, pt.SwapOuts, pt.PSISome, ratio)
		}
		tw.Flush()
	}
	if len(r.Swappiness) > 0 {
		fmt.Fprintf(w, "\nswappiness scenario (fit %g, swap file):\n", p.Options.ScenarioFit)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "setting\tslowdown\t95% CI\tmajor faults\tswap-outs\tresult\t")
		for _, s := range r.Swappiness {
			switch {
			case !s.Applied:
				fmt.Fprintf(tw, "%s\t\t\t\t\tcannot be applied: %s\t\n", s.Setting, s.Why)
			case s.Slowdown.N == 0:
				fmt.Fprintf(tw, "%s\t\t\t\t\tOOM-killed in %d of %d runs\t\n", s.Setting, s.OOMKilled, len(s.Runs))
			default:
				res := "finished"
				if s.OOMKilled > 0 {
					res = fmt.Sprintf("OOM-killed in %d of %d runs", s.OOMKilled, len(s.Runs))
				}
				if s.Censored > 0 {
					res = fmt.Sprintf("stopped at the %gx time cap in %d run(s)", p.Options.MaxSlowdown, s.Censored)
				}
				fmt.Fprintf(tw, "%s\t%.2f\t%s\t%.0f\t%.0f\t%s\t\n", s.Setting, s.Slowdown.Mean, ci(s.Slowdown), s.MajFlt, s.SwapOuts, res)
			}
		}
		tw.Flush()
	}
	if len(r.PageCache) > 0 && hasRemedies(r) {
		writePageCacheRemedies(w, r)
	} else if len(r.PageCache) > 0 {
		fmt.Fprintf(w, "\npage-cache scenario (memory limit %g x footprint; a writer in the workload's cgroup writes one file while it runs):\n", p.Options.PageCacheFit)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "writer file\tx limit\tvisits/s\tthroughput loss\tswap-outs\tmajor faults\twritten\t")
		for _, c := range r.PageCache {
			if c.Rate.N == 0 {
				fmt.Fprintf(tw, "%s\t%g\tfailed\t\t\t\t\t\n", c.FileSize, c.Multiple)
				continue
			}
			size := c.FileSize.String()
			if c.FileSize == 0 {
				size = "none"
			}
			fmt.Fprintf(tw, "%s\t%g\t%.0f\t%.1f%%\t%.0f\t%.0f\t%.0fMiB\t\n", size, c.Multiple, c.Rate.Mean, 100*c.Loss, c.SwapOuts, c.MajFlt, c.Written)
		}
		tw.Flush()
	}
	writeSwapdemoTable(w, r)
	writeCopyTable(w, r)
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
	if ff != nil && len(ff.Curves) > 0 {
		var cs []string
		for _, c := range ff.Curves {
			cs = append(cs, fmt.Sprintf("%s (%s, %d %s)", c.Class, c.Provenance, len(c.Points), plural(len(c.Points), "point", "points")))
		}
		fmt.Fprintf(w, "\ncurves: %s\n", strings.Join(cs, ", "))
		if ff.TransferFrom != "" {
			fmt.Fprintf(w, "transfer_from: %s (other drive classes are derived from it by service time)\n", ff.TransferFrom)
		}
	}
}

func ci(s measure.Summary) string {
	if s.N < 2 {
		return "-"
	}
	return fmt.Sprintf("%.2f-%.2f", s.Lo, s.Hi)
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
