package model_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/model"
)

// qaFactorFile is valid; bad-input cases edit single lines of it.
const qaFactorFile = `name: lab factors
date: 2026-02-01
source: memplan probe on lab1
fault_overhead: 2us
curves:
  - class: nvme-ssd-tlc
    provenance: measured
    host: lab1
    source: probe run 2026-02-01
    uncertainty: 20%
    reference:
      device: 1.92 TB TLC NVMe
      read_latency: 85us
      write_latency: 20us
      read_iops: 900000
      write_iops: 120000
      concurrency: 4
    points:
      - fit: 0.8
        slowdown: 1.05
        samples: [1.04, 1.05, 1.06]
      - fit: 0.5
        slowdown: 1.3
        ci: [1.2, 1.4]
software:
  - name: zram-lz4
    latency: 1.7us
    ratio: 2.6
`

func TestParseFactorsGood(t *testing.T) {
	f, err := model.ParseFactors("lab.yaml", []byte(qaFactorFile))
	if err != nil {
		t.Fatal(err)
	}
	if f.File != "lab.yaml" || f.Name != "lab factors" || f.FaultOverhead.D() != 2*time.Microsecond {
		t.Errorf("file %q name %q overhead %v", f.File, f.Name, f.FaultOverhead)
	}
	c := f.Curves[0]
	// Left-out reference fields take their defaults.
	if r := c.Reference; r.Drives != 1 || r.Concurrency != 4 || r.DirtyShare != model.DefaultDirtyShare || r.WriteLatency.D() != 20*time.Microsecond {
		t.Errorf("reference %+v", r)
	}
	// Points are sorted by fit, highest first; samples give a CI.
	if c.Points[0].Fit != 0.8 || c.Points[1].Fit != 0.5 {
		t.Errorf("points not sorted: %+v", c.Points)
	}
	if ci := c.Points[0].CI; len(ci) != 2 || !(ci[0] < 1.05 && ci[1] > 1.05) {
		t.Errorf("CI from samples = %v", ci)
	}
	lo, hi := model.TInterval([]float64{1.04, 1.05, 1.06}, 0.95)
	// t(0.975, 2 dof) = 4.303; sd = 0.01; half-width = 4.303*0.01/sqrt(3).
	if math.Abs((hi-lo)/2-4.3027*0.01/math.Sqrt(3)) > 1e-4 {
		t.Errorf("TInterval = [%g, %g]", lo, hi)
	}
	if l, h := model.TInterval([]float64{1.2}, 0.95); l != 1.2 || h != 1.2 {
		t.Errorf("TInterval of one sample = [%g, %g]", l, h)
	}
	// A point given only as samples takes their mean.
	src := qaApply(t, qaFactorFile, qaEdit{23, "slowdown: 1.3", "        samples: [1.2, 1.3, 1.4]"}, qaEdit{24, "ci", ""})
	f, err = model.ParseFactors("samples.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Curves[0].Points[1]; math.Abs(p.Slowdown-1.3) > 1e-12 || len(p.CI) != 2 {
		t.Errorf("samples-only point = %+v", p)
	}
}

// The probe writes JSON; the YAML loader reads it, with the same checks.
func TestParseFactorsJSON(t *testing.T) {
	src := `{"name": "probe", "date": "2026-02-01", "source": "memplan probe", "host": {"hostname": "lab1", "kernel": "6.8"},
 "curves": [{"class": "nvme-ssd-tlc", "provenance": "measured", "host": "lab1", "source": "probe",
   "reference": {"read_latency": "85us", "write_latency": "20us"},
   "points": [{"fit": 0.5, "samples": [1.2, 1.25, 1.3]}]}],
 "extra": {"runs": 3, "params": {"x": [1, 2]}}}`
	dir := t.TempDir()
	p := filepath.Join(dir, "probe.json")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := model.LoadFactors(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.Host == nil || f.Host.Hostname != "lab1" || f.Extra["runs"] != 3 || math.Abs(f.Curves[0].Points[0].Slowdown-1.25) > 1e-12 {
		t.Errorf("parsed %+v", f)
	}
	bad := strings.Replace(src, `"fit": 0.5`, `"fit": 5`, 1)
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = model.LoadFactors(p)
	qaCheckErr(t, p, err, qaWant{4, "curves[0].points[0].fit", []string{"got 5", "between 0 and 1"}})
	_, err = model.LoadFactors(filepath.Join(dir, "none.json"))
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestDefaultFactors(t *testing.T) {
	f := model.DefaultFactors()
	if f.File != "embedded:factors" || f.TransferFrom != "sata-ssd-slc" {
		t.Errorf("file %q transfer_from %q", f.File, f.TransferFrom)
	}
	want := map[string]float64{"sata-ssd-slc": 1.12, "sata-ssd-mlc": 1.46, "hdd": 1.94}
	for _, c := range f.Curves {
		if c.Provenance != factors.Published {
			t.Errorf("%s: provenance %q", c.Class, c.Provenance)
		}
		if s, ok := want[c.Class]; !ok || len(c.Points) != 1 || c.Points[0].Slowdown != s || c.Points[0].Fit != 0.52 {
			t.Errorf("%s: points %+v", c.Class, c.Points)
		}
		delete(want, c.Class)
	}
	if len(want) != 0 {
		t.Errorf("default curves missing: %v", want)
	}
	sw := map[string]bool{}
	for _, s := range f.Software {
		sw[s.Name] = true
	}
	if !sw["zram-lz4"] || !sw["zram-zstd"] {
		t.Errorf("software %v", sw)
	}
	if !strings.Contains(string(model.DefaultFactorsSource()), "transfer_from: sata-ssd-slc") {
		t.Error("DefaultFactorsSource is not the embedded file")
	}
}

func TestMergeFactorsOverrides(t *testing.T) {
	lab, err := model.ParseFactors("lab.yaml", []byte(strings.Replace(qaFactorFile, "class: nvme-ssd-tlc", "class: sata-ssd-slc", 1)))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := model.MergeFactors(model.DefaultFactors(), lab)
	if err != nil {
		t.Fatal(err)
	}
	if got := fs.Curves["sata-ssd-slc"].Provenance; got != factors.Measured || fs.Origin["sata-ssd-slc"] != "lab.yaml" {
		t.Errorf("SLC curve from %s (%s), want lab.yaml (measured)", fs.Origin["sata-ssd-slc"], got)
	}
	if fs.Origin["hdd"] != "embedded:factors" || fs.TransferFrom != "sata-ssd-slc" || fs.FaultOverhead.D() != 2*time.Microsecond {
		t.Errorf("origin %v transfer %q overhead %v", fs.Origin, fs.TransferFrom, fs.FaultOverhead)
	}
	if got := strings.Join(fs.Classes(), ","); got != "hdd,sata-ssd-mlc,sata-ssd-slc" {
		t.Errorf("Classes = %s", got)
	}
	if len(fs.Files) != 2 || fs.Software["zram-lz4"].Latency.D() != 1700*time.Nanosecond {
		t.Errorf("files %d, software %+v", len(fs.Files), fs.Software)
	}
}

// A job's profile replaces the published curves it did not measure with its
// own transfer_from curve, keeps measured ones, and brings its readahead.
func TestMergeProfile(t *testing.T) {
	probe, err := model.ParseFactors("probe.yaml", []byte(strings.Replace(qaFactorFile, "class: nvme-ssd-tlc", "class: sata-ssd-tlc", 1)))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(qaFactorFile, "class: nvme-ssd-tlc", "class: zram-lz4", 1)
	src = strings.Replace(src, "fault_overhead: 2us", "fault_overhead: 40us\ntransfer_from: zram-lz4\nreadahead: {faults: 0.3, pages: 1.1}", 1)
	prof, err := model.ParseFactors("job.profile.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	files := []*factors.File{model.DefaultFactors(), probe}
	fs, err := model.MergeProfile(files, prof)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fs.Classes(), ","); got != "sata-ssd-tlc,zram-lz4" {
		t.Errorf("classes %s, want the probe's measured curve and the profile's own", got)
	}
	if fs.TransferFrom != "zram-lz4" || fs.FaultOverhead.D() != 40*time.Microsecond || fs.Readahead != (factors.Readahead{Faults: 0.3, Pages: 1.1}) {
		t.Errorf("transfer %q overhead %s readahead %+v", fs.TransferFrom, fs.FaultOverhead, fs.Readahead)
	}
	est, err := fs.Predict("hdd", model.Device{ReadLatency: 8 * time.Millisecond, WriteLatency: 8 * time.Millisecond, ReadIOPS: 150, WriteIOPS: 150, Drives: 2}, 1, 0.5, 0.5)
	if err != nil || est.Provenance != model.Derived || est.Basis.From != "zram-lz4" {
		t.Errorf("hdd for the profiled job: %+v, %v; want derived from its zram curve", est, err)
	}
	// The readahead is the profile's own, never another file's.
	probe.Readahead = &factors.Readahead{Faults: 0.5, Pages: 1}
	prof.Readahead = nil
	if fs, err = model.MergeProfile(files, prof); err != nil || fs.Readahead != (factors.Readahead{}) {
		t.Errorf("readahead %+v from another file (%v)", fs.Readahead, err)
	}
	// Without transfer_from the profile only adds its curves.
	prof.TransferFrom = ""
	if fs, err = model.MergeProfile(files, prof); err != nil || fs.Curves["hdd"] == nil {
		t.Errorf("profile without transfer_from dropped the published hdd curve (%v)", err)
	}
}

func TestMergeFactorsUnknownTransferClass(t *testing.T) {
	src := qaApply(t, qaFactorFile, qaEdit{4, "fault_overhead", "fault_overhead: 2us\ntransfer_from: nvme-ssd-slc"})
	f, err := model.ParseFactors("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = model.MergeFactors(f)
	if err == nil || !errors.Is(err, yamlx.ErrInput) || !strings.Contains(err.Error(), `"nvme-ssd-slc"`) {
		t.Errorf("unknown transfer_from: %v", err)
	}
}

// The transfer_from error names neither the file nor the line of the
// transfer_from field.
func TestMergeFactorsUnknownTransferClassNamesTheFile(t *testing.T) {
	src := qaApply(t, qaFactorFile, qaEdit{4, "fault_overhead", "fault_overhead: 2us\ntransfer_from: nvme-ssd-slc"})
	f, err := model.ParseFactors("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = model.MergeFactors(f)
	qaCheckErr(t, "t.yaml", err, qaWant{5, "transfer_from", []string{"nvme-ssd-slc"}})
}

func TestParseFactorsBadInput(t *testing.T) {
	tests := []struct {
		name  string
		edits []qaEdit
		src   string
		want  qaWant
	}{
		{name: "unknown field", edits: []qaEdit{{10, "uncertainty", "    uncertanty: 20%"}},
			want: qaWant{10, "curves[0].uncertanty", []string{"unknown field"}}},
		{name: "unknown reference field", edits: []qaEdit{{17, "concurrency", "      jobs: 4"}},
			want: qaWant{17, "curves[0].reference.jobs", []string{"unknown field"}}},
		{name: "wrong unit for latency", edits: []qaEdit{{13, "read_latency", "      read_latency: 85 micros"}},
			want: qaWant{13, "curves[0].reference.read_latency", []string{`got "85 micros"`, "expected a duration"}}},
		{name: "negative fault overhead", edits: []qaEdit{{4, "fault_overhead", "fault_overhead: -2us"}},
			want: qaWant{4, "fault_overhead", []string{`got "-2us"`, "expected a duration"}}},
		{name: "readahead faults above one", edits: []qaEdit{{4, "fault_overhead", "fault_overhead: 2us\nreadahead: {faults: 1.5, pages: 2}"}},
			want: qaWant{5, "readahead.faults", []string{"got 1.5", "at most 1"}}},
		{name: "readahead pages below faults", edits: []qaEdit{{4, "fault_overhead", "fault_overhead: 2us\nreadahead:\n  faults: 0.5\n  pages: 0.25"}},
			want: qaWant{7, "readahead.pages", []string{"got 0.25", "at least readahead.faults"}}},
		{name: "readahead unknown field", edits: []qaEdit{{4, "fault_overhead", "fault_overhead: 2us\nreadahead: {faults: 0.5, page: 2}"}},
			want: qaWant{5, "readahead.page", []string{"unknown field"}}},
		{name: "negative page rate", edits: []qaEdit{{20, "slowdown", "        slowdown: 1.05\n        page_rate: -3"}},
			want: qaWant{21, "curves[0].points[0].page_rate", []string{"got -3", "expected 0 or more"}}},
		{name: "text for a number", edits: []qaEdit{{19, "fit", "      - fit: most"}},
			want: qaWant{19, "curves[0].points[0].fit", []string{`got text "most"`, "expected a number"}}},
		{name: "text for a slowdown", edits: []qaEdit{{20, "slowdown", "        slowdown: slow"}},
			want: qaWant{20, "curves[0].points[0].slowdown", []string{`got text "slow"`, "expected a number"}}},
		{name: "missing read latency", edits: []qaEdit{{13, "read_latency", ""}},
			want: qaWant{12, "curves[0].reference.read_latency", []string{"missing or zero", "4 KiB read latency"}}},
		{name: "unknown provenance", edits: []qaEdit{{7, "provenance", "    provenance: guessed"}},
			want: qaWant{7, "curves[0].provenance", []string{`got "guessed"`, "expected one of published, measured, emulated"}}},
		{name: "measured without host", edits: []qaEdit{{8, "host", ""}},
			want: qaWant{6, "curves[0].host", []string{"missing for a measured curve", "name the machine"}}},
		{name: "missing class", edits: []qaEdit{{6, "class", "  - class: \"\""}},
			want: qaWant{6, "curves[0].class", []string{"missing", "nvme-ssd-tlc"}}},
		{name: "uncertainty above 500%", edits: []qaEdit{{10, "uncertainty", "    uncertainty: 600%"}},
			want: qaWant{10, "curves[0].uncertainty", []string{"got 6"}}},
		{name: "fit of zero", edits: []qaEdit{{19, "fit", "      - fit: 0"}},
			want: qaWant{19, "curves[0].points[0].fit", []string{"got 0", "between 0 and 1"}}},
		{name: "fit above one", edits: []qaEdit{{22, "fit", "      - fit: 1.5"}},
			want: qaWant{22, "curves[0].points[1].fit", []string{"got 1.5"}}},
		{name: "speed-up", edits: []qaEdit{{20, "slowdown", "        slowdown: 0.9"}},
			want: qaWant{20, "curves[0].points[0].slowdown", []string{"got 0.9, expected 1 or more", "1.0 means no slowdown"}}},
		{name: "infinite slowdown", edits: []qaEdit{{20, "slowdown", "        slowdown: .inf"}},
			want: qaWant{20, "curves[0].points[0].slowdown", []string{"got .inf"}}},
		{name: "CI not around the slowdown", edits: []qaEdit{{24, "ci", "        ci: [1.4, 1.5]"}},
			want: qaWant{24, "curves[0].points[1].ci", []string{"expected [low, high] around the slowdown 1.3"}}},
		{name: "CI of three numbers", edits: []qaEdit{{24, "ci", "        ci: [1.2, 1.3, 1.4]"}},
			want: qaWant{24, "curves[0].points[1].ci", []string{"expected [low, high]"}}},
		{name: "two points at one fit", edits: []qaEdit{{22, "fit", "      - fit: 0.8"}},
			want: qaWant{19, "curves[0].points", []string{"two points at fit ratio 0.8", "merge the runs"}}},
		{name: "no points", edits: []qaEdit{{18, "points", "    points: []"}, {19, "fit", ""}, {20, "slowdown", ""}, {21, "samples", ""}, {22, "fit", ""}, {23, "slowdown", ""}, {24, "ci", ""}},
			want: qaWant{18, "curves[0].points", []string{"at least one point"}}},
		{name: "sequential read slower than random", edits: []qaEdit{{17, "concurrency", "      concurrency: 4\n      seq_read_latency: 90us"}},
			want: qaWant{18, "curves[0].reference.seq_read_latency", []string{"got 90us with read_latency 85us", "at most read_latency"}}},
		{name: "dirty share range not around it", edits: []qaEdit{{17, "concurrency", "      concurrency: 4\n      dirty_share_range: [0.6, 1]"}},
			want: qaWant{18, "curves[0].reference.dirty_share_range", []string{"got [0.6 1] for dirty_share 0.5", "around dirty_share"}}},
		{name: "negative footprint", edits: []qaEdit{{17, "concurrency", "      concurrency: 4\n      footprint: -22GiB"}},
			want: qaWant{18, "curves[0].reference.footprint", []string{`got "-22GiB"`, "expected a size"}}},
		{name: "write bandwidth range without a bandwidth", edits: []qaEdit{{17, "concurrency", "      concurrency: 4\n      write_bandwidth_range: [30MB, 80MB]"}},
			want: qaWant{18, "curves[0].reference.write_bandwidth_range", []string{"for write_bandwidth 0B", "around write_bandwidth"}}},
		{name: "shape locality above one", src: "name: x\nsource: y\nshapes:\n  - name: scan\n    exponent: 1\n    readahead_faults: 0.5\n    locality: 1.5\n    source: z\ncurves:\n  - class: hdd\n    provenance: published\n    source: s\n    reference:\n      read_latency: 8ms\n    points:\n      - fit: 0.5\n        slowdown: 2\n",
			want: qaWant{7, "shapes[0].locality", []string{"got 1.5", "0 to 1"}}},
		{name: "shape locality range not around it", src: "name: x\nsource: y\nshapes:\n  - name: scan\n    exponent: 1\n    readahead_faults: 0.5\n    locality: 0.5\n    locality_range: [0.6, 0.9]\n    source: z\ncurves:\n  - class: hdd\n    provenance: published\n    source: s\n    reference:\n      read_latency: 8ms\n    points:\n      - fit: 0.5\n        slowdown: 2\n",
			want: qaWant{8, "shapes[0].locality_range", []string{"got [0.6 0.9] for locality 0.5"}}},
		{name: "shape knee exponent missing", src: "name: x\nsource: y\nshapes:\n  - name: late\n    exponent: 1\n    knee: 0.7\n    readahead_faults: 1\n    source: z\ncurves:\n  - class: hdd\n    provenance: published\n    source: s\n    reference:\n      read_latency: 8ms\n    points:\n      - fit: 0.5\n        slowdown: 2\n",
			want: qaWant{4, "shapes[0].knee_exponent", []string{"got 0", "below the knee"}}},
		{name: "shape knee exponent without a knee", src: "name: x\nsource: y\nshapes:\n  - name: late\n    exponent: 1\n    knee_exponent: 5\n    readahead_faults: 1\n    source: z\ncurves:\n  - class: hdd\n    provenance: published\n    source: s\n    reference:\n      read_latency: 8ms\n    points:\n      - fit: 0.5\n        slowdown: 2\n",
			want: qaWant{4, "shapes[0].knee", []string{"missing, with knee_exponent 5"}}},
		{name: "shape knee at full fit", src: "name: x\nsource: y\nshapes:\n  - name: late\n    exponent: 1\n    knee: 1\n    knee_exponent: 5\n    readahead_faults: 1\n    source: z\ncurves:\n  - class: hdd\n    provenance: published\n    source: s\n    reference:\n      read_latency: 8ms\n    points:\n      - fit: 0.5\n        slowdown: 2\n",
			want: qaWant{6, "shapes[0].knee", []string{"got 1", "below 1"}}},
		{name: "negative drives", edits: []qaEdit{{17, "concurrency", "      concurrency: 4\n      drives: -1"}},
			want: qaWant{12, "curves[0].reference", []string{"cannot be negative"}}},
		{name: "software not zram", edits: []qaEdit{{26, "name", "  - name: lz4"}},
			want: qaWant{26, "software[0].name", []string{`got "lz4"`, "zram-<compressor>"}}},
		{name: "software without latency", edits: []qaEdit{{27, "latency", "    latency: 0s"}},
			want: qaWant{27, "software[0].latency", []string{"missing or zero", "1.7us"}}},
		{name: "compression ratio below 1", edits: []qaEdit{{28, "ratio", "    ratio: 0.5"}},
			want: qaWant{28, "software[0].ratio", []string{"got 0.5", "compression ratio of 1 or more"}}},
		{name: "missing name", edits: []qaEdit{{1, "name", ""}},
			want: qaWant{0, "name", []string{"missing"}}},
		{name: "missing source", edits: []qaEdit{{3, "source", ""}},
			want: qaWant{0, "source", []string{"missing", "say where the numbers come from"}}},
		{name: "nothing to contribute", src: "name: x\nsource: y\ncurves: []\n",
			want: qaWant{3, "curves", []string{"no curves"}}},
		{name: "empty file", src: "",
			want: qaWant{0, "", []string{"file is empty"}}},
		{name: "syntax error", edits: []qaEdit{{9, "source", "    source: 'probe run 2026-02-01"}},
			want: qaWant{9, "", []string{"YAML syntax", "check indentation and quoting"}}},
		// Known bugs.
		{name: "unclosed flow list", edits: []qaEdit{{21, "samples", "        samples: [1.04, 1.05"}},
			want: qaWant{21, "", []string{"YAML syntax"}}},
		{name: "a list where a mapping is expected", edits: []qaEdit{{12, "device", "      - device: 1.92 TB TLC NVMe"}, {13, "read_latency", "        read_latency: 85us"},
			{14, "write_latency", ""}, {15, "read_iops", ""}, {16, "write_iops", ""}, {17, "concurrency", ""}},
			want: qaWant{12, "curves[0].reference", []string{"got a list", "expected a mapping"}}},
		{name: "NaN IOPS", edits: []qaEdit{{15, "read_iops", "      read_iops: .nan"}},
			want: qaWant{15, "curves[0].reference.read_iops", nil}},
		{name: "NaN samples", edits: []qaEdit{{21, "samples", "        samples: [.nan, .nan]"}},
			want: qaWant{21, "curves[0].points[0].samples[0]", nil}},
		{name: "infinite compression ratio", edits: []qaEdit{{28, "ratio", "    ratio: .inf"}},
			want: qaWant{28, "software[0].ratio", nil}},
		{name: "slowdown at full fit", src: "name: t\nsource: s\ncurves:\n  - class: nvme-ssd-tlc\n    provenance: published\n    source: x\n    reference:\n      read_latency: 85us\n    points:\n      - fit: 1\n        slowdown: 1.5\n",
			want: qaWant{10, "curves[0].points[0]", []string{"fit"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			if src == "" && tt.edits != nil {
				src = qaApply(t, qaFactorFile, tt.edits...)
			}
			f, err := model.ParseFactors("factors.yaml", []byte(src))
			if err == nil {
				t.Fatalf("no error; parsed %d curves", len(f.Curves))
			}
			if f != nil {
				t.Error("partial factor file returned along with the error")
			}
			qaCheckErr(t, "factors.yaml", err, tt.want)
		})
	}
}

// A factor file's fault_overhead is the software cost on its own curves'
// paths; the device a prediction is for keeps its class's target_overhead.
// A curve measured with 5 us of software per page, carried to NVMe, implies
// more pages than the same curve at 20 us, and each costs the NVMe path
// its own 20 us: lowering the source's overhead raises the prediction and
// leaves the target's time per page where it was (before, both moved
// down together, and the time per page fell by the 15 us).
func TestSourceOverheadDoesNotMoveTheTargets(t *testing.T) {
	file := func(overhead string) *model.Factors {
		t.Helper()
		f, err := model.ParseFactors("fast.yaml", []byte(`
name: fast host
date: 2026-12-01
source: test
transfer_from: fast-ssd
fault_overhead: `+overhead+`
curves:
  - class: fast-ssd
    provenance: measured
    host: test box
    source: test
    reference: {device: fast SSD, read_latency: 75us, write_latency: 85us, read_iops: 35000, write_iops: 3300, write_bandwidth: 170MB, drives: 1, concurrency: 4}
    points:
      - {fit: 0.6, slowdown: 1.2}
`))
		if err != nil {
			t.Fatal(err)
		}
		fs, err := model.MergeFactors(model.DefaultFactors(), f)
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	nvme := model.Device{ReadLatency: 85 * time.Microsecond, ReadIOPS: 900000, WriteBW: 1e9, Drives: 1}
	predict := func(fs *model.Factors) model.Estimate {
		t.Helper()
		est, err := fs.PredictShape("nvme-ssd-tlc", nvme, 1, 0.5, 0.6, "uniform")
		if err != nil {
			t.Fatal(err)
		}
		return est
	}
	at20, at5 := predict(file("20us")), predict(file("5us"))
	if d := math.Abs(at5.FaultTime-at20.FaultTime) / at20.FaultTime; d > 0.01 {
		t.Errorf("time per page on the NVMe: %.1f us with the source at 5 us, %.1f us at 20 us; want the target's own cost either way (within 1%%)", at5.FaultTime*1e6, at20.FaultTime*1e6)
	}
	if at20.FaultTime < 20e-6 {
		t.Errorf("time per page on the NVMe %.1f us, below its 20 us software cost alone", at20.FaultTime*1e6)
	}
	if !(at5.Slowdown > at20.Slowdown) {
		t.Errorf("slowdown %.4f with the source at 5 us, %.4f at 20 us; want more: the same slowdown at a lower cost per page means more pages", at5.Slowdown, at20.Slowdown)
	}
}

// A target_overhead entry needs its class, a positive overhead with a range
// around it, and a source; the error names the file, line and field.
func TestTargetOverheadErrors(t *testing.T) {
	for _, c := range []struct{ entry, field string }{
		{"{overhead: 20us, source: s}", "target_overhead[0].class"},
		{"{class: nvme-ssd, overhead: 0us, source: s}", "target_overhead[0].overhead"},
		{"{class: nvme-ssd, overhead: 20us, overhead_range: [30us, 50us], source: s}", "target_overhead[0].overhead_range"},
		{"{class: nvme-ssd, overhead: 20us}", "target_overhead[0].source"},
	} {
		_, err := model.ParseFactors("t.yaml", []byte(`name: t
date: 2026-12-01
source: test
target_overhead:
  - `+c.entry+`
software:
  - {name: zram-lz4, latency: 1.7us, ratio: 2.6, source: s}
`))
		if err == nil || !strings.Contains(err.Error(), "t.yaml:5") || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want one naming t.yaml:5 and %s", c.entry, err, c.field)
		}
	}
}
