package reports

import (
	"encoding/json"

	"github.com/memplan/memplan/units"
)

// The probe's records as a factor file carries them under extra: only the
// keys the report reads, named as memplan probe writes them
// (measure/probe's PointResult, SwapdemoResult, PageCacheResult and
// CopyResult). reports reads the file, not the producer's types, so that it
// builds where the probe does not (the probe is Linux-only).

type probePoint struct {
	Stage        string          `json:"stage"`
	Class        string          `json:"class"`
	Provenance   string          `json:"provenance"`
	Fit          float64         `json:"fit"`
	FaultLatency *probeLatencies `json:"fault_latency"`
}

type probeLatencies struct {
	Count   int64   `json:"count"`
	MeanUs  float64 `json:"mean_us"`
	P50Us   float64 `json:"p50_us"`
	P90Us   float64 `json:"p90_us"`
	P99Us   float64 `json:"p99_us"`
	P999Us  float64 `json:"p99_9_us"`
	MaxUs   float64 `json:"max_us"`
	Buckets []struct {
		UpToUs float64 `json:"le_us"`
		Count  int64   `json:"count"`
	} `json:"histogram"`
}

type probeSummary struct {
	N       int     `json:"n"`
	Mean    float64 `json:"mean"`
	Trimmed float64 `json:"trimmed_mean"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}

type probeSwapdemo struct {
	Plan struct {
		Limit      units.Bytes `json:"limit_bytes"`
		Data       units.Bytes `json:"data_bytes"`
		Code       units.Bytes `json:"code_bytes"`
		Chunk      units.Bytes `json:"chunk_bytes"`
		Iterations int         `json:"max_iterations"`
		BudgetNs   int64       `json:"budget_ns"`
	} `json:"plan"`
	Runs []struct {
		Setting        string            `json:"setting"`
		Applied        bool              `json:"applied"`
		Why            string            `json:"why"`
		Published      string            `json:"published"`
		Iterations     float64           `json:"iterations"`
		SecPerIter     float64           `json:"s_per_iteration"`
		VsSwappiness60 float64           `json:"slowdown_vs_swappiness_60"`
		AtLeast        float64           `json:"at_least"`
		OOMKilled      int               `json:"oom_killed_runs"`
		CodeRereads    float64           `json:"code_pages_reread"`
		SwapIns        float64           `json:"anon_pages_swapped_in"`
		MajFlt         float64           `json:"major_faults"`
		Runs           []json.RawMessage `json:"runs"`
	} `json:"runs"`
	Wall float64 `json:"wall_s"`
}

type probePageCache struct {
	FileSize  units.Bytes  `json:"file_bytes"`
	Multiple  float64      `json:"file_over_limit"`
	Rate      probeSummary `json:"visits_per_s"`
	Loss      float64      `json:"throughput_loss"`
	SwapOuts  float64      `json:"swap_outs_mean"`
	MajFlt    float64      `json:"major_faults_mean"`
	Written   float64      `json:"writer_mib_mean"`
	Remedy    string       `json:"remedy"`
	Published string       `json:"published"`
}

type probeCopy struct {
	Plan struct {
		Runs int `json:"runs"`
	} `json:"plan"`
	Workloads []struct {
		Name        string       `json:"name"`
		Files       int64        `json:"files"`
		Bytes       units.Bytes  `json:"bytes"`
		Published   string       `json:"published"`
		Seconds     probeSummary `json:"seconds"`
		MBps        float64      `json:"mb_per_s"`
		FilesPerSec float64      `json:"files_per_s"`
	} `json:"workloads"`
	Wall float64 `json:"wall_s"`
}
