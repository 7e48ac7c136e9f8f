//go:build linux

package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/device"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// Report is everything a probe measured.
type Report struct {
	Plan     *Plan             `json:"-"`
	Host     factors.HostFacts `json:"host"`
	Started  time.Time         `json:"started"`
	Elapsed  float64           `json:"elapsed_s"`
	Complete bool              `json:"complete"`

	Footprint    units.Bytes         `json:"footprint_bytes"`
	Baseline     measure.Summary     `json:"baseline_timed_s"`
	BaselineRate float64             `json:"baseline_visits_per_s"`
	NsPerVisit   float64             `json:"in_ram_ns_per_page_visit"`
	BaselineRuns []measure.RunResult `json:"baseline_runs"`
	// BaselineTouch is the in-RAM runs' first-touch latency; a touch slower
	// than FaultThresholdUs (4x its p99, at least 2us) counts as a page
	// brought back in the points' fault_latency.
	BaselineTouch    *measure.LatencySummary `json:"baseline_touch_latency,omitempty"`
	FaultThresholdUs float64                 `json:"fault_threshold_us,omitempty"`

	// Seed seeds the workload's page choices and the order of every
	// stage's runs (--seed; each stage's order is the stream of its index,
	// measure.NewOrder).
	Seed uint64 `json:"seed"`
	// Stages are the curve stages' rounds: their in-RAM runs, interleaved
	// with the points' runs, and why the rounds stopped.
	Stages     []StageRounds      `json:"stages,omitempty"`
	Points     []PointResult      `json:"points"`
	Swappiness []SwappinessResult `json:"swappiness,omitempty"`
	PageCache  []PageCacheResult  `json:"pagecache,omitempty"`
	Swapdemo   *SwapdemoResult    `json:"swapdemo,omitempty"`
	Copy       *CopyResult        `json:"copy,omitempty"`

	// DeviceClass is the class the swap file's curve is filed under: the
	// plan's, or the one the measured latency says (device.Classify).
	DeviceClass string            `json:"device_class,omitempty"`
	Device      *device.Profile   `json:"device_profile,omitempty"`
	ZramLatency *host.ZramLatency `json:"zram_latency,omitempty"`
	Notes       []string          `json:"notes,omitempty"`
}

// StageRounds is how one stage's runs went (docs/probe.md, "Busy hosts").
type StageRounds struct {
	Stage string `json:"stage"`
	// Seed and Stream reproduce the order (measure.NewOrder).
	Seed   uint64 `json:"order_seed"`
	Stream int    `json:"order_stream"`
	Rounds int    `json:"rounds"`
	// Repetitions says how many rounds ran and why they stopped: the
	// --reps asked for, the precision reached, or the budget spent.
	Repetitions string `json:"repetitions"`
	// InRAM sums up the good in-RAM runs' timed seconds (the probe times
	// its visits, not the whole process); each run's seq is its place in
	// the stage's order. The key is the profile's (profile.Phase.InRAM);
	// files written before it was shared say in_ram_timed_s, which
	// UnmarshalJSON still reads.
	InRAM     measure.Summary     `json:"in_ram_s"`
	InRAMRuns []measure.RunResult `json:"in_ram_runs"`
}

// oldInRAMKey is StageRounds.InRAM's key in files written before it took
// the profile's spelling.
const oldInRAMKey = "in_ram_timed_s"

// UnmarshalJSON reads a stage's rounds with the in-RAM summary under
// either key; in_ram_s wins when a file has both.
func (s *StageRounds) UnmarshalJSON(data []byte) error {
	type plain StageRounds // without this method
	if err := json.Unmarshal(data, (*plain)(s)); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	if _, ok := keys["in_ram_s"]; ok {
		return nil
	}
	if old, ok := keys[oldInRAMKey]; ok {
		return json.Unmarshal(old, &s.InRAM)
	}
	return nil
}

// PointResult is one backend at one fit ratio.
type PointResult struct {
	Stage      string          `json:"stage"`
	Backend    string          `json:"backend"`
	Class      string          `json:"class,omitempty"`
	Provenance string          `json:"provenance,omitempty"`
	Fit        float64         `json:"fit"`
	Limit      units.Bytes     `json:"limit_bytes"`
	Slowdown   measure.Summary `json:"slowdown"`
	Samples    []float64       `json:"samples"`
	Censored   int             `json:"censored_runs,omitempty"`
	// Disturbed counts runs the rest of the host disturbed; IdleHost is
	// the slowdown with each run's wait for a CPU taken out; Verdict says
	// what a slowdown below 1 is (measure.Verdict).
	Disturbed int             `json:"disturbed_runs,omitempty"`
	IdleHost  measure.Summary `json:"idle_host_slowdown"`
	Verdict   string          `json:"verdict,omitempty"`
	// FaultLatency is the distribution of the time one page brought back
	// from swap cost the workload: its first touches slower than the
	// report's FaultThresholdUs (pmbench's per-access latency), one visit in
	// TouchSample timed.
	FaultLatency *measure.LatencySummary `json:"fault_latency,omitempty"`
	// TouchLatency is every first touch timed, resident or not: one visit
	// in TouchSample, so counts are that fraction of the visits.
	TouchLatency *measure.LatencySummary `json:"touch_latency,omitempty"`
	Failed       int                     `json:"failed_runs,omitempty"`
	OOMKilled    int                     `json:"oom_killed_runs,omitempty"`
	MajFlt       float64                 `json:"major_faults_mean"`
	SwapIns      float64                 `json:"swap_ins_mean"`
	SwapOuts     float64                 `json:"swap_outs_mean"`
	PSISome      float64                 `json:"psi_some_s_mean"`
	PSIFull      float64                 `json:"psi_full_s_mean"`
	ZramRatio    float64                 `json:"zram_ratio,omitempty"`
	// FaultTime is the extra time per major fault over the in-RAM run.
	FaultTime float64 `json:"excess_s_per_major_fault,omitempty"`
	// Repetitions is its stage's (StageRounds).
	Repetitions string              `json:"repetitions,omitempty"`
	Runs        []measure.RunResult `json:"runs"`
}

// SwappinessResult is one setting of the swappiness scenario.
type SwappinessResult struct {
	Setting    string              `json:"setting"`
	Swappiness *int                `json:"swappiness,omitempty"`
	Applied    bool                `json:"applied"`
	Why        string              `json:"why,omitempty"`
	Slowdown   measure.Summary     `json:"slowdown"`
	Samples    []float64           `json:"samples"`
	OOMKilled  int                 `json:"oom_killed_runs"`
	Censored   int                 `json:"censored_runs"`
	MajFlt     float64             `json:"major_faults_mean"`
	SwapOuts   float64             `json:"swap_outs_mean"`
	Runs       []measure.RunResult `json:"runs"`
}

// PageCacheResult is the workload's throughput while a writer streams
// files of one size.
type PageCacheResult struct {
	FileSize units.Bytes     `json:"file_bytes"`
	Multiple float64         `json:"file_over_limit"`
	Rate     measure.Summary `json:"visits_per_s"`
	Loss     float64         `json:"throughput_loss"` // 1 - rate / rate without writer
	SwapOuts float64         `json:"swap_outs_mean"`
	MajFlt   float64         `json:"major_faults_mean"`
	Written  float64         `json:"writer_mib_mean"`
	Failed   int             `json:"failed_runs,omitempty"`
	// Remedy is what was done against the loss (scenario_pagecache.go);
	// Published is what the source saw with it.
	Remedy    string              `json:"remedy"`
	Published string              `json:"published,omitempty"`
	Runs      []measure.RunResult `json:"runs"`
}

// Run carries out a probe: it plans, changes the host (journaled), measures
// and undoes every change, also when ctx is cancelled. The returned error
// wraps ctx.Err() after an interruption; the report is nil then.
func Run(ctx context.Context, h host.Host, o Options, prog measure.Progress) (*Report, error) {
	p, err := MakePlan(h, o)
	if err != nil {
		return nil, err
	}
	return RunPlan(ctx, h, p, prog)
}

// RunPlan carries out a plan made by MakePlan.
func RunPlan(ctx context.Context, h host.Host, p *Plan, prog measure.Progress) (rep *Report, err error) {
	o := p.Options
	if prog == nil {
		prog = measure.NopProgress{}
	}
	rep = &Report{Plan: p, Started: time.Now().UTC(), DeviceClass: p.DeviceClass, Seed: o.Seed}
	s := &session{Confinement: &host.Confinement{Host: h, Layout: p.Cgroups, Exe: o.Executable}, prog: prog, plan: p, rep: rep,
		stages: append([]Stage(nil), p.Stages...), workDir: p.WorkDir}
	for _, m := range p.Skipped {
		s.note("%s", m)
	}
	rep.Host = host.Facts(h, p.Cgroups, p.Swap)

	if !p.Root {
		if o.DeviceProfile {
			if err := s.deviceProfile(ctx); err != nil {
				return nil, err
			}
		}
		if err := s.unprivileged(ctx); err != nil {
			return nil, err
		}
		return s.finish()
	}

	j, err := host.NewJournal(h, o.StateDir, o.Command)
	if err != nil {
		return nil, err
	}
	s.Journal = j
	defer func() {
		if uerr := host.CloseJournal(j); uerr != nil {
			if err == nil {
				rep, err = nil, uerr
			} else {
				err = errors.Join(err, uerr)
			}
		}
	}()
	// As root the device profile runs under the journal, which records its
	// test file before it exists.
	if o.DeviceProfile {
		if err := s.deviceProfile(ctx); err != nil {
			return nil, err
		}
	}

	if err := s.setup(); err != nil {
		return nil, err
	}
	if p.needsBaseline() {
		if err := s.baseline(ctx); err != nil {
			return nil, err
		}
	}
	for i := range s.stages {
		if err := s.stage(ctx, &s.stages[i]); err != nil {
			return nil, err
		}
	}
	if o.scenario(ScenarioSwappiness) {
		if err := s.swappinessScenario(ctx); err != nil {
			return nil, err
		}
	}
	if o.scenario(ScenarioPageCache) {
		if err := s.pageCacheScenario(ctx); err != nil {
			return nil, err
		}
	}
	if s.swapMark >= 0 {
		if err := j.UndoTo(s.swapMark); err != nil {
			return nil, err
		}
		s.swapMark = -1
	}
	if err := s.experiments(ctx); err != nil {
		return nil, err
	}
	for i := range s.stages {
		if s.stages[i].Backend == measure.BackendNone {
			if err := s.runStage(ctx, &s.stages[i]); err != nil {
				return nil, err
			}
		}
	}
	return s.finish()
}

func (s *session) finish() (*Report, error) {
	s.rep.Elapsed = time.Since(s.rep.Started).Seconds()
	s.rep.Complete = true
	return s.rep, nil
}

// setup creates the working directory with the code file and the probe's
// cgroups.
func (s *session) setup() error {
	p := s.plan
	s.swapMark = -1
	if _, err := s.Journal.Record(host.Entry{Op: host.OpMkdir, Path: s.workDir}); err != nil {
		return err
	}
	if err := s.Host.MkdirAll(s.workDir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", s.workDir, err)
	}
	if err := s.makeCodeFile(); err != nil {
		return err
	}
	// A ceiling over all runs: whatever a run's own limit, the probe as a
	// whole never takes more than this.
	ceiling := 2*p.Footprint + 256*units.MiB
	if o := p.Options; o.scenario(ScenarioPageCache) {
		ceiling = max(ceiling, 2*p.pageCacheLimit()+256*units.MiB)
	}
	ceiling = max(ceiling, p.experimentCeiling())
	return s.MakeTopCgroup(fmt.Sprintf("memplan-probe-%d", os.Getpid()), len(p.Emulations) > 0, ceiling, -1)
}

// makeCodeFile writes the file the workload maps as its code.
func (s *session) makeCodeFile() error {
	p := s.plan
	name := filepath.Join(s.workDir, "code.bin")
	f, err := s.Host.CreateFile(name)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	x := uint64(0xc0de)
	for i := 0; i+8 <= len(buf); i += 8 {
		x = measure.Xorshift(x)
		for k := 0; k < 8; k++ {
			buf[i+k] = byte(x >> (8 * k))
		}
	}
	for n := units.Bytes(0); n < p.Workload.CodeSize; n += units.MiB {
		if _, err := f.Write(buf); err != nil {
			f.Close()
			return fmt.Errorf("writing the code file: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	s.codeFile = name
	return nil
}

func (s *session) spec(seed uint64) WorkloadSpec {
	w := s.plan.Workload
	w.CodeFile = s.codeFile
	if s.codeFile == "" {
		w.CodeSize = 0
	}
	w.Seed = s.plan.Options.Seed*1000 + seed
	return w
}

// deviceProfile measures the swap directory's device (no root needed).
func (s *session) deviceProfile(ctx context.Context) error {
	o := s.plan.Options
	s.prog.Stage("device profile", 7)
	opts := device.Options{Quick: o.Quick, Progress: func(st device.Step) {
		s.prog.Note(fmt.Sprintf("device profile: [%d/%d] %s", st.Index, st.Total, st.Name))
	}, Record: s.RecordFile}
	if o.Quick {
		opts.Duration = time.Second
	}
	dp, err := device.Measure(ctx, o.SwapDir, opts)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		s.note("device profile of %s failed, the swap-file curve's reference latency falls back to the time per major fault: %v", o.SwapDir, err)
		return nil
	}
	s.rep.Device = dp
	for _, w := range dp.Warnings {
		s.note("device profile: %s", w)
	}
	if o.DeviceClass == "" {
		if class, msg := device.Classify(s.plan.DeviceClass, s.plan.Swap, dp); msg != "" {
			s.note("%s", msg)
			s.reclassify(class)
		}
	}
	// Throttling only bites when it is below what the device does at the
	// workload's queue depth (one faulting thread).
	var keep []Stage
	for _, st := range s.stages {
		if e := st.Emulation; e != nil {
			r, w := dp.RandReadQD1.IOPS, dp.RandWriteQD1.IOPS
			if r > 0 && w > 0 && float64(e.RIOPS) >= r && float64(e.WIOPS) >= w {
				s.note("emulated %s (%s): not emulated: its IOPS (%d read, %d write) are at or above what %s does at queue depth 1 (%.0f read, %.0f write); throttling cannot make a device faster",
					e.Class, e.Label, e.RIOPS, e.WIOPS, host.DiskName(s.plan.Swap), r, w)
				continue
			}
		}
		keep = append(keep, st)
	}
	s.stages = keep
	return nil
}

// reclassify files the swap file's curve under class, the one its measured
// latency says (device.Classify), instead of the plan's.
func (s *session) reclassify(class string) {
	for i := range s.stages {
		if st := &s.stages[i]; st.Backend == measure.BackendFile && st.Class == s.plan.DeviceClass {
			st.Class = class
		}
	}
	s.rep.DeviceClass = class
}

// unprivileged runs what needs no root: the in-RAM baseline, unconfined.
func (s *session) unprivileged(ctx context.Context) error {
	tmp, err := os.MkdirTemp("", "memplan-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	s.workDir = tmp
	if err := s.makeCodeFile(); err != nil {
		return err
	}
	return s.baseline(ctx)
}

// baseline runs the workload with no memory limit: its runtime is the
// denominator of every slowdown and its peak memory the footprint every fit
// ratio refers to.
func (s *session) baseline(ctx context.Context) error {
	p := s.plan
	reps := p.Options.Reps
	s.prog.Stage("in-RAM baseline", reps)
	var timed, walls []float64
	var peak units.Bytes
	for r := 0; r < reps; r++ {
		rs := runSpec{RunSpec: measure.RunSpec{Backend: "baseline", Rep: r + 1,
			Timeout: 10*time.Minute + time.Duration(p.Workload.DataSize/units.MiB)*time.Second}, Spec: s.spec(uint64(r))}
		res, err := s.runOne(ctx, rs)
		if err != nil {
			return err
		}
		if res.Failed != "" || res.Censored {
			return fmt.Errorf("the in-RAM baseline run failed: %s", firstNonEmpty(res.Failed, "stopped at its time cap"))
		}
		s.rep.BaselineRuns = append(s.rep.BaselineRuns, res)
		s.prog.RunDone(res)
		timed = append(timed, res.Timed)
		walls = append(walls, res.Wall)
		peak = max(peak, res.Peak)
	}
	s.rep.Baseline = measure.Summarize(timed)
	// The trimmed mean: one run slowed by a burst of load elsewhere would
	// otherwise make every slowdown look smaller.
	s.rep.BaselineRate = float64(p.Workload.Visits) / s.rep.Baseline.Trimmed
	s.rep.NsPerVisit = s.rep.Baseline.Trimmed / float64(p.Workload.Visits) * 1e9
	s.baseWall = measure.Summarize(walls).Max
	if peak > 0 {
		s.rep.Footprint = peak
	} else {
		s.rep.Footprint = p.Footprint
		s.note("the cgroup reported no peak memory; using the estimated footprint %s", p.Footprint)
	}
	for i := range s.rep.BaselineRuns {
		s.rep.BaselineRuns[i].Slowdown = s.rep.BaselineRate / s.rep.BaselineRuns[i].Rate
	}
	if s.rep.Baseline.Mean > 0 && s.rep.Baseline.SD/s.rep.Baseline.Mean > 0.1 {
		s.note("the in-RAM baseline varies by %.0f%% between runs: the host is busy; slowdowns below %.2f are noise",
			100*s.rep.Baseline.SD/s.rep.Baseline.Mean, 1+2*s.rep.Baseline.SD/s.rep.Baseline.Mean)
	}
	var touch measure.Hist
	for _, r := range s.rep.BaselineRuns {
		if r.Touch != nil {
			touch.Merge(r.Touch)
		}
	}
	if touch.Count() > 0 {
		ts := touch.Summary()
		s.rep.BaselineTouch = &ts
		s.rep.FaultThresholdUs = math.Max(2, 4*ts.P99Us)
	}
	for _, r := range s.rep.BaselineRuns {
		if c := r.Contention; c != nil && c.Disturbed {
			s.note("in-RAM baseline run %d was disturbed (%s): %s; the idle-host slowdowns discount the wait other work accounts for", r.Rep, c.Cause, c.Why)
		}
	}
	return nil
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// limitFor is the memory limit at a fit ratio, page aligned.
func (s *session) limitFor(fit float64) units.Bytes {
	l := units.Bytes(fit * float64(s.rep.Footprint))
	return l / units.Bytes(host.PageSize) * units.Bytes(host.PageSize)
}

// memswFor lets a run swap out all of its footprint and then some.
func (s *session) memswFor(limit units.Bytes) units.Bytes {
	return limit + s.rep.Footprint*3/2 + 64*units.MiB
}

// stage sets up a backend, runs it at every fit ratio and tears it down
// (the swap file stays for later stages; "none" runs last, after it is
// gone).
func (s *session) stage(ctx context.Context, st *Stage) error {
	switch st.Backend {
	case measure.BackendNone:
		return nil // after the swap file is removed
	case measure.BackendZram:
		mark := s.Journal.Len()
		if err := s.setupZram(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.note("zram: %v; skipped", err)
			return s.Journal.UndoTo(mark)
		}
		err := s.runStage(ctx, st)
		s.zram = nil
		if uerr := s.Journal.UndoTo(mark); uerr != nil {
			return errors.Join(err, uerr)
		}
		return err
	case measure.BackendFile, measure.BackendEmulated:
		// A latency stage's device must be the only memplan swap area: the
		// swap file, at the top priority too, would share the pages with it.
		if st.Emulation != nil && st.Emulation.Latency != "" {
			return s.latencyStage(ctx, st)
		}
		if err := s.ensureSwapFile(); err != nil {
			return err
		}
		return s.runStage(ctx, st)
	case measure.BackendZswap:
		if err := s.ensureSwapFile(); err != nil {
			return err
		}
		mark := s.Journal.Len()
		if err := s.enableZswap(st); err != nil {
			s.note("zswap: %v; skipped", err)
			return s.Journal.UndoTo(mark)
		}
		err := s.runStage(ctx, st)
		if uerr := s.Journal.UndoTo(mark); uerr != nil {
			return errors.Join(err, uerr)
		}
		return err
	}
	return fmt.Errorf("unknown backend %q", st.Backend)
}

func (s *session) setupZram(ctx context.Context) error {
	p := s.plan
	size := max(p.ZramSize, (s.rep.Footprint+64*units.MiB)/units.MiB*units.MiB)
	measureLat := func(dev string) error {
		z, err := host.MeasureZramLatency(s.Host, dev, p.ZramAlg, p.Workload.Content)
		if err != nil {
			s.note("zram latency: %v", err)
			return nil
		}
		s.rep.ZramLatency = z
		return nil
	}
	z, err := host.SetupZram(s.Host, s.Journal, p.ZramAlg, size, s.rep.Footprint+64*units.MiB, false, measureLat)
	if err != nil {
		return err
	}
	s.zram = z
	return nil
}

// ensureSwapFile creates and enables the swap file once; it stays until the
// swap-using stages and scenarios are done.
func (s *session) ensureSwapFile() error {
	if s.swapMark >= 0 {
		return nil
	}
	p := s.plan
	size := max(p.SwapFileSize, (s.rep.Footprint*3/2+64*units.MiB)/units.MiB*units.MiB)
	mark := s.Journal.Len()
	if err := host.AddSwapFile(s.Host, s.Journal, p.Swap, p.SwapFile, size); err != nil {
		return err
	}
	s.swapMark = mark
	return nil
}

// enableZswap turns zswap on with the chosen compressor, recording every
// parameter's old value first. When the compressor was not chosen
// explicitly and the kernel's crypto API lacks the zram algorithm, zswap
// keeps the compressor it has.
func (s *session) enableZswap(st *Stage) error {
	set := func(name, v string) error {
		path := host.ZswapParams + "/" + name
		old, err := host.ReadString(s.Host, path)
		if err != nil {
			return err
		}
		if old == v {
			return nil
		}
		mark := s.Journal.Len()
		if _, err := s.Journal.Record(host.Entry{Op: host.OpWrite, Path: path, Old: old, New: v}); err != nil {
			return err
		}
		if err := host.WriteString(s.Host, path, v); err != nil {
			_ = s.Journal.UndoTo(mark)
			return fmt.Errorf("cannot set zswap %s=%s: %w", name, v, err)
		}
		return nil
	}
	p := s.plan
	if err := set("compressor", p.ZswapAlg); err != nil {
		if p.Options.ZswapCompressor != "" {
			return err
		}
		cur, rerr := host.ReadString(s.Host, host.ZswapParams+"/compressor")
		if rerr != nil {
			return err
		}
		s.note("zswap: the kernel's crypto API has no %s compressor, keeping zswap's own (%s)", p.ZswapAlg, cur)
		p.ZswapAlg = cur
		st.Name = "zswap-" + cur
	}
	return set("enabled", "Y")
}

// runStage runs a stage's fits in rounds and records a point per fit.
func (s *session) runStage(ctx context.Context, st *Stage) error {
	return s.rounds(ctx, st, s.runOne)
}

// runFunc runs one run (session.runOne; a fake in tests).
type runFunc func(context.Context, runSpec) (measure.RunResult, error)

// stageRunner does a stage's runs for measure.RunRounds: the workload with
// the round's seed, under the stage's backend.
type stageRunner struct {
	s   *session
	st  *Stage
	run runFunc
}

func (r stageRunner) Run(ctx context.Context, m measure.RunSpec) (measure.RunResult, error) {
	s, st := r.s, r.st
	rs := runSpec{RunSpec: m, Spec: s.spec(uint64(m.Rep - 1))}
	if m.Limit > 0 {
		switch st.Backend {
		case measure.BackendZswap:
			rs.Zswap = true
		case measure.BackendEmulated:
			if e := st.Emulation; e.Latency == "" {
				rs.Throttle = &throttleSpec{Dev: s.plan.Swap.DiskDev, RIOPS: e.RIOPS, WIOPS: e.WIOPS}
			}
		}
	}
	return r.run(ctx, rs)
}

func (r stageRunner) Stage(name string, runs int)   { r.s.prog.Stage(name, runs) }
func (r stageRunner) RunDone(res measure.RunResult) { r.s.prog.RunDone(res) }
func (r stageRunner) Note(msg string)               { r.s.note("%s", msg) }

// rounds runs a stage the way the profiler runs a phase
// (measure.RunRounds): rounds of one in-RAM run and every fit ratio once
// in a random order, --reps of them and more while --precision is not
// reached, then a closing in-RAM run. Each constrained run's slowdown is
// over the in-RAM runs next to it (measure.PairedBase), so a burst of load
// elsewhere on the host, or drift over the session, does not bias one fit
// ratio or every slowdown the way one baseline up front would.
func (s *session) rounds(ctx context.Context, st *Stage, run runFunc) error {
	o := s.plan.Options
	stream := len(s.rep.Stages)
	c := measure.Session{Stage: st.Name, Name: st.Name, Backend: st.Name, InRAMBackend: st.Name + " in-RAM", Fits: st.Fits,
		Timeout: runTimeout(s.baseWall, o.MaxSlowdown),
		Rule:    measure.RoundRule{Runs: st.Reps, RunsFlag: "--reps", Precision: o.Precision, Budget: o.PrecisionBudget},
		Seed:    o.Seed, Stream: uint64(stream), Unit: measure.PerVisit, Work: float64(s.plan.Workload.Visits), Cap: o.MaxSlowdown}
	if s.rep.BaselineRate > 0 {
		c.Fallback = 1 / s.rep.BaselineRate
	}
	for _, fit := range st.Fits {
		limit := s.limitFor(fit)
		memsw := s.memswFor(limit)
		if st.Backend == measure.BackendNone {
			memsw = limit
		}
		c.Limits, c.MemSw = append(c.Limits, limit), append(c.MemSw, memsw)
	}
	if st.Backend == measure.BackendZram && s.zram != nil {
		c.Zram = measure.ZramName(s.zram.ID)
	}
	rr, err := measure.RunRounds(ctx, stageRunner{s: s, st: st, run: run}, c)
	if err != nil {
		return err
	}
	rec := StageRounds{Stage: st.Name, Seed: o.Seed, Stream: stream, Rounds: rr.Rounds, Repetitions: rr.Repetitions,
		InRAM: rr.InRAMSeconds, InRAMRuns: rr.InRAM}
	if o.Precision > 0 {
		s.note("%s: %s", st.Name, rec.Repetitions)
	}
	for i, fit := range st.Fits {
		pt := PointResult{Stage: st.Name, Backend: st.Backend, Class: st.Class, Provenance: st.Provenance, Fit: fit, Limit: c.Limits[i]}
		s.finishPoint(&pt, &rec, rr, i)
	}
	s.rep.Stages = append(s.rep.Stages, rec)
	return nil
}

// score turns a run's rate into a slowdown against the baseline (the
// scenarios, which compare settings rather than fit ratios).
func (s *session) score(res *measure.RunResult) {
	switch {
	case res.Failed != "":
	case res.LowerOnly:
		res.Slowdown = s.plan.Options.MaxSlowdown
	case res.Rate > 0:
		res.Slowdown = s.rep.BaselineRate / res.Rate
	}
}

// finishPoint sums up the stage's point i, its runs scored against their
// paired in-RAM runs (measure.Rounds), and adds it to the report.
func (s *session) finishPoint(pt *PointResult, rec *StageRounds, rr *measure.Rounds, i int) {
	pr := rr.Point(i)
	pt.Runs = rr.Points[i]
	pt.Repetitions = rec.Repetitions
	pt.Samples, pt.Failed, pt.OOMKilled, pt.Censored, pt.Disturbed = pr.Samples, pr.Failed, pr.OOMKilled, pr.Censored, pr.Disturbed
	t := pr.Tally
	pt.MajFlt, pt.SwapIns, pt.SwapOuts, pt.PSISome, pt.PSIFull, pt.ZramRatio = t.MajFlt, t.SwapIns, t.SwapOuts, t.PSISome, t.PSIFull, t.ZramRatio
	var excess, faults float64
	var touch measure.Hist
	for _, r := range pt.Runs {
		if r.Failed != "" || r.OOMKilled {
			continue
		}
		// The excess time per fault holds for a capped run too: its time and
		// its faults cover the same visits.
		if r.Timed > 0 && r.Visits > 0 && r.Base > 0 {
			excess += r.Timed - r.Base*float64(r.Visits)/float64(s.plan.Workload.Visits)
			faults += float64(r.MajFlt)
		}
		if r.Touch != nil && !r.Censored {
			touch.Merge(r.Touch)
		}
	}
	if faults > 0 && excess > 0 {
		pt.FaultTime = excess / faults
	}
	pt.Slowdown = measure.Summarize(pt.Samples)
	pt.IdleHost = measure.Summarize(pr.IdleHost)
	if touch.Count() > 0 && s.rep.FaultThresholdUs > 0 {
		all := touch.Summary()
		pt.TouchLatency = &all
		f := touch.Above(int64(s.rep.FaultThresholdUs * 1e3))
		if f.Count() > 0 {
			fs := f.Summary()
			pt.FaultLatency = &fs
		}
	}
	// The noise a slowdown below 1 is judged against: the spread of the
	// stage's own in-RAM runs, else the baseline's.
	noise := 0.0
	if b := rec.InRAM; b.N >= 2 && b.Mean > 0 {
		noise = b.SD / b.Mean
	} else if b := s.rep.Baseline; b.Mean > 0 {
		noise = b.SD / b.Mean
	}
	if pt.Verdict = measure.Verdict(pt.Slowdown, noise); pt.Verdict != "" {
		s.note("%s at fit %g: %s", pt.Stage, pt.Fit, pt.Verdict)
	}
	if pt.Disturbed > 0 {
		var cs []measure.Contention
		for _, r := range pt.Runs {
			if r.Contention != nil {
				cs = append(cs, *r.Contention)
			}
		}
		s.note("%s at fit %g: %d of %d runs were disturbed, %s; the idle-host slowdown is %.3f against %.3f by the clock",
			pt.Stage, pt.Fit, pt.Disturbed, len(pt.Runs), measure.DisturbedBy(cs), pt.IdleHost.Mean, pt.Slowdown.Mean)
	}
	if pt.Failed > 0 {
		s.note("%s at fit %g: %d of %d runs failed (%d OOM-killed in their cgroup)", pt.Stage, pt.Fit, pt.Failed, len(pt.Runs), pt.OOMKilled)
	}
	if pt.Censored > 0 {
		s.note("%s at fit %g: %d run(s) hit the %gx time cap and were stopped; their slowdown is estimated from the rate they reached",
			pt.Stage, pt.Fit, pt.Censored, s.plan.Options.MaxSlowdown)
	}
	s.rep.Points = append(s.rep.Points, *pt)
}

// swappinessScenario compares swappiness settings and swap off at one fit
// ratio with the swap file as swap, like the seed experiment.
func (s *session) swappinessScenario(ctx context.Context) error {
	if err := s.ensureSwapFile(); err != nil {
		return err
	}
	o := s.plan.Options
	reps := max(o.Reps/2, 1)
	settings := append([]int(nil), o.Swappiness...)
	s.prog.Stage("swappiness scenario", (len(settings)+1)*reps)
	limit := s.limitFor(o.ScenarioFit)
	for i := 0; i <= len(settings); i++ {
		var res SwappinessResult
		rs := runSpec{RunSpec: measure.RunSpec{Fit: o.ScenarioFit, Limit: limit, MemSw: s.memswFor(limit),
			Timeout: runTimeout(s.baseWall, o.MaxSlowdown)}}
		mark := s.Journal.Len()
		if i == len(settings) {
			res.Setting = "swap off"
			rs.MemSw = limit
			res.Applied = true
			if !(&host.Cgroup{Host: s.Host, Version: s.Layout.Version, Mem: s.MemDir}).CanLimitSwap() {
				res.Applied, res.Why = false, "this kernel has no swap accounting for cgroups (memsw/swap.max), so swap cannot be turned off for the workload alone"
			}
		} else {
			v := settings[i]
			res.Setting = "swappiness " + strconv.Itoa(v)
			res.Swappiness = &v
			res.Applied = true
			if s.Layout.Version == 1 {
				rs.Swappiness = &v
			} else if err := s.setGlobalSwappiness(v); err != nil {
				res.Applied, res.Why = false, err.Error()
			}
		}
		if !res.Applied {
			s.note("swappiness scenario: %s cannot be applied: %s", res.Setting, res.Why)
			s.rep.Swappiness = append(s.rep.Swappiness, res)
			if err := s.Journal.UndoTo(mark); err != nil {
				return err
			}
			continue
		}
		rs.Backend = "scenario " + res.Setting
		for r := 0; r < reps; r++ {
			rs.Rep = r + 1
			rs.Spec = s.spec(uint64(r))
			run, err := s.runOne(ctx, rs)
			if err != nil {
				return errors.Join(err, s.Journal.UndoTo(mark))
			}
			s.score(&run)
			s.prog.RunDone(run)
			res.Runs = append(res.Runs, run)
			switch {
			case run.OOMKilled:
				res.OOMKilled++
			case run.Failed == "":
				res.Samples = append(res.Samples, run.Slowdown)
				res.MajFlt += float64(run.MajFlt)
				res.SwapOuts += float64(run.SwapOut)
				if run.Censored {
					res.Censored++
				}
			}
		}
		if n := float64(len(res.Samples)); n > 0 {
			res.MajFlt /= n
			res.SwapOuts /= n
		}
		res.Slowdown = measure.Summarize(res.Samples)
		s.rep.Swappiness = append(s.rep.Swappiness, res)
		if err := s.Journal.UndoTo(mark); err != nil {
			return err
		}
	}
	return nil
}

// setGlobalSwappiness changes vm.swappiness (cgroup v2 only), journaled.
func (s *session) setGlobalSwappiness(v int) error {
	const path = "/proc/sys/vm/swappiness"
	old, err := host.ReadString(s.Host, path)
	if err != nil {
		return err
	}
	if old == strconv.Itoa(v) {
		return nil
	}
	if _, err := s.Journal.Record(host.Entry{Op: host.OpWrite, Path: path, Old: old, New: strconv.Itoa(v)}); err != nil {
		return err
	}
	return host.WriteString(s.Host, path, strconv.Itoa(v))
}
