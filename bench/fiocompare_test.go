package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/device"
)

// fioJSON is a trimmed fio 3.33 output: a fill job and one random-read job,
// with notes fio prints before the document.
const fioJSON = `note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1
{
  "fio version" : "fio-3.33",
  "jobs" : [
    {"jobname" : "fill", "error" : 0,
     "read" : {"io_bytes" : 0, "iops" : 0, "bw_bytes" : 0, "lat_ns" : {"mean" : 0}},
     "write" : {"io_bytes" : 1073741824, "iops" : 1500, "bw_bytes" : 1572864000, "lat_ns" : {"mean" : 600000}}},
    {"jobname" : "rand-read-4k-qd1", "error" : 0,
     "read" : {"io_bytes" : 409600000, "iops" : 25000.5, "bw_bytes" : 102400000,
               "clat_ns" : {"mean" : 39000},
               "lat_ns" : {"mean" : 40000, "percentile" : {"50.000000" : 30000, "99.000000" : 90000, "99.900000" : 400000}}},
     "write" : {"io_bytes" : 0, "iops" : 0, "bw_bytes" : 0, "lat_ns" : {"mean" : 0}}}
  ]
}
`

func writeFiles(t *testing.T, iops, p50 float64) (mp, fio string) {
	t.Helper()
	dir := t.TempDir()
	p := device.Profile{RandReadQD1: &device.Test{
		Name: "rand-read-4k-qd1", Pattern: "random", Op: "read", BlockBytes: 4096, QueueDepth: 1,
		IOPS: iops, Latency: measure.LatencySummary{P50Us: p50, P99Us: 80, P999Us: 300, MeanUs: 41},
	}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	mp, fio = filepath.Join(dir, "m.json"), filepath.Join(dir, "f.json")
	if err := os.WriteFile(mp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fio, []byte(fioJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	return mp, fio
}

func TestCompareAgrees(t *testing.T) {
	mp, fio := writeFiles(t, 24000, 31)
	var out, errb bytes.Buffer
	if code := run(&out, &errb, []string{"-memplan", mp, "-fio", fio}); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"rand-read-4k-qd1 IOPS", "24000", "25000", "-4.0%", "rand-read-4k-qd1 p50", "31.0us", "30.0us", "3.3%", "OK"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "fill") {
		t.Errorf("the fill job is not a test:\n%s", out.String())
	}
}

func TestCompareDisagrees(t *testing.T) {
	mp, fio := writeFiles(t, 15000, 31) // IOPS 40% low
	var out, errb bytes.Buffer
	if code := run(&out, &errb, []string{"-memplan", mp, "-fio", fio}); code != 1 || !strings.Contains(out.String(), "FAIL") {
		t.Errorf("exit %d, want 1 with FAIL:\n%s", code, out.String())
	}
	out.Reset()
	if code := run(&out, &errb, []string{"-memplan", mp, "-fio", fio, "-report-only"}); code != 0 || !strings.Contains(out.String(), "report only") {
		t.Errorf("-report-only: exit %d:\n%s", code, out.String())
	}
	out.Reset()
	if code := run(&out, &errb, []string{"-memplan", mp, "-fio", fio, "-tolerance", "50"}); code != 0 {
		t.Errorf("-tolerance 50: exit %d:\n%s", code, out.String())
	}
}

func TestCompareBadInput(t *testing.T) {
	mp, _ := writeFiles(t, 1, 1)
	var out, errb bytes.Buffer
	if code := run(&out, &errb, []string{"-memplan", mp, "-fio", mp}); code != 2 || !strings.Contains(errb.String(), "no fio job named rand-read-4k-qd1") {
		t.Errorf("memplan JSON as fio's: exit %d, %s", code, errb.String())
	}
	errb.Reset()
	if code := run(&out, &errb, []string{"-memplan", mp}); code != 2 {
		t.Errorf("missing -fio: exit %d", code)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %g, want %g", c.xs, got, c.want)
		}
	}
}
