//go:build linux

package onepass

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
)

// Method is what a one-pass profile says it was obtained by, in
// extra.profile.method (a multi-run profile has no method key).
const Method = factors.OnePassMethod

// Info is what the caller (memplan profile --one-pass) knows about the run
// that the sampler does not.
type Info struct {
	Command  []string
	Version  string
	Host     *factors.HostFacts
	Started  time.Time
	Runtime  time.Duration // the job's wall time in its one run
	ExitCode int
	// Peak is the resident peak fit ratios divide (measure samples the
	// cgroup's memory.stat: anon + shmem + mapped file); 0 takes the
	// sampler's peak of the processes' summed Rss.
	Peak       int64
	PeakSource string
	// Charged is the job cgroup's peak charge (memory.max_usage_in_bytes
	// or memory.peak): the resident peak plus the page cache of the files
	// it read and wrote. 0: not known.
	Charged int64
	Fits    []float64 // DefaultFits when empty
	Cgroup  string
	Notes   []string
}

// DefaultFits are the fit ratios a one-pass profile predicts at: the
// multi-run profile's (0.9, 0.75, 0.5) and the probe's 0.6.
var DefaultFits = []float64{0.9, 0.75, 0.6, 0.5}

// Result is everything a one-pass profile derived, for the profile's
// extra.one_pass and for a caller that prints a table.
type Result struct {
	Samples     Samples      `json:"samples"`
	Curve       *MRC         `json:"curve"`
	Costs       Costs        `json:"costs"`
	Predictions []Prediction `json:"predictions"`
	Widen       float64      `json:"band_widening"`
}

// Derive turns samples into predictions at info's fit ratios.
func Derive(info Info, s Samples, c Costs) (*Result, error) {
	fits := info.Fits
	if len(fits) == 0 {
		fits = DefaultFits
	}
	m, err := s.Curve(float64(info.Peak))
	if err != nil {
		return nil, err
	}
	preds, err := m.Predict(fits, c)
	if err != nil {
		return nil, err
	}
	return &Result{Samples: s, Curve: m, Costs: c, Predictions: preds, Widen: Widen}, nil
}

// Factors writes the result as a profile: the factor-file format memplan
// profile writes, one curve per device marked Curve (zram-lz4 by default)
// whose points carry the inferred page rate, transfer_from that curve (so
// the model derives every other class from this job's page rates), and
// under extra.profile method: one-pass. The curves' provenance is
// inferred: the model carries every point's interval, the one-pass band,
// as it is. The file is checked by loading it back.
func (r *Result) Factors(info Info) (*factors.File, error) {
	host := "unknown-host"
	if info.Host != nil && info.Host.Hostname != "" {
		host = info.Host.Hostname
	}
	started := info.Started
	if started.IsZero() {
		started = r.Samples.Started
	}
	today := units.Date{Time: started.UTC().Truncate(24 * time.Hour)}
	name := "job"
	if len(info.Command) > 0 {
		name = filepath.Base(info.Command[0])
	}
	cmd := measure.ShellQuote(info.Command)
	m := r.Curve
	f := &factors.File{
		Name: fmt.Sprintf("memplan-profile --one-pass %s on %s %s", name, host, today),
		Date: today,
		Source: fmt.Sprintf("inferred by memplan profile --one-pass %s on %s from one run of %s: resident peak %s, %.2fs in RAM; working sets by %s over %d windows of %v to %v",
			info.Version, host, cmd, units.Bytes(m.Peak), info.Runtime.Seconds(), r.Samples.Method, r.Samples.Windows,
			firstWindow(r.Samples), lastWindow(r.Samples)),
		Host: info.Host,
	}
	if !strings.HasPrefix(r.Costs.OverheadSource, "the model's default") && r.Costs.Overhead > 0 {
		f.FaultOverhead = units.Duration(r.Costs.Overhead)
	}
	for _, p := range r.Predictions {
		dc := r.Costs.device(p.Class)
		if dc == nil || !dc.Curve {
			continue
		}
		c := factors.Curve{Class: p.Class, Provenance: factors.Inferred, Host: host, MeasuredAt: today,
			Source: fmt.Sprintf("inferred by one pass (working-set sampling, not a run under a memory limit) of %s: rate of pages needed back x time per page on %s (%s); the intervals are the one-pass band", cmd, p.Device, dc.Source),
			Reference: factors.Reference{Device: p.Device, ReadLatency: units.Duration(dc.Dev.ReadLatency), WriteLatency: units.Duration(dc.Dev.WriteLatency),
				ReadIOPS: dc.Dev.ReadIOPS, WriteIOPS: dc.Dev.WriteIOPS, WriteBandwidth: units.Bytes(dc.Dev.WriteBW), Drives: dc.Dev.Drives,
				Concurrency: 1, DirtyShare: units.Ratio(r.Costs.Dirty)}}
		for _, pt := range p.Points {
			s := measure.Round4(math.Max(1, pt.Slowdown))
			c.Points = append(c.Points, factors.Point{Fit: pt.Fit, Slowdown: s,
				CI:       []float64{measure.Round4(math.Min(pt.Low, s)), measure.Round4(math.Max(pt.High, s))},
				PageRate: measure.Round4(pt.Rate.Central)})
		}
		f.Curves = append(f.Curves, c)
		if f.TransferFrom == "" {
			f.TransferFrom = c.Class
		}
	}
	if len(f.Curves) == 0 {
		return nil, fmt.Errorf("onepass: no device in Costs is marked Curve: nothing to write as the profile's curve")
	}
	prof := map[string]any{
		"method": Method, "command": info.Command, "command_line": cmd, "exit_status": info.ExitCode,
		"peak_resident_bytes": int64(m.Peak), "peak_source": info.PeakSource, "runtime_in_ram_s": measure.Round4(info.Runtime.Seconds()),
		"fits": info.Fits, "sampling_method": r.Samples.Method, "split": r.Samples.Split, "damon": r.Samples.DAMON,
		"cgroup": info.Cgroup, "started": started, "sampler_cost_share": measure.Round4(r.Samples.CostShare),
	}
	if len(info.Fits) == 0 {
		prof["fits"] = DefaultFits
	}
	var cacheNote []string
	if c := PageCacheNote(info.Charged, int64(m.Peak)); c != "" {
		prof["peak_charged_bytes"] = info.Charged
		prof["page_cache_bytes"] = info.Charged - int64(m.Peak)
		cacheNote = []string{c}
	}
	notes := append([]string{
		"one-pass: the curve is inferred from which pages the job referenced over windows of different lengths in one unconstrained run (working-set theory), not measured under memory limits; see the band in each point's ci",
		"block devices: one fault per page needed back is assumed (readahead cannot be seen without swapping); sequential jobs take fewer faults there, so block-device predictions err high",
	}, cacheNote...)
	notes = append(notes, info.Notes...)
	f.Extra = map[string]any{"profile": prof, "one_pass": measure.ToMap(r), "notes": notes}
	data, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	back, err := model.ParseFactors("one-pass profile", data)
	if err != nil {
		return nil, fmt.Errorf("onepass: the profile does not load back: %w", err)
	}
	back.File = ""
	return f, nil
}

// PageCacheNote says, when the job's cgroup was charged much more than its
// resident peak (by more than a quarter and 16 MiB), that the difference
// is page cache one pass does not see: under a memory limit those files'
// pages are charged to the job and compete with the memory the curve is
// about, so the curve can understate the slowdown (GNU sort spilling to
// temporary files: 688 MiB charged against 302 MiB resident). "" otherwise.
func PageCacheNote(charged, peak int64) string {
	if peak <= 0 || charged <= peak+peak/4 || charged-peak < 16<<20 {
		return ""
	}
	return fmt.Sprintf("page cache: the job's cgroup was charged up to %s against a resident peak of %s; the other %s is page cache of files it read or wrote, which one pass does not see. Under a memory limit those pages are charged to the job and compete with its memory, so the inferred curve can understate the slowdown; where it matters, measure it with the multi-run profile",
		units.Bytes(charged), units.Bytes(peak), units.Bytes(charged-peak))
}

func (c Costs) device(class string) *DeviceCost {
	for i := range c.Devices {
		if c.Devices[i].Class == class {
			return &c.Devices[i]
		}
	}
	return nil
}

func lastWindow(s Samples) time.Duration {
	var w time.Duration
	for _, r := range s.Rungs {
		if r.Reuse.N > 0 {
			w = r.Window
		}
	}
	return w
}
