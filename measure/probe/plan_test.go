//go:build linux

package probe

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/measure/host/hosttest"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

func planOpts(t *testing.T) Options {
	o := DefaultOptions()
	o.SwapDir = "/swap"
	o.StateDir = t.TempDir()
	return o
}

func TestPlanRejectsBadInput(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Options, *hosttest.Fake)
		flag string
		want string
	}{
		{"unknown scenario", func(o *Options, _ *hosttest.Fake) { o.Scenarios = []string{"thrash"} }, "scenario", `unknown scenario "thrash"; expected one of curves, swappiness, pagecache`},
		{"fit 0", func(o *Options, _ *hosttest.Fake) { o.Fits = []float64{1, 0} }, "fit", "fit ratio 0 is out of range"},
		{"fit above 1", func(o *Options, _ *hosttest.Fake) { o.Fits = []float64{1.5} }, "fit", "fit ratio 1.5 is out of range"},
		{"fit twice", func(o *Options, _ *hosttest.Fake) { o.Fits = []float64{0.5, 0.5} }, "fit", "given twice"},
		{"missing swap dir", func(o *Options, _ *hosttest.Fake) { o.SwapDir = "/nowhere" }, "swap-dir", "/nowhere does not exist"},
		{"swap dir is a file", func(o *Options, h *hosttest.Fake) { h.Put("/swapfile", "x"); o.SwapDir = "/swapfile" }, "swap-dir", "is not a directory"},
		{"no space", func(_ *Options, h *hosttest.Fake) { h.Free = 100 * units.MiB }, "swap-dir", "has 100MiB free; the probe needs"},
		{"unknown backend", func(o *Options, _ *hosttest.Fake) { o.Backends = []string{"ramdisk"} }, "backends", `unknown backend "ramdisk"`},
		{"bad pattern", func(o *Options, _ *hosttest.Fake) { o.Workload.Pattern = "random" }, "pattern", "expected one of uniform, zipf, sequential"},
		{"bad content", func(o *Options, _ *hosttest.Fake) { o.Workload.Content = "text" }, "content", "expected one of zeros, compressible, random"},
		{"bad write mix", func(o *Options, _ *hosttest.Fake) { o.Workload.WriteMix = 2 }, "write-mix", "out of range"},
		{"bad zipf", func(o *Options, _ *hosttest.Fake) { o.Workload.ZipfS = 0.5 }, "zipf-s", "above 1"},
		{"bad swappiness", func(o *Options, _ *hosttest.Fake) { o.Swappiness = []int{300} }, "swappiness", "0 to 200"},
		{"bad device class", func(o *Options, _ *hosttest.Fake) { o.DeviceClass = "Fast SSD" }, "device-class", "is not a factor class"},
		{"precision above 1", func(o *Options, _ *hosttest.Fake) { o.Precision = 1.5 }, "precision", "1.5 is out of range; expected a share of the mean above 0 and below 1"},
		{"budget without precision", func(o *Options, _ *hosttest.Fake) { o.PrecisionBudget = time.Minute }, "budget", "bounds the rounds --precision adds; give --precision too"},
		{"budget meant for swapdemo", func(o *Options, _ *hosttest.Fake) {
			o.PrecisionBudget, o.Scenarios = time.Minute, []string{ScenarioSwapdemo}
		}, "budget", "the swapdemo run's time budget is --swapdemo-budget"},
		{"data too big", func(o *Options, _ *hosttest.Fake) { o.Workload.DataSize = 64 * units.GiB }, "data-size", "needs about"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := hosttest.NewFake(t, hosttest.V1Fixture())
			before := host.State(h)
			o := planOpts(t)
			c.mod(&o, h)
			_, err := MakePlan(h, o)
			var oe *measure.OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("got %v, want an OptionError", err)
			}
			if oe.Flag != c.flag || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %q (flag %q), want flag %q and %q", err, oe.Flag, c.flag, c.want)
			}
			if len(h.Calls) != 0 || host.State(h) != before {
				t.Errorf("planning changed the host: %q", h.Calls)
			}
		})
	}
}

func TestPlanAsRoot(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	o := planOpts(t)
	o.Quick = true
	p, err := MakePlan(h, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Calls) != 0 {
		t.Errorf("planning changed the host: %q", h.Calls)
	}
	var names []string
	for _, s := range p.Stages {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "zram-lz4,file,zswap-lz4,none" {
		t.Errorf("quick stages %s", got)
	}
	if p.Stages[0].Reps != 3 || len(p.Stages[0].Fits) != 3 || len(p.Stages[1].Fits) != 3 {
		t.Errorf("quick must measure zram and the file at 3 fit ratios: %+v", p.Stages[:2])
	}
	text := strings.Join(p.Changes, "\n")
	for _, want := range []string{"hot-add a zram device", "create swap file /swap/memplan-probe-", "enable zswap", "memory+swap limit = memory limit", "swapoff and delete", "journal"} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(strings.Join(p.Skipped, "\n"), "emulated drives: skipped by --quick") {
		t.Errorf("skipped: %q", p.Skipped)
	}
	if p.Workload.DataSize != 192*units.MiB {
		t.Errorf("quick data size %s", p.Workload.DataSize)
	}
}

func TestPlanWithoutRoot(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	h.RootUser = false
	p, err := MakePlan(h, planOpts(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Stages) != 0 || !strings.Contains(strings.Join(p.Skipped, "\n"), "need root") {
		t.Errorf("stages %v, skipped %q", p.Stages, p.Skipped)
	}
	if !strings.Contains(strings.Join(p.Changes, "\n"), "in-RAM baseline") {
		t.Errorf("changes %q", p.Changes)
	}
}

func TestEmulations(t *testing.T) {
	var skipped []string
	em := emulations(nil, "nvme-ssd-tlc", &skipped)
	var classes []string
	for _, e := range em {
		classes = append(classes, e.Class)
		if e.Class == "hdd" && (e.Count != 2 || e.RIOPS != 220 || !strings.Contains(e.Label, "RAID 0")) {
			t.Errorf("HDD must stand for the study's two-drive RAID 0: %+v", e)
		}
	}
	if got := strings.Join(classes, ","); got != "hdd,sata-ssd-slc,sata-ssd-mlc,nvme-ssd-qlc" {
		t.Errorf("emulated classes %s", got)
	}
	if s := strings.Join(skipped, "\n"); !strings.Contains(s, "nvme-ssd-slc") || !strings.Contains(s, "emulated nvme-ssd-tlc: not emulated because the swap file's own device") {
		t.Errorf("skipped %q", skipped)
	}
	em = emulations([]string{"sata-ssd-slc"}, "hdd", &skipped)
	if len(em) != 1 || em[0].Class != "sata-ssd-slc" || em[0].WIOPS != 3300 {
		t.Errorf("restricted: %+v", em)
	}
}

// TestPlanEmulatorMemory: the latency emulator's server locks the swap
// file's size of memory outside every limit, so the plan counts it against
// MemAvailable and skips the latency stages, saying why, when the host has
// too little; with room, they are planned.
func TestPlanEmulatorMemory(t *testing.T) {
	plan := func(availKB int) *Plan {
		t.Helper()
		files := hosttest.V1Fixture()
		files["/proc/meminfo"] = fmt.Sprintf("MemTotal:       24731708 kB\nMemFree:        23068472 kB\nMemAvailable:   %d kB\n", availKB)
		h := hosttest.NewFake(t, files)
		o := planOpts(t)
		o.Backends = []string{measure.BackendEmulated}
		o.EmulateLatency = true
		o.Workload.DataSize = 512 * units.MiB
		p, err := MakePlan(h, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Calls) != 0 {
			t.Errorf("planning changed the host: %q", h.Calls)
		}
		return p
	}
	roomy := plan(24331760)
	if len(roomy.Stages) == 0 {
		t.Fatalf("with 23 GiB available no latency stage was planned; skipped: %q", roomy.Skipped)
	}
	need := memoryNeed(roomy.Workload.DataSize, roomy.Workload.CodeSize)
	// Enough for the workload alone, not for the emulator's data on top.
	tight := plan(int((need + roomy.SwapFileSize/2) / units.KiB))
	if len(tight.Stages) != 0 || len(tight.Emulations) != 0 {
		t.Errorf("with %s available the latency stages were planned: %+v", tight.MemAvail, tight.Stages)
	}
	why := strings.Join(tight.Skipped, "\n")
	if !strings.Contains(why, "the emulator locks "+roomy.SwapFileSize.String()) || !strings.Contains(why, "give a smaller --data-size") {
		t.Errorf("skipped does not say why: %q", tight.Skipped)
	}
}

// Tests may run a subset of the swapdemo settings; the plan says which.
func TestPlanSwapdemoSubset(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	o := planOpts(t)
	o.Scenarios = []string{ScenarioSwapdemo}
	o.Limit = 256 * units.MiB
	o.Reps = 1
	o.SwapdemoSettings = []string{"swappiness 1", "swappiness 60"}
	p, err := MakePlan(h, o)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(p.Changes, "\n")
	if !strings.Contains(text, "up to 2 runs (1 per setting") || !strings.Contains(text, "each: swappiness 60, swappiness 1") || strings.Contains(text, "swap off") {
		t.Errorf("plan for two settings:\n%s", text)
	}
	o.SwapdemoSettings = []string{"swappiness 60", "swapiness 1"}
	if _, err := MakePlan(h, o); err == nil || !strings.Contains(err.Error(), `unknown swapdemo setting "swapiness 1"; expected some of swappiness 60, swappiness 1, swappiness 0, swap off`) {
		t.Errorf("misspelt setting: %v", err)
	}
}

// TestPlanLatencyStagesFirst: the latency stages run before the swap
// file's, and with only them no swap file is made: swapon caps priorities
// at 32767, the swap file's, so the emulated device can be the one memplan
// swap area only while the file is not on.
func TestPlanLatencyStagesFirst(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	o := planOpts(t)
	o.Backends = []string{measure.BackendFile, measure.BackendEmulated}
	o.EmulateLatency = true
	o.Emulate = []string{"sata-ssd-mlc", "hdd"}
	p, err := MakePlan(h, o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, st := range p.Stages {
		names = append(names, st.Name)
	}
	if want := []string{"emulated hdd (latency)", "emulated sata-ssd-mlc (latency)", "file"}; strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("stages %q, want %q", names, want)
	}
	text := strings.Join(p.Changes, "\n")
	if !strings.Contains(text, "swap on it at priority 32767, the only memplan swap area while it runs") {
		t.Errorf("plan:\n%s", text)
	}
	o.Backends = []string{measure.BackendEmulated}
	if p, err = MakePlan(h, o); err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(p.Changes, "\n"); strings.Contains(text, "swap file") {
		t.Errorf("latency stages alone make a swap file:\n%s", text)
	}
}

// TestPlanEstimatesWallTime: the plan's wall time runs from every run at
// FastVisit a page visit to SlowVisit with every run that swaps stopped
// at --max-slowdown, and says what it leaves out.
func TestPlanEstimatesWallTime(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	o := planOpts(t)
	o.Quick = true
	o.Scenarios = []string{ScenarioCurves}
	p, err := MakePlan(h, o)
	if err != nil {
		t.Fatal(err)
	}
	visits := time.Duration(p.Workload.Visits)
	fast, slow := visits*FastVisit+runOverhead, visits*SlowVisit+runOverhead
	capped := time.Duration(float64(visits*SlowVisit)*p.Options.MaxSlowdown) + runOverhead
	inRAM, swapped := p.Options.Reps, 0 // the baseline
	for _, s := range p.Stages {
		inRAM += s.Reps + 1
		swapped += len(s.Fits) * s.Reps
	}
	if inRAM+swapped != p.Runs {
		t.Fatalf("test premise: %d + %d runs counted, the plan has %d:\n%s", inRAM, swapped, p.Runs, strings.Join(p.Changes, "\n"))
	}
	if want := time.Duration(p.Runs) * fast; p.Wall.Low != want {
		t.Errorf("low end %v, want %d runs x %v = %v", p.Wall.Low, p.Runs, fast, want)
	}
	if want := time.Duration(inRAM)*slow + time.Duration(swapped)*capped; p.Wall.High != want {
		t.Errorf("high end %v, want %v", p.Wall.High, want)
	}
	if p.Wall.Low <= 0 || p.Wall.High <= p.Wall.Low {
		t.Errorf("range %v to %v", p.Wall.Low, p.Wall.High)
	}
	if got := strings.Join(p.Wall.LeftOut, ", "); got != "the device profile" {
		t.Errorf("left out %q, want the device profile", got)
	}
}

// TestX25EAndX25MShareAThrottleSaysSo: emulated by IOPS, the X25-E and
// the X25-M get one throttle (both rated 35,000/3,300 IOPS); the plan says
// so, with the latencies it does not imitate.
func TestX25EAndX25MShareAThrottleSaysSo(t *testing.T) {
	em := emulations([]string{"sata-ssd-slc", "sata-ssd-mlc", "hdd"}, "nvme-ssd-tlc", new([]string))
	notes := sameThrottle(em)
	if len(notes) != 1 {
		t.Fatalf("want one note (X25-E and X25-M), got %q", notes)
	}
	for _, want := range []string{"sata-ssd-slc (Intel X25-E 64GB (SLC)) and sata-ssd-mlc (Intel X25-M 80GB (MLC)) get the same throttle, 35000 read / 3300 write IOPS",
		"75us/85us against 85us/115us", "170 against 40 MB/s", "--emulate-latency"} {
		if !strings.Contains(notes[0], want) {
			t.Errorf("note lacks %q:\n%s", want, notes[0])
		}
	}
}

// TestPlanNotesTheSharedThrottle: a full plan that emulates the SATA SSDs
// by throttling carries the note.
func TestPlanNotesTheSharedThrottle(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	o := planOpts(t)
	o.Emulate = []string{"sata-ssd-slc", "sata-ssd-mlc"}
	p, err := MakePlan(h, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Emulations) != 2 {
		t.Fatalf("test premise: both SATA SSDs emulated by throttling, got %+v (skipped %q)", p.Emulations, p.Skipped)
	}
	if n := strings.Join(p.Notes, "\n"); !strings.Contains(n, "get the same throttle, 35000 read / 3300 write IOPS") {
		t.Errorf("notes %q", p.Notes)
	}
}
