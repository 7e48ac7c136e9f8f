//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// From three rounds on, each figure is also compared round by round, and
// the paired ratio decides: a memplan 9.1% below fio in every round fails
// a 5% tolerance and is shown within 10%, whatever the rounds' spread.
func TestComparePaired(t *testing.T) {
	var mps, fios []string
	for _, iops := range []float64{10000, 20000, 40000} {
		mp, fio := writeFiles(t, iops/1.1, 30)
		doc := strings.Replace(fioJSON, `"iops" : 25000.5`, fmt.Sprintf(`"iops" : %g`, iops), 1)
		if err := os.WriteFile(fio, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		mps, fios = append(mps, mp), append(fios, fio)
	}
	args := []string{"-memplan", strings.Join(mps, ","), "-fio", strings.Join(fios, ",")}
	var out, errb bytes.Buffer
	if code := run(&out, &errb, append(args, "-tolerance", "5")); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s%s", code, out.String(), errb.String())
	}
	iops := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "rand-read-4k-qd1 IOPS") {
			iops = l
		}
	}
	for _, want := range []string{"-9.1% (-9.1..-9.1)", "FAIL (>5%)"} {
		if !strings.Contains(iops, want) {
			t.Errorf("IOPS row %q lacks %q:\n%s", iops, want, out.String())
		}
	}
	if !strings.Contains(out.String(), "paired: memplan/fio round by round") {
		t.Errorf("no paired header:\n%s", out.String())
	}
	out.Reset()
	if code := run(&out, &errb, append(args, "-tolerance", "10")); code != 0 || !strings.Contains(out.String(), "ok, shown") {
		t.Errorf("-tolerance 10: exit %d, want 0 with 'ok, shown':\n%s", code, out.String())
	}
}
