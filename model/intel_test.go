package model_test

import (
	"testing"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
)

func loadIntel(t testing.TB) model.Input {
	t.Helper()
	w, err := model.LoadWorkload("../examples/intel-eda-2009.yaml")
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
	fs, err := model.MergeFactors(model.DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	return model.Input{Workload: w, Prices: set, Factors: fs}
}

func TestIntelDebug(t *testing.T) {
	res, err := model.Recommend(loadIntel(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Configs {
		t.Logf("%2d %-60s meets=%v slow=%.3f [%.3f,%.3f] %s cost=%.0f fleet=%.0f %v", c.Rank, c.Label, c.Meets, c.Jobs[0].Estimate.Slowdown, c.Jobs[0].Estimate.Low, c.Jobs[0].Estimate.High, c.Jobs[0].Runtime, c.Cost.PerServer, c.Cost.Fleet, c.Notes)
	}
	t.Log(res.Verdict)
	t.Log(res.Rejected)
}
