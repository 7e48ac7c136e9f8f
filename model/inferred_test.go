package model

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
)

// onePassProfile is a profile as memplan profile --one-pass writes it
// (trimmed): one zram-lz4 curve whose points carry the inferred page rate
// and the one-pass band as ci. The first point's central figure is 1, its
// band is not.
const onePassProfile = `{
  "name": "memplan-profile --one-pass sim on box 2026-11-30",
  "date": "2026-11-30",
  "source": "inferred by memplan profile --one-pass test on box from one run of ./sim",
  "host": {"hostname": "box"},
  "transfer_from": "zram-lz4",
  "curves": [{
    "class": "zram-lz4",
    "provenance": "PROVENANCE",
    "source": "inferred by one pass (working-set sampling, not a run under a memory limit) of ./sim",
    "host": "box",
    "measured_at": "2026-11-30",
    "reference": {"device": "zram lz4", "read_latency": "2.29us", "write_latency": "4.45us", "concurrency": 1, "dirty_share": 1},
    "points": [
      {"fit": 0.9, "slowdown": 1, "ci": [1, 4.58]},
      {"fit": 0.75, "slowdown": 1.3, "ci": [1, 4.27], "page_rate": 6000},
      {"fit": 0.5, "slowdown": 1.41, "ci": [1.02, 6.4], "page_rate": 7000}
    ]
  }],
  "extra": {"profile": {"method": "one-pass", "command_line": "./sim"}}
}`

func parseOnePass(t *testing.T, prov string, method bool) *factors.File {
	t.Helper()
	src := strings.Replace(onePassProfile, "PROVENANCE", prov, 1)
	if !method {
		src = strings.Replace(src, `"method": "one-pass", `, "", 1)
	}
	f, err := ParseFactors("sim.profile.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestInferredRoundTrip(t *testing.T) {
	f := parseOnePass(t, factors.Inferred, true)
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"provenance":"inferred"`) {
		t.Errorf("written back without its provenance: %s", data)
	}
	back, err := ParseFactors("back.json", data)
	if err != nil {
		t.Fatalf("does not load back: %v", err)
	}
	c := back.Curves[0]
	if c.Provenance != factors.Inferred || len(c.Points) != 3 || c.Points[0].CI[1] != 4.58 || c.Points[2].PageRate != 7000 {
		t.Errorf("read back as %q with points %+v", c.Provenance, c.Points)
	}
}

// A one-pass profile written before the format knew "inferred" says
// measured; extra.profile.method tells it apart. Any other measured curve
// stays measured.
func TestOldOnePassReadsAsInferred(t *testing.T) {
	if p := parseOnePass(t, factors.Measured, true).Curves[0].Provenance; p != factors.Inferred {
		t.Errorf("old one-pass profile: provenance %q, want inferred", p)
	}
	if p := parseOnePass(t, factors.Measured, false).Curves[0].Provenance; p != factors.Measured {
		t.Errorf("measured curve without a one-pass method: provenance %q, want measured", p)
	}
}

func TestInferredNeedsHost(t *testing.T) {
	src := strings.Replace(strings.Replace(onePassProfile, "PROVENANCE", factors.Inferred, 1), `"host": "box",`, "", 1)
	_, err := ParseFactors("sim.profile.json", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "curves[0].host") {
		t.Errorf("inferred curve without host: %v, want an error at curves[0].host", err)
	}
}

// On the path it was inferred on, an inferred curve's band is its own
// one-pass band, end for end, even where the central figure is 1; carried
// to another device the band is carried too, and widened by the transfer.
func TestInferredBandIsTheOnePassBand(t *testing.T) {
	f := parseOnePass(t, factors.Inferred, true)
	fs, err := MergeProfile([]*factors.File{DefaultFactors()}, f)
	if err != nil {
		t.Fatal(err)
	}
	c := fs.Curves["zram-lz4"]
	for _, pt := range c.Points {
		est, err := fs.PredictShape("zram-lz4", RefDevice(c), 1, 1, pt.Fit, NominalShape)
		if err != nil {
			t.Fatal(err)
		}
		if est.Provenance != factors.Inferred || !est.Inferred || est.Basis.Kind != BasisCurve || est.Basis.Provenance != factors.Inferred || est.Basis.Host != "box" {
			t.Errorf("fit %g: provenance %q (inferred %v), basis %q", pt.Fit, est.Provenance, est.Inferred, est.Basis)
		}
		if math.Abs(est.Slowdown-pt.Slowdown) > 1e-9 || math.Abs(est.Low-pt.CI[0]) > 1e-9 || math.Abs(est.High-pt.CI[1]) > 1e-9 {
			t.Errorf("fit %g: %.4f (%.4f-%.4f), want the one-pass point %.4f (%.4f-%.4f)", pt.Fit, est.Slowdown, est.Low, est.High, pt.Slowdown, pt.CI[0], pt.CI[1])
		}
	}
	dev := Device{Name: "vda", ReadLatency: 80 * time.Microsecond, WriteLatency: 40 * time.Microsecond, ReadIOPS: 50000, WriteIOPS: 50000, WriteBW: 500e6, Drives: 1}
	est, err := fs.Predict("nvme-ssd-tlc", dev, 1, 1, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if est.Provenance != Derived || !est.Inferred || est.Basis.Kind != BasisDerived || est.Basis.From != "zram-lz4" || est.Basis.Provenance != factors.Inferred {
		t.Errorf("derived from an inferred curve: %q, inferred %v, basis %q", est.Provenance, est.Inferred, est.Basis)
	}
	// Central 1 at fit 0.9 on the slower device as on zram; the top of
	// the band is the one-pass 4.58 carried to a device whose time per
	// page is many times zram's.
	if est.Slowdown != 1 || est.High < 4.58 {
		t.Errorf("fit 0.9 on a block device: %.3f (%.3f-%.3f), want 1 with a band above the one-pass 4.58", est.Slowdown, est.Low, est.High)
	}
}

// An inferred curve does not teach the transfer error (it is the model's
// own arithmetic) and is never held out in crossval; it is predicted from.
func TestCrossvalInferred(t *testing.T) {
	meas := DefaultFactors()
	f := parseOnePass(t, factors.Inferred, true)
	fs, err := MergeFactors(meas, f)
	if err != nil {
		t.Fatal(err)
	}
	without, err := MergeFactors(DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	delete(without.Curves, "zram-lz4")
	if a, b := fs.TransferError(), without.TransferError(); a != b {
		t.Errorf("transfer error with the inferred curve %+v, without it %+v: want the same", a, b)
	}
	cv := CrossValidate(fs)
	if len(cv.Inferred) != 1 || cv.Inferred[0] != "zram-lz4" {
		t.Errorf("crossval inferred = %v, want [zram-lz4]", cv.Inferred)
	}
	from := 0
	for _, r := range cv.Rows {
		if r.Class == "zram-lz4" {
			t.Errorf("the inferred curve was held out: %+v", r)
		}
		if r.From == "zram-lz4" {
			from++
			if !r.FromInferred {
				t.Errorf("row predicted from the inferred curve not marked: %+v", r)
			}
		}
	}
	if from == 0 {
		t.Error("no point was predicted from the inferred curve")
	}
}
