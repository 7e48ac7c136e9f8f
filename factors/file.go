package factors

import (
	"fmt"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/units"
)

// Provenance of a slowdown curve.
const (
	Published = "published" // taken from a published study
	Measured  = "measured"  // measured by memplan probe/profile on a real device
	Emulated  = "emulated"  // measured on a throttled stand-in for a device not present
	// Inferred is a job's curve worked out from one unconstrained run by
	// sampling which pages it referenced (memplan profile --one-pass), not
	// measured under a memory limit. Its points' ci is the one-pass band,
	// asymmetric and far wider than a measured interval; the model carries
	// that band as it is, never teaches its transfer error with such a
	// curve, and crossval never holds one out as if it were an observation.
	Inferred = "inferred"
)

// OnePassMethod is extra.profile.method in a profile memplan profile
// --one-pass wrote.
const OnePassMethod = "one-pass"

// OneRunMethod is a curve's method (and extra.profile.method) when memplan
// profile --one-run measured it: one run of the job under a memory limit
// stepped through the fit ratios.
const OneRunMethod = "one-run"

// File holds slowdown curves. The probe writes this format (as JSON,
// which the YAML loader reads too); people may write it by hand.
type File struct {
	Name          string         `yaml:"name" json:"name"`
	Date          units.Date     `yaml:"date" json:"date"`
	Source        string         `yaml:"source" json:"source"`
	Host          *HostFacts     `yaml:"host,omitempty" json:"host,omitempty"`
	TransferFrom  string         `yaml:"transfer_from,omitempty" json:"transfer_from,omitempty"`
	FaultOverhead units.Duration `yaml:"fault_overhead,omitempty" json:"fault_overhead,omitempty"`
	// FaultOverheadRange is what fault_overhead may really be when it was
	// not measured; predictions span it.
	FaultOverheadRange []units.Duration `yaml:"fault_overhead_range,omitempty" json:"fault_overhead_range,omitempty"`
	// TargetOverhead is the software cost per page on the devices a
	// prediction is for, by class: fault_overhead is that of the file's
	// own curves (their reference paths) and does not move it.
	TargetOverhead []TargetOverhead `yaml:"target_overhead,omitempty" json:"target_overhead,omitempty"`
	// Shapes are the curve-shape families the model extrapolates with.
	Shapes []Shape `yaml:"shapes,omitempty" json:"shapes,omitempty"`
	// Readahead is a profiled job's faults and pages read on a block device
	// per page it needs back (memplan profile measures it).
	Readahead *Readahead `yaml:"readahead,omitempty" json:"readahead,omitempty"`
	Curves    []Curve    `yaml:"curves" json:"curves"`
	Software  []Software `yaml:"software,omitempty" json:"software,omitempty"`
	// Extra holds whatever else a probe records (parameters, raw runs); the
	// model ignores it but keeps files round-trippable.
	Extra map[string]any `yaml:"extra,omitempty" json:"extra,omitempty"`

	File string     `yaml:"-" json:"-"`
	doc  *yamlx.Doc `yaml:"-"`
}

// Curve is slowdown versus fit ratio for one backend class.
type Curve struct {
	Class       string      `yaml:"class" json:"class"`
	Provenance  string      `yaml:"provenance" json:"provenance"`
	Source      string      `yaml:"source" json:"source"`
	Host        string      `yaml:"host,omitempty" json:"host,omitempty"`
	MeasuredAt  units.Date  `yaml:"measured_at,omitempty" json:"measured_at,omitempty"`
	Uncertainty units.Ratio `yaml:"uncertainty,omitempty" json:"uncertainty,omitempty"` // relative, of (slowdown-1), when points carry no CI
	// Method is how a measured curve was measured: "" for whole runs at
	// each fit ratio, OneRunMethod for one run under a stepped limit.
	Method    string    `yaml:"method,omitempty" json:"method,omitempty"`
	Reference Reference `yaml:"reference" json:"reference"`
	Points    []Point   `yaml:"points" json:"points"`
}

// Point is one measured (or published) slowdown at a fit ratio.
type Point struct {
	Fit      float64   `yaml:"fit" json:"fit"`
	Slowdown float64   `yaml:"slowdown" json:"slowdown"`
	CI       []float64 `yaml:"ci,omitempty" json:"ci,omitempty"` // 95% interval [low, high]
	// FitRange is where the fit ratio may really have been when it was
	// not measured (a published figure whose job sizes are not known).
	FitRange []float64 `yaml:"fit_range,omitempty" json:"fit_range,omitempty"`
	Samples  []float64 `yaml:"samples,omitempty" json:"samples,omitempty"` // per-run slowdowns
	// PageRate is the pages the job needed back per second of its in-RAM
	// runtime on the reference device; BlockFaultRate and BlockPageRate
	// the major faults it took and the pages the kernel read per second on
	// a block device (swap readahead). memplan profile writes them; with
	// them the model carries the point to another device by counting:
	// excess = rate x service time per page, instead of scaling the
	// measured excess (fault counts are steadier than wall times).
	PageRate       float64 `yaml:"page_rate,omitempty" json:"page_rate,omitempty"`
	BlockFaultRate float64 `yaml:"block_fault_rate,omitempty" json:"block_fault_rate,omitempty"`
	BlockPageRate  float64 `yaml:"block_page_rate,omitempty" json:"block_page_rate,omitempty"`
	// Source says, in a one-run curve that took a prior, what the point
	// rests on: PointOneRun (measured by the one run) or PointSampler
	// (the one-pass sampler's inferred figure at a fit the run did not
	// reach, with its band as ci). Empty everywhere else.
	Source string `yaml:"source,omitempty" json:"source,omitempty"`
}

// Sources of a one-run curve's points (Point.Source).
const (
	PointOneRun  = "one-run"
	PointSampler = "sampler"
)

// MaxSlowdownInRAM is the most a curve's point at fit 1 (everything in
// RAM, the reference itself) may read: 1 plus run-to-run noise.
const MaxSlowdownInRAM = 1.1

// Software is a compressed in-RAM swap backend (zram with a compressor).
type Software struct {
	Name    string         `yaml:"name" json:"name"`
	Latency units.Duration `yaml:"latency" json:"latency"`
	// CompressLatency is the time to compress a 4 KiB page (default:
	// Latency). zram frees a page's compressed copy when it is read back,
	// so every page a job needs back is compressed again on eviction.
	CompressLatency units.Duration `yaml:"compress_latency,omitempty" json:"compress_latency,omitempty"`
	Ratio           float64        `yaml:"ratio" json:"ratio"`
	Source          string         `yaml:"source,omitempty" json:"source,omitempty"`
}

// TargetOverhead is the software cost of one page swapped in on the
// devices of a class (Class is a class name or its start: nvme-ssd covers
// nvme-ssd-tlc), with the range it may really lie in.
type TargetOverhead struct {
	Class         string           `yaml:"class" json:"class"`
	Overhead      units.Duration   `yaml:"overhead" json:"overhead"`
	OverheadRange []units.Duration `yaml:"overhead_range,omitempty" json:"overhead_range,omitempty"`
	Source        string           `yaml:"source" json:"source"`
}

// Shape is a family of curve shapes: how the pages a job needs back grow
// as its resident share shrinks, rate ∝ (1-fit)^Exponent, and its swap
// readahead on a block device when not measured (faults per page needed).
// With a Knee the rate grows as (1-fit)^Exponent above that fit ratio and
// as (1-fit)^KneeExponent below it: a knee (flat, then steep) where
// KneeExponent is the larger, early saturation where it is the smaller.
type Shape struct {
	Name     string  `yaml:"name" json:"name"`
	Exponent float64 `yaml:"exponent" json:"exponent"`
	// Knee is the fit ratio where the exponent changes to KneeExponent
	// (0: it does not).
	Knee         float64 `yaml:"knee,omitempty" json:"knee,omitempty"`
	KneeExponent float64 `yaml:"knee_exponent,omitempty" json:"knee_exponent,omitempty"`
	Readahead    float64 `yaml:"readahead_faults" json:"readahead_faults"`
	// Locality is the share of the reads from a block device that follow
	// on from the one before (no seek on a rotating disk).
	Locality float64 `yaml:"locality,omitempty" json:"locality,omitempty"`
	// LocalityRange is where the locality may really be when it was not
	// measured; crossval and the transfer error's search span it.
	LocalityRange []float64 `yaml:"locality_range,omitempty" json:"locality_range,omitempty"`
	Source        string    `yaml:"source" json:"source"`
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

// Decode reads a factor file (YAML or JSON) without checking what it
// says: unknown keys, wrong types and a file of another kind are errors
// naming file and line. file names it in errors.
func Decode(file string, data []byte) (*File, error) {
	var f File
	doc, err := yamlx.Decode(file, data, &f)
	if err != nil {
		if k := yamlx.WrongKind(file, data, yamlx.KindFactors); k != nil {
			return nil, k
		}
		return nil, err
	}
	f.File, f.doc = file, doc
	return &f, nil
}

// Parsed reports whether f was read from a file (Decode, Parse) rather
// than built in code, i.e. whether its errors can name a line.
func (f *File) Parsed() bool { return f.doc != nil }

// Errorf is an input error at a field of the file (path as in
// "curves[0].points[1].fit"), naming the file and, when f was read from
// one, the line.
func (f *File) Errorf(path, hint, format string, args ...any) error {
	if f.doc == nil {
		return &yamlx.InputError{File: f.File, Field: path, Msg: fmt.Sprintf(format, args...), Hint: hint}
	}
	return f.doc.Errorf(path, hint, format, args...)
}
