package diff

import (
	"bytes"
	"strings"
	"testing"

	mon "github.com/memplan/memplan/money"
	"github.com/memplan/memplan/reports"
)

func config(id, label string, cost int64, jobs ...reports.Job) *reports.Configuration {
	return &reports.Configuration{ID: id, Label: label, Rank: 1, Servers: 2, MeetsDeadlines: true,
		CostPerServer: mon.Units(cost), FleetCost: mon.Units(2 * cost), Jobs: jobs,
		DIMM: reports.Part{SKU: "D64", Model: "64GB RDIMM", UnitPrice: mon.Units(455)}}
}

func result(cur string, rec *reports.Configuration) reports.Output {
	o := reports.Output{Currency: cur, Workload: "farm", WorkloadFile: "farm.yaml", HorizonYears: 3, RankBy: "capital", Recommended: rec,
		Catalogs: []reports.Catalog{{Name: "quote", File: "q.yaml", Currency: cur, Date: "2026-03-01"}},
		Factors: []reports.FactorFile{{Name: "defaults", File: "embedded:defaults", Curves: []reports.Curve{{Class: "zram",
			Points: []reports.CurvePoint{{Fit: 0.5, Slowdown: 1.1}}}}}},
		Rates: []reports.Rate{{From: "EUR", To: cur, Rate: 1.08, Source: "catalog"}},
	}
	if rec != nil {
		o.Configurations = []reports.Configuration{*rec}
		o.ConfigurationsTotal = 1
	}
	return o
}

func TestDiffRecordedInputs(t *testing.T) {
	a := result("USD", config("c1", "1TiB, no swap", 20000, reports.Job{Name: "synth", Slowdown: 1, RuntimeHours: 5, DeadlineHours: 8, MeetsDeadline: true, TouchedGiB: 88}))
	b := result("USD", config("c1", "1TiB, no swap", 21000,
		reports.Job{Name: "synth", Slowdown: 1, RuntimeHours: 5, DeadlineHours: 8, MeetsDeadline: true, TouchedGiB: 88},
		reports.Job{Name: "sim", Slowdown: 1.3, RuntimeHours: 9, DeadlineHours: 8}))
	b.Catalogs[0].Date = "2026-06-01"
	b.Factors[0].Curves[0].Points[0].Slowdown = 1.2
	b.Rates[0].Rate = 1.1
	b.Recommended.DIMM.UnitPrice = mon.Units(500)
	b.MemplanVersion = "v2"
	var buf bytes.Buffer
	if err := Write(&buf, a, b, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		"Recommendation: unchanged, 1TiB, no swap.",
		"per server          20,000 USD  21,000 USD  +1,000 USD (+5%)",
		"sim    -               1.30, 9h of 8h MISS  only after",
		"job class sim: only after",
		"DIMM D64 (64GB RDIMM): 455 USD -> 500 USD (x1.099)",
		"catalog quote: dated 2026-03-01 -> 2026-06-01",
		"factor file embedded:defaults, curve zram: [0.5:1.1] -> [0.5:1.2]",
		"rate 1 EUR in USD: 1.08 -> 1.1 (catalog)",
		"memplan version: none -> v2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
}

func TestDiffCurrenciesAndNoRecommendation(t *testing.T) {
	a := result("USD", config("c1", "1TiB, no swap", 20000))
	b := result("EUR", config("c2", "512GiB + zram", 15000))
	var buf bytes.Buffer
	if err := Write(&buf, a, b, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		"different currencies (USD, EUR): amounts are shown, not subtracted",
		"per server          20,000 USD  15,000 EUR\n",
		"before's choice in after: not among the configurations it ranked",
		"currency: USD -> EUR",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	buf.Reset()
	if err := Write(&buf, a, result("USD", nil), "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"after:  none (no configuration meets the deadlines)", "Cost: not compared (a result has no recommendation)."} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("diff lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestDiffJobClassInputs: a job class's runtime in RAM, window and
// footprint are recorded in job_classes and their changes shown; so are
// concurrency, deadline and jobs a day.
func TestDiffJobClassInputs(t *testing.T) {
	job := reports.Job{Name: "synth", Slowdown: 1, RuntimeHours: 5, DeadlineHours: 8, MeetsDeadline: true, TouchedGiB: 88}
	a := result("USD", config("c1", "1TiB, no swap", 20000, job))
	b := result("USD", config("c1", "1TiB, no swap", 20000, job))
	a.JobClasses = []reports.JobClass{{Name: "synth", FootprintGiB: 22, Concurrency: 4, RuntimeInRAMHours: 5, DeadlineHours: 8, WindowHours: 24, JobsPerDay: 10}}
	b.JobClasses = []reports.JobClass{{Name: "synth", FootprintGiB: 11, Concurrency: 8, RuntimeInRAMHours: 6.5, DeadlineHours: 9, WindowHours: 10, JobsPerDay: 12}}
	var buf bytes.Buffer
	if err := Write(&buf, a, b, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	want := "job class synth: footprint 22 -> 11 GiB, concurrency 4 -> 8, runtime in RAM 5h -> 6h30m, deadline 8h -> 9h, daily window 24h -> 10h, jobs a day 10 -> 12"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("diff lacks %q:\n%s", want, buf.String())
	}
	// Memory touched is the same (4 x 22 = 8 x 11), so a result written
	// before job_classes were recorded, which falls back to what its
	// configurations show, finds no difference, and says why it cannot.
	a.JobClasses = nil
	buf.Reset()
	if err := Write(&buf, a, b, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); strings.Contains(got, "job class synth") || !strings.Contains(got, "no input the results record differs") || !strings.Contains(got, "recorded job_classes does not have them") {
		t.Errorf("old result against new: want no job class line and the note on what is recorded:\n%s", got)
	}
}
