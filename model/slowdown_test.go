package model

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/units"
)

func TestServiceTimeBounds(t *testing.T) {
	x25e := Device{ReadLatency: 75 * time.Microsecond, WriteLatency: 85 * time.Microsecond, ReadIOPS: 35000, WriteIOPS: 3300, Drives: 1}
	// One job on a fast-writing device: latency-bound, 2 + 75 us; the
	// swap-outs are written while the job goes on.
	fast := x25e
	fast.WriteIOPS = 100000
	if got := ServiceTime(fast, 1, 0.5, 2*time.Microsecond, Readahead{}); !near(got, 77e-6, 1e-9) {
		t.Errorf("QD1 service time %.1fus, want 77us", got*1e6)
	}
	// Readahead: 0.25 faults and 1.5 pages read per page needed back:
	// 2 x 1.5 + 0.25 x 75 us.
	if got := ServiceTime(fast, 1, 0.5, 2*time.Microsecond, Readahead{Faults: 0.25, Pages: 1.5}); !near(got, 21.75e-6, 1e-9) {
		t.Errorf("QD1 service time with readahead %.2fus, want 21.75us", got*1e6)
	}
	// The X25-E's sustained 3,300 random-write IOPS bind even for one job.
	if got := ServiceTime(x25e, 1, 0.5, 2*time.Microsecond, Readahead{}); !near(got, 1/35000.0+0.5/3300.0, 1e-9) {
		t.Errorf("QD1 X25-E service time %.1fus, want the write-bound 180.1us", got*1e6)
	}
	// Four jobs share 35k read / 3.3k write IOPS: throughput-bound.
	want := 4 * (1/35000.0 + 0.5/3300.0)
	if got := ServiceTime(x25e, 4, 0.5, 2*time.Microsecond, Readahead{}); !near(got, want, 1e-9) {
		t.Errorf("QD4 service time %.1fus, want %.1fus", got*1e6, want*1e6)
	}
	// Striping two drives halves the throughput bound.
	x25e.Drives = 2
	if got := ServiceTime(x25e, 4, 0.5, 2*time.Microsecond, Readahead{}); !near(got, want/2, 1e-9) {
		t.Errorf("RAID 0 x2 service time %.1fus, want %.1fus", got*1e6, want/2*1e6)
	}
	// Compressed RAM: no IOPS ceiling and no readahead; the task waits for
	// the compression of what reclaim evicts.
	z := Device{ReadLatency: 1700 * time.Nanosecond, WriteLatency: 1700 * time.Nanosecond, Memory: true}
	for _, ra := range []Readahead{{}, {Faults: 0.25, Pages: 1.5}} {
		if got := ServiceTime(z, 64, 0.5, 2*time.Microsecond, ra); !near(got, 4.55e-6, 1e-10) {
			t.Errorf("zram service time with %+v %.2fus, want 4.55us", ra, got*1e6)
		}
	}
}

func TestExcessAtCurve(t *testing.T) {
	c := &Curve{Uncertainty: 0.2, Points: []Point{
		{Fit: 0.8, Slowdown: 1.1, CI: []float64{1.08, 1.12}},
		{Fit: 0.5, Slowdown: 1.5},
	}}
	cases := []struct {
		f, ex float64
		extra bool
	}{
		{1, 0, false},
		{1.2, 0, false},
		{0.9, 0.05, false},       // halfway between (1, 0) and (0.8, 0.1)
		{0.8, 0.1, false},        // on a point
		{0.65, 0.3, false},       // halfway between the two points
		{0.5, 0.5, false},        // lowest point
		{0.25, 0.5 * 2.25, true}, // (0.75/0.5)^2 times the lowest excess
		{0, 0.5 * (1 / 0.5) * (1 / 0.5), true},
	}
	for _, tc := range cases {
		ex, _, extra := excessAt(c, tc.f)
		if !near(ex, tc.ex, 1e-9) || extra != tc.extra {
			t.Errorf("fit %.2f: excess %.4f extrapolated %v, want %.4f %v", tc.f, ex, extra, tc.ex, tc.extra)
		}
	}
	// A point's CI sets its relative uncertainty: (1.12-1.08)/2 / 0.1 = 0.2.
	if _, u, _ := excessAt(c, 0.8); !near(u, 0.2, 1e-9) {
		t.Errorf("uncertainty at the CI point %.3f, want 0.2", u)
	}
	// Extrapolation widens the band.
	_, uIn, _ := excessAt(c, 0.5)
	_, uOut, _ := excessAt(c, 0.3)
	if uOut <= uIn {
		t.Errorf("extrapolated uncertainty %.3f not wider than %.3f", uOut, uIn)
	}
}

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
	x25e := Device{ReadLatency: 75 * time.Microsecond, WriteLatency: 85 * time.Microsecond, ReadIOPS: 35000, WriteIOPS: 3300, Drives: 1}
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

func TestPredictDerivesMissingClassesByServiceTime(t *testing.T) {
	fs := testFactors(t)
	nvme := Device{ReadLatency: 85 * time.Microsecond, WriteLatency: 20 * time.Microsecond, ReadIOPS: 900000, WriteIOPS: 120000, Drives: 1}
	est, err := fs.Predict("nvme-ssd-tlc", nvme, 4, 0.5, 0.52)
	if err != nil {
		t.Fatal(err)
	}
	ref := ServiceTime(Device{ReadLatency: 75 * time.Microsecond, WriteLatency: 85 * time.Microsecond, ReadIOPS: 35000, WriteIOPS: 3300}, 4, 0.5, 2*time.Microsecond, Readahead{})
	tgt := ServiceTime(nvme, 4, 0.5, 2*time.Microsecond, Readahead{})
	if want := 1 + 0.12*tgt/ref; !near(est.Slowdown, want, 1e-9) {
		t.Errorf("derived slowdown %.4f, want %.4f", est.Slowdown, want)
	}
	if est.Provenance != Derived {
		t.Errorf("provenance %q, want derived", est.Provenance)
	}
	if est.High-est.Slowdown <= (est.Slowdown-1)*0.25 {
		t.Errorf("derived band too narrow: %+v", est)
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

// A curve whose points count pages is carried to another device point by
// point: rate x service time per page, with the point's own readahead and
// its own software cost per page (its excess per page less the reference
// device's time); the pooled fault_overhead only where a point shows no
// excess.
func TestPredictCountsPages(t *testing.T) {
	c := &Curve{Class: "zram-lz4", Provenance: Measured, Host: "lab",
		Reference: Reference{ReadLatency: units.Duration(2 * time.Microsecond), WriteLatency: units.Duration(3 * time.Microsecond), Concurrency: 1, DirtyShare: 1},
		Points: []Point{
			{Fit: 0.9, Slowdown: 1, PageRate: 1000, BlockFaultRate: 500, BlockPageRate: 1000},
			{Fit: 0.5, Slowdown: 3, CI: []float64{2.8, 3.2}, PageRate: 100000, BlockFaultRate: 25000, BlockPageRate: 110000},
			{Fit: 0.3, Slowdown: 5}}} // capped runs: no counts
	fs := &Factors{Curves: map[string]*Curve{"zram-lz4": c}, TransferFrom: "zram-lz4", FaultOverhead: units.Duration(40 * time.Microsecond)}
	disk := Device{ReadLatency: 50 * time.Microsecond, WriteLatency: 50 * time.Microsecond}
	// Fit 0.5: 2 / 100k pages = 20us a page, 2 + 1 x 3us of it zram's: 15us
	// software; 100k pages/s x (15us x 1.1 + 0.25 x 50us) = 2.9.
	est, err := fs.Predict("sata-ssd-tlc", disk, 1, 1, 0.5)
	if err != nil || !near(est.Slowdown, 3.9, 1e-9) || est.Provenance != Derived || !strings.Contains(est.Basis, "counted") {
		t.Errorf("derived by counts: %+v, %v", est, err)
	}
	// Fit 0.9 shows no excess: the pooled 40us, 1000 x (40 + 0.5 x 50)us.
	if est, err := fs.Predict("sata-ssd-tlc", disk, 1, 1, 0.9); err != nil || !near(est.Slowdown, 1.065, 1e-9) {
		t.Errorf("fit 0.9 by the pooled overhead: %+v, %v", est, err)
	}
	// The point without counts is scaled by the curve's service-time ratio:
	// (40 + 50us) / (40 + 2 + 3us) = 2, so 1 + 4 x 2; the others stay counted.
	if est, err := fs.Predict("sata-ssd-tlc", disk, 1, 1, 0.3); err != nil || !near(est.Slowdown, 9, 1e-9) {
		t.Errorf("fit 0.3 without counts: %+v, %v", est, err)
	}
	// The same device as the reference: the measured point itself.
	z := Device{ReadLatency: 2 * time.Microsecond, WriteLatency: 3 * time.Microsecond, Memory: true}
	if est, err := fs.Predict("zram-lz4", z, 1, 1, 0.5); err != nil || est.Slowdown != 3 {
		t.Errorf("on its own device: %+v, %v", est, err)
	}
	// zram with another latency: 100k x (15 + 4 + 6)us = 2.5, interval
	// scaled with it (0.1/2 of the excess each side).
	z.ReadLatency, z.WriteLatency = 4*time.Microsecond, 6*time.Microsecond
	if est, err := fs.Predict("zram-lz4", z, 1, 1, 0.5); err != nil || !near(est.Slowdown, 3.5, 1e-9) || !(est.Low < 3.5 && est.High > 3.5) {
		t.Errorf("zram scaled by counts: %+v, %v", est, err)
	}
}
