//go:build linux

package probe

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/device"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// Factors turns a report into the factor file the model reads: one curve
// per measured or emulated backend class, the zram compressor as measured,
// host facts, and every parameter and raw run under Extra. version names
// the memplan that measured. The file has no curves when nothing but the
// baseline ran (without root); the model cannot use it then.
func (r *Report) Factors(version string) *factors.File {
	p := r.Plan
	host := r.Host.Hostname
	if host == "" {
		host = "unknown-host"
	}
	today := units.Date{Time: r.Started.Truncate(24 * time.Hour)}
	f := &factors.File{
		Name:   fmt.Sprintf("memplan-probe %s %s", host, today),
		Date:   today,
		Source: fmt.Sprintf("measured by memplan probe %s on %s: %s access, %s data, %.0f%% writes, %s footprint", version, host, p.Workload.Pattern, p.Workload.Content, 100*p.Workload.WriteMix, r.Footprint),
		Host:   &r.Host,
	}
	hostHost := *f.Host
	f.Host = &hostHost
	dirty := units.Ratio(p.Workload.WriteMix)
	byClass := map[string]*factors.Curve{}
	var order []string
	for _, pt := range r.Points {
		if pt.Class == "" || pt.Slowdown.N == 0 {
			continue
		}
		c, ok := byClass[pt.Class]
		if !ok {
			c = &factors.Curve{Class: pt.Class, Provenance: pt.Provenance, Host: host, MeasuredAt: today}
			c.Reference, c.Source = r.reference(pt)
			c.Reference.Concurrency = 1
			c.Reference.DirtyShare = dirty
			byClass[pt.Class] = c
			order = append(order, pt.Class)
		}
		slow := measure.ClampSlowdown(pt.Slowdown.Mean)
		lo, hi := math.Min(pt.Slowdown.Lo, slow), math.Max(pt.Slowdown.Hi, slow)
		point := factors.Point{Fit: pt.Fit, Slowdown: measure.Round4(slow), Samples: measure.RoundAll(pt.Samples)}
		if pt.Slowdown.N >= 2 {
			point.CI = []float64{measure.Round4(lo), measure.Round4(hi)}
			if point.CI[0] > point.Slowdown {
				point.CI[0] = point.Slowdown
			}
			if point.CI[1] < point.Slowdown {
				point.CI[1] = point.Slowdown
			}
		}
		c.Points = append(c.Points, point)
	}
	for _, class := range order {
		c := byClass[class]
		sort.Slice(c.Points, func(a, b int) bool { return c.Points[a].Fit > c.Points[b].Fit })
		if c.Reference.ReadLatency <= 0 {
			continue // nothing to scale by: the model would reject it
		}
		f.Curves = append(f.Curves, *c)
		if c.Provenance == factors.Measured && class == r.fileClass() {
			f.TransferFrom = class
		}
	}
	if z := r.ZramLatency; z != nil && z.ReadMean > 0 {
		ratio := 0.0
		for _, pt := range r.Points {
			if pt.Backend == measure.BackendZram {
				ratio = math.Max(ratio, pt.ZramRatio)
			}
		}
		if ratio >= 1 {
			f.Software = append(f.Software, factors.Software{Name: "zram-" + z.Algorithm,
				Latency: units.Duration(math.Round(z.ReadMean * 1e3)), Ratio: measure.Round4(ratio),
				Source: fmt.Sprintf("measured by memplan probe on %s: O_DIRECT 4 KiB reads of %s pages, ratio from mm_stat during the runs", host, z.Content)})
		}
	}
	f.Extra = measure.ToMap(r.extra())
	return f
}

// reference is the device a curve was measured on, with where the figures
// come from.
func (r *Report) reference(pt PointResult) (factors.Reference, string) {
	p := r.Plan
	ref := factors.Reference{Drives: 1}
	src := ""
	fault := r.faultTime(pt.Stage)
	fallback := func(what string) {
		if fault > 0 {
			ref.ReadLatency = units.Duration(math.Round(fault * 1e9))
			ref.WriteLatency = ref.ReadLatency
			src += fmt.Sprintf("; reference latency is the measured extra time per major fault (%s)", what)
		}
	}
	switch pt.Backend {
	case measure.BackendZram:
		src = fmt.Sprintf("memplan probe: zram (%s) swap, cgroup memory limit = fit x footprint", p.ZramAlg)
		ref.Device = "zram " + p.ZramAlg
		if z := r.ZramLatency; z != nil && z.ReadMean > 0 {
			ref.ReadLatency = units.Duration(math.Round(z.ReadMean * 1e3))
			ref.WriteLatency = units.Duration(math.Round(z.WriteMean * 1e3))
		} else {
			fallback("no raw zram latency")
		}
	case measure.BackendFile:
		src = fmt.Sprintf("memplan probe: swap file on %s (%s), cgroup memory limit = fit x footprint", p.Swap.DeviceName(), p.Swap.FS)
		if d := r.Device; d != nil && d.RandReadQD1.Latency.MeanUs > 0 {
			ref = d.Reference()
			ref.Drives = 1
		} else {
			ref.Device = p.Swap.DeviceName()
			fallback("no device profile")
		}
	case measure.BackendZswap:
		src = fmt.Sprintf("memplan probe: zswap (%s) in front of a swap file on %s", p.ZswapAlg, p.Swap.DeviceName())
		ref.Device = "zswap " + p.ZswapAlg + " + " + p.Swap.DeviceName()
		fallback("zswap has no latency of its own to measure")
	case measure.BackendEmulated:
		for _, st := range p.Stages {
			if st.Name == pt.Stage && st.Emulation != nil {
				e := st.Emulation
				d := e.Drive
				ref = factors.Reference{Device: e.Label + " (emulated)", ReadLatency: d.ReadLatency, WriteLatency: d.WriteLatency,
					ReadIOPS: float64(e.RIOPS), WriteIOPS: float64(e.WIOPS), Drives: e.Count}
				src = fmt.Sprintf("emulated by memplan probe: swap file on %s throttled to %d read / %d write IOPS (%s); latency is the real disk's, only the IOPS ceiling is the drive's",
					p.Swap.DeviceName(), e.RIOPS, e.WIOPS, e.Label)
				if e.Latency != "" {
					// The reference stays the drive's: the curve is filed as
					// that drive. What the device delivered is in the source,
					// since FUSE and the loop device add their own time.
					src = fmt.Sprintf("emulated by memplan probe with its latency: swap on a direct-I/O loop device over a FUSE file whose requests wait for the %s model (%s); FUSE and the loop device add their own time on top: %.0fus extra per major fault was measured against the drive's %v read",
						e.Latency, e.Label, fault*1e6, d.ReadLatency)
				}
			}
		}
	}
	return ref, src
}

// faultTime is the mean extra time per major fault over a stage's points.
func (r *Report) faultTime(stage string) float64 {
	var sum, n float64
	for _, pt := range r.Points {
		if pt.Stage == stage && pt.FaultTime > 0 {
			sum += pt.FaultTime
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

type extra struct {
	Probe      any                `json:"probe"`
	Baseline   any                `json:"baseline"`
	Stages     []StageRounds      `json:"stages,omitempty"`
	Points     []PointResult      `json:"points"`
	NoSwap     []PointResult      `json:"no_swap,omitempty"`
	Swappiness []SwappinessResult `json:"swappiness_scenario,omitempty"`
	PageCache  []PageCacheResult  `json:"pagecache_scenario,omitempty"`
	Swapdemo   *SwapdemoResult    `json:"swapdemo_scenario,omitempty"`
	Copy       *CopyResult        `json:"copy_scenario,omitempty"`
	Device     *device.Profile    `json:"device_profile,omitempty"`
	Zram       *host.ZramLatency  `json:"zram_latency,omitempty"`
	Skipped    []string           `json:"skipped,omitempty"`
	Notes      []string           `json:"notes,omitempty"`
}

// fileClass is the swap file curve's class: as the run filed it, or the
// plan's for a report made without running.
func (r *Report) fileClass() string {
	if r.DeviceClass != "" {
		return r.DeviceClass
	}
	return r.Plan.DeviceClass
}

func (r *Report) extra() extra {
	p := r.Plan
	o := p.Options
	probe := map[string]any{
		"quick": o.Quick, "reps": o.Reps, "fits": o.Fits, "max_slowdown": o.MaxSlowdown, "seed": o.Seed,
		"precision": o.Precision, "budget_s": o.PrecisionBudget.Seconds(),
		"scenarios": o.Scenarios, "backends": o.Backends, "zram_algorithm": p.ZramAlg, "zswap_compressor": p.ZswapAlg,
		"device_class": r.fileClass(), "swap_dir": p.Swap.Dir, "swap_disk": p.Swap.Disk, "swap_file_bytes": p.SwapFileSize,
		"cgroup": p.Cgroups, "root": p.Root, "started": r.Started, "elapsed_s": r.Elapsed,
		"workload": map[string]any{
			"data_bytes": p.Workload.DataSize, "code_bytes": p.Workload.CodeSize, "chunk_bytes": p.Workload.Chunk,
			"pattern": p.Workload.Pattern, "zipf_s": p.Workload.ZipfS, "content": p.Workload.Content,
			"write_mix": p.Workload.WriteMix, "passes": p.Workload.Passes, "code_reads_per_visit": p.Workload.CodeShare,
			"warmup_visits": p.Workload.Warmup, "timed_visits": p.Workload.Visits,
		},
		"emulations": p.Emulations,
	}
	base := map[string]any{
		"footprint_bytes": r.Footprint, "timed_s": r.Baseline, "visits_per_s": r.BaselineRate,
		"ns_per_page_visit": r.NsPerVisit, "runs": r.BaselineRuns,
	}
	e := extra{Probe: probe, Baseline: base, Stages: r.Stages, Swappiness: r.Swappiness, PageCache: r.PageCache, Swapdemo: r.Swapdemo, Copy: r.Copy,
		Device: r.Device, Zram: r.ZramLatency, Skipped: p.Skipped, Notes: r.Notes}
	for _, pt := range r.Points {
		if pt.Backend == measure.BackendNone {
			e.NoSwap = append(e.NoSwap, pt)
		} else {
			e.Points = append(e.Points, pt)
		}
	}
	return e
}
