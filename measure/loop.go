package measure

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/memplan/memplan/units"
)

// The measuring loop of the probe's curve stages, the profiler's phases
// and the one run's slices: rounds of one in-RAM run and every fit ratio
// once (Order), as many as RoundRule asks for, a closing in-RAM run, and
// each constrained run scored against the in-RAM runs next to it
// (PairedBase).
//
// The one run (memplan profile --one-run) goes through the same loop with
// its runs slices of one running command: its rounds are the cycles of
// its stepped limit, in the fits' own order (Session.Descending); they go
// on until the command exits (Session.UntilEnded, ErrEnded); and before
// each constrained slice its runner may ask for an in-RAM slice first, or
// skip the fit (Gate): its cost budget, a command still allocating, a
// fit past the knee.

// RunSpec is one run: what it measures and what it runs under.
type RunSpec struct {
	Backend string  // what the run is filed under: a stage, a phase, "sizing"
	Fit     float64 // the fit ratio; 0 for a run without a limit of its own
	Rep     int     // the round, from 1
	// Limit and MemSw are the run cgroup's memory and memory+swap limits,
	// 0 for none: the run is held only by its session's ceiling.
	Limit, MemSw units.Bytes
	Timeout      time.Duration // the run is stopped after this long
	// Zram is the zram device the run swaps to ("zram0"), whose mm_stat
	// it samples; "" when it swaps to a file or not at all.
	Zram string
	// Payback marks an in-RAM run that a Gate asked for to pay back the
	// session's cost budget: the runner extends it until the budget
	// allows the next constrained run.
	Payback bool
}

// ErrEnded is what a Runner returns, with the run's result, when the work
// the session measures came to its end during the run: the one run's
// command exited. The loop keeps the result and stops.
var ErrEnded = errors.New("the measured command ended")

// Admission is a Gate's answer for the next constrained run.
type Admission int

const (
	Admit        Admission = iota // run it now
	InRAMFirst                    // an in-RAM run first, then ask again
	PaybackFirst                  // an in-RAM run that pays back the budget (RunSpec.Payback), then ask again
	Skip                          // not this round
)

// A Gate is a Runner that decides, before each constrained run, whether
// it runs now. first says the run is the round's first constrained one.
type Gate interface {
	Admit(fit float64, first bool) Admission
}

// NoneIfZero is a limit as a cgroup takes it: -1 for none.
func NoneIfZero(b units.Bytes) units.Bytes {
	if b <= 0 {
		return -1
	}
	return b
}

// ZramName is the name of zram device id; "" for -1, no device.
func ZramName(id int) string {
	if id < 0 {
		return ""
	}
	return fmt.Sprintf("zram%d", id)
}

// A Runner does a session's runs and hears how they go: the probe's
// workload, the profiler's command, a fake in tests.
type Runner interface {
	// Run does one run. Only a failure to measure (the host, a cancelled
	// context) is an error; a run that fails is a result.
	Run(ctx context.Context, rs RunSpec) (RunResult, error)
	Progress
}

// Session is what one session of rounds measures.
type Session struct {
	Stage string // the progress line's name for it
	Name  string // its name in notes
	// Backend and InRAMBackend are what its constrained and its in-RAM
	// runs are filed under.
	Backend, InRAMBackend string
	// Fits are the points; Limits and MemSw the runs' limits at each.
	Fits          []float64
	Limits, MemSw []units.Bytes
	Timeout       time.Duration
	Zram          string // the constrained runs' zram device (RunSpec)
	Rule          RoundRule
	Seed, Stream  uint64 // the order's (NewOrder)
	Unit          Unit
	// Work is the units of work in a run: a base's time per unit times
	// Work is the seconds a run's Base records (the workload's planned
	// page visits; 1 for a command).
	Work float64
	// Cap is the slowdown of a run that gives only a lower bound
	// (LowerOnly): the time cap's multiple.
	Cap float64
	// Descending runs each round's fits in their own order (highest
	// first, as the one run steps its limit down) instead of a random one.
	Descending bool
	// UntilEnded runs rounds until the Runner returns ErrEnded, with no
	// closing in-RAM run (the command is gone); Rule is not consulted.
	UntilEnded bool
	// Fallback is the time per unit a run is over when no in-RAM run of
	// the session is good (the probe's baseline); 0 for none.
	Fallback float64
}

// Rounds is how a session went: its runs, scored.
type Rounds struct {
	Session
	Rounds int
	// Repetitions says how many rounds ran and why they stopped
	// (RoundRule.Enough).
	Repetitions string
	// InRAM are the in-RAM runs in order; Points[i] the runs at Fits[i].
	InRAM  []RunResult
	Points [][]RunResult
	// InRAMSeconds sums up the good in-RAM runs (Unit.Seconds).
	InRAMSeconds Summary
	// Ended says the Runner ended the session (ErrEnded).
	Ended bool
}

// RunRounds runs a session's rounds through r: --runs of them (Rule.Runs)
// and more while the precision target is not reached, then the closing
// in-RAM run; or, for a session UntilEnded, rounds until r ends it. Every
// constrained run is scored against the in-RAM runs next to it once all
// are in (Score).
func RunRounds(ctx context.Context, r Runner, s Session) (*Rounds, error) {
	n := len(s.Fits)
	out := &Rounds{Session: s, Points: make([][]RunResult, n)}
	order := NewOrder(s.Seed, s.Stream, n)
	order.fixed = s.Descending
	gate, _ := r.(Gate)
	limits := func(p int) (units.Bytes, units.Bytes) {
		if p < len(s.Limits) && p < len(s.MemSw) {
			return s.Limits[p], s.MemSw[p]
		}
		return 0, 0
	}
	if s.UntilEnded {
		r.Stage(s.Stage, 0)
	} else {
		r.Stage(s.Stage, s.Rule.Runs*(1+n)+1) // and the closing in-RAM run
	}
	seq := 0
	// run does one run and reports whether the Runner ended the session.
	run := func(rs RunSpec) (RunResult, bool, error) {
		res, err := r.Run(ctx, rs)
		ended := errors.Is(err, ErrEnded)
		if err != nil && !ended {
			return res, false, err
		}
		seq++
		res.Seq = seq
		out.Ended = ended
		return res, ended, nil
	}
	inRAM := func(round int, payback bool) (bool, error) {
		res, ended, err := run(RunSpec{Backend: s.InRAMBackend, Rep: round, Timeout: s.Timeout, Payback: payback})
		if err != nil {
			return false, err
		}
		if !s.Unit.Base(res).OK && !ended {
			r.Note(fmt.Sprintf("%s: the in-RAM run %d failed (%s); it does not count", s.Name, round, whyNoBase(res)))
		}
		out.InRAM = append(out.InRAM, res)
		// The progress line shows it against the good in-RAM runs so
		// far; the file keeps it as measured.
		shown := res
		if m := out.inRAMMedian(); m > 0 && s.Unit.Base(res).OK {
			shown.Slowdown = s.Unit.Time(res) / m
		}
		r.RunDone(shown)
		return ended, nil
	}
	started := time.Now()
	round := 1
rounds:
	for ; ; round++ {
		switch {
		case s.UntilEnded && round > 1:
			r.Stage(fmt.Sprintf("%s: cycle %d", s.Stage, round), 0)
		case !s.UntilEnded && round > s.Rule.Runs:
			widest, fit := out.Widest()
			if stop, why := s.Rule.Enough(round-1, time.Since(started), widest, fit); stop {
				out.Repetitions = why
				break rounds
			}
			r.Stage(fmt.Sprintf("%s: round %d (%s)", s.Stage, round, s.Rule.State(widest, fit)), 1+n)
		}
		first := true
		for _, slot := range order.Round(round) {
			if slot.Point == InRAM {
				ended, err := inRAM(round, false)
				if err != nil {
					return nil, err
				}
				if ended {
					break rounds
				}
				continue
			}
			p := slot.Point
			now, ended, err := out.admit(gate, round, p, first, inRAM)
			if err != nil {
				return nil, err
			}
			if ended {
				break rounds
			}
			first = false
			if !now {
				continue
			}
			limit, memsw := limits(p)
			res, ended, err := run(RunSpec{Backend: s.Backend, Fit: s.Fits[p], Rep: round, Limit: limit, MemSw: memsw,
				Timeout: s.Timeout, Zram: s.Zram})
			if err != nil {
				return nil, err
			}
			// Against the in-RAM run before it until the one after is in.
			out.Score(&res)
			r.RunDone(res)
			out.Points[p] = append(out.Points[p], res)
			if ended {
				break rounds
			}
		}
	}
	if !out.Ended {
		if _, err := inRAM(round, false); err != nil {
			return nil, err
		}
		out.Rounds = round - 1
	} else {
		out.Rounds = round
	}
	for p := range out.Points {
		for i := range out.Points[p] {
			out.Score(&out.Points[p][i])
		}
	}
	var secs []float64
	for _, res := range out.InRAM {
		if s.Unit.Base(res).OK {
			secs = append(secs, s.Unit.Seconds(res))
		}
	}
	out.InRAMSeconds = Summarize(secs)
	return out, nil
}

// admit asks gate (none: every run is admitted) whether the constrained
// run at point p runs now, doing the in-RAM runs it asks for first
// (through inRAM). It reports whether the run is admitted and whether
// the session ended meanwhile.
func (o *Rounds) admit(gate Gate, round, p int, first bool, inRAM func(round int, payback bool) (bool, error)) (bool, bool, error) {
	if gate == nil {
		return true, false, nil
	}
	for {
		a := gate.Admit(o.Fits[p], first)
		switch a {
		case Admit:
			return true, false, nil
		case Skip:
			return false, false, nil
		}
		ended, err := inRAM(round, a == PaybackFirst)
		if err != nil || ended {
			return false, ended, err
		}
	}
}

func whyNoBase(r RunResult) string {
	switch {
	case r.Failed != "":
		return r.Failed
	case r.Censored:
		return "stopped at its time cap"
	}
	return "it measured no time"
}

// inRAMMedian is the median time per unit of the good in-RAM runs so far.
func (o *Rounds) inRAMMedian() float64 {
	_, t, _ := o.Unit.Series(o.InRAM)
	if len(t) == 0 {
		return 0
	}
	t = slices.Clone(t)
	slices.Sort(t)
	return t[len(t)/2]
}

// pairedBase is a run's in-RAM time per unit: the in-RAM runs next to it
// (PairedBase), else the Fallback.
func (o *Rounds) pairedBase(r *RunResult) float64 {
	seq, t, _ := o.Unit.Series(o.InRAM)
	if b := PairedBase(r.Seq, seq, t); b > 0 {
		return b
	}
	return o.Fallback
}

// Score sets a constrained run's slowdown over the in-RAM runs next to it
// and records their time (Base): the run's time over theirs, the Cap for
// a run that gives only a lower bound, none for a failed run or when
// there is nothing to compare with.
func (o *Rounds) Score(r *RunResult) {
	r.Slowdown = 0
	b := o.pairedBase(r)
	if b <= 0 {
		return
	}
	r.Base = b * o.Work
	switch t := o.Unit.Time(*r); {
	case r.Failed != "":
	case r.LowerOnly:
		r.Slowdown = o.Cap
	case t > 0:
		r.Slowdown = t / b
	}
}

// Widest is the largest relative 95% half-width of the points so far
// (WidestPoint: the slowdowns of the runs that did not fail, capped ones
// included) and its fit ratio.
func (o *Rounds) Widest() (float64, float64) {
	idx := make([]int, len(o.Points))
	for i := range idx {
		idx[i] = i
	}
	return WidestPoint(idx,
		func(i int) (float64, []RunResult) { return o.Fits[i], o.Points[i] },
		func(r RunResult) (float64, bool) {
			o.Score(&r)
			return r.Slowdown, r.Failed == "" && r.Slowdown > 0
		})
}

// PointRuns is what one point's runs add up to, the same for the probe and
// the profiler.
type PointRuns struct {
	// Samples are the slowdowns of the runs that did not fail, capped
	// runs' included (an estimate or a lower bound).
	Samples []float64
	// IdleHost are the complete runs' idle-host slowdowns.
	IdleHost []float64
	// Failed counts the runs that failed, OOMKilled those of them killed
	// in their cgroup; Censored the runs stopped at the cap; Disturbed the
	// complete runs the rest of the host disturbed.
	Failed, OOMKilled, Censored, Disturbed int
	// Tally sums up the complete runs' counters: a capped run's cover
	// only part of the work.
	Tally Tally
}

// Point sums up the runs at Fits[i] and sets each complete run's
// idle-host slowdown.
func (o *Rounds) Point(i int) PointRuns {
	var pr PointRuns
	seq, _, idle := o.Unit.Series(o.InRAM)
	for k := range o.Points[i] {
		r := &o.Points[i][k]
		switch {
		case r.OOMKilled:
			pr.OOMKilled++
			pr.Failed++
			continue
		case r.Failed != "":
			pr.Failed++
			continue
		}
		pr.Samples = append(pr.Samples, r.Slowdown)
		if r.Censored {
			pr.Censored++
			continue
		}
		if ri, bi := o.Unit.idle(*r), PairedBase(r.Seq, seq, idle); ri > 0 && bi > 0 {
			r.IdleHost = Round4(ri / bi)
			pr.IdleHost = append(pr.IdleHost, r.IdleHost)
		}
		if r.Contention != nil && r.Contention.Disturbed {
			pr.Disturbed++
		}
		pr.Tally.Add(r.MajFlt, r.SwapIn, r.SwapOut, r.PSISome, r.PSIFull, r.ZramRatio)
	}
	return pr
}
