package model

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Device is what the transfer model needs to know about a swap backend: its
// 4 KiB latencies, its IOPS ceilings (zero: not the bottleneck), how many
// identical devices are striped (RAID 0) and whether it is compressed RAM.
type Device struct {
	Name         string
	ReadLatency  time.Duration
	WriteLatency time.Duration
	ReadIOPS     float64
	WriteIOPS    float64
	Drives       int
	// Memory marks compressed RAM (zram): the faulting task decompresses
	// and reclaim compresses in the task's own time, and the kernel reads
	// no pages ahead. Otherwise it is a block device: writes are queued
	// while the task goes on, and a fault may read neighbouring pages.
	Memory bool
}

// MemoryClass reports whether a curve class is compressed RAM rather than
// a block device.
func MemoryClass(class string) bool {
	return strings.HasPrefix(class, "zram") || strings.HasPrefix(class, "zswap")
}

// Readahead is how a job's pages come back from a block device, per page
// it needs back (a page the synchronous zram device would fault on): the
// major faults it takes there (fewer when the kernel's swap readahead
// fetches neighbouring pages the job then uses) and the pages read
// (more than needed when readahead fetches pages the job does not use,
// each costing reclaim). Measured by memplan profile; the zero value means
// not measured: one fault and one page per page needed.
type Readahead struct {
	Faults float64 `yaml:"faults" json:"faults"`
	Pages  float64 `yaml:"pages" json:"pages"`
}

func (r Readahead) orOne() (faults, pages float64) {
	if r.Faults <= 0 || r.Pages <= 0 {
		return 1, 1
	}
	return r.Faults, r.Pages
}

// ServiceTime is the effective time one job loses per page it needs back
// from dev when `concurrency` jobs fault at once and a `dirty` share of
// evictions must be written back. It is the larger of the latency bound
// and the throughput bound (the array's IOPS shared by the concurrent
// jobs).
//
// On compressed RAM the latency bound is the software overhead + read +
// dirty x write: the task itself compresses what reclaim evicts. On a block
// device it is overhead x pages read + faults x read latency (ra): the
// swap-outs are written asynchronously, so their latency is not waited
// for, but their IOPS count in the throughput bound.
func ServiceTime(dev Device, concurrency int, dirty float64, overhead time.Duration, ra Readahead) float64 {
	if dev.Memory {
		return overhead.Seconds() + dev.ReadLatency.Seconds() + dirty*dev.WriteLatency.Seconds()
	}
	faults, pages := ra.orOne()
	lat := overhead.Seconds()*pages + faults*dev.ReadLatency.Seconds()
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
	thr := float64(c) * (faults/dev.ReadIOPS + dirty/dev.WriteIOPS) / float64(n)
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
	p, err := fs.prepare(class, dev, concurrency, dirty)
	if err != nil {
		return Estimate{}, err
	}
	return p.at(f), nil
}

// prepared is everything about a prediction that does not depend on the fit
// ratio, so the search can reuse it across memory sizes.
type prepared struct {
	curve      *Curve
	ratio      float64 // target / reference service time
	target     float64 // seconds per fault on the target device
	provenance string
	basis      string
	extraUnc   float64 // relative uncertainty added by derivation or scaling
}

func (fs *Factors) prepare(class string, dev Device, concurrency int, dirty float64) (prepared, error) {
	overhead := fs.FaultOverhead.D()
	target := ServiceTime(dev, concurrency, dirty, overhead, fs.Readahead)
	c, ok := fs.Curves[class]
	derived := false
	if !ok {
		c, ok = fs.Curves[fs.TransferFrom]
		if !ok {
			return prepared{}, fmt.Errorf("no slowdown curve for %s and no transfer_from curve to derive one", class)
		}
		derived = true
	}
	ref := c.Reference
	refTime := ServiceTime(c.RefDevice(), ref.Concurrency, float64(ref.DirtyShare), overhead, fs.Readahead)
	p := prepared{curve: c, ratio: target / refTime, target: target, provenance: c.Provenance}
	counted := math.Abs(p.ratio-1) > 0.005 && hasRates(c)
	if counted {
		p.curve, p.ratio = countedCurve(c, dev, concurrency, dirty, overhead, fs.Readahead, p.ratio), 1
	}
	switch c.Provenance {
	case Measured, Emulated:
		p.basis = fmt.Sprintf("%s on %s", c.Provenance, c.Host)
	default:
		p.basis = "published: " + c.Source
	}
	switch {
	case derived:
		p.provenance = Derived
		p.basis = fmt.Sprintf("derived from the %s curve (%s) by service time %.3gus vs %.3gus", c.Class, c.Provenance, target*1e6, refTime*1e6)
		p.extraUnc = transferUncertainty
	case counted || math.Abs(p.ratio-1) > 0.005:
		p.basis += fmt.Sprintf("; scaled by service time %.3gus vs %.3gus", target*1e6, refTime*1e6)
		p.extraUnc = transferUncertainty / 2
	}
	if counted {
		p.basis += " (pages counted per fit ratio)"
	}
	return p, nil
}

// hasRates reports whether any point of c carries its page rate.
func hasRates(c *Curve) bool {
	for _, p := range c.Points {
		if p.PageRate > 0 {
			return true
		}
	}
	return false
}

// countedCurve carries a curve whose points count the pages the job
// needed back to dev: each point's excess is its page rate x the service
// time per page on dev, with the point's own readahead on a block device
// (else ra). The software cost of a page is the point's own: what its
// measured excess per page leaves after the reference device's time (a
// job's cost per page changes with its fit ratio as reclaim works harder);
// overhead (the profile's fault_overhead, pooled over its points) stands in
// where the point shows no excess. A point without counts (its runs were
// capped or failed) is scaled by ratio, the curve's service-time ratio.
// The relative width of each point's interval is kept.
func countedCurve(c *Curve, dev Device, concurrency int, dirty float64, overhead time.Duration, ra Readahead, ratio float64) *Curve {
	out := *c
	out.Points = make([]Point, len(c.Points))
	ref := c.RefDevice()
	for i, p := range c.Points {
		if p.PageRate <= 0 {
			q := p
			q.Slowdown = 1 + (p.Slowdown-1)*ratio
			if len(p.CI) == 2 {
				q.CI = []float64{1 + (p.CI[0]-1)*ratio, 1 + (p.CI[1]-1)*ratio}
			}
			out.Points[i] = q
			continue
		}
		pra := ra
		if p.BlockFaultRate > 0 && p.BlockPageRate > 0 {
			pra = Readahead{Faults: math.Min(1, p.BlockFaultRate/p.PageRate), Pages: p.BlockPageRate / p.PageRate}
		}
		o := overhead
		if perPage := (p.Slowdown - 1) / p.PageRate; perPage > 0 {
			devRef := ServiceTime(ref, c.Reference.Concurrency, float64(c.Reference.DirtyShare), 0, pra)
			o = time.Duration(math.Max(0, perPage-devRef) * 1e9)
		}
		ex := p.PageRate * ServiceTime(dev, concurrency, dirty, o, pra)
		q := Point{Fit: p.Fit, Slowdown: 1 + ex}
		if old := p.Slowdown - 1; len(p.CI) == 2 && old > 0 {
			q.CI = []float64{1 + (p.CI[0]-1)*ex/old, 1 + (p.CI[1]-1)*ex/old}
		}
		out.Points[i] = q
	}
	return &out
}

func (p prepared) at(f float64) Estimate {
	ex, u, extra := excessAt(p.curve, f)
	if p.extraUnc > 0 {
		u = math.Hypot(u, p.extraUnc)
	}
	ex *= p.ratio
	est := Estimate{Provenance: p.provenance, Basis: p.basis, Extrapolated: extra, FaultTime: p.target}
	est.Slowdown = 1 + ex
	est.Low = 1 + math.Max(0, ex*(1-u)) // u is a relative 95% half-width
	est.High = 1 + ex*(1+u)
	if est.Low > est.Slowdown {
		est.Low = est.Slowdown
	}
	return est
}
