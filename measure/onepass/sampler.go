//go:build linux

package onepass

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"time"
)

// Config says what to sample and how much of the host's time sampling may
// take.
type Config struct {
	// Procs is the cgroup.procs file of the job's cgroup (v1 or v2). The
	// sampler only reads it; cgroups below it are followed too.
	Procs string
	// Windows is the ladder of window lengths, shortest first
	// (DefaultLadder when empty).
	Windows []time.Duration
	// Duty is the share of wall time the sampler may spend clearing and
	// reading (DefaultDuty when 0). The wait inside a window is free.
	Duty float64
	// PerMappingMax: a process with more mappings than this is read from
	// smaps_rollup instead of per-mapping smaps (DefaultPerMappingMax when 0).
	PerMappingMax int
	// StopWhenEmpty ends Run once the cgroup has had processes and has
	// none left.
	StopWhenEmpty bool
	// Proc is the proc file system ("/proc" when empty).
	Proc string
	// ReTouch is what one cleared page costs the job when it touches it
	// again (0: calibrated by New).
	ReTouch time.Duration
	// Trace, when set, is called with every read as it is made (for
	// diagnosis: the aggregates keep no per-read record). It runs on the
	// sampler's goroutine and its time counts in the duty cycle.
	Trace func(Read)
}

// Read is one window read, as Config.Trace sees it: bytes summed over the
// job's processes.
type Read struct {
	Sweep int `json:"sweep"`
	Rung  int `json:"rung"`
	// Start is when the window's clear was made, since Run started (s);
	// Window the window's length (s).
	Start   float64 `json:"start_s"`
	Window  float64 `json:"window_s"`
	Ref     int64   `json:"referenced"`
	RefAnon int64   `json:"referenced_anon"`
	New     int64   `json:"new"`
	Rss     int64   `json:"rss"`
	// StartRss is the job's resident size at the window's clear.
	StartRss int64 `json:"start_rss"`
}

// Defaults.
const (
	// DefaultDuty keeps the sampler's own work to 2% of the wall time, half
	// of the 5% overhead the issue allows: the page-table walks also cost
	// the job TLB refills and mmap-lock waits that the sampler cannot time.
	DefaultDuty          = 0.02
	DefaultPerMappingMax = 2000
	// DefaultReTouch is what a cleared page costs the job when touched
	// again, where calibration fails.
	DefaultReTouch = time.Microsecond
)

// SweepCover is the share of the job's resident size a sweep's pages
// referenced must reach before a new sweep may start: the largest fit
// ratio a profile asks about (0.9) and a little more.
const SweepCover = 0.95

// DefaultLadder is the window ladder: 0.1 s by factors of sqrt(2) up to
// 25.6 s (17 rungs). The finer the ladder, the narrower the band from its
// discretisation; the aggregates stay 17 fixed-size records.
var DefaultLadder = Ladder(100*time.Millisecond, 30*time.Second, math.Sqrt2)

// Ladder is the geometric ladder from lo, by factor, up to hi.
func Ladder(lo, hi time.Duration, factor float64) []time.Duration {
	var out []time.Duration
	for w := float64(lo); w <= float64(hi)*(1+1e-9); w *= factor {
		out = append(out, time.Duration(w))
	}
	return out
}

// Moments are a streaming mean and variance (Welford) with the extremes:
// fixed size however many samples go in.
type Moments struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	M2   float64 `json:"m2"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// Add puts x in.
func (m *Moments) Add(x float64) {
	m.N++
	if m.N == 1 {
		m.Min, m.Max = x, x
	}
	m.Min, m.Max = math.Min(m.Min, x), math.Max(m.Max, x)
	d := x - m.Mean
	m.Mean += d / float64(m.N)
	m.M2 += d * (x - m.Mean)
}

// SD is the sample standard deviation (0 below two samples).
func (m Moments) SD() float64 {
	if m.N < 2 {
		return 0
	}
	return math.Sqrt(m.M2 / float64(m.N-1))
}

// SE is the standard error of the mean.
func (m Moments) SE() float64 {
	if m.N < 2 {
		return 0
	}
	return m.SD() / math.Sqrt(float64(m.N))
}

// Rung aggregates every window of one length, in bytes summed over the
// job's processes.
type Rung struct {
	Window time.Duration `json:"window"`
	// Actual is the window really observed (s): from the middle of the
	// clearing to the middle of the read.
	Actual Moments `json:"actual_s"`
	// Ref: pages referenced during the window; RefAnon and RefFile split it.
	Ref     Moments `json:"referenced"`
	RefAnon Moments `json:"referenced_anon"`
	RefFile Moments `json:"referenced_file"`
	// New: resident growth during the window (pages allocated in it, which
	// were referenced but never needed back), per process, positive part.
	New Moments `json:"new"`
	// Reuse is Ref - New per window: the pages the job came back to.
	Reuse Moments `json:"reuse"`
	// Rss is the job's resident size at the window's end.
	Rss Moments `json:"rss"`
}

// Samples is what a sampler gathered: fixed-size aggregates per window
// length, however long the job ran.
type Samples struct {
	Method string `json:"method"`
	// Split says how referenced pages were split into anonymous and
	// file-backed: per-mapping smaps, smaps_rollup proportion, or both.
	Split   string        `json:"split"`
	DAMON   DAMON         `json:"damon"`
	Procs   string        `json:"cgroup_procs"`
	Started time.Time     `json:"started"`
	Elapsed time.Duration `json:"elapsed"`
	Rungs   []Rung        `json:"rungs"`
	Windows int           `json:"windows"` // reads made
	Sweeps  int           `json:"sweeps"`  // clearings
	Skipped int           `json:"skipped"` // reads left out to keep the duty cycle
	// Restarts counts sweeps ended early because the job had more than
	// doubled its resident size since their clear.
	Restarts int `json:"restarts"`
	// Processes counts processes seen (a pid absent from the sample before
	// counts again); MaxProcesses the most at once.
	Processes    int   `json:"processes"`
	MaxProcesses int   `json:"max_processes"`
	PeakRss      int64 `json:"peak_rss"`
	PeakAnon     int64 `json:"peak_anon"`
	// Cost is the wall time of one read of every process, ClearCost of one
	// clearing, seconds; CostShare the share of the elapsed time spent on
	// both.
	Cost      Moments `json:"read_cost_s"`
	ClearCost Moments `json:"clear_cost_s"`
	// ClearCharge is what a clear was charged: its time plus ReTouch (s
	// per page, ReTouchSource says how it was found) per resident page.
	ClearCharge   Moments `json:"clear_charge_s"`
	ReTouch       float64 `json:"retouch_s_per_page"`
	ReTouchSource string  `json:"retouch_source"`
	CostShare     float64 `json:"cost_share"`
	Duty          float64 `json:"duty"`
	// Grid is the rates of pages needed back, sweep by sweep, averaged
	// over the run (grid.go): what the predictions are made from. Nil in
	// samples from before it was kept; the mean ladder of Rungs is used
	// then.
	Grid *RateGrid `json:"grid,omitempty"`
	// Errors counts reads that failed for another reason than the process
	// having exited; LastError is the latest.
	Errors    int    `json:"errors,omitempty"`
	LastError string `json:"last_error,omitempty"`
}

// Sampler follows every process of a cgroup and samples the pages each
// references over windows of the ladder's lengths. It runs in the caller's
// process: nothing of it is in the job's cgroup.
type Sampler struct {
	cfg Config
	r   *procReader

	mu  sync.Mutex
	out Samples

	perMap    map[int]bool  // pid -> read per mapping
	startRss  map[int]int64 // resident bytes at the window's start
	prevPIDs  map[int]bool
	pids      []int
	pageBytes int64
	splitSeen [2]bool
	reTouch   time.Duration
	runStart  time.Time
	cur       sweep
}

// New checks the configuration and the cgroup.
func New(cfg Config) (*Sampler, error) {
	if cfg.Procs == "" {
		return nil, errors.New("onepass: Config.Procs: the job cgroup's cgroup.procs file is needed")
	}
	if _, err := os.Stat(cfg.Procs); err != nil {
		return nil, fmt.Errorf("onepass: %s: %w; pass the cgroup.procs of the job's cgroup (create the cgroup first)", cfg.Procs, err)
	}
	if len(cfg.Windows) == 0 {
		cfg.Windows = DefaultLadder
	}
	for i, w := range cfg.Windows {
		if w <= 0 || (i > 0 && w <= cfg.Windows[i-1]) {
			return nil, fmt.Errorf("onepass: Config.Windows[%d] = %v: expected window lengths above 0, shortest first", i, w)
		}
	}
	if cfg.Duty == 0 {
		cfg.Duty = DefaultDuty
	}
	if !(cfg.Duty > 0 && cfg.Duty < 1) {
		return nil, fmt.Errorf("onepass: Config.Duty = %g: expected a share of wall time between 0 and 1, e.g. 0.02", cfg.Duty)
	}
	if cfg.PerMappingMax == 0 {
		cfg.PerMappingMax = DefaultPerMappingMax
	}
	if cfg.Proc == "" {
		cfg.Proc = "/proc"
	}
	s := &Sampler{cfg: cfg, r: newProcReader(cfg.Proc), perMap: map[int]bool{}, startRss: map[int]int64{},
		prevPIDs: map[int]bool{}, pageBytes: int64(os.Getpagesize())}
	s.out = Samples{Method: MethodAccessedBits, DAMON: DetectDAMON(), Procs: cfg.Procs, Duty: cfg.Duty, Grid: newRateGrid()}
	s.cur = sweep{pageSize: s.pageBytes, tau: make([]float64, 0, len(cfg.Windows)),
		x: make([]float64, 0, len(cfg.Windows)), w: make([]float64, 0, len(cfg.Windows))}
	s.reTouch, s.out.ReTouchSource = cfg.ReTouch, "given"
	if s.reTouch == 0 {
		s.reTouch, s.out.ReTouchSource = calibrateReTouch(cfg.Proc)
	}
	s.out.ReTouch = s.reTouch.Seconds()
	for _, w := range cfg.Windows {
		s.out.Rungs = append(s.out.Rungs, Rung{Window: w})
	}
	return s, nil
}

// Run samples until ctx ends (or, with StopWhenEmpty, the cgroup empties).
//
// It samples in sweeps: one clear_refs of every process, then a read of
// every process's referenced pages at each window length of the ladder in
// turn. Reading does not reset the accessed bits, so one clear serves all
// the rungs of a sweep. A sweep the job's end cuts short keeps the reads
// it made.
//
// The duty cycle counts what sampling costs the job, not only the
// sampler's own time. A clear costs the job far more than the sampler: every
// page it touches afterwards takes a page walk to set its accessed bit
// again (under a hypervisor, a nested one). Run charges a clear its own
// time plus ReTouch (calibrated at New) times the job's resident pages; a
// read its own time. The charges so far must stay within Duty of the time
// elapsed since Run started: a read that does not fit is skipped
// (Samples.Skipped), and a new sweep starts as soon as its clear fits, so
// sweeps of a small job are short and many (window starts spread over the
// run), and those of a large one long and few.
func (s *Sampler) Run(ctx context.Context) error {
	start := time.Now()
	s.mu.Lock()
	s.out.Started = start
	s.runStart = start
	s.mu.Unlock()
	var cost time.Duration
	defer func() {
		s.fold(time.Now())
		s.mu.Lock()
		s.out.Elapsed = time.Since(start)
		if s.out.Elapsed > 0 {
			s.out.CostShare = cost.Seconds() / s.out.Elapsed.Seconds()
		}
		s.mu.Unlock()
	}()
	// affordable: whether spending next now keeps cost within Duty.
	affordable := func(next time.Duration) bool {
		return float64(cost+next) <= s.cfg.Duty*float64(time.Since(start))
	}
	var clearEst, readEst time.Duration
	seen := false
	for {
		if ctx.Err() != nil {
			return nil
		}
		t0 := time.Now()
		pids, err := cgroupPIDs(s.cfg.Procs, s.pids[:0])
		s.pids = pids
		if err != nil {
			if seen && s.cfg.StopWhenEmpty && gone(err) {
				return nil
			}
			return fmt.Errorf("onepass: reading the job's processes: %w", err)
		}
		resident := s.resident(pids)
		charge := clearEst + time.Duration(float64(resident)/float64(s.pageBytes)*float64(s.reTouch))
		if len(pids) == 0 || !affordable(charge+readEst) {
			if len(pids) == 0 && seen && s.cfg.StopWhenEmpty {
				return nil
			}
			if !sleep(ctx, 20*time.Millisecond) {
				return nil
			}
			continue
		}
		seen = true
		s.fold(t0)
		clear(s.startRss)
		for _, pid := range pids {
			if err := s.r.clearRefs(pid); err != nil {
				s.note(err)
				continue
			}
			if pages, err := s.r.statmResident(pid); err == nil {
				s.startRss[pid] = pages * s.pageBytes
			}
		}
		clearEst = time.Since(t0)
		charge = clearEst + time.Duration(float64(resident)/float64(s.pageBytes)*float64(s.reTouch))
		cost += charge
		mid0 := t0.Add(clearEst / 2)
		s.cur.reset(mid0, float64(resident))
		s.mu.Lock()
		s.out.Sweeps++
		s.out.ClearCost.Add(clearEst.Seconds())
		s.out.ClearCharge.Add(charge.Seconds())
		s.mu.Unlock()
		for k, w := range s.cfg.Windows {
			if !sleep(ctx, time.Until(mid0.Add(w))) {
				return nil
			}
			// A sweep that started when the job held less than half of
			// what it holds now sees mostly pages allocated since: its
			// reads would spend the budget on new pages. Restart instead.
			now := s.resident(s.pids)
			if now > 2*resident && now > 16<<20 {
				s.mu.Lock()
				s.out.Restarts++
				s.mu.Unlock()
				break
			}
			if !affordable(readEst) {
				s.mu.Lock()
				s.out.Skipped++
				s.mu.Unlock()
			} else {
				t1 := time.Now()
				got := s.endWindow(k, mid0)
				readEst = time.Since(t1)
				cost += readEst
				if got {
					s.mu.Lock()
					s.out.Cost.Add(readEst.Seconds())
					s.mu.Unlock()
				}
			}
			// Start over once this sweep has referenced SweepCover of what
			// the job holds, and the next clear is affordable: its ladder
			// then spans every memory size a fit ratio up to SweepCover
			// asks about, and a new start sees pages the job allocated
			// since this one. A sweep restarted earlier leaves the larger
			// sizes beyond its longest window, where it tells only a bound
			// (most of sort's sweeps did, restarted after 0.3 s).
			next := clearEst + time.Duration(float64(now)/float64(s.pageBytes)*float64(s.reTouch))
			covered := len(s.cur.x) > 0 && s.cur.x[len(s.cur.x)-1] >= SweepCover*float64(now)
			// A sweep whose working set stopped growing (its last read
			// referenced at most FlatGrowth, 2%, more than the one before) has seen
			// what its windows show: the dictionary workload looks up in
			// 85-95% of what it holds, so waiting for SweepCover kept one
			// sweep, started while it built its table, for the whole run.
			// Never before the fourth rung, though: a clear costs as much
			// as a read, and the shortest windows are the ones a sweep is
			// most often read at.
			if n := len(s.cur.x); n >= 2 && s.cur.x[n-1] <= (1+FlatGrowth)*s.cur.x[n-2] {
				covered = true
			}
			covered = covered && time.Since(mid0) >= s.cfg.Windows[min(3, len(s.cfg.Windows)-1)]
			if k+1 < len(s.cfg.Windows) && covered && affordable(next+2*readEst) {
				break
			}
		}
	}
}

// fold turns the current sweep's reads into rates and adds them to the
// grid, weighted by the time from the sweep's clear to end (the next
// clear, or the run's end). A sweep without a read adds nothing: its time
// is left out of the average.
func (s *Sampler) fold(end time.Time) {
	if s.cur.readsSoFar == 0 {
		return
	}
	m := s.cur.curve()
	s.mu.Lock()
	s.out.Grid.Add(m, end.Sub(s.cur.start).Seconds())
	s.mu.Unlock()
	s.cur.readsSoFar = 0
}

// resident is the job's resident bytes from statm (cheap).
func (s *Sampler) resident(pids []int) int64 {
	var n int64
	for _, pid := range pids {
		if pages, err := s.r.statmResident(pid); err == nil {
			n += pages * s.pageBytes
		}
	}
	return n
}

// calibrateReTouch times what a clear costs a process that then touches
// its pages: one write per page of a 32 MiB buffer of this process after
// a clear_refs of this process, against the same writes without. It is the
// per-page cost Run charges each clear (DefaultReTouch when it cannot be
// measured, e.g. without /proc/self/clear_refs).
func calibrateReTouch(proc string) (time.Duration, string) {
	const size = 32 << 20
	buf := make([]byte, size)
	ps := os.Getpagesize()
	touch := func() time.Duration {
		t := time.Now()
		for i := 0; i < size; i += ps {
			buf[i]++
		}
		return time.Since(t)
	}
	touch()
	r := newProcReader(proc)
	var best time.Duration = -1
	for rep := 0; rep < 3; rep++ {
		plain := touch()
		if err := r.clearRefs(os.Getpid()); err != nil {
			return DefaultReTouch, "default (clear_refs of the sampler itself failed: " + err.Error() + ")"
		}
		after := touch()
		if d := after - plain; best < 0 || d < best {
			best = d
		}
	}
	per := time.Duration(float64(max(best, 0)) / float64(size/ps))
	// Timer resolution and a quiet cache can make the difference vanish;
	// never charge less than the default's tenth.
	return max(per, DefaultReTouch/10), "calibrated: 32 MiB written after a clear_refs of the sampler, against without"
}

// endWindow reads every process's referenced pages and adds the window
// (started at mid0, the middle of the sweep's clearing) to rung k.
func (s *Sampler) endWindow(k int, mid0 time.Time) bool {
	t1 := time.Now()
	pids, err := cgroupPIDs(s.cfg.Procs, s.pids[:0])
	s.pids = pids
	if err != nil {
		s.note(err)
		return false
	}
	var tot usage
	var newBytes int64
	now := map[int]bool{}
	fresh := 0
	for _, pid := range pids {
		pm, ok := s.perMap[pid]
		if !ok {
			pm = true
		}
		u, err := s.r.readSmaps(pid, pm)
		if err != nil {
			s.note(err)
			continue
		}
		if pm && u.Mappings > s.cfg.PerMappingMax {
			s.perMap[pid] = false
		} else if !ok {
			s.perMap[pid] = pm
		}
		s.splitSeen[map[bool]int{true: 0, false: 1}[pm]] = true
		now[pid] = true
		if !s.prevPIDs[pid] {
			fresh++
		}
		tot.Rss += u.Rss
		tot.Anon += u.Anon
		tot.Ref += u.Ref
		tot.RefAnon += u.RefAnon
		tot.RefFile += u.RefFile
		// A process born during the window allocated all it holds in it
		// (a forked child's copy-on-write pages count too: an overcount).
		before, had := s.startRss[pid]
		newBytes += max(0, u.Rss-before*boolInt(had))
	}
	for pid := range s.perMap {
		if !now[pid] {
			delete(s.perMap, pid)
		}
	}
	s.prevPIDs = now
	if len(now) == 0 {
		return false
	}
	// The window each process saw runs from its clearing to its read: the
	// middles of both passes stand for all.
	actual := time.Now().Sub(t1)/2 + t1.Sub(mid0)
	if s.cfg.Trace != nil {
		var startRss int64
		for _, v := range s.startRss {
			startRss += v
		}
		s.cfg.Trace(Read{Sweep: s.out.Sweeps, Rung: k, Start: mid0.Sub(s.runStart).Seconds(), Window: actual.Seconds(),
			Ref: tot.Ref, RefAnon: tot.RefAnon, New: newBytes, Rss: tot.Rss, StartRss: startRss})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := &s.out
	r := &o.Rungs[k]
	r.Actual.Add(actual.Seconds())
	r.Ref.Add(float64(tot.Ref))
	r.RefAnon.Add(float64(tot.RefAnon))
	r.RefFile.Add(float64(tot.RefFile))
	r.New.Add(float64(newBytes))
	r.Reuse.Add(float64(max(0, tot.Ref-newBytes)))
	s.cur.add(actual.Seconds(), float64(tot.Ref), float64(max(0, tot.Ref-newBytes)), float64(tot.Rss))
	r.Rss.Add(float64(tot.Rss))
	o.Windows++
	o.Processes += fresh
	o.MaxProcesses = max(o.MaxProcesses, len(now))
	o.PeakRss = max(o.PeakRss, tot.Rss)
	o.PeakAnon = max(o.PeakAnon, tot.Anon)
	switch s.splitSeen {
	case [2]bool{true, false}:
		o.Split = "per-mapping smaps"
	case [2]bool{false, true}:
		o.Split = "smaps_rollup proportion"
	case [2]bool{true, true}:
		o.Split = "per-mapping smaps, smaps_rollup proportion for processes with more than " + fmt.Sprint(s.cfg.PerMappingMax) + " mappings"
	}
	return true
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (s *Sampler) note(err error) {
	if gone(err) {
		return
	}
	s.mu.Lock()
	s.out.Errors++
	s.out.LastError = err.Error()
	s.mu.Unlock()
}

// Samples is a copy of what was gathered so far (safe while Run runs).
func (s *Sampler) Samples() Samples {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.out
	out.Rungs = append([]Rung(nil), s.out.Rungs...)
	out.Grid = s.out.Grid.clone()
	return out
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
