//go:build linux

// Command bench compares `memplan probe device --format json` output with
// fio's JSON output for the equivalent jobs (see fio-compare.sh, which runs
// both) and prints them side by side. Each file may hold some of the tests;
// a test measured several times is compared by its medians, which keeps one
// noisy run from deciding the verdict, and, from three rounds on, by the
// ratio of the two tools' figures round by round (fio-compare.sh runs each
// pair seconds apart): its geometric mean and 95% Student-t interval. The
// paired ratio takes the moment's share of the noise out, so it decides the
// verdict where there is one.
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
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
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
	// Pairs is the number of rounds paired (0 below three); Paired the
	// geometric mean of memplan/fio per round less 1, in percent, with its
	// 95% interval PairedLo..PairedHi.
	Pairs                      int
	Paired, PairedLo, PairedHi float64
}

// pair fills in the paired ratio of xs over ys (same rounds, same order)
// when there are at least three of each and the counts agree.
func (r *row) pair(xs, ys []float64) {
	if len(xs) < 3 || len(xs) != len(ys) {
		return
	}
	logs := make([]float64, len(xs))
	for i := range xs {
		if xs[i] <= 0 || ys[i] <= 0 {
			return
		}
		logs[i] = math.Log(xs[i] / ys[i])
	}
	mean, sd := stat.MeanStdDev(logs, nil)
	n := float64(len(logs))
	h := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975) * sd / math.Sqrt(n)
	r.Pairs = len(logs)
	r.Paired = 100 * (math.Exp(mean) - 1)
	r.PairedLo, r.PairedHi = 100*(math.Exp(mean-h)-1), 100*(math.Exp(mean+h)-1)
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
		// mk is the row of one figure: both tools' medians, and the
		// paired ratio (the i-th run of each is the same round).
		mk := func(metric string, gated bool, unit string, get func(*device.Test) float64, getF func(fioResult) float64) row {
			var xs, ys []float64
			for _, t := range mt[name] {
				xs = append(xs, get(t))
			}
			for _, r := range fr {
				ys = append(ys, getF(r))
			}
			r := row{Metric: metric, Memplan: median(xs), Fio: median(ys), Gated: gated, Unit: unit}
			r.pair(xs, ys)
			return r
		}
		if mt[name][0].Pattern == "sequential" {
			rows = append(rows, mk(strings.TrimSuffix(name, "-qd1")+" MB/s", false, "", func(u *device.Test) float64 { return u.MBPerSec }, func(r fioResult) float64 { return r.MBPerSec }))
			continue
		}
		rows = append(rows,
			mk(name+" IOPS", true, "", func(u *device.Test) float64 { return u.IOPS }, func(r fioResult) float64 { return r.IOPS }),
			mk(name+" p50", true, "us", func(u *device.Test) float64 { return u.Latency.P50Us }, func(r fioResult) float64 { return r.P50Us }),
			mk(name+" p99", false, "us", func(u *device.Test) float64 { return u.Latency.P99Us }, func(r fioResult) float64 { return r.P99Us }),
			mk(name+" p99.9", false, "us", func(u *device.Test) float64 { return u.Latency.P999Us }, func(r fioResult) float64 { return r.P999Us }),
			mk(name+" mean", false, "us", func(u *device.Test) float64 { return u.Latency.MeanUs }, func(r fioResult) float64 { return r.MeanUs }),
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

// writeTable prints the rows and returns how many gated ones fail. A row
// with paired rounds is judged by its paired ratio ("shown" when the whole
// interval is within the tolerance), one without by its medians.
func writeTable(w io.Writer, rows []row, runs int, tol float64) int {
	paired := slices.ContainsFunc(rows, func(r row) bool { return r.Pairs > 0 })
	switch {
	case paired:
		fmt.Fprintf(w, "memplan probe device vs fio (medians of %d runs each; paired: memplan/fio round by round, geometric mean and 95%% interval)\n", runs)
	case runs > 1:
		fmt.Fprintf(w, "memplan probe device vs fio (medians of %d runs each)\n", runs)
	default:
		fmt.Fprintf(w, "memplan probe device vs fio\n")
	}
	if paired {
		fmt.Fprintf(w, "%-28s %11s %11s %8s  %-26s %s\n", "metric", "memplan", "fio", "diff", "paired (95%)", "verdict")
	} else {
		fmt.Fprintf(w, "%-28s %11s %11s %8s  %s\n", "metric", "memplan", "fio", "diff", "verdict")
	}
	failed := 0
	for _, r := range rows {
		verdict := "info"
		d := r.diff()
		if r.Pairs > 0 {
			d = r.Paired
		}
		if r.Gated {
			verdict = "ok"
			if math.IsNaN(d) || math.Abs(d) > tol {
				verdict = fmt.Sprintf("FAIL (>%g%%)", tol)
				failed++
			} else if r.Pairs > 0 && math.Abs(r.PairedLo) <= tol && math.Abs(r.PairedHi) <= tol {
				verdict = "ok, shown"
			}
		}
		if !paired {
			fmt.Fprintf(w, "%-28s %11s %11s %7.1f%%  %s\n", r.Metric, num(r.Memplan, r.Unit), num(r.Fio, r.Unit), r.diff(), verdict)
			continue
		}
		p := "-"
		if r.Pairs > 0 {
			p = fmt.Sprintf("%+.1f%% (%+.1f..%+.1f)", r.Paired, r.PairedLo, r.PairedHi)
		}
		fmt.Fprintf(w, "%-28s %11s %11s %7.1f%%  %-26s %s\n", r.Metric, num(r.Memplan, r.Unit), num(r.Fio, r.Unit), r.diff(), p, verdict)
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
