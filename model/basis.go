package model

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/memplan/memplan/factors"
)

// BasisKind says what a slowdown figure rests on.
type BasisKind int

const (
	BasisNone    BasisKind = iota // no basis: a lean search reads none
	BasisInRAM                    // the job fits in RAM
	BasisCurve                    // a curve of this class: measured, emulated, inferred or published
	BasisDerived                  // carried from one curve of another class by the swap-path model
	BasisJoint                    // derived from several curves of other classes at once (Basis.Joint)
	BasisZswap                    // zswap: a share on the pool's curve, the rest on the drive's
)

// Basis is where a slowdown figure comes from, as parts; String words it.
// The model fills the parts and compares them; the reports print the words.
type Basis struct {
	Kind BasisKind

	// BasisCurve, BasisDerived and BasisJoint: the curve behind the figure
	// (BasisJoint: the transfer_from curve's).
	Provenance string // the curve's own provenance (Measured, Emulated, Inferred, Published)
	Host       string // Measured, Emulated, Inferred: where it was obtained
	OneRun     bool   // Measured, Emulated: in one run under a stepped limit
	// Sampler: at this fit ratio the figure rests on a point the one-pass
	// sampler filled in a one-run curve (memplan profile --one-run
	// --prior), at a fit the run did not reach.
	Sampler bool
	Source  string // Published: the source it cites
	From    string // BasisDerived: the class of the curve it is derived from

	// Carried: the curve was carried to another device or load; Idle and
	// RefIdle are the seconds a page costs unloaded there and on the
	// curve's own path (also set for BasisDerived).
	Carried       bool
	Idle, RefIdle float64
	PagesCounted  bool   // the curve counts pages per fit ratio (when carried or derived)
	Jobs, Cores   int    // Jobs > 0: that many jobs share Cores cores
	Shapes        string // access pattern not given: the band spans these shapes

	// BasisJoint: the curves that checked each other and the combinations
	// of the unknowns the band spans.
	Joint *JointBasis

	// BasisZswap: Pool and Drive are the two parts' bases, DriveShare the
	// share of the overflow on the drives, DriveFaults the share of the
	// faults that reach them under Shape.
	Pool, Drive             *Basis
	DriveShare, DriveFaults float64
	Shape                   string
}

// JointBasis is what a figure derived jointly from several curves rests
// on: the curves, and what their agreement under the combinations of the
// unknowns (memplan factors crossval's joint table) left of the band.
type JointBasis struct {
	Curves   []string // the classes of the curves, in the order they were checked
	Inferred []string // those of Curves inferred from one pass (memplan profile --one-pass)
	// IdleLow and IdleHigh span the seconds a page costs unloaded on the
	// target under the combinations kept.
	IdleLow, IdleHigh float64
	Combinations      int     // combinations of the unknowns tried
	Consistent        int     // those under which the curves agree (0: none)
	Kept              int     // those the band spans: the consistent ones, or those within one tolerance of the best
	Misfit            float64 // the best combination's largest disagreement (read when Consistent is 0)
	// Shapes are the shape families tried and KeptShapes those of the
	// combinations kept. ShapeUnknown: the job's access pattern was not
	// given and the curves describe other jobs, so the band spans every
	// shape (Estimate.ShapeUnknown).
	Shapes, KeptShapes []string
	ShapeUnknown       bool
}

// BasisFacts are what a report decides by, read from a basis's parts
// (a zswap basis's pool and drive parts included), never from its words.
type BasisFacts struct {
	// FromMeasurements: derived by the swap-path model from the user's own
	// measured or emulated curves of other classes.
	FromMeasurements bool
	// OneRun: a measured or emulated curve taken in one run under a
	// stepped limit (memplan profile --one-run).
	OneRun bool
	// Sampler: at this fit the figure is the one-pass sampler's (--prior).
	Sampler bool
	// Carried: the job's own curve, carried to another device or load.
	Carried bool
}

// Facts are b's BasisFacts.
func (b Basis) Facts() BasisFacts {
	var f BasisFacts
	switch b.Kind {
	case BasisZswap:
		for _, part := range []*Basis{b.Pool, b.Drive} {
			if part != nil {
				pf := part.Facts()
				f.FromMeasurements = f.FromMeasurements || pf.FromMeasurements
				f.OneRun = f.OneRun || pf.OneRun
				f.Sampler = f.Sampler || pf.Sampler
				f.Carried = f.Carried || pf.Carried
			}
		}
		return f
	case BasisDerived, BasisJoint:
		f.FromMeasurements = b.Provenance == factors.Measured || b.Provenance == factors.Emulated
	case BasisCurve:
		f.OneRun = b.OneRun && (b.Provenance == factors.Measured || b.Provenance == factors.Emulated)
		f.Carried = b.Carried
	}
	f.Sampler = b.Sampler && b.Kind != BasisInRAM && b.Kind != BasisNone
	return f
}

// String is the one place a basis is worded: the reports print it (the
// "basis" of each job in JSON and YAML, the table, Markdown and workbook),
// and their golden files hold it.
func (b Basis) String() string {
	var s string
	switch b.Kind {
	case BasisJoint:
		s = b.Joint.words(b.Provenance)
		if b.Sampler {
			s += "; " + SamplerBasis
		}
	case BasisInRAM:
		return "fits in RAM"
	case BasisZswap:
		return fmt.Sprintf("zswap: %.0f%% of the overflow compressed in RAM (%s), %.0f%% on the drives (%s); %.0f%% of the faults reach the drives (%s shape)",
			(1-b.DriveShare)*100, b.Pool, b.DriveShare*100, b.Drive, b.DriveFaults*100, cmp.Or(b.Shape, NominalShape))
	case BasisDerived:
		s = fmt.Sprintf("derived from the %s curve (%s) by the swap-path model, %.3gus vs %.3gus a page unloaded", b.From, b.Provenance, b.Idle*1e6, b.RefIdle*1e6)
		if b.Sampler {
			s += "; " + SamplerBasis
		}
	case BasisCurve:
		switch b.Provenance {
		case factors.Measured, factors.Emulated:
			s = fmt.Sprintf("%s on %s", b.Provenance, b.Host)
			if b.OneRun {
				s += " " + OneRunBasis
			}
		case factors.Inferred:
			s = fmt.Sprintf("inferred on %s from one run by sampling the pages the job referenced (memplan profile --one-pass), not measured under a memory limit; the band is the one-pass band", b.Host)
		default:
			s = "published: " + b.Source
		}
		if b.Sampler {
			s += "; " + SamplerBasis
		}
		if b.Carried {
			s += fmt.Sprintf("; carried to this device and load by the swap-path model, %.3gus vs %.3gus a page unloaded", b.Idle*1e6, b.RefIdle*1e6)
		}
	}
	if b.PagesCounted {
		s += " (pages counted per fit ratio)"
	}
	if b.Jobs > 0 {
		s += fmt.Sprintf("; %d jobs share %d cores: a job waiting for a page lets another compute, and each page's software cost takes a core", b.Jobs, b.Cores)
	}
	if b.Shapes != "" {
		s += "; access pattern not given: the band spans the " + b.Shapes + " shapes"
	}
	return s
}

// words is a joint derivation's basis; provenance is the transfer_from
// curve's.
func (j *JointBasis) words(provenance string) string {
	idle := fmt.Sprintf("%.3gus", j.IdleLow*1e6)
	if j.IdleHigh > j.IdleLow*1.0005 {
		idle = fmt.Sprintf("%.3g-%.3gus", j.IdleLow*1e6, j.IdleHigh*1e6)
	}
	shapes, kept := strings.Join(j.Shapes, ", "), strings.Join(j.KeptShapes, ", ")
	s := fmt.Sprintf("derived jointly from the %s curves (%s) by the swap-path model, %s a page unloaded: ", strings.Join(j.Curves, ", "), provenance, idle)
	switch {
	case j.ShapeUnknown && j.Consistent > 0:
		s += fmt.Sprintf("the central figure is the median of the %d of %d combinations of the unknowns under which they agree (memplan factors crossval), all with the %s shape; the job's access pattern was not given and those curves describe other jobs, so the band spans every shape (%s); `access:` in the workload or `memplan profile` of the job narrows it",
			j.Consistent, j.Combinations, kept, shapes)
	case j.ShapeUnknown:
		s += fmt.Sprintf("they agree under none of the %d combinations of the unknowns (misfit %.2g); the central figure is the median of the %d within one tolerance of the best, all with the %s shape; the job's access pattern was not given and those curves describe other jobs, so the band spans every shape (%s) and carries the model's prior error, ln 1.5; `access:` in the workload or `memplan profile` of the job narrows it",
			j.Combinations, j.Misfit, j.Kept, kept, shapes)
	case j.Consistent > 0:
		s += fmt.Sprintf("the band spans the %d of %d combinations of the unknowns under which they agree (memplan factors crossval)", j.Consistent, j.Combinations)
	default:
		s += fmt.Sprintf("they agree under none of the %d combinations of the unknowns (misfit %.2g), so the band spans the %d within one tolerance of the best and carries the model's prior error, ln 1.5 (memplan factors crossval)", j.Combinations, j.Misfit, j.Kept)
	}
	switch {
	case j.ShapeUnknown || len(j.Shapes) < 2:
	case j.Consistent == 0:
		s += "; access pattern not given: of the " + shapes + " shapes, the band spans the " + kept + " nearest to agreeing"
	case len(j.KeptShapes) == 1:
		s += "; access pattern not given: of the " + shapes + " shapes, only " + kept + " fits the curves"
	case len(j.KeptShapes) < len(j.Shapes):
		s += "; access pattern not given: of the " + shapes + " shapes, the band spans the " + kept + " that fit the curves"
	default:
		s += "; access pattern not given: the band spans the " + shapes + " shapes"
	}
	if len(j.Inferred) > 0 {
		s += "; " + strings.Join(j.Inferred, ", ") + " inferred from one run (memplan profile --one-pass)"
	}
	return s
}
