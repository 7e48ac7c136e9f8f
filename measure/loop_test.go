package measure

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/units"
)

// fakeRunner stands in for a command measured by the profiler: in RAM it
// takes 10s, more by drift with every run (a host getting busier), and at
// fit f truth(f) times as long, with noise (relative SD) on top. edit, when
// set, changes the n-th run (from 1) after it is made: a failure, a cap.
type fakeRunner struct {
	drift, noise float64
	rng          *rand.Rand
	edit         func(n int, r *RunResult)
	specs        []RunSpec
	shown        []RunResult // what RunDone was given
	stages       []string
	stageRuns    []int
	notes        []string
}

func fakeTruth(fit float64) float64 { return 1 + 4*(1-fit) }

func (f *fakeRunner) Run(ctx context.Context, rs RunSpec) (RunResult, error) {
	if err := ctx.Err(); err != nil {
		return RunResult{}, err
	}
	f.specs = append(f.specs, rs)
	n := len(f.specs)
	wall := 10 * (1 + f.drift*float64(n-1))
	if rs.Limit > 0 {
		wall *= fakeTruth(rs.Fit)
	}
	if f.noise > 0 {
		wall *= 1 + f.noise*f.rng.NormFloat64()
	}
	r := RunResult{Backend: rs.Backend, Fit: rs.Fit, Rep: rs.Rep, Limit: rs.Limit, Wall: wall, MajFlt: int64(1000 * rs.Fit),
		Contention: &Contention{IdleWall: wall * 0.9}}
	if f.edit != nil {
		f.edit(n, &r)
	}
	return r, nil
}

func (f *fakeRunner) Stage(name string, runs int) {
	f.stages = append(f.stages, name)
	f.stageRuns = append(f.stageRuns, runs)
}
func (f *fakeRunner) RunDone(r RunResult) { f.shown = append(f.shown, r) }
func (f *fakeRunner) Note(msg string)     { f.notes = append(f.notes, msg) }

func fakeSession(fits []float64, runs int) Session {
	s := Session{Stage: "zram-lz4", Name: "zram-lz4", Backend: "zram-lz4", InRAMBackend: "zram-lz4 in RAM", Fits: fits,
		Timeout: time.Minute, Zram: "zram0", Rule: RoundRule{Runs: runs, RunsFlag: "--runs"}, Seed: 7, Stream: 1,
		Unit: PerRun, Work: 1, Cap: 20}
	for _, f := range fits {
		l := units.Bytes(f * float64(units.GiB))
		s.Limits, s.MemSw = append(s.Limits, l), append(s.MemSw, l+units.GiB)
	}
	return s
}

// TestRunRoundsOrder: every round is one in-RAM run (no limit) then each
// fit ratio once under its limits, as many rounds as asked, and a closing
// in-RAM run; each run is told its round and gets its place in the order;
// the order is the seed's and stream's.
func TestRunRoundsOrder(t *testing.T) {
	fits := []float64{0.9, 0.75, 0.5}
	f := &fakeRunner{}
	rr, err := RunRounds(context.Background(), f, fakeSession(fits, 3))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.specs) != 3*4+1 || rr.Rounds != 3 || rr.Repetitions != "3 rounds, as asked (--runs)" {
		t.Fatalf("%d runs, %d rounds, %q; want 13 runs and 3 rounds as asked", len(f.specs), rr.Rounds, rr.Repetitions)
	}
	if len(f.stages) != 1 || f.stages[0] != "zram-lz4" || f.stageRuns[0] != 13 {
		t.Errorf("progress stages %v of %v runs, want one of 13", f.stages, f.stageRuns)
	}
	order := NewOrder(7, 1, 3)
	var want []Slot
	for r := 1; r <= 3; r++ {
		want = append(want, order.Round(r)...)
	}
	want = append(want, Slot{Round: 4, Point: InRAM}) // the closing in-RAM run
	var inRAM, seen int
	for i, rs := range f.specs {
		w := want[i]
		if w.Point == InRAM {
			if rs.Limit != 0 || rs.MemSw != 0 || rs.Fit != 0 || rs.Zram != "" || rs.Backend != "zram-lz4 in RAM" {
				t.Errorf("run %d is in RAM but its spec is %+v", i+1, rs)
			}
			if inRAM < 3 && rs.Rep != inRAM+1 {
				t.Errorf("in-RAM run %d says round %d", inRAM+1, rs.Rep)
			}
			if rr.InRAM[inRAM].Seq != i+1 {
				t.Errorf("in-RAM run %d has seq %d, want %d", inRAM+1, rr.InRAM[inRAM].Seq, i+1)
			}
			inRAM++
			continue
		}
		seen++
		if rs.Fit != fits[w.Point] || rs.Limit != units.Bytes(fits[w.Point]*float64(units.GiB)) || rs.MemSw != rs.Limit+units.GiB ||
			rs.Zram != "zram0" || rs.Rep != w.Round || rs.Timeout != time.Minute || rs.Backend != "zram-lz4" {
			t.Errorf("run %d: spec %+v, want fit %g of round %d", i+1, rs, fits[w.Point], w.Round)
		}
	}
	if inRAM != 4 || seen != 9 {
		t.Errorf("%d in-RAM and %d constrained runs, want 4 and 9", inRAM, seen)
	}
	for i, runs := range rr.Points {
		if len(runs) != 3 {
			t.Errorf("fit %g: %d runs, want 3", fits[i], len(runs))
		}
		for k, r := range runs {
			if r.Fit != fits[i] || r.Rep != k+1 {
				t.Errorf("fit %g run %d: fit %g round %d", fits[i], k+1, r.Fit, r.Rep)
			}
		}
	}
	if len(f.shown) != 13 {
		t.Errorf("progress heard of %d runs, want 13", len(f.shown))
	}
}

// TestRunRoundsNeighbours: on a host that gets 3% slower with every run,
// each constrained run is scored over the mean of the good in-RAM runs
// just before and after it, and that base is what it records; an in-RAM
// run that failed is passed over (and a note says so), and the slowdowns
// stay near the truth where one base for all would be off by a third.
func TestRunRoundsNeighbours(t *testing.T) {
	fits := []float64{0.9, 0.5}
	// Run 4 is round 2's in-RAM run (runs 1-3 are round 1).
	f := &fakeRunner{drift: 0.03, edit: func(n int, r *RunResult) {
		if n == 4 {
			r.Failed = "exit status 1"
		}
	}}
	rr, err := RunRounds(context.Background(), f, fakeSession(fits, 4))
	if err != nil {
		t.Fatal(err)
	}
	if rr.InRAM[1].Failed == "" || rr.InRAM[1].Seq != 4 {
		t.Fatalf("in-RAM runs %+v: the second should be the failed run 4", rr.InRAM)
	}
	if len(f.notes) != 1 || f.notes[0] != "zram-lz4: the in-RAM run 2 failed (exit status 1); it does not count" {
		t.Errorf("notes %q, want the failed in-RAM run's", f.notes)
	}
	good := []RunResult{}
	for _, r := range rr.InRAM {
		if r.Failed == "" {
			good = append(good, r)
		}
	}
	worstOne := 0.0
	for i, runs := range rr.Points {
		for _, r := range runs {
			var before, after *RunResult
			for k := range good {
				if good[k].Seq < r.Seq {
					before = &good[k]
				} else if after == nil {
					after = &good[k]
				}
			}
			want := (before.Wall + after.Wall) / 2
			if r.Base != want {
				t.Errorf("fit %g seq %d: base %g, want %g, the mean of the in-RAM runs at %d and %d", fits[i], r.Seq, r.Base, want, before.Seq, after.Seq)
			}
			if math.Abs(r.Slowdown-r.Wall/want) > 1e-12 {
				t.Errorf("fit %g seq %d: slowdown %g, want wall over base %g", fits[i], r.Seq, r.Slowdown, r.Wall/want)
			}
			if e := r.Slowdown/fakeTruth(fits[i]) - 1; math.Abs(e) > 0.07 {
				t.Errorf("fit %g seq %d: slowdown %.3f, truth %.3f", fits[i], r.Seq, r.Slowdown, fakeTruth(fits[i]))
			}
			worstOne = max(worstOne, math.Abs(r.Wall/good[0].Wall/fakeTruth(fits[i])-1))
		}
	}
	if worstOne < 0.2 {
		t.Errorf("over the first in-RAM run the worst is only %.0f%% off: the drift does not test the pairing", 100*worstOne)
	}
	// The in-RAM summary is over the good runs, in wall seconds.
	if rr.InRAMSeconds.N != 4 {
		t.Errorf("in-RAM summary over %d runs, want the 4 good ones", rr.InRAMSeconds.N)
	}
	// Progress shows an in-RAM run against the good ones so far; the
	// runs kept have no slowdown of their own.
	for _, r := range rr.InRAM {
		if r.Slowdown != 0 {
			t.Errorf("in-RAM run %d keeps a slowdown %g", r.Seq, r.Slowdown)
		}
	}
	if s := f.shown[len(f.shown)-1]; s.Slowdown <= 1 {
		t.Errorf("the closing in-RAM run, slower by the drift, is shown at %g of the median so far", s.Slowdown)
	}
}

// TestRunRoundsPrecision: a precision target adds rounds past --runs until
// every point's interval is within it, and Repetitions says so; a budget
// the first rounds spent stops there; the ceiling of MaxRounds holds.
func TestRunRoundsPrecision(t *testing.T) {
	fits := []float64{0.9, 0.5}
	s := fakeSession(fits, 2)
	s.Rule.Precision = 0.02
	f := &fakeRunner{noise: 0.03, rng: rand.New(rand.NewPCG(1, 2))}
	rr, err := RunRounds(context.Background(), f, s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rr.Repetitions, "precision 2% reached after ") || rr.Rounds <= 2 || rr.Rounds >= MaxRounds {
		t.Fatalf("%d rounds: %q, want the precision reached after more than --runs", rr.Rounds, rr.Repetitions)
	}
	for i := range fits {
		p := rr.Point(i)
		if w := HalfWidth(p.Samples); w > 0.02 || len(p.Samples) != rr.Rounds {
			t.Errorf("fit %g: +-%.1f%% over %d samples after %d rounds", fits[i], 100*w, len(p.Samples), rr.Rounds)
		}
	}
	if len(rr.InRAM) != rr.Rounds+1 {
		t.Errorf("%d in-RAM runs for %d rounds", len(rr.InRAM), rr.Rounds)
	}
	if n := len(f.stages); n != rr.Rounds-2+1 || !strings.HasPrefix(f.stages[1], "zram-lz4: round 3 (widest interval +-") {
		t.Errorf("progress stages %q: want the first and one per added round", f.stages)
	}

	s.Rule.Precision, s.Rule.Budget = 0.001, time.Nanosecond
	rr, err = RunRounds(context.Background(), &fakeRunner{noise: 0.03, rng: rand.New(rand.NewPCG(1, 2))}, s)
	if err != nil {
		t.Fatal(err)
	}
	if rr.Rounds != 2 || !strings.HasPrefix(rr.Repetitions, "budget 1ns spent after 2 rounds without reaching precision 0%") {
		t.Errorf("%d rounds: %q, want the budget spent after the 2 --runs", rr.Rounds, rr.Repetitions)
	}

	s.Rule.Budget = 0
	rr, err = RunRounds(context.Background(), &fakeRunner{noise: 0.3, rng: rand.New(rand.NewPCG(3, 4))}, s)
	if err != nil {
		t.Fatal(err)
	}
	if rr.Rounds != MaxRounds || !strings.HasPrefix(rr.Repetitions, "stopped at 100 rounds without reaching precision") {
		t.Errorf("%d rounds: %q, want the ceiling of %d", rr.Rounds, rr.Repetitions, MaxRounds)
	}
}

// TestRunRoundsCensoring: a run stopped at the cap counts as a sample (its
// time over its base, a lower bound) but not in the means of the complete
// runs; a run that only gives a lower bound counts as the Cap; failed and
// OOM-killed runs are no sample; an in-RAM run at the cap is no base.
func TestRunRoundsCensoring(t *testing.T) {
	fits := []float64{0.9, 0.5}
	s := fakeSession(fits, 3)
	// 1 in-RAM, then the two fits in the seed's order; 4 in-RAM, ...
	f := &fakeRunner{}
	if _, err := RunRounds(context.Background(), f, s); err != nil {
		t.Fatal(err)
	}
	at := func(round int, fit float64) int { // the run number of fit in round
		for i, rs := range f.specs {
			if rs.Rep == round && rs.Fit == fit && rs.Limit > 0 {
				return i + 1
			}
		}
		t.Fatalf("no run at fit %g in round %d", fit, round)
		return 0
	}
	capped, lower, failed, oom := at(1, 0.5), at(2, 0.5), at(3, 0.5), at(2, 0.9)
	f = &fakeRunner{edit: func(n int, r *RunResult) {
		switch n {
		case capped:
			r.Censored, r.Wall = true, 200
		case lower:
			r.LowerOnly, r.Censored = true, true
		case failed:
			r.Failed = "exit status 2"
		case oom:
			r.OOMKilled, r.Failed = true, "OOM-killed inside its cgroup (signal: killed)"
		case 7: // round 3's in-RAM run
			r.Censored, r.Wall = true, 600
		}
	}}
	rr, err := RunRounds(context.Background(), f, s)
	if err != nil {
		t.Fatal(err)
	}
	if rr.InRAMSeconds.N != 3 || rr.InRAMSeconds.Max != 10 {
		t.Errorf("in-RAM summary %+v: the capped in-RAM run (600s) should not be in it", rr.InRAMSeconds)
	}
	if len(f.notes) != 1 || !strings.Contains(f.notes[0], "in-RAM run 3 failed (stopped at its time cap)") {
		t.Errorf("notes %q, want the capped in-RAM run's", f.notes)
	}
	p := rr.Point(1) // fit 0.5: capped, lower bound, failed
	if p.Censored != 2 || p.Failed != 1 || p.OOMKilled != 0 || len(p.Samples) != 2 || p.Tally.N != 0 {
		t.Errorf("fit 0.5: %+v; want 2 censored samples, 1 failed, no complete run in the tally", p)
	}
	if len(p.Samples) == 2 && (p.Samples[0] != 20 || p.Samples[1] != 20) {
		t.Errorf("fit 0.5 samples %v, want 200s over the 10s base (20) and the cap 20", p.Samples)
	}
	p = rr.Point(0) // fit 0.9: one OOM-killed, two complete
	if p.OOMKilled != 1 || p.Failed != 1 || len(p.Samples) != 2 || p.Tally.N != 2 || p.Tally.MajFlt != 900 || len(p.IdleHost) != 2 {
		t.Errorf("fit 0.9: %+v; want 1 OOM-killed (failed), 2 complete runs with 900 faults and idle-host slowdowns", p)
	}
	for _, r := range rr.Points[0] {
		if r.OOMKilled && r.Slowdown != 0 {
			t.Errorf("the OOM-killed run has slowdown %g", r.Slowdown)
		}
		if !r.OOMKilled && math.Abs(r.IdleHost-fakeTruth(0.9)) > 1e-3 {
			t.Errorf("fit 0.9 seq %d: idle-host slowdown %g, want %g (idle wall is 0.9 of wall in and out of RAM)", r.Seq, r.IdleHost, fakeTruth(0.9))
		}
	}
}

// TestRunRoundsStopsOnError: a run that cannot be measured ends the
// session with its error.
func TestRunRoundsStopsOnError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunRounds(ctx, &fakeRunner{}, fakeSession([]float64{0.5}, 2)); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// gatedRunner is the one run's shape: slices of one command, each
// doing 2 CPU seconds, in RAM at 1 wall second per CPU second and at fit
// f at fakeTruth(f); its gate answers from a script, one answer per call
// (Admit once the script is done), and the command ends in the slice
// numbered end.
type gatedRunner struct {
	fakeRunner
	answers []Admission
	asked   []float64 // the fits it was asked about
	firsts  []bool
	end     int
}

func (g *gatedRunner) Run(ctx context.Context, rs RunSpec) (RunResult, error) {
	g.specs = append(g.specs, rs)
	user, wall := 2.0, 2.0
	if rs.Fit > 0 {
		wall *= fakeTruth(rs.Fit)
	}
	r := RunResult{Backend: rs.Backend, Fit: rs.Fit, Rep: rs.Rep, Wall: wall, User: user}
	if len(g.specs) == g.end {
		// Cut short: a tenth of a slice, then no progress at all.
		r.Wall, r.User = 0.2, 0
		return r, ErrEnded
	}
	return r, nil
}

func (g *gatedRunner) Admit(fit float64, first bool) Admission {
	g.asked, g.firsts = append(g.asked, fit), append(g.firsts, first)
	if len(g.answers) == 0 {
		return Admit
	}
	a := g.answers[0]
	g.answers = g.answers[1:]
	return a
}

// TestRunRoundsSteppedUntilTheCommandEnds: a session UntilEnded in the
// fits' own order runs, per round, the in-RAM slice and then the fits
// highest first; its gate puts an in-RAM slice before a fit (a payback
// one when it says so, its spec marked) or skips the fit; the session
// ends in the slice the runner says the command ended in, that slice
// kept, with no closing in-RAM run and no note that a cut in-RAM slice
// measured nothing; slices are scored per CPU second against the in-RAM
// slices next to them.
func TestRunRoundsSteppedUntilTheCommandEnds(t *testing.T) {
	fits := []float64{0.9, 0.6, 0.3}
	g := &gatedRunner{
		// Round 1: 0.9 after a plain in-RAM slice, 0.6 after a payback
		// one, 0.3 skipped. Round 2: all three.
		answers: []Admission{InRAMFirst, Admit, PaybackFirst, Admit, Skip},
		end:     12,
	}
	s := Session{Stage: "zram-lz4: one run", Name: "zram-lz4", Backend: "zram-lz4", InRAMBackend: "zram-lz4",
		Fits: fits, Unit: PerCPUSecond, Work: 1, Descending: true, UntilEnded: true,
		Rule: RoundRule{Runs: 1}, Seed: 7, Stream: 1}
	rr, err := RunRounds(context.Background(), g, s)
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		fit     float64
		rep     int
		payback bool
	}
	want := []run{
		{0, 1, false}, {0, 1, false}, {0.9, 1, false}, {0, 1, true}, {0.6, 1, false},
		{0, 2, false}, {0.9, 2, false}, {0.6, 2, false}, {0.3, 2, false},
		{0, 3, false}, {0.9, 3, false}, {0.6, 3, false}, // the command ends in the 12th
	}
	var got []run
	for _, rs := range g.specs {
		got = append(got, run{rs.Fit, rs.Rep, rs.Payback})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("runs (fit, round, payback):\n got %v\nwant %v", got, want)
	}
	if !slices.Equal(g.firsts, []bool{true, true, false, false, false, true, false, false, true, false}) {
		t.Errorf("gate told first %v", g.firsts)
	}
	if !rr.Ended || rr.Rounds != 3 {
		t.Errorf("ended %v after %d rounds, want ended in round 3", rr.Ended, rr.Rounds)
	}
	if len(rr.InRAM) != 5 || len(rr.Points[0]) != 3 || len(rr.Points[1]) != 3 || len(rr.Points[2]) != 1 {
		t.Fatalf("%d in-RAM slices and %d/%d/%d at the fits, want 5 and 3/3/1",
			len(rr.InRAM), len(rr.Points[0]), len(rr.Points[1]), len(rr.Points[2]))
	}
	for i, r := range append(append([]RunResult{}, rr.InRAM...), rr.Points[0]...) {
		if r.Seq < 1 || r.Seq > 12 {
			t.Errorf("slice %d has seq %d", i, r.Seq)
		}
	}
	// The cut slice at 0.6 measured no CPU time: no slowdown; the others
	// read their truth, all in-RAM slices being alike.
	if last := rr.Points[1][2]; last.Slowdown != 0 || last.Seq != 12 {
		t.Errorf("the cut slice: seq %d, slowdown %g; want seq 12 and none", last.Seq, last.Slowdown)
	}
	for p, runs := range rr.Points {
		for _, r := range runs {
			if r.User > 0 && math.Abs(r.Slowdown-fakeTruth(fits[p])) > 1e-9 {
				t.Errorf("fit %g: slowdown %g, want %g", fits[p], r.Slowdown, fakeTruth(fits[p]))
			}
		}
	}
	if len(g.notes) != 0 {
		t.Errorf("notes %q, want none", g.notes)
	}
	if len(g.stages) != 3 || !strings.HasSuffix(g.stages[2], ": cycle 3") {
		t.Errorf("progress stages %q, want one per round, the third ending \": cycle 3\"", g.stages)
	}
}
