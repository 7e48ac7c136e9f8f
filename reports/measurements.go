package reports

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Measurements is what a probe's factor file records beside its curves
// (under extra, which the model ignores) that a reader of the result should
// see: the time one page brought back from swap cost, per curve point, and
// the source experiments as the probe reproduced them, each row with the
// published result it is compared with. The published figures are the
// probe's own (measure/probe writes them into the file): they are read
// here, never restated.
type Measurements struct {
	FaultLatency []FaultLatency `json:"fault_latency" yaml:"fault_latency"`
	Swapdemo     *Swapdemo      `json:"swapdemo" yaml:"swapdemo"`
	PageCache    []PageCacheRow `json:"pagecache" yaml:"pagecache"`
	Copy         *Copy          `json:"copy" yaml:"copy"`
}

// FaultLatency is the distribution of the time one page brought back from
// swap cost the probe's workload at one backend and fit ratio (pmbench's
// per-access latency; a sample of the visits is timed, see docs/probe.md).
type FaultLatency struct {
	Class      string  `json:"class" yaml:"class"`
	Stage      string  `json:"stage" yaml:"stage"`
	Provenance string  `json:"provenance" yaml:"provenance"`
	Fit        float64 `json:"fit" yaml:"fit"`
	Count      int64   `json:"count" yaml:"count"`
	MeanUs     float64 `json:"mean_us" yaml:"mean_us"`
	P50Us      float64 `json:"p50_us" yaml:"p50_us"`
	P90Us      float64 `json:"p90_us" yaml:"p90_us"`
	P99Us      float64 `json:"p99_us" yaml:"p99_us"`
	P999Us     float64 `json:"p99_9_us" yaml:"p99_9_us"`
	MaxUs      float64 `json:"max_us" yaml:"max_us"`
	// Histogram counts the timed faults slower than the previous bucket's
	// bound and no slower than UpToUs, in 1-2-5 steps.
	Histogram []LatencyBucket `json:"histogram" yaml:"histogram"`
}

// LatencyBucket is one bucket of a latency histogram.
type LatencyBucket struct {
	UpToUs float64 `json:"le_us" yaml:"le_us"`
	Count  int64   `json:"count" yaml:"count"`
}

// Swapdemo is the swapdemo experiment at its proportions.
type Swapdemo struct {
	LimitBytes    int64         `json:"limit_bytes" yaml:"limit_bytes"`
	DataBytes     int64         `json:"data_bytes" yaml:"data_bytes"`
	CodeBytes     int64         `json:"code_bytes" yaml:"code_bytes"`
	ChunkBytes    int64         `json:"chunk_bytes" yaml:"chunk_bytes"`
	MaxIterations int           `json:"max_iterations" yaml:"max_iterations"`
	BudgetSeconds float64       `json:"budget_s" yaml:"budget_s"`
	WallSeconds   float64       `json:"wall_s" yaml:"wall_s"`
	Runs          []SwapdemoRun `json:"runs" yaml:"runs"`
}

// SwapdemoRun is one setting of the experiment over its repetitions.
type SwapdemoRun struct {
	Setting string `json:"setting" yaml:"setting"`
	Applied bool   `json:"applied" yaml:"applied"`
	Why     string `json:"why" yaml:"why"` // why it could not be applied
	Runs    int    `json:"runs" yaml:"runs"`
	// Iterations done per run (mean, fractions included) and the time one
	// took; VsSwappiness60 that time over swappiness 60's. AtLeast is set
	// when the runs could not finish one iteration in the budget: the
	// slowdown is then at least that, VsSwappiness60 estimated from the rate.
	Iterations          float64 `json:"iterations" yaml:"iterations"`
	SecondsPerIteration float64 `json:"s_per_iteration" yaml:"s_per_iteration"`
	VsSwappiness60      float64 `json:"vs_swappiness_60" yaml:"vs_swappiness_60"`
	AtLeast             float64 `json:"at_least" yaml:"at_least"`
	CodeRereads         float64 `json:"code_pages_reread" yaml:"code_pages_reread"`
	SwapIns             float64 `json:"anon_pages_swapped_in" yaml:"anon_pages_swapped_in"`
	MajorFaults         float64 `json:"major_faults" yaml:"major_faults"`
	OOMKilled           int     `json:"oom_killed_runs" yaml:"oom_killed_runs"`
	Published           string  `json:"published" yaml:"published"`
}

// PageCacheRow is the page-cache scenario at one remedy and writer file size.
type PageCacheRow struct {
	Remedy        string  `json:"remedy" yaml:"remedy"`
	FileBytes     int64   `json:"file_bytes" yaml:"file_bytes"`
	FileOverLimit float64 `json:"file_over_limit" yaml:"file_over_limit"`
	Runs          int     `json:"runs" yaml:"runs"` // runs that finished; 0: every one failed
	VisitsPerSec  float64 `json:"visits_per_s" yaml:"visits_per_s"`
	Loss          float64 `json:"throughput_loss" yaml:"throughput_loss"`
	SwapOuts      float64 `json:"swap_outs" yaml:"swap_outs"`
	MajorFaults   float64 `json:"major_faults" yaml:"major_faults"`
	WrittenMiB    float64 `json:"written_mib" yaml:"written_mib"`
	Published     string  `json:"published" yaml:"published"`
}

// Copy is the copy workloads.
type Copy struct {
	Runs        int            `json:"runs" yaml:"runs"`
	WallSeconds float64        `json:"wall_s" yaml:"wall_s"`
	Workloads   []CopyWorkload `json:"workloads" yaml:"workloads"`
}

// CopyWorkload is one copy workload, timed with the final sync; Trimmed is
// the mean without the best and the worst run.
type CopyWorkload struct {
	Name           string  `json:"name" yaml:"name"`
	Files          int64   `json:"files" yaml:"files"`
	Bytes          int64   `json:"bytes" yaml:"bytes"`
	Runs           int     `json:"runs" yaml:"runs"` // runs that finished; 0: every one failed
	TrimmedSeconds float64 `json:"trimmed_s" yaml:"trimmed_s"`
	MinSeconds     float64 `json:"min_s" yaml:"min_s"`
	MaxSeconds     float64 `json:"max_s" yaml:"max_s"`
	MBps           float64 `json:"mb_per_s" yaml:"mb_per_s"`
	FilesPerSec    float64 `json:"files_per_s" yaml:"files_per_s"`
	Published      string  `json:"published" yaml:"published"`
}

// measurementsOf reads what a factor file's extra holds as memplan probe
// writes it (the keys probeview.go names). A file without any of it has none; a
// part that does not read as the probe's is left out, and the returned
// warning says which.
func measurementsOf(file string, extra map[string]any) (*Measurements, []string) {
	if len(extra) == 0 {
		return nil, nil
	}
	m := Measurements{FaultLatency: []FaultLatency{}, PageCache: []PageCacheRow{}}
	var warnings []string
	read := func(key string, v any) bool {
		raw, ok := extra[key]
		if !ok || raw == nil {
			return false
		}
		b, err := json.Marshal(raw)
		if err == nil {
			err = json.Unmarshal(b, v)
		}
		if err != nil {
			// The decoder's message names Go types, not the file's fields:
			// the part is named instead.
			warnings = append(warnings, fmt.Sprintf("%s: extra.%s is not what memplan probe writes, so the report leaves it out; remove it, or measure again with memplan probe", file, key))
			return false
		}
		return true
	}
	var points []probePoint
	if read("points", &points) {
		for _, pt := range points {
			if l := pt.FaultLatency; l != nil && l.Count > 0 {
				m.FaultLatency = append(m.FaultLatency, faultLatency(pt, l))
			}
		}
		sort.SliceStable(m.FaultLatency, func(i, j int) bool {
			a, b := m.FaultLatency[i], m.FaultLatency[j]
			if a.Stage != b.Stage {
				return a.Stage < b.Stage
			}
			return a.Fit > b.Fit
		})
	}
	var sd probeSwapdemo
	if read("swapdemo_scenario", &sd) {
		m.Swapdemo = swapdemo(&sd)
	}
	var pc []probePageCache
	if read("pagecache_scenario", &pc) {
		for _, c := range pc {
			m.PageCache = append(m.PageCache, PageCacheRow{Remedy: c.Remedy, FileBytes: int64(c.FileSize), FileOverLimit: c.Multiple,
				Runs: c.Rate.N, VisitsPerSec: r4(c.Rate.Mean), Loss: r4(c.Loss), SwapOuts: c.SwapOuts, MajorFaults: c.MajFlt,
				WrittenMiB: r4(c.Written), Published: c.Published})
		}
	}
	var cp probeCopy
	if read("copy_scenario", &cp) {
		c := &Copy{Runs: cp.Plan.Runs, WallSeconds: r4(cp.Wall)}
		for _, x := range cp.Workloads {
			c.Workloads = append(c.Workloads, CopyWorkload{Name: x.Name, Files: x.Files, Bytes: int64(x.Bytes), Runs: x.Seconds.N,
				TrimmedSeconds: r4(x.Seconds.Trimmed), MinSeconds: r4(x.Seconds.Min), MaxSeconds: r4(x.Seconds.Max),
				MBps: r4(x.MBps), FilesPerSec: r4(x.FilesPerSec), Published: x.Published})
		}
		m.Copy = c
	}
	if len(m.FaultLatency) == 0 && m.Swapdemo == nil && len(m.PageCache) == 0 && m.Copy == nil {
		return nil, warnings
	}
	return &m, warnings
}

func faultLatency(pt probePoint, l *probeLatencies) FaultLatency {
	fl := FaultLatency{Class: pt.Class, Stage: pt.Stage, Provenance: pt.Provenance, Fit: pt.Fit, Count: l.Count,
		MeanUs: l.MeanUs, P50Us: l.P50Us, P90Us: l.P90Us, P99Us: l.P99Us, P999Us: l.P999Us, MaxUs: l.MaxUs,
		Histogram: []LatencyBucket{}}
	for _, b := range l.Buckets {
		fl.Histogram = append(fl.Histogram, LatencyBucket{UpToUs: b.UpToUs, Count: b.Count})
	}
	return fl
}

func swapdemo(sd *probeSwapdemo) *Swapdemo {
	p := sd.Plan
	out := &Swapdemo{LimitBytes: int64(p.Limit), DataBytes: int64(p.Data), CodeBytes: int64(p.Code), ChunkBytes: int64(p.Chunk),
		MaxIterations: p.Iterations, BudgetSeconds: r4(float64(p.BudgetNs) / 1e9), WallSeconds: r4(sd.Wall), Runs: []SwapdemoRun{}}
	for _, s := range sd.Runs {
		out.Runs = append(out.Runs, SwapdemoRun{Setting: s.Setting, Applied: s.Applied, Why: s.Why, Runs: len(s.Runs),
			Iterations: r4(s.Iterations), SecondsPerIteration: r4(s.SecPerIter), VsSwappiness60: r4(s.VsSwappiness60), AtLeast: r4(s.AtLeast),
			CodeRereads: s.CodeRereads, SwapIns: s.SwapIns, MajorFaults: s.MajFlt, OOMKilled: s.OOMKilled, Published: s.Published})
	}
	return out
}
