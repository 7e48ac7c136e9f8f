package factors

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memplan/memplan/units"
)

// Defaults are what validation fills in where a file leaves a field out
// and this package does not decide itself: the reader's default dirty
// share and its statistics of a point's per-run samples (the model's are
// a mean and a Student-t interval; package factors computes none, so that
// it needs nothing outside the standard library).
type Defaults struct {
	// DirtyShare is a curve's reference.dirty_share when the file leaves
	// it out.
	DirtyShare units.Ratio
	// Mean is a point's slowdown when the file gives its samples only.
	Mean func(samples []float64) float64
	// Interval is a point's 95% ci when the file gives two or more
	// samples and no ci.
	Interval func(samples []float64) (lo, hi float64)
}

// Parse decodes and validates a factor file (YAML or JSON); file names it
// in errors, which name the line and field at fault. It fills in what the
// file leaves out (d, a curve's write latency, drives and concurrency) and
// sorts each curve's points by falling fit ratio.
func Parse(file string, data []byte, d Defaults) (*File, error) {
	f, err := Decode(file, data)
	if err != nil {
		return nil, err
	}
	if err := f.validate(d); err != nil {
		return nil, err
	}
	return f, nil
}

var validProvenance = []string{Published, Measured, Emulated, Inferred}

// onePass reports whether f was written by memplan profile --one-pass.
func (f *File) onePass() bool {
	p, _ := f.Extra["profile"].(map[string]any)
	m, _ := p["method"].(string)
	return m == OnePassMethod
}

func (f *File) validate(dft Defaults) error {
	d := f.doc
	if strings.TrimSpace(f.Name) == "" {
		return d.Errorf("name", "", "missing")
	}
	if strings.TrimSpace(f.Source) == "" {
		return d.Errorf("source", "say where the numbers come from", "missing")
	}
	if len(f.Curves) == 0 && len(f.Software) == 0 {
		return d.Errorf("curves", "", "no curves: the file has nothing to contribute")
	}
	if f.FaultOverhead < 0 {
		return d.Errorf("fault_overhead", "", "cannot be negative")
	}
	if r := f.FaultOverheadRange; len(r) != 0 {
		if len(r) != 2 || r[0] <= 0 || r[0] > r[1] || (f.FaultOverhead > 0 && (f.FaultOverhead < r[0] || f.FaultOverhead > r[1])) {
			return d.Errorf("fault_overhead_range", "[low, high] around fault_overhead, e.g. [10us, 50us]", "got %v", r)
		}
	}
	for i, t := range f.TargetOverhead {
		p := fmt.Sprintf("target_overhead[%d]", i)
		if strings.TrimSpace(t.Class) == "" {
			return d.Errorf(p+".class", "a device class or the start of one, e.g. nvme-ssd or zram", "missing")
		}
		if t.Overhead <= 0 {
			return d.Errorf(p+".overhead", "the software cost of one page swapped in, e.g. 20us", "got %s, expected more than 0", t.Overhead)
		}
		if r := t.OverheadRange; len(r) != 0 && (len(r) != 2 || r[0] <= 0 || r[0] > t.Overhead || t.Overhead > r[1]) {
			return d.Errorf(p+".overhead_range", "[low, high] around overhead, e.g. [10us, 50us]", "got %v for overhead %s", r, t.Overhead)
		}
		if strings.TrimSpace(t.Source) == "" {
			return d.Errorf(p+".source", "say where the figure comes from", "missing")
		}
	}
	for i, sh := range f.Shapes {
		p := fmt.Sprintf("shapes[%d]", i)
		if strings.TrimSpace(sh.Name) == "" {
			return d.Errorf(p+".name", "e.g. uniform, cold-tail, sweep", "missing")
		}
		if !(sh.Exponent > 0 && sh.Exponent <= 10) {
			return d.Errorf(p+".exponent", "page rate grows as (1-fit)^exponent: above 0, at most 10", "got %g", sh.Exponent)
		}
		if !(sh.Knee >= 0 && sh.Knee < 1) {
			return d.Errorf(p+".knee", "the fit ratio where the exponent changes: from 0 (none) to below 1", "got %g", sh.Knee)
		}
		if sh.Knee > 0 && !(sh.KneeExponent > 0 && sh.KneeExponent <= 10) {
			return d.Errorf(p+".knee_exponent", "page rate grows as (1-fit)^knee_exponent below the knee: above 0, at most 10", "got %g", sh.KneeExponent)
		}
		if sh.Knee == 0 && sh.KneeExponent != 0 {
			return d.Errorf(p+".knee", "the fit ratio below which knee_exponent applies, e.g. 0.75", "missing, with knee_exponent %g", sh.KneeExponent)
		}
		if !(sh.Readahead > 0 && sh.Readahead <= 1) {
			return d.Errorf(p+".readahead_faults", "major faults per page needed back on a block device: above 0, at most 1", "got %g", sh.Readahead)
		}
		if !(sh.Locality >= 0 && sh.Locality <= 1) {
			return d.Errorf(p+".locality", "share of the reads that follow on from the one before: 0 to 1", "got %g", sh.Locality)
		}
		if r := sh.LocalityRange; len(r) != 0 && (len(r) != 2 || !(r[0] >= 0 && r[0] <= sh.Locality && sh.Locality <= r[1] && r[1] < 1)) {
			return d.Errorf(p+".locality_range", "[low, high] around locality, from 0 to below 1", "got %v for locality %g", r, sh.Locality)
		}
		if strings.TrimSpace(sh.Source) == "" {
			return d.Errorf(p+".source", "say what the shape was measured on", "missing")
		}
	}
	if ra := f.Readahead; ra != nil {
		if !(ra.Faults > 0 && ra.Faults <= 1) {
			return d.Errorf("readahead.faults", "major faults per page needed back: above 0, at most 1", "got %g", ra.Faults)
		}
		if !(ra.Pages >= ra.Faults && ra.Pages <= 64) {
			return d.Errorf("readahead.pages", "pages read per page needed back: at least readahead.faults, at most 64", "got %g", ra.Pages)
		}
	}
	for i := range f.Curves {
		c := &f.Curves[i]
		p := fmt.Sprintf("curves[%d]", i)
		if c.Class == "" {
			return d.Errorf(p+".class", "e.g. sata-ssd-slc, nvme-ssd-tlc, hdd, zram-lz4, zswap", "missing")
		}
		ok := false
		for _, v := range validProvenance {
			ok = ok || c.Provenance == v
		}
		if !ok {
			return d.Errorf(p+".provenance", "", "got %q, expected one of %s", c.Provenance, strings.Join(validProvenance, ", "))
		}
		switch {
		case c.Method == "":
		case c.Method != OneRunMethod:
			return d.Errorf(p+".method", "", "got %q; the only method is %q (a curve memplan profile --one-run measured)", c.Method, OneRunMethod)
		case c.Provenance != Measured:
			return d.Errorf(p+".method", "", "%q is how a measured curve was measured (memplan profile --one-run); a %s curve has no method", c.Method, c.Provenance)
		}
		if c.Provenance == Measured && f.onePass() {
			// memplan profile --one-pass wrote "measured" before the
			// format knew inferred; its curves are inferred all the same.
			c.Provenance = Inferred
		}
		if (c.Provenance == Measured || c.Provenance == Emulated || c.Provenance == Inferred) && c.Host == "" {
			return d.Errorf(p+".host", "name the machine the curve was measured on", "missing for a %s curve", c.Provenance)
		}
		if c.Uncertainty < 0 || c.Uncertainty > 5 {
			return d.Errorf(p+".uncertainty", "", "got %g, expected a relative uncertainty such as 25%%", float64(c.Uncertainty))
		}
		r := c.Reference
		if r.ReadLatency <= 0 {
			return d.Errorf(p+".reference.read_latency", "the 4 KiB read latency of the device the curve was measured on", "missing or zero")
		}
		if r.WriteLatency <= 0 {
			c.Reference.WriteLatency = r.ReadLatency
		}
		if r.Drives == 0 {
			c.Reference.Drives = 1
		}
		if r.Concurrency == 0 {
			c.Reference.Concurrency = 1
		}
		if r.DirtyShare == 0 {
			c.Reference.DirtyShare = dft.DirtyShare
		}
		if r.SeqReadLatency < 0 || r.SeqReadLatency > r.ReadLatency {
			return d.Errorf(p+".reference.seq_read_latency", "the latency of a 4 KiB read that follows on from the one before, at most read_latency", "got %s with read_latency %s", r.SeqReadLatency, r.ReadLatency)
		}
		if x := r.DirtyShareRange; len(x) != 0 && (len(x) != 2 || !(x[0] > 0 && x[0] <= c.Reference.DirtyShare && c.Reference.DirtyShare <= x[1] && x[1] <= 1)) {
			return d.Errorf(p+".reference.dirty_share_range", "[low, high] around dirty_share, within (0, 1]", "got %v for dirty_share %g", x, float64(c.Reference.DirtyShare))
		}
		if x := r.WriteBandwidthRange; len(x) != 0 && (len(x) != 2 || r.WriteBandwidth <= 0 || !(x[0] > 0 && x[0] <= r.WriteBandwidth && r.WriteBandwidth <= x[1])) {
			return d.Errorf(p+".reference.write_bandwidth_range", "[low, high] around write_bandwidth, e.g. [30MB, 80MB]", "got %v for write_bandwidth %v", x, r.WriteBandwidth)
		}
		if r.Drives < 0 || r.Concurrency < 0 || r.ReadIOPS < 0 || r.WriteIOPS < 0 {
			return d.Errorf(p+".reference", "", "drives, concurrency and IOPS cannot be negative")
		}
		if len(c.Points) == 0 {
			return d.Errorf(p+".points", "", "a curve needs at least one point")
		}
		for j := range c.Points {
			pt := &c.Points[j]
			pp := fmt.Sprintf("%s.points[%d]", p, j)
			if len(pt.Samples) > 0 && pt.Slowdown == 0 {
				pt.Slowdown = dft.Mean(pt.Samples)
			}
			if !(pt.Fit > 0 && pt.Fit <= 1) {
				return d.Errorf(pp+".fit", "usable RAM / memory touched, between 0 and 1", "got %g", pt.Fit)
			}
			if pt.Fit == 1 && len(c.Points) == 1 {
				return d.Errorf(pp, "measure at least one fit ratio below 1; at fit 1 nothing is swapped", "a curve's only point is at fit 1, which says nothing about swapping")
			}
			if !(pt.Slowdown >= 1) || math.IsInf(pt.Slowdown, 0) {
				return d.Errorf(pp+".slowdown", "runtime relative to all-in-RAM: 1.0 means no slowdown", "got %g, expected 1 or more", pt.Slowdown)
			}
			if pt.Fit == 1 && pt.Slowdown > MaxSlowdownInRAM {
				// Everything is in RAM at fit 1: the point is the
				// reference itself. A curve that slows down there
				// makes every swap configuration lose.
				return d.Errorf(pp+".slowdown", "at fit 1 nothing is swapped; measure the point as the reference or leave it out",
					"got %g at fit 1, where the job is all in RAM; expected 1 (at most %g for run-to-run noise)", pt.Slowdown, MaxSlowdownInRAM)
			}
			for _, r := range []struct {
				name string
				v    float64
			}{{"page_rate", pt.PageRate}, {"block_fault_rate", pt.BlockFaultRate}, {"block_page_rate", pt.BlockPageRate}} {
				if !(r.v >= 0) || math.IsInf(r.v, 0) {
					return d.Errorf(pp+"."+r.name, "pages or faults per second of in-RAM runtime", "got %g, expected 0 or more", r.v)
				}
			}
			if len(pt.CI) == 0 && len(pt.Samples) >= 2 {
				lo, hi := dft.Interval(pt.Samples)
				pt.CI = []float64{lo, hi}
			}
			switch {
			case pt.Source == "":
			case pt.Source != PointOneRun && pt.Source != PointSampler:
				return d.Errorf(pp+".source", "", "got %q, expected %q (measured by the one run) or %q (the one-pass sampler's figure)", pt.Source, PointOneRun, PointSampler)
			case c.Method != OneRunMethod:
				return d.Errorf(pp+".source", "leave it out", "%q marks a point of a one-run curve (method %q); this curve's method is %q", pt.Source, OneRunMethod, c.Method)
			case pt.Source == PointSampler && len(pt.CI) != 2:
				return d.Errorf(pp+".ci", "the one-pass band, [low, high]", "missing for a sampler point")
			}
			if r := pt.FitRange; len(r) != 0 && (len(r) != 2 || !(r[0] > 0 && r[0] <= pt.Fit && pt.Fit <= r[1] && r[1] <= 1)) {
				return d.Errorf(pp+".fit_range", "[low, high] around the fit ratio, within (0, 1]", "got %v for fit %g", r, pt.Fit)
			}
			if len(pt.CI) != 0 && (len(pt.CI) != 2 || pt.CI[0] > pt.Slowdown || pt.CI[1] < pt.Slowdown) {
				return d.Errorf(pp+".ci", "", "expected [low, high] around the slowdown %g", pt.Slowdown)
			}
		}
		sort.Slice(c.Points, func(a, b int) bool { return c.Points[a].Fit > c.Points[b].Fit })
		for j := 1; j < len(c.Points); j++ {
			if c.Points[j].Fit == c.Points[j-1].Fit {
				return d.Errorf(p+".points", "merge the runs into one point", "two points at fit ratio %g", c.Points[j].Fit)
			}
		}
	}
	for i, s := range f.Software {
		p := fmt.Sprintf("software[%d]", i)
		if !strings.HasPrefix(s.Name, "zram-") {
			return d.Errorf(p+".name", "", "got %q, expected zram-<compressor> such as zram-lz4", s.Name)
		}
		if s.Latency <= 0 {
			return d.Errorf(p+".latency", "mean 4 KiB access time, e.g. 1.7us", "missing or zero")
		}
		if s.Ratio < 1 {
			return d.Errorf(p+".ratio", "", "got %g, expected a compression ratio of 1 or more", s.Ratio)
		}
	}
	return checkCurves(f)
}

// checkCurves refuses a curve whose slowdown falls as the fit ratio falls:
// with less of the job in RAM it cannot run faster, so such a curve is a
// typo (points swapped, a fit written as its complement) or a measurement
// gone wrong, and interpolating it would reward buying less memory.
// Measured points carry their own noise: a drop that their 95% intervals
// cover is noise, not an error. Points are sorted by falling fit already.
func checkCurves(f *File) error {
	for i := range f.Curves {
		c := &f.Curves[i]
		for j := 1; j < len(c.Points); j++ {
			hi, lo := c.Points[j-1], c.Points[j] // hi has the larger fit
			if lo.Slowdown >= hi.Slowdown || intervalsOverlap(hi, lo) {
				continue
			}
			return f.doc.Errorf(fmt.Sprintf("curves[%d].points", i),
				"check the points: with less of the job in RAM (a lower fit) the slowdown must be the same or higher; swapped fit or slowdown values are the usual cause",
				"curve %s: slowdown %g at fit %g is below %g at fit %g; a curve cannot fall as the fit ratio falls",
				c.Class, lo.Slowdown, lo.Fit, hi.Slowdown, hi.Fit)
		}
	}
	return nil
}

// intervalsOverlap reports whether both points carry 95% intervals that
// overlap, i.e. the drop between them is within measurement noise.
func intervalsOverlap(a, b Point) bool {
	if len(a.CI) != 2 || len(b.CI) != 2 {
		return false
	}
	return b.CI[1] >= a.CI[0]
}
