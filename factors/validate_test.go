package factors

import (
	"strings"
	"testing"
	"time"
)

// fixed are defaults whose statistics are easy to recognise in a result.
var fixed = Defaults{
	DirtyShare: 0.5,
	Mean:       func(xs []float64) float64 { return 1.5 },
	Interval:   func(xs []float64) (lo, hi float64) { return 1.4, 1.6 },
}

const lab = `name: lab
source: memplan probe on node07
curves:
  - class: nvme-ssd-tlc
    provenance: measured
    source: memplan probe
    host: node07
    reference:
      read_latency: 80us
    points:
      - fit: 0.5
        samples: [1.4, 1.6]
      - fit: 0.75
        slowdown: 1.2
`

// TestParseFillsWhatTheFileLeavesOut checks that Parse takes a point's
// slowdown and interval from the reader's statistics, the dirty share
// from its defaults, and sorts the points by falling fit.
func TestParseFillsWhatTheFileLeavesOut(t *testing.T) {
	f, err := Parse("lab.yaml", []byte(lab), fixed)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Curves[0]
	if c.Points[0].Fit != 0.75 || c.Points[1].Fit != 0.5 {
		t.Fatalf("points not sorted by falling fit: %+v", c.Points)
	}
	if p := c.Points[1]; p.Slowdown != 1.5 || len(p.CI) != 2 || p.CI[0] != 1.4 || p.CI[1] != 1.6 {
		t.Errorf("point from samples: slowdown %g ci %v, want 1.5 [1.4 1.6] from the reader's statistics", p.Slowdown, p.CI)
	}
	r := c.Reference
	if r.DirtyShare != 0.5 || r.Drives != 1 || r.Concurrency != 1 || r.WriteLatency.D() != 80*time.Microsecond {
		t.Errorf("reference defaults: %+v", r)
	}
	if f.File != "lab.yaml" || !f.Parsed() {
		t.Errorf("File %q, Parsed %v: want lab.yaml, true", f.File, f.Parsed())
	}
}

// TestParseErrorsNameFileLineAndField checks the whole message of a bad
// value: file, line, field, what was wrong and what was expected.
func TestParseErrorsNameFileLineAndField(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"fit: 0.75", "fit: 1.75", "lab.yaml:13:14: field curves[0].points[1].fit: got 1.75 (usable RAM / memory touched, between 0 and 1)"},
		{"provenance: measured", "provenance: guessed", `lab.yaml:5:17: field curves[0].provenance: got "guessed", expected one of published, measured, emulated, inferred`},
		{"slowdown: 1.2", "slowdown: 1.7", "lab.yaml:11:7: field curves[0].points: curve nvme-ssd-tlc: slowdown 1.5 at fit 0.5 is below 1.7 at fit 0.75"},
	} {
		_, err := Parse("lab.yaml", []byte(strings.Replace(lab, tc.from, tc.to, 1)), fixed)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %s", tc.to, err, tc.want)
		}
	}
}
