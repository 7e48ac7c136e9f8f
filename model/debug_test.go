package model_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
)

// TestDebugWorkload prints the ranking of the workload named by $MEMPLAN_DEBUG_WORKLOAD;
// a tool for tuning examples, skipped otherwise.
func TestDebugWorkload(t *testing.T) {
	p := os.Getenv("MEMPLAN_DEBUG_WORKLOAD")
	if p == "" {
		t.Skip("set MEMPLAN_DEBUG_WORKLOAD=path/to/workload.yaml to print its ranking")
	}
	w, err := model.LoadWorkload(p)
	if err != nil {
		t.Fatal(err)
	}
	var cats []*prices.Catalog
	for _, n := range w.Catalogs {
		c, err := prices.Embedded(n)
		if err != nil {
			t.Fatal(err)
		}
		cats = append(cats, c)
	}
	set, err := prices.Merge(cats...)
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := model.MergeFactors(model.DefaultFactors())
	res, err := model.Recommend(model.Input{Workload: w, Prices: set, Factors: fs})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Configs {
		if i > 60 {
			break
		}
		s := ""
		for _, j := range c.Jobs {
			s += fmt.Sprintf(" | %s fit=%.3f S=%.3f [%.3f,%.3f] %s %s", j.Name, j.Fit, j.Estimate.Slowdown, j.Estimate.Low, j.Estimate.High, j.Runtime, j.Estimate.Provenance)
		}
		t.Logf("%2d %-62s meets=%v risk=%v srv=%d per=%v fleet=%v%s %v", c.Rank, c.Label, c.Meets, c.AtRisk, c.Servers, c.Cost.PerServer, c.Cost.Fleet, s, c.Notes)
	}
	t.Log(res.Verdict, res.Evaluated, res.Rejected, res.Advice)
}
