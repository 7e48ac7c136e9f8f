//go:build linux

package probe

import (
	"slices"
	"strings"
	"time"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// Scenarios.
const (
	ScenarioCurves     = "curves"     // slowdown versus fit ratio per backend
	ScenarioSwappiness = "swappiness" // the seed experiment's swappiness and swap-off comparison
	ScenarioPageCache  = "pagecache"  // a concurrent writer's page cache against the workload
	ScenarioSwapdemo   = "swapdemo"   // the swapdemo experiment at its own proportions
	ScenarioCopy       = "copy"       // the filesystem benchmark's copy workloads
)

var (
	allBackends  = []string{measure.BackendZram, measure.BackendFile, measure.BackendZswap, measure.BackendNone, measure.BackendEmulated}
	allScenarios = []string{ScenarioCurves, ScenarioSwappiness, ScenarioPageCache, ScenarioSwapdemo, ScenarioCopy}
	// DefaultFits are the fit ratios (memory limit / footprint) of the curves.
	DefaultFits = []float64{1.0, 0.9, 0.75, 0.6, 0.5}
	// QuickFits are the ones --quick measures.
	QuickFits = []float64{0.9, 0.75, 0.5}
	// DefaultSwappiness are the settings the swappiness scenario compares.
	DefaultSwappiness = []int{60, 100, 1, 0}
)

// WorkloadOptions shape the workload; zero values scale to the host.
type WorkloadOptions struct {
	DataSize units.Bytes `json:"data_size,omitempty"` // anonymous data segment
	CodeSize units.Bytes `json:"code_size,omitempty"` // the mapped "code" file
	Pattern  string      `json:"pattern"`             // uniform, zipf, sequential
	ZipfS    float64     `json:"zipf_s"`              // skew of the zipf pattern (> 1)
	Content  string      `json:"content"`             // zeros, compressible, random
	WriteMix float64     `json:"write_mix"`           // share of page visits that dirty the page
	Passes   int         `json:"passes"`              // reads of each visited page (CPU work per page)
	Rounds   float64     `json:"rounds"`              // timed visits, in multiples of the data pages
}

// Options control a probe run.
type Options struct {
	SwapDir         string    `json:"swap_dir"`
	Backends        []string  `json:"backends"` // default: all
	Fits            []float64 `json:"fits"`
	Reps            int       `json:"reps"`
	Quick           bool      `json:"quick"`
	Scenarios       []string  `json:"scenarios"` // default: curves
	ZramAlgorithm   string    `json:"zram_algorithm"`
	ZswapCompressor string    `json:"zswap_compressor,omitempty"`
	DeviceClass     string    `json:"device_class,omitempty"` // overrides the class picked from the swap device
	Emulate         []string  `json:"emulate,omitempty"`      // factor classes to emulate; empty: every catalog class not present
	// EmulateLatency emulates them with their latency (a FUSE-backed
	// loop device, measure/host/emulate) instead of IOPS throttling.
	EmulateLatency bool            `json:"emulate_latency"`
	DeviceProfile  bool            `json:"device_profile"` // measure the swap device's latency and IOPS
	MaxSlowdown    float64         `json:"max_slowdown"`   // stop a run at this multiple of the in-RAM time
	ScenarioFit    float64         `json:"scenario_fit"`   // fit ratio of the swappiness scenario
	Swappiness     []int           `json:"swappiness"`
	PageCacheSizes []float64       `json:"pagecache_sizes"` // writer file sizes, as multiples of the memory limit
	Workload       WorkloadOptions `json:"workload"`
	Seed           uint64          `json:"seed"`

	// PageCacheFit is the page-cache scenario's memory limit over the
	// workload's footprint (default 1: the application fills its memory,
	// as the source's application servers did).
	PageCacheFit float64 `json:"pagecache_fit"`
	// PageCacheRemedies are run side by side in the page-cache scenario
	// (see scenario_pagecache.go); default: none only.
	PageCacheRemedies []string `json:"pagecache_remedies,omitempty"`
	// Limit is the swapdemo experiment's memory limit L; 0: sized to the
	// host.
	Limit units.Bytes `json:"limit,omitempty"`
	// Budget is the swapdemo experiment's time budget per run
	// (--swapdemo-budget); 0: the experiment's 2 minutes (--quick 20s).
	Budget time.Duration `json:"budget_ns,omitempty"`
	// Precision, when above 0, repeats a stage's rounds past Reps until
	// every point's 95% interval is within this share of its mean (0.05:
	// +-5%), or PrecisionBudget is spent, or 100 rounds are done
	// (measure.RoundRule, as memplan profile --precision).
	Precision float64 `json:"precision,omitempty"`
	// PrecisionBudget bounds each stage's wall time when Precision adds
	// rounds (--budget; 0: none).
	PrecisionBudget time.Duration `json:"precision_budget_ns,omitempty"`
	// CopyRuns is how often each copy workload runs (default 8).
	CopyRuns int `json:"copy_runs,omitempty"`
	// CodePasses is how often a swapdemo iteration reads the code through,
	// at random pages (default 8).
	CodePasses float64 `json:"code_passes,omitempty"`
	// SwapdemoSettings, when set, runs only these swapdemo settings (by
	// name, as in the table: "swappiness 60", "swap off", ...), so that a
	// test can afford the sizes at which one comparison shows; nil: all.
	// No flag: a user wants the whole table.
	SwapdemoSettings []string `json:"swapdemo_settings,omitempty"`

	// Command is recorded in the journal so cleanup can say what left it.
	Command string `json:"command,omitempty"`
	// Executable is re-executed for the workload; default /proc/self/exe.
	Executable string `json:"executable"`
	// StateDir holds the journal, the lock and the working files; default
	// host.DefaultStateDir (commands pass host.StateDir(os.Getenv)).
	StateDir string `json:"state_dir"`
}

// DefaultOptions are the probe's defaults before scaling to the host.
func DefaultOptions() Options {
	return Options{
		Backends:        append([]string(nil), allBackends...),
		Scenarios:       []string{ScenarioCurves},
		ZramAlgorithm:   "lz4",
		DeviceProfile:   true,
		MaxSlowdown:     40,
		ScenarioFit:     0.75,
		Swappiness:      DefaultSwappiness,
		PageCacheSizes:  []float64{0, 0.5, 1, 2, 4},
		Seed:            1,
		Workload:        WorkloadOptions{Pattern: measure.PatternZipf, ZipfS: 1.1, Content: measure.ContentCompressible, WriteMix: 0.5, Passes: 2},
		StateDir:        "",
		ZswapCompressor: "",
	}
}

// validate checks what can be checked without looking at the host.
func (o *Options) validate() error {
	for _, s := range o.Scenarios {
		if !slices.Contains(allScenarios, s) {
			return measure.OptErr("scenario", "unknown scenario %q; expected one of %s", s, strings.Join(allScenarios, ", "))
		}
	}
	if len(o.Scenarios) == 0 {
		return measure.OptErr("scenario", "no scenario given; expected one or more of %s", strings.Join(allScenarios, ", "))
	}
	for _, b := range o.Backends {
		if !slices.Contains(allBackends, b) {
			return measure.OptErr("backends", "unknown backend %q; expected some of %s", b, strings.Join(allBackends, ", "))
		}
	}
	seen := map[float64]bool{}
	for _, f := range o.Fits {
		if !(f > 0 && f <= 1) {
			return measure.OptErr("fit", "fit ratio %g is out of range: it is the memory limit over the workload's footprint, above 0 and at most 1 (e.g. 0.75)", f)
		}
		if seen[f] {
			return measure.OptErr("fit", "fit ratio %g is given twice", f)
		}
		seen[f] = true
	}
	if !(o.ScenarioFit > 0 && o.ScenarioFit <= 1) {
		return measure.OptErr("scenario-fit", "fit ratio %g is out of range: above 0 and at most 1", o.ScenarioFit)
	}
	if o.Reps < 0 || o.Reps > 100 {
		return measure.OptErr("reps", "%d repetitions is out of range; expected 1 to 100", o.Reps)
	}
	if o.PrecisionBudget > 0 && o.Precision == 0 && o.scenario(ScenarioSwapdemo) {
		// --budget was the swapdemo run's time budget before the probe had
		// --precision.
		return measure.OptErr("budget", "bounds the rounds --precision adds; give --precision too, e.g. --precision 5%%; the swapdemo run's time budget is --swapdemo-budget")
	}
	if err := measure.CheckPrecision(o.Precision, o.PrecisionBudget); err != nil {
		return err
	}
	if o.MaxSlowdown != 0 && o.MaxSlowdown < 2 {
		return measure.OptErr("max-slowdown", "%g is too small to measure anything; expected 2 or more", o.MaxSlowdown)
	}
	for _, s := range o.Swappiness {
		if s < 0 || s > 200 {
			return measure.OptErr("swappiness", "%d is out of range; the kernel accepts 0 to 200", s)
		}
	}
	for _, m := range o.PageCacheSizes {
		if m < 0 || m > 64 {
			return measure.OptErr("pagecache-sizes", "%g is out of range; expected multiples of the memory limit from 0 to 64", m)
		}
	}
	w := o.Workload
	switch {
	case w.Pattern != "" && !slices.Contains(measure.Patterns, w.Pattern):
		return measure.OptErr("pattern", "unknown access pattern %q; expected one of %s", w.Pattern, strings.Join(measure.Patterns, ", "))
	case w.Content != "" && !slices.Contains(measure.Contents, w.Content):
		return measure.OptErr("content", "unknown data content %q; expected one of %s", w.Content, strings.Join(measure.Contents, ", "))
	case w.WriteMix < 0 || w.WriteMix > 1:
		return measure.OptErr("write-mix", "%g is out of range; expected the share of page visits that write, 0 to 1", w.WriteMix)
	case w.Pattern == measure.PatternZipf && w.ZipfS != 0 && w.ZipfS <= 1:
		return measure.OptErr("zipf-s", "%g is out of range; the zipf skew must be above 1 (1.1 is mild, 2 is steep)", w.ZipfS)
	case w.Passes < 0 || w.Passes > 1000:
		return measure.OptErr("passes", "%d is out of range; expected 1 to 1000", w.Passes)
	case w.Rounds < 0 || w.Rounds > 1000:
		return measure.OptErr("rounds", "%g is out of range; expected 0.1 to 1000", w.Rounds)
	case w.DataSize != 0 && w.DataSize < 16*units.MiB:
		return measure.OptErr("data-size", "%s is too small; expected 16MiB or more", w.DataSize)
	}
	if o.DeviceClass != "" && !measure.ClassRE.MatchString(o.DeviceClass) {
		return measure.OptErr("device-class", "%q is not a factor class; expected e.g. nvme-ssd-tlc, sata-ssd-slc, hdd", o.DeviceClass)
	}
	for _, a := range []struct{ flag, v string }{{"zram-algorithm", o.ZramAlgorithm}, {"zswap-compressor", o.ZswapCompressor}} {
		if a.v != "" && !measure.ClassRE.MatchString(a.v) {
			return measure.OptErr(a.flag, "%q is not a compressor name; expected e.g. lz4, zstd, lzo-rle", a.v)
		}
	}
	if err := o.validateExperiments(); err != nil {
		return err
	}
	if o.SwapDir == "" {
		return measure.OptErr("swap-dir", "no directory given for the swap file")
	}
	return nil
}

// fill applies --quick and the defaults that do not depend on the host.
func (o *Options) fill() {
	d := DefaultOptions()
	if len(o.Backends) == 0 {
		o.Backends = d.Backends
	}
	if len(o.Scenarios) == 0 {
		o.Scenarios = d.Scenarios
	}
	if len(o.Fits) == 0 {
		o.Fits = DefaultFits
		if o.Quick {
			o.Fits = QuickFits
		}
	}
	if o.Reps == 0 {
		o.Reps = 5
		if o.Quick {
			o.Reps = 3
		}
	}
	if o.ZramAlgorithm == "" {
		o.ZramAlgorithm = d.ZramAlgorithm
	}
	if o.MaxSlowdown == 0 {
		o.MaxSlowdown = d.MaxSlowdown
		if o.Quick {
			o.MaxSlowdown = 25
		}
	}
	if o.ScenarioFit == 0 {
		o.ScenarioFit = d.ScenarioFit
	}
	if len(o.Swappiness) == 0 {
		o.Swappiness = d.Swappiness
	}
	if len(o.PageCacheSizes) == 0 {
		o.PageCacheSizes = d.PageCacheSizes
		if o.Quick {
			o.PageCacheSizes = []float64{0, 1, 4}
		}
	}
	o.fillExperiments()
	w := &o.Workload
	if w.Pattern == "" {
		w.Pattern = d.Workload.Pattern
	}
	if w.ZipfS == 0 {
		w.ZipfS = d.Workload.ZipfS
	}
	if w.Content == "" {
		w.Content = d.Workload.Content
	}
	if w.Passes == 0 {
		w.Passes = d.Workload.Passes
	}
	if w.Rounds == 0 {
		w.Rounds = 4
		if o.Quick {
			w.Rounds = 8
		}
	}
	if o.Seed == 0 {
		o.Seed = d.Seed
	}
	if o.StateDir == "" {
		o.StateDir = host.DefaultStateDir
	}
	if o.Executable == "" {
		o.Executable = "/proc/self/exe"
	}
}

func (o *Options) has(backend string) bool { return slices.Contains(o.Backends, backend) }

func (o *Options) scenario(s string) bool { return slices.Contains(o.Scenarios, s) }

// runTimeout is how long one run may take before it is stopped and its
// slowdown estimated from its rate.
func runTimeout(baselineWall float64, maxSlowdown float64) time.Duration {
	return time.Duration(max(baselineWall*maxSlowdown, 10) * float64(time.Second))
}
