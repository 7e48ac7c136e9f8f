package measure

// The in-RAM runs of a session and the constrained runs between them, the
// same for the probe's stages and the profiler's phases: a constrained run
// is compared with its in-RAM neighbours (PairedBase), and the session
// stops when its widest point is narrow enough (RoundRule, WidestPoint).

// A BaseRun is an in-RAM run as the constrained runs next to it see it.
type BaseRun struct {
	Seq int  // its place in the session (RunResult.Seq)
	OK  bool // whether it can be a base at all
	// Time is what a constrained run's own is divided by: seconds per page
	// visit for the probe, wall seconds for the profiler.
	Time float64
	// Idle is Time on an idle host (Contention.IdleWall), in the same
	// unit; 0 when the run has no contention record, which PairedBase
	// skips.
	Idle float64
}

// Unit is what a session's in-RAM time is per: a page visit of the
// probe's workload (its runs' visit counts differ, a capped run's most of
// all), the whole run of a command, which always does the same work, or
// a second of a command's CPU time (the one run's slices).
type Unit int

const (
	PerVisit Unit = iota // seconds per page visit (the probe)
	PerRun               // wall seconds of the run (the profiler)
	// PerCPUSecond is wall seconds per second of the command's user CPU
	// time: the one run's slices, each a different stretch of one run.
	PerCPUSecond
)

// Time is the run's seconds per unit, 0 when it measured none: the
// inverse of its visit rate, its wall time, or its wall time per user
// CPU second.
func (u Unit) Time(r RunResult) float64 {
	switch {
	case u == PerRun:
		return r.Wall
	case u == PerCPUSecond && r.User > 0:
		return r.Wall / r.User
	case u == PerCPUSecond:
		return 0
	}
	if r.Rate > 0 {
		return 1 / r.Rate
	}
	return 0
}

// Seconds is the run's time as its in-RAM summary counts it: the
// workload's timed phase, or the command's wall time.
func (u Unit) Seconds(r RunResult) float64 {
	if u == PerRun || u == PerCPUSecond {
		return r.Wall
	}
	return r.Timed
}

// idle is the run's idle-host time per unit (Contention.IdleWall), 0
// without a contention record.
func (u Unit) idle(r RunResult) float64 {
	c := r.Contention
	switch {
	case c == nil:
		return 0
	case u == PerRun:
		return c.IdleWall
	case u == PerCPUSecond:
		return 0
	case r.Visits > 0:
		return c.IdleWall / float64(r.Visits)
	}
	return 0
}

// Base is the run as an in-RAM base: a run that neither failed nor hit
// its time cap, with its time and idle-host time per unit.
func (u Unit) Base(r RunResult) BaseRun {
	t := u.Time(r)
	return BaseRun{Seq: r.Seq, OK: r.Failed == "" && !r.Censored && t > 0, Time: t, Idle: u.idle(r)}
}

// Series lists the good in-RAM runs among runs in order: their places in
// the session, their times and their idle-host times (Base), the series
// PairedBase takes.
func (u Unit) Series(runs []RunResult) (seq []int, time, idle []float64) {
	for _, r := range runs {
		b := u.Base(r)
		if !b.OK {
			continue
		}
		seq = append(seq, b.Seq)
		time = append(time, b.Time)
		idle = append(idle, b.Idle)
	}
	return seq, time, idle
}

// AsBase is a probe run as an in-RAM base (PerVisit).
func (r RunResult) AsBase() BaseRun { return PerVisit.Base(r) }

// WidestPoint is the largest relative 95% half-width over a session's
// points so far (Widest) and the fit ratio of that point, 0 when there are
// no points. point gives a point's fit ratio and its constrained runs;
// slowdown gives a run's slowdown over its in-RAM neighbours and whether
// it counts yet.
func WidestPoint[P, R any](pts []P, point func(P) (float64, []R), slowdown func(R) (float64, bool)) (float64, float64) {
	samples := make([][]float64, len(pts))
	for i, p := range pts {
		_, runs := point(p)
		for _, r := range runs {
			if s, ok := slowdown(r); ok {
				samples[i] = append(samples[i], s)
			}
		}
	}
	w, at := Widest(samples)
	if at < 0 {
		return w, 0
	}
	fit, _ := point(pts[at])
	return w, fit
}
