//go:build linux

package probe

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
	"gopkg.in/yaml.v3"
)

func TestSummarize(t *testing.T) {
	s := measure.Summarize([]float64{1.0, 1.2, 1.1, 5.0})
	if s.N != 4 || math.Abs(s.Mean-2.075) > 1e-9 || s.Min != 1 || s.Max != 5 {
		t.Errorf("got %+v", s)
	}
	if math.Abs(s.Trimmed-1.15) > 1e-9 {
		t.Errorf("trimmed mean %g, want 1.15 (best and worst dropped)", s.Trimmed)
	}
	// Student t with 3 degrees of freedom: 3.182 * sd / sqrt(4).
	half := 3.182446305 * s.SD / 2
	if math.Abs(s.Hi-s.Mean-half) > 1e-6 || math.Abs(s.Mean-s.Lo-half) > 1e-6 {
		t.Errorf("CI [%g, %g] around %g, want half-width %g", s.Lo, s.Hi, s.Mean, half)
	}
	lo, hi := model.TInterval([]float64{1.0, 1.2, 1.1, 5.0}, 0.95)
	if math.Abs(lo-s.Lo) > 1e-9 || math.Abs(hi-s.Hi) > 1e-9 {
		t.Errorf("disagrees with the model's interval [%g, %g]", lo, hi)
	}
	if one := measure.Summarize([]float64{2}); one.Lo != 2 || one.Hi != 2 || one.SD != 0 {
		t.Errorf("one sample: %+v", one)
	}
}

// syntheticReport is what a probe on a small host could report.
func syntheticReport() *Report {
	rot := true
	p := &Plan{
		Options:     Options{Reps: 3, Fits: []float64{0.9, 0.5}, Scenarios: []string{ScenarioCurves}, Backends: allBackends, MaxSlowdown: 25},
		Cgroups:     &host.CgroupLayout{Version: 1},
		Swap:        &host.SwapTarget{Dir: "/var/tmp", FS: "ext4", MountPoint: "/", Disk: &host.BlockDevice{Name: "sda", Rotational: &rot}},
		DeviceClass: "hdd",
		Workload:    WorkloadSpec{DataSize: 96 * units.MiB, CodeSize: 12 * units.MiB, Pattern: measure.PatternZipf, Content: measure.ContentCompressible, WriteMix: 0.5, Visits: 1000},
		ZramAlg:     "lz4", ZswapAlg: "lz4",
	}
	p.Stages = []Stage{{Name: "emulated sata-ssd-slc", Backend: measure.BackendEmulated, Class: "sata-ssd-slc", Provenance: factors.Emulated,
		Emulation: &Emulation{Class: "sata-ssd-slc", RIOPS: 35000, WIOPS: 3300, Count: 1, Label: "Intel X25-E 64GB (SLC)"}}}
	p.Stages[0].Emulation.Drive.ReadLatency = units.Duration(75 * time.Microsecond)
	p.Stages[0].Emulation.Drive.WriteLatency = units.Duration(85 * time.Microsecond)
	pt := func(stage, backend, class, prov string, fit float64, samples ...float64) PointResult {
		r := PointResult{Stage: stage, Backend: backend, Class: class, Provenance: prov, Fit: fit, Samples: samples, Slowdown: measure.Summarize(samples)}
		for range samples {
			r.Runs = append(r.Runs, measure.RunResult{Backend: stage, Fit: fit, Timed: 2, Visits: 1000, MajFlt: 500})
		}
		r.FaultTime = 40e-6
		r.ZramRatio = 2.8
		return r
	}
	return &Report{
		Plan:      p,
		Host:      factors.HostFacts{Hostname: "box", CPU: "2 x Xeon", Kernel: "6.18", RAM: "24GiB", Cgroup: "v1"},
		Started:   time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC),
		Footprint: 111 * units.MiB,
		Baseline:  measure.Summarize([]float64{0.1, 0.1, 0.1}),
		Points: []PointResult{
			pt("zram-lz4", measure.BackendZram, "zram-lz4", factors.Measured, 0.9, 0.98, 1.02, 0.99), // noise below 1
			pt("zram-lz4", measure.BackendZram, "zram-lz4", factors.Measured, 0.5, 1.8, 2.0, 1.9),
			pt("file", measure.BackendFile, "hdd", factors.Measured, 0.9, 1.5, 1.6, 1.7),
			pt("file", measure.BackendFile, "hdd", factors.Measured, 0.5, 6, 7, 8),
			pt("emulated sata-ssd-slc", measure.BackendEmulated, "sata-ssd-slc", factors.Emulated, 0.5, 9, 10),
			{Stage: "none", Backend: measure.BackendNone, Fit: 0.75, Failed: 1, OOMKilled: 1, Runs: []measure.RunResult{{OOMKilled: true}}},
		},
		ZramLatency: &host.ZramLatency{Algorithm: "lz4", Content: measure.ContentCompressible, ReadMean: 4.7, WriteMean: 7.8},
	}
}

func TestFactorsLoadInTheModel(t *testing.T) {
	ff := syntheticReport().Factors("test")
	if len(ff.Curves) != 3 {
		t.Fatalf("curves %+v", ff.Curves)
	}
	if ff.TransferFrom != "hdd" || ff.Host == nil || ff.Host.Cgroup != "v1" {
		t.Errorf("transfer_from %q host %+v", ff.TransferFrom, ff.Host)
	}
	for _, c := range ff.Curves {
		if c.Host != "box" || c.Reference.ReadLatency <= 0 || c.Reference.Concurrency != 1 {
			t.Errorf("curve %s: %+v", c.Class, c)
		}
		for _, p := range c.Points {
			if p.Slowdown < 1 || len(p.Samples) == 0 {
				t.Errorf("curve %s point %+v", c.Class, p)
			}
		}
	}
	emu := ff.Curves[2]
	if emu.Provenance != factors.Emulated || emu.Reference.WriteIOPS != 3300 || emu.Reference.ReadLatency != units.Duration(75*time.Microsecond) {
		t.Errorf("emulated curve %+v", emu)
	}
	if len(ff.Software) != 1 || ff.Software[0].Name != "zram-lz4" || ff.Software[0].Ratio != 2.8 {
		t.Errorf("software %+v", ff.Software)
	}
	if ff.Extra["no_swap"] == nil || ff.Extra["baseline"] == nil || ff.Extra["probe"] == nil {
		t.Errorf("extra lacks sections: %v", keys(ff.Extra))
	}

	// Both encodings load with the model's own loader.
	y, err := yaml.Marshal(ff)
	if err != nil {
		t.Fatal(err)
	}
	got, err := model.ParseFactors("probe.yaml", y)
	if err != nil {
		t.Fatalf("YAML does not load: %v\n%s", err, y)
	}
	if len(got.Curves) != 3 || got.Curves[0].Points[0].Slowdown != 1 {
		t.Errorf("reloaded %+v", got.Curves[0])
	}
	j, err := json.Marshal(ff.Curves)
	if err != nil {
		t.Fatal(err)
	}
	if len(j) == 0 {
		t.Error("empty JSON")
	}
	if _, err := model.MergeFactors(model.DefaultFactors(), got); err != nil {
		t.Errorf("does not merge with the defaults: %v", err)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestFactorsLatencyEmulatedSource: a curve emulated with its latency says
// so, and what the device delivered, not that a swap file was throttled.
func TestFactorsLatencyEmulatedSource(t *testing.T) {
	r := syntheticReport()
	r.Plan.Stages[0].Emulation.Latency = "x25-e"
	ff := r.Factors("test")
	emu := ff.Curves[2]
	want := "emulated by memplan probe with its latency: swap on a direct-I/O loop device over a FUSE file whose requests wait for the x25-e model (Intel X25-E 64GB (SLC)); FUSE and the loop device add their own time on top: 40us extra per major fault was measured against the drive's 75us read"
	if emu.Source != want || emu.Reference.ReadLatency != units.Duration(75*time.Microsecond) {
		t.Errorf("source %q, reference %+v", emu.Source, emu.Reference)
	}
}
