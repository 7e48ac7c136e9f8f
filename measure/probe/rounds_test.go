//go:build linux

package probe

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/units"
)

// fakeHost stands in for the runs of a stage: the host slows down by drift
// per run (a busy host getting busier), and a constrained run at fit f
// takes truth(f) times what an in-RAM run takes at the same moment, with
// noise (relative SD) on top.
type fakeHost struct {
	drift, noise float64
	rng          *rand.Rand
	runs         int
	order        []string // "in-RAM" or the fit, as the runs came
}

func truth(fit float64) float64 { return 1 + 4*(1-fit) }

const fakeVisits = 100000

func (f *fakeHost) run(_ context.Context, rs runSpec) (measure.RunResult, error) {
	spv := 1e-6 * (1 + f.drift*float64(f.runs)) // seconds per visit in RAM now
	f.runs++
	if rs.Limit > 0 {
		spv *= truth(rs.Fit)
		f.order = append(f.order, fmt.Sprint(rs.Fit))
	} else {
		f.order = append(f.order, "in-RAM")
	}
	if f.noise > 0 {
		spv *= 1 + f.noise*f.rng.NormFloat64()
	}
	r := measure.RunResult{Backend: rs.Backend, Fit: rs.Fit, Rep: rs.Rep, Visits: fakeVisits, Timed: spv * fakeVisits}
	r.Rate = fakeVisits / r.Timed
	return r, nil
}

func fakeSession(o Options) *session {
	p := &Plan{Options: o, Workload: WorkloadSpec{Visits: fakeVisits}}
	// The baseline ran before the drift: 1us a visit.
	rep := &Report{Plan: p, BaselineRate: 1e6, Footprint: 100 * units.MiB, Seed: o.Seed,
		Baseline: measure.Summary{N: 3, Mean: 0.1, SD: 0.001}}
	return &session{plan: p, rep: rep, prog: measure.NopProgress{}}
}

func fakeStage(fits []float64, reps int) *Stage {
	return &Stage{Name: "zram-lz4", Backend: measure.BackendZram, Class: "zram-lz4", Fits: fits, Reps: reps}
}

// TestRoundsPairEachRunWithItsNeighbours: on a host that gets 2% slower
// with every run, the probe's rounds still find each fit ratio's true
// slowdown, because each constrained run is over the in-RAM runs next to
// it; over the baseline measured up front the same runs are off by up to a
// third. The rounds are balanced (each fit once per round), every
// constrained run has an in-RAM run on both sides, and the order is the
// seed's.
func TestRoundsPairEachRunWithItsNeighbours(t *testing.T) {
	fits := []float64{0.9, 0.75, 0.5}
	o := DefaultOptions()
	o.MaxSlowdown = 40
	do := func(seed uint64) (*session, *fakeHost) {
		o.Seed = seed
		s := fakeSession(o)
		f := &fakeHost{drift: 0.02}
		if err := s.rounds(context.Background(), fakeStage(fits, 5), f.run); err != nil {
			t.Fatal(err)
		}
		return s, f
	}
	s, f := do(3)
	if len(s.rep.Stages) != 1 {
		t.Fatalf("%d stage records, want 1", len(s.rep.Stages))
	}
	rec := s.rep.Stages[0]
	if rec.Rounds != 5 || len(rec.InRAMRuns) != 6 || rec.Repetitions != "5 rounds, as asked (--reps)" || rec.Seed != 3 || rec.Stream != 0 {
		t.Errorf("stage record: %d rounds, %d in-RAM runs, %q, seed %d stream %d", rec.Rounds, len(rec.InRAMRuns), rec.Repetitions, rec.Seed, rec.Stream)
	}
	// Balanced: every round is an in-RAM run and each fit once.
	if len(f.order) != 5*4+1 || f.order[len(f.order)-1] != "in-RAM" {
		t.Fatalf("order %v", f.order)
	}
	for r := 0; r < 5; r++ {
		round := f.order[r*4 : r*4+4]
		seen := map[string]bool{}
		for _, x := range round[1:] {
			seen[x] = true
		}
		if round[0] != "in-RAM" || len(seen) != 3 {
			t.Errorf("round %d: %v, want in-RAM then each fit once", r+1, round)
		}
	}
	var inSeq []int
	for _, r := range rec.InRAMRuns {
		inSeq = append(inSeq, r.Seq)
	}
	worstNaive := 0.0
	for _, pt := range s.rep.Points {
		if len(pt.Runs) != 5 || pt.Slowdown.N != 5 || pt.Repetitions != rec.Repetitions {
			t.Errorf("fit %g: %d runs, %d samples, repetitions %q", pt.Fit, len(pt.Runs), pt.Slowdown.N, pt.Repetitions)
		}
		for _, r := range pt.Runs {
			before, after := false, false
			for _, q := range inSeq {
				before = before || q == r.Seq-1 || (q < r.Seq && q > r.Seq-4)
				after = after || (q > r.Seq && q < r.Seq+4)
			}
			if !before || !after {
				t.Errorf("fit %g run at seq %d has no in-RAM run on both sides within its round (in-RAM at %v)", pt.Fit, r.Seq, inSeq)
			}
			if r.Base <= 0 || math.Abs(r.Slowdown*r.Base/r.Timed-1) > 1e-9 {
				t.Errorf("fit %g seq %d: slowdown %g is not its timed %g over its base %g", pt.Fit, r.Seq, r.Slowdown, r.Timed, r.Base)
			}
			if e := r.Slowdown/truth(pt.Fit) - 1; math.Abs(e) > 0.025 {
				t.Errorf("fit %g seq %d: paired slowdown %.3f, truth %.3f (%.1f%% off)", pt.Fit, r.Seq, r.Slowdown, truth(pt.Fit), 100*e)
			}
			worstNaive = max(worstNaive, math.Abs(s.rep.BaselineRate/r.Rate/truth(pt.Fit)-1))
		}
	}
	if worstNaive < 0.2 {
		t.Errorf("over the baseline up front the worst run is only %.0f%% off: the drift does not test the pairing", 100*worstNaive)
	}
	// The seed decides the order, and is the report's.
	if _, g := do(3); strings.Join(g.order, " ") != strings.Join(f.order, " ") {
		t.Errorf("seed 3 twice gave two orders:\n%v\n%v", f.order, g.order)
	}
	if _, g := do(4); strings.Join(g.order, " ") == strings.Join(f.order, " ") {
		t.Errorf("seeds 3 and 4 gave the same order %v", f.order)
	}
}

// TestRoundsPrecision: --precision adds rounds until every point's interval
// is within the target, and the stage says so; a budget the first rounds
// already spent stops it there, and says that.
func TestRoundsPrecision(t *testing.T) {
	fits := []float64{0.9, 0.5}
	o := DefaultOptions()
	o.MaxSlowdown = 40
	o.Precision = 0.02
	s := fakeSession(o)
	f := &fakeHost{noise: 0.03, rng: rand.New(rand.NewPCG(1, 2))}
	if err := s.rounds(context.Background(), fakeStage(fits, 2), f.run); err != nil {
		t.Fatal(err)
	}
	rec := s.rep.Stages[0]
	if !strings.HasPrefix(rec.Repetitions, "precision 2% reached after ") || rec.Rounds <= 2 || rec.Rounds >= measure.MaxRounds {
		t.Fatalf("%d rounds: %q, want the precision reached after more than --reps", rec.Rounds, rec.Repetitions)
	}
	for _, pt := range s.rep.Points {
		if w := (pt.Slowdown.Hi - pt.Slowdown.Mean) / pt.Slowdown.Mean; w > 0.02 || pt.Slowdown.N != rec.Rounds {
			t.Errorf("fit %g: +-%.1f%% over %d runs after %d rounds", pt.Fit, 100*w, pt.Slowdown.N, rec.Rounds)
		}
	}
	if len(rec.InRAMRuns) != rec.Rounds+1 {
		t.Errorf("%d in-RAM runs for %d rounds", len(rec.InRAMRuns), rec.Rounds)
	}
	if !strings.Contains(strings.Join(s.rep.Notes, "\n"), "zram-lz4: precision 2% reached") {
		t.Errorf("notes %q do not say which target stopped the rounds", s.rep.Notes)
	}

	o.Precision, o.PrecisionBudget = 0.001, time.Nanosecond
	s = fakeSession(o)
	f = &fakeHost{noise: 0.03, rng: rand.New(rand.NewPCG(1, 2))}
	if err := s.rounds(context.Background(), fakeStage(fits, 2), f.run); err != nil {
		t.Fatal(err)
	}
	if rec := s.rep.Stages[0]; rec.Rounds != 2 || !strings.HasPrefix(rec.Repetitions, "budget 1ns spent after 2 rounds without reaching precision 0%") {
		t.Errorf("%d rounds: %q, want the budget spent after the 2 --reps", rec.Rounds, rec.Repetitions)
	}
}
