package measure

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/memplan/memplan/units"
)

// RunResult is one run, the probe's workload or the profiler's command:
// what it did, how long it took and what the kernel did meanwhile. Times
// are seconds; counters are deltas over the timed phase (the whole run for
// a command). The fields only one of them fills are omitted when empty.
type RunResult struct {
	Backend string  `json:"backend"`
	Fit     float64 `json:"fit,omitempty"` // 0: no limit of its own (in RAM)
	Rep     int     `json:"rep"`
	// Seq is the run's place in its session's order of runs: in-RAM and
	// constrained runs interleaved (Order).
	Seq        int         `json:"seq,omitempty"`
	Limit      units.Bytes `json:"limit_bytes,omitempty"`
	Swappiness *int        `json:"swappiness,omitempty"`
	WriterFile units.Bytes `json:"writer_file_bytes,omitempty"`

	// The probe's workload: its phases and page visits.
	Init   float64 `json:"init_s,omitempty"`
	Warmup float64 `json:"warmup_s,omitempty"`
	Timed  float64 `json:"timed_s,omitempty"`
	Wall   float64 `json:"wall_s"`
	// A command's CPU time (rusage).
	User     float64 `json:"user_s,omitempty"`
	Sys      float64 `json:"sys_s,omitempty"`
	Visits   int64   `json:"visits,omitempty"`
	Rate     float64 `json:"visits_per_s,omitempty"`
	Slowdown float64 `json:"slowdown,omitempty"`
	// Base is the in-RAM seconds the slowdown is over: the mean of the
	// in-RAM runs just before and after the run (PairedBase), for the
	// workload's planned visits or the command's one run.
	Base float64 `json:"base_timed_s,omitempty"`
	// IdleHost is the slowdown on an idle host: the run's time less its
	// wait for a CPU over its in-RAM neighbours' (Contention.IdleWall).
	IdleHost float64 `json:"idle_host_slowdown,omitempty"`
	// Censored: the run hit the time cap and was stopped; its slowdown is
	// estimated from the rate it had reached (the probe), or its time at
	// the cap, a lower bound (a command). LowerOnly: the probe's run never
	// got past initialisation, so only the cap is known.
	Censored  bool   `json:"censored,omitempty"`
	LowerOnly bool   `json:"lower_bound_only,omitempty"`
	OOMKilled bool   `json:"oom_killed,omitempty"`
	Failed    string `json:"failed,omitempty"`
	// A command's exit: its status or signal, and the end of its stderr
	// when it failed.
	ExitCode int    `json:"exit_code,omitempty"`
	Signal   string `json:"signal,omitempty"`
	Stderr   string `json:"stderr_tail,omitempty"`

	MajFlt   int64   `json:"major_faults"`
	MinFlt   int64   `json:"minor_faults"`
	SwapIn   int64   `json:"swap_ins"`
	SwapOut  int64   `json:"swap_outs"`
	ZswapIn  int64   `json:"zswap_ins,omitempty"`
	ZswapOut int64   `json:"zswap_outs,omitempty"`
	PSISome  float64 `json:"psi_some_s"`
	PSIFull  float64 `json:"psi_full_s"`
	PSIScope string  `json:"psi_scope,omitempty"` // cgroup or system
	// Peak is the run cgroup's peak charge (page cache included);
	// Resident its peak of anonymous, shared and mapped file memory, and
	// MaxRSS the largest process's (a command's runs).
	Peak     units.Bytes `json:"peak_charged_bytes,omitempty"`
	Resident units.Bytes `json:"resident_peak_bytes,omitempty"`
	MaxRSS   units.Bytes `json:"max_rss_bytes,omitempty"`

	ZramOrig    units.Bytes `json:"zram_orig_bytes,omitempty"`
	ZramCompr   units.Bytes `json:"zram_compr_bytes,omitempty"`
	ZramUsed    units.Bytes `json:"zram_mem_used_bytes,omitempty"`
	ZramSame    int64       `json:"zram_same_pages,omitempty"`
	ZramRatio   float64     `json:"zram_ratio,omitempty"`
	ZswapPool   units.Bytes `json:"zswap_pool_bytes,omitempty"`
	Zswapped    units.Bytes `json:"zswapped_bytes,omitempty"`
	WrittenMiB  int64       `json:"writer_mib,omitempty"`
	WriterError string      `json:"writer_error,omitempty"`

	// Experiments: swapdemo's code re-reads and data swap-ins (pages found
	// not resident), the copy workload's files and bytes.
	CodeMisses int64 `json:"code_page_misses,omitempty"`
	// FileRefaults and AnonRefaults are the run cgroup's page-cache and
	// anonymous pages read back after eviction (memory.stat
	// workingset_refault_*): re-reads of the code versus swap-ins.
	FileRefaults int64       `json:"file_refaults,omitempty"`
	AnonRefaults int64       `json:"anon_refaults,omitempty"`
	DataMisses   int64       `json:"data_page_misses,omitempty"`
	Files        int64       `json:"files,omitempty"`
	Copied       units.Bytes `json:"copied_bytes,omitempty"`

	// Contention is what the rest of the host did during the timed phase
	// (the run's CPU time and its wait for a CPU).
	Contention *Contention `json:"contention,omitempty"`
	// Touch is the probe workload's first-touch latency of every page its
	// timed phase visited; points aggregate it.
	Touch *Hist `json:"-"`
}

// UnmarshalJSON reads a run as any version of memplan wrote it: files
// written before the probe and the profiler shared this type name two
// fields differently, the profiler's "capped" (now censored) and the
// probe's "peak_bytes" (now peak_charged_bytes).
func (r *RunResult) UnmarshalJSON(data []byte) error {
	type plain RunResult
	var v struct {
		plain
		Capped  *bool        `json:"capped"`
		OldPeak *units.Bytes `json:"peak_bytes"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = RunResult(v.plain)
	if v.Capped != nil && !r.Censored {
		r.Censored = *v.Capped
	}
	if v.OldPeak != nil && r.Peak == 0 {
		r.Peak = *v.OldPeak
	}
	return nil
}

type NopProgress struct{}

func (NopProgress) Stage(string, int) {}

func (NopProgress) RunDone(RunResult) {}

func (NopProgress) Note(string) {}

// clampSlowdown keeps noise at full fit from producing a slowdown below 1,
// which the model rejects; the raw samples stay as measured.
func ClampSlowdown(v float64) float64 {
	if math.IsNaN(v) || v < 1 {
		return 1
	}
	return v
}

// toMap turns a struct into the map Extra holds, through JSON, so that the
// JSON and YAML files carry the same keys.
func ToMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return map[string]any{"error": err.Error()}
	}
	return m
}

func Round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

func RoundAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = Round4(x)
	}
	return out
}

// Tally adds up the counters of a point's runs, the same way for the probe
// and the profiler: the means a point reports are over its complete runs.
// A run stopped at the time cap still gives a slowdown sample (a lower
// bound, or an estimate from the rate it reached) but its counters cover
// only the part of the work it did, so it is not averaged.
type Tally struct {
	N                                       int
	MajFlt, SwapIns, SwapOuts               float64
	PSISome, PSIFull                        float64
	ZramRatio                               float64 // the highest seen
	sumMaj, sumIn, sumOut, sumSome, sumFull float64
}

// Add counts one complete run.
func (t *Tally) Add(majflt, swapIns, swapOuts int64, psiSome, psiFull, zramRatio float64) {
	t.N++
	t.sumMaj += float64(majflt)
	t.sumIn += float64(swapIns)
	t.sumOut += float64(swapOuts)
	t.sumSome += psiSome
	t.sumFull += psiFull
	t.ZramRatio = max(t.ZramRatio, zramRatio)
	n := float64(t.N)
	t.MajFlt, t.SwapIns, t.SwapOuts = t.sumMaj/n, t.sumIn/n, t.sumOut/n
	t.PSISome, t.PSIFull = t.sumSome/n, t.sumFull/n
}

// shellQuote renders argv the way a person would type it.
func ShellQuote(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			b.WriteString(a)
			continue
		}
		b.WriteString(strconv.Quote(a))
	}
	return b.String()
}
