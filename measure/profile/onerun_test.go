//go:build linux

package profile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/units"
)

// synthSlices builds the slices of a one run over a job whose wall time
// per second of progress is slow[f] at fit f (1 at fit 0, without a
// limit), the same in every cycle but for a multiplicative wobble, with a
// constant footprint. The first drop, right after the first reference, is
// five times slower than slow[fits[0]] (the whole cold set evicted at
// once) and is not to be read.
func synthSlices(cycles int, fits []float64, slow map[float64]float64, peak units.Bytes, wobble func(c int) float64, faultsPerS float64) []OneRunSlice {
	var out []OneRunSlice
	at := 0.0
	for c := 0; c < cycles; c++ {
		order := append([]float64{0}, fits...)
		if c == 0 {
			order = append([]float64{0, -fits[0]}, fits...)
		}
		for _, f := range order {
			first := f < 0
			f = math.Abs(f)
			r := slow[f] * wobble(c)
			if f == 0 {
				r = wobble(c)
			}
			if first {
				r *= 5
			}
			sl := OneRunSlice{Cycle: c, Fit: f, Start: at, Wall: 0.5 * r, Progress: 0.5, SetWall: 0.125 * r, SetProg: 0.125, Footprint: peak}
			if f > 0 {
				sl.Limit = limitAt(f, peak)
				sl.MajFlt = int64(faultsPerS * 0.5 * (slow[f] - 1))
			}
			at += sl.Wall + sl.SetWall
			out = append(out, sl)
		}
	}
	return out
}

func pointAt(t *testing.T, e oneRunEstimate, f float64) Point {
	t.Helper()
	for _, p := range e.points {
		if p.Fit == f {
			return p
		}
	}
	t.Fatalf("no point at fit %g", f)
	return Point{}
}

func TestOneRunEstimateRecoversASteadyJobsCurve(t *testing.T) {
	fits := []float64{0.9, 0.75, 0.5}
	slow := map[float64]float64{0.9: 1.1, 0.75: 1.4, 0.5: 2.0}
	peak := 1 * units.GiB
	wob := func(c int) float64 { return 1 + 0.02*float64(c%3-1) }
	e := estimateOneRun(synthSlices(6, fits, slow, peak, wob, 0), fits, peak, 0.25, 0, []clock{{}}, rand.New(rand.NewPCG(1, 2)))
	if e.Cycles != 6 || e.refSlices != 6 {
		t.Fatalf("cycles %d, reference slices %d; want 6 and 6", e.Cycles, e.refSlices)
	}
	for _, f := range fits {
		p := pointAt(t, e, f)
		if math.Abs(p.Slowdown.Mean/slow[f]-1) > 0.005 {
			t.Errorf("fit %g: slowdown %.4f, want %.4f", f, p.Slowdown.Mean, slow[f])
		}
		if !(p.Slowdown.Lo <= slow[f] && slow[f] <= p.Slowdown.Hi) || p.Slowdown.Hi/p.Slowdown.Lo > 1.2 {
			t.Errorf("fit %g: band %.3f-%.3f should hold %.3f and be narrow (the wobble is 2%%)", f, p.Slowdown.Lo, p.Slowdown.Hi, slow[f])
		}
		if p.Verdict != "" {
			t.Errorf("fit %g: verdict %q on a fit every cycle measured", f, p.Verdict)
		}
	}
	// The run took the slices' wall time; in RAM its progress takes 1s a
	// second: 6 cycles of 4 x 0.625s of progress, and the first drop's
	// 0.625s (not read, but made).
	if math.Abs(e.InRAM-15.625) > 0.5 {
		t.Errorf("in-RAM estimate %.2fs, want about 15.6s", e.InRAM)
	}
}

// A command whose pace without a limit drifts (its phases differ) must
// not have the drift counted as swapping: each constrained slice is set
// against the reference slices before and after it.
func TestOneRunEstimateSetsEachSliceAgainstTheReferencesAroundIt(t *testing.T) {
	fits := []float64{0.9, 0.75}
	slow := map[float64]float64{0.9: 1.2, 0.75: 1.5}
	peak := 512 * units.MiB
	var slices []OneRunSlice
	at := 0.0
	// The pace without a limit goes from 1 to 3 seconds of wall time per
	// second of progress over the run.
	pace := func(t float64) float64 { return 1 + t/20 }
	for c := 0; c < 5; c++ {
		for _, f := range []float64{0, 0.9, 0.75} {
			r := pace(at)
			sl := OneRunSlice{Cycle: c, Fit: f, Start: at, Progress: 1, Footprint: peak}
			if f > 0 {
				r *= slow[f]
				sl.Limit = limitAt(f, peak)
			}
			sl.Wall = r
			at += r
			slices = append(slices, sl)
		}
	}
	// A last reference closes the run.
	slices = append(slices, OneRunSlice{Cycle: 5, Start: at, Progress: 1, Wall: pace(at), Footprint: peak})
	e := estimateOneRun(slices, fits, peak, 0.25, 0, []clock{{}}, nil)
	for _, f := range fits {
		// Linear interpolation between references is off by the drift
		// within a slice's own span: a few percent here.
		if p := pointAt(t, e, f); math.Abs(p.Slowdown.Mean/slow[f]-1) > 0.05 {
			t.Errorf("fit %g: slowdown %.3f, want %.2f: the drift in RAM was charged to the limit", f, p.Slowdown.Mean, slow[f])
		}
	}
}

// Past the knee nothing is claimed; a fit no slice came near is not
// measured either.
func TestOneRunEstimateClaimsNothingPastTheKnee(t *testing.T) {
	fits := []float64{0.9, 0.6}
	slow := map[float64]float64{0.9: 1.2, 0.6: 4}
	peak := units.GiB
	wob := func(int) float64 { return 1 }
	slices := synthSlices(3, []float64{0.9}, slow, peak, wob, 0)
	e := estimateOneRun(slices, append(fits, 0.3), peak, 0.25, 0.6, []clock{{}}, nil)
	if p := pointAt(t, e, 0.3); p.Slowdown.N != 0 || !strings.Contains(p.Verdict, "past the knee") {
		t.Errorf("fit 0.3 below the knee at 0.6: %+v, want no slowdown and a verdict saying past the knee", p.Slowdown)
	}
	if p := pointAt(t, e, 0.6); p.Slowdown.N != 0 || !strings.Contains(p.Verdict, "no slice ran near this fit") {
		t.Errorf("fit 0.6 was never stepped to: %+v %q", p.Slowdown, p.Verdict)
	}
	if p := pointAt(t, e, 0.9); math.Abs(p.Slowdown.Mean-1.2) > 0.01 {
		t.Errorf("fit 0.9: %.3f, want 1.2", p.Slowdown.Mean)
	}
}

// A job still growing: early cycles' limits were a fit of a smaller
// footprint; over the final footprint they are lower fits, and the fits
// above the footprint at the time ran as if in RAM.
func TestOneRunEstimatePutsEarlyLimitsOverTheFinalFootprint(t *testing.T) {
	peak := units.GiB
	slices := []OneRunSlice{
		// Cycle 0: footprint half the final; the slice at "0.5" of it is
		// fit 0.25 of the final, and slow. The first drop before it is
		// not read.
		{Cycle: 0, Fit: 0, Wall: 1, Progress: 1, Footprint: peak / 2},
		{Cycle: 0, Fit: 0.5, Limit: peak / 4, Wall: 9, Progress: 1, Footprint: peak / 2},
		{Cycle: 0, Fit: 0.5, Limit: peak / 4, Wall: 3, Progress: 1, Footprint: peak / 2},
		// Cycle 1: the full footprint; fit 0.5 costs 1.5.
		{Cycle: 1, Fit: 0, Wall: 1, Progress: 1, Footprint: peak},
		{Cycle: 1, Fit: 0.5, Limit: peak / 2, Wall: 1.5, Progress: 1, Footprint: peak},
	}
	e := estimateOneRun(slices, []float64{0.5}, peak, 0.25, 0, []clock{{}}, nil)
	// At fit 0.5 of the final footprint cycle 0 had no pressure (its
	// footprint was 0.5): (2 x 1 + 2 x 1.5) / (2 + 2) = 1.25.
	if p := pointAt(t, e, 0.5); math.Abs(p.Slowdown.Mean-1.25) > 0.01 {
		t.Errorf("slowdown %.3f, want 1.25", p.Slowdown.Mean)
	}
}

// The leak correction takes the user time the host charged for kernel
// work off every slice's progress; the band spans the other readings.
func TestOneRunEstimateTakesTheLeakOffTheProgress(t *testing.T) {
	fits := []float64{0.75}
	peak := units.GiB
	// Each slice made 1s of progress. A constrained slice also spent
	// 0.5s in the kernel, which a host with a leak of 0.4 reports as 0.2s
	// user and 0.3s system time: the true slowdown is 1.5 / 1.
	slices := []OneRunSlice{
		{Cycle: 0, Fit: 0, Wall: 1, Progress: 1},
		{Cycle: 0, Fit: 0.75, Limit: limitAt(0.75, peak), Wall: 9, Progress: 1.2, Sys: 0.3, MajFlt: 90000}, // the first drop, not read
		{Cycle: 0, Fit: 0.75, Limit: limitAt(0.75, peak), Wall: 1.5, Progress: 1.2, Sys: 0.3, MajFlt: 20000},
		{Cycle: 1, Fit: 0, Wall: 1, Progress: 1},
		{Cycle: 1, Fit: 0.75, Limit: limitAt(0.75, peak), Wall: 1.5, Progress: 1.2, Sys: 0.3, MajFlt: 20000},
	}
	for i := range slices {
		slices[i].Footprint = peak
	}
	raw := pointAt(t, estimateOneRun(slices, fits, peak, 0.25, 0, []clock{{}}, nil), 0.75).Slowdown.Mean
	e := estimateOneRun(slices, fits, peak, 0.25, 0, []clock{{Leak: 0.4}, {}, {Leak: 0.5}}, nil)
	p := pointAt(t, e, 0.75)
	if math.Abs(raw-1.25) > 0.01 || math.Abs(p.Slowdown.Mean-1.5) > 0.01 {
		t.Errorf("user time as reported %.3f (want 1.5/1.2 = 1.25), less the leak %.3f (want 1.5)", raw, p.Slowdown.Mean)
	}
	// With a leak of 0.5 the whole 0.3s of system time comes off too:
	// 1.5 / 0.9.
	lo, hi := 1.25, 1.5/0.9
	if math.Abs(p.Slowdown.Lo-lo) > 0.01 || math.Abs(p.Slowdown.Hi-hi) > 0.01 {
		t.Errorf("band %.3f-%.3f, want the other readings' %.3f-%.3f", p.Slowdown.Lo, p.Slowdown.Hi, lo, hi)
	}
}

func TestClockReadings(t *testing.T) {
	for _, c := range []struct {
		leak, u, sys, want float64
	}{
		{0, 2, 1, 2},        // no leak: user time as reported
		{0.5, 2, 1, 1},      // half the kernel's time was reported as user
		{0.5, 1, 10, 0.05},  // never below a twentieth of the user time
		{1, 2, 1, 2},        // a leak of 1 means nothing: no system time to scale
		{0.25, 0, 1, 0},     // no user time
		{0.2, 1.25, 1, 1.0}, // 0.2/0.8 of 1s
	} {
		if got := (clock{Leak: c.leak}).progress(c.u, c.sys); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("leak %g: progress(%g, %g) = %g, want %g", c.leak, c.u, c.sys, got, c.want)
		}
	}
	var none *AccountingLeak
	if got := none.clocks(); got[0] != (clock{}) || got[2] != (clock{}) {
		t.Errorf("without a measurement the clocks are %v, want user time as reported", got)
	}
	got := (&AccountingLeak{Share: 0.48}).clocks()
	if got[0].Leak != 0.48 || got[1].Leak != 0 || math.Abs(got[2].Leak-0.56) > 1e-9 {
		t.Errorf("clocks for a leak of 0.48: %v, want 0.48, 0 and 0.56", got)
	}
}

func TestParseStatTimesCountsFromTheLastParenthesis(t *testing.T) {
	// A command named "a) b (c" as the kernel prints it; utime 250,
	// cutime 40, 3 threads.
	line := "4242 (a) b (c) R 1 4242 4242 0 -1 4194560 900 0 2 0 250 30 40 5 20 0 3 0 123 456 789"
	ticks, _, threads, ok := parseStatTimes([]byte(line))
	if !ok || ticks != 290 || threads != 3 {
		t.Errorf("got %d ticks, %d threads, ok %v; want 290, 3, true", ticks, threads, ok)
	}
	if _, _, _, ok := parseStatTimes([]byte("4242 (cut")); ok {
		t.Error("a line without its fields parsed")
	}
}

// kneeSlices are cycles 4 and 5 of a one run of Icarus Verilog recorded
// on zram (bench/results/onerun-vvp-2026-12-04.md, repetition 1): the
// reference slice of cycle 5 paid back a refault debt (19,081 major
// faults) and the fit-0.9 slice after it had as many. The first knee rule
// read that slice as 4.9x slower than the run's reference pace on the
// pessimistic reading and stopped stepping; whole runs at fit 0.75 took
// 1.5-1.7x.
var kneeSlices = []OneRunSlice{
	{Cycle: 4, Fit: 0, Wall: 0.6001, Progress: 0.51, MajFlt: 2474},
	{Cycle: 4, Fit: 0.9, Wall: 0.6904, Progress: 0.57, MajFlt: 2859},
	{Cycle: 4, Fit: 0.75, Wall: 0.7514, Progress: 0.61, MajFlt: 3165},
	{Cycle: 4, Fit: 0.6, Wall: 0.6978, Progress: 0.60, MajFlt: 3002},
	{Cycle: 4, Fit: 0.45, Wall: 0.7920, Progress: 0.62, MajFlt: 2873},
	{Cycle: 5, Fit: 0, Wall: 1.0531, Progress: 0.64, MajFlt: 19081},
	{Cycle: 5, Fit: 0.9, Wall: 1.1974, Progress: 0.71, MajFlt: 20493},
}

// TestKneeNotJudgedAgainstADebtPayingReference: a slice read against the
// reference before it and the run's pace, by user time, is not past the
// knee however many faults it had.
func TestKneeNotJudgedAgainstADebtPayingReference(t *testing.T) {
	worst, past := pastKnee(kneeSlices, len(kneeSlices)-1)
	if past {
		t.Errorf("fit 0.9 after a debt-paying reference judged past the knee (worst %.2fx)", worst)
	}
	if worst < 0.9 || worst > 1.25 {
		t.Errorf("worst reading %.2fx, want about 1.02x (1.686 against the reference's 1.645)", worst)
	}
}

// TestKneeStopsASliceFarSlowerThanEveryReference: a slice five times
// slower by user time than the references on either side of the reading
// is past the knee; one 1.2x slower is not.
func TestKneeStopsASliceFarSlowerThanEveryReference(t *testing.T) {
	slices := []OneRunSlice{
		{Cycle: 1, Fit: 0, Wall: 1.0, Progress: 0.9},
		{Cycle: 1, Fit: 0.9, Wall: 1.2, Progress: 0.9, MajFlt: 1000},
		{Cycle: 2, Fit: 0, Wall: 1.0, Progress: 0.9, MajFlt: 10},
		{Cycle: 2, Fit: 0.6, Wall: 5.0, Progress: 0.9, MajFlt: 30000},
	}
	worst, past := pastKnee(slices, 3)
	if !past || worst < 4.9 {
		t.Errorf("fit 0.6 at 5x by user time: past %v, worst %.2fx; want past the knee", past, worst)
	}
	if _, past := pastKnee(slices, 1); past {
		t.Error("fit 0.9 at 1.2x judged past the knee")
	}
}

// A fit read faster than without a limit (the references around it were
// slowed) keeps its figure inside its band.
func TestOneRunBandHoldsAFigureBelowOne(t *testing.T) {
	fits := []float64{0.75}
	peak := units.GiB
	wob := func(c int) float64 { return 1 + 0.03*float64(c%3-1) }
	e := estimateOneRun(synthSlices(5, fits, map[float64]float64{0.75: 0.92}, peak, wob, 0), fits, peak, 0.25, 0, []clock{{}}, rand.New(rand.NewPCG(1, 2)))
	p := pointAt(t, e, 0.75)
	if s := p.Slowdown; s.Mean >= 1 || s.Lo > s.Mean || s.Hi < s.Mean {
		t.Errorf("slowdown %.3f with band %.3f-%.3f: want a figure below 1 inside its band", s.Mean, s.Lo, s.Hi)
	}
}

// The budget reads progress and the reference pace on one clock: a
// command that spends a fifth of its time in RAM in the kernel has that
// time taken off both, and running at its reference pace is no overrun.
func TestOneRunBudgetReadsPaceAndProgressOnOneClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := &stepper{clk: clock{Leak: 0.5}, budget: 0.25, started: t0,
		slices: []OneRunSlice{{Fit: 0, Wall: 1, Progress: 1, Sys: 0.2}}}
	at := func(wall float64) orSample {
		return orSample{at: t0.Add(time.Duration(wall * float64(time.Second))), progress: 1, sys: 0.2}
	}
	if s.overBudget(at(1.1)) {
		t.Error("10% over the reference pace read as over a 25% budget")
	}
	if !s.overBudget(at(1.3)) {
		t.Error("30% over the reference pace not read as over a 25% budget")
	}
}

// A fit's slice starts only if what the last slice there cost beyond its
// progress still fits the budget: 15 s spent on 13 s of progress is
// within 25%, but not with the 1.5 s the last slice at fit 0.6 took over
// its 2 s of progress (settling included); a fit not yet run costs
// nothing ahead, and a slice the command's exit cut is no guide.
func TestOneRunBudgetLooksAheadByTheFitsLastSlice(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := &stepper{budget: 0.25, started: t0, slices: []OneRunSlice{
		{Fit: 0, Wall: 10, Progress: 10},
		{Fit: 0.6, Wall: 3, Progress: 2, SetWall: 0.5, SetProg: 0.2},
		{Fit: 0.45, Wall: 9, Progress: 1, Cut: true},
	}}
	now := orSample{at: t0.Add(15 * time.Second), progress: 12.2 + 1}
	if c := s.sliceCost(0.6); math.Abs(c-1.5) > 1e-9 {
		t.Errorf("fit 0.6's slice cost %.3fs beyond its progress, want 1.5s", c)
	}
	// The refault debt of the slice without a limit after it counts too:
	// its settling part, 0.5s for 0.2s of progress, is 0.3s over.
	paid := &stepper{budget: 0.25, started: t0, slices: append(append([]OneRunSlice{}, s.slices[:2]...),
		OneRunSlice{Fit: 0, Wall: 1.5, SetWall: 0.5, Progress: 1.5, SetProg: 0.2})}
	if c := paid.sliceCost(0.6); math.Abs(c-(1.5+0.3)) > 1e-9 {
		t.Errorf("fit 0.6's slice and the debt after it cost %.3fs, want 1.8s", c)
	}
	if c := s.sliceCost(0.45); c != 0 {
		t.Errorf("a cut slice is no guide: cost %.3fs, want 0", c)
	}
	if s.overBudget(now) {
		t.Error("15s on 13s of progress read as over a 25% budget")
	}
	if !s.overBudgetBy(now, s.sliceCost(0.6)) {
		t.Error("the next slice at fit 0.6 would take the run past its budget; it was allowed")
	}
	if s.overBudgetBy(now, s.sliceCost(0.9)) {
		t.Error("a fit with no slice yet read as over budget")
	}
}

// The run-up (slices without a limit while the command still allocated)
// does not weigh the first cycle, and the first drop (the whole cold set
// evicted at once) neither reads nor weighs: only the reference just
// before the first limit weighs, as every cycle's own does.
func TestOneRunRunUpAndFirstDropDoNotWeigh(t *testing.T) {
	peak := units.GiB
	var slices []OneRunSlice
	for i := 0; i < 4; i++ {
		slices = append(slices, OneRunSlice{Cycle: 0, Fit: 0, Wall: 1, Progress: 1})
	}
	slices = append(slices,
		OneRunSlice{Cycle: 0, Fit: 0.9, Limit: limitAt(0.9, peak), Wall: 3, Progress: 1},   // the first drop
		OneRunSlice{Cycle: 0, Fit: 0.75, Limit: limitAt(0.75, peak), Wall: 2, Progress: 1}) // cycle 0's own reading
	for c := 1; c <= 3; c++ {
		slices = append(slices, OneRunSlice{Cycle: c, Fit: 0, Wall: 1, Progress: 1},
			OneRunSlice{Cycle: c, Fit: 0.9, Limit: limitAt(0.9, peak), Wall: 1.1, Progress: 1},
			OneRunSlice{Cycle: c, Fit: 0.75, Limit: limitAt(0.75, peak), Wall: 1.1, Progress: 1})
	}
	for i := range slices {
		slices[i].Footprint = peak
	}
	e := estimateOneRun(slices, []float64{0.9, 0.75}, peak, 0.25, 0, []clock{{}}, nil)
	// Cycle 0 weighs 2 (its last reference and its 0.75 slice), the
	// others 3. At 0.75: (2 x 2 + 9 x 1.1) / 11 = 1.264 (1.421 with the
	// run-up weighing). At 0.9 cycle 0 reads between 1 at its footprint
	// and 2 at 0.75: 1.4; (2 x 1.4 + 9 x 1.1) / 11 = 1.155 (1.575 had the
	// first drop's 3 been read and weighed).
	if p := pointAt(t, e, 0.75); math.Abs(p.Slowdown.Mean-1.264) > 0.005 {
		t.Errorf("fit 0.75: slowdown %.3f, want 1.264", p.Slowdown.Mean)
	}
	if p := pointAt(t, e, 0.9); math.Abs(p.Slowdown.Mean-1.155) > 0.005 {
		t.Errorf("fit 0.9: slowdown %.3f, want 1.155", p.Slowdown.Mean)
	}
	// Both still count towards the in-RAM estimate: 15s of progress.
	if math.Abs(e.InRAM-15) > 0.01 {
		t.Errorf("in-RAM estimate %.2fs, want 15s", e.InRAM)
	}
}

// The cost's upper reading counts no progress in the settling parts of
// the constrained slices, and the budget goes by it.
func TestOneRunCostCountsNoProgressWhileALimitSettles(t *testing.T) {
	peak := units.GiB
	var slices []OneRunSlice
	for c := 0; c < 2; c++ {
		slices = append(slices, OneRunSlice{Cycle: c, Fit: 0, Wall: 1, Progress: 1, Footprint: peak},
			OneRunSlice{Cycle: c, Fit: 0.75, Limit: limitAt(0.75, peak), SetWall: 0.5, SetProg: 0.5, Wall: 1.2, Progress: 1, Footprint: peak})
	}
	e := estimateOneRun(slices, []float64{0.75}, peak, 0.25, 0, []clock{{}}, nil)
	// Wall 5.4s; progress 5s at the references' pace, 4s without the
	// settling parts' 1s.
	if math.Abs(e.InRAM-5) > 0.01 || math.Abs(e.InRAMLeast-4) > 0.01 || math.Abs(e.ExtraShare-0.08) > 0.001 || math.Abs(e.ExtraMost-0.35) > 0.001 {
		t.Errorf("in RAM %.3f (least %.3f), extra %.3f (most %.3f); want 5 (4), 0.08 (0.35)", e.InRAM, e.InRAMLeast, e.ExtraShare, e.ExtraMost)
	}
	t0 := time.Unix(1000, 0)
	s := &stepper{budget: 0.25, started: t0, slices: slices[:2]}
	// 2.7s of wall for 2.5s of user time: +8% by the clock, +35% with
	// nothing made while the limit settled.
	if !s.overBudget(orSample{at: t0.Add(2700 * time.Millisecond), progress: 2.5}) {
		t.Error("the budget counted the settling part's progress")
	}
}

// A command that grows until its end gets an error that says so, not
// "too short".
func TestGrewToTheEndNamesTheGrowth(t *testing.T) {
	gib := units.GiB
	grew := []OneRunSlice{{Fit: 0, Footprint: gib}, {Fit: 0.9, Footprint: gib}, {Fit: 0, Footprint: 2 * gib}, {Fit: 0.9, Footprint: 2 * gib}}
	if got := grewToTheEnd(grew, 3*gib); !strings.Contains(got, "1GiB at the first limit, 2GiB at the last, 3GiB in all") {
		t.Errorf("grewToTheEnd = %q", got)
	}
	if got := grewToTheEnd(grew, 2*gib); got != "" {
		t.Errorf("a command at its final footprint by its last limit: %q, want \"\"", got)
	}
	if got := grewToTheEnd(grew[:1], 3*gib); got != "" {
		t.Errorf("no constrained slice: %q, want \"\"", got)
	}
}

// The counted part of the run's c0 fit-0.45 slice (truth job, zram,
// 2026-12-04): the first 0.3 s faulted at 7,200/s while the drop's
// reclaim had taken the command's hot pages, the second at 2,700/s. A
// steady slice (3,800/s then 3,600/s) and one whose rate rises are not
// ramps, nor is a first half below the settled rate.
func TestRampInMovesOnlyAFallingFaultRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64, flt int64) orSample {
		return orSample{at: t0.Add(time.Duration(s * float64(time.Second))), majflt: flt}
	}
	for _, c := range []struct {
		name     string
		a, b, c  orSample
		wantRamp bool
	}{
		{"refault debt then steady", at(0, 0), at(0.3, 2160), at(0.6, 2970), true},
		{"steady", at(0, 0), at(0.3, 1140), at(0.6, 2220), false},
		{"rising", at(0, 0), at(0.3, 600), at(0.6, 1800), false},
		{"few faults", at(0, 0), at(0.3, 50), at(0.6, 55), false},
		{"no second half", at(0, 0), at(0.3, 2160), at(0.3, 2160), false},
	} {
		if got := rampIn(c.a, c.b, c.c); got != c.wantRamp {
			t.Errorf("%s: rampIn = %v, want %v", c.name, got, c.wantRamp)
		}
	}
}

// With --peak the limits are fits of the footprint the command will reach
// from the start (a limit over what it holds now binds later, as in a
// whole run at that fit); without it they are fits of the footprint so
// far. Neither leaves more outside the limit than the backend holds.
func TestOneRunLimitsAreFitsOfThePeakHint(t *testing.T) {
	s := &stepper{peak: units.GiB, swapSize: 8 * units.GiB, ceiling: 20 * units.GiB}
	if got, want := s.limitFor(0.6), limitAt(0.6, units.GiB); got != want {
		t.Errorf("no hint: limit %s, want %s (0.6 of the footprint so far)", got, want)
	}
	s.hint = 3 * units.GiB
	if got, want := s.limitFor(0.6), limitAt(0.6, 3*units.GiB); got != want || got <= s.peak {
		t.Errorf("--peak 3GiB: limit %s, want %s (0.6 of the hint, above the 1GiB held now)", got, want)
	}
	s.peak, s.swapSize = 4*units.GiB, units.GiB // grew past the hint, a small backend
	if got, want := s.limitFor(0.3), 4*units.GiB-units.GiB*9/10; got != want {
		t.Errorf("small backend: limit %s, want %s (no more outside than nine tenths of the backend)", got, want)
	}
	if got := s.limitFor(0); got != s.ceiling {
		t.Errorf("fit 0: limit %s, want the ceiling %s", got, s.ceiling)
	}
}

// A slice's settling part adds up every span moved to it: the wait for
// the limit, then a ramp's first half.
func TestSettleAddsEachSpanToTheSettlingPart(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s, prog, sys float64, flt int64) orSample {
		return orSample{at: t0.Add(time.Duration(s * float64(time.Second))), progress: prog, sys: sys, majflt: flt}
	}
	var sl OneRunSlice
	sl.settle(at(0, 0, 0, 0), at(1, 0.5, 0.1, 100))
	sl.settle(at(1, 0.5, 0.1, 100), at(1.5, 0.7, 0.2, 400))
	if math.Abs(sl.SetWall-1.5) > 1e-9 || math.Abs(sl.SetProg-0.7) > 1e-9 || math.Abs(sl.SetSys-0.2) > 1e-9 || sl.SetFlt != 400 {
		t.Errorf("settling part %+v, want wall 1.5, progress 0.7, sys 0.2, 400 faults", sl)
	}
}

func TestUnboundIsAFaultingSliceUnderItsLimit(t *testing.T) {
	lim := 400 * units.MiB
	for _, tc := range []struct {
		name  string
		s     OneRunSlice
		wantU bool
	}{
		{"at its limit, faulting", OneRunSlice{Fit: 0.9, Limit: lim, Wall: 1, MajFlt: 5000, UsageMax: lim - units.MiB}, false},
		{"far under its limit, faulting", OneRunSlice{Fit: 0.9, Limit: lim, Wall: 1, MajFlt: 5000, UsageMax: lim / 2}, true},
		{"far under its limit, not faulting", OneRunSlice{Fit: 0.9, Limit: lim, Wall: 1, MajFlt: 100, UsageMax: lim / 2}, false},
		{"usage not read", OneRunSlice{Fit: 0.9, Limit: lim, Wall: 1, MajFlt: 5000}, false},
		{"a reference", OneRunSlice{Wall: 1, MajFlt: 5000, UsageMax: lim / 2}, false},
	} {
		if got := tc.s.unbound(); got != tc.wantU {
			t.Errorf("%s: unbound = %v, want %v", tc.name, got, tc.wantU)
		}
	}
}

func TestOneRunEstimateSaysWhereAFitsLimitDidNotBind(t *testing.T) {
	peak := units.GiB
	fits := []float64{0.9, 0.6}
	wob := func(int) float64 { return 1 }
	slices := synthSlices(4, fits, map[float64]float64{0.9: 1.05, 0.6: 1.3}, peak, wob, 20000)
	for i := range slices {
		s := &slices[i]
		s.UsageMax = s.Limit // bound
		if s.Fit == 0.9 && s.Cycle >= 2 {
			s.UsageMax = s.Limit / 2 // the last two cycles' 0.9 slices did not bind
		}
	}
	e := estimateOneRun(slices, fits, peak, 0.25, 0, []clock{{}}, nil)
	// Four 0.9 slices count (the first drop does not), two unbound.
	if got := e.Unbound; len(got) != 2 || got[0] != 0.5 || got[1] != 0 {
		t.Fatalf("unbound shares %v, want [0.5 0]", got)
	}
	if v := pointAt(t, e, 0.9).Verdict; !strings.Contains(v, "50% of the progress measured here faulted with the limit not binding") {
		t.Errorf("fit 0.9's verdict %q does not say its limit did not bind", v)
	}
	if v := pointAt(t, e, 0.6).Verdict; v != "" {
		t.Errorf("fit 0.6 bound throughout, yet its verdict is %q", v)
	}
}

func TestTheLeakComesOffOnlySystemTimeSwappingExplains(t *testing.T) {
	c := clock{Leak: 0.5} // a second of user time off per second of system time
	slices := []OneRunSlice{
		{Fit: 0, Start: 0, Wall: 1, Progress: 1, Sys: 0.2},
		// Allocating: system time, not one fault.
		{Fit: 0.9, Start: 1, Wall: 1.4, Progress: 1, Sys: 0.4, Limit: units.GiB},
		// Faulting: 0.5 s of system time, 0.2 of it the references' rate.
		{Fit: 0.6, Start: 2, Wall: 2, Progress: 1, Sys: 0.5, MajFlt: 4000, SetProg: 0.25, SetSys: 0.1, Limit: units.GiB},
		// Allocating with a fault and an eviction: no more than 1 ms of
		// its 0.4 s of system time beyond the rate is the limit's.
		{Fit: 0.75, Start: 3, Wall: 1.4, Progress: 1, Sys: 0.6, MajFlt: 1, SwapOut: 1, Limit: units.GiB},
		{Fit: 0, Start: 4, Wall: 1, Progress: 1, Sys: 0.2},
	}
	got := withClock(slices, c)
	want := []float64{1, 1, 0.7, 0.999, 1}
	for i, w := range want {
		if math.Abs(got[i].Progress-w) > 1e-9 {
			t.Errorf("slice %d (fit %g): progress %.3f, want %.3f", i, slices[i].Fit, got[i].Progress, w)
		}
	}
	// A constrained slice's settling part had the drop's reclaim: its
	// system time beyond the rate comes off (0.1 - 0.2*0.25 = 0.05).
	if math.Abs(got[2].SetProg-0.2) > 1e-9 {
		t.Errorf("settling progress %.3f, want 0.2", got[2].SetProg)
	}
	if slices[2].Progress != 1 {
		t.Errorf("withClock changed its argument")
	}
}

// A peak the budget ran without a limit (a synthesis tool's brief spike):
// the fits whose limits only bound then say their figure does not hold
// it; a fit whose limit bound in its own slices does not.
func TestOneRunEstimateSaysWhereAFitsLimitBoundUnmeasured(t *testing.T) {
	peak := units.GiB
	fits := []float64{0.9, 0.6}
	wob := func(int) float64 { return 1 }
	slices := synthSlices(4, fits, map[float64]float64{0.9: 1.0, 0.6: 1.3}, peak, wob, 20000)
	for i := range slices {
		slices[i].Footprint = peak * 8 / 10 // above 0.6's limit, under 0.9's
	}
	// The spike: 6 s of references holding the whole peak, mid-run.
	mid := len(slices) / 2
	at := slices[mid].Start
	spike := []OneRunSlice{
		{Cycle: slices[mid].Cycle, Start: at, Wall: 3, Progress: 3, Footprint: peak},
		{Cycle: slices[mid].Cycle, Start: at + 3, Wall: 3, Progress: 3, Footprint: peak},
	}
	for i := mid; i < len(slices); i++ {
		slices[i].Start += 6
	}
	slices = append(slices[:mid:mid], append(spike, slices[mid:]...)...)
	e := estimateOneRun(slices, fits, peak, 0.25, 0, []clock{{}}, nil)
	if got := e.BindingUnmeasured; len(got) != 2 || got[0] != 6 || got[1] != 0 {
		t.Fatalf("binding unmeasured %v s, want [6 0]", got)
	}
	if v := pointAt(t, e, 0.9).Verdict; !strings.Contains(v, "for 6s") || !strings.Contains(v, "no slice at this fit ran then") {
		t.Errorf("fit 0.9's verdict %q does not say its limit bound unmeasured", v)
	}
	if v := pointAt(t, e, 0.6).Verdict; strings.Contains(v, "no slice at this fit ran then") {
		t.Errorf("fit 0.6 was measured while its limit bound, yet its verdict is %q", v)
	}
}

// A command that grows through most of its run is told to give --peak; one
// that reaches its footprint early is not.
func TestOneRunStillGrowingAsksForPeak(t *testing.T) {
	grow := []OneRunSlice{
		{Fit: 0, Progress: 1, Footprint: 100 * units.MiB},
		{Fit: 0.9, Progress: 1, Footprint: 300 * units.MiB},
		{Fit: 0, Progress: 1, Footprint: 600 * units.MiB},
		{Fit: 0.9, Progress: 1, Footprint: 1000 * units.MiB},
	}
	got := stillGrowing(grow, 1000*units.MiB)
	if !strings.Contains(got, "75% of its progress") || !strings.Contains(got, "1000MiB") {
		t.Errorf("growing to the end: got %q, want 75%% of the progress under 1000MiB named", got)
	}
	early := []OneRunSlice{
		{Fit: 0, Progress: 1, Footprint: 100 * units.MiB},
		{Fit: 0.9, Progress: 3, Footprint: 950 * units.MiB},
		{Fit: 0, Progress: 3, Footprint: 1000 * units.MiB},
	}
	if got := stillGrowing(early, 1000*units.MiB); got != "" {
		t.Errorf("at its footprint from the second slice: got %q, want nothing", got)
	}
}

// A command that computed on two cores in its reference slices is told
// that its user-time clock can count spinning as progress; one that used
// one core is not.
func TestOneRunParallelCommandIsWarnedOfItsClock(t *testing.T) {
	two := []OneRunSlice{
		{Fit: 0, Wall: 2, Progress: 4},
		{Fit: 0.75, Wall: 3, Progress: 3.8},
		{Fit: 0, Wall: 2, Progress: 3.2},
	}
	got := parallelClock(two)
	if !strings.Contains(got, "up to 2.0 cores") || !strings.Contains(got, "whole runs") {
		t.Errorf("two cores: got %q, want the cores named and whole runs advised", got)
	}
	one := []OneRunSlice{
		{Fit: 0, Wall: 2, Progress: 1.9},
		{Fit: 0.75, Wall: 3, Progress: 4.5}, // constrained slices do not count
		{Fit: 0, Wall: 2, Progress: 2.1},
	}
	if got := parallelClock(one); got != "" {
		t.Errorf("one core: got %q, want nothing", got)
	}
}

// A --peak the command did not reach puts every limit above its fit
// (0.99/0.82/0.66/0.49 of what it held for 0.9/0.75/0.6/0.45): a fit
// between two slices at most oneRunBracket apart reads between them and
// says so, and one with no slice below it, or slices further apart, is
// not measured.
func TestOneRunFitBetweenSlicesReadsBetweenThem(t *testing.T) {
	peak := 1 * units.GiB
	ran := []float64{0.99, 0.82, 0.66, 0.49}
	slow := map[float64]float64{}
	for _, g := range ran {
		slow[g] = 1 + 2*(1-g)
	}
	flat := func(int) float64 { return 1 }
	e := estimateOneRun(synthSlices(6, ran, slow, peak, flat, 0), []float64{0.9, 0.75, 0.6, 0.45, 0.3}, peak, 0.25, 0, []clock{{}}, nil)
	for _, c := range []struct{ fit, want float64 }{{0.9, 1.2}, {0.75, 1.5}, {0.6, 1.8}} {
		p := pointAt(t, e, c.fit)
		if math.Abs(p.Slowdown.Mean-c.want) > 1e-3 {
			t.Errorf("fit %g: %.4f, want %.4f (linear between the slices on either side)", c.fit, p.Slowdown.Mean, c.want)
		}
		if !strings.Contains(p.Verdict, "interpolated between slices at fits") {
			t.Errorf("fit %g: verdict %q does not say it was interpolated", c.fit, p.Verdict)
		}
	}
	if p := pointAt(t, e, 0.45); p.Slowdown.Mean <= 0 || strings.Contains(p.Verdict, "interpolated") {
		t.Errorf("fit 0.45 (a slice at 0.49): %.4f, verdict %q; want measured, not interpolated", p.Slowdown.Mean, p.Verdict)
	}
	if p := pointAt(t, e, 0.3); p.Slowdown.N != 0 || !strings.HasPrefix(p.Verdict, "not measured") {
		t.Errorf("fit 0.3, below every slice: %+v, want not measured", p.Slowdown)
	}
	wide := []float64{0.9, 0.6}
	e = estimateOneRun(synthSlices(6, wide, map[float64]float64{0.9: 1.2, 0.6: 1.8}, peak, flat, 0), []float64{0.75}, peak, 0.25, 0, []clock{{}}, nil)
	if p := pointAt(t, e, 0.75); p.Slowdown.N != 0 {
		t.Errorf("fit 0.75 between slices 0.3 apart: %.4f, want not measured", p.Slowdown.Mean)
	}
}

func TestShortOfPeakNamesTheFitsTheLimitsWere(t *testing.T) {
	got := shortOfPeak(540*units.MiB, units.Bytes(492.5*float64(units.MiB)), []float64{0.9, 0.75, 0.6, 0.45})
	for _, want := range []string{"9% below --peak 540MiB", "fits 0.99, 0.82, 0.66, 0.49 of what it held"} {
		if !strings.Contains(got, want) {
			t.Errorf("shortOfPeak = %q, want it to contain %q", got, want)
		}
	}
	if got := shortOfPeak(540*units.MiB, 520*units.MiB, []float64{0.9}); got != "" {
		t.Errorf("a footprint 4%% short of --peak: %q, want nothing", got)
	}
	if got := shortOfPeak(0, 520*units.MiB, []float64{0.9}); got != "" {
		t.Errorf("no --peak: %q, want nothing", got)
	}
}

// A fit whose limit bound, unmeasured, for 30% of the run keeps its
// central figure, and its band's upper end counts that 30% at the highest
// slowdown measured at or below it; a fit under the 5% share, and one not
// measured, are left alone.
func TestOneRunBandCountsTheBindingUnmeasuredPart(t *testing.T) {
	pt := func(fit, mean, hi float64, n int) Point {
		return Point{Fit: fit, Slowdown: measure.Summary{N: n, Mean: mean, Lo: 1, Hi: hi, Max: hi}}
	}
	pts := []Point{pt(0.9, 1.0, 1.05, 3), pt(0.75, 1.2, 1.3, 3), pt(0.6, 2.0, 2.2, 3), pt(0.45, 0, 0, 0)}
	widenForBinding(pts, []float64{30, 2, 0, 40}, 100)
	want := []float64{0.7*1.0 + 0.3*2.0, 1.3, 2.2, 0}
	for i, p := range pts {
		if math.Abs(p.Slowdown.Hi-want[i]) > 1e-4 {
			t.Errorf("fit %.2f: upper end %.4f, want %.4f", p.Fit, p.Slowdown.Hi, want[i])
		}
	}
	if pts[0].Slowdown.Mean != 1.0 || !strings.Contains(pts[0].Verdict, "counts those 30% of the run at 2.00") {
		t.Errorf("fit 0.9: central %.2f (want 1.00 kept), verdict %q", pts[0].Slowdown.Mean, pts[0].Verdict)
	}
}

// TestOneRunNoteSaysWhenTheBudgetWasMissed: the note said "kept" whatever
// the run cost; a yosys run on a swap file ended at +28.1% by its upper
// reading against a 25% budget (bench/results/onerun-tooknothing-quiet-2026-12-05.md).
func TestOneRunNoteSaysWhenTheBudgetWasMissed(t *testing.T) {
	r := &OneRunReport{Budget: 0.25, Wall: 79.5, InRAM: 68.9, ExtraShare: 0.155, ExtraMost: 0.2807, Cycles: 11, SettleRatio: 1.4}
	got := oneRunExtraNote(r)
	if strings.Contains(got, "kept") || !strings.Contains(got, "budget 25%, the latter over it by 3 points") {
		t.Errorf("over the budget: %q", got)
	}
	r.ExtraMost = 0.2503 // within rounding of the budget
	if got := oneRunExtraNote(r); !strings.Contains(got, "budget 25%, kept by the latter") {
		t.Errorf("at the budget: %q", got)
	}
	r.ExtraMost = 0.19
	if got := oneRunExtraNote(r); !strings.Contains(got, "+19% if nothing progressed while a limit settled (budget 25%, kept by the latter)") {
		t.Errorf("under the budget: %q", got)
	}
}

// A fit whose slices all ran before the command's peak says its figure
// does not hold the peak, even though its limit bound in them; a fit with
// a slice wholly at the peak does not.
func TestOneRunEstimateSaysWhichFitsMissedThePeak(t *testing.T) {
	peak := units.GiB
	fits := []float64{0.9, 0.6}
	wob := func(int) float64 { return 1 }
	slices := synthSlices(4, fits, map[float64]float64{0.9: 1.0, 0.6: 1.3}, peak, wob, 20000)
	for i := range slices {
		slices[i].Footprint = peak * 7 / 10 // above 0.6's limit, under 0.9's
		slices[i].FootprintMin = slices[i].Footprint
	}
	// The peak: a reference, a short slice at 0.9 and a payback, holding
	// the whole footprint, at the end.
	c, at := slices[len(slices)-1].Cycle+1, slices[len(slices)-1].Start+1
	slices = append(slices,
		OneRunSlice{Cycle: c, Start: at, Wall: 1, Progress: 1, Footprint: peak, FootprintMin: peak * 95 / 100},
		OneRunSlice{Cycle: c, Fit: 0.9, Limit: limitAt(0.9, peak), Start: at + 1, Wall: 0.6, Progress: 0.5, Footprint: peak, FootprintMin: peak * 95 / 100},
		OneRunSlice{Cycle: c, Payback: true, Start: at + 1.6, Wall: 4, Progress: 4, Footprint: peak, FootprintMin: peak * 95 / 100})
	e := estimateOneRun(slices, fits, peak, 0.25, 0, []clock{{}}, nil)
	if got := e.PeakUnmeasured; len(got) != 2 || got[0] != 0 || math.Abs(got[1]-5.6) > 1e-6 {
		t.Fatalf("unmeasured at the peak %v s, want [0 5.6]", got)
	}
	if got := e.BindingUnmeasured; got[1] != 0 {
		t.Fatalf("binding unmeasured %v s: 0.6's limit bound in its own slices, want 0 there", got)
	}
	if v := pointAt(t, e, 0.6).Verdict; !strings.Contains(v, "not measured at the peak") || !strings.Contains(v, "for 6s") {
		t.Errorf("fit 0.6's verdict %q does not say it missed the peak", v)
	}
	if v := pointAt(t, e, 0.9).Verdict; strings.Contains(v, "not measured at the peak") {
		t.Errorf("fit 0.9 ran at the peak, yet its verdict is %q", v)
	}
}
