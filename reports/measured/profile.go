//go:build linux

package measured

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure/profile"
	"github.com/memplan/memplan/units"
)

// WriteProfile prints what was measured, the validation and the
// predictions for devices that were not measured.
func WriteProfile(w io.Writer, r *profile.Report, ff *factors.File) {
	h := r.Host
	fmt.Fprintf(w, "memplan profile of %s\n", strings.Join(quoteArgs(r.Command), " "))
	fmt.Fprintf(w, "host %s: %s, %s RAM, kernel %s, cgroup %s\n", h.Hostname, h.CPU, h.RAM, h.Kernel, h.Cgroup)
	s := r.Sizing
	// A one-pass report has no phases: it measured nothing under a limit.
	var a profile.Phase
	if len(r.Phases) > 0 {
		a = r.Phases[0]
	}
	if o := r.OneRun; o != nil {
		fmt.Fprintf(w, "one run, stepped memory limit: %.2fs, exit status %d, footprint %s (resident and swapped; cgroup peak %s with page cache), %d major faults\n",
			s.Wall, s.ExitCode, r.Footprint, r.PeakCharged, o.Faults)
		fmt.Fprintf(w, "in RAM: about %.1fs (its progress at the pace of the %d slices without a limit); %d cycles; the run took %+.0f%%, at most %+.0f%% (budget %.0f%%)\n",
			o.InRAM, a.InRAM.N, o.Cycles, 100*o.ExtraShare, 100*o.ExtraMost, 100*o.Budget)
		fmt.Fprintf(w, "progress clock: %s\n", o.ProgressClock)
	} else {
		fmt.Fprintf(w, "unconstrained run: %.2fs, exit status %d, resident peak %s (cgroup peak %s with page cache), %d major faults\n",
			s.Wall, s.ExitCode, r.Footprint, r.PeakCharged, s.MajFlt)
	}
	if r.OnePass != nil {
		writeOnePass(w, r, ff)
		return
	}
	if r.OneRun == nil {
		fmt.Fprintf(w, "in RAM: %.3fs (trimmed mean of %d run(s); mean %.3fs, sd %.3fs)\n", a.Baseline(), a.InRAM.N, a.InRAM.Mean, a.InRAM.SD)
	}
	if z := r.ZramLatency; z != nil {
		fmt.Fprintf(w, "zram %s raw 4 KiB: read %.1fus, write %.1fus (mean, %s pages)\n", z.Algorithm, z.ReadMean, z.WriteMean, z.Content)
	}
	if d := r.Device; d != nil && d.RandReadQD1 != nil {
		wr := 0.0
		if d.RandWriteQD1 != nil {
			wr = d.RandWriteQD1.Latency.MeanUs
		}
		fmt.Fprintf(w, "device profile of %s (%s): 4 KiB read %.0fus, write %.0fus (mean, QD1)\n", d.Path, d.DeviceName(), d.RandReadQD1.Latency.MeanUs, wr)
	}
	fmt.Fprintf(w, "elapsed %s\n\n", units.Duration(time.Duration(r.Elapsed*float64(time.Second))))

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	runsCol := "runs"
	if r.OneRun != nil {
		runsCol = "cycles"
	}
	// A one run says per fit what its figure is: measured by the run, or
	// the one-pass sampler's figure from --prior at a fit it did not reach.
	srcCol, src := "", func(string) string { return "" }
	if r.OneRun != nil {
		srcCol, src = "source\t", func(s string) string { return s + "\t" }
	}
	prior := map[float64]profile.PriorPoint{}
	if r.Prior != nil {
		for _, p := range r.Prior.Points {
			prior[p.Fit] = p
		}
	}
	fmt.Fprintf(tw, "backend\tclass\tfit\tlimit\tslowdown\t95%% CI\t%s\tmajor faults\tswap-ins\tswap-outs\tPSI some\tzram ratio\tus/fault\t%s\n", runsCol, srcCol)
	for i, ph := range r.Phases {
		for _, pt := range ph.Points {
			runs := fmt.Sprintf("%d", pt.Slowdown.N)
			if pt.Failed > 0 || pt.Censored > 0 {
				runs = fmt.Sprintf("%d/%d", pt.Slowdown.N-pt.Censored, len(pt.Runs))
				if pt.Censored > 0 {
					runs += fmt.Sprintf(" (%d capped)", pt.Censored)
				}
			}
			if pt.Slowdown.N == 0 && r.OneRun != nil {
				if p, ok := prior[pt.Fit]; ok && i == 0 {
					fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%.2f\t%.2f-%.2f\t-\t\t\t\t\t\t\t%s\n", ph.Name, ph.Class, pt.Fit, pt.Limit, p.Slowdown, p.Low, p.High, src(factors.PointSampler))
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\tnot measured\t\t\t\t\t\t\t\t\t%s\n", ph.Name, ph.Class, pt.Fit, pt.Limit, src("-"))
				continue
			}
			if pt.Slowdown.N == 0 {
				what := "failed"
				if pt.OOMKilled > 0 {
					what = "OOM-killed"
				}
				fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%s\t\t%s\t\t\t\t\t\t\t\n", ph.Name, ph.Class, pt.Fit, pt.Limit, what, runs)
				continue
			}
			if pt.Censored == pt.Slowdown.N {
				// Every run hit the cap: only a lower bound, no counters.
				fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t>= %.2f\t\t%s\t\t\t\t\t\t\t\n", ph.Name, ph.Class, pt.Fit, pt.Limit, pt.Slowdown.Mean, runs)
				continue
			}
			ratio, perFault := "", ""
			if pt.ZramRatio > 0 {
				ratio = fmt.Sprintf("%.2f", pt.ZramRatio)
			}
			if pt.FaultTime > 0 {
				perFault = fmt.Sprintf("%.1f", pt.FaultTime*1e6)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%.2f\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.2fs\t%s\t%s\t%s\n",
				ph.Name, ph.Class, pt.Fit, pt.Limit, pt.Slowdown.Mean, ci(pt.Slowdown), runs, pt.MajFlt, pt.SwapIns, pt.SwapOuts, pt.PSISome, ratio, perFault, src(factors.PointOneRun))
		}
	}
	tw.Flush()

	t := r.Transfer
	fmt.Fprintf(w, "\ndirty share %.2f (%s)\n", r.Dirty, r.DirtyNote)
	if t.PerFault > 0 {
		fmt.Fprintf(w, "one page swapped in on %s cost %.1fus, of which %.1fus is the device: %.1fus of software overhead (the model assumes %.3gus)\n",
			a.Name, t.PerPage, t.DeviceTime, t.Calibrated, t.ModelOverhead)
	}
	if rr := r.Readahead; rr != nil {
		fmt.Fprintf(w, "readahead on %s:", rr.Device)
		for _, p := range rr.Points {
			if p.Failed != "" {
				fmt.Fprintf(w, " fit %.2f failed (%s);", p.Fit, p.Failed)
				continue
			}
			fmt.Fprintf(w, " fit %.2f %.0f major faults / %.0f pages in;", p.Fit, p.MajFlt, p.SwapIns)
		}
		fmt.Fprintln(w)
	}
	if ra := t.Readahead; ra.Faults > 0 {
		fmt.Fprintf(w, "on a block device this command takes %.2f major faults and reads %.2f pages per page it needs back (%s)\n", ra.Faults, ra.Pages, t.ReadaheadSource)
	} else {
		fmt.Fprintf(w, "readahead: %s\n", t.ReadaheadSource)
	}
	fmt.Fprintf(w, "transfer to other devices: %s (%s); fault_overhead %s\n", transferName(t.Method), t.Why, t.FaultOverhead)

	if v := r.Validation; v != nil {
		ref := v.Reference
		fmt.Fprintf(w, "\nvalidation: %s (%s, %s: read %s, write %s) predicted from %s\n", v.To, v.ToClass, ref.Device, ref.ReadLatency, ref.WriteLatency, v.From)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "fit\t%s\t%s measured (95%% CI)\tprofile's model\terror\tdefault model\terror\t%s's counts\terror\tfaults %s / %s\tpages in %s / %s\t\n",
			v.From, v.To, v.To, v.From, v.To, v.From, v.To)
		for _, row := range v.Rows {
			meas := fmt.Sprintf("%.2f (%.2f-%.2f)", row.Measured, row.MeasuredLo, row.MeasuredHi)
			pct := func(e float64) string { return fmt.Sprintf("%+.0f%%", 100*e) }
			fe, re, oe := pct(row.FaultsErr), pct(row.RatioErr), pct(row.OwnErr)
			to, pto := fmt.Sprintf("%.0f", row.FaultsTo), fmt.Sprintf("%.0f", row.PagesTo)
			if row.Capped {
				// The measurement is a lower bound: so is each error.
				meas = fmt.Sprintf(">= %.2f (capped)", row.Measured)
				fe, re, oe, to, pto = "("+fe+")", "("+re+")", "("+oe+")", "-", "-"
			}
			fmt.Fprintf(tw, "%.2f\t%.2f\t%s\t%.2f (%.2f-%.2f)\t%s\t%.2f (%.2f-%.2f)\t%s\t%.2f\t%s\t%.0f / %s\t%.0f / %s\t\n",
				row.Fit, row.MeasuredFrom, meas, row.Faults, row.FaultsLo, row.FaultsHi, fe,
				row.Ratio, row.RatioLo, row.RatioHi, re, row.Own, oe, row.FaultsFrom, to, row.PagesFrom, pto)
		}
		tw.Flush()
		fmt.Fprintf(w, "mean |error|: profile's model %.0f%% (largest %.0f%%), default model %.0f%% (largest %.0f%%); diagnostic with %s's own counts %.0f%%\n",
			100*v.FaultsMAE, 100*v.FaultsMax, 100*v.RatioMAE, 100*v.RatioMax, v.To, 100*v.OwnMAE)
	}

	if preds := r.Predictions(ff); len(preds) > 0 {
		fmt.Fprintf(w, "\npredicted slowdown on other devices, carried from this command's curves (one job at a time; 95%% band):\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "class\tdevice\tbasis\t")
		for _, pt := range preds[0].Points {
			fmt.Fprintf(tw, "fit %.2f\t", pt.Fit)
		}
		fmt.Fprintln(tw)
		for _, p := range preds {
			fmt.Fprintf(tw, "%s\t%s\t%s\t", p.Class, p.Device, p.Provenance)
			for _, pt := range p.Points {
				fmt.Fprintf(tw, "%.2f (%.2f-%.2f)\t", pt.Slowdown, pt.Low, pt.High)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
}

func transferName(m string) string {
	if m == profile.TransferFaults {
		return "pages counted x measured cost per page"
	}
	return "the model's default service-time ratio"
}

func quoteArgs(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t'\"$`\\") {
			a = fmt.Sprintf("%q", a)
		}
		out[i] = a
	}
	return out
}

// writeOnePass prints a one-pass profile: what was sampled and the
// inferred curve with its bands.
func writeOnePass(w io.Writer, r *profile.Report, ff *factors.File) {
	sm := r.OnePass.Result.Samples
	fmt.Fprintf(w, "one pass: %d window reads in %d sweeps (%s, %s), %d process(es) followed; the curve below is inferred, not measured\n\n",
		sm.Windows, sm.Sweeps, sm.Method, sm.Split, sm.Processes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tfit\tslowdown\tband\t")
	for _, c := range ff.Curves {
		for _, p := range c.Points {
			band := ""
			if len(p.CI) == 2 {
				band = fmt.Sprintf("%.2f-%.2f", p.CI[0], p.CI[1])
			}
			fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%s\t\n", c.Class, p.Fit, p.Slowdown, band)
		}
	}
	tw.Flush()
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
