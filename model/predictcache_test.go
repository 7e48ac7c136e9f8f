package model

import (
	"reflect"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/prices"
)

// edaInput is examples/eda.yaml on the embedded catalog and factors, with
// a factor set of its own (its caches start empty).
func edaInput(t *testing.T) Input {
	t.Helper()
	w, err := LoadWorkload("../examples/eda.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := prices.Embedded(prices.DefaultCatalog)
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(cat)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := MergeFactors(DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	return Input{Workload: w, Prices: set, Factors: fs}
}

// TestRepeatedSearchReusesThePredictions: a search with hooks (as the
// uncertainty and break-even analyses run it) keeps its predictions in
// the factor set, a second such search answers from them, and both give
// what the plain search gives, configuration for configuration.
func TestRepeatedSearchReusesThePredictions(t *testing.T) {
	in := edaInput(t)
	fs := in.Factors
	plain, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(fs.preps.ests); n != 0 {
		t.Fatalf("a single search kept %d predictions in the factor set", n)
	}
	first, err := recommend(in, &hooks{})
	if err != nil {
		t.Fatal(err)
	}
	kept := len(fs.preps.ests)
	if kept == 0 {
		t.Fatal("a search with hooks kept no predictions")
	}
	// Poison every kept prediction: the next search must read them.
	saved := map[estKey]Estimate{}
	for k, e := range fs.preps.ests {
		saved[k] = e
		e.Basis = &Basis{Kind: BasisCurve, Provenance: factors.Published, Source: "from the cache"}
		fs.preps.ests[k] = e
	}
	second, err := recommend(in, &hooks{})
	if err != nil {
		t.Fatal(err)
	}
	read := false
	for _, c := range second.Configs {
		for _, j := range c.Jobs {
			read = read || j.Estimate.Basis.Source == "from the cache"
		}
	}
	if !read {
		t.Error("the second search computed its predictions again")
	}
	if len(fs.preps.ests) != kept {
		t.Errorf("the second search added %d predictions", len(fs.preps.ests)-kept)
	}
	for k, e := range saved {
		fs.preps.ests[k] = e
	}
	third, err := recommend(in, &hooks{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Result{first, third} {
		if len(r.Configs) != len(plain.Configs) {
			t.Fatalf("%d configurations, the plain search %d", len(r.Configs), len(plain.Configs))
		}
		for i := range r.Configs {
			if !reflect.DeepEqual(r.Configs[i], plain.Configs[i]) {
				t.Fatalf("configuration %d differs from the plain search's: %s against %s", i+1, r.Configs[i].Label, plain.Configs[i].Label)
			}
		}
	}
}

// TestLeanSearchFindsTheRankingsFirst: the lean search Uncertainty runs
// picks the same recommendation and baseline as the full ranking, under
// drawn prices and slowdowns as well as today's; it evaluates the same
// configurations without its branch and bound, and fewer with it.
func TestLeanSearchFindsTheRankingsFirst(t *testing.T) {
	in := edaInput(t)
	plain, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	draws := drawRuns(in, UncertaintyOptions{Runs: 40, Seed: 3, PriceSpread: 0.3})
	differ := 0
	for i, d := range draws {
		full, err := recommend(in, d.hooks())
		if err != nil {
			t.Fatal(err)
		}
		h := d.hooks()
		h.lean = true
		lean, err := recommend(in, h)
		if err != nil {
			t.Fatal(err)
		}
		leanPruning = false
		whole, err := recommend(in, h)
		leanPruning = true
		if err != nil {
			t.Fatal(err)
		}
		id := func(c *Config) string {
			if c == nil {
				return "none"
			}
			return c.ID + " " + c.Label
		}
		if id(lean.Recommended) != id(full.Recommended) || id(lean.Baseline) != id(full.Baseline) {
			t.Errorf("draw %d: lean %s / %s, full ranking %s / %s", i, id(lean.Recommended), id(lean.Baseline), id(full.Recommended), id(full.Baseline))
		}
		if id(whole.Recommended) != id(full.Recommended) || id(whole.Baseline) != id(full.Baseline) {
			t.Errorf("draw %d: lean without pruning %s / %s, full ranking %s / %s", i, id(whole.Recommended), id(whole.Baseline), id(full.Recommended), id(full.Baseline))
		}
		if len(whole.evaluated) != len(full.Configs) || len(lean.evaluated) >= len(full.Configs) || len(lean.Configs) != 0 {
			t.Errorf("draw %d: lean evaluated %d (Configs %d), without pruning %d, full %d", i, len(lean.evaluated), len(lean.Configs), len(whole.evaluated), len(full.Configs))
		}
		if id(full.Recommended) != id(plain.Recommended) {
			differ++
		}
	}
	// The draws must move the answer for the comparison to mean much.
	if differ == 0 {
		t.Errorf("all 40 draws recommend the same configuration: the test compares nothing that moves")
	}
}
