package model

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/internal/inputfile"
	"github.com/memplan/memplan/internal/stats"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/units"
	"gonum.org/v1/gonum/stat"
)

// Provenance of a slowdown curve.
const (
	Published = factors.Published
	Measured  = factors.Measured
	Emulated  = factors.Emulated
	Inferred  = factors.Inferred
	Derived   = "derived" // computed by memplan from another curve (never in a file)
	InRAM     = "in RAM"  // no swapping: the jobs fit
)

// FactorFile holds slowdown curves (package factors owns the format).
type FactorFile = factors.File

// HostFacts describe the machine a curve was measured on (package factors
// owns the type, so the measuring packages need not import the model).
type HostFacts = factors.HostFacts

// Curve is slowdown versus fit ratio for one backend class.
type Curve = factors.Curve

// Reference is the device and load a curve was obtained with; the transfer
// model scales a curve by the ratio of per-fault service times (package
// factors owns the type).
type Reference = factors.Reference

// RefDevice is the device the curve was obtained on, as the transfer model
// sees it.
func RefDevice(c *Curve) Device {
	r := c.Reference
	seq := r.SeqReadLatency.D()
	if seq <= 0 {
		seq = DefaultSeqReadLatency(c.Class, r.ReadLatency.D())
	}
	return Device{Name: r.Device, ReadLatency: r.ReadLatency.D(), WriteLatency: r.WriteLatency.D(),
		ReadIOPS: r.ReadIOPS, WriteIOPS: r.WriteIOPS, WriteBW: float64(r.WriteBandwidth), SeqReadLatency: seq, Drives: r.Drives, Memory: MemoryClass(c.Class)}
}

// MaxSlowdownInRAM is the most a curve's point at fit 1 may read
// (package factors).
const MaxSlowdownInRAM = factors.MaxSlowdownInRAM

// Point is one measured (or published) slowdown at a fit ratio.
type Point = factors.Point

// Shape is a family of curve shapes: how the pages a job needs back grow
// as its resident share shrinks (package factors).
type Shape = factors.Shape

// Readahead is how a job's pages come back from a block device, per page
// it needs back (package factors).
type Readahead = factors.Readahead

// Software is a compressed in-RAM swap backend (zram with a compressor).
type Software = factors.Software

//go:embed defaults/factors.yaml
var defaultFactors []byte

// DefaultFactors returns the embedded published/derived defaults.
func DefaultFactors() *FactorFile {
	f, err := ParseFactors("embedded:factors", defaultFactors)
	if err != nil {
		panic("embedded factors are invalid: " + err.Error())
	}
	return f
}

// DefaultParameters is the embedded defaults without their curves: the
// software overhead and its range, the shape families and the zram
// compressors, for use under factor files that carry curves of their own.
func DefaultParameters() *FactorFile {
	f := DefaultFactors()
	f.Curves, f.TransferFrom = nil, ""
	return f
}

// DefaultFactorsSource returns the embedded defaults as written.
func DefaultFactorsSource() []byte { return defaultFactors }

// LoadFactors reads a factor file (YAML or JSON).
func LoadFactors(path string) (*FactorFile, error) {
	return LoadFactorsContext(context.Background(), path)
}

// LoadFactorsContext reads a factor file (a regular file of at most
// inputfile.Limit bytes); cancelling ctx stops the read.
func LoadFactorsContext(ctx context.Context, path string) (*FactorFile, error) {
	data, err := inputfile.Read(ctx, path, inputfile.Limit)
	if err != nil {
		return nil, fmt.Errorf("reading factors: %w", err)
	}
	return ParseFactors(inputfile.Name(path), data)
}

// ParseFactors decodes and validates a factor file.
func ParseFactors(file string, data []byte) (*FactorFile, error) {
	f, err := factors.Decode(file, data)
	if err != nil {
		return nil, err
	}
	if err := validateFactors(f); err != nil {
		return nil, err
	}
	return f, nil
}

var validProvenance = []string{Published, Measured, Emulated, Inferred}

// OnePassMethod and OneRunMethod are the ways memplan profile measures
// (package factors).
const (
	OnePassMethod = factors.OnePassMethod
	OneRunMethod  = factors.OneRunMethod
)

// OneRunBasis says how a one-run curve was measured, for bases and
// verdicts.
const OneRunBasis = "in one run under a stepped memory limit (memplan profile --one-run)"

// onePass reports whether f was written by memplan profile --one-pass.
func onePass(f *FactorFile) bool {
	p, _ := f.Extra["profile"].(map[string]any)
	m, _ := p["method"].(string)
	return m == OnePassMethod
}

func validateFactors(f *FactorFile) error {
	d := f
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
		if c.Provenance == Measured && onePass(f) {
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
			c.Reference.DirtyShare = DefaultDirtyShare
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
				pt.Slowdown = stat.Mean(pt.Samples, nil)
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
				// makes every swap configuration lose (issue 27).
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
				lo, hi := stats.MeanInterval(pt.Samples, 0.95)
				pt.CI = []float64{lo, hi}
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
	return checkCurves(f) // curvecheck.go
}

// TInterval is the two-sided Student-t confidence interval of the mean
// (internal/stats owns it; this name is kept for callers outside).
func TInterval(xs []float64, level float64) (lo, hi float64) { return stats.MeanInterval(xs, level) }

// Factors is the merged set of curves the model uses: later files override
// curves of the same class from earlier ones. Its predictions are cached
// (the transfer error, the joint agreement and plan, prepared curves), so
// its fields must not change after its first prediction: copy it through
// a new MergeFactors instead.
type Factors struct {
	Files         []*FactorFile
	Curves        map[string]*Curve
	Software      map[string]Software
	TransferFrom  string
	FaultOverhead units.Duration
	// FaultOverheadRange is [low, high] when the overhead was not measured.
	FaultOverheadRange [2]units.Duration
	// TargetOverhead: by class, a later file's entry replacing an
	// earlier one's for the same class.
	TargetOverhead []TargetOverhead
	Shapes         []Shape
	Readahead      Readahead
	Origin         map[string]string // class -> file it came from

	transfer *transferCache
	rates    *rateCache
	joint    *jointCache
	preps    *prepCache
}

// prepCache holds prepared predictions for every search over this factor
// set: the uncertainty and break-even analyses re-run the search many
// times over the same devices and loads.
type prepCache struct {
	mu sync.Mutex
	m  map[prepKey]prepared
	// ests are the predictions of the repeated searches (evaluator.predict).
	ests map[estKey]Estimate
}

// TargetOverhead is the software cost of one page swapped in on the
// devices of a class, with the range it may really lie in.
type TargetOverhead = factors.TargetOverhead

// at is the overhead moved a share pos of the way through its range
// (-1 its low end, +1 its high end).
func overheadAt(t TargetOverhead, pos float64) time.Duration {
	o := t.Overhead.D()
	if r := t.OverheadRange; len(r) == 2 && pos != 0 {
		return time.Duration(towards(float64(o), float64(r[0]), float64(r[1]), pos))
	}
	return o
}

// targetOverhead is the software cost of class's devices as a prediction's
// target: the entry whose class is the longest start of it (nil: none, and
// the target takes the factor set's fault_overhead, as its references do).
func (fs *Factors) targetOverhead(class string) *TargetOverhead {
	var best *TargetOverhead
	for i, t := range fs.TargetOverhead {
		if strings.HasPrefix(class, t.Class) && (best == nil || len(t.Class) > len(best.Class)) {
			best = &fs.TargetOverhead[i]
		}
	}
	return best
}

// overheadPos is where overhead o lies in the factor set's fault_overhead
// range: -1 its low end, 0 the stated figure, +1 its high end.
func (fs *Factors) overheadPos(o time.Duration) float64 {
	n, lo, hi := fs.FaultOverhead.D(), fs.FaultOverheadRange[0].D(), fs.FaultOverheadRange[1].D()
	switch {
	case o == n || lo <= 0 || hi <= 0:
		return 0
	case o < n && n > lo:
		return -float64(n-o) / float64(n-lo)
	case o > n && hi > n:
		return float64(o-n) / float64(hi-n)
	}
	return 0
}

// MergeFactors combines factor files in order; the defaults usually come first.
func MergeFactors(files ...*FactorFile) (*Factors, error) {
	fs := &Factors{Curves: map[string]*Curve{}, Software: map[string]Software{}, Origin: map[string]string{}, transfer: &transferCache{}, rates: &rateCache{}, joint: &jointCache{}, preps: &prepCache{}}
	for _, f := range files {
		fs.Files = append(fs.Files, f)
		for i := range f.Curves {
			c := f.Curves[i]
			fs.Curves[c.Class] = &c
			fs.Origin[c.Class] = f.File
		}
		for _, s := range f.Software {
			fs.Software[s.Name] = s
		}
		if f.TransferFrom != "" {
			fs.TransferFrom = f.TransferFrom
		}
		if f.FaultOverhead > 0 {
			// A measured overhead comes without a range: it is what it is.
			fs.FaultOverhead = f.FaultOverhead
			fs.FaultOverheadRange = [2]units.Duration{}
			if r := f.FaultOverheadRange; len(r) == 2 {
				fs.FaultOverheadRange = [2]units.Duration{r[0], r[1]}
			}
		}
		for _, t := range f.TargetOverhead {
			replaced := false
			for i := range fs.TargetOverhead {
				if fs.TargetOverhead[i].Class == t.Class {
					fs.TargetOverhead[i], replaced = t, true
				}
			}
			if !replaced {
				fs.TargetOverhead = append(fs.TargetOverhead, t)
			}
		}
		for _, sh := range f.Shapes {
			replaced := false
			for i := range fs.Shapes {
				if fs.Shapes[i].Name == sh.Name {
					fs.Shapes[i], replaced = sh, true
				}
			}
			if !replaced {
				fs.Shapes = append(fs.Shapes, sh)
			}
		}
		if f.Readahead != nil {
			fs.Readahead = *f.Readahead
		}
	}
	if fs.TransferFrom != "" && fs.Curves[fs.TransferFrom] == nil {
		var f *FactorFile
		for _, x := range files {
			if x.TransferFrom == fs.TransferFrom {
				f = x
			}
		}
		if f != nil && f.Parsed() {
			return nil, f.Errorf("transfer_from", "name a class that has a curve: "+strings.Join(fs.Classes(), ", "), "no factor file has a curve for class %q", fs.TransferFrom)
		}
		return nil, fmt.Errorf("%w: transfer_from names class %q but no factor file has a curve for it", yamlx.ErrInput, fs.TransferFrom)
	}
	return fs, nil
}

// MergeProfile combines the factor files with a job's profile (written by
// memplan profile, or by hand in the same format) for that job alone. When
// the profile names a transfer_from curve, published curves of classes the
// profile did not measure give way to it: they were measured on other
// jobs, and this job's own curve, carried over by service time, says more
// about it. Curves measured on real or emulated devices (memplan probe) are
// kept.
func MergeProfile(files []*FactorFile, profile *FactorFile) (*Factors, error) {
	fs, err := MergeFactors(append(append([]*FactorFile{}, files...), profile)...)
	if err != nil {
		return fs, err
	}
	// The readahead is the job's own: another file's says nothing about it.
	fs.Readahead = Readahead{}
	if profile.Readahead != nil {
		fs.Readahead = *profile.Readahead
	}
	if profile.TransferFrom == "" {
		return fs, nil
	}
	own := map[string]bool{}
	for _, c := range profile.Curves {
		own[c.Class] = true
	}
	for class, c := range fs.Curves {
		if !own[class] && c.Provenance == Published {
			delete(fs.Curves, class)
			delete(fs.Origin, class)
		}
	}
	return fs, nil
}

// Classes lists the curve classes in a stable order.
func (fs *Factors) Classes() []string {
	out := make([]string, 0, len(fs.Curves))
	for k := range fs.Curves {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// LoadJobProfiles reads the profile of every job class that names one and
// merges it with files for that job alone (MergeProfile). A profile that
// does not exist is an input error at the job's profile field.
func LoadJobProfiles(w *Workload, files []*FactorFile) (map[string]*Factors, error) {
	var out map[string]*Factors
	for i, j := range w.Jobs {
		if j.Profile == "" {
			continue
		}
		f, err := LoadFactors(j.Profile)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, w.ErrorAt(fmt.Sprintf("jobs[%d].profile", i), "run `memplan profile` to create it, or remove the field", "no such file %s", j.Profile)
			}
			if ie := (*yamlx.InputError)(nil); errors.As(err, &ie) && ie.Kind != "" {
				// The mistake is the workload's line, not the file.
				return nil, w.ErrorAt(fmt.Sprintf("jobs[%d].profile", i), "name the file `memplan profile` wrote for this job",
					"%s is %s, not a profile", j.Profile, ie.Kind)
			}
			return nil, err
		}
		jf, err := MergeProfile(files, f)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]*Factors{}
		}
		out[j.Name] = jf
	}
	return out, nil
}
