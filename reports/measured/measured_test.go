//go:build linux

package measured_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/internal/roottest"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/device"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/onepass"
	"github.com/memplan/memplan/measure/probe"
	"github.com/memplan/memplan/measure/profile"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/prices/quote"
	"github.com/memplan/memplan/reports/measured"
)

var (
	update = flag.Bool("update", false, "rewrite the golden files under testdata/golden from the recorded JSON")
	record = flag.Bool("record", false, "run the real probe, profile, device benchmark and import (as root; minutes) and record their results as testdata/*.json")
)

// TestMain lets the probe and the profiler re-execute this test binary as
// their workload while -record runs them.
func TestMain(m *testing.M) {
	if ok, code := profile.LauncherMain(); ok {
		os.Exit(code)
	}
	if ok, code := probe.WorkloadMain(); ok {
		os.Exit(code)
	}
	roottest.RecoverStale(func(dirs []string) []string { return host.RecoverStale(host.NewOSHost(), dirs) })
	os.Exit(m.Run())
}

// probeRecord is what WriteProbe reads: the report does not carry its plan
// in JSON (json:"-"), so the recording keeps the two side by side, with the
// factor file the probe made of them.
type probeRecord struct {
	Plan    *probe.Plan   `json:"plan"`
	Report  *probe.Report `json:"report"`
	Factors *factors.File `json:"factors"`
}

type profileRecord struct {
	Report  *profile.Report `json:"report"`
	Factors *factors.File   `json:"factors"`
}

func load(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("%v (record it with `sudo go test ./reports/measured -run TestRecord -record`)", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("testdata/%s: %v", name, err)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./reports/measured -update` to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the rendered output (if the change is intended, run `go test ./reports/measured -update` and review the diff)\n--- got\n%s", path, got)
	}
}

func TestPlan(t *testing.T) {
	var p probe.Plan
	load(t, "plan.json", &p)
	var b strings.Builder
	measured.WritePlan(&b, &p)
	golden(t, "plan.txt", b.String())

	// Without root the plan has no cgroup layout and says why.
	p.Cgroups, p.Root = nil, false
	b.Reset()
	measured.WritePlan(&b, &p)
	golden(t, "plan-noroot.txt", b.String())
}

func TestProbe(t *testing.T) {
	var r probeRecord
	load(t, "probe.json", &r)
	r.Report.Plan = r.Plan
	var b strings.Builder
	measured.WriteProbe(&b, r.Report, r.Factors)
	golden(t, "probe.txt", b.String())
}

func TestDevice(t *testing.T) {
	var p device.Profile
	load(t, "device.json", &p)
	var b strings.Builder
	measured.WriteDevice(&b, &p)
	golden(t, "device.txt", b.String())
	for _, line := range strings.Split(b.String(), "\n") {
		if len(line) > 80 {
			t.Errorf("line wider than 80 columns: %q", line)
		}
	}
}

func TestProfile(t *testing.T) {
	var r profileRecord
	load(t, "profile.json", &r)
	var b strings.Builder
	measured.WriteProfile(&b, r.Report, r.Factors)
	golden(t, "profile.txt", b.String())
}

// TestProfileOnePassHasNoPhases renders a one-pass report, which has no
// phases (nothing ran under a limit): the sizing run, the sampler's counts
// and the inferred bands are printed, and nothing indexes a missing phase.
func TestProfileOnePassHasNoPhases(t *testing.T) {
	var r profileRecord
	load(t, "profile.json", &r)
	r.Report.Phases = nil
	r.Report.OnePass = &profile.OnePassReport{Result: &onepass.Result{Samples: onepass.Samples{
		Method: "idle page tracking", Split: "smaps", Windows: 19, Sweeps: 4, Processes: 1}}}
	r.Factors.Curves = []factors.Curve{{Class: "zram", Points: []factors.Point{{Fit: 0.75, Slowdown: 1.2, CI: []float64{1.0, 1.6}}}}}
	var b strings.Builder
	measured.WriteProfile(&b, r.Report, r.Factors)
	out := b.String()
	for _, want := range []string{
		"unconstrained run: ",
		"one pass: 19 window reads in 4 sweeps (idle page tracking, smaps), 1 process(es) followed",
		"zram   0.75  1.20      1.00-1.60",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("one-pass output lacks %q:\n%s", want, out)
		}
	}
}

// TestProfileOneRunSaysWhichFitsAreTheSamplers renders a one run that
// measured fit 0.9 and took fit 0.5 from a --prior: each row says its
// source, and the fit the prior did not cover reads not measured.
func TestProfileOneRunSaysWhichFitsAreTheSamplers(t *testing.T) {
	var r profileRecord
	load(t, "profile.json", &r)
	ph := r.Report.Phases[0]
	ph.Points = []profile.Point{
		{Fit: 0.9, Slowdown: measure.Summary{N: 4, Mean: 1.12, Lo: 1.08, Hi: 1.16}},
		{Fit: 0.5},
		{Fit: 0.3},
	}
	r.Report.Phases = []profile.Phase{ph}
	r.Report.OneRun = &profile.OneRunReport{Cycles: 4, Budget: 0.25}
	r.Report.Prior = &profile.PriorReport{File: "sort.onepass.json", Points: []profile.PriorPoint{{Fit: 0.5, Slowdown: 1.3, Low: 1.12, High: 1.95}}}
	var b strings.Builder
	measured.WriteProfile(&b, r.Report, r.Factors)
	out := b.String()
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if row := strings.Join(strings.Fields(line), " "); strings.HasPrefix(row, ph.Name+" "+ph.Class+" 0.") {
			rows = append(rows, row)
		}
	}
	if len(rows) != 3 || !strings.HasPrefix(rows[0], ph.Name+" "+ph.Class+" 0.90") || !strings.HasSuffix(rows[0], " one-run") ||
		!strings.HasSuffix(rows[1], "0.50 "+ph.Points[1].Limit.String()+" 1.30 1.12-1.95 - sampler") ||
		!strings.HasSuffix(rows[2], "0.30 "+ph.Points[2].Limit.String()+" not measured -") {
		t.Errorf("rows (spaces squeezed):\n%s\nwant fit 0.90 ending one-run, 0.50 the sampler's 1.30 (1.12-1.95), 0.30 not measured\n%s", strings.Join(rows, "\n"), out)
	}
	if !strings.Contains(out, "us/fault  source") {
		t.Errorf("no source column in the header:\n%s", out)
	}
}

func TestImport(t *testing.T) {
	var r quote.Result
	load(t, "import.json", &r)
	var b strings.Builder
	measured.WriteImport(&b, &r)
	golden(t, "import.txt", b.String())
}

// TestRecord runs the real code and writes what the golden tests read. It
// changes the host (swap, zram, cgroups) and undoes every change, as the
// probe's own tests do; run it as root after changing what measure or
// quote report: sudo go test ./reports/measured -run TestRecord -record
func TestRecord(t *testing.T) {
	if !*record {
		t.Skip("records testdata/*.json only with -record")
	}
	t.Run("import", func(t *testing.T) {
		wb, err := quote.ReadFile(filepath.Join("testdata", "angebot.csv"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := quote.Import(wb, quote.Options{Source: "Muster GmbH Angebot 4711"})
		if err != nil {
			t.Fatal(err)
		}
		res.Catalog, res.YAML = nil, nil // the catalog is tested in prices/quote
		save(t, "import.json", res)
	})
	t.Run("device", func(t *testing.T) {
		p, err := device.Measure(context.Background(), t.TempDir(), device.Options{Size: device.QuickSize, Duration: 500e6})
		if err != nil {
			t.Fatal(err)
		}
		save(t, "device.json", p)
	})
	roottest.Require(t)
	roottest.Lock(t)
	t.Setenv(host.StateDirEnv, t.TempDir())
	h := host.NewOSHost()
	t.Run("plan", func(t *testing.T) {
		o := probe.DefaultOptions()
		o.SwapDir = t.TempDir()
		o.Scenarios = []string{probe.ScenarioCurves, probe.ScenarioSwappiness, probe.ScenarioPageCache, probe.ScenarioSwapdemo, probe.ScenarioCopy}
		p, err := probe.MakePlan(h, o)
		if err != nil {
			t.Fatal(err)
		}
		save(t, "plan.json", p)
	})
	t.Run("probe", func(t *testing.T) {
		o := probe.DefaultOptions()
		o.Quick = true
		o.SwapDir = t.TempDir()
		o.Backends = []string{"zram", "file", "none"}
		o.Fits = []float64{0.9, 0.5}
		o.Reps = 2
		o.DeviceProfile = false
		o.Workload.DataSize = 64 << 20
		o.Scenarios = []string{probe.ScenarioCurves, probe.ScenarioSwappiness, probe.ScenarioPageCache, probe.ScenarioSwapdemo, probe.ScenarioCopy}
		o.PageCacheSizes = []float64{0, 1}
		o.PageCacheRemedies = []string{"none", "dontneed"}
		o.Swappiness = []int{60}
		o.Limit = 128 << 20
		o.Budget = 5e9
		o.CopyRuns = 3
		p, err := probe.MakePlan(h, o)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := probe.RunPlan(context.Background(), h, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		save(t, "probe.json", probeRecord{Plan: p, Report: rep, Factors: rep.Factors("test")})
	})
	t.Run("profile", func(t *testing.T) {
		o := profile.DefaultOptions()
		o.Command = []string{"python3", "-c", "b = bytearray(200 << 20)\nfor r in range(6):\n    for i in range(0, len(b), 4096): b[i] = r"}
		o.Runs = 2
		o.Fits = []float64{0.9, 0.5}
		o.SwapDir = t.TempDir()
		o.Validate = measure.BackendFile
		o.DeviceDuration = 500e6
		o.MaxSlowdown = 15
		var out bytes.Buffer
		o.Stdout, o.Stderr = &out, &out
		rep, err := profile.Profile(context.Background(), h, o, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		save(t, "profile.json", profileRecord{Report: rep, Factors: rep.Factors("test")})
	})
}

func save(t *testing.T, name string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", name), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDeviceCatalogEntryLoads: the drive entry probe device prints loads
// into a price catalog once the part number and price are filled in, with
// the measured figures the model reads; as printed, its price is refused
// at its line.
func TestDeviceCatalogEntryLoads(t *testing.T) {
	var p device.Profile
	load(t, "device.json", &p)
	entry := measured.CatalogDrive(&p)
	head := "name: mine\ncurrency: USD\ndate: 2026-12-04\nsource: test\ndrives:\n"
	filled := strings.NewReplacer("sku: FILL-IN", "sku: MY-DRIVE", "price: FILL-IN", "price: 180.00 USD", "capacity: FILL-IN", "capacity: 1920GB", "nand: FILL-IN", "nand: TLC", "tbw: FILL-IN", "tbw: 3500TB").Replace(entry)
	c, err := prices.Parse("mine.yaml", []byte(head+filled))
	if err != nil {
		t.Fatalf("the filled-in entry does not load: %v\n%s", err, filled)
	}
	if len(c.Drives) != 1 {
		t.Fatalf("%d drives", len(c.Drives))
	}
	d, r := c.Drives[0], p.Reference()
	if d.ReadLatency != r.ReadLatency || d.WriteLatency != r.WriteLatency || d.ReadIOPS != r.ReadIOPS || d.WriteIOPS != r.WriteIOPS {
		t.Errorf("catalog drive %+v, measured %+v", d, r)
	}
	if p.SeqWrite != nil && math.Abs(float64(d.WriteBandwidth)/1e6-p.SeqWrite.MBPerSec) > 1 {
		t.Errorf("write bandwidth %v, measured %.1f MB/s", d.WriteBandwidth, p.SeqWrite.MBPerSec)
	}
	_, err = prices.Parse("mine.yaml", []byte(head+strings.NewReplacer("sku: FILL-IN", "sku: MY-DRIVE", "nand: FILL-IN", "nand: TLC", "tbw: FILL-IN", "tbw: 3500TB").Replace(entry)))
	if err == nil || !strings.Contains(err.Error(), "price") {
		t.Errorf("the entry as printed loads or fails elsewhere: %v", err)
	}
}

// TestProbeRecordReadsOldPlanKeys: testdata/probe.json was recorded before
// the plan had json tags, so its plan's keys are Go field names; the
// multi-word ones, which encoding/json alone does not match to the
// snake_case keys, must still come through.
func TestProbeRecordReadsOldPlanKeys(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "probe.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"DeviceClass"`)) {
		t.Fatal("testdata/probe.json no longer has the old plan keys; it is the fixture for reading them")
	}
	var r probeRecord
	load(t, "probe.json", &r)
	p, o := r.Plan, r.Plan.Options
	checks := []struct {
		field     string
		got, want any
	}{
		{"DeviceClass", p.DeviceClass, "hdd"},
		{"MemTotal", p.MemTotal.String(), "23.5GiB"},
		{"SwapFileSize", p.SwapFileSize.String(), "152MiB"},
		{"ZramHotAdd", p.ZramHotAdd, true},
		{"ZramAlg", p.ZramAlg, "lz4"},
		{"WorkDir", p.WorkDir, "/tmp/TestRecord2875185573/001/work-7168"},
		{"Swap.MountPoint", p.Swap.MountPoint, "/"},
		{"Swap.DiskDev", p.Swap.DiskDev, "254:0"},
		{"Options.SwapDir", o.SwapDir, "/tmp/TestRecordprobe2436992025/001"},
		{"Options.PageCacheRemedies", strings.Join(o.PageCacheRemedies, ","), "none,dontneed"},
		{"Options.MaxSlowdown", o.MaxSlowdown, 40.0},
		{"Options.ScenarioFit", o.ScenarioFit, 0.75},
		{"Options.CopyRuns", o.CopyRuns, 3},
		{"Options.Swappiness", fmt.Sprint(o.Swappiness), "[60]"},
		{"Options.CodePasses", o.CodePasses, 8.0},
		{"Options.Workload.DataSize", o.Workload.DataSize.String(), "64MiB"},
		{"Options.Workload.WriteMix", o.Workload.WriteMix, 0.5},
		{"Stages", len(p.Stages), 3},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("plan.%s = %v, want %v", c.field, c.got, c.want)
		}
	}
	if len(p.Stages) == 3 && (p.Stages[0].Backend != "zram" || p.Stages[0].Provenance != "measured" || p.Stages[0].Reps != 2) {
		t.Errorf("plan.Stages[0] = %+v, want backend zram, provenance measured, 2 reps", p.Stages[0])
	}
}
