package xlsx

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/reports"
)

// A one-run profile that took a one-pass prior: the Slowdown sheet says
// per point whether the run measured it or the sampler filled it, and the
// Summary names the fits that are the sampler's.
func TestWorkbookSaysWhichPointsAreTheSamplers(t *testing.T) {
	out := intelOutput(t, 0, nil)
	out.Factors = append(out.Factors, reports.FactorFile{Name: "memplan-profile sim on box", Date: "2026-12-04", Source: "memplan profile --one-run", Host: "box",
		File: "sim.profile.json", Curves: []reports.Curve{{Class: "zram-lz4", Provenance: "measured", Method: "one-run", Points: []reports.CurvePoint{
			{Fit: 0.9, Slowdown: 1.02, CILow: 1, CIHigh: 1.06, Samples: 3, Source: "one-run"},
			{Fit: 0.6, Slowdown: 1.3, CILow: 1.1, CIHigh: 1.9, Source: "sampler"},
		}}}})
	f, err := Build(out)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.GetRows(sheetSlowdown)
	if err != nil {
		t.Fatal(err)
	}
	head := findRow(rows, 0, "Factor curve")
	if head < 0 {
		t.Fatal("no Factor curve table on the Slowdown sheet")
	}
	var got []string
	for _, r := range rows[head+1:] {
		if len(r) < pProvenance || r[pClass-1] == "" {
			break
		}
		if r[pClass-1] == "zram-lz4" {
			got = append(got, r[pFit-1]+" "+r[pProvenance-1])
		}
	}
	if len(got) != 2 || !strings.HasSuffix(got[0], " measured (one run)") || !strings.HasSuffix(got[1], " inferred (one-pass sampler, --prior)") {
		t.Errorf("zram-lz4 points (fit, provenance): %q, want fit 0.9 measured (one run), fit 0.6 the sampler's", got)
	}
	summary, err := f.GetRows(sheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range summary {
		if len(r) >= 2 && r[0] == "Slowdown factors memplan-profile sim on box" {
			found = strings.Contains(r[1], "measured on box in one run under a stepped memory limit (memplan profile --one-run), but for zram-lz4 at fit 0.6: not reached by the run, the one-pass sampler's inferred figures (--prior), not measured")
			if !found {
				t.Errorf("Summary says %q", r[1])
			}
		}
	}
	if !found {
		t.Error("no Summary row for the one-run profile that names the sampler's fits")
	}
}
