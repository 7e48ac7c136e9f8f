//go:build linux

package main

import (
	"math"
	"strings"
	"testing"
)

func TestParseFio(t *testing.T) {
	// A fill job then the reads, notes before the document, as fio 3.33
	// prints with lat_percentiles=1.
	out := `note: both iodepth >= 1 and synchronous I/O engine are selected
{"jobs": [
 {"jobname": "fill", "read": {"iops": 0}},
 {"jobname": "r", "read": {"iops": 8424.5, "lat_ns": {"percentile": {"50.000000": 85504}}, "clat_ns": {"percentile": {"50.000000": 85000}}}}
]}`
	o, err := parseFio([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(o.p50-85.504) > 1e-9 || o.iops != 8424.5 {
		t.Errorf("got p50 %v us, %v IOPS; want 85.504 us, 8424.5 (lat_ns preferred)", o.p50, o.iops)
	}
	if _, err := parseFio([]byte(`{"jobs": [{"read": {"iops": 0}}]}`)); err == nil || !strings.Contains(err.Error(), "no read p50") {
		t.Errorf("a job without reads: err %v, want 'no read p50'", err)
	}
}

func TestParseMemplan(t *testing.T) {
	o, err := parseMemplan([]byte(`{"rand_read_qd1": {"name": "rand-read-4k-qd1", "iops": 7000, "latency": {"p50_us": 101.5}}}`))
	if err != nil || o.p50 != 101.5 || o.iops != 7000 {
		t.Errorf("got %+v, %v; want p50 101.5, 7000 IOPS", o, err)
	}
	if _, err := parseMemplan([]byte(`{"seq_read": {}}`)); err == nil {
		t.Error("a profile without the QD1 read test was accepted")
	}
}

func TestRatio(t *testing.T) {
	// Round by round the variant is exactly 10% above the reference, so
	// the interval has no width whatever the rounds' own levels.
	res := map[string][]float64{"a": {110, 220, 55}, "ref": {100, 200, 50}}
	got := ratio(res, "a", "ref", func(x float64) float64 { return x })
	if got != "+10.0% (+10.0..+10.0)" {
		t.Errorf("ratio = %q, want +10.0%% (+10.0..+10.0)", got)
	}
	if ratio(res, "ref", "ref", func(x float64) float64 { return x }) != "-" {
		t.Error("the reference against itself should print -")
	}
}
