package model

import (
	"cmp"
	"fmt"
)

// BasisKind says what a slowdown figure rests on.
type BasisKind int

const (
	BasisText    BasisKind = iota // worded by the model (Basis.Text): a joint derivation, a test's hook
	BasisInRAM                    // the job fits in RAM
	BasisCurve                    // a curve of this class: measured, emulated, inferred or published
	BasisDerived                  // carried from one curve of another class by the swap-path model
	BasisZswap                    // zswap: a share on the pool's curve, the rest on the drive's
)

// Basis is where a slowdown figure comes from, as parts; String words it.
// The model fills the parts and compares them; the reports print the words.
type Basis struct {
	Kind BasisKind
	Text string // BasisText: the basis but for the shared cores (Jobs, Cores)

	// BasisCurve and BasisDerived: the curve behind the figure.
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

	// BasisZswap: Pool and Drive are the two parts' bases, DriveShare the
	// share of the overflow on the drives, DriveFaults the share of the
	// faults that reach them under Shape.
	Pool, Drive             *Basis
	DriveShare, DriveFaults float64
	Shape                   string
}

// String is the one place a basis is worded: the reports print it (the
// "basis" of each job in JSON and YAML, the table, Markdown and workbook),
// and their golden files hold it.
func (b Basis) String() string {
	var s string
	switch b.Kind {
	case BasisText:
		s = b.Text
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
		case Measured, Emulated:
			s = fmt.Sprintf("%s on %s", b.Provenance, b.Host)
			if b.OneRun {
				s += " " + OneRunBasis
			}
		case Inferred:
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
