package model

import (
	"reflect"
	"testing"

	"github.com/memplan/memplan/money"
)

// TestEachConfigurationAsIfAlone: every configuration the search keeps,
// evaluated again on its own by a fresh evaluator over a fresh factor set
// (no prediction, zswap figure or run excess kept from another), has the
// same job results, fleet, costs and wear. A figure reused on a key that
// misses something it depends on would give one configuration another's.
func TestEachConfigurationAsIfAlone(t *testing.T) {
	in := edaInput(t)
	res, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := in.workload()
	if err != nil {
		t.Fatal(err)
	}
	_, elecRat, err := powerPricing(w, in.Prices, res.Currency)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for i := range res.Configs {
		c := &res.Configs[i]
		fresh := edaInput(t)
		x := &evaluator{in: fresh, w: w, res: &Result{}, elec: money.NewPerUnit(elecRat), rejected: map[Reject]int{}, notes: map[Reject]rejectNote{}}
		base := Config{Platform: c.Platform, Cores: c.Cores, DIMM: c.DIMM, DIMMCount: c.DIMMCount, MemorySpeed: c.MemorySpeed,
			DIMMsPerChannel: c.DIMMsPerChannel, Installed: c.Installed, Usable: c.Usable}
		var d *pricedDrive
		if c.Swap.Drive != nil {
			for _, dr := range fresh.Prices.Drives {
				if dr.SKU == c.Swap.Drive.SKU && dr.Catalog == c.Swap.Drive.Catalog {
					d = &pricedDrive{Drive: dr, price: c.Swap.Drive.Price, class: dr.FactorClass()}
				}
			}
			if d == nil {
				t.Fatalf("%s: drive %s not in the catalog", c.Label, c.Swap.Drive.SKU)
			}
		}
		x.addDrive(base, c.Swap, d)
		if len(x.configs) != 1 {
			t.Fatalf("%s: evaluated alone it is refused (%v)", c.Label, x.rejected)
		}
		a := x.configs[0]
		if !reflect.DeepEqual(a.Jobs, c.Jobs) {
			for j := range c.Jobs {
				if !reflect.DeepEqual(a.Jobs[j], c.Jobs[j]) {
					t.Fatalf("%s, job %s: alone %+v\nin the search %+v", c.Label, c.Jobs[j].Name, a.Jobs[j].Estimate, c.Jobs[j].Estimate)
				}
			}
		}
		if a.Servers != c.Servers || a.Meets != c.Meets || a.AtRisk != c.AtRisk || a.Cost != c.Cost || !reflect.DeepEqual(a.Wear, c.Wear) {
			t.Fatalf("%s: alone %d servers, meets %v, cost %+v, wear %+v; in the search %d, %v, %+v, %+v",
				c.Label, a.Servers, a.Meets, a.Cost, a.Wear, c.Servers, c.Meets, c.Cost, c.Wear)
		}
		kinds[c.Swap.Kind]++
	}
	// The comparison must cover the kinds whose figures are reused.
	for _, k := range []string{SwapDrive, SwapZswap, SwapZram} {
		if kinds[k] == 0 {
			t.Errorf("no %s configuration among the %d compared", k, len(res.Configs))
		}
	}
}

// TestZswapFigureReadsOnlyItsOwnRunExcesses: the drive's run excesses a
// prediction leaves for the zswap figure are read only at their own fit
// ratio and device; a figure asked for after a prediction at another fit
// is the figure computed afresh.
func TestZswapFigureReadsOnlyItsOwnRunExcesses(t *testing.T) {
	in := edaInput(t)
	res, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	var c *Config
	for i := range res.Configs {
		if res.Configs[i].Swap.Kind == SwapZswap && res.Configs[i].Jobs[0].Fit < 1 {
			c = &res.Configs[i]
			break
		}
	}
	if c == nil {
		t.Fatal("no zswap configuration that swaps")
	}
	w, err := in.workload()
	if err != nil {
		t.Fatal(err)
	}
	j, s := w.Jobs[0], c.Swap
	var d *pricedDrive
	for _, dr := range in.Prices.Drives {
		if dr.SKU == s.Drive.SKU && dr.Catalog == s.Drive.Catalog {
			d = &pricedDrive{Drive: dr, class: dr.FactorClass()}
		}
	}
	if d == nil {
		t.Fatalf("drive %s not in the catalog", s.Drive.SKU)
	}
	dev := CatalogDevice(d.Drive, d.class, s.Drives)
	fs := in.Factors
	x := &evaluator{in: in, w: w, res: &Result{}}
	sw, _, ok := x.zram(fs, j, s.Algorithm)
	if !ok {
		t.Fatal("no zram backend")
	}
	pool := "zram-" + s.Algorithm
	z, ids, ok := x.zswapPair(fs, pool, zramDevice(sw), s.Class, dev, j, c.Cores)
	if !ok || z.poolRuns == nil {
		t.Fatalf("the pair is not derived jointly on both sides (ok %v)", ok)
	}
	f1, f2, wd := c.Jobs[0].Fit, c.Jobs[0].Fit*0.9, 0.5
	want1, want2 := z.at(wd, f1), z.at(wd, f2)
	if want1 == want2 {
		t.Fatal("the two fit ratios give the same figure: the test compares nothing")
	}
	// The drive's estimate at f1, then at f2, then the figure at f1 and
	// (after the estimate at f2 is asked again, now from the cache) at f2.
	for _, f := range []float64{f1, f2} {
		if _, err := x.predict(fs, s.Class, dev, j, f, c.Cores); err != nil {
			t.Fatal(err)
		}
	}
	if got := x.zswapAt(fs, z, ids, wd, f1); got != want1 {
		t.Errorf("figure at %.4f after the estimate at %.4f: %+v, afresh %+v", f1, f2, got, want1)
	}
	if _, err := x.predict(fs, pool, zramDevice(sw), j, f1, c.Cores); err != nil {
		t.Fatal(err)
	}
	if got := x.zswapAt(fs, z, ids, wd, f2); got != want2 {
		t.Errorf("figure at %.4f after the pool's estimate at %.4f: %+v, afresh %+v", f2, f1, got, want2)
	}
}
