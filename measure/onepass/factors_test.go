//go:build linux

package onepass

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
)

// syntheticSamples are what the sampler would gather from uniform random
// access over n pages at lam a second, each window seen reps times with a
// 2% spread.
func syntheticSamples(n, lam float64, reps int) Samples {
	s := Samples{Method: MethodAccessedBits, Split: "per-mapping smaps", Started: time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC),
		Elapsed: time.Hour, PeakRss: int64(n * page), PeakAnon: int64(n * page)}
	for _, w := range DefaultLadder {
		r := Rung{Window: w}
		ws := n * (1 - math.Exp(-lam*w.Seconds()/n)) * page
		for i := 0; i < reps; i++ {
			x := ws * (1 + 0.02*float64(i%3-1))
			r.Ref.Add(x)
			r.RefAnon.Add(0.9 * x)
			r.RefFile.Add(0.1 * x)
			r.New.Add(0)
			r.Reuse.Add(x)
			r.Rss.Add(n * page)
		}
		s.Rungs = append(s.Rungs, r)
		s.Windows += reps
	}
	return s
}

// written derives the synthetic samples of n pages at lam a second under
// info, writes the profile and loads it back: the result, the file as
// written and as read.
func written(t *testing.T, info Info, n, lam float64, name string) (*Result, *factors.File, *factors.File) {
	t.Helper()
	res, err := Derive(info, syntheticSamples(n, lam, 6), DefaultCosts())
	if err != nil {
		t.Fatal(err)
	}
	f, err := res.Factors(info)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	back, err := model.ParseFactors(name, data)
	if err != nil {
		t.Fatalf("the profile does not load: %v", err)
	}
	return res, f, back
}

func TestFactorsLoadsAndTransfers(t *testing.T) {
	const n, lam = 100000.0, 20000.0
	info := Info{Command: []string{"sort", "-S", "200M", "big file.txt"}, Version: "test", Host: &factors.HostFacts{Hostname: "box"},
		Runtime: time.Hour, Fits: []float64{0.9, 0.75, 0.5}}
	_, _, back := written(t, info, n, lam, "sort.profile.json")
	if back.TransferFrom != "zram-lz4" || len(back.Curves) != 1 || back.FaultOverhead != 0 {
		t.Fatalf("transfer_from %q, %d curves, overhead %v; want zram-lz4, 1, none (the default is not measured)", back.TransferFrom, len(back.Curves), back.FaultOverhead)
	}
	if p := back.Curves[0].Provenance; p != factors.Inferred {
		t.Errorf("curve provenance %q, want %q", p, factors.Inferred)
	}
	if m := back.Extra["profile"].(map[string]any)["method"]; m != "one-pass" {
		t.Errorf("extra.profile.method = %v, want one-pass", m)
	}
	if !strings.Contains(back.Source, `"big file.txt"`) || !strings.Contains(back.Curves[0].Source, "inferred by one pass") {
		t.Errorf("source %q / %q should quote the command and say inferred", back.Source, back.Curves[0].Source)
	}
	for _, p := range back.Curves[0].Points {
		want := lam * (1 - p.Fit)
		if math.Abs(p.PageRate/want-1) > 0.25 || len(p.CI) != 2 {
			t.Errorf("fit %g: page rate %g (want about %g), ci %v", p.Fit, p.PageRate, want, p.CI)
		}
	}
	// recommend's path: the profile merged over the defaults carries the
	// job's page rates to a class it has no curve for.
	fs, err := model.MergeProfile([]*factors.File{model.DefaultFactors()}, back)
	if err != nil {
		t.Fatal(err)
	}
	dev := model.Device{Name: "vda", ReadLatency: 36 * time.Microsecond, WriteLatency: 28 * time.Microsecond}
	est, err := fs.Predict("hdd", dev, 1, 0.5, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	mine := 1 + lam*0.5*(20+36)*1e-6
	if est.Slowdown < 1.1 || math.Abs(est.Slowdown/mine-1) > 0.35 {
		t.Errorf("derived hdd slowdown at 0.5: %.3f (%s), expected near 1 + rate x (20us + 36us) = %.3f", est.Slowdown, est.Basis, mine)
	}
	if est.Provenance != model.Derived || !est.Inferred || est.Basis.Kind != model.BasisDerived || est.Basis.Provenance != factors.Inferred {
		t.Errorf("derived from a one-pass curve: provenance %q, inferred %v, basis %q; want derived, true, naming the inferred curve", est.Provenance, est.Inferred, est.Basis)
	}
}

func TestDeriveRefusesEmptyRun(t *testing.T) {
	s := Samples{Sweeps: 1}
	for _, w := range DefaultLadder {
		s.Rungs = append(s.Rungs, Rung{Window: w})
	}
	_, err := Derive(Info{}, s, DefaultCosts())
	if err == nil || !strings.Contains(err.Error(), "no window was read") {
		t.Errorf("empty run: %v", err)
	}
}

func TestMeasuredOverheadGoesIntoProfile(t *testing.T) {
	info := Info{Command: []string{"python3", "dict.py"}, Host: &factors.HostFacts{Hostname: "box"}, Runtime: time.Minute}
	res, err := Derive(info, syntheticSamples(50000, 5000, 3), DefaultCosts().Measured(30*time.Microsecond, "memplan profile fault_overhead"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := res.Factors(info)
	if err != nil {
		t.Fatal(err)
	}
	if f.FaultOverhead.D() != 30*time.Microsecond {
		t.Errorf("fault_overhead %v, want the measured 30us", f.FaultOverhead)
	}
}

// A job whose cgroup was charged far beyond its resident peak (sort's
// temporary files) gets a note saying the curve does not see that page
// cache; one charged about its resident peak does not.
func TestPageCacheNote(t *testing.T) {
	const n, lam = 100000.0, 20000.0
	peak := int64(n * page)
	for _, tc := range []struct {
		charged int64
		want    bool
	}{{0, false}, {peak, false}, {peak + peak/5, false}, {peak + 8<<20, false}, {2 * peak, true}, {688 << 20, true}} {
		info := Info{Command: []string{"sort"}, Version: "test", Runtime: time.Hour, Fits: []float64{0.9, 0.5}, Peak: peak, Charged: tc.charged}
		_, f, _ := written(t, info, n, lam, "sort.profile.json")
		data, _ := json.Marshal(f.Extra["notes"])
		got := strings.Contains(string(data), "page cache: the job's cgroup was charged up to")
		prof := f.Extra["profile"].(map[string]any)
		if got != tc.want {
			t.Errorf("charged %d against %d resident: note %v, want %v (%s)", tc.charged, peak, got, tc.want, data)
		}
		if pc, ok := prof["page_cache_bytes"]; ok != tc.want || (ok && pc.(int64) != tc.charged-peak) {
			t.Errorf("charged %d: page_cache_bytes %v (present %v), want %d only when noted", tc.charged, pc, ok, tc.charged-peak)
		}
	}
	if s := PageCacheNote(688<<20, 302<<20); !strings.Contains(s, "688MiB against a resident peak of 302MiB") || !strings.Contains(s, "the other 386MiB") {
		t.Errorf("note %q: want both figures", s)
	}
}
