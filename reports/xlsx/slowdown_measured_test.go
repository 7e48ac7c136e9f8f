package xlsx

import (
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/reports"
)

// probeFile is a factor file memplan probe wrote on a 2-core VM:
//
//	memplan probe --quick --scenario curves,swapdemo,pagecache,copy --backends zram,file \
//	  --pagecache-remedies none,writer-cgroup --copy-runs 4 --swap-dir /var/tmp --out probe.json
//
// with the points' raw runs, their touch latencies and the device profile
// taken out for size (the workbook reads none of them).
const probeFile = "testdata/probe-quick-vm.json"

// probeOutput is the Intel study recommended with the probe's factor file,
// as `memplan recommend --workload examples/intel-eda-2009.yaml --factors
// probe.json` runs it.
func probeOutput(t testing.TB) reports.Output {
	t.Helper()
	w, err := model.LoadWorkload("../../examples/intel-eda-2009.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := prices.Embedded("intel-2009")
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(cat)
	if err != nil {
		t.Fatal(err)
	}
	probe, err := model.LoadFactors(probeFile)
	if err != nil {
		t.Fatal(err)
	}
	files := []*factors.File{model.DefaultFactors(), probe}
	fs, err := model.MergeFactors(files...)
	if err != nil {
		t.Fatal(err)
	}
	jf, err := model.LoadJobProfiles(w, files)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Recommend(model.Input{Workload: w, Prices: set, Factors: fs, JobFactors: jf})
	if err != nil {
		t.Fatal(err)
	}
	return reports.NewOutput(res, reports.Options{Version: "test"})
}

// recorded is the part of the probe's JSON the test compares the sheet with,
// read straight from the file, not through the code under test.
type recorded struct {
	Extra struct {
		Points []struct {
			Stage, Class string
			Fit          float64
			Latency      *struct {
				Count                       int64
				P50, P90, P99, P999, MeanUs float64
				Histogram                   []struct {
					Le    float64 `json:"le_us"`
					Count int64
				}
			} `json:"fault_latency"`
		}
		Swapdemo struct {
			Runs []struct {
				Setting   string
				Published string
				SecPer    float64 `json:"s_per_iteration"`
			}
		} `json:"swapdemo_scenario"`
		PageCache []struct {
			Remedy    string
			FileBytes string `json:"file_bytes"`
			Loss      float64
			Published string
		} `json:"pagecache_scenario"`
		Copy struct {
			Workloads []struct {
				Name      string
				MBps      float64 `json:"mb_per_s"`
				Published string
			}
		} `json:"copy_scenario"`
	}
}

func readRecorded(t *testing.T) recorded {
	t.Helper()
	b, err := os.ReadFile(probeFile)
	if err != nil {
		t.Fatal(err)
	}
	// The quantiles' JSON names have dots and digits; map them by hand.
	s := strings.NewReplacer(`"p50_us"`, `"P50"`, `"p90_us"`, `"P90"`, `"p99_us"`, `"P99"`, `"p99_9_us"`, `"P999"`, `"mean_us"`, `"MeanUs"`,
		`"throughput_loss"`, `"Loss"`).Replace(string(b))
	var r recorded
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// findRow is the first row at or after from whose column A reads label.
func findRow(rows [][]string, from int, label string) int {
	for r := from; r < len(rows); r++ {
		if len(rows[r]) > 0 && rows[r][0] == label {
			return r
		}
	}
	return -1
}

func cellNear(got string, want, tol float64) bool {
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSuffix(got, "%"), ",", ""), 64)
	if err != nil {
		return false
	}
	if strings.HasSuffix(got, "%") {
		v /= 100
	}
	return math.Abs(v-want) <= tol*math.Max(1, math.Abs(want))
}

// TestSlowdownSheetShowsProbeMeasurements: with a probe's factor file, the
// Slowdown sheet holds its per-fault latency (quantiles, a histogram and a
// chart per backend) and the three source experiments, each row with the
// published result the probe recorded beside it; the live cells compute
// what the probe computed.
func TestSlowdownSheetShowsProbeMeasurements(t *testing.T) {
	rec := readRecorded(t)
	out := probeOutput(t)
	f, path := writeAndOpen(t, out)
	rows, err := f.GetRows(sheetSlowdown)
	if err != nil {
		t.Fatal(err)
	}
	text := func(r, c int) string {
		if r < 0 || r >= len(rows) || c-1 >= len(rows[r]) {
			return ""
		}
		return rows[r][c-1]
	}

	// Quantiles: one row per point, in the order of the sheet (backend,
	// then fit from the highest).
	q := findRow(rows, 0, "Curve")
	if q < 0 {
		t.Fatal("no per-fault latency table (header \"Curve\") on the Slowdown sheet")
	}
	n := 0
	for _, pt := range rec.Extra.Points {
		l := pt.Latency
		if l == nil {
			continue
		}
		n++
		label := pt.Stage // zram-lz4
		if pt.Stage == "file" {
			label = pt.Class + " (file)"
		}
		r := -1
		for i := q + 1; i < len(rows) && text(i, 1) != ""; i++ {
			if text(i, 1) == label && cellNear(text(i, mFirst), pt.Fit, 1e-9) {
				r = i
			}
		}
		if r < 0 {
			t.Errorf("no quantile row for %s at fit %g", label, pt.Fit)
			continue
		}
		for k, want := range []float64{l.MeanUs, l.P50, l.P90, l.P99, l.P999} {
			if got := text(r, mFirst+2+k); !cellNear(got, want, 0.005) {
				t.Errorf("%s fit %g: column %s reads %q, want %.2f", label, pt.Fit, colName(mFirst+2+k), got, want)
			}
		}
		// Faults timed is a live sum over the histogram below.
		ref := cell(mFirst+1, r+1)
		fm, err := f.GetCellFormula(sheetSlowdown, ref)
		if err != nil || !strings.HasPrefix(fm, "SUM(") {
			t.Errorf("%s fit %g: faults timed %s is %q, want a SUM over the histogram", label, pt.Fit, ref, fm)
		}
		if got := calc(t, f, sheetSlowdown, ref); !cellNear(got, float64(l.Count), 0) {
			t.Errorf("%s fit %g: faults timed computes %s, want %d", label, pt.Fit, got, l.Count)
		}
	}
	if n < 2 {
		t.Fatalf("test premise: the recording has %d points with a fault latency", n)
	}

	// One line chart per backend on the Slowdown sheet, its series the
	// histogram's columns, the y axis logarithmic.
	charts := slowdownCharts(t, path)
	stages := map[string]bool{}
	for _, pt := range rec.Extra.Points {
		if pt.Latency != nil {
			stages[pt.Stage] = true
		}
	}
	if len(charts) != len(stages) {
		t.Fatalf("%d charts on the Slowdown sheet, want one per backend (%d)", len(charts), len(stages))
	}
	for _, c := range charts {
		if !strings.Contains(c, "Per-fault latency") || !strings.Contains(c, "lineChart") || !strings.Contains(c, `logBase val="10"`) {
			t.Errorf("a Slowdown chart is not a per-fault latency line chart on a log scale:\n%.400s", c)
		}
		if !regexp.MustCompile(`<(?:c:)?val><(?:c:)?numRef><(?:c:)?f>Slowdown!\$[B-H]\$\d+:\$[B-H]\$\d+</(?:c:)?f>`).MatchString(c) {
			t.Errorf("a Slowdown chart's series do not read the histogram's columns:\n%.600s", c)
		}
	}

	// The experiments, each row with what the source published.
	sd := findRow(rows, q, "Setting")
	if sd < 0 {
		t.Fatal("no swapdemo table (header \"Setting\")")
	}
	var ref60 float64
	for _, s := range rec.Extra.Swapdemo.Runs {
		if s.Setting == "swappiness 60" {
			ref60 = s.SecPer
		}
	}
	for _, s := range rec.Extra.Swapdemo.Runs {
		r := findRow(rows, sd, s.Setting)
		if r < 0 {
			t.Errorf("swapdemo: no row %q", s.Setting)
			continue
		}
		if got := text(r, mText); !strings.HasPrefix(got, "published: "+s.Published) {
			t.Errorf("swapdemo %s: published column reads %q, want the probe's %q", s.Setting, got, s.Published)
		}
		if s.SecPer > 0 {
			if got := calc(t, f, sheetSlowdown, cell(mFirst+2, r+1)); !cellNear(got, s.SecPer/ref60, 1e-3) {
				t.Errorf("swapdemo %s: vs swappiness 60 computes %s, want %.3f", s.Setting, got, s.SecPer/ref60)
			}
		}
	}
	pc := findRow(rows, sd, "Remedy")
	if pc < 0 {
		t.Fatal("no page-cache table (header \"Remedy\")")
	}
	for i, c := range rec.Extra.PageCache {
		r := pc + 1 + i
		if text(r, mLabel) != c.Remedy || text(r, mText) != c.Published {
			t.Errorf("page cache row %d: %q / %q, want %q / %q", i, text(r, mLabel), text(r, mText), c.Remedy, c.Published)
		}
		if got := calc(t, f, sheetSlowdown, cell(mFirst+3, r+1)); !cellNear(got, c.Loss, 1e-3) {
			t.Errorf("page cache %s %s: loss computes %s, want %.4f", c.Remedy, c.FileBytes, got, c.Loss)
		}
	}
	cp := findRow(rows, pc, "Workload")
	if cp < 0 {
		t.Fatal("no copy table (header \"Workload\")")
	}
	for i, x := range rec.Extra.Copy.Workloads {
		r := cp + 1 + i
		if text(r, mLabel) != x.Name || text(r, mText) != x.Published {
			t.Errorf("copy row %d: %q / %q, want %q / %q", i, text(r, mLabel), text(r, mText), x.Name, x.Published)
		}
		if got := calc(t, f, sheetSlowdown, cell(mFirst+5, r+1)); !cellNear(got, x.MBps, 0.01) {
			t.Errorf("copy %s: MB/s computes %s, want %.1f", x.Name, got, x.MBps)
		}
	}
}

// TestSlowdownSheetWithoutProbe: a workbook from published factors only
// has no measurement tables and no chart on its Slowdown sheet.
func TestSlowdownSheetWithoutProbe(t *testing.T) {
	f, path := writeAndOpen(t, intelOutput(t, 0, nil))
	rows, err := f.GetRows(sheetSlowdown)
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"Curve", "Setting", "Remedy", "Workload"} {
		if r := findRow(rows, 1, label); r >= 0 {
			t.Errorf("row %d reads %q without a probe's factor file", r+1, label)
		}
	}
	if c := slowdownCharts(t, path); len(c) != 0 {
		t.Errorf("%d charts on the Slowdown sheet without a probe's factor file", len(c))
	}
}

// slowdownCharts returns the chart parts drawn on the Slowdown sheet.
func slowdownCharts(t *testing.T, path string) []string {
	t.Helper()
	parts := zipParts(t, path)
	// workbook.xml names the sheet, its rels the sheet part, the sheet's
	// rels its drawing, the drawing's rels the charts.
	sheetPart := ""
	for _, m := range reSheet.FindAllStringSubmatch(parts["xl/workbook.xml"], -1) {
		if m[1] == sheetSlowdown {
			for _, r := range relTargets(parts["xl/_rels/workbook.xml.rels"]) {
				if r[0] == m[2] {
					sheetPart = "xl/" + strings.TrimPrefix(r[1], "/xl/")
				}
			}
		}
	}
	if sheetPart == "" {
		t.Fatal("no Slowdown sheet part")
	}
	var charts []string
	dir, base := sheetPart[:strings.LastIndex(sheetPart, "/")], sheetPart[strings.LastIndex(sheetPart, "/")+1:]
	for _, d := range relTargets(parts[dir+"/_rels/"+base+".rels"]) {
		if !strings.Contains(d[1], "drawing") {
			continue
		}
		dpart := "xl/drawings/" + d[1][strings.LastIndex(d[1], "/")+1:]
		for _, c := range relTargets(parts["xl/drawings/_rels/"+dpart[len("xl/drawings/"):]+".rels"]) {
			if strings.Contains(c[1], "chart") {
				charts = append(charts, parts["xl/charts/"+c[1][strings.LastIndex(c[1], "/")+1:]])
			}
		}
	}
	return charts
}

// TestHistogramWithManyFits: a backend measured at more fit ratios than
// columns B to I hold goes on past the narrow gap column J.
func TestHistogramWithManyFits(t *testing.T) {
	out := probeOutput(t)
	var m *reports.Measurements
	for i := range out.Factors {
		if out.Factors[i].Measurements != nil {
			m = out.Factors[i].Measurements
		}
	}
	if m == nil {
		t.Fatal("test premise: the probe's file has measurements")
	}
	base := m.FaultLatency[0]
	m.FaultLatency = nil
	for k := 0; k < 9; k++ {
		fl := base
		fl.Fit = 0.95 - 0.1*float64(k)
		m.FaultLatency = append(m.FaultLatency, fl)
	}
	f, _ := writeAndOpen(t, out)
	rows, err := f.GetRows(sheetSlowdown)
	if err != nil {
		t.Fatal(err)
	}
	h := findRow(rows, 0, "Up to (us)")
	if h < 0 {
		t.Fatal("no histogram")
	}
	got := rows[h]
	if len(got) != fName || got[pGap-1] != "" || got[pBasis-1] != "fit 25%" || got[fName-1] != "fit 15%" {
		t.Errorf("histogram header %q: want fit 95%% in B to fit 25%% in I, J empty, fit 15%% in K", got)
	}
	for i := q0(rows); i < q0(rows)+9; i++ {
		if v := calc(t, f, sheetSlowdown, cell(mFirst+1, i+1)); !cellNear(v, float64(base.Count), 0) {
			t.Errorf("row %d: faults timed %s, want %d", i+1, v, base.Count)
		}
	}
}

// q0 is the first quantile row.
func q0(rows [][]string) int { return findRow(rows, 0, "Curve") + 1 }

// TestMeasurementsPrinted: printed, each backend's histogram starts a page
// and its chart is whole on it (title and x axis), and the experiments
// start a page of their own.
func TestMeasurementsPrinted(t *testing.T) {
	_, path := writeAndOpen(t, probeOutput(t))
	p := printWorkbook(t, path)
	charts, experiments := 0, 0
	for _, pg := range p.sheetPages(sheetSlowdown) {
		text := pg.text()
		if strings.Contains(text, "Per-fault latency:") {
			charts++
			if !strings.HasPrefix(text, "Up to (us)") || !strings.Contains(text, "Latency, up to (us)") || !strings.Contains(text, "Timed faults") {
				t.Errorf("page %d: a per-fault latency chart not whole on the page its histogram starts: %.300s", pg.n, text)
			}
		}
		if strings.HasPrefix(text, "Swapdemo experiment") {
			experiments++
		}
	}
	if charts != 2 || experiments != 1 {
		t.Errorf("%d pages with a per-fault latency chart (want 2, one per backend), %d starting with the experiments (want 1)", charts, experiments)
	}
}
