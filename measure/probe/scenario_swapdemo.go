//go:build linux

package probe

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// The swapdemo experiment (see the brief) at its own proportions: with a
// memory limit L the anonymous data is L x 14/16 (it fits) and the mapped
// "code" L x 3/16, so data and code together exceed the limit by L/16. Each
// iteration reads random code pages and sweeps one L/16 chunk of the data.
// The experiment's point: with swap the kernel moves a little cold data out
// and keeps the code; without swap (or at swappiness 1) it can only evict
// code, which every iteration reads again from the file.

const roleSwapdemo = "swapdemo"

// swapdemoIterations is what the experiment's swappiness-60 run finished
// in its 2-minute budget (11 iterations in about 1m55s); every run stops
// after that many or at the budget, whichever comes first.
const swapdemoIterations = 11

// defaultCodePasses is how often an iteration reads the code through (at
// random pages, so some pages more and some not at all). The experiment
// does not say; a program runs its code far more often than it touches one
// chunk of its data. The thrash's cost is this many reads times the
// device's random-read latency: on this project's CI disk (a virtual disk
// answering 4 KiB reads in ~150us) swap off was 3x slower than swappiness
// 60 with 1 pass, 7.6x with 4 and 13-16x with 8 (the experiment: >10x).
const defaultCodePasses = 8

// swapdemoFilePriority keeps the swap file just below zram in the
// "zram + swap" runs (equal priorities would be used round-robin) and
// still ahead of any swap area of the host's.
const swapdemoFilePriority = host.SwapPriority - 1

// SwapdemoPlan is the experiment's sizes on this host.
type SwapdemoPlan struct {
	Limit      units.Bytes   `json:"limit_bytes"`
	Data       units.Bytes   `json:"data_bytes"`
	Code       units.Bytes   `json:"code_bytes"`
	Chunk      units.Bytes   `json:"chunk_bytes"`
	CodePasses float64       `json:"code_passes_per_iteration"`
	CodeReads  int64         `json:"code_reads_per_iteration"`
	Iterations int           `json:"max_iterations"`
	Budget     time.Duration `json:"budget_ns"`
	ZramSize   units.Bytes   `json:"zram_disk_bytes"`
	Reps       int           `json:"reps"`
	SwapFile   units.Bytes   `json:"swap_file_bytes"`
}

// swapdemoSetting is one run of the experiment.
type swapdemoSetting struct {
	name       string
	swappiness int
	swapOff    bool
	zram       bool
	content    string
	reference  string
}

// swapdemoSettings are the experiment's runs, with what the source saw.
// Apart from the zero-filled runs the data is random: on this kernel
// generation (6.12 on) a zero-filled page is never written to any swap
// device, so zeros would make the swap file look as fast as zram.
func swapdemoSettings() []swapdemoSetting {
	return []swapdemoSetting{
		{name: "swappiness 60", swappiness: 60, content: measure.ContentRandom, reference: "11 iterations in ~1m55s"},
		{name: "swappiness 1", swappiness: 1, content: measure.ContentRandom, reference: "not one iteration in 2 min (>10x slower)"},
		{name: "swappiness 0", swappiness: 0, content: measure.ContentRandom, reference: "OOM-killed"},
		{name: "swap off", swappiness: 60, swapOff: true, content: measure.ContentRandom, reference: "not one iteration in 2 min (>10x slower)"},
		{name: "zram + swap, zero data", swappiness: 60, zram: true, content: measure.ContentZeros, reference: "~1 min (about 2x faster than swap)"},
		{name: "zram + swap, random data", swappiness: 60, zram: true, content: measure.ContentRandom, reference: "~2 min (no better than swap)"},
		{name: "swap file, zero data", swappiness: 60, content: measure.ContentZeros, reference: "not run (control: zero pages on this kernel)"},
	}
}

// SwapdemoRun is one setting's result over its repetitions.
type SwapdemoRun struct {
	Setting    string      `json:"setting"`
	Swappiness int         `json:"swappiness"`
	Swap       string      `json:"swap"` // file, none, zram+file
	Content    string      `json:"content"`
	Applied    bool        `json:"applied"`
	Why        string      `json:"why,omitempty"`
	Reference  string      `json:"published"`
	Limit      units.Bytes `json:"limit_bytes"`
	Iterations float64     `json:"iterations"` // done per run (mean), fractions included
	Complete   int         `json:"complete_iterations"`
	Timed      float64     `json:"timed_s"` // per run (mean)
	// SecPerIter is the trimmed mean over the repetitions of each run's
	// time per iteration (with fewer than 3 runs, the mean).
	SecPerIter float64         `json:"s_per_iteration,omitempty"`
	PerIter    measure.Summary `json:"s_per_iteration_runs"`
	// VsSwappiness60 is the time per iteration over swappiness 60's. For a
	// run that did not finish one iteration it is estimated from the share
	// it did, and AtLeast (the budget over swappiness 60's time per
	// iteration) is what is certain.
	VsSwappiness60 float64 `json:"slowdown_vs_swappiness_60,omitempty"`
	AtLeast        float64 `json:"at_least,omitempty"`
	OOMKilled      int     `json:"oom_killed_runs"`
	// CodeMisses are code page reads that found the page evicted (a major
	// fault re-reading the file; sampled: one read in 16 is checked);
	// DataMisses data pages found swapped out when their chunk's turn came.
	// CodeRereads and SwapInPages are what the kernel counted for the run's
	// cgroup: page-cache pages read back after eviction, less the first
	// read of each code page, and anonymous pages read back from swap. All
	// per run (mean).
	CodeMisses  float64     `json:"code_page_misses_sampled"`
	DataMisses  float64     `json:"data_page_misses"`
	CodeRereads float64     `json:"code_pages_reread"`
	SwapInPages float64     `json:"anon_pages_swapped_in"`
	MajFlt      float64     `json:"major_faults"`
	SwapOuts    float64     `json:"swap_outs"`
	ZramRatio   float64     `json:"zram_ratio,omitempty"`
	ZramUsed    units.Bytes `json:"zram_mem_used_bytes,omitempty"`
	// MinLimit is the lowest the limit went as zram's memory was taken out
	// of it (zram runs).
	MinLimit units.Bytes         `json:"min_limit_bytes,omitempty"`
	Runs     []measure.RunResult `json:"runs"`

	slow bool // did not finish its iterations in the budget: not repeated
}

// SwapdemoResult is the experiment's table.
type SwapdemoResult struct {
	Plan SwapdemoPlan  `json:"plan"`
	Runs []SwapdemoRun `json:"runs"`
	Wall float64       `json:"wall_s"`
}

// planSwapdemo sizes the experiment: --limit, or an eighth of RAM between
// 512MiB and 4GiB (--quick: 256MiB), shrunk while the host has not the
// memory for it (the limit, the zram device's share and a reserve).
func (p *Plan) planSwapdemo() error {
	o := p.Options
	l := o.Limit
	auto := l == 0
	if auto {
		l = min(max(p.MemTotal/8, 512*units.MiB), 4*units.GiB)
		if o.Quick {
			l = 256 * units.MiB
		}
	}
	need := func(l units.Bytes) units.Bytes { return l + l/4 + 256*units.MiB }
	for auto && l > 128*units.MiB && need(l) > p.MemAvail {
		l /= 2
	}
	if need(l) > p.MemAvail {
		return measure.OptErr("limit", "the swapdemo experiment at a %s limit needs about %s of available memory; the host has %s available; give a smaller --limit", l, need(l), p.MemAvail)
	}
	chunk := l / 16 / units.MiB * units.MiB
	sd := &SwapdemoPlan{Limit: 16 * chunk, Data: 14 * chunk, Code: 3 * chunk, Chunk: chunk,
		Iterations: swapdemoIterations, Budget: o.Budget, ZramSize: 4 * chunk, Reps: o.Reps}
	sd.CodePasses = o.CodePasses
	sd.CodeReads = int64(o.CodePasses * float64(int64(sd.Code)/host.PageSize))
	// Room for everything that does not fit the limit, and for the zram runs
	// with random data, whose limit shrinks by what zram holds.
	sd.SwapFile = 8*chunk + 64*units.MiB
	p.Swapdemo = sd
	return nil
}

// swapdemoScenario runs the experiment's settings, repetitions going round
// the settings so that a burst of load elsewhere spreads over all of them.
// A setting that could not finish its iterations in the budget is not
// repeated: its result is the budget.
func (s *session) swapdemoScenario(ctx context.Context) error {
	start := time.Now()
	sd := *s.plan.Swapdemo
	res := &SwapdemoResult{Plan: sd}
	s.rep.Swapdemo = res
	defer func() { res.Wall = time.Since(start).Seconds() }()
	// The experiment's own code file and swap file (the shared swap file is
	// gone by now: its priority would tie with zram's).
	mark := s.Journal.Len()
	defer func() {
		if err := s.Journal.UndoTo(mark); err != nil {
			s.note("swapdemo: cleaning up: %v", err)
		}
	}()
	code := filepath.Join(s.workDir, "swapdemo-code.bin")
	if err := writeCodeFile(s.Host, code, sd.Code); err != nil {
		return err
	}
	defer s.Host.Remove(code)
	swapFile := filepath.Join(s.plan.Swap.Dir, fmt.Sprintf("memplan-probe-%d-swapdemo.swap", os.Getpid()))
	if err := host.AddSwapFileAt(s.Host, s.Journal, s.plan.Swap, swapFile, sd.SwapFile, swapdemoFilePriority); err != nil {
		return err
	}
	settings := s.plan.Options.swapdemoSettings()
	s.prog.Stage("swapdemo experiment", len(settings)*max(sd.Reps, 1))
	cg := &host.Cgroup{Host: s.Host, Version: s.Layout.Version, Mem: s.MemDir}
	res.Runs = make([]SwapdemoRun, len(settings))
	for i, st := range settings {
		run := SwapdemoRun{Setting: st.name, Swappiness: st.swappiness, Content: st.content, Reference: st.reference,
			Limit: sd.Limit, Applied: true, Swap: "file"}
		switch {
		case st.swapOff:
			run.Swap = "none"
		case st.zram:
			run.Swap = "zram+file"
		}
		if st.swapOff && !cg.CanLimitSwap() {
			run.Applied, run.Why = false, "this kernel has no swap accounting for cgroups (memsw/swap.max), so swap cannot be turned off for the workload alone"
			s.note("swapdemo: %s cannot be applied: %s", st.name, run.Why)
		}
		res.Runs[i] = run
	}
	for r := 0; r < max(sd.Reps, 1); r++ {
		for i, st := range settings {
			run := &res.Runs[i]
			if !run.Applied || run.slow {
				continue
			}
			if err := s.swapdemoRun(ctx, run, st, code, uint64(r*len(settings)+i)); err != nil {
				return err
			}
		}
	}
	for i := range res.Runs {
		finishSwapdemo(&res.Runs[i], &sd)
	}
	s.scoreSwapdemo(res)
	return nil
}

// swapdemoRun sets one setting up, runs it once and undoes the setting.
func (s *session) swapdemoRun(ctx context.Context, run *SwapdemoRun, st swapdemoSetting, code string, seed uint64) error {
	sd := s.plan.Swapdemo
	mark := s.Journal.Len()
	undo := func(err error) error {
		if uerr := s.Journal.UndoTo(mark); uerr != nil {
			return errors.Join(err, uerr)
		}
		return err
	}
	spec := WorkloadSpec{Role: roleSwapdemo, CodeFile: code, CodeSize: sd.Code, DataSize: sd.Data, Chunk: sd.Chunk,
		Content: st.content, Visits: int64(sd.Iterations), CodeReads: sd.CodeReads, Duration: sd.Budget,
		Seed: s.plan.Options.Seed*1000 + seed}
	rs := runSpec{RunSpec: measure.RunSpec{Backend: "swapdemo " + st.name, Fit: 1, Rep: len(run.Runs) + 1, Limit: sd.Limit, MemSw: sd.Limit + sd.SwapFile + sd.ZramSize,
		Timeout: sd.Budget*3/2 + time.Minute + time.Duration(sd.Data/(20*units.MiB))*time.Second}, Spec: spec}
	if st.swapOff {
		rs.MemSw = sd.Limit
	}
	v := st.swappiness
	if s.Layout.Version == 1 {
		rs.Swappiness = &v
	} else if err := s.setGlobalSwappiness(v); err != nil {
		run.Applied, run.Why = false, err.Error()
		s.note("swapdemo: %s cannot be applied: %s", st.name, run.Why)
		return undo(nil)
	}
	if st.zram {
		z, err := host.SetupZram(s.Host, s.Journal, s.plan.ZramAlg, sd.ZramSize, 0, false, nil)
		if err != nil {
			if ctx.Err() != nil {
				return undo(ctx.Err())
			}
			run.Applied, run.Why = false, "zram: "+err.Error()
			s.note("swapdemo: %s cannot be applied: %s", st.name, run.Why)
			return undo(nil)
		}
		rs.Zram = measure.ZramName(z.ID)
		// zram's memory is not charged to any cgroup, but on the
		// experiment's laptop it came out of the same RAM: take what zram
		// holds out of the workload's limit as it grows.
		dev := fmt.Sprintf("zram%d", z.ID)
		lastLimit := sd.Limit
		if run.MinLimit == 0 {
			run.MinLimit = sd.Limit
		}
		rs.Tick = func(cg *host.Cgroup) {
			m, err := host.ReadMMStat(s.Host, dev)
			if err != nil {
				return
			}
			l := max(sd.Limit-m.MemUsed, sd.Limit-sd.ZramSize) / units.Bytes(host.PageSize) * units.Bytes(host.PageSize)
			if l == lastLimit || (l < lastLimit && lastLimit-l < units.MiB) {
				return
			}
			if cg.SetLimit(l, rs.MemSw) == nil {
				lastLimit = l
				run.MinLimit = min(run.MinLimit, l)
			}
		}
	}
	r, err := s.runOne(ctx, rs)
	if err != nil {
		return undo(err)
	}
	s.prog.RunDone(r)
	run.Runs = append(run.Runs, r)
	work := float64(sd.CodeReads + int64(sd.Chunk)/host.PageSize)
	if r.OOMKilled || r.Failed != "" || float64(r.Visits)/work < float64(sd.Iterations)-1e-9 {
		run.slow = true
	}
	return undo(nil)
}

// finishSwapdemo averages a setting's runs.
func finishSwapdemo(run *SwapdemoRun, sd *SwapdemoPlan) {
	work := float64(sd.CodeReads + int64(sd.Chunk)/host.PageSize)
	codePages := float64(int64(sd.Code) / host.PageSize)
	var per []float64
	var n float64
	for _, r := range run.Runs {
		if r.OOMKilled {
			run.OOMKilled++
		}
		if r.Failed != "" || r.Visits <= 0 {
			continue
		}
		it := float64(r.Visits) / work
		n++
		run.Iterations += it
		run.Timed += r.Timed
		per = append(per, r.Timed/it)
		run.CodeMisses += float64(r.CodeMisses)
		run.DataMisses += float64(r.DataMisses)
		run.CodeRereads += max(float64(r.FileRefaults)-codePages, 0)
		run.SwapInPages += float64(r.AnonRefaults)
		run.MajFlt += float64(r.MajFlt)
		run.SwapOuts += float64(r.SwapOut)
		run.ZramRatio = max(run.ZramRatio, r.ZramRatio)
		run.ZramUsed = max(run.ZramUsed, r.ZramUsed)
	}
	if n == 0 {
		return
	}
	for _, v := range []*float64{&run.Iterations, &run.Timed, &run.CodeMisses, &run.DataMisses, &run.CodeRereads, &run.SwapInPages, &run.MajFlt, &run.SwapOuts} {
		*v /= n
	}
	run.Complete = int(run.Iterations + 1e-9)
	run.PerIter = measure.Summarize(per)
	run.SecPerIter = run.PerIter.Trimmed
}

// scoreSwapdemo compares every setting's time per iteration with
// swappiness 60's.
func (s *session) scoreSwapdemo(res *SwapdemoResult) {
	var ref float64
	for _, r := range res.Runs {
		if r.Setting == "swappiness 60" && r.Complete > 0 {
			ref = r.SecPerIter
		}
	}
	if ref == 0 {
		s.note("swapdemo: swappiness 60 did not finish an iteration, so no run is compared with it")
		return
	}
	budget := res.Plan.Budget.Seconds()
	for i := range res.Runs {
		r := &res.Runs[i]
		if r.SecPerIter > 0 {
			r.VsSwappiness60 = r.SecPerIter / ref
		}
		if r.Applied && r.Complete == 0 && r.OOMKilled == 0 {
			r.AtLeast = budget / ref
		}
	}
}

// writeCodeFile writes size bytes of incompressible content, synced: the
// code file a workload maps.
func writeCodeFile(h host.Host, name string, size units.Bytes) error {
	f, err := h.CreateFile(name)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	x := uint64(0xc0de)
	for i := 0; i+8 <= len(buf); i += 8 {
		x = measure.Xorshift(x)
		*(*uint64)(unsafe.Pointer(&buf[i])) = x
	}
	for n := units.Bytes(0); n < size; n += units.MiB {
		if _, err := f.Write(buf); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runSwapdemo is the child: fill the data, then iterate (random code page
// reads, one chunk swept) until Visits iterations are done or Duration is
// up. Progress counts work units: one per code read and one per data page.
// Every read first asks mincore whether the page is resident, which tells
// code re-reads from swap-ins without relying on system-wide counters.
func runSwapdemo(spec WorkloadSpec, w *bufio.Writer) error {
	rep := &reporter{w: w, start: time.Now()}
	spec.Pattern = measure.PatternUniform
	spec.Passes = 1
	wl, err := newWorkload(spec)
	if err != nil {
		return err
	}
	defer wl.close()
	wl.fill()
	initDur := time.Since(rep.start)
	rep.line('i', 0)

	maj0, min0 := host.Faults()
	rep.line('T', 0)
	t0 := time.Now()
	deadline := t0.Add(spec.Duration)
	words := host.PageSize / 8
	dataBytes := unsafe.Slice((*byte)(unsafe.Pointer(&wl.data[0])), len(wl.data)*8)
	vec := make([]byte, wl.chunkPages)
	one := make([]byte, 1)
	chunks := wl.dataPages / wl.chunkPages
	var done, codeMiss, dataMiss int64
	stop := false
	for it := int64(0); it < spec.Visits && !stop; it++ {
		for k := int64(0); k < spec.CodeReads; k++ {
			q := wl.rng.Int64N(wl.codePages)
			off := q * host.PageSize
			// One read in 16 asks mincore whether the page is resident (a
			// syscall per read would be the run's main cost when nothing
			// faults).
			if k%16 == 0 && mincore(wl.code[off:off+host.PageSize], one) == nil && one[0]&1 == 0 {
				codeMiss += 16
			}
			for i := int64(0); i < host.PageSize; i += 1024 {
				wl.acc += uint64(wl.code[off+i])
			}
			done++
			if done%256 == 0 {
				rep.line('t', done)
				if time.Now().After(deadline) {
					stop = true
					break
				}
			}
		}
		if stop {
			break
		}
		c := it % chunks
		first := c * wl.chunkPages
		if mincore(dataBytes[first*host.PageSize:(first+wl.chunkPages)*host.PageSize], vec) == nil {
			for _, b := range vec {
				if b&1 == 0 {
					dataMiss++
				}
			}
		}
		for p := first; p < first+wl.chunkPages; p++ {
			pg := wl.data[p*int64(words) : (p+1)*int64(words)]
			acc := wl.acc
			for i := 0; i < len(pg); i += 4 {
				acc = (acc ^ pg[i]) * 0x100000001b3
				acc += pg[i+1] ^ pg[i+2] ^ pg[i+3]
			}
			wl.acc = acc
			// Dirty the page without changing its content, as processing
			// the chunk would.
			atomic.AddUint64(&pg[int(acc%uint64(words))], 0)
			done++
			if done%256 == 0 {
				rep.line('t', done)
				if time.Now().After(deadline) {
					stop = true
					break
				}
			}
		}
	}
	timed := time.Since(t0)
	maj1, min1 := host.Faults()
	rep.line('E', done)
	out, _ := json.Marshal(childReport{Init: initDur, Timed: timed, Visits: done,
		MajFlt: maj1 - maj0, MinFlt: min1 - min0, Checksum: wl.acc,
		CodeMiss: codeMiss, DataMiss: dataMiss})
	fmt.Fprintf(w, "R %s\n", out)
	return nil
}

// mincore asks which pages of b are resident (bit 0 of each byte of vec).
func mincore(b []byte, vec []byte) error {
	return host.Mincore(b, vec)
}
