package model

import (
	"math"
	"testing"
	"time"

	"github.com/memplan/memplan/units"
)

func testFactors(t *testing.T) *Factors {
	t.Helper()
	fs, err := MergeFactors(DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestPredictSameDeviceIsThePublishedFigure(t *testing.T) {
	fs := testFactors(t)
	x25e := Device{ReadLatency: 75 * time.Microsecond, WriteLatency: 85 * time.Microsecond, ReadIOPS: 35000, WriteIOPS: 3300, WriteBW: 170e6, Drives: 1}
	est, err := fs.Predict("sata-ssd-slc", x25e, 4, 0.5, 0.52)
	if err != nil {
		t.Fatal(err)
	}
	if !near(est.Slowdown, 1.12, 1e-9) || est.Provenance != Published || est.Extrapolated {
		t.Errorf("got %+v, want exactly the published 1.12", est)
	}
	if !(est.Low < est.Slowdown && est.Slowdown < est.High) {
		t.Errorf("band [%.3f, %.3f] does not bracket %.3f", est.Low, est.High, est.Slowdown)
	}
}

func TestParseFactorsComputesCIFromSamples(t *testing.T) {
	f, err := ParseFactors("m.yaml", []byte(`
name: m
source: test
curves:
  - class: zram-lz4
    provenance: measured
    host: box
    reference: {read_latency: 2us}
    points:
      - fit: 0.5
        samples: [1.10, 1.20, 1.30]
`))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Curves[0].Points[0]
	if !near(p.Slowdown, 1.2, 1e-9) {
		t.Errorf("slowdown %.3f, want the mean 1.2", p.Slowdown)
	}
	// t(0.975, 2) = 4.3027; sd = 0.1; half-width = 4.3027*0.1/sqrt(3).
	h := 4.302652729911275 * 0.1 / math.Sqrt(3)
	if len(p.CI) != 2 || !near(p.CI[0], 1.2-h, 1e-6) || !near(p.CI[1], 1.2+h, 1e-6) {
		t.Errorf("CI %v, want 1.2 +- %.4f", p.CI, h)
	}
	_ = units.GiB
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
