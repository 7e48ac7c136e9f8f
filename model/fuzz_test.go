package model_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// Fuzz targets for the workload and factor loaders. Properties:
//   - no panic;
//   - a rejection is a non-empty *yamlx.InputError for the file (errors.Is
//     yamlx.ErrInput), starting with the file name, with a line inside the
//     file and no Go type names in it;
//   - an accepted file is valid by rules restated here, and the model can
//     use it: Recommend (workloads) and Predict (factors) give finite
//     figures.
//
// Seeds: testdata/fuzz/FuzzParseWorkload and testdata/fuzz/FuzzParseFactors.

func FuzzParseWorkload(f *testing.F) {
	examples, _ := filepath.Glob("../examples/*.yaml")
	for _, p := range examples {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(qaWorkload))
	f.Add([]byte("name: m\ndemand: {servers: 3}\njobs:\n  - {name: j, footprint: 1GiB, runtime: 1h, deadline: 2h}\n"))
	f.Add([]byte("name: m\njobs:\n  name: j\n"))
	f.Add([]byte(strings.Replace(qaWorkload, "jobs_per_day: 64", "jobs_per_day: .nan", 1)))
	f.Add([]byte(strings.Replace(qaWorkload, "footprint: 48GiB", "footprint: 4000PiB", 1)))
	f.Add([]byte(strings.Replace(qaWorkload, "horizon: 3y", "horizon: 300y", 1)))

	// A small catalog keeps Recommend cheap enough to fuzz through.
	intel, err := prices.Embedded("intel-2009")
	if err != nil {
		f.Fatal(err)
	}
	set, err := prices.Merge(intel)
	if err != nil {
		f.Fatal(err)
	}
	fs, err := model.MergeFactors(model.DefaultFactors())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz.yaml"
		w, err := model.ParseWorkload(file, data)
		if err != nil {
			if w != nil {
				t.Fatalf("workload returned along with error %v", err)
			}
			qaCheckFuzzError(t, file, data, err)
			return
		}
		if _, err := qaValidWorkload(w); err != nil {
			t.Fatalf("accepted an invalid workload: %v", err)
		}
		// RUB catalog: a workload asking for another currency is an input
		// error, as is a footprint no 2009 server can hold.
		res, err := model.Recommend(model.Input{Workload: w, Prices: set, Factors: fs})
		if err != nil {
			if res != nil {
				t.Fatal("result returned along with an error")
			}
			if !errors.Is(err, yamlx.ErrInput) {
				t.Fatalf("Recommend: %v is not an input error", err)
			}
			return
		}
		if err := qaValidResult(res); err != nil {
			t.Fatalf("Recommend: %v", err)
		}
	})
}

func FuzzParseFactors(f *testing.F) {
	f.Add(model.DefaultFactorsSource())
	f.Add([]byte(qaFactorFile))
	f.Add([]byte(`{"name": "probe", "source": "memplan probe", "curves": [{"class": "nvme-ssd-tlc", "provenance": "emulated", "host": "h",` +
		` "source": "s", "reference": {"read_latency": "85us"}, "points": [{"fit": 0.5, "samples": [1.2, 1.3]}]}]}`))
	f.Add([]byte("name: t\nsource: s\ncurves:\n  - class: x\n    provenance: published\n    source: x\n    reference: {read_latency: 85us}\n    points: [{fit: 1, slowdown: 1.5}]\n"))
	f.Add([]byte(strings.Replace(qaFactorFile, "read_iops: 900000", "read_iops: .nan", 1)))
	f.Add([]byte("name: t\nsource: s\ncurves: []\n"))
	dev := model.Device{Name: "tlc", ReadLatency: 85 * time.Microsecond, WriteLatency: 20 * time.Microsecond, ReadIOPS: 9e5, WriteIOPS: 1.2e5, Drives: 2}
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz.yaml"
		ff, err := model.ParseFactors(file, data)
		if err != nil {
			if ff != nil {
				t.Fatalf("factor file returned along with error %v", err)
			}
			qaCheckFuzzError(t, file, data, err)
			return
		}
		if _, err := qaValidFactors(ff); err != nil {
			t.Fatalf("accepted an invalid factor file: %v", err)
		}
		fs, err := model.MergeFactors(model.DefaultFactors(), ff)
		if err != nil {
			if !errors.Is(err, yamlx.ErrInput) {
				t.Fatalf("MergeFactors: %v is not an input error", err)
			}
			return
		}
		for _, c := range ff.Curves {
			for _, fit := range []float64{0.95, 0.7, 0.4, 0.1} {
				e, err := fs.Predict(c.Class, dev, 4, 0.5, fit)
				if err != nil {
					t.Fatalf("Predict(%s, %g): %v", c.Class, fit, err)
				}
				if !qaFinite(e.Slowdown, e.Low, e.High) || e.Slowdown < 1 || e.Low > e.Slowdown || e.High < e.Slowdown {
					t.Fatalf("Predict(%s, %g) = %+v", c.Class, fit, e)
				}
			}
		}
	})
}

func qaValid(vs ...money.Amount) bool {
	for _, v := range vs {
		if !v.Valid() {
			return false
		}
	}
	return true
}

func qaFinite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// qaYAMLLines counts lines as YAML does: CR, LF, CRLF and (yaml.v3 follows YAML
// 1.1 here) NEL, LS and PS all end a line.
func qaYAMLLines(data []byte) int {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	n := 1
	for _, r := range s {
		switch r {
		case '\n', '\r', '\u0085', '\u2028', '\u2029':
			n++
		}
	}
	return n
}

func qaCheckFuzzError(t *testing.T, file string, data []byte, err error) {
	t.Helper()
	msg := err.Error()
	if msg == "" {
		t.Fatal("empty error message")
	}
	if !errors.Is(err, yamlx.ErrInput) {
		t.Fatalf("%T is not an input error: %v", err, err)
	}
	var ie *yamlx.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%T is not an *yamlx.InputError: %v", err, err)
	}
	if ie.File != file || !strings.HasPrefix(msg, file+":") || ie.Msg == "" {
		t.Fatalf("error does not name the file or say what is wrong: %q", msg)
	}
	if lines := qaYAMLLines(data); ie.Line < 0 || ie.Line > lines+1 {
		t.Fatalf("line %d outside a %d-line file: %q", ie.Line, lines, msg)
	}
	if leak := qaGoInternals.FindString(qaQuoted.ReplaceAllString(ie.Msg+" "+ie.Hint, `""`)); leak != "" {
		switch {
		case strings.Contains(msg, "cannot unmarshal"):
		case strings.Contains(msg, "not found in type"):
		}
		t.Fatalf("message leaks Go internals (%q): %q", leak, msg)
	}
}

// qaQuoted matches text the message echoes from the input, which may look
// like anything.
var qaQuoted = regexp.MustCompile(`"[^"]*"`)

const qaNonFinite = "loaders let NaN/Inf through float fields (jobs_per_day, IOPS, samples, ci, ratio)"

func qaValidWorkload(w *model.Workload) (bug string, err error) {
	if strings.TrimSpace(w.Name) == "" {
		return "", errors.New("no name")
	}
	if w.Currency != "" && !units.IsCurrencyCode(w.Currency) {
		return "", fmt.Errorf("currency %q", w.Currency)
	}
	if w.Horizon <= 0 || w.Horizon.Hours() < 24 {
		return "", fmt.Errorf("horizon %d ns", int64(w.Horizon))
	}
	if w.Demand.Servers < 0 || len(w.Jobs) == 0 {
		return "", fmt.Errorf("demand %+v, %d jobs", w.Demand, len(w.Jobs))
	}
	names := map[string]bool{}
	for _, j := range w.Jobs {
		if strings.TrimSpace(j.Name) == "" || names[j.Name] {
			return "", fmt.Errorf("job name %q blank or repeated", j.Name)
		}
		names[j.Name] = true
		if !qaFinite(j.JobsPerDay) {
			return qaNonFinite, fmt.Errorf("job %s: jobs_per_day %g", j.Name, j.JobsPerDay)
		}
		if j.Footprint <= 0 || j.Runtime <= 0 || j.Deadline <= 0 || j.Concurrency < 1 || j.JobsPerDay < 0 {
			return "", fmt.Errorf("job %+v", j)
		}
		if j.Footprint > math.MaxInt64/units.Bytes(j.Concurrency) {
			return "touched() = concurrency x footprint overflows int64", fmt.Errorf("job %s: %d x %v overflows", j.Name, j.Concurrency, j.Footprint)
		}
		if j.Window <= 0 || j.Window.Hours() > 24 || j.Deadline > j.Window {
			return "", fmt.Errorf("job %s: deadline %v window %v", j.Name, j.Deadline, j.Window)
		}
		if w.Demand.Servers == 0 && !(j.JobsPerDay > 0) {
			return "", fmt.Errorf("job %s: no demand", j.Name)
		}
		if !(j.Compressibility >= 1) || j.DirtyShare < 0 || j.DirtyShare > 1 {
			return "", fmt.Errorf("job %s: compressibility %g dirty share %g", j.Name, j.Compressibility, j.DirtyShare)
		}
	}
	o := w.Options
	for _, s := range o.ZramShares {
		if !(s > 0 && s <= 2) {
			return "", fmt.Errorf("zram share %g", s)
		}
	}
	if len(o.ZramShares) == 0 || o.ZswapPool < 0 || o.ZswapPool > 0.9 || o.MaxDrives < 0 {
		return "", fmt.Errorf("options %+v", o)
	}
	return "", nil
}

func qaValidResult(res *model.Result) error {
	if len(res.Configs) == 0 || res.Evaluated != len(res.Configs) {
		return fmt.Errorf("%d configurations, %d evaluated", len(res.Configs), res.Evaluated)
	}
	for i, c := range res.Configs {
		if c.Rank != i+1 {
			return fmt.Errorf("%s ranked %d at %d", c.ID, c.Rank, i)
		}
		k := c.Cost
		if !qaValid(k.Platform, k.DIMMs, k.Drives, k.Replacements, k.PerServer, k.Fleet) || !qaFinite(c.MaxSlowdown) || k.PerServer <= 0 || k.Fleet < 0 || c.MaxSlowdown < 1 {
			return fmt.Errorf("%s: cost %+v, slowdown %g", c.ID, k, c.MaxSlowdown)
		}
		if c.Meets && c.Servers < 1 {
			return fmt.Errorf("%s meets the deadlines with %d servers", c.ID, c.Servers)
		}
		for _, j := range c.Jobs {
			e := j.Estimate
			if !qaFinite(e.Slowdown, e.Low, e.High, j.Fit, j.JobsPerServer) || e.Slowdown < 1 || j.Fit <= 0 || j.Fit > 1 || j.Runtime < 0 {
				return fmt.Errorf("%s: job %s: %+v", c.ID, j.Name, j)
			}
		}
	}
	if r := res.Recommended; r != nil && !r.Meets {
		return fmt.Errorf("recommended %s misses a deadline", r.ID)
	}
	return nil
}

func qaValidFactors(f *factors.File) (bug string, err error) {
	if strings.TrimSpace(f.Name) == "" || strings.TrimSpace(f.Source) == "" {
		return "", fmt.Errorf("name %q source %q", f.Name, f.Source)
	}
	if len(f.Curves) == 0 && len(f.Software) == 0 {
		return "", errors.New("nothing in it")
	}
	if f.FaultOverhead < 0 {
		return "", fmt.Errorf("fault overhead %v", f.FaultOverhead)
	}
	for _, c := range f.Curves {
		r := c.Reference
		if !qaFinite(r.ReadIOPS, r.WriteIOPS) {
			return qaNonFinite, fmt.Errorf("%s: reference IOPS %g/%g", c.Class, r.ReadIOPS, r.WriteIOPS)
		}
		if c.Class == "" || r.ReadLatency <= 0 || r.WriteLatency <= 0 || r.Drives < 1 || r.Concurrency < 1 || r.ReadIOPS < 0 || r.WriteIOPS < 0 {
			return "", fmt.Errorf("%s: reference %+v", c.Class, r)
		}
		if c.Provenance != factors.Published && c.Provenance != factors.Measured && c.Provenance != factors.Emulated {
			return "", fmt.Errorf("%s: provenance %q", c.Class, c.Provenance)
		}
		if c.Provenance != factors.Published && c.Host == "" {
			return "", fmt.Errorf("%s: %s without host", c.Class, c.Provenance)
		}
		if len(c.Points) == 0 {
			return "", fmt.Errorf("%s: no points", c.Class)
		}
		for i, p := range c.Points {
			if !qaFinite(p.CI...) || !qaFinite(p.Samples...) {
				return qaNonFinite, fmt.Errorf("%s: point %+v", c.Class, p)
			}
			if !(p.Fit > 0 && p.Fit <= 1) || !(p.Slowdown >= 1) || !qaFinite(p.Slowdown) {
				return "", fmt.Errorf("%s: point %+v", c.Class, p)
			}
			if len(p.CI) != 0 && (len(p.CI) != 2 || p.CI[0] > p.Slowdown || p.CI[1] < p.Slowdown) {
				return "", fmt.Errorf("%s: CI %v around %g", c.Class, p.CI, p.Slowdown)
			}
			if i > 0 && !(c.Points[i-1].Fit > p.Fit) {
				return "", fmt.Errorf("%s: points not in descending fit order: %+v", c.Class, c.Points)
			}
		}
	}
	for _, s := range f.Software {
		if !qaFinite(s.Ratio) {
			return qaNonFinite, fmt.Errorf("software %s ratio %g", s.Name, s.Ratio)
		}
		if !strings.HasPrefix(s.Name, "zram-") || s.Latency <= 0 || s.Ratio < 1 {
			return "", fmt.Errorf("software %+v", s)
		}
	}
	return "", nil
}

// qaPredictBug names the known bug behind a non-finite or inconsistent
// prediction from a curve that passed validation.
func qaPredictBug(c factors.Curve) string {
	low := c.Points[len(c.Points)-1]
	if low.Fit == 1 {
		return "a curve whose lowest point is at fit 1 is accepted; excessAt divides by 1-1"
	}
	for _, p := range c.Points {
		for _, v := range append(append([]float64{p.Slowdown}, p.CI...), p.Samples...) {
			if math.Abs(v) > 1e6 {
				return "factor files accept absurd magnitudes (slowdown or CI above 1e6) that overflow to Inf"
			}
		}
	}
	if c.Uncertainty > 1e6 || c.Reference.ReadLatency.D() < 10*time.Nanosecond {
		return "factor files accept absurd magnitudes that overflow to Inf"
	}
	return ""
}
