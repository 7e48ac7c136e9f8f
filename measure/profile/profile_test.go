//go:build linux

package profile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/measure/host/hosttest"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
	"gopkg.in/yaml.v3"
)

// These tests need no root: option checks, the launcher, the transfer
// arithmetic and the profile's factor file, on synthetic measurements.

func TestProfileOptionErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"no command", func(o *Options) { o.Command = nil }, "no command given"},
		{"fit 0", func(o *Options) { o.Fits = []float64{0} }, "fit ratio 0 is out of range"},
		{"fit above 1", func(o *Options) { o.Fits = []float64{0.5, 1.5} }, "fit ratio 1.5 is out of range"},
		{"fit twice", func(o *Options) { o.Fits = []float64{0.5, 0.5} }, "given twice"},
		{"only fit 1", func(o *Options) { o.Fits = []float64{1} }, "below 1"},
		{"tiny fit", func(o *Options) { o.Fits = []float64{0.01} }, "too small"},
		{"runs", func(o *Options) { o.Runs = 1000 }, "out of range"},
		{"backend", func(o *Options) { o.Backend = "tape" }, `unknown backend "tape"`},
		{"same validation backend", func(o *Options) { o.Validate = measure.BackendZram }, "needs the other one"},
		{"file without dir", func(o *Options) { o.Validate = measure.BackendFile }, "--swap-dir"},
		{"max slowdown", func(o *Options) { o.MaxSlowdown = 1 }, "too small"},
		{"stdout dir", func(o *Options) { o.StdoutFile = "/nonexistent/dir/out" }, "directory does not exist"},
		{"not found", func(o *Options) { o.Command = []string{"memplan-no-such-command"} }, "not found"},
		{"not root", func(o *Options) {}, "needs root"},
	} {
		o := DefaultOptions()
		o.Command = []string{"true"}
		o.StateDir = t.TempDir()
		c.mod(&o)
		_, err := Profile(context.Background(), hosttest.NonRoot{Host: host.NewOSHost()}, o, nil)
		var oe *measure.OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an option error with %q", c.name, err, c.want)
		}
		if _, serr := os.Stat(filepath.Join(o.StateDir, host.JournalName)); serr == nil {
			t.Errorf("%s: a journal was written", c.name)
		}
	}
}

// fixtureCgroup is a cgroup in a fixture tree: moving the launcher into it
// works, but the launcher will not find itself there.
func fixtureCgroup(t *testing.T) *host.Cgroup {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cg", "cgroup.procs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return &host.Cgroup{Host: &host.OSHost{Root: dir}, Version: 1, Mem: "/cg", Lines: []string{"99:memory:/memplan-not-here"}}
}

func TestLauncher(t *testing.T) {
	s := &profileSession{Confinement: &host.Confinement{Host: host.NewOSHost(), Exe: "/proc/self/exe"}}
	var out, errOut bytes.Buffer
	r, err := s.launch(launchSpec{Path: "/bin/sh", Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}}, "", &out, &errOut, nil)
	if err != nil {
		t.Fatal(err)
	}
	if timedOut, _ := r.wait(context.Background(), s.Host, nil, time.Minute, nil); timedOut {
		t.Fatal("timed out")
	}
	code, sig, text := exitDescription(r.cmd.ProcessState)
	if code != 3 || sig != "" || text != "exit status 3" {
		t.Errorf("exit %d %q %q", code, sig, text)
	}
	if out.String() != "out\n" || errOut.String() != "err\n" || r.tail.String() != "err\n" {
		t.Errorf("stdout %q, stderr %q, tail %q", out.String(), errOut.String(), r.tail.String())
	}
	if os.Getenv(launcherEnv) != "" {
		t.Error("the launcher's environment leaked into the parent")
	}

	// The environment the command sees has no trace of the launcher.
	out.Reset()
	r, err = s.launch(launchSpec{Path: "/bin/sh", Argv: []string{"sh", "-c", "env"}}, t.TempDir(), &out, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.wait(context.Background(), s.Host, nil, time.Minute, nil)
	if strings.Contains(out.String(), launcherEnv) {
		t.Errorf("the command sees %s", launcherEnv)
	}

	_, err = s.launch(launchSpec{Path: "/nonexistent/cmd", Argv: []string{"cmd"}}, "", nil, nil, nil)
	var le *launchError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "executing /nonexistent/cmd") {
		t.Errorf("got %v, want a launch error", err)
	}
	// Never unconfined: a launcher that is not in its cgroup refuses.
	_, err = s.launch(launchSpec{Path: "/bin/true", Argv: []string{"true"}}, "", nil, nil, fixtureCgroup(t))
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "not confined") {
		t.Errorf("got %v, want the launcher to refuse", err)
	}
}

func TestLauncherTimeout(t *testing.T) {
	s := &profileSession{Confinement: &host.Confinement{Host: host.NewOSHost(), Exe: "/proc/self/exe"}}
	r, err := s.launch(launchSpec{Path: "/bin/sleep", Argv: []string{"sleep", "30"}}, "", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	timedOut, _ := r.wait(context.Background(), s.Host, nil, 200*time.Millisecond, nil)
	if !timedOut || time.Since(start) > 10*time.Second {
		t.Errorf("timed out %v after %s", timedOut, time.Since(start))
	}
	if _, sig, _ := exitDescription(r.cmd.ProcessState); sig != "killed" {
		t.Errorf("signal %q, want killed", sig)
	}
}

// syntheticPhases: zram (2us read, 3us write) and a swap file (50us, 50us),
// in-RAM 10s on both, dirty share 1.
func syntheticPhases() (*Phase, *Phase) {
	pt := func(fit, wall, faults, ins float64, n int) Point {
		s := make([]float64, n)
		for i := range s {
			s[i] = wall / 10
		}
		runs := make([]measure.RunResult, n)
		for i := range runs {
			runs[i] = measure.RunResult{Fit: fit, Rep: i + 1, Wall: wall, MajFlt: int64(faults), SwapIn: int64(ins), Slowdown: wall / 10}
		}
		return Point{Fit: fit, Wall: wall, MajFlt: faults, SwapIns: ins, Slowdown: measure.Summarize(s), Samples: s, Runs: runs}
	}
	a := &Phase{Backend: measure.BackendZram, Name: "zram-lz4", Class: "zram-lz4", InRAM: measure.Summary{N: 3, Mean: 10, Trimmed: 10},
		Reference: factors.Reference{Device: "zram lz4", ReadLatency: units.Duration(2 * time.Microsecond), WriteLatency: units.Duration(3 * time.Microsecond), Drives: 1, Concurrency: 1, DirtyShare: 1},
		Points:    []Point{pt(0.9, 12, 100e3, 100e3, 3), pt(0.5, 18, 400e3, 400e3, 3)}}
	b := &Phase{Backend: measure.BackendFile, Name: "file", Class: "nvme-ssd-tlc", InRAM: measure.Summary{N: 3, Mean: 10, Trimmed: 10},
		Reference: factors.Reference{Device: "disk", ReadLatency: units.Duration(50 * time.Microsecond), WriteLatency: units.Duration(50 * time.Microsecond), Drives: 1, Concurrency: 1, DirtyShare: 1},
		Points:    []Point{pt(0.9, 12.9, 20e3, 100e3, 3), pt(0.5, 21.3, 90e3, 400e3, 3)}}
	return a, b
}

// syntheticReadahead: the loop device over zram took a quarter of the
// faults and read 6% more pages than zram swapped in.
func syntheticReadahead() *ReadaheadReport {
	rr := &ReadaheadReport{Device: "/dev/loop0 over /dev/zram1", Points: []ReadaheadPoint{
		{Fit: 0.9, MajFlt: 25e3, SwapIns: 110e3}, {Fit: 0.5, MajFlt: 100e3, SwapIns: 420e3}}}
	return rr
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3*math.Max(1, math.Abs(b)) }

func TestTransferArithmetic(t *testing.T) {
	a, b := syntheticPhases()
	rr := syntheticReadahead()
	a2 := *a
	rr.Faults, rr.Pages = readaheadRatios(&a2, rr.Points)
	if rr.Faults != 0.25 || rr.Pages != 1.06 {
		t.Fatalf("readahead %g faults, %g pages per page; want 125k/500k and 530k/500k", rr.Faults, rr.Pages)
	}
	// A run stopped at the time cap counted too little: it is left out.
	capped := append([]ReadaheadPoint(nil), rr.Points...)
	capped[1].Capped = true
	if f, p := readaheadRatios(&a2, capped); f != 0.25 || p != 1.1 || readaheadAt(&ReadaheadReport{Points: capped}, 0.5) != nil {
		t.Errorf("with the fit-0.5 run capped: %g faults, %g pages per page; want 25k/100k and 110k/100k", f, p)
	}
	// 10s of excess over 500k pages is 20us a page; the device's share is
	// 2 + 1 x 3 = 5us (zram compresses in the task), so 15us is software.
	ts := transferSummary(a, 1, rr)
	if !near(ts.PerPage, 20) || !near(ts.DeviceTime, 5) || !near(ts.Calibrated, 15) || ts.Readahead != (factors.Readahead{Faults: 0.25, Pages: 1.06}) {
		t.Errorf("transfer summary %+v", ts)
	}
	ts.choose(nil)
	if ts.Method != DefaultTransfer || ts.FaultOverhead != units.Duration(15*time.Microsecond) || ts.Readahead.Faults != 0.25 {
		t.Errorf("unvalidated choice %s, overhead %s, readahead %+v", ts.Method, ts.FaultOverhead, ts.Readahead)
	}

	o := 15 * time.Microsecond
	v := validate(a, b, 1, o, ts.Readahead, rr)
	if len(v.Rows) != 2 {
		t.Fatalf("rows %+v", v.Rows)
	}
	// The profile's model counts pages per fit ratio: 110k x 15us + 25k x
	// 50us over 10s in RAM (the writes to a block device are not waited
	// for), 420k x 15us + 100k x 50us.
	// The default model scales the excess: 20 + 5 = 25us vs 20 + 50us
	// (the default factors' 20us overhead).
	// The file's own counts: 100k x 15 + 20k x 50, 400k x 15 + 90k x 50.
	want := []struct{ faults, ratio, own, measured float64 }{
		{1.29, 1 + 0.2*70.0/25, 1.25, 1.29},
		{2.13, 1 + 0.8*70.0/25, 2.05, 2.13}}
	for i, r := range v.Rows {
		w := want[i]
		if !near(r.Faults, w.faults) || !near(r.Ratio, measure.Round4(w.ratio)) || !near(r.Own, w.own) || r.Measured != w.measured {
			t.Errorf("fit %g: got %+v, want %+v", r.Fit, r, w)
		}
		if !near(r.FaultsErr, measure.Round4((w.faults-w.measured)/w.measured)) {
			t.Errorf("fit %g: error %g", r.Fit, r.FaultsErr)
		}
		if !(r.FaultsLo <= r.Faults && r.Faults <= r.FaultsHi) {
			t.Errorf("fit %g: band %g-%g around %g", r.Fit, r.FaultsLo, r.FaultsHi, r.Faults)
		}
	}
	if v.Better != TransferFaults || v.FaultsMAE != 0 || v.RatioMAE < 0.3 {
		t.Errorf("better %s, mean errors %g / %g", v.Better, v.FaultsMAE, v.RatioMAE)
	}
	ts.choose(&v)
	if ts.Method != TransferFaults || !strings.Contains(ts.Why, "validated on file") {
		t.Errorf("validated choice %+v", ts)
	}

	// The other way round: a swap file profile carries its own readahead
	// (110k faults per 500k pages swapped in); zram takes a fault per page.
	tf := transferSummary(b, 1, nil)
	// (2.9s + 11.3s) / 500k pages = 28.4us a page, 0.22 x 50us of it the
	// device: 17.4us software.
	if tf.Readahead != (factors.Readahead{Faults: 0.22, Pages: 1}) || !near(tf.Calibrated, 17.4) {
		t.Errorf("file transfer summary %+v", tf)
	}
	v = validate(b, a, 1, time.Duration(tf.Calibrated*1e3), tf.Readahead, nil)
	// At fit 0.9 the file's own cost per page: 2.9s / 100k pages = 29us, of
	// which 0.2 x 50us its device: 19us software; on zram 100k pages in 10s
	// x (19 + 2 + 1 x 3)us.
	if r := v.Rows[0]; !near(r.Faults, 1+100e3*(19+5)*1e-6/10) {
		t.Errorf("zram from file: %g, want %g", r.Faults, 1+100e3*(19+5)*1e-6/10)
	}

	// The predicted excess seconds are set against the in-RAM runtime
	// measured alongside the second backend: a host twice as fast then
	// doubles the predicted slowdown's excess.
	b.InRAM.Trimmed = 5
	if v := validate(a, b, 1, o, ts.Readahead, rr); !near(v.Rows[0].Faults, 1+0.29*2) || !near(v.Rows[0].Own, 1+0.25*2) {
		t.Errorf("against a 5s in-RAM runtime: %+v", v.Rows[0])
	}
	b.InRAM.Trimmed = 10

	// A capped measurement is only a lower bound: not in the mean error.
	b.Points[1].Censored = 3
	v = validate(a, b, 1, o, ts.Readahead, rr)
	if !v.Rows[1].Capped || !near(v.FaultsMAE, math.Abs(v.Rows[0].FaultsErr)) {
		t.Errorf("capped row %+v, mean error %g", v.Rows[1], v.FaultsMAE)
	}
}

func TestDirtyShare(t *testing.T) {
	if d, _ := dirtyShare(100, 50, measure.BackendFile); d != 0.5 {
		t.Errorf("got %g", d)
	}
	if d, note := dirtyShare(100, 150, measure.BackendZram); d != 1 || !strings.Contains(note, "upper bound") {
		t.Errorf("got %g %q", d, note)
	}
	if d, note := dirtyShare(0, 10, measure.BackendFile); d != float64(model.DefaultDirtyShare) || !strings.Contains(note, "default") {
		t.Errorf("got %g %q", d, note)
	}
}

func TestResidentOf(t *testing.T) {
	v1 := map[string]int64{"total_rss": 100, "total_shmem": 10, "total_mapped_file": 5, "total_cache": 1000, "rss": 7}
	v2 := map[string]int64{"anon": 100, "shmem": 10, "file_mapped": 5, "file": 1000}
	if residentOf(v1, 1) != 115 || residentOf(v2, 2) != 115 {
		t.Errorf("v1 %d, v2 %d", residentOf(v1, 1), residentOf(v2, 2))
	}
}

func TestShellQuote(t *testing.T) {
	got := measure.ShellQuote([]string{"sort", "-S", "300M", "my file", ""})
	if got != `sort -S 300M "my file" ""` {
		t.Errorf("got %s", got)
	}
}

// TestProfileFactorFile checks that a profile is a factor file the model
// loads, with the measured curve, its reference and what Extra must carry.
func TestProfileFactorFile(t *testing.T) {
	a, b := syntheticPhases()
	rep := &Report{Options: DefaultOptions(), Started: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC),
		Command: []string{"sort", "-S", "300M", "big.txt"}, Host: factors.HostFacts{Hostname: "evalbox", Kernel: "6.1"},
		Footprint: 300 * units.MiB, PeakCharged: 500 * units.MiB, Dirty: 1,
		Sizing:      measure.RunResult{Backend: "sizing", Wall: 10.5, ExitCode: 0},
		Phases:      []Phase{*a, *b},
		ZramLatency: &host.ZramLatency{Algorithm: "lz4", Content: measure.ContentCompressible, ReadMean: 2, WriteMean: 3}}
	rep.Phases[0].Points[0].ZramRatio = 2.7
	rr := syntheticReadahead()
	rr.Faults, rr.Pages = readaheadRatios(a, rr.Points)
	rep.Readahead = rr
	rep.Transfer = transferSummary(a, 1, rr)
	v := validate(a, b, 1, 15*time.Microsecond, rep.Transfer.Readahead, rr)
	rep.Validation = &v
	rep.Transfer.choose(&v)
	ff := rep.Factors("test")
	data, err := yaml.Marshal(ff)
	if err != nil {
		t.Fatal(err)
	}
	got, err := model.ParseFactors("sort.profile.yaml", data)
	if err != nil {
		t.Fatalf("the profile does not load: %v\n%s", err, data)
	}
	if len(got.Curves) != 2 || got.Curves[0].Class != "zram-lz4" || got.Curves[1].Class != "nvme-ssd-tlc" || got.TransferFrom != "zram-lz4" {
		t.Fatalf("curves %+v, transfer_from %q", got.Curves, got.TransferFrom)
	}
	c := got.Curves[0]
	if c.Provenance != factors.Measured || c.Host != "evalbox" || c.Reference.Concurrency != 1 || c.Reference.DirtyShare != 1 ||
		c.Reference.ReadLatency != units.Duration(2*time.Microsecond) || len(c.Points) != 2 || c.Points[0].Fit != 0.9 || len(c.Points[0].CI) != 2 {
		t.Errorf("zram curve %+v", c)
	}
	if got.FaultOverhead != units.Duration(15*time.Microsecond) {
		t.Errorf("fault_overhead %s, want the calibrated 15us", got.FaultOverhead)
	}
	// Pages per in-RAM second: zram's 100k in 10s, the loop device's 25k
	// faults and 110k pages; the file's own 20k faults per 100k pages.
	if p := got.Curves[0].Points[0]; p.PageRate != 10e3 || p.BlockFaultRate != 2.5e3 || p.BlockPageRate != 11e3 {
		t.Errorf("zram point rates %+v", p)
	}
	if p := got.Curves[1].Points[0]; p.PageRate != 10e3 || p.BlockFaultRate != 2e3 || p.BlockPageRate != 10e3 {
		t.Errorf("file point rates %+v", p)
	}
	// When the default model predicted better, the profile writes no
	// counts: recommend then scales the measured excess with the model's
	// overhead, as validated.
	rep.Transfer.Method = TransferRatio
	for _, c := range rep.Factors("test").Curves {
		if c.Points[0].PageRate != 0 {
			t.Errorf("%s points carry counts under the ratio form: %+v", c.Class, c.Points[0])
		}
	}
	if got.Readahead == nil || *got.Readahead != (factors.Readahead{Faults: 0.25, Pages: 1.06}) || got.Extra["readahead"] == nil {
		t.Errorf("readahead %+v, extra.readahead %v", got.Readahead, got.Extra["readahead"])
	}
	if len(got.Software) != 1 || got.Software[0].Ratio != 2.7 {
		t.Errorf("software %+v", got.Software)
	}
	prof, _ := got.Extra["profile"].(map[string]any)
	if prof["command_line"] != "sort -S 300M big.txt" || prof["exit_status"] != 0 || prof["peak_resident_bytes"] == nil {
		t.Errorf("extra.profile %v", prof)
	}
	if got.Extra["validation"] == nil || got.Extra["predictions"] == nil || got.Extra["phases"] == nil {
		t.Errorf("extra keys %v", slices.Sorted(maps.Keys(got.Extra)))
	}
	// Classes the profile has no curve for are carried over from this
	// job's own curve, with the calibrated overhead.
	preds := rep.Predictions(ff)
	byClass := map[string]Prediction{}
	for _, p := range preds {
		byClass[p.Class] = p
	}
	tlc, hdd := byClass["nvme-ssd-tlc"], byClass["hdd"]
	if tlc.Provenance != factors.Measured || hdd.Provenance != model.Derived || len(hdd.Points) != 2 {
		t.Errorf("predictions %+v", preds)
	}
	if p := hdd.Points[1]; !(p.Slowdown > tlc.Points[1].Slowdown && p.Low <= p.Slowdown && p.Slowdown <= p.High) {
		t.Errorf("hdd at fit 0.5: %+v (TLC %+v)", p, tlc.Points[1])
	}
}

// The command's output file holds the last run not stopped at the time
// cap; a device such as /dev/null is written as it is, never replaced.
func TestProfileOutputsKeepTheLastEndedRun(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out")
	ps := &profileSession{o: Options{StdoutFile: name, StderrFile: "/dev/null"}}
	write := func(text string, ended bool) {
		t.Helper()
		stdout, stderr, keep, closeAll, err := ps.outputs()
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdout, text)
		io.WriteString(stderr, "noise")
		if ended {
			keep()
		}
		closeAll()
	}
	write("first\n", true)
	write("stub of a capped run", false)
	if got, _ := os.ReadFile(name); string(got) != "first\n" {
		t.Errorf("after a capped run the file holds %q, want the ended run's", got)
	}
	write("second\n", true)
	if got, _ := os.ReadFile(name); string(got) != "second\n" {
		t.Errorf("file holds %q", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", fi.Mode(), err)
	}
}
