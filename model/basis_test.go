package model_test

import (
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
)

// TestJointBasisWords pins the words of a joint derivation's basis, one
// case per branch: the reports print them and only the eda goldens reach
// one of them (an unknown shape the curves agree under).
func TestJointBasisWords(t *testing.T) {
	all := []string{"uniform", "cold-tail", "sweep", "knee", "saturating"}
	joint := func(j model.JointBasis) model.Basis {
		if j.Curves == nil {
			j.Curves = []string{"hdd", "sata-ssd-mlc", "sata-ssd-slc"}
		}
		if j.IdleLow == 0 {
			j.IdleLow, j.IdleHigh = 41.5e-6, 51.5e-6
		}
		return model.Basis{Kind: model.BasisJoint, Provenance: factors.Published, Joint: &j}
	}
	const head = "derived jointly from the hdd, sata-ssd-mlc, sata-ssd-slc curves (published) by the swap-path model, 41.5-51.5us a page unloaded: "
	shared := joint(model.JointBasis{Combinations: 5967, Consistent: 28, Kept: 28, Shapes: all, KeptShapes: []string{"sweep"}, ShapeUnknown: true})
	shared.Jobs, shared.Cores = 16, 8
	for _, c := range []struct {
		name string
		b    model.Basis
		want string
	}{
		{"they agree, one shape, one idle time",
			joint(model.JointBasis{IdleLow: 85e-6, IdleHigh: 85.02e-6, Combinations: 4131, Consistent: 28, Kept: 28, Shapes: []string{"sweep"}, KeptShapes: []string{"sweep"}}),
			"derived jointly from the hdd, sata-ssd-mlc, sata-ssd-slc curves (published) by the swap-path model, 85us a page unloaded: " +
				"the band spans the 28 of 4131 combinations of the unknowns under which they agree (memplan factors crossval)"},
		{"they agree under none, one shape",
			joint(model.JointBasis{Combinations: 15, Misfit: 24.3, Kept: 4, Shapes: []string{"sweep"}, KeptShapes: []string{"sweep"}}),
			head + "they agree under none of the 15 combinations of the unknowns (misfit 24), so the band spans the 4 within one tolerance of the best and carries the model's prior error, ln 1.5 (memplan factors crossval)"},
		{"shape unknown, they agree, jobs share cores", shared,
			head + "the central figure is the median of the 28 of 5967 combinations of the unknowns under which they agree (memplan factors crossval), all with the sweep shape; " +
				"the job's access pattern was not given and those curves describe other jobs, so the band spans every shape (uniform, cold-tail, sweep, knee, saturating); `access:` in the workload or `memplan profile` of the job narrows it; " +
				"16 jobs share 8 cores: a job waiting for a page lets another compute, and each page's software cost takes a core"},
		{"shape unknown, they agree under none",
			joint(model.JointBasis{Combinations: 5967, Misfit: 1.234, Kept: 7, Shapes: all, KeptShapes: []string{"sweep", "knee"}, ShapeUnknown: true}),
			head + "they agree under none of the 5967 combinations of the unknowns (misfit 1.2); the central figure is the median of the 7 within one tolerance of the best, all with the sweep, knee shape; " +
				"the job's access pattern was not given and those curves describe other jobs, so the band spans every shape (uniform, cold-tail, sweep, knee, saturating) and carries the model's prior error, ln 1.5; `access:` in the workload or `memplan profile` of the job narrows it"},
		{"every shape fits",
			joint(model.JointBasis{Combinations: 351, Consistent: 85, Kept: 85, Shapes: all, KeptShapes: all}),
			head + "the band spans the 85 of 351 combinations of the unknowns under which they agree (memplan factors crossval); access pattern not given: the band spans the uniform, cold-tail, sweep, knee, saturating shapes"},
		{"some shapes fit",
			joint(model.JointBasis{Combinations: 351, Consistent: 85, Kept: 85, Shapes: all, KeptShapes: []string{"sweep", "knee"}}),
			head + "the band spans the 85 of 351 combinations of the unknowns under which they agree (memplan factors crossval); access pattern not given: of the uniform, cold-tail, sweep, knee, saturating shapes, the band spans the sweep, knee that fit the curves"},
		{"one shape fits",
			joint(model.JointBasis{Combinations: 351, Consistent: 85, Kept: 85, Shapes: all, KeptShapes: []string{"sweep"}}),
			head + "the band spans the 85 of 351 combinations of the unknowns under which they agree (memplan factors crossval); access pattern not given: of the uniform, cold-tail, sweep, knee, saturating shapes, only sweep fits the curves"},
		{"no shape fits",
			joint(model.JointBasis{Combinations: 15, Misfit: 24, Kept: 4, Shapes: all, KeptShapes: []string{"uniform", "knee"}}),
			head + "they agree under none of the 15 combinations of the unknowns (misfit 24), so the band spans the 4 within one tolerance of the best and carries the model's prior error, ln 1.5 (memplan factors crossval); " +
				"access pattern not given: of the uniform, cold-tail, sweep, knee, saturating shapes, the band spans the uniform, knee nearest to agreeing"},
		{"an inferred curve",
			joint(model.JointBasis{Curves: []string{"sata-ssd-slc", "zram-lz4"}, Inferred: []string{"zram-lz4"}, Combinations: 2295, Consistent: 23, Kept: 23, Shapes: []string{"sweep"}, KeptShapes: []string{"sweep"}}),
			"derived jointly from the sata-ssd-slc, zram-lz4 curves (published) by the swap-path model, 41.5-51.5us a page unloaded: " +
				"the band spans the 23 of 2295 combinations of the unknowns under which they agree (memplan factors crossval); zram-lz4 inferred from one run (memplan profile --one-pass)"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// Basis.Facts reads the parts, a zswap basis's pool and drive included:
// the reports decide by them (How sure), not by the words.
func TestBasisFactsReadTheParts(t *testing.T) {
	measuredOneRun := model.Basis{Kind: model.BasisCurve, Provenance: factors.Measured, Host: "h", OneRun: true, Carried: true}
	derived := model.Basis{Kind: model.BasisDerived, Provenance: factors.Emulated, From: "x", Sampler: true}
	for _, tc := range []struct {
		name string
		b    model.Basis
		want model.BasisFacts
	}{
		{"in RAM", model.Basis{Kind: model.BasisInRAM, Sampler: true}, model.BasisFacts{}},
		{"published curve", model.Basis{Kind: model.BasisCurve, Provenance: factors.Published, OneRun: true, Carried: true}, model.BasisFacts{Carried: true}},
		{"measured in one run, carried", measuredOneRun, model.BasisFacts{OneRun: true, Carried: true}},
		{"derived from an emulated curve, sampler", derived, model.BasisFacts{FromMeasurements: true, Sampler: true}},
		{"joint from published curves", model.Basis{Kind: model.BasisJoint, Provenance: factors.Published, Joint: &model.JointBasis{}}, model.BasisFacts{}},
		{"joint from measured curves", model.Basis{Kind: model.BasisJoint, Provenance: factors.Measured, Joint: &model.JointBasis{}}, model.BasisFacts{FromMeasurements: true}},
		{"zswap: the pool's and the drive's", model.Basis{Kind: model.BasisZswap, Pool: &measuredOneRun, Drive: &derived},
			model.BasisFacts{FromMeasurements: true, OneRun: true, Sampler: true, Carried: true}},
	} {
		if got := tc.b.Facts(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
