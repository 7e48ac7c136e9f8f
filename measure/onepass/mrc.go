//go:build linux

package onepass

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
)

// Widen is the factor the rate band is widened by, on both sides, for what
// neither the ladder's discretisation nor the sampling variance covers: a
// job whose phases differ (the time-averaged working set hides a phase
// that needs more than the average), the kernel's reclaim being only
// roughly LRU, and the working-set policy being a variable allocation
// where a cgroup limit is a fixed one.
const Widen = 1.5

// DefaultSpread is the relative spread assumed for a rung read once when no
// rung was read twice: the working set of the dictionary workload moved by
// this much between sweeps of one run here.
const DefaultSpread = 0.5

// MRC is the job's miss-ratio curve in working-set form: the mean reuse
// working set (pages referenced in a window that were resident before it)
// against the window length, from which the rate of pages needed back at a
// resident size follows.
type MRC struct {
	PageSize int64 `json:"page_size"`
	// Tau are window lengths (s), W the mean reuse working set at each
	// (bytes, made non-decreasing), SE its standard error; the first entry
	// is the origin (0, 0).
	Tau []float64 `json:"tau_s"`
	W   []float64 `json:"w_bytes"`
	SE  []float64 `json:"se_bytes"`
	// X is the whole working set at each window (bytes, non-decreasing):
	// every page referenced in it, those allocated in it included. It is
	// what a memory of x bytes holds (x = X(tau)), where W, which leaves
	// the new pages out, gives the rate (dW/dtau: only pages that existed
	// before are needed back). Nil: X = W (a job that allocates nothing).
	X []float64 `json:"x_bytes,omitempty"`
	// Slope[i] is the chord slope of segment i (Tau[i-1]..Tau[i]), bytes/s.
	Slope []float64 `json:"slope"`
	// Peak is the resident size fit ratios divide (bytes). For the curve of
	// one sweep (Grid) it is the job's resident size during the sweep: a
	// memory of that size holds everything and needs nothing back.
	Peak float64 `json:"peak_bytes"`
	// Grid, when set, carries the rates the sampler derived sweep by sweep
	// and averaged over the run; RateAt reads it instead of the ladder of
	// mean working sets above, which then only describes the run. Not
	// written: it is the samples' grid (Samples.Grid), which is.
	Grid *RateGrid `json:"-"`
	// Spread is the relative standard deviation of a rung's reuse working
	// set across sweeps, pooled; it stands in for the standard error of
	// rungs read once.
	Spread float64 `json:"spread"`
	// AnonShare is the share of the referenced pages that were anonymous
	// (what swap takes; the rest is file-backed and is re-read from its file).
	AnonShare float64 `json:"anon_share"`
}

// Rate is the pages per second a job would need back with x bytes resident,
// with the band that the window ladder and the sampling variance leave,
// widened by Widen.
type Rate struct {
	X       float64 `json:"resident_bytes"`
	Central float64 `json:"rate"`
	Low     float64 `json:"low"`
	High    float64 `json:"high"`
	// Where: "within" the ladder, "below" the shortest window (x is less
	// than the job touches in it: the rate is at least the first chord's
	// and its upper end is a guess), "beyond" the longest window (x is more
	// than the job came back to in it: the rate is at most the last
	// chord's).
	Where string `json:"where"`
	// Flat (beyond only): the sweep's working set had stopped growing by
	// its longest window (its last read referenced at most FlatGrowth more
	// than the one before), so the last chord, and the guess below it, say
	// what the sweep saw rather than where it was cut short.
	Flat bool `json:"flat,omitempty"`
}

// FlatGrowth is the growth of the referenced pages between a sweep's last
// two reads at or below which its working set counts as stopped growing
// (the sampler's rule for ending a sweep).
const FlatGrowth = 0.02

// Curve derives the miss-ratio curve from the samples. peak is the
// resident size that fit ratios divide; 0 takes the sampler's own peak.
func (s Samples) Curve(peak float64) (*MRC, error) {
	if peak <= 0 {
		peak = float64(s.PeakRss)
	}
	m := &MRC{PageSize: 4096, Tau: []float64{0}, W: []float64{0}, SE: []float64{0}, X: []float64{0}, Peak: peak}
	// A rung read once has no spread of its own. It gets the relative
	// spread pooled over the rungs read more than once (or DefaultSpread
	// when none was): a zero would claim a single window is exact.
	spread, nspread := 0.0, 0
	for _, r := range s.Rungs {
		if r.Reuse.N >= 2 && r.Reuse.Mean > 0 {
			spread += math.Pow(r.Reuse.SD()/r.Reuse.Mean, 2)
			nspread++
		}
	}
	if nspread > 0 {
		spread = math.Sqrt(spread / float64(nspread))
	} else {
		spread = DefaultSpread
	}
	m.Spread = spread
	var ref, anon float64
	for _, r := range s.Rungs {
		if r.Reuse.N == 0 {
			continue
		}
		w := math.Max(r.Reuse.Mean, m.W[len(m.W)-1])
		tau := r.Window.Seconds()
		if r.Actual.N > 0 {
			tau = r.Actual.Mean
		}
		if tau <= m.Tau[len(m.Tau)-1] {
			continue // a read that took longer than the gap to the next rung
		}
		m.Tau = append(m.Tau, tau)
		m.W = append(m.W, w)
		m.X = append(m.X, math.Max(math.Max(r.Ref.Mean, w), m.X[len(m.X)-1]))
		se := r.Reuse.SE()
		if r.Reuse.N < 2 {
			se = spread * r.Reuse.Mean
		}
		m.SE = append(m.SE, se)
		ref += r.Ref.Mean * float64(r.Ref.N)
		anon += r.RefAnon.Mean * float64(r.RefAnon.N)
	}
	if len(m.Tau) < 2 {
		return nil, fmt.Errorf("onepass: no window was read (%d sweeps, %d reads skipped for the duty cycle): the job ended before the shortest window (%v) or before the sampler's budget allowed a read; a one-pass profile needs a job that runs for seconds at least",
			s.Sweeps, s.Skipped, firstWindow(s))
	}
	if peak <= 0 {
		return nil, fmt.Errorf("onepass: the job's resident peak is 0: nothing was resident to profile")
	}
	if ref > 0 {
		m.AnonShare = anon / ref
	}
	m.derive()
	if s.Grid != nil && s.Grid.Weight > 0 {
		m.Grid = s.Grid
	}
	return m, nil
}

func firstWindow(s Samples) time.Duration {
	if len(s.Rungs) == 0 {
		return 0
	}
	return s.Rungs[0].Window
}

// FromCurve builds a curve from a working set given directly (tests and
// tools): tau in seconds, w in bytes, se its standard errors (nil: none).
func FromCurve(tau, w, se []float64, peak float64) *MRC {
	m := &MRC{PageSize: 4096, Tau: append([]float64{0}, tau...), W: []float64{0}, SE: []float64{0}, Peak: peak, AnonShare: 1}
	for i, x := range w {
		m.W = append(m.W, math.Max(x, m.W[len(m.W)-1]))
		if se != nil {
			m.SE = append(m.SE, se[i])
		} else {
			m.SE = append(m.SE, 0)
		}
	}
	m.derive()
	return m
}

// derive computes the chord slopes of the piecewise-linear working set.
func (m *MRC) derive() {
	n := len(m.Tau)
	if len(m.X) != n {
		m.X = append([]float64(nil), m.W...)
	}
	m.Slope = make([]float64, n)
	for i := 1; i < n; i++ {
		m.Slope[i] = (m.W[i] - m.W[i-1]) / (m.Tau[i] - m.Tau[i-1])
	}
}

// RateAt is the rate of pages needed back with x bytes resident: the
// derivative dW/dtau at the window where the reuse working set is x (the
// working-set theory: pages re-enter a working set of that size at the
// rate it grows with the window), per page.
//
// The central value is the chord slope of the segment of the ladder that x
// falls in (W interpolated linearly between rungs). It stays right at an
// LRU cliff (a sweep: W grows linearly up to the pages swept, then stops),
// where interpolating derivatives between rungs would smear the cliff.
// The band: for a concave W (a stationary job's mean working set is
// concave in the window), the derivative within a segment lies between
// the chord slopes of the segments after and before it; each end moves out
// by two standard errors of that chord (from the rungs' sampling
// variance), and then by the factor Widen.
func (m *MRC) RateAt(x float64) Rate {
	if m.Grid != nil {
		return m.Grid.At(x)
	}
	return widen(m.bracket(x))
}

// bracket is the rate at x on the ladder alone (the curve of one sweep, or
// the mean working sets of samples without a grid), in pages a second,
// with the band the ladder and its standard errors leave, not yet widened.
func (m *MRC) bracket(x float64) Rate {
	n := len(m.Tau)
	ps := float64(m.PageSize)
	r := Rate{X: x, Where: "within"}
	chordSE := func(i int) float64 {
		if i <= 0 || i >= n {
			return 0
		}
		return math.Hypot(m.SE[i], m.SE[i-1]) / (m.Tau[i] - m.Tau[i-1])
	}
	top := m.X[n-1]
	switch {
	case m.Peak > 0 && x >= m.Peak:
		// Everything the job holds fits: nothing is needed back.
		r.Where = "fits"
		return r
	case x >= top:
		// Beyond the longest window: the job came back to fewer than x
		// bytes within it. The central value lets the last chord's rate
		// fall linearly to 0 at the peak, where nothing is needed back.
		r.Where = "beyond"
		s := math.Max(m.Slope[n-1], 0)
		share := 0.0
		if m.Peak > top {
			share = math.Max(0, (m.Peak-x)/(m.Peak-top))
		}
		// A page the job comes back to only after more than the longest
		// window is needed back at most once per that window: however flat
		// W looks, the pages beyond it may be reused later.
		hi := s + 2*chordSE(n-1)
		if m.Peak > top {
			hi = math.Max(hi, (m.Peak-top)/m.Tau[n-1])
		}
		r.Central, r.Low, r.High = s*share, 0, hi
		r.Flat = n >= 3 && m.X[n-1] <= (1+FlatGrowth)*m.X[n-2]
	default:
		i := sort.Search(n, func(i int) bool { return m.X[i] > x }) // X[i-1] <= x < X[i]
		if i == 0 {
			i = 1
		}
		r.Central = m.Slope[i]
		lo := 0.0
		if i+1 < n {
			lo = m.Slope[i+1] - 2*chordSE(i+1)
		}
		var hi float64
		if i == 1 {
			// Below the shortest window nothing bounds the derivative from
			// above: the chord from the origin, doubled, is the stated guess.
			// For a concave W the rate there falls from above the chord
			// (near 0) to below it (near the first window); the curvature of
			// the first two windows says where x is on that slope.
			r.Where = "below"
			hi = 2*m.Slope[1] + 2*chordSE(1)
			if e, ok := m.saturating(x); ok {
				r.Central = e
				hi = math.Max(hi, e)
			}
		} else {
			hi = m.Slope[i-1] + 2*chordSE(i-1)
		}
		r.Low, r.High = math.Max(0, math.Min(lo, r.Central)), math.Max(hi, r.Central)
	}
	r.Central /= ps
	r.Low /= ps
	r.High /= ps
	return r
}

// saturating is the rate below the shortest window from the working set
// of independent references, W(tau) = N (1 - exp(-k tau)) (each page
// referenced at random with its own rate; with one rate for all it is
// exact, and a job whose pages are referenced at many rates is more
// concave still), through the origin and the first two windows: its
// slope N k exp(-k tau) at tau(x), where the whole working set (W and the
// pages allocated, at the first window's rate) reaches x. A W as straight as a
// sweep's (W2/W1 at least tau2/tau1) gives the chord; one flat already by
// the first window (W2 = W1) says only that the rate is high, and gives
// nothing (ok false).
func (m *MRC) saturating(x float64) (float64, bool) {
	if len(m.Tau) < 3 || m.W[1] <= 0 || m.X[1] <= 0 {
		return 0, false
	}
	t1, t2, w1, w2 := m.Tau[1], m.Tau[2], m.W[1], m.W[2]
	ratio := w2 / w1
	if ratio >= t2/t1 {
		return m.Slope[1], true
	}
	if ratio <= 1+1e-9 {
		return 0, false
	}
	// (1 - exp(-k t2)) / (1 - exp(-k t1)) falls from t2/t1 at k = 0 to 1
	// as k grows: bisect for k on a log scale.
	f := func(k float64) float64 { return -math.Expm1(-k*t2) / -math.Expm1(-k*t1) }
	lo, hi := 1e-6/t1, 1e3/t1
	for it := 0; it < 200; it++ {
		mid := math.Sqrt(lo * hi)
		if f(mid) > ratio {
			lo = mid
		} else {
			hi = mid
		}
	}
	k := math.Sqrt(lo * hi)
	n := w1 / -math.Expm1(-k*t1)
	// The whole working set is W plus the pages allocated, which grow
	// about linearly with the window: X(tau) = W(tau) + a tau through the
	// first window. Solve X(tau) = x on [0, t1].
	a := math.Max(0, m.X[1]-w1) / t1
	lo, hi = 0, t1
	for it := 0; it < 100; it++ {
		mid := (lo + hi) / 2
		if n*-math.Expm1(-k*mid)+a*mid < x {
			lo = mid
		} else {
			hi = mid
		}
	}
	return n * k * math.Exp(-k*(lo+hi)/2), true
}

// widen moves a rate's band out by Widen on both sides.
func widen(r Rate) Rate {
	r.Low /= Widen
	r.High *= Widen
	return r
}

// Costs are what a page needed back costs: the software overhead per page
// (with the range it may span) and the devices to predict for.
type Costs struct {
	Overhead   time.Duration `json:"overhead"`
	OverheadLo time.Duration `json:"overhead_low"`
	OverheadHi time.Duration `json:"overhead_high"`
	// OverheadSource says whether the overhead was measured (the probe's
	// or a profile's) or is the model's default.
	OverheadSource string `json:"overhead_source"`
	// Readahead for block devices (zero: one fault per page, the upper
	// end; one pass over the job cannot see how its pages come back from
	// a block device).
	Readahead factors.Readahead `json:"readahead"`
	Dirty     float64           `json:"dirty_share"`
	Devices   []DeviceCost      `json:"devices"`
}

// DeviceCost is a device class to predict for.
type DeviceCost struct {
	Class  string       `json:"class"`
	Dev    model.Device `json:"device"`
	Source string       `json:"source"`
	// Curve: write this class's curve into the profile (the others are
	// left to the model, which derives them from the profile's page rates).
	Curve bool `json:"curve,omitempty"`
}

// DefaultCosts are the model's defaults: its fault overhead and range, zram
// with each compressor of its software list (zram-lz4 is the profile's
// curve), and the reference devices of its published curves.
func DefaultCosts() Costs {
	f := model.DefaultFactors()
	c := Costs{Overhead: f.FaultOverhead.D(), OverheadSource: "the model's default (not measured on this host)",
		Dirty: model.DefaultDirtyShare}
	c.OverheadLo, c.OverheadHi = c.Overhead, c.Overhead
	if r := f.FaultOverheadRange; len(r) == 2 {
		c.OverheadLo, c.OverheadHi = r[0].D(), r[1].D()
	}
	for _, s := range f.Software {
		w := s.CompressLatency
		if w <= 0 {
			w = s.Latency
		}
		c.Devices = append(c.Devices, DeviceCost{Class: s.Name, Curve: s.Name == "zram-lz4",
			Dev:    model.Device{Name: s.Name, ReadLatency: s.Latency.D(), WriteLatency: w.D(), Memory: true},
			Source: "model default: " + s.Source})
	}
	for i := range f.Curves {
		cv := &f.Curves[i]
		c.Devices = append(c.Devices, DeviceCost{Class: cv.Class, Dev: model.RefDevice(cv), Source: "model default: reference device of " + cv.Source})
	}
	return c
}

// Measured replaces the overhead with a measured one (the probe's or a
// multi-run profile's fault_overhead): the range narrows to ±25% around it.
func (c Costs) Measured(overhead time.Duration, source string) Costs {
	c.Overhead, c.OverheadSource = overhead, source
	c.OverheadLo, c.OverheadHi = time.Duration(float64(overhead)/1.25), time.Duration(float64(overhead)*1.25)
	return c
}

// WithDevice adds (or replaces) a device class, e.g. the host's swap file
// as the device profile measured it.
func (c Costs) WithDevice(d DeviceCost) Costs {
	out := c
	out.Devices = nil
	for _, x := range c.Devices {
		if x.Class != d.Class {
			out.Devices = append(out.Devices, x)
		}
	}
	out.Devices = append(out.Devices, d)
	return out
}

// Prediction is the slowdown predicted for one device class.
type Prediction struct {
	Class  string      `json:"class"`
	Device string      `json:"device"`
	Source string      `json:"source"`
	Points []PredPoint `json:"points"`
}

// PredPoint is one predicted slowdown with its band and the rate it came from.
type PredPoint struct {
	Fit      float64 `json:"fit"`
	Rate     Rate    `json:"rate"`
	Slowdown float64 `json:"slowdown"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
}

// Predict is the slowdown S(fit) = 1 + rate(fit x peak) x PageTime on
// every device of c, for each fit ratio. The rate is made non-increasing in
// the fit ratio (less memory never needs fewer pages back). The band
// combines the rate's band with the overhead's range: low = low rate at
// the low overhead, high = high rate at the high overhead.
func (m *MRC) Predict(fits []float64, c Costs) ([]Prediction, error) {
	if len(fits) == 0 {
		return nil, fmt.Errorf("onepass: no fit ratios to predict at")
	}
	fs := append([]float64(nil), fits...)
	sort.Sort(sort.Reverse(sort.Float64Slice(fs)))
	rates := make([]Rate, len(fs))
	for i, f := range fs {
		if !(f > 0 && f <= 1) {
			return nil, fmt.Errorf("onepass: fit ratio %g: expected memory limit / resident peak, above 0 and at most 1", f)
		}
		rates[i] = m.RateAt(f * m.Peak)
		if i > 0 {
			p := rates[i-1]
			rates[i].Central = math.Max(rates[i].Central, p.Central)
			rates[i].Low = math.Max(rates[i].Low, p.Low)
			rates[i].High = math.Max(rates[i].High, p.High)
		}
	}
	var out []Prediction
	for _, d := range c.Devices {
		p := Prediction{Class: d.Class, Device: d.Dev.Name, Source: d.Source}
		path := func(o time.Duration) model.Path {
			return model.Path{Dev: d.Dev, Jobs: 1, Dirty: c.Dirty, Overhead: o, RA: c.Readahead}
		}
		for i, f := range fs {
			r := rates[i]
			pt := PredPoint{Fit: f, Rate: r,
				Slowdown: path(c.Overhead).Slowdown(r.Central),
				Low:      path(c.OverheadLo).Slowdown(r.Low),
				High:     path(c.OverheadHi).Slowdown(r.High)}
			pt.Low = math.Min(pt.Low, pt.Slowdown)
			pt.High = math.Max(pt.High, pt.Slowdown)
			p.Points = append(p.Points, pt)
		}
		out = append(out, p)
	}
	return out, nil
}
