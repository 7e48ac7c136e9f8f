//go:build linux

package profile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/host/hosttest"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
	"gopkg.in/yaml.v3"
)

// onePassPrior is a one-pass profile of "sort big.txt" as memplan profile
// --one-pass writes it (the parts a prior reads): its zram-lz4 curve reads
// about 1 with wide bands, as the sampler's did on the synthesis job of
// issue 22, but for fit 0.35, where it reads 1.8.
const onePassPrior = `name: memplan-profile --one-pass sort on box 2026-12-04
date: 2026-12-04
source: inferred by memplan profile --one-pass
curves:
  - class: zram-lz4
    provenance: inferred
    source: one pass
    host: box
    reference: {device: zram lz4, read_latency: 3us}
    points:
      - {fit: 0.9, slowdown: 1.0, ci: [1.0, 1.05]}
      - {fit: 0.75, slowdown: 1.0, ci: [1.0, 1.16]}
      - {fit: 0.6, slowdown: 1.0, ci: [1.0, 1.6]}
      - {fit: 0.45, slowdown: 1.01, ci: [1.0, 1.95]}
      - {fit: 0.35, slowdown: 1.8, ci: [1.2, 2.4]}
extra:
  profile:
    method: one-pass
    command_line: sort big.txt
    peak_resident_bytes: 1073741824
`

func writePrior(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// oneRunWithPrior is a one run of "sort big.txt" on zram that measured
// fits 0.9, 0.75 and 0.6 and reached neither 0.45 nor 0.35, with the
// prior above filling those two.
func oneRunWithPrior(t *testing.T) *Report {
	t.Helper()
	meas := func(fit, s float64) Point {
		return Point{Fit: fit, Limit: limitAt(fit, units.GiB), Samples: []float64{s - 0.02, s, s + 0.02},
			Slowdown: measure.Summary{N: 3, Mean: s, Trimmed: s, Lo: s - 0.03, Hi: s + 0.03}}
	}
	none := func(fit float64) Point {
		return Point{Fit: fit, Limit: limitAt(fit, units.GiB), Verdict: "not measured: past the knee"}
	}
	ph := Phase{Backend: measure.BackendZram, Name: "zram-lz4", Class: "zram-lz4", InRAM: measure.Summary{N: 6, Mean: 40, Trimmed: 40},
		Reference: factors.Reference{Device: "zram lz4", ReadLatency: units.Duration(3 * time.Microsecond), WriteLatency: units.Duration(3 * time.Microsecond), Drives: 1, Concurrency: 1, DirtyShare: 1},
		Points:    []Point{meas(0.9, 1.05), meas(0.75, 1.15), meas(0.6, 1.3), none(0.45), none(0.35)}}
	p, err := LoadPrior(writePrior(t, "sort.onepass.yaml", onePassPrior), []string{"sort", "big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.OneRun, o.Prior = true, p.File
	rep := &Report{Options: o, Started: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC),
		Command: []string{"sort", "big.txt"}, Host: factors.HostFacts{Hostname: "box"}, Footprint: units.GiB, Dirty: 1,
		Phases: []Phase{ph}, OneRun: &OneRunReport{Cycles: 6, ProgressClock: "user time"}}
	rep.Prior, err = p.fill(ph.Class, ph.Points, rep.Footprint)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The factor file keeps every measured point as measured, takes the
// sampler's figure and band at the fits the run did not reach, holds a
// sampler figure below a measured one at a higher fit up to it, and marks
// each point with its source.
func TestPriorFillsOnlyTheFitsTheRunDidNotReach(t *testing.T) {
	rep := oneRunWithPrior(t)
	data, err := yaml.Marshal(rep.Factors("test"))
	if err != nil {
		t.Fatal(err)
	}
	ff, err := model.ParseFactors("sort.profile.yaml", data)
	if err != nil {
		t.Fatalf("the profile does not load: %v\n%s", err, data)
	}
	c := ff.Curves[0]
	if c.Method != factors.OneRunMethod || c.Provenance != factors.Measured || len(c.Points) != 5 {
		t.Fatalf("curve %s %s with %d points, want a measured one-run curve with 5", c.Provenance, c.Method, len(c.Points))
	}
	want := []struct {
		fit, slowdown, lo, hi float64
		source                string
	}{
		{0.9, 1.05, 1.02, 1.08, factors.PointOneRun},
		{0.75, 1.15, 1.12, 1.18, factors.PointOneRun},
		{0.6, 1.3, 1.27, 1.33, factors.PointOneRun},
		// The sampler read 1.01 (1.00-1.95): below the 1.30 measured at
		// 0.6, so held there; its band's top is kept.
		{0.45, 1.3, 1.3, 1.95, factors.PointSampler},
		// The sampler's own figure and band.
		{0.35, 1.8, 1.3, 2.4, factors.PointSampler},
	}
	for i, w := range want {
		p := c.Points[i]
		if p.Fit != w.fit || p.Slowdown != w.slowdown || len(p.CI) != 2 || p.CI[0] != w.lo || p.CI[1] != w.hi || p.Source != w.source {
			t.Errorf("point %d: fit %g slowdown %g ci %v source %q; want fit %g slowdown %g ci [%g %g] source %q",
				i, p.Fit, p.Slowdown, p.CI, p.Source, w.fit, w.slowdown, w.lo, w.hi, w.source)
		}
	}
	if !strings.Contains(c.Source, "fits 0.45, 0.35 not reached by the run: the one-pass sampler's inferred figures") {
		t.Errorf("curve source %q does not say which fits are the sampler's", c.Source)
	}
	pr := rep.Prior
	if len(pr.Points) != 2 || pr.Points[0].Sampler != 1.01 || !strings.Contains(pr.Points[0].Note, "below the 1.30 the run measured at fit 0.6") {
		t.Errorf("prior report %+v", pr.Points)
	}
	if ff.Extra["prior"] == nil {
		t.Errorf("extra.prior missing: extra has %v", ff.Extra)
	}
}

// Where the run measured a fit, the prior's figure there is never used,
// even when the sampler reads higher.
func TestPriorNeverOverridesAMeasuredFit(t *testing.T) {
	high := strings.Replace(onePassPrior, "{fit: 0.75, slowdown: 1.0, ci: [1.0, 1.16]}", "{fit: 0.75, slowdown: 1.5, ci: [1.0, 1.6]}", 1)
	p, err := LoadPrior(writePrior(t, "p.yaml", high), []string{"sort", "big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	pts := []Point{{Fit: 0.75, Slowdown: measure.Summary{N: 4, Mean: 1.15}}, {Fit: 0.5}}
	rep, err := p.fill("zram-lz4", pts, units.GiB)
	if err != nil {
		t.Fatal(err)
	}
	for _, pp := range rep.Points {
		if pp.Fit == 0.75 {
			t.Errorf("the prior filled fit 0.75, which the run measured: %+v", pp)
		}
	}
	// Fit 0.5 lies between the prior's 0.6 and 0.45: interpolated.
	if len(rep.Points) != 1 || rep.Points[0].Fit != 0.5 || !rep.Points[0].Interpolated {
		t.Errorf("prior points %+v, want one at fit 0.5, interpolated", rep.Points)
	}
}

// A prior that is not a one-pass profile, or one of another command, is
// one error naming the file and the field, before anything on the host
// changes.
func TestBadPriorIsAnOptionErrorNamingFileAndField(t *testing.T) {
	multi := strings.Replace(onePassPrior, "    method: one-pass\n", "", 1)
	oneRun := strings.Replace(onePassPrior, "method: one-pass", "method: one-run", 1)
	bare := onePassPrior[:strings.Index(onePassPrior, "extra:")]
	for _, c := range []struct {
		name, text string
		cmd        []string
		want       string
	}{
		{"multi-run profile", multi, []string{"sort", "big.txt"}, `.yaml:18:5: field extra.profile.method: got no method (a multi-run profile), expected "one-pass"`},
		{"one-run profile", oneRun, []string{"sort", "big.txt"}, `.yaml:18:13: field extra.profile.method: got "one-run", expected "one-pass"`},
		{"hand-written file", bare, []string{"sort", "big.txt"}, `field extra.profile.method: missing: this is not a profile memplan profile --one-pass wrote`},
		{"another command", onePassPrior, []string{"sort", "-r", "big.txt"}, `.yaml:19:19: field extra.profile.command_line: the one-pass profile is of "sort big.txt"; this run is of "sort -r big.txt"`},
	} {
		file := writePrior(t, "prior.yaml", c.text)
		o := DefaultOptions()
		o.Command, o.OneRun, o.Prior = c.cmd, true, file
		o.StateDir = t.TempDir()
		fake := hosttest.NewFake(t, hosttest.V1Fixture())
		fake.RootUser = true
		_, err := Profile(context.Background(), fake, o, nil)
		var oe *measure.OptionError
		if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "--prior: "+file) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant an option error starting --prior: %s and holding %s", c.name, err, file, c.want)
		}
		if strings.Count(err.Error(), "field ") != 1 {
			t.Errorf("%s: %v names more than one field", c.name, err)
		}
		if _, serr := os.Stat(filepath.Join(o.StateDir, host.JournalName)); serr == nil {
			t.Errorf("%s: a journal was written", c.name)
		}
		if calls := fake.Calls; len(calls) > 0 {
			t.Errorf("%s: the host was touched: %v", c.name, calls)
		}
	}
	// --prior belongs to the one run.
	o := DefaultOptions()
	o.Command, o.Prior = []string{"sort", "big.txt"}, writePrior(t, "prior.yaml", onePassPrior)
	if _, err := Profile(context.Background(), hosttest.NonRoot{Host: host.NewOSHost()}, o, nil); err == nil || !strings.Contains(err.Error(), "--prior: fills the fits a one run does not reach") {
		t.Errorf("--prior without --one-run: %v", err)
	}
}

// A prior without a curve of the class the run measures is refused by
// name before the command starts.
func TestPriorWithoutTheRunsClassNamesItsCurves(t *testing.T) {
	p, err := LoadPrior(writePrior(t, "p.yaml", onePassPrior), []string{"sort", "big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.curve("nvme-ssd-tlc")
	if err == nil || !strings.Contains(err.Error(), "p.yaml:5:3: field curves: no curve of class nvme-ssd-tlc, the class this run measures (it has zram-lz4: give the one run the backend the one pass priced") {
		t.Errorf("got %v", err)
	}
}
