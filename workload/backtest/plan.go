package backtest

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/workload/acct"
)

// FromConfig is the plan configuration cfg of a recommendation on in
// gives each job class, through the model's public API:
//
//   - RAM per job: the usable RAM shared by the class's concurrent jobs
//     (classes take turns on a server, as the model has them), or, where
//     the class swaps to zram or zswap, the part the model keeps resident
//     (the compressed pool takes the rest);
//   - swap per job: the swap space over the concurrent jobs;
//   - slowdown at a fit ratio: Factors.PredictShape on the configuration's
//     device (the drives as CatalogDevice sees them, or the zram
//     compressor). For zswap the drive alone is taken, an upper bound:
//     the compressed pool in front of it only makes faults cheaper.
func FromConfig(in model.Input, cfg *model.Config) (Plan, error) {
	p := Plan{Config: cfg.ID, Label: cfg.Label}
	var dev model.Device
	devClass := ""
	switch cfg.Swap.Kind {
	case model.SwapDrive, model.SwapZswap:
		d, ok := findDrive(in, cfg.Swap.Drive)
		if !ok {
			return p, fmt.Errorf("configuration %s: swap drive %s is in no catalog", cfg.ID, cfg.Swap.Drive.SKU)
		}
		devClass = cfg.Swap.Class
		dev = model.CatalogDevice(d, devClass, cfg.Swap.Drives)
	case model.SwapZram:
		devClass = "zram-" + cfg.Swap.Algorithm
		sw, ok := in.Factors.Software[devClass]
		if !ok {
			return p, fmt.Errorf("configuration %s: no %s backend in the factor files", cfg.ID, devClass)
		}
		w := sw.CompressLatency
		if w <= 0 {
			w = sw.Latency
		}
		dev = model.Device{Name: sw.Name, ReadLatency: sw.Latency.D(), WriteLatency: w.D(), Memory: true}
	}
	for _, j := range in.Workload.Jobs {
		var jr *model.JobResult
		for i := range cfg.Jobs {
			if cfg.Jobs[i].Name == j.Name {
				jr = &cfg.Jobs[i]
			}
		}
		if jr == nil {
			return p, fmt.Errorf("configuration %s has no result for job class %s", cfg.ID, j.Name)
		}
		conc := float64(max(j.Concurrency, 1))
		held := float64(cfg.Usable) / conc
		if (cfg.Swap.Kind == model.SwapZram || cfg.Swap.Kind == model.SwapZswap) && jr.Fit < 1 {
			held = float64(jr.InRAM) / conc
		}
		fs := in.Factors
		if f, ok := in.JobFactors[j.Name]; ok && f != nil {
			fs = f
		}
		j := j
		slow := func(fit float64) (float64, bool, string) {
			if devClass == "" {
				return 0, false, "no swap"
			}
			est, err := fs.PredictShape(devClass, dev, j.Concurrency, float64(j.DirtyShare), fit, j.Access)
			if err != nil {
				return 0, false, err.Error()
			}
			if est.Unsupported != "" {
				return 0, false, est.Unsupported
			}
			return est.Slowdown, true, ""
		}
		p.Classes = append(p.Classes, Class{Name: j.Name, Held: held, Swap: float64(cfg.Swap.Capacity) / conc,
			Deadline: j.Deadline.D(), Footprint: float64(j.Footprint), Slowdown: slow})
	}
	return p, nil
}

func findDrive(in model.Input, part *model.Part) (d prices.Drive, ok bool) {
	if part == nil || in.Prices == nil {
		return d, false
	}
	for _, x := range in.Prices.Drives {
		if x.SKU == part.SKU && (part.Catalog == "" || x.Catalog == part.Catalog) {
			return x, true
		}
	}
	return d, false
}

// WriteTable writes the result as a table.
func WriteTable(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "Backtest of %s (%s) against %d job(s) from %s", r.Label, r.Config, r.Read, r.Source)
	if r.Skipped > 0 {
		fmt.Fprintf(w, ", %d bad record(s) skipped", r.Skipped)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Only completed jobs with a recorded peak are replayed, each at its own peak and elapsed time.")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "class\tjobs\tRAM/job\tswap/job\tover RAM\tno fit\tslowdown p50\tmax\tmiss deadline\t")
	for _, c := range r.Classes {
		sl, mx := "-", "-"
		if c.SlowdownP50 > 0 {
			sl, mx = fmt.Sprintf("%.2fx", c.SlowdownP50), fmt.Sprintf("%.2fx", c.SlowdownMax)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Name, c.Completed, acct.Size(c.Held), size0(c.Swap),
			countShare(c.Swapped+c.NoFit+c.NoEstimate, c.SwapShare), countShare(c.NoFit, c.NoFitShare), sl, mx, countShare(c.Missed, c.MissShare))
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "What other rules would have reserved per job for the same history:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "class\tplan footprint\tover it\tVPA p90+15%\tover it\tlargest+10%\t")
	for _, c := range r.Classes {
		if c.Completed == 0 {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t\n", c.Name, acct.Size(c.Footprint))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%s\t\n", c.Name, acct.Size(c.Footprint), c.OverFootprint, acct.Size(c.VPA), c.OverVPA, acct.Size(c.MaxPlus10))
	}
	tw.Flush()
	for _, c := range r.Classes {
		var notes []string
		if c.LateInRAM > 0 {
			notes = append(notes, fmt.Sprintf("%d job(s) ran longer than the deadline even in RAM", c.LateInRAM))
		}
		if c.NoEstimate > 0 {
			notes = append(notes, fmt.Sprintf("%d job(s) would swap beyond the measured curves (no estimate; counted as missing)", c.NoEstimate))
		}
		if len(c.NotReplayed) > 0 {
			var parts []string
			for _, k := range sortedKeys(c.NotReplayed) {
				parts = append(parts, fmt.Sprintf("%d %s", c.NotReplayed[k], k))
			}
			notes = append(notes, "not replayed: "+strings.Join(parts, ", "))
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "%s: %s\n", c.Name, strings.Join(notes, "; "))
		}
	}
	if len(r.Unplanned) > 0 {
		var parts []string
		for _, k := range sortedKeys(r.Unplanned) {
			parts = append(parts, fmt.Sprintf("%s (%d)", k, r.Unplanned[k]))
		}
		fmt.Fprintf(w, "Jobs of classes the workload does not have, not replayed: %s\n", strings.Join(parts, ", "))
	}
	return nil
}

func size0(b float64) string {
	if b <= 0 {
		return "none"
	}
	return acct.Size(b)
}

func countShare(n int, share float64) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", n, Percent(share))
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
