//go:build linux

package onepass

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/units"
)

// Compare sets each measured point against the one-pass prediction on
// that curve's own device, with both overheads, and says whether the
// measured value and its interval meet the band.
func TestCompareAgainstAMultiRunProfile(t *testing.T) {
	const n, lam = 100000.0, 20000.0
	info := Info{Command: []string{"job"}, Runtime: time.Hour, Fits: []float64{0.9, 0.75, 0.5}}
	res, err := Derive(info, syntheticSamples(n, lam, 6), DefaultCosts())
	if err != nil {
		t.Fatal(err)
	}
	// The "measured" curve: the one-pass central figures themselves at
	// 0.9 and 0.5 (inside), and far above the band at 0.75.
	var central []PredPoint
	for _, p := range res.Predictions {
		if p.Class == "zram-lz4" {
			central = p.Points
		}
	}
	at := func(f float64) PredPoint {
		for _, p := range central {
			if math.Abs(p.Fit-f) < 1e-9 {
				return p
			}
		}
		t.Fatalf("no prediction at %g", f)
		return PredPoint{}
	}
	hi75 := at(0.75).High
	mp := &factors.File{FaultOverhead: units.Duration(20 * time.Microsecond), Curves: []factors.Curve{{
		Class: "zram-lz4", Reference: factors.Reference{Device: "zram lz4", ReadLatency: units.Duration(3 * time.Microsecond)},
		Points: []factors.Point{
			{Fit: 0.5, Slowdown: at(0.5).Slowdown, CI: []float64{at(0.5).Slowdown * 0.9, at(0.5).Slowdown * 1.1}},
			{Fit: 0.9, Slowdown: at(0.9).Slowdown},
			{Fit: 0.75, Slowdown: 3 * hi75, CI: []float64{2 * hi75, 4 * hi75}, PageRate: 1234},
		}}}}
	rows, err := Compare(res, mp)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 3 fits x 2 overheads: %+v", len(rows), rows)
	}
	for i, r := range rows {
		wantCosts := "default overhead"
		if i >= 3 {
			wantCosts = "measured overhead"
		}
		wantFit := []float64{0.9, 0.75, 0.5}[i%3]
		if r.Costs != wantCosts || r.Fit != wantFit || r.Class != "zram-lz4" {
			t.Errorf("row %d: %s at %g, want %s at %g", i, r.Costs, r.Fit, wantCosts, wantFit)
		}
		if got := r.Predicted.Slowdown/r.Measured - 1; math.Abs(got-r.Error) > 1e-12 {
			t.Errorf("row %d: error %g, want %g", i, r.Error, got)
		}
		if r.Fit == 0.75 {
			if r.Inside || r.Overlap || r.MeasuredRate != 1234 || len(r.MeasuredCI) != 2 {
				t.Errorf("fit 0.75 far above the band: %+v", r)
			}
		} else if r.Costs == "default overhead" && (!r.Inside || !r.Overlap) {
			t.Errorf("fit %g at the central figure: inside %v, overlap %v", r.Fit, r.Inside, r.Overlap)
		}
	}
	if _, err := Compare(res, &factors.File{}); err == nil {
		t.Error("a profile without curves compared without an error")
	}
}

// A one-pass profile read back re-derives the predictions it was written
// with.
func TestFromFactorsRoundTrip(t *testing.T) {
	const n, lam = 100000.0, 20000.0
	info := Info{Command: []string{"job"}, Runtime: time.Hour, Fits: []float64{0.9, 0.6}, Peak: int64(1.1 * n * page)}
	res, _, back := written(t, info, n, lam, "job.profile.json")
	again, err := FromFactors(back)
	if err != nil {
		t.Fatal(err)
	}
	if again.Curve.Peak != res.Curve.Peak || len(again.Predictions) != len(res.Predictions) {
		t.Fatalf("peak %g vs %g, %d vs %d predictions", again.Curve.Peak, res.Curve.Peak, len(again.Predictions), len(res.Predictions))
	}
	for i, p := range res.Predictions {
		for j, pt := range p.Points {
			q := again.Predictions[i].Points[j]
			if q.Fit != pt.Fit || math.Abs(q.Slowdown/pt.Slowdown-1) > 1e-9 || math.Abs(q.High/pt.High-1) > 1e-9 {
				t.Errorf("%s fit %g: %g (..%g) read back, %g (..%g) written", p.Class, pt.Fit, q.Slowdown, q.High, pt.Slowdown, pt.High)
			}
		}
	}
	if _, err := FromFactors(&factors.File{File: "multi.profile.json"}); err == nil || !strings.Contains(err.Error(), "multi.profile.json: extra.one_pass.samples") {
		t.Errorf("a profile without samples: %v", err)
	}
}
