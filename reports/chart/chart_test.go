package chart

import (
	"bytes"
	"strings"
	"testing"

	mon "github.com/memplan/memplan/money"
	"github.com/memplan/memplan/reports"
)

func TestCostRuntimeMarks(t *testing.T) {
	c := func(id string, runtime float64, cost int64, meets bool) reports.Configuration {
		return reports.Configuration{ID: id, RuntimeHours: runtime, DeadlineHours: 8, FleetCost: mon.Units(cost), MeetsDeadlines: meets}
	}
	r := reports.Output{Currency: "USD", RecommendedID: "rec", BaselineID: "base", ConfigurationsTotal: 5,
		Configurations: []reports.Configuration{
			c("rec", 6, 100000, true),
			c("hidden", 6, 100000, true), // same cell as the recommendation: * wins
			c("base", 4, 200000, true),
			c("slow", 12, 90000, false),
		}}
	var b bytes.Buffer
	if err := CostRuntime(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	// Top row: the most expensive (B); bottom row: the cheapest (x).
	if !strings.HasPrefix(lines[1], "200,000 |") || !strings.Contains(lines[1], "B") {
		t.Errorf("top row %q, want the baseline at 200,000", lines[1])
	}
	if !strings.HasPrefix(lines[Height], " 90,000 |") || !strings.HasSuffix(lines[Height], "x") {
		t.Errorf("bottom row %q, want the miss at 90,000, rightmost", lines[Height])
	}
	plot := strings.Join(lines[1:Height+1], "\n")
	if strings.Count(plot, "*") != 1 || strings.Contains(plot, "o") {
		t.Errorf("the recommendation is not drawn over the configuration in its cell:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "4 of 5 configurations drawn") {
		t.Errorf("count:\n%s", b.String())
	}
	b.Reset()
	if err := CostRuntime(&b, reports.Output{}); err != nil || !strings.Contains(b.String(), "lists none") {
		t.Errorf("empty result: %q, %v", b.String(), err)
	}
}

func TestSlowdownFitMarks(t *testing.T) {
	r := reports.Output{RecommendedID: "rec", BaselineID: "base", ConfigurationsTotal: 3,
		Factors: []reports.FactorFile{{Curves: []reports.Curve{{Class: "zram", Points: []reports.CurvePoint{{Fit: 0.25, Slowdown: 2}}}}}},
		Configurations: []reports.Configuration{
			{ID: "rec", FitRatio: 0.5, Slowdown: 1.5, MeetsDeadlines: true},
			{ID: "base", FitRatio: 1, Slowdown: 1, MeetsDeadlines: true},
			{ID: "slow", FitRatio: 0.25, Slowdown: 2},
		}}
	var b bytes.Buffer
	if err := SlowdownFit(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	// The miss sits on the curve's point (2x at 0.25) and is drawn over it;
	// the baseline at fit 1, slowdown 1 is the bottom right corner.
	if !strings.HasPrefix(lines[1], "2.00x |") || strings.Index(lines[1], "x |")+3+14 != strings.LastIndex(lines[1], "x") {
		t.Errorf("top row %q, want the miss at fit 0.25", lines[1])
	}
	if !strings.HasPrefix(lines[Height], "1.00x |") || !strings.HasSuffix(lines[Height], "B") {
		t.Errorf("bottom row %q, want B in the corner", lines[Height])
	}
	var plot []string
	for _, l := range lines[1 : Height+1] {
		_, cells, _ := strings.Cut(l, " |")
		plot = append(plot, cells)
	}
	if p := strings.Join(plot, "\n"); strings.Count(p, "*") != 1 || strings.Contains(p, ".") {
		t.Errorf("marks:\n%s", b.String())
	}
}
