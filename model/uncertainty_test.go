package model_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/memplan/memplan/model"
)

func shareSum(u *model.UncertaintyResult) float64 {
	s := 0.0
	for _, w := range u.Winners {
		s += w.Share
	}
	return s
}

func TestUncertaintyIsReproducibleWithASeed(t *testing.T) {
	in := loadIntel(t)
	// A wide price spread lets DIMM prices reorder, so runs differ.
	opts := model.UncertaintyOptions{Seed: 42, PriceSpread: 0.3}
	a, err := model.Uncertainty(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := model.Uncertainty(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different results:\n%+v\n%+v", a, b)
	}
	opts.Seed = 43
	c, err := model.Uncertainty(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []*model.UncertaintyResult{a, c} {
		if u.Runs != model.DefaultRuns || u.Met != u.Runs || u.NoneMeets != 0 {
			t.Errorf("seed %d: %d runs, %d met, none meets %.3f; the 96 GB server always meets the deadline", u.Seed, u.Runs, u.Met, u.NoneMeets)
		}
		if s := shareSum(u); math.Abs(s-1) > 1e-12 {
			t.Errorf("seed %d: shares sum to %.15f", u.Seed, s)
		}
		if len(u.Winners) < 2 {
			t.Errorf("seed %d: winners %+v; a 30%% spread should let another configuration win sometimes", u.Seed, u.Winners)
		}
		// The study's answer holds in most runs.
		if u.Winners[0].ID != u.Recommended || u.RecommendedShare < 0.6 {
			t.Errorf("seed %d: most frequent %s (%.2f), recommended %s (%.2f)", u.Seed, u.Winners[0].ID, u.Winners[0].Share, u.Recommended, u.RecommendedShare)
		}
		if u.RecommendedMeets != 1 {
			t.Errorf("seed %d: the X25-E configuration met the deadline in %.3f of runs; its band tops out at ~7h30m of 8h", u.Seed, u.RecommendedMeets)
		}
	}
	if a.RecommendedShare == c.RecommendedShare {
		t.Errorf("seeds 42 and 43 give the same share %.3f; the draws should differ", a.RecommendedShare)
	}
	if math.Abs(a.RecommendedShare-c.RecommendedShare) > 0.06 {
		t.Errorf("shares %.3f and %.3f differ by more than sampling noise over 1000 runs", a.RecommendedShare, c.RecommendedShare)
	}
}

// With nothing drawn, every run is Recommend itself: one winner and the
// catalog saving of 55,800 RUB in every run.
func TestUncertaintyWithoutDrawsIsTheRecommendation(t *testing.T) {
	in := loadIntel(t)
	u, err := model.Uncertainty(in, model.UncertaintyOptions{Runs: 50, FixedPrices: true, FixedSlowdowns: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Winners) != 1 || u.Winners[0].ID != u.Recommended || u.Winners[0].Share != 1 || u.Winners[0].Runs != 50 {
		t.Fatalf("winners %+v, want the recommendation in all 50 runs", u.Winners)
	}
	s := u.Savings
	if s == nil || s.N != 50 || s.Mean != 55800 || s.P5 != 55800 || s.P95 != 55800 {
		t.Errorf("savings %+v, want 55,800 RUB in every run", s)
	}
	if u.PriceSpread != 0 {
		t.Errorf("price spread %.2f reported with fixed prices", u.PriceSpread)
	}
}

func TestUncertaintySavingsSpread(t *testing.T) {
	in := loadIntel(t)
	u, err := model.Uncertainty(in, model.UncertaintyOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	s, p := u.Savings, u.SavingsPercent
	if s == nil || p == nil || s.N != u.Met {
		t.Fatalf("savings %+v / %+v over %d runs", s, p, u.Met)
	}
	if !(s.Min <= s.P5 && s.P5 < s.P50 && s.P50 < s.P95 && s.P95 <= s.Max) {
		t.Errorf("quantiles out of order: %+v", s)
	}
	// +/-10% triangular prices: the saving stays near 55,800 RUB, and its
	// 5-95% range is some thousands wide (the X25-E alone moves +/-2,700).
	if math.Abs(s.Mean-55800) > 2000 || s.P95-s.P5 < 5000 || s.P95-s.P5 > 40000 {
		t.Errorf("savings mean %.0f, p5-p95 %.0f-%.0f RUB; want about 55,800 and a spread of thousands", s.Mean, s.P5, s.P95)
	}
	if !(p.P5 > 0 && p.P95 < 100) {
		t.Errorf("savings percent %+v", p)
	}
}

// Where nothing meets the deadline on the central estimates, the draws show
// how often something would.
func TestUncertaintyCountsRunsWhereNothingMeets(t *testing.T) {
	in := loadRobust(t, "testdata/robust/tight.yaml")
	u, err := model.Uncertainty(in, model.UncertaintyOptions{Seed: 1, FixedPrices: true})
	if err != nil {
		t.Fatal(err)
	}
	if u.Recommended != "" {
		t.Fatalf("recommended %s; tight.yaml should have none", u.Recommended)
	}
	if !(u.NoneMeets > 0.5 && u.NoneMeets < 1) || u.Met == 0 {
		t.Fatalf("none meets in %.3f of runs (%d met); want most but not all", u.NoneMeets, u.Met)
	}
	if got := float64(u.Runs-u.Met) / float64(u.Runs); got != u.NoneMeets {
		t.Errorf("none meets %.3f, runs %d met %d", u.NoneMeets, u.Runs, u.Met)
	}
	if s := shareSum(u); math.Abs(s-1) > 1e-12 {
		t.Errorf("shares over the runs that met sum to %.15f", s)
	}
	if u.Savings != nil {
		t.Errorf("savings %+v without any all-DRAM configuration", u.Savings)
	}
}

func TestUncertaintyOptionsAreChecked(t *testing.T) {
	in := loadIntel(t)
	for _, o := range []model.UncertaintyOptions{{Runs: -1}, {PriceSpread: 1.5}, {PriceSpread: -0.1}} {
		if _, err := model.Uncertainty(in, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

func TestUncertaintyIntelIsFast(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	in := loadIntel(t)
	start := time.Now()
	if _, err := model.Uncertainty(in, model.UncertaintyOptions{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second { // ~0.4 s of CPU; generous for loaded CI machines
		t.Errorf("1000 runs on the Intel example took %s", d)
	}
}

func BenchmarkUncertaintyIntel1000(b *testing.B) {
	in := loadIntel(b)
	for b.Loop() {
		if _, err := model.Uncertainty(in, model.UncertaintyOptions{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
