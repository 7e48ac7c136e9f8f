//go:build linux

package onepass

import (
	"math"
	"testing"
	"time"

	"github.com/memplan/memplan/model"
)

const page = 4096.0

func ladderSeconds() []float64 {
	var out []float64
	for _, w := range DefaultLadder {
		out = append(out, w.Seconds())
	}
	return out
}

// curveOf samples a working-set function (pages) at the default ladder.
func curveOf(ws func(tau float64) float64, peakPages float64) *MRC {
	taus := ladderSeconds()
	var w []float64
	for _, t := range taus {
		w = append(w, ws(t)*page)
	}
	return FromCurve(taus, w, nil, peakPages*page)
}

// Uniform random access over N pages at lam references a second: a page
// is missed in a window of tau with probability exp(-lam tau / N), so
// W(tau) = N (1 - exp(-lam tau / N)), and an LRU memory of x pages misses
// a share 1 - x/N of the references: rate(x) = lam (1 - x/N).
func TestUniformRandomRate(t *testing.T) {
	const n, lam = 100000.0, 20000.0
	m := curveOf(func(tau float64) float64 { return n * (1 - math.Exp(-lam*tau/n)) }, n)
	for _, fit := range []float64{0.9, 0.75, 0.6, 0.5} {
		want := lam * (1 - fit)
		r := m.RateAt(fit * n * page)
		if r.Where != "within" {
			t.Errorf("fit %g: rate is %s the ladder, expected within (W spans 0.1-25.6 s)", fit, r.Where)
		}
		if e := r.Central/want - 1; math.Abs(e) > 0.25 {
			t.Errorf("fit %g: rate %.0f pages/s, want %.0f (error %+.0f%%, over 25%%)", fit, r.Central, want, 100*e)
		}
		if want < r.Low || want > r.High {
			t.Errorf("fit %g: true rate %.0f outside the band [%.0f, %.0f]", fit, want, r.Low, r.High)
		}
	}
}

// A cyclic sequential sweep over N pages at lam pages a second touches
// lam tau new pages in a window until it has touched them all: W(tau) =
// min(lam tau, N). An LRU memory smaller than N misses every page (the
// cliff): the rate is lam at every x < N.
func TestSweepCliff(t *testing.T) {
	const n, lam = 100000.0, 100000.0 / 3 // one sweep every 3 s
	m := curveOf(func(tau float64) float64 { return math.Min(lam*tau, n) }, n)
	for _, fit := range []float64{0.9, 0.75, 0.5, 0.2} {
		r := m.RateAt(fit * n * page)
		if e := r.Central/lam - 1; math.Abs(e) > 0.25 {
			t.Errorf("fit %g: rate %.0f pages/s, want the cliff's %.0f (error %+.0f%%)", fit, r.Central, lam, 100*e)
		}
		if lam < r.Low || lam > r.High {
			t.Errorf("fit %g: true rate %.0f outside the band [%.0f, %.0f]", fit, lam, r.Low, r.High)
		}
	}
	// Below the kink W is a straight line: the chords are exact.
	for _, fit := range []float64{0.5, 0.2} {
		if r := m.RateAt(fit * n * page); math.Abs(r.Central/lam-1) > 1e-9 {
			t.Errorf("fit %g on the straight part: rate %.1f, want exactly %.1f", fit, r.Central, lam)
		}
	}
	// The rate does not fall as memory shrinks below N: a cliff, not a slope.
	a, b := m.RateAt(0.5*n*page), m.RateAt(0.2*n*page)
	if a.Central != b.Central {
		t.Errorf("sweep: rate %.0f at fit 0.5 and %.0f at 0.2; expected the same (every page misses)", a.Central, b.Central)
	}
}

// A sweep slower than the longest window: the job comes back to its pages
// after 100 s. The ladder cannot see the reuse; the answer is "beyond" with
// a band from 0 to the last chord, which holds the true rate.
func TestSweepBeyondLadder(t *testing.T) {
	const n, lam = 100000.0, 1000.0
	m := curveOf(func(tau float64) float64 { return math.Min(lam*tau, n) }, n)
	r := m.RateAt(0.5 * n * page)
	if r.Where != "beyond" {
		t.Fatalf("rate is %s the ladder, expected beyond (W reaches %.0f pages of %.0f)", r.Where, m.W[len(m.W)-1]/page, 0.5*n)
	}
	if lam < r.Low || lam > r.High || r.Low != 0 {
		t.Errorf("true rate %.0f: band [%.0f, %.0f], expected [0, >= %.0f]", lam, r.Low, r.High, lam)
	}
}

// A job that only allocates (every page touched once, W' = 0) needs
// nothing back at any size.
func TestNoReuse(t *testing.T) {
	m := curveOf(func(float64) float64 { return 0 }, 1000)
	r := m.RateAt(500 * page)
	if r.Central != 0 || r.Low != 0 {
		t.Errorf("no reuse: rate %g [%g, %g], want 0", r.Central, r.Low, r.High)
	}
	// Pages not reused within the longest window may still be reused
	// after it, at most once per window: the band says so.
	if want := 1000 / DefaultLadder[len(DefaultLadder)-1].Seconds() * Widen; math.Abs(r.High-want) > 1e-9 {
		t.Errorf("no reuse: upper end %g, want peak pages / longest window x %g = %g", r.High, Widen, want)
	}
}

// The variance across windows of a rung widens the band by two standard
// errors of each chord.
func TestSamplingVarianceWidensBand(t *testing.T) {
	taus := ladderSeconds()
	const n, lam = 100000.0, 20000.0
	var w, se []float64
	for _, t := range taus {
		w = append(w, n*(1-math.Exp(-lam*t/n))*page)
		se = append(se, 0.02*n*page)
	}
	quiet := FromCurve(taus, w, nil, n*page).RateAt(0.75 * n * page)
	noisy := FromCurve(taus, w, se, n*page).RateAt(0.75 * n * page)
	if !(noisy.Low < quiet.Low && noisy.High > quiet.High) || noisy.Central != quiet.Central {
		t.Errorf("noisy band [%.0f, %.0f] around %.0f should contain the quiet one [%.0f, %.0f] around %.0f",
			noisy.Low, noisy.High, noisy.Central, quiet.Low, quiet.High, quiet.Central)
	}
}

// Slowdown = 1 + rate x time per page on each device, the band spanning
// the overhead's range, never falling as the fit ratio falls.
func TestPredict(t *testing.T) {
	const n, lam = 100000.0, 20000.0
	m := curveOf(func(tau float64) float64 { return n * (1 - math.Exp(-lam*tau/n)) }, n)
	c := DefaultCosts()
	preds, err := m.Predict([]float64{0.5, 0.9, 0.75}, c)
	if err != nil {
		t.Fatal(err)
	}
	var zram *Prediction
	classes := map[string]bool{}
	for i := range preds {
		classes[preds[i].Class] = true
		if preds[i].Class == "zram-lz4" {
			zram = &preds[i]
		}
	}
	for _, want := range []string{"zram-lz4", "zram-zstd", "hdd", "sata-ssd-slc"} {
		if !classes[want] {
			t.Errorf("no prediction for %s; got %v", want, classes)
		}
	}
	if zram == nil {
		t.Fatal("no zram-lz4 prediction")
	}
	per := (20 + 1.7 + 1.7) * 1e-6 // default overhead, lz4 read and re-compression
	prev := 1.0
	for i, p := range zram.Points {
		if want := []float64{0.9, 0.75, 0.5}[i]; p.Fit != want {
			t.Fatalf("point %d at fit %g, want %g (highest first)", i, p.Fit, want)
		}
		want := 1 + p.Rate.Central*per
		if math.Abs(p.Slowdown-want) > 1e-9 {
			t.Errorf("fit %g: slowdown %.4f, want 1 + %.0f x %.1fus = %.4f", p.Fit, p.Slowdown, p.Rate.Central, per*1e6, want)
		}
		if !(p.Low <= p.Slowdown && p.Slowdown <= p.High) || p.Slowdown < prev {
			t.Errorf("fit %g: slowdown %.3f band [%.3f, %.3f], previous %.3f", p.Fit, p.Slowdown, p.Low, p.High, prev)
		}
		lo := 1 + p.Rate.Low*(10+3.4)*1e-6
		if math.Abs(p.Low-lo) > 1e-9 {
			t.Errorf("fit %g: low %.4f, want the low rate at the 10us overhead: %.4f", p.Fit, p.Low, lo)
		}
		prev = p.Slowdown
	}
	if _, err := m.Predict([]float64{1.5}, c); err == nil {
		t.Error("fit 1.5 accepted")
	}
}

func TestMeasuredOverhead(t *testing.T) {
	c := DefaultCosts().Measured(40*time.Microsecond, "memplan probe on this host")
	if c.OverheadLo != 32*time.Microsecond || c.OverheadHi != 50*time.Microsecond {
		t.Errorf("measured 40us: range %v-%v, want 32us-50us", c.OverheadLo, c.OverheadHi)
	}
	c = c.WithDevice(DeviceCost{Class: "hdd", Dev: model.Device{Name: "vda", ReadLatency: 36 * time.Microsecond, WriteLatency: 28 * time.Microsecond}, Source: "device profile"})
	n := 0
	for _, d := range c.Devices {
		if d.Class == "hdd" {
			n++
			if d.Dev.Name != "vda" {
				t.Errorf("hdd not replaced: %+v", d)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d hdd devices, want 1", n)
	}
}
