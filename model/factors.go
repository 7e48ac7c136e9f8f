package model

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/internal/stats"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/units"
	"gonum.org/v1/gonum/stat"
)

// Provenances the model gives a figure beyond a factor file's
// (factors.Published, Measured, Emulated, Inferred).
const (
	Derived = "derived" // computed by memplan from another curve (never in a file)
	InRAM   = "in RAM"  // no swapping: the jobs fit
)

// RefDevice is the device the curve was obtained on, as the transfer model
// sees it.
func RefDevice(c *factors.Curve) Device {
	r := c.Reference
	seq := r.SeqReadLatency.D()
	if seq <= 0 {
		seq = DefaultSeqReadLatency(c.Class, r.ReadLatency.D())
	}
	return Device{Name: r.Device, ReadLatency: r.ReadLatency.D(), WriteLatency: r.WriteLatency.D(),
		ReadIOPS: r.ReadIOPS, WriteIOPS: r.WriteIOPS, WriteBW: float64(r.WriteBandwidth), SeqReadLatency: seq, Drives: r.Drives, Memory: MemoryClass(c.Class)}
}

//go:embed defaults/factors.yaml
var defaultFactors []byte

// DefaultFactors returns the embedded published/derived defaults.
func DefaultFactors() *factors.File {
	f, err := ParseFactors("embedded:factors", defaultFactors)
	if err != nil {
		panic("embedded factors are invalid: " + err.Error())
	}
	return f
}

// DefaultParameters is the embedded defaults without their curves: the
// software overhead and its range, the shape families and the zram
// compressors, for use under factor files that carry curves of their own.
func DefaultParameters() *factors.File {
	f := DefaultFactors()
	f.Curves, f.TransferFrom = nil, ""
	return f
}

// DefaultFactorsSource returns the embedded defaults as written.
func DefaultFactorsSource() []byte { return defaultFactors }

// LoadFactors reads a factor file (YAML or JSON).
func LoadFactors(path string) (*factors.File, error) {
	return LoadFactorsContext(context.Background(), path)
}

// LoadFactorsContext reads a factor file (factors.Load with the model's
// defaults); cancelling ctx stops the read.
func LoadFactorsContext(ctx context.Context, path string) (*factors.File, error) {
	return factors.Load(ctx, path, factorDefaults)
}

// ParseFactors decodes and validates a factor file (factors.Parse with
// the model's defaults).
func ParseFactors(file string, data []byte) (*factors.File, error) {
	return factors.Parse(file, data, factorDefaults)
}

// factorDefaults fill in what a factor file leaves out: the model's dirty
// share, and a point's slowdown and 95% interval from its samples (the
// mean and the Student-t interval of the mean).
var factorDefaults = factors.Defaults{
	DirtyShare: DefaultDirtyShare,
	Mean:       func(xs []float64) float64 { return stat.Mean(xs, nil) },
	Interval:   func(xs []float64) (lo, hi float64) { return stats.MeanInterval(xs, 0.95) },
}

// OneRunBasis says how a one-run curve was measured, for bases and
// verdicts.
const OneRunBasis = "in one run under a stepped memory limit (memplan profile --one-run)"

// SamplerBasis says that a figure rests on a point the sampler filled in a
// one-run curve, for bases and verdicts.
const SamplerBasis = "at this fit ratio on the one-pass sampler's figure (--prior), a fit the run did not reach: inferred, not measured"

// TInterval is the two-sided Student-t confidence interval of the mean
// (internal/stats owns it; this name is kept for callers outside).
func TInterval(xs []float64, level float64) (lo, hi float64) { return stats.MeanInterval(xs, level) }

// Factors is the merged set of curves the model uses: later files override
// curves of the same class from earlier ones. Its predictions are cached
// (the transfer error, the joint agreement and plan, prepared curves)
// under a stamp of its fields, checked at every entry point
// (cachestamp.go): a change to the fields between calls empties them.
type Factors struct {
	Files         []*factors.File
	Curves        map[string]*factors.Curve
	Software      map[string]factors.Software
	TransferFrom  string
	FaultOverhead units.Duration
	// FaultOverheadRange is [low, high] when the overhead was not measured.
	FaultOverheadRange [2]units.Duration
	// TargetOverhead: by class, a later file's entry replacing an
	// earlier one's for the same class.
	TargetOverhead []factors.TargetOverhead
	Shapes         []factors.Shape
	Readahead      factors.Readahead
	Origin         map[string]string // class -> file it came from

	transfer *transferCache
	rates    *rateCache
	joint    *jointCache
	preps    *prepCache
	guard    *stampGuard
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

// at is the overhead moved a share pos of the way through its range
// (-1 its low end, +1 its high end).
func overheadAt(t factors.TargetOverhead, pos float64) time.Duration {
	o := t.Overhead.D()
	if r := t.OverheadRange; len(r) == 2 && pos != 0 {
		return time.Duration(towards(float64(o), float64(r[0]), float64(r[1]), pos))
	}
	return o
}

// targetOverhead is the software cost of class's devices as a prediction's
// target: the entry whose class is the longest start of it (nil: none, and
// the target takes the factor set's fault_overhead, as its references do).
func (fs *Factors) targetOverhead(class string) *factors.TargetOverhead {
	var best *factors.TargetOverhead
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
func MergeFactors(files ...*factors.File) (*Factors, error) {
	fs := &Factors{Curves: map[string]*factors.Curve{}, Software: map[string]factors.Software{}, Origin: map[string]string{}}
	fs.newCaches()
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
		var f *factors.File
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
func MergeProfile(files []*factors.File, profile *factors.File) (*Factors, error) {
	fs, err := MergeFactors(append(append([]*factors.File{}, files...), profile)...)
	if err != nil {
		return fs, err
	}
	// The readahead is the job's own: another file's says nothing about it.
	fs.Readahead = factors.Readahead{}
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
		if !own[class] && c.Provenance == factors.Published {
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
func LoadJobProfiles(w *Workload, files []*factors.File) (map[string]*Factors, error) {
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
