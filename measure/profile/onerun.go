//go:build linux

package profile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// One run (memplan profile --one-run): the command runs once, in its own
// memory cgroup with the backend as swap, while this process steps the
// cgroup's memory limit through the fit ratios and back, cycle after
// cycle: a slice without a limit (the reference), then one slice at each
// fit ratio, highest first. Each slice ends when the command has made a
// set amount of progress, counted in its user CPU time (every process in
// the cgroup, with the children it reaped) less the share of its system
// time this host charges as user time (leak.go); the wall time a slice
// took per second of progress, over the reference slices', is the
// slowdown at that fit during that part of the run. The slices are the
// runs of measure.RunRounds (stepper.Run); the stepper is its Gate.
// docs/profile.md ("One run") gives the reasoning and its limits.
//
// A slice's first quarter of progress settles the transition and is not
// counted: after a drop the kernel reclaims down to the new limit (the
// command stopped while memplan writes it, pauseFor), and after the rise
// to the reference the pages the command needs are faulted back (a
// reference slice also waits until its major-fault rate is low, and a
// constrained one whose fault rate was still falling counts its second
// half only, rampIn).
// The limit at fit f is f times the command's footprint so far (resident
// plus swapped), re-set as it grows; at the end each slice's limit is put
// over the final footprint, and a cycle's curve is interpolated at the
// nominal fits. The run's slowdown at fit f is the cycles' slowdowns
// weighted by the progress made in each, so every phase of the command
// counts as long as it lasted.
//
// The cost is bounded: before each constrained slice the wall time spent
// beyond what the progress so far would have taken in RAM is compared
// with the budget (OneRunBudget of it); over it, the command runs without
// a limit until it is back under. A fit whose slice is slower than
// oneRunKnee times its reference is the last one lowered to: the fits
// below it are past the knee and are reported as not measured.

// Defaults of the one run.
const (
	DefaultOneRunBudget = 0.25
	oneRunKnee          = 3.0
	oneRunMinSlice      = 500 * time.Millisecond // of user CPU time
	oneRunMaxSlice      = time.Minute
	oneRunSettle        = 0.25 // share of a slice's progress not counted
	oneRunTick          = 50 * time.Millisecond
	// A reference slice after a constrained one counts only once the
	// command's major faults fall below this rate (per second of wall
	// time), or after two slices' worth of wall time.
	oneRunSettledFaults = 200.0
	// A constrained slice whose counted part faulted this many times
	// faster in its first half than in its second counts the second half
	// only (rampIn).
	oneRunRamp = 1.5
	// A constrained slice whose cgroup was charged for less than this
	// share of its limit at every tick ran with the limit not binding.
	oneRunBound = 0.95
	// A fit whose measured progress was more than this share unbound
	// says so in its verdict.
	oneRunUnboundShare = 0.25
	// A fit whose limit bound, unmeasured, for more than this share of
	// the run's wall time says so in its verdict (bindingUnmeasured,
	// peakUnmeasured).
	oneRunBindingShare = 0.05
	oneRunBootstrap    = 1000
	// The most system time a page faulted in or written out is taken to
	// cost (pressureSys): ten times the whole cost of a fault, user time
	// included, that whole runs measured on zram here (50-72us), so that
	// it bounds only kernel time no swapping explains.
	oneRunSysPerPage = 500 * time.Microsecond
	// oneRunBracket is how far apart, in fit ratio, the slices on
	// either side of a fit no slice ran near may be for the fit to read
	// between them (as the multi-run profile's curve is read between
	// its points).
	oneRunBracket = 0.2
	// A slice ran at the command's peak when its footprint stayed within
	// this share of the final peak throughout its counted part: yosys's
	// peak holds at 2.10-2.20 GiB for 10-13 s of a 70 s run, within 5% of
	// its 2.20 GiB, and grows to it from 0.9 GiB in about 6 s.
	oneRunNearPeak = 0.1
)

// OneRunReport is what the one run measured: every slice, and how the
// points were formed from them.
type OneRunReport struct {
	Budget     float64   `json:"budget_share"`
	Knee       float64   `json:"knee_slowdown"`
	KneeFit    float64   `json:"knee_fit,omitempty"` // the last fit lowered to, when the knee stopped it
	Cycles     int       `json:"cycles"`
	Started    time.Time `json:"started"` // when the command started; slices' start_s count from it
	Wall       float64   `json:"wall_s"`
	InRAM      float64   `json:"in_ram_estimate_s"` // the wall time the progress would have taken without a limit
	ExtraShare float64   `json:"extra_share"`       // Wall / InRAM - 1
	// InRAMLeast and ExtraMost count no progress in the settling parts of
	// the constrained slices. The budget goes by this reading: on a job
	// that counts its steps it is about 7 points above the true cost and
	// the central one within 1.5, but on yosys the central reading missed
	// 10-19 points, its reference slices running slower per user second
	// than whole runs in RAM (bench/results/onerun-settle-2026-12-05.md).
	InRAMLeast float64 `json:"in_ram_least_s"`
	ExtraMost  float64 `json:"extra_share_most"`
	// Settle compares the excluded first part of the constrained slices
	// with the counted part: wall per progress, over all slices.
	SettleRatio  float64     `json:"settle_over_counted"`
	Footprint    units.Bytes `json:"footprint_bytes"`
	Threads      int         `json:"threads_max"`
	Extrapolated []float64   `json:"extrapolated_share,omitempty"` // per fit: progress share of cycles that did not reach it
	// Unbound is per fit the share of the progress measured near it
	// (within 0.05) in slices whose limit did not bind while they faulted
	// (OneRunSlice.unbound): there the slices saw a state a whole run at
	// the fit is not in.
	Unbound []float64 `json:"unbound_share,omitempty"`
	// BindingUnmeasured is per fit the wall time during which the command
	// held more than the fit's limit (a whole run at the fit would have
	// swapped) while no slice at the fit ran then: the phase where the
	// fit costs most, unmeasured (bindingUnmeasured).
	BindingUnmeasured []float64 `json:"binding_unmeasured_s,omitempty"`
	// PeakUnmeasured is per fit the wall time during which the command
	// held its peak (within oneRunNearPeak) and more than the fit's limit,
	// when no slice at the fit ran wholly at the peak (peakUnmeasured).
	PeakUnmeasured []float64     `json:"peak_unmeasured_s,omitempty"`
	Slices         []OneRunSlice `json:"slices"`
	ProgressClock  string        `json:"progress_clock"`
	// Leak is the share of kernel time this host's accounting charges as
	// user time (accountingLeak): the progress clock takes it off.
	Leak *AccountingLeak `json:"accounting_leak,omitempty"`
	// Clocks are the slowdowns per fit (in Fits' order) under each
	// reading of the progress clock: "user time" as the kernel reports
	// it, "less the leak" (the central figure) and "less more than the
	// leak" (the band's upper end).
	Clocks map[string][]float64 `json:"clocks,omitempty"`
	// UserTotal, SysTotal and Faults are the run's user and system time
	// and major faults.
	UserTotal float64 `json:"user_s"`
	SysTotal  float64 `json:"sys_s"`
	Faults    int64   `json:"major_faults"`
}

// OneRunSlice is one slice of the run.
type OneRunSlice struct {
	Cycle    int         `json:"cycle"`
	Fit      float64     `json:"fit"` // 0: the reference, without a limit
	Payback  bool        `json:"payback,omitempty"`
	Limit    units.Bytes `json:"limit_bytes,omitempty"`
	Start    float64     `json:"start_s"`
	Wall     float64     `json:"wall_s"`     // counted part
	Progress float64     `json:"progress_s"` // counted part, user CPU seconds
	SetWall  float64     `json:"settle_wall_s"`
	SetProg  float64     `json:"settle_progress_s"`
	SetFlt   int64       `json:"settle_major_faults"`
	Sys      float64     `json:"sys_s"`        // counted part, system CPU seconds
	SetSys   float64     `json:"settle_sys_s"` // settling part
	MajFlt   int64       `json:"major_faults"`
	SwapIn   int64       `json:"swap_ins"`
	SwapOut  int64       `json:"swap_outs"`
	RunDelay float64     `json:"run_delay_s"` // waiting for a CPU, all threads
	// The kernel's delay accounting over the counted part (taskstats),
	// seconds summed over the command's processes.
	Delays    SliceDelays `json:"delays"`
	Footprint units.Bytes `json:"footprint_bytes"`
	// FootprintMin is the least footprint at a tick of the counted part:
	// the slice ran at the peak when it is near it (ranAtPeak).
	FootprintMin units.Bytes `json:"footprint_min_bytes,omitempty"`
	Cut          bool        `json:"cut,omitempty"` // ended by the command's exit
	// Ramp: the counted part's first half still paid the drop's refault
	// debt (major faults per second over oneRunRamp times the second
	// half's) and was moved to the settling part.
	Ramp bool `json:"ramp,omitempty"`
	// UsageMax is the most the cgroup was charged for (its limit's own
	// figure) at a tick of the counted part. A constrained slice whose
	// usage stayed under oneRunBound of its limit while it faulted did not
	// have its limit binding (unbound).
	UsageMax units.Bytes `json:"usage_max_bytes,omitempty"`
	// SwappedIn is what the host read back from swap while a reference
	// slice restored the command's pages (restore; read from the host's
	// counters, so another process's swap-ins count too), SwapInWall how
	// long that took.
	SwappedIn  units.Bytes `json:"swapped_in_bytes,omitempty"`
	SwapInWall float64     `json:"swap_in_wall_s,omitempty"`
}

// unbound reports whether a constrained slice faulted (more than
// oneRunSettledFaults major faults a second) with its cgroup's usage under
// oneRunBound of its limit throughout: the command was faulting back pages
// a lower limit had evicted, and the limit never bound. That is not the
// state of a whole run at the fit, which holds the limit's worth in memory
// and reclaims a page for every page it faults in: the slice faults more
// often than such a run (more is out) and each fault costs less (no
// reclaim). Which wins depends on the command; on a memory simulator
// that sweeps its array (bench/results/onerun-sweep-2026-12-04.md) such
// slices read about 1.0 where whole runs measured 1.2-1.5.
func (s *OneRunSlice) unbound() bool {
	return s.Fit > 0 && s.Limit > 0 && s.Wall > 0 && s.UsageMax > 0 &&
		float64(s.UsageMax) < oneRunBound*float64(s.Limit) && float64(s.MajFlt)/s.Wall > oneRunSettledFaults
}

// settle adds the span from a to b to the slice's settling part.
func (s *OneRunSlice) settle(a, b orSample) {
	s.SetWall += b.at.Sub(a.at).Seconds()
	s.SetProg += b.progress - a.progress
	s.SetFlt += b.majflt - a.majflt
	s.SetSys += b.sys - a.sys
}

// nearPeak reports whether footprint f is within oneRunNearPeak of peak.
func nearPeak(f, peak units.Bytes) bool {
	return peak > 0 && float64(f) >= (1-oneRunNearPeak)*float64(peak)
}

// ranAtPeak reports whether s is a counted slice at fit whose footprint
// stayed near peak throughout its counted part (a slice recorded without
// FootprintMin, by an earlier memplan, by its largest footprint).
func (s *OneRunSlice) ranAtPeak(fit float64, peak units.Bytes) bool {
	least := s.FootprintMin
	if least <= 0 {
		least = s.Footprint
	}
	return s.Fit > 0 && math.Abs(s.Fit-fit) < 0.05 && s.Progress > 0 && nearPeak(least, peak)
}

// ratio is wall time per second of progress in the counted part.
func (s *OneRunSlice) ratio() float64 {
	if s.Progress <= 0 {
		return 0
	}
	return s.Wall / s.Progress
}

// SliceDelays are taskstats deltas over a slice, in seconds.
type SliceDelays struct {
	Run       float64 `json:"on_cpu_s"`
	User      float64 `json:"user_s"`
	Sys       float64 `json:"sys_s"`
	CPUWait   float64 `json:"cpu_wait_s"`
	Blkio     float64 `json:"blkio_s"`
	Swapin    float64 `json:"swapin_s"`
	Freepages float64 `json:"reclaim_s"`
	Thrashing float64 `json:"thrashing_s"`
	Compact   float64 `json:"compact_s"`
}

func sliceDelays(a, b host.TaskDelays) SliceDelays {
	d := func(x, y time.Duration) float64 { return (y - x).Seconds() }
	return SliceDelays{Run: d(a.Run, b.Run), User: d(a.User, b.User), Sys: d(a.Sys, b.Sys), CPUWait: d(a.CPU, b.CPU),
		Blkio: d(a.Blkio, b.Blkio), Swapin: d(a.Swapin, b.Swapin), Freepages: d(a.Freepages, b.Freepages),
		Thrashing: d(a.Thrashing, b.Thrashing), Compact: d(a.Compact, b.Compact)}
}

// orSample is one reading of the command's counters.
type orSample struct {
	at        time.Time
	progress  float64 // user CPU seconds
	sys       float64 // system CPU seconds
	majflt    int64
	swapIn    int64
	swapOut   int64
	delay     float64
	footprint units.Bytes
	resident  units.Bytes
	usage     units.Bytes // what the cgroup is charged for
	threads   int
	delays    host.TaskDelays
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times: 100 on
// every architecture Linux builds for.
const clockTicks = 100

// readProgress sums user CPU time over the processes in the cgroup, each
// with its reaped children's (a child that exits moves its time into its
// parent's cutime, so the sum does not drop when a compiler pass ends).
func readProgress(h host.Host, cg *host.Cgroup) (user, sys float64, threads int) {
	var ticks, sticks int64
	for _, pid := range host.ProcsIn(h, cg.Mem) {
		b, err := h.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		u, st, n, ok := parseStatTimes(b)
		if !ok {
			continue
		}
		ticks += u
		sticks += st
		threads += n
	}
	return float64(ticks) / clockTicks, float64(sticks) / clockTicks, threads
}

// parseStatTimes reads /proc/PID/stat's user and system time with its
// reaped children's (utime + cutime, stime + cstime, in ticks) and its
// thread count. The command
// name in parentheses may hold spaces and parentheses: the fields count
// from the last ')'.
func parseStatTimes(b []byte) (user, sys int64, threads int, ok bool) {
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state): utime is field 14, stime 15, cutime 16,
	// cstime 17, threads 20.
	if len(f) < 18 {
		return 0, 0, 0, false
	}
	var t [4]int64
	for k := range t {
		v, err := strconv.ParseInt(f[11+k], 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		t[k] = v
	}
	n, err := strconv.Atoi(f[17])
	if err != nil {
		return 0, 0, 0, false
	}
	return t[0] + t[2], t[1] + t[3], n, true
}

// The readings of orRead: a tick's, which the limit and the slice's end
// go by, and an edge's (a slice's start, middle and end, the run's end),
// which the slice's counters are deltas of.
const (
	readTick = iota
	readEnd  // and the host's swap-ins and -outs
	readEdge // and the threads' wait for a CPU
)

// orRead reads the command's counters: at a tick its CPU time, memory and
// faults and its processes' delay accounting; at the run's end the host's
// swap counters too; at a slice's edge also its threads' run delay.
// memplan reads every 50 ms; a tick reads no more than it needs, its
// time being taken from the CPU the command may share.
func (ps *profileSession) orRead(cg *host.Cgroup, what int) orSample {
	s := orSample{at: time.Now()}
	s.progress, s.sys, s.threads = readProgress(ps.Host, cg)
	if st, err := cg.Stat(); err == nil {
		s.majflt = st["pgmajfault"]
		s.resident = residentOf(st, cg.Version)
		swapped := units.Bytes(st["swap"])
		if cg.IsV2() {
			if v, err := host.ReadString(ps.Host, cg.Mem+"/memory.swap.current"); err == nil {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				swapped = units.Bytes(n)
			}
		}
		s.footprint = s.resident + swapped
	}
	if u, err := cg.Usage(); err == nil {
		s.usage = u
	}
	if ps.taskstats != nil {
		for _, pid := range host.ProcsIn(ps.Host, cg.Mem) {
			if d, err := ps.taskstats.TGID(pid); err == nil {
				s.delays = s.delays.Add(d)
			}
		}
	}
	if what == readTick {
		return s
	}
	c := ps.Counters(nil)
	s.swapIn, s.swapOut = c.VM["pswpin"], c.VM["pswpout"]
	if what == readEdge {
		for _, tid := range cg.Threads() {
			if w, err := host.ReadRunDelay(ps.Host, tid); err == nil {
				s.delay += w.Seconds()
			}
		}
	}
	return s
}

// oneRun runs the command once with the stepped limit on the profile's
// backend and turns the slices into the phase's points.
func (ps *profileSession) oneRun(ctx context.Context) (err error) {
	o := ps.o
	mark := ps.Journal.Len()
	defer func() {
		if uerr := ps.Journal.UndoTo(mark); uerr != nil {
			err = errors.Join(err, uerr)
		}
	}()
	// The footprint is not known before the run: the backend can take half
	// of what the host gives the profile (zram stores only what is swapped,
	// a swap file is allocated, never written, where it is not used).
	size := ps.cap / 2 / units.MiB * units.MiB
	if ps.target != nil {
		if free, _, err := ps.Host.Statfs(ps.target.Dir); err == nil {
			size = min(size, (free/2)/units.MiB*units.MiB)
		}
	}
	ph, zramID, err := ps.setupBackend(ctx, o.Backend, size, size)
	if err != nil {
		return err
	}
	if o.prior != nil {
		// Before the command starts: a prior that cannot fill this
		// backend's curve must not cost a run of the job.
		if _, err := o.prior.curve(ph.Class); err != nil {
			return fmt.Errorf("--prior: %w", err)
		}
	}
	if _, err := host.EnableDelayacct(ps.Host, ps.Journal); err != nil {
		ps.note("one run: %v; the slices carry no delay accounting", err)
	} else if ts, err := host.OpenTaskstats(); err != nil {
		ps.note("one run: %v; the slices carry no delay accounting", err)
	} else {
		ps.taskstats = ts
		defer func() { ts.Close(); ps.taskstats = nil }()
	}
	ps.prog.Stage(ph.Name+": reading how the host accounts kernel time", 1)
	leak, err := accountingLeak()
	if err != nil {
		ps.note("one run: timing the host's CPU accounting: %v; the progress clock is user time as reported", err)
	}
	clk := leak.clocks()
	cg, err := ps.NewRunCgroup(false)
	if err != nil {
		return err
	}
	ceiling := ps.cap
	if err := cg.SetLimit(ceiling, ceiling); err != nil {
		return fmt.Errorf("setting the memory limit of the run's cgroup: %w", err)
	}
	stdout, stderr, keepOut, closeOut, err := ps.outputs()
	if err != nil {
		return err
	}
	defer closeOut()
	c0 := ps.Counters(cg)
	r, err := ps.launch(ps.spec, o.Dir, stdout, stderr, cg)
	if err != nil {
		var le *launchError
		if errors.As(err, &le) {
			return fmt.Errorf("%s: %w", measure.ShellQuote(o.Command), err)
		}
		return err
	}
	ctl := &stepper{ps: ps, cg: cg, budget: o.OneRunBudget, ceiling: ceiling,
		zramID: zramID, started: r.started, swapSize: size, applied: ceiling, clk: clk[2], hint: o.OneRunPeak, name: ph.Name}
	ctl.begin(r)
	_, runErr := measure.RunRounds(ctx, ctl, measure.Session{Stage: ph.Name + ": one run, stepped memory limit", Name: ph.Name,
		Backend: ph.Name, InRAMBackend: ph.Name, Fits: sortedDesc(o.Fits), Unit: measure.PerCPUSecond, Work: 1,
		Descending: true, UntilEnded: true})
	ctl.tick.Stop()
	wall := time.Since(r.started).Seconds()
	if runErr != nil {
		return runErr
	}
	run := measure.RunResult{Backend: ph.Name, Rep: 1, Wall: wall, Resident: ctl.peak, Seq: 1}
	st := r.cmd.ProcessState
	countRun(&run, st, cg, c0, ps.Counters(cg))
	run.ExitCode, run.Signal, run.Failed = exitDescription(st)
	if run.ExitCode == 0 && run.Signal == "" {
		run.Failed = ""
	}
	name := measure.ShellQuote(o.Command)
	if run.Failed != "" {
		if cg.OomKills() > 0 {
			return fmt.Errorf("%w: %s was OOM-killed in its cgroup at %s (%s); memplan keeps %s of the host's %s available for itself",
				ErrTooBig, name, ceiling, run.Failed, ps.rep.MemAvail-ps.cap, ps.rep.MemAvail)
		}
		return &CommandError{Command: name, Stage: "one run", ExitCode: run.ExitCode, Signal: run.Signal, Text: run.Failed, Stderr: r.tail.String()}
	}
	keepOut()
	ps.rep.Sizing = run
	ps.rep.Footprint = max(ctl.peak, run.MaxRSS)
	ps.rep.PeakCharged = run.Peak
	if least := o.MinRuntime.Seconds(); wall < least {
		return fmt.Errorf("%w: %s finished in %.3fs; below %gs start-up and scheduling noise swamp what swapping costs; give it a bigger input so that it runs for at least a few seconds",
			ErrTooShort, name, wall, least)
	}
	if ctl.peak < 16*units.MiB { // the cgroup's reading: profile.go's sizing says why not MaxRSS
		return fmt.Errorf("%w: %s used only %s of memory at its peak; with so little there is nothing to swap; give it a bigger input", ErrTooLittle, name, ctl.peak)
	}
	for _, n := range ctl.notes {
		ps.note("%s", n)
	}
	faults := run.MajFlt
	if kv, err := cg.Stat(); err == nil && kv["pgmajfault"] > faults {
		faults = kv["pgmajfault"]
	}
	// The central figure reads progress less the host's leak; the band
	// spans user time as reported and a leak larger by oneRunLeakSpread.
	rep := estimateOneRun(ctl.slices, o.Fits, ps.rep.Footprint, o.OneRunBudget, ctl.kneeFit, clk, rand.New(rand.NewPCG(profileOrderSeed, 1)))
	rep.UserTotal, rep.SysTotal, rep.Faults = run.User, run.Sys, faults
	rep.Clocks = map[string][]float64{}
	for i, name := range []string{"less the leak", "user time", "less more than the leak"} {
		e := estimateOneRun(ctl.slices, o.Fits, ps.rep.Footprint, o.OneRunBudget, ctl.kneeFit, clk[i:i+1], nil)
		for _, pt := range e.points {
			rep.Clocks[name] = append(rep.Clocks[name], measure.Round4(pt.Slowdown.Mean))
		}
	}
	rep.Leak = leak
	if leak != nil {
		rep.ProgressClock += fmt.Sprintf(", less %.2f of the system time the limit caused (beyond the references' rate, at most %v a page faulted in or written out): this host charges %.0f%% of kernel time as user time (measured on %s); the band's ends read it with no leak and with %.0f%%",
			clk[0].Leak/(1-clk[0].Leak), oneRunSysPerPage, 100*leak.Share, leak.Loop, 100*clk[2].Leak)
	}
	rep.Wall = wall
	rep.Started = r.started
	rep.Threads = ctl.threads
	ph.Points = rep.points
	ph.InRAM = measure.Summary{N: rep.refSlices, Mean: rep.InRAM, Trimmed: rep.InRAM, Min: rep.InRAM, Max: rep.InRAM, Lo: rep.InRAM, Hi: rep.InRAM}
	ph.Repetitions = fmt.Sprintf("one run: %d cycles of %d slices, %.0f%% extra wall time over the %.1fs the run would have taken without a limit (budget %.0f%%)",
		rep.Cycles, len(ctl.slices), 100*rep.ExtraShare, rep.InRAM, 100*o.OneRunBudget)
	for _, pt := range ph.Points {
		if pt.Verdict != "" {
			ps.note("%s at fit %g: %s", ph.Name, pt.Fit, pt.Verdict)
		}
	}
	if n := shortOfPeak(o.OneRunPeak, ps.rep.Footprint, o.Fits); n != "" {
		ps.note("one run: %s", n)
	}
	if n := parallelClock(ctl.slices); n != "" {
		ps.note("one run: %s", n)
	}
	if o.OneRunPeak == 0 {
		if n := stillGrowing(ctl.slices, ps.rep.Footprint); n != "" {
			ps.note("one run: %s; give --peak %s (its footprint this time) so that every limit is a fit of it from the start", n, ps.rep.Footprint)
		}
	}
	if rep.refSlices == 0 || rep.Cycles == 0 {
		return fmt.Errorf("%w: %s finished before memplan could measure one cycle of slices (%d slices in %.1fs); the one run needs a command that runs for at least %d seconds of CPU time; use the multi-run profile (drop --one-run)",
			ErrTooShort, name, len(ctl.slices), wall, int(oneRunMinSlice.Seconds()*float64(len(o.Fits)+1)*(1+oneRunSettle)*3))
	}
	measured := 0
	for _, pt := range ph.Points {
		if pt.Slowdown.N > 0 {
			measured++
		}
	}
	if measured == 0 {
		if grew := grewToTheEnd(ctl.slices, ps.rep.Footprint); grew != "" {
			return fmt.Errorf("%w: the one run of %s measured no fit ratio: %s, so no limit it set was near a fit of its final footprint (%s in %.1fs); give --peak %s (its footprint this time) so that the limits are fits of it from the start, or use the multi-run profile (drop --one-run), whose limits are fits of the footprint a first run measured",
				ErrNoFit, name, grew, sliceCounts(ctl.slices), wall, ctl.peak)
		}
		return fmt.Errorf("%w: the one run of %s measured no fit ratio (%s in %.1fs; %s): give it a longer input, fits nearer 1, or use the multi-run profile (drop --one-run)",
			ErrTooShort, name, sliceCounts(ctl.slices), wall, ph.Points[0].Verdict)
	}
	ps.rep.OneRun = &rep.OneRunReport
	ps.rep.Phases = append(ps.rep.Phases, ph)
	if o.prior != nil {
		pr, err := o.prior.fill(ph.Class, ph.Points, ps.rep.Footprint)
		if err != nil {
			return err
		}
		ps.rep.Prior = pr
		for _, n := range pr.Notes {
			ps.note("prior: %s", n)
		}
		if len(pr.Points) > 0 {
			ps.note("prior: fits %s were not measured; they carry the one-pass sampler's inferred figures from %s (source: sampler), which are not measurements: read their band", pr.fits(), pr.File)
		}
	}
	return nil
}

// shortOfPeak says how the limits fell when the command's footprint
// stayed more than 5% below the --peak they were fits of: each fit f was
// a limit of f*peak/footprint of what it held. "" otherwise.
func shortOfPeak(peak, footprint units.Bytes, fits []float64) string {
	if peak <= 0 || footprint <= 0 || float64(footprint) >= 0.95*float64(peak) {
		return ""
	}
	r := float64(peak) / float64(footprint)
	var at []string
	for _, f := range fits {
		at = append(at, strconv.FormatFloat(math.Round(100*f*r)/100, 'f', -1, 64))
	}
	return fmt.Sprintf("its footprint (%s) stayed %.0f%% below --peak %s, so its limits were fits %s of what it held; a fit no slice ran within 0.05 of reads between the slices on either side when they are at most %g apart, and is not measured otherwise",
		footprint, 100*(1-1/r), peak, strings.Join(at, ", "), oneRunBracket)
}

// grewToTheEnd says how the command's footprint grew when its last
// constrained slice held less than nine tenths of the final footprint:
// every limit the run set was a fit of a footprint the command went on
// to outgrow. "" otherwise.
func grewToTheEnd(slices []OneRunSlice, final units.Bytes) string {
	var first, last units.Bytes
	for _, sl := range slices {
		if sl.Fit > 0 && sl.Footprint > 0 {
			if first == 0 {
				first = sl.Footprint
			}
			last = sl.Footprint
		}
	}
	if last == 0 || final <= 0 || float64(last) >= 0.9*float64(final) {
		return ""
	}
	return fmt.Sprintf("its footprint grew until the end (%s at the first limit, %s at the last, %s in all)", first, last, final)
}

// oneRunParallel is the CPU time per wall second, in the reference
// slices, above which the command counts as computing on several cores.
const oneRunParallel = 1.2

// parallelClock says, for a command that computed on more than
// oneRunParallel cores at once in a reference slice, that its progress
// clock is user time summed over threads: threads that spin or wait in
// user mode under memory pressure add user time without progress, so the
// slowdowns read low and the cost high, and nothing in the slices tells
// the two apart. "" otherwise.
func parallelClock(slices []OneRunSlice) string {
	most := 0.0
	for _, s := range slices {
		if s.Fit == 0 && s.Wall > 0 && s.Progress > 0 {
			most = max(most, s.Progress/s.Wall)
		}
	}
	if most <= oneRunParallel {
		return ""
	}
	return fmt.Sprintf("the command computed on up to %.1f cores at once without a limit; the progress clock is its user time summed over threads, which threads that spin or wait under memory pressure raise without progress, so the slowdowns may read low and the cost high: check a fit that matters with whole runs (the multi-run profile, --fits)", most)
}

// stillGrowing says how much of the run's progress came while the
// command's footprint was under nine tenths of its final one, when that is
// more than a quarter: the limits set then were fits of less than the
// command went on to hold. "" otherwise.
func stillGrowing(slices []OneRunSlice, final units.Bytes) string {
	var under, all float64
	for _, sl := range slices {
		all += sl.Progress
		if sl.Footprint > 0 && float64(sl.Footprint) < 0.9*float64(final) {
			under += sl.Progress
		}
	}
	if all <= 0 || under <= 0.25*all {
		return ""
	}
	return fmt.Sprintf("%.0f%% of its progress came while its footprint was under nine tenths of the %s it reached", 100*under/all, final)
}

// sliceCounts says what the run's slices were, for an error.
func sliceCounts(slices []OneRunSlice) string {
	var ref, pay, lim, cut int
	var refWall, payWall, limWall float64
	for _, sl := range slices {
		w := sl.Wall + sl.SetWall
		switch {
		case sl.Payback:
			pay++
			payWall += w
		case sl.Fit == 0:
			ref++
			refWall += w
		default:
			lim++
			limWall += w
			if sl.Progress == 0 {
				cut++
			}
		}
	}
	return fmt.Sprintf("%d slices without a limit (%.1fs), %d with one (%.1fs, %d never past settling), %d paying back the budget (%.1fs)",
		ref, refWall, lim, limWall, cut, pay, payWall)
}

func sortedDesc(fits []float64) []float64 {
	out := append([]float64(nil), fits...)
	sort.Sort(sort.Reverse(sort.Float64Slice(out)))
	return out
}

// stepper is the controller of the one run.
type stepper struct {
	ps       *profileSession
	cg       *host.Cgroup
	budget   float64
	ceiling  units.Bytes
	zramID   int
	started  time.Time
	swapSize units.Bytes // what the backend holds
	applied  units.Bytes // the limit in force
	resident units.Bytes // what the command held at the last reading
	clk      clock       // the progress clock the budget goes by
	hint     units.Bytes // --peak: the footprint the command will reach (0: unknown)

	slices    []OneRunSlice
	peak      units.Bytes // the footprint so far
	threads   int
	kneeFit   float64 // the lowest fit still lowered to (0: none yet)
	stopped   string  // why stepping stopped for good
	notes     []string
	swapInErr bool // a read-back failed (said once in notes)

	// The slicing of the running command (begin, Run).
	name      string // the backend the slices are filed under
	run       *running
	tick      *time.Ticker
	prev      orSample     // the last reading
	last      orSample     // where the last slice ended, the next starts
	cur       *OneRunSlice // the slice running or the last one
	sliceFoot units.Bytes  // the footprint when cur started
}

// refRatio is wall per second of user time over the reference slices so
// far.
func (s *stepper) refRatio() float64 { return s.refRatioOn(clock{}) }

// refRatioOn is wall per progress read on c over the reference slices so
// far.
func (s *stepper) refRatioOn(c clock) float64 {
	var w, p float64
	for _, sl := range withClock(s.slices, c) {
		if sl.Fit == 0 && sl.Progress > 0 {
			w += sl.Wall
			p += sl.Progress
		}
	}
	if p <= 0 {
		return 0
	}
	return w / p
}

// overBudget reports whether the run so far took more wall time beyond
// what its progress would have taken without a limit than the budget
// allows.
func (s *stepper) overBudget(cur orSample) bool { return s.overBudgetBy(cur, 0) }

// sliceCost is what the last slice at fit took beyond its progress at
// the reference pace (its settling part included), with the refault debt
// the slice without a limit after it paid, on the budget's clock: what
// the next slice there will likely cost. 0 before the first.
func (s *stepper) sliceCost(fit float64) float64 {
	r1 := s.refRatioOn(s.clk)
	if r1 <= 0 {
		return 0
	}
	sl := withClock(s.slices, s.clk)
	excess := func(x OneRunSlice) float64 {
		p := x.Progress
		if x.Fit == 0 {
			p += x.SetProg
		}
		return math.Max(x.Wall+x.SetWall-p*r1, 0)
	}
	for i := len(sl) - 1; i >= 0; i-- {
		if sl[i].Fit == fit && !sl[i].Cut {
			cost := excess(sl[i])
			if i+1 < len(sl) && sl[i+1].Fit == 0 {
				cost += excess(sl[i+1])
			}
			return cost
		}
	}
	return 0
}

// overBudgetBy is overBudget with extra more seconds of wall time spent:
// a fit's slice starts only if what it is likely to cost keeps the run
// within the budget, so that a run ending just after it does not end
// over (runs without the look-ahead ended at +26-28% of a 25% budget;
// with the slice's own cost alone, a swap-file run of ngspice whose last
// slice's refault debt ran into its exit ended at +34%).
func (s *stepper) overBudgetBy(cur orSample, extra float64) bool {
	// Progress and the reference pace on one clock: a command that
	// spends time in the kernel in RAM too has that time taken off both.
	r1 := s.refRatioOn(s.clk)
	if r1 <= 0 {
		return false
	}
	// Less what the constrained slices made while their limit settled
	// (OneRunReport.InRAMLeast says why).
	// The clock's correction of the slices so far (the one running has
	// none yet).
	p := cur.progress
	for i, sl := range withClock(s.slices, s.clk) {
		raw := &s.slices[i]
		p -= raw.Progress - sl.Progress + raw.SetProg - sl.SetProg
		if sl.Fit > 0 {
			p -= sl.SetProg
		}
	}
	inRAM := math.Max(p, 0) * r1
	return cur.at.Sub(s.started).Seconds()+extra > inRAM*(1+s.budget)
}

// pastKnee judges whether slice i (at a fit) ran past the knee: more
// than oneRunKnee times slower, by wall time per user second, than without
// a limit, read two ways, the lesser deciding: against the run's reference
// pace so far, and against the reference slice just before it (which may
// itself have been paying back the refault debt of the slice before, and
// then is as slow as the next slice: not a knee).
//
// It reads user time as reported, not less the host's leak: a slice that
// faults hard has most of its user time taken off by the leak and reads
// far slower than it ran (on a development VM whose accounting charges
// about half of kernel time to user, an earlier per-fault reading of the
// same kind stopped three Icarus Verilog runs at fit 0.9 or 0.75 on
// slices it read as 3.7x to 30.9x, where whole runs at the next fit took
// 1.2-2.6x; bench/results/onerun-vvp-2026-12-04.md). The cost stays
// bounded without it: the budget goes by the band's upper reading, and a
// slice that runs far too long in wall time is cut short.
func pastKnee(slices []OneRunSlice, i int) (worst float64, past bool) {
	cur := slices[i]
	var w, p float64
	var last *OneRunSlice
	for j := range slices[:i] {
		if sl := &slices[j]; sl.Fit == 0 && sl.Progress > 0 {
			w += sl.Wall
			p += sl.Progress
			last = sl
		}
	}
	if p <= 0 || w <= 0 || cur.Progress <= 0 {
		return 0, false
	}
	worst = cur.ratio() / (w / p)
	if last != nil {
		worst = math.Min(worst, cur.ratio()/last.ratio())
	}
	return worst, worst > oneRunKnee
}

// sliceLen is the progress a slice counts: long enough for the clock's
// 10ms ticks, growing with the run so that a long command changes its
// limit less often.
func (s *stepper) sliceLen(progress float64) float64 {
	return math.Min(math.Max(oneRunMinSlice.Seconds(), progress/40), oneRunMaxSlice.Seconds())
}

// limitFor is the memory limit at fit f of the footprint so far, or of
// the footprint the command will reach when --peak gave it (then, as in a
// whole run at f, the limit binds only once the command has grown to it).
func (s *stepper) limitFor(f float64) units.Bytes {
	if f <= 0 {
		return s.ceiling
	}
	// Never more outside the limit than the backend holds (with room to
	// spare): a full swap device would OOM-kill the command.
	return max(limitAt(f, max(s.peak, s.hint)), s.peak-s.swapSize*9/10)
}

// setLimit writes the limit; a write the kernel refuses (v1 returns EBUSY
// when it cannot reclaim down to it in time) is retried at the next tick.
// A lower limit is written with the command stopped (pauseFor).
func (s *stepper) setLimit(l units.Bytes) bool {
	if s.applied > 0 && l < s.applied {
		defer s.pauseFor()()
	}
	if s.cg.SetLimit(l, s.ceiling) != nil {
		return false
	}
	s.applied = l
	return true
}

// pauseFor stops every process in the command's cgroup and returns what
// continues them. Writing a lower limit makes the kernel reclaim down to
// it in this process; a command left running meanwhile faults back pages
// as they are taken, which can stretch a write of a few hundred MiB from
// a second or two to tens (a 512 MiB job dropped to 230 MiB on zram: 3-25
// s running, 0.7-2.7 s stopped, bench/results/onerun-drop-2026-12-04.md),
// and charges the host's time in that fight to the command's user time.
// The stop falls in the slice's settling part, which is not counted.
// After kill -9 of memplan the command may be left stopped: `memplan
// probe cleanup` kills what is left in the cgroup, stopped or not.
func (s *stepper) pauseFor() (resume func()) {
	h := s.ps.Host
	pids := host.ProcsIn(h, s.cg.Mem)
	for _, pid := range pids {
		_ = h.Pause(pid, true)
	}
	return func() {
		for _, pid := range pids {
			_ = h.Pause(pid, false)
		}
	}
}

// restore reads back what the command has in swap when its limit is
// lifted for a reference slice (host.SwapIn, in this process). Left to
// itself, a command faults back only what it touches, and the next slice,
// the highest fit, starts far under its limit: it faults back what the
// lowest fit evicted, with no reclaim behind each fault, the state of no
// whole run at that fit (unbound). With its pages back, mapped and with
// no swap copy as after its own faults, the reference runs in RAM and the
// next drop starts, as a whole run at that fit does, from a command
// holding all it has, each eviction a write, and the pages read back
// marked cold, the kernel's first candidates as when it evicted them.
// (Pages read back into the swap cache instead, MADV_WILLNEED, kept their
// copies: the next limit evicted them without a write and the slices ran
// 5-15% faster than whole runs at their fits; pages read back and left
// warm made the next limit evict hot pages too,
// bench/results/onerun-readback-2026-12-04.md.) It does not help a
// command that sweeps its memory (bench/results/onerun-sweep-2026-12-04.md).
func (s *stepper) restore(cur *OneRunSlice) {
	t0, in0 := time.Now(), s.ps.Counters(nil).VM["pswpin"]
	for _, pid := range host.ProcsIn(s.ps.Host, s.cg.Mem) {
		// A process gone since it was listed fails its read-back too;
		// anything else is said once (the next slice may then run
		// unbound, which its verdict says).
		if _, err := s.ps.Host.SwapIn(pid); err != nil && !s.swapInErr && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ESRCH) {
			s.swapInErr = true
			s.notes = append(s.notes, fmt.Sprintf("one run: reading the command's pages back from swap failed (%v): the first fit after a reference may start under its limit", err))
		}
	}
	cur.SwapInWall = time.Since(t0).Seconds()
	cur.SwappedIn = units.Bytes(s.ps.Counters(nil).VM["pswpin"]-in0) * units.Bytes(os.Getpagesize())
}

// approach moves the limit towards want: at once upwards, downwards at
// most an eighth of the footprint (32 MiB at least) a tick, so that no
// write blocks the loop for long. It reports whether want is in force.
func (s *stepper) approach(want units.Bytes) bool {
	if s.applied == want {
		return true
	}
	next := want
	if s.applied > 0 && want < s.applied {
		// Down from what the command holds now, not from a limit far
		// above it (the first drop starts at the ceiling).
		step := max(32*units.MiB, s.peak/8)
		next = max(want, min(s.applied, s.resident+step)-step)
	}
	if !s.setLimit(next) {
		return false
	}
	return next == want
}

// The stepper is the one run's measure.Runner: the loop (measure.RunRounds)
// orders its cycles, reference slice then every fit highest first, asks
// its gate before each fit (Admit) and scores each slice over the
// reference slices next to it for the progress line; each Run is one
// slice of the running command, from where the last one ended.

// begin readies the stepper to slice r: the first reading, the tick.
func (s *stepper) begin(r *running) {
	s.run = r
	s.tick = time.NewTicker(oneRunTick)
	s.prev = s.ps.orRead(s.cg, readEdge)
	s.last = s.prev
}

// Stage, RunDone and Note are the progress of the profile.
func (s *stepper) Stage(name string, runs int)   { s.ps.prog.Stage(name, runs) }
func (s *stepper) RunDone(res measure.RunResult) { s.ps.prog.RunDone(progress(res)) }
func (s *stepper) Note(msg string)               { s.ps.note("%s", msg) }

// Admit is the gate before a fit's slice, read at the end of the last
// slice: no limit while stepping has stopped for good or the footprint is
// too small to step; before a cycle's first fit, none while the command is
// still allocating fast (its footprint grew by a tenth over the reference
// slice: a limit under an allocation burst measures the burst against a
// footprint it has not reached, and a whole run at that fit would not have
// been limited there yet); no fit below the knee; and a payback slice
// first when the fit's likely cost would take the run over its budget.
func (s *stepper) Admit(fit float64, first bool) measure.Admission {
	now := s.last
	switch {
	case s.stopped != "" || now.footprint < 16*units.MiB:
		return measure.InRAMFirst
	case first && s.cur != nil && s.cur.Fit == 0 && s.hint == 0 && now.footprint > s.sliceFoot+s.sliceFoot/10:
		return measure.InRAMFirst
	case s.kneeFit > 0 && fit < s.kneeFit:
		return measure.Skip
	case s.overBudgetBy(now, s.sliceCost(fit)):
		return measure.PaybackFirst
	}
	return measure.Admit
}

// result is the slice as the loop takes it.
func (s *stepper) result(sl *OneRunSlice) measure.RunResult {
	return measure.RunResult{Backend: s.name, Fit: sl.Fit, Rep: sl.Cycle + 1, Limit: sl.Limit, Wall: sl.Wall, User: sl.Progress,
		Sys: sl.Sys, MajFlt: sl.MajFlt, SwapIn: sl.SwapIn, SwapOut: sl.SwapOut, Resident: sl.Footprint}
}

// Run runs one slice: at rs.Fit (0: the reference, without a limit; a
// payback slice runs until the budget allows the next fit), its first part
// settling and not counted, under a limit at rs.Fit of the footprint so
// far (limitFor; the loop gives no limits). It returns measure.ErrEnded
// with the slice the command exited in.
func (s *stepper) Run(ctx context.Context, rs measure.RunSpec) (measure.RunResult, error) {
	start := s.last
	s.slices = append(s.slices, OneRunSlice{Cycle: rs.Rep - 1, Fit: rs.Fit, Payback: rs.Payback, Start: start.at.Sub(s.started).Seconds()})
	cur := &s.slices[len(s.slices)-1]
	s.cur = cur
	s.sliceFoot = start.footprint
	settleStart, begin := start, start
	settled, haveMid := false, false
	var mid orSample // halfway through the counted part
	target := s.sliceLen(start.progress)
	settleTarget := oneRunSettle * target
	wasLimited := s.applied > 0 && s.applied < s.ceiling
	s.approach(s.limitFor(rs.Fit))
	if rs.Fit == 0 && wasLimited && s.applied == s.ceiling {
		s.restore(cur)
	}
	finish := func(now orSample, cut bool) {
		if !settled {
			cur.settle(settleStart, now)
			cur.Cut = cut
			return
		}
		if cur.Fit > 0 && !cut && haveMid && rampIn(begin, mid, now) {
			// Still paying the drop's refault debt: the first half
			// settles, the second counts.
			cur.settle(begin, mid)
			cur.Ramp = true
			begin = mid
		}
		cur.Wall = now.at.Sub(begin.at).Seconds()
		cur.Progress = now.progress - begin.progress
		cur.MajFlt = now.majflt - begin.majflt
		cur.Sys = now.sys - begin.sys
		cur.SwapIn, cur.SwapOut = now.swapIn-begin.swapIn, now.swapOut-begin.swapOut
		// At the command's exit its threads' run delay cannot be read:
		// the cut slice's is unknown, recorded as none.
		cur.RunDelay = max(now.delay-begin.delay, 0)
		cur.Delays = sliceDelays(begin.delays, now.delays)
		cur.Cut = cut
	}
	for {
		select {
		case <-s.run.done:
			// The processes are gone from /proc: their user time is in the
			// command's rusage (with every child it reaped).
			now := s.ps.orRead(s.cg, readEnd)
			if st := s.run.cmd.ProcessState; st != nil {
				now.progress = st.UserTime().Seconds()
				now.sys = st.SystemTime().Seconds()
			}
			now.delay = s.prev.delay
			now.delays = s.prev.delays
			finish(now, true)
			s.dropShort()
			return s.result(&s.slices[len(s.slices)-1]), measure.ErrEnded
		case <-ctx.Done():
			s.run.kill(s.ps.Host, s.cg)
			<-s.run.done
			return measure.RunResult{}, ctx.Err()
		case <-s.tick.C:
		}
		now := s.ps.orRead(s.cg, readTick)
		s.peak = max(s.peak, now.footprint)
		s.resident = now.resident
		s.threads = max(s.threads, now.threads)
		cur.Footprint = max(cur.Footprint, now.footprint)
		dt := now.at.Sub(s.prev.at).Seconds()
		faultRate := float64(now.majflt-s.prev.majflt) / math.Max(dt, 1e-3)
		s.prev = now
		if s.stopped == "" && s.zramID >= 0 && 2*s.peak+256*units.MiB > s.ps.cap {
			s.stopped = fmt.Sprintf("the command's footprint reached %s: with zram holding the swapped part in RAM it could take twice that, more than the %s memplan lets it have; the rest of the run had no limit", s.peak, s.ps.cap)
			s.notes = append(s.notes, s.stopped)
			_ = s.setLimit(s.ceiling)
		}
		// The limit goes down in steps (a write that reclaims much blocks
		// until the kernel has) and follows the footprint as it grows.
		want := s.ceiling
		if cur.Fit > 0 && s.stopped == "" {
			want = s.limitFor(cur.Fit)
			if cur.Limit > 0 && want < cur.Limit+cur.Limit/50 {
				want = cur.Limit // do not chase small growth
			}
		}
		reached := s.approach(want)
		if cur.Fit > 0 && reached {
			cur.Limit = want
		}
		if settled {
			cur.UsageMax = max(cur.UsageMax, now.usage)
			if cur.FootprintMin == 0 || now.footprint < cur.FootprintMin {
				cur.FootprintMin = now.footprint
			}
		}
		if !settled {
			p := now.progress - settleStart.progress
			w := now.at.Sub(settleStart.at).Seconds()
			done := p >= settleTarget && reached
			if cur.Fit == 0 && len(s.slices) > 1 && faultRate > oneRunSettledFaults && w < 2*target*math.Max(s.refRatio(), 1) {
				done = false // still paying back the refault debt
			}
			if cur.Fit > 0 && reached && w > oneRunKnee*4*settleTarget*math.Max(s.refRatio(), 1) {
				done = true // too slow to settle in time: count from here
			}
			if done {
				// Read after the limit's last write, which may have
				// blocked for a while: the settling part runs to here.
				begin = s.ps.orRead(s.cg, readEdge)
				cur.settle(settleStart, begin)
				settled = true
			}
			continue
		}
		p := now.progress - begin.progress
		w := now.at.Sub(begin.at).Seconds()
		if cur.Fit > 0 && !haveMid && p >= target/2 {
			mid, haveMid = s.ps.orRead(s.cg, readEdge), true
		}
		r1 := math.Max(s.refRatio(), 1e-9)
		switch {
		case cur.Payback:
			// Run without a limit until the budget allows the next fit.
			if p < target || s.overBudget(now) {
				continue
			}
		case p >= target:
		case cur.Fit > 0 && s.refRatio() > 0 && w > oneRunKnee*1.2*target*r1:
			// Far past the knee: stop the slice before it eats the budget.
		default:
			continue
		}
		end := s.ps.orRead(s.cg, readEdge)
		finish(end, false)
		if cur.Fit > 0 && cur.Progress > 0 {
			if worst, past := pastKnee(s.slices, len(s.slices)-1); past && (s.kneeFit == 0 || cur.Fit > s.kneeFit) {
				s.kneeFit = cur.Fit
				s.notes = append(s.notes, fmt.Sprintf("one run: at fit %g a slice ran %.1fx slower than without a limit by user time, past the knee (%gx): lower fits were not stepped to", cur.Fit, worst, oneRunKnee))
			}
		}
		s.last = end
		return s.result(cur), nil
	}
}

// rampIn reports whether the counted part from a to c, split at b, was
// still settling in its first half: a drop's reclaim can take pages the
// command uses often, and until they are back it faults far more than at
// the limit in a steady state, which a whole run at the fit never does.
// Its user time does not show it (on some hosts the fault path is charged
// as user time), its major-fault rate does.
func rampIn(a, b, c orSample) bool {
	w1, w2 := b.at.Sub(a.at).Seconds(), c.at.Sub(b.at).Seconds()
	if w1 <= 0 || w2 <= 0 {
		return false
	}
	f1 := float64(b.majflt-a.majflt) / w1
	f2 := float64(c.majflt-b.majflt) / w2
	return f1 > oneRunSettledFaults && f1 > oneRunRamp*f2
}

// dropShort drops a last slice too short to count (the command ended in
// it) and the slices with no counted progress.
func (s *stepper) dropShort() {
	out := s.slices[:0]
	for i, sl := range s.slices {
		min := 0.3 * oneRunMinSlice.Seconds()
		if i < len(s.slices)-1 {
			min = 0.01
		}
		if sl.Progress < min {
			sl.Wall, sl.Progress, sl.MajFlt, sl.SwapIn, sl.SwapOut = 0, 0, 0, 0, 0
		}
		out = append(out, sl)
	}
	s.slices = out
}

// oneRunEstimate is the report with the points formed for the phase.
type oneRunEstimate struct {
	OneRunReport
	points    []Point
	refSlices int
}

// estimateOneRun forms the points: per cycle, the wall per progress at
// each slice's limit over the final footprint, interpolated at the nominal
// fits (and the reference's above the cycle's own footprint); weighted by
// the cycles' progress; a 95% band from resampling the cycles.
// bracketRef is the wall time per progress of the reference slices next
// to slice i: interpolated in time between the last one before it and the
// first one after it, or the one there is.
func bracketRef(slices []OneRunSlice, i int) float64 {
	return bracketOn(slices, i, (*OneRunSlice).ratio, 1)
}

// bracketOn is f of the reference slices next to slice i, interpolated
// in time as bracketRef's, or def where there is none.
func bracketOn(slices []OneRunSlice, i int, f func(*OneRunSlice) float64, def float64) float64 {
	var before, after *OneRunSlice
	for j := i - 1; j >= 0 && before == nil; j-- {
		if slices[j].Fit == 0 && slices[j].Progress > 0 {
			before = &slices[j]
		}
	}
	for j := i + 1; j < len(slices) && after == nil; j++ {
		if slices[j].Fit == 0 && slices[j].Progress > 0 {
			after = &slices[j]
		}
	}
	switch {
	case before != nil && after != nil:
		t0, t1, t := before.Start, after.Start, slices[i].Start
		if t1 <= t0 {
			return f(before)
		}
		w := (t - t0) / (t1 - t0)
		return (1-w)*f(before) + w*f(after)
	case before != nil:
		return f(before)
	case after != nil:
		return f(after)
	}
	return def
}

// sysRate is a slice's system time per second of user time.
func (s *OneRunSlice) sysRate() float64 {
	if s.Progress <= 0 {
		return 0
	}
	return s.Sys / s.Progress
}

// pressureSys is the part of sys seconds of system time, over u seconds
// of user time, that a memory limit caused: what is beyond rate (the
// references' system time per user second around it), and at most
// oneRunSysPerPage for each of the events pages faulted in or written
// out. A command's own kernel work (allocating, reading its input) is no
// limit's: where the host leaks kernel time into user time it leaks alike
// in RAM, and taking it off read a synthesis job's allocation phase at
// 1.3x and worse with no major fault, and at 2.05x with one (0.66 s of
// system time in the slice).
func pressureSys(u, sys, rate float64, events int64) float64 {
	return math.Min(math.Max(sys-rate*u, 0), float64(events)*oneRunSysPerPage.Seconds())
}

// clock is a reading of the progress clock: user time less the user
// time the host's accounting charged for kernel work. Where a share Leak
// of kernel time is reported as user time, the kernel's time was the
// system time over 1-Leak, and Leak/(1-Leak) of the system time is to be
// taken off the user time (accountingLeak measures Leak).
type clock struct {
	Leak float64
}

// progress is user seconds u, with sys seconds of system time, read on
// c; never below a twentieth of u.
func (c clock) progress(u, sys float64) float64 {
	if u <= 0 || c.Leak <= 0 || c.Leak >= 1 {
		return u
	}
	return math.Max(u-c.Leak/(1-c.Leak)*sys, 0.05*u)
}

// withClock is the slices with their progress read on c, the leak taken
// off the system time the limit caused (pressureSys). A constrained
// slice's settling part always had the drop's reclaim.
func withClock(slices []OneRunSlice, c clock) []OneRunSlice {
	out := append([]OneRunSlice(nil), slices...)
	if c == (clock{}) {
		return out
	}
	for i := range out {
		sl := &out[i]
		rate := bracketOn(slices, i, (*OneRunSlice).sysRate, 0)
		sl.Progress = c.progress(sl.Progress, pressureSys(sl.Progress, sl.Sys, rate, sl.MajFlt+sl.SwapOut))
		// A constrained slice's settling part always had the drop's
		// reclaim, which its counters do not hold.
		set := sl.SetFlt
		if sl.Fit > 0 {
			set = math.MaxInt32
		}
		sl.SetProg = c.progress(sl.SetProg, pressureSys(sl.SetProg, sl.SetSys, rate, set))
	}
	return out
}

// estimateOneRun estimates the points with the progress read on
// clocks[0]; the band spans the resampled cycles and the estimates on
// the other clocks.
func estimateOneRun(slices []OneRunSlice, fits []float64, peak units.Bytes, budget, kneeFit float64, clocks []clock, rnd *rand.Rand) oneRunEstimate {
	est := oneRunEstimate{OneRunReport: OneRunReport{Budget: budget, Knee: oneRunKnee, KneeFit: kneeFit, Slices: slices, Footprint: peak,
		ProgressClock: "user CPU time of the processes in the run's cgroup and their reaped children (/proc/PID/stat utime + cutime)"}}
	var alt []oneRunEstimate
	if len(clocks) > 1 {
		for _, c := range clocks[1:] {
			alt = append(alt, estimateOneRun(slices, fits, peak, budget, kneeFit, []clock{c}, nil))
		}
	}
	if len(clocks) > 0 {
		slices = withClock(slices, clocks[0])
	}
	type cyc struct {
		progress float64 // everything the command did in the cycle
		refW     float64
		refP     float64
		foot     units.Bytes
		g, r     []float64 // limit/peak and wall/progress of the fit slices
		fault    []float64 // major faults, swap-ins and -outs per progress
		swin     []float64
		swout    []float64
	}
	var cycles []*cyc
	byCycle := map[int]*cyc{}
	var settleW, settleP, countW, countP float64
	var totalWall, totalProg, inRAM, settleInRAM, refW, refP float64
	// The run-up, the slices without a limit before the one that precedes
	// the first limit (while the command was still allocating), measured
	// no fit: its progress does not weigh the first cycle's readings (a
	// first drop that evicts the whole cold set at once would weigh as
	// much as the run-up lasted). The reference just before the first
	// limit weighs as every cycle's own does.
	runUp := 0
	for runUp < len(slices) && slices[runUp].Fit == 0 {
		runUp++
	}
	runUp--
	for i := range slices {
		sl := &slices[i]
		c := byCycle[sl.Cycle]
		if c == nil {
			c = &cyc{}
			byCycle[sl.Cycle] = c
			cycles = append(cycles, c)
		}
		if i >= runUp && i != runUp+1 {
			c.progress += sl.Progress + sl.SetProg
		}
		totalWall += sl.Wall + sl.SetWall
		totalProg += sl.Progress + sl.SetProg
		// Its progress at the pace of the references around it.
		inRAM += (sl.Progress + sl.SetProg) * bracketRef(slices, i)
		if sl.Fit > 0 {
			settleInRAM += sl.SetProg * bracketRef(slices, i)
		}
		c.foot = max(c.foot, sl.Footprint)
		if sl.Progress <= 0 {
			continue
		}
		if sl.Fit == 0 {
			c.refW += sl.Wall
			c.refP += sl.Progress
			refW += sl.Wall
			refP += sl.Progress
			est.refSlices++
			continue
		}
		if sl.Limit <= 0 || peak <= 0 {
			continue
		}
		if i == runUp+1 {
			// The first drop evicts the whole cold set at once, a cost a
			// whole run pays once spread over its length: read here, it
			// would stand for its cycle's share of the run (3-4x where
			// later cycles read 1.0-1.4 at the same fit, on a job that
			// counts its own steps). It neither reads nor weighs; its
			// time still counts in the cost.
			continue
		}
		c.g = append(c.g, float64(sl.Limit)/float64(peak))
		// Against the reference slices next to it in time (a phase that
		// is slow in RAM too is not swapping).
		c.r = append(c.r, sl.ratio()/bracketRef(slices, i))
		c.fault = append(c.fault, float64(sl.MajFlt)/sl.Progress)
		c.swin = append(c.swin, float64(sl.SwapIn)/sl.Progress)
		c.swout = append(c.swout, float64(sl.SwapOut)/sl.Progress)
		if sl.SetProg > 0 {
			settleW += sl.SetWall
			settleP += sl.SetProg
			countW += sl.Wall
			countP += sl.Progress
		}
	}
	if settleP > 0 && countP > 0 && countW > 0 {
		est.SettleRatio = measure.Round4((settleW / settleP) / (countW / countP))
	}
	if refP <= 0 {
		return est
	}
	r1 := refW / refP
	est.InRAM = measure.Round4(inRAM)
	if est.InRAM > 0 {
		est.ExtraShare = measure.Round4(totalWall/est.InRAM - 1)
	}
	est.InRAMLeast = measure.Round4(inRAM - settleInRAM)
	if est.InRAMLeast > 0 {
		est.ExtraMost = measure.Round4(totalWall/est.InRAMLeast - 1)
	}
	est.Cycles = len(cycles)
	// at interpolates cycle c's series ys at fit f; ok is false when f is
	// below the lowest limit the cycle reached.
	at := func(c *cyc, ys []float64, inRAM float64, f float64) (float64, bool) {
		free := float64(c.foot) / float64(peak)
		if f >= free || len(c.g) == 0 && f >= free {
			return inRAM, true
		}
		type pt struct{ g, y float64 }
		pts := []pt{{free, inRAM}}
		for i := range c.g {
			if c.g[i] < free {
				pts = append(pts, pt{c.g[i], ys[i]})
			}
		}
		sort.Slice(pts, func(a, b int) bool { return pts[a].g > pts[b].g })
		for i := 1; i < len(pts); i++ {
			if f >= pts[i].g {
				a, b := pts[i-1], pts[i]
				if a.g == b.g {
					return b.y, true
				}
				return b.y + (a.y-b.y)*(f-b.g)/(a.g-b.g), true
			}
		}
		return pts[len(pts)-1].y, false
	}
	refOf := func(c *cyc) float64 {
		if c.refP > 0 {
			return c.refW / c.refP
		}
		return r1
	}
	// slowdown is the run's slowdown at f over the cycles with weights w
	// (resampling counts), and the progress share extrapolated.
	slowdown := func(f float64, w []int) (s, extrap float64) {
		var num, den, ex, all float64
		for i, c := range cycles {
			if w[i] == 0 || c.progress <= 0 {
				continue
			}
			k := float64(w[i]) * c.progress
			ref := refOf(c)
			y, ok := at(c, c.r, 1, f)
			num += k * ref * y
			den += k * ref
			all += k
			if !ok {
				ex += k
			}
		}
		if den <= 0 {
			return 0, 0
		}
		return num / den, ex / all
	}
	ones := make([]int, len(cycles))
	for i := range ones {
		ones[i] = 1
	}
	// The in-RAM noise between reference slices widens a band resampling
	// alone would make too narrow with few cycles.
	var refRatios []float64
	for _, c := range cycles {
		if c.refP > 0 {
			refRatios = append(refRatios, c.refW/c.refP)
		}
	}
	cv := 0.0
	if s := measure.Summarize(refRatios); s.N >= 2 && s.Mean > 0 {
		cv = s.SD / s.Mean / math.Sqrt(float64(s.N))
	}
	est.Extrapolated = make([]float64, len(fits))
	est.Unbound = unboundShares(slices, fits, peak)
	est.BindingUnmeasured = bindingUnmeasured(slices, fits, peak)
	est.PeakUnmeasured = peakUnmeasured(slices, fits, peak)
	var runWall float64
	for _, x := range slices {
		runWall += x.Wall + x.SetWall
	}
	for fi, f := range fits {
		pt := Point{Fit: f, Limit: limitAt(f, peak)}
		s, ex := slowdown(f, ones)
		est.Extrapolated[fi] = measure.Round4(ex)
		measured, above, below := false, math.Inf(1), math.Inf(-1)
		for _, c := range cycles {
			for _, g := range c.g {
				if math.Abs(g-f) < 0.05 {
					measured = true
				}
				if g >= f {
					above = math.Min(above, g)
				} else {
					below = math.Max(below, g)
				}
			}
		}
		// A fit between slices at most oneRunBracket apart reads
		// between them: the limits were fits of a --peak the command
		// did not reach, or of a footprint it outgrew.
		interpolated := !measured && above-below <= oneRunBracket
		if kneeFit > 0 && f < kneeFit-1e-9 || !measured && !interpolated || s <= 0 {
			why := "not measured: no slice ran near this fit"
			if kneeFit > 0 && f < kneeFit-1e-9 {
				why = fmt.Sprintf("not measured: past the knee (a slice at fit %g ran more than %gx slower than without a limit)", kneeFit, oneRunKnee)
			}
			pt.Verdict = why
			est.points = append(est.points, pt)
			continue
		}
		boot := make([]float64, 0, oneRunBootstrap)
		w := make([]int, len(cycles))
		for b := 0; rnd != nil && b < oneRunBootstrap && len(cycles) > 1; b++ {
			clear(w)
			for range cycles {
				w[rnd.IntN(len(cycles))]++
			}
			if v, _ := slowdown(f, w); v > 0 {
				boot = append(boot, v)
			}
		}
		lo, hi := s, s
		if len(boot) > 0 {
			sort.Float64s(boot)
			lo, hi = boot[int(0.025*float64(len(boot)))], boot[int(math.Min(0.975*float64(len(boot)), float64(len(boot)-1)))]
		}
		lo, hi = math.Min(lo, s*(1-2*cv)), math.Max(hi, s*(1+2*cv))
		for _, a := range alt {
			if v := a.points[fi].Slowdown.Mean; v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		var samples []float64
		for _, c := range cycles {
			if y, ok := at(c, c.r, 1, f); ok {
				samples = append(samples, measure.Round4(y))
			}
		}
		pt.Slowdown = measure.Summary{N: len(cycles), Mean: s, Trimmed: s, Lo: math.Min(math.Max(lo, 1), s), Hi: math.Max(hi, s), Min: lo, Max: hi}
		if len(samples) > 0 {
			pt.Slowdown.SD = measure.Summarize(samples).SD
		}
		pt.Samples = samples
		// Counts as a whole run at this fit would have had them.
		var fsum, in, out, wsum float64
		for _, c := range cycles {
			if c.progress <= 0 {
				continue
			}
			fv, _ := at(c, c.fault, 0, f)
			iv, _ := at(c, c.swin, 0, f)
			ov, _ := at(c, c.swout, 0, f)
			fsum += fv * c.progress
			in += iv * c.progress
			out += ov * c.progress
			wsum += c.progress
		}
		pt.MajFlt, pt.SwapIns, pt.SwapOuts = fsum, in, out
		pt.Wall = s * est.InRAM
		if pt.MajFlt > 0 && pt.Wall > est.InRAM {
			pt.FaultTime = (pt.Wall - est.InRAM) / pt.MajFlt
		}
		var notes []string
		if interpolated {
			notes = append(notes, fmt.Sprintf("no slice ran within 0.05 of this fit: interpolated between slices at fits %.2f and %.2f", below, above))
		}
		if ex > 0.1 {
			notes = append(notes, fmt.Sprintf("%.0f%% of the run's progress came in cycles whose limits did not reach this fit (the command was still growing): their slowdown there is held at the lowest they reached", 100*ex))
		}
		if u := est.Unbound[fi]; u > oneRunUnboundShare {
			notes = append(notes, fmt.Sprintf("%.0f%% of the progress measured here faulted with the limit not binding (pages a lower limit had evicted coming back): not the state of a whole run at this fit, which holds the limit's worth and reclaims a page for each fault; on a command that sweeps its memory this reads low", 100*u))
		}
		if b := est.BindingUnmeasured[fi]; b > oneRunBindingShare*runWall {
			notes = append(notes, fmt.Sprintf("for %.0fs (%.0f%% of the run) the command held more than this fit's limit and no slice at this fit ran then (the budget had lifted the limit, or the phase was shorter than a cycle): a whole run at this fit swaps there, and this figure does not include it; measure this fit with whole runs", b, 100*b/runWall))
		}
		if b := est.PeakUnmeasured[fi]; b > oneRunBindingShare*runWall {
			notes = append(notes, fmt.Sprintf("not measured at the peak: for %.0fs (%.0f%% of the run) the command held its peak (within %.0f%% of %s) and more than this fit's limit, and no slice at this fit ran wholly then: a whole run at this fit swaps most there, and this figure may leave it out; measure this fit with whole runs", b, 100*b/runWall, 100*oneRunNearPeak, peak))
		}
		pt.Verdict = strings.Join(notes, "; ")
		est.points = append(est.points, pt)
	}
	widenForBinding(est.points, est.BindingUnmeasured, runWall)
	return est
}

// widenForBinding raises the band's upper end of each measured fit whose
// limit bound, unmeasured, for more than oneRunBindingShare of the run's
// wall time (binding, per fit): a whole run at the fit swaps through
// that part, so the upper end counts its share of the run at the highest
// slowdown measured at this fit or a lower one. The central figure stays
// what the slices measured; the verdict already says the fit wants whole
// runs.
func widenForBinding(pts []Point, binding []float64, runWall float64) {
	if runWall <= 0 {
		return
	}
	for i := range pts {
		p := &pts[i]
		if i >= len(binding) || binding[i] <= oneRunBindingShare*runWall || p.Slowdown.N == 0 {
			continue
		}
		worst := p.Slowdown.Mean
		for _, q := range pts {
			if q.Fit <= p.Fit && q.Slowdown.N > 0 {
				worst = math.Max(worst, q.Slowdown.Mean)
			}
		}
		share := math.Min(binding[i]/runWall, 1)
		hi := (1-share)*p.Slowdown.Mean + share*worst
		if hi > p.Slowdown.Hi {
			p.Slowdown.Hi, p.Slowdown.Max = measure.Round4(hi), math.Max(p.Slowdown.Max, measure.Round4(hi))
			p.Verdict += fmt.Sprintf("; the band's upper end counts those %.0f%% of the run at %.2f, the highest slowdown measured at this fit or below", 100*share, worst)
		}
	}
}

// unboundShares is per fit the share of the progress of the slices that
// ran near it (the first drop's excepted, as in the estimate) that was in
// unbound slices.
func unboundShares(sl []OneRunSlice, fits []float64, peak units.Bytes) []float64 {
	out := make([]float64, len(fits))
	if peak <= 0 {
		return out
	}
	first := slices.IndexFunc(sl, func(s OneRunSlice) bool { return s.Fit > 0 }) // neither reads nor weighs
	for fi, f := range fits {
		var all, un float64
		for i := range sl {
			x := &sl[i]
			if i == first || x.Fit == 0 || x.Limit <= 0 || x.Progress <= 0 {
				continue
			}
			if math.Abs(float64(x.Limit)/float64(peak)-f) >= 0.05 {
				continue
			}
			all += x.Progress
			if x.unbound() {
				un += x.Progress
			}
		}
		if all > 0 {
			out[fi] = measure.Round4(un / all)
		}
	}
	return out
}

// bindingUnmeasured is per fit the wall time of the slices in which the
// command held more than the fit's limit (its footprint, resident plus
// swapped), when not one slice at the fit (within 0.05) ran while it did:
// a phase that is brief (a synthesis tool's peak) or that the budget ran
// without a limit is where a whole run at the fit pays, and the fit's
// figure then comes from the rest of the run.
func bindingUnmeasured(sl []OneRunSlice, fits []float64, peak units.Bytes) []float64 {
	return unmeasuredWhile(sl, fits, peak,
		func(x *OneRunSlice, lim units.Bytes) bool { return x.Footprint > lim },
		func(x *OneRunSlice, f float64) bool { return x.Fit > 0 && math.Abs(x.Fit-f) < 0.05 })
}

// peakUnmeasured is per fit the wall time of the slices that reached the
// command's final peak (within oneRunNearPeak) holding more than the
// fit's limit, when no slice at the fit ran wholly at the peak
// (ranAtPeak): a slice that ran while the command grew to its peak or
// shrank from it saw a part of it (bindingUnmeasured counts such a slice
// as measured). On yosys on a swap file, fits 0.6 and 0.45 read
// 1.00-1.07 where whole runs took 1.37-1.78 in 14 points of nine one
// runs; this flags 13 of them, bindingUnmeasured 3 (it also flags fits
// that read within 7% of their whole runs: it says what was not seen,
// not that the figure is wrong; bench/results/onerun-peak-2026-12-06.md).
func peakUnmeasured(sl []OneRunSlice, fits []float64, peak units.Bytes) []float64 {
	return unmeasuredWhile(sl, fits, peak,
		func(x *OneRunSlice, lim units.Bytes) bool { return x.Footprint > lim && nearPeak(x.Footprint, peak) },
		func(x *OneRunSlice, f float64) bool { return x.ranAtPeak(f, peak) })
}

// unmeasuredWhile is per fit the wall time of the slices in a state
// (held, given the fit's limit at peak), when no slice saw the fit in it
// (saw); 0 where one did.
func unmeasuredWhile(sl []OneRunSlice, fits []float64, peak units.Bytes, held func(x *OneRunSlice, lim units.Bytes) bool, saw func(x *OneRunSlice, f float64) bool) []float64 {
	out := make([]float64, len(fits))
	if peak <= 0 {
		return out
	}
	for fi, f := range fits {
		lim := limitAt(f, peak)
		var at float64
		measured := false
		for i := range sl {
			x := &sl[i]
			if !held(x, lim) {
				continue
			}
			at += x.Wall + x.SetWall
			measured = measured || saw(x, f)
		}
		if !measured {
			out[fi] = measure.Round4(at)
		}
	}
	return out
}

// oneRunExtraNote says what the run cost against the budget, and whether
// it kept it. The budget is judged before each constrained slice, by what
// slices at that fit cost before; a slice that settles slower than those
// (a low fit's reclaim on a slow device) is paid before the next
// judgement, so the run can end past the budget by about a slice.
func oneRunExtraNote(r *OneRunReport) string {
	kept := "kept by the latter"
	if over := r.ExtraMost - r.Budget; over > 0.005 {
		kept = fmt.Sprintf("the latter over it by %.0f points: a limit step that settled slower than the earlier ones at its fit was paid before the budget could stop it", 100*over)
	}
	return fmt.Sprintf("one run: %.1fs of wall time against an estimated %.1fs without a limit: %+.0f%%, at most %+.0f%% if nothing progressed while a limit settled (budget %.0f%%, %s); %d cycles; transitions: the settling part of each constrained slice ran at %.2fx the counted part's wall time per progress and is not counted",
		r.Wall, r.InRAM, 100*r.ExtraShare, 100*r.ExtraMost, 100*r.Budget, kept, r.Cycles, r.SettleRatio)
}
