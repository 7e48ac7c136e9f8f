package model

import (
	"fmt"
	"math"
	"time"
)

// Device is what the transfer model needs to know about a swap backend: its
// 4 KiB latencies, its IOPS ceilings (zero: not the bottleneck) and how many
// identical devices are striped (RAID 0).
type Device struct {
	Name         string
	ReadLatency  time.Duration
	WriteLatency time.Duration
	ReadIOPS     float64
	WriteIOPS    float64
	Drives       int
}

// ServiceTime is the effective time one job waits per major fault on dev
// when `concurrency` jobs fault at once and a `dirty` share of evictions must
// be written back. It is the larger of the latency bound (software overhead +
// read + dirty x write) and the throughput bound (the array's IOPS shared by
// the concurrent jobs).
func ServiceTime(dev Device, concurrency int, dirty float64, overhead time.Duration) float64 {
	lat := overhead.Seconds() + dev.ReadLatency.Seconds() + dirty*dev.WriteLatency.Seconds()
	if dev.ReadIOPS <= 0 || dev.WriteIOPS <= 0 {
		return lat
	}
	n := dev.Drives
	if n < 1 {
		n = 1
	}
	c := concurrency
	if c < 1 {
		c = 1
	}
	thr := float64(c) * (1/dev.ReadIOPS + dirty/dev.WriteIOPS) / float64(n)
	return math.Max(lat, thr)
}

// Estimate is a predicted slowdown with its 95% band and where it came from.
type Estimate struct {
	Slowdown     float64 `json:"slowdown"`
	Low          float64 `json:"low"`
	High         float64 `json:"high"`
	Provenance   string  `json:"provenance"` // published, measured, emulated, derived
	Basis        string  `json:"basis"`      // human-readable origin
	Extrapolated bool    `json:"extrapolated"`
	// FaultTime is the per-fault service time on the target device (seconds);
	// used to turn excess runtime back into a fault count for wear.
	FaultTime float64 `json:"-"`
}

// Uncertainty added (relative, in quadrature) when a figure is carried beyond
// what was measured.
const (
	extrapolationUncertainty = 0.25
	transferUncertainty      = 0.50
	defaultCurveUncertainty  = 0.25
)

// excessAt evaluates a curve's excess slowdown (S-1) at fit ratio f, with its
// relative uncertainty. Between points (and the implicit point fit=1,
// slowdown=1) it interpolates linearly: the uniform-access law, where faults
// grow with the non-resident share 1-f. Below the lowest point it does not
// trust that law: real jobs have locality, their miss-ratio curve is convex
// and steepens as memory shrinks, so it extends the lowest point with the
// square of the non-resident share (the conservative choice) and marks the
// figure as extrapolated.
func excessAt(c *Curve, f float64) (excess, relUnc float64, extrapolated bool) {
	if f >= 1 {
		return 0, 0, false
	}
	unc := func(p Point) float64 {
		e := p.Slowdown - 1
		if len(p.CI) == 2 && e > 0 {
			return (p.CI[1] - p.CI[0]) / 2 / e
		}
		if c.Uncertainty > 0 {
			return float64(c.Uncertainty)
		}
		return defaultCurveUncertainty
	}
	prevFit, prevEx, prevU := 1.0, 0.0, 0.0
	for i, p := range c.Points { // sorted by fit, descending
		ex := p.Slowdown - 1
		if f >= p.Fit {
			t := (prevFit - f) / (prevFit - p.Fit)
			u := unc(p)
			if i > 0 {
				u = prevU + t*(u-prevU)
			}
			return prevEx + t*(ex-prevEx), u, false
		}
		prevFit, prevEx, prevU = p.Fit, ex, unc(p)
	}
	r := (1 - f) / (1 - prevFit)
	ex := prevEx * r * r
	return ex, math.Hypot(prevU, extrapolationUncertainty), true
}

// Predict estimates the slowdown of a job class at fit ratio f when all its
// non-resident memory lives on dev (class names the curve family), with
// `concurrency` jobs per server and the given dirty share.
func (fs *Factors) Predict(class string, dev Device, concurrency int, dirty, f float64) (Estimate, error) {
	overhead := fs.FaultOverhead.D()
	target := ServiceTime(dev, concurrency, dirty, overhead)
	c, ok := fs.Curves[class]
	derived := false
	if !ok {
		c, ok = fs.Curves[fs.TransferFrom]
		if !ok {
			return Estimate{}, fmt.Errorf("no slowdown curve for %s and no transfer_from curve to derive one", class)
		}
		derived = true
	}
	ref := c.Reference
	refDev := Device{Name: ref.Device, ReadLatency: ref.ReadLatency.D(), WriteLatency: ref.WriteLatency.D(),
		ReadIOPS: ref.ReadIOPS, WriteIOPS: ref.WriteIOPS, Drives: ref.Drives}
	refTime := ServiceTime(refDev, ref.Concurrency, float64(ref.DirtyShare), overhead)
	ratio := target / refTime
	ex, u, extra := excessAt(c, f)
	est := Estimate{Provenance: c.Provenance, Extrapolated: extra, FaultTime: target}
	switch c.Provenance {
	case Measured, Emulated:
		est.Basis = fmt.Sprintf("%s on %s", c.Provenance, c.Host)
	default:
		est.Basis = "published: " + c.Source
	}
	scaled := math.Abs(ratio-1) > 0.005
	if derived {
		est.Provenance = Derived
		est.Basis = fmt.Sprintf("derived from the %s curve (%s) by service time %.3gus vs %.3gus", c.Class, c.Provenance, target*1e6, refTime*1e6)
		u = math.Hypot(u, transferUncertainty)
	} else if scaled {
		est.Basis += fmt.Sprintf("; scaled by service time %.3gus vs %.3gus", target*1e6, refTime*1e6)
		u = math.Hypot(u, transferUncertainty/2)
	}
	ex *= ratio
	est.Slowdown = 1 + ex
	est.Low = 1 + math.Max(0, ex*(1-u)) // u is a relative 95% half-width
	est.High = 1 + ex*(1+u)
	if est.Low > est.Slowdown {
		est.Low = est.Slowdown
	}
	return est, nil
}
