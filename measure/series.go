package measure

// The in-RAM runs of a session and the constrained runs between them, the
// same for the probe's stages and the profiler's phases: a constrained run
// is compared with its in-RAM neighbours (PairedBase), and the session
// stops when its widest point is narrow enough (RoundRule, WidestPoint).

// A BaseRun is an in-RAM run as the constrained runs next to it see it.
type BaseRun struct {
	Seq int  // its place in the session (Slot.Seq)
	OK  bool // whether it can be a base at all
	// Time is what a constrained run's own is divided by: seconds per page
	// visit for the probe, wall seconds for the profiler.
	Time float64
	// Idle is Time on an idle host (Contention.IdleWall), in the same
	// unit; 0 when the run has no contention record, which PairedBase
	// skips.
	Idle float64
}

// An InRAMRun is a run that can serve as an in-RAM base.
type InRAMRun interface {
	AsBase() BaseRun
}

// InRAMSeries lists the good in-RAM runs among runs in order: their places
// in the session, their times and their idle-host times (BaseRun), the
// series PairedBase takes.
func InRAMSeries[R InRAMRun](runs []R) (seq []int, time, idle []float64) {
	for _, r := range runs {
		b := r.AsBase()
		if !b.OK {
			continue
		}
		seq = append(seq, b.Seq)
		time = append(time, b.Time)
		idle = append(idle, b.Idle)
	}
	return seq, time, idle
}

// AsBase is a probe run as an in-RAM base: a run that neither failed nor
// hit its time cap, its seconds per page visit, and its idle-host seconds
// per visit.
func (r RunResult) AsBase() BaseRun {
	b := BaseRun{Seq: r.Seq, OK: r.Failed == "" && !r.Censored && r.Rate > 0}
	if r.Rate > 0 {
		b.Time = 1 / r.Rate
	}
	if c := r.Contention; c != nil && r.Visits > 0 {
		b.Idle = c.IdleWall / float64(r.Visits)
	}
	return b
}

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
