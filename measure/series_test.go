package measure

import (
	"math"
	"slices"
	"testing"
)

// TestRunResultAsBase: a probe run is a base in seconds per page visit, its
// idle-host time per visit when it has a contention record, and no base
// when it failed, hit its cap or never got a rate.
func TestRunResultAsBase(t *testing.T) {
	good := RunResult{Seq: 3, Rate: 4e6, Visits: 8e6, Contention: &Contention{IdleWall: 1.5}}
	b := good.AsBase()
	if !b.OK || b.Seq != 3 || b.Time != 2.5e-7 || b.Idle != 1.5/8e6 {
		t.Errorf("AsBase = %+v, want OK, seq 3, 2.5e-7 s per visit, %g idle s per visit", b, 1.5/8e6)
	}
	if b := (RunResult{Seq: 1, Rate: 4e6, Visits: 8e6}).AsBase(); !b.OK || b.Idle != 0 {
		t.Errorf("without a contention record AsBase = %+v, want OK with idle 0", b)
	}
	for name, r := range map[string]RunResult{
		"failed":   {Rate: 4e6, Failed: "exit status 1"},
		"censored": {Rate: 4e6, Censored: true},
		"no rate":  {},
	} {
		if r.AsBase().OK {
			t.Errorf("%s run: AsBase says it can be a base", name)
		}
	}
}

// TestPerVisitSeries: the series keeps the good runs in their order and
// drops the others, so PairedBase pairs a constrained run with the good
// runs around it.
func TestPerVisitSeries(t *testing.T) {
	runs := []RunResult{
		{Seq: 1, Rate: 2, Visits: 10, Contention: &Contention{IdleWall: 4}},
		{Seq: 6, Rate: 2, Failed: "killed"},
		{Seq: 11, Rate: 4, Visits: 10},
		{Seq: 16, Rate: 5, Censored: true},
		{Seq: 21, Rate: 1, Visits: 20, Contention: &Contention{IdleWall: 10}},
	}
	seq, tm, idle := PerVisit.Series(runs)
	if want := []int{1, 11, 21}; !slices.Equal(seq, want) {
		t.Errorf("seq = %v, want %v", seq, want)
	}
	if want := []float64{0.5, 0.25, 1}; !slices.Equal(tm, want) {
		t.Errorf("time = %v, want %v", tm, want)
	}
	if want := []float64{0.4, 0, 0.5}; !slices.Equal(idle, want) {
		t.Errorf("idle = %v, want %v", idle, want)
	}
	// A run at 7 sits between the good runs at 1 and 11: the failed one
	// at 6 is not its neighbour.
	if b := PairedBase(7, seq, tm); b != 0.375 {
		t.Errorf("PairedBase(7) = %g, want 0.375, the mean of runs 1 and 11", b)
	}
	if s, _, _ := PerVisit.Series([]RunResult{{Failed: "x"}}); s != nil {
		t.Errorf("no good runs: seq = %v, want none", s)
	}
}

// TestPerRunSeries: a command's in-RAM run is a base in wall seconds, its
// idle-host wall time when it has a contention record; a run that failed
// or hit its cap is none, though it has a wall time.
func TestPerRunSeries(t *testing.T) {
	runs := []RunResult{
		{Seq: 1, Wall: 10, Contention: &Contention{IdleWall: 9}},
		{Seq: 4, Wall: 12, Failed: "exit status 1"},
		{Seq: 7, Wall: 30, Censored: true},
		{Seq: 10, Wall: 11},
	}
	seq, tm, idle := PerRun.Series(runs)
	if !slices.Equal(seq, []int{1, 10}) || !slices.Equal(tm, []float64{10, 11}) || !slices.Equal(idle, []float64{9, 0}) {
		t.Errorf("series = %v %v %v, want seq [1 10], wall [10 11], idle [9 0]", seq, tm, idle)
	}
	if got := PerRun.Seconds(runs[0]); got != 10 {
		t.Errorf("PerRun.Seconds = %g, want the wall time 10", got)
	}
	if got := PerVisit.Seconds(RunResult{Wall: 12, Timed: 8}); got != 8 {
		t.Errorf("PerVisit.Seconds = %g, want the timed phase's 8", got)
	}
}

type testPoint struct {
	fit  float64
	runs []float64 // slowdowns; 0 does not count
}

// TestWidestPoint: the widest point is the one whose counted samples
// spread most, and runs that do not count are left out of it.
func TestWidestPoint(t *testing.T) {
	pts := []testPoint{
		{0.9, []float64{1.01, 1.02, 1.01, 1.02}},
		{0.5, []float64{1.5, 2.5, 0, 1.9}},
		{0.7, []float64{1.2, 1.25, 1.22}},
	}
	point := func(p testPoint) (float64, []float64) { return p.fit, p.runs }
	counted := func(r float64) (float64, bool) { return r, r > 0 }
	w, fit := WidestPoint(pts, point, counted)
	if fit != 0.5 {
		t.Errorf("widest at fit %g, want 0.5", fit)
	}
	if want := HalfWidth([]float64{1.5, 2.5, 1.9}); w != want {
		t.Errorf("width %g, want %g (the run that does not count left out)", w, want)
	}
	// One counted sample has no interval: that point is the widest.
	pts[2].runs = []float64{1.2, 0, 0}
	if w, fit := WidestPoint(pts, point, counted); fit != 0.7 || !math.IsInf(w, 1) {
		t.Errorf("with one sample at 0.7: width %g at fit %g, want +Inf at 0.7", w, fit)
	}
	if w, fit := WidestPoint([]testPoint{}, point, counted); fit != 0 || w != 0 {
		t.Errorf("no points: width %g at fit %g, want 0 at 0", w, fit)
	}
}
