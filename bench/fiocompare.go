// Command bench compares `memplan probe device --format json` output with
// fio's JSON output for the equivalent jobs (see fio-compare.sh, which runs
// both) and prints them side by side. Each file may hold some of the tests;
// a test measured several times is compared by its medians, which keeps one
// noisy run from deciding the verdict.
//
//	go run ./bench -memplan m1.json,m2.json -fio f1.json,f2.json [-tolerance 15] [-report-only]
//
// It exits 1 when a gated figure (p50 latency and IOPS of the four random
// tests) differs by more than the tolerance, 2 on bad input.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/memplan/memplan/measure/device"
)

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

func run(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("fiocompare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mp := fs.String("memplan", "", "comma-separated memplan probe device JSON files, one per round")
	fio := fs.String("fio", "", "comma-separated fio --output-format=json files, one per round")
	tol := fs.Float64("tolerance", 15, "largest acceptable difference, in percent, for p50 latency and IOPS")
	reportOnly := fs.Bool("report-only", false, "print the comparison but always exit 0")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *mp == "" || *fio == "" {
		fmt.Fprintln(stderr, "fiocompare: both -memplan and -fio are required")
		return 2
	}
	var mps []*device.Profile
	for _, f := range strings.Split(*mp, ",") {
		p, err := loadMemplan(f)
		if err != nil {
			fmt.Fprintln(stderr, "fiocompare:", err)
			return 2
		}
		mps = append(mps, p)
	}
	var fios []map[string]fioResult
	for _, f := range strings.Split(*fio, ",") {
		r, err := loadFio(f)
		if err != nil {
			fmt.Fprintln(stderr, "fiocompare:", err)
			return 2
		}
		fios = append(fios, r)
	}
	rows, runs, err := compare(mps, fios)
	if err != nil {
		fmt.Fprintln(stderr, "fiocompare:", err)
		return 2
	}
	failed := writeTable(stdout, rows, runs, *tol)
	switch {
	case failed > 0 && *reportOnly:
		fmt.Fprintf(stdout, "\n%d gated figure(s) differ by more than %g%% (report only)\n", failed, *tol)
	case failed > 0:
		fmt.Fprintf(stdout, "\nFAIL: %d gated figure(s) differ by more than %g%%\n", failed, *tol)
		return 1
	default:
		fmt.Fprintf(stdout, "\nOK: p50 latency and IOPS agree within %g%%\n", *tol)
	}
	return 0
}

func loadMemplan(path string) (*device.Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p device.Profile
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: not a memplan device profile: %w", path, err)
	}
	if len(p.Tests()) == 0 {
		return nil, fmt.Errorf("%s: no tests in it; expected `memplan probe device --format json` output", path)
	}
	return &p, nil
}

// fioResult is what the comparison needs from one fio job (one direction).
type fioResult struct {
	IOPS     float64
	MBPerSec float64
	MeanUs   float64
	P50Us    float64
	P99Us    float64
	P999Us   float64
}

// fioOutput mirrors the parts of fio's JSON output read here.
type fioOutput struct {
	Jobs []struct {
		Name  string     `json:"jobname"`
		Error int        `json:"error"`
		Read  fioDirStat `json:"read"`
		Write fioDirStat `json:"write"`
	} `json:"jobs"`
}

type fioDirStat struct {
	IOBytes int64   `json:"io_bytes"`
	IOPS    float64 `json:"iops"`
	BW      float64 `json:"bw_bytes"`
	Lat     fioLat  `json:"lat_ns"`
	Clat    fioLat  `json:"clat_ns"`
}

type fioLat struct {
	Mean       float64            `json:"mean"`
	Percentile map[string]float64 `json:"percentile"`
}

// loadFio reads fio's JSON output, keyed by job name. fio may print notes
// before the JSON document; they are skipped.
func loadFio(path string) (map[string]fioResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if i := strings.IndexByte(string(b), '{'); i > 0 {
		b = b[i:]
	}
	var out fioOutput
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: not fio JSON output: %w", path, err)
	}
	res := map[string]fioResult{}
	for _, j := range out.Jobs {
		if j.Error != 0 {
			return nil, fmt.Errorf("%s: fio job %s failed with error %d", path, j.Name, j.Error)
		}
		d := j.Read
		if d.IOBytes == 0 {
			d = j.Write
		}
		// Total latency (submission to completion) is what memplan times;
		// fio has percentiles for it with lat_percentiles=1. Otherwise
		// completion latency is the nearest it has.
		lat := d.Lat
		if len(lat.Percentile) == 0 {
			lat = d.Clat
		}
		res[j.Name] = fioResult{
			IOPS:     d.IOPS,
			MBPerSec: d.BW / 1e6,
			MeanUs:   d.Lat.Mean / 1e3,
			P50Us:    lat.Percentile["50.000000"] / 1e3,
			P99Us:    lat.Percentile["99.000000"] / 1e3,
			P999Us:   lat.Percentile["99.900000"] / 1e3,
		}
	}
	return res, nil
}

type row struct {
	Metric       string
	Memplan, Fio float64
	Gated        bool
	Unit         string
}

func (r row) diff() float64 {
	if r.Fio == 0 {
		return math.Inf(1)
	}
	return (r.Memplan - r.Fio) / r.Fio * 100
}

// compare lines up the medians of each figure over the runs, in the order
// memplan runs its tests. runs is the fewest runs behind any median.
func compare(mps []*device.Profile, fios []map[string]fioResult) (rows []row, runs int, err error) {
	mt := map[string][]*device.Test{}
	var order []string
	for _, p := range mps {
		for _, t := range p.Tests() {
			if _, seen := mt[t.Name]; !seen {
				order = append(order, t.Name)
			}
			mt[t.Name] = append(mt[t.Name], t)
		}
	}
	slices.SortStableFunc(order, func(a, b string) int {
		return slices.Index(device.TestNames(), a) - slices.Index(device.TestNames(), b)
	})
	for _, name := range order {
		var fr []fioResult
		for _, f := range fios {
			if r, ok := f[name]; ok {
				fr = append(fr, r)
			}
		}
		if len(fr) == 0 {
			return nil, 0, fmt.Errorf("no fio job named %s", name)
		}
		if runs == 0 || min(len(fr), len(mt[name])) < runs {
			runs = min(len(fr), len(mt[name]))
		}
		m := func(get func(*device.Test) float64) float64 {
			var xs []float64
			for _, t := range mt[name] {
				xs = append(xs, get(t))
			}
			return median(xs)
		}
		f := func(get func(fioResult) float64) float64 {
			var xs []float64
			for _, r := range fr {
				xs = append(xs, get(r))
			}
			return median(xs)
		}
		if mt[name][0].Pattern == "sequential" {
			rows = append(rows, row{strings.TrimSuffix(name, "-qd1") + " MB/s", m(func(u *device.Test) float64 { return u.MBPerSec }), f(func(r fioResult) float64 { return r.MBPerSec }), false, ""})
			continue
		}
		rows = append(rows,
			row{name + " IOPS", m(func(u *device.Test) float64 { return u.IOPS }), f(func(r fioResult) float64 { return r.IOPS }), true, ""},
			row{name + " p50", m(func(u *device.Test) float64 { return u.Latency.P50Us }), f(func(r fioResult) float64 { return r.P50Us }), true, "us"},
			row{name + " p99", m(func(u *device.Test) float64 { return u.Latency.P99Us }), f(func(r fioResult) float64 { return r.P99Us }), false, "us"},
			row{name + " p99.9", m(func(u *device.Test) float64 { return u.Latency.P999Us }), f(func(r fioResult) float64 { return r.P999Us }), false, "us"},
			row{name + " mean", m(func(u *device.Test) float64 { return u.Latency.MeanUs }), f(func(r fioResult) float64 { return r.MeanUs }), false, "us"},
		)
	}
	return rows, runs, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// writeTable prints the rows and returns how many gated ones fail.
func writeTable(w io.Writer, rows []row, runs int, tol float64) int {
	if runs > 1 {
		fmt.Fprintf(w, "memplan probe device vs fio (medians of %d runs each)\n", runs)
	} else {
		fmt.Fprintf(w, "memplan probe device vs fio\n")
	}
	fmt.Fprintf(w, "%-28s %11s %11s %8s  %s\n", "metric", "memplan", "fio", "diff", "verdict")
	failed := 0
	for _, r := range rows {
		verdict := "info"
		if r.Gated {
			verdict = "ok"
			if d := r.diff(); math.IsNaN(d) || math.Abs(d) > tol {
				verdict = fmt.Sprintf("FAIL (>%g%%)", tol)
				failed++
			}
		}
		fmt.Fprintf(w, "%-28s %11s %11s %7.1f%%  %s\n", r.Metric, num(r.Memplan, r.Unit), num(r.Fio, r.Unit), r.diff(), verdict)
	}
	return failed
}

func num(v float64, unit string) string {
	switch {
	case unit != "":
		return fmt.Sprintf("%.1f%s", v, unit)
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
