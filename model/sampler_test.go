package model

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
)

// oneRunWithPrior is a one-run profile that took a one-pass prior: fits
// 0.9 and 0.75 measured by the run, 0.6 and 0.45 the sampler's figures
// with their one-pass bands.
const oneRunWithPrior = `{
  "name": "memplan-profile sim on box 2026-12-04",
  "date": "2026-12-04",
  "source": "measured by memplan profile --one-run on box: ./sim",
  "host": {"hostname": "box"},
  "transfer_from": "zram-lz4",
  "curves": [{
    "class": "zram-lz4",
    "provenance": "measured",
    "method": "one-run",
    "source": "memplan profile --one-run of ./sim",
    "host": "box",
    "reference": {"device": "zram lz4", "read_latency": "3.5us", "write_latency": "4.2us", "concurrency": 1, "dirty_share": 1},
    "points": [
      {"fit": 0.9, "slowdown": 1.02, "ci": [1.0, 1.06], "source": "one-run"},
      {"fit": 0.75, "slowdown": 1.1, "ci": [1.04, 1.18], "source": "one-run"},
      {"fit": 0.6, "slowdown": 1.3, "ci": [1.1, 1.9], "source": "sampler"},
      {"fit": 0.45, "slowdown": 1.6, "ci": [1.3, 2.4], "source": "sampler"}
    ]
  }],
  "extra": {"profile": {"method": "one-run", "command_line": "./sim"}}
}`

// On the curve's own path a measured fit reads as measured; a fit the
// sampler filled reads its figure with the one-pass band end for end,
// and its basis says that it is the sampler's, not a measurement.
func TestSamplerPointsCarryTheirBandAndSayWhatTheyAre(t *testing.T) {
	f, err := ParseFactors("sim.profile.json", []byte(oneRunWithPrior))
	if err != nil {
		t.Fatal(err)
	}
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
		b := est.Basis.String()
		if math.Abs(est.Slowdown-pt.Slowdown) > 1e-9 || !est.Basis.OneRun || est.Provenance != factors.Measured {
			t.Errorf("fit %g: %.4f (%s, %q), want the profile's %.4f, measured in one run", pt.Fit, est.Slowdown, est.Provenance, b, pt.Slowdown)
		}
		sampler := pt.Source == factors.PointSampler
		if est.Basis.Sampler != sampler || strings.Contains(b, SamplerBasis) != sampler {
			t.Errorf("fit %g (source %s): basis %q says sampler %v", pt.Fit, pt.Source, b, est.Basis.Sampler)
		}
		if sampler && (math.Abs(est.Low-pt.CI[0]) > 1e-9 || math.Abs(est.High-pt.CI[1]) > 1e-9) {
			t.Errorf("fit %g: band %.4f-%.4f, want the one-pass band %.4f-%.4f", pt.Fit, est.Low, est.High, pt.CI[0], pt.CI[1])
		}
		if !sampler && (est.Low < pt.CI[0]-0.02 || est.High > pt.CI[1]+0.02) {
			t.Errorf("fit %g: band %.4f-%.4f, want about the measured %.4f-%.4f, not widened by the sampler's", pt.Fit, est.Low, est.High, pt.CI[0], pt.CI[1])
		}
	}
	// Between a measured fit and a sampler's, the figure rests on both.
	if est, _ := fs.PredictShape("zram-lz4", RefDevice(c), 1, 1, 0.7, NominalShape); !est.Basis.Sampler {
		t.Errorf("fit 0.7, between 0.75 (one-run) and 0.6 (sampler): basis %q does not name the sampler", est.Basis)
	}
	if est, _ := fs.PredictShape("zram-lz4", RefDevice(c), 1, 1, 0.8, NominalShape); est.Basis.Sampler {
		t.Errorf("fit 0.8, between two measured fits: basis %q names the sampler", est.Basis)
	}
}

// A class derived jointly from a profile's one-run curves says, as one
// derived from a single curve does, where its figure rests on a fit the
// sampler filled: between 0.75 (run) and 0.6 (sampler) and below, not at
// 0.85, between two fits the run measured.
func TestJointBasisNamesTheSampler(t *testing.T) {
	two := strings.Replace(oneRunWithPrior, `  }],
  "extra"`, `  }, {
    "class": "sata-ssd-slc",
    "provenance": "measured",
    "method": "one-run",
    "source": "memplan profile --one-run of ./sim",
    "host": "box",
    "reference": {"device": "sda", "read_latency": "90us", "write_latency": "80us", "read_iops": 35000, "concurrency": 1, "dirty_share": 1},
    "points": [
      {"fit": 0.9, "slowdown": 1.1, "ci": [1.05, 1.15], "source": "one-run"},
      {"fit": 0.75, "slowdown": 1.5, "ci": [1.4, 1.6], "source": "one-run"},
      {"fit": 0.6, "slowdown": 2.6, "ci": [2.0, 3.4], "source": "sampler"},
      {"fit": 0.45, "slowdown": 4.2, "ci": [3.0, 6.0], "source": "sampler"}
    ]
  }],
  "extra"`, 1)
	f, err := ParseFactors("sim.profile.json", []byte(two))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := MergeProfile([]*factors.File{DefaultFactors()}, f)
	if err != nil {
		t.Fatal(err)
	}
	nvme := Device{Name: "nvme", ReadLatency: 85 * time.Microsecond, ReadIOPS: 900000, WriteBW: 1e9, Drives: 1}
	for _, c := range []struct {
		fit     float64
		sampler bool
	}{{0.85, false}, {0.7, true}, {0.5, true}} {
		est, err := fs.PredictShape("nvme-ssd-tlc", nvme, 1, 1, c.fit, NominalShape)
		if err != nil {
			t.Fatal(err)
		}
		b := est.Basis
		if b.Kind != BasisJoint || !slices.Equal(b.Joint.Curves, []string{"sata-ssd-slc", "zram-lz4"}) {
			t.Fatalf("fit %g: basis %q, want derived jointly from the profile's two curves", c.fit, b)
		}
		if b.Sampler != c.sampler || strings.HasSuffix(b.String(), "; "+SamplerBasis) != c.sampler {
			t.Errorf("fit %g: sampler %v, basis %q; want the sampler named: %v", c.fit, b.Sampler, b, c.sampler)
		}
	}
}

// The sampler's points teach the transfer error nothing and are never
// held out in crossval as if they were observations.
func TestSamplerPointsAreNotObservations(t *testing.T) {
	f, err := ParseFactors("sim.profile.json", []byte(oneRunWithPrior))
	if err != nil {
		t.Fatal(err)
	}
	measuredOnly := strings.NewReplacer(
		`,
      {"fit": 0.6, "slowdown": 1.3, "ci": [1.1, 1.9], "source": "sampler"},
      {"fit": 0.45, "slowdown": 1.6, "ci": [1.3, 2.4], "source": "sampler"}`, "").Replace(oneRunWithPrior)
	g, err := ParseFactors("measured.profile.json", []byte(measuredOnly))
	if err != nil {
		t.Fatal(err)
	}
	with, err := MergeFactors(DefaultFactors(), f)
	if err != nil {
		t.Fatal(err)
	}
	without, err := MergeFactors(DefaultFactors(), g)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := with.TransferError(), without.TransferError(); a != b {
		t.Errorf("transfer error with the sampler's points %+v, without them %+v: want the same", a, b)
	}
	for _, r := range CrossValidate(with).Rows {
		if r.Class == "zram-lz4" && (r.Fit == 0.6 || r.Fit == 0.45) {
			t.Errorf("a sampler's point was held out as an observation: %+v", r)
		}
	}
}

// A recommendation whose job's figure rests on the sampler says so in its
// verdict, ahead of the one-run sentence, and names the way to measure it.
func TestRestsOnNamesTheSampler(t *testing.T) {
	f, err := ParseFactors("sim.profile.json", []byte(oneRunWithPrior))
	if err != nil {
		t.Fatal(err)
	}
	jf, err := MergeProfile([]*factors.File{DefaultFactors()}, f)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{JobFactors: map[string]*Factors{"sim": jf}}
	for _, c := range []struct {
		fit  float64
		want string
	}{
		{0.5, "The one run of sim did not reach the fit ratio this configuration gives it: the slowdown there rests on the one-pass sampler's figure"},
		{0.8, "The curve of sim was measured in one run under a stepped memory limit"},
	} {
		est, err := jf.PredictShape("zram-lz4", RefDevice(jf.Curves["zram-lz4"]), 1, 1, c.fit, NominalShape)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Jobs: []JobResult{{Name: "sim", Fit: c.fit, Estimate: est}}}
		if got := restsOn(&Result{Recommended: &cfg}, in); !strings.HasPrefix(got, c.want) {
			t.Errorf("fit %g: %q\nwant it to start %q", c.fit, got, c.want)
		}
	}
}
