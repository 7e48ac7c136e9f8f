//go:build linux

package onepass

import (
	"math"
	"testing"
	"time"
)

const mib = 1 << 20

// sweepOf is the curve of one sweep: reads at tau (s) that referenced x
// MiB, of which w MiB existed at the clear, the job holding rss MiB.
func sweepOf(rss float64, tau, x, w []float64) *MRC {
	sw := sweep{pageSize: 4096}
	sw.reset(time.Time{}, rss*mib)
	for i := range tau {
		sw.add(tau[i], x[i]*mib, w[i]*mib, rss*mib)
	}
	return sw.curve()
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// Pages the job allocates in a window are resident (a memory of x bytes
// holds them) but were never needed back. The memory size is read off the
// whole working set X, the rate off the reused part W. A sweep that
// referenced 100 MiB by 1 s (50 of them old) and 200 by 2 s (60 old):
// with 150 MiB resident the window is between 1 and 2 s, where old pages
// come back at (60-50) MiB/s. With W as the size axis, 150 MiB would lie
// beyond the sweep (W never passes 60): the rate was reported as nearly 0.
func TestSizeIsWholeWorkingSetRateIsReuse(t *testing.T) {
	m := sweepOf(300, []float64{1, 2}, []float64{100, 200}, []float64{50, 60})
	r := m.bracket(150 * mib)
	if r.Where != "within" {
		t.Fatalf("150 MiB: %s the ladder, want within (X spans 100-200 MiB)", r.Where)
	}
	if want := 10.0 * mib / 4096; !near(r.Central, want) {
		t.Errorf("150 MiB: rate %.1f pages/s, want (60-50) MiB/s = %.1f", r.Central, want)
	}
	// Below the first read: W through the origin, 50 at 1 s and 60 at 2 s
	// is N (1 - exp(-k tau)) with exp(-k) = 60/50 - 1 = 0.2, k = ln 5,
	// N = 50 / 0.8 = 62.5 MiB; the pages allocated grow at 50 MiB/s (100 -
	// 50 by 1 s). 40 MiB is reached at the tau where 62.5 (1 - 5^-tau) +
	// 50 tau = 40: 0.3095 s (62.5 x 0.3925 + 15.48 = 40.0), where the
	// slope is N k exp(-k tau) = 62.5 ln5 5^-0.3095 MiB/s.
	want := 62.5 * math.Log(5) * math.Pow(5, -0.30954) * mib / 4096
	if r := m.bracket(40 * mib); r.Where != "below" || math.Abs(r.Central/want-1) > 1e-3 {
		t.Errorf("40 MiB: %s, rate %.1f; want below, %.1f pages/s", r.Where, r.Central, want)
	}
	// At or above what the job held nothing is needed back.
	if r := m.bracket(300 * mib); r.Where != "fits" || r.Central != 0 || r.High != 0 {
		t.Errorf("300 MiB (all the job holds): %+v, want fits and 0", r)
	}
}

// A job that builds a table for 1 s (holding 50 MiB) and then looks
// things up for 3 s in 120 MiB (60 MiB referenced in 0.1 s, 120 in 0.2 s,
// all of it old). With 80 MiB resident the build phase needs nothing back
// (it holds less than 80 MiB) and the lookups need back (120-60) MiB per
// 0.1 s = 600 MiB/s: over the run (1 x 0 + 3 x 600) / 4 = 450 MiB/s. The
// mean working set over both sweeps would put 80 MiB elsewhere: averaging
// W before the derivative answers for a phase that never ran.
func TestGridWeighsPhasesByTime(t *testing.T) {
	build := sweepOf(50, []float64{0.1, 0.2}, []float64{20, 45}, []float64{2, 3})
	look := sweepOf(120, []float64{0.1, 0.2}, []float64{60, 120}, []float64{60, 120})
	g := newRateGrid()
	g.Add(build, 1)
	g.Add(look, 3)
	r := g.At(80 * mib)
	if want := 450.0 * mib / 4096; !near(r.Central, want) {
		t.Errorf("80 MiB: rate %.0f pages/s, want (1 x 0 + 3 x 600 MiB/s) / 4 = %.0f", r.Central, want)
	}
	if r.Where != "within" {
		t.Errorf("80 MiB: where %q, want within (3 of the 4 s)", r.Where)
	}
	// Two sweeps that disagree: the band must hold both phases' spread.
	if r.Low > 0 || r.High < 600.0*mib/4096 {
		t.Errorf("80 MiB: band [%.0f, %.0f] pages/s, want it to reach from 0 to the lookups' 600 MiB/s", r.Low, r.High)
	}
	// 130 MiB is more than either phase held: nothing needed back.
	if r := g.At(130 * mib); r.Central != 0 || r.Where != "fits" {
		t.Errorf("130 MiB: %+v, want 0, fits", r)
	}
}

// A sweep cut short (one read at 0.1 s, 50 MiB) says nothing about 150 MiB
// but that it lies beyond; the mean there is the one of the sweep that
// reached it: 2 s of 100 MiB at 1 s and 200 at 2 s (all old), 100 MiB/s.
// Where no sweep reached a size, the cut sweeps' guess is all there is.
func TestGridLeavesCutSweepsOut(t *testing.T) {
	long := sweepOf(300, []float64{1, 2}, []float64{100, 200}, []float64{100, 200})
	cut := sweepOf(300, []float64{0.1}, []float64{50}, []float64{50})
	g := newRateGrid()
	g.Add(long, 2)
	g.Add(cut, 1)
	if r, want := g.At(150*mib), 100.0*mib/4096; !near(r.Central, want) {
		t.Errorf("150 MiB: rate %.0f pages/s, want the long sweep's 100 MiB/s = %.0f", r.Central, want)
	}
	// 250 MiB: beyond both. The long sweep's guess: its last chord, 100
	// MiB/s, falling to 0 at 300 MiB: (300-250)/(300-200) x 100 = 50 MiB/s;
	// the cut one's 500 MiB/s x (300-250)/(300-50) = 100 MiB/s. Weighted:
	// (2 x 50 + 1 x 100) / 3. Linear in x, so the grid, interpolated in
	// log x, is off by a little.
	if r, want := g.At(250*mib), (2*50.0+100)/3*mib/4096; math.Abs(r.Central/want-1) > 0.01 || r.Where != "beyond" {
		t.Errorf("250 MiB: %s, rate %.0f pages/s, want beyond, %.0f", r.Where, r.Central, want)
	}
}

// One sweep alone has no spread across sweeps: its band takes
// DefaultSpread of the rate on both sides, then Widen.
func TestGridOneSweepBand(t *testing.T) {
	g := newRateGrid()
	g.Add(sweepOf(300, []float64{1, 2, 4}, []float64{100, 200, 250}, []float64{100, 200, 250}), 5)
	r := g.At(150 * mib)
	c := 100.0 * mib / 4096 // the chord 1-2 s
	// Bracket: the chords after (25 MiB/s) and before (100, from the
	// origin) it; two standard errors of DefaultSpread x c each way.
	lo := math.Max(0, 25.0*mib/4096-2*DefaultSpread*c) / Widen
	hi := (100.0*mib/4096 + 2*DefaultSpread*c) * Widen
	if !near(r.Central, c) || !near(r.Low, lo) || !near(r.High, hi) {
		t.Errorf("150 MiB: %.0f [%.0f, %.0f] pages/s, want %.0f [%.0f, %.0f]", r.Central, r.Low, r.High, c, lo, hi)
	}
}

// GridFromReads folds a trace as the sampler does: sweeps by number, each
// standing for the time to the next sweep's clear, the last to the end.
func TestGridFromReads(t *testing.T) {
	reads := []Read{
		{Sweep: 1, Start: 0, Window: 0.1, Ref: 20 * mib, New: 18 * mib, Rss: 50 * mib, StartRss: 30 * mib},
		{Sweep: 1, Start: 0, Window: 0.2, Ref: 45 * mib, New: 42 * mib, Rss: 50 * mib, StartRss: 30 * mib},
		{Sweep: 2, Start: 1, Window: 0.1, Ref: 60 * mib, Rss: 120 * mib, StartRss: 120 * mib},
		{Sweep: 2, Start: 1, Window: 0.2, Ref: 120 * mib, Rss: 120 * mib, StartRss: 120 * mib},
	}
	g := GridFromReads(reads, 4, 4096)
	if g.Sweeps != 2 || !near(g.Weight, 4) {
		t.Fatalf("%d sweeps standing for %gs, want 2 for 4s", g.Sweeps, g.Weight)
	}
	if r, want := g.At(80*mib), 450.0*mib/4096; !near(r.Central, want) {
		t.Errorf("80 MiB: rate %.0f pages/s, want %.0f (as TestGridWeighsPhasesByTime)", r.Central, want)
	}
}

// Below the shortest window, uniform random references (the saturating
// form exactly: W = N (1 - exp(-lam tau / N))) give the LRU rate
// lam (1 - x/N). A job that references half its pages within the first
// 0.1 s (lam = 10 N a second) puts fit 0.5 below the ladder, where the
// chord from the origin, (1 - exp(-1)) N / 0.1 s = 0.63 lam, would say
// 0.63 lam instead of 0.5 lam at fit 0.5, and at fit 0.2 0.63 lam
// instead of 0.8 lam: too high at one, too low at the other.
func TestBelowLadderSaturating(t *testing.T) {
	const n, lam = 100000.0, 1000000.0
	m := curveOf(func(tau float64) float64 { return n * (1 - math.Exp(-lam*tau/n)) }, n)
	for _, fit := range []float64{0.5, 0.2} {
		r := m.RateAt(fit * n * page)
		want := lam * (1 - fit)
		if r.Where != "below" || math.Abs(r.Central/want-1) > 1e-6 {
			t.Errorf("fit %g: %s, rate %.0f pages/s, want below, %.0f", fit, r.Where, r.Central, want)
		}
		if want < r.Low || want > r.High {
			t.Errorf("fit %g: true rate %.0f outside the band [%.0f, %.0f]", fit, want, r.Low, r.High)
		}
	}
}

// A sweep whose working set stopped growing informs the mean beyond its
// ladder with its guess, where a sweep cut short while still growing does
// not: the dictionary workload's lookup sweeps flatten at 134 MiB and say
// that 144 MiB needs little back, where one build-phase sweep that reached
// 150 MiB climbing steeply stood alone before.
func TestGridFlatSweepsInform(t *testing.T) {
	build := sweepOf(160, []float64{0.1, 0.6}, []float64{65, 150}, []float64{6, 76})
	flat := sweepOf(160, []float64{0.1, 0.2, 0.4, 0.8, 1.6}, []float64{100, 125, 132, 134, 134.5}, []float64{100, 125, 132, 134, 134.5})
	growing := sweepOf(160, []float64{0.1, 0.2}, []float64{100, 125}, []float64{100, 125})
	if r := flat.bracket(144 * mib); r.Where != "beyond" || !r.Flat {
		t.Fatalf("the flat sweep at 144 MiB: %s, flat %v", r.Where, r.Flat)
	}
	if r := growing.bracket(144 * mib); r.Where != "beyond" || r.Flat {
		t.Fatalf("the growing sweep at 144 MiB: %s, flat %v", r.Where, r.Flat)
	}
	x := 144.0 * mib
	buildRate := build.bracket(x).Central
	flatRate := flat.bracket(x).Central // the last chord 0.5 MiB/0.8 s, falling to 0 at 160
	g := newRateGrid()
	g.Add(build, 3)
	g.Add(flat, 17)
	g.Add(growing, 1) // cut short: left out where a sweep reached x
	want := (3*buildRate + 17*flatRate) / 20
	r := g.At(x)
	if math.Abs(r.Central/want-1) > 0.02 {
		t.Errorf("144 MiB: %.0f pages/s, want the build and flat sweeps' mean %.0f (build alone %.0f)", r.Central, want, buildRate)
	}
	if r.Central > buildRate/4 {
		t.Errorf("144 MiB: %.0f pages/s, the build sweep's %.0f still dominates", r.Central, buildRate)
	}
	if r.Where != "beyond" {
		t.Errorf("144 MiB: where %q, want beyond (most weight lies beyond its ladders)", r.Where)
	}
	// A grid written before Flat was kept reads as before.
	old := g.clone()
	old.Flat = nil
	if r := old.At(x); r.Central <= 0 {
		t.Errorf("a grid without Flat: %+v", r)
	}
}
