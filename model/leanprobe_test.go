package model

import (
	"fmt"
	"testing"

	"github.com/memplan/memplan/units"
)

// TestHighFloorIsEachRunsTopOfTheBand checks the floor the lean search
// proves configurations out of tier 1 with (highFloor): for every drive
// configuration of the eda example, at each job's fit and at lower ones,
// the floor from any one run is at most the upper end of the band the
// full prediction gives, and the largest over the runs is that upper end,
// to the bit. A floor above the band would skip a configuration that
// meets every deadline with margin; one that never reaches it would
// prove less than it can.
func TestHighFloorIsEachRunsTopOfTheBand(t *testing.T) {
	in := edaInput(t)
	res, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := in.workload()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i := range res.Configs {
		c := &res.Configs[i]
		if c.Swap.Kind != SwapDrive {
			continue
		}
		dev, _, err := swapDevice(in, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, jr := range c.Jobs {
			if jr.Fit >= 1 {
				continue
			}
			j := w.Jobs[0]
			for _, x := range w.Jobs {
				if x.Name == jr.Name {
					j = x
				}
			}
			for _, f := range []float64{jr.Fit, jr.Fit * 0.9, jr.Fit * 0.75} {
				whole := &evaluator{in: in, w: w, res: &Result{}}
				est, err := whole.predict(whole.factorsFor(j.Name), c.Swap.Class, dev, j, f, c.Cores)
				if err != nil || est.Unsupported != "" {
					continue
				}
				probe := &evaluator{in: in, w: w, res: &Result{}}
				p, _, id, err := probe.prepFor(probe.factorsFor(j.Name), c.Swap.Class, dev, j, c.Cores)
				if err != nil {
					t.Fatal(err)
				}
				runs := p.runs()
				if len(runs) < 2 {
					t.Fatalf("%s, %s: %d runs, nothing to choose from", c.Label, j.Name, len(runs))
				}
				top := 0.0
				for r := range runs {
					probe.topRun = map[*runDef]int{runs[0].runDef: r}
					floor, ok := probe.highFloor(p, id, f)
					if !ok {
						t.Fatalf("%s, %s at %.4f: no floor", c.Label, j.Name, f)
					}
					if floor > est.High {
						t.Fatalf("%s, %s at %.4f: run %d's floor %.6f is over the band's upper end %.6f", c.Label, j.Name, f, r, floor, est.High)
					}
					top = max(top, floor)
				}
				if top != est.High {
					t.Fatalf("%s, %s at %.4f: the largest floor over %d runs is %.9f, the band's upper end %.9f", c.Label, j.Name, f, len(runs), top, est.High)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d figures, want at least 20", checked)
	}
	t.Logf("checked %d figures", checked)
}

// TestZswapFloorIsEachRunsTopOfTheBand is TestHighFloorIsEachRunsTopOfTheBand
// for zswap (zswapFloor) on the eda example, whose pairs are all derived
// jointly on both sides; TestZswapFloorOnBothKindsOfPair
// (leansearch_test.go) adds pairs whose pool leads.
func TestZswapFloorIsEachRunsTopOfTheBand(t *testing.T) {
	n, err := CheckZswapFloors(edaInput(t), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if n["joint"] < 20 {
		t.Fatalf("checked %v figures, want at least 20 of pairs derived jointly", n)
	}
	t.Logf("checked %v figures", n)
}

// CheckZswapFloors checks zswapFloor against the search: for the zswap
// configurations of in's full search (at most limit of each kind of
// pair), the floor from any one drive run is at most the upper end of
// the band the search gave the job, and the largest over the drive's
// runs is that upper end, to the bit. It returns how many figures it
// checked by kind of pair ("joint", or "pool leads").
func CheckZswapFloors(in Input, limit int) (map[string]int, error) {
	res, err := Recommend(in)
	if err != nil {
		return nil, err
	}
	w, err := in.workload()
	if err != nil {
		return nil, err
	}
	checked := map[string]int{}
	for i := range res.Configs {
		c := &res.Configs[i]
		if c.Swap.Kind != SwapZswap {
			continue
		}
		dev, base, err := swapDevice(in, c)
		if err != nil {
			return nil, err
		}
		for _, jr := range c.Jobs {
			if jr.Fit >= 1 {
				continue
			}
			var j JobClass
			for _, x := range w.Jobs {
				if x.Name == jr.Name {
					j = x
				}
			}
			probe := &evaluator{in: in, w: w, res: &Result{}}
			fs := probe.factorsFor(j.Name)
			fl := probe.zswapFloor(&base, c.Swap, j, fs, dev, true)
			if fl.refused || !fl.ok {
				continue
			}
			if fl.fit != jr.Fit {
				return nil, fmt.Errorf("%s, %s: fit %v, the search's %v", c.Label, j.Name, fl.fit, jr.Fit)
			}
			sw := fs.Software["zram-"+c.Swap.Algorithm]
			if _, ok := fs.Software["zram-"+c.Swap.Algorithm]; !ok {
				sw = in.Factors.Software["zram-"+c.Swap.Algorithm]
			}
			z, _, _ := probe.zswapPair(fs, "zram-"+c.Swap.Algorithm, zramDevice(sw), c.Swap.Class, dev, j, c.Cores)
			kind := "joint"
			if z.poolRuns == nil {
				kind = "pool leads"
			}
			if checked[kind] >= limit {
				continue
			}
			runs := z.drive.runs()
			top := 0.0
			for r := range runs {
				probe.topRun = map[*runDef]int{runs[0].runDef: r}
				fl := probe.zswapFloor(&base, c.Swap, j, fs, dev, true)
				if fl.high > jr.Estimate.High {
					return nil, fmt.Errorf("%s, %s (%s): run %d's floor %.6f is over the band's upper end %.6f", c.Label, j.Name, kind, r, fl.high, jr.Estimate.High)
				}
				top = max(top, fl.high)
			}
			if top != jr.Estimate.High {
				return nil, fmt.Errorf("%s, %s (%s): the largest floor over %d runs is %.9f, the band's upper end %.9f", c.Label, j.Name, kind, len(runs), top, jr.Estimate.High)
			}
			checked[kind]++
		}
	}
	return checked, nil
}

// swapDevice is the swap device of a configuration c the search kept
// (its drives, as addDrive makes it) and c before its swap was chosen.
func swapDevice(in Input, c *Config) (Device, Config, error) {
	base := Config{Platform: c.Platform, Cores: c.Cores, DIMM: c.DIMM, DIMMCount: c.DIMMCount, MemorySpeed: c.MemorySpeed,
		DIMMsPerChannel: c.DIMMsPerChannel, Installed: c.Installed, Usable: c.Usable}
	for _, dr := range in.Prices.Drives {
		if dr.SKU == c.Swap.Drive.SKU && dr.Catalog == c.Swap.Drive.Catalog {
			return drivesDevice(&pricedDrive{Drive: dr, class: dr.FactorClass()}, c.Swap), base, nil
		}
	}
	return Device{}, base, fmt.Errorf("%s: drive %s not in the catalog", c.Label, c.Swap.Drive.SKU)
}

// TestProofReadsEveryJobForTheNote: a configuration that one job proves
// out of tier 1 can still be the one the verdict's note names through
// another job, whose shape is unknown. provenNotTier1 must read that job
// too and say the configuration is not note-safe. The eda example is
// changed so that its first job states its shape and both jobs' deadlines
// fall inside their bands (each at risk, neither missing).
func TestProofReadsEveryJobForTheNote(t *testing.T) {
	in := edaInput(t)
	w0, err := in.workload()
	if err != nil {
		t.Fatal(err)
	}
	w := *w0
	w.Jobs = append([]JobClass(nil), w0.Jobs...)
	w.Jobs[0].Access = "uniform"
	w.Jobs[0].Footprint = w.Jobs[0].Footprint * 8 / 10
	for i := range w.Jobs {
		w.Jobs[i].Deadline = units.Duration(1e18)
	}
	in.Workload = &w
	res, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Configs {
		c := res.Configs[i]
		if c.Swap.Kind != SwapDrive || c.Extrapolated || len(c.Jobs) != 2 {
			continue
		}
		a, b := c.Jobs[0], c.Jobs[1]
		if a.Fit >= 1 || a.Fit < 1-PublishedOffload || b.Fit >= 1 || a.Estimate.ShapeUnknown || !b.Estimate.ShapeUnknown || a.RuntimeHigh <= a.Runtime+2 || b.RuntimeHigh <= b.Runtime+2 {
			continue
		}
		w2 := w
		w2.Jobs = append([]JobClass(nil), w.Jobs...)
		w2.Jobs[0].Deadline = (a.Runtime + a.RuntimeHigh) / 2
		w2.Jobs[1].Deadline = (b.Runtime + b.RuntimeHigh) / 2
		in2 := in
		in2.Workload = &w2
		_, base, err := swapDevice(in2, &c)
		if err != nil {
			t.Fatal(err)
		}
		var d *pricedDrive
		for _, dr := range in2.Prices.Drives {
			if dr.SKU == c.Swap.Drive.SKU && dr.Catalog == c.Swap.Drive.Catalog {
				d = &pricedDrive{Drive: dr, class: dr.FactorClass(), price: c.Swap.Drive.Price}
			}
		}
		ev := &evaluator{in: in2, w: &w2, res: &Result{}, rejected: map[Reject]int{}, notes: map[Reject]rejectNote{}}
		ev.addDrive(base, c.Swap, d)
		if len(ev.configs) != 1 || !noteCandidate(ev.configs[0]) {
			continue
		}
		proven, safe, _ := ev.provenNotTier1(base, c.Swap, d)
		if !proven {
			continue
		}
		if safe {
			t.Fatalf("%s: proven out of tier 1 and called note-safe, but evaluated it is a configuration the note could name", c.Label)
		}
		return
	}
	t.Fatal("no configuration that one job proves and the other makes a note candidate: the test checks nothing")
}
