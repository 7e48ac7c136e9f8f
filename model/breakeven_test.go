package model_test

import (
	"errors"
	"testing"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
)

const (
	intelDIMM4G = "DDR3-1066-RDIMM-4G"
	intelDIMM8G = "DDR3-1066-RDIMM-8G"
	intelX25E   = "SSDSA2SH064G1"
	intelX25M   = "SSDSA2MH080G1"
	intelPrefix = "2S-X5570-1U/"
)

// TestBreakEvenIntelHandComputation checks the break-even prices on the
// Intel 2009 example against a hand computation with the catalog's RUB
// prices (p4 = 4,600 and p8 = 11,500 per DIMM, X25-E 27,000, X25-M 9,000,
// platform 150,000, one server; the platform cancels out).
//
// DRAM, every DIMM price times k:
//
//	48 GB + X25-E:  150,000 + 12 x 4,600 k + 27,000 = 177,000 + 55,200 k
//	96 GB:          150,000 + 12 x 11,500 k         = 150,000 + 138,000 k
//	equal at 27,000 = 82,800 k, k = 0.3261: an 8 GB DIMM at 3,750 RUB
//	(468.75 RUB/GB), a 4 GB DIMM at 1,500 RUB (375 RUB/GB). Below that
//	the 96 GB server wins. No other configuration meeting the deadline
//	carries less DRAM cost, so nothing takes over as DRAM gets dearer.
//
// X25-E price times k (96 GB carries none of it):
//
//	48 GB + X25-E:  205,200 + 27,000 k   vs  96 GB: 288,000
//	equal at k = 82,800 / 27,000 = 3.067 (an X25-E at 82,800 RUB).
//
// No other swap configuration meets the day without risk (striping four
// X25-Ms only shortens the queue: 1.33, 8h38m, a miss), so nothing takes
// over before all-DRAM does.
func TestBreakEvenIntelHandComputation(t *testing.T) {
	in := loadIntel(t)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	be, err := model.BreakEven(in, res)
	if err != nil {
		t.Fatal(err)
	}
	const (
		allDRAM = intelPrefix + "12x" + intelDIMM8G + "/noswap"
	)
	if be.Currency != "RUB" || be.Recommended != intelPrefix+"12x"+intelDIMM4G+"/1x"+intelX25E {
		t.Fatalf("break-even of %s in %s", be.Recommended, be.Currency)
	}

	kDRAM := 27000.0 / 82800
	for name, pt := range map[string]*model.BreakEvenPoint{"falls": &be.DRAM.Falls, "vs baseline": be.DRAM.VsBaseline} {
		if pt == nil || !pt.Exists || !near(pt.Factor, kDRAM, 1e-9) || pt.Direction != model.PriceFalls || pt.TakesOver != allDRAM {
			t.Fatalf("DRAM %s: %+v, want factor %.4f falling, taken over by %s", name, pt, kDRAM, allDRAM)
		}
		want := map[string][2]float64{intelDIMM4G: {1500, 375}, intelDIMM8G: {3750, 468.75}}
		if len(pt.Prices) != 2 {
			t.Fatalf("DRAM %s prices %+v", name, pt.Prices)
		}
		for _, p := range pt.Prices {
			if w := want[p.SKU]; p.Unit != money.FromFloat(w[0]) || !near(p.PerGB, w[1], 1e-6) {
				t.Errorf("DRAM %s: %s at %.2f RUB (%.2f RUB/GB), want %.2f (%.2f)", name, p.SKU, p.Unit.Float(), p.PerGB, w[0], w[1])
			}
		}
	}
	if be.DRAM.Falls.Method != "analytic" {
		t.Errorf("DRAM falls found by %q; costs are linear in DIMM prices", be.DRAM.Falls.Method)
	}
	if be.DRAM.Rises.Exists {
		t.Errorf("DRAM rises: %+v, want none", be.DRAM.Rises)
	}

	d := be.Drive
	if d == nil || len(d.Parts) != 1 || d.Parts[0].SKU != intelX25E || d.Parts[0].Unit != money.Units(27000) || !near(d.Parts[0].PerGB, 27000.0/64, 1e-9) {
		t.Fatalf("drive break-even %+v, want the X25-E at 27,000 RUB (421.875 RUB/GB)", d)
	}
	if b := d.VsBaseline; b == nil || !b.Exists || !near(b.Factor, 82800.0/27000, 1e-9) || b.Direction != model.PriceRises || b.Prices[0].Unit != money.Units(82800) {
		t.Errorf("X25-E vs 96 GB: %+v, want factor 3.067 (82,800 RUB)", b)
	}
	// The X25-E may triple before all-DRAM takes over (see above).
	if r := d.Rises; !r.Exists || !near(r.Factor, 82800.0/27000, 1e-9) || r.TakesOver != allDRAM || r.Prices[0].Unit != money.Units(82800) {
		t.Errorf("X25-E rises: %+v, want factor 3.067 (82,800 RUB), taken over by %s", r, allDRAM)
	}
	// The runner-up (6 x 8 GiB + X25-E) carries the same drive: its price
	// moves both.
	if r := d.VsRunnerUp; r == nil || r.Exists {
		t.Errorf("X25-E vs runner-up: %+v, want none", r)
	}
	if d.Falls.Exists {
		t.Errorf("X25-E falls: %+v, want none: a cheaper X25-E only helps", d.Falls)
	}
}

// TestBreakEvenAgreesWithRepricedCatalog re-prices the catalog itself just
// either side of each break-even point and runs Recommend as a user would.
func TestBreakEvenAgreesWithRepricedCatalog(t *testing.T) {
	in := loadIntel(t)
	res, _ := model.Recommend(in)
	be, err := model.BreakEven(in, res)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, pt model.BreakEvenPoint, reprice func(c *prices.Catalog, k float64)) {
		t.Helper()
		// Just short of the point the recommendation still wins; just
		// beyond it the other configuration does.
		short, beyond := 0.99, 1.01
		if pt.Direction == model.PriceFalls {
			short, beyond = beyond, short
		}
		for _, side := range []struct {
			k    float64
			want string
		}{{pt.Factor * short, res.Recommended.ID}, {pt.Factor * beyond, pt.TakesOver}} {
			cat, _ := prices.Embedded("intel-2009")
			reprice(cat, side.k)
			set, err := prices.Merge(cat)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := model.Recommend(model.Input{Workload: in.Workload, Prices: set, Factors: in.Factors, JobFactors: in.JobFactors})
			if err != nil {
				t.Fatal(err)
			}
			if r2.Recommended == nil || r2.Recommended.ID != side.want {
				t.Errorf("%s at %.4f x today's price: recommended %v, want %s", name, side.k, r2.Recommended, side.want)
			}
		}
	}
	check("DRAM", be.DRAM.Falls, func(c *prices.Catalog, k float64) {
		for i := range c.DIMMs {
			c.DIMMs[i].Price.Amount *= k
		}
	})
	check("X25-E", be.Drive.Rises, func(c *prices.Catalog, k float64) {
		for i := range c.Drives {
			if c.Drives[i].SKU == intelX25E {
				c.Drives[i].Price.Amount *= k
			}
		}
	})
}

// A drive that a cheaper, better one dominates is not evaluated at today's
// prices; once the better drive costs more than it, it is. The analytic
// lines cannot see that configuration, so BreakEven must bisect.
func TestBreakEvenBisectsWhenADriveStopsBeingDominated(t *testing.T) {
	const catalog = `
name: dominated
currency: USD
date: 2026-01-01
source: test
dimms:
  - {sku: D16, model: 16G, generation: DDR5, type: RDIMM, capacity: 16GiB, speed: 4800, price: 100 USD}
  - {sku: D32, model: 32G, generation: DDR5, type: RDIMM, capacity: 32GiB, speed: 4800, price: 400 USD}
drives:
  - {sku: FAST, model: Fast TLC, class: nvme-ssd, nand: TLC, capacity: 512GB, price: 50 USD,
     read_latency: 70us, write_latency: 20us, read_iops: 500000, write_iops: 100000, tbw: 2PB}
  - {sku: SLOW, model: Slow TLC, class: nvme-ssd, nand: TLC, capacity: 512GB, price: 60 USD,
     read_latency: 90us, write_latency: 20us, read_iops: 500000, write_iops: 100000, tbw: 2PB}
platforms:
  - sku: P
    model: test box
    price: 1000 USD
    memory: {generation: DDR5, types: [RDIMM], slots: 8, channels: 8}
    drive_bays: 1
    os_reserve: 0GiB
`
	in := input(t, `
name: j
demand: {servers: 1}
jobs:
  - {name: j, footprint: 160GiB, runtime: 1h, deadline: 2h}
`, catalog)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommended == nil || res.Recommended.ID != "P/8xD16/1xFAST" {
		t.Fatalf("recommended %v, want P/8xD16/1xFAST", res.Recommended)
	}
	for _, c := range res.Configs {
		if c.Swap.Drive != nil && c.Swap.Drive.SKU == "SLOW" {
			t.Fatalf("SLOW evaluated at today's prices: %s", c.ID)
		}
	}
	be, err := model.BreakEven(in, res)
	if err != nil {
		t.Fatal(err)
	}
	// FAST at 60 USD still dominates SLOW (same price, better); above it,
	// SLOW is evaluated, cheaper, and meets the 2h deadline.
	r := be.Drive.Rises
	// Trial prices are whole cents: FAST still wins at 60.00 USD and loses
	// from 60.01 (a factor of 1.2002), so the point is 1.2 to the cent.
	if !r.Exists || r.Method != "bisection" || r.TakesOver != "P/8xD16/1xSLOW" || !near(r.Factor, 1.2, 2e-4) {
		t.Errorf("FAST rises: %+v, want bisection to 1.2 (60 USD), taken over by P/8xD16/1xSLOW", r)
	}
	// Against the all-DRAM baseline alone: 1000 + 800 + 50 k = 1000 + 3200 at k = 48.
	if b := be.Drive.VsBaseline; b == nil || !near(b.Factor, 48, 1e-9) {
		t.Errorf("FAST vs all-DRAM: %+v, want 48", b)
	}
}

func TestBreakEvenNeedsARecommendation(t *testing.T) {
	in := loadRobust(t, "testdata/robust/tight.yaml")
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommended != nil {
		t.Fatalf("tight.yaml: recommended %s; the test needs nothing to meet the deadline", res.Recommended.ID)
	}
	if _, err := model.BreakEven(in, res); !errors.Is(err, model.ErrNoRecommendation) {
		t.Errorf("BreakEven without a recommendation: %v, want ErrNoRecommendation", err)
	}
}

// edaSweep is examples/eda.yaml with both job classes stating the sweep
// access pattern, the one the published anchors agree under: the 512 GiB +
// zswap + 1.92 TB TLC recommendation of docs/model.md's worked example.
func edaSweep(t testing.TB) model.Input {
	t.Helper()
	in := loadRobust(t, "../examples/eda.yaml")
	for i := range in.Workload.Jobs {
		in.Workload.Jobs[i].Access = "sweep"
	}
	return in
}

// loadRobust loads a workload with the embedded catalogs it names (the
// default catalog when it names none) and the default factors.
func loadRobust(t testing.TB, path string) model.Input {
	t.Helper()
	w, err := model.LoadWorkload(path)
	if err != nil {
		t.Fatal(err)
	}
	var cats []*prices.Catalog
	names := w.Catalogs
	if len(names) == 0 {
		names = []string{prices.DefaultCatalog} // as recommend does
	}
	for _, n := range names {
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
	fs, err := model.MergeFactors(model.DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	return model.Input{Workload: w, Prices: set, Factors: fs}
}

func BenchmarkBreakEvenIntel(b *testing.B) {
	in := loadIntel(b)
	res, err := model.Recommend(in)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := model.BreakEven(in, res); err != nil {
			b.Fatal(err)
		}
	}
}
