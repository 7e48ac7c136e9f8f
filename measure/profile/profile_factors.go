//go:build linux

package profile

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/device"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// Factors turns a profile into the factor file a workload's `profile:`
// field points at: a measured curve for the profiled backend's class (and
// one for the validation backend's), transfer_from the profiled class so
// that the model derives other devices from this job's own curve, the
// fault overhead of the chosen transfer form, zram's measured latency and
// compression ratio, and under Extra the command, its exit status and peak
// memory, every run, the validation and predictions for other devices.
func (r *Report) Factors(version string) *factors.File {
	if r.OnePass != nil {
		if ff, err := r.OnePass.factors(version); err == nil {
			return ff
		}
	}
	host := r.Host.Hostname
	if host == "" {
		host = "unknown-host"
	}
	today := units.Date{Time: r.Started.Truncate(24 * time.Hour)}
	cmd := measure.ShellQuote(r.Command)
	f := &factors.File{
		Name: fmt.Sprintf("memplan-profile %s on %s %s", filepath.Base(r.Command[0]), host, today),
		Date: today,
		Source: fmt.Sprintf("measured by memplan profile %s on %s: %s, resident peak %s, %.2fs in RAM",
			version, host, cmd, r.Footprint, r.Phases[0].Baseline()),
		FaultOverhead: r.Transfer.FaultOverhead,
	}
	if ra := r.Transfer.Readahead; ra.Faults > 0 {
		f.Readahead = &ra
	}
	hf := r.Host
	f.Host = &hf
	for i := range r.Phases {
		ph := &r.Phases[i]
		c := factors.Curve{Class: ph.Class, Provenance: factors.Measured, Host: host, MeasuredAt: today,
			Source:    fmt.Sprintf("memplan profile of %s: %s swap, cgroup memory limit = fit x resident peak; reference: %s", cmd, ph.Name, ph.RefSource),
			Reference: ph.Reference}
		var rr *ReadaheadReport
		if i == 0 {
			rr = r.Readahead
		}
		var pooled string
		c.Points, pooled = curvePoints(ph, rr, r.Transfer.Method == TransferFaults)
		if pooled != "" && !slices.Contains(r.Notes, ph.Name+": "+pooled) {
			r.Notes = append(r.Notes, ph.Name+": "+pooled)
		}
		if r.OneRun != nil {
			c.Method = factors.OneRunMethod
			c.Source = fmt.Sprintf("memplan profile --one-run of %s: %s swap, one run with the cgroup memory limit stepped through the fit ratios (fit x footprint so far), %d cycles; progress clock: %s; reference: %s",
				cmd, ph.Name, r.OneRun.Cycles, r.OneRun.ProgressClock, ph.RefSource)
			if i == 0 && r.Prior != nil && len(r.Prior.Points) > 0 {
				// Measured points win; the prior only adds the fits the
				// run has no point at, each marked as the sampler's.
				for j := range c.Points {
					c.Points[j].Source = factors.PointOneRun
				}
				c.Points = append(c.Points, r.Prior.samplerPoints()...)
				sort.Slice(c.Points, func(a, b int) bool { return c.Points[a].Fit > c.Points[b].Fit })
				c.Source += fmt.Sprintf("; fits %s not reached by the run: the one-pass sampler's inferred figures from %s, not measured (points marked source: sampler)", r.Prior.fits(), r.Prior.File)
			}
		}
		if len(c.Points) == 0 || c.Reference.ReadLatency <= 0 || (len(c.Points) == 1 && c.Points[0].Fit == 1) {
			continue
		}
		f.Curves = append(f.Curves, c)
		if i == 0 {
			f.TransferFrom = c.Class
		}
	}
	if z := r.ZramLatency; z != nil && z.ReadMean > 0 {
		ratio := 0.0
		for _, ph := range r.Phases {
			if ph.Backend == measure.BackendZram {
				for _, pt := range ph.Points {
					ratio = math.Max(ratio, pt.ZramRatio)
				}
			}
		}
		if ratio >= 1 {
			f.Software = append(f.Software, factors.Software{Name: "zram-" + z.Algorithm,
				Latency: units.Duration(math.Round(z.ReadMean * 1e3)), Ratio: measure.Round4(ratio),
				Source: fmt.Sprintf("measured by memplan profile on %s: O_DIRECT 4 KiB reads of %s pages; ratio from mm_stat while %s ran", host, z.Content, cmd)})
		}
	}
	f.Extra = measure.ToMap(r.extra(f))
	return f
}

// curvePoints are a phase's measured points, highest fit first. With
// counts, each carries the pages the command needed back per second of
// in-RAM runtime and the major faults and pages a block device took (the
// phase's own on a swap file; on zram the readahead runs', when given).
//
// A measured curve that falls as the fit falls (noise: whole runs on a
// busy host differ by more than swapping costs near fit 1) cannot be a
// curve: the falling points are pooled into their mean, weighted by their
// samples, and pooled says which (the runs stay in extra.phases).
func curvePoints(ph *Phase, rr *ReadaheadReport, counts bool) (pts []factors.Point, pooled string) {
	var out []factors.Point
	base := ph.Baseline()
	for i := range ph.Points {
		pt := &ph.Points[i]
		if pt.Slowdown.N == 0 {
			continue
		}
		slow := measure.ClampSlowdown(pt.Slowdown.Mean)
		p := factors.Point{Fit: pt.Fit, Slowdown: measure.Round4(slow), Samples: measure.RoundAll(pt.Samples)}
		if pt.Slowdown.N >= 2 {
			p.CI = []float64{measure.Round4(math.Min(pt.Slowdown.Lo, slow)), measure.Round4(math.Max(pt.Slowdown.Hi, slow))}
		}
		// Only when no run was capped or failed do the means count pages.
		if counts && base > 0 && pagesIn(pt) > 0 && pt.Censored == 0 && pt.Failed == 0 {
			p.PageRate = measure.Round4(pagesIn(pt) / base)
			switch {
			case ph.Backend == measure.BackendFile:
				p.BlockFaultRate, p.BlockPageRate = measure.Round4(pt.MajFlt/base), p.PageRate
			case readaheadAt(rr, pt.Fit) != nil:
				rp := readaheadAt(rr, pt.Fit)
				p.BlockFaultRate, p.BlockPageRate = measure.Round4(rp.MajFlt/base), measure.Round4(rp.SwapIns/base)
			}
		}
		out = append(out, p)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Fit > out[b].Fit })
	return out, poolFalling(out)
}

// poolFalling makes the slowdowns of pts (highest fit first) rise or stay
// as the fit falls, pooling adjacent violators into their weighted mean,
// and says what it pooled ("" when nothing fell).
func poolFalling(pts []factors.Point) string {
	type block struct {
		from, to int
		sum, w   float64
	}
	var blocks []block
	for i, p := range pts {
		w := math.Max(float64(len(p.Samples)), 1)
		blocks = append(blocks, block{i, i, p.Slowdown * w, w})
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/a.w <= b.sum/b.w {
				break
			}
			blocks = append(blocks[:len(blocks)-2], block{a.from, b.to, a.sum + b.sum, a.w + b.w})
		}
	}
	var what []string
	for _, b := range blocks {
		if b.from == b.to {
			continue
		}
		v := measure.Round4(b.sum / b.w)
		var was []string
		for i := b.from; i <= b.to; i++ {
			was = append(was, fmt.Sprintf("%.3f at fit %g", pts[i].Slowdown, pts[i].Fit))
			pts[i].Slowdown = v
			if len(pts[i].CI) == 2 {
				pts[i].CI = []float64{math.Min(pts[i].CI[0], v), math.Max(pts[i].CI[1], v)}
			}
		}
		what = append(what, fmt.Sprintf("%s fell as the fit fell, which a curve cannot: the file has their mean, %.3f", strings.Join(was, ", "), v))
	}
	if len(what) == 0 {
		return ""
	}
	return strings.Join(what, "; ") + " (noise between runs larger than what swapping costs there; every run is in extra.phases)"
}

// CompressionRatio is the highest zram compression ratio the command's
// pages reached (0 without zram): what its workload entry's
// compressibility should say.
func (r *Report) CompressionRatio() float64 {
	ratio := 0.0
	for _, ph := range r.Phases {
		for _, pt := range ph.Points {
			ratio = math.Max(ratio, pt.ZramRatio)
		}
	}
	return measure.Round4(ratio)
}

type profileExtra struct {
	Profile     any               `json:"profile"`
	Sizing      measure.RunResult `json:"sizing_run"`
	Phases      []Phase           `json:"phases"`
	Transfer    TransferSummary   `json:"transfer"`
	Validation  *Validation       `json:"validation,omitempty"`
	OneRun      *OneRunReport     `json:"one_run,omitempty"`
	Prior       *PriorReport      `json:"prior,omitempty"`
	Readahead   *ReadaheadReport  `json:"readahead,omitempty"`
	Predictions []Prediction      `json:"predictions,omitempty"`
	Device      *device.Profile   `json:"device_profile,omitempty"`
	Zram        *host.ZramLatency `json:"zram_latency,omitempty"`
	Notes       []string          `json:"notes,omitempty"`
}

func (r *Report) extra(f *factors.File) profileExtra {
	o := r.Options
	prof := map[string]any{
		"command": r.Command, "command_line": measure.ShellQuote(r.Command), "executable": r.Path, "dir": r.Dir,
		"exit_status": r.Sizing.ExitCode, "peak_resident_bytes": r.Footprint, "peak_charged_bytes": r.PeakCharged,
		"max_rss_bytes": r.Sizing.MaxRSS, "runtime_in_ram_s": r.Phases[0].Baseline(), "sizing_wall_s": r.Sizing.Wall,
		"major_faults_in_ram": r.Sizing.MajFlt, "fits": o.Fits, "runs": o.Runs, "backend": o.Backend,
		"validate_backend": o.Validate, "zram_algorithm": o.ZramAlgorithm, "swap_dir": o.SwapDir,
		"max_slowdown": o.MaxSlowdown, "mem_available_bytes": r.MemAvail, "cgroup": r.Cgroup,
		"dirty_share": r.Dirty, "dirty_share_note": r.DirtyNote, "compression_ratio": r.CompressionRatio(),
		"started": r.Started, "elapsed_s": r.Elapsed,
	}
	if r.OneRun != nil {
		prof["method"] = factors.OneRunMethod
		prof["budget"] = o.OneRunBudget
		if o.Prior != "" {
			prof["prior"] = o.Prior
		}
	}
	return profileExtra{Profile: prof, Sizing: r.Sizing, Phases: r.Phases, Transfer: r.Transfer, Validation: r.Validation, OneRun: r.OneRun, Prior: r.Prior,
		Readahead: r.Readahead, Predictions: r.Predictions(f), Device: r.Device, Zram: r.ZramLatency, Notes: r.Notes}
}

// Prediction is the slowdown the model predicts for this command on a
// device it was not measured on, at each profiled fit ratio.
type Prediction struct {
	Class      string            `json:"class"`
	Device     string            `json:"device"`
	Provenance string            `json:"provenance"`
	Points     []PredictionPoint `json:"points"`
}

// PredictionPoint is one predicted slowdown with its 95% band.
type PredictionPoint struct {
	Fit      float64 `json:"fit"`
	Slowdown float64 `json:"slowdown"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
}

// Predictions carries the profile's curves to one representative device
// of every drive class in the embedded catalogs (an HDD as the Intel
// study's two-drive RAID 0) and to zram with the other published
// compressors with the model's transfer rule, using the profile's curves
// alone: classes it has none for are derived from transfer_from, as
// recommend does for the job (model.MergeProfile).
func (r *Report) Predictions(f *factors.File) []Prediction {
	if f == nil || len(f.Curves) == 0 {
		return nil
	}
	fs, err := model.MergeFactors(f)
	if err != nil {
		return nil
	}
	type target struct {
		class string
		dev   model.Device
	}
	var targets []target
	seen := map[string]bool{}
	for _, cd := range prices.CatalogClasses() {
		seen[cd.Class] = true
		// The device recommend would price: the catalog's write
		// bandwidth or the class default, not 4 KiB x write IOPS.
		dev := model.CatalogDevice(cd.Drive, cd.Class, cd.Count)
		dev.Name = cd.Label
		targets = append(targets, target{cd.Class, dev})
	}
	for _, sw := range model.DefaultFactors().Software {
		if seen[sw.Name] {
			continue
		}
		seen[sw.Name] = true
		if own, ok := fs.Software[sw.Name]; ok {
			sw = own
		}
		targets = append(targets, target{sw.Name, model.Device{Name: sw.Name, ReadLatency: sw.Latency.D(), WriteLatency: sw.Latency.D(), Memory: true}})
	}
	var out []Prediction
	for _, t := range targets {
		p := Prediction{Class: t.class, Device: t.dev.Name}
		for _, pt := range r.Phases[0].Points {
			est, err := fs.Predict(t.class, t.dev, 1, r.Dirty, pt.Fit)
			if err != nil {
				continue
			}
			p.Provenance = est.Provenance
			p.Points = append(p.Points, PredictionPoint{Fit: pt.Fit, Slowdown: measure.Round4(est.Slowdown), Low: measure.Round4(est.Low), High: measure.Round4(est.High)})
		}
		if len(p.Points) > 0 {
			out = append(out, p)
		}
	}
	return out
}
