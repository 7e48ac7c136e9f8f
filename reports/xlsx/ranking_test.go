package xlsx

import (
	"testing"
	"time"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/units"
)

// edaOutput runs the model on examples/eda.yaml against the current
// embedded catalog, after edit.
func edaOutput(t testing.TB, edit func(*model.Workload)) (reports.Output, *model.Result) {
	t.Helper()
	w, err := model.LoadWorkload("../../examples/eda.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edit(w)
	cat, err := prices.Embedded("current")
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
	jf, err := model.LoadJobProfiles(w, []*model.FactorFile{model.DefaultFactors()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Recommend(model.Input{Workload: w, Prices: set, Factors: fs, JobFactors: jf})
	if err != nil {
		t.Fatal(err)
	}
	return reports.NewOutput(res, reports.Options{Version: "test"}), res
}

// multiClass tightens both job classes' deadlines and fixes the fleet
// small enough for some configurations to miss on capacity: misses of
// each class, of capacity, and many nearly equal (more drives shave
// fractions of a second off a runtime).
func multiClass(w *model.Workload) {
	h := func(x float64) units.Duration { return units.Duration(x * float64(time.Hour)) }
	w.Demand.Servers = 22
	w.Jobs[0].Deadline = h(5.4)
	w.Jobs[1].Deadline = h(9.558)
	w.Jobs[0].Window = h(15.9)
}

// TestMultiClassRankingMatchesModel: with several job classes and misses
// of each kind, the workbook ranks every configuration as the model does,
// at the result's prices and after a price edit.
func TestMultiClassRankingMatchesModel(t *testing.T) {
	out, res := edaOutput(t, multiClass)
	kinds := map[string]int{}
	for i, c := range out.Configurations {
		switch {
		case c.MeetsDeadlines:
			kinds["meets"]++
		case c.RuntimeHours <= c.DeadlineHours:
			kinds["capacity miss"]++
		default:
			kinds["deadline miss of "+c.CriticalJob]++
		}
		// The key the workbook rebuilds from the result is the model's.
		if got, want := c.RankKey(), res.Configs[i].RankKey(); got != want {
			t.Errorf("%s: key %+v from the result, %+v in the model", c.ID, got, want)
		}
	}
	t.Logf("%d configurations: %v", len(out.Configurations), kinds)
	for _, k := range []string{"meets", "capacity miss", "deadline miss of regression", "deadline miss of signoff-timing"} {
		if kinds[k] == 0 {
			t.Fatalf("test premise: some configurations of each kind, got %v", kinds)
		}
	}
	f, _ := writeAndOpen(t, out)
	checkAgainstModel(t, f, out)
}
